//! Blast Radius: call graphs of JavaScript/TypeScript repositories, and the callers a
//! change did not touch.
//!
//! The pure core (`indexer`, `graph`, `blast`, `report`) does no IO. IO lives at the
//! edges: `workspace` reads the disk and git, `store` is the only module that speaks SQL,
//! and `cli` drives them.

pub mod blast;
pub mod cli;
pub mod graph;
pub mod indexer;
pub mod intake;
pub mod model;
pub mod queue;
pub mod report;
pub mod store;
pub mod workspace;
