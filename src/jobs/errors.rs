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

/// Database failures are retried: the database may be back by then.
pub fn store(e: StoreError) -> JobError {
    match e {
        StoreError::Corrupt { .. } | StoreError::NotMigrated { .. } => JobError::permanent(e),
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
