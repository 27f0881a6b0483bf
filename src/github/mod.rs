//! GitHub, as the App sees it: the only module that uses octocrab.
//!
//! - [`GithubApp`]: the App (RS256 JWT from its private key) and one [`Installation`]
//!   client per installation, whose access token is cached and renewed before it expires.
//! - Typed calls on [`Installation`]: repositories, a branch's head, a commit's tarball
//!   extracted into a directory, comparisons, trees and blobs; pull requests and their files
//!   (with each file's patch, which `blast::patch` reads), issue comments
//!   (one kept up to date by a hidden marker) and reactions, check runs with annotations,
//!   reviews with inline comments. Only the fields we use are decoded.
//! - Writes that create something recover from an unknown outcome themselves where we
//!   offer a "one of ours" call: [`Installation::create_or_update_marked_comment`],
//!   [`Installation::publish_check_run`], [`Installation::create_marked_review`]. Texts
//!   over GitHub's limits ([`MAX_BODY_CHARS`], [`MAX_CHECK_TEXT_CHARS`]) are refused before
//!   sending ([`GithubError::TooLong`]).
//! - Our own retry policy ([`RetryPolicy`]): 5xx, timeouts and rate limits are retried with
//!   backoff, writes never blindly; a timeout on every attempt; the primary rate limit is
//!   recorded ([`Installation::rate_limit`]).
//! - The App's webhook delivery log ([`GithubApp::hook_deliveries`]) and redelivery
//!   ([`GithubApp::redeliver`]), to recover what the server failed to take.
//! - [`GithubError`]: kinds a caller can branch on (`NotFound`, `RateLimited { until }`, ...).
//!
//! Routes are always relative, so a GitHub Enterprise Server base URL
//! (`https://HOST/api/v3`) works like github.com.
//!
//! Adding a call: a method on [`Installation`] that builds a `transport::Call` and sends it
//! with `self.sender()` (`get_json`, `get_all_pages`, `send_buffered`, `send_streaming`).
//! A write that creates something (a comment, a review, a check run, or an update that
//! appends annotations) is `Call::post(route, body, RetryMode::NotIdempotent)` (or
//! `Call::patch`): it is re-sent only after a rate limit, and otherwise fails with
//! [`GithubError::WriteOutcomeUnknown`], after which the caller looks for its effect (the
//! comment with our marker, the run and its annotations) before sending it again, as
//! `create_or_update_marked_comment` and `publish_check_run` do. A write whose repetition
//! does no harm (an edit to the same body, a reaction) is `RetryMode::Idempotent`. Check
//! texts against GitHub's limits (`limits::check_length`) before sending.

mod app;
mod app_settings;
mod checks;
mod comments;
mod compare;
mod core;
mod error;
mod git_data;
mod hook_deliveries;
mod installation;
mod limits;
mod manifest;
mod pulls;
mod rate_limit;
mod repos;
mod retry;
mod reviews;
mod tarball;
mod transport;

pub use self::core::AppIdentity;
pub use app::{GithubApp, InstallationInfo};
pub use app_settings::{AppPrivateKey, GithubConfig, DEFAULT_API_URL};
pub use checks::{
    Annotation, AnnotationLevel, CheckConclusion, CheckOutput, CheckRun, CheckRunId,
    CheckRunUpdate, CheckStatus, NewCheckRun,
};
pub use comments::{
    with_marker, CommentId, IssueComment, Lookup, MarkedComment, MarkedOutcome, Reaction,
};
pub use compare::{ChangedFile, Comparison, FileStatus, COMPARE_FILE_LIMIT};
pub use error::{GithubError, Result};
pub use git_data::{CappedBlob, EntryKind, Tree, TreeEntry, MAX_TREE_REQUESTS};
pub use hook_deliveries::{DeliveryLog, HookDelivery};
pub use installation::Installation;
pub use limits::{fits, MAX_ANNOTATIONS_PER_REQUEST, MAX_BODY_CHARS, MAX_CHECK_TEXT_CHARS};
pub use manifest::{convert_manifest, NewApp};
pub use pulls::{OpenPullRequest, PrBranch, PrFile, PrFiles, PrState, PullRequest, PR_FILES_LIMIT};
pub use rate_limit::RateLimit;
pub use repos::{RepoName, Repository};
pub use retry::{RetryMode, RetryPolicy};
pub use reviews::{
    MarkedReview, NewReview, NewReviewComment, Review, ReviewComment, ReviewCommentId, ReviewId,
    ReviewState,
};
pub use tarball::{Archive, ArchivedFile, Sieve};
