//! Lists a directory's source files the way a developer sees the repository: honouring
//! .gitignore, without dependencies, build output or vendored code.

use std::path::Path;

use anyhow::{Context, Result};

use crate::indexer::pipeline::SourceFile;
use crate::indexer::select::{wanted, SKIPPED_DIRS};
use crate::model::{BlobSha, CommitSha};
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

/// The blob ids git holds for the files under `root` whose contents on disk are what
/// it staged (`git ls-files -s`, less what `git diff` finds changed), by path relative
/// to `root`; None outside a repository, or where git rewrites contents on checkout
/// (line endings, filters), so that a blob id could differ from the bytes on disk.
pub fn worktree_blobs(root: &Path) -> Option<rustc_hash::FxHashMap<String, BlobSha>> {
    use std::process::Command;
    let git = |args: &[&str]| -> Option<Vec<u8>> {
        let out = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        out.status.success().then_some(out.stdout)
    };
    let autocrlf = git(&["config", "core.autocrlf"]).unwrap_or_default();
    if matches!(String::from_utf8_lossy(&autocrlf).trim(), "true" | "input") {
        return None;
    }
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let top = std::path::PathBuf::from(String::from_utf8_lossy(&top).trim());
    if let Ok(attributes) = std::fs::read_to_string(top.join(".gitattributes")) {
        if ["eol", "text", "filter", "ident", "encoding"]
            .iter()
            .any(|a| attributes.contains(a))
        {
            return None;
        }
    }
    let staged = git(&["ls-files", "-s", "-z"])?;
    let changed = git(&["diff", "--name-only", "--relative", "-z"])?;
    let changed: rustc_hash::FxHashSet<&[u8]> = changed
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .collect();
    let mut blobs = rustc_hash::FxHashMap::default();
    for record in staged.split(|&b| b == 0) {
        // `<mode> <blob> <stage>\t<path>`
        let Some(tab) = record.iter().position(|&b| b == b'\t') else {
            continue;
        };
        let (meta, path) = (&record[..tab], &record[tab + 1..]);
        let mut fields = meta.split(|&b| b == b' ');
        let (Some(mode), Some(blob), Some(stage)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        // Regular files only (not links, not submodules), and no merge conflicts.
        if !matches!(mode, b"100644" | b"100755") || stage != b"0" || changed.contains(path) {
            continue;
        }
        if let (Ok(path), Ok(blob)) = (std::str::from_utf8(path), std::str::from_utf8(blob)) {
            blobs.insert(path.to_string(), BlobSha(blob.to_string()));
        }
    }
    Some(blobs)
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

    /// Each file with its blob id when git knows it without reading the file (tracked,
    /// and unchanged since it was staged): what the facts cache is keyed by.
    fn files(&self) -> Result<Vec<FileEntry>> {
        // Two git processes and a walk of the tree: side by side, not one after the other.
        let (blobs, listed) = rayon::join(|| worktree_blobs(&self.root), || list(&self.root));
        let blobs = blobs.unwrap_or_default();
        Ok(listed?
            .into_iter()
            .map(|path| {
                let blob = blobs.get(&path).cloned();
                FileEntry { path, blob }
            })
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
