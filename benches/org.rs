//! Across the org (see BENCHMARKS.md, "Calls across repositories"):
//!   BLAST_CORPUS=DIR DATABASE_URL=postgres://... cargo bench --bench org
//! Uses (and drops) a database named `blast_bench_org` on that server.
//!
//! One installation of `BLAST_BENCH_REPOS` repositories (default 1,000), each written
//! through the store as the App writes it: the library (the corpus's `lodash-es`, which
//! owns the package `lodash-es`), `BLAST_BENCH_IMPORTERS` services (default 50) that
//! import it (by name through its barrel, by namespace and by subpath) beside `react`,
//! and the others services that import only other packages. A pull request to the
//! library changes `BLAST_BENCH_CHANGED` of its functions (default 8). Measured, median
//! of `BLAST_ROUNDS` (default 7): the extra work of its analysis (read the calls into
//! the library's packages, link them to its graph, map them to the changed functions,
//! the versions), and the rows each kind of repository holds.

mod common;

use std::time::Instant;

use blast_radius::blast::radius::{blast, BlastOptions, FileChange};
use blast_radius::graph::Graph;
use blast_radius::indexer::pipeline::SourceFile;
use blast_radius::indexer::skip::SkipRules;
use blast_radius::model::{CommitSha, GithubRepoId, InstallationId};
use blast_radius::org;
use blast_radius::store::{FileMeta, Store};
use blast_radius::workflow::elsewhere::calls_into_packages;
use blast_radius::workflow::save::index_in_memory;
use blast_radius::workspace::walk;
use common::median;

const DATABASE: &str = "blast_bench_org";
const INSTALLATION: InstallationId = InstallationId(1);
/// Files of each service.
const SERVICE_FILES: usize = 20;
/// Functions of lodash-es the importers call (each a file of its own there).
const CALLED: [&str; 10] = [
    "debounce", "map", "filter", "chunk", "merge", "throttle", "groupBy", "uniq", "pick", "isEqual",
];

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run());
}

/// A service of `SERVICE_FILES` files; `owned` says whether it calls lodash-es (else
/// lodash, which nobody in the installation owns).
fn service(owned: bool) -> Vec<SourceFile> {
    let package = if owned { "lodash-es" } else { "lodash" };
    let mut files = vec![SourceFile::new(
        "package.json",
        format!(r#"{{ "name": "svc", "dependencies": {{ "{package}": "^4.17.0", "react": "^18.2.0" }} }}"#)
            .into_bytes(),
    )];
    for i in 0..SERVICE_FILES {
        let (a, b, c) = (
            CALLED[i % CALLED.len()],
            CALLED[(i + 3) % CALLED.len()],
            CALLED[(i + 7) % CALLED.len()],
        );
        let text = format!(
            "import {{ {a}, {b} }} from '{package}';\n\
             import * as _ from '{package}';\n\
             import {c}Alone from '{package}/{c}.js';\n\
             import {{ useState, useEffect }} from 'react';\n\
             import {{ helper{p} }} from './file{p}.js';\n\
             export function helper{i}(xs) {{\n\
             \x20 const [state] = useState(xs);\n\
             \x20 useEffect(() => {{ {a}(state); }});\n\
             \x20 return {b}(_.{c}(xs), helper{p}) + {c}Alone(xs);\n\
             }}\n",
            p = (i + 1) % SERVICE_FILES,
        );
        files.push(SourceFile::new(
            format!("src/file{i}.js"),
            text.into_bytes(),
        ));
    }
    files
}

fn indexed(files: Vec<SourceFile>) -> (Graph, FileMeta) {
    let (indexed, meta) = index_in_memory(files, &SkipRules::default());
    (indexed.graph, meta)
}

async fn run() {
    let repos = env("BLAST_BENCH_REPOS", 1_000);
    let importers = env("BLAST_BENCH_IMPORTERS", 50);
    let changed_count = env("BLAST_BENCH_CHANGED", 8);
    let rounds = env("BLAST_ROUNDS", 7);
    let url = common::fresh_database(DATABASE).await;
    let store = Store::connect(&url).await.unwrap();
    store.migrate().await.unwrap();
    store
        .upsert_installation(INSTALLATION, "acme")
        .await
        .unwrap();

    let root = common::corpus().join("lodash-es");
    let paths = walk::list(&root).expect("the corpus's lodash-es");
    let library_files = walk::read(&root, paths).unwrap();
    let (library, library_meta) = indexed(library_files.clone());
    let (importer, importer_meta) = indexed(service(true));
    let (other, other_meta) = indexed(service(false));
    let commit = CommitSha::from("c".repeat(40));

    let start = Instant::now();
    let mut library_id = None;
    for i in 0..repos {
        let (name, graph, meta) = match i {
            0 => ("acme/library".to_string(), &library, &library_meta),
            i if i <= importers => (format!("acme/importer-{i}"), &importer, &importer_meta),
            i => (format!("acme/service-{i}"), &other, &other_meta),
        };
        let state = store
            .upsert_github_repository(
                INSTALLATION,
                GithubRepoId(i as i64 + 1),
                &name,
                "main",
                i % 2 == 0,
            )
            .await
            .unwrap();
        store
            .save_full(state.id, Some(&commit), graph, meta)
            .await
            .unwrap();
        if i == 0 {
            library_id = Some(state.id);
        }
    }
    let library_id = library_id.unwrap();
    println!(
        "{repos} repositories written in {:.1} s ({importers} import lodash-es)",
        start.elapsed().as_secs_f64()
    );

    // The pull request: a line added at the top of each changed function's body.
    let changes: Vec<FileChange> = CALLED
        .iter()
        .take(changed_count)
        .map(|name| {
            let path = format!("{name}.js");
            let old = library_files
                .iter()
                .find(|f| f.path == path)
                .map(|f| String::from_utf8(f.bytes.clone()).unwrap())
                .unwrap_or_else(|| panic!("lodash-es has no {path}"));
            let at = old
                .find(&format!("function {name}("))
                .or_else(|| old.find(&format!("var {name} =")))
                .expect("the function");
            let body = at + old[at..].find("{\n").expect("its body") + 2;
            let new = format!("{}  void 0;\n{}", &old[..body], &old[body..]);
            FileChange {
                path,
                old: Some(old),
                new: Some(new),
            }
        })
        .collect();
    let options = BlastOptions {
        base: "base".into(),
        head: "head".into(),
        depth: 1,
        skipped_files: 0,
        skipped: Vec::new(),
    };
    let report = blast(&library, &changes, &options);

    let mut times = Vec::new();
    let mut reads = Vec::new();
    let mut last = (0, 0);
    for _ in 0..rounds {
        let start = Instant::now();
        let calls = calls_into_packages(&store, Some(INSTALLATION), library_id, &library)
            .await
            .unwrap()
            .calls;
        reads.push(start.elapsed().as_secs_f64() * 1e3);
        let found = org::reached_by_changes(&library, &report.changed, &calls);
        let versions = org::package_versions(&library);
        times.push(start.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(versions);
        last = (calls.len(), found.len());
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "PR analysis, the work across the org: median {:.1} ms (best {:.1}, worst {:.1}; reading the calls {:.1} ms) for {} changed functions: {} calls read, {} reaching a changed function",
        median(times.clone()),
        times[0],
        times[times.len() - 1],
        median(reads),
        report.changed.len(),
        last.0,
        last.1
    );

    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    for (kind, id) in [("importer", 2i64), ("other service", repos as i64)] {
        let rows: (i64, i64, i64) = sqlx::query_as(
            "SELECT (SELECT count(*) FROM external_call_groups WHERE repo_id = $1),
                    (SELECT coalesce(sum(sites), 0) FROM external_call_groups WHERE repo_id = $1),
                    (SELECT count(*) FROM edges WHERE repo_id = $1)",
        )
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap();
        println!(
            "{kind}: {} external-call rows holding {} calls, {} edge rows",
            rows.0, rows.1, rows.2
        );
    }
    let total: (i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM external_call_groups), (SELECT count(*) FROM edges),
                pg_total_relation_size('external_call_groups')",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    println!(
        "all: {} external-call rows, {} edge rows; external_call_groups {:.1} MB with its indexes",
        total.0,
        total.1,
        total.2 as f64 / 1e6
    );
}
