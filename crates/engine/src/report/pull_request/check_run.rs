//! The "Blast radius" check run: its verdict and title, its summary (the comment's
//! listing, refit when GitHub's limit needs it) and an annotation on each untouched call
//! site.

use crate::blast::diff::Change;
use crate::blast::report::{BlastReport, CallerFinding, Verdict as JudgedVerdict};
use crate::report::markdown::render_markdown_listing;

use super::PrAnalysis;

/// GitHub's limit on a check run's summary, in characters (the GitHub edge refuses
/// anything longer before sending; this plans within it).
pub const CHECK_TEXT_CHARS: usize = 65_535;
/// Annotations on untouched call sites, at most (GitHub shows the first ones).
pub const MAX_NOTES: usize = 500;

/// How the check run concludes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Success,
    Neutral,
    Failure,
}

/// An annotation's severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoteLevel {
    Warning,
    Failure,
}

/// An annotation on one line of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub path: String,
    pub line: u32,
    pub level: NoteLevel,
    pub title: String,
    pub message: String,
}

/// A completed check run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckRunPlan {
    pub verdict: Verdict,
    pub title: String,
    /// Markdown, within [`CHECK_TEXT_CHARS`].
    pub summary: String,
    pub notes: Vec<Note>,
}

/// The check run: the configuration's problems (if any) over the comment's `body`,
/// rendered again shorter when the two together pass GitHub's limit.
pub(super) fn plan(analysis: &PrAnalysis, problems: Option<&str>, body: &str) -> CheckRunPlan {
    let PrAnalysis { report, config, .. } = analysis;
    let fail = Fail {
        removed_called: config.fail_on_removed_called,
        breaking: config.fail_on_breaking,
    };
    let elsewhere = analysis
        .elsewhere
        .map_or((0, 0), |e| (e.found.len(), e.broken(report)));
    let (verdict, title) = verdict(report, fail, elsewhere);
    let problems = problems.map(|p| format!("{p}\n")).unwrap_or_default();
    let mut summary = format!("{problems}{body}");
    if summary.chars().count() > CHECK_TEXT_CHARS {
        let budget = (CHECK_TEXT_CHARS - 1_000).saturating_sub(problems.len());
        let body = render_markdown_listing(report, budget, Some(analysis.link), config.max_callers);
        summary = format!("{problems}{body}");
    }
    CheckRunPlan {
        verdict,
        title,
        summary,
        notes: notes(report, fail),
    }
}

/// What fails the check rather than making it neutral (the repository's configuration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Fail {
    /// A removed or renamed function still called.
    pub removed_called: bool,
    /// A call the new contract of its callee breaks.
    pub breaking: bool,
}

/// How an untouched call is broken by the change, if it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Broken {
    /// A direct call to a function the pull request removed or renamed.
    Gone,
    /// A direct call the callee's new contract cannot match (see `blast::verdict`).
    Contract,
}

fn broken(report: &BlastReport, c: &CallerFinding) -> Option<Broken> {
    if c.depth != 1 {
        return None;
    }
    if matches!(
        report.changed[c.changed_index].change,
        Change::Removed | Change::Renamed
    ) {
        return Some(Broken::Gone);
    }
    c.judged
        .as_ref()
        .filter(|j| j.verdict == JudgedVerdict::Breaks)
        .map(|_| Broken::Contract)
}

impl Fail {
    fn fails(self, broken: Broken) -> bool {
        match broken {
            Broken::Gone => self.removed_called,
            Broken::Contract => self.breaking,
        }
    }
}

/// Failure when a removed or renamed function is still called, or a call is broken by
/// its callee's new contract (each neutral instead when the repository says so:
/// `fail_on_removed_called: false`, `fail_on_breaking: false`); neutral when changed
/// functions have callers the PR did not touch (worth a look, not wrong); success
/// otherwise.
///
/// Calls from other repositories count like the others (none of them is touched by
/// this pull request): `elsewhere` is (their number, how many call a removed or renamed
/// function).
pub(super) fn verdict(
    report: &BlastReport,
    fail: Fail,
    (elsewhere, broken_elsewhere): (usize, usize),
) -> (Verdict, String) {
    let untouched: Vec<_> = report.callers.iter().filter(|c| !c.touched).collect();
    let gone = broken_elsewhere > 0
        || untouched
            .iter()
            .any(|c| broken(report, c) == Some(Broken::Gone));
    let contract = untouched
        .iter()
        .filter(|c| broken(report, c) == Some(Broken::Contract))
        .count();
    let n = untouched.len() + elsewhere;
    let level = |fails: bool| {
        if fails {
            Verdict::Failure
        } else {
            Verdict::Neutral
        }
    };
    if gone {
        (
            level(fail.removed_called || (contract > 0 && fail.breaking)),
            "A removed or renamed function is still called".into(),
        )
    } else if contract > 0 {
        (
            level(fail.breaking),
            format!(
                "{contract} call site{} the change did not touch break{}",
                if contract == 1 { "" } else { "s" },
                if contract == 1 { "s" } else { "" }
            ),
        )
    } else if n > 0 {
        (
            Verdict::Neutral,
            format!(
                "{n} call site{} the change did not touch",
                if n == 1 { "" } else { "s" }
            ),
        )
    } else {
        (
            Verdict::Success,
            "Every caller of a changed function was touched".into(),
        )
    }
}

/// An annotation on each untouched call site (the first [`MAX_NOTES`]): a failure where
/// the call is broken and the repository fails on that, a warning otherwise.
pub(super) fn notes(report: &BlastReport, fail: Fail) -> Vec<Note> {
    report
        .callers
        .iter()
        .filter(|c| !c.touched)
        .take(MAX_NOTES)
        .map(|c| {
            let changed = &report.changed[c.changed_index];
            let fails = broken(report, c).is_some_and(|b| fail.fails(b));
            let judged = c
                .judged
                .as_ref()
                .filter(|j| j.verdict != JudgedVerdict::Fine)
                .map(|j| format!(": it {}, {}", j.verdict.as_str(), j.reason))
                .unwrap_or_default();
            Note {
                path: c.file.clone(),
                line: c.line,
                level: if fails {
                    NoteLevel::Failure
                } else {
                    NoteLevel::Warning
                },
                title: format!("Calls {} ({})", c.callee, changed.change.as_str()),
                message: format!(
                    "{} calls {}, which this pull request changes ({}), and was not updated [{} {}{}]{judged}",
                    c.caller,
                    c.callee,
                    changed.change.as_str(),
                    c.kind.as_str(),
                    c.confidence.as_str(),
                    if c.depth > 1 {
                        format!(", {} levels away", c.depth)
                    } else {
                        String::new()
                    }
                ),
            }
        })
        .collect()
}
