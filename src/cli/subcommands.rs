//! One function per subcommand: load, ask the graph, print.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::progress::{peak_memory, Bar};
use super::{AnswerFormat, GraphFormat, RepoArgs, ReportFormat};
use crate::graph::{Confidence, DefId, Graph};
use crate::indexer::pipeline::SourceFile;
use crate::indexer::skip::SkipRules;
use crate::model::CommitSha;
use crate::org::CallElsewhere;
use crate::query::{self, Completeness};
use crate::report::graph_export;
use crate::report::json::{self, render_json};
use crate::report::markdown::{render_markdown, COMMENT_BUDGET};
use crate::store::Store;
use crate::workflow::blast_change::{blast_change, BlastRequest};
use crate::workflow::callers_read::{callers_in_place, ReadInPlace};
use crate::workflow::index::{index as index_revision, index_cached, index_files, Indexed};
use crate::workflow::save::{index_and_save, load_stored, load_stored_at};
use crate::workspace::facts_cache::DiskCache;
use crate::workspace::git::{GitRange, GitRepo, GitRevision};
use crate::workspace::walk::WorkingTree;

/// The per-user facts cache for this run: none with `--no-cache`, or when the graph
/// comes from the database (whose own cache of facts serves it).
fn facts_cache(repo: &RepoArgs) -> Option<DiskCache> {
    if repo.no_cache || repo.database_url.is_some() {
        return None;
    }
    let root = crate::workspace::facts_cache::default_root()?;
    Some(DiskCache::open(&root, &rules(repo), cache_bound()))
}

/// The cache's size bound: `$BLAST_RADIUS_CACHE_MAX_MB`, else the default.
fn cache_bound() -> u64 {
    std::env::var("BLAST_RADIUS_CACHE_MAX_MB")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(crate::workspace::facts_cache::DEFAULT_MAX_BYTES, |mb| {
            mb << 20
        })
}

/// Indexes `revision`, through the facts cache when there is one.
fn index_with(
    revision: &impl crate::workflow::source::Revision,
    repo: &RepoArgs,
    progress: &Bar,
) -> Result<Indexed> {
    match facts_cache(repo) {
        Some(cache) => index_cached(revision, &rules(repo), progress, &cache),
        None => index_revision(revision, &rules(repo), progress),
    }
}

pub fn cache(clear: bool) -> Result<()> {
    let Some(root) = crate::workspace::facts_cache::default_root() else {
        bail!("no cache directory: set BLAST_RADIUS_CACHE_DIR or HOME");
    };
    let mb = |bytes: u64| bytes as f64 / (1u64 << 20) as f64;
    if clear {
        let (files, bytes) =
            DiskCache::clear(&root).with_context(|| format!("clearing {}", root.display()))?;
        println!(
            "cleared      {} ({files} files, {:.1} MB)",
            root.display(),
            mb(bytes)
        );
        return Ok(());
    }
    let (files, bytes) = DiskCache::usage(&root);
    println!("cache        {}", root.display());
    println!("holds        {files} files, {:.1} MB", mb(bytes));
    println!("bound        {:.0} MB", mb(cache_bound()));
    Ok(())
}

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
    index_with(&WorkingTree::new(&repo.repo), repo, &Bar::new(progress))
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
        match saved.changed {
            Some(changed) => println!(
                "stored       {name} version {}: {} changed and {} removed files since the stored graph; rows of {} files, {} edges rewritten in {:.2} s",
                saved.version, changed.edited, changed.removed, saved.files, saved.edges, saved.save_time.as_secs_f64()
            ),
            None => println!(
                "stored       {name} version {}: {} files, {} edges in {:.2} s ({} files parsed, {} from the facts cache)",
                saved.version, saved.files, saved.edges, saved.save_time.as_secs_f64(), saved.parsed, saved.cached
            ),
        }
        return Ok(());
    }
    let loaded = load(repo, true)?;
    let total = start.elapsed();
    print!("{}", summary(&loaded, total));
    // The process ends here: its memory goes back whole, faster than a graph of a
    // large tree is freed piece by piece.
    std::mem::forget(loaded);
    Ok(())
}

pub fn serve(args: &crate::server::settings::ServerArgs, mode: crate::server::Mode) -> Result<()> {
    let config = args.check().map_err(anyhow::Error::msg)?;
    if matches!(mode, crate::server::Mode::Work) && config.workers == 0 {
        anyhow::bail!("BLAST_WORKERS must be at least 1 for `work` (0 is for a `serve` that only takes deliveries)");
    }
    runtime()?.block_on(crate::server::run(config, mode))
}

pub fn check_config(args: &crate::server::settings::ServerArgs) -> Result<()> {
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

pub fn mcp(
    repo: &RepoArgs,
    http: Option<std::net::SocketAddr>,
    allowed_hosts: Vec<String>,
    token: Option<secrecy::SecretString>,
    org: bool,
) -> Result<()> {
    use secrecy::ExposeSecret as _;
    let token = token.filter(|t| !t.expose_secret().trim().is_empty());
    let source = match &repo.database_url {
        Some(url) => crate::mcp::Source::Stored {
            url: url.clone(),
            name: repo_name(repo)?,
        },
        None => crate::mcp::Source::WorkingTree,
    };
    let config = crate::mcp::Config {
        repo: repo.repo.clone(),
        rules: rules(repo),
        source,
        http,
        allowed_hosts,
        token,
        org,
    };
    runtime()?.block_on(crate::mcp::run(config))
}

pub fn migrate(url: &str) -> Result<()> {
    let recorded = runtime()?.block_on(async {
        let store = Store::connect(url).await?;
        store.migrate().await?;
        // Repositories stored before their calls into packages were kept get them now.
        store.record_missing_calls().await
    })?;
    println!(
        "database at {} is up to date",
        crate::store::describe_url(url)?
    );
    if recorded > 0 {
        println!("recorded the calls into packages of {recorded} repositories stored before they were kept");
    }
    Ok(())
}

fn summary(loaded: &Indexed, total: std::time::Duration) -> String {
    let s = query::summary(&loaded.graph, &loaded.skipped);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "files        {} indexed ({:.1} MB), {} with syntax errors",
        s.files,
        loaded.bytes as f64 / 1e6,
        s.files_with_syntax_errors
    );
    if loaded.from_cache > 0 {
        let _ = writeln!(
            out,
            "cache        {} files read from the facts cache, the rest parsed ({:.1} MB)",
            loaded.from_cache,
            loaded.bytes as f64 / 1e6
        );
    }
    for (i, cause) in s.syntax_errors.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}{}: {} file{}{} (e.g. {})",
            if i == 0 {
                "syntax       "
            } else {
                "             "
            },
            cause.description,
            cause.files,
            if cause.files == 1 { "" } else { "s" },
            if cause.repaired { ", repaired" } else { "" },
            cause.example
        );
    }
    let skipped_text = if s.skipped.by_reason.is_empty() {
        "none".to_string()
    } else {
        s.skipped
            .by_reason
            .iter()
            .map(|(r, n)| format!("{r} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(out, "skipped      {} ({skipped_text})", s.skipped.total);
    let _ = writeln!(out, "definitions  {}", s.definitions);
    let site_total: usize = s.call_sites.values().sum();
    let site_text = s
        .call_sites
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = writeln!(
        out,
        "call sites   {site_total} ({site_text}), plus {} getter reads",
        s.getter_reads
    );
    let _ = writeln!(
        out,
        "edges        exact {}, likely {}, possible {}",
        s.edges.exact, s.edges.likely, s.edges.possible
    );
    let _ = writeln!(
        out,
        "unmatched    external {}, unresolved {}",
        s.external, s.unresolved
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

pub fn callers(
    repo: &RepoArgs,
    name: &str,
    depth: u32,
    format: AnswerFormat,
    org: bool,
) -> Result<()> {
    let (answer, elsewhere) = match stored_callers(repo, name, depth, org)? {
        Some(answer) => (answer, None),
        None => {
            let loaded = load(repo, true)?;
            let g = &loaded.graph;
            let d = target(g, name)?;
            let answer = query::callers(g, d, depth, loaded.skipped.len());
            let elsewhere = if org {
                Some(calls_elsewhere(repo, g, d)?)
            } else {
                None
            };
            (answer, elsewhere)
        }
    };
    if format == AnswerFormat::Json {
        let mut value = json::callers(&answer);
        if let Some((calls, reached)) = &elsewhere {
            value["elsewhere"] = json::calls_elsewhere(calls, reached);
        }
        println!("{}", json::pretty(&value));
        return Ok(());
    }
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
    if let Some((calls, reached)) = &elsewhere {
        let repos: std::collections::BTreeSet<&str> = reached
            .iter()
            .map(|&(i, _)| calls[i].repo.as_str())
            .collect();
        println!(
            "in other repositories: {} call sites in {} repositories",
            reached.len(),
            repos.len()
        );
        for &(i, confidence) in reached {
            let c = &calls[i];
            println!(
                "  {} {}:{}:{}  {}  [call {}]  {} {}",
                c.repo,
                c.path,
                c.call.line,
                c.call.column,
                c.call.caller.as_deref().unwrap_or("<module>"),
                confidence.as_str(),
                c.call.package,
                c.call.range.as_deref().unwrap_or("(no declared range)"),
            );
        }
    }
    Ok(())
}

/// Callers from the database's rows that the question needs, when they show the whole
/// answer (see `workflow::callers_read`); None: load the whole graph. Not for `--org`,
/// which matches calls from elsewhere against the whole graph.
fn stored_callers(
    repo: &RepoArgs,
    target: &str,
    depth: u32,
    org: bool,
) -> Result<Option<query::CallersAnswer>> {
    let Some(url) = repo.database_url.as_ref().filter(|_| !org) else {
        return Ok(None);
    };
    let name = repo_name(repo)?;
    let read = with_store(url, async |store| {
        callers_in_place(store, &name, target, depth).await
    })?;
    match read {
        ReadInPlace::Answer(answer) => Ok(Some(answer)),
        ReadInPlace::Ambiguous(e) => Err(e.into()),
        ReadInPlace::LoadAll => Ok(None),
    }
}

/// Which calls reach a definition: (index into the calls, confidence).
type Reached = Vec<(usize, Confidence)>;

/// The calls that the other repositories of `repo`'s installation (of none, for
/// repositories the command line indexed) make into its packages, and which of them
/// reach `def`.
fn calls_elsewhere(
    repo: &RepoArgs,
    g: &Graph,
    def: DefId,
) -> Result<(Vec<CallElsewhere>, Reached)> {
    let Some(url) = &repo.database_url else {
        bail!("--org answers from the database: give --database-url and --name");
    };
    let name = repo_name(repo)?;
    let calls = with_store(url, async |store| {
        let state = store.repository(&name).await?;
        crate::workflow::elsewhere::calls_into_packages(store, state.installation, state.id, g)
            .await
            .map(|e| e.calls)
    })?;
    let reached = crate::org::reaching(g, def, &calls);
    Ok((calls, reached))
}

pub fn callees(repo: &RepoArgs, name: &str, format: AnswerFormat) -> Result<()> {
    let loaded = load(repo, true)?;
    let g = &loaded.graph;
    let d = target(g, name)?;
    let (target, callees) = (query::describe(g, d), query::callees(g, d));
    if format == AnswerFormat::Json {
        println!("{}", json::pretty(&json::callees(&target, &callees)));
        return Ok(());
    }
    println!("callees of {}", target.label());
    for c in callees {
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

pub fn path(repo: &RepoArgs, from: &str, to: &str, format: AnswerFormat) -> Result<()> {
    let loaded = load(repo, true)?;
    let g = &loaded.graph;
    let (a, b) = (target(g, from)?, target(g, to)?);
    let found = query::path(g, a, b);
    if format == AnswerFormat::Json {
        let (a, b) = (query::describe(g, a), query::describe(g, b));
        println!("{}", json::pretty(&json::path(&a, &b, found.as_deref())));
        return Ok(());
    }
    match found {
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
        // The base from git, through the facts cache: a second `blast` parses only
        // what changed since the first.
        None => match facts_cache(repo) {
            Some(cache) => Some(index_cached(&old, &rules, &Bar::new(true), &cache)?),
            None => None,
        },
    };
    let changes = GitRange {
        repo: &git,
        base: base_commit,
        head: head_commit,
    };
    let report = blast_change(
        stored,
        &old,
        &new,
        &changes,
        &rules,
        &BlastRequest {
            base_label: base,
            head_label: head,
            depth,
        },
        &Bar::new(true),
    )?;
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
        vec![SourceFile::new(path.clone(), bytes)],
        &SkipRules::default(),
    );
    if let Some((_, reason)) = loaded.skipped.first() {
        bail!("{path} is skipped: {}", reason.as_str());
    }
    let Some(f) = loaded.graph.file_id(&path) else {
        let why = crate::indexer::select::why_not_code(&path)
            .unwrap_or_else(|| "the indexer did not read it".to_string());
        bail!("{path} is not indexed: {why}");
    };
    if let Some(dir) = crate::indexer::select::vendored_dir(&path) {
        eprintln!(
            "note: {path} is vendored code (under `{dir}/`): it is indexed, and linked to \
             the repository's own code only where an import or a declaration leads to it, \
             never by a name-only match"
        );
    }
    print!(
        "{}",
        crate::indexer::dump::render(&loaded.graph.facts(f).to_file_facts())
    );
    Ok(())
}
