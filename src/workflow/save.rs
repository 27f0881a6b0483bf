//! Index a revision into Postgres, and load a stored graph back.

use std::time::{Duration, Instant};

use anyhow::Result;

use super::index::{merge, resolve, sort, Indexed};
use super::index_changes::{index_changes, Changed};
use super::progress::Progress;
use super::source::{FileEntry, Revision};
use crate::indexer::pipeline::{extract_all, Extracted, SourceFile};
use crate::indexer::skip::{SkipReason, SkipRules};
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
    /// Set when only what changed since the stored graph was indexed and written.
    pub changed: Option<Changed>,
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
    if let Some(done) = index_changes(store, &repo, revision, rules, progress).await? {
        let saved = Saved {
            repo: repo.id,
            version: done.written.version,
            files: done.written.files,
            edges: done.written.edges,
            parsed: done.changed.edited,
            cached: 0,
            save_time: done.save_time,
            changed: Some(done.changed),
        };
        return Ok((done.indexed, saved));
    }
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
    let counted = Extracting {
        extracted,
        blobs,
        parsed,
        cached: cached_count,
        start,
    };
    resolve_and_save(store, repo, revision.commit(), counted).await
}

/// What a full index extracted before it is resolved and saved.
pub struct Extracting {
    extracted: Extracted,
    /// Every file the indexer wanted, with its blob (the rows keep them all, skipped too).
    blobs: Vec<(String, BlobSha)>,
    parsed: usize,
    cached: usize,
    start: Instant,
}

/// Files parsed at a time from a stream. Two batches are in flight, so both cores have
/// files while the next batch's cached facts are looked up.
const STREAM_BATCH: usize = 512;

/// One file as a stream delivers it: its entry (with its blob), its bytes, and the reason
/// it was skipped as it was read (its bytes are then empty).
pub type StreamedFile = (FileEntry, Vec<u8>, Option<SkipReason>);

/// Extracts the files of a revision as they arrive (an archive streaming in), parsing
/// only the blobs the facts cache lacks: the cores parse the first files while the last
/// are still downloading. Ends when every sender is gone; the caller decides whether the
/// stream was whole before [`resolve_and_save`].
pub async fn extract_stream(
    store: &Store,
    repo: RepoId,
    mut files: tokio::sync::mpsc::UnboundedReceiver<StreamedFile>,
    rules: SkipRules,
) -> Result<Extracting> {
    let start = Instant::now();
    let mut extracted = Extracted::default();
    let mut blobs = Vec::new();
    let (mut parsed, mut cached_count) = (0, 0);
    let mut running: tokio::task::JoinSet<Extracted> = tokio::task::JoinSet::new();
    let mut batch = Vec::with_capacity(STREAM_BATCH);
    loop {
        while running.len() >= 2 {
            if let Some(done) = running.join_next().await {
                merge(&mut extracted, done?);
            }
        }
        if files.recv_many(&mut batch, STREAM_BATCH).await == 0 {
            break;
        }
        let keys: Vec<(String, BlobSha)> = batch
            .iter()
            .filter_map(|(e, _, _)| Some((e.path.clone(), e.blob.clone()?)))
            .collect();
        let mut cached = store.cached_facts(repo, &keys).await?;
        blobs.extend(keys);
        let todo: Vec<SourceFile> = batch
            .drain(..)
            .filter(|(e, _, _)| !cached.contains_key(&e.path))
            .map(|(e, bytes, skip)| {
                if e.blob.is_none() {
                    blobs.push((e.path.clone(), BlobSha::of(&bytes)));
                }
                SourceFile {
                    path: e.path,
                    bytes,
                    skip,
                }
            })
            .collect();
        cached_count += cached.len();
        parsed += todo.len();
        extracted
            .facts
            .extend(cached.drain().map(|(_, facts)| facts));
        // The job's deadline stops this work too, and its retry leaves out what it
        // stalled on: the token goes with it to the blocking thread.
        let token = super::job_token();
        running.spawn_blocking(move || {
            crate::cancel::scoped(token, || extract_all(todo, &rules, &|| {}))
        });
    }
    while let Some(done) = running.join_next().await {
        merge(&mut extracted, done?);
    }
    Ok(Extracting {
        extracted,
        blobs,
        parsed,
        cached: cached_count,
        start,
    })
}

/// Resolves what a full index extracted into a graph and stores it as `repo`'s, at
/// `commit`.
pub async fn resolve_and_save(
    store: &Store,
    repo: RepoId,
    commit: Option<CommitSha>,
    counted: Extracting,
) -> Result<(Indexed, Saved)> {
    let Extracting {
        mut extracted,
        blobs,
        parsed,
        cached,
        start,
    } = counted;
    sort(&mut extracted);
    let meta = FileMeta {
        blobs: blobs.into_iter().map(|(p, b)| (p, b.0)).collect(),
        skipped: extracted.skipped.clone(),
    };
    let indexed = super::cpu(|| resolve(extracted, start.elapsed()));
    let start = Instant::now();
    let written = store
        .save_full(repo, commit.as_ref(), &indexed.graph, &meta)
        .await?;
    let saved = Saved {
        repo,
        version: written.version,
        files: written.files,
        edges: written.edges,
        parsed,
        cached,
        save_time: start.elapsed(),
        changed: None,
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
            from_cache: 0,
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
