//! The disk and git: where the CLI gets file bytes. The only module that reads them.

pub mod git;
pub mod walk;
