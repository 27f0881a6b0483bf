//! Changed functions → their callers, each marked touched or untouched by the change.
//!
//! The graph of the base revision is indexed; the head versions of the changed files are
//! laid over a fork of it; the two versions of each changed file are diffed into changed
//! functions. Callers of changed functions come from the head graph. Callers of removed
//! or renamed functions come from the base graph (the head graph has nothing left to
//! resolve them to), kept where the call is still there in head: the loudest finding.
//!
//! The base graph is only read: a server keeps it in a shared cache for the next pull
//! request, and the fork copies only the parts of it that the change writes to.

mod findings;
mod judge;
mod overlay;
mod plan;

use super::report::{BlastReport, SkippedFile};
use crate::graph::Graph;

/// One changed file: its path and both versions (None: absent on that side).
pub struct FileChange {
    pub path: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

pub struct BlastOptions {
    pub base: String,
    pub head: String,
    /// 1: direct callers only.
    pub depth: u32,
    pub skipped_files: u32,
    /// The changed files head could not read (counted in `skipped_files`), by name.
    pub skipped: Vec<SkippedFile>,
}

/// Computes the blast radius of `changes` on `graph`, which holds the base revision
/// and is left as it is.
pub fn blast(graph: &Graph, changes: &[FileChange], options: &BlastOptions) -> BlastReport {
    let plan = plan::plan(graph, changes, options.depth);
    let head = overlay::head(graph, changes, plan.head_facts);
    let mut report = findings::report(&head, plan.planned, &plan.head_files, options);
    judge::callers(&head, changes, &mut report);
    report.skipped_files += plan.skipped.len() as u32;
    report.skipped.extend(plan.skipped);
    report.skipped.sort_by(|a, b| a.file.cmp(&b.file));
    report
}
