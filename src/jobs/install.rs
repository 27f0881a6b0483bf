//! Installations and repositories: record them, index them in full, follow renames,
//! purge what was uninstalled. Each handler asks GitHub for the current state rather
//! than trusting the (possibly old, possibly coalesced) payload, so a re-run converges.

use super::{errors, App};
use crate::github::{ArchivedFile, GithubError, Installation, RepoName, Repository, Sieve};
use crate::indexer::select::{select, wanted, Selected};
use crate::indexer::skip::SkipReason;
use crate::model::{CommitSha, GithubRepoId, InstallationId};
use crate::queue::payloads::{
    repo_key, ApplyPush, IndexRepository, PurgeRepository, RenameRepository, SyncInstallation,
};
use crate::queue::{JobError, NewJob};
use crate::store::RepoState;
use crate::workflow::save::{extract_stream, resolve_and_save};
use crate::workflow::source::FileEntry;

pub async fn sync_installation(app: &App, job: SyncInstallation) -> Result<(), JobError> {
    let id = job.installation;
    // `deleted` too is only the reason: a signature carries no timestamp, so a captured
    // delivery can be sent again under a fresh delivery id. Only GitHub's 404 purges.
    let info = match app.github.get_installation(id).await {
        Ok(info) => info,
        // Uninstalled: nothing of it stays.
        Err(e) if e.is_not_found() => return purge_installation(app, id).await,
        Err(e) => return Err(errors::github(e)),
    };
    if job.action == "deleted" {
        tracing::warn!(
            installation = id.0,
            "a deletion GitHub does not show (a replayed delivery?): synced, not purged"
        );
    }
    app.store
        .upsert_installation(id, &info.account_login)
        .await
        .map_err(errors::store)?;
    app.store
        .set_installation_suspended(id, info.suspended)
        .await
        .map_err(errors::store)?;
    if info.suspended {
        tracing::info!(installation = id.0, "suspended: no work until unsuspended");
        return Ok(());
    }
    catch_up_installation(app, id).await
}

/// Brings every repository of an installation in line with GitHub: new ones indexed,
/// removed ones purged, the others caught up to their default branch's head; then open
/// pull requests never analysed at their head get an analysis. What a
/// sync does, and what the server does for every installation at start and on a
/// schedule (deliveries can be lost while it is down).
pub async fn catch_up_installation(app: &App, id: InstallationId) -> Result<(), JobError> {
    let installation = app.github.installation(id);
    let listed = installation
        .list_repositories()
        .await
        .map_err(errors::github)?;
    let stored = app
        .store
        .installed_repositories(Some(id))
        .await
        .map_err(errors::store)?;
    for gone in stored
        .iter()
        .filter(|s| !listed.iter().any(|r| Some(r.id) == s.github_id))
    {
        purge(app, gone).await?;
    }
    for repo in &listed {
        let known = stored.iter().find(|s| s.github_id == Some(repo.id));
        let job = match known {
            Some(state) if state.commit.is_some() => {
                let Some(branch) = repo.default_branch.clone() else {
                    continue;
                };
                let head = match installation.branch_head(&repo.name, &branch).await {
                    Ok(head) => head,
                    Err(e) if e.is_not_found() => continue,
                    Err(e) => return Err(errors::github(e)),
                };
                if state.commit.as_ref() == Some(&head) && state.default_branch == branch {
                    continue;
                }
                let before = state.commit.clone().unwrap_or_else(|| head.clone());
                NewJob::of(&ApplyPush {
                    installation: id,
                    repository: repo.id,
                    full_name: repo.name.to_string(),
                    default_branch: branch,
                    before,
                    after: head,
                    forced: false,
                })
                .coalesce(format!("apply_push:{}", repo.id.0))
            }
            _ => NewJob::of(&IndexRepository {
                installation: id,
                account: None,
                repository: repo.id,
                full_name: repo.name.to_string(),
                reason: "catch-up".into(),
            })
            .coalesce(format!("index_repository:{}", repo.id.0)),
        };
        app.queue
            .enqueue(&job.serial(repo_key(repo.id)))
            .await
            .map_err(JobError::retry)?;
    }
    // Pull requests whose deliveries were lost for good (GitHub keeps them 3 days).
    super::open_prs::analyse_unanalysed(app, id, &installation, &listed).await
}

async fn purge_installation(app: &App, id: InstallationId) -> Result<(), JobError> {
    for repo in app
        .store
        .installed_repositories(Some(id))
        .await
        .map_err(errors::store)?
    {
        app.cache.forget(repo.id);
    }
    app.store
        .delete_installation(id)
        .await
        .map_err(errors::store)?;
    app.github.forget_installation(id);
    tracing::info!(installation = id.0, "installation purged");
    Ok(())
}

async fn purge(app: &App, repo: &RepoState) -> Result<(), JobError> {
    app.cache.forget(repo.id);
    app.store
        .delete_repository(repo.id)
        .await
        .map_err(errors::store)?;
    tracing::info!(repo = %repo.full_name, "repository purged");
    Ok(())
}

/// Whether the installation may get work now (not suspended). An installation we do not
/// know yet is recorded.
pub(super) async fn active(
    app: &App,
    id: InstallationId,
    account: Option<&str>,
) -> Result<bool, JobError> {
    match app
        .store
        .installation_suspended(id)
        .await
        .map_err(errors::store)?
    {
        Some(suspended) => Ok(!suspended),
        None => {
            app.store
                .upsert_installation(id, account.unwrap_or_default())
                .await
                .map_err(errors::store)?;
            Ok(true)
        }
    }
}

/// The repository as GitHub has it now; None when it is gone (deleted, or no longer
/// visible to the installation), after purging what we held of it.
async fn current(
    app: &App,
    installation: &Installation,
    id: GithubRepoId,
) -> Result<Option<Repository>, JobError> {
    match installation.get_repository_by_id(id).await {
        Ok(repo) => Ok(Some(repo)),
        Err(e) if e.is_not_found() => {
            if let Some(state) = app
                .store
                .repository_by_github_id(id)
                .await
                .map_err(errors::store)?
            {
                purge(app, &state).await?;
            }
            Ok(None)
        }
        Err(e) => Err(errors::github(e)),
    }
}

pub async fn index_repository(app: &App, job: &IndexRepository) -> Result<(), JobError> {
    if !active(app, job.installation, job.account.as_deref()).await? {
        return Ok(());
    }
    let installation = app.github.installation(job.installation);
    let Some(repo) = current(app, &installation, job.repository).await? else {
        return Ok(());
    };
    index_current(app, &installation, job.installation, &repo).await
}

/// Indexes the head of `repo`'s default branch in full, from one tarball, unless the
/// stored graph already reflects it.
pub(super) async fn index_current(
    app: &App,
    installation: &Installation,
    installation_id: InstallationId,
    repo: &Repository,
) -> Result<(), JobError> {
    let Some(branch) = repo.default_branch.clone() else {
        // An empty repository: recorded, nothing to index until its first push.
        record(app, installation_id, repo, "").await?;
        return Ok(());
    };
    let state = record(app, installation_id, repo, &branch).await?;
    let head = match installation.branch_head(&repo.name, &branch).await {
        Ok(head) => head,
        Err(e) if e.is_not_found() => return Ok(()),
        Err(e) => return Err(errors::github(e)),
    };
    if state.commit.as_ref() == Some(&head) {
        return Ok(());
    }
    let result = index_tarball(app, installation, &repo.name, &state, &head).await;
    let error = result.as_ref().err().map(|e| e.to_string());
    app.store
        .set_repository_error(state.id, error.as_deref())
        .await
        .map_err(errors::store)?;
    result
}

async fn record(
    app: &App,
    installation: InstallationId,
    repo: &Repository,
    branch: &str,
) -> Result<RepoState, JobError> {
    app.store
        .upsert_github_repository(
            installation,
            repo.id,
            &repo.name.to_string(),
            branch,
            repo.private,
        )
        .await
        .map_err(errors::store)
}

/// Source a full index holds at most: the kept files' bytes, after the skip rules. The
/// benchmark corpus's 9,000 files are 25 MB; a repository past this is reported, not
/// indexed (never an out-of-memory kill of the process that takes webhooks).
pub const MAX_SOURCE_BYTES: usize = 256 * 1024 * 1024;

async fn index_tarball(
    app: &App,
    installation: &Installation,
    name: &RepoName,
    state: &RepoState,
    head: &CommitSha,
) -> Result<(), JobError> {
    let started = std::time::Instant::now();
    // Only the files the indexer reads are kept, and of those only the ones it will
    // parse: the skip rules run as the archive streams in. Each kept file goes straight
    // on to be parsed, so the cores work while the rest of the archive arrives.
    let rules = app.rules;
    let (files, arriving) = tokio::sync::mpsc::unbounded_channel();
    let sieve = Sieve {
        wants: Box::new(wanted),
        drops: Box::new(move |path: &str, bytes: Option<&[u8]>| match bytes {
            None => Some(SkipReason::TooLarge),
            Some(bytes) => match select(path, bytes, &rules) {
                Selected::Skipped(reason) => Some(reason),
                _ => None,
            },
        }),
        max_file: rules.max_bytes,
        max_total: MAX_SOURCE_BYTES,
        sink: Some(Box::new(move |f: ArchivedFile<SkipReason>| {
            let entry = FileEntry {
                path: f.path,
                blob: Some(f.blob),
            };
            files.send((entry, f.bytes, f.dropped)).is_ok()
        })),
    };
    let download = async {
        let archive = installation
            .download_tarball_sieved(name, head, sieve)
            .await;
        (archive, started.elapsed())
    };
    let extraction = extract_stream(&app.store, state.id, arriving, rules);
    let ((archive, downloaded), extracted) = tokio::join!(download, extraction);
    // An extraction that failed stops the download (its reader went away): then the
    // extraction's error says why. A broken download only ends the extraction early.
    let extracted = match extracted {
        Err(e) if archive.is_err() => return Err(JobError::retry(e)),
        other => other,
    };
    let archive = archive.map_err(|e: GithubError| errors::github(e))?;
    if archive.over_total {
        return Err(JobError::permanent(anyhow::anyhow!(
            "{name} at {}: more than {} MB of JavaScript/TypeScript to index (after \
             skipping minified, generated and too-large files); the App indexes \
             repositories up to that size",
            head.short(),
            MAX_SOURCE_BYTES >> 20
        )));
    }
    let regular = archive.regular;
    let extracted = extracted.map_err(JobError::retry)?;
    let (indexed, saved) = resolve_and_save(&app.store, state.id, Some(head.clone()), extracted)
        .await
        .map_err(JobError::retry)?;
    let skipped = indexed.skipped.len();
    app.cache
        .hold(state.id, indexed.graph, saved.version, Some(head.clone()));
    // The download overlaps the parsing: "index" is what follows its last byte.
    metrics::histogram!("blast_index_seconds", "kind" => "full", "phase" => "download")
        .record(downloaded.as_secs_f64());
    metrics::histogram!("blast_index_seconds", "kind" => "full", "phase" => "index")
        .record((started.elapsed() - downloaded).as_secs_f64());
    tracing::info!(
        repo = %name,
        commit = head.short(),
        files = regular,
        stored = saved.files,
        edges = saved.edges,
        parsed = saved.parsed,
        cached = saved.cached,
        skipped,
        download_ms = downloaded.as_millis() as u64,
        index_ms = (started.elapsed() - downloaded).as_millis() as u64,
        "indexed"
    );
    Ok(())
}

/// Purges a repository the delivery says was deleted or removed, once GitHub confirms
/// the installation no longer sees it (the delivery may be a replay: see
/// [`sync_installation`]).
pub async fn purge_repository(app: &App, job: &PurgeRepository) -> Result<(), JobError> {
    let Some(state) = app
        .store
        .repository_by_github_id(job.repository)
        .await
        .map_err(errors::store)?
    else {
        return Ok(());
    };
    // The installation our copy is kept for (after a transfer, maybe not the delivery's).
    let holder = state.installation.unwrap_or(job.installation);
    // GitHub sends a suspended installation no deliveries, and its token cannot be
    // minted to ask: the sync at unsuspend purges what went meanwhile.
    let suspended = app
        .store
        .installation_suspended(holder)
        .await
        .map_err(errors::store)?;
    if suspended == Some(true) {
        return Ok(());
    }
    if still_installed(app, holder, job.repository).await? {
        tracing::warn!(
            repo = %state.full_name,
            "a removal GitHub does not show (a replayed delivery?): kept"
        );
        return Ok(());
    }
    purge(app, &state).await
}

/// Whether `installation` still holds the repository on GitHub.
async fn still_installed(
    app: &App,
    installation: InstallationId,
    id: GithubRepoId,
) -> Result<bool, JobError> {
    let client = app.github.installation(installation);
    // One call answers most removals: a deleted repository, or a private one taken
    // from the installation, is a 404 to its token (as is every repository of an
    // installation that is gone).
    let repo = match client.get_repository_by_id(id).await {
        Ok(repo) => repo,
        Err(e) if e.is_not_found() => return Ok(false),
        Err(e) => return Err(errors::github(e)),
    };
    // A private repository the token reads is one of the installation's; a public one is
    // readable by any token, so only the installation's list tells.
    if repo.private {
        return Ok(true);
    }
    let listed = client.list_repositories().await.map_err(errors::github)?;
    Ok(listed.iter().any(|r| r.id == id))
}

pub async fn rename_repository(app: &App, job: &RenameRepository) -> Result<(), JobError> {
    if !active(app, job.installation, None).await? {
        return Ok(());
    }
    let installation = app.github.installation(job.installation);
    let Some(repo) = current(app, &installation, job.repository).await? else {
        return Ok(());
    };
    let known = app
        .store
        .repository_by_github_id(repo.id)
        .await
        .map_err(errors::store)?;
    match known {
        // Same id, new name (and, for a transfer, maybe a new installation).
        Some(state) => {
            let branch = repo
                .default_branch
                .clone()
                .unwrap_or(state.default_branch.clone());
            record(app, job.installation, &repo, &branch).await?;
            Ok(())
        }
        None => index_current(app, &installation, job.installation, &repo).await,
    }
}
