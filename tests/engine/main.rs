//! The engine and the offline CLI: extraction, resolution, blast radius, incremental
//! updates, the architecture's rules. One test binary, so the crate is linked once.

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/hostile_shapes.rs"]
mod hostile_shapes;

mod architecture;
mod blast;
mod cli;
mod corpus;
mod docs;
mod extract;
mod fuzz;
mod hostile;
mod implements;
mod incremental;
mod org;
mod resolve;
mod resolve_bounds;
