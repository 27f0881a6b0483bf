//! The product's workflows, one copy each, called by the CLI and by the app's jobs:
//! index a revision, index and save it, apply a push to a stored graph, compute a
//! blast radius. They read files through two small traits ([`source::Revision`],
//! [`source::Changes`]) that `workspace` implements for the disk and git, and report
//! progress through a callback ([`progress::Progress`]).

pub mod apply_push;
pub mod blast_change;
pub mod elsewhere;
pub mod index;
pub mod progress;
pub mod save;
pub mod source;

/// Runs CPU-bound work from async code: on a multi-threaded runtime the thread is
/// handed over first, so other tasks (a server's intake) keep running.
pub(crate) fn cpu<R>(work: impl FnOnce() -> R) -> R {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(h) if h.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}
