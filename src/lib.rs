//! Blast Radius: call graphs of JavaScript/TypeScript repositories, and the callers a
//! change did not touch.
//!
//! Two crates, one direction:
//! - The engine (`crates/engine`, re-exported here as `model`, `cancel`, `escape`, `indexer`, `links`,
//!   `graph`, `blast`, `org`, `query`, `thread_commands`, `repo_config`, `report`): the pure core. It does no
//!   IO and links no IO crate; the compiler holds it to that.
//! - This crate: the IO edges and what drives them.
//!   - Edges, each speaking one protocol and knowing no workflow: `workspace` (the disk and
//!     git), `store` (the only module that speaks SQL), `github` (GitHub's API), `queue`
//!     (the durable job queue in Postgres), `intake` (webhook deliveries in, the jobs each
//!     makes).
//!   - `workflow`: the product's workflows (index, save, push, blast) over those edges,
//!     shared by every front end.
//!   - `jobs`: the App's job handlers (install, push, pull request, thread command), each
//!     fetching from GitHub, computing with the engine and posting back.
//!   - Front ends: `server` (the App's HTTP server and workers), `mcp` (the MCP server),
//!     `cli` (the command line, the top).

pub use blast_radius_engine::{
    blast, cancel, escape, graph, indexer, links, model, org, query, repo_config, report,
    thread_commands,
};

pub mod cli;
pub mod github;
pub mod intake;
pub mod jobs;
pub mod mcp;
pub mod queue;
pub mod server;
pub mod store;
pub mod workflow;
pub mod workspace;
