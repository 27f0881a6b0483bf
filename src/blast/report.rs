//! The blast-radius report: what changed and who still calls it. Its JSON form is a
//! public output, so field names and enum spellings here are a compatibility promise.

use serde::{Deserialize, Serialize};

use super::diff::Change;
use crate::graph::Confidence;
use crate::indexer::facts::{CallKind, DefKind};

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
}

/// The `caller` of top-level code.
pub const MODULE_CALLER: &str = "<module>";
