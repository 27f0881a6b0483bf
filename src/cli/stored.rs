//! The CLI's use of the store: index into Postgres, answer from it.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::load::Loaded;
use crate::graph::Graph;
use crate::indexer::pipeline::{extract_all, SourceFile};
use crate::indexer::skip::SkipRules;
use crate::store::rows::FileMeta;
use crate::store::Store;
use crate::workspace::git::{blob_sha, GitRepo};
use crate::workspace::walk;

pub struct Saved {
    pub version: i64,
    pub files: usize,
    pub edges: usize,
    pub parsed: usize,
    pub cached: usize,
    pub save_time: Duration,
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

async fn connect(url: &str) -> Result<Store> {
    let store = Store::connect(url).await?;
    store.migrate().await?;
    Ok(store)
}

pub fn migrate(url: &str) -> Result<()> {
    runtime()?.block_on(async {
        connect(url).await?;
        Ok(())
    })
}

/// Indexes `dir` (parsing only blobs the facts cache lacks) and stores the graph.
pub fn index_and_save(
    url: &str,
    name: &str,
    dir: &Path,
    rules: &SkipRules,
) -> Result<(Loaded, Saved)> {
    runtime()?.block_on(async {
        let store = connect(url).await?;
        let repo = store.ensure_repository(name).await?;
        let start = Instant::now();
        let paths = walk::list(dir)?;
        let files = walk::read(dir, paths)?;
        let meta_blobs: Vec<(String, String)> = files
            .iter()
            .map(|f| (f.path.clone(), blob_sha(&f.bytes)))
            .collect();
        let cached = store.cached_facts(&meta_blobs).await?;
        let to_parse: Vec<SourceFile> = files
            .into_iter()
            .filter(|f| !cached.contains_key(&f.path))
            .collect();
        let parsed = to_parse.len();
        let extracted = tokio::task::block_in_place(|| extract_all(to_parse, rules, &|| {}));
        let cached_count = cached.len();
        let mut facts = extracted.facts;
        facts.extend(cached.into_values());
        let extract_time = start.elapsed();
        let start = Instant::now();
        let graph = tokio::task::block_in_place(|| Graph::build(facts, extracted.configs));
        let resolve_time = start.elapsed();
        let meta = FileMeta {
            blobs: meta_blobs.into_iter().collect(),
            skipped: extracted.skipped.clone(),
        };
        let commit = GitRepo::open(dir).ok().and_then(|g| g.resolve("HEAD").ok());
        let start = Instant::now();
        let written = store
            .save_full(repo.id, commit.as_deref(), &graph, &meta)
            .await?;
        let saved = Saved {
            version: written.version,
            files: written.files,
            edges: written.edges,
            parsed,
            cached: cached_count,
            save_time: start.elapsed(),
        };
        Ok((
            Loaded {
                graph,
                skipped: extracted.skipped,
                bytes: extracted.bytes,
                extract_time,
                resolve_time,
            },
            saved,
        ))
    })
}

/// The stored graph of `name`.
pub fn load(url: &str, name: &str) -> Result<Loaded> {
    runtime()?.block_on(async {
        let store = connect(url).await?;
        let repo = store.repository(name).await?;
        let start = Instant::now();
        let (graph, _) = store.load_graph(repo.id).await?;
        Ok(Loaded {
            graph,
            skipped: Vec::new(),
            bytes: 0,
            extract_time: Duration::ZERO,
            resolve_time: start.elapsed(),
        })
    })
}

/// The stored graph of `name` if it reflects `commit`.
pub fn load_at(url: &str, name: &str, commit: &str) -> Result<Option<Loaded>> {
    runtime()?.block_on(async {
        let store = connect(url).await?;
        let repo = store.repository(name).await?;
        if repo.commit.as_deref() != Some(commit) {
            return Ok(None);
        }
        let start = Instant::now();
        let (graph, _) = store.load_graph(repo.id).await?;
        Ok(Some(Loaded {
            graph,
            skipped: Vec::new(),
            bytes: 0,
            extract_time: Duration::ZERO,
            resolve_time: start.elapsed(),
        }))
    })
}
