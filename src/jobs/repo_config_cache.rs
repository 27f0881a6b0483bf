//! A repository's `.github/blast-radius.yml` as the jobs read it: at a commit of the
//! default branch (the base a pull request is judged against, so a pull request cannot
//! change its own rules), through the contents API. Kept a while per repository and
//! commit: a PR's analysis and the commands after it read it once.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use lru::LruCache;

use super::{errors, App};
use crate::github::{CappedBlob, Installation, RepoName, Repository};
use crate::model::{CommitSha, GithubRepoId};
use crate::queue::JobError;
use crate::repo_config::{parse_bytes, ConfigProblem, RepoConfig, REPO_CONFIG_PATH};

/// Commits whose configuration is kept (a few hundred bytes each).
const ENTRIES: usize = 256;
/// The largest `.github/blast-radius.yml` read: a real one is a few lines, and the
/// cache keeps what it parsed (problems quote values) for `ENTRIES` commits.
const MAX_CONFIG_BYTES: usize = 64 * 1024;

/// A repository's configuration at one commit, and what was wrong in the file.
#[derive(Debug, Default)]
pub struct LoadedConfig {
    pub config: RepoConfig,
    pub problems: Vec<ConfigProblem>,
}

pub struct RepoConfigCache {
    entries: Mutex<LruCache<(GithubRepoId, CommitSha), Arc<LoadedConfig>>>,
}

impl Default for RepoConfigCache {
    fn default() -> RepoConfigCache {
        RepoConfigCache {
            entries: Mutex::new(LruCache::new(NonZeroUsize::new(ENTRIES).expect("> 0"))),
        }
    }
}

/// The configuration of `repo` at `commit`: the defaults when there is no file. A GitHub
/// error other than "no such file" fails the job as any other GitHub error does (retried
/// when it may pass), never read as "no file".
pub(super) async fn repo_config(
    app: &App,
    installation: &Installation,
    repo: &Repository,
    commit: &CommitSha,
) -> Result<Arc<LoadedConfig>, JobError> {
    repo_config_of(app, installation, repo.id, &repo.name, commit).await
}

/// [`repo_config`] of the repository `id` named `name`.
pub(super) async fn repo_config_of(
    app: &App,
    installation: &Installation,
    id: GithubRepoId,
    name: &RepoName,
    commit: &CommitSha,
) -> Result<Arc<LoadedConfig>, JobError> {
    let key = (id, commit.clone());
    if let Some(found) = app.repo_configs.entries.lock().unwrap().get(&key) {
        return Ok(found.clone());
    }
    let bytes = installation
        .get_file_at_capped(name, REPO_CONFIG_PATH, commit, MAX_CONFIG_BYTES)
        .await
        .map_err(errors::github)?;
    let (config, problems) = match bytes {
        Some(CappedBlob::Whole(bytes)) => parse_bytes(&bytes),
        Some(CappedBlob::TooLarge) => (
            RepoConfig::default(),
            vec![ConfigProblem {
                key: String::new(),
                message: format!(
                    "the file is over {} KB; every default was used",
                    MAX_CONFIG_BYTES / 1024
                ),
                found: None,
            }],
        ),
        None => Default::default(),
    };
    if !problems.is_empty() {
        tracing::info!(
            repo = %name,
            commit = %commit.short(),
            problems = problems.len(),
            "{REPO_CONFIG_PATH} has problems; defaults stand in for those keys"
        );
    }
    let loaded = Arc::new(LoadedConfig { config, problems });
    app.repo_configs
        .entries
        .lock()
        .unwrap()
        .put(key, loaded.clone());
    Ok(loaded)
}
