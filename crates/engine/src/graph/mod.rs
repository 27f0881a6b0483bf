//! The in-memory call graph of one repository: per-file facts, their resolution into
//! edges, and the reverse index that answers "who calls X" in one lookup.
//!
//! Each file's facts are replaceable on their own. Resolving a file records what it
//! read (other files' facts, name-only matches), so replacing one file re-resolves
//! exactly the files whose edges could change; the result equals a full rebuild.
//!
//! A clone of a graph is a fork: it shares everything with the original (files,
//! indexes, names) through copy-on-write chunks (cow.rs), so cloning costs a few
//! thousand pointer copies whatever the repository's size, and updating a few files of
//! a fork copies only the chunks those updates write to. A server keeps each
//! repository's base graph in a shared cache and lays a pull request over a fork of it.

pub mod confidence;
mod cow;
mod declared;
pub mod external;
mod facts_view;
mod file_index;
mod ids;
mod install;
pub mod interner;
mod memory;
pub mod modules;
mod names;
mod nuxt;
mod query;
mod resolve;
pub mod stored;
mod targets;
mod templates;
mod update;

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::FxHashSet;

pub use confidence::Confidence;
use cow::{Column, PathIndex, Shards};
pub use facts_view::Facts;
use file_index::FileIndex;
pub use ids::{Caller, DefId, Edge, FileId};
use interner::{Interner, NameId};
pub use memory::HeapParts;
use modules::ModuleResolver;
pub use query::{CallerNode, EdgeKey, Found, TransitiveCaller};
pub use resolve::{Resolution, MAX_CANDIDATES};
pub(crate) use targets::Target;

use crate::indexer::facts::*;

/// What a file's content gives the graph: its facts and the lookup tables built from
/// them. Replaced as a whole when the file changes; shared by forks until then.
pub(crate) struct FileSource {
    pub(crate) facts: FileFacts,
    pub(crate) index: FileIndex,
}

/// One file: its content, where its imports lead, and its resolution. Each part is
/// shared by forks and replaced, never written in place.
#[derive(Clone)]
pub(crate) struct FileSlot {
    source: Arc<FileSource>,
    /// Specifier (local string id) -> target.
    targets: Arc<targets::Targets>,
    resolution: Arc<Resolution>,
}

impl FileSlot {
    #[inline]
    pub(crate) fn facts(&self) -> &FileFacts {
        &self.source.facts
    }

    #[inline]
    pub(crate) fn index(&self) -> &FileIndex {
        &self.source.index
    }

    #[inline]
    pub(crate) fn target(&self, specifier: StrId) -> Target {
        self.targets
            .get(&specifier)
            .copied()
            .unwrap_or(Target::Unresolved)
    }
}

/// The callers of one file's definitions, by definition index (see [`Graph::callers`]).
type DefCallers = Vec<Vec<Caller>>;

#[derive(Default, Clone)]
pub struct Graph {
    pub(crate) names: Interner,
    /// File id -> its slot; `None` for a removed file (ids are not reused).
    files: Column<Option<FileSlot>>,
    by_path: PathIndex,
    configs: Arc<BTreeMap<String, String>>,
    resolver: Arc<ModuleResolver>,
    /// Callable definitions by simple name, for name-only matches.
    by_name: Shards<NameId, Vec<DefId>>,
    /// Callee file -> call sites of each of its definitions, sorted by file and site.
    callers: Column<Option<Arc<DefCallers>>>,
    /// File -> files whose resolution read it.
    dependents: Column<Option<Arc<FxHashSet<FileId>>>>,
    /// Name -> files with a site matched by that name only.
    fallback_users: Shards<NameId, FxHashSet<FileId>>,
    /// Declarations paired with the code they declare, worked out when first asked.
    declared: declared::DeclaredCache,
    /// Angular templates and the classes that name them.
    hosts: Arc<templates::Hosts>,
    /// How many `nuxt.config.*` files the graph holds: with none, no name is looked up by
    /// Nuxt's rules (see `nuxt`).
    nuxt_configs: u32,
}

impl Graph {
    /// A graph of `files`, with `configs` the repository's tsconfig/jsconfig/package.json
    /// files (path, contents) that decide how imports resolve.
    pub fn build(files: Vec<FileFacts>, configs: Vec<(String, String)>) -> Graph {
        let mut g = Graph {
            resolver: Arc::new(ModuleResolver::new(&configs)),
            configs: Arc::new(configs.into_iter().collect()),
            ..Graph::default()
        };
        for facts in files {
            g.insert_slot(facts);
        }
        g.retarget_all();
        let all: Vec<FileId> = g.file_ids().collect();
        g.resolve_new(&all);
        g.shrink();
        g
    }

    /// Returns the slack of growing vectors after a bulk build.
    pub(crate) fn shrink(&mut self) {
        self.names.shrink_to_fit();
        for lists in self.callers.iter_mut().flatten() {
            let lists = Arc::make_mut(lists);
            lists.shrink_to_fit();
            for callers in lists {
                callers.shrink_to_fit();
            }
        }
        for defs in self.by_name.values_mut() {
            defs.shrink_to_fit();
        }
    }

    // ---- access ----

    #[inline]
    pub(crate) fn slot(&self, f: FileId) -> &FileSlot {
        self.files
            .get(f.0 as usize)
            .and_then(Option::as_ref)
            .expect("file ids in use point at live slots")
    }

    pub fn file_ids(&self) -> impl Iterator<Item = FileId> + '_ {
        self.files
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some())
            .map(|(i, _)| FileId(i as u32))
    }

    pub fn file_count(&self) -> usize {
        self.by_path.len()
    }

    /// How this graph resolves import specifiers: its packages and configs.
    pub fn resolver(&self) -> &ModuleResolver {
        &self.resolver
    }

    pub fn file_id(&self, path: &str) -> Option<FileId> {
        self.by_path.get(path).map(FileId)
    }

    /// The facts of `f`: read their strings with [`Facts::str`].
    #[inline]
    pub fn facts(&self, f: FileId) -> Facts<'_> {
        Facts::new(self.slot(f).facts(), &self.names)
    }

    /// A string of the facts the graph holds (see [`Facts`]).
    #[inline]
    pub(crate) fn str(&self, id: StrId) -> &str {
        self.name(NameId(id))
    }

    pub fn resolution(&self, f: FileId) -> &Resolution {
        &self.slot(f).resolution
    }

    pub fn name(&self, id: NameId) -> &str {
        self.names.resolve(id)
    }

    /// Every call site that resolved to `d` (exactly, or by name with its confidence),
    /// sorted by file and site.
    #[inline]
    pub fn callers(&self, d: DefId) -> &[Caller] {
        match self.callers.get(d.file.0 as usize) {
            Some(Some(lists)) => lists.get(d.def as usize).map_or(&[], Vec::as_slice),
            _ => &[],
        }
    }

    /// The edges of `f`'s call sites, sorted by site and target. Each edge is held once,
    /// in the reverse index; this gathers `f`'s from the runs of its callees.
    pub fn edges(&self, f: FileId) -> Vec<Edge> {
        let mut edges = Vec::new();
        for &t in &self.resolution(f).callees {
            let list = self.callers(t);
            edges.extend(
                list[install::file_run(list, f)]
                    .iter()
                    .map(|c| Edge::new(c.site(), t, c.confidence())),
            );
        }
        edges.sort_unstable_by_key(|e| (e.site(), e.target));
        edges
    }

    /// The repository's config files (path, contents).
    pub fn configs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.configs.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The files whose resolution read `f`.
    fn dependents_of(&self, f: FileId) -> impl Iterator<Item = FileId> + '_ {
        self.dependents
            .get(f.0 as usize)
            .and_then(Option::as_ref)
            .into_iter()
            .flat_map(|set| set.iter().copied())
    }

    /// The files with a site matched by `name` only.
    fn fallback_users_of(&self, name: NameId) -> impl Iterator<Item = FileId> + '_ {
        self.fallback_users
            .get(&name)
            .into_iter()
            .flat_map(|set| set.iter().copied())
    }
}
