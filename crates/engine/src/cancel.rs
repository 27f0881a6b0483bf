//! Stopping CPU work from outside: a job's deadline.
//!
//! The caller (a job's worker) holds a [`Cancel`] and installs it around the work with
//! [`scoped`]; the engine's loops ask [`checkpoint`] now and then (between files, every
//! few thousand nodes of a walk, between resolution rounds). Once the token is cancelled
//! a checkpoint unwinds the work with [`Cancelled`] as its payload, through rayon and
//! back to the caller, so nothing half done can be mistaken for a result. The unwind
//! uses `resume_unwind`, which runs no panic hook: a stop is not reported as a crash.
//!
//! The token lives in a thread-local of the thread that runs the work. Parallel loops
//! carry it to their worker threads with [`current`] and [`scoped`].
//!
//! A token also carries the files an earlier attempt of the same work stalled on
//! ([`Cancel::leaving_out`]): extraction skips them as `timed_out` ([`left_out`]), so a
//! retry makes progress past the file that stopped it, whatever job reads it (a pull
//! request's analysis, a push, a full index).

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A flag that stops the work it is installed around, and the files that work was
/// reading when it stopped.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    stop: AtomicBool,
    stalled: Mutex<Vec<String>>,
    /// Sorted: files not to read at all.
    left_out: Vec<String>,
}

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// A token whose work skips `files` (those an earlier attempt stalled on) as
    /// `timed_out` instead of reading them again.
    pub fn leaving_out(mut files: Vec<String>) -> Cancel {
        files.sort();
        files.dedup();
        Cancel(Arc::new(Inner {
            left_out: files,
            ..Inner::default()
        }))
    }

    /// Asks the work to stop at its next checkpoint.
    pub fn cancel(&self) {
        self.0.stop.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.stop.load(Ordering::Relaxed)
    }

    /// The files being read (see [`reading`]) when the work stopped, sorted: where a
    /// deadline found it, so a retry can leave them out and say so.
    pub fn stalled(&self) -> Vec<String> {
        let mut files = self.0.stalled.lock().map(|s| s.clone()).unwrap_or_default();
        files.sort();
        files.dedup();
        files
    }
}

/// Marks `path` as being read until the guard drops. If the work is stopped meanwhile
/// (the guard drops in the unwind), the path is recorded in the token's
/// [`Cancel::stalled`]. With no token installed it costs nothing.
pub fn reading(path: &str) -> Reading<'_> {
    Reading {
        path,
        cancel: current(),
    }
}

/// See [`reading`].
pub struct Reading<'a> {
    path: &'a str,
    cancel: Option<Cancel>,
}

impl Drop for Reading<'_> {
    fn drop(&mut self) {
        if let Some(cancel) = &self.cancel {
            if cancel.is_cancelled() && std::thread::panicking() {
                if let Ok(mut stalled) = cancel.0.stalled.lock() {
                    stalled.push(self.path.to_string());
                }
            }
        }
    }
}

/// Whether the work running on this thread is to leave `path` out: an earlier attempt
/// stalled on it (see [`Cancel::leaving_out`]).
pub fn left_out(path: &str) -> bool {
    CURRENT.with(|c| {
        c.borrow().as_ref().is_some_and(|t| {
            t.0.left_out
                .binary_search_by(|f| f.as_str().cmp(path))
                .is_ok()
        })
    })
}

/// The payload of the unwind that stops cancelled work.
#[derive(Debug)]
pub struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stopped: the work was cancelled (its deadline passed)")
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Cancel>> = const { RefCell::new(None) };
}

/// Runs `work` with `cancel` installed on this thread (None: nothing can stop it).
pub fn scoped<R>(cancel: Option<Cancel>, work: impl FnOnce() -> R) -> R {
    struct Restore(Option<Cancel>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| *c.borrow_mut() = self.0.take());
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(cancel)));
    work()
}

/// The token installed on this thread, to carry into parallel work.
pub fn current() -> Option<Cancel> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Whether the work running on this thread was asked to stop.
pub fn is_cancelled() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(Cancel::is_cancelled))
}

/// Unwinds with [`Cancelled`] if the work running on this thread was asked to stop.
pub fn checkpoint() {
    if is_cancelled() {
        std::panic::resume_unwind(Box::new(Cancelled));
    }
}

/// Whether a caught unwind is a stop rather than a crash.
pub fn is_cancellation(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.is::<Cancelled>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_unwinds_only_once_cancelled_and_only_where_installed() {
        let cancel = Cancel::new();
        scoped(Some(cancel.clone()), checkpoint);
        cancel.cancel();
        // Not installed here: nothing stops.
        checkpoint();
        let stopped = std::panic::catch_unwind(|| scoped(Some(cancel.clone()), checkpoint));
        assert!(is_cancellation(&*stopped.unwrap_err()));
        // The scope is left as it was found, even by an unwind.
        assert!(current().is_none());
    }

    #[test]
    fn a_stop_records_the_files_being_read_and_only_those() {
        let cancel = Cancel::new();
        let stopped = std::panic::catch_unwind(|| {
            scoped(Some(cancel.clone()), || {
                drop(reading("done.ts"));
                let _busy = reading("slow.ts");
                cancel.cancel();
                checkpoint();
            })
        });
        assert!(is_cancellation(&*stopped.unwrap_err()));
        assert_eq!(cancel.stalled(), vec!["slow.ts".to_string()]);
        // Without a stop nothing is recorded, even when a reading guard drops.
        let calm = Cancel::new();
        scoped(Some(calm.clone()), || drop(reading("a.ts")));
        assert!(calm.stalled().is_empty());
    }

    #[test]
    fn a_token_leaves_out_only_the_files_it_was_given_and_only_where_installed() {
        let token = Cancel::leaving_out(vec!["b.ts".into(), "a.ts".into(), "b.ts".into()]);
        scoped(Some(token), || {
            assert!(left_out("a.ts") && left_out("b.ts"));
            assert!(!left_out("c.ts") && !left_out("a.t"));
        });
        assert!(!left_out("a.ts"));
        scoped(Some(Cancel::new()), || assert!(!left_out("a.ts")));
    }

    #[test]
    fn parallel_work_carries_the_token_to_its_threads() {
        use rayon::prelude::*;
        let cancel = Cancel::new();
        cancel.cancel();
        let stopped = std::panic::catch_unwind(|| {
            scoped(Some(cancel.clone()), || {
                let token = current();
                (0..64).into_par_iter().for_each(|_| {
                    scoped(token.clone(), checkpoint);
                });
            })
        });
        assert!(is_cancellation(&*stopped.unwrap_err()));
    }
}
