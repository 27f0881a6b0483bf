//! What extracting one file may spend: work and facts in proportion to its size.
//!
//! Every phase of extraction is meant to be near-linear in the file's size, but a file
//! is written by whoever opens a pull request, and a shape nobody foresaw (a nesting, a
//! chain, a pattern one pass scans again and again) must cost a bounded amount, not take
//! a worker down. So the parse, the walk and the facts it records each have an allowance
//! proportional to the file's bytes, counted deterministically (steps, never seconds: a
//! file is read or skipped the same way on every machine). Once one is spent the walk
//! stops, the facts are dropped, and the file is skipped as `too_costly`, like a file
//! over the size limit; the rest of the repository is indexed as usual.
//!
//! The allowances are far above what real code needs (the figures below, measured on the
//! small corpus of published npm code, and in BENCHMARKS.md).
//! The same checkpoints let a job's deadline stop the work (see [`crate::cancel`]).

use std::cell::Cell;

use crate::cancel;

/// Parse progress reports (tree-sitter reports once per 100 parse operations) per byte
/// of source, and a floor for small files. The small corpus of published npm code
/// (lodash-es, rxjs, three) needs at most 0.02 per byte; the walk at most 0.55 steps per
/// byte; its facts at most 4.6 bytes per byte (2.3 in files over 20 KB).
const PARSE_REPORTS_PER_BYTE: usize = 1;
const PARSE_REPORTS_FLOOR: usize = 20_000;
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
}

thread_local! {
    static LAST: Cell<Spent> = const { Cell::new(Spent {
        steps: 0,
        max_steps: 0,
        parse_reports: 0,
        max_parse_reports: 0,
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
}

impl ParseMeter {
    pub(crate) fn for_source(bytes: usize) -> ParseMeter {
        ParseMeter {
            reports: 0,
            max_reports: PARSE_REPORTS_FLOOR
                .saturating_add(bytes.saturating_mul(PARSE_REPORTS_PER_BYTE)),
        }
    }

    /// tree-sitter's progress callback: true cancels the parse.
    pub(crate) fn report(&mut self) -> bool {
        self.reports += 1;
        self.reports > self.max_reports || cancel::is_cancelled()
    }

    pub(crate) fn exceeded(&self) -> bool {
        self.reports > self.max_reports
    }
}
