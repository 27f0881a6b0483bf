//! `blast_radius`: the changed functions of a change and their callers, touched or not.
//! Without `head`, the change is the working tree's against `base` (HEAD by default):
//! what an agent has in hand before it commits. Its base graph is the served graph with
//! the changed files put back as `base` has them, so nothing is indexed again.

use std::path::Path;

use anyhow::{bail, Context, Result};

use super::live::{indexed, lay_files, Served, Snapshot};
use crate::blast::report::BlastReport;
use crate::indexer::skip::SkipRules;
use crate::model::CommitSha;
use crate::workflow::blast_change::{blast_change, blast_revisions, BlastRequest};
use crate::workflow::progress::Silent;
use crate::workflow::save::load_stored_at;
use crate::workflow::source::{Changes, Revision};
use crate::workspace::git::{GitRange, GitRepo, GitRevision, WorkingChanges};
use crate::workspace::walk::WorkingTree;

/// The label of the working tree as a blast's head.
pub const WORKING_TREE: &str = "working tree";

pub struct BlastArgs {
    pub base: Option<String>,
    pub head: Option<String>,
    pub depth: u32,
}

/// The blast radius of `args`' change in the git repository at `dir` (the served
/// working tree, or the checkout the stored graph's repository has).
pub async fn blast_radius(served: &Served, dir: &Path, args: BlastArgs) -> Result<BlastReport> {
    let git = GitRepo::open(dir)?;
    let base = args.base.unwrap_or_else(|| "HEAD".to_string());
    let base_commit = CommitSha::from(git.resolve(&base)?);
    // The stored graph serves as the base when it reflects the base commit.
    let stored = match served.stored() {
        Some((store, name)) => load_stored_at(store, name, &base_commit).await?,
        None => None,
    };
    let rules = served.rules;
    let old = GitRevision {
        repo: &git,
        commit: base_commit.clone(),
    };
    match args.head {
        Some(head) => {
            let head_commit = CommitSha::from(git.resolve(&head)?);
            let new = GitRevision {
                repo: &git,
                commit: head_commit.clone(),
            };
            let changes = GitRange {
                repo: &git,
                base: base_commit,
                head: head_commit,
            };
            crate::workflow::cpu(|| {
                blast_change(
                    stored,
                    &old,
                    &new,
                    &changes,
                    &rules,
                    &BlastRequest {
                        base_label: &base,
                        head_label: &head,
                        depth: args.depth,
                    },
                    &Silent,
                )
            })
        }
        None => {
            let top = top_level(&git, dir)?;
            let new = WorkingTree::new(&top);
            let changes = WorkingChanges {
                repo: &git,
                base: base_commit,
            };
            let request = BlastRequest {
                base_label: &base,
                head_label: WORKING_TREE,
                depth: args.depth,
            };
            if served.stored().is_some() {
                return crate::workflow::cpu(|| {
                    blast_change(stored, &old, &new, &changes, &rules, &request, &Silent)
                });
            }
            let snapshot = served.current().await?;
            crate::workflow::cpu(|| {
                blast_over_served(&snapshot, &old, &new, &changes, &rules, &request)
            })
        }
    }
}

/// The repository's top level, which must be `dir`: the working tree is walked from it.
fn top_level(git: &GitRepo, dir: &Path) -> Result<std::path::PathBuf> {
    let top = git.root().canonicalize()?;
    let here = dir
        .canonicalize()
        .with_context(|| format!("{} is not a directory", dir.display()))?;
    if top != here {
        bail!(
            "the working tree's blast radius needs the repository's top level ({}) as --repo",
            top.display()
        );
    }
    Ok(top)
}

/// The working tree's blast radius over the served graph, which is the working tree's:
/// the changed files are put back as the base has them, and the graph is the base's.
fn blast_over_served(
    snapshot: &Snapshot,
    old: &GitRevision,
    new: &WorkingTree,
    changes: &WorkingChanges,
    rules: &SkipRules,
    request: &BlastRequest,
) -> Result<BlastReport> {
    let changed = changes.changed_paths()?;
    let mut base_graph = snapshot.clone();
    let files = old.read_paths(&changed)?;
    let in_base: std::collections::BTreeSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let removed = changed
        .iter()
        .filter(|p| !in_base.contains(p.as_str()))
        .cloned()
        .collect();
    lay_files(&mut base_graph, files, removed, rules);
    let base_graph = indexed(base_graph);
    let skipped = base_graph.skipped.len();
    blast_revisions(
        &base_graph.graph,
        skipped,
        old,
        new,
        &changed,
        rules,
        request,
    )
}
