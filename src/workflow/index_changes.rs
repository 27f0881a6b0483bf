//! `index --database-url` on a tree the database already holds a graph of: the files
//! whose blobs differ from the stored ones are applied to the stored graph as a push is
//! (`apply_push`), so only their rows and those of the files whose resolution moved are
//! written, instead of every row of the repository.

use std::time::{Duration, Instant};

use anyhow::Result;
use rustc_hash::{FxHashMap, FxHashSet};

use super::apply_push::{apply_push, FileInput};
use super::index::Indexed;
use super::progress::Progress;
use super::source::{FileEntry, Revision};
use crate::indexer::skip::SkipRules;
use crate::model::BlobSha;
use crate::store::{RepoState, Store, Written};

/// Past this share of the tree changed (added, edited or removed), a full index and
/// write costs no more than applying the change, and is done instead.
const MOST_CHANGED: f64 = 0.2;

/// What an index of the changes found changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Changed {
    /// Files whose blob differs from the stored one (added or edited), read now.
    pub edited: usize,
    pub removed: usize,
}

/// The graph brought up to date, and what its write did.
pub struct IndexedChanges {
    pub indexed: Indexed,
    pub written: Written,
    pub changed: Changed,
    /// The time to apply the change and write it.
    pub save_time: Duration,
}

/// Indexes only what changed in `revision` since the graph stored as `repo`, when the
/// stored graph can be brought up to date file by file: it exists, was built under the
/// reading policy and parser in use now, holds every row a full write stores now, and
/// with the default skip rules (the rows do not say which rules skipped a file); and not
/// a fifth of the tree or more changed. None: index in full.
pub async fn index_changes(
    store: &Store,
    repo: &RepoState,
    revision: &impl Revision,
    rules: &SkipRules,
    progress: &dyn Progress,
) -> Result<Option<IndexedChanges>> {
    let default = SkipRules::default();
    if repo.version == 0
        || !repo.selection_current()
        || (rules.max_bytes, rules.max_line) != (default.max_bytes, default.max_line)
        || !store.rows_current(repo.id).await?
    {
        return Ok(None);
    }
    let start = Instant::now();
    let entries = revision.files()?;
    let stored: FxHashMap<String, BlobSha> = store.file_blobs(repo.id).await?.into_iter().collect();
    // A file git cannot give a blob for without reading it (edited since it was staged)
    // is read now, and kept for the apply.
    let (known, unknown): (Vec<FileEntry>, Vec<FileEntry>) =
        entries.iter().cloned().partition(|e| e.blob.is_some());
    // A batch at a time: a plain directory has no blobs to give, and its files' bytes
    // are not all held at once.
    let mut inputs: Vec<FileInput> = Vec::new();
    for batch in unknown.chunks(1024) {
        let files = super::cpu(|| revision.read(batch))?;
        inputs.extend(
            files
                .into_iter()
                .map(|file| FileInput {
                    blob: BlobSha::of(&file.bytes),
                    file,
                })
                .filter(|i| stored.get(&i.file.path) != Some(&i.blob)),
        );
    }
    let edited: Vec<FileEntry> = known
        .into_iter()
        .filter(|e| stored.get(&e.path) != e.blob.as_ref())
        .collect();
    let present: FxHashSet<&str> = entries.iter().map(|e| e.path.as_str()).collect();
    let removed: Vec<String> = stored
        .keys()
        .filter(|p| !present.contains(p.as_str()))
        .cloned()
        .collect();
    let changes = edited.len() + inputs.len() + removed.len();
    if changes as f64 > MOST_CHANGED * entries.len().max(stored.len()) as f64 {
        return Ok(None);
    }
    progress.start(changes);
    for (entry, file) in edited.iter().zip(super::cpu(|| revision.read(&edited))?) {
        let blob = entry.blob.clone().expect("partitioned on it");
        inputs.push(FileInput { blob, file });
    }
    let bytes = inputs.iter().map(|i| i.file.bytes.len() as u64).sum();
    let changed = Changed {
        edited: inputs.len(),
        removed: removed.len(),
    };
    let (graph, state) = store.load_graph(repo.id).await?;
    let loaded = start.elapsed();
    let save = Instant::now();
    let commit = revision.commit();
    let (graph, written) = apply_push(
        store,
        repo.id,
        graph,
        state.version,
        commit.as_ref(),
        inputs,
        removed,
        rules,
    )
    .await?;
    progress.finish();
    let skipped = store.skipped_files(repo.id).await?;
    let indexed = Indexed {
        graph,
        skipped,
        bytes,
        from_cache: 0,
        extract_time: Duration::ZERO,
        resolve_time: loaded,
    };
    Ok(Some(IndexedChanges {
        indexed,
        written,
        changed,
        save_time: save.elapsed(),
    }))
}
