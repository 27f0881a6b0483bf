//! Index a revision: its files' facts, extracted on every core, resolved into a graph.

use std::time::{Duration, Instant};

use anyhow::Result;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::progress::Progress;
use super::source::{FactsCache, FileEntry, Revision};
use crate::graph::Graph;
use crate::indexer::facts::FileFacts;
use crate::indexer::pipeline::{extract_all, extract_each, Extracted, SourceFile};
use crate::indexer::select::{classify, PathKind};
use crate::indexer::skip::{SkipReason, SkipRules};
use crate::model::BlobSha;

/// A revision indexed into a graph, with what it cost.
pub struct Indexed {
    pub graph: Graph,
    /// Files the indexer could read but did not, and why.
    pub skipped: Vec<(String, SkipReason)>,
    /// Bytes of source parsed.
    pub bytes: u64,
    /// Files whose facts came from a facts cache, not parsed.
    pub from_cache: usize,
    pub extract_time: Duration,
    pub resolve_time: Duration,
}

/// Files read at a time: bounds the bytes in memory to a batch's, whatever the size of
/// the repository, while every core has files to extract.
const BATCH: usize = 1024;

/// Indexes every file of `revision`.
pub fn index(
    revision: &impl Revision,
    rules: &SkipRules,
    progress: &dyn Progress,
) -> Result<Indexed> {
    let entries = revision.files()?;
    progress.start(entries.len());
    let start = Instant::now();
    let mut extracted = extract_entries(revision, entries, rules, progress)?;
    progress.finish();
    sort(&mut extracted);
    Ok(resolve(extracted, start.elapsed()))
}

/// [`index`], taking from `cache` the facts of the code files whose blob it holds and
/// keeping there those it parses.
pub fn index_cached(
    revision: &impl Revision,
    rules: &SkipRules,
    progress: &dyn Progress,
    cache: &dyn FactsCache,
) -> Result<Indexed> {
    let entries = revision.files()?;
    progress.start(entries.len());
    let start = Instant::now();
    // Code files whose blob is known are looked up (configs are always read: they are
    // few, and what they say is read whole by the graph).
    let (known, mut misses): (Vec<FileEntry>, Vec<FileEntry>) = entries
        .into_iter()
        .partition(|e| e.blob.is_some() && matches!(classify(&e.path), PathKind::Code(_)));
    let looked: Vec<(FileEntry, Option<Result<FileFacts, SkipReason>>)> = known
        .into_par_iter()
        .map(|e| {
            let got = e.blob.as_ref().and_then(|b| cache.get(b, &e.path));
            (e, got)
        })
        .collect();
    let mut hits = Extracted::default();
    for (e, got) in looked {
        match got {
            Some(Ok(facts)) => hits.facts.push(facts),
            Some(Err(reason)) => hits.skipped.push((e.path, reason)),
            None => {
                misses.push(e);
                continue;
            }
        }
        progress.advance();
    }
    let blobs: FxHashMap<String, BlobSha> = misses
        .iter()
        .filter_map(|e| Some((e.path.clone(), e.blob.clone()?)))
        .collect();
    misses.sort_by(|a, b| a.path.cmp(&b.path));
    let mut extracted = extract_entries(revision, misses, rules, progress)?;
    extracted.facts.par_iter().for_each(|f| {
        if let Some(blob) = blobs.get(&f.path) {
            cache.put(blob, &f.path, Ok(f));
        }
    });
    for (path, reason) in &extracted.skipped {
        // What the file is, not what befell this run (a deadline, a fetch budget).
        let lasting = !matches!(reason, SkipReason::TimedOut | SkipReason::OverBudget);
        if let (Some(blob), true) = (blobs.get(path), lasting) {
            cache.put(blob, path, Err(*reason));
        }
    }
    let from_cache = hits.facts.len() + hits.skipped.len();
    merge(&mut extracted, hits);
    progress.finish();
    cache.finish();
    sort(&mut extracted);
    let mut indexed = resolve(extracted, start.elapsed());
    indexed.from_cache = from_cache;
    Ok(indexed)
}

/// The facts of `entries` of `revision`, extracted on every core.
fn extract_entries(
    revision: &impl Revision,
    entries: Vec<FileEntry>,
    rules: &SkipRules,
    progress: &dyn Progress,
) -> Result<Extracted> {
    Ok(if revision.reads_one_cheaply() {
        // The largest files first: a file's syntax tree takes some 30 times its bytes
        // while it is parsed, and the memory peak is the largest tree beside every fact
        // extracted so far, so large files go while the facts are few (the last files
        // are small, too, so no core waits on a large one at the end). The facts come
        // out in path order whatever the order of work.
        // (Each size is a `stat`: asked on every core, before the one sort.)
        let sizes: Vec<u64> = entries
            .par_iter()
            .map(|e| revision.size(e).unwrap_or(0))
            .collect();
        let mut sized: Vec<(u64, FileEntry)> = sizes.into_iter().zip(entries).collect();
        sized.sort_by_key(|(size, _)| std::cmp::Reverse(*size));
        let entries: Vec<FileEntry> = sized.into_iter().map(|(_, e)| e).collect();
        // Each core reads its next file when it is ready for it.
        let read = |e: FileEntry| -> Result<SourceFile> {
            let mut one = revision.read(std::slice::from_ref(&e))?;
            one.pop()
                .ok_or_else(|| anyhow::anyhow!("{} could not be read", e.path))
        };
        extract_each(entries, read, rules, &|| progress.advance())?
    } else {
        let mut extracted = Extracted::default();
        for batch in entries.chunks(BATCH) {
            let files = revision.read(batch)?;
            merge(
                &mut extracted,
                extract_all(files, rules, &|| progress.advance()),
            );
        }
        extracted
    })
}

/// Indexes files already in memory.
pub fn index_files(files: Vec<SourceFile>, rules: &SkipRules) -> Indexed {
    let start = Instant::now();
    let extracted = extract_all(files, rules, &|| {});
    resolve(extracted, start.elapsed())
}

/// Resolves extracted facts into a graph.
pub(super) fn resolve(extracted: Extracted, extract_time: Duration) -> Indexed {
    let start = Instant::now();
    let graph = Graph::build(extracted.facts, extracted.configs);
    Indexed {
        graph,
        skipped: extracted.skipped,
        bytes: extracted.bytes,
        from_cache: 0,
        extract_time,
        resolve_time: start.elapsed(),
    }
}

pub(super) fn merge(into: &mut Extracted, more: Extracted) {
    into.facts.extend(more.facts);
    into.configs.extend(more.configs);
    into.skipped.extend(more.skipped);
    into.bytes += more.bytes;
}

/// The order a single `extract_all` gives, so batching changes nothing downstream.
pub(super) fn sort(extracted: &mut Extracted) {
    extracted.facts.sort_by(|a, b| a.path.cmp(&b.path));
    extracted.configs.sort();
    extracted.skipped.sort();
}
