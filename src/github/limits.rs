//! GitHub's size limits on what we send, checked before sending.

use super::error::{GithubError, Result};

/// The longest comment body GitHub takes: issue comments, reviews and review comments
/// ("Body is too long (maximum is 65536 characters)"; for reviews assumed the same).
pub const MAX_BODY_CHARS: usize = 65_536;

/// The longest check run `output.summary` or `output.text` (GitHub's REST description).
pub const MAX_CHECK_TEXT_CHARS: usize = 65_535;

/// Check run annotations GitHub takes in one request; more go in further updates, which
/// append.
pub const MAX_ANNOTATIONS_PER_REQUEST: usize = 50;

/// Whether `text` fits in `limit` characters (GitHub counts characters, not bytes).
pub fn fits(text: &str, limit: usize) -> bool {
    text.len() <= limit || text.chars().count() <= limit
}

/// `Err(TooLong)` unless `text` fits in `limit` characters.
pub(crate) fn check_length(what: &str, field: &str, text: &str, limit: usize) -> Result<()> {
    if fits(text, limit) {
        return Ok(());
    }
    Err(GithubError::TooLong {
        what: what.to_string(),
        field: field.to_string(),
        chars: text.chars().count(),
        limit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_not_bytes() {
        let ascii = "x".repeat(MAX_BODY_CHARS);
        assert!(fits(&ascii, MAX_BODY_CHARS));
        assert!(!fits(&(ascii + "y"), MAX_BODY_CHARS));
        // 65,536 two-byte characters: 131,072 bytes, but it fits.
        let wide = "é".repeat(MAX_BODY_CHARS);
        assert!(fits(&wide, MAX_BODY_CHARS));
        let err = check_length("POST /x", "body", &(wide + "é"), MAX_BODY_CHARS).unwrap_err();
        assert!(
            matches!(err, GithubError::TooLong { chars: 65_537, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("at most 65536"), "{err}");
    }
}
