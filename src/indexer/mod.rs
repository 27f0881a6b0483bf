//! From file bytes to [`facts::FileFacts`]: language detection, skip rules, extraction.

pub mod dump;
pub mod extract;
pub mod facts;
pub mod language;
pub mod pipeline;
pub mod skip;

pub use extract::extract;
pub use facts::FileFacts;
pub use language::Language;
