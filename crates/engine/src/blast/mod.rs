pub mod diff;
pub mod patch;
pub mod radius;
pub mod report;
