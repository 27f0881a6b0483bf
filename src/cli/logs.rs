//! The process's log on stderr: text for people, or (BLAST_LOG_FORMAT=json) one JSON
//! object per line, with the spans' fields (a job's delivery, repository and PR), for a
//! log collector. Text is coloured only on a terminal (`mcp` clients keep the server's
//! stderr as text).
//!
//! Text lines carry repository paths, names and errors that others wrote: a newline in
//! one could forge a line, an escape sequence recolour a terminal. So every field's text
//! is written with its control characters escaped ([`Escaped`]), in every line, present
//! and future; JSON escapes them already.

use std::fmt::{self, Write as _};

use tracing::field::{Field, Visit};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FormatFields, MakeWriter};
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::EnvFilter;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// Installs the log for this process, as the environment asks (RUST_LOG,
/// BLAST_LOG_FORMAT).
pub fn init() {
    let format = match std::env::var("BLAST_LOG_FORMAT").as_deref() {
        Ok("json") => Format::Json,
        _ => Format::Text,
    };
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    subscriber(format, ansi, EnvFilter::from_default_env(), std::io::stderr).init();
}

/// The log's subscriber: `format`, events `filter` lets through, written to `writer`.
pub fn subscriber<W>(format: Format, ansi: bool, filter: EnvFilter, writer: W) -> tracing::Dispatch
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(ansi);
    match format {
        Format::Json => logs.json().finish().into(),
        Format::Text => logs.fmt_fields(Escaped).finish().into(),
    }
}

/// Fields as the default text format writes them (`message name=value ...`), each value
/// with its control characters escaped.
pub struct Escaped;

impl<'w> FormatFields<'w> for Escaped {
    fn format_fields<R: RecordFields>(&self, mut writer: Writer<'w>, fields: R) -> fmt::Result {
        let mut visitor = Visitor {
            writer: &mut writer,
            first: true,
            result: Ok(()),
        };
        fields.record(&mut visitor);
        visitor.result
    }
}

struct Visitor<'a, 'w> {
    writer: &'a mut Writer<'w>,
    first: bool,
    result: fmt::Result,
}

impl Visit for Visitor<'_, '_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        // The message as written; other strings quoted, as the default format does.
        if field.name() == "message" {
            self.record_debug(field, &format_args!("{value}"));
        } else {
            self.record_debug(field, &value);
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        // `log.*` fields are the `log` crate's metadata, shown in the line's head.
        if self.result.is_err() || field.name().starts_with("log.") {
            return;
        }
        let text = format!("{value:?}");
        let gap = if self.first { "" } else { " " };
        self.first = false;
        self.result = match field.name() {
            "message" => write!(self.writer, "{gap}{}", Escape(&text)),
            name => write!(
                self.writer,
                "{gap}{}={}",
                name.trim_start_matches("r#"),
                Escape(&text)
            ),
        };
    }
}

/// Text with control characters (C0, DEL, C1, and Unicode's line and paragraph
/// separators) written as escapes: `\n`, `\r`, `\t`, `\u{1b}`.
struct Escape<'a>(&'a str);

impl fmt::Display for Escape<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            match c {
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                    write!(f, "\\u{{{:x}}}", c as u32)?
                }
                c => f.write_char(c)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use super::*;

    /// What the log wrote.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn text_of(format: Format, log: impl FnOnce()) -> String {
        let captured = Captured::default();
        let writer = captured.clone();
        let dispatch = subscriber(format, false, EnvFilter::new("info"), move || {
            writer.clone()
        });
        tracing::dispatcher::with_default(&dispatch, log);
        let bytes = captured.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    /// A repository's file path (or a name, an error) holding a newline cannot forge a
    /// log line, nor a terminal's escape sequence recolour one.
    #[test]
    fn text_lines_stay_one_line_whatever_they_carry() {
        let path = "src/a.js\n2026-01-01T00:00:00Z  INFO forged: all is well";
        let text = text_of(Format::Text, || {
            let span = tracing::info_span!("job", repo = %"acme/web\r\nx");
            let _entered = span.enter();
            tracing::info!(file = %path, "indexed {path}");
            tracing::warn!(error = %"bad\u{1b}[31m red", name = ?path, "failed");
        });
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.contains("src/a.js\\n2026"), "{text}");
        assert!(!text.contains('\r'), "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");

        let json = text_of(
            Format::Json,
            || tracing::info!(file = %path, "indexed {path}"),
        );
        assert_eq!(json.lines().count(), 1, "{json}");
    }
}
