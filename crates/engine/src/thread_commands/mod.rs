//! Commands in pull request threads (`/callers fn`, ...): the grammar, with no IO, so it
//! is easy to test and to fuzz. Dispatch to the graph lives with the jobs.

mod grammar;
mod text;

pub use grammar::{help, parse_comment, parse_lines, Command, CommandError, MAX_DEPTH};
pub use text::command_lines;
