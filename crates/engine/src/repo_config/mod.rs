//! A repository's own configuration, `.github/blast-radius.yml`: which paths count, the
//! least sure callers to show, how deep to follow callers, which outputs to post, whether
//! a removed function still called fails the check, and how many callers to list.
//!
//! Pure: [`parse`] takes the file's text (the app reads it at the pull request's base, so
//! a pull request cannot change how it is judged) and never fails. Every unknown key,
//! value of the wrong type or out of range, bad glob, or YAML syntax error becomes one
//! [`ConfigProblem`] in plain words, and that key keeps its default: a broken config
//! never silences the app, and the problems are shown where the results are.

use std::fmt;
use std::ops::RangeInclusive;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use yaml_serde::Value;

use crate::graph::Confidence;

mod bounded;

/// Where the file lives in a repository.
pub const REPO_CONFIG_PATH: &str = ".github/blast-radius.yml";

/// Levels of callers followed: 1 = direct callers only.
pub const DEPTH_RANGE: RangeInclusive<u32> = 1..=5;
/// What the app followed before the file existed.
pub const DEFAULT_DEPTH: u32 = 2;
/// The values `max_callers` takes.
pub const MAX_CALLERS_RANGE: RangeInclusive<usize> = 1..=1000;

/// The top-level keys, and the keys of the two sections (docs/configuration.md lists
/// each: a test holds the two together).
pub const TOP_KEYS: &[&str] = &[
    "paths",
    "min_confidence",
    "depth",
    "outputs",
    "fail_on_removed_called",
    "fail_on_breaking",
    "max_callers",
    "commands_from",
];

/// GitHub's `author_association` values: how a commenter relates to the repository.
pub const ASSOCIATIONS: &[&str] = &[
    "OWNER",
    "MEMBER",
    "COLLABORATOR",
    "CONTRIBUTOR",
    "FIRST_TIME_CONTRIBUTOR",
    "FIRST_TIMER",
    "MANNEQUIN",
    "NONE",
];
/// Whose PR thread commands are answered without the file saying otherwise: people with
/// a say in the repository, never anyone who can merely comment on a public one.
pub const DEFAULT_COMMANDS_FROM: &[&str] = &["OWNER", "MEMBER", "COLLABORATOR"];
pub const PATHS_KEYS: &[&str] = &["include", "exclude"];
pub const OUTPUTS_KEYS: &[&str] = &["summary", "inline", "check"];

/// A repository's configuration; [`Default`] is what the app does without the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoConfig {
    pub paths: PathFilter,
    /// Callers less sure than this are left out (default: none is).
    pub min_confidence: Confidence,
    /// Levels of transitive callers, within [`DEPTH_RANGE`].
    pub depth: u32,
    pub outputs: Outputs,
    /// A removed or renamed function that untouched code still calls fails the check
    /// (true) or makes it neutral (false).
    pub fail_on_removed_called: bool,
    /// An untouched call that the new contract of its callee breaks (too few arguments
    /// for new required parameters, arguments shifted by a removed one) fails the check
    /// (true) or makes it neutral (false).
    pub fail_on_breaking: bool,
    /// Callers listed per changed function in the comment; None: every one that fits
    /// (20 per function when the whole list does not fit in one comment).
    pub max_callers: Option<usize>,
    /// The `author_association`s whose commands are answered (upper case).
    pub commands_from: Vec<String>,
}

impl RepoConfig {
    /// Whether a commenter with `association` (GitHub's word for it) is answered.
    pub fn answers_commands_from(&self, association: &str) -> bool {
        self.commands_from
            .iter()
            .any(|a| a.eq_ignore_ascii_case(association))
    }
}

impl Default for RepoConfig {
    fn default() -> RepoConfig {
        RepoConfig {
            paths: PathFilter::default(),
            min_confidence: Confidence::Possible,
            depth: DEFAULT_DEPTH,
            outputs: Outputs::default(),
            fail_on_removed_called: true,
            fail_on_breaking: true,
            max_callers: None,
            commands_from: DEFAULT_COMMANDS_FROM
                .iter()
                .map(|a| a.to_string())
                .collect(),
        }
    }
}

/// Which of the app's outputs a pull request gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outputs {
    /// The summary comment.
    pub summary: bool,
    /// The inline review on changed functions.
    pub inline: bool,
    /// The "Blast radius" check run.
    pub check: bool,
}

impl Default for Outputs {
    fn default() -> Outputs {
        Outputs {
            summary: true,
            inline: true,
            check: true,
        }
    }
}

/// The paths whose functions count, as changed functions and as callers: those matching
/// an `include` glob (every path when there is none) and no `exclude` glob.
#[derive(Clone, Debug, Default)]
pub struct PathFilter {
    include: Vec<String>,
    exclude: Vec<String>,
    include_set: Option<GlobSet>,
    exclude_set: Option<GlobSet>,
}

impl PartialEq for PathFilter {
    fn eq(&self, other: &PathFilter) -> bool {
        (&self.include, &self.exclude) == (&other.include, &other.exclude)
    }
}

impl Eq for PathFilter {}

impl PathFilter {
    /// Whether `path` (from the repository's root, `/`-separated) counts.
    pub fn allows(&self, path: &str) -> bool {
        self.include_set.as_ref().is_none_or(|s| s.is_match(path))
            && !self.exclude_set.as_ref().is_some_and(|s| s.is_match(path))
    }

    /// Every path counts.
    pub fn allows_all(&self) -> bool {
        self.include.is_empty() && self.exclude.is_empty()
    }

    pub fn include(&self) -> &[String] {
        &self.include
    }

    pub fn exclude(&self) -> &[String] {
        &self.exclude
    }
}

/// One thing wrong with the file. `key` is where (`outputs.inline`, `paths.exclude[2]`;
/// empty for the whole file), `message` says what and what was done, in our words;
/// `found` is the offending text from the file, when there is one to quote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigProblem {
    pub key: String,
    pub message: String,
    pub found: Option<String>,
}

impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.key.is_empty() {
            write!(f, "{}: ", self.key)?;
        }
        f.write_str(&self.message)?;
        if let Some(found) = &self.found {
            write!(f, " (found {found:?})")?;
        }
        Ok(())
    }
}

/// The configuration `bytes` (the file as read) describe; see [`parse`].
pub fn parse_bytes(bytes: &[u8]) -> (RepoConfig, Vec<ConfigProblem>) {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(_) => (
            RepoConfig::default(),
            vec![problem(
                "",
                "the file is not UTF-8 text; every default was used",
                None,
            )],
        ),
    }
}

/// The configuration `text` describes, and what is wrong in it. An empty file is the
/// defaults with no problem; a key with a problem keeps its default, the others apply.
pub fn parse(text: &str) -> (RepoConfig, Vec<ConfigProblem>) {
    let mut config = RepoConfig::default();
    let mut problems = Vec::new();
    // Counted before a value is built: what aliases expand to is not bounded by the
    // file's size.
    if bounded::expands_past(text, bounded::MAX_VALUES) {
        problems.push(problem(
            "",
            &format!(
                "the file expands to more than {} values (aliases repeat what an anchor holds); every default was used",
                bounded::MAX_VALUES
            ),
            None,
        ));
        return (config, problems);
    }
    let value: Value = match yaml_serde::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            let at = e
                .location()
                .map(|l| format!(" at line {}, column {}", l.line(), l.column()))
                .unwrap_or_default();
            problems.push(problem(
                "",
                &format!("the file is not valid YAML{at}; every default was used"),
                Some(e.to_string()),
            ));
            return (config, problems);
        }
    };
    let top = match untagged(&value) {
        Value::Null => return (config, problems),
        Value::Mapping(m) => m,
        other => {
            problems.push(problem(
                "",
                &format!(
                    "the file must hold keys and values (like `depth: 2`), not {}; every default was used",
                    kind(other)
                ),
                None,
            ));
            return (config, problems);
        }
    };
    for (key, value) in top {
        let Some(key) = key_name(key, "", &mut problems) else {
            continue;
        };
        let value = untagged(value);
        if value.is_null() {
            continue; // `depth:` with nothing after it: not set.
        }
        match key {
            "paths" => paths(value, &mut config.paths, &mut problems),
            "min_confidence" => {
                if let Some(c) = confidence(value, &mut problems) {
                    config.min_confidence = c;
                }
            }
            "depth" => {
                let range = (*DEPTH_RANGE.start() as u64)..=(*DEPTH_RANGE.end() as u64);
                if let Some(n) = whole_number(key, value, range, DEFAULT_DEPTH, &mut problems) {
                    config.depth = n as u32;
                }
            }
            "outputs" => outputs(value, &mut config.outputs, &mut problems),
            "fail_on_removed_called" => {
                if let Some(b) = boolean(key, value, true, &mut problems) {
                    config.fail_on_removed_called = b;
                }
            }
            "fail_on_breaking" => {
                if let Some(b) = boolean(key, value, true, &mut problems) {
                    config.fail_on_breaking = b;
                }
            }
            "max_callers" => {
                let range = (*MAX_CALLERS_RANGE.start() as u64)..=(*MAX_CALLERS_RANGE.end() as u64);
                if let Some(n) = whole_number(key, value, range, "every caller", &mut problems) {
                    config.max_callers = Some(n as usize);
                }
            }
            "commands_from" => commands_from(value, &mut config.commands_from, &mut problems),
            other => problems.push(unknown("", other, TOP_KEYS)),
        }
    }
    (config, problems)
}

/// `commands_from: [owner, member, collaborator, contributor]`: GitHub's associations,
/// in any case. An unknown one is a problem and left out; a value that is not a list
/// keeps the default.
fn commands_from(value: &Value, into: &mut Vec<String>, problems: &mut Vec<ConfigProblem>) {
    let Value::Sequence(items) = value else {
        let message = format!(
            "expected a list of GitHub's author associations ({}), found {}; commands are answered from {}",
            ASSOCIATIONS.join(", "),
            kind(value),
            DEFAULT_COMMANDS_FROM.join(", ")
        );
        problems.push(problem("commands_from", &message, scalar(value)));
        return;
    };
    let mut chosen = Vec::new();
    for item in items.iter().map(untagged) {
        let name = match item {
            Value::String(s) => s.trim().to_ascii_uppercase().replace('-', "_"),
            other => {
                let message = format!("{} is not an author association; left out", kind(other));
                problems.push(problem("commands_from", &message, scalar(other)));
                continue;
            }
        };
        if ASSOCIATIONS.contains(&name.as_str()) {
            if !chosen.contains(&name) {
                chosen.push(name);
            }
        } else {
            let message = format!(
                "unknown author association, left out; GitHub's are {}",
                ASSOCIATIONS.join(", ")
            );
            problems.push(problem("commands_from", &message, Some(name)));
        }
    }
    *into = chosen;
}

fn problem(key: &str, message: &str, found: Option<String>) -> ConfigProblem {
    ConfigProblem {
        key: key.to_string(),
        message: message.to_string(),
        found,
    }
}

/// `!tag value` is read as `value`.
fn untagged(value: &Value) -> &Value {
    match value {
        Value::Tagged(t) => untagged(&t.value),
        v => v,
    }
}

/// A mapping key as text; a key that is not a string is a problem.
fn key_name<'a>(
    key: &'a Value,
    section: &str,
    problems: &mut Vec<ConfigProblem>,
) -> Option<&'a str> {
    match untagged(key) {
        Value::String(s) => Some(s),
        other => {
            let message = format!(
                "{} is not a key name: keys are words like `depth`; it was ignored",
                kind(other)
            );
            problems.push(problem(section, &message, scalar(other)));
            None
        }
    }
}

/// The problem of an unknown key, with the known key it most likely meant.
fn unknown(section: &str, key: &str, known: &[&str]) -> ConfigProblem {
    let place = dotted(section, key);
    let mut message = "unknown key, ignored".to_string();
    if let Some(meant) = did_you_mean(section, key, known) {
        message = format!("unknown key, ignored; did you mean `{meant}`?");
    }
    ConfigProblem {
        key: place,
        message,
        found: None,
    }
}

/// The known key closest to `key`: in its own section by spelling, or a key of another
/// section written at the top (`inline:` for `outputs.inline`).
fn did_you_mean(section: &str, key: &str, known: &[&str]) -> Option<String> {
    let wanted = key.trim().to_ascii_lowercase().replace('-', "_");
    let close = |k: &&str| {
        let distance = strsim::damerau_levenshtein(&wanted, k);
        (distance <= 2_usize.max(k.len() / 4)).then_some(distance)
    };
    if let Some(best) = known
        .iter()
        .filter_map(|k| close(k).map(|d| (d, *k)))
        .min()
        .map(|(_, k)| k)
    {
        return Some(dotted(section, best));
    }
    if section.is_empty() {
        for (nested, keys) in [("paths", PATHS_KEYS), ("outputs", OUTPUTS_KEYS)] {
            if let Some(k) = keys.iter().find(|k| close(k).is_some()) {
                return Some(format!("{nested}.{k}"));
            }
        }
    }
    None
}

fn dotted(section: &str, key: &str) -> String {
    if section.is_empty() {
        key.to_string()
    } else {
        format!("{section}.{key}")
    }
}

/// What a value is, in words.
fn kind(value: &Value) -> &'static str {
    match untagged(value) {
        Value::Null => "nothing",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping of keys",
        Value::Tagged(_) => "a tagged value",
    }
}

/// A scalar value as written, to quote in a problem (at most 80 characters).
fn scalar(value: &Value) -> Option<String> {
    let text = match untagged(value) {
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        _ => return None,
    };
    let mut cut: String = text.chars().take(80).collect();
    if text.chars().nth(80).is_some() {
        cut.push('…');
    }
    Some(cut)
}

fn wrong_type(
    key: &str,
    expected: &str,
    value: &Value,
    default: impl fmt::Display,
) -> ConfigProblem {
    problem(
        key,
        &format!(
            "expected {expected}, found {}; the default ({default}) was used",
            kind(value)
        ),
        scalar(value),
    )
}

fn boolean(
    key: &str,
    value: &Value,
    default: bool,
    problems: &mut Vec<ConfigProblem>,
) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        other => {
            problems.push(wrong_type(key, "true or false", other, default));
            None
        }
    }
}

fn whole_number(
    key: &str,
    value: &Value,
    range: RangeInclusive<u64>,
    default: impl fmt::Display,
    problems: &mut Vec<ConfigProblem>,
) -> Option<u64> {
    let expected = format!("a whole number from {} to {}", range.start(), range.end());
    let number = match value {
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from)),
        _ => None,
    };
    let Some(n) = number else {
        problems.push(wrong_type(key, &expected, value, default));
        return None;
    };
    let wide = i128::from(*range.start())..=i128::from(*range.end());
    if !wide.contains(&n) {
        problems.push(problem(
            key,
            &format!("out of range: use {expected}; the default ({default}) was used"),
            scalar(value),
        ));
        return None;
    }
    u64::try_from(n).ok()
}

fn confidence(value: &Value, problems: &mut Vec<ConfigProblem>) -> Option<Confidence> {
    let key = "min_confidence";
    let names: Vec<String> = Confidence::ALL
        .iter()
        .map(|c| format!("`{}`", c.as_str()))
        .collect();
    let expected = format!("one of {}", names.join(", "));
    let default = Confidence::Possible.as_str();
    let Value::String(name) = value else {
        problems.push(wrong_type(key, &expected, value, default));
        return None;
    };
    if let Some(c) = Confidence::from_name(name) {
        return Some(c);
    }
    let lower = name.trim().to_ascii_lowercase();
    let meant = Confidence::ALL
        .iter()
        .map(|c| (strsim::damerau_levenshtein(&lower, c.as_str()), c.as_str()))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, c)| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default();
    problems.push(problem(
        key,
        &format!("not a confidence: use {expected}{meant}; the default ({default}) was used"),
        scalar(value),
    ));
    None
}

fn outputs(value: &Value, outputs: &mut Outputs, problems: &mut Vec<ConfigProblem>) {
    let Value::Mapping(map) = value else {
        let message = format!(
            "expected the keys {} under it, found {}; every output is posted",
            OUTPUTS_KEYS.join(", "),
            kind(value)
        );
        problems.push(problem("outputs", &message, scalar(value)));
        return;
    };
    for (key, v) in map {
        let Some(key) = key_name(key, "outputs", problems) else {
            continue;
        };
        let v = untagged(v);
        if v.is_null() {
            continue;
        }
        let slot = match key {
            "summary" => &mut outputs.summary,
            "inline" => &mut outputs.inline,
            "check" => &mut outputs.check,
            other => {
                problems.push(unknown("outputs", other, OUTPUTS_KEYS));
                continue;
            }
        };
        if let Some(b) = boolean(&dotted("outputs", key), v, true, problems) {
            *slot = b;
        }
    }
}

fn paths(value: &Value, filter: &mut PathFilter, problems: &mut Vec<ConfigProblem>) {
    let Value::Mapping(map) = value else {
        let message = format!(
            "expected the keys {} under it, found {}; every path is analysed",
            PATHS_KEYS.join(", "),
            kind(value)
        );
        problems.push(problem("paths", &message, scalar(value)));
        return;
    };
    for (key, v) in map {
        let Some(key) = key_name(key, "paths", problems) else {
            continue;
        };
        let v = untagged(v);
        if v.is_null() {
            continue;
        }
        match key {
            // A bad include glob drops the whole include (every path is analysed: more,
            // never less); a bad exclude glob drops only itself.
            "include" => {
                if let Some((globs, set)) = glob_list("paths.include", v, true, problems) {
                    filter.include_set = (!globs.is_empty()).then_some(set);
                    filter.include = globs;
                }
            }
            "exclude" => {
                if let Some((globs, set)) = glob_list("paths.exclude", v, false, problems) {
                    filter.exclude_set = (!globs.is_empty()).then_some(set);
                    filter.exclude = globs;
                }
            }
            other => problems.push(unknown("paths", other, PATHS_KEYS)),
        }
    }
}

/// A list of globs (a single string is a list of one) and their set; with `all_or_none`,
/// None when any of them is bad, else the good ones.
fn glob_list(
    key: &str,
    value: &Value,
    all_or_none: bool,
    problems: &mut Vec<ConfigProblem>,
) -> Option<(Vec<String>, GlobSet)> {
    let default = if key == "paths.include" {
        "every path is included"
    } else {
        "nothing is excluded"
    };
    let items: Vec<&Value> = match value {
        Value::Sequence(items) => items.iter().map(untagged).collect(),
        Value::String(_) => vec![value],
        other => {
            problems.push(wrong_type(key, "a list of globs", other, default));
            return None;
        }
    };
    let mut globs = Vec::new();
    let mut builder = GlobSetBuilder::new();
    let mut bad = false;
    for (i, item) in items.iter().enumerate() {
        let at = format!("{key}[{i}]");
        let Value::String(text) = item else {
            let message = format!(
                "expected a glob (a string like `src/**`), found {}; it was left out",
                kind(item)
            );
            problems.push(problem(&at, &message, scalar(item)));
            bad = true;
            continue;
        };
        let glob = normalize_glob(text);
        match GlobBuilder::new(&glob).literal_separator(true).build() {
            Ok(g) => {
                builder.add(g);
                globs.push(glob);
            }
            Err(e) => {
                let then = if all_or_none {
                    format!("so {key} was ignored: {default}")
                } else {
                    "it was left out".to_string()
                };
                problems.push(problem(
                    &at,
                    &format!("not a valid glob ({}); {then}", e.kind()),
                    Some(text.clone()),
                ));
                bad = true;
            }
        }
    }
    if bad && all_or_none {
        return None;
    }
    let set = match builder.build() {
        Ok(set) => set,
        Err(e) => {
            problems.push(problem(
                key,
                &format!("the globs could not be combined ({}); {default}", e.kind()),
                None,
            ));
            return None;
        }
    };
    Some((globs, set))
}

/// Paths are matched from the repository's root without a leading `/` or `./`, and a
/// directory written `vendor/` means everything under it.
fn normalize_glob(text: &str) -> String {
    let mut glob = text.trim();
    while let Some(rest) = glob.strip_prefix("./").or_else(|| glob.strip_prefix('/')) {
        glob = rest;
    }
    if glob.ends_with('/') {
        format!("{glob}**")
    } else {
        glob.to_string()
    }
}

#[cfg(test)]
mod tests;
