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

pub fn run_text(dir: &Path, args: &[&str]) -> Result<String, String> {
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
    // Made once per commit, as GitHub's codeload serves a commit's archive: a benchmark
    // then times the app's download and indexing, not the fake's gzip.
    type Archives = std::collections::HashMap<(std::path::PathBuf, String, String), Vec<u8>>;
    static ARCHIVES: std::sync::Mutex<Option<Archives>> = std::sync::Mutex::new(None);
    let key = (dir.to_path_buf(), sha.to_string(), prefix.to_string());
    if let Some(bytes) = ARCHIVES
        .lock()
        .unwrap()
        .get_or_insert_with(Default::default)
        .get(&key)
    {
        return Ok(bytes.clone());
    }
    let bytes = run(
        dir,
        &[
            "archive",
            "--format=tar.gz",
            &format!("--prefix={prefix}/"),
            sha,
        ],
    )?;
    ARCHIVES
        .lock()
        .unwrap()
        .get_or_insert_with(Default::default)
        .insert(key, bytes.clone());
    Ok(bytes)
}

/// One line of `git diff --raw`.
#[derive(Clone, Debug)]
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

/// One file of a diff, as GitHub's PR files list describes it.
#[derive(Clone, Debug)]
pub struct FileDiff {
    pub change: RawChange,
    pub additions: u64,
    pub deletions: u64,
    /// The hunks, from the first `@@` on, without a final newline (GitHub's `patch`);
    /// `None` for binary files and changes without hunks (a pure rename).
    pub patch: Option<String>,
}

/// Every changed file between two commits with its patch: `git diff --raw` for the list,
/// then one `git diff -p` cut at its `diff --git` lines (git prints them in the same order,
/// a type change as two parts).
pub fn diff_files(dir: &Path, from: &str, to: &str) -> Result<Vec<FileDiff>, String> {
    let changes = diff_raw(dir, from, to)?;
    let out = run(
        dir,
        &[
            "diff",
            "-M",
            "-p",
            "--no-color",
            "--no-ext-diff",
            "--full-index",
            from,
            to,
        ],
    )?;
    let text = String::from_utf8_lossy(&out);
    let mut sections: Vec<String> = Vec::new();
    for line in text.split_inclusive('\n') {
        if line.starts_with("diff --git ") || sections.is_empty() {
            sections.push(String::new());
        }
        sections.last_mut().unwrap().push_str(line);
    }
    let mut sections = sections.into_iter();
    let mut files = Vec::with_capacity(changes.len());
    for change in changes {
        let parts = if change.status == 'T' { 2 } else { 1 };
        let mut hunks = String::new();
        let (mut additions, mut deletions) = (0, 0);
        for _ in 0..parts {
            let section = sections
                .next()
                .ok_or_else(|| format!("no patch for {}", change.path))?;
            let Some(start) = section.match_indices("\n@@ ").next().map(|(i, _)| i + 1) else {
                continue;
            };
            for line in section[start..].lines() {
                if line.starts_with('+') {
                    additions += 1;
                } else if line.starts_with('-') {
                    deletions += 1;
                }
            }
            if !hunks.is_empty() && !hunks.ends_with('\n') {
                hunks.push('\n');
            }
            hunks.push_str(&section[start..]);
        }
        let patch = hunks.trim_end_matches('\n').to_string();
        files.push(FileDiff {
            change,
            additions,
            deletions,
            patch: (!patch.is_empty()).then_some(patch),
        });
    }
    Ok(files)
}

/// GitHub's test merge: `head` merged into `base` as a real merge commit (`git merge-tree
/// --write-tree`, then `git commit-tree`), or `None` when they conflict.
pub fn test_merge(dir: &Path, base: &str, head: &str) -> Result<Option<String>, String> {
    let out = command(dir)
        .args(["merge-tree", "--write-tree", "--no-messages", base, head])
        .output()
        .map_err(|e| format!("running git: {e}"))?;
    match out.status.code() {
        Some(0) => {}
        Some(1) => return Ok(None),
        _ => {
            return Err(format!(
                "git merge-tree: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let tree = stdout.lines().next().unwrap_or_default().trim().to_string();
    let message = format!("Merge {head} into {base}");
    let commit = run_text(
        dir,
        &["commit-tree", &tree, "-p", base, "-p", head, "-m", &message],
    )?;
    Ok(Some(commit))
}

/// `git update-ref <name> <sha>`.
pub fn update_ref(dir: &Path, name: &str, sha: &str) -> Result<(), String> {
    run(dir, &["update-ref", name, sha]).map(|_| ())
}
