//! The App and its tools as processes: `serve` and `work` killed with -9 and restarted,
//! several workers sharing a burst, a process's memory and logs, setup by manifest, the
//! soak, the MCP server, the `store` CLI, the deployment files, and the browser test.
//! One test binary, so the crate is linked once.

#[path = "../common/app_fixtures.rs"]
mod app_fixtures;
#[path = "../common/mod.rs"]
mod common;
#[path = "../fake_github/mod.rs"]
mod fake_github;

mod app;
mod browser;
mod deploy;
mod hostile;
mod jobs_cli;
mod mcp;
mod recovery;
mod soak;
mod store_cli;
