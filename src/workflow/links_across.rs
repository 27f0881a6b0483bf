//! The clients and producers that reach what a repository serves (issue 47), as the
//! pull request's analysis, the thread commands and the MCP server read them: the
//! repository's own (from its graph) and those of the installation's other
//! repositories (their stored sites, confirmed here with the engine's matching).
//!
//! What the repository serves is read from its stored graph (its default branch's),
//! never from one a pull request's files were laid over: a route a pull request adds
//! claims no other repository's clients.

use anyhow::Result;

use crate::links::{self, FoundLink, LinkCaller, RepoLinks, Served};
use crate::model::InstallationId;
use crate::org::MAX_LINKED_CALLS;
use crate::store::{RepoId, Store};

/// Who reaches what a repository serves.
#[derive(Debug, Default)]
pub struct Across {
    pub served: Vec<Served>,
    pub callers: Vec<LinkCaller>,
    pub found: Vec<FoundLink>,
}

/// The repository asked about.
pub struct Asking<'a> {
    pub installation: Option<InstallationId>,
    pub repo: RepoId,
    pub full_name: &'a str,
    pub private: bool,
    /// The commit its stored graph reflects.
    pub commit: Option<&'a str>,
}

/// The callers of `served` (routes and topics the repository serves, read from
/// `links`, its stored graph's): its own clients and producers and those of the
/// installation's other repositories, at most [`MAX_LINKED_CALLS`] looked at.
pub async fn callers_of(
    store: &Store,
    asking: &Asking<'_>,
    links: &RepoLinks,
    served: Vec<Served>,
) -> Result<Across> {
    if served.is_empty() {
        return Ok(Across::default());
    }
    let mut callers =
        links::across::own_callers(links, asking.full_name, asking.private, asking.commit);
    let endpoints: Vec<links::Endpoint> = served.iter().map(|s| s.endpoint.clone()).collect();
    let others = store
        .link_sites_reaching(
            asking.installation,
            asking.repo,
            &endpoints,
            MAX_LINKED_CALLS.saturating_sub(callers.len()),
        )
        .await?;
    callers.extend(others);
    let found = links::across::reaching(&served, &callers);
    // Only the callers found are kept (indexes renumbered).
    let mut keep: Vec<usize> = found.iter().map(|f| f.caller).collect();
    keep.sort_unstable();
    keep.dedup();
    let found = found
        .into_iter()
        .map(|f| FoundLink {
            caller: keep.binary_search(&f.caller).expect("kept"),
            ..f
        })
        .collect();
    let callers = keep.into_iter().map(|i| callers[i].clone()).collect();
    Ok(Across {
        served,
        callers,
        found,
    })
}
