//! `blast-radius serve` and `work`: intake and workers over one database. Postgres is the
//! only coordinator, so any number of `work` processes on any number of machines share
//! the queue with `serve`.

pub mod auth;
mod catch_up;
pub mod check;
pub mod headers;
pub mod listen;
pub mod prometheus;
pub mod recovery;
pub mod settings;
pub mod setup;
pub mod status;

use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use anyhow::Context;
use axum::extract::Request;
use axum::Router;
use secrecy::ExposeSecret;
use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;
use tower::ServiceExt as _;

use crate::github::{GithubApp, GithubConfig};
use crate::indexer::skip::SkipRules;
use crate::intake::{Intake, WebhookSecrets};
use crate::jobs::{App, GraphCache, Jobs};
use crate::queue::payloads::{ApplyPush, IndexRepository};
use crate::queue::{run_pruner, run_workers, JobPayload, Queue, QueueConfig};
use crate::store::{Store, StoreError};
use auth::Guard;
use headers::PageHeaders;
use settings::ServerConfig;
use setup::{Activation, SetupConfig, SetupState};

/// What this process runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Intake and workers; applies pending migrations first unless told not to.
    Serve { migrate: bool },
    /// Workers only.
    Work,
}

/// Runs until SIGTERM or SIGINT, then stops claiming jobs, lets running ones finish
/// within the shutdown grace (or releases them), answering deliveries 503 meanwhile, and
/// returns.
///
/// With the App's credentials in the environment it runs as the App at once. Without,
/// it reads them from Postgres, where `/setup` stores them: until they exist, `serve`
/// answers `/webhook` with 503 and offers `/setup`, and both `serve` and `work` start
/// running as the App as soon as they appear, without a restart.
pub async fn run(mut config: ServerConfig, mode: Mode) -> anyhow::Result<()> {
    prometheus::recorder();
    let url = config.database_url.expose_secret().to_string();
    let store = Store::connect_retrying(&url, 8).await?;
    match mode {
        Mode::Serve { migrate: true } => store.migrate().await?,
        _ => store.require_migrated().await?,
    }
    let queue = Queue::connect(
        &url,
        (config.workers as u32 + 3).max(4),
        queue_config(&config),
    )
    .await
    .context("connecting the job queue")?;
    let stop = stop_on_signal();

    let env_app = config.app.take();
    let (running_tx, running) = watch::channel(false);
    let public_url = config.public_url.as_deref();
    let secure_cookie = auth::cookie_needs_https(public_url);
    let web_url = web_url(&config.api_url);
    let runtime = Arc::new(Runtime {
        headers: PageHeaders::new(headers::over_https(public_url), &web_url),
        web_url,
        guard: config
            .status_token
            .clone()
            .map(|token| Arc::new(Guard::new(token, secure_cookie))),
        env_app: env_app.as_ref().map(|a| a.github.app_id),
        router: RwLock::new(Router::new()),
        workers: Mutex::new(None),
        running_tx,
        activation: Activation {
            wake: Arc::new(Notify::new()),
            running,
        },
        store,
        queue,
        mode,
        stop: stop.clone(),
        refused: Arc::new(Notify::new()),
        serving: watch::channel(false).0,
        config,
    });
    runtime.clone().start_app(env_app).await?;

    // Finished jobs and old deliveries go on a schedule (`serve` only: one pruner is
    // enough, and several would only share the batches).
    if let Mode::Serve { .. } = mode {
        tokio::spawn(run_pruner(runtime.queue.clone(), stopped(stop.clone())));
    }
    // Repositories stored before their calls into packages were kept get them from their
    // stored graphs, once, one graph at a time, beside the server's work: by the process
    // that migrates (`migrate` as a release step, or `serve` without `--no-migrate`).
    if let Mode::Serve { migrate: true } = mode {
        let store = runtime.store.clone();
        tokio::spawn(async move {
            match store.record_missing_calls().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(repositories = n, "calls into packages recorded"),
                Err(e) => {
                    tracing::warn!(error = %e, "recording the calls into packages failed; `blast-radius migrate` retries")
                }
            }
        });
    }
    let Mode::Serve { .. } = mode else {
        tracing::info!(workers = runtime.config.workers, "working");
        stopped(stop).await;
        runtime.join_workers().await;
        return Ok(());
    };
    // On SIGTERM intake answers deliveries 503 (GitHub logs them failed, and the
    // recovery asks for them after the restart) until the running jobs have finished or
    // been handed back; then the listener closes.
    let drained = {
        let runtime = runtime.clone();
        async move {
            stopped(stop).await;
            runtime.join_workers().await;
        }
    };
    serve_http(&runtime, drained).await?;
    runtime.join_workers().await;
    Ok(())
}

fn queue_config(config: &ServerConfig) -> QueueConfig {
    QueueConfig {
        lease: config.job_lease,
        heartbeat: config.job_lease / 4,
        // A whole repository's download and index may outlast the default 15 minutes.
        job_timeouts: vec![
            (IndexRepository::KIND.into(), Duration::from_secs(60 * 60)),
            (ApplyPush::KIND.into(), Duration::from_secs(60 * 60)),
        ],
        retention: config.retention.clone(),
        shutdown_grace: config.shutdown_grace,
        ..QueueConfig::default()
    }
}

/// A flag that turns true on SIGTERM or SIGINT.
fn stop_on_signal() -> watch::Receiver<bool> {
    let (stop_tx, stop) = watch::channel(false);
    tokio::spawn(async move {
        shutdown_signal().await;
        tracing::info!("shutting down: no new jobs; running ones finish or are released");
        let _ = stop_tx.send(true);
    });
    stop
}

/// Serves the routes on the configured port until `stop`.
async fn serve_http(
    runtime: &Arc<Runtime>,
    until: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let port = runtime.config.port;
    let listener = tokio::net::TcpListener::bind(("0.0.0.0", port))
        .await
        .with_context(|| format!("listening on port {port}"))?;
    tracing::info!(port, workers = runtime.config.workers, "serving");
    runtime.serving.send_replace(true);
    let listening = listen::Listening {
        clients: runtime.config.clients.clone(),
        ..listen::Listening::default()
    };
    listen::serve(listener, runtime.clone().service(), listening, until).await;
    Ok(())
}

async fn stopped(mut stop: watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

/// The process: its routes (swapped whole when the App appears) and its workers.
struct Runtime {
    store: Store,
    queue: Queue,
    config: ServerConfig,
    mode: Mode,
    stop: watch::Receiver<bool>,
    web_url: String,
    guard: Option<Arc<Guard>>,
    headers: PageHeaders,
    env_app: Option<u64>,
    router: RwLock<Router>,
    workers: Mutex<Option<JoinHandle<()>>>,
    running_tx: watch::Sender<bool>,
    activation: Activation,
    /// Intake tells it of a delivery the database could not take; the delivery recovery
    /// listens.
    refused: Arc<Notify>,
    /// True once the listener is bound: a redelivery asked for before would find no one.
    serving: watch::Sender<bool>,
}

impl Runtime {
    /// Runs as the App from the environment if given; else as the one `/setup` stored,
    /// before the first request is served, so a restarted server answers as it at once;
    /// else awaits one.
    async fn start_app(
        self: Arc<Self>,
        env_app: Option<settings::AppConfig>,
    ) -> anyhow::Result<()> {
        if let Some(app) = env_app {
            let described = format!("App {} (configured in the environment)", app.github.app_id);
            return self.start(&app.github, app.secrets, described);
        }
        self.set_routes(None);
        let running = match &self.config.setup {
            Some(setup) => self.run_stored_app(setup).await.unwrap_or(false),
            None => false,
        };
        if !running {
            tokio::spawn(self.await_stored_app());
        }
        Ok(())
    }

    /// Runs as the App: workers, the catch-up loop (`serve`), and every route.
    fn start(
        &self,
        github: &GithubConfig,
        secrets: WebhookSecrets,
        described: String,
    ) -> anyhow::Result<()> {
        let app = Arc::new(App {
            cache: GraphCache::new(self.store.clone(), self.config.graph_memory_bytes),
            store: self.store.clone(),
            github: GithubApp::new(github)?,
            queue: self.queue.clone(),
            rules: SkipRules::default(),
            pr_files: Default::default(),
            repo_configs: Default::default(),
            web_url: self.web_url.clone(),
        });
        let workers = tokio::spawn(run_workers(
            self.queue.clone(),
            self.config.workers,
            Jobs(app.clone()),
            stopped(self.stop.clone()),
        ));
        *self.workers.lock().expect("workers lock") = Some(workers);
        if let Mode::Serve { .. } = self.mode {
            tokio::spawn(catch_up::catch_up_loop(
                app.clone(),
                self.config.catch_up_minutes,
                self.stop.clone(),
            ));
            // Only `serve` takes deliveries, so only it asks for the missed ones again.
            if let Some(settings) = self.config.recovery.clone() {
                tokio::spawn(recovery::recovery_loop(
                    app.github.clone(),
                    self.queue.clone(),
                    settings,
                    self.refused.clone(),
                    self.serving.subscribe(),
                    self.stop.clone(),
                ));
            }
        }
        self.set_routes(Some((secrets, described, app.cache.clone())));
        tracing::info!(app = github.app_id, "running as the App");
        let _ = self.running_tx.send(true);
        Ok(())
    }

    /// The routes for now: with the App (its webhook secrets, a line describing it, its
    /// graphs), or waiting for one.
    fn set_routes(&self, app: Option<(WebhookSecrets, String, Arc<GraphCache>)>) {
        let (intake, described, cache) = match app {
            Some((secrets, described, cache)) => (
                Intake::new(self.queue.clone(), secrets)
                    .recovering(self.refused.clone(), self.stop.clone()),
                Some(described),
                Some(cache),
            ),
            None => (Intake::awaiting_app(self.queue.clone()), None, None),
        };
        let router = intake
            .router()
            .merge(status::router(
                self.store.clone(),
                self.queue.clone(),
                described,
                self.guard.clone(),
            ))
            .merge(setup::router(SetupState {
                store: self.store.clone(),
                config: self.config.setup.clone(),
                guard: self.guard.clone(),
                web_url: self.web_url.clone(),
                api_url: self.config.api_url.clone(),
                env_app: self.env_app,
                activation: self.activation.clone(),
            }))
            .merge(prometheus::router(
                self.queue.clone(),
                cache,
                self.guard.clone(),
            ));
        *self.router.write().expect("router lock") = router;
    }

    /// Runs as the App that /setup stored, if there is one: false when none is stored yet
    /// (true too when the stored one cannot run: waiting would not change that).
    async fn run_stored_app(&self, setup: &SetupConfig) -> Result<bool, StoreError> {
        let Some(stored) = self.store.stored_app().await? else {
            return Ok(false);
        };
        let started = setup::stored::open_app(&setup.key, &stored)
            .map_err(anyhow::Error::msg)
            .and_then(|opened| {
                let github = self.config.github_for(opened.app_id, opened.private_key);
                let described =
                    format!("App {} ({}, set up at /setup)", opened.app_id, opened.slug);
                self.start(&github, opened.secrets, described)
            });
        if let Err(e) = started {
            tracing::error!(error = %e, "the stored App cannot run");
        }
        Ok(true)
    }

    /// Polls Postgres for the App `/setup` stores (woken at once by this process's own
    /// `/setup`; every few seconds for another process's), then runs as it.
    async fn await_stored_app(self: Arc<Self>) {
        let Some(setup) = self.config.setup.clone() else {
            return;
        };
        let mut stop = self.stop.clone();
        let mut told = false;
        // Said once while the database stays away, not every 5 s.
        let mut unreadable = false;
        loop {
            match self.run_stored_app(&setup).await {
                Ok(true) => return,
                Ok(false) if !told => {
                    told = true;
                    tracing::warn!(
                        "no GitHub App yet: webhooks are refused until one is created at {}/setup",
                        setup.public_url
                    );
                }
                Ok(false) => unreadable = false,
                Err(e) if !unreadable => {
                    unreadable = true;
                    tracing::warn!(error = %e, "reading the stored App failed (tried again every 5 s)");
                }
                Err(_) => {}
            }
            tokio::select! {
                _ = self.activation.wake.notified() => {}
                _ = tokio::time::sleep(Duration::from_secs(5)) => {}
                _ = stop.wait_for(|s| *s) => return,
            }
        }
    }

    /// One service that answers with whatever routes are current.
    fn service(self: Arc<Self>) -> Router {
        let headers = self.headers.clone();
        headers.wrap(
            Router::new().fallback_service(tower::service_fn(move |request: Request| {
                let router = self.router.read().expect("router lock").clone();
                router.oneshot(request)
            })),
        )
    }

    async fn join_workers(&self) {
        let workers = self.workers.lock().expect("workers lock").take();
        if let Some(workers) = workers {
            let _ = workers.await;
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
