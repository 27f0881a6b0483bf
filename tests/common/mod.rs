//! Helpers shared by the integration tests: fixture repositories as real git history.

#![allow(dead_code)]

pub mod db_proxy;
pub mod server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

pub fn copy_dir(from: &Path, to: &Path) {
    for entry in walk(from) {
        let rel = entry.strip_prefix(from).unwrap();
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &dest).unwrap();
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

pub fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=test", "-c", "user.email=test@example.com"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// A git repository with two commits: `base/` of the fixture, then `head/` laid over
/// it (files listed in `head/.deleted`, one per line, are removed).
pub fn two_commit_repo(fixture_name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    copy_dir(&fixture(&format!("{fixture_name}/base")), root);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "base"]);
    let head = fixture(&format!("{fixture_name}/head"));
    copy_dir(&head, root);
    let deleted = root.join(".deleted");
    if deleted.exists() {
        for line in std::fs::read_to_string(&deleted).unwrap().lines() {
            if !line.trim().is_empty() {
                std::fs::remove_file(root.join(line.trim())).unwrap();
            }
        }
        std::fs::remove_file(deleted).unwrap();
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "head"]);
    dir
}

pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blast-radius"))
        .args(args)
        .env("BLAST_RADIUS_CACHE_DIR", test_cache())
        .output()
        .unwrap()
}

/// The facts cache the tests' commands share (not the user's): under cargo's directory
/// for test files, so every test run exercises it, warm and cold.
pub fn test_cache() -> std::path::PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("facts-cache")
}

/// `fixtures/org`'s three repositories indexed into the database at `url` (migrated) as
/// `acme/library`, `acme/service` and `acme/private-app`, as the command line stores them.
pub fn index_org_fixtures(url: &str) {
    run_ok(&["migrate", "--database-url", url]);
    for name in ["library", "service", "private-app"] {
        let dir = fixture(&format!("org/{name}"));
        run_ok(&[
            "index",
            "--repo",
            dir.to_str().unwrap(),
            "--database-url",
            url,
            "--name",
            &format!("acme/{name}"),
        ]);
    }
}

pub fn run_ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "blast-radius {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A graph of in-memory files (path, source), as `Graph::build` makes it.
pub fn graph_of<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> blast_radius::graph::Graph {
    use blast_radius::indexer::{extract, Language};
    let facts = files
        .into_iter()
        .map(|(p, s)| extract(p, Language::from_path(p).unwrap(), s).expect("read"))
        .collect();
    blast_radius::graph::Graph::build(facts, Vec::new())
}

/// Copies `files` of `tests/<src>` into `<target tmp>/<dest>` and installs their npm
/// packages there with `npm ci`, once per lockfile (a stamp keeps the lockfile installed).
/// Fails with what to install when npm is missing.
pub fn npm_ci(src: &str, dest: &str, files: &[&str]) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(src);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dest);
    std::fs::create_dir_all(&dir).unwrap();
    for f in files {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let lock = std::fs::read(src.join("package-lock.json")).unwrap();
    let stamp = dir.join("installed-lock.json");
    if std::fs::read(&stamp).ok().as_deref() != Some(&lock[..]) {
        let out = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
            .current_dir(&dir)
            .output()
            .unwrap_or_else(|e| {
                panic!("cannot run npm ({e}): install Node.js 20+ and npm to run this test")
            });
        assert!(
            out.status.success(),
            "npm ci failed in {}:\n{}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(&stamp, &lock).unwrap();
    }
    dir
}
