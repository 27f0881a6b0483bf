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
mod named_types;
mod overlay;
mod plan;
mod platform;

use std::collections::BTreeSet;

use super::diff::Change;
use super::report::{BlastReport, CallerFinding, Judged, SkippedFile};
use super::verdict::judge_in;
use crate::graph::{Confidence, Graph};
use crate::indexer::facts::{CallArgs, CallKind};
use crate::indexer::Language;

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

/// A call another repository makes into a changed function, to judge.
pub struct CallToJudge<'a> {
    /// The function it reaches: an index into the report's changed functions.
    pub changed: usize,
    /// The calling file's path, in its own repository (its language says whether an
    /// extra argument is a compile error).
    pub path: &'a str,
    /// What it passes and how it takes the result (None: not known).
    pub args: Option<CallArgs>,
}

/// The verdict on each of `calls`, made by other repositories into the functions
/// `report` found changed (the blast radius of `changes` on `graph`, which holds the
/// base and is left as it is): each judged as the repository's own direct callers are,
/// against the function's contract before and after the change. Only the changed
/// files that hold a function whose signature changed and that one of `calls` reaches
/// are read again.
pub fn judge_elsewhere(
    graph: &Graph,
    changes: &[FileChange],
    report: &BlastReport,
    calls: &[CallToJudge],
) -> Vec<Judged> {
    let reshaped: BTreeSet<usize> = calls
        .iter()
        .map(|c| c.changed)
        .filter(|&i| {
            report
                .changed
                .get(i)
                .is_some_and(|f| matches!(f.change, Change::Signature | Change::SignatureAndBody))
        })
        .collect();
    let contracts = if reshaped.is_empty() {
        Default::default()
    } else {
        let files: BTreeSet<&str> = reshaped
            .iter()
            .map(|&i| report.changed[i].file.as_str())
            .collect();
        let mut head = graph.clone();
        for change in changes.iter().filter(|c| files.contains(c.path.as_str())) {
            if let Some(new) = &change.new {
                head.update_file(&change.path, new);
            }
        }
        // What `contracts` reads: the changed functions, and which of them something
        // calls directly.
        let asked = BlastReport {
            base: String::new(),
            head: String::new(),
            changed: report.changed.clone(),
            callers: reshaped.iter().map(|&i| direct_call(report, i)).collect(),
            depth: 1,
            unresolved_same_name: 0,
            skipped_files: 0,
            skipped: Vec::new(),
        };
        // Calls elsewhere are judged by what they pass (their reads are not stored).
        let sites = vec![Some(crate::blast::verdict::Site::default()); asked.callers.len()];
        judge::contracts(&head, changes, &asked, &sites)
    };
    calls
        .iter()
        .map(|call| {
            let func = &report.changed[call.changed];
            let (old, new) = contracts
                .get(&call.changed)
                .map_or((None, None), |(o, n)| (o.as_ref(), n.as_ref()));
            let typed = Language::from_path(call.path)
                .is_some_and(|l| matches!(l, Language::TypeScript | Language::Tsx));
            judge_in(&func.name, func.change, old, new, call.args, typed)
        })
        .collect()
}

/// A stand-in direct call of changed function `index`: what asks for its contract.
fn direct_call(report: &BlastReport, index: usize) -> CallerFinding {
    CallerFinding {
        callee: report.changed[index].qualified_name.clone(),
        changed_index: index,
        file: String::new(),
        line: 0,
        column: 0,
        caller: String::new(),
        kind: CallKind::Call,
        confidence: Confidence::Exact,
        touched: false,
        depth: 1,
        via: None,
        judged: None,
    }
}
