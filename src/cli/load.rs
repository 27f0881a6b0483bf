//! Getting a repository's graph for a command: walk or read git, extract, resolve.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use crate::graph::Graph;
use crate::indexer::pipeline::{extract_all, extract_each, Extracted, SourceFile};
use crate::indexer::skip::{SkipReason, SkipRules};
use crate::workspace::{git::GitRepo, walk};

pub struct Loaded {
    pub graph: Graph,
    pub skipped: Vec<(String, SkipReason)>,
    pub bytes: u64,
    pub extract_time: Duration,
    pub resolve_time: Duration,
}

/// Indexes the files under `root` as they are on disk.
pub fn load_dir(root: &Path, rules: &SkipRules, show_progress: bool) -> Result<Loaded> {
    let paths = walk::list(root)?;
    let bar = progress_bar(paths.len(), show_progress);
    let start = Instant::now();
    let extracted = extract_each(paths, |p| walk::read_one(root, p), rules, &|| bar.inc(1))?;
    bar.finish_and_clear();
    Ok(finish(extracted, start.elapsed()))
}

/// Indexes a commit of a git repository.
pub fn load_commit(
    repo: &GitRepo,
    commit: &str,
    rules: &SkipRules,
    show_progress: bool,
) -> Result<Loaded> {
    let tree = repo.tree(commit)?;
    let files = repo.read_blobs(&tree)?;
    Ok(load_files(files, rules, show_progress))
}

pub fn load_files(files: Vec<SourceFile>, rules: &SkipRules, show_progress: bool) -> Loaded {
    let bar = progress_bar(files.len(), show_progress);
    let start = Instant::now();
    let extracted = extract_all(files, rules, &|| bar.inc(1));
    bar.finish_and_clear();
    finish(extracted, start.elapsed())
}

fn finish(extracted: Extracted, extract_time: Duration) -> Loaded {
    let start = Instant::now();
    let graph = Graph::build(extracted.facts, extracted.configs);
    Loaded {
        graph,
        skipped: extracted.skipped,
        bytes: extracted.bytes,
        extract_time,
        resolve_time: start.elapsed(),
    }
}

fn progress_bar(len: usize, show: bool) -> ProgressBar {
    use std::io::IsTerminal;
    if !show || len < 200 || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template("{spinner} indexing {pos}/{len} files {wide_bar} {eta}")
            .expect("valid template"),
    );
    bar
}

/// Peak resident memory of this process in bytes (Linux), if known.
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
