//! "Across service boundaries": the clients and producers that reach the routes and
//! topics the changed functions handle (issue 47), in this repository and in the
//! installation's other repositories, right after "In other repositories". The same
//! privacy rule: a public repository's outputs count private repositories' sites and
//! never name them.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::blast::diff::Change;
use crate::blast::report::BlastReport;
use crate::escape::code;
use crate::links::{FoundLink, LinkCaller, Role, Served};
use crate::report::calls_elsewhere::{hidden, link_site, plural};
use crate::report::markdown;

use super::check_run;

/// Sites listed per changed function, at most.
const LISTED: usize = 20;

/// What the pull request's outputs say about links across service boundaries.
#[derive(Clone, Copy, Debug)]
pub struct Across<'a> {
    pub served: &'a [Served],
    pub callers: &'a [LinkCaller],
    pub found: &'a [FoundLink],
    /// Whether the pull request's repository is private: only then are other private
    /// repositories named.
    pub from_private: bool,
    /// GitHub's web address, for permalinks.
    pub web_url: &'a str,
}

impl Across<'_> {
    fn named(&self, c: &LinkCaller) -> bool {
        c.own || !c.private || self.from_private
    }

    /// The sites in other repositories and those repositories, for the headline.
    pub(super) fn counted(&self, report: &BlastReport) -> markdown::Elsewhere {
        let others: BTreeSet<usize> = self
            .found
            .iter()
            .filter(|f| !self.callers[f.caller].own)
            .map(|f| f.caller)
            .collect();
        let repositories: BTreeSet<&str> = others
            .iter()
            .map(|&c| self.callers[c].repo.as_str())
            .collect();
        let breaks: BTreeSet<usize> = self
            .found
            .iter()
            .filter(|f| !self.callers[f.caller].own && gone(report, f))
            .map(|f| f.caller)
            .collect();
        markdown::Elsewhere {
            sites: others.len(),
            repositories: repositories.len(),
            breaks: breaks.len(),
        }
    }

    /// The sites found, counted for the check run like untouched callers: those of a
    /// removed handler as gone, those of a changed body as fine (its contract held),
    /// the rest to look at.
    pub(super) fn weighed(&self, report: &BlastReport) -> check_run::Others {
        let mut others = check_run::Others::default();
        for f in self.found {
            if gone(report, f) {
                others.gone += 1;
            } else if report.changed[f.changed].change == Change::Body {
                others.fine += 1;
            } else {
                others.look += 1;
            }
        }
        others
    }
}

/// Whether the handler of what a site reaches was removed.
fn gone(report: &BlastReport, f: &FoundLink) -> bool {
    report.changed[f.changed].change == Change::Removed
}

/// The section within about `max_chars`, or "" when nothing reaches what the changed
/// functions serve.
pub(super) fn section(report: &BlastReport, a: &Across, max_chars: usize) -> String {
    if a.found.is_empty() {
        return String::new();
    }
    let mut out = String::from("### Across service boundaries\n\n");
    let web = a.web_url.trim_end_matches('/');
    let mut hidden_sites = 0;
    let mut hidden_repos = BTreeSet::new();
    let mut unlisted = 0;
    for (changed_index, changed) in report.changed.iter().enumerate() {
        let found: Vec<&FoundLink> = a
            .found
            .iter()
            .filter(|f| f.changed == changed_index)
            .collect();
        if found.is_empty() {
            continue;
        }
        let mut endpoints: Vec<String> = a
            .served
            .iter()
            .filter(|s| s.changed == changed_index)
            .map(|s| code(&s.endpoint.to_string()))
            .collect();
        endpoints.dedup();
        let clients = found
            .iter()
            .filter(|f| a.callers[f.caller].role == Role::Client)
            .count();
        let producers = found.len() - clients;
        let mut what = Vec::new();
        if clients > 0 {
            what.push(format!(
                "{clients} {}",
                plural(clients, "client", "clients")
            ));
        }
        if producers > 0 {
            what.push(format!(
                "{producers} {}",
                plural(producers, "producer", "producers")
            ));
        }
        let own = found.iter().any(|f| a.callers[f.caller].own);
        let repos: BTreeSet<&str> = found
            .iter()
            .map(|f| &a.callers[f.caller])
            .filter(|c| !c.own)
            .map(|c| c.repo.as_str())
            .collect();
        let place = match (own, repos.len()) {
            (true, 0) => "in this repository".to_string(),
            (false, n) => format!("in {n} other {}", plural(n, "repository", "repositories")),
            (true, n) => format!(
                "in this repository and {n} other {}",
                plural(n, "repository", "repositories")
            ),
        };
        let mut block = String::new();
        let _ = write!(
            block,
            "{} ({}, {}) handles {}: {} {place}",
            code(&changed.qualified_name),
            code(&changed.file),
            changed.change.as_str(),
            endpoints.join(", "),
            what.join(" and "),
        );
        if changed.change == Change::Removed {
            block.push_str(", which **break** with this change");
        }
        block.push_str(":\n\n");
        let (mut listed, mut shown) = (0, 0);
        for f in &found {
            let c = &a.callers[f.caller];
            if !a.named(c) {
                hidden_sites += 1;
                hidden_repos.insert(c.repo.as_str());
                continue;
            }
            shown += 1;
            if listed == LISTED {
                continue;
            }
            listed += 1;
            let _ = writeln!(block, "- {}", link_site(c, f.confidence, web));
        }
        if shown > listed {
            let _ = writeln!(block, "- and {} more", shown - listed);
        }
        block.push('\n');
        if out.len() + block.len() + 300 > max_chars {
            unlisted += 1;
        } else {
            out.push_str(&block);
        }
    }
    if unlisted > 0 {
        let _ = writeln!(
            out,
            "{unlisted} more changed {} reached across service boundaries {} not listed here; the check run counts their sites.\n",
            plural(unlisted, "function", "functions"),
            plural(unlisted, "is", "are"),
        );
    }
    let note = hidden(hidden_sites, hidden_repos.len());
    if !note.is_empty() {
        out.push_str(note.trim_end());
        out.push_str("\n\n");
    }
    out
}
