//! The app's services above the store: what jobs share while they run.

pub mod graph_cache;

pub use graph_cache::{GraphCache, Snapshot};
