//! `blast-radius serve` and `work`: intake and workers over one database. Postgres is the
//! only coordinator, so any number of `work` processes on any number of machines share
//! the queue with `serve`.

pub mod check;
pub mod config;
pub mod status;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use secrecy::ExposeSecret;
use tokio::sync::watch;

use crate::github::GithubApp;
use crate::indexer::skip::SkipRules;
use crate::intake::jobs::{installation_key, SyncInstallation};
use crate::intake::Intake;
use crate::jobs::{App, GraphCache, Jobs};
use crate::queue::{run_workers, NewJob, Queue, QueueConfig};
use crate::store::Store;
use config::ServerConfig;

/// What this process runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Intake and workers; applies pending migrations first unless told not to.
    Serve { migrate: bool },
    /// Workers only.
    Work,
}

/// Runs until SIGTERM or SIGINT, then stops claiming jobs, lets running ones finish
/// (or releases them), and returns.
pub async fn run(config: ServerConfig, mode: Mode) -> anyhow::Result<()> {
    let url = config.database_url.expose_secret().to_string();
    let store = Store::connect_retrying(&url, 8).await?;
    match mode {
        Mode::Serve { migrate: true } => store.migrate().await?,
        _ => store.require_migrated().await?,
    }
    let queue_config = QueueConfig {
        lease: config.job_lease,
        heartbeat: config.job_lease / 4,
        ..QueueConfig::default()
    };
    let queue = Queue::connect(&url, (config.workers as u32 + 3).max(4), queue_config)
        .await
        .context("connecting the job queue")?;
    let github = GithubApp::new(&config.github)?;
    let app = Arc::new(App {
        cache: GraphCache::new(store.clone(), config.graph_memory_bytes),
        store,
        github,
        queue: queue.clone(),
        rules: SkipRules::default(),
        pr_files: Default::default(),
        repo_configs: Default::default(),
        web_url: web_url(&config.github.api_url),
    });

    let (stop_tx, stop) = watch::channel(false);
    tokio::spawn(async move {
        shutdown_signal().await;
        tracing::info!("shutting down: no new jobs; running ones finish or are released");
        let _ = stop_tx.send(true);
    });
    let stopped = |mut stop: watch::Receiver<bool>| async move {
        let _ = stop.wait_for(|s| *s).await;
    };

    let workers = tokio::spawn(run_workers(
        queue.clone(),
        config.workers,
        Jobs(app.clone()),
        stopped(stop.clone()),
    ));
    let Mode::Serve { .. } = mode else {
        tracing::info!(workers = config.workers, "working");
        workers.await?;
        return Ok(());
    };
    tokio::spawn(catch_up_loop(
        app.clone(),
        config.catch_up_minutes,
        stop.clone(),
    ));
    let listener = tokio::net::TcpListener::bind(("0.0.0.0", config.port))
        .await
        .with_context(|| format!("listening on port {}", config.port))?;
    tracing::info!(port = config.port, workers = config.workers, "serving");
    let router = Intake::new(queue, config.secrets)
        .router()
        .merge(status::router(app.clone(), config.status_token.clone()));
    axum::serve(listener, router)
        .with_graceful_shutdown(stopped(stop))
        .await
        .context("serving webhooks")?;
    workers.await?;
    Ok(())
}

/// At start and then every `minutes`, asks for every known installation to be brought
/// in line with GitHub: deliveries missed while the server was down are caught up.
async fn catch_up_loop(app: Arc<App>, minutes: u64, mut stop: watch::Receiver<bool>) {
    loop {
        match app.store.installation_ids().await {
            Ok(ids) => {
                for id in ids {
                    let job = NewJob::of(&SyncInstallation {
                        installation: id,
                        account: None,
                        action: "catch_up".into(),
                    })
                    .serial(installation_key(id))
                    .coalesce(format!("sync_installation:{}", id.0));
                    if let Err(e) = app.queue.enqueue(&job).await {
                        tracing::warn!(installation = id.0, error = %e, "catch-up not queued");
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "catch-up: installations unreadable"),
        }
        if minutes == 0 {
            return;
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(minutes * 60)) => {}
            _ = stop.wait_for(|s| *s) => return,
        }
    }
}

/// GitHub's web address from its API's: `api.github.com` is `github.com`; a GitHub
/// Enterprise Server's API lives under `/api/v3` of its web address.
fn web_url(api_url: &str) -> String {
    let api = api_url.trim_end_matches('/');
    if api == "https://api.github.com" {
        return "https://github.com".into();
    }
    api.strip_suffix("/api/v3").unwrap_or(api).to_string()
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn web_addresses_follow_the_api() {
        assert_eq!(
            super::web_url("https://api.github.com"),
            "https://github.com"
        );
        assert_eq!(
            super::web_url("https://git.example.com/api/v3/"),
            "https://git.example.com"
        );
    }
}
