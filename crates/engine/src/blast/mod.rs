pub mod diff;
pub mod radius;
pub mod report;
