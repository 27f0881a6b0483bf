//! "In other repositories": the calls the installation's other repositories make into
//! the functions a pull request changed, for the repository that owns the package.
//! A public repository's outputs never name a private repository or its paths
//! ([`calls_elsewhere`]).

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::blast::diff::Change;
use crate::blast::report::{BlastReport, Verdict};
use crate::escape::code;
use crate::org::{CallElsewhere, FoundElsewhere};
use crate::report::calls_elsewhere::{self, plural, Audience};
use crate::report::markdown;

use super::check_run;
use crate::report::weight::Weight;

/// Call sites listed per changed function, at most.
const LISTED: usize = 20;

/// What the pull request's outputs say about other repositories.
#[derive(Clone, Copy, Debug)]
pub struct Elsewhere<'a> {
    pub calls: &'a [CallElsewhere],
    pub found: &'a [FoundElsewhere],
    /// Whether the pull request's repository is private: only then are other private
    /// repositories named.
    pub from_private: bool,
    /// GitHub's web address, for permalinks.
    pub web_url: &'a str,
    /// The version each package has in this repository (package name, version).
    pub versions: &'a [(String, String)],
    /// Its package names another repository of the installation owns too: no call is
    /// listed for them, and the section says so.
    pub ambiguous: &'a [String],
}

impl Elsewhere<'_> {
    fn audience(&self) -> Audience<'_> {
        Audience {
            from_private: self.from_private,
            web_url: self.web_url,
            versions: self.versions,
        }
    }

    /// The call sites found and the repositories they are in, for the headline, with
    /// those the change breaks (named or not).
    pub(super) fn counted(&self, report: &BlastReport) -> markdown::Elsewhere {
        let repositories: BTreeSet<&str> = self
            .found
            .iter()
            .map(|f| self.calls[f.call].repo.as_str())
            .collect();
        let sites: BTreeSet<usize> = self.found.iter().map(|f| f.call).collect();
        let breaks: BTreeSet<usize> = self
            .found
            .iter()
            .filter(|f| weight(report, f) == Weight::Breaks)
            .map(|f| f.call)
            .collect();
        markdown::Elsewhere {
            sites: sites.len(),
            repositories: repositories.len(),
            breaks: breaks.len(),
        }
    }

    /// The calls found, counted for the check run by what they ask of the reader.
    pub(super) fn weighed(&self, report: &BlastReport) -> check_run::Others {
        let mut others = check_run::Others::default();
        for f in self.found {
            let gone = matches!(
                report.changed[f.changed].change,
                Change::Removed | Change::Renamed | Change::Unexported
            );
            match weight(report, f) {
                _ if gone => others.gone += 1,
                Weight::Breaks => others.breaks += 1,
                Weight::Look => others.look += 1,
                Weight::Fine => others.fine += 1,
            }
        }
        others
    }
}

/// What a call from elsewhere asks of the reader, by its verdict as a direct caller's
/// is weighed; a call of a removed or renamed function breaks, judged or not.
fn weight(report: &BlastReport, found: &FoundElsewhere) -> Weight {
    let func = &report.changed[found.changed];
    if matches!(
        func.change,
        Change::Removed | Change::Renamed | Change::Unexported
    ) {
        return Weight::Breaks;
    }
    match found.judged.as_ref().map(|j| j.verdict) {
        Some(Verdict::Breaks) => Weight::Breaks,
        Some(Verdict::Check) => Weight::Look,
        Some(Verdict::Fine) if func.change != Change::Added => Weight::Fine,
        None if func.change == Change::Body => Weight::Fine,
        _ => Weight::Look,
    }
}

/// The section within about `max_chars`, or "" when no other repository calls a
/// changed function. Functions past the budget are counted, not listed.
pub(super) fn section(report: &BlastReport, e: &Elsewhere, max_chars: usize) -> String {
    if e.found.is_empty() && e.ambiguous.is_empty() {
        return String::new();
    }
    let mut out = String::from("### In other repositories\n\n");
    let ambiguous = calls_elsewhere::ambiguous(e.ambiguous);
    if !ambiguous.is_empty() {
        out.push_str(&ambiguous);
        out.push('\n');
    }
    let mut hidden_sites = 0;
    let mut hidden_breaks = 0;
    let mut hidden_repos = BTreeSet::new();
    let mut unlisted = 0;
    for (changed_index, changed) in report.changed.iter().enumerate() {
        let mut found: Vec<&FoundElsewhere> = e
            .found
            .iter()
            .filter(|f| f.changed == changed_index)
            .collect();
        if found.is_empty() {
            continue;
        }
        // What breaks first, then what needs a look (stable: the calls' order within).
        found.sort_by_key(|f| weight(report, f));
        let breaking = found
            .iter()
            .filter(|f| weight(report, f) == Weight::Breaks)
            .count();
        let repos: BTreeSet<&str> = found
            .iter()
            .map(|f| e.calls[f.call].repo.as_str())
            .collect();
        let mut block = String::new();
        let _ = write!(
            block,
            "{} ({}, {}) is called from {} {} in {} other {}",
            code(&changed.qualified_name),
            code(&changed.file),
            changed.change.as_str(),
            found.len(),
            plural(found.len(), "site", "sites"),
            repos.len(),
            plural(repos.len(), "repository", "repositories"),
        );
        if breaking > 0 {
            let _ = write!(
                block,
                "; **{breaking}** of them {} with this change",
                plural(breaking, "breaks", "break")
            );
        }
        block.push_str(":\n\n");
        let audience = e.audience();
        let mut listed = 0;
        let mut shown = 0;
        for f in &found {
            let call = &e.calls[f.call];
            if !audience.names(call) {
                // Counted, as breaking where it breaks; never named.
                hidden_sites += 1;
                hidden_repos.insert(call.repo.as_str());
                if weight(report, f) == Weight::Breaks {
                    hidden_breaks += 1;
                }
                continue;
            }
            shown += 1;
            if listed == LISTED {
                continue;
            }
            listed += 1;
            let _ = writeln!(
                block,
                "- {}{}",
                calls_elsewhere::site(call, f.confidence, &audience),
                verdict_details(f)
            );
        }
        if shown > listed {
            let _ = writeln!(block, "- and {} more", shown - listed);
        }
        block.push('\n');
        // The notes below need a few hundred characters at most.
        if out.len() + block.len() + 300 > max_chars {
            unlisted += 1;
        } else {
            out.push_str(&block);
        }
    }
    if unlisted > 0 {
        let _ = writeln!(
            out,
            "{unlisted} more changed {} called from other repositories {} not listed here; the check run counts their calls.\n",
            plural(unlisted, "function", "functions"),
            plural(unlisted, "is", "are"),
        );
    }
    let note = calls_elsewhere::hidden(hidden_sites, hidden_repos.len());
    if !note.is_empty() {
        out.push_str(note.trim_end());
        if hidden_breaks > 0 {
            let _ = write!(
                out,
                " **{hidden_breaks}** of them {} with this change.",
                plural(hidden_breaks, "breaks", "break")
            );
        }
        out.push_str("\n\n");
    }
    out
}

/// A named call's verdict when it is not fine: ` · **breaks**: `reason``.
fn verdict_details(found: &FoundElsewhere) -> String {
    match &found.judged {
        Some(j) if j.verdict != Verdict::Fine => {
            format!(" · **{}**: {}", j.verdict.as_str(), code(&j.reason))
        }
        _ => String::new(),
    }
}
