//! Each direct caller judged against its callee's new contract (see `blast::verdict`):
//! the changed function's contract read on both sides of the change, the call's
//! arguments from the head graph.

use super::FileChange;
use crate::blast::contract::{contract_at, Contract};
use crate::blast::report::{BlastReport, ChangedFunction};
use crate::blast::verdict::judge_in;
use crate::graph::Graph;
use crate::indexer::facts::FileFacts;
use crate::indexer::Language;

pub(super) fn callers(head: &Graph, changes: &[FileChange], report: &mut BlastReport) {
    let contracts: Vec<(Option<Contract>, Option<Contract>)> = report
        .changed
        .iter()
        .map(|func| contracts(head, changes, func))
        .collect();
    for caller in report.callers.iter_mut().filter(|c| c.depth == 1) {
        let Some(func) = report.changed.get(caller.changed_index) else {
            continue;
        };
        let (old, new) = &contracts[caller.changed_index];
        let args = head.file_id(&caller.file).and_then(|f| {
            let facts = head.facts(f);
            facts
                .calls
                .iter()
                .find(|s| {
                    let at = s.pos();
                    at.line + 1 == caller.line
                        && at.column + 1 == caller.column
                        && s.kind == caller.kind
                })
                .and_then(|s| s.args())
        });
        // A TypeScript file's calls are checked by its compiler (extra arguments too).
        let typed = Language::from_path(&caller.file)
            .is_some_and(|l| matches!(l, Language::TypeScript | Language::Tsx));
        caller.judged = Some(judge_in(
            &func.name,
            func.change,
            old.as_ref(),
            new.as_ref(),
            args,
            typed,
        ));
    }
}

/// The contract of a changed function before and after the change (None where that side
/// has no such function or it could not be read).
fn contracts(
    head: &Graph,
    changes: &[FileChange],
    func: &ChangedFunction,
) -> (Option<Contract>, Option<Contract>) {
    let Some(change) = changes.iter().find(|c| c.path == func.file) else {
        return (None, None);
    };
    let Some(language) = Language::from_path(&func.file) else {
        return (None, None);
    };
    let new = match (&change.new, head.file_id(&func.file)) {
        (Some(source), Some(f)) => {
            let facts = head.facts(f);
            let qualified = |d: usize| facts.def_qualified(d as u32);
            contract_of(
                &facts,
                &qualified,
                language,
                source,
                &func.qualified_name,
                Some(func.line),
            )
        }
        _ => None,
    };
    let old = change.old.as_ref().and_then(|source| {
        let facts = crate::indexer::extract_source(&func.file, source)?.ok()?;
        let name = func.renamed_from.as_deref().unwrap_or(&func.qualified_name);
        let qualified = |d: usize| facts.def_qualified(d as u32);
        contract_of(&facts, &qualified, language, source, name, None)
    });
    (old, new)
}

/// The contract of the definition of `facts` qualified `name` (the one at 1-based `line`
/// when given: overloads share a name).
fn contract_of<'a>(
    facts: &FileFacts,
    qualified: &dyn Fn(usize) -> &'a str,
    language: Language,
    source: &str,
    name: &str,
    line: Option<u32>,
) -> Option<Contract> {
    let def = facts
        .defs
        .iter()
        .enumerate()
        .filter(|(i, d)| d.kind.is_callable() && qualified(*i) == name)
        .map(|(_, d)| d)
        .find(|d| {
            line.is_none_or(|l| (d.span.start_line + 1..=d.span.end_line + 1).contains(&l))
        })?;
    contract_at(
        language,
        source,
        def.span.start_byte as usize,
        def.span.end_byte as usize,
    )
}
