//! The plan, made on the base graph before head is laid over it: each changed file's
//! two versions diffed into changed functions, and the base-graph callers of the
//! functions that head removes or renames.

use std::ops::Range;

use rustc_hash::{FxHashMap, FxHashSet};

use super::FileChange;
use crate::blast::diff::{changed_lines, diff_functions, Change};
use crate::blast::report::{ChangedFunction, SkippedFile};
use crate::graph::{Caller, Confidence, DefId, Facts, Graph};
use crate::indexer::facts::*;

/// What the change did to one file, on the head side.
pub(super) struct HeadFile {
    /// Definitions (head indices) that the change added or modified.
    pub(super) changed_defs: FxHashSet<DefIdx>,
    pub(super) lines: Vec<Range<u32>>,
}

/// A changed function as planned on the base side, before head is laid over it.
pub(super) struct Planned {
    pub(super) path: String,
    pub(super) change: Change,
    /// Base-side description (removed functions have no other).
    pub(super) old: Option<ChangedFunction>,
    pub(super) new: Option<DefIdx>,
    /// Base-graph callers of removed and renamed functions.
    pub(super) base_callers: Vec<BaseSite>,
}

/// A base-graph call site, described by what survives the overlay.
pub(super) struct BaseSite {
    pub(super) path: String,
    /// The site's index in its file's base facts.
    pub(super) site: u32,
    pub(super) caller: Option<String>,
    pub(super) name: String,
    pub(super) kind: CallKind,
    pub(super) line: u32,
    pub(super) column: u32,
    pub(super) confidence: Confidence,
    pub(super) depth: u32,
    pub(super) via: String,
}

pub(super) struct Plan {
    pub(super) planned: Vec<Planned>,
    pub(super) head_files: FxHashMap<String, HeadFile>,
    /// The head facts of each change, in order (what the overlay lays over the base).
    pub(super) head_facts: Vec<Option<FileFacts>>,
    /// Changed files whose head version could not be read: they keep their base version.
    pub(super) skipped: Vec<SkippedFile>,
}

pub(super) fn plan(graph: &Graph, changes: &[FileChange], depth: u32) -> Plan {
    let mut plan = Plan {
        planned: Vec::new(),
        head_files: FxHashMap::default(),
        head_facts: Vec::with_capacity(changes.len()),
        skipped: Vec::new(),
    };
    for change in changes {
        let base_file = graph.file_id(&change.path);
        let old_facts = base_file.map(|f| graph.facts(f));
        let old_own = old_facts.map(|f| f.to_file_facts());
        let new_facts = match change
            .new
            .as_deref()
            .and_then(|src| crate::indexer::extract_source(&change.path, src))
        {
            Some(Ok(facts)) => Some(facts),
            // Head could not be read (a file that would cost more than its size
            // allows): it keeps its base version, as a file skipped in head does, and
            // the report names it.
            Some(Err(reason)) => {
                plan.skipped.push(SkippedFile {
                    file: change.path.clone(),
                    reason,
                });
                old_own.clone()
            }
            None => None,
        };
        let mut changed_defs = FxHashSet::default();
        for d in diff_functions(old_own.as_ref(), new_facts.as_ref()) {
            changed_defs.extend(d.new);
            let old = match (old_facts, d.old) {
                (Some(facts), Some(o)) => Some(describe(facts, o, &change.path, d.change)),
                _ => None,
            };
            let mut base_callers = Vec::new();
            if let (Change::Removed | Change::Renamed | Change::Unexported, Some(f), Some(o)) =
                (d.change, base_file, d.old)
            {
                for t in graph.transitive_callers(DefId::new(f, o), depth) {
                    // No longer exported: only other modules' calls are cut off.
                    if d.change == Change::Unexported && t.caller.file == f {
                        continue;
                    }
                    base_callers.push(base_site(graph, t.caller, t.depth, t.via));
                }
            }
            plan.planned.push(Planned {
                path: change.path.clone(),
                change: d.change,
                old,
                new: d.new,
                base_callers,
            });
        }
        let lines = match (&change.old, &change.new) {
            (Some(o), Some(n)) => changed_lines(o, n),
            (None, Some(n)) => std::iter::once(0..n.lines().count() as u32 + 1).collect(),
            _ => Vec::new(),
        };
        plan.head_files.insert(
            change.path.clone(),
            HeadFile {
                changed_defs,
                lines,
            },
        );
        plan.head_facts.push(new_facts);
    }
    plan
}

pub(super) fn describe(facts: Facts<'_>, d: DefIdx, path: &str, change: Change) -> ChangedFunction {
    let def = facts.def(d);
    ChangedFunction {
        file: path.to_string(),
        name: facts.str(def.name).to_string(),
        qualified_name: facts.str(def.qualified).to_string(),
        kind: def.kind,
        line: def.name_pos.line + 1,
        end_line: def.span.end_line + 1,
        change,
        renamed_from: None,
    }
}

fn base_site(graph: &Graph, c: Caller, depth: u32, via: DefId) -> BaseSite {
    let facts = graph.facts(c.file);
    let site = facts.calls[c.site() as usize];
    BaseSite {
        path: facts.path.clone(),
        site: c.site(),
        caller: site.caller().map(|d| facts.def_qualified(d).to_string()),
        name: facts.str(site.name).to_string(),
        kind: site.kind,
        line: site.pos().line,
        column: site.pos().column,
        confidence: c.confidence(),
        depth,
        via: graph.facts(via.file).def_qualified(via.def).to_string(),
    }
}
