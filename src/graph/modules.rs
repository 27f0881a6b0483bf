//! Import specifier resolution: which file of the repository (or which external package) an
//! `import`/`require` specifier leads to.
//!
//! The rules follow TypeScript's and Node's resolution as real repositories use it, with two
//! deliberate liberties: we never look into `node_modules` (an unknown bare name is simply an
//! external package), and when a workspace package's `main`/`exports` point at build output
//! that is not checked in, we guess the source file it was built from.
//!
//! Everything here is pure: configuration files are handed to [`ModuleResolver::new`] as text,
//! and file existence is asked through a callback, so the resolver works against any view of
//! the repository (the working tree, a commit, a test's in-memory set).

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

/// Where an import specifier leads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ModuleTarget {
    /// A file of the repository (repo-relative path, '/' separators, no leading "./").
    File(String),
    /// A package outside the repository, by package name (`react`, `@scope/pkg`, `node:fs` -> `fs`).
    External(String),
    /// Looks like ours (relative, or matched an alias) but no file exists.
    Unresolved,
}

/// Suffixes tried after an extensionless path, in order of preference. `.d.ts` comes last so an
/// implementation file always wins over a declaration file next to it.
const EXTENSIONS: [&str; 9] = [
    ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts",
];

/// Extensions of source files. A specifier already ending in one of these is not extended
/// further (`./a.js` never means `./a.js.ts`).
const CODE_EXTENSIONS: [&str; 8] = [".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"];

/// package.json fields naming the main entry, after `exports`. `module` first: it usually
/// points at ES module output, the closest to the source.
const ENTRY_FIELDS: [&str; 4] = ["module", "main", "types", "typings"];

/// `exports` conditions in order of preference. "source" is the convention monorepos use to
/// point at their TypeScript source; the rest are the usual runtime/bundler conditions.
const EXPORT_CONDITIONS: [&str; 6] = ["source", "import", "module", "require", "default", "types"];

/// Directories that usually hold build output, which is rarely checked in.
const BUILD_DIRS: [&str; 4] = ["dist", "lib", "build", "out"];

/// Per-format subdirectories of build output (`dist/esm/index.js` was built from `src/index.ts`).
const FORMAT_DIRS: [&str; 9] = [
    "esm", "cjs", "es", "mjs", "umd", "types", "module", "commonjs", "browser",
];

/// Bound on `extends` chains, which also stops cycles.
const MAX_EXTENDS_DEPTH: usize = 16;

/// Resolves import specifiers against the configuration of one repository.
pub struct ModuleResolver {
    /// Alias scopes of every directory holding a (valid) tsconfig.json or jsconfig.json, tried in
    /// order. An empty list still governs its subtree: TypeScript does not merge a config with
    /// the ones above it unless it `extends` them.
    scopes_by_dir: FxHashMap<String, Vec<Scope>>,
    /// Every valid package.json, by directory.
    packages_by_dir: FxHashMap<String, Package>,
    /// Workspace package name -> its directory (a key of `packages_by_dir`).
    package_dirs_by_name: FxHashMap<String, String>,
}

impl Default for ModuleResolver {
    /// A resolver for a repository without config files.
    fn default() -> Self {
        ModuleResolver::new(&[])
    }
}

/// The `baseUrl` and `paths` of one tsconfig after `extends` is applied, with every path already
/// made repo-relative.
struct Scope {
    base_url: Option<String>,
    aliases: Vec<Alias>,
}

/// One `paths` entry.
struct Alias {
    /// The pattern before its `*` (or the whole pattern when it has none).
    prefix: String,
    /// The pattern after its `*`; `None` for an exact pattern.
    suffix: Option<String>,
    /// Repo-relative targets in order; a `*` in them stands for what the pattern's `*` matched.
    targets: Vec<String>,
    /// Whether a match means the specifier names a file of ours. False for the catch-all `*` and
    /// for aliases that only redirect into `node_modules`, so that those still yield externals.
    local: bool,
}

/// What resolution needs from one package.json.
struct Package {
    root: String,
    exports: Option<Value>,
    imports: Option<Map<String, Value>>,
    /// Values of `ENTRY_FIELDS`, in that order.
    entries: Vec<String>,
}

impl ModuleResolver {
    /// `configs`: (repo-relative path, contents) of every tsconfig.json, tsconfig.*.json, jsconfig.json and package.json in the repository.
    ///
    /// Files that do not parse are ignored, as are paths [`Self::is_config_file`] rejects.
    pub fn new(configs: &[(String, String)]) -> Self {
        let mut parsed: FxHashMap<String, Map<String, Value>> = FxHashMap::default();
        for (path, text) in configs {
            let path = clean_path(path);
            if Self::is_config_file(path) {
                if let Some(json) = parse_jsonc(text) {
                    parsed.insert(path.to_string(), json);
                }
            }
        }

        // Shallowest first, so that when two package.json files share a name (a fixture copying
        // a real package, say) the one nearer the root owns it, independent of input order.
        let mut package_paths: Vec<&String> = parsed
            .keys()
            .filter(|path| file_name(path) == "package.json")
            .collect();
        package_paths.sort_by_key(|path| (path.matches('/').count(), path.as_str()));
        let mut packages_by_dir = FxHashMap::default();
        let mut package_dirs_by_name = FxHashMap::default();
        for path in package_paths {
            let json = &parsed[path];
            let root = dir_of(path).to_string();
            if let Some(name) = json.get("name").and_then(Value::as_str) {
                if split_package(name) == Some((name, "")) {
                    package_dirs_by_name
                        .entry(name.to_string())
                        .or_insert_with(|| root.clone());
                }
            }
            packages_by_dir.insert(root.clone(), Package::from_json(root, json));
        }

        let loader = ConfigLoader {
            parsed: &parsed,
            package_dirs_by_name: &package_dirs_by_name,
        };
        let mut scopes_by_dir = FxHashMap::default();
        for path in parsed.keys() {
            let name = file_name(path);
            let dir = dir_of(path);
            // TypeScript reads tsconfig.json in preference to a jsconfig.json beside it.
            let governs = name == "tsconfig.json"
                || (name == "jsconfig.json" && !parsed.contains_key(&join(dir, "tsconfig.json")));
            if governs {
                scopes_by_dir.insert(dir.to_string(), loader.scopes(path));
            }
        }

        ModuleResolver {
            scopes_by_dir,
            packages_by_dir,
            package_dirs_by_name,
        }
    }

    /// True for paths `new` wants to see (so the caller knows which files to collect, and that a change to one needs a rebuild).
    ///
    /// Anything under a `node_modules` directory is rejected: installed packages are externals.
    pub fn is_config_file(path: &str) -> bool {
        crate::indexer::select::is_config_file(path)
    }

    /// Resolve `specifier` as imported from the file `importer` (repo-relative path).
    ///
    /// `exists` is asked about repo-relative file paths ('/' separators, no leading "./").
    pub fn resolve(
        &self,
        importer: &str,
        specifier: &str,
        exists: &dyn Fn(&str) -> bool,
    ) -> ModuleTarget {
        // Bundler queries (`./icon.svg?react`, `./worker?worker`) do not change the file.
        let spec = specifier.split('?').next().unwrap_or_default();
        let importer_dir = dir_of(clean_path(importer));
        if spec.is_empty() || spec.starts_with('/') {
            return ModuleTarget::Unresolved;
        }
        if is_relative(spec) {
            return normalize(&join(importer_dir, spec))
                .and_then(|path| self.resolve_path(&path, exists, true))
                .map_or(ModuleTarget::Unresolved, ModuleTarget::File);
        }
        if spec.starts_with('#') {
            return self.resolve_subpath_import(importer_dir, spec, exists);
        }
        if let Some((scheme, rest)) = split_scheme(spec) {
            // `node:fs/promises` is the builtin `fs`; any other scheme is a URL or a
            // bundler-virtual module, neither of which is a file here.
            return match split_package(rest) {
                Some((name, _)) if scheme == "node" => ModuleTarget::External(name.to_string()),
                _ => ModuleTarget::Unresolved,
            };
        }
        self.resolve_bare(importer_dir, spec, exists)
    }

    /// tsconfig aliases and `baseUrl`, then workspace packages, then externals.
    fn resolve_bare(
        &self,
        importer_dir: &str,
        spec: &str,
        exists: &dyn Fn(&str) -> bool,
    ) -> ModuleTarget {
        let mut alias_matched = false;
        for scope in self.scopes_for(importer_dir) {
            if let Some((alias, captured)) = scope.match_alias(spec) {
                alias_matched |= alias.local;
                for target in &alias.targets {
                    let path = match alias.suffix {
                        Some(_) => target.replace('*', captured),
                        None => target.clone(),
                    };
                    if let Some(file) =
                        normalize(&path).and_then(|p| self.resolve_path(&p, exists, true))
                    {
                        return ModuleTarget::File(file);
                    }
                }
            }
            if let Some(base_url) = &scope.base_url {
                if let Some(file) = normalize(&join(base_url, spec))
                    .and_then(|path| self.resolve_path(&path, exists, true))
                {
                    return ModuleTarget::File(file);
                }
            }
        }
        let Some((name, subpath)) = split_package(spec) else {
            // `@/x`, `~/x`, `$lib/x`: alias syntax, not a package name.
            return ModuleTarget::Unresolved;
        };
        if let Some(package) = self
            .package_dirs_by_name
            .get(name)
            .and_then(|dir| self.packages_by_dir.get(dir))
        {
            return self
                .resolve_in_package(package, subpath, exists)
                .map_or(ModuleTarget::Unresolved, ModuleTarget::File);
        }
        if alias_matched {
            ModuleTarget::Unresolved
        } else {
            ModuleTarget::External(name.to_string())
        }
    }

    /// The scopes of the nearest tsconfig/jsconfig at or above `dir`.
    fn scopes_for(&self, mut dir: &str) -> &[Scope] {
        loop {
            if let Some(scopes) = self.scopes_by_dir.get(dir) {
                return scopes;
            }
            if dir.is_empty() {
                return &[];
            }
            dir = dir_of(dir);
        }
    }

    /// Node's subpath imports (`#internal/x`), declared in the `imports` of the nearest
    /// package.json that has them.
    fn resolve_subpath_import(
        &self,
        importer_dir: &str,
        spec: &str,
        exists: &dyn Fn(&str) -> bool,
    ) -> ModuleTarget {
        let mut dir = importer_dir;
        let (package, imports) = loop {
            if let Some(package) = self.packages_by_dir.get(dir) {
                if let Some(imports) = &package.imports {
                    break (package, imports);
                }
            }
            if dir.is_empty() {
                return ModuleTarget::Unresolved;
            }
            dir = dir_of(dir);
        };
        let Some((value, captured)) = match_subpath_map(imports, spec) else {
            return ModuleTarget::Unresolved;
        };
        let mut targets = Vec::new();
        condition_targets(value, captured, &mut targets);
        let (local, bare): (Vec<String>, Vec<String>) =
            targets.into_iter().partition(|target| is_relative(target));
        if let Some(file) = self.resolve_entries(&package.root, &local, exists) {
            return ModuleTarget::File(file);
        }
        // A subpath import may also map to a package (`"#dep": "some-package"`).
        match bare.iter().find(|target| !target.starts_with(['#', '/'])) {
            Some(target) => self.resolve_bare(importer_dir, target, exists),
            None => ModuleTarget::Unresolved,
        }
    }

    /// A workspace package's entry (`subpath` empty) or a file inside it.
    fn resolve_in_package(
        &self,
        package: &Package,
        subpath: &str,
        exists: &dyn Fn(&str) -> bool,
    ) -> Option<String> {
        let mut targets = Vec::new();
        if let Some(exports) = &package.exports {
            export_targets(exports, subpath, &mut targets);
        }
        if subpath.is_empty() {
            for entry in &package.entries {
                if !targets.contains(entry) {
                    targets.push(entry.clone());
                }
            }
        }
        if let Some(file) = self.resolve_entries(&package.root, &targets, exists) {
            return Some(file);
        }
        let source_root = join(&package.root, "src");
        if subpath.is_empty() {
            return resolve_index(&source_root, exists)
                .or_else(|| resolve_index(&package.root, exists));
        }
        // Without a usable `exports` a subpath is a path inside the package; packages without a
        // build step are often imported as `pkg/feature` meaning `pkg/src/feature`.
        [&package.root, &source_root].iter().find_map(|base| {
            normalize(&join(base, subpath)).and_then(|path| self.resolve_path(&path, exists, true))
        })
    }

    /// Entry targets of a package rooted at `root`: first as written, then (if none exists)
    /// guessing the source each was built from.
    fn resolve_entries(
        &self,
        root: &str,
        targets: &[String],
        exists: &dyn Fn(&str) -> bool,
    ) -> Option<String> {
        let attempt = |target: &str| {
            normalize(&join(root, target)).and_then(|path| self.resolve_path(&path, exists, false))
        };
        targets
            .iter()
            .find_map(|target| attempt(target))
            .or_else(|| {
                targets
                    .iter()
                    .flat_map(|target| source_guesses(target))
                    .find_map(|guess| attempt(&guess))
            })
    }

    /// A normalised repo-relative path as a file (with extension candidates), then as a
    /// directory: its package.json entry (unless we are already resolving one, which stops
    /// `"main": "."` from looping), then its index file.
    fn resolve_path(
        &self,
        path: &str,
        exists: &dyn Fn(&str) -> bool,
        consult_package_json: bool,
    ) -> Option<String> {
        if !path.is_empty() {
            if let Some(file) = resolve_file(path, exists) {
                return Some(file);
            }
        }
        if consult_package_json {
            if let Some(package) = self.packages_by_dir.get(path) {
                if let Some(file) = self.resolve_entries(&package.root, &package.entries, exists) {
                    return Some(file);
                }
            }
        }
        resolve_index(path, exists)
    }
}

impl Package {
    fn from_json(root: String, json: &Map<String, Value>) -> Self {
        let mut entries: Vec<String> = Vec::new();
        for field in ENTRY_FIELDS {
            if let Some(entry) = json.get(field).and_then(Value::as_str) {
                if !entry.is_empty() && !entries.iter().any(|e| e == entry) {
                    entries.push(entry.to_string());
                }
            }
        }
        Package {
            root,
            exports: json.get("exports").filter(|e| !e.is_null()).cloned(),
            imports: json.get("imports").and_then(Value::as_object).cloned(),
            entries,
        }
    }
}

impl Scope {
    fn is_empty(&self) -> bool {
        self.base_url.is_none() && self.aliases.is_empty()
    }

    /// TypeScript's choice: an exact pattern if one equals the specifier, else the wildcard
    /// pattern with the longest prefix (the first of equals). Returns the alias and what `*`
    /// matched.
    fn match_alias<'a, 's>(&'a self, spec: &'s str) -> Option<(&'a Alias, &'s str)> {
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
struct CompilerOptions {
    base_url: Option<String>,
    /// The `paths` object and the directory of the config defining it (the base for its targets
    /// when no `baseUrl` is in effect).
    paths: Option<(Map<String, Value>, String)>,
}

/// Reads tsconfigs, following `extends` and `references` between them.
struct ConfigLoader<'a> {
    parsed: &'a FxHashMap<String, Map<String, Value>>,
    package_dirs_by_name: &'a FxHashMap<String, String>,
}

impl ConfigLoader<'_> {
    fn scopes(&self, path: &str) -> Vec<Scope> {
        let primary = Scope::from(self.options(path, 0));
        if !primary.is_empty() {
            return vec![primary];
        }
        // A "solution" tsconfig.json (Vite's templates) only lists `references`; its aliases
        // live in the referenced configs (tsconfig.app.json).
        let dir = dir_of(path);
        self.parsed
            .get(path)
            .and_then(|json| json.get("references"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|reference| reference.get("path")?.as_str())
            .filter_map(|reference| self.find_relative(dir, reference))
            .map(|referenced| Scope::from(self.options(&referenced, 0)))
            .filter(|scope| !scope.is_empty())
            .collect()
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
            if let Some(parent_path) = self.find_extended(dir, parent) {
                let inherited = self.options(&parent_path, depth + 1);
                if inherited.base_url.is_some() {
                    options.base_url = inherited.base_url;
                }
                if inherited.paths.is_some() {
                    options.paths = inherited.paths;
                }
            }
        }
        if let Some(compiler) = json.get("compilerOptions").and_then(Value::as_object) {
            if let Some(base_url) = compiler.get("baseUrl").and_then(Value::as_str) {
                options.base_url = normalize(&join(dir, base_url));
            }
            if let Some(paths) = compiler.get("paths").and_then(Value::as_object) {
                options.paths = Some((paths.clone(), dir.to_string()));
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

/// Targets `exports` gives for `subpath` ("" for the package itself), best first.
fn export_targets(exports: &Value, subpath: &str, out: &mut Vec<String>) {
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
fn match_subpath_map<'a, 'k>(
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
fn condition_targets(value: &Value, captured: Option<&str>, out: &mut Vec<String>) {
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

/// Source paths a build-output target was probably compiled from: `dist/x.js` -> `src/x.js`,
/// and `dist/esm/x.js` -> `src/esm/x.js`, `src/x.js` (extension swapping then finds `.ts`).
fn source_guesses(target: &str) -> Vec<String> {
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

/// `path` as a file: exactly, with a TypeScript extension swap, or with an extension added.
fn resolve_file(path: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    if has_extension(path) && exists(path) {
        return Some(path.to_string());
    }
    if let Some((stem, replacements)) = extension_swaps(path) {
        for replacement in replacements {
            let candidate = format!("{stem}{replacement}");
            if exists(&candidate) {
                return Some(candidate);
            }
        }
    }
    if CODE_EXTENSIONS.iter().any(|ext| path.ends_with(ext)) {
        return None;
    }
    with_extensions(path, exists)
}

/// TypeScript lets `./x.js` name `./x.ts` (what it compiles to), and likewise for the other
/// output extensions; a declaration file may stand for its implementation.
fn extension_swaps(path: &str) -> Option<(&str, &'static [&'static str])> {
    const SWAPS: [(&str, &[&str]); 7] = [
        (".d.ts", &[".ts", ".tsx"]),
        (".d.mts", &[".mts"]),
        (".d.cts", &[".cts"]),
        (".js", &[".ts", ".tsx", ".d.ts"]),
        (".jsx", &[".tsx"]),
        (".mjs", &[".mts", ".d.mts"]),
        (".cjs", &[".cts", ".d.cts"]),
    ];
    SWAPS
        .iter()
        .find_map(|(from, to)| Some((path.strip_suffix(from)?, *to)))
}

fn resolve_index(dir: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    with_extensions(&join(dir, "index"), exists)
}

/// The first existing `base` + extension, in `EXTENSIONS` order.
fn with_extensions(base: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut candidate = String::with_capacity(base.len() + 6);
    for extension in EXTENSIONS {
        candidate.clear();
        candidate.push_str(base);
        candidate.push_str(extension);
        if exists(&candidate) {
            return Some(candidate);
        }
    }
    None
}

/// Splits a bare specifier into package name and subpath (`@a/b/c/d` -> `("@a/b", "c/d")`);
/// `None` if the name is not a valid package name.
fn split_package(spec: &str) -> Option<(&str, &str)> {
    let name_segments = if spec.starts_with('@') { 2 } else { 1 };
    let name_len = spec
        .match_indices('/')
        .nth(name_segments - 1)
        .map_or(spec.len(), |(i, _)| i);
    let (name, subpath) = (
        &spec[..name_len],
        spec.get(name_len + 1..).unwrap_or_default(),
    );
    is_valid_package_name(name).then_some((name, subpath))
}

/// Loose npm name check, enough to tell packages from alias syntax (`@/`, `~/`, `$lib/`).
fn is_valid_package_name(name: &str) -> bool {
    let valid_segment = |segment: &str| {
        segment.starts_with(|c: char| c.is_ascii_alphanumeric())
            && segment
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._~!".contains(c))
    };
    match name.strip_prefix('@') {
        Some(scoped) => scoped
            .split_once('/')
            .is_some_and(|(scope, base)| valid_segment(scope) && valid_segment(base)),
        None => valid_segment(name),
    }
}

/// `("https", "//x")` for a specifier with a URL scheme.
fn split_scheme(spec: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = spec.split_once(':')?;
    let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    valid.then_some((scheme, rest))
}

fn is_relative(spec: &str) -> bool {
    spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../")
}

/// Whether the file name has an extension (a dot not at its start).
fn has_extension(path: &str) -> bool {
    file_name(path).rfind('.').is_some_and(|i| i > 0)
}

fn clean_path(path: &str) -> &str {
    path.trim_start_matches("./")
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The directory part of a repo-relative path; "" for the root.
fn dir_of(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

fn join(dir: &str, rest: &str) -> String {
    if dir.is_empty() {
        rest.to_string()
    } else {
        format!("{dir}/{rest}")
    }
}

/// Resolves `.` and `..` segments and drops empty ones; `None` if the path climbs above the
/// repository root.
fn normalize(path: &str) -> Option<String> {
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            _ => segments.push(segment),
        }
    }
    Some(segments.join("/"))
}

/// Parses JSON with comments and trailing commas (tsconfig's dialect); `None` unless it is an
/// object.
fn parse_jsonc(text: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str(&strip_jsonc(text)) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// Removes `//` and `/* */` comments outside strings, a byte-order mark, and commas directly
/// before `}` or `]`.
fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.trim_start_matches('\u{feff}').chars().peekable();
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn resolver(configs: &[(&str, &str)]) -> ModuleResolver {
        let owned: Vec<(String, String)> = configs
            .iter()
            .map(|(path, text)| (path.to_string(), text.to_string()))
            .collect();
        ModuleResolver::new(&owned)
    }

    fn resolve_in(
        resolver: &ModuleResolver,
        files: &[&str],
        importer: &str,
        spec: &str,
    ) -> ModuleTarget {
        let files: HashSet<&str> = files.iter().copied().collect();
        resolver.resolve(importer, spec, &|path| files.contains(path))
    }

    fn file(path: &str) -> ModuleTarget {
        ModuleTarget::File(path.to_string())
    }

    fn external(name: &str) -> ModuleTarget {
        ModuleTarget::External(name.to_string())
    }

    #[test]
    fn relative_extension_order_and_index() {
        let r = resolver(&[]);
        let files = [
            "src/a.ts",
            "src/a.js",
            "src/b/index.tsx",
            "src/b/index.js",
            "src/c.d.ts",
            "src/c.js",
            "src/d.d.ts",
            "src/e.mjs",
            "src/f.jsx",
        ];
        let go = |spec| resolve_in(&r, &files, "src/main.ts", spec);
        assert_eq!(go("./a"), file("src/a.ts"));
        assert_eq!(go("./b"), file("src/b/index.tsx"));
        assert_eq!(go("./b/index"), file("src/b/index.tsx"));
        assert_eq!(go("./c"), file("src/c.js"), "implementation beats .d.ts");
        assert_eq!(go("./d"), file("src/d.d.ts"), ".d.ts when nothing else");
        assert_eq!(go("./e"), file("src/e.mjs"));
        assert_eq!(go("./f"), file("src/f.jsx"));
        assert_eq!(
            go("./a.js"),
            file("src/a.js"),
            "an existing exact path wins"
        );
        assert_eq!(go("./missing"), ModuleTarget::Unresolved);
        assert_eq!(
            go("./f.jsx?raw"),
            file("src/f.jsx"),
            "bundler query is ignored"
        );
    }

    #[test]
    fn relative_output_extension_means_typescript_source() {
        let r = resolver(&[]);
        let files = [
            "src/x.ts",
            "src/y.tsx",
            "src/m.mts",
            "src/c.cts",
            "src/v.tsx",
            "src/t.ts",
        ];
        let go = |spec| resolve_in(&r, &files, "src/main.ts", spec);
        assert_eq!(go("./x.js"), file("src/x.ts"));
        assert_eq!(go("./y.js"), file("src/y.tsx"));
        assert_eq!(go("./m.mjs"), file("src/m.mts"));
        assert_eq!(go("./c.cjs"), file("src/c.cts"));
        assert_eq!(go("./v.jsx"), file("src/v.tsx"));
        assert_eq!(go("./t.d.ts"), file("src/t.ts"));
        assert_eq!(go("./nope.js"), ModuleTarget::Unresolved);
    }

    #[test]
    fn relative_dots_are_normalised() {
        let r = resolver(&[]);
        let files = [
            "src/c.ts",
            "d.ts",
            "src/a/index.ts",
            "src/index.ts",
            "index.js",
        ];
        let go = |importer, spec| resolve_in(&r, &files, importer, spec);
        assert_eq!(go("src/a/b.ts", "../c"), file("src/c.ts"));
        assert_eq!(go("src/a/b.ts", "./../../d"), file("d.ts"));
        assert_eq!(go("src/a/b.ts", "./.././c"), file("src/c.ts"));
        assert_eq!(go("src/a/b.ts", "."), file("src/a/index.ts"));
        assert_eq!(go("src/a/b.ts", ".."), file("src/index.ts"));
        assert_eq!(
            go("./src/a/b.ts", "../c"),
            file("src/c.ts"),
            "importer with ./"
        );
        assert_eq!(go("src/x.ts", "../index"), file("index.js"));
        assert_eq!(go("main.ts", "."), file("index.js"));
    }

    #[test]
    fn escaping_root_and_absolute_are_unresolved() {
        let r = resolver(&[]);
        let files = ["x.ts", "src/x.ts"];
        assert_eq!(
            resolve_in(&r, &files, "src/a.ts", "../../x"),
            ModuleTarget::Unresolved
        );
        assert_eq!(
            resolve_in(&r, &files, "a.ts", ".."),
            ModuleTarget::Unresolved
        );
        assert_eq!(
            resolve_in(&r, &files, "src/a.ts", "/x"),
            ModuleTarget::Unresolved
        );
        assert_eq!(
            resolve_in(&r, &files, "src/a.ts", "/src/x"),
            ModuleTarget::Unresolved
        );
    }

    #[test]
    fn relative_directory_with_package_json() {
        let r = resolver(&[
            ("src/widget/package.json", r#"{ "main": "./widget.js" }"#),
            (
                "packages/ui/package.json",
                r#"{ "name": "ui", "main": "dist/index.js" }"#,
            ),
            ("src/loop/package.json", r#"{ "main": "." }"#),
        ]);
        let files = [
            "src/widget/widget.ts",
            "src/widget/index.ts",
            "packages/ui/src/index.ts",
            "src/loop/index.ts",
        ];
        let go = |importer, spec| resolve_in(&r, &files, importer, spec);
        assert_eq!(go("src/main.ts", "./widget"), file("src/widget/widget.ts"));
        assert_eq!(
            go("apps/web/main.ts", "../../packages/ui"),
            file("packages/ui/src/index.ts")
        );
        assert_eq!(go("src/main.ts", "./loop"), file("src/loop/index.ts"));
    }

    #[test]
    fn tsconfig_paths_wildcards_and_several_targets() {
        let r = resolver(&[(
            "tsconfig.json",
            r#"{ "compilerOptions": { "paths": {
                "@/*": ["./src/*", "./generated/*"],
                "@/components/*": ["./ui/*"],
                "~config": ["./config/index.ts"],
                "*.svg": ["./assets/*.svg"]
            } } }"#,
        )]);
        let files = [
            "src/util.ts",
            "generated/api.ts",
            "src/api.json",
            "ui/Button.tsx",
            "config/index.ts",
            "assets/logo.svg",
            "src/feature/index.ts",
        ];
        let go = |spec| resolve_in(&r, &files, "src/pages/home.tsx", spec);
        assert_eq!(go("@/util"), file("src/util.ts"));
        assert_eq!(go("@/api"), file("generated/api.ts"), "second target");
        assert_eq!(go("@/feature"), file("src/feature/index.ts"));
        assert_eq!(
            go("@/components/Button"),
            file("ui/Button.tsx"),
            "longest prefix wins"
        );
        assert_eq!(go("~config"), file("config/index.ts"));
        assert_eq!(
            go("logo.svg"),
            file("assets/logo.svg"),
            "pattern with suffix"
        );
        assert_eq!(go("@/nothing"), ModuleTarget::Unresolved);
        assert_eq!(go("react"), external("react"));
    }

    #[test]
    fn tsconfig_paths_relative_to_base_url_and_base_url_alone() {
        let r = resolver(&[(
            "web/tsconfig.json",
            r#"{ "compilerOptions": { "baseUrl": "./src", "paths": { "@app/*": ["app/*"] } } }"#,
        )]);
        let files = [
            "web/src/app/store.ts",
            "web/src/components/Button.tsx",
            "web/src/lib/index.js",
        ];
        let go = |spec| resolve_in(&r, &files, "web/src/app/main.ts", spec);
        assert_eq!(go("@app/store"), file("web/src/app/store.ts"));
        assert_eq!(
            go("components/Button"),
            file("web/src/components/Button.tsx")
        );
        assert_eq!(go("lib"), file("web/src/lib/index.js"));
        assert_eq!(go("react-dom/client"), external("react-dom"));
        // Outside web/ the config does not apply.
        assert_eq!(
            resolve_in(&r, &files, "other/a.ts", "components/Button"),
            external("components")
        );
    }

    #[test]
    fn alias_without_file_is_unresolved_but_catch_all_is_not() {
        let r = resolver(&[(
            "tsconfig.json",
            r#"{ "compilerOptions": { "baseUrl": ".", "paths": {
                "*": ["types/*"],
                "shared": ["src/shared"],
                "react": ["node_modules/@types/react"]
            } } }"#,
        )]);
        let files = ["types/lodash.d.ts"];
        let go = |spec| resolve_in(&r, &files, "src/a.ts", spec);
        assert_eq!(go("shared"), ModuleTarget::Unresolved);
        assert_eq!(go("lodash"), file("types/lodash.d.ts"));
        assert_eq!(go("express"), external("express"));
        assert_eq!(
            go("react"),
            external("react"),
            "redirect into node_modules is not ours"
        );
    }

    #[test]
    fn extends_merges_and_keeps_paths_relative_to_their_config() {
        let r = resolver(&[
            (
                "tsconfig.base.json",
                r#"{ "compilerOptions": { "paths": { "@org/*": ["libs/*/src/index.ts"] } } }"#,
            ),
            (
                "apps/web/tsconfig.json",
                r#"{ "extends": "../../tsconfig.base.json" }"#,
            ),
            (
                "apps/admin/tsconfig.json",
                r#"{ "extends": "../../tsconfig.base", "compilerOptions": { "paths": { "@admin/*": ["./src/*"] } } }"#,
            ),
            (
                "apps/base-url/tsconfig.json",
                r#"{ "extends": "./tsconfig.app.json" }"#,
            ),
            (
                "apps/base-url/tsconfig.app.json",
                r#"{ "extends": "./tsconfig.paths.json", "compilerOptions": { "baseUrl": "src" } }"#,
            ),
            (
                "apps/base-url/tsconfig.paths.json",
                r#"{ "compilerOptions": { "paths": { "~/*": ["*"] } } }"#,
            ),
        ]);
        let files = [
            "libs/auth/src/index.ts",
            "apps/admin/src/users.ts",
            "apps/base-url/src/x.ts",
        ];
        let go = |importer, spec| resolve_in(&r, &files, importer, spec);
        assert_eq!(
            go("apps/web/src/main.ts", "@org/auth"),
            file("libs/auth/src/index.ts")
        );
        assert_eq!(
            go("apps/admin/src/main.ts", "@admin/users"),
            file("apps/admin/src/users.ts")
        );
        // The child's `paths` replaces the parent's wholesale, as in TypeScript.
        assert_eq!(
            go("apps/admin/src/main.ts", "@org/auth"),
            external("@org/auth")
        );
        // `paths` from a grandparent, resolved against the baseUrl set by the parent.
        assert_eq!(
            go("apps/base-url/src/main.ts", "~/x"),
            file("apps/base-url/src/x.ts")
        );
    }

    #[test]
    fn extends_a_workspace_package_and_cycles_terminate() {
        let r = resolver(&[
            (
                "packages/tsconfig/package.json",
                r#"{ "name": "@repo/typescript-config" }"#,
            ),
            (
                "packages/tsconfig/tsconfig.json",
                r#"{ "compilerOptions": { "paths": { "@/*": ["../../apps/web/src/*"] } } }"#,
            ),
            (
                "packages/tsconfig/tsconfig.lib.json",
                r#"{ "compilerOptions": { "baseUrl": "../../libs" } }"#,
            ),
            (
                "apps/web/tsconfig.json",
                r#"{ "extends": "@repo/typescript-config" }"#,
            ),
            (
                "apps/lib/tsconfig.json",
                r#"{ "extends": ["@repo/typescript-config/tsconfig.lib.json", "@tsconfig/node20/tsconfig.json"] }"#,
            ),
            ("a/tsconfig.json", r#"{ "extends": "./tsconfig.b.json" }"#),
            ("a/tsconfig.b.json", r#"{ "extends": "./tsconfig.json" }"#),
        ]);
        let files = ["apps/web/src/lib/db.ts", "libs/math.ts"];
        let go = |importer, spec| resolve_in(&r, &files, importer, spec);
        assert_eq!(
            go("apps/web/src/page.tsx", "@/lib/db"),
            file("apps/web/src/lib/db.ts")
        );
        assert_eq!(go("apps/lib/x.ts", "math"), file("libs/math.ts"));
        assert_eq!(go("a/x.ts", "react"), external("react"));
    }

    #[test]
    fn jsonc_comments_and_trailing_commas() {
        let config = r##"{
  "$schema": "https://json.schemastore.org/tsconfig", // a URL inside a string
  /* block
     comment with "quotes" */
  "compilerOptions": {
    "paths": {
      "@/*": ["./src/*",], /* inline */
      "lib/*": ["./vendor/*"],
    },
  },
  "include": ["src/**/*", "lib/**/*",],
}"##;
        let r = resolver(&[("tsconfig.json", &format!("\u{feff}{config}"))]);
        let files = ["src/a.ts", "vendor/b.ts"];
        assert_eq!(resolve_in(&r, &files, "src/x.ts", "@/a"), file("src/a.ts"));
        assert_eq!(
            resolve_in(&r, &files, "src/x.ts", "lib/b"),
            file("vendor/b.ts")
        );
        assert_eq!(
            strip_jsonc(r#"{"a": "x\"//y", "b": [1, 2 , ] , }"#),
            r#"{"a": "x\"//y", "b": [1, 2 ] }"#
        );
    }

    #[test]
    fn broken_config_is_ignored() {
        let r = resolver(&[
            (
                "tsconfig.json",
                r#"{ "compilerOptions": { "paths": { "@/*": ["src/*"] } } }"#,
            ),
            (
                "packages/a/tsconfig.json",
                r#"{ "compilerOptions": { "paths": "#,
            ),
            ("packages/b/tsconfig.json", r#"[1, 2]"#),
            ("packages/c/package.json", "not json"),
            (
                "packages/d/tsconfig.json",
                r#"{ "compilerOptions": { "paths": { "x": 5 }, "baseUrl": 3 } }"#,
            ),
        ]);
        let files = ["src/util.ts"];
        assert_eq!(
            resolve_in(&r, &files, "packages/a/x.ts", "@/util"),
            file("src/util.ts")
        );
        assert_eq!(
            resolve_in(&r, &files, "packages/b/x.ts", "@/util"),
            file("src/util.ts")
        );
        assert_eq!(
            resolve_in(&r, &files, "packages/d/x.ts", "x"),
            external("x")
        );
    }

    #[test]
    fn nearest_config_governs_in_a_monorepo() {
        let config = r#"{ "compilerOptions": { "paths": { "@/*": ["./src/*"] } } }"#;
        let r = resolver(&[
            ("packages/a/tsconfig.json", config),
            ("packages/b/jsconfig.json", config),
            ("packages/c/tsconfig.json", "{}"),
            (
                "tsconfig.json",
                r#"{ "compilerOptions": { "paths": { "@/*": ["./root/*"] } } }"#,
            ),
        ]);
        let files = [
            "packages/a/src/util.ts",
            "packages/b/src/util.js",
            "root/util.ts",
            "packages/c/src/util.ts",
        ];
        let go = |importer, spec| resolve_in(&r, &files, importer, spec);
        assert_eq!(
            go("packages/a/src/deep/x.ts", "@/util"),
            file("packages/a/src/util.ts")
        );
        assert_eq!(
            go("packages/b/src/x.js", "@/util"),
            file("packages/b/src/util.js")
        );
        assert_eq!(go("tools/x.ts", "@/util"), file("root/util.ts"));
        // A config without aliases still governs: the root's aliases do not leak into it.
        assert_eq!(
            go("packages/c/src/x.ts", "@/util"),
            ModuleTarget::Unresolved
        );
    }

    #[test]
    fn solution_config_uses_referenced_configs() {
        let r = resolver(&[
            (
                "tsconfig.json",
                r#"{ "files": [], "references": [{ "path": "./tsconfig.node.json" }, { "path": "./tsconfig.app.json" }] }"#,
            ),
            ("tsconfig.node.json", r#"{ "include": ["vite.config.ts"] }"#),
            (
                "tsconfig.app.json",
                r#"{ "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["./src/*"] } } }"#,
            ),
        ]);
        assert_eq!(
            resolve_in(&r, &["src/lib/utils.ts"], "src/App.tsx", "@/lib/utils"),
            file("src/lib/utils.ts")
        );
    }

    #[test]
    fn workspace_package_exports() {
        let r = resolver(&[
            (
                "packages/str/package.json",
                r#"{ "name": "str", "exports": "./src/main.ts" }"#,
            ),
            (
                "packages/cond/package.json",
                r#"{ "name": "cond", "main": "./dist/index.cjs", "exports": { ".": {
                    "types": "./dist/index.d.ts",
                    "import": { "types": "./dist/index.d.mts", "default": "./dist/index.mjs" },
                    "source": "./lib-src/entry.ts"
                } } }"#,
            ),
            (
                "packages/sub/package.json",
                r#"{ "name": "sub", "exports": {
                    ".": "./src/index.ts",
                    "./utils": { "import": "./src/utils/index.ts" },
                    "./icons/*": "./src/icons/*.tsx",
                    "./*": { "default": "./dist/*.js" },
                    "./package.json": "./package.json"
                } }"#,
            ),
            (
                "packages/bare-cond/package.json",
                r#"{ "name": "bare-cond", "exports": { "require": "./x.cjs", "import": "./x.mjs" } }"#,
            ),
        ]);
        let files = [
            "packages/str/src/main.ts",
            "packages/cond/lib-src/entry.ts",
            "packages/sub/src/index.ts",
            "packages/sub/src/utils/index.ts",
            "packages/sub/src/icons/Arrow.tsx",
            "packages/sub/src/format/date.ts",
            "packages/bare-cond/x.mjs",
            "packages/bare-cond/x.cjs",
        ];
        let go = |spec| resolve_in(&r, &files, "apps/web/main.ts", spec);
        assert_eq!(go("str"), file("packages/str/src/main.ts"));
        assert_eq!(
            go("cond"),
            file("packages/cond/lib-src/entry.ts"),
            "`source` preferred"
        );
        assert_eq!(go("sub"), file("packages/sub/src/index.ts"));
        assert_eq!(go("sub/utils"), file("packages/sub/src/utils/index.ts"));
        assert_eq!(
            go("sub/icons/Arrow"),
            file("packages/sub/src/icons/Arrow.tsx"),
            "longest pattern"
        );
        assert_eq!(
            go("sub/format/date"),
            file("packages/sub/src/format/date.ts"),
            "dist pattern -> src"
        );
        assert_eq!(
            go("sub/missing"),
            ModuleTarget::Unresolved,
            "ours, but no file"
        );
        assert_eq!(
            go("bare-cond"),
            file("packages/bare-cond/x.mjs"),
            "import before require"
        );
    }

    #[test]
    fn main_pointing_at_missing_build_output_falls_back_to_source() {
        let r = resolver(&[
            (
                "packages/a/package.json",
                r#"{ "name": "a", "main": "dist/index.js", "types": "dist/index.d.ts" }"#,
            ),
            (
                "packages/b/package.json",
                r#"{ "name": "b", "module": "./lib/esm/b.mjs" }"#,
            ),
            (
                "packages/c/package.json",
                r#"{ "name": "c", "main": "./build/c.umd.js" }"#,
            ),
            (
                "packages/d/package.json",
                r#"{ "name": "d", "main": "out/main.js" }"#,
            ),
            (
                "packages/e/package.json",
                r#"{ "name": "e", "main": "index.js" }"#,
            ),
            ("packages/f/package.json", r#"{ "name": "f" }"#),
        ]);
        let files = [
            "packages/a/src/index.ts",
            "packages/b/src/b.mts",
            "packages/c/src/index.tsx",
            "packages/d/index.ts",
            "packages/e/index.ts",
            "packages/f/src/index.js",
        ];
        let go = |spec| resolve_in(&r, &files, "app.ts", spec);
        assert_eq!(go("a"), file("packages/a/src/index.ts"));
        assert_eq!(go("b"), file("packages/b/src/b.mts"), "format dir dropped");
        assert_eq!(
            go("c"),
            file("packages/c/src/index.tsx"),
            "src/index fallback"
        );
        assert_eq!(go("d"), file("packages/d/index.ts"), "root index fallback");
        assert_eq!(go("e"), file("packages/e/index.ts"), "extension swap");
        assert_eq!(go("f"), file("packages/f/src/index.js"));
        // The committed build output, when present, is what Node loads.
        assert_eq!(
            resolve_in(
                &r,
                &["packages/a/dist/index.js", "packages/a/src/index.ts"],
                "x.ts",
                "a"
            ),
            file("packages/a/dist/index.js")
        );
    }

    #[test]
    fn scoped_packages_and_subpaths() {
        let r = resolver(&[
            (
                "package.json",
                r#"{ "name": "root", "private": true, "workspaces": ["packages/*"] }"#,
            ),
            (
                "packages/ui/package.json",
                r#"{ "name": "@org/ui", "main": "./dist/index.js" }"#,
            ),
            ("packages/lib/package.json", r#"{ "name": "@org/lib" }"#),
        ]);
        let files = [
            "packages/ui/src/index.ts",
            "packages/ui/src/button.tsx",
            "packages/lib/helpers/math.js",
        ];
        let go = |spec| resolve_in(&r, &files, "apps/web/page.tsx", spec);
        assert_eq!(go("@org/ui"), file("packages/ui/src/index.ts"));
        assert_eq!(go("@org/ui/button"), file("packages/ui/src/button.tsx"));
        assert_eq!(
            go("@org/lib/helpers/math"),
            file("packages/lib/helpers/math.js")
        );
        assert_eq!(go("@org/lib/helpers/nope"), ModuleTarget::Unresolved);
        assert_eq!(go("@org/other"), external("@org/other"));
    }

    #[test]
    fn subpath_imports_from_package_json() {
        let r = resolver(&[(
            "package.json",
            r##"{ "name": "app", "imports": { "#db": "./src/db/index.ts", "#utils/*": { "node": "./src/utils/*.js" }, "#dep": "lodash" } }"##,
        )]);
        let files = ["src/db/index.ts", "src/utils/date.ts"];
        let go = |spec| resolve_in(&r, &files, "src/server/main.ts", spec);
        assert_eq!(go("#db"), file("src/db/index.ts"));
        assert_eq!(go("#utils/date"), file("src/utils/date.ts"));
        assert_eq!(go("#dep"), external("lodash"));
        assert_eq!(go("#nope"), ModuleTarget::Unresolved);
    }

    #[test]
    fn externals() {
        let r = resolver(&[]);
        let go = |spec| resolve_in(&r, &[], "src/a.ts", spec);
        assert_eq!(go("react"), external("react"));
        assert_eq!(go("lodash/fp"), external("lodash"));
        assert_eq!(go("@a/b"), external("@a/b"));
        assert_eq!(go("@a/b/c/d"), external("@a/b"));
        assert_eq!(go("node:fs"), external("fs"));
        assert_eq!(go("node:fs/promises"), external("fs"));
        assert_eq!(go("fs"), external("fs"));
        assert_eq!(go("lodash.debounce"), external("lodash.debounce"));
    }

    #[test]
    fn unresolvable_specifiers() {
        let r = resolver(&[]);
        let go = |spec| resolve_in(&r, &[], "src/a.ts", spec);
        for spec in [
            "",
            "https://esm.sh/react",
            "data:text/javascript,1",
            "virtual:pwa",
            "npm:react",
            "node:",
            "@/x",
            "~/x",
            "$lib/x",
            "@scope",
            "?x",
        ] {
            assert_eq!(go(spec), ModuleTarget::Unresolved, "{spec:?}");
        }
    }

    #[test]
    fn duplicate_package_names_prefer_the_shallowest() {
        let r = resolver(&[
            (
                "test/fixtures/copy/package.json",
                r#"{ "name": "dup", "main": "index.js" }"#,
            ),
            (
                "packages/dup/package.json",
                r#"{ "name": "dup", "main": "index.js" }"#,
            ),
        ]);
        let files = ["test/fixtures/copy/index.js", "packages/dup/index.js"];
        assert_eq!(
            resolve_in(&r, &files, "a.ts", "dup"),
            file("packages/dup/index.js")
        );
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
            assert!(ModuleResolver::is_config_file(path), "{path}");
        }
        for path in [
            "node_modules/x/package.json",
            "a/node_modules/tsconfig.json",
            "tsconfig.ts",
            "src/config.json",
            "package-lock.json",
        ] {
            assert!(!ModuleResolver::is_config_file(path), "{path}");
        }
    }
}
