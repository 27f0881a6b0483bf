pub mod answers;
pub mod graph_export;
pub mod json;
pub mod markdown;
