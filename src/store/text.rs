//! The one rule for text going into Postgres. A `text` column (and a text or JSONB
//! parameter) holds neither the NUL character nor bytes that are not UTF-8, yet the text
//! we store comes from files anyone may push: a method named by a string literal holding
//! a NUL byte would otherwise fail the whole write, and every later write of that
//! repository with it, until the file goes.
//!
//! **Rule**: on the way in, every NUL becomes U+FFFD (the replacement character), the
//! character a lossy UTF-8 decoding puts for bytes that are not UTF-8. Nothing else
//! changes; text without NUL is passed through without a copy. Bytes that are not UTF-8
//! never reach here: the store takes `&str`, and file bytes become text lossily or not
//! at all before (a file that is not UTF-8 is skipped as `not-utf8`, a path that is not
//! is left out of the git tree or directory read). Every writer
//! and every parameter compared with stored text goes through it, so a rewritten name
//! still matches itself: a definition's name and the calls naming it, a package's calls
//! and its manifest. The graph itself is read back from the stored facts (bytes), which
//! keep the names exactly as parsed.

use std::borrow::Cow;

/// What NUL (and each invalid UTF-8 sequence) is stored as.
pub const REPLACEMENT: char = char::REPLACEMENT_CHARACTER;

/// `s` as Postgres stores it: NUL replaced by [`REPLACEMENT`].
pub fn storable(s: &str) -> Cow<'_, str> {
    if s.contains('\0') {
        Cow::Owned(s.replace('\0', "\u{FFFD}"))
    } else {
        Cow::Borrowed(s)
    }
}

/// An owned string as stored (no copy when it holds no NUL).
pub fn into_storable(s: String) -> String {
    match storable(&s) {
        Cow::Borrowed(_) => s,
        Cow::Owned(t) => t,
    }
}

/// A JSON value as JSONB stores it: Postgres refuses `\u0000` in JSONB, so every string
/// (keys too) goes through [`storable`]. No copy when none holds a NUL.
pub fn storable_json(value: &serde_json::Value) -> Cow<'_, serde_json::Value> {
    if holds_nul(value) {
        let mut value = value.clone();
        replace_nul(&mut value);
        Cow::Owned(value)
    } else {
        Cow::Borrowed(value)
    }
}

fn holds_nul(value: &serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::String(s) => s.contains('\0'),
        Value::Array(items) => items.iter().any(holds_nul),
        Value::Object(map) => map.iter().any(|(k, v)| k.contains('\0') || holds_nul(v)),
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
}

fn replace_nul(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            if s.contains('\0') {
                *s = into_storable(std::mem::take(s));
            }
        }
        Value::Array(items) => items.iter_mut().for_each(replace_nul),
        Value::Object(map) => {
            if map.keys().any(|k| k.contains('\0')) {
                let old = std::mem::take(map);
                for (k, v) in old {
                    map.insert(into_storable(k), v);
                }
            }
            map.values_mut().for_each(replace_nul);
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_becomes_the_replacement_character_and_nothing_else_changes() {
        assert_eq!(storable("a\0b\0"), "a\u{FFFD}b\u{FFFD}");
        assert!(matches!(storable("plain é"), Cow::Borrowed("plain é")));
        assert_eq!(into_storable("x\0".to_string()), "x\u{FFFD}");
    }

    #[test]
    fn json_strings_and_keys_lose_their_nul() {
        let v = serde_json::json!({"bo\u{0}dy": ["a\u{0}", 1, {"k": "\u{0}"}]});
        assert_eq!(
            *storable_json(&v),
            serde_json::json!({"bo\u{FFFD}dy": ["a\u{FFFD}", 1, {"k": "\u{FFFD}"}]})
        );
        let clean = serde_json::json!({"a": ["b", 1]});
        assert!(matches!(storable_json(&clean), Cow::Borrowed(_)));
    }
}
