//! Repo-relative paths and specifiers: file candidates with their extensions, package
//! names, schemes, and `.`/`..` normalisation.

/// Suffixes tried after an extensionless path, in order of preference. `.d.ts` comes after
/// the code so an implementation file always wins over a declaration file next to it;
/// `.vue` last, as Vue CLI's webpack (and Vite set up as it is) tries it where nothing
/// else is (`import Hamburger from '@/components/Hamburger'`, its `index.vue`).
pub(super) const EXTENSIONS: [&str; 10] = [
    ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts", ".vue",
];

/// Extensions of source files. A specifier already ending in one of these is not extended
/// further (`./a.js` never means `./a.js.ts`).
pub(super) const CODE_EXTENSIONS: [&str; 8] =
    [".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"];

/// `path` as a file: exactly, with a TypeScript extension swap, or with an extension added.
pub(super) fn resolve_file(path: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
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
pub(super) fn extension_swaps(path: &str) -> Option<(&str, &'static [&'static str])> {
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

pub(super) fn resolve_index(dir: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    with_extensions(&join(dir, "index"), exists)
}

/// The first existing `base` + extension, in `EXTENSIONS` order.
pub(super) fn with_extensions(base: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
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
pub(super) fn split_package(spec: &str) -> Option<(&str, &str)> {
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
pub(super) fn is_valid_package_name(name: &str) -> bool {
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
pub(super) fn split_scheme(spec: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = spec.split_once(':')?;
    let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    valid.then_some((scheme, rest))
}

pub(super) fn is_relative(spec: &str) -> bool {
    spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../")
}

/// Whether the file name has an extension (a dot not at its start).
pub(super) fn has_extension(path: &str) -> bool {
    file_name(path).rfind('.').is_some_and(|i| i > 0)
}

pub(super) fn clean_path(path: &str) -> &str {
    path.trim_start_matches("./")
}

pub(super) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The directory part of a repo-relative path; "" for the root.
pub(super) fn dir_of(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

pub(super) fn join(dir: &str, rest: &str) -> String {
    if dir.is_empty() {
        rest.to_string()
    } else {
        format!("{dir}/{rest}")
    }
}

/// Resolves `.` and `..` segments and drops empty ones; `None` if the path climbs above the
/// repository root.
pub(super) fn normalize(path: &str) -> Option<String> {
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
