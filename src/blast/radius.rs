//! Changed functions → their callers, each marked touched or untouched by the change.
//!
//! The graph of the base revision is indexed; the head versions of the changed files are
//! laid over it; the two versions of each changed file are diffed into changed
//! functions. Callers of changed functions come from the head graph. Callers of removed
//! or renamed functions come from the base graph (the head graph has nothing left to
//! resolve them to), kept where the call is still there in head: the loudest finding.

use std::ops::Range;

use rustc_hash::{FxHashMap, FxHashSet};

use super::diff::{changed_lines, diff_functions, Change};
use super::report::{BlastReport, CallerFinding, ChangedFunction, MODULE_CALLER};
use crate::graph::{Caller, Confidence, DefId, Graph};
use crate::indexer::facts::*;

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
}

/// What the change did to one file, on the head side.
struct HeadFile {
    /// Definitions (head indices) that the change added or modified.
    changed_defs: FxHashSet<DefIdx>,
    lines: Vec<Range<u32>>,
}

/// A changed function as planned on the base side, before head is laid over it.
struct Planned {
    path: String,
    change: Change,
    /// Base-side description (removed functions have no other).
    old: Option<ChangedFunction>,
    new: Option<DefIdx>,
    /// Base-graph callers of removed and renamed functions.
    base_callers: Vec<BaseSite>,
}

/// A base-graph call site, described by what survives the overlay.
struct BaseSite {
    path: String,
    /// The site's index in its file's base facts.
    site: u32,
    caller: Option<String>,
    name: String,
    kind: CallKind,
    line: u32,
    column: u32,
    confidence: Confidence,
    depth: u32,
    via: String,
}

/// Computes the blast radius of `changes` on `graph`, which holds the base revision and
/// is left holding the head revision.
pub fn blast(graph: &mut Graph, changes: &[FileChange], options: &BlastOptions) -> BlastReport {
    let mut planned = Vec::new();
    let mut head_files: FxHashMap<String, HeadFile> = FxHashMap::default();
    for change in changes {
        let old_facts = graph.file_id(&change.path).map(|f| graph.facts(f).clone());
        let new_facts = change
            .new
            .as_deref()
            .and_then(|src| crate::indexer::extract_source(&change.path, src));
        let mut changed_defs = FxHashSet::default();
        for d in diff_functions(old_facts.as_ref(), new_facts.as_ref()) {
            changed_defs.extend(d.new);
            let old = match (&old_facts, d.old) {
                (Some(facts), Some(o)) => Some(describe(facts, o, &change.path, d.change)),
                _ => None,
            };
            let mut base_callers = Vec::new();
            if let (Change::Removed | Change::Renamed, Some(f), Some(o)) =
                (d.change, graph.file_id(&change.path), d.old)
            {
                for t in graph.transitive_callers(DefId::new(f, o), options.depth) {
                    base_callers.push(base_site(graph, t.caller, t.depth, t.via));
                }
            }
            planned.push(Planned {
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
        head_files.insert(
            change.path.clone(),
            HeadFile {
                changed_defs,
                lines,
            },
        );
    }

    for change in changes {
        let _ = match &change.new {
            Some(src) => graph.update_file(&change.path, src),
            None => graph.remove_file(&change.path),
        };
    }

    let mut report = BlastReport {
        base: options.base.clone(),
        head: options.head.clone(),
        changed: Vec::new(),
        callers: Vec::new(),
        depth: options.depth,
        unresolved_same_name: 0,
        skipped_files: options.skipped_files,
    };
    for p in planned {
        let head_def = p
            .new
            .and_then(|n| Some(DefId::new(graph.file_id(&p.path)?, n)));
        let described = match head_def {
            Some(d) => {
                let mut c = describe(graph.facts(d.file), d.def, &p.path, p.change);
                if p.change == Change::Renamed {
                    c.renamed_from = p.old.map(|o| o.qualified_name);
                }
                c
            }
            None => match p.old {
                Some(old) => old,
                None => continue,
            },
        };
        let index = report.changed.len();
        let callee = described.qualified_name.clone();
        report.changed.push(described);
        for base in &p.base_callers {
            if let Some(mut finding) = still_called(graph, base, &head_files) {
                finding.callee = callee.clone();
                finding.changed_index = index;
                report.callers.push(finding);
            }
        }
        if let Some(target) = head_def {
            for t in graph.transitive_callers(target, options.depth) {
                let mut finding = finding_at(graph, t.caller, &head_files);
                finding.callee = callee.clone();
                finding.changed_index = index;
                finding.depth = t.depth;
                finding.via = (t.depth > 1)
                    .then(|| graph.facts(t.via.file).def_qualified(t.via.def).to_string());
                report.callers.push(finding);
            }
        }
    }

    report.unresolved_same_name = unresolved_same_name(graph, &report);
    report.callers.sort_by(|a, b| {
        (
            a.changed_index,
            a.touched,
            a.depth,
            &a.file,
            a.line,
            a.column,
        )
            .cmp(&(
                b.changed_index,
                b.touched,
                b.depth,
                &b.file,
                b.line,
                b.column,
            ))
    });
    report.callers.dedup_by(|a, b| {
        (a.changed_index, &a.file, a.line, a.column) == (b.changed_index, &b.file, b.line, b.column)
    });
    report
}

/// Unresolved call sites that share a changed function's name: with them the caller
/// counts are lower bounds.
fn unresolved_same_name(graph: &Graph, report: &BlastReport) -> u32 {
    let names: FxHashSet<&str> = report.changed.iter().map(|c| c.name.as_str()).collect();
    let mut count = 0;
    for f in graph.file_ids() {
        let facts = graph.facts(f);
        for &s in &graph.resolution(f).unresolved_sites {
            if names.contains(facts.str(facts.calls[s as usize].name)) {
                count += 1;
            }
        }
    }
    count
}

fn describe(facts: &FileFacts, d: DefIdx, path: &str, change: Change) -> ChangedFunction {
    let def = facts.def(d);
    ChangedFunction {
        file: path.to_string(),
        name: facts.str(def.name).to_string(),
        qualified_name: facts.str(def.qualified).to_string(),
        kind: def.kind,
        line: def.name_pos.line + 1,
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

/// A base call site of a removed or renamed function as it stands in head: None when
/// the change removed the call.
fn still_called(
    graph: &Graph,
    base: &BaseSite,
    head_files: &FxHashMap<String, HeadFile>,
) -> Option<CallerFinding> {
    let mut finding = CallerFinding {
        callee: String::new(),
        changed_index: 0,
        file: base.path.clone(),
        line: base.line + 1,
        column: base.column + 1,
        caller: base
            .caller
            .clone()
            .unwrap_or_else(|| MODULE_CALLER.to_string()),
        kind: base.kind,
        confidence: base.confidence,
        touched: false,
        depth: base.depth,
        via: (base.depth > 1).then(|| base.via.clone()),
    };
    let f = graph.file_id(&base.path)?;
    let facts = graph.facts(f);
    let head = head_files.get(&base.path);
    let index = match head {
        // The caller's file is unchanged: the call is where it was.
        None => base.site as usize,
        // The caller's file changed: find the same call (same name and kind, same
        // enclosing function) in its head version, nearest to where it was.
        Some(_) => {
            facts
                .calls
                .iter()
                .enumerate()
                .filter(|(_, s)| {
                    facts.str(s.name) == base.name
                        && s.kind == base.kind
                        && s.caller().map(|d| facts.def_qualified(d)) == base.caller.as_deref()
                })
                .min_by_key(|(_, s)| s.pos().line.abs_diff(base.line))?
                .0
        }
    };
    // A call that now reaches a definition of the name (the function moved to another
    // file, or is re-exported) still works: it is not a call of a removed function.
    let still_resolves = graph.edges(f).iter().any(|e| {
        e.site() as usize == index && graph.facts(e.target.file).def_name(e.target.def) == base.name
    });
    if still_resolves {
        return None;
    }
    let site = facts.calls.get(index)?;
    finding.line = site.pos().line + 1;
    finding.column = site.pos().column + 1;
    finding.touched = head.is_some_and(|h| is_touched(site, h));
    Some(finding)
}

fn is_touched(site: &CallSite, head: &HeadFile) -> bool {
    let caller_changed = site
        .caller()
        .is_some_and(|d| head.changed_defs.contains(&d));
    caller_changed || head.lines.iter().any(|r| r.contains(&site.pos().line))
}

/// A head-graph call site as a finding.
fn finding_at(graph: &Graph, c: Caller, head_files: &FxHashMap<String, HeadFile>) -> CallerFinding {
    let facts = graph.facts(c.file);
    let site = &facts.calls[c.site() as usize];
    let touched = head_files
        .get(&facts.path)
        .is_some_and(|h| is_touched(site, h));
    CallerFinding {
        callee: String::new(),
        changed_index: 0,
        file: facts.path.clone(),
        line: site.pos().line + 1,
        column: site.pos().column + 1,
        caller: site
            .caller()
            .map(|d| facts.def_qualified(d).to_string())
            .unwrap_or_else(|| MODULE_CALLER.to_string()),
        kind: site.kind,
        confidence: c.confidence(),
        touched,
        depth: 1,
        via: None,
    }
}
