//! Store benchmarks against a real Postgres (see BENCHMARKS.md):
//!   BLAST_CORPUS=DIR DATABASE_URL=postgres://... cargo bench --bench store
//! Uses (and drops) a database named `blast_bench` on that server. Prints: persisting
//! the corpus (edges per second), warm start vs indexing from source, one changed file
//! through `workflow::apply_push::apply_push`, and a synthetic repository of 5 million call edges (load
//! time, heap bytes per edge).

mod common;

use std::time::Instant;

use blast_radius::indexer::pipeline::SourceFile;
use blast_radius::indexer::skip::SkipRules;
use blast_radius::model::CommitSha;
use blast_radius::store::Store;
use blast_radius::workflow::apply_push::{apply_push, FileInput};
use blast_radius::workflow::save::index_in_memory;
use blast_radius::workspace::walk;
use common::{median, start_counting, stop_counting, Counting};

#[global_allocator]
static ALLOC: Counting = Counting;

async fn fresh_database() -> (Store, String) {
    let url = common::fresh_database("blast_bench").await;
    let store = Store::connect(&url).await.expect("connect to blast_bench");
    store.migrate().await.unwrap();
    (store, url)
}

fn sources_of(files: &[(String, Vec<u8>)]) -> Vec<SourceFile> {
    files
        .iter()
        .map(|(p, b)| SourceFile::new(p.clone(), b.clone()))
        .collect()
}

/// `files` files, each exporting 10 functions and calling functions of the files before
/// it `calls` times: files * calls edges, all exact.
fn synthetic(files: usize, calls: usize) -> Vec<(String, Vec<u8>)> {
    (0..files)
        .map(|i| {
            let mut src = String::new();
            let deps: Vec<usize> = (1..=4).filter(|d| *d <= i).map(|d| i - d).collect();
            for d in &deps {
                src.push_str(&format!(
                    "import {{ {} }} from './m{d}';\n",
                    (0..10)
                        .map(|k| format!("f{d}_{k}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            for k in 0..10 {
                src.push_str(&format!("export function f{i}_{k}(x) {{\n"));
                for c in 0..calls / 10 {
                    match deps.get(c % deps.len().max(1)) {
                        Some(d) => src.push_str(&format!("  f{d}_{}(x);\n", (c + k) % 10)),
                        None => src.push_str(&format!("  f{i}_{}(x);\n", (k + 1) % 10)),
                    }
                }
                src.push_str("}\n");
            }
            (format!("src/m{i}.js"), src.into_bytes())
        })
        .collect()
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(run());
}

async fn run() {
    let (store, url) = fresh_database().await;
    let rules = SkipRules::default();

    // ---- the corpus ----
    let root = common::corpus();
    let paths = walk::list(&root).unwrap();
    let files: Vec<(String, Vec<u8>)> = walk::read(&root, paths)
        .unwrap()
        .into_iter()
        .map(|f| (f.path, f.bytes))
        .collect();
    let start = Instant::now();
    let (indexed, meta) = index_in_memory(sources_of(&files), &rules);
    let graph = indexed.graph;
    let index_time = start.elapsed();
    let c0 = CommitSha::from("c0");
    let c1 = CommitSha::from("c1");
    // The facts cache is emptied between runs through a connection of the bench's own.
    let admin = sqlx::PgPool::connect(&url).await.unwrap();
    // A repository's first write (what installing the app does to every repository),
    // best of 3: each run writes a new repository with the facts cache emptied.
    let mut saves = Vec::new();
    let mut written = None;
    let mut repo = None;
    for run in 0..3 {
        if let Some(r) = repo.take() {
            store.delete_repository(r).await.unwrap();
        }
        sqlx::query("TRUNCATE facts_cache")
            .execute(&admin)
            .await
            .unwrap();
        let r = store
            .ensure_repository(&format!("corpus-{run}"))
            .await
            .unwrap()
            .id;
        let start = Instant::now();
        written = Some(store.save_full(r, Some(&c0), &graph, &meta).await.unwrap());
        saves.push(start.elapsed().as_secs_f64());
        repo = Some(r);
    }
    let (written, repo) = (written.unwrap(), repo.unwrap());
    let save = saves.iter().cloned().fold(f64::MAX, f64::min);
    println!(
        "corpus persist: {} files, {} edges in {:.3} s (runs: {}): {:.0} edges/s (all rows: files, facts, definitions, edges)",
        written.files,
        written.edges,
        save,
        saves.iter().map(|s| format!("{s:.3}")).collect::<Vec<_>>().join(", "),
        written.edges as f64 / save
    );
    // Writing it again over its own rows (a re-index: rows replaced in place, indexes
    // maintained row by row, the facts cache already holding every blob).
    let start = Instant::now();
    let rewritten = store
        .save_full(repo, Some(&c0), &graph, &meta)
        .await
        .unwrap();
    let resave = start.elapsed().as_secs_f64();
    println!(
        "corpus re-persist over its own rows: {:.3} s: {:.0} edges/s",
        resave,
        rewritten.edges as f64 / resave
    );
    let written = rewritten;
    let mut loads = Vec::new();
    for _ in 0..3 {
        let start = Instant::now();
        let (loaded, _) = store.load_graph(repo).await.unwrap();
        loads.push(start.elapsed().as_secs_f64());
        assert_eq!(loaded.edge_keys().len(), graph.edge_keys().len());
    }
    let load = loads.iter().cloned().fold(f64::MAX, f64::min);
    println!(
        "corpus warm start: load {:.3} s vs index from source {:.3} s: {:.1}x faster",
        load,
        index_time.as_secs_f64(),
        index_time.as_secs_f64() / load
    );

    // One changed file at a time: parse + re-resolve + transaction.
    let mut graph = graph;
    let mut version = written.version;
    let mut times = Vec::new();
    let code: Vec<&(String, Vec<u8>)> = files
        .iter()
        .filter(|(p, b)| {
            blast_radius::indexer::Language::from_path(p).is_some() && rules.check(p, b).is_ok()
        })
        .collect();
    let stride = (code.len() / 30).max(1);
    for (path, bytes) in code.iter().step_by(stride).take(30) {
        let mut edited = bytes.clone();
        edited.extend_from_slice(
            format!("\nexport function benchEdit{version}() {{ return 1; }}\n").as_bytes(),
        );
        let input = FileInput::new(path.clone(), edited);
        let start = Instant::now();
        let (g, w) = apply_push(
            &store,
            repo,
            graph,
            version,
            Some(&c1),
            vec![input],
            vec![],
            &rules,
        )
        .await
        .unwrap();
        times.push(start.elapsed().as_secs_f64() * 1e3);
        graph = g;
        version = w.version;
    }
    let max = times.iter().cloned().fold(0.0, f64::max);
    println!(
        "one changed file (apply_push): median {:.1} ms, max {:.1} ms over {} pushes",
        median(times.clone()),
        max,
        times.len()
    );
    drop(graph);

    // ---- 5 million edges ----
    if std::env::var_os("BLAST_BENCH_QUICK").is_some() {
        return;
    }
    let files = synthetic(20_000, 250);
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    let start = Instant::now();
    let (indexed, meta) = index_in_memory(sources_of(&files), &rules);
    let graph = indexed.graph;
    let edges = graph.edge_keys().len();
    println!(
        "synthetic: {} files, {:.0} MB, {} edges, indexed in {:.1} s",
        files.len(),
        bytes as f64 / 1e6,
        edges,
        start.elapsed().as_secs_f64()
    );
    drop(files);
    let repo = store.ensure_repository("synthetic").await.unwrap();
    let start = Instant::now();
    let written = store.save_full(repo.id, None, &graph, &meta).await.unwrap();
    let save = start.elapsed();
    println!(
        "synthetic persist: {} edges in {:.1} s: {:.0} edges/s",
        written.edges,
        save.as_secs_f64(),
        written.edges as f64 / save.as_secs_f64()
    );
    drop(graph);
    drop(meta);
    start_counting();
    let start = Instant::now();
    let (loaded, _) = store.load_graph(repo.id).await.unwrap();
    let load = start.elapsed();
    let held = stop_counting();
    let loaded_edges: usize = loaded.file_ids().map(|f| loaded.edges(f).len()).sum();
    println!(
        "synthetic load: {:.1} s, graph {:.0} MB on the heap: {:.1} bytes per edge ({} edges)",
        load.as_secs_f64(),
        held as f64 / 1e6,
        held as f64 / loaded_edges as f64,
        loaded_edges
    );
}
