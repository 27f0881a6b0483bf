//! What a pull request gets, in one place: the summary comment, the "Blast radius" check
//! run (verdict, annotations, a summary refit when too long) and the inline review,
//! planned from the analysis and the repository's configuration. Pure: the job fetches,
//! computes the blast radius, calls [`plan`], then posts what it returns (as bors gathers
//! its comments in one module).

mod check_run;
mod elsewhere;
mod links;
mod review;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use crate::blast::report::BlastReport;
use crate::model::{BlobSha, CommitSha};
use crate::repo_config::{ConfigProblem, RepoConfig, REPO_CONFIG_PATH};
use crate::report::markdown::{config_problems, render_markdown_elsewhere, COMMENT_BUDGET, MARKER};
use crate::report::LineLink;

pub use check_run::{CheckRunPlan, Note, NoteLevel, Verdict, CHECK_TEXT_CHARS, MAX_NOTES};
pub use elsewhere::Elsewhere;
pub use links::Across;
pub use review::{InlineComment, ReviewPlan, LISTED};

/// One file of the pull request as GitHub lists it, for the inline review.
#[derive(Clone, Copy, Debug)]
pub struct PatchedFile<'a> {
    pub path: &'a str,
    /// Its blob at the head (None for a removed file).
    pub blob: Option<&'a BlobSha>,
    /// The unified-diff hunks (None for binary files and diffs too large to show).
    pub patch: Option<&'a str>,
}

/// Everything the outputs are planned from.
pub struct PrAnalysis<'a> {
    pub report: &'a BlastReport,
    /// The repository's configuration, as of the base.
    pub config: &'a RepoConfig,
    /// What was wrong in the configuration file (shown where the results go).
    pub problems: &'a [ConfigProblem],
    /// A permalink to a line.
    pub link: LineLink<'a>,
    /// `Some(n)` when GitHub listed only the first `n` files of the pull request.
    pub listed_files_cap: Option<usize>,
    /// The pull request's files as GitHub lists them.
    pub files: &'a [PatchedFile<'a>],
    /// The blob of each path's version the analysis read: an inline comment goes only on
    /// a file whose head version is that one, so its lines are the head's.
    pub analysed: &'a BTreeMap<String, BlobSha>,
    /// The head commit the analysis ran on (the review's lines refer to it).
    pub head: &'a CommitSha,
    /// The bodies of our inline comments already on the pull request.
    pub posted: &'a [String],
    /// Calls from the installation's other repositories into the packages this one
    /// holds (None: not looked up).
    pub elsewhere: Option<Elsewhere<'a>>,
    /// Clients and producers that reach the routes and topics the changed functions
    /// handle, here and in the installation's other repositories (None: not looked up).
    pub across: Option<Across<'a>>,
}

impl PrAnalysis<'_> {
    /// The call sites elsewhere for the headline: into packages, and across service
    /// boundaries.
    fn counted(&self) -> crate::report::markdown::Elsewhere {
        let mut total = crate::report::markdown::Elsewhere::default();
        let parts = [
            self.elsewhere.map(|e| e.counted(self.report)),
            self.across.map(|a| a.counted(self.report)),
        ];
        for part in parts.into_iter().flatten() {
            total.sites += part.sites;
            // A repository that both calls a package and a route is counted twice here:
            // the headline says "call sites in other repositories", not how many.
            total.repositories += part.repositories;
            total.breaks += part.breaks;
        }
        total
    }
}

/// What to post; None where nothing is to be posted (an output turned off, or nothing
/// new to say).
#[derive(Debug, PartialEq, Eq)]
pub struct PrOutputs {
    pub comment: Option<String>,
    pub check_run: Option<CheckRunPlan>,
    pub review: Option<ReviewPlan>,
}

/// The outputs of one analysis. What is wrong in the configuration goes where the
/// results are: the check run, or the summary comment when the check run is off (posted
/// for it alone if the comment is off too).
pub fn plan(analysis: &PrAnalysis) -> PrOutputs {
    let PrAnalysis { report, config, .. } = analysis;
    let outputs = config.outputs;
    let problems = (!analysis.problems.is_empty())
        .then(|| config_problems(REPO_CONFIG_PATH, analysis.problems));
    let problems_in_comment = problems.as_deref().filter(|_| !outputs.check);
    let others = analysis
        .elsewhere
        // A quarter of the comment at most: the repository's own callers come first.
        .map(|e| elsewhere::section(report, &e, COMMENT_BUDGET / 4))
        .unwrap_or_default();
    let across = analysis
        .across
        .map(|a| links::section(report, &a, COMMENT_BUDGET / 4))
        .unwrap_or_default();
    let others = match (others.is_empty(), across.is_empty()) {
        (_, true) => others,
        (true, false) => across,
        (false, false) => format!("{}\n\n{}", others.trim_end(), across),
    };
    let reserve = problems_in_comment.map_or(0, |p| p.len() + 2) + others.len() + 2;
    let mut body = render_markdown_elsewhere(
        report,
        COMMENT_BUDGET.saturating_sub(reserve),
        Some(analysis.link),
        config.max_callers,
        analysis.counted(),
    );
    if !others.is_empty() {
        body = format!("{}\n\n{}", body.trim_end(), others.trim_end());
        body.push('\n');
    }
    if let Some(cap) = analysis.listed_files_cap {
        body.push_str(&format!(
            "\n\n_This pull request changes more files than GitHub lists ({cap}): files past that were not analysed._\n"
        ));
    }
    let check_run = outputs
        .check
        .then(|| check_run::plan(analysis, problems.as_deref(), &body));
    let review = if outputs.inline {
        let listed = config.max_callers.map_or(LISTED, |n| n.min(LISTED));
        review::plan(analysis, listed)
    } else {
        None
    };
    PrOutputs {
        comment: summary_comment(&body, outputs.summary, problems_in_comment),
        check_run,
        review,
    }
}

/// The summary comment to post: the report (with the configuration's problems when they
/// go there), or, when the repository turned the comment off, the problems alone; None
/// when there is nothing to post.
fn summary_comment(body: &str, enabled: bool, problems: Option<&str>) -> Option<String> {
    match (enabled, problems) {
        (true, None) => Some(body.to_string()),
        (true, Some(problems)) => Some(format!("{}\n\n{problems}", body.trim_end())),
        (false, Some(problems)) => Some(format!(
            "{MARKER}\n## Blast radius\n\n{problems}\n_The summary comment and the check run are turned off by `{REPO_CONFIG_PATH}`: this comment only says what is wrong in it._\n"
        )),
        (false, None) => None,
    }
}
