//! The findings: each changed function described on the head side, with its callers
//! in head (touched by the change or not), and the base callers of removed or renamed
//! functions whose calls head still makes.

use rustc_hash::{FxHashMap, FxHashSet};

use super::plan::{describe, BaseSite, HeadFile, Planned};
use super::BlastOptions;
use crate::blast::diff::Change;
use crate::blast::report::{BlastReport, CallerFinding, ChangedFunction, MODULE_CALLER};
use crate::graph::{Caller, DefId, Graph};
use crate::indexer::facts::*;

/// The report: `planned` read against the head head.
pub(super) fn report(
    head: &Graph,
    planned: Vec<Planned>,
    head_files: &FxHashMap<String, HeadFile>,
    options: &BlastOptions,
) -> BlastReport {
    let mut report = BlastReport {
        base: options.base.clone(),
        head: options.head.clone(),
        changed: Vec::new(),
        callers: Vec::new(),
        depth: options.depth,
        unresolved_same_name: 0,
        skipped_files: options.skipped_files,
        skipped: options.skipped.clone(),
    };
    for p in planned {
        let head_def = p
            .new
            .and_then(|n| Some(DefId::new(head.file_id(&p.path)?, n)));
        let Some(described) = described(head, head_def, &p) else {
            continue;
        };
        let index = report.changed.len();
        let callee = described.qualified_name.clone();
        report.changed.push(described);
        for base in &p.base_callers {
            if let Some(mut finding) = still_called(head, base, head_files) {
                finding.callee = callee.clone();
                finding.changed_index = index;
                report.callers.push(finding);
            }
        }
        if let Some(target) = head_def {
            let added = p.change == Change::Added;
            // No longer exported: its own module's calls still work, and so does what
            // calls them; only the direct ones are listed (as fine).
            let depth = match p.change {
                Change::Unexported => 1,
                _ => options.depth,
            };
            for mut finding in head_callers(head, target, added, head_files, depth) {
                finding.callee = callee.clone();
                finding.changed_index = index;
                report.callers.push(finding);
            }
        }
    }
    report.unresolved_same_name = unresolved_same_name(head, &report);
    order(&mut report.callers);
    report
}

/// A changed function described on the head side when it is there (a renamed one
/// remembering its old name), else as the base had it.
fn described(head: &Graph, head_def: Option<DefId>, p: &Planned) -> Option<ChangedFunction> {
    match head_def {
        Some(d) => {
            let mut c = describe(head.facts(d.file), d.def, &p.path, p.change);
            if p.change == Change::Renamed {
                c.renamed_from = p.old.as_ref().map(|o| o.qualified_name.clone());
            }
            Some(c)
        }
        None => p.old.clone(),
    }
}

/// The head callers of `target`, to `depth`. An added function's callers are the
/// change's own code, except direct calls the change did not touch (an existing call
/// that now reaches the new function): only those can surprise its author.
fn head_callers(
    head: &Graph,
    target: DefId,
    added: bool,
    head_files: &FxHashMap<String, HeadFile>,
    depth: u32,
) -> Vec<CallerFinding> {
    let depth = if added { 1 } else { depth };
    let mut found = Vec::new();
    for t in head.transitive_callers(target, depth) {
        let mut finding = finding_at(head, t.caller, head_files);
        if added && finding.touched {
            continue;
        }
        finding.depth = t.depth;
        finding.via =
            (t.depth > 1).then(|| head.facts(t.via.file).def_qualified(t.via.def).to_string());
        found.push(finding);
    }
    found
}

/// By changed function, untouched first, nearest first, then place; each site once.
fn order(callers: &mut Vec<CallerFinding>) {
    callers.sort_by(|a, b| {
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
    callers.dedup_by(|a, b| {
        (a.changed_index, &a.file, a.line, a.column) == (b.changed_index, &b.file, b.line, b.column)
    });
    keep_nearest(callers);
}

/// A call site listed under several changed functions stays only under the nearest:
/// the finding(s) of least depth, and among transitive ones of equal depth the first
/// changed function's. Direct calls are all kept (a site that calls two changed
/// functions is two findings); order is kept.
fn keep_nearest(callers: &mut Vec<CallerFinding>) {
    let mut nearest: FxHashMap<(&str, u32, u32), (u32, usize)> = FxHashMap::default();
    for c in callers.iter() {
        let best = nearest
            .entry((c.file.as_str(), c.line, c.column))
            .or_insert((c.depth, c.changed_index));
        *best = (*best).min((c.depth, c.changed_index));
    }
    let keep: Vec<bool> = callers
        .iter()
        .map(|c| {
            let (depth, index) = nearest[&(c.file.as_str(), c.line, c.column)];
            c.depth == depth && (depth <= 1 || c.changed_index == index)
        })
        .collect();
    let mut keep = keep.into_iter();
    callers.retain(|_| keep.next().unwrap_or(true));
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

/// A base call site of a removed or renamed function as it stands in head: None when
/// the change removed the call.
fn still_called(
    graph: &Graph,
    base: &BaseSite,
    head_files: &FxHashMap<String, HeadFile>,
) -> Option<CallerFinding> {
    let mut finding = CallerFinding {
        judged: None,
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
        judged: None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Confidence;

    fn at(changed_index: usize, file: &str, line: u32, depth: u32) -> CallerFinding {
        CallerFinding {
            judged: None,
            callee: format!("f{changed_index}"),
            changed_index,
            file: file.into(),
            line,
            column: 3,
            caller: "g".into(),
            kind: CallKind::Call,
            confidence: Confidence::Exact,
            touched: false,
            depth,
            via: (depth > 1).then(|| "h".into()),
        }
    }

    fn kept(mut callers: Vec<CallerFinding>) -> Vec<(usize, String, u32)> {
        keep_nearest(&mut callers);
        callers
            .into_iter()
            .map(|c| (c.changed_index, format!("{}:{}", c.file, c.line), c.depth))
            .collect()
    }

    #[test]
    fn a_site_stays_under_the_nearest_changed_function() {
        // B (1) calls A (0); C calls B: under B at depth 1, not again under A at depth 2.
        assert_eq!(
            kept(vec![at(0, "c.js", 4, 2), at(1, "c.js", 4, 1)]),
            vec![(1, "c.js:4".into(), 1)]
        );
        // Equally far from two changed functions: under the first one.
        assert_eq!(
            kept(vec![at(2, "d.js", 1, 2), at(1, "d.js", 1, 2)]),
            vec![(1, "d.js:1".into(), 2)]
        );
        // A line that calls two changed functions directly is two findings; other
        // sites are left alone.
        assert_eq!(
            kept(vec![
                at(0, "e.js", 2, 1),
                at(1, "e.js", 2, 1),
                at(2, "e.js", 2, 2),
                at(2, "f.js", 9, 2),
            ]),
            vec![
                (0, "e.js:2".into(), 1),
                (1, "e.js:2".into(), 1),
                (2, "f.js:9".into(), 2),
            ]
        );
    }
}
