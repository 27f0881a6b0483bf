//! The product's workflows, one copy each, called by the CLI and by the app's jobs:
//! index a revision, index and save it, apply a push to a stored graph, compute a
//! blast radius. They read files through two small traits ([`source::Revision`],
//! [`source::Changes`]) that `workspace` implements for the disk and git, and report
//! progress through a callback ([`progress::Progress`]).

pub mod apply_push;
pub mod blast_change;
pub mod callers_read;
pub mod elsewhere;
pub mod index;
pub mod index_changes;
pub mod links_across;
pub mod progress;
pub mod save;
pub mod source;

tokio::task_local! {
    /// The running job's stop token, for the CPU work its future runs.
    static JOB_CANCEL: crate::cancel::Cancel;
}

/// Runs `work` (a job's future) so that the CPU work it does through [`cpu`] stops at
/// its next checkpoint once `cancel` is cancelled (the job's deadline passed).
pub async fn cancellable<F: std::future::Future>(
    cancel: crate::cancel::Cancel,
    work: F,
) -> F::Output {
    JOB_CANCEL.scope(cancel, work).await
}

/// The running job's stop token (None outside a job), for CPU work spawned off the
/// job's task (`spawn_blocking`), which the task-local does not reach: install it there
/// with [`crate::cancel::scoped`].
pub fn job_token() -> Option<crate::cancel::Cancel> {
    JOB_CANCEL.try_with(Clone::clone).ok()
}

/// Runs CPU-bound work from async code: on a multi-threaded runtime the thread is
/// handed over first, so other tasks (a server's intake) keep running. Inside
/// [`cancellable`], the job's stop token is installed around the work: a stop unwinds it
/// (with [`crate::cancel::Cancelled`]) to the job's worker.
pub fn cpu<R>(work: impl FnOnce() -> R) -> R {
    use tokio::runtime::{Handle, RuntimeFlavor};
    let token = job_token();
    let work = move || crate::cancel::scoped(token, work);
    match Handle::try_current() {
        Ok(h) if h.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::{self, Cancel};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cpu_work_inside_a_cancellable_job_carries_its_token_and_stops_with_it() {
        let token = Cancel::new();
        let seen = cancellable(token.clone(), async { cpu(|| cancel::current().is_some()) }).await;
        assert!(seen, "the job's token is installed around its CPU work");
        assert!(
            !cpu(|| cancel::current().is_some()),
            "and only inside the job"
        );

        token.cancel();
        let stopped = tokio::spawn(cancellable(token.clone(), async {
            cpu(|| {
                let _reading = cancel::reading("src/slow.ts");
                loop {
                    cancel::checkpoint();
                }
            })
        }))
        .await
        .unwrap_err();
        assert!(cancel::is_cancellation(&*stopped.into_panic()));
        assert_eq!(token.stalled(), vec!["src/slow.ts".to_string()]);
    }
}
