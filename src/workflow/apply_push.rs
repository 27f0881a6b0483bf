//! Apply a push to a stored graph: prepare the pushed files (parsing, outside any
//! transaction), lay them over the graph (pure), then write what changed (the store,
//! under the repository's lock).

use rayon::prelude::*;
use rustc_hash::FxHashSet;

use crate::graph::{FileId, Graph};
use crate::indexer::facts::FileFacts;
use crate::indexer::pipeline::SourceFile;
use crate::indexer::select::{classify, select_decided, PathKind, Selected};
use crate::indexer::skip::{SkipReason, SkipRules};
use crate::model::{BlobSha, CommitSha, RepoId};
use crate::store::{FileMeta, PushWrite, Store, StoreError, Written};

/// One file of a push: the file the indexer reads (path, bytes, or why it was skipped
/// before its bytes were fetched) and its blob, which the store keys rows and the facts
/// cache by. The blob stays beside the file rather than in it: indexing a working tree
/// has no blob to give and should not hash every file for one.
#[derive(Clone, Debug)]
pub struct FileInput {
    pub blob: BlobSha,
    pub file: SourceFile,
}

impl FileInput {
    /// A file with its blob sha computed from its bytes.
    pub fn new(path: impl Into<String>, bytes: Vec<u8>) -> FileInput {
        FileInput {
            blob: BlobSha::of(&bytes),
            file: SourceFile::new(path, bytes),
        }
    }

    /// A file skipped before its bytes were fetched (too large by its size, or past the
    /// job's byte budget).
    pub fn skipped(path: impl Into<String>, blob: BlobSha, reason: SkipReason) -> FileInput {
        FileInput {
            blob,
            file: SourceFile {
                path: path.into(),
                bytes: Vec::new(),
                skip: Some(reason),
            },
        }
    }
}

/// A push ready to lay over a graph: every pushed file classified by the one selection
/// policy, code files' facts extracted (or taken from the facts cache).
pub struct PreparedPush {
    pub meta: FileMeta,
    pub configs: Vec<(String, String)>,
    /// Facts of the pushed code files, and whether each was parsed now.
    pub code: Vec<(FileFacts, bool)>,
    pub removed: Vec<String>,
    /// Pushed files of a kind read only when their text says so (an HTML file is read
    /// when it is an Angular template) that are not read now: one the graph holds
    /// stopped being read, and leaves it as a full index would leave it out.
    pub not_read: Vec<String>,
}

/// What laying a push over a graph changed.
pub struct GraphChange {
    /// The pushed code files and every file whose resolution moved, sorted.
    pub rewritten: Vec<FileId>,
    /// Paths whose facts were parsed now.
    pub parsed: FxHashSet<String>,
}

/// Classifies the pushed files and extracts the code files the facts cache lacks.
pub async fn prepare(
    store: &Store,
    repo: RepoId,
    changed: Vec<FileInput>,
    removed: Vec<String>,
    rules: &SkipRules,
) -> Result<PreparedPush, StoreError> {
    let mut meta = FileMeta::default();
    let mut configs = Vec::new();
    let mut code = Vec::new();
    let mut not_read = Vec::new();
    for input in changed {
        let file = &input.file;
        match select_decided(&file.path, &file.bytes, file.skip, rules) {
            Selected::Ignored => {
                if classify(&file.path) == PathKind::Unreadable {
                    not_read.push(file.path.clone());
                }
                continue;
            }
            Selected::Config(text) => configs.push((file.path.clone(), text.to_string())),
            Selected::Skipped(reason) => meta.skipped.push((file.path.clone(), reason)),
            Selected::Code(..) => code.push(input.clone()),
        }
        meta.blobs.insert(input.file.path, input.blob.0);
    }
    let keys: Vec<(String, BlobSha)> = code
        .iter()
        .map(|i| (i.file.path.clone(), i.blob.clone()))
        .collect();
    let cached = store.cached_facts(repo, &keys).await?;
    let code = super::cpu(|| extract(code, &cached, rules));
    let (code, too_costly) = split_skips(code);
    meta.skipped.extend(too_costly);
    Ok(PreparedPush {
        meta,
        configs,
        code,
        removed,
        not_read,
    })
}

/// Each code file's facts (from the cache, or parsed now), or why it is skipped.
type Extraction = Result<(FileFacts, bool), (String, SkipReason)>;

fn extract(
    code: Vec<FileInput>,
    cached: &rustc_hash::FxHashMap<String, FileFacts>,
    rules: &SkipRules,
) -> Vec<Extraction> {
    let cancel = crate::cancel::current();
    code.into_par_iter()
        .filter_map(|FileInput { file, .. }| {
            if let Some(f) = cached.get(&file.path) {
                return Some(Ok((f.clone(), false)));
            }
            match select_decided(&file.path, &file.bytes, file.skip, rules) {
                Selected::Code(language, text) => Some(
                    crate::cancel::scoped(cancel.clone(), || {
                        crate::indexer::extract(&file.path, language, text)
                    })
                    .map(|facts| (facts, true))
                    .map_err(|reason| (file.path.clone(), reason)),
                ),
                _ => None,
            }
        })
        .collect()
}

/// Files skipped, with why.
type Skips = Vec<(String, SkipReason)>;

/// The facts extracted, and the files extraction skipped (too costly to read): those
/// leave the graph like any skipped file.
pub(crate) fn split_skips(extracted: Vec<Extraction>) -> (Vec<(FileFacts, bool)>, Skips) {
    let mut code = Vec::with_capacity(extracted.len());
    let mut skipped = Vec::new();
    for e in extracted {
        match e {
            Ok(facts) => code.push(facts),
            Err(skip) => skipped.push(skip),
        }
    }
    (code, skipped)
}

/// Lays a prepared push over `graph`: removed and skipped files go, configs and code
/// files are replaced, and every file whose resolution moved is collected.
pub fn lay_over(graph: &mut Graph, push: &mut PreparedPush) -> GraphChange {
    let mut affected: FxHashSet<FileId> = FxHashSet::default();
    for path in &push.removed {
        affected.extend(graph.remove_file(path));
    }
    for (path, _) in &push.meta.skipped {
        affected.extend(graph.remove_file(path));
    }
    for path in std::mem::take(&mut push.not_read) {
        if graph.file_id(&path).is_some() {
            affected.extend(graph.remove_file(&path));
            push.removed.push(path);
        }
    }
    for (path, text) in &push.configs {
        affected.extend(graph.update_config(path, Some(text)));
    }
    let mut parsed = FxHashSet::default();
    for (facts, fresh) in std::mem::take(&mut push.code) {
        if fresh {
            parsed.insert(facts.path.clone());
        }
        affected.extend(graph.update_facts(facts));
    }
    let mut rewritten: Vec<FileId> = affected.into_iter().collect();
    rewritten.sort();
    GraphChange { rewritten, parsed }
}

/// Applies a push: `graph` must hold the stored graph at version `expected`. It is
/// consumed: on success the updated graph comes back; on error it is gone (it may be
/// ahead of the database) and must be loaded again.
#[allow(clippy::too_many_arguments)]
pub async fn apply_push(
    store: &Store,
    repo: RepoId,
    mut graph: Graph,
    expected: i64,
    commit: Option<&CommitSha>,
    changed: Vec<FileInput>,
    removed: Vec<String>,
    rules: &SkipRules,
) -> Result<(Graph, Written), StoreError> {
    let mut push = prepare(store, repo, changed, removed, rules).await?;
    let change = super::cpu(|| lay_over(&mut graph, &mut push));
    let write = PushWrite {
        expected,
        commit,
        meta: &push.meta,
        configs: &push.configs,
        rewritten: &change.rewritten,
        removed: &push.removed,
        parsed: &change.parsed,
    };
    let written = store.write_push(repo, &graph, &write).await?;
    Ok((graph, written))
}
