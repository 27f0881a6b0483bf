//! Blobs fetched for a job, within bounds. Anyone who can push or open a pull request
//! chooses what a job fetches (a fork's PR of 3,000 files of 100 MB each, say), and every
//! job runs in the process that takes webhooks: a file over the indexer's per-file limit
//! is never held (skipped by its size when the tree tells it, else cut off as it streams
//! in), and a job stops fetching once it holds its byte budget.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use futures_util::{stream, StreamExt, TryStreamExt};

use super::errors;
use crate::github::{CappedBlob, Installation, RepoName};
use crate::indexer::pipeline::SourceFile;
use crate::indexer::skip::SkipReason;
use crate::model::BlobSha;
use crate::queue::JobError;
use crate::workflow::apply_push::FileInput;

/// Blobs fetched at once: enough to hide latency, few enough to stay clear of GitHub's
/// secondary limits.
const CONCURRENT_BLOBS: usize = 4;

/// Bytes of blobs one job holds at most (a pull request's old and new versions together).
pub const JOB_FETCH_BUDGET: usize = 64 * 1024 * 1024;

/// A blob to fetch: its path, sha, and size when a tree gave it.
pub type Wanted = (String, BlobSha, Option<u64>);

/// What a job may still fetch, shared by its fetches.
#[derive(Clone, Debug)]
pub struct FetchBudget {
    /// The indexer's per-file limit: a longer file is skipped, never held.
    max_file: usize,
    left: Arc<AtomicUsize>,
}

impl FetchBudget {
    pub fn new(max_file: usize, bytes: usize) -> FetchBudget {
        FetchBudget {
            max_file,
            left: Arc::new(AtomicUsize::new(bytes)),
        }
    }

    fn spent(&self) -> bool {
        self.left.load(Ordering::Relaxed) == 0
    }

    fn take(&self, n: usize) {
        let _ = self
            .left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                Some(left.saturating_sub(n))
            });
    }
}

/// The contents of `blobs`, a few requests at a time, each a [`FileInput`]: a file too
/// large, or left when the budget ran out, comes back with its skip reason and no bytes.
/// (A few requests in flight may take the budget past its end by a few files' worth.)
pub async fn fetch_blobs(
    installation: &Installation,
    name: &RepoName,
    blobs: Vec<Wanted>,
    budget: &FetchBudget,
) -> Result<Vec<FileInput>, JobError> {
    stream::iter(blobs.into_iter().map(|(path, blob, size)| {
        let installation = installation.clone();
        let name = name.clone();
        let budget = budget.clone();
        async move {
            let skipped = |reason| FileInput::skipped(path.clone(), blob.clone(), reason);
            if size.is_some_and(|s| s > budget.max_file as u64) {
                return Ok(skipped(SkipReason::TooLarge));
            }
            if budget.spent() {
                return Ok(skipped(SkipReason::OverBudget));
            }
            match installation
                .get_blob_capped(&name, &blob, budget.max_file)
                .await?
            {
                CappedBlob::TooLarge => Ok(skipped(SkipReason::TooLarge)),
                CappedBlob::Whole(bytes) => {
                    budget.take(bytes.len());
                    Ok::<_, crate::github::GithubError>(FileInput {
                        blob,
                        file: SourceFile::new(path, bytes),
                    })
                }
            }
        }
    }))
    .buffer_unordered(CONCURRENT_BLOBS)
    .try_collect()
    .await
    .map_err(errors::github)
}
