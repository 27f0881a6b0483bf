//! One function per subcommand: load, ask the graph, print.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::load::{load_commit, load_dir, load_files, peak_memory, Loaded};
use super::{GraphFormat, RepoArgs, ReportFormat};
use crate::blast::radius::{blast as blast_radius, BlastOptions, FileChange};
use crate::graph::{Confidence, DefId, Found, Graph};
use crate::indexer::facts::{CallKind, DefKind};
use crate::indexer::skip::SkipRules;
use crate::report::{graph_export, json::render_json, markdown::render_markdown};
use crate::workspace::git::GitRepo;

/// GitHub's comment limit is 65,536 characters; leave room for what wraps the body.
const COMMENT_BUDGET: usize = 60_000;

fn rules(repo: &RepoArgs) -> SkipRules {
    SkipRules {
        max_bytes: repo.max_file_bytes,
        ..SkipRules::default()
    }
}

/// The repository's graph: from the database when `--database-url` is given, else by
/// indexing the directory.
fn load(repo: &RepoArgs, progress: bool) -> Result<Loaded> {
    if let Some(url) = &repo.database_url {
        return super::stored::load(url, &repo_name(repo)?);
    }
    if !repo.repo.is_dir() {
        bail!("{} is not a directory", repo.repo.display());
    }
    load_dir(&repo.repo, &rules(repo), progress)
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
        let (loaded, saved) = super::stored::index_and_save(url, &name, &repo.repo, &rules(repo))?;
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

pub fn migrate(url: &str) -> Result<()> {
    super::stored::migrate(url)?;
    println!(
        "database at {} is up to date",
        crate::store::describe_url(url)?
    );
    Ok(())
}

fn summary(loaded: &Loaded, total: std::time::Duration) -> String {
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

/// Resolves a TARGET argument to one definition, or says why not.
fn target(g: &Graph, target: &str) -> Result<DefId> {
    match g.find(target) {
        Found::One(d) => Ok(d),
        Found::None => bail!(
            "no definition named '{target}' (try a qualified name like Class.method, or FILE:LINE)"
        ),
        Found::Ambiguous(candidates) => {
            let mut msg = format!(
                "'{target}' names {} definitions; pick one:",
                candidates.len()
            );
            for d in candidates.iter().take(30) {
                let _ = write!(msg, "\n  {}", describe(g, *d));
            }
            if candidates.len() > 30 {
                let _ = write!(msg, "\n  ... and {} more", candidates.len() - 30);
            }
            bail!(msg)
        }
    }
}

fn describe(g: &Graph, d: DefId) -> String {
    let facts = g.facts(d.file);
    let def = facts.def(d.def);
    format!(
        "{}:{}  {} ({})",
        facts.path,
        def.name_pos.line + 1,
        facts.str(def.qualified),
        def.kind.as_str()
    )
}

pub fn callers(repo: &RepoArgs, name: &str, depth: u32) -> Result<()> {
    let loaded = load(repo, true)?;
    let g = &loaded.graph;
    let d = target(g, name)?;
    let found = g.transitive_callers(d, depth.max(1));
    println!("callers of {}", describe(g, d));
    let mut counts: BTreeMap<Confidence, usize> = BTreeMap::new();
    for t in &found {
        let facts = g.facts(t.caller.file);
        let site = g.site(t.caller);
        *counts.entry(t.caller.confidence()).or_default() += 1;
        let caller = site.caller().map_or("<module>".to_string(), |c| {
            facts.def_qualified(c).to_string()
        });
        let via = if t.depth > 1 {
            format!("  (via {})", g.facts(t.via.file).def_qualified(t.via.def))
        } else {
            String::new()
        };
        println!(
            "{}{}:{}:{}  {}  [{} {}]{}",
            "  ".repeat(t.depth as usize),
            facts.path,
            site.pos().line + 1,
            site.pos().column + 1,
            caller,
            site.kind.as_str(),
            t.caller.confidence().as_str(),
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
        found.len(),
        if summary.is_empty() {
            String::new()
        } else {
            format!(" ({summary})")
        }
    );
    print_completeness(g, d, loaded.skipped.len());
    Ok(())
}

/// Says whether a caller count is complete: unresolved same-name sites and skipped
/// files make it a lower bound.
fn print_completeness(g: &Graph, d: DefId, skipped: usize) {
    let name = g.facts(d.file).def_name(d.def).to_string();
    let mut unresolved = 0;
    for f in g.file_ids() {
        let facts = g.facts(f);
        unresolved += g
            .resolution(f)
            .unresolved_sites
            .iter()
            .filter(|&&s| facts.str(facts.calls[s as usize].name) == name)
            .count();
    }
    if unresolved > 0 || skipped > 0 {
        println!(
            "lower bound: {unresolved} unresolved call sites named '{name}' and {skipped} skipped files may hold more"
        );
    } else {
        println!("complete: no unresolved call sites named '{name}', no skipped files");
    }
}

pub fn callees(repo: &RepoArgs, name: &str) -> Result<()> {
    let loaded = load(repo, true)?;
    let g = &loaded.graph;
    let d = target(g, name)?;
    println!("callees of {}", describe(g, d));
    let facts = g.facts(d.file);
    for e in g.callees(d) {
        let site = &facts.calls[e.site() as usize];
        println!(
            "  {}:{}:{}  {}  [{} {}]",
            facts.path,
            site.pos().line + 1,
            site.pos().column + 1,
            describe(g, e.target),
            site.kind.as_str(),
            e.confidence().as_str()
        );
    }
    Ok(())
}

pub fn path(repo: &RepoArgs, from: &str, to: &str) -> Result<()> {
    let loaded = load(repo, true)?;
    let g = &loaded.graph;
    let (a, b) = (target(g, from)?, target(g, to)?);
    match g.path(a, b) {
        Some(path) => {
            for (i, d) in path.iter().enumerate() {
                println!("{}{}", if i == 0 { "" } else { "-> " }, describe(g, *d));
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
    let base_commit = git.resolve(base)?;
    let head_commit = git.resolve(head)?;
    let rules = rules(repo);
    let loaded = match &repo.database_url {
        // The stored graph serves as the base when it reflects the base commit.
        Some(url) => match super::stored::load_at(url, &repo_name(repo)?, &base_commit)? {
            Some(loaded) => loaded,
            None => {
                eprintln!(
                    "note: the stored graph is not at {base} ({}); indexing {base} from git",
                    &base_commit[..12.min(base_commit.len())]
                );
                load_commit(&git, &base_commit, &rules, true)?
            }
        },
        None => load_commit(&git, &base_commit, &rules, true)?,
    };

    let base_tree = git.tree(&base_commit)?;
    let head_tree = git.tree(&head_commit)?;
    let mut changed = git.changed_paths(&base_commit, &head_commit)?;
    changed.sort();
    let pick =
        |tree: &[crate::workspace::git::TreeEntry]| -> Vec<crate::workspace::git::TreeEntry> {
            tree.iter()
                .filter(|e| changed.binary_search(&e.path).is_ok())
                .cloned()
                .collect()
        };
    let old = git.read_blobs(&pick(&base_tree))?;
    let new = git.read_blobs(&pick(&head_tree))?;
    let mut versions: BTreeMap<String, FileChange> = BTreeMap::new();
    for f in old {
        let text = String::from_utf8(f.bytes).ok();
        versions
            .entry(f.path.clone())
            .or_insert_with(|| FileChange {
                path: f.path.clone(),
                old: None,
                new: None,
            })
            .old = text;
    }
    let mut skipped_files = loaded.skipped.len() as u32;
    for f in new {
        let text = match rules.check(&f.path, &f.bytes) {
            Ok(t) => Some(t.to_string()),
            Err(_) if crate::graph::modules::ModuleResolver::is_config_file(&f.path) => {
                String::from_utf8(f.bytes.clone()).ok()
            }
            Err(_) => {
                // Skipped in head (minified, too large...): keep base, count it.
                skipped_files += 1;
                versions.remove(&f.path);
                continue;
            }
        };
        versions
            .entry(f.path.clone())
            .or_insert_with(|| FileChange {
                path: f.path.clone(),
                old: None,
                new: None,
            })
            .new = text;
    }
    let changes: Vec<FileChange> = versions.into_values().filter(|c| c.old != c.new).collect();
    let options = BlastOptions {
        base: base.to_string(),
        head: head.to_string(),
        depth: depth.max(1),
        skipped_files,
    };
    let report = blast_radius(&loaded.graph, &changes, &options);
    let text = match format {
        ReportFormat::Markdown => render_markdown(&report, COMMENT_BUDGET),
        ReportFormat::Json => render_json(&report),
    };
    println!("{text}");
    Ok(())
}

pub fn facts(file: &Path) -> Result<()> {
    let path = file.to_string_lossy().replace('\\', "/");
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let loaded = load_files(
        vec![crate::indexer::pipeline::SourceFile {
            path: path.clone(),
            bytes,
        }],
        &SkipRules::default(),
        false,
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
