//! "In other repositories": the calls the installation's other repositories make into
//! the functions a pull request changed, for the repository that owns the package.
//!
//! A public repository's outputs never name a private repository or its paths: those
//! calls are counted, nothing more.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::blast::diff::Change;
use crate::blast::report::BlastReport;
use crate::escape::code;
use crate::org::{CallElsewhere, FoundElsewhere};

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
}

impl Elsewhere<'_> {
    fn named(&self, call: &CallElsewhere) -> bool {
        !call.private || self.from_private
    }

    /// Whether a call elsewhere still calls a function the change removed or renamed.
    pub(super) fn broken(&self, report: &BlastReport) -> usize {
        self.found
            .iter()
            .filter(|f| {
                matches!(
                    report.changed[f.changed].change,
                    Change::Removed | Change::Renamed
                )
            })
            .count()
    }
}

/// The section within about `max_chars`, or "" when no other repository calls a
/// changed function. Functions past the budget are counted, not listed.
pub(super) fn section(report: &BlastReport, e: &Elsewhere, max_chars: usize) -> String {
    if e.found.is_empty() {
        return String::new();
    }
    let web = e.web_url.trim_end_matches('/');
    let mut out = String::from("### In other repositories\n\n");
    let mut hidden_sites = 0;
    let mut hidden_repos = BTreeSet::new();
    let mut unlisted = 0;
    for (changed_index, changed) in report.changed.iter().enumerate() {
        let found: Vec<&FoundElsewhere> = e
            .found
            .iter()
            .filter(|f| f.changed == changed_index)
            .collect();
        if found.is_empty() {
            continue;
        }
        let repos: BTreeSet<&str> = found
            .iter()
            .map(|f| e.calls[f.call].repo.as_str())
            .collect();
        let mut block = String::new();
        let _ = writeln!(
            block,
            "{} ({}, {}) is called from {} {} in {} other {}:\n",
            code(&changed.qualified_name),
            code(&changed.file),
            changed.change.as_str(),
            found.len(),
            plural(found.len(), "site", "sites"),
            repos.len(),
            plural(repos.len(), "repository", "repositories"),
        );
        let mut listed = 0;
        let mut shown = 0;
        for f in &found {
            let call = &e.calls[f.call];
            if !e.named(call) {
                hidden_sites += 1;
                hidden_repos.insert(call.repo.as_str());
                continue;
            }
            shown += 1;
            if listed == LISTED {
                continue;
            }
            listed += 1;
            let place = format!("{} {}:{}", call.repo, call.path, call.call.line);
            let _ = write!(block, "- {}", code(&place));
            if let Some(commit) = &call.commit {
                let _ = write!(
                    block,
                    " ([view]({web}/{}/blob/{}/{}#L{}))",
                    url_path(&call.repo),
                    url_path(commit),
                    url_path(&call.path),
                    call.call.line
                );
            }
            if let Some(caller) = &call.call.caller {
                let _ = write!(block, " in {}", code(caller));
            }
            let _ = write!(block, " [{}]", f.confidence.as_str());
            if let Some(range) = &call.call.range {
                let _ = write!(
                    block,
                    ", depends on {} {}",
                    code(&call.call.package),
                    code(range)
                );
                if let Some((_, version)) = e
                    .versions
                    .iter()
                    .find(|(name, _)| *name == call.call.package)
                {
                    let _ = write!(block, " (this repository has {})", code(version));
                }
            }
            block.push('\n');
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
    if hidden_sites > 0 {
        let _ = writeln!(
            out,
            "{hidden_sites} call {} in {} private {} of this installation {} not named here.\n",
            plural(hidden_sites, "site", "sites"),
            hidden_repos.len(),
            plural(hidden_repos.len(), "repository", "repositories"),
            plural(hidden_sites, "is", "are"),
        );
    }
    out
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// A path made safe inside a markdown link's URL: every byte but unreserved characters
/// and `/` percent-encoded (a `)` or a space would end the link).
fn url_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}
