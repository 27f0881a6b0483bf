//! The stored graph of a repository brought to the head of its default branch,
//! fetching only the blobs that changed: what a push asks for, and what a pull request's
//! analysis needs first.
//!
//! The push payload's commit list is not trusted, nor its `before`: the diff runs from
//! the stored commit to the head GitHub reports now, so missed, reordered, coalesced and
//! forced pushes all converge on the head's graph.

use std::collections::BTreeMap;

use super::fetch::{fetch_blobs, FetchBudget, Wanted, JOB_FETCH_BUDGET};
use super::install::index_current;
use super::{errors, App};
use crate::github::{EntryKind, FileStatus, Installation, RepoName, Repository};
use crate::indexer::select::wanted;
use crate::indexer::skip::SkipReason;
use crate::model::{BlobSha, CommitSha, InstallationId};
use crate::queue::JobError;
use crate::store::RepoState;

/// Brings the stored graph of `repo` to the current head of its default branch (a full
/// index when there is none yet, or when the default branch changed), and returns the
/// repository's state then; None for a repository with nothing to index.
pub(super) async fn catch_up(
    app: &App,
    installation: &Installation,
    installation_id: InstallationId,
    repo: &Repository,
) -> Result<Option<RepoState>, JobError> {
    let state = app
        .store
        .repository_by_github_id(repo.id)
        .await
        .map_err(errors::store)?;
    let branch = repo.default_branch.clone().unwrap_or_default();
    // Not indexed yet, its default branch changed, or indexed under an older policy of
    // which files to read: a full index.
    let Some(state) =
        state.filter(|s| s.commit.is_some() && s.default_branch == branch && s.selection_current())
    else {
        index_current(app, installation, installation_id, repo).await?;
        return indexed(app, repo).await;
    };
    if state.full_name != repo.name.to_string() {
        app.store
            .upsert_github_repository(
                installation_id,
                repo.id,
                &repo.name.to_string(),
                &branch,
                repo.private,
            )
            .await
            .map_err(errors::store)?;
    } else {
        // Made public or private since: other repositories' pull requests go by it.
        app.store
            .set_repository_private(state.id, repo.private)
            .await
            .map_err(errors::store)?;
    }
    let head = match installation.branch_head(&repo.name, &branch).await {
        Ok(head) => head,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(errors::github(e)),
    };
    let from = state.commit.clone().expect("filtered on it");
    if from == head {
        return Ok(Some(state));
    }
    let Some((changed, removed)) =
        changes(app, installation, &repo.name, &state, &from, &head).await?
    else {
        // A tree too large to walk within the job's requests: the archive, in one.
        tracing::info!(repo = %repo.name, "head's tree too large to list: indexing the archive");
        index_current(app, installation, installation_id, repo).await?;
        return indexed(app, repo).await;
    };
    let budget = FetchBudget::new(app.rules.max_bytes, JOB_FETCH_BUDGET);
    let inputs = fetch_blobs(installation, &repo.name, changed, &budget).await?;
    if inputs
        .iter()
        .any(|i| i.file.skip == Some(SkipReason::OverBudget))
    {
        // More changed code than one job holds: the archive is read as a stream, within
        // its own bounds.
        tracing::info!(repo = %repo.name, files = inputs.len(), "push over the fetch budget: indexing the whole tree");
        drop(inputs);
        index_current(app, installation, installation_id, repo).await?;
        return indexed(app, repo).await;
    }
    let fetched = inputs.len();
    let started = std::time::Instant::now();
    let written = app
        .cache
        .apply_changes(state.id, Some(&head), inputs, removed.clone(), &app.rules)
        .await
        .map_err(errors::store)?;
    metrics::histogram!("blast_index_seconds", "kind" => "push", "phase" => "index")
        .record(started.elapsed().as_secs_f64());
    app.store
        .set_repository_error(state.id, None)
        .await
        .map_err(errors::store)?;
    tracing::info!(
        repo = %repo.name,
        from = from.short(),
        to = head.short(),
        fetched,
        removed = removed.len(),
        rewritten = written.files,
        version = written.version,
        "push applied"
    );
    indexed(app, repo).await
}

async fn indexed(app: &App, repo: &Repository) -> Result<Option<RepoState>, JobError> {
    Ok(app
        .store
        .repository_by_github_id(repo.id)
        .await
        .map_err(errors::store)?
        .filter(|s| s.commit.is_some()))
}

/// Files to fetch (path, blob) and paths removed between the stored commit and head.
/// The compare API when head is simply ahead and GitHub listed every file; else the
/// head's tree against the blobs stored for each path (forced pushes, a stored commit
/// GitHub no longer has, more than 300 files, type changes). None when the head's tree
/// is too large to list within [`crate::github::MAX_TREE_REQUESTS`].
async fn changes(
    app: &App,
    installation: &Installation,
    name: &RepoName,
    state: &RepoState,
    from: &CommitSha,
    head: &CommitSha,
) -> Result<Option<(Vec<Wanted>, Vec<String>)>, JobError> {
    match installation.compare(name, from, head).await {
        Ok(cmp)
            if cmp.status == "ahead"
                && !cmp.files_may_be_incomplete
                && cmp
                    .files
                    .iter()
                    .all(|f| !matches!(f.status, FileStatus::Changed | FileStatus::Unknown)) =>
        {
            let mut changed = Vec::new();
            let mut removed = Vec::new();
            for f in cmp.files {
                let path = f.path.0;
                if let Some(previous) = f.previous_path {
                    if f.status == FileStatus::Renamed && wanted(previous.as_str()) {
                        removed.push(previous.0);
                    }
                }
                if !wanted(&path) {
                    continue;
                }
                match (f.status, f.sha) {
                    (FileStatus::Removed, _) => removed.push(path),
                    (_, Some(sha)) => changed.push((path, sha, None)),
                    (_, None) => {}
                }
            }
            Ok(Some((changed, removed)))
        }
        Ok(_) => tree_changes(app, installation, name, state, head).await,
        Err(e) if e.is_not_found() => tree_changes(app, installation, name, state, head).await,
        Err(e) => Err(errors::github(e)),
    }
}

async fn tree_changes(
    app: &App,
    installation: &Installation,
    name: &RepoName,
    state: &RepoState,
    head: &CommitSha,
) -> Result<Option<(Vec<Wanted>, Vec<String>)>, JobError> {
    let tree = match installation.get_full_tree(name, head).await {
        Ok(tree) => tree,
        Err(e) if e.is_tree_too_large() => return Ok(None),
        Err(e) => return Err(errors::github(e)),
    };
    // Regular files only: a full index reads the tarball, which holds no symlinks.
    let at_head: BTreeMap<String, (BlobSha, Option<u64>)> = tree
        .into_iter()
        .filter(|e| e.kind == EntryKind::Blob && e.mode != "120000" && wanted(e.path.as_str()))
        .filter_map(|e| Some((e.path.0.clone(), (e.blob_sha()?, e.size))))
        .collect();
    let stored: BTreeMap<String, BlobSha> = app
        .store
        .file_blobs(state.id)
        .await
        .map_err(errors::store)?
        .into_iter()
        .collect();
    let changed = at_head
        .iter()
        .filter(|(p, (b, _))| stored.get(*p) != Some(b))
        .map(|(p, (b, size))| (p.clone(), b.clone(), *size))
        .collect();
    let removed = stored
        .keys()
        .filter(|p| !at_head.contains_key(*p))
        .cloned()
        .collect();
    Ok(Some((changed, removed)))
}
