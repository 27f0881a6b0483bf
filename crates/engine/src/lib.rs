//! The pure core of Blast Radius: what a repository's JavaScript/TypeScript says, and what
//! a change to it reaches. No IO crate and no async runtime: the caller hands in bytes and
//! gets back values, so everything here is tested without a database, a network or a disk.
//!
//! From the bottom up:
//! - `model`: the values every layer shares (paths, blob ids, spans).
//! - `cancel`: stopping CPU work from outside (a job's deadline).
//! - `escape`: outside text made safe to show in markdown.
//! - `indexer`: source files to per-file facts (tree-sitter extraction).
//! - `graph`: per-file facts resolved into one call graph, and its reverse index.
//! - `links`: HTTP routes and clients, queue producers and consumers, matched across
//!   services.
//! - `blast`, `query`: what a change reaches; who calls a name.
//! - `org`: what other repositories' calls into a package reach in the repository
//!   that owns it.
//! - `thread_commands`: the grammar of commands in a pull request's thread (`/callers fn`).
//! - `repo_config`: a repository's `.github/blast-radius.yml`.
//! - `report`: blast radius and answers rendered as markdown, JSON and graph exports.

pub mod blast;
pub mod cancel;
pub mod escape;
pub mod graph;
pub mod indexer;
pub mod links;
pub mod model;
pub mod org;
pub mod query;
pub mod repo_config;
pub mod report;
pub mod thread_commands;
