//! Links across service boundaries at scale (issue 47 §6; see BENCHMARKS.md):
//!   DATABASE_URL=postgres://... cargo bench --bench links
//! Uses (and drops) a database named `blast_bench_links` on that server.
//!
//! One installation of `BLAST_BENCH_REPOS` repositories (default 1,000), each written
//! through the store as the App writes it: one Express service serving `ROUTES` routes,
//! and the others web apps of `CLIENT_FILES` files that make `BLAST_BENCH_SITES` HTTP
//! calls in all (default 50,000), spread over `PATHS` paths of which the service serves
//! the first `ROUTES` (a tenth), half with `fetch`, half with `axios` on an unknown base.
//! A pull request to the service changes `BLAST_BENCH_CHANGED` of its handlers (default
//! 8). Measured, median of `BLAST_ROUNDS` (default 7): the extra work of its analysis
//! (the service's links resolved, what the changed handlers serve, the other
//! repositories' stored sites that may reach it read and confirmed), and the rows and
//! bytes the sites take.

mod common;

use std::time::Instant;

use blast_radius::blast::diff::Change;
use blast_radius::blast::report::ChangedFunction;
use blast_radius::graph::Graph;
use blast_radius::indexer::facts::DefKind;
use blast_radius::indexer::pipeline::SourceFile;
use blast_radius::indexer::skip::SkipRules;
use blast_radius::links;
use blast_radius::model::{CommitSha, GithubRepoId, InstallationId};
use blast_radius::store::{FileMeta, Store};
use blast_radius::workflow::links_across::{callers_of, Asking};
use blast_radius::workflow::save::index_in_memory;
use common::median;

const DATABASE: &str = "blast_bench_links";
const INSTALLATION: InstallationId = InstallationId(1);
/// Routes the service serves.
const ROUTES: usize = 50;
/// Distinct paths the web apps call (the service serves the first `ROUTES`).
const PATHS: usize = 500;
/// Files of each web app.
const CLIENT_FILES: usize = 10;

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

/// The service: an Express app whose handlers `handle{k}` serve `GET /api/res{k}/:id`.
fn service() -> Vec<SourceFile> {
    let mut text = String::from("const express = require('express');\nconst app = express();\n");
    for k in 0..ROUTES {
        text.push_str(&format!(
            "app.get('/api/res{k}/:id', handle{k});\nfunction handle{k}(req, res) {{ res.json({{ k: {k} }}); }}\n"
        ));
    }
    text.push_str("module.exports = app;\n");
    vec![SourceFile::new("src/app.js", text.into_bytes())]
}

/// Web app `n`: `per_repo` calls over its files, the `i`th of the installation to path
/// `i % PATHS`.
fn web_app(n: usize, per_repo: usize) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let per_file = per_repo.div_ceil(CLIENT_FILES);
    for f in 0..CLIENT_FILES {
        let mut text = String::from("import axios from 'axios';\n");
        for j in 0..per_file {
            let i = n * per_repo + f * per_file + j;
            let path = i % PATHS;
            if j % 2 == 0 {
                text.push_str(&format!(
                    "export async function load{j}(id) {{ return fetch(`/api/res{path}/${{id}}`); }}\n"
                ));
            } else {
                text.push_str(&format!(
                    "export async function load{j}(id) {{ return axios.get(`${{process.env.API}}/api/res{path}/${{id}}`); }}\n"
                ));
            }
        }
        files.push(SourceFile::new(format!("src/api{f}.js"), text.into_bytes()));
    }
    files
}

fn indexed(files: Vec<SourceFile>) -> (Graph, FileMeta) {
    let (indexed, meta) = index_in_memory(files, &SkipRules::default());
    (indexed.graph, meta)
}

async fn run() {
    let repos = env("BLAST_BENCH_REPOS", 1_000).max(2);
    let sites = env("BLAST_BENCH_SITES", 50_000);
    let changed_count = env("BLAST_BENCH_CHANGED", 8).min(ROUTES);
    let rounds = env("BLAST_ROUNDS", 7);
    let url = common::fresh_database(DATABASE).await;
    let store = Store::connect(&url).await.unwrap();
    store.migrate().await.unwrap();
    store
        .upsert_installation(INSTALLATION, "acme")
        .await
        .unwrap();

    let per_repo = sites / (repos - 1);
    let (service_graph, service_meta) = indexed(service());
    let commit = CommitSha::from("c".repeat(40));
    let start = Instant::now();
    let mut service_id = None;
    for i in 0..repos {
        let (name, graph, meta) = match i {
            0 => (
                "acme/service".to_string(),
                service_graph.clone(),
                service_meta.clone(),
            ),
            i => {
                let (g, m) = indexed(web_app(i - 1, per_repo));
                (format!("acme/web-{i}"), g, m)
            }
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
            .save_full(state.id, Some(&commit), &graph, &meta)
            .await
            .unwrap();
        if i == 0 {
            service_id = Some(state.id);
        }
    }
    let service_id = service_id.unwrap();
    println!(
        "{repos} repositories written in {:.1} s ({} web apps of {per_repo} HTTP calls: {} in all)",
        start.elapsed().as_secs_f64(),
        repos - 1,
        per_repo * (repos - 1)
    );

    // The pull request: the bodies of the first handlers changed.
    let changed: Vec<ChangedFunction> = (0..changed_count)
        .map(|k| ChangedFunction {
            name: format!("handle{k}"),
            qualified_name: format!("handle{k}"),
            kind: DefKind::Function,
            file: "src/app.js".to_string(),
            line: 4 + 2 * k as u32,
            end_line: 4 + 2 * k as u32,
            change: Change::Body,
            renamed_from: None,
        })
        .collect();
    let commit_text = commit.as_str().to_string();
    let asking = Asking {
        installation: Some(INSTALLATION),
        repo: service_id,
        full_name: "acme/service",
        private: false,
        commit: Some(&commit_text),
    };
    let mut times = Vec::new();
    let mut last = (0, 0, 0);
    for _ in 0..rounds {
        let start = Instant::now();
        let resolved = links::resolve(&service_graph);
        let served = links::across::served_by_changes(&service_graph, &resolved, &changed);
        let served_count = served.len();
        let across = callers_of(&store, &asking, &resolved, served)
            .await
            .unwrap();
        times.push(start.elapsed().as_secs_f64() * 1e3);
        last = (served_count, across.callers.len(), across.found.len());
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "PR analysis, the work across services: median {:.1} ms (best {:.1}, worst {:.1}) for {} changed handlers serving {} routes: {} sites reaching them ({} links)",
        median(times.clone()),
        times[0],
        times[times.len() - 1],
        changed.len(),
        last.0,
        last.1,
        last.2
    );
    assert!(
        last.2 > 0,
        "the bench's PR reaches no site: it measures nothing"
    );

    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let total: (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM link_sites), pg_total_relation_size('link_sites')",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    println!(
        "link_sites: {} rows, {:.1} MB with its indexes ({:.0} bytes a site)",
        total.0,
        total.1 as f64 / 1e6,
        total.1 as f64 / total.0.max(1) as f64
    );
}
