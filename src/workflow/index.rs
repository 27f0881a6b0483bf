//! Index a revision: its files' facts, extracted on every core, resolved into a graph.

use std::time::{Duration, Instant};

use anyhow::Result;

use super::progress::Progress;
use super::source::{FileEntry, Revision};
use crate::graph::Graph;
use crate::indexer::pipeline::{extract_all, extract_each, Extracted, SourceFile};
use crate::indexer::skip::{SkipReason, SkipRules};

/// A revision indexed into a graph, with what it cost.
pub struct Indexed {
    pub graph: Graph,
    /// Files the indexer could read but did not, and why.
    pub skipped: Vec<(String, SkipReason)>,
    /// Bytes of source parsed.
    pub bytes: u64,
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
    let mut entries = revision.files()?;
    progress.start(entries.len());
    let start = Instant::now();
    let mut extracted = if revision.reads_one_cheaply() {
        // The largest files first: a file's syntax tree takes some 30 times its bytes
        // while it is parsed, and the memory peak is the largest tree beside every fact
        // extracted so far, so large files go while the facts are few (the last files
        // are small, too, so no core waits on a large one at the end). The facts come
        // out in path order whatever the order of work.
        entries.sort_by_cached_key(|e| std::cmp::Reverse(revision.size(e).unwrap_or(0)));
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
    };
    progress.finish();
    sort(&mut extracted);
    Ok(resolve(extracted, start.elapsed()))
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
