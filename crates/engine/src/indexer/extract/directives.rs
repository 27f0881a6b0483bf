//! The compiler's comment directives: `// @ts-nocheck` at the top of a file, and
//! `// @ts-expect-error` or `// @ts-ignore` above a line, under which the compiler
//! reports no error (a type test's deliberately wrong call, a known misuse).

use thin_vec::ThinVec;

/// Lines recorded per file at most: past them, a file's directives are not all known
/// (a generated file of thousands is not one whose calls a reviewer weighs).
const MAX_LINES: usize = 4096;

/// Whether the comments that open the file hold `// @ts-nocheck` (the compiler reads
/// the pragma there only, and only as a line comment).
pub(super) fn ts_nocheck(source: &str) -> bool {
    let mut rest = source.trim_start_matches('\u{feff}');
    if rest.starts_with("#!") {
        rest = rest.split_once('\n').map_or("", |(_, after)| after);
    }
    loop {
        rest = rest.trim_start();
        if let Some(comment) = rest.strip_prefix("//") {
            let (line, after) = comment.split_once('\n').unwrap_or((comment, ""));
            if line.trim_start().starts_with("@ts-nocheck") {
                return true;
            }
            rest = after;
        } else if let Some(comment) = rest.strip_prefix("/*") {
            match comment.split_once("*/") {
                Some((_, after)) => rest = after,
                None => return false,
            }
        } else {
            return false;
        }
    }
}

/// The lines (from 0, ascending) a `@ts-expect-error` or `@ts-ignore` comment governs:
/// the line after the comment's end. The directive opens its comment (`//
/// @ts-expect-error: reason`, `/* @ts-ignore */`, `{/* @ts-expect-error */}` in JSX).
pub(super) fn suppressed_lines(source: &str) -> ThinVec<u32> {
    let bytes = source.as_bytes();
    let mut out = ThinVec::new();
    // Each pass over the text starts where the last one stopped, so that a file of
    // many directives on one long line costs its length, not its length squared:
    // the line and its start as of `counted`, and the first `*/` at or after
    // `close_from` (None: there is none).
    let (mut line, mut counted, mut line_start) = (0u32, 0usize, 0usize);
    let mut close: Option<(usize, Option<usize>)> = None;
    // The end of the block comment a directive opened: a `@ts-` inside it is text.
    let mut inside_until = 0usize;
    for (at, _) in source.match_indices("@ts-") {
        if at < inside_until {
            continue;
        }
        let rest = &source[at + 4..];
        let name_len = if rest.starts_with("expect-error") {
            "expect-error".len()
        } else if rest.starts_with("ignore") {
            "ignore".len()
        } else {
            continue;
        };
        if rest[name_len..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
        {
            continue;
        }
        if let Some(newline) = source[counted..at].rfind('\n') {
            line_start = counted + newline + 1;
        }
        line += bytes[counted..at].iter().filter(|&&b| b == b'\n').count() as u32;
        counted = at;
        let before = source[line_start..at].trim_end();
        let end = if before.ends_with("//") {
            at
        } else if before.ends_with("/*") {
            let found = match close {
                Some((from, found)) if from <= at && found.is_none_or(|c| c >= at) => found,
                _ => {
                    let found = source[at..].find("*/").map(|c| at + c);
                    close = Some((at, found));
                    found
                }
            };
            match found {
                Some(c) => c,
                None => continue,
            }
        } else {
            continue;
        };
        if end > at {
            inside_until = end;
            line += bytes[at..end].iter().filter(|&&b| b == b'\n').count() as u32;
            if let Some(newline) = source[at..end].rfind('\n') {
                line_start = at + newline + 1;
            }
            counted = end;
        }
        let governed = line + 1;
        if out.last() != Some(&governed) {
            out.push(governed);
        }
        if out.len() >= MAX_LINES {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::suppressed_lines;

    #[test]
    fn a_directive_governs_the_line_after_its_comment() {
        let source = "\
f(1);
// @ts-expect-error: too many
f(1, 2);
  /* @ts-ignore */
g();
const s = '// not @ts-ignored';
/*
 * @ts-expect-error in the middle of a comment: no directive
 */
h();
x(); // @ts-expect-error trailing: governs the next line
y();
<A>{/* @ts-expect-error */}
<B c={1} />
/* @ts-ignore
   over two lines */
z();
";
        assert_eq!(
            suppressed_lines(source).to_vec(),
            vec![2, 4, 11, 13, 16],
            "{source}"
        );
    }

    #[test]
    fn a_directive_inside_a_block_comment_it_opened_is_text() {
        // The second line is inside the comment the first opened: one directive, over
        // the line after `*/`.
        let source = "/* @ts-ignore\n// @ts-expect-error\n*/\nf();\n";
        assert_eq!(suppressed_lines(source).to_vec(), vec![3]);
    }

    #[test]
    fn many_directives_on_one_line_are_read_once_each() {
        // A line of 40,000 directives, half opening block comments never closed (no
        // directive), half after `//`: line 1, recorded once.
        let mut source = String::new();
        for _ in 0..20_000 {
            source.push_str("/* @ts-ignore x // @ts-ignore ");
        }
        source.push('\n');
        assert_eq!(suppressed_lines(&source).to_vec(), vec![1]);
        let source = "// @ts-ignore @ts-ignore @ts-ignore\nf();\n";
        assert_eq!(suppressed_lines(source).to_vec(), vec![1]);
    }
}
