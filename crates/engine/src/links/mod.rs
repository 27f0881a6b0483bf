//! Links across service boundaries (issue 47), over a repository's graph: mounted
//! routers' prefixes composed across files, handlers mapped to definitions
//! ([`resolve`]), and clients paired with the routes they reach and producers with the
//! consumers of their topic, with how surely ([`matching`]). The sites themselves are
//! each file's, read by the indexer (`indexer::links`).

pub mod across;
pub mod matching;
pub mod resolve;

#[cfg(test)]
mod tests;

pub use crate::indexer::links::*;
pub use across::{FoundLink, LinkCaller, Served};
pub use matching::{match_endpoints, match_http, match_sites, LinkMatch};
pub use resolve::{resolve, RepoLinks, ResolvedSite};
