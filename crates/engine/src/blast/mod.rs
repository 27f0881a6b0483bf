pub mod contract;
pub mod diff;
pub mod patch;
pub mod radius;
pub mod report;
pub mod verdict;
