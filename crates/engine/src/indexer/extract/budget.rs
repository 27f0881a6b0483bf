//! What extracting one file may spend: work and facts in proportion to its size.
//!
//! Every phase of extraction is meant to be near-linear in the file's size, but a file
//! is written by whoever opens a pull request, and a shape nobody foresaw (a nesting, a
//! chain, a pattern one pass scans again and again) must cost a bounded amount, not take
//! a worker down. So the parse, the walk and the facts it records each have an allowance
//! proportional to the file's bytes, counted deterministically where tree-sitter lets us
//! (steps and bytes, not seconds: a file is read or skipped the same way on every
//! machine). The one exception is the parse's processor time, a backstop for error
//! recovery, which tree-sitter neither counts nor lets us count (see
//! `PARSE_SECONDS_PER_MIB`). Once one is spent the walk
//! stops, the facts are dropped, and the file is skipped as `too_costly`, like a file
//! over the size limit; the rest of the repository is indexed as usual.
//!
//! The allowances are far above what real code needs (the figures below, measured on the
//! small corpus of published npm code, and in BENCHMARKS.md).
//! The same checkpoints let a job's deadline stop the work (see [`crate::cancel`]).

use std::cell::Cell;
use std::time::Duration;

use crate::cancel;
use crate::indexer::arena;

/// Parse progress reports (tree-sitter reports once per 100 parse operations) per byte
/// of source, and a floor for small files. The small corpus of published npm code
/// (lodash-es, rxjs, three) needs at most 0.02 per byte; the walk at most 0.55 steps per
/// byte; its facts at most 4.6 bytes per byte (2.3 in files over 20 KB); the parse at
/// most 71 bytes of tree-sitter memory per byte (dense data, an array of small numbers,
/// about 100). `corpus_files_fit_their_extraction_budgets` prints these figures.
const PARSE_REPORTS_PER_BYTE: usize = 1;
const PARSE_REPORTS_FLOOR: usize = 20_000;
/// Bytes tree-sitter may hold for a file's parse per byte of source, and a floor. Its
/// arena reuses nothing within a file, so this bounds both the parse's memory and the
/// work of error recovery, which allocates as it goes (stack versions, summaries,
/// error nodes) but is not counted in progress reports: a file of nothing but syntax
/// errors runs out of this long before its reports.
const PARSE_BYTES_PER_BYTE: usize = 160;
const PARSE_BYTES_FLOOR: usize = 16 << 20;
/// The parse's processor time (this thread's), per MiB of source and a floor. The one
/// allowance not counted in steps: tree-sitter's error recovery (`ts_parser__recover`)
/// does tens of microseconds of work per syntax error, none of it counted in progress
/// reports and little of it allocated, so a file that is one syntax error every few
/// bytes (statements run together on a line, NUL bytes) takes many seconds within its
/// step and byte allowances. Real code parses at 10 MB/s and more; this stops a parse
/// 15 times slower than that, so no real file comes near it, and only for such a file
/// could the outcome differ between a fast machine and a slow one.
const PARSE_SECONDS_PER_MIB: f64 = 1.0;
const PARSE_SECONDS_FLOOR: f64 = 0.5;
/// Reports between two looks at the clock (a report is 100 parse operations).
const CLOCK_EVERY: usize = 16;
/// Nodes visited by the walk per byte of source, and a floor.
const STEPS_PER_BYTE: u64 = 8;
const STEPS_FLOOR: u64 = 200_000;
/// Bytes of facts per byte of source, and a floor: 1 MB of source may give 24 MB of
/// facts, well under the per-file memory the server budgets for.
const FACT_BYTES_PER_BYTE: usize = 24;
const FACT_BYTES_FLOOR: usize = 1 << 20;
/// The walk looks at the facts' size and at the cancel token once per this many steps.
const CHECK_EVERY: u64 = 1 << 10;

/// What the last extraction on this thread spent of its allowances, and what they
/// were: for tests and the generator-based fuzz, which check the budget per byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spent {
    pub steps: u64,
    pub max_steps: u64,
    pub parse_reports: usize,
    pub max_parse_reports: usize,
    /// What tree-sitter held for the parse (and the repair's second parse).
    pub parse_bytes: usize,
    pub max_parse_bytes: usize,
}

#[cfg(test)]
thread_local! {
    /// A parse time limit in place of the size's, for tests: a limit that any parse of
    /// some length passes, so the stop is tested without depending on the machine.
    static TIME_LIMIT: Cell<Option<Duration>> = const { Cell::new(None) };
}

/// A test's parse time limit, if one is set on this thread.
fn time_limit_override() -> Option<Duration> {
    #[cfg(test)]
    return TIME_LIMIT.with(Cell::get);
    #[cfg(not(test))]
    None
}

thread_local! {
    static LAST: Cell<Spent> = const { Cell::new(Spent {
        steps: 0,
        max_steps: 0,
        parse_reports: 0,
        max_parse_reports: 0,
        parse_bytes: 0,
        max_parse_bytes: 0,
    }) };
}

/// What the last extraction on this thread spent (its parse and its walk).
pub fn last_spent() -> Spent {
    LAST.with(Cell::get)
}

/// Forgets the last file's figures, as a new file's extraction starts.
pub(crate) fn reset_spent() {
    LAST.with(|last| last.set(Spent::default()));
}

/// The allowances of one file, and what the walk has spent.
pub(crate) struct Meter {
    steps: u64,
    max_steps: u64,
    pub(crate) max_fact_bytes: usize,
    /// Spent: the walk stops and the file is skipped.
    pub(crate) spent: bool,
}

impl Meter {
    pub(crate) fn for_source(bytes: usize) -> Meter {
        Meter {
            steps: 0,
            max_steps: STEPS_FLOOR.saturating_add((bytes as u64).saturating_mul(STEPS_PER_BYTE)),
            max_fact_bytes: FACT_BYTES_FLOOR
                .saturating_add(bytes.saturating_mul(FACT_BYTES_PER_BYTE)),
            spent: false,
        }
    }

    /// Counts one step; true when it is time to look at the facts' size (and stops
    /// the work if its deadline passed).
    #[inline]
    pub(crate) fn step(&mut self) -> bool {
        self.steps += 1;
        if self.steps > self.max_steps {
            self.spent = true;
        }
        if self.steps.is_multiple_of(CHECK_EVERY) {
            cancel::checkpoint();
            return true;
        }
        false
    }

    /// Records the facts' size: past the allowance, the walk stops.
    pub(crate) fn weigh(&mut self, fact_bytes: usize) {
        if fact_bytes > self.max_fact_bytes {
            self.spent = true;
        }
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        LAST.with(|last| {
            last.set(Spent {
                steps: self.steps,
                max_steps: self.max_steps,
                ..last.get()
            })
        });
    }
}

impl Drop for ParseMeter {
    fn drop(&mut self) {
        // Dropped after the walk's meter, whose figures stay.
        LAST.with(|last| {
            last.set(Spent {
                parse_reports: self.reports,
                max_parse_reports: self.max_reports,
                parse_bytes: self.bytes,
                max_parse_bytes: self.max_bytes,
                ..last.get()
            })
        });
    }
}

/// The parse's allowance: a progress callback for tree-sitter that cancels the parse
/// once it has reported more often than a file of this size needs, or once the work's
/// deadline passed. `exceeded` tells which, after the parse.
pub(crate) struct ParseMeter {
    reports: usize,
    max_reports: usize,
    /// The most tree-sitter held at a report.
    bytes: usize,
    max_bytes: usize,
    /// This thread's processor time when the parse began, and what it may spend.
    began: Duration,
    max_time: Duration,
    slow: bool,
}

impl ParseMeter {
    pub(crate) fn for_source(bytes: usize) -> ParseMeter {
        ParseMeter {
            reports: 0,
            max_reports: PARSE_REPORTS_FLOOR
                .saturating_add(bytes.saturating_mul(PARSE_REPORTS_PER_BYTE)),
            bytes: 0,
            max_bytes: PARSE_BYTES_FLOOR.saturating_add(bytes.saturating_mul(PARSE_BYTES_PER_BYTE)),
            began: thread_time(),
            max_time: time_limit_override().unwrap_or_else(|| {
                Duration::from_secs_f64(
                    PARSE_SECONDS_FLOOR + PARSE_SECONDS_PER_MIB * bytes as f64 / (1 << 20) as f64,
                )
            }),
            slow: false,
        }
    }

    /// tree-sitter's progress callback: true cancels the parse.
    pub(crate) fn report(&mut self) -> bool {
        self.reports += 1;
        self.bytes = self.bytes.max(arena::bytes_in_scope());
        if self.reports.is_multiple_of(CLOCK_EVERY)
            && thread_time().saturating_sub(self.began) > self.max_time
        {
            self.slow = true;
        }
        self.exceeded() || cancel::is_cancelled()
    }

    /// Takes in what tree-sitter holds now (after a parse, which reports only every so
    /// often).
    pub(crate) fn observe(&mut self) {
        self.bytes = self.bytes.max(arena::bytes_in_scope());
    }

    pub(crate) fn exceeded(&self) -> bool {
        self.reports > self.max_reports || self.bytes > self.max_bytes || self.slow
    }
}

/// The processor time this thread has used (wall time where there is no such clock):
/// unlike wall time, other work on the machine does not make it run out sooner.
fn thread_time() -> Duration {
    #[cfg(unix)]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid clock id and a valid out-pointer.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0 {
            return Duration::new(t.tv_sec as u64, t.tv_nsec as u32);
        }
    }
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexer::extract::extract;
    use crate::indexer::skip::SkipReason;
    use crate::indexer::Language;

    /// Runs `f` with every parse on this thread limited to `limit` of processor time.
    fn with_time_limit<R>(limit: Duration, f: impl FnOnce() -> R) -> R {
        TIME_LIMIT.with(|t| t.set(Some(limit)));
        let r = f();
        TIME_LIMIT.with(|t| t.set(None));
        r
    }

    fn functions(n: usize) -> String {
        (0..n)
            .map(|i| format!("function f{i}(a) {{ return g{i}(a) + 1; }}\n"))
            .collect()
    }

    #[test]
    fn a_parse_past_its_processor_time_is_stopped_and_the_file_skipped() {
        let source = functions(20_000);
        assert!(extract("a.js", Language::JavaScript, &source).is_ok());
        // Any parse long enough to look at the clock is past a zero limit.
        let stopped = with_time_limit(Duration::ZERO, || {
            extract("a.js", Language::JavaScript, &source)
        });
        assert_eq!(stopped.err(), Some(SkipReason::TooCostly));
        let spent = last_spent();
        assert!(spent.parse_reports < spent.max_parse_reports, "{spent:?}");
        assert!(spent.parse_bytes < spent.max_parse_bytes, "{spent:?}");
        // A file too short to look at the clock is read whatever the limit.
        let short = with_time_limit(Duration::ZERO, || {
            extract("b.js", Language::JavaScript, "f(1);\n")
        });
        assert!(short.is_ok());
    }

    #[test]
    fn a_parse_that_holds_more_memory_than_its_size_allows_is_skipped() {
        // 1 MB of nested objects: over 170 bytes of tree-sitter memory per byte, where
        // real code needs at most about 70 (and dense data about 100).
        let depth = 150_000;
        let nested = format!("x = {}1{};\n", "{a: ".repeat(depth), "}".repeat(depth));
        assert_eq!(
            extract("n.js", Language::JavaScript, &nested).err(),
            Some(SkipReason::TooCostly)
        );
        let spent = last_spent();
        assert!(spent.parse_bytes > spent.max_parse_bytes, "{spent:?}");
        // The same size of ordinary code is read, well within its allowance.
        let plain = functions(nested.len() / 45);
        assert!(plain.len() >= nested.len() * 9 / 10);
        assert!(extract("p.js", Language::JavaScript, &plain).is_ok());
        let spent = last_spent();
        assert!(spent.parse_bytes * 2 < spent.max_parse_bytes, "{spent:?}");
    }
}
