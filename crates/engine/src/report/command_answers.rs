//! Answers to PR thread commands as markdown: callers, callees and call paths from the
//! query layer, each `FILE:LINE` a link the caller builds (a permalink at a commit).

use std::fmt::Write as _;

use super::markdown::code;
pub use super::LineLink;
use crate::query::{CalleeEntry, CallersAnswer, Definition, TargetError};

/// Lines listed per answer; the rest are counted.
const MAX_LINES: usize = 100;

fn place(file: &str, line: u32, link: LineLink) -> String {
    super::markdown::place(file, line, Some(link))
}

fn definition(d: &Definition, link: LineLink) -> String {
    format!(
        "{} ({}) at {}",
        code(&d.qualified_name),
        d.kind,
        place(&d.file, d.line, link)
    )
}

/// What a name that did not name one definition gets: the closest names, or the
/// choices, each linked.
pub fn target_error(e: &TargetError, link: LineLink) -> String {
    match e {
        TargetError::NotFound {
            target,
            suggestions,
        } => {
            let mut out = format!("No definition named {}.", code(target));
            if suggestions.is_empty() {
                out.push_str(" Try a qualified name like `Class.method`, or `FILE:LINE`.\n");
            } else {
                out.push_str(" Did you mean:\n");
                for d in suggestions {
                    let _ = writeln!(out, "- {}", definition(d, link));
                }
            }
            out
        }
        TargetError::Ambiguous { target, candidates } => {
            let mut out = format!(
                "{} names {} definitions; ask again with a qualified name or `FILE:LINE`:\n",
                code(target),
                candidates.len()
            );
            for d in candidates.iter().take(MAX_LINES) {
                let _ = writeln!(out, "- {}", definition(d, link));
            }
            if candidates.len() > MAX_LINES {
                let _ = writeln!(out, "- … and {} more", candidates.len() - MAX_LINES);
            }
            out
        }
    }
}

/// The line that names the other definitions of `name` when the context (a pull
/// request) chose one: empty when there were none.
pub fn passed_over(name: &str, others: &[Definition], link: LineLink) -> String {
    if others.is_empty() {
        return String::new();
    }
    let listed: Vec<String> = others
        .iter()
        .take(MAX_LINES)
        .map(|d| place(&d.file, d.line, link))
        .collect();
    let more = others.len().saturating_sub(MAX_LINES);
    format!(
        "\n_{} also names {}{}: the answer above is for the one in this pull request; ask `/callers FILE:LINE` for another._\n",
        code(name),
        listed.join(", "),
        if more > 0 { format!(" and {more} more") } else { String::new() }
    )
}

/// GitHub refuses comments over 65,536 characters: a longer answer is cut, and says so.
pub fn fit_comment(body: &str) -> String {
    const LIMIT: usize = 60_000;
    if body.chars().count() <= LIMIT {
        return body.to_string();
    }
    let cut: String = body.chars().take(LIMIT).collect();
    let cut = cut.rsplit_once('\n').map_or(cut.as_str(), |(a, _)| a);
    format!("{cut}\n\n_The answer was cut here: it is longer than a comment can be._\n")
}

pub fn callers(answer: &CallersAnswer, link: LineLink) -> String {
    callers_listing(answer, link, MAX_LINES, 0)
}

/// [`callers`] listing at most `listed` sites (and at most as many as it lists anyway),
/// saying that `left_out` more sites were left out by the repository's configuration
/// (its paths or its lowest confidence).
pub fn callers_listing(
    answer: &CallersAnswer,
    link: LineLink,
    listed: usize,
    left_out: usize,
) -> String {
    let listed = listed.min(MAX_LINES);
    let mut out = format!("**Callers of {}**\n\n", definition(&answer.target, link));
    if answer.callers.is_empty() {
        out.push_str("No call site calls it.\n");
    }
    for c in answer.callers.iter().take(listed) {
        let indent = "  ".repeat(c.depth.saturating_sub(1) as usize);
        let via = c
            .via
            .as_ref()
            .map_or(String::new(), |v| format!(", via {}", code(v)));
        let _ = writeln!(
            out,
            "{indent}- {} in {} ({} {}{via})",
            place(&c.file, c.line, link),
            code(c.caller.as_deref().unwrap_or("<module>")),
            c.kind,
            c.confidence.as_str(),
        );
    }
    if answer.callers.len() > listed {
        let _ = writeln!(out, "- … and {} more", answer.callers.len() - listed);
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "\n{left_out} more call {} in paths or of a confidence that `.github/blast-radius.yml` leaves out.",
            if left_out == 1 { "site is" } else { "sites are" }
        );
    }
    let c = &answer.completeness;
    if c.complete() {
        let _ = writeln!(
            out,
            "\nComplete: no unresolved call site named {}, no skipped file.",
            code(&answer.target.name)
        );
    } else {
        let _ = writeln!(
            out,
            "\nA lower bound: {} unresolved call site(s) named {} and {} skipped file(s) may hold more.",
            c.unresolved_same_name,
            code(&answer.target.name),
            c.skipped_files
        );
    }
    out
}

pub fn callees(target: &Definition, callees: &[CalleeEntry], link: LineLink) -> String {
    let mut out = format!("**Callees of {}**\n\n", definition(target, link));
    if callees.is_empty() {
        out.push_str("It calls nothing the graph resolves.\n");
    }
    for c in callees.iter().take(MAX_LINES) {
        let _ = writeln!(
            out,
            "- {} calls {} ({} {})",
            place(&c.file, c.line, link),
            definition(&c.callee, link),
            c.kind,
            c.confidence.as_str()
        );
    }
    if callees.len() > MAX_LINES {
        let _ = writeln!(out, "- … and {} more", callees.len() - MAX_LINES);
    }
    out
}

pub fn path(from: &str, to: &str, path: Option<&[Definition]>, link: LineLink) -> String {
    match path {
        None => format!("**No call path** from {} to {}.\n", code(from), code(to)),
        Some(steps) => {
            let mut out = format!("**A call path** from {} to {}\n\n", code(from), code(to));
            for (i, d) in steps.iter().enumerate() {
                let _ = writeln!(out, "{}. {}", i + 1, definition(d, link));
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Confidence;
    use crate::query::{CallerEntry, Completeness};

    fn def(name: &str, file: &str, line: u32) -> Definition {
        Definition {
            name: name.into(),
            qualified_name: name.into(),
            kind: "function",
            file: file.into(),
            line,
        }
    }

    #[test]
    fn callers_link_each_site_and_say_whether_the_list_is_complete() {
        let link = |f: &str, l: u32| format!("https://example.test/blob/abc/{f}#L{l}");
        let answer = CallersAnswer {
            target: def("classifyFields", "services/classify.js", 2),
            callers: vec![CallerEntry {
                file: "routes/posts.js".into(),
                line: 7,
                column: 3,
                caller: Some("createPost".into()),
                kind: "call",
                confidence: Confidence::Exact,
                depth: 1,
                via: None,
            }],
            completeness: Completeness {
                unresolved_same_name: 1,
                skipped_files: 0,
            },
        };
        let md = callers(&answer, &link);
        assert!(
            md.contains("[`routes/posts.js:7`](https://example.test/blob/abc/routes/posts.js#L7)"),
            "{md}"
        );
        assert!(md.contains("`createPost`"), "{md}");
        assert!(md.contains("A lower bound: 1 unresolved"), "{md}");
    }

    #[test]
    fn a_listing_stops_at_its_limit_and_counts_what_the_config_left_out() {
        let link = |f: &str, l: u32| format!("https://example.test/{f}#L{l}");
        let site = |line: u32| CallerEntry {
            file: "src/a.js".into(),
            line,
            column: 1,
            caller: None,
            kind: "call",
            confidence: Confidence::Exact,
            depth: 1,
            via: None,
        };
        let answer = CallersAnswer {
            target: def("f", "src/f.js", 1),
            callers: vec![site(1), site(2), site(3)],
            completeness: Completeness {
                unresolved_same_name: 0,
                skipped_files: 0,
            },
        };
        let md = callers_listing(&answer, &link, 2, 4);
        assert!(md.contains("src/a.js:2"), "{md}");
        assert!(!md.contains("src/a.js:3"), "{md}");
        assert!(md.contains("- … and 1 more"), "{md}");
        assert!(
            md.contains("4 more call sites are in paths or of a confidence that `.github/blast-radius.yml` leaves out."),
            "{md}"
        );
        let all = callers_listing(&answer, &link, usize::MAX, 0);
        assert_eq!(all, callers(&answer, &link));
        assert!(!all.contains("leaves out"), "{all}");
    }
}
