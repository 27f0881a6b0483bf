//! Real git: the repositories tests build ([`TestRepo`]), and the reads the fake answers
//! with (archive, diff, ls-tree, cat-file), all through the `git` command.

use std::path::Path;
use std::process::Command;

fn command(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(dir)
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(["-c", "commit.gpgsign=false", "-c", "core.quotepath=false"])
        .env("GIT_CONFIG_NOSYSTEM", "1");
    c
}

/// `git <args>` in `dir`: its stdout, or its stderr as the error.
pub fn run(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = command(dir)
        .args(args)
        .output()
        .map_err(|e| format!("running git: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!(
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn run_text(dir: &Path, args: &[&str]) -> Result<String, String> {
    run(dir, args).map(|out| String::from_utf8_lossy(&out).trim().to_string())
}

/// A repository for a test, in a temporary directory, on branch `main`.
pub struct TestRepo {
    dir: tempfile::TempDir,
}

impl Default for TestRepo {
    fn default() -> Self {
        Self::new()
    }
}

impl TestRepo {
    pub fn new() -> TestRepo {
        let dir = tempfile::tempdir().unwrap();
        run(dir.path(), &["init", "-q", "-b", "main"]).unwrap();
        TestRepo { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file (creating its directories) in the work tree.
    pub fn write(&self, path: &str, contents: impl AsRef<[u8]>) -> &TestRepo {
        let full = self.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, contents).unwrap();
        self
    }

    pub fn remove(&self, path: &str) -> &TestRepo {
        self.git(&["rm", "-q", path]);
        self
    }

    pub fn rename(&self, from: &str, to: &str) -> &TestRepo {
        let target = self.path().join(to);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        self.git(&["mv", from, to]);
        self
    }

    /// Commits everything in the work tree; returns the new commit's sha.
    pub fn commit(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
        self.head()
    }

    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"])
    }

    /// `git <args>`, panicking on failure; stdout, trimmed.
    pub fn git(&self, args: &[&str]) -> String {
        run_text(self.path(), args).unwrap()
    }

    /// A file's bytes at a commit.
    pub fn show(&self, commit: &str, path: &str) -> Vec<u8> {
        run(self.path(), &["show", &format!("{commit}:{path}")]).unwrap()
    }
}

/// The full sha a revision names, if it names a commit.
pub fn resolve_commit(dir: &Path, rev: &str) -> Option<String> {
    run_text(
        dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .ok()
}

/// The tree a revision names (a tree sha, or a commit's tree).
pub fn resolve_tree(dir: &Path, rev: &str) -> Option<String> {
    run_text(
        dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{tree}}"),
        ],
    )
    .ok()
}

/// The branch HEAD points at.
pub fn default_branch(dir: &Path) -> Option<String> {
    run_text(dir, &["symbolic-ref", "--short", "HEAD"]).ok()
}

pub fn merge_base(dir: &Path, a: &str, b: &str) -> Option<String> {
    run_text(dir, &["merge-base", a, b]).ok()
}

pub fn count_commits(dir: &Path, range: &str) -> u64 {
    run_text(dir, &["rev-list", "--count", range])
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// `git archive --format=tar.gz --prefix=<prefix>/ <sha>`.
pub fn archive(dir: &Path, sha: &str, prefix: &str) -> Result<Vec<u8>, String> {
    run(
        dir,
        &[
            "archive",
            "--format=tar.gz",
            &format!("--prefix={prefix}/"),
            sha,
        ],
    )
}

/// One line of `git diff --raw`.
pub struct RawChange {
    /// `A`, `D`, `M`, `R`, `C`, `T`.
    pub status: char,
    pub old_sha: String,
    pub new_sha: String,
    pub path: String,
    pub old_path: Option<String>,
}

/// `git diff --raw -M` between two commits, full shas.
pub fn diff_raw(dir: &Path, from: &str, to: &str) -> Result<Vec<RawChange>, String> {
    let out = run(dir, &["diff", "--raw", "-z", "-M", "--no-abbrev", from, to])?;
    let text = String::from_utf8_lossy(&out);
    let mut tokens = text.split('\0').filter(|t| !t.is_empty());
    let mut changes = Vec::new();
    while let Some(meta) = tokens.next() {
        let fields: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        let [_, _, old_sha, new_sha, status] = fields[..] else {
            return Err(format!("unexpected diff line {meta:?}"));
        };
        let status = status.chars().next().unwrap_or('M');
        let first = tokens
            .next()
            .ok_or("a diff line without a path")?
            .to_string();
        let (path, old_path) = if matches!(status, 'R' | 'C') {
            let second = tokens.next().ok_or("a rename without its new path")?;
            (second.to_string(), Some(first))
        } else {
            (first, None)
        };
        changes.push(RawChange {
            status,
            old_sha: old_sha.to_string(),
            new_sha: new_sha.to_string(),
            path,
            old_path,
        });
    }
    Ok(changes)
}

/// One entry of `git ls-tree -l`.
pub struct LsEntry {
    pub mode: String,
    pub kind: String,
    pub sha: String,
    pub size: Option<u64>,
    pub path: String,
}

/// `git ls-tree -l` of a tree; with `recursive`, `-r -t` (sub-trees listed too, as GitHub
/// does).
pub fn ls_tree(dir: &Path, tree: &str, recursive: bool) -> Result<Vec<LsEntry>, String> {
    let mut args = vec!["ls-tree", "-z", "-l"];
    if recursive {
        args.extend(["-r", "-t"]);
    }
    args.push(tree);
    let out = run(dir, &args)?;
    let text = String::from_utf8_lossy(&out);
    text.split('\0')
        .filter(|l| !l.is_empty())
        .map(|line| {
            let (meta, path) = line.split_once('\t').ok_or("ls-tree line without a tab")?;
            let fields: Vec<&str> = meta.split_whitespace().collect();
            let [mode, kind, sha, size] = fields[..] else {
                return Err(format!("unexpected ls-tree line {line:?}"));
            };
            Ok(LsEntry {
                mode: mode.to_string(),
                kind: kind.to_string(),
                sha: sha.to_string(),
                size: size.parse().ok(),
                path: path.to_string(),
            })
        })
        .collect()
}

/// A blob's bytes, if `sha` is a blob.
pub fn cat_blob(dir: &Path, sha: &str) -> Option<Vec<u8>> {
    let kind = run_text(dir, &["cat-file", "-t", sha]).ok()?;
    if kind != "blob" {
        return None;
    }
    run(dir, &["cat-file", "blob", sha]).ok()
}
