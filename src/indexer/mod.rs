//! From file bytes to [`facts::FileFacts`]: language detection, skip rules, extraction.

pub mod dump;
pub mod extract;
pub mod facts;
pub mod language;
pub mod pipeline;
pub mod skip;

pub use extract::extract;
pub use facts::FileFacts;

/// Bumped whenever extraction changes what it produces: cached facts of an older
/// version are not used.
pub const PARSER_VERSION: i32 = 9;
pub use language::Language;
