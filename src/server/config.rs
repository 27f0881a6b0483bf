//! The server's configuration: read once, at start, from flags or the environment, and
//! checked there, so a missing or malformed value is one clear line, never a panic.

use std::path::PathBuf;

use secrecy::{ExposeSecret, SecretString};

use crate::github::{AppPrivateKey, GithubConfig, DEFAULT_API_URL};
use crate::intake::signature::WebhookSecrets;

/// Flags, each also an environment variable (the name in capitals).
#[derive(clap::Args, Clone, Debug)]
pub struct ServerArgs {
    /// The GitHub App's id (its settings page shows it).
    #[arg(long, env = "GITHUB_APP_ID")]
    pub app_id: Option<String>,
    /// The App's private key: PEM text (PKCS#1 or PKCS#8).
    #[arg(long, env = "GITHUB_PRIVATE_KEY", hide_env_values = true)]
    pub private_key: Option<SecretString>,
    /// Or the path of a PEM file holding it.
    #[arg(long, env = "GITHUB_PRIVATE_KEY_PATH")]
    pub private_key_path: Option<PathBuf>,
    /// The webhook secret; several, comma-separated, while rotating.
    #[arg(long, env = "GITHUB_WEBHOOK_SECRET", hide_env_values = true)]
    pub webhook_secret: Option<SecretString>,
    /// Postgres, e.g. postgres://USER:PASSWORD@HOST:5432/DATABASE.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<SecretString>,
    /// GitHub's REST API; for GitHub Enterprise Server, https://HOST/api/v3.
    #[arg(long, env = "GITHUB_API_URL", default_value = DEFAULT_API_URL)]
    pub api_url: String,
    /// The port `serve` listens on (all interfaces).
    #[arg(long, env = "PORT", default_value_t = 3000)]
    pub port: u16,
    /// Jobs run at once by this process.
    #[arg(long, env = "BLAST_WORKERS", default_value_t = 2)]
    pub workers: usize,
    /// Memory for repositories' graphs held between jobs, in MB.
    #[arg(long, env = "BLAST_GRAPH_MEMORY_MB", default_value_t = 1024)]
    pub graph_memory_mb: usize,
    /// Seconds a claimed job is held without a heartbeat: after a crash (kill -9, a lost
    /// machine) its job runs again this long after the last heartbeat.
    #[arg(long, env = "BLAST_JOB_LEASE_SECONDS", default_value_t = 60)]
    pub job_lease_seconds: u64,
    /// Minutes between catch-ups of every repository with GitHub (0: only at start).
    #[arg(long, env = "BLAST_CATCH_UP_MINUTES", default_value_t = 60)]
    pub catch_up_minutes: u64,
    /// Least milliseconds between two comments or reviews of one installation (GitHub asks
    /// for a second between writes that notify people).
    #[arg(long, env = "BLAST_NOTIFY_SPACING_MS", default_value_t = 1000)]
    pub notify_spacing_ms: u64,
    /// The token that opens the status page at `/` (off when unset).
    #[arg(long, env = "BLAST_STATUS_TOKEN", hide_env_values = true)]
    pub status_token: Option<SecretString>,
}

/// The configuration, checked.
pub struct ServerConfig {
    pub github: GithubConfig,
    pub secrets: WebhookSecrets,
    pub database_url: SecretString,
    pub port: u16,
    pub workers: usize,
    pub graph_memory_bytes: usize,
    pub catch_up_minutes: u64,
    pub job_lease: std::time::Duration,
    pub status_token: Option<SecretString>,
}

impl ServerArgs {
    /// The checked configuration, or the first problem in one line that says what to set.
    pub fn check(&self) -> Result<ServerConfig, String> {
        self.check_all()
            .map_err(|problems| problems.into_iter().next().unwrap_or_default())
    }

    /// The checked configuration, or every problem, each in one line that says what to
    /// set (`check-config` prints them all).
    pub fn check_all(&self) -> Result<ServerConfig, Vec<String>> {
        let mut problems = Vec::new();
        let app_id = match self.app_id.as_deref().map(str::trim) {
            None | Some("") => {
                problems.push(
                    "GITHUB_APP_ID is not set: the App's id, shown on its settings page".into(),
                );
                None
            }
            Some(text) => match text.parse::<u64>() {
                Ok(id) => Some(id),
                Err(_) => {
                    problems.push(format!(
                        "GITHUB_APP_ID must be the App's numeric id, not '{text}'"
                    ));
                    None
                }
            },
        };
        let key = match (&self.private_key, &self.private_key_path) {
            (Some(pem), _) if !pem.expose_secret().trim().is_empty() => {
                AppPrivateKey::from_pem(pem.expose_secret())
                    .map_err(|e| problems.push(format!("GITHUB_PRIVATE_KEY: {e}")))
                    .ok()
            }
            (_, Some(path)) => AppPrivateKey::from_file(path)
                .map_err(|e| problems.push(format!("GITHUB_PRIVATE_KEY_PATH: {e}")))
                .ok(),
            _ => {
                problems.push("GITHUB_PRIVATE_KEY (the PEM text) or GITHUB_PRIVATE_KEY_PATH (a PEM file) must be set: the App's private key".into());
                None
            }
        };
        let secrets = match &self.webhook_secret {
            Some(s) => WebhookSecrets::parse(s)
                .map_err(|_| {
                    problems.push(
                        "GITHUB_WEBHOOK_SECRET holds no secret: set the App's webhook secret"
                            .to_string(),
                    )
                })
                .ok(),
            None => {
                problems.push("GITHUB_WEBHOOK_SECRET is not set: the App's webhook secret".into());
                None
            }
        };
        let database_url = match &self.database_url {
            Some(url) if !url.expose_secret().trim().is_empty() => {
                match crate::store::describe_url(url.expose_secret()) {
                    Ok(_) => Some(url.clone()),
                    Err(_) => {
                        problems.push(
                            "DATABASE_URL is not a Postgres URL: postgres://USER:PASSWORD@HOST:5432/DATABASE"
                                .to_string(),
                        );
                        None
                    }
                }
            }
            _ => {
                problems.push(
                    "DATABASE_URL is not set: postgres://USER:PASSWORD@HOST:5432/DATABASE".into(),
                );
                None
            }
        };
        let api_url = self.api_url.trim().trim_end_matches('/').to_string();
        if !(api_url.starts_with("https://") || api_url.starts_with("http://")) {
            problems.push(format!(
                "GITHUB_API_URL must be an http(s) URL like {DEFAULT_API_URL} or https://HOST/api/v3, not '{api_url}'"
            ));
        }
        if self.job_lease_seconds < 2 {
            problems.push("BLAST_JOB_LEASE_SECONDS must be at least 2".into());
        }
        if self.workers == 0 {
            problems.push("BLAST_WORKERS must be at least 1".into());
        }
        let (Some(app_id), Some(key), Some(secrets), Some(database_url), true) =
            (app_id, key, secrets, database_url, problems.is_empty())
        else {
            return Err(problems);
        };
        let mut github = GithubConfig::new(app_id, key).with_api_url(api_url);
        github.notify_spacing = std::time::Duration::from_millis(self.notify_spacing_ms);
        Ok(ServerConfig {
            github,
            secrets,
            database_url,
            port: self.port,
            workers: self.workers,
            graph_memory_bytes: self.graph_memory_mb.saturating_mul(1 << 20),
            catch_up_minutes: self.catch_up_minutes,
            job_lease: std::time::Duration::from_secs(self.job_lease_seconds),
            status_token: self
                .status_token
                .clone()
                .filter(|t| !t.expose_secret().trim().is_empty()),
        })
    }
}
