//! Lists a directory's source files the way a developer sees the repository: honouring
//! .gitignore, without dependencies, build output or vendored code.

use std::path::Path;

use anyhow::{Context, Result};

use crate::indexer::pipeline::{wanted, SourceFile};

/// Directories that hold other people's code or build output.
pub const SKIPPED_DIRS: &[&str] = &[
    "node_modules",
    "bower_components",
    "jspm_packages",
    "vendor",
    "vendors",
    "third_party",
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

/// Whether a repository-relative path lies in a skipped directory.
pub fn in_skipped_dir(path: &str) -> bool {
    path.split('/')
        .rev()
        .skip(1)
        .any(|part| SKIPPED_DIRS.contains(&part))
}

/// Repository-relative paths (with `/`) of every wanted file under `root`.
pub fn list(root: &Path) -> Result<Vec<String>> {
    let mut paths = Vec::new();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            !(e.file_type().is_some_and(|t| t.is_dir()) && SKIPPED_DIRS.contains(&name.as_ref()))
        })
        .build();
    for entry in walker {
        let entry = entry.with_context(|| format!("walking {}", root.display()))?;
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if wanted(&rel) {
            paths.push(rel);
        }
    }
    paths.sort();
    Ok(paths)
}

/// Reads one listed file. A file that vanished or cannot be read is an error that
/// names it.
pub fn read_one(root: &Path, path: String) -> Result<SourceFile> {
    let bytes = std::fs::read(root.join(&path))
        .with_context(|| format!("reading {}", root.join(&path).display()))?;
    Ok(SourceFile { path, bytes })
}

/// Reads the listed files.
pub fn read(root: &Path, paths: Vec<String>) -> Result<Vec<SourceFile>> {
    use rayon::prelude::*;
    paths
        .into_par_iter()
        .map(|path| read_one(root, path))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_dirs_are_recognised_anywhere_but_the_file_name() {
        assert!(in_skipped_dir("node_modules/x/index.js"));
        assert!(in_skipped_dir("packages/a/dist/index.js"));
        assert!(!in_skipped_dir("src/dist.js"));
        assert!(!in_skipped_dir("src/builder/index.js"));
    }

    #[test]
    fn lists_sources_and_configs_honouring_gitignore() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (p, c) in [
            ("src/a.ts", "export const a = 1"),
            ("src/b.jsx", ""),
            ("tsconfig.json", "{}"),
            ("README.md", ""),
            ("node_modules/x/index.js", ""),
            ("dist/out.js", ""),
            ("ignored/c.js", ""),
            (".gitignore", "ignored/\n"),
        ] {
            std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
            std::fs::write(root.join(p), c).unwrap();
        }
        let paths = list(root).unwrap();
        assert_eq!(paths, vec!["src/a.ts", "src/b.jsx", "tsconfig.json"]);
    }
}
