//! The blast-radius report: what changed and who still calls it. Its JSON form is a
//! public output, so field names and enum spellings here are a compatibility promise.

use serde::{Deserialize, Serialize};

use super::diff::Change;
pub use super::verdict::{Judged, Verdict};
use crate::graph::Confidence;
use crate::indexer::facts::{CallKind, DefKind};
use crate::indexer::skip::SkipReason;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlastReport {
    pub base: String,
    pub head: String,
    pub changed: Vec<ChangedFunction>,
    pub callers: Vec<CallerFinding>,
    /// Transitive depth searched (1 = direct callers only).
    pub depth: u32,
    /// Call sites whose callee name matches a changed function but that the graph could
    /// not resolve (a lower bound warning); 0 when none.
    pub unresolved_same_name: u32,
    /// Files skipped (minified, too large, binary...), so "0 callers" is never silently
    /// incomplete; 0 when none.
    pub skipped_files: u32,
    /// The changed files among them, by name, with why each could not be read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedFile>,
}

/// A changed file the report could not read, and why (`too_large`, `too_costly`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedFile {
    pub file: String,
    pub reason: SkipReason,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedFunction {
    pub file: String,
    pub name: String,
    pub qualified_name: String,
    pub kind: DefKind,
    /// 1-based line in head (base for removed).
    pub line: u32,
    /// 1-based last line of the definition, same side as `line` (0 in reports that
    /// predate it).
    #[serde(default)]
    pub end_line: u32,
    pub change: Change,
    /// For `Renamed`: the qualified name in base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallerFinding {
    /// Qualified name of the changed function called.
    pub callee: String,
    /// Index into [`BlastReport::changed`].
    pub changed_index: usize,
    pub file: String,
    /// 1-based.
    pub line: u32,
    /// 1-based.
    pub column: u32,
    /// Qualified name of the calling function, or `<module>` for top-level code.
    pub caller: String,
    pub kind: CallKind,
    pub confidence: Confidence,
    /// The change edited this call site's line: its author has seen it.
    pub touched: bool,
    /// 1 = calls the changed function directly; n = calls a caller at depth n-1.
    pub depth: u32,
    /// For depth > 1: the qualified name of the function at depth-1 that this site calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// For a direct caller: whether the change breaks it (`verdict`: `breaks`, `check`
    /// or `fine`) and why (`reason`), judged against the function's new contract.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub judged: Option<Judged>,
}

impl BlastReport {
    /// Narrows the report to what a reader asked to see: changed functions in files
    /// `keep_file` allows, and their callers in such files that are at least as sure as
    /// `min_confidence`. The counts of unresolved same-name sites and skipped files stay.
    pub fn retain(&mut self, keep_file: impl Fn(&str) -> bool, min_confidence: Confidence) {
        let mut moved_to = Vec::with_capacity(self.changed.len());
        let mut kept = Vec::with_capacity(self.changed.len());
        for func in std::mem::take(&mut self.changed) {
            if keep_file(&func.file) {
                moved_to.push(Some(kept.len()));
                kept.push(func);
            } else {
                moved_to.push(None);
            }
        }
        self.changed = kept;
        self.callers.retain_mut(|c| {
            let Some(Some(index)) = moved_to.get(c.changed_index).copied() else {
                return false;
            };
            c.changed_index = index;
            c.confidence.at_least(min_confidence) && keep_file(&c.file)
        });
    }
}

/// The `caller` of top-level code.
pub const MODULE_CALLER: &str = "<module>";

#[cfg(test)]
mod tests {
    use super::*;

    fn func(file: &str, name: &str) -> ChangedFunction {
        ChangedFunction {
            file: file.into(),
            name: name.into(),
            qualified_name: name.into(),
            kind: DefKind::Function,
            line: 1,
            end_line: 3,
            change: Change::Body,
            renamed_from: None,
        }
    }

    fn caller(index: usize, file: &str, confidence: Confidence) -> CallerFinding {
        CallerFinding {
            judged: None,
            callee: String::new(),
            changed_index: index,
            file: file.into(),
            line: 4,
            column: 1,
            caller: "g".into(),
            kind: CallKind::Call,
            confidence,
            touched: false,
            depth: 1,
            via: None,
        }
    }

    #[test]
    fn retain_drops_functions_and_callers_outside_the_paths_or_below_the_confidence() {
        let mut report = BlastReport {
            base: "main".into(),
            head: "#1".into(),
            changed: vec![func("gen/a.js", "a"), func("src/b.js", "b")],
            callers: vec![
                caller(0, "src/x.js", Confidence::Exact),
                caller(1, "src/y.js", Confidence::Exact),
                caller(1, "gen/z.js", Confidence::Exact),
                caller(1, "src/w.js", Confidence::Likely),
                caller(1, "src/v.js", Confidence::Possible),
            ],
            depth: 2,
            unresolved_same_name: 1,
            skipped_files: 2,
            skipped: Vec::new(),
        };
        report.retain(|p| !p.starts_with("gen/"), Confidence::Likely);
        let names: Vec<&str> = report.changed.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["b"]);
        let callers: Vec<(usize, &str)> = report
            .callers
            .iter()
            .map(|c| (c.changed_index, c.file.as_str()))
            .collect();
        assert_eq!(callers, [(0, "src/y.js"), (0, "src/w.js")]);
        assert_eq!((report.unresolved_same_name, report.skipped_files), (1, 2));
    }
}
