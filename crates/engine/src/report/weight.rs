//! What each untouched call site asks of its reader, by its verdict (issue 44): the
//! comment and the check run weigh callers alike, so the check run annotates what the
//! comment lists and counts what it folds.

use rustc_hash::FxHashMap;

use crate::blast::diff::Change;
use crate::blast::report::{BlastReport, CallerFinding, ChangedFunction, Verdict};
use crate::graph::Confidence;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Weight {
    /// Its verdict says the change breaks it.
    Breaks,
    /// Its verdict says to check it, or there is none that clears it: a caller of a
    /// removed, renamed or added function, or of callers that need a look.
    Look,
    /// The change cannot break it: only the body changed, or the call already matches
    /// the new signature (for a caller of callers: every direct call does).
    Fine,
}

/// The weight of a direct caller of `func` by its verdict; one without a verdict is
/// fine only where the contract cannot have changed (a body-only change).
fn direct(func: &ChangedFunction, finding: &CallerFinding) -> Weight {
    match finding.judged.as_ref().map(|j| j.verdict) {
        Some(Verdict::Breaks) => Weight::Breaks,
        Some(Verdict::Check) => Weight::Look,
        // A call written before the function existed now reaches it: the surprise to
        // look at, whatever its arguments.
        Some(Verdict::Fine) if func.change == Change::Added => Weight::Look,
        Some(Verdict::Fine) => Weight::Fine,
        None if func.change == Change::Body => Weight::Fine,
        None => Weight::Look,
    }
}

/// The weight of each of `report.callers`, in its order (touched callers get one too;
/// nobody counts it). A caller of callers has no verdict of its own: it is fine when
/// the change kept every untouched direct call of the function working (a body-only
/// change, or one whose direct calls all match), else it needs a look.
pub(crate) fn weights(report: &BlastReport) -> Vec<Weight> {
    let weigh_direct = |c: &CallerFinding| {
        let func = report.changed.get(c.changed_index)?;
        Some(direct(func, c))
    };
    // Whether each function's untouched, sure direct callers are all fine.
    let mut direct_fine: FxHashMap<usize, bool> = FxHashMap::default();
    for c in report
        .callers
        .iter()
        .filter(|c| c.depth <= 1 && !c.touched && c.confidence != Confidence::Possible)
    {
        let fine = weigh_direct(c) == Some(Weight::Fine);
        *direct_fine.entry(c.changed_index).or_insert(true) &= fine;
    }
    report
        .callers
        .iter()
        .map(|c| {
            let Some(func) = report.changed.get(c.changed_index) else {
                return Weight::Look;
            };
            if c.depth <= 1 || c.judged.is_some() {
                return direct(func, c);
            }
            let reshaped = matches!(
                func.change,
                Change::Body | Change::Signature | Change::SignatureAndBody
            );
            if reshaped && direct_fine.get(&c.changed_index).copied().unwrap_or(true) {
                Weight::Fine
            } else {
                Weight::Look
            }
        })
        .collect()
}
