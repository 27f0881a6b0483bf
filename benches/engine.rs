//! Engine benchmarks on a corpus of real code (see BENCHMARKS.md):
//!   BLAST_CORPUS=DIR [BLAST_ROUNDS=5] cargo bench --bench engine
//! Prints: parse-alone vs index wall time on all cores (and their ratio), graph heap
//! bytes per call site, `callers` lookup latency, `update_file` latency.

use std::time::Instant;

use blast_radius::graph::{DefId, Graph};
use blast_radius::indexer::arena;
use blast_radius::indexer::pipeline::{extract_all, SourceFile};
use blast_radius::indexer::skip::SkipRules;
use blast_radius::indexer::Language;
use blast_radius::workspace::walk;
use rayon::prelude::*;

mod common;

use common::{median, start_counting, stop_counting, Counting};

#[global_allocator]
static ALLOC: Counting = Counting;

thread_local! {
    /// Parsing alone reuses one parser per thread, as any tree-sitter user would.
    static PARSER: std::cell::RefCell<tree_sitter::Parser> =
        std::cell::RefCell::new(tree_sitter::Parser::new());
}

fn main() {
    // `cargo bench` passes --bench; nothing else to parse.
    let root = common::corpus();
    let rules = SkipRules::default();
    let paths = walk::list(&root).expect("listing the corpus");
    let files: Vec<SourceFile> = walk::read(&root, paths).expect("reading the corpus");
    // Like with like: both sides see the same files (skip rules applied once, here).
    let files: Vec<SourceFile> = files
        .into_iter()
        .filter(|f| {
            Language::from_path(&f.path).is_none() || rules.check(&f.path, &f.bytes).is_ok()
        })
        .collect();
    let sources: Vec<(String, Language, String)> = files
        .iter()
        .filter_map(|f| {
            let lang = Language::from_path(&f.path)?;
            Some((
                f.path.clone(),
                lang,
                String::from_utf8(f.bytes.clone()).ok()?,
            ))
        })
        .collect();
    let bytes: usize = sources.iter().map(|s| s.2.len()).sum();
    println!(
        "corpus: {} source files, {:.1} MB, {} threads",
        sources.len(),
        bytes as f64 / 1e6,
        rayon::current_num_threads()
    );

    // 1 and 2: tree-sitter alone, then the full index (parse + extract + resolve), all
    // cores, in alternating rounds so that a slow spell of the machine hits both sides.
    // Like parsing alone, the index starts from the files in memory: the copy it
    // consumes is made before the clock.
    let parse_alone = || {
        sources
            .par_iter()
            .map(|(_, lang, src)| {
                PARSER.with_borrow_mut(|p| {
                    p.set_language(&lang.grammar()).unwrap();
                    p.parse(src, None)
                        .map_or(0, |t| t.root_node().child_count())
                })
            })
            .sum::<usize>()
    };
    // The same parses, each in an arena scope as the index runs them (a parser per file,
    // the tree discarded with the scope): what parsing costs inside the index.
    let parse_in_arena = || {
        sources
            .par_iter()
            .map(|(_, lang, src)| {
                // SAFETY: the parser and the tree live and die inside the scope.
                unsafe {
                    arena::scope(|| {
                        let mut p = tree_sitter::Parser::new();
                        p.set_language(&lang.grammar()).unwrap();
                        p.parse(src, None).map_or(0, |t| {
                            let n = t.root_node().child_count();
                            arena::discard(t);
                            n
                        })
                    })
                }
            })
            .sum::<usize>()
    };
    let copies = || -> Vec<SourceFile> {
        files
            .iter()
            .map(|f| SourceFile::new(f.path.clone(), f.bytes.clone()))
            .collect()
    };
    // More rounds (BLAST_ROUNDS) narrow the spread on a noisy machine.
    let rounds: usize = std::env::var("BLAST_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let (mut parses, mut indexes, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let (mut parse_cpu, mut index_cpu) = (Vec::new(), Vec::new());
    let mut arena_parses = Vec::new();
    for _ in 0..rounds {
        // Tree-sitter as it ships, on malloc.
        // SAFETY: no scope is open, and no tree made in one remains.
        unsafe { arena::restore_default_allocator() };
        let (cpu, start) = (common::cpu_seconds(), Instant::now());
        std::hint::black_box(parse_alone());
        let parse = start.elapsed();
        parse_cpu.push(common::cpu_seconds() - cpu);
        let input = copies();
        let (cpu, start) = (common::cpu_seconds(), Instant::now());
        let extracted = extract_all(input, &rules, &|| {});
        let graph = Graph::build(extracted.facts, extracted.configs);
        let index = start.elapsed();
        index_cpu.push(common::cpu_seconds() - cpu);
        drop(graph);
        let start = Instant::now();
        std::hint::black_box(parse_in_arena());
        arena_parses.push(start.elapsed().as_secs_f64());
        parses.push(parse.as_secs_f64());
        indexes.push(index.as_secs_f64());
        ratios.push(index.as_secs_f64() / parse.as_secs_f64());
    }
    let best = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let (parse, index) = (best(&parses), best(&indexes));
    println!(
        "index: parse alone {:.3} s, index {:.3} s (best of {rounds} alternating rounds), \
         ratio {:.2}; ratio within a round: median {:.2}, range {:.2}-{:.2}",
        parse,
        index,
        index / parse,
        median(ratios.clone()),
        best(&ratios),
        ratios.iter().copied().fold(0.0, f64::max),
    );
    let arena_parse = best(&arena_parses);
    println!(
        "index: parse alone in the index's arena {arena_parse:.3} s ({:.2} of malloc's); \
         index over that {:.2}",
        arena_parse / parse,
        index / arena_parse
    );
    // CPU time (all threads) says how much work each side is, apart from how well it
    // keeps the cores busy: a ratio of CPU times below the wall ratio is time the index
    // leaves a core idle (serial phases, the last files of the parallel part).
    let (pc, ic) = (best(&parse_cpu), best(&index_cpu));
    println!(
        "index: CPU time parse alone {pc:.3} s, index {ic:.3} s, ratio {:.2}; cores busy: \
         parse alone {:.2}, index {:.2}",
        ic / pc,
        pc / parse,
        ic / index
    );

    // 3. the graph's heap size: everything a graph holds, the facts it took over included.
    let extracted = extract_all(copies(), &rules, &|| {});
    start_counting();
    let facts_copy = extracted.facts.clone();
    let facts_bytes = stop_counting();
    drop(facts_copy);
    start_counting();
    let mut graph = Graph::build(extracted.facts, extracted.configs);
    let total = stop_counting() + facts_bytes;
    let sites: usize = graph.file_ids().map(|f| graph.facts(f).calls.len()).sum();
    let edges: usize = graph.file_ids().map(|f| graph.edges(f).len()).sum();
    println!(
        "memory: graph {:.1} MB on the heap ({:.1} MB of it per-file facts) for {} call sites \
         (incl. property reads) and {} edges: {:.0} bytes per call site",
        total as f64 / 1e6,
        facts_bytes as f64 / 1e6,
        sites,
        edges,
        total as f64 / sites as f64
    );

    let parts = graph.heap_parts();
    println!(
        "memory: by part (estimate, {:.1} MB): {}",
        parts.total() as f64 / 1e6,
        parts
            .named()
            .iter()
            .map(|(name, bytes)| format!("{name} {:.2}", *bytes as f64 / 1e6))
            .collect::<Vec<_>>()
            .join(", ")
    );

    // 4. callers lookups.
    let targets: Vec<DefId> = graph
        .file_ids()
        .flat_map(|f| (0..graph.facts(f).defs.len() as u32).map(move |d| DefId::new(f, d)))
        .collect();
    let mut per_lookup = Vec::new();
    let mut found = 0usize;
    for chunk in targets.chunks(1000).cycle().take(200) {
        let start = Instant::now();
        for &d in chunk {
            found += std::hint::black_box(graph.callers(d)).len();
        }
        per_lookup.push(start.elapsed().as_nanos() as f64 / chunk.len() as f64);
    }
    println!(
        "callers: median {:.0} ns per lookup over {} definitions ({} callers seen)",
        median(per_lookup),
        targets.len(),
        found
    );

    // 5. update_file: one file edited (a call appended to its end), re-resolved in place.
    let mut step_times = Vec::new();
    let mut slowest = (0.0, String::new());
    let stride = (sources.len() / 60).max(1);
    for (path, _, src) in sources.iter().step_by(stride).take(60) {
        let edited = format!("{src}\nhelper_for_bench();\n");
        let start = Instant::now();
        graph.update_file(path, &edited);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        step_times.push(ms);
        if ms > slowest.0 {
            slowest = (ms, path.clone());
        }
        graph.update_file(path, src);
    }
    let max = step_times.iter().cloned().fold(0.0, f64::max);
    println!(
        "update_file: median {:.2} ms, max {:.2} ms ({}) over {} files",
        median(step_times.clone()),
        max,
        slowest.1,
        step_times.len()
    );
    // The worst case the sample may miss: the corpus's largest source file.
    if let Some((path, _, src)) = sources.iter().max_by_key(|s| s.2.len()) {
        let edited = format!("{src}\nhelper_for_bench();\n");
        let start = Instant::now();
        graph.update_file(path, &edited);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        graph.update_file(path, src);
        println!(
            "update_file: the largest file, {path} ({:.0} KB), {ms:.2} ms",
            src.len() as f64 / 1e3
        );
    }
}
