//! `blast-radius mcp`: the call graph served to coding agents over the Model Context
//! Protocol, so an agent asks who calls a function before it edits it, and which callers
//! its change left untouched before it commits. Built on `rmcp` (the official Rust SDK),
//! over stdio or Streamable HTTP. An IO edge like the app's: the protocol lives here,
//! the answers come from `query` and the workflows, rendered by `report::json` exactly
//! as the CLI's `--format json` prints them.
//!
//! The graph is indexed once at start (or loaded from Postgres) and kept current: files
//! that change on disk are re-extracted alone and laid over the graph (`live`, `watch`).

mod blast_tool;
mod guard;
mod live;
mod server;
mod watch;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServiceExt;
use secrecy::SecretString;

pub use server::SUMMARY_URI;

use crate::indexer::skip::SkipRules;
use crate::store::Store;

/// Where the served graph comes from.
pub enum Source {
    /// The working tree at `Config::repo`, indexed now and watched.
    WorkingTree,
    /// Repository `name`'s graph stored in Postgres, caught up with the store at each
    /// call.
    Stored { url: String, name: String },
}

pub struct Config {
    /// The repository directory: what is indexed (working tree), and where git runs for
    /// `blast_radius`.
    pub repo: PathBuf,
    pub rules: SkipRules,
    pub source: Source,
    /// Streamable HTTP at `http://ADDR/mcp` instead of stdio.
    pub http: Option<SocketAddr>,
    /// Host names the HTTP server answers to besides loopback.
    pub allowed_hosts: Vec<String>,
    /// The token HTTP requests must carry; required off loopback.
    pub token: Option<SecretString>,
    /// find_callers adds the calls of the installation's other repositories (a stored
    /// graph only).
    pub org: bool,
}

/// Loads the graph and serves it until the client goes away (stdio) or the process is
/// stopped (HTTP: Ctrl-C or SIGTERM).
pub async fn run(config: Config) -> Result<()> {
    if let Some(addr) = config.http {
        // Before indexing: a refusal should not take a large repository's index time.
        guard::check_exposure(addr, config.token.as_ref())?;
    }
    let start = Instant::now();
    let served = match &config.source {
        Source::WorkingTree => {
            let (repo, rules) = (config.repo.clone(), config.rules);
            tokio::task::spawn_blocking(move || live::Served::index(&repo, rules))
                .await
                .context("indexing the repository")??
        }
        Source::Stored { url, name } => {
            let store = Store::connect(url).await?;
            store.require_migrated().await?;
            live::Served::load(store, name, config.rules).await?
        }
    };
    let summary = {
        let snapshot = served.current().await?;
        (snapshot.graph.file_count(), snapshot.skipped.len())
    };
    tracing::info!(
        files = summary.0,
        skipped = summary.1,
        seconds = start.elapsed().as_secs_f64(),
        watching = served.watching().unwrap_or("the store, at each call"),
        "graph ready"
    );
    let served = Arc::new(served);
    let handler = server::GraphServer::new(Arc::clone(&served), config.repo.clone(), config.org);
    match config.http {
        None => {
            let running = handler
                .serve(rmcp::transport::stdio())
                .await
                .context("starting the MCP session on stdio")?;
            running.waiting().await?;
        }
        Some(addr) => serve_http(handler, addr, config.allowed_hosts, config.token).await?,
    }
    Ok(())
}

async fn serve_http(
    handler: server::GraphServer,
    addr: SocketAddr,
    allowed_hosts: Vec<String>,
    token: Option<SecretString>,
) -> Result<()> {
    let mut http = StreamableHttpServerConfig::default()
        .with_allowed_origins(guard::allowed_origins(&allowed_hosts))
        .enforce_origin_validation();
    http.allowed_hosts.extend(allowed_hosts);
    let stop = http.cancellation_token.clone();
    let service: StreamableHttpService<server::GraphServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(handler.clone()), Default::default(), http);
    let router = guard::require_token(axum::Router::new().nest_service("/mcp", service), token);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    let local = listener.local_addr()?;
    // The address, once bound, on stderr: with port 0 this is how a caller learns it.
    eprintln!("blast-radius mcp: listening on http://{local}/mcp");
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            stop.cancel();
        })
        .await
        .context("serving MCP over HTTP")
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}
