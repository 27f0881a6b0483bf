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
    /// Every level, surest first.
    pub const ALL: [Confidence; 3] = [Confidence::Exact, Confidence::Likely, Confidence::Possible];

    /// The level named `name` (`exact`, `likely`, `possible`), in any case.
    pub fn from_name(name: &str) -> Option<Confidence> {
        Confidence::ALL
            .into_iter()
            .find(|c| c.as_str().eq_ignore_ascii_case(name.trim()))
    }

    /// Whether this is as sure as `min` or surer (`Exact` is at least `Likely`).
    pub fn at_least(self, min: Confidence) -> bool {
        self <= min
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Exact => "exact",
            Confidence::Likely => "likely",
            Confidence::Possible => "possible",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_order() {
        for c in Confidence::ALL {
            assert_eq!(Confidence::from_name(c.as_str()), Some(c));
        }
        assert_eq!(Confidence::from_name("Likely"), Some(Confidence::Likely));
        assert_eq!(Confidence::from_name("sure"), None);
        assert!(Confidence::Exact.at_least(Confidence::Likely));
        assert!(Confidence::Likely.at_least(Confidence::Likely));
        assert!(!Confidence::Possible.at_least(Confidence::Likely));
        assert!(Confidence::Possible.at_least(Confidence::Possible));
    }
}
