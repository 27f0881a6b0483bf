//! Questions a person or an agent asks the graph, answered as data: which definition a
//! name means (with "did you mean" when none, and the choices when several), its
//! callers with a verdict on whether the list is complete, its callees, a call path.
//! One layer for the CLI, the app's `/callers` and every other front end; pure.

mod answers;
mod target;

pub use answers::{callees, callers, path, CalleeEntry, CallerEntry, CallersAnswer, Completeness};
pub use target::{describe, lookup, Definition, TargetError};
