//! Questions a person or an agent asks the graph, answered as data: which definition a
//! name means (with "did you mean" when none, and the choices when several), its
//! callers with a verdict on whether the list is complete, its callees, a call path;
//! definitions searched by part of a name; what the whole graph holds.
//! One layer for the CLI, the app's `/callers` and every other front end; pure.

mod calls;
mod index;
mod search;
mod summary;
mod target;

pub use calls::{callees, callers, path, CalleeEntry, CallerEntry, CallersAnswer, Completeness};
pub use index::NameIndex;
pub use search::{search, SearchAnswer};
pub use summary::{summary, EdgeCounts, GraphSummary, SkippedFile, SkippedFiles};
pub use target::{
    describe, lookup, lookup_preferring, DefSite, Definition, Resolved, TargetError,
    ANSWER_EACH_UP_TO,
};
