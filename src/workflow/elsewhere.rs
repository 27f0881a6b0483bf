//! The calls the other repositories of an installation make into a repository's
//! packages, as the pull request's analysis, the thread commands, the CLI and the MCP
//! server read them.
//!
//! Which packages a repository owns is read from its stored graph (its default
//! branch's), never from a graph a pull request's files were laid over: a pull request
//! that adds a package.json claiming another repository's package name would otherwise
//! be shown that repository's callers. A name two repositories of the installation own
//! is ambiguous: nothing is listed across for it.

use anyhow::Result;

use crate::graph::Graph;
use crate::model::InstallationId;
use crate::org::{self, CallElsewhere};
use crate::store::{RepoId, Store};

/// What other repositories call of a repository's packages.
#[derive(Debug, Default)]
pub struct Elsewhere {
    pub calls: Vec<CallElsewhere>,
    /// Package names the repository owns that another repository of the installation
    /// owns too: no call is listed for them (a call from elsewhere cannot say which it
    /// means).
    pub ambiguous: Vec<String>,
}

/// The calls that the other repositories of `installation` (of none: those the command
/// line indexed) make into the packages `stored` (repository `repo`'s stored graph, its
/// default branch) owns alone, at most [`org::MAX_LINKED_CALLS`]; none when it owns no
/// package.
pub async fn calls_into_packages(
    store: &Store,
    installation: Option<InstallationId>,
    repo: RepoId,
    stored: &Graph,
) -> Result<Elsewhere> {
    let mut packages = org::owned_packages(stored);
    if packages.is_empty() {
        return Ok(Elsewhere::default());
    }
    let ambiguous = store
        .packages_owned_elsewhere(installation, repo, &packages)
        .await?;
    packages.retain(|p| !ambiguous.contains(p));
    if packages.is_empty() {
        return Ok(Elsewhere {
            calls: Vec::new(),
            ambiguous,
        });
    }
    let calls = store
        .calls_into(installation, repo, &packages, org::MAX_LINKED_CALLS)
        .await?;
    let calls = calls
        .into_iter()
        .map(|c| CallElsewhere {
            repo: c.full_name,
            private: c.private,
            commit: c.commit.map(|commit| commit.as_str().to_string()),
            path: c.path,
            call: c.call,
        })
        .collect();
    Ok(Elsewhere { calls, ambiguous })
}
