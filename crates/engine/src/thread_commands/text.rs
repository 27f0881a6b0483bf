//! A comment's markdown reduced to the lines a command may start: code blocks, quotes,
//! HTML and images are dropped; inline code keeps its backticks, so a line that opens
//! with inline code does not start a command.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// The lines of `markdown` outside code blocks, block quotes and HTML.
pub fn command_lines(markdown: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    // Depth of the constructs whose text never holds commands.
    let mut hidden = 0usize;
    let flush = |line: &mut String, lines: &mut Vec<String>| {
        let trimmed = line.trim();
        if !trimmed.is_empty() {
            lines.push(trimmed.to_string());
        }
        line.clear();
    };
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::CodeBlock(_) | Tag::BlockQuote(_) | Tag::Image { .. })
            | Event::Start(Tag::HtmlBlock) => hidden += 1,
            Event::End(TagEnd::CodeBlock | TagEnd::BlockQuote(_) | TagEnd::Image)
            | Event::End(TagEnd::HtmlBlock) => hidden = hidden.saturating_sub(1),
            Event::Start(Tag::Paragraph | Tag::Item | Tag::Heading { .. })
            | Event::End(TagEnd::Paragraph | TagEnd::Item | TagEnd::Heading(_))
            | Event::SoftBreak
            | Event::HardBreak => flush(&mut line, &mut lines),
            Event::Text(t) if hidden == 0 => line.push_str(&t),
            Event::Code(c) if hidden == 0 => {
                line.push('`');
                line.push_str(&c);
                line.push('`');
            }
            _ => {}
        }
    }
    flush(&mut line, &mut lines);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_blocks_quotes_and_html_are_dropped() {
        let md = "hello\n/callers a\n\n```\n/callers b\n```\n\n> /callers c\n\n    /callers d\n\n<!--\n/callers e\n-->\n\n- /callers f\n";
        assert_eq!(command_lines(md), vec!["hello", "/callers a", "/callers f"]);
    }

    #[test]
    fn inline_code_keeps_its_backticks() {
        assert_eq!(
            command_lines("`/callers a` is how\n/callers `b` 2"),
            vec!["`/callers a` is how", "/callers `b` 2"]
        );
    }
}
