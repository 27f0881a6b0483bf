//! Which failures are worth another attempt.

use crate::github::GithubError;
use crate::queue::JobError;
use crate::store::StoreError;

/// GitHub failures that will not change by retrying (the installation or repository is
/// gone, access was revoked) end the job; a rate limit defers it to the limit's reset
/// without spending an attempt; the rest (5xx, timeouts) retry.
///
/// A write whose outcome is unknown (a 5xx or a timeout on a create) is retried too: every
/// create a job makes looks for its earlier write before creating (the summary and command
/// comments by their hidden marker, the review by its marker, the check run by its App,
/// name and head commit, annotations by reading back what the run holds), so running the
/// job again posts nothing twice.
pub fn github(e: GithubError) -> JobError {
    if let Some(until) = e.retry_at() {
        return JobError::deferred(e, until);
    }
    if e.is_transient() || matches!(e, GithubError::WriteOutcomeUnknown { .. }) {
        JobError::retry(e)
    } else {
        JobError::permanent(e)
    }
}

/// A retryable error that carries a rate limit somewhere in its chain (a GitHub error
/// that reached the handler through `?` or a workflow, not through [`github`]) is
/// deferred to the limit's reset like one that came through [`github`].
pub fn defer_rate_limits(e: JobError) -> JobError {
    if e.is_permanent() || e.deferred_until().is_some() {
        return e;
    }
    let until = e
        .error()
        .chain()
        .find_map(|cause| cause.downcast_ref::<GithubError>()?.retry_at());
    match until {
        Some(until) => JobError::deferred(e.into_error(), until),
        None => e,
    }
}

/// How long a job waits when the database could not be reached.
pub const DATABASE_WAIT: chrono::Duration = chrono::Duration::seconds(15);

/// Database failures are retried: the database may be back by then. An unreachable
/// database says nothing about the job: it waits for it without spending an attempt (a
/// deferral), so an outage never kills a job.
pub fn store(e: StoreError) -> JobError {
    match e {
        StoreError::Corrupt { .. } | StoreError::NotMigrated { .. } => JobError::permanent(e),
        e if e.is_unreachable() => JobError::deferred(e, chrono::Utc::now() + DATABASE_WAIT),
        other => JobError::retry(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_limit_defers_to_its_reset() {
        let until = chrono::Utc::now() + chrono::Duration::hours(1);
        let e = github(GithubError::RateLimited {
            what: "GET /repos/acme/web".into(),
            until,
        });
        assert_eq!(e.deferred_until(), Some(until));
        assert!(!e.is_permanent());
    }

    #[test]
    fn a_rate_limit_inside_another_error_defers_too() {
        let until = chrono::Utc::now() + chrono::Duration::hours(1);
        let limited = anyhow::Error::new(GithubError::RateLimited {
            what: "GET /repos/acme/web/git/blobs/abc".into(),
            until,
        })
        .context("reading the pushed files");
        let e = defer_rate_limits(JobError::from(limited));
        assert_eq!(e.deferred_until(), Some(until));
        let other = defer_rate_limits(JobError::from(anyhow::anyhow!("disk full")));
        assert_eq!(other.deferred_until(), None);
    }

    #[test]
    fn an_unreachable_database_defers_without_spending_an_attempt() {
        let e = store(StoreError::Connect {
            target: "db:5432".into(),
            cause: "connection refused".into(),
        });
        assert!(e.deferred_until().is_some(), "{e:?}");
        let refused = store(StoreError::Stale {
            expected: 1,
            actual: 2,
        });
        assert_eq!(refused.deferred_until(), None);
        assert!(!refused.is_permanent());
    }

    #[test]
    fn an_unknown_write_outcome_is_retried() {
        let e = github(GithubError::WriteOutcomeUnknown {
            what: "POST /repos/acme/web/issues/1/comments".into(),
            message: "GitHub answered 502".into(),
        });
        assert!(!e.is_permanent(), "{e:?}");
        assert_eq!(e.deferred_until(), None);
        let gone = github(GithubError::NotFound {
            what: "acme/web".into(),
        });
        assert!(gone.is_permanent());
    }
}
