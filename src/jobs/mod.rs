//! The event handlers: what each queued job does, joining github (bytes in), the
//! workflows (index, push) and the store. No SQL and no HTTP of their own.

mod answer_command;
mod check_name;
mod errors;
mod fetch;
pub mod graph_cache;
mod graph_catch_up;
mod install;
mod open_prs;
pub mod pr;
mod pr_files;
mod push;
mod repo_config_cache;

use std::sync::Arc;

use crate::github::GithubApp;
use crate::indexer::skip::SkipRules;
use crate::model::InstallationId;
use crate::queue::payloads::{
    AnalyzePr, AnswerCommand, ApplyPush, ClosePr, IndexRepository, PurgeRepository,
    RenameRepository, SyncInstallation,
};
use crate::queue::{Handler, JobError, JobPayload, Queue, RunningJob};
use crate::store::Store;

pub use graph_cache::{GraphCache, Snapshot};
pub use pr_files::PrFilesCache;
pub use repo_config_cache::RepoConfigCache;

/// What every handler works with.
pub struct App {
    pub store: Store,
    pub cache: Arc<GraphCache>,
    pub github: GithubApp,
    pub queue: Queue,
    pub rules: SkipRules,
    /// Recent pull requests' fetched files, shared by their analysis and commands.
    pub pr_files: PrFilesCache,
    /// Repositories' `.github/blast-radius.yml`, by the commit it was read at.
    pub repo_configs: RepoConfigCache,
    /// GitHub's web address (for permalinks): `https://github.com`, or a GitHub
    /// Enterprise Server's.
    pub web_url: String,
}

/// Runs jobs for the queue's workers.
#[derive(Clone)]
pub struct Jobs(pub Arc<App>);

impl Handler for Jobs {
    async fn handle(&self, job: RunningJob) -> Result<(), JobError> {
        // Every line a job logs carries its id, kind and delivery, and the repository
        // (as owner/name when the payload has it) and pull request it is about.
        let payload = &job.job().payload;
        let repository = payload
            .get("full_name")
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .or_else(|| payload.get("repository").map(|v| v.to_string()));
        let pr = payload.get("number").and_then(|v| v.as_u64());
        let span = tracing::info_span!(
            "job",
            id = job.id.0,
            kind = %job.kind,
            delivery = job.delivery_id.as_deref(),
            repository = repository.as_deref(),
            pr
        );
        let installation = payload
            .get("installation")
            .and_then(|v| v.as_i64())
            .map(InstallationId);
        let cancel = job.cancel_token();
        let work = crate::workflow::cancellable(cancel, dispatch(&self.0, job));
        let done = tracing::Instrument::instrument(work, span.clone())
            .await
            .map_err(errors::defer_rate_limits);
        if let Some(installation) = installation {
            tracing::Instrument::instrument(record_rate_limit(&self.0, installation), span).await;
        }
        done
    }
}

/// Records for the status page the rate limit left that the installation's last answer
/// from GitHub said, if this process has seen one. A failure to record is logged only:
/// the job's outcome does not hang on it.
async fn record_rate_limit(app: &App, installation: InstallationId) {
    let Some(rate) = app.github.installation_rate_limit(installation) else {
        return;
    };
    if let Err(e) = app
        .store
        .record_rate_limit(installation, rate.remaining, rate.limit, rate.reset)
        .await
    {
        tracing::warn!(error = %e, "could not record the rate limit left");
    }
}

async fn dispatch(app: &App, job: RunningJob) -> Result<(), JobError> {
    match job.kind.as_str() {
        SyncInstallation::KIND => install::sync_installation(app, job.payload_as()?).await,
        IndexRepository::KIND => install::index_repository(app, &job.payload_as()?).await,
        ApplyPush::KIND => push::apply_push(app, &job.payload_as()?).await,
        PurgeRepository::KIND => install::purge_repository(app, &job.payload_as()?).await,
        RenameRepository::KIND => install::rename_repository(app, &job.payload_as()?).await,
        AnalyzePr::KIND => pr::analyze_pr(app, &job, &job.payload_as()?).await,
        // Closing supersedes a running analysis and replaces a waiting one: that is all
        // it has to do.
        ClosePr::KIND => Ok(()),
        AnswerCommand::KIND => answer_command::answer_command(app, &job, &job.payload_as()?).await,
        other => Err(JobError::permanent(anyhow::anyhow!(
            "unknown job kind '{other}' (a newer version enqueued it?)"
        ))),
    }
}
