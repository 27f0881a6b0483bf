//! Lists a directory's source files the way a developer sees the repository: honouring
//! .gitignore, without dependencies, build output or vendored code.

use std::path::Path;

use anyhow::{Context, Result};

use crate::indexer::pipeline::SourceFile;
use crate::indexer::select::{wanted, SKIPPED_DIRS};
use crate::model::CommitSha;
use crate::workflow::source::{FileEntry, Revision};

/// Repository-relative paths (with `/`) of every wanted file under `root`, honouring
/// .gitignore files (a working tree's ignored files are not the repository's). Paths
/// that are not UTF-8 are left out.
pub fn list(root: &Path) -> Result<Vec<String>> {
    Ok(list_tree(root)?.0)
}

/// Every wanted file (as [`list`]) and every directory the walk enters (repository-relative,
/// `""` for the root), both sorted: what a watcher of the working tree watches.
pub fn list_tree(root: &Path) -> Result<(Vec<String>, Vec<String>)> {
    let mut paths = Vec::new();
    let mut dirs = Vec::new();
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
        let Some(kind) = entry.file_type() else {
            continue;
        };
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        // A name that is not UTF-8 could not be read again by its text: left out, as
        // a git tree read leaves it out, rather than failing the whole walk.
        let Some(rel) = rel.to_str() else {
            continue;
        };
        let rel = rel.replace('\\', "/");
        if kind.is_dir() {
            dirs.push(rel);
        } else if kind.is_file() && wanted(&rel) {
            paths.push(rel);
        }
    }
    paths.sort();
    dirs.sort();
    Ok((paths, dirs))
}

/// Reads one listed file. A file that vanished or cannot be read is an error that
/// names it.
pub fn read_one(root: &Path, path: String) -> Result<SourceFile> {
    let bytes = std::fs::read(root.join(&path))
        .with_context(|| format!("reading {}", root.join(&path).display()))?;
    Ok(SourceFile::new(path, bytes))
}

/// Reads the listed files.
pub fn read(root: &Path, paths: Vec<String>) -> Result<Vec<SourceFile>> {
    use rayon::prelude::*;
    paths
        .into_par_iter()
        .map(|path| read_one(root, path))
        .collect()
}

/// The files of a directory as they are on disk (a working tree, or any folder).
pub struct WorkingTree {
    root: std::path::PathBuf,
}

impl WorkingTree {
    pub fn new(root: &Path) -> WorkingTree {
        WorkingTree {
            root: root.to_path_buf(),
        }
    }
}

impl Revision for WorkingTree {
    /// The checked-out commit when the directory is in a git repository: what an index
    /// of it is recorded as (uncommitted edits included).
    fn commit(&self) -> Option<CommitSha> {
        let git = super::git::GitRepo::open(&self.root).ok()?;
        git.resolve("HEAD").ok().map(CommitSha::from)
    }

    fn files(&self) -> Result<Vec<FileEntry>> {
        Ok(list(&self.root)?
            .into_iter()
            .map(|path| FileEntry { path, blob: None })
            .collect())
    }

    fn reads_one_cheaply(&self) -> bool {
        true
    }

    fn size(&self, entry: &FileEntry) -> Option<u64> {
        std::fs::metadata(self.root.join(&entry.path))
            .ok()
            .map(|m| m.len())
    }

    fn read(&self, entries: &[FileEntry]) -> Result<Vec<SourceFile>> {
        read(&self.root, entries.iter().map(|e| e.path.clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let (files, dirs) = list_tree(root).unwrap();
        assert_eq!(files, paths);
        assert_eq!(dirs, vec!["", "src"]);
    }
}
