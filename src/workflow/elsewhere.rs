//! The calls the other repositories of an installation make into a repository's
//! packages, as the pull request's analysis, the thread commands, the CLI and the MCP
//! server read them.

use anyhow::Result;

use crate::graph::Graph;
use crate::model::InstallationId;
use crate::org::{self, CallElsewhere};
use crate::store::{RepoId, Store};

/// The calls that the other repositories of `installation` (of none: those the command
/// line indexed) make into the packages `graph` (repository `repo`'s) owns, at most
/// [`org::MAX_LINKED_CALLS`]; none when it owns no package.
pub async fn calls_into_packages(
    store: &Store,
    installation: Option<InstallationId>,
    repo: RepoId,
    graph: &Graph,
) -> Result<Vec<CallElsewhere>> {
    let packages = org::owned_packages(graph);
    if packages.is_empty() {
        return Ok(Vec::new());
    }
    let calls = store
        .calls_into(installation, repo, &packages, org::MAX_LINKED_CALLS)
        .await?;
    Ok(calls
        .into_iter()
        .map(|c| CallElsewhere {
            repo: c.full_name,
            private: c.private,
            commit: c.commit.map(|commit| commit.as_str().to_string()),
            path: c.path,
            call: c.call,
        })
        .collect())
}
