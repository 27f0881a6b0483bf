//! Many repositories in one database (see BENCHMARKS.md, "Storage across repositories"):
//!   BLAST_CORPUS=DIR DATABASE_URL=postgres://... cargo bench --bench repositories
//! Uses (and drops) a database named `blast_bench_repos` on that server.
//!
//! One real repository (the corpus's first 108 code files) is indexed and written
//! through the store; the database is then filled with copies of its rows under new
//! repositories, in SQL, up to each size of `BLAST_BENCH_SIZES` (default
//! 100,1000,10000). At each size, through the store and the CLI as the App and a user
//! use them: a new repository's first write, a push of one changed file, a cold
//! `callers --database-url` (a process: start, load, answer), a purge of one
//! repository, the relations in the schema, and the bytes per repository against the
//! bytes of its rows.

mod common;

use std::process::Command;
use std::str::FromStr;
use std::time::Instant;

use blast_radius::graph::Graph;
use blast_radius::indexer::skip::SkipRules;
use blast_radius::model::{CommitSha, RepoId};
use blast_radius::store::Store;
use blast_radius::workflow::apply_push::{apply_push, FileInput};
use blast_radius::workflow::save::index_in_memory;
use blast_radius::workspace::walk;
use common::median;
use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Executor, PgPool};

const DATABASE: &str = "blast_bench_repos";
/// The graph's tables: what a repository's bytes are counted over.
const TABLES: [&str; 5] = [
    "files",
    "definitions",
    "edges",
    "removed_files",
    "facts_cache",
];
/// Columns of each table but `repo_id`, to copy a repository's rows under another id.
const COPIED: [(&str, &str); 4] = [
    (
        "files",
        "file_id, path, blob_sha, language, status, skip_reason, parse_errors, variant, \
         parser_version, content, resolution, version",
    ),
    (
        "definitions",
        "file_id, def_index, name, qualified_name, kind, start_line, end_line, exported",
    ),
    (
        "edges",
        "caller_file, site, caller_def, line, col, kind, callee_file, callee_def, confidence",
    ),
    ("facts_cache", "blob_sha, variant, parser_version, facts"),
];
const SAMPLES: usize = 5;

fn bench_url() -> String {
    let admin = PgConnectOptions::from_str(&common::server_url()).expect("DATABASE_URL");
    admin.database(DATABASE).to_url_lossy().to_string()
}

async fn fresh_database() -> Store {
    let store = Store::connect(&common::fresh_database(DATABASE).await)
        .await
        .expect("connect to the bench database");
    store.migrate().await.unwrap();
    store
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(run());
}

/// The template: the corpus's first 108 code files, by path.
fn template_files() -> Vec<(String, Vec<u8>)> {
    let root = common::corpus();
    let mut paths = walk::list(&root).unwrap();
    paths.sort();
    paths.retain(|p| blast_radius::indexer::Language::from_path(p).is_some());
    paths.truncate(108);
    walk::read(&root, paths)
        .unwrap()
        .into_iter()
        .map(|f| (f.path, f.bytes))
        .collect()
}

async fn run() {
    let sizes: Vec<usize> = std::env::var("BLAST_BENCH_SIZES")
        .unwrap_or_else(|_| "100,1000,10000".into())
        .split(',')
        .map(|s| s.trim().parse().expect("BLAST_BENCH_SIZES: numbers"))
        .collect();
    let store = fresh_database().await;
    let db = PgPool::connect(&bench_url()).await.unwrap();
    let rules = SkipRules::default();
    let files = template_files();
    let sources = files
        .iter()
        .map(|(p, b)| blast_radius::indexer::pipeline::SourceFile::new(p.clone(), b.clone()))
        .collect();
    let (indexed, meta) = index_in_memory(sources, &rules);
    let mut graph = indexed.graph;
    let callee = most_called(&graph);
    let template = store.ensure_repository("bench/template").await.unwrap().id;
    let written = store
        .save_full(template, Some(&CommitSha::from("c0")), &graph, &meta)
        .await
        .unwrap();
    let mut version = written.version;
    println!(
        "template: {} files, {} edges; callers of {callee}",
        written.files, written.edges
    );
    println!(
        "| repositories | first write (ms) | push of one file (ms) | cold `callers` (ms) | purge (ms) | relations | bytes per repository | its rows' bytes | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut probes = 0usize;
    // Warm up, untimed: the pool's connections, their prepared statements, the CLI's
    // pages in the OS cache.
    let warm = store.ensure_repository("bench/warm-up").await.unwrap().id;
    store
        .save_full(warm, Some(&CommitSha::from("c0")), &graph, &meta)
        .await
        .unwrap();
    cold_callers(&callee);
    for &size in &sizes {
        fill(&db, template, size).await;
        db.execute("VACUUM ANALYZE").await.unwrap();
        // A new repository's first write, as installing does to each.
        let mut writes = Vec::new();
        for _ in 0..SAMPLES {
            probes += 1;
            let id = store
                .ensure_repository(&format!("bench/probe-{probes}"))
                .await
                .unwrap()
                .id;
            let start = Instant::now();
            store
                .save_full(id, Some(&CommitSha::from("c0")), &graph, &meta)
                .await
                .unwrap();
            writes.push(ms(start));
        }
        // A push of one changed file to the template.
        let mut pushes = Vec::new();
        for i in 0..SAMPLES {
            let (path, bytes) = &files[(i * 7) % files.len()];
            let mut edited = bytes.clone();
            edited.extend_from_slice(
                format!("\nexport function benchEdit{version}() {{}}\n").as_bytes(),
            );
            let start = Instant::now();
            let (g, w) = apply_push(
                &store,
                template,
                graph,
                version,
                Some(&CommitSha::from("c1")),
                vec![FileInput::new(path.clone(), edited)],
                vec![],
                &rules,
            )
            .await
            .unwrap();
            pushes.push(ms(start));
            graph = g;
            version = w.version;
        }
        // `callers` from a cold process: start, connect, load, answer.
        let mut cold = Vec::new();
        for _ in 0..SAMPLES {
            cold.push(cold_callers(&callee));
        }
        // A purge of one repository among the others.
        let mut purges = Vec::new();
        let doomed: Vec<i64> = sqlx::query_scalar(
            "SELECT id FROM repositories WHERE full_name LIKE 'bench/copy-%' ORDER BY id DESC LIMIT $1",
        )
        .bind(SAMPLES as i64)
        .fetch_all(&db)
        .await
        .unwrap();
        for id in doomed {
            let start = Instant::now();
            assert!(store.delete_repository(RepoId(id)).await.unwrap());
            purges.push(ms(start));
        }
        let repositories: i64 = sqlx::query_scalar("SELECT count(*) FROM repositories")
            .fetch_one(&db)
            .await
            .unwrap();
        let (bytes, own) = bytes_per_repository(&db, template, repositories).await;
        println!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {:.0} KB | {:.0} KB | {:.2} |",
            repositories,
            median(writes),
            median(pushes),
            median(cold),
            median(purges),
            relations(&db).await,
            bytes / 1e3,
            own / 1e3,
            bytes / own
        );
    }
}

/// `callers` of `callee` in the template from a new process, in milliseconds.
fn cold_callers(callee: &str) -> f64 {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_blast-radius"))
        .args([
            "callers",
            callee,
            "--database-url",
            &bench_url(),
            "--name",
            "bench/template",
        ])
        .output()
        .unwrap();
    let took = ms(start);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// The definition with the most callers: what the `callers` probe asks for.
fn most_called(graph: &Graph) -> String {
    let mut best: Option<(usize, String)> = None;
    for f in graph.file_ids() {
        let facts = graph.facts(f);
        for d in 0..facts.defs.len() as u32 {
            let id = blast_radius::graph::DefId::new(f, d);
            let n = graph.callers(id).len();
            if best.as_ref().is_none_or(|(m, _)| n > *m) {
                let line = facts.defs[d as usize].first_line() + 1;
                best = Some((n, format!("{}:{line}", facts.path)));
            }
        }
    }
    best.expect("the template has definitions").1
}

/// Copies the template's rows under new repositories until there are `size`.
async fn fill(db: &PgPool, template: RepoId, size: usize) {
    let have: i64 = sqlx::query_scalar("SELECT count(*) FROM repositories")
        .fetch_one(db)
        .await
        .unwrap();
    let mut next = have as usize;
    while next < size {
        let batch = (size - next).min(250);
        let mut tx = db.begin().await.unwrap();
        let ids: Vec<i64> = sqlx::query_scalar(
            "INSERT INTO repositories (full_name, commit_sha, graph_version)
             SELECT 'bench/copy-' || gen_random_uuid(), commit_sha, graph_version
             FROM repositories, generate_series($2::bigint, $3::bigint) g WHERE id = $1
             RETURNING id",
        )
        .bind(template.0)
        .bind(next as i64)
        .bind((next + batch - 1) as i64)
        .fetch_all(&mut *tx)
        .await
        .unwrap();
        for (table, columns) in COPIED {
            sqlx::query(&format!(
                "INSERT INTO {table} (repo_id, {columns})
                 SELECT r.id, {columns} FROM {table} t, unnest($2::bigint[]) r(id)
                 WHERE t.repo_id = $1"
            ))
            .bind(template.0)
            .bind(&ids)
            .execute(&mut *tx)
            .await
            .unwrap();
        }
        tx.commit().await.unwrap();
        next += batch;
    }
}

/// Relations in the schema: tables, indexes, sequences, TOAST tables and their indexes.
async fn relations(db: &PgPool) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_class c
         WHERE c.relnamespace = 'public'::regnamespace
            OR c.oid IN (SELECT reltoastrelid FROM pg_class WHERE relnamespace = 'public'::regnamespace)
            OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid IN
                          (SELECT reltoastrelid FROM pg_class WHERE relnamespace = 'public'::regnamespace))",
    )
    .fetch_one(db)
    .await
    .unwrap()
}

/// The graph tables' bytes on disk (heap, TOAST, indexes) per repository, and the bytes
/// of the template's own rows (`pg_column_size` of each row).
async fn bytes_per_repository(db: &PgPool, template: RepoId, repositories: i64) -> (f64, f64) {
    let mut total = 0i64;
    let mut own = 0i64;
    for table in TABLES {
        let size: i64 = sqlx::query_scalar(&format!("SELECT pg_total_relation_size('{table}')"))
            .fetch_one(db)
            .await
            .unwrap();
        let rows: Option<i64> = sqlx::query_scalar(&format!(
            "SELECT sum(pg_column_size(t.*))::bigint FROM {table} t WHERE repo_id = $1"
        ))
        .bind(template.0)
        .fetch_one(db)
        .await
        .unwrap();
        total += size;
        own += rows.unwrap_or(0);
    }
    (total as f64 / repositories as f64, own as f64)
}
