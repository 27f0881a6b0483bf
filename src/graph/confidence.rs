//! How sure the graph is that a call site calls a definition.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Resolved through scope, imports, classes or stated types.
    Exact,
    /// A name-only match to exactly one definition in the repository.
    Likely,
    /// A name-only match to several definitions: one of them, maybe.
    Possible,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Exact => "exact",
            Confidence::Likely => "likely",
            Confidence::Possible => "possible",
        }
    }
}
