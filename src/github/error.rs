//! What can go wrong when talking to GitHub, as kinds a caller can branch on.
//!
//! `what` is always the request ("GET /repos/acme/web/compare/a...b") or the object asked
//! for: never a token or a key.

use chrono::{DateTime, Utc};

pub type Result<T, E = GithubError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GithubError {
    /// The App's configuration cannot work (bad key, bad URL): fix it and restart.
    #[error("GitHub App configuration: {0}")]
    Config(String),

    /// 404 (or 410): deleted, renamed away, or not visible to this installation.
    #[error("{what}: not found on GitHub (deleted, renamed, or not visible to this installation)")]
    NotFound { what: String },

    /// 401: the App's JWT or the installation token was refused.
    #[error(
        "{what}: GitHub refused the credentials ({message}); check GITHUB_APP_ID and the \
         private key, and that the App is still installed"
    )]
    Unauthorized { what: String, message: String },

    /// 403 that is not a rate limit: a missing permission, a suspended installation.
    #[error(
        "{what}: GitHub forbids it ({message}); the App may lack a permission (it needs \
         Contents: read, and Pull requests, Issues and Checks: write to comment, review and \
         report checks) or the installation may be suspended"
    )]
    Forbidden { what: String, message: String },

    /// A primary or secondary rate limit that lasts longer than the policy's `max_wait`,
    /// or that outlasted every attempt. Try again at `until`.
    #[error("{what}: GitHub's rate limit is reached; try again after {until}")]
    RateLimited { what: String, until: DateTime<Utc> },

    /// Any other answer that is not a success: 422, or 5xx after every attempt.
    #[error("{what}: GitHub answered {status}: {message}")]
    Http {
        what: String,
        status: u16,
        message: String,
    },

    /// No answer: connection refused or reset, a timeout, a body cut short.
    #[error(
        "{what}: could not reach GitHub ({message}); the network or GitHub may be down, try \
         again later"
    )]
    Transport { what: String, message: String },

    /// A write failed in a way that leaves open whether GitHub applied it (a 5xx, a timeout):
    /// it was not sent again. Check whether it took effect before sending it again.
    #[error("{what}: may or may not have taken effect ({message}); check before sending it again")]
    WriteOutcomeUnknown { what: String, message: String },

    /// A text we were about to send is longer than GitHub takes (65,536 characters for a
    /// comment or review body, 65,535 for a check run's summary and text): refused before
    /// sending. The caller caps it (and says what was left out).
    #[error(
        "{what}: the {field} is {chars} characters long, GitHub takes at most {limit}; cap it \
         before sending"
    )]
    TooLong {
        what: String,
        field: String,
        chars: usize,
        limit: usize,
    },

    /// A request that GitHub would refuse, caught before sending (a review comment's
    /// `start_line` not before its `line`).
    #[error("{what}: {message}")]
    Invalid { what: String, message: String },

    /// A success whose body is not what GitHub documents.
    #[error("{what}: unexpected answer from GitHub: {message}")]
    Decode { what: String, message: String },

    /// A commit's tree that GitHub lists only truncated, and that takes more than the
    /// per-job bound of requests to walk directory by directory: read the archive instead.
    #[error(
        "{what}: the tree takes more than {requests} requests to list; read the archive instead"
    )]
    TreeTooLarge { what: String, requests: usize },

    /// A tarball that cannot be read (corrupt, cut short, or a path escaping the
    /// repository).
    #[error("{what}: cannot read the archive: {message}")]
    Archive { what: String, message: String },
}

impl GithubError {
    /// Whether the same call may succeed later without anyone changing anything: worth a
    /// job retry. (Rate limits: see [`GithubError::retry_at`].)
    pub fn is_transient(&self) -> bool {
        match self {
            GithubError::Transport { .. } | GithubError::RateLimited { .. } => true,
            GithubError::Http { status, .. } => *status >= 500,
            _ => false,
        }
    }

    /// When a rate-limited call may be tried again.
    pub fn retry_at(&self) -> Option<DateTime<Utc>> {
        match self {
            GithubError::RateLimited { until, .. } => Some(*until),
            _ => None,
        }
    }

    /// A 422: GitHub understood the request and refused it (a review comment outside the
    /// diff, a validation failure); sending it again will not help.
    pub fn is_unprocessable(&self) -> bool {
        matches!(self, GithubError::Http { status: 422, .. })
    }

    /// A tree too large to list within the bound of requests (see
    /// [`GithubError::TreeTooLarge`]).
    pub fn is_tree_too_large(&self) -> bool {
        matches!(self, GithubError::TreeTooLarge { .. })
    }

    /// A 404: the object is gone or invisible (a repository deleted or renamed, an
    /// installation removed).
    pub fn is_not_found(&self) -> bool {
        matches!(self, GithubError::NotFound { .. })
    }
}
