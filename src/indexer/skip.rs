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
}

impl SkipReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::TooLarge => "too_large",
            SkipReason::Binary => "binary",
            SkipReason::NotUtf8 => "not_utf8",
            SkipReason::Minified => "minified",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct SkipRules {
    pub max_bytes: usize,
    /// A file with a line longer than this is minified or generated.
    pub max_line: usize,
}

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
        if text.split('\n').any(|line| line.len() > self.max_line) {
            return Err(SkipReason::Minified);
        }
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
