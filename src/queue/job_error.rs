//! How a handler says it failed: retry, give up, or wait for a time it was told.

use chrono::{DateTime, Utc};

/// A handler's failure. Any error converts into a retryable one (`?` works on anything
/// `anyhow` takes); [`JobError::permanent`] marks one that retrying cannot fix (a payload
/// that does not fit, a repository that no longer exists), and the job goes straight to
/// dead; [`JobError::deferred`] one that will pass at a known time (a rate limit's reset),
/// and the job waits until then without spending an attempt.
pub struct JobError {
    error: anyhow::Error,
    kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Retry,
    Permanent,
    Deferred(DateTime<Utc>),
}

impl JobError {
    pub fn retry(error: impl Into<anyhow::Error>) -> JobError {
        JobError {
            error: error.into(),
            kind: Kind::Retry,
        }
    }

    pub fn permanent(error: impl Into<anyhow::Error>) -> JobError {
        JobError {
            error: error.into(),
            kind: Kind::Permanent,
        }
    }

    /// Nothing is wrong with the job but it cannot go on before `until` (GitHub's rate
    /// limit resets then): run it again then, without counting this attempt. The queue
    /// caps how far ahead and how often a job may be deferred
    /// ([`QueueConfig::max_defer`](super::QueueConfig::max_defer),
    /// [`QueueConfig::max_deferrals`](super::QueueConfig::max_deferrals)).
    pub fn deferred(error: impl Into<anyhow::Error>, until: DateTime<Utc>) -> JobError {
        JobError {
            error: error.into(),
            kind: Kind::Deferred(until),
        }
    }

    pub fn is_permanent(&self) -> bool {
        self.kind == Kind::Permanent
    }

    /// When a deferred job may run again.
    pub fn deferred_until(&self) -> Option<DateTime<Utc>> {
        match self.kind {
            Kind::Deferred(until) => Some(until),
            _ => None,
        }
    }

    pub fn error(&self) -> &anyhow::Error {
        &self.error
    }

    pub fn into_error(self) -> anyhow::Error {
        self.error
    }
}

impl<E: Into<anyhow::Error>> From<E> for JobError {
    fn from(e: E) -> Self {
        JobError::retry(e)
    }
}

impl std::fmt::Debug for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            Kind::Retry => write!(f, "retryable: {:#}", self.error),
            Kind::Permanent => write!(f, "permanent: {:#}", self.error),
            Kind::Deferred(until) => write!(f, "deferred until {until}: {:#}", self.error),
        }
    }
}

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.error)
    }
}
