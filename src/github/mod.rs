//! GitHub, as the App sees it: the only module that uses octocrab.
//!
//! - [`GithubApp`]: the App (RS256 JWT from its private key) and one [`Installation`]
//!   client per installation, whose access token is cached and renewed before it expires.
//! - Typed calls on [`Installation`]: repositories, a branch's head, a commit's tarball
//!   extracted into a directory, comparisons, trees and blobs. Only the fields we use are
//!   decoded.
//! - Our own retry policy ([`RetryPolicy`]): 5xx, timeouts and rate limits are retried with
//!   backoff, writes never blindly; a timeout on every attempt; the primary rate limit is
//!   recorded ([`Installation::rate_limit`]).
//! - [`GithubError`]: kinds a caller can branch on (`NotFound`, `RateLimited { until }`, ...).
//!
//! Routes are always relative, so a GitHub Enterprise Server base URL
//! (`https://HOST/api/v3`) works like github.com.
//!
//! Adding a call: a method on [`Installation`] that builds a `transport::Call` and sends it
//! with `self.sender()` (`get_json`, `get_all_pages`, `send_buffered`, `send_streaming`).
//! A write that creates something (a comment, a review, a check run) is
//! `Call::post(route, body, RetryMode::NotIdempotent)`: it is re-sent only after a rate
//! limit, and otherwise fails with [`GithubError::WriteOutcomeUnknown`], after which the
//! caller looks for its effect (the comment with our marker) before sending it again.

mod app;
mod compare;
mod config;
mod error;
mod git_data;
mod installation;
mod rate_limit;
mod repos;
mod retry;
mod tarball;
mod transport;

pub use app::{GithubApp, InstallationInfo};
pub use compare::{ChangedFile, Comparison, FileStatus, COMPARE_FILE_LIMIT};
pub use config::{AppPrivateKey, GithubConfig, DEFAULT_API_URL};
pub use error::{GithubError, Result};
pub use git_data::{EntryKind, Tree, TreeEntry};
pub use installation::Installation;
pub use rate_limit::RateLimit;
pub use repos::{RepoName, Repository};
pub use retry::{RetryMode, RetryPolicy};
pub use tarball::ExtractStats;
