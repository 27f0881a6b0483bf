//! The requests the fake received, checked against GitHub's REST description
//! (`@octokit/openapi` from npm, pinned in `tests/openapi/package-lock.json`) by
//! `tests/openapi/check.mjs`: no unknown endpoint or query parameter, no invalid body.
//!
//! - [`check_requests`]: one fake's requests (`fake.requests()`), e.g. at the end of an
//!   end-to-end test; [`FakeGithub::check_against_openapi`](super::FakeGithub) does that.
//! - [`check_dumps`]: dumps written by [`FakeGithub::dump_requests`](super::FakeGithub).
//! - [`check_every_test_of_this_module`]: runs the other tests of the calling test's
//!   module again in a child process in which every fake dumps its requests when dropped,
//!   then checks them all.
//!
//! Needs Node.js: the npm packages are installed on first use (`npm ci`, once, under a lock).
//! With `BLAST_RADIUS_SKIP_OPENAPI=1` the check is skipped (offline machines).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use serde::Deserialize;

use super::model::Recorded;

/// Set in the child process of [`check_every_test_of_this_module`]: each fake dumps its
/// requests into this directory when dropped.
pub const RECORD_DIR_ENV: &str = "FAKE_GITHUB_RECORD_DIR";
/// Set to `1` to skip the check (no Node.js, no registry).
pub const SKIP_ENV: &str = "BLAST_RADIUS_SKIP_OPENAPI";

/// What the checker found.
#[derive(Debug, Deserialize)]
pub struct OpenapiReport {
    /// The description checked against (`api.github.com`).
    pub spec: String,
    /// Requests checked.
    pub checked: usize,
    /// Requests outside the API (the tarball download).
    pub skipped: usize,
    /// `METHOD /path/{template}` → how many requests.
    pub operations: BTreeMap<String, usize>,
    /// Requests to endpoints GitHub serves but leaves out of its description (listed in
    /// `check.mjs`: `GET /repositories/{repository_id}`), by operation.
    #[serde(default)]
    pub undocumented: BTreeMap<String, usize>,
    /// One line per problem; empty when everything matched.
    pub problems: Vec<String>,
}

impl OpenapiReport {
    /// Panics with every problem, if there is any.
    pub fn assert_clean(&self) {
        assert!(
            self.problems.is_empty(),
            "{} of {} requests do not match GitHub's REST description ({}):\n{}",
            self.problems.len(),
            self.checked,
            self.spec,
            self.problems.join("\n")
        );
    }

    /// Whether `operation` (`POST /repos/{owner}/{repo}/check-runs`) was among the requests.
    pub fn saw(&self, operation: &str) -> bool {
        self.operations.contains_key(operation)
    }
}

pub fn skipped() -> bool {
    std::env::var(SKIP_ENV).is_ok_and(|v| v == "1")
}

fn checker_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/openapi")
}

fn installed(dir: &Path) -> bool {
    ["@octokit/openapi", "ajv", "ajv-formats"].iter().all(|p| {
        dir.join("node_modules")
            .join(p)
            .join("package.json")
            .exists()
    })
}

/// `npm ci` in `tests/openapi` unless its packages are there; one process at a time (a
/// lock directory under the target directory).
fn ensure_installed() {
    let dir = checker_dir();
    if installed(&dir) {
        return;
    }
    let lock = Path::new(env!("CARGO_TARGET_TMPDIR")).join("openapi-npm-ci.lock");
    let started = Instant::now();
    loop {
        match std::fs::create_dir(&lock) {
            Ok(()) => break,
            Err(_) => {
                let stale = std::fs::metadata(&lock)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| SystemTime::now().duration_since(t).ok())
                    .is_some_and(|age| age > Duration::from_secs(600));
                if stale {
                    let _ = std::fs::remove_dir(&lock);
                }
                assert!(
                    started.elapsed() < Duration::from_secs(900),
                    "waited 15 minutes for another npm ci in {}",
                    dir.display()
                );
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }
    let result = if installed(&dir) {
        Ok(())
    } else {
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .output()
            .map_err(|e| format!("running npm: {e}"))
            .and_then(|out| {
                if out.status.success() {
                    Ok(())
                } else {
                    Err(String::from_utf8_lossy(&out.stderr).into_owned())
                }
            })
    };
    let _ = std::fs::remove_dir(&lock);
    if let Err(e) = result {
        panic!(
            "npm ci in {} failed (Node.js and npm are needed for the OpenAPI check; set \
             {SKIP_ENV}=1 to skip it): {e}",
            dir.display()
        );
    }
}

/// Writes `requests` as a dump the checker reads.
pub fn write_dump(requests: &[Recorded], path: &Path) {
    let json = serde_json::json!({ "requests": requests });
    std::fs::write(path, serde_json::to_vec(&json).unwrap()).unwrap();
}

/// Checks the dumps (files or directories of them) against GitHub's REST description.
pub fn check_dumps(paths: &[PathBuf]) -> OpenapiReport {
    ensure_installed();
    let out = Command::new("node")
        .arg("check.mjs")
        .arg("--json")
        .args(paths)
        .current_dir(checker_dir())
        .output()
        .unwrap_or_else(|e| panic!("running node (needed for the OpenAPI check): {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "the OpenAPI checker failed ({e}):\n{}\n{}",
            stdout,
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Checks `requests` against GitHub's REST description.
pub fn check_requests(requests: &[Recorded]) -> OpenapiReport {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("requests.json");
    write_dump(requests, &path);
    check_dumps(&[path])
}

/// Runs every other test of the calling test's module again, in a child process whose
/// fakes dump their requests, and checks all of them. `this_test` is the calling test as
/// the test harness names it, `module::test` (it is skipped in the child; the module
/// alone is run, since one test binary holds many modules). `None` in the child itself,
/// or when the check is skipped.
pub fn check_every_test_of_this_module(this_test: &str) -> Option<OpenapiReport> {
    if std::env::var_os(RECORD_DIR_ENV).is_some() || skipped() {
        return None;
    }
    ensure_installed();
    let (module, _) = this_test.rsplit_once("::").expect("module::test");
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .arg(format!("{module}::"))
        .args(["--skip", this_test, "--test-threads", "2"])
        .env(RECORD_DIR_ENV, dir.path())
        .output()
        .unwrap();
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stdout);
        let tail: Vec<&str> = text.lines().rev().take(60).collect();
        panic!(
            "the tests failed while their requests were recorded:\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    let dumps: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!dumps.is_empty(), "no fake dumped its requests");
    Some(check_dumps(&[dir.path().to_path_buf()]))
}
