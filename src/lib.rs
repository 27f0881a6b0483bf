//! Blast Radius: call graphs of JavaScript/TypeScript repositories, and the callers a
//! change did not touch.
//!
//! The pure core (`indexer`, `graph`, `blast`, `report`) does no IO. IO lives at the
//! edges: `workspace` reads the disk and git, `store` is the only module that speaks SQL.
//! `workflow` holds the product's workflows (index, save, push, blast) over those
//! edges; `jobs` the services the app's jobs share; `cli` drives the workflows.

pub mod blast;
pub mod cli;
pub mod commands;
pub mod config;
pub mod escape;
pub mod github;
pub mod graph;
pub mod indexer;
pub mod intake;
pub mod jobs;
pub mod mcp;
pub mod model;
pub mod query;
pub mod queue;
pub mod report;
pub mod server;
pub mod store;
pub mod workflow;
pub mod workspace;
