pub mod calls_elsewhere;
pub mod command_answers;
pub mod graph_export;
pub mod json;
pub mod markdown;
pub mod pull_request;
mod weight;

/// A link to a line: (path, 1-based line) -> URL (a permalink at a commit).
pub type LineLink<'a> = &'a dyn Fn(&str, u32) -> String;
