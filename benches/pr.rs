//! The cost of one pull request against a cached base graph (see BENCHMARKS.md):
//!   BLAST_CORPUS=DIR [BLAST_ROUNDS=7] cargo bench --bench pr
//! A server holds each repository's base graph in a shared cache; a pull request forks
//! it, lays the changed files over the fork and reads callers from both. Prints: the
//! time of `Graph::build` of the corpus's facts; the time of a fork of the corpus
//! graph (`Graph::clone`) and the heap it holds on its own; the same for a fork with a
//! ~50-file change laid over it; the time of `blast` of that change against the base
//! graph.

use std::time::Instant;

use blast_radius::blast::radius::{blast, BlastOptions, FileChange};
use blast_radius::graph::{DefId, Graph};
use blast_radius::indexer::facts::DefKind;
use blast_radius::indexer::pipeline::{extract_all, SourceFile};
use blast_radius::indexer::skip::SkipRules;
use blast_radius::indexer::Language;
use blast_radius::workspace::walk;

mod common;

use common::{median, start_counting, stop_counting, Counting};

#[global_allocator]
static ALLOC: Counting = Counting;

/// Files the pull request changes.
const PR_FILES: usize = 50;

fn main() {
    let root = common::corpus();
    let rules = SkipRules::default();
    let paths = walk::list(&root).expect("listing the corpus");
    let files: Vec<SourceFile> = walk::read(&root, paths).expect("reading the corpus");
    let sources: Vec<(String, String)> = files
        .iter()
        .filter(|f| Language::from_path(&f.path).is_some())
        .filter(|f| rules.check(&f.path, &f.bytes).is_ok())
        .filter_map(|f| Some((f.path.clone(), String::from_utf8(f.bytes.clone()).ok()?)))
        .collect();
    let rounds: usize = std::env::var("BLAST_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(7);
    let extracted = extract_all(files, &rules, &|| {});

    // 0. The base graph built from the corpus's facts (resolution included): the part of
    // indexing that the graph's layout decides.
    let mut times = Vec::new();
    for _ in 0..rounds {
        let (facts, configs) = (extracted.facts.clone(), extracted.configs.clone());
        let start = Instant::now();
        let graph = Graph::build(facts, configs);
        times.push(start.elapsed().as_secs_f64() * 1e3);
        drop(std::hint::black_box(graph));
    }
    println!(
        "build: median {:.1} ms (best {:.1} ms over {rounds})",
        median(times.clone()),
        best(&times)
    );
    let base = Graph::build(extracted.facts, extracted.configs);
    let changes = pull_request(&base, &sources);
    println!(
        "corpus: {} files in the graph, {:.1} MB (approx_heap_bytes); a pull request of {} \
         files, each with one function body edited",
        base.file_count(),
        base.approx_heap_bytes() as f64 / 1e6,
        changes.len()
    );

    // 1. A fork of the base graph: what a pull request starts from.
    let mut times = Vec::new();
    for _ in 0..rounds {
        let start = Instant::now();
        let fork = std::hint::black_box(base.clone());
        times.push(start.elapsed().as_secs_f64() * 1e3);
        drop(fork);
    }
    start_counting();
    let fork = base.clone();
    let held = stop_counting();
    drop(fork);
    println!(
        "fork: median {:.3} ms (best {:.3} ms over {rounds}), {:.2} MB of heap of its own",
        median(times.clone()),
        best(&times),
        held as f64 / 1e6
    );

    // 2. The fork with the pull request's files laid over it.
    let mut times = Vec::new();
    for _ in 0..rounds {
        let start = Instant::now();
        let mut fork = base.clone();
        for c in &changes {
            fork.update_file(&c.path, c.new.as_deref().expect("edited"));
        }
        times.push(start.elapsed().as_secs_f64() * 1e3);
        drop(std::hint::black_box(fork));
    }
    start_counting();
    let mut fork = base.clone();
    for c in &changes {
        fork.update_file(&c.path, c.new.as_deref().expect("edited"));
    }
    let held = stop_counting();
    drop(fork);
    println!(
        "fork + {} files updated: median {:.2} ms (best {:.2} ms), {:.2} MB of heap of its own",
        changes.len(),
        median(times.clone()),
        best(&times),
        held as f64 / 1e6
    );

    // 3. The blast of the pull request against the base graph, which stays as it is.
    let options = BlastOptions {
        base: "base".into(),
        head: "head".into(),
        depth: 1,
        skipped_files: 0,
        skipped: Vec::new(),
    };
    let mut times = Vec::new();
    let mut found = (0, 0);
    for _ in 0..rounds {
        let start = Instant::now();
        let report = blast(&base, &changes, &options);
        times.push(start.elapsed().as_secs_f64() * 1e3);
        found = (report.changed.len(), report.callers.len());
    }
    println!(
        "blast: median {:.2} ms (best {:.2} ms) for {} changed functions, {} callers",
        median(times.clone()),
        best(&times),
        found.0,
        found.1
    );
}

fn best(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Files spread evenly over the corpus, each with the body of one function that has
/// callers edited (a statement added before its closing brace).
fn pull_request(graph: &Graph, sources: &[(String, String)]) -> Vec<FileChange> {
    let mut candidates = Vec::new();
    for (path, src) in sources {
        let Some(f) = graph.file_id(path) else {
            continue;
        };
        let facts = graph.facts(f);
        let called = facts.defs.iter().enumerate().find(|(i, d)| {
            let end = d.span.end_byte as usize;
            matches!(d.kind, DefKind::Function | DefKind::Method)
                && end > 0
                && src.as_bytes().get(end - 1) == Some(&b'}')
                && !graph.callers(DefId::new(f, *i as u32)).is_empty()
        });
        if let Some((_, def)) = called {
            let end = def.span.end_byte as usize - 1;
            candidates.push(FileChange {
                path: path.clone(),
                old: Some(src.clone()),
                new: Some(format!("{}\n  void 0;\n{}", &src[..end], &src[end..])),
            });
        }
    }
    let stride = (candidates.len() / PR_FILES).max(1);
    candidates
        .into_iter()
        .step_by(stride)
        .take(PR_FILES)
        .collect()
}
