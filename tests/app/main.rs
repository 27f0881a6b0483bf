//! The App in this process: GitHub's client against the fake, intake, the queue, the
//! store and its migrations, the status page, and the App's jobs run from deliveries by
//! the [`harness`]. One test binary, so the crate is linked once.

#[path = "../common/app_fixtures.rs"]
mod app_fixtures;
#[path = "../common/mod.rs"]
mod common;
#[path = "../fake_github/mod.rs"]
mod fake_github;

mod callers_read;
mod github;
mod github_pulls;
mod harness;
mod index_changes;
mod intake;
mod jobs;
mod links;
mod migrations;
mod org;
mod queue;
mod recovery;
mod schema;
mod status_page;
mod status_work;
mod store;
mod webhooks;
