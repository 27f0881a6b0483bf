//! One function per subcommand: load, ask the graph, print.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::progress::{peak_memory, Bar};
use super::{GraphFormat, RepoArgs, ReportFormat};
use crate::graph::{Confidence, DefId, Graph};
use crate::indexer::facts::{CallKind, DefKind};
use crate::indexer::pipeline::SourceFile;
use crate::indexer::skip::SkipRules;
use crate::model::CommitSha;
use crate::query::{self, Completeness};
use crate::report::{graph_export, json::render_json, markdown::render_markdown};
use crate::store::Store;
use crate::workflow::blast::{blast_revisions, BlastRequest};
use crate::workflow::index::{index as index_revision, index_files, Indexed};
use crate::workflow::save::{index_and_save, load_stored, load_stored_at};
use crate::workflow::source::Changes;
use crate::workspace::git::{GitRange, GitRepo, GitRevision};
use crate::workspace::walk::WorkingTree;

/// GitHub's comment limit is 65,536 characters; leave room for what wraps the body.
const COMMENT_BUDGET: usize = 60_000;

fn rules(repo: &RepoArgs) -> SkipRules {
    SkipRules {
        max_bytes: repo.max_file_bytes,
        ..SkipRules::default()
    }
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// Runs `work` with a connection to the database at `url`, whose migrations must be
/// applied (`migrate` applies them; no other command changes the schema).
fn with_store<T>(url: &str, work: impl AsyncFnOnce(&Store) -> Result<T>) -> Result<T> {
    runtime()?.block_on(async {
        let store = Store::connect(url).await?;
        store.require_migrated().await?;
        work(&store).await
    })
}

/// The repository's graph: from the database when `--database-url` is given, else by
/// indexing the directory.
fn load(repo: &RepoArgs, progress: bool) -> Result<Indexed> {
    if let Some(url) = &repo.database_url {
        let name = repo_name(repo)?;
        return with_store(url, async |store| Ok(load_stored(store, &name).await?.0));
    }
    if !repo.repo.is_dir() {
        bail!("{} is not a directory", repo.repo.display());
    }
    index_revision(
        &WorkingTree::new(&repo.repo),
        &rules(repo),
        &Bar::new(progress),
    )
}

/// The repository's name in the database: `--name`, else the directory's name.
fn repo_name(repo: &RepoArgs) -> Result<String> {
    if let Some(name) = &repo.name {
        return Ok(name.clone());
    }
    let dir = repo
        .repo
        .canonicalize()
        .with_context(|| format!("{} is not a directory", repo.repo.display()))?;
    Ok(dir.file_name().map_or_else(
        || "repository".to_string(),
        |n| n.to_string_lossy().into_owned(),
    ))
}

pub fn index(repo: &RepoArgs) -> Result<()> {
    let start = Instant::now();
    if let Some(url) = &repo.database_url {
        if !repo.repo.is_dir() {
            bail!("{} is not a directory", repo.repo.display());
        }
        let name = repo_name(repo)?;
        let tree = WorkingTree::new(&repo.repo);
        let (loaded, saved) = with_store(url, async |store| {
            index_and_save(store, &name, &tree, &rules(repo), &Bar::new(true)).await
        })?;
        print!("{}", summary(&loaded, start.elapsed()));
        println!(
            "stored       {name} version {}: {} files, {} edges in {:.2} s ({} files parsed, {} from the facts cache)",
            saved.version, saved.files, saved.edges, saved.save_time.as_secs_f64(), saved.parsed, saved.cached
        );
        return Ok(());
    }
    let loaded = load(repo, true)?;
    let total = start.elapsed();
    print!("{}", summary(&loaded, total));
    Ok(())
}

pub fn serve(args: &crate::server::config::ServerArgs, mode: crate::server::Mode) -> Result<()> {
    let config = args.check().map_err(anyhow::Error::msg)?;
    runtime()?.block_on(crate::server::run(config, mode))
}

pub fn check_config(args: &crate::server::config::ServerArgs) -> Result<()> {
    let checked = runtime()?.block_on(crate::server::check::check_config(args));
    for line in &checked.passed {
        println!("ok       {line}");
    }
    for line in &checked.problems {
        println!("problem  {line}");
    }
    match checked.problems.len() {
        0 => Ok(()),
        n => anyhow::bail!("{n} problem{} to fix", if n == 1 { "" } else { "s" }),
    }
}

pub fn migrate(url: &str) -> Result<()> {
    runtime()?.block_on(async { Store::connect(url).await?.migrate().await })?;
    println!(
        "database at {} is up to date",
        crate::store::describe_url(url)?
    );
    Ok(())
}

fn summary(loaded: &Indexed, total: std::time::Duration) -> String {
    let g = &loaded.graph;
    let mut defs = 0usize;
    let mut sites: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_conf: BTreeMap<Confidence, usize> = BTreeMap::new();
    let mut getters = 0usize;
    let (mut external, mut unresolved, mut parse_errors) = (0u64, 0usize, 0usize);
    for f in g.file_ids() {
        let facts = g.facts(f);
        defs += facts
            .defs
            .iter()
            .filter(|d| d.kind != DefKind::Object)
            .count();
        parse_errors += usize::from(facts.parse_errors > 0);
        for c in &facts.calls {
            if c.kind != CallKind::Get {
                *sites.entry(c.kind.as_str()).or_default() += 1;
            }
        }
        let r = g.resolution(f);
        for e in g.edges(f) {
            *by_conf.entry(e.confidence()).or_default() += 1;
            if facts.calls[e.site() as usize].kind == CallKind::Get {
                getters += 1;
            }
        }
        external += u64::from(r.external);
        unresolved += r.unresolved_sites.len();
    }
    let mut skipped: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, reason) in &loaded.skipped {
        *skipped.entry(reason.as_str()).or_default() += 1;
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "files        {} indexed ({:.1} MB), {} with syntax errors",
        g.file_count(),
        loaded.bytes as f64 / 1e6,
        parse_errors
    );
    let skipped_text = if skipped.is_empty() {
        "none".to_string()
    } else {
        skipped
            .iter()
            .map(|(r, n)| format!("{r} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        out,
        "skipped      {} ({skipped_text})",
        loaded.skipped.len()
    );
    let _ = writeln!(out, "definitions  {defs}");
    let site_total: usize = sites.values().sum();
    let site_text = sites
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = writeln!(
        out,
        "call sites   {site_total} ({site_text}), plus {getters} getter reads"
    );
    let conf = |c| by_conf.get(&c).copied().unwrap_or(0);
    let _ = writeln!(
        out,
        "edges        exact {}, likely {}, possible {}",
        conf(Confidence::Exact),
        conf(Confidence::Likely),
        conf(Confidence::Possible)
    );
    let _ = writeln!(
        out,
        "unmatched    external {external}, unresolved {unresolved}"
    );
    let _ = writeln!(
        out,
        "time         {:.2} s (parse + extract {:.2} s, resolve {:.2} s)",
        total.as_secs_f64(),
        loaded.extract_time.as_secs_f64(),
        loaded.resolve_time.as_secs_f64()
    );
    if let Some(peak) = peak_memory() {
        let _ = writeln!(out, "peak memory  {:.0} MB", peak as f64 / 1e6);
    }
    out
}

/// Resolves a TARGET argument to one definition, or says why not (with the closest
/// names, or the choices).
fn target(g: &Graph, target: &str) -> Result<DefId> {
    Ok(query::lookup(g, target)?)
}

pub fn callers(repo: &RepoArgs, name: &str, depth: u32) -> Result<()> {
    let loaded = load(repo, true)?;
    let g = &loaded.graph;
    let d = target(g, name)?;
    let answer = query::callers(g, d, depth, loaded.skipped.len());
    println!("callers of {}", answer.target.label());
    let mut counts: BTreeMap<Confidence, usize> = BTreeMap::new();
    for c in &answer.callers {
        *counts.entry(c.confidence).or_default() += 1;
        let via = c
            .via
            .as_ref()
            .map_or(String::new(), |v| format!("  (via {v})"));
        println!(
            "{}{}:{}:{}  {}  [{} {}]{}",
            "  ".repeat(c.depth as usize),
            c.file,
            c.line,
            c.column,
            c.caller.as_deref().unwrap_or("<module>"),
            c.kind,
            c.confidence.as_str(),
            via
        );
    }
    let summary = counts
        .iter()
        .map(|(c, n)| format!("{} {}", n, c.as_str()))
        .collect::<Vec<_>>()
        .join(", ");
    println!(
        "{} call sites{}",
        answer.callers.len(),
        if summary.is_empty() {
            String::new()
        } else {
            format!(" ({summary})")
        }
    );
    let name = &answer.target.name;
    let Completeness {
        unresolved_same_name: unresolved,
        skipped_files: skipped,
    } = answer.completeness;
    if unresolved > 0 || skipped > 0 {
        println!(
            "lower bound: {unresolved} unresolved call sites named '{name}' and {skipped} skipped files may hold more"
        );
    } else {
        println!("complete: no unresolved call sites named '{name}', no skipped files");
    }
    Ok(())
}

pub fn callees(repo: &RepoArgs, name: &str) -> Result<()> {
    let loaded = load(repo, true)?;
    let g = &loaded.graph;
    let d = target(g, name)?;
    println!("callees of {}", query::describe(g, d).label());
    for c in query::callees(g, d) {
        println!(
            "  {}:{}:{}  {}  [{} {}]",
            c.file,
            c.line,
            c.column,
            c.callee.label(),
            c.kind,
            c.confidence.as_str()
        );
    }
    Ok(())
}

pub fn path(repo: &RepoArgs, from: &str, to: &str) -> Result<()> {
    let loaded = load(repo, true)?;
    let g = &loaded.graph;
    let (a, b) = (target(g, from)?, target(g, to)?);
    match query::path(g, a, b) {
        Some(path) => {
            for (i, d) in path.iter().enumerate() {
                println!("{}{}", if i == 0 { "" } else { "-> " }, d.label());
            }
            Ok(())
        }
        None => bail!("no call path from {from} to {to}"),
    }
}

pub fn graph(repo: &RepoArgs, format: GraphFormat) -> Result<()> {
    let loaded = load(repo, true)?;
    let out = graph_export::collect(&loaded.graph);
    let text = match format {
        GraphFormat::Json => graph_export::to_json(&out),
        GraphFormat::Dot => graph_export::to_dot(&out),
        GraphFormat::Graphml => graph_export::to_graphml(&out),
    };
    println!("{text}");
    Ok(())
}

pub fn blast(
    repo: &RepoArgs,
    base: &str,
    head: &str,
    depth: u32,
    format: ReportFormat,
) -> Result<()> {
    let git = GitRepo::open(&repo.repo)?;
    let base_commit = CommitSha::from(git.resolve(base)?);
    let head_commit = CommitSha::from(git.resolve(head)?);
    let rules = rules(repo);
    let old = GitRevision {
        repo: &git,
        commit: base_commit.clone(),
    };
    let new = GitRevision {
        repo: &git,
        commit: head_commit.clone(),
    };
    let stored = match &repo.database_url {
        // The stored graph serves as the base when it reflects the base commit.
        Some(url) => {
            let name = repo_name(repo)?;
            let at = with_store(url, async |store| {
                load_stored_at(store, &name, &base_commit).await
            })?;
            if at.is_none() {
                eprintln!(
                    "note: the stored graph is not at {base} ({}); indexing {base} from git",
                    base_commit.short()
                );
            }
            at
        }
        None => None,
    };
    let loaded = match stored {
        Some(loaded) => loaded,
        None => index_revision(&old, &rules, &Bar::new(true))?,
    };
    let changed = GitRange {
        repo: &git,
        base: base_commit,
        head: head_commit,
    }
    .changed_paths()?;
    let request = BlastRequest {
        base_label: base,
        head_label: head,
        depth,
        base_skipped: loaded.skipped.len(),
    };
    let report = blast_revisions(&loaded.graph, &old, &new, &changed, &rules, &request)?;
    let text = match format {
        ReportFormat::Markdown => render_markdown(&report, COMMENT_BUDGET, None),
        ReportFormat::Json => render_json(&report),
    };
    println!("{text}");
    Ok(())
}

pub fn facts(file: &Path) -> Result<()> {
    let path = file.to_string_lossy().replace('\\', "/");
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let loaded = index_files(
        vec![SourceFile {
            path: path.clone(),
            bytes,
        }],
        &SkipRules::default(),
    );
    if let Some((_, reason)) = loaded.skipped.first() {
        bail!("{path} is skipped: {}", reason.as_str());
    }
    let Some(f) = loaded.graph.file_id(&path) else {
        bail!("{path} is not a JavaScript or TypeScript file");
    };
    print!("{}", crate::indexer::dump::render(loaded.graph.facts(f)));
    Ok(())
}
