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

mod packages;
mod paths;
#[cfg(test)]
mod tests;
mod tsconfig;

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use packages::{
    condition_targets, export_targets, is_declaration_path, match_subpath_map, source_guesses,
    types_conditions, Package,
};
use paths::*;
use tsconfig::{parse_jsonc, ConfigLoader, Scope};

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

/// What a tsconfig.json or jsconfig.json says of the files of its directory's subtree.
struct DirConfig {
    /// Its alias scopes, tried in order (an empty list still governs the subtree).
    scopes: Vec<Scope>,
    /// Whether the checker's strict null checks are on (true) or off (false); None
    /// where that is not known.
    strict_nulls: Option<bool>,
}

/// Resolves import specifiers against the configuration of one repository.
pub struct ModuleResolver {
    /// What the (valid) tsconfig.json or jsconfig.json of each directory holding one says
    /// of its subtree. A config governs its subtree alone: TypeScript does not merge a
    /// config with the ones above it unless it `extends` them.
    configs_by_dir: FxHashMap<String, DirConfig>,
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
        let mut configs_by_dir = FxHashMap::default();
        for path in parsed.keys() {
            let name = file_name(path);
            let dir = dir_of(path);
            // TypeScript reads tsconfig.json in preference to a jsconfig.json beside it.
            let governs = name == "tsconfig.json"
                || (name == "jsconfig.json" && !parsed.contains_key(&join(dir, "tsconfig.json")));
            if governs {
                let config = DirConfig {
                    scopes: loader.scopes(path),
                    strict_nulls: loader.strict_nulls(path),
                };
                configs_by_dir.insert(dir.to_string(), config);
            }
        }

        ModuleResolver {
            configs_by_dir,
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

    /// The packages whose declarations start in another file than their code: (the
    /// declaration file `exports`' `types` condition, `types` or `typings` names, the
    /// code file `exports` or `main`/`module` names), both existing, by package root.
    pub fn declared_entries(&self, exists: &dyn Fn(&str) -> bool) -> Vec<(String, String)> {
        let mut roots: Vec<&String> = self.packages_by_dir.keys().collect();
        roots.sort();
        roots
            .into_iter()
            .filter_map(|root| self.entry_pair(&self.packages_by_dir[root], exists))
            .collect()
    }

    /// The directory of the package.json nearest above `path` ("" when none is): the
    /// package a file belongs to.
    pub fn package_root_of<'a>(&'a self, path: &str) -> &'a str {
        let mut dir = dir_of(clean_path(path));
        loop {
            if let Some((root, _)) = self.packages_by_dir.get_key_value(dir) {
                return root;
            }
            if dir.is_empty() {
                return "";
            }
            dir = dir_of(dir);
        }
    }

    /// The packages the repository holds, by name, with the directory of each
    /// (`""` for the root): the names other repositories import them by.
    pub fn packages(&self) -> Vec<(&str, &str)> {
        let mut out: Vec<(&str, &str)> = self
            .package_dirs_by_name
            .iter()
            .map(|(name, dir)| (name.as_str(), dir.as_str()))
            .collect();
        out.sort_unstable();
        out
    }

    /// The `version` the package of that name has here, as its package.json writes it.
    pub fn package_version(&self, name: &str) -> Option<&str> {
        let dir = self.package_dirs_by_name.get(name)?;
        self.packages_by_dir.get(dir)?.version.as_deref()
    }

    /// The range of `package` that the file at `path` depends on: from the nearest
    /// package.json above it that lists the package (a workspace package's own, then
    /// the repository root's), as written (`^2.1.0`, `workspace:*`).
    pub fn dependency_range(&self, path: &str, package: &str) -> Option<&str> {
        let mut dir = dir_of(clean_path(path));
        loop {
            if let Some(found) = self.packages_by_dir.get(dir).and_then(|p| {
                p.dependencies
                    .iter()
                    .find(|(name, _)| name == package)
                    .map(|(_, range)| range.as_str())
            }) {
                return Some(found);
            }
            if dir.is_empty() {
                return None;
            }
            dir = dir_of(dir);
        }
    }

    /// The package a bare specifier names (`@a/b/c` → `@a/b`, `node:fs` → `fs`), or
    /// None for a relative path, an alias or a URL.
    pub fn package_of(specifier: &str) -> Option<&str> {
        let spec = specifier.split('?').next().unwrap_or_default();
        if is_relative(spec) || spec.starts_with(['/', '#']) {
            return None;
        }
        match split_scheme(spec) {
            Some(("node", rest)) => split_package(rest).map(|(name, _)| name),
            Some(_) => None,
            None => split_package(spec).map(|(name, _)| name),
        }
    }

    /// Where `specifier` names a package itself (`'..'` from its tests, its own name):
    /// that package's (declaration entry, code entry), as [`Self::declared_entries`]
    /// gives them. TypeScript reads the declarations for such an import.
    pub fn declared_entry_of(
        &self,
        importer: &str,
        specifier: &str,
        exists: &dyn Fn(&str) -> bool,
    ) -> Option<(String, String)> {
        let spec = specifier.split('?').next().unwrap_or_default();
        let package = if is_relative(spec) {
            let path = normalize(&join(dir_of(clean_path(importer)), spec))?;
            let package = self.packages_by_dir.get(path.as_str())?;
            if !path.is_empty() && resolve_file(&path, exists).is_some() {
                return None;
            }
            package
        } else {
            let (name, subpath) = split_package(spec)?;
            if !subpath.is_empty() {
                return None;
            }
            self.packages_by_dir
                .get(self.package_dirs_by_name.get(name)?)?
        };
        self.entry_pair(package, exists)
    }

    /// A package's (declaration entry, code entry), where both exist and differ.
    fn entry_pair(
        &self,
        package: &Package,
        exists: &dyn Fn(&str) -> bool,
    ) -> Option<(String, String)> {
        let mut declared = Vec::new();
        let mut code = Vec::new();
        if let Some(exports) = &package.exports {
            let main = match exports.as_object() {
                Some(map) if map.keys().any(|key| key.starts_with('.')) => map.get("."),
                _ => Some(exports),
            };
            if let Some(main) = main {
                types_conditions(main, &mut declared);
            }
            export_targets(exports, "", &mut code);
        }
        declared.extend(package.declared.iter().cloned());
        code.extend(package.entries.iter().cloned());
        code.retain(|target| !is_declaration_path(target));
        let resolve = |targets: &[String]| {
            targets.iter().find_map(|target| {
                normalize(&join(&package.root, target))
                    .and_then(|path| self.resolve_path(&path, exists, false))
            })
        };
        let (declared, code) = (resolve(&declared)?, resolve(&code)?);
        (is_declaration_path(&declared) && !is_declaration_path(&code)).then_some((declared, code))
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

    /// Whether the checker's strict null checks are known to be on for `file` (by the
    /// nearest tsconfig at or above it, following `extends`): a `null` or `undefined`
    /// argument is then checked against the parameter's type. False where they are off
    /// or not known (set by a config installed from npm, say), so that no call is said
    /// to break that a lax configuration compiles.
    pub fn strict_null_checks(&self, file: &str) -> bool {
        self.config_for(dir_of(file))
            .is_some_and(|c| c.strict_nulls == Some(true))
    }

    /// The scopes of the nearest tsconfig/jsconfig at or above `dir`.
    fn scopes_for(&self, dir: &str) -> &[Scope] {
        self.config_for(dir).map_or(&[], |c| c.scopes.as_slice())
    }

    /// The nearest tsconfig/jsconfig at or above `dir`.
    fn config_for(&self, mut dir: &str) -> Option<&DirConfig> {
        loop {
            if let Some(config) = self.configs_by_dir.get(dir) {
                return Some(config);
            }
            if dir.is_empty() {
                return None;
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
