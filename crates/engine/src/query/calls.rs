//! Callers, callees and call paths as data: what every front end renders its own way.

use serde::Serialize;

use super::target::{describe, Definition};
use crate::graph::{Confidence, DefId, Graph};

/// One call site of the target, or of one of its callers (depth > 1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallerEntry {
    pub file: String,
    /// 1-based.
    pub line: u32,
    pub column: u32,
    /// The qualified name of the function the call sits in; None at a module's top level.
    pub caller: Option<String>,
    pub kind: &'static str,
    pub confidence: Confidence,
    /// 1: calls the target itself.
    pub depth: u32,
    /// What this site calls when depth > 1 (a caller one level nearer the target).
    pub via: Option<String>,
}

/// Whether a list of callers is all there is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Completeness {
    /// Call sites with the target's name that resolved to nothing: they may call it.
    pub unresolved_same_name: usize,
    /// Files the index skipped (minified, too large, ...): they may hold more.
    pub skipped_files: usize,
}

impl Completeness {
    pub fn complete(&self) -> bool {
        self.unresolved_same_name == 0 && self.skipped_files == 0
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CallersAnswer {
    pub target: Definition,
    pub callers: Vec<CallerEntry>,
    pub completeness: Completeness,
}

/// Callers of `d` up to `depth` levels, with the verdict on completeness.
pub fn callers(g: &Graph, d: DefId, depth: u32, skipped_files: usize) -> CallersAnswer {
    callers_counted(g, d, depth, unresolved_named(g, d), skipped_files)
}

/// [`callers`] with the unresolved sites named like `d` already counted.
pub(super) fn callers_counted(
    g: &Graph,
    d: DefId,
    depth: u32,
    unresolved_same_name: usize,
    skipped_files: usize,
) -> CallersAnswer {
    let found = g.transitive_callers(d, depth.max(1));
    let mut callers: Vec<CallerEntry> = found
        .iter()
        .map(|t| {
            let facts = g.facts(t.caller.file);
            let site = g.site(t.caller);
            CallerEntry {
                file: facts.path.clone(),
                line: site.pos().line + 1,
                column: site.pos().column + 1,
                caller: site.caller().map(|c| facts.def_qualified(c).to_string()),
                kind: site.kind.as_str(),
                confidence: t.caller.confidence(),
                depth: t.depth,
                via: (t.depth > 1)
                    .then(|| g.facts(t.via.file).def_qualified(t.via.def).to_string()),
            }
        })
        .collect();
    // By level, then place: the order a fresh index gives, whatever order files were
    // added to a graph kept current.
    callers.sort_by(|a, b| {
        (a.depth, &a.file, a.line, a.column).cmp(&(b.depth, &b.file, b.line, b.column))
    });
    CallersAnswer {
        target: describe(g, d),
        callers,
        completeness: Completeness {
            unresolved_same_name,
            skipped_files,
        },
    }
}

/// Unresolved call sites anywhere that carry `d`'s simple name.
fn unresolved_named(g: &Graph, d: DefId) -> usize {
    let name = g.facts(d.file).def_name(d.def);
    g.file_ids()
        .map(|f| {
            let facts = g.facts(f);
            g.resolution(f)
                .unresolved_sites
                .iter()
                .filter(|&&s| facts.str(facts.calls[s as usize].name) == name)
                .count()
        })
        .sum()
}

/// One call that `d` makes, and what it resolved to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CalleeEntry {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub callee: Definition,
    pub kind: &'static str,
    pub confidence: Confidence,
}

pub fn callees(g: &Graph, d: DefId) -> Vec<CalleeEntry> {
    let facts = g.facts(d.file);
    g.callees(d)
        .into_iter()
        .map(|e| {
            let site = &facts.calls[e.site() as usize];
            CalleeEntry {
                file: facts.path.clone(),
                line: site.pos().line + 1,
                column: site.pos().column + 1,
                callee: describe(g, e.target),
                kind: site.kind.as_str(),
                confidence: e.confidence(),
            }
        })
        .collect()
}

/// A call path from `from` to `to`, each step a definition.
pub fn path(g: &Graph, from: DefId, to: DefId) -> Option<Vec<Definition>> {
    g.path(from, to)
        .map(|p| p.into_iter().map(|d| describe(g, d)).collect())
}
