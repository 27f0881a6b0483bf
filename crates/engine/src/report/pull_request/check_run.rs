//! The "Blast radius" check run: its verdict and title, its summary (the comment's
//! listing, refit when GitHub's limit needs it) and an annotation on each untouched call
//! site the change breaks or that needs a look, the breaking ones first. Call sites the
//! change cannot break (only a body changed, or the call matches the new signature) are
//! counted in the summary, never annotated.

use crate::blast::diff::Change;
use crate::blast::report::{BlastReport, CallerFinding, Verdict as JudgedVerdict};
use crate::report::markdown::render_markdown_elsewhere;
use crate::report::weight::{weights, Weight};

use super::PrAnalysis;

/// GitHub's limit on a check run's summary, in characters (the GitHub edge refuses
/// anything longer before sending; this plans within it).
pub const CHECK_TEXT_CHARS: usize = 65_535;
/// Annotations on untouched call sites, at most (GitHub shows the first ones): the
/// breaking ones first.
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
    let mut elsewhere = analysis
        .elsewhere
        .map(|e| e.weighed(report))
        .unwrap_or_default();
    if let Some(a) = analysis.across {
        let more = a.weighed(report);
        elsewhere.gone += more.gone;
        elsewhere.breaks += more.breaks;
        elsewhere.look += more.look;
        elsewhere.fine += more.fine;
    }
    let (verdict, title) = verdict(report, fail, elsewhere);
    let problems = problems.map(|p| format!("{p}\n")).unwrap_or_default();
    let mut summary = format!("{problems}{body}");
    if summary.chars().count() > CHECK_TEXT_CHARS {
        let budget = (CHECK_TEXT_CHARS - 1_000).saturating_sub(problems.len());
        let body = render_markdown_elsewhere(
            report,
            budget,
            Some(analysis.link),
            config.max_callers,
            analysis.counted(),
        );
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

fn broken(report: &BlastReport, c: &CallerFinding, weight: Weight) -> Option<Broken> {
    if c.depth != 1 {
        return None;
    }
    if matches!(
        report.changed[c.changed_index].change,
        Change::Removed | Change::Renamed
    ) {
        return Some(Broken::Gone);
    }
    (weight == Weight::Breaks).then_some(Broken::Contract)
}

/// The calls from other repositories that reach a changed function, counted by what
/// they ask of the reader.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Others {
    /// Calls of a function the pull request removed or renamed.
    pub gone: usize,
    /// Calls the new contract of their callee breaks.
    pub breaks: usize,
    /// Calls to look at.
    pub look: usize,
    /// Calls the change cannot break.
    pub fine: usize,
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
/// `fail_on_removed_called: false`, `fail_on_breaking: false`); neutral when the PR
/// left call sites untouched (worth a look, not wrong), its title counting those that
/// need a look, or else those no contract change affects; success when every call site
/// was touched.
///
/// Calls from other repositories count like the others (none of them is touched by
/// this pull request).
pub(super) fn verdict(report: &BlastReport, fail: Fail, others: Others) -> (Verdict, String) {
    let mut gone = others.gone > 0;
    let (mut contract, mut look, mut fine) = (others.breaks, others.look, others.fine);
    for (c, weight) in report.callers.iter().zip(weights(report)) {
        if c.touched {
            continue;
        }
        match (broken(report, c, weight), weight) {
            (Some(Broken::Gone), _) => gone = true,
            (Some(Broken::Contract), _) => contract += 1,
            (None, Weight::Fine) => fine += 1,
            (None, _) => look += 1,
        }
    }
    let level = |fails: bool| {
        if fails {
            Verdict::Failure
        } else {
            Verdict::Neutral
        }
    };
    let sites = |n: usize| format!("{n} call site{}", if n == 1 { "" } else { "s" });
    if gone {
        (
            level(fail.removed_called || (contract > 0 && fail.breaking)),
            "A removed or renamed function is still called".into(),
        )
    } else if contract > 0 {
        (
            level(fail.breaking),
            format!(
                "{} the change did not touch break{}",
                sites(contract),
                if contract == 1 { "s" } else { "" }
            ),
        )
    } else if look > 0 {
        (
            Verdict::Neutral,
            format!(
                "{} the change did not touch need{} a look",
                sites(look),
                if look == 1 { "s" } else { "" }
            ),
        )
    } else if fine > 0 {
        // A body's change can still change what callers get (a result that was null is
        // an array now): worth a look, though no contract broke.
        (
            Verdict::Neutral,
            format!(
                "{} the change did not touch, none affected by the contract",
                sites(fine)
            ),
        )
    } else {
        (
            Verdict::Success,
            "Every caller of a changed function was touched".into(),
        )
    }
}

/// An annotation on each untouched call site the change breaks, then on each that needs
/// a look (the first [`MAX_NOTES`]): a failure where the call is broken and the
/// repository fails on that, a warning otherwise. Call sites it cannot break get none.
pub(super) fn notes(report: &BlastReport, fail: Fail) -> Vec<Note> {
    let mut weighed: Vec<(&CallerFinding, Weight)> = report
        .callers
        .iter()
        .zip(weights(report))
        .filter(|(c, weight)| !c.touched && *weight != Weight::Fine)
        .collect();
    // Stable: the report's order within each weight.
    weighed.sort_by_key(|&(_, weight)| weight);
    weighed
        .into_iter()
        .take(MAX_NOTES)
        .map(|(c, weight)| {
            let changed = &report.changed[c.changed_index];
            let fails = broken(report, c, weight).is_some_and(|b| fail.fails(b));
            let judged = c
                .judged
                .as_ref()
                .and_then(|j| {
                    let what = match j.verdict {
                        JudgedVerdict::Breaks => "it breaks",
                        JudgedVerdict::Check => "it needs a check",
                        JudgedVerdict::Fine => return None,
                    };
                    Some(format!(": {what}, {}", j.reason))
                })
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
