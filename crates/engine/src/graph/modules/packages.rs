//! package.json: a workspace package's entries, its `exports` and `imports` maps with
//! their conditions, and the source files its build output was probably compiled from.

use serde_json::{Map, Value};

/// package.json fields naming the main entry, after `exports`. `module` first: it usually
/// points at ES module output, the closest to the source.
pub(super) const ENTRY_FIELDS: [&str; 4] = ["module", "main", "types", "typings"];

/// `exports` conditions in order of preference. "source" is the convention monorepos use to
/// point at their TypeScript source; the rest are the usual runtime/bundler conditions.
pub(super) const EXPORT_CONDITIONS: [&str; 6] =
    ["source", "import", "module", "require", "default", "types"];

/// Directories that usually hold build output, which is rarely checked in.
pub(super) const BUILD_DIRS: [&str; 4] = ["dist", "lib", "build", "out"];

/// Per-format subdirectories of build output (`dist/esm/index.js` was built from `src/index.ts`).
pub(super) const FORMAT_DIRS: [&str; 9] = [
    "esm", "cjs", "es", "mjs", "umd", "types", "module", "commonjs", "browser",
];

/// What resolution needs from one package.json.
pub(super) struct Package {
    pub(super) root: String,
    pub(super) exports: Option<Value>,
    pub(super) imports: Option<Map<String, Value>>,
    /// Values of `ENTRY_FIELDS`, in that order.
    pub(super) entries: Vec<String>,
    /// `types` then `typings`: where the package's declarations start.
    pub(super) declared: Vec<String>,
    /// The packages it depends on, with the range it asks for: `dependencies`, then
    /// `peerDependencies`, `optionalDependencies`, `devDependencies` (the first that
    /// names a package wins).
    pub(super) dependencies: Vec<(String, String)>,
    /// Its `version`, as written.
    pub(super) version: Option<String>,
}

/// package.json fields listing dependencies, in the order their ranges are taken.
const DEPENDENCY_FIELDS: [&str; 4] = [
    "dependencies",
    "peerDependencies",
    "optionalDependencies",
    "devDependencies",
];

impl Package {
    pub(super) fn from_json(root: String, json: &Map<String, Value>) -> Self {
        let mut entries: Vec<String> = Vec::new();
        for field in ENTRY_FIELDS {
            if let Some(entry) = json.get(field).and_then(Value::as_str) {
                if !entry.is_empty() && !entries.iter().any(|e| e == entry) {
                    entries.push(entry.to_string());
                }
            }
        }
        let declared = ["types", "typings"]
            .iter()
            .filter_map(|field| json.get(*field).and_then(Value::as_str))
            .filter(|entry| !entry.is_empty())
            .map(str::to_string)
            .collect();
        let mut dependencies: Vec<(String, String)> = Vec::new();
        for field in DEPENDENCY_FIELDS {
            for (name, range) in json
                .get(field)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if let Some(range) = range.as_str() {
                    if !dependencies.iter().any(|(n, _)| n == name) {
                        dependencies.push((name.clone(), range.to_string()));
                    }
                }
            }
        }
        Package {
            root,
            exports: json.get("exports").filter(|e| !e.is_null()).cloned(),
            imports: json.get("imports").and_then(Value::as_object).cloned(),
            entries,
            declared,
            dependencies,
            version: json
                .get("version")
                .and_then(Value::as_str)
                .map(str::to_string),
        }
    }
}

/// Targets `exports` gives for `subpath` ("" for the package itself), best first.
pub(super) fn export_targets(exports: &Value, subpath: &str, out: &mut Vec<String>) {
    match exports.as_object() {
        Some(map) if map.keys().any(|key| key.starts_with('.')) => {
            let key = if subpath.is_empty() {
                ".".to_string()
            } else {
                format!("./{subpath}")
            };
            if let Some((value, captured)) = match_subpath_map(map, &key) {
                condition_targets(value, captured, out);
            }
        }
        // A string, an array or a conditions object: all describe the package itself only.
        _ if subpath.is_empty() => condition_targets(exports, None, out),
        _ => {}
    }
}

/// The value for `key` in an `exports`/`imports` map: the exact key, else the `*` pattern with
/// the longest prefix (then the longest pattern), as Node picks. Also returns what `*` matched.
pub(super) fn match_subpath_map<'a, 'k>(
    map: &'a Map<String, Value>,
    key: &'k str,
) -> Option<(&'a Value, Option<&'k str>)> {
    if let Some(value) = map.get(key) {
        return Some((value, None));
    }
    // (prefix length, pattern length) of the best match so far, its value and capture.
    let mut best: Option<((usize, usize), &Value, &str)> = None;
    for (pattern, value) in map {
        let Some((prefix, suffix)) = pattern.split_once('*') else {
            continue;
        };
        let captured = key
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(suffix));
        let rank = (prefix.len(), pattern.len());
        if let Some(captured) = captured {
            if best.is_none_or(|(best_rank, ..)| rank > best_rank) {
                best = Some((rank, value, captured));
            }
        }
    }
    best.map(|(_, value, captured)| (value, Some(captured)))
}

/// Flattens an exports/imports target (string, fallback array or conditions object) into paths,
/// preferred conditions first, then any others; `*` is replaced by `captured`.
pub(super) fn condition_targets(value: &Value, captured: Option<&str>, out: &mut Vec<String>) {
    match value {
        Value::String(target) => {
            let target = match captured {
                Some(captured) => target.replace('*', captured),
                None => target.clone(),
            };
            if !out.contains(&target) {
                out.push(target);
            }
        }
        Value::Array(items) => {
            for item in items {
                condition_targets(item, captured, out);
            }
        }
        Value::Object(conditions) => {
            for condition in EXPORT_CONDITIONS {
                if let Some(inner) = conditions.get(condition) {
                    condition_targets(inner, captured, out);
                }
            }
            for (condition, inner) in conditions {
                if !EXPORT_CONDITIONS.contains(&condition.as_str()) {
                    condition_targets(inner, captured, out);
                }
            }
        }
        _ => {}
    }
}

/// The `types` conditions of an exports target, however deeply nested
/// (`{ "import": { "types": "./index.d.mts" } }`), in the order written.
pub(super) fn types_conditions(value: &Value, out: &mut Vec<String>) {
    if let Value::Object(conditions) = value {
        for (condition, inner) in conditions {
            match (condition.as_str(), inner) {
                ("types", Value::String(target)) => {
                    if !out.contains(target) {
                        out.push(target.clone());
                    }
                }
                _ => types_conditions(inner, out),
            }
        }
    }
}

/// Whether a path names a declaration file (`x.d.ts`, `x.d.mts`, `x.d.cts`).
pub(super) fn is_declaration_path(path: &str) -> bool {
    [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|ext| path.ends_with(ext))
}

/// Source paths a build-output target was probably compiled from: `dist/x.js` -> `src/x.js`,
/// and `dist/esm/x.js` -> `src/esm/x.js`, `src/x.js` (extension swapping then finds `.ts`).
pub(super) fn source_guesses(target: &str) -> Vec<String> {
    let segments: Vec<&str> = target.split('/').filter(|s| *s != ".").collect();
    let Some(build) = segments.iter().position(|s| BUILD_DIRS.contains(s)) else {
        return Vec::new();
    };
    let with_src = |rest: &[&str]| {
        let mut parts = segments[..build].to_vec();
        parts.push("src");
        parts.extend_from_slice(rest);
        parts.join("/")
    };
    let mut guesses = vec![with_src(&segments[build + 1..])];
    if segments.len() > build + 2 && FORMAT_DIRS.contains(&segments[build + 1]) {
        guesses.push(with_src(&segments[build + 2..]));
    }
    guesses
}
