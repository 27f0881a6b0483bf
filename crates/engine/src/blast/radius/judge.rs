//! Each direct caller judged against its callee's new contract (see `blast::verdict`):
//! the changed function's contract read on both sides of the change, the call's
//! arguments from the head graph.

use rustc_hash::FxHashMap;

use super::FileChange;
use crate::blast::contract::{Contract, Reader};
use crate::blast::diff::Change;
use crate::blast::report::BlastReport;
use crate::blast::verdict::judge_in;
use crate::graph::Graph;
use crate::indexer::facts::{CallArgs, CallKind, FileFacts};
use crate::indexer::Language;

/// A file's call sites by 1-based line, column and kind: what each passes.
type SitesByPlace = FxHashMap<(u32, u32, CallKind), Option<CallArgs>>;

pub(super) fn callers(head: &Graph, changes: &[FileChange], report: &mut BlastReport) {
    let contracts = contracts(head, changes, report);
    let mut by_file: FxHashMap<String, SitesByPlace> = FxHashMap::default();
    for caller in report.callers.iter_mut().filter(|c| c.depth == 1) {
        let Some(func) = report.changed.get(caller.changed_index) else {
            continue;
        };
        let (old, new) = contracts
            .get(&caller.changed_index)
            .map_or((None, None), |(o, n)| (o.as_ref(), n.as_ref()));
        // Each caller file's call sites by place, found once per file.
        let sites = by_file.entry(caller.file.clone()).or_insert_with(|| {
            let mut map = FxHashMap::default();
            if let Some(f) = head.file_id(&caller.file) {
                for s in head.facts(f).calls.iter() {
                    let at = s.pos();
                    map.entry((at.line + 1, at.column + 1, s.kind))
                        .or_insert_with(|| s.args());
                }
            }
            map
        });
        let args = sites
            .get(&(caller.line, caller.column, caller.kind))
            .copied()
            .flatten();
        // A TypeScript file's calls are checked by its compiler (extra arguments too).
        let typed = Language::from_path(&caller.file)
            .is_some_and(|l| matches!(l, Language::TypeScript | Language::Tsx));
        caller.judged = Some(judge_in(&func.name, func.change, old, new, args, typed));
    }
}

/// The contracts before and after the change of each changed function whose signature
/// changed and that something calls directly, by its index in the report. Each changed
/// file is parsed once per side, however many of its functions changed.
pub(super) fn contracts(
    head: &Graph,
    changes: &[FileChange],
    report: &BlastReport,
) -> FxHashMap<usize, (Option<Contract>, Option<Contract>)> {
    let mut wanted: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for c in report.callers.iter().filter(|c| c.depth == 1) {
        let func = &report.changed[c.changed_index];
        if matches!(func.change, Change::Signature | Change::SignatureAndBody) {
            let list = wanted.entry(func.file.as_str()).or_default();
            if !list.contains(&c.changed_index) {
                list.push(c.changed_index);
            }
        }
    }
    let mut out = FxHashMap::default();
    for (path, indexes) in wanted {
        let (Some(change), Some(language)) = (
            changes.iter().find(|c| c.path == path),
            Language::from_path(path),
        ) else {
            continue;
        };
        let new_side = change.new.as_deref().zip(head.file_id(path));
        let new_reader = new_side.map(|(source, _)| Reader::new(language, source));
        let old_facts = change
            .old
            .as_deref()
            .and_then(|source| crate::indexer::extract_source(path, source)?.ok());
        let old_reader = change
            .old
            .as_deref()
            .map(|source| Reader::new(language, source));
        // The callable definitions of each side by qualified name, found once per file.
        let by_name = |facts: &FileFacts, qualified: &dyn Fn(usize) -> String| {
            let mut map: FxHashMap<String, Vec<usize>> = FxHashMap::default();
            for (i, d) in facts.defs.iter().enumerate() {
                if d.kind.is_callable() {
                    map.entry(qualified(i)).or_default().push(i);
                }
            }
            map
        };
        let new_defs = new_side.map(|(_, f)| {
            let facts = head.facts(f);
            by_name(&facts, &|d| facts.def_qualified(d as u32).to_string())
        });
        let old_defs = old_facts
            .as_ref()
            .map(|facts| by_name(facts, &|d| facts.def_qualified(d as u32).to_string()));
        for index in indexes {
            let func = &report.changed[index];
            let new = match (&new_reader, new_side, &new_defs) {
                (Some(reader), Some((_, f)), Some(defs)) => contract_of(
                    &head.facts(f),
                    defs,
                    reader,
                    &func.qualified_name,
                    Some(func.line),
                ),
                _ => None,
            };
            let old = match (&old_reader, &old_facts, &old_defs) {
                (Some(reader), Some(facts), Some(defs)) => {
                    let name = func.renamed_from.as_deref().unwrap_or(&func.qualified_name);
                    contract_of(facts, defs, reader, name, None)
                }
                _ => None,
            };
            out.insert(index, (old, new));
        }
    }
    out
}

/// The contract of the definition of `facts` qualified `name` (the one at 1-based `line`
/// when given: overloads share a name); `defs` holds its callable definitions by name.
fn contract_of(
    facts: &FileFacts,
    defs: &FxHashMap<String, Vec<usize>>,
    reader: &Reader,
    name: &str,
    line: Option<u32>,
) -> Option<Contract> {
    let def = defs.get(name)?.iter().map(|&i| &facts.defs[i]).find(|d| {
        line.is_none_or(|l| (d.span.start_line + 1..=d.span.end_line + 1).contains(&l))
    })?;
    reader.at(def.span.start_byte as usize, def.span.end_byte as usize)
}
