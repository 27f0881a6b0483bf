//! Which failures are worth another attempt.

use crate::github::GithubError;
use crate::queue::JobError;
use crate::store::StoreError;

/// GitHub failures that will not change by retrying (the installation or repository is
/// gone, access was revoked) end the job; the rest (5xx, timeouts, rate limits) retry.
pub fn github(e: GithubError) -> JobError {
    if e.is_transient() {
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
