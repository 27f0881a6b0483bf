//! The disk and git: where the CLI gets file bytes. The only module that reads them.

pub mod facts_cache;
pub mod git;
pub mod walk;
