//! Text from outside (the analysed code, a commenter's words) made safe to show in
//! markdown. Every piece of such text that a comment, a check run or a reply echoes goes
//! through [`code`]: inside a code span nothing is a mention, a link, an image or HTML.

/// Longest name, path or echoed text shown, in characters (minified or generated code
/// has huge names; a commenter can write anything).
pub const MAX_NAME_CHARS: usize = 200;

/// Text made printable and bounded: control characters (a newline would end a list item
/// or a Mermaid statement) and bidirectional overrides (which can make a name read as
/// another) become U+FFFD; past `max_chars` it is cut and ends with `…`.
pub fn sanitize(s: &str, max_chars: usize) -> String {
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    let mut out: String = s
        .chars()
        .take(max_chars)
        .map(|c| if unsafe_char(c) { '\u{FFFD}' } else { c })
        .collect();
    if s.chars().nth(max_chars).is_some() {
        out.push('…');
    }
    out
}

/// `s` as an inline code span. The delimiter is one backtick longer than the longest
/// backtick run inside, padded with spaces when `s` touches a backtick or is itself
/// space-padded (CommonMark strips one space from each side).
pub fn code(s: &str) -> String {
    let s = sanitize(s, MAX_NAME_CHARS);
    if s.trim().is_empty() {
        return "(empty)".to_string();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = s.starts_with('`') || s.ends_with('`') || (s.starts_with(' ') && s.ends_with(' '));
    let pad = if pad { " " } else { "" };
    format!("{fence}{pad}{s}{pad}{fence}")
}
