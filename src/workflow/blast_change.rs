//! The blast radius of a change between two revisions, on a graph of the base.

use std::collections::BTreeMap;

use anyhow::Result;

use super::index::{index, Indexed};
use super::progress::Progress;
use super::source::{Changes, Revision};
use crate::blast::radius::{blast, BlastOptions, FileChange};
use crate::blast::report::{BlastReport, SkippedFile};
use crate::graph::Graph;
use crate::indexer::select::{classify, select_decided, PathKind, Selected};
use crate::indexer::skip::SkipRules;

/// What to compare: labels for the report and how far to follow callers. How many files
/// the base graph skipped is the graph's to tell, not the caller's.
pub struct BlastRequest<'a> {
    pub base_label: &'a str,
    pub head_label: &'a str,
    pub depth: u32,
}

/// The blast radius of the change from `old` to `new` (the paths `changes` lists), on
/// `base` when the caller holds the graph of `old` (stored, cached, or kept current),
/// else on `old` indexed now. What the CLI's `blast` and the MCP server's `blast_radius`
/// both do.
pub fn blast_change(
    base: Option<Indexed>,
    old: &impl Revision,
    new: &impl Revision,
    changes: &impl Changes,
    rules: &SkipRules,
    request: &BlastRequest<'_>,
    progress: &dyn Progress,
) -> Result<BlastReport> {
    let loaded = match base {
        Some(loaded) => loaded,
        None => index(old, rules, progress)?,
    };
    let changed = changes.changed_paths()?;
    let skipped = loaded.skipped.len();
    blast_revisions(&loaded.graph, skipped, old, new, &changed, rules, request)
}

/// Pairs the two versions of each changed path (reading only those from `old` and
/// `new`) and computes the blast radius on `base`, the graph of `old` (which skipped
/// `base_skipped` files), read, not changed (a cached graph serves every pull request).
pub fn blast_revisions(
    base: &Graph,
    base_skipped: usize,
    old: &impl Revision,
    new: &impl Revision,
    changed: &[String],
    rules: &SkipRules,
    request: &BlastRequest<'_>,
) -> Result<BlastReport> {
    let (changes, skipped_in_head) = pair_versions(old, new, changed, rules)?;
    let options = BlastOptions {
        base: request.base_label.to_string(),
        head: request.head_label.to_string(),
        depth: request.depth.max(1),
        skipped_files: (base_skipped + skipped_in_head.len()) as u32,
        skipped: skipped_in_head,
    };
    Ok(blast(base, &changes, &options))
}

/// Both versions of each changed path the indexer reads, and the changed files head
/// skips, with why. A code file skipped in head (minified, too large...) keeps its base
/// version and is counted; a config skipped in head is gone, as in a full index. A base
/// version that was not read (the job's fetch budget ran out) leaves its path out, and
/// counted.
pub fn pair_versions(
    old: &impl Revision,
    new: &impl Revision,
    changed: &[String],
    rules: &SkipRules,
) -> Result<(Vec<FileChange>, Vec<SkippedFile>)> {
    let mut versions: BTreeMap<String, FileChange> = BTreeMap::new();
    let mut unread = BTreeMap::new();
    for f in old.read_paths(changed)? {
        if let Some(reason) = f.skip {
            unread.insert(f.path, reason);
            continue;
        }
        entry(&mut versions, &f.path).old = String::from_utf8(f.bytes).ok();
    }
    let mut skipped: Vec<SkippedFile> = Vec::new();
    for f in new.read_paths(changed)? {
        if unread.contains_key(&f.path) {
            continue;
        }
        let text = match select_decided(&f.path, &f.bytes, f.skip, rules) {
            Selected::Code(_, text) | Selected::Config(text) => Some(text.to_string()),
            Selected::Skipped(_) if classify(&f.path) == PathKind::Config => None,
            Selected::Skipped(reason) => {
                skipped.push(SkippedFile {
                    file: f.path.clone(),
                    reason,
                });
                versions.remove(&f.path);
                continue;
            }
            Selected::Ignored => continue,
        };
        entry(&mut versions, &f.path).new = text;
    }
    let changes = versions.into_values().filter(|c| c.old != c.new).collect();
    skipped.extend(
        unread
            .into_iter()
            .map(|(file, reason)| SkippedFile { file, reason }),
    );
    skipped.sort_by(|a, b| a.file.cmp(&b.file));
    Ok((changes, skipped))
}

fn entry<'a>(versions: &'a mut BTreeMap<String, FileChange>, path: &str) -> &'a mut FileChange {
    versions
        .entry(path.to_string())
        .or_insert_with(|| FileChange {
            path: path.to_string(),
            old: None,
            new: None,
        })
}
