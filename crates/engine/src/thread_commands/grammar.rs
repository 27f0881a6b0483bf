//! The command grammar: each line of a comment is not a command, a command, or a user's
//! mistake to answer with what to type instead.

use serde::Serialize;

use super::text::command_lines;
use crate::escape::code;

/// The deepest caller chain a command may ask for: deeper answers are lists nobody reads.
pub const MAX_DEPTH: u32 = 5;

/// The longest name a command may ask about, in bytes: longer than any real function's
/// (or `Class.method`, or `FILE:LINE`), and refused before any search ("did you mean"
/// compares a name with every name of the graph, in time that grows with its length).
pub const MAX_NAME_BYTES: usize = 256;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    Callers { target: String, depth: u32 },
    Callees { target: String },
    Blast { target: String, depth: u32 },
    Path { from: String, to: String },
    Help,
}

/// A line that meant to be a command but is not one we can run, with what to say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandError {
    /// The commenter's line, as written: echo it only through [`CommandError::reply`].
    pub line: String,
    /// Markdown, with every piece of the commenter's text in a code span.
    pub message: String,
}

impl CommandError {
    /// The reply's markdown: the line (escaped) and what to type instead.
    pub fn reply(&self) -> String {
        format!("{}: {}", code(&self.line), self.message)
    }
}

/// The commands we know, their arguments, and what each does (for `/help`).
pub const USAGE: &[(&str, &str, &str)] = &[
    (
        "callers",
        "NAME [DEPTH]",
        "who calls NAME (DEPTH levels, default 1)",
    ),
    ("callees", "NAME", "what NAME calls"),
    (
        "blast",
        "NAME [DEPTH]",
        "the callers that a change to NAME reaches (default depth 2)",
    ),
    ("path", "FROM TO", "a call path from FROM to TO"),
    ("help", "", "this list"),
];

/// Every command in a comment, in order: several commands each answer.
pub fn parse_comment(body: &str) -> Vec<Result<Command, CommandError>> {
    command_lines(body)
        .iter()
        .filter_map(|line| parse_line(line))
        .collect()
}

/// Every command among `lines` (already read out of a comment by
/// [`command_lines`](super::command_lines)), in order.
pub fn parse_lines(lines: &[String]) -> Vec<Result<Command, CommandError>> {
    lines.iter().filter_map(|line| parse_line(line)).collect()
}

/// None: the line is not a command (prose, a path like `/usr/bin`, another bot's).
fn parse_line(line: &str) -> Option<Result<Command, CommandError>> {
    let rest = line.strip_prefix('/')?;
    let mut words = split_words(rest).into_iter();
    let name = words.next()?;
    let args: Vec<String> = words.map(|w| unquote(&w)).collect();
    let error = |message: String| CommandError {
        line: line.to_string(),
        message,
    };
    let Some(&(known, usage, _)) = USAGE.iter().find(|(n, _, _)| *n == name) else {
        return near_miss(&name).map(|message| Err(error(message)));
    };
    Some(command(known, usage, &args).map_err(error))
}

/// A near miss of one of our commands is a typo worth answering (what it meant);
/// anything else is not ours.
fn near_miss(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let (n, usage, _) = USAGE.iter().find(|(n, _, _)| {
        *n == lower || strsim::damerau_levenshtein(n, &lower) <= 1 && lower.len() > 3
    })?;
    Some(
        format!(
            "unknown command {}: did you mean `/{n} {usage}`?",
            code(&format!("/{name}"))
        )
        .replace(" `?", "`?"),
    )
}

/// The command `known` (whose arguments `usage` names) with `args`, or what is wrong
/// with them.
fn command(known: &str, usage: &str, args: &[String]) -> Result<Command, String> {
    let usage_text = format!("`/{known} {usage}`").replace(" `", "`");
    let max_args = usage.split_whitespace().count();
    if args.len() > max_args {
        return Err(format!(
            "`/{known}` takes at most {max_args} argument{}: {usage_text}",
            if max_args == 1 { "" } else { "s" }
        ));
    }
    // Every argument but a depth is a name.
    if let Some(long) = args.iter().find(|a| a.len() > MAX_NAME_BYTES) {
        return Err(format!(
            "a name of {} bytes is longer than any function's: names are at most {MAX_NAME_BYTES} bytes",
            long.len()
        ));
    }
    Ok(match known {
        "help" => Command::Help,
        "callers" | "blast" => {
            let Some(target) = args.first().cloned() else {
                return Err(format!("`/{known}` needs a function name: {usage_text}"));
            };
            let default = if known == "blast" { 2 } else { 1 };
            let depth = depth(args.get(1), default, &usage_text)?;
            if known == "blast" {
                Command::Blast { target, depth }
            } else {
                Command::Callers { target, depth }
            }
        }
        "callees" => match args.first() {
            Some(target) => Command::Callees {
                target: target.clone(),
            },
            None => return Err(format!("`/callees` needs a function name: {usage_text}")),
        },
        "path" => match (args.first(), args.get(1)) {
            (Some(from), Some(to)) => Command::Path {
                from: from.clone(),
                to: to.clone(),
            },
            _ => return Err(format!("`/path` needs two function names: {usage_text}")),
        },
        _ => unreachable!("every name in USAGE is handled"),
    })
}

/// A depth argument, 1 to [`MAX_DEPTH`], `default` when absent.
fn depth(arg: Option<&String>, default: u32, usage_text: &str) -> Result<u32, String> {
    match arg {
        None => Ok(default),
        Some(a) => match a.parse::<u32>() {
            Ok(d) if (1..=MAX_DEPTH).contains(&d) => Ok(d),
            _ => Err(format!(
                "the depth must be a number from 1 to {MAX_DEPTH}, not {}: {usage_text}",
                code(a)
            )),
        },
    }
}

/// An argument without the backticks or quotes people wrap names in.
/// The words of a command line; a double-quoted run is one word, spaces and all
/// (`/callers "GET /users/:id"` asks about a route).
fn split_words(line: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut quoted: Option<String> = None;
    for w in line.split_whitespace() {
        match quoted.as_mut() {
            Some(q) => {
                q.push(' ');
                q.push_str(w);
                if w.ends_with('"') {
                    out.extend(quoted.take());
                }
            }
            None if w.starts_with('"') && !(w.len() > 1 && w.ends_with('"')) => {
                quoted = Some(w.to_string());
            }
            None => out.push(w.to_string()),
        }
    }
    // An unclosed quote: the rest is its word.
    out.extend(quoted);
    out
}

fn unquote(arg: &str) -> String {
    arg.trim_matches(|c| c == '`' || c == '"' || c == '\'')
        .trim_end_matches("()")
        .to_string()
}

/// `/help`'s answer.
pub fn help() -> String {
    let mut out = String::from(
        "**Blast Radius commands** (one per line, in a pull request's conversation)\n\n",
    );
    for (name, args, what) in USAGE {
        let usage = format!("/{name} {args}");
        out.push_str(&format!("- `{}`: {what}\n", usage.trim_end()));
    }
    out.push_str("\nNAME is a function name, `Class.method`, or `FILE:LINE`. Answers come from the default branch's graph with this pull request's files laid over it.\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(body: &str) -> Vec<Command> {
        parse_comment(body)
            .into_iter()
            .map(|r| r.expect("a command"))
            .collect()
    }

    fn err(body: &str) -> String {
        match parse_comment(body).pop() {
            Some(Err(e)) => e.message,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn a_name_longer_than_any_function_name_is_refused() {
        let long = "a".repeat(990);
        for body in [
            format!("/callers {long}"),
            format!("/callees {long}"),
            format!("/blast {long} 2"),
            format!("/path f {long}"),
        ] {
            assert_eq!(
                err(&body),
                "a name of 990 bytes is longer than any function's: names are at most 256 bytes",
                "{body}"
            );
        }
        let longest = "a".repeat(MAX_NAME_BYTES);
        assert_eq!(
            ok(&format!("/callers {longest}")),
            vec![Command::Callers {
                target: longest,
                depth: 1
            }]
        );
    }

    #[test]
    fn each_command_with_its_arguments() {
        assert_eq!(
            ok("/callers classifyFields"),
            vec![Command::Callers {
                target: "classifyFields".into(),
                depth: 1
            }]
        );
        assert_eq!(
            ok("/callers UserService.get 3"),
            vec![Command::Callers {
                target: "UserService.get".into(),
                depth: 3
            }]
        );
        assert_eq!(
            ok("/callees `lookupRules()`"),
            vec![Command::Callees {
                target: "lookupRules".into()
            }]
        );
        assert_eq!(
            ok("/blast src/a.ts:12"),
            vec![Command::Blast {
                target: "src/a.ts:12".into(),
                depth: 2
            }]
        );
        assert_eq!(
            ok("/path createPost lookupRules"),
            vec![Command::Path {
                from: "createPost".into(),
                to: "lookupRules".into()
            }]
        );
        assert_eq!(ok("/help"), vec![Command::Help]);
    }

    #[test]
    fn several_commands_in_one_comment_each_answer() {
        let body = "Two questions:\n/callers a\nand\n/callees b\n";
        assert_eq!(ok(body).len(), 2);
    }

    #[test]
    fn commands_in_code_quotes_or_mid_line_do_not_fire() {
        for body in [
            "```\n/callers a\n```",
            "> /callers a",
            "please run /callers a",
            "`/callers a`",
            "    /callers a",
        ] {
            assert!(parse_comment(body).is_empty(), "{body}");
        }
    }

    #[test]
    fn other_slashes_are_not_ours() {
        for body in ["/usr/bin/env node", "/cc @someone", "/approve", "/"] {
            assert!(parse_comment(body).is_empty(), "{body}");
        }
    }

    /// What GitHub would show of `markdown`, as HTML, with every code span taken out.
    fn outside_code(markdown: &str) -> String {
        let mut html = String::new();
        pulldown_cmark::html::push_html(&mut html, pulldown_cmark::Parser::new(markdown));
        let mut out = String::new();
        let mut rest = html.as_str();
        while let Some(i) = rest.find("<code>") {
            out.push_str(&rest[..i]);
            let end = rest[i..].find("</code>").expect("a closed code span");
            rest = &rest[i + end + "</code>".len()..];
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn a_commenter_s_text_is_echoed_only_inside_code() {
        let hostile = [
            "/caller @admin ![x](https://evil.test/i.png) [click](https://evil.test)",
            "/callers a b <img src=https://evil.test/x> c",
            "/callers a `` ` @admin <script>evil</script> ` ``",
            "/callers a @admin\u{202E}evil",
            "/calers `x` [y](https://evil.test) @org/team",
            "/path @admin",
            "/callers a b ![evil](https://evil.test/i.png) c",
            "/callers a ```@admin```",
            "/callees <details><summary>@admin</summary></details> x",
        ];
        for body in hostile {
            let errors: Vec<CommandError> = parse_comment(body)
                .into_iter()
                .filter_map(Result::err)
                .collect();
            assert!(!errors.is_empty(), "{body} makes an error reply");
            for e in errors {
                let reply = e.reply();
                let shown = outside_code(&reply);
                for bad in ["@", "<a", "<img", "<script", "<details", "evil", "https:"] {
                    assert!(
                        !shown.contains(bad),
                        "{body:?} shows {bad:?} outside code:\n{reply}\n{shown}"
                    );
                }
            }
        }
    }

    #[test]
    fn mistakes_get_what_to_type() {
        assert!(err("/caller a").contains("did you mean `/callers NAME [DEPTH]`"));
        assert!(err("/callers").contains("needs a function name"));
        assert!(err("/callers a 0").contains("from 1 to 5"));
        assert!(err("/callers a deep").contains("not `deep`"));
        assert!(err("/path a").contains("two function names"));
        assert!(err("/callees a b").contains("at most 1 argument"));
    }

    #[test]
    fn a_quoted_route_is_one_target() {
        assert_eq!(
            parse_comment("/callers \"GET /users/:id\""),
            vec![Ok(Command::Callers {
                target: "GET /users/:id".into(),
                depth: 1
            })]
        );
        assert_eq!(
            parse_comment("/callers \"POST /orders\" 2"),
            vec![Ok(Command::Callers {
                target: "POST /orders".into(),
                depth: 2
            })]
        );
        assert_eq!(
            parse_comment("/callers \"formatPrice\""),
            vec![Ok(Command::Callers {
                target: "formatPrice".into(),
                depth: 1
            })]
        );
    }
}
