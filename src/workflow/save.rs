//! Index a revision into Postgres, and load a stored graph back.

use std::time::{Duration, Instant};

use anyhow::Result;

use super::index::{merge, resolve, sort, Indexed};
use super::progress::Progress;
use super::source::{FileEntry, Revision};
use crate::indexer::pipeline::{extract_all, Extracted, SourceFile};
use crate::indexer::skip::SkipRules;
use crate::model::{BlobSha, CommitSha, RepoId};
use crate::store::{FileMeta, RepoState, Store};

/// What a save wrote.
pub struct Saved {
    pub repo: RepoId,
    pub version: i64,
    pub files: usize,
    pub edges: usize,
    /// Files parsed now, and files whose facts came from the facts cache.
    pub parsed: usize,
    pub cached: usize,
    pub save_time: Duration,
}

/// Indexes `revision` (parsing only the blobs the facts cache lacks) and stores its graph
/// as repository `name`, at the revision's commit.
pub async fn index_and_save(
    store: &Store,
    name: &str,
    revision: &impl Revision,
    rules: &SkipRules,
    progress: &dyn Progress,
) -> Result<(Indexed, Saved)> {
    let repo = store.ensure_repository(name).await?;
    index_and_save_as(store, repo.id, revision, rules, progress).await
}

/// [`index_and_save`] into a repository row that exists.
pub async fn index_and_save_as(
    store: &Store,
    repo: RepoId,
    revision: &impl Revision,
    rules: &SkipRules,
    progress: &dyn Progress,
) -> Result<(Indexed, Saved)> {
    let start = Instant::now();
    let entries = revision.files()?;
    progress.start(entries.len());
    // Blobs are known from the listing (git) or from reading the file (a directory);
    // files read for their blob are kept, so nothing is read twice.
    let (known, unknown): (Vec<FileEntry>, Vec<FileEntry>) =
        entries.into_iter().partition(|e| e.blob.is_some());
    let mut read_now = super::cpu(|| revision.read(&unknown))?;
    let mut blobs: Vec<(String, BlobSha)> = known
        .iter()
        .map(|e| (e.path.clone(), e.blob.clone().expect("partitioned on it")))
        .collect();
    blobs.extend(
        read_now
            .iter()
            .map(|f| (f.path.clone(), BlobSha::of(&f.bytes))),
    );
    let mut cached = store.cached_facts(repo, &blobs).await?;
    let missing: Vec<FileEntry> = known
        .into_iter()
        .filter(|e| !cached.contains_key(&e.path))
        .collect();
    read_now.retain(|f| !cached.contains_key(&f.path));
    let cached_count = cached.len();
    let parsed = read_now.len() + missing.len();
    let mut extracted = Extracted::default();
    super::cpu(|| -> Result<()> {
        for _ in 0..cached_count {
            progress.advance();
        }
        merge(
            &mut extracted,
            extract_all(read_now, rules, &|| progress.advance()),
        );
        for batch in missing.chunks(1024) {
            let files = revision.read(batch)?;
            merge(
                &mut extracted,
                extract_all(files, rules, &|| progress.advance()),
            );
        }
        Ok(())
    })?;
    progress.finish();
    extracted
        .facts
        .extend(cached.drain().map(|(_, facts)| facts));
    sort(&mut extracted);
    let meta = FileMeta {
        blobs: blobs.into_iter().map(|(p, b)| (p, b.0)).collect(),
        skipped: extracted.skipped.clone(),
    };
    let indexed = super::cpu(|| resolve(extracted, start.elapsed()));
    let start = Instant::now();
    let commit = revision.commit();
    let written = store
        .save_full(repo, commit.as_ref(), &indexed.graph, &meta)
        .await?;
    let saved = Saved {
        repo,
        version: written.version,
        files: written.files,
        edges: written.edges,
        parsed,
        cached: cached_count,
        save_time: start.elapsed(),
    };
    Ok((indexed, saved))
}

/// Indexes files held in memory, with the metadata a full save of them needs.
pub fn index_in_memory(files: Vec<SourceFile>, rules: &SkipRules) -> (Indexed, FileMeta) {
    let blobs = files
        .iter()
        .map(|f| (f.path.clone(), BlobSha::of(&f.bytes).0))
        .collect();
    let indexed = super::index::index_files(files, rules);
    let meta = FileMeta {
        blobs,
        skipped: indexed.skipped.clone(),
    };
    (indexed, meta)
}

/// The stored graph of repository `name`, with the state it reflects.
pub async fn load_stored(store: &Store, name: &str) -> Result<(Indexed, RepoState)> {
    let repo = store.repository(name).await?;
    let start = Instant::now();
    let (graph, state) = store.load_graph(repo.id).await?;
    Ok((
        Indexed {
            graph,
            skipped: Vec::new(),
            bytes: 0,
            extract_time: Duration::ZERO,
            resolve_time: start.elapsed(),
        },
        state,
    ))
}

/// The stored graph of `name` if it reflects `commit`.
pub async fn load_stored_at(
    store: &Store,
    name: &str,
    commit: &CommitSha,
) -> Result<Option<Indexed>> {
    let repo = store.repository(name).await?;
    if repo.commit.as_ref() != Some(commit) {
        return Ok(None);
    }
    Ok(Some(load_stored(store, name).await?.0))
}
