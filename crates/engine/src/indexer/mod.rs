//! From file bytes to [`facts::FileFacts`]: language detection, skip rules, extraction.

pub mod angular;
pub mod arena;
pub mod component;
pub mod dump;
pub mod extract;
pub mod facts;
pub mod language;
pub mod links;
pub mod pipeline;
pub mod select;
pub mod skip;
pub mod type_kinds;

pub use extract::extract;

/// The facts of `source` as the file at `path`, or why it is skipped (see
/// [`extract()`]); None when the indexer does not read it as code (see
/// [`select::language_of`]).
pub fn extract_source(path: &str, source: &str) -> Option<Result<FileFacts, skip::SkipReason>> {
    let language = select::language_of(path, source)?;
    Some(extract(path, language, source))
}
pub use facts::FileFacts;

/// Bumped whenever extraction changes what it produces: cached facts of an older
/// version are not used.
pub const PARSER_VERSION: i32 = 85;
pub use language::Language;
