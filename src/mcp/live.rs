//! The graph the server answers from, kept current: a working tree's files re-read when
//! they change (only those, laid over the graph as a push is), or a stored graph caught
//! up from the rows written since it was loaded.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result};
use rayon::prelude::*;

use super::watch::{Pending, Watch};
use crate::graph::Graph;
use crate::indexer::pipeline::SourceFile;
use crate::indexer::select::{select, wanted, Selected, SKIPPED_DIRS};
use crate::indexer::skip::{SkipReason, SkipRules};
use crate::model::RepoId;
use crate::query::NameIndex;
use crate::store::{FileMeta, Store};
use crate::workflow::apply_push::{lay_over, PreparedPush};
use crate::workflow::index::{index, Indexed};
use crate::workflow::progress::Silent;
use crate::workflow::save::load_stored;
use crate::workflow::source::{FileEntry, Revision};
use crate::workspace::walk::{list_tree, read};

/// What one answer is computed on: the graph and the files it skipped. Tools hold it
/// while they work; an update meanwhile makes a new one (the graph's clone is a cheap
/// fork).
#[derive(Clone)]
pub struct Snapshot {
    pub graph: Graph,
    pub skipped: BTreeMap<String, SkipReason>,
    /// The graph's names, indexed on first use after each change.
    names: OnceLock<Arc<NameIndex>>,
}

impl Snapshot {
    fn new(graph: Graph, skipped: impl IntoIterator<Item = (String, SkipReason)>) -> Snapshot {
        Snapshot {
            graph,
            skipped: skipped.into_iter().collect(),
            names: OnceLock::new(),
        }
    }

    /// Lookups by name in constant time (a scan of every definition costs a
    /// millisecond on a large repository).
    pub fn names(&self) -> &NameIndex {
        self.names
            .get_or_init(|| Arc::new(NameIndex::build(&self.graph)))
    }

    /// The graph, to change it: the name index is built again when next used.
    fn graph_mut(&mut self) -> &mut Graph {
        self.names = OnceLock::new();
        &mut self.graph
    }

    pub fn skipped_list(&self) -> Vec<(String, SkipReason)> {
        self.skipped.iter().map(|(p, r)| (p.clone(), *r)).collect()
    }
}

/// The graph being served and how it is kept current.
pub struct Served {
    current: Mutex<Arc<Snapshot>>,
    keeper: Keeper,
    pub rules: SkipRules,
}

enum Keeper {
    /// A working tree on disk, watched.
    Disk {
        root: PathBuf,
        watch: Watch,
        tree: Mutex<Tree>,
    },
    /// A graph stored in Postgres by `index --database-url` or the app.
    Stored {
        store: Store,
        repo: RepoId,
        name: String,
        version: Mutex<i64>,
    },
}

/// What changed in the last update, for the log.
#[derive(Default)]
pub struct Update {
    pub read: usize,
    pub changed: usize,
    pub removed: usize,
    pub rescanned: bool,
}

impl Served {
    /// Indexes the working tree at `root`, watching it first so that no edit made while
    /// it is indexed is missed.
    pub fn index(root: &Path, rules: SkipRules) -> Result<Served> {
        let root = root
            .canonicalize()
            .with_context(|| format!("{} is not a directory", root.display()))?;
        if !root.is_dir() {
            anyhow::bail!("{} is not a directory", root.display());
        }
        let watch = Watch::start(&root);
        let (files, dirs) = list_tree(&root)?;
        watch.watch_dirs(&dirs, &[]);
        let stamps: BTreeMap<String, Stamp> = files
            .par_iter()
            .filter_map(|p| Stamp::of(&root.join(p)).map(|s| (p.clone(), s)))
            .collect();
        let listed = Listed {
            root: &root,
            paths: files,
        };
        let indexed = index(&listed, &rules, &Silent)?;
        let snapshot = Snapshot::new(indexed.graph, indexed.skipped);
        snapshot.names();
        Ok(Served {
            current: Mutex::new(Arc::new(snapshot)),
            keeper: Keeper::Disk {
                root,
                watch,
                tree: Mutex::new(Tree {
                    files: stamps,
                    dirs: dirs.into_iter().collect(),
                    ignored: BTreeSet::new(),
                }),
            },
            rules,
        })
    }

    /// Loads repository `name`'s stored graph.
    pub async fn load(store: Store, name: &str, rules: SkipRules) -> Result<Served> {
        let (indexed, state) = load_stored(&store, name).await?;
        let snapshot = Snapshot::new(indexed.graph, indexed.skipped);
        snapshot.names();
        Ok(Served {
            current: Mutex::new(Arc::new(snapshot)),
            keeper: Keeper::Stored {
                store,
                repo: state.id,
                name: name.to_string(),
                version: Mutex::new(state.version),
            },
            rules,
        })
    }

    /// The watcher's state, for the start-up log line.
    pub fn watching(&self) -> Option<&'static str> {
        match &self.keeper {
            Keeper::Disk { watch, .. } => Some(watch.mode()),
            Keeper::Stored { .. } => None,
        }
    }

    /// The store and repository name when the graph comes from Postgres.
    pub fn stored(&self) -> Option<(&Store, &str)> {
        match &self.keeper {
            Keeper::Stored { store, name, .. } => Some((store, name)),
            Keeper::Disk { .. } => None,
        }
    }

    /// The graph as it is now: every change on disk up to this call is in it (or every
    /// row stored up to this call).
    pub async fn current(&self) -> Result<Arc<Snapshot>> {
        match &self.keeper {
            Keeper::Disk { root, watch, tree } => {
                let synced = watch.sync().await;
                // Taken under the tree's lock: a call that finds nothing left to take
                // waits for the call that took it to finish laying it over the graph.
                let mut tree = tree.lock().unwrap_or_else(|e| e.into_inner());
                let pending = watch.take(synced);
                if pending.is_empty() {
                    return Ok(self.snapshot());
                }
                crate::workflow::cpu(|| {
                    let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
                    let start = Instant::now();
                    let update = tree.update(
                        root,
                        Arc::make_mut(&mut current),
                        pending,
                        &self.rules,
                        watch,
                    )?;
                    if update.changed + update.removed > 0 || update.rescanned {
                        tracing::info!(
                            read = update.read,
                            changed = update.changed,
                            removed = update.removed,
                            walked = update.rescanned,
                            ms = start.elapsed().as_secs_f64() * 1e3,
                            "graph updated from disk"
                        );
                    }
                    Ok(Arc::clone(&current))
                })
            }
            Keeper::Stored {
                store,
                repo,
                version,
                ..
            } => {
                let from = *version.lock().unwrap_or_else(|e| e.into_inner());
                let graph = self.snapshot().graph.clone();
                let (graph, now) = store.catch_up(*repo, graph, from).await?;
                if now != from {
                    let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
                    let mut v = version.lock().unwrap_or_else(|e| e.into_inner());
                    // Another call may have caught up further meanwhile.
                    if now > *v {
                        *Arc::make_mut(&mut current).graph_mut() = graph;
                        *v = now;
                        tracing::info!(from, to = now, "graph caught up with the store");
                    }
                }
                Ok(self.snapshot())
            }
        }
    }

    fn snapshot(&self) -> Arc<Snapshot> {
        Arc::clone(&self.current.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// A file as last read: enough to tell, without reading it, whether it changed since
/// (size and modification time), and its contents' hash once read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    hash: Option<u64>,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        meta.is_file().then(|| Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            hash: None,
        })
    }

    fn same_file(&self, other: &Stamp) -> bool {
        self.len == other.len && self.modified == other.modified
    }
}

/// The working tree as the graph last saw it: every file read (code, config, skipped)
/// and every directory watched.
struct Tree {
    files: BTreeMap<String, Stamp>,
    dirs: BTreeSet<String>,
    /// Files seen by the watcher that the walk leaves out (.gitignore): their changes
    /// need no new walk until an ignore file changes.
    ignored: BTreeSet<String>,
}

impl Tree {
    /// Brings `snapshot` up to the files on disk. Paths the watcher reported are re-read
    /// (whatever their stamps say: a modification time ticks coarsely); a path the
    /// walk has not seen (a new file, which .gitignore may hide), a directory's
    /// change, an ignore file's change, or a watcher that lost events, makes it walk
    /// the whole tree again and compare stamps.
    fn update(
        &mut self,
        root: &Path,
        snapshot: &mut Snapshot,
        pending: Pending,
        rules: &SkipRules,
        watch: &Watch,
    ) -> Result<Update> {
        let mut touched = self.sort(root, pending);
        if touched.rescan {
            self.rescan(root, &mut touched, watch)?;
        }
        let Touched {
            rescan,
            reread,
            removed,
            ..
        } = touched;
        let mut update = Update {
            rescanned: rescan,
            read: reread.len(),
            ..Update::default()
        };
        let changed = self.read_changed(root, reread);
        for path in &removed {
            self.files.remove(path);
        }
        update.changed = changed.len();
        update.removed = removed.len();
        if !changed.is_empty() || !removed.is_empty() {
            lay_files(snapshot, changed, removed.into_iter().collect(), rules);
        }
        Ok(update)
    }

    /// What the watcher's paths ask for: files to read again, files gone, new files, and
    /// whether only a walk of the whole tree can tell the rest.
    fn sort(&mut self, root: &Path, pending: Pending) -> Touched {
        let mut touched = Touched {
            rescan: pending.rescan,
            ..Touched::default()
        };
        for path in pending.paths {
            if !wanted(&path) {
                let name = path.rsplit('/').next().unwrap_or(&path);
                if matches!(name, ".gitignore" | ".ignore") {
                    self.ignored.clear();
                    touched.rescan = true;
                } else if self.dirs.contains(&path)
                    || (root.join(&path).is_dir() && !SKIPPED_DIRS.contains(&name))
                {
                    touched.rescan = true;
                }
                continue;
            }
            let on_disk = root.join(&path).is_file();
            match (self.files.contains_key(&path), on_disk) {
                (true, true) => {
                    touched.reread.insert(path);
                }
                (true, false) => {
                    touched.removed.insert(path);
                }
                (false, true) if self.ignored.contains(&path) => {}
                (false, true) => {
                    touched.new.push(path);
                    touched.rescan = true;
                }
                (false, false) => {}
            }
        }
        touched
    }

    /// Walks the whole tree: watches new directories, learns which new files the walk
    /// leaves out, and adds every file whose stamp moved (or that went) to `touched`.
    fn rescan(&mut self, root: &Path, touched: &mut Touched, watch: &Watch) -> Result<()> {
        let (files, dirs) = list_tree(root)?;
        let dirs: BTreeSet<String> = dirs.into_iter().collect();
        let added: Vec<String> = dirs.difference(&self.dirs).cloned().collect();
        let gone: Vec<String> = self.dirs.difference(&dirs).cloned().collect();
        watch.watch_dirs(&added, &gone);
        self.dirs = dirs;
        let listed: BTreeSet<&String> = files.iter().collect();
        self.ignored.extend(
            std::mem::take(&mut touched.new)
                .into_iter()
                .filter(|p| !listed.contains(p)),
        );
        touched
            .removed
            .extend(self.files.keys().filter(|p| !listed.contains(p)).cloned());
        touched.reread.retain(|p| listed.contains(p));
        let stale: Vec<String> = files
            .par_iter()
            .filter(|p| match (self.files.get(*p), Stamp::of(&root.join(p))) {
                (Some(old), Some(now)) => !old.same_file(&now),
                _ => true,
            })
            .cloned()
            .collect();
        touched.reread.extend(stale);
        Ok(())
    }

    /// Reads `paths` and keeps, stamped, the files whose contents did change.
    fn read_changed(&mut self, root: &Path, paths: BTreeSet<String>) -> Vec<SourceFile> {
        let read: Vec<(SourceFile, Stamp)> = paths
            .into_par_iter()
            .filter_map(|path| {
                let full = root.join(&path);
                let stamp = Stamp::of(&full)?;
                let bytes = std::fs::read(&full).ok()?;
                let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
                Some((
                    SourceFile::new(path, bytes),
                    Stamp {
                        hash: Some(hash),
                        ..stamp
                    },
                ))
            })
            .collect();
        let mut changed = Vec::new();
        for (file, stamp) in read {
            let old = self.files.insert(file.path.clone(), stamp);
            if old.and_then(|s| s.hash) != stamp.hash {
                changed.push(file);
            }
        }
        changed
    }
}

/// The paths one update must look at, sorted by what they need.
#[derive(Default)]
struct Touched {
    rescan: bool,
    reread: BTreeSet<String>,
    removed: BTreeSet<String>,
    /// Files the walk has not seen: listed by the next walk, or ignored.
    new: Vec<String>,
}

/// Lays new versions of files over the graph, and takes removed files out of it, as a
/// push is laid over a stored graph: each file selected by the one policy, code files
/// extracted alone, only what they can affect resolved again. Also what turns a working
/// tree's graph into its base's (the changed files put back as the base has them).
pub fn lay_files(
    snapshot: &mut Snapshot,
    files: Vec<SourceFile>,
    removed: Vec<String>,
    rules: &SkipRules,
) {
    let graph = &snapshot.graph;
    let configs: BTreeMap<&str, &str> = graph.configs().collect();
    let in_graph = |path: &str| graph.file_id(path).is_some() || configs.contains_key(path);
    let mut push = PreparedPush {
        meta: FileMeta::default(),
        configs: Vec::new(),
        code: Vec::new(),
        removed: removed.iter().filter(|p| in_graph(p)).cloned().collect(),
        not_read: Vec::new(),
    };
    for path in &removed {
        snapshot.skipped.remove(path);
    }
    let code: Vec<&SourceFile> = files
        .iter()
        .filter(|f| {
            snapshot.skipped.remove(&f.path);
            match select(&f.path, &f.bytes, rules) {
                Selected::Code(..) => true,
                Selected::Config(text) => {
                    // A config rebuilds every import: only when its text did change.
                    if configs.get(f.path.as_str()) != Some(&text) {
                        push.configs.push((f.path.clone(), text.to_string()));
                    }
                    false
                }
                Selected::Skipped(reason) => {
                    snapshot.skipped.insert(f.path.clone(), reason);
                    if in_graph(&f.path) {
                        push.meta.skipped.push((f.path.clone(), reason));
                    }
                    false
                }
                Selected::Ignored => {
                    // An HTML file that stopped being an Angular template.
                    if graph.file_id(&f.path).is_some() {
                        push.removed.push(f.path.clone());
                    }
                    false
                }
            }
        })
        .collect();
    let extracted = code
        .into_par_iter()
        .filter_map(|f| match select(&f.path, &f.bytes, rules) {
            Selected::Code(language, text) => Some(
                crate::indexer::extract(&f.path, language, text)
                    .map(|facts| (facts, true))
                    .map_err(|reason| (f.path.clone(), reason)),
            ),
            _ => None,
        })
        .collect();
    let (code, too_costly) = crate::workflow::apply_push::split_skips(extracted);
    push.code = code;
    for (path, reason) in too_costly {
        snapshot.skipped.insert(path.clone(), reason);
        if in_graph(&path) {
            push.meta.skipped.push((path, reason));
        }
    }
    drop(configs);
    lay_over(snapshot.graph_mut(), &mut push);
}

/// A listing already made, as a revision to index.
struct Listed<'a> {
    root: &'a Path,
    paths: Vec<String>,
}

impl Revision for Listed<'_> {
    fn commit(&self) -> Option<crate::model::CommitSha> {
        None
    }

    fn files(&self) -> Result<Vec<FileEntry>> {
        Ok(self
            .paths
            .iter()
            .map(|path| FileEntry {
                path: path.clone(),
                blob: None,
            })
            .collect())
    }

    fn read(&self, entries: &[FileEntry]) -> Result<Vec<SourceFile>> {
        read(self.root, entries.iter().map(|e| e.path.clone()).collect())
    }

    fn reads_one_cheaply(&self) -> bool {
        true
    }
}

/// An [`Indexed`] of a snapshot, for the workflows that take one.
pub fn indexed(snapshot: Snapshot) -> Indexed {
    Indexed {
        skipped: snapshot.skipped.into_iter().collect(),
        graph: snapshot.graph,
        bytes: 0,
        from_cache: 0,
        extract_time: std::time::Duration::ZERO,
        resolve_time: std::time::Duration::ZERO,
    }
}
