//! The check run's name: what a PR's analysis publishes, and what the catch-up looks for
//! to know a head was analysed. Apart, so both read it without importing each other.

/// The check run's name.
pub const CHECK_NAME: &str = "Blast radius";
