//! The documentation is tested like the code: the command-line examples in docs/ run and
//! their output is compared (trycmd), every relative link and `#anchor` in every markdown
//! file leads somewhere, and the configuration page lists every server flag and variable
//! and every key of `.github/blast-radius.yml`, as the code defines them, and nothing else.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use blast_radius::repo_config::{OUTPUTS_KEYS, PATHS_KEYS, TOP_KEYS};
use clap::CommandFactory as _;
use pulldown_cmark::{Event, Parser, Tag, TagEnd};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every markdown file of the repository (not what builds and installs put beside it).
fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        for entry in entries {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    walk(&path, out);
                }
            } else if name.ends_with(".md") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(root(), &mut out);
    out
}

/// The anchors GitHub gives a file's headings: the heading's text in lower case, each
/// space a `-`, punctuation other than `-` and `_` dropped; a repeated one gets `-1`,
/// `-2`, ... Explicit `id`s (`<a id="x">`, `<h2 id>`) count too.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = BTreeSet::new();
    let mut heading: Option<String> = None;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let text = heading.take().unwrap_or_default();
                let slug: String = text
                    .trim()
                    .to_lowercase()
                    .chars()
                    .filter_map(|c| match c {
                        ' ' => Some('-'),
                        c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                        _ => None,
                    })
                    .collect();
                let n = seen.entry(slug.clone()).or_default();
                out.insert(if *n == 0 {
                    slug.clone()
                } else {
                    format!("{slug}-{n}")
                });
                *n += 1;
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Html(h) | Event::InlineHtml(h) => {
                for part in h.split("id=\"").skip(1) {
                    if let Some(id) = part.split('"').next() {
                        out.insert(id.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The relative links and images of a markdown file: (destination, line).
fn relative_links(markdown: &str) -> Vec<(String, usize)> {
    let line_of = |offset: usize| markdown[..offset].matches('\n').count() + 1;
    Parser::new(markdown)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => {
                Some((dest_url.to_string(), line_of(range.start)))
            }
            _ => None,
        })
        .filter(|(url, _)| {
            !(url.contains("://") || url.starts_with("mailto:") || url.starts_with("//"))
        })
        .collect()
}

/// What is wrong with the relative links of `files`: a file or directory that is not
/// there, or an anchor that no heading of its file makes.
fn broken_links(files: &[PathBuf]) -> Vec<String> {
    let mut broken = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file
            .strip_prefix(root())
            .unwrap_or(file)
            .display()
            .to_string();
        for (url, line) in relative_links(&text) {
            let (path, anchor) = match url.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (url.as_str(), None),
            };
            let target = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            if !target.exists() {
                broken.push(format!("{shown}:{line}: {url}: no {}", target.display()));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            if target.extension().is_some_and(|e| e == "md") {
                let there = anchors(&std::fs::read_to_string(&target).unwrap());
                if !there.contains(anchor) {
                    broken.push(format!(
                        "{shown}:{line}: {url}: no heading makes #{anchor} (there: {there:?})"
                    ));
                }
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_and_anchor_in_the_markdown_leads_somewhere() {
    let files = markdown_files();
    assert!(
        files.iter().any(|f| f.ends_with("README.md")) && files.len() > 5,
        "{files:?}"
    );
    let broken = broken_links(&files);
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_check_catches_a_missing_file_and_a_missing_anchor() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.md");
    std::fs::write(
        dir.path().join("b.md"),
        "# Title\n\n## The `x` key, again\n",
    )
    .unwrap();
    std::fs::write(
        &a,
        "# A\n\n[ok](b.md#the-x-key-again) [ok](#a) [web](https://example.com/nothing)\n\
         [gone](c.md) [bad anchor](b.md#nothing) ![img](missing.png)\n",
    )
    .unwrap();
    let broken = broken_links(std::slice::from_ref(&a));
    assert_eq!(broken.len(), 3, "{broken:#?}");
    assert!(broken[0].contains("c.md"));
    assert!(broken[1].contains("#nothing"));
    assert!(broken[2].contains("missing.png"));
    // GitHub's slugs: repeated headings are numbered.
    assert_eq!(
        anchors("# Run it\n## Run it\n## What's `new`?\n"),
        ["run-it", "run-it-1", "whats-new"]
            .into_iter()
            .map(String::from)
            .collect()
    );
}

/// The console examples of the docs, run against the fixtures: a renamed flag or a
/// changed output fails here (`TRYCMD=overwrite` rewrites the expected output).
#[test]
fn the_command_line_examples_in_the_docs_run_as_written() {
    trycmd::TestCases::new()
        .register_bin(
            "blast-radius",
            Path::new(env!("CARGO_BIN_EXE_blast-radius")),
        )
        .env("NO_COLOR", "1")
        // The examples show a cold run: what a run after another prints depends on
        // which ran first (the cache's own example says what a warm one adds).
        .env("BLAST_RADIUS_NO_CACHE", "1")
        .case("docs/*.md")
        .case("README.md");
}

/// The rows of the markdown table under `heading` in `page`: each row's cells.
fn table_under(page: &str, heading: &str) -> Vec<Vec<String>> {
    let start = page
        .find(heading)
        .unwrap_or_else(|| panic!("no heading {heading}"));
    page[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// The names in backticks in a cell.
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_configuration_page_lists_every_server_flag_and_variable_and_no_other() {
    let page = std::fs::read_to_string(root().join("docs/configuration.md")).unwrap();
    let rows = table_under(&page, "## The server's flags and variables");
    let mut documented_vars = BTreeSet::new();
    let mut documented_flags = BTreeSet::new();
    for row in &rows {
        documented_vars.extend(code_spans(&row[0]));
        documented_flags.extend(code_spans(&row[1]));
    }
    let cli = blast_radius::cli::Cli::command();
    let mut vars = BTreeSet::new();
    let mut flags = BTreeSet::new();
    for sub in ["serve", "work", "check-config"] {
        let command = cli.find_subcommand(sub).unwrap();
        for arg in command.get_arguments() {
            if let Some(env) = arg.get_env() {
                vars.insert(env.to_string_lossy().to_string());
            }
            if let Some(long) = arg.get_long() {
                if long != "help" {
                    flags.insert(format!("--{long}"));
                }
            }
        }
    }
    // Read by the process itself, not by a flag: the log's filter and format.
    let logs = ["RUST_LOG", "BLAST_LOG_FORMAT"];
    let mut expected_vars = vars.clone();
    expected_vars.extend(logs.iter().map(|v| v.to_string()));
    assert_eq!(
        documented_vars, expected_vars,
        "docs/configuration.md's server table against the flags of serve, work and check-config"
    );
    assert_eq!(documented_flags, flags);
}

#[test]
fn the_configuration_page_lists_every_repository_key_and_no_other() {
    let page = std::fs::read_to_string(root().join("docs/configuration.md")).unwrap();
    let rows = table_under(&page, "## The repository's `.github/blast-radius.yml`");
    let documented: BTreeSet<String> = rows.iter().flat_map(|row| code_spans(&row[0])).collect();
    let mut keys: BTreeSet<String> = TOP_KEYS
        .iter()
        .filter(|k| !matches!(**k, "paths" | "outputs"))
        .map(|k| k.to_string())
        .collect();
    keys.extend(PATHS_KEYS.iter().map(|k| format!("paths.{k}")));
    keys.extend(OUTPUTS_KEYS.iter().map(|k| format!("outputs.{k}")));
    assert_eq!(
        documented, keys,
        "docs/configuration.md's key table against repo_config's keys"
    );
}

/// The README is read in five minutes: what the App does, how to try it, how to install
/// it, and where the rest is (issue 46). Everything else belongs in a page of docs/.
#[test]
fn the_readme_stays_short_and_points_to_every_page_of_the_docs() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.len() <= 12 * 1024,
        "README.md is {} bytes: move detail to a page of docs/",
        readme.len()
    );
    let mut pages: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".md"))
        .collect();
    pages.sort();
    for page in pages {
        assert!(
            readme.contains(&format!("(docs/{page})")),
            "README.md's table does not point to docs/{page}"
        );
    }
}
