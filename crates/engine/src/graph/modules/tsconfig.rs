//! tsconfig.json and jsconfig.json: the alias scopes (`baseUrl`, `paths`) they define,
//! following `extends` and `references`, read from JSON with comments.

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use super::paths::{dir_of, is_relative, join, normalize, split_package};

/// Bound on `extends` chains, which also stops cycles.
pub(super) const MAX_EXTENDS_DEPTH: usize = 16;

/// The `baseUrl` and `paths` of one tsconfig after `extends` is applied, with every path already
/// made repo-relative.
pub(super) struct Scope {
    pub(super) base_url: Option<String>,
    pub(super) aliases: Vec<Alias>,
}

/// One `paths` entry.
pub(super) struct Alias {
    /// The pattern before its `*` (or the whole pattern when it has none).
    pub(super) prefix: String,
    /// The pattern after its `*`; `None` for an exact pattern.
    pub(super) suffix: Option<String>,
    /// Repo-relative targets in order; a `*` in them stands for what the pattern's `*` matched.
    pub(super) targets: Vec<String>,
    /// Whether a match means the specifier names a file of ours. False for the catch-all `*` and
    /// for aliases that only redirect into `node_modules`, so that those still yield externals.
    pub(super) local: bool,
}

impl Scope {
    fn is_empty(&self) -> bool {
        self.base_url.is_none() && self.aliases.is_empty()
    }

    /// TypeScript's choice: an exact pattern if one equals the specifier, else the wildcard
    /// pattern with the longest prefix (the first of equals). Returns the alias and what `*`
    /// matched.
    pub(super) fn match_alias<'a, 's>(&'a self, spec: &'s str) -> Option<(&'a Alias, &'s str)> {
        if let Some(alias) = self
            .aliases
            .iter()
            .find(|alias| alias.suffix.is_none() && alias.prefix == spec)
        {
            return Some((alias, ""));
        }
        let mut best: Option<(&Alias, &str)> = None;
        for alias in &self.aliases {
            let Some(suffix) = alias.suffix.as_deref() else {
                continue;
            };
            let captured = spec
                .strip_prefix(alias.prefix.as_str())
                .and_then(|rest| rest.strip_suffix(suffix));
            if let Some(captured) = captured {
                if best.is_none_or(|(b, _)| alias.prefix.len() > b.prefix.len()) {
                    best = Some((alias, captured));
                }
            }
        }
        best
    }
}

impl Alias {
    /// `base`: the repo-relative directory the targets are relative to.
    fn new(pattern: &str, targets: &Value, base: &str) -> Option<Alias> {
        let (prefix, suffix) = match pattern.split_once('*') {
            Some((prefix, suffix)) => (prefix, Some(suffix.to_string())),
            None => (pattern, None),
        };
        let targets: Vec<String> = match targets {
            Value::String(target) => vec![join(base, target)],
            Value::Array(items) => items
                .iter()
                .filter_map(Value::as_str)
                .filter(|target| !target.starts_with('/'))
                .map(|target| join(base, target))
                .collect(),
            _ => return None,
        };
        let catch_all = pattern == "*";
        let local = !catch_all
            && targets
                .iter()
                .any(|target| !target.split('/').any(|segment| segment == "node_modules"));
        Some(Alias {
            prefix: prefix.to_string(),
            suffix,
            targets,
            local,
        })
    }
}

/// `baseUrl` and `paths` gathered along an `extends` chain, before they become a [`Scope`].
#[derive(Default)]
pub(super) struct CompilerOptions {
    base_url: Option<String>,
    /// The `paths` object and the directory of the config defining it (the base for its targets
    /// when no `baseUrl` is in effect).
    paths: Option<(Map<String, Value>, String)>,
    /// `strict` and `strictNullChecks`, where a config of the chain sets them.
    strict: Option<bool>,
    strict_null_checks: Option<bool>,
}

impl CompilerOptions {
    /// Whether the checker's strict null checks are on: `strictNullChecks`, else
    /// `strict`; None where neither is set (off, unless a config out of reach, such as
    /// one installed from npm, sets them).
    fn strict_nulls(&self) -> Option<bool> {
        self.strict_null_checks.or(self.strict)
    }
}

/// Reads tsconfigs, following `extends` and `references` between them.
pub(super) struct ConfigLoader<'a> {
    pub(super) parsed: &'a FxHashMap<String, Map<String, Value>>,
    pub(super) package_dirs_by_name: &'a FxHashMap<String, String>,
}

impl ConfigLoader<'_> {
    pub(super) fn scopes(&self, path: &str) -> Vec<Scope> {
        let primary = Scope::from(self.options(path, 0));
        if !primary.is_empty() {
            return vec![primary];
        }
        // A "solution" tsconfig.json (Vite's templates) only lists `references`; its aliases
        // live in the referenced configs (tsconfig.app.json).
        self.references(path)
            .flatten()
            .map(|referenced| Scope::from(self.options(&referenced, 0)))
            .filter(|scope| !scope.is_empty())
            .collect()
    }

    /// The configs the one at `path` lists in `references`, each found or None.
    fn references<'p>(&'p self, path: &'p str) -> impl Iterator<Item = Option<String>> + 'p {
        let dir = dir_of(path);
        self.parsed
            .get(path)
            .and_then(|json| json.get("references"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|reference| reference.get("path")?.as_str())
            .map(move |reference| self.find_relative(dir, reference))
    }

    /// Whether the checker's strict null checks are on for the files the config at
    /// `path` governs; None where that is not known. A "solution" config that sets
    /// neither takes what all the configs it references agree on.
    pub(super) fn strict_nulls(&self, path: &str) -> Option<bool> {
        if let Some(own) = self.options(path, 0).strict_nulls() {
            return Some(own);
        }
        let mut agreed = None;
        for referenced in self.references(path) {
            let one = referenced.and_then(|r| self.options(&r, 0).strict_nulls());
            match (one, agreed) {
                (None, _) => return None,
                (Some(one), Some(before)) if one != before => return None,
                (Some(one), _) => agreed = Some(one),
            }
        }
        agreed
    }

    /// The options of the config at `path`: its `extends` (later ones win), overridden by its
    /// own `compilerOptions`, each path made repo-relative from the config that wrote it.
    fn options(&self, path: &str, depth: usize) -> CompilerOptions {
        let mut options = CompilerOptions::default();
        let Some(json) = self.parsed.get(path) else {
            return options;
        };
        if depth > MAX_EXTENDS_DEPTH {
            return options;
        }
        let dir = dir_of(path);
        let parents: Vec<&str> = match json.get("extends") {
            Some(Value::String(parent)) => vec![parent],
            Some(Value::Array(parents)) => parents.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        for parent in parents {
            if let Some(kit) = sveltekit_generated(dir, parent) {
                // Generated by SvelteKit at build time, never in a repository: its
                // documented default, `$lib` for `src/lib`.
                options.paths = Some(kit);
                continue;
            }
            if let Some(parent_path) = self.find_extended(dir, parent) {
                let inherited = self.options(&parent_path, depth + 1);
                if inherited.base_url.is_some() {
                    options.base_url = inherited.base_url;
                }
                if inherited.paths.is_some() {
                    options.paths = inherited.paths;
                }
                options.strict = inherited.strict.or(options.strict);
                options.strict_null_checks =
                    inherited.strict_null_checks.or(options.strict_null_checks);
            }
        }
        if let Some(compiler) = json.get("compilerOptions").and_then(Value::as_object) {
            if let Some(base_url) = compiler.get("baseUrl").and_then(Value::as_str) {
                options.base_url = normalize(&join(dir, base_url));
            }
            if let Some(paths) = compiler.get("paths").and_then(Value::as_object) {
                options.paths = Some((paths.clone(), dir.to_string()));
            }
            if let Some(strict) = compiler.get("strict").and_then(Value::as_bool) {
                options.strict = Some(strict);
            }
            if let Some(checks) = compiler.get("strictNullChecks").and_then(Value::as_bool) {
                options.strict_null_checks = Some(checks);
            }
        }
        options
    }

    /// The config an `extends` value names: a relative path, or a workspace package holding
    /// shared configs (`@repo/tsconfig`, `@repo/tsconfig/tsconfig.lib.json`; only files
    /// `is_config_file` accepts are known). Configs installed from npm are out of reach.
    fn find_extended(&self, dir: &str, reference: &str) -> Option<String> {
        if is_relative(reference) {
            return self.find_relative(dir, reference);
        }
        if reference.starts_with('/') {
            return None;
        }
        if let Some((name, subpath)) = split_package(reference) {
            if let Some(root) = self.package_dirs_by_name.get(name) {
                let subpath = if subpath.is_empty() {
                    "tsconfig.json"
                } else {
                    subpath
                };
                return self.find_relative(root, subpath);
            }
        }
        // `"extends": "tsconfig.base.json"` is a package lookup for TypeScript, but the author
        // clearly meant the sibling file.
        self.find_relative(dir, reference)
    }

    /// A config path relative to `dir`, which may omit `.json` or name a directory.
    fn find_relative(&self, dir: &str, reference: &str) -> Option<String> {
        let path = normalize(&join(dir, reference))?;
        [
            path.clone(),
            format!("{path}.json"),
            join(&path, "tsconfig.json"),
        ]
        .into_iter()
        .find(|candidate| self.parsed.contains_key(candidate))
    }
}

/// The `paths` of the tsconfig SvelteKit generates (`.svelte-kit/tsconfig.json`, which
/// a project's own tsconfig extends), with the directory they are relative to: `$lib`
/// is `src/lib` beside it. None for any other `extends`.
fn sveltekit_generated(dir: &str, parent: &str) -> Option<(Map<String, Value>, String)> {
    let parent = parent.strip_prefix("./").unwrap_or(parent);
    if parent != ".svelte-kit/tsconfig.json" && parent != ".svelte-kit/tsconfig" {
        return None;
    }
    let mut paths = Map::new();
    paths.insert("$lib".into(), Value::from(vec!["../src/lib"]));
    paths.insert("$lib/*".into(), Value::from(vec!["../src/lib/*"]));
    Some((paths, join(dir, ".svelte-kit")))
}

impl From<CompilerOptions> for Scope {
    fn from(options: CompilerOptions) -> Self {
        let aliases = match &options.paths {
            Some((paths, paths_dir)) => {
                // Targets are relative to baseUrl if one is in effect, else to the config
                // defining `paths`.
                let base = options.base_url.as_deref().unwrap_or(paths_dir);
                paths
                    .iter()
                    .filter_map(|(pattern, targets)| Alias::new(pattern, targets, base))
                    .collect()
            }
            None => Vec::new(),
        };
        Scope {
            base_url: options.base_url,
            aliases,
        }
    }
}

/// Parses JSON with comments and trailing commas (tsconfig's dialect); `None` unless it is an
/// object.
pub(super) fn parse_jsonc(text: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str(&strip_jsonc(text)) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// Removes `//` and `/* */` comments outside strings, a byte-order mark, and commas directly
/// before `}` or `]`. A NUL becomes U+FFFD, as the store keeps text: a config read from the
/// store then parses exactly as the one read from the file.
pub(super) fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text
        .trim_start_matches('\u{feff}')
        .chars()
        .map(|c| {
            if c == '\0' {
                char::REPLACEMENT_CHARACTER
            } else {
                c
            }
        })
        .peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(escaped) = chars.next() {
                    out.push(escaped);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '/' if chars.peek() == Some(&'/') => {
                while chars.next_if(|&next| next != '\n').is_some() {}
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut previous = '\0';
                for next in chars.by_ref() {
                    if previous == '*' && next == '/' {
                        break;
                    }
                    previous = next;
                }
                out.push(' ');
            }
            '}' | ']' => {
                // Only whitespace can follow the comma here: comments are already gone.
                let kept = out.trim_end().len();
                if out[..kept].ends_with(',') {
                    out.truncate(kept - 1);
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}
