//! The whole `index` process against a process that only parses, as a user times them
//! (issue 45 §2): wall and CPU time of each, in interleaved runs.
//!   BLAST_CORPUS=DIR [BLAST_ROUNDS=7] [BLAST_BENCH_INDEX=BINARY] cargo bench --bench process
//!
//! "Parsing alone" is this bench binary run again as a child: it lists the corpus as the
//! index does (the same walk and skip rules), reads each file and parses it with
//! tree-sitter on every core, one parser per thread, and exits. The index is the
//! `blast-radius` binary, `index --no-cache` (and with an empty facts cache, the first
//! run a user makes). Both start from nothing: the process's start, the walk, the reads
//! and the exit are in the figures, as they are in a user's.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use blast_radius::indexer::skip::SkipRules;
use blast_radius::indexer::Language;
use blast_radius::workspace::walk;
use rayon::prelude::*;

mod common;

const PARSE_ALONE: &str = "BLAST_BENCH_PARSE_ALONE";

thread_local! {
    static PARSER: std::cell::RefCell<tree_sitter::Parser> =
        std::cell::RefCell::new(tree_sitter::Parser::new());
}

fn main() {
    if let Some(dir) = std::env::var_os(PARSE_ALONE) {
        let nodes = parse_alone(Path::new(&dir));
        println!("{nodes}");
        return;
    }
    let corpus = common::corpus();
    let rounds: usize = std::env::var("BLAST_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(7);
    let cache = tempfile::tempdir().expect("a temporary directory");
    let me = std::env::current_exe().expect("this bench's path");
    // Another build's binary (BLAST_BENCH_INDEX), to time a before against an after.
    let index = std::env::var("BLAST_BENCH_INDEX")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_blast-radius").to_string());
    let index = index.as_str();
    let corpus_arg = corpus.to_str().expect("a UTF-8 path");
    let mut runs: [(&str, Vec<f64>, Vec<f64>); 3] = [
        ("parse alone", Vec::new(), Vec::new()),
        ("index --no-cache", Vec::new(), Vec::new()),
        ("index, empty cache", Vec::new(), Vec::new()),
    ];
    for round in 0..rounds {
        // Alternate the order, so that a slow spell of the machine hits every side.
        let mut order = [0, 1, 2];
        order.rotate_left(round % 3);
        for which in order {
            let mut command = match which {
                0 => {
                    let mut c = Command::new(&me);
                    c.env(PARSE_ALONE, &corpus);
                    c
                }
                1 => {
                    let mut c = Command::new(index);
                    c.args(["index", "--repo", corpus_arg, "--no-cache"]);
                    c
                }
                _ => {
                    let _ = std::fs::remove_dir_all(cache.path());
                    let mut c = Command::new(index);
                    c.args(["index", "--repo", corpus_arg])
                        .env_remove("BLAST_RADIUS_NO_CACHE")
                        .env("BLAST_RADIUS_CACHE_DIR", cache.path());
                    c
                }
            };
            let (wall, cpu) = timed(&mut command);
            runs[which].1.push(wall);
            runs[which].2.push(cpu);
        }
    }
    let median = |v: &[f64]| common::median(v.to_vec());
    let (parse_wall, parse_cpu) = (median(&runs[0].1), median(&runs[0].2));
    println!(
        "corpus {} ({rounds} interleaved rounds, {} threads); medians:",
        corpus.display(),
        rayon::current_num_threads()
    );
    for (name, walls, cpus) in &runs {
        let (wall, cpu) = (median(walls), median(cpus));
        println!(
            "{name:<20} wall {wall:.3} s ({:.2}x), CPU {cpu:.3} s ({:.2}x), cores busy {:.2}; wall range {:.3}-{:.3} s",
            wall / parse_wall,
            cpu / parse_cpu,
            cpu / wall,
            walls.iter().copied().fold(f64::INFINITY, f64::min),
            walls.iter().copied().fold(0.0, f64::max),
        );
    }
}

/// Runs `command` to its end: its wall time and the CPU time it and its children used.
fn timed(command: &mut Command) -> (f64, f64) {
    let before = children_cpu();
    let start = Instant::now();
    let status = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the process starts");
    let wall = start.elapsed().as_secs_f64();
    assert!(status.success(), "{command:?} failed: {status}");
    (wall, children_cpu() - before)
}

/// CPU seconds of the children waited for so far.
fn children_cpu() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr());
        usage.assume_init()
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Lists, reads and parses every source file under `root` the index would parse: the
/// syntax trees' top-level node count, so that nothing is optimised away.
fn parse_alone(root: &Path) -> usize {
    let rules = SkipRules::default();
    let paths = walk::list(root).expect("listing the corpus");
    // One file per piece of work, as the index schedules them (a fair baseline).
    paths
        .into_par_iter()
        .with_max_len(1)
        .map(|path| {
            let Some(language) = Language::from_path(&path) else {
                return 0;
            };
            let Ok(file) = walk::read_one(root, path) else {
                return 0;
            };
            if rules.check(&file.path, &file.bytes).is_err() {
                return 0;
            }
            let Ok(text) = std::str::from_utf8(&file.bytes) else {
                return 0;
            };
            PARSER.with_borrow_mut(|p| {
                p.set_language(&language.grammar()).expect("a grammar");
                p.parse(text, None)
                    .map_or(0, |t| t.root_node().child_count())
            })
        })
        .sum()
}
