//! Files we do not index, and why. Every skip has a reason that is counted and reported.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// Larger than the configured cap.
    TooLarge,
    /// Contains NUL bytes.
    Binary,
    /// Not valid UTF-8.
    NotUtf8,
    /// Minified or generated: very long lines.
    Minified,
    /// Not fetched: the job had fetched as many bytes as it may (a pull request or a
    /// push of more code than one job reads; a push then re-reads the whole tree).
    OverBudget,
    /// Extracting it would have cost more than its size allows (a parse, a walk or facts
    /// out of proportion to its bytes): a hostile or pathological file.
    TooCostly,
    /// Left out of a job's retry: the job's time limit passed while it was being read.
    TimedOut,
    /// Holds JavaScript or TypeScript the graph cannot read yet: an MDX document with
    /// imports or exports, a Marko template, an HTML page's inline scripts. Counted so
    /// that "no callers" never stands for "could not see".
    Unreadable,
}

/// A skip reason's name that is not one of ours.
#[derive(Debug, PartialEq, Eq)]
pub struct UnknownSkipReason;

impl std::str::FromStr for SkipReason {
    type Err = UnknownSkipReason;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            SkipReason::TooLarge,
            SkipReason::Binary,
            SkipReason::NotUtf8,
            SkipReason::Minified,
            SkipReason::OverBudget,
            SkipReason::TooCostly,
            SkipReason::TimedOut,
            SkipReason::Unreadable,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
        .ok_or(UnknownSkipReason)
    }
}

impl SkipReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::TooLarge => "too_large",
            SkipReason::Binary => "binary",
            SkipReason::NotUtf8 => "not_utf8",
            SkipReason::Minified => "minified",
            SkipReason::OverBudget => "over_budget",
            SkipReason::TooCostly => "too_costly",
            SkipReason::TimedOut => "timed_out",
            SkipReason::Unreadable => "unreadable",
        }
    }

    /// What the reason means, for a reader of a comment or a check run.
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::TooLarge => "larger than the size limit",
            SkipReason::Binary => "binary",
            SkipReason::NotUtf8 => "not UTF-8",
            SkipReason::Minified => "minified or generated",
            SkipReason::OverBudget => "past the bytes one job may fetch",
            SkipReason::TooCostly => "reading it would cost more than its size allows",
            SkipReason::TimedOut => "the time limit passed while it was read",
            SkipReason::Unreadable => {
                "it holds JavaScript or TypeScript the graph cannot read yet (MDX, Marko, an HTML page's scripts)"
            }
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct SkipRules {
    pub max_bytes: usize,
    /// Lines longer than this are minified or generated code. A file is skipped as
    /// minified when such lines hold at least half its bytes (a bundle), or when one is
    /// longer than a call site's column can say (65,535): a hand-written file with one
    /// long line (an embedded template, a data URI) is still read.
    pub max_line: usize,
}

/// The longest line whose columns a call site records (they are 16-bit).
const MAX_COLUMN: usize = u16::MAX as usize;

impl Default for SkipRules {
    fn default() -> Self {
        SkipRules {
            max_bytes: 1024 * 1024,
            max_line: 2_000,
        }
    }
}

impl SkipRules {
    /// The text to index, or why not.
    pub fn check<'a>(&self, path: &str, bytes: &'a [u8]) -> Result<&'a str, SkipReason> {
        if bytes.len() > self.max_bytes {
            return Err(SkipReason::TooLarge);
        }
        if bytes[..bytes.len().min(8192)].contains(&0) {
            return Err(SkipReason::Binary);
        }
        let text = std::str::from_utf8(bytes).map_err(|_| SkipReason::NotUtf8)?;
        if path.ends_with(".min.js") || path.ends_with(".min.mjs") || path.ends_with(".min.cjs") {
            return Err(SkipReason::Minified);
        }
        let mut long = 0;
        for line in text.split('\n') {
            if line.len() > self.max_line {
                if line.len() > MAX_COLUMN {
                    return Err(SkipReason::Minified);
                }
                long += line.len();
            }
        }
        if long > 0 && long * 2 >= text.len() {
            return Err(SkipReason::Minified);
        }
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_read_back_and_unknown_ones_are_refused() {
        for r in [
            SkipReason::TooLarge,
            SkipReason::Binary,
            SkipReason::NotUtf8,
            SkipReason::Minified,
            SkipReason::OverBudget,
            SkipReason::TooCostly,
            SkipReason::TimedOut,
        ] {
            assert_eq!(r.as_str().parse::<SkipReason>(), Ok(r));
        }
        assert_eq!("huge".parse::<SkipReason>(), Err(UnknownSkipReason));
    }

    #[test]
    fn each_reason_is_detected() {
        let rules = SkipRules {
            max_bytes: 100,
            max_line: 20,
        };
        assert_eq!(rules.check("a.js", b"f();\n"), Ok("f();\n"));
        assert_eq!(rules.check("a.js", &[b'a'; 101]), Err(SkipReason::TooLarge));
        assert_eq!(rules.check("a.js", b"a\0b"), Err(SkipReason::Binary));
        assert_eq!(rules.check("a.js", b"\xff\xfe"), Err(SkipReason::NotUtf8));
        assert_eq!(rules.check("a.min.js", b"f()"), Err(SkipReason::Minified));
        assert_eq!(
            rules.check("a.js", b"ok\nvar a=1,b=2,c=3,d=4,e=5;\n"),
            Err(SkipReason::Minified)
        );
    }

    #[test]
    fn one_long_line_in_a_long_file_is_read() {
        let rules = SkipRules {
            max_bytes: 1 << 20,
            max_line: 20,
        };
        // A test file with one long embedded template: mostly ordinary lines.
        let mut src = "f();\n".repeat(20);
        src.push_str(&format!("const t = `{}`;\n", "x".repeat(40)));
        assert_eq!(rules.check("a.js", src.as_bytes()), Ok(src.as_str()));
        // A bundle: the long lines are most of it.
        let bundle = format!("/* banner */\n{}\n", "a=1;".repeat(30));
        assert_eq!(
            rules.check("b.js", bundle.as_bytes()),
            Err(SkipReason::Minified)
        );
        // A line past what a column can say is never read, however long the file.
        let rules = SkipRules {
            max_bytes: 1 << 22,
            max_line: 20,
        };
        let mut huge = "f();\n".repeat(100_000);
        huge.push_str(&"x".repeat(70_000));
        assert_eq!(
            rules.check("c.js", huge.as_bytes()),
            Err(SkipReason::Minified)
        );
    }
}
