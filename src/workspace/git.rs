//! Revisions read straight from git through its CLI: `git` is what every developer
//! machine has, and its object database is the ground truth for base and head.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::indexer::pipeline::SourceFile;
use crate::indexer::select::wanted;
use crate::model::{BlobSha, CommitSha};
use crate::workflow::source::{Changes, FileEntry, Revision};

pub struct GitRepo {
    root: PathBuf,
}

/// One entry of a tree: a path and its blob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeEntry {
    pub path: String,
    pub blob: String,
}

impl GitRepo {
    /// Opens the repository containing `dir`, or the bare repository `dir` is (how
    /// servers and mirrors keep them); a clear error when there is none.
    pub fn open(dir: &Path) -> Result<GitRepo> {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["rev-parse", "--is-bare-repository", "--absolute-git-dir"])
            .output()
            .context("running git (is it installed?)")?;
        if !out.status.success() {
            bail!("{} is not a git repository", dir.display());
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        let bare = lines.next() == Some("true");
        let root = if bare {
            lines.next().unwrap_or_default().to_string()
        } else {
            let out = Command::new("git")
                .arg("-C")
                .arg(dir)
                .args(["rev-parse", "--show-toplevel"])
                .output()?;
            if !out.status.success() {
                bail!("{} is not a git repository", dir.display());
            }
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        Ok(GitRepo {
            root: PathBuf::from(root),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn git(&self) -> Command {
        let mut c = Command::new("git");
        c.arg("-C").arg(&self.root);
        c
    }

    /// The commit a revision names; a clear error for an unknown one.
    pub fn resolve(&self, rev: &str) -> Result<String> {
        let out = self
            .git()
            .args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
            .arg(format!("{rev}^{{commit}}"))
            .output()?;
        if !out.status.success() {
            bail!("unknown revision '{rev}'");
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// The wanted files of a commit's tree (not in skipped directories).
    pub fn tree(&self, commit: &str) -> Result<Vec<TreeEntry>> {
        let out = self
            .git()
            .args(["ls-tree", "-r", "-z", "--full-tree", commit])
            .output()?;
        if !out.status.success() {
            bail!(
                "git ls-tree {commit} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        let mut entries = Vec::new();
        for record in out.stdout.split(|&b| b == 0) {
            let Ok(record) = std::str::from_utf8(record) else {
                continue;
            };
            // "<mode> <type> <sha>\t<path>"
            let Some((meta, path)) = record.split_once('\t') else {
                continue;
            };
            let mut parts = meta.split(' ');
            let (_mode, kind, sha) = (parts.next(), parts.next(), parts.next());
            if kind != Some("blob") || !wanted(path) {
                continue;
            }
            entries.push(TreeEntry {
                path: path.to_string(),
                blob: sha.unwrap_or_default().to_string(),
            });
        }
        Ok(entries)
    }

    /// Reads blobs in one `git cat-file --batch` process.
    pub fn read_blobs(&self, entries: &[TreeEntry]) -> Result<Vec<SourceFile>> {
        let mut child = self
            .git()
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("running git cat-file")?;
        let mut stdin = child.stdin.take().expect("piped stdin");
        let shas: Vec<String> = entries.iter().map(|e| e.blob.clone()).collect();
        let writer = std::thread::spawn(move || -> std::io::Result<()> {
            for sha in shas {
                writeln!(stdin, "{sha}")?;
            }
            Ok(())
        });
        let mut reader = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut files = Vec::with_capacity(entries.len());
        let mut header = String::new();
        for entry in entries {
            header.clear();
            reader.read_line(&mut header)?;
            // "<sha> blob <size>"
            let size: usize = header
                .trim_end()
                .rsplit(' ')
                .next()
                .and_then(|s| s.parse().ok())
                .with_context(|| format!("unexpected git cat-file output for {}", entry.path))?;
            let mut bytes = vec![0; size];
            reader.read_exact(&mut bytes)?;
            let mut newline = [0u8; 1];
            reader.read_exact(&mut newline)?;
            files.push(SourceFile::new(entry.path.clone(), bytes));
        }
        writer
            .join()
            .map_err(|_| anyhow::anyhow!("git cat-file writer panicked"))??;
        child.wait()?;
        Ok(files)
    }

    /// Paths whose content differs between two commits (added, modified, deleted,
    /// both sides of renames).
    pub fn changed_paths(&self, base: &str, head: &str) -> Result<Vec<String>> {
        self.nul_separated(&["diff", "--name-only", "-z", "--no-renames", base, head])
    }
}

/// A commit of a repository, as a [`Revision`].
pub struct GitRevision<'a> {
    pub repo: &'a GitRepo,
    pub commit: CommitSha,
}

impl Revision for GitRevision<'_> {
    fn commit(&self) -> Option<CommitSha> {
        Some(self.commit.clone())
    }

    fn files(&self) -> Result<Vec<FileEntry>> {
        let mut entries: Vec<FileEntry> = self
            .repo
            .tree(self.commit.as_str())?
            .into_iter()
            .map(|e| FileEntry {
                path: e.path,
                blob: Some(BlobSha(e.blob)),
            })
            .collect();
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(entries)
    }

    fn read(&self, entries: &[FileEntry]) -> Result<Vec<SourceFile>> {
        let tree: Vec<TreeEntry> = entries
            .iter()
            .map(|e| {
                let blob = e
                    .blob
                    .clone()
                    .with_context(|| format!("{} has no blob id", e.path))?;
                Ok(TreeEntry {
                    path: e.path.clone(),
                    blob: blob.0,
                })
            })
            .collect::<Result<_>>()?;
        self.repo.read_blobs(&tree)
    }
}

/// The change between two commits of a repository, as [`Changes`].
pub struct GitRange<'a> {
    pub repo: &'a GitRepo,
    pub base: CommitSha,
    pub head: CommitSha,
}

impl Changes for GitRange<'_> {
    fn changed_paths(&self) -> Result<Vec<String>> {
        self.repo
            .changed_paths(self.base.as_str(), self.head.as_str())
    }
}

/// The change from a commit to the working tree: tracked files whose contents differ
/// (staged or not, deleted ones too) and untracked files that are not ignored. What an
/// agent has in hand before it commits, as [`Changes`].
pub struct WorkingChanges<'a> {
    pub repo: &'a GitRepo,
    pub base: CommitSha,
}

impl Changes for WorkingChanges<'_> {
    fn changed_paths(&self) -> Result<Vec<String>> {
        let tracked = self.repo.nul_separated(&[
            "diff",
            "--name-only",
            "-z",
            "--no-renames",
            self.base.as_str(),
        ])?;
        let untracked =
            self.repo
                .nul_separated(&["ls-files", "--others", "--exclude-standard", "-z"])?;
        let mut paths: Vec<String> = tracked.into_iter().chain(untracked).collect();
        paths.sort();
        paths.dedup();
        Ok(paths)
    }
}

impl GitRepo {
    /// The NUL-separated paths a git command prints (relative to the top level).
    fn nul_separated(&self, args: &[&str]) -> Result<Vec<String>> {
        let out = self.git().args(args).output()?;
        if !out.status.success() {
            bail!(
                "git {} failed: {}",
                args.first().copied().unwrap_or_default(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(out
            .stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect())
    }
}
