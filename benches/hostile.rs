//! Hostile input against the release binary (issue 41), see BENCHMARKS.md:
//!   cargo build --release --bin blast-radius && cargo bench --bench hostile
//! Each attacker shape of `tests/common/hostile_shapes.rs` is written near the 1 MB file
//! limit (and at 100 KB) into a directory of its own, and each multi-file shape at a
//! few thousand files; `blast-radius index` runs on it as a child process, its wall
//! time and peak RSS (`wait4`'s `ru_maxrss`) measured. Prints a table and exits
//! non-zero when one misses the targets: indexed or skipped with a reason in
//! at most 3 s and 300 MB.
//! `BLAST_HOSTILE_ONLY=name,name` runs only the shapes whose names contain one of those.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../tests/common/hostile_shapes.rs"]
mod hostile_shapes;

use hostile_shapes::{units_for, FILE_SHAPES, REPO_SHAPES};

const MAX_WALL: Duration = Duration::from_secs(3);
const MAX_PEAK_MB: f64 = 300.0;
/// Just under the indexer's per-file limit (1 MiB).
const NEAR_LIMIT: usize = 1_040_000;
const SMALL: usize = 100_000;
/// Units of each multi-file shape: files (or names, for the cycle).
const REPO_UNITS: &[(&str, usize)] = &[
    ("same_name_fanout", 2_000),
    ("same_method_fanout", 2_000),
    ("reexport_cycle", 5_000),
    ("reexport_ring", 2_000),
    ("reexport_chain", 5_000),
    ("barrel_fanout", 2_000),
];

struct Run {
    wall: Duration,
    peak_mb: f64,
    stdout: String,
    ok: bool,
}

fn main() {
    let binary = release_binary();
    let only: Vec<String> = std::env::var("BLAST_HOSTILE_ONLY")
        .map(|s| s.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    let wanted = |name: &str| only.is_empty() || only.iter().any(|o| name.contains(o.as_str()));
    println!(
        "{:<22} {:>9} {:>7} {:<12} {:>7} {:>8}  notes",
        "shape", "bytes", "files", "outcome", "wall s", "peak MB"
    );
    let mut missed = Vec::new();
    for &(name, shape) in FILE_SHAPES {
        if !wanted(name) {
            continue;
        }
        for size in [SMALL, NEAR_LIMIT] {
            let source = shape(units_for(shape, size));
            let dir = tempfile::tempdir().expect("temp dir");
            write(dir.path(), name, &source);
            let run = index(&binary, dir.path());
            let outcome = outcome(&run.stdout);
            report(name, source.len(), 1, &outcome, &run, "", &mut missed);
        }
    }
    for &(name, shape) in REPO_SHAPES {
        if !wanted(name) {
            continue;
        }
        let n = REPO_UNITS
            .iter()
            .find(|(r, _)| *r == name)
            .map_or(2_000, |&(_, n)| n);
        let files = shape(n);
        let dir = tempfile::tempdir().expect("temp dir");
        let mut bytes = 0;
        for (path, source) in &files {
            write(dir.path(), path, source);
            bytes += source.len();
        }
        let run = index(&binary, dir.path());
        let notes = format!(
            "{}; {}; {}",
            line(&run.stdout, "edges"),
            line(&run.stdout, "unmatched"),
            line(&run.stdout, "time")
        );
        let outcome = outcome(&run.stdout);
        report(
            name,
            bytes,
            files.len(),
            &outcome,
            &run,
            &notes,
            &mut missed,
        );
    }
    if !missed.is_empty() {
        eprintln!(
            "missed the targets ({} s, {MAX_PEAK_MB} MB): {}",
            MAX_WALL.as_secs(),
            missed.join(", ")
        );
        std::process::exit(1);
    }
    println!("all within {} s and {MAX_PEAK_MB} MB", MAX_WALL.as_secs());
}

fn release_binary() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let binary = target.join("release").join("blast-radius");
    assert!(
        binary.exists(),
        "{} is missing: cargo build --release --bin blast-radius first",
        binary.display()
    );
    binary
}

fn write(dir: &Path, path: &str, source: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, source).expect("writing a shape");
}

/// Runs `index` on `dir`; its wall time and peak RSS from `wait4`.
// The child is reaped by `wait4` (for its rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn index(binary: &Path, dir: &Path) -> Run {
    let start = Instant::now();
    let mut child = Command::new(binary)
        .arg("index")
        .arg("--repo")
        .arg(dir)
        .env_remove("BLAST_DATABASE_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("running blast-radius");
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .expect("piped")
        .read_to_string(&mut stdout)
        .expect("reading its output");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: plain out-parameters; the child is ours and not yet reaped (std's
    // `Child` only reaps in `wait`, which is never called).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(reaped, pid, "wait4");
    Run {
        wall,
        // Linux gives ru_maxrss in KiB.
        peak_mb: usage.ru_maxrss as f64 * 1024.0 / 1e6,
        stdout,
        ok: libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
    }
}

/// `indexed`, or the skip reasons `index` counted (`too_costly`, `minified`, ...).
fn outcome(stdout: &str) -> String {
    let skipped = line(stdout, "skipped");
    match skipped.split_once('(') {
        Some((_, reasons)) if !reasons.starts_with("none") => {
            let reasons = reasons.trim_end_matches(')');
            reasons
                .split(", ")
                .map(|r| r.split(' ').next().unwrap_or(r))
                .collect::<Vec<_>>()
                .join("+")
        }
        _ => "indexed".to_string(),
    }
}

/// The rest of `index`'s line that starts with `key`.
fn line<'a>(stdout: &'a str, key: &str) -> &'a str {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .map_or("", str::trim)
}

fn report(
    name: &str,
    bytes: usize,
    files: usize,
    outcome: &str,
    run: &Run,
    notes: &str,
    missed: &mut Vec<String>,
) {
    let over = !run.ok || run.wall > MAX_WALL || run.peak_mb > MAX_PEAK_MB;
    println!(
        "{:<22} {:>9} {:>7} {:<12} {:>7.2} {:>8.1}  {}{}",
        name,
        bytes,
        files,
        if run.ok { outcome } else { "failed" },
        run.wall.as_secs_f64(),
        run.peak_mb,
        if over { "MISSED " } else { "" },
        notes
    );
    if over {
        missed.push(format!("{name} ({bytes} bytes)"));
    }
}
