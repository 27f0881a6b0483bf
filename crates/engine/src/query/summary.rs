//! What a graph holds, counted: files, definitions, call sites, edges by confidence,
//! what stayed unmatched, and the files the index skipped.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::graph::{Confidence, Graph};
use crate::indexer::facts::{CallKind, DefKind, Repair};
use crate::indexer::skip::SkipReason;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GraphSummary {
    pub files: usize,
    /// Files with syntax errors left after the repairs.
    pub files_with_syntax_errors: usize,
    /// Files with syntax errors by cause: each repaired misreading of the grammar, then
    /// the errors left (`other`); causes without files are left out.
    pub syntax_errors: Vec<SyntaxErrors>,
    /// Functions, methods, classes and interfaces (object literals are not counted).
    pub definitions: usize,
    /// Call sites by kind (`call`, `new`, `reference`, ...), getter reads apart.
    pub call_sites: BTreeMap<&'static str, usize>,
    pub getter_reads: usize,
    pub edges: EdgeCounts,
    /// Call sites that lead into packages (never matched by name).
    pub external: u64,
    /// Call sites that resolved to nothing.
    pub unresolved: usize,
    pub skipped: SkippedFiles,
}

/// The files whose syntax errors have one cause.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SyntaxErrors {
    /// `generic_call_signature`, `export_type_star` (see [`Repair`]), or `other`.
    pub cause: &'static str,
    /// What a person reads.
    pub description: &'static str,
    pub files: usize,
    /// Repaired before extraction: the facts are what a correct parse gives.
    pub repaired: bool,
    /// The first such file by path.
    pub example: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EdgeCounts {
    pub exact: usize,
    pub likely: usize,
    pub possible: usize,
}

/// Files the index could read but did not: callers in them are missing from answers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SkippedFiles {
    pub total: usize,
    pub by_reason: BTreeMap<&'static str, usize>,
    /// The first [`SKIPPED_LISTED`] of them, by path.
    pub files: Vec<SkippedFile>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SkippedFile {
    pub path: String,
    pub reason: &'static str,
}

/// How many skipped files a summary names.
pub const SKIPPED_LISTED: usize = 100;

/// One more file of cause `cause`; the example is the first path.
fn count<'g>(causes: &mut [(usize, Option<&'g str>)], cause: usize, path: &'g str) {
    let (n, first) = &mut causes[cause];
    *n += 1;
    if first.is_none_or(|p| path < p) {
        *first = Some(path);
    }
}

pub fn summary(g: &Graph, skipped: &[(String, SkipReason)]) -> GraphSummary {
    let mut s = GraphSummary {
        files: g.file_count(),
        ..GraphSummary::default()
    };
    // Per cause (each repair, then `other`): files and the first path.
    let mut causes: Vec<(usize, Option<&str>)> = vec![(0, None); Repair::ALL.len() + 1];
    for f in g.file_ids() {
        let facts = g.facts(f).held();
        for r in &facts.repaired {
            let cause = Repair::ALL.iter().position(|x| x == r).unwrap_or(0);
            count(&mut causes, cause, &facts.path);
        }
        if facts.parse_errors > 0 {
            count(&mut causes, Repair::ALL.len(), &facts.path);
        }
        s.definitions += facts
            .defs
            .iter()
            .filter(|d| d.kind != DefKind::Object)
            .count();
        s.files_with_syntax_errors += usize::from(facts.parse_errors > 0);
        for c in &facts.calls {
            if c.kind != CallKind::Get {
                *s.call_sites.entry(c.kind.as_str()).or_default() += 1;
            }
        }
        let r = g.resolution(f);
        for e in g.edges(f) {
            match e.confidence() {
                Confidence::Exact => s.edges.exact += 1,
                Confidence::Likely => s.edges.likely += 1,
                Confidence::Possible => s.edges.possible += 1,
            }
            if facts.calls[e.site() as usize].kind == CallKind::Get {
                s.getter_reads += 1;
            }
        }
        s.external += u64::from(r.external);
        s.unresolved += r.unresolved_sites.len();
    }
    for (i, (files, example)) in causes.into_iter().enumerate() {
        let Some(example) = example else { continue };
        let (cause, description, repaired) = match Repair::ALL.get(i) {
            Some(r) => (r.as_str(), r.describe(), true),
            None => ("other", "other syntax errors", false),
        };
        s.syntax_errors.push(SyntaxErrors {
            cause,
            description,
            files,
            repaired,
            example: example.to_string(),
        });
    }
    let mut listed: Vec<&(String, SkipReason)> = skipped.iter().collect();
    listed.sort();
    s.skipped.total = skipped.len();
    for (_, reason) in skipped {
        *s.skipped.by_reason.entry(reason.as_str()).or_default() += 1;
    }
    s.skipped.files = listed
        .into_iter()
        .take(SKIPPED_LISTED)
        .map(|(path, reason)| SkippedFile {
            path: path.clone(),
            reason: reason.as_str(),
        })
        .collect();
    s
}
