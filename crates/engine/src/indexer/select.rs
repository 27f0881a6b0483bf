//! Which paths the indexer reads, and as what: the one file-selection policy that a full
//! index, a push and a blast all follow, so an incremental update always equals a full
//! index of the same files.

use super::language::Language;
use super::skip::{SkipReason, SkipRules};

/// The policy of which files are read, numbered: bumped when a change to it makes a
/// graph built before lack files (or hold files) a full index would not. A stored graph
/// built under an older one is indexed again in full rather than updated by diffs.
/// 1: vendored code is read.
/// 2: component files (`.vue`, `.svelte`, `.astro`) are read.
/// 3: files holding code the graph cannot read (MDX, Marko, HTML scripts) are counted.
/// 4: Angular templates (`.html` files holding Angular's binding syntax) are read.
pub const SELECTION_VERSION: i32 = 4;

/// Directories that hold installed packages or build output: never the repository's
/// own code, and never read.
pub const SKIPPED_DIRS: &[&str] = &[
    "node_modules",
    "bower_components",
    "jspm_packages",
    "dist",
    "build",
    ".git",
    ".next",
    ".nuxt",
    ".svelte-kit",
    "coverage",
    ".cache",
    ".turbo",
];

/// Directories that by convention hold code copied in from elsewhere. Such code is
/// read like any other (it is often imported by relative paths and called all over a
/// package), but only evidence links it to the repository's own code: an import or a
/// declaration leads to it, a name-only match never does (see [`vendored_dir`]).
pub const VENDORED_DIRS: &[&str] = &["vendor", "vendors", "third_party"];

/// What a path is, before its bytes are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathKind {
    Code(Language),
    /// tsconfig/jsconfig/package.json: decides how imports resolve.
    Config,
    /// A kind of file that may hold JavaScript the graph cannot read (`.mdx`, `.marko`,
    /// `.html`): skipped as `unreadable` when its bytes show it does, read when they
    /// show an Angular template (see [`language_of`]), else ignored.
    Unreadable,
    /// Not something the indexer reads (another kind of file, or in a skipped directory).
    Ignored,
}

/// What a file is, given its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selected<'a> {
    Code(Language, &'a str),
    Config(&'a str),
    /// Code or config the indexer could read but does not, and why (counted, reported).
    Skipped(SkipReason),
    Ignored,
}

/// [`select`], unless the reader already decided to skip the file (from its size before
/// fetching it, or while streaming it, so its bytes were never kept): then a file the
/// indexer would read is skipped for that reason.
pub fn select_decided<'a>(
    path: &str,
    bytes: &'a [u8],
    decided: Option<SkipReason>,
    rules: &SkipRules,
) -> Selected<'a> {
    match decided {
        // A file of an unreadable kind counts only when its bytes show code.
        Some(reason) if matches!(classify(path), PathKind::Code(_) | PathKind::Config) => {
            Selected::Skipped(reason)
        }
        Some(_) => Selected::Ignored,
        None => select(path, bytes, rules),
    }
}

/// Whether a repository-relative path lies in a skipped directory.
pub fn in_skipped_dir(path: &str) -> bool {
    skipped_dir(path).is_some()
}

/// The skipped directory a repository-relative path lies in (the innermost), if any.
pub fn skipped_dir(path: &str) -> Option<&'static str> {
    innermost_dir(path, SKIPPED_DIRS)
}

/// The vendored directory a repository-relative path lies in (the innermost), if any:
/// the file is read, and name-only matches never cross between it and the
/// repository's own code.
pub fn vendored_dir(path: &str) -> Option<&'static str> {
    innermost_dir(path, VENDORED_DIRS)
}

/// The innermost directory of `path` (its file name left out) named in `dirs`.
fn innermost_dir(path: &str, dirs: &'static [&'static str]) -> Option<&'static str> {
    clean(path)
        .split('/')
        .rev()
        .skip(1)
        .find_map(|part| dirs.iter().find(|d| **d == part).copied())
}

/// Why the indexer does not read `path` as code when it does not: the directory that
/// skips it, or what the file is not. `None` for a path it reads.
pub fn why_not_code(path: &str) -> Option<String> {
    if let Some(dir) = skipped_dir(path) {
        return Some(format!(
            "it lies under a `{dir}/` directory, which the indexer leaves out as other \
             people's code or build output"
        ));
    }
    match classify(path) {
        PathKind::Code(_) => None,
        PathKind::Unreadable => Some(
            "it may hold JavaScript the graph cannot read yet (MDX, Marko, HTML); such a file \
             is counted as skipped (`unreadable`) when it does, and an HTML file is read when \
             it is an Angular template (it holds bindings such as `(click)=`, `[prop]=`, \
             `*ngIf=` or `@if (`)"
                .to_string(),
        ),
        PathKind::Config => Some(
            "it is a configuration file: it decides how imports resolve, and holds no code"
                .to_string(),
        ),
        PathKind::Ignored => Some(
            "it is not a JavaScript, TypeScript or component (.vue, .svelte, .astro) file"
                .to_string(),
        ),
    }
}

/// Config files that decide how imports resolve. Anything under `node_modules` is
/// rejected: installed packages are externals.
pub fn is_config_file(path: &str) -> bool {
    let path = clean(path);
    if path.split('/').any(|segment| segment == "node_modules") {
        return false;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(name, "package.json" | "tsconfig.json" | "jsconfig.json")
        || (name.starts_with("tsconfig.") && name.ends_with(".json"))
}

/// What `path` is, from the path alone.
pub fn classify(path: &str) -> PathKind {
    if in_skipped_dir(path) {
        return PathKind::Ignored;
    }
    if is_config_file(path) {
        return PathKind::Config;
    }
    match Language::from_path(path) {
        Some(language) => PathKind::Code(language),
        None if unreadable_kind(path) => PathKind::Unreadable,
        None => PathKind::Ignored,
    }
}

fn unreadable_kind(path: &str) -> bool {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(ext, "mdx" | "marko" | "html" | "htm")
}

/// Whether a file of an [`PathKind::Unreadable`] kind holds code: an MDX document's
/// `import`/`export` lines, any Marko template, an HTML page's inline scripts.
fn holds_code(path: &str, text: &str) -> bool {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "marko" => true,
        "mdx" => text
            .lines()
            .any(|l| l.starts_with("import ") || l.starts_with("export ")),
        _ => super::component::script_blocks(super::language::ComponentKind::Svelte, text)
            .iter()
            .any(|b| !text[b.start..b.end].trim().is_empty()),
    }
}

/// The language the indexer reads the file at `path` holding `text` in, if it reads it
/// as code: by its path, or, for an HTML file without scripts, by its text (an Angular
/// template). What [`select`] decides for code, the skip rules aside.
pub fn language_of(path: &str, text: &str) -> Option<Language> {
    match Language::from_path(path) {
        Some(language) => Some(language),
        None if unreadable_kind(path) && !holds_code(path, text) => {
            super::angular::is_template(path, text).then_some(Language::Angular)
        }
        None => None,
    }
}

/// Whether the indexer reads `path` at all (code or config, outside skipped directories).
pub fn wanted(path: &str) -> bool {
    classify(path) != PathKind::Ignored
}

/// What the file at `path` with these bytes is to the indexer.
pub fn select<'a>(path: &str, bytes: &'a [u8], rules: &SkipRules) -> Selected<'a> {
    match classify(path) {
        PathKind::Ignored => Selected::Ignored,
        PathKind::Config => match std::str::from_utf8(bytes) {
            Ok(text) => Selected::Config(text),
            Err(_) => Selected::Skipped(SkipReason::NotUtf8),
        },
        PathKind::Code(language) => match rules.check(path, bytes) {
            Ok(text) => Selected::Code(language, text),
            Err(reason) => Selected::Skipped(reason),
        },
        PathKind::Unreadable => match std::str::from_utf8(bytes) {
            Ok(text) if holds_code(path, text) => Selected::Skipped(SkipReason::Unreadable),
            Ok(text) if super::angular::is_template(path, text) => match rules.check(path, bytes) {
                Ok(text) => Selected::Code(Language::Angular, text),
                Err(reason) => Selected::Skipped(reason),
            },
            _ => Selected::Ignored,
        },
    }
}

fn clean(path: &str) -> &str {
    path.strip_prefix("./").unwrap_or(path)
}

/// Which reading of a blob a file at `path` gets (its language, a declaration file, a
/// component's name): part of the key of facts cached by blob.
pub fn variant_of_path(path: &str) -> Option<String> {
    // As `rows::variant` makes them. An HTML file is code only as an Angular template
    // (the selection decided so before the cache is asked).
    let language = Language::from_path(path).or_else(|| {
        (path.ends_with(".html") || path.ends_with(".htm")).then_some(Language::Angular)
    })?;
    Some(if super::language::is_declaration_file(path) {
        format!("{}.d", language.name())
    } else if language.component().is_some() {
        format!(
            "{}:{}",
            language.name(),
            super::component::component_name(path)
        )
    } else {
        language.name().to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_holding_code_the_graph_cannot_read_are_counted_as_unreadable() {
        let rules = SkipRules::default();
        let unreadable = Selected::Skipped(SkipReason::Unreadable);
        let cases: [(&str, &str, bool); 7] = [
            (
                "docs/intro.mdx",
                "import { Chart } from '../src/chart'\n\n# Hi\n<Chart />\n",
                true,
            ),
            ("docs/plain.mdx", "# Just prose\n\nwith *emphasis*\n", false),
            ("src/card.marko", "<div>${input.name}</div>\n", true),
            (
                "public/index.html",
                "<html><script>\n  start(document.body);\n</script></html>\n",
                true,
            ),
            (
                "public/app.html",
                "<html><script src=\"/app.js\"></script></html>\n",
                false,
            ),
            (
                "public/data.htm",
                "<script type=\"application/json\">{\"a\": 1}</script>\n",
                false,
            ),
            (
                "node_modules/x/index.html",
                "<script>start()</script>",
                false,
            ),
        ];
        for (path, text, counted) in cases {
            let selected = select(path, text.as_bytes(), &rules);
            assert_eq!(selected == unreadable, counted, "{path}: {selected:?}");
            if !counted {
                assert_eq!(selected, Selected::Ignored, "{path}");
            }
        }
        // Too large to read: not counted, as its bytes cannot show code.
        assert_eq!(
            select_decided("docs/big.mdx", b"", Some(SkipReason::TooLarge), &rules),
            Selected::Ignored
        );
    }

    #[test]
    fn skipped_dirs_are_recognised_anywhere_but_the_file_name() {
        assert!(in_skipped_dir("node_modules/x/index.js"));
        assert!(in_skipped_dir("packages/a/dist/index.js"));
        assert!(!in_skipped_dir("src/dist.js"));
        assert!(!in_skipped_dir("src/builder/index.js"));
    }

    #[test]
    fn vendored_code_is_read_and_known_as_vendored() {
        for path in [
            "packages/server/src/vendor/lib/x.ts",
            "third_party/semver/index.js",
            "vendors/a.js",
        ] {
            assert!(vendored_dir(path).is_some(), "{path}");
            assert!(wanted(path), "{path}");
        }
        assert_eq!(vendored_dir("src/vendor.ts"), None);
        assert_eq!(vendored_dir("src/a.ts"), None);
        assert_eq!(vendored_dir("third_party/x/lib/a.js"), Some("third_party"));
        assert!(!wanted("vendor/pkg/node_modules/y/index.js"));
        assert!(!wanted("third_party/pkg/dist/index.js"));
    }

    #[test]
    fn a_file_not_read_as_code_says_why() {
        // Vendored code is read; installed packages and build output are not.
        assert_eq!(why_not_code("packages/server/src/vendor/lib/x.ts"), None);
        let nested = why_not_code("third_party/pkg/dist/index.js").unwrap();
        assert!(nested.contains("`dist/`"), "{nested}");
        let installed = why_not_code("app/node_modules/x/vendor/y.js").unwrap();
        assert!(installed.contains("`node_modules/`"), "{installed}");
        let config = why_not_code("tsconfig.json").unwrap();
        assert!(config.contains("configuration"), "{config}");
        let other = why_not_code("README.md").unwrap();
        assert!(
            other.contains("not a JavaScript, TypeScript or component"),
            "{other}"
        );
        assert_eq!(why_not_code("src/vendors.ts"), None);
    }

    #[test]
    fn config_file_names() {
        for path in [
            "package.json",
            "tsconfig.json",
            "jsconfig.json",
            "a/b/tsconfig.app.json",
            "./tsconfig.base.json",
        ] {
            assert!(is_config_file(path), "{path}");
            assert_eq!(classify(path), PathKind::Config, "{path}");
        }
        for path in [
            "node_modules/x/package.json",
            "a/node_modules/tsconfig.json",
            "tsconfig.ts",
            "src/config.json",
            "package-lock.json",
        ] {
            assert!(!is_config_file(path), "{path}");
        }
    }

    #[test]
    fn every_outcome() {
        let rules = SkipRules::default();
        assert_eq!(
            select("src/a.ts", b"f()", &rules),
            Selected::Code(Language::TypeScript, "f()")
        );
        assert_eq!(
            select("package.json", b"{}", &rules),
            Selected::Config("{}")
        );
        // A config that is not UTF-8 is skipped, as code would be: never decoded lossily.
        assert_eq!(
            select("package.json", b"{\"name\": \"\xff\"}", &rules),
            Selected::Skipped(SkipReason::NotUtf8)
        );
        assert_eq!(
            select("src/a.min.js", b"f()", &rules),
            Selected::Skipped(SkipReason::Minified)
        );
        assert_eq!(select("README.md", b"# hi", &rules), Selected::Ignored);
        // An Angular template is read; other HTML is not, and a page's scripts count.
        let template = "<button (click)=\"save()\">Save</button>\n";
        assert_eq!(
            select("src/app/x.component.html", template.as_bytes(), &rules),
            Selected::Code(Language::Angular, template)
        );
        assert_eq!(
            language_of("src/app/x.html", template),
            Some(Language::Angular)
        );
        assert_eq!(
            select("src/page.html", b"<p>{{ handlebars }}</p>", &rules),
            Selected::Ignored
        );
        assert_eq!(
            select(
                "node_modules/x/a.component.html",
                template.as_bytes(),
                &rules
            ),
            Selected::Ignored
        );
        assert_eq!(language_of("src/page.html", "<p>{{ x }}</p>"), None);
        assert_eq!(select("dist/index.js", b"f()", &rules), Selected::Ignored);
        assert_eq!(
            select("node_modules/x/package.json", b"{}", &rules),
            Selected::Ignored
        );
    }
}
