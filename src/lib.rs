//! Blast Radius: call graphs of JavaScript/TypeScript repositories, and the callers a
//! change did not touch.
//!
//! The pure core (`indexer`, `graph`, `blast`, `report`) does no IO; `repo` and `git`
//! read the disk and the git history for the CLI.

pub mod blast;
pub mod cli;
pub mod graph;
pub mod indexer;
pub mod report;
pub mod store;
pub mod workspace;
