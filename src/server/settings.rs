//! The server's configuration: read once, at start, from flags or the environment, and
//! checked there, so a missing or malformed value is one clear line, never a panic.

use std::path::PathBuf;

use secrecy::{ExposeSecret, SecretString};

use super::auth::MIN_TOKEN_CHARS;
use super::recovery::RecoverySettings;
use super::setup::seal::CredentialsKey;
use super::setup::SetupConfig;
use crate::github::{AppPrivateKey, GithubConfig, DEFAULT_API_URL};
use crate::intake::client::ClientAddrSource;
use crate::intake::signature::WebhookSecrets;
use crate::queue::Retention;

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
    /// Jobs run at once by this process. `serve` with 0 only takes deliveries and serves
    /// pages, for a deployment whose jobs all run in `work` processes.
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
    /// Days done jobs are kept (then pruned, with their payloads: whole comment bodies
    /// for commands).
    #[arg(long, env = "BLAST_RETAIN_DONE_DAYS", default_value_t = 7)]
    pub retain_done_days: u64,
    /// Seconds between rounds of the delivery recovery while a recent delivery is missed
    /// (it also runs at start and once the database answers after intake could not record
    /// a delivery); 0 turns the recovery off.
    #[arg(long, env = "BLAST_RECOVER_EVERY_SECONDS", default_value_t = 120)]
    pub recover_every_seconds: u64,
    /// Seconds between rounds of the delivery recovery while nothing is missed.
    #[arg(long, env = "BLAST_RECOVER_IDLE_SECONDS", default_value_t = 900)]
    pub recover_idle_seconds: u64,
    /// Redeliveries one round of the recovery asks GitHub for at most.
    #[arg(long, env = "BLAST_RECOVER_MAX_REDELIVERIES", default_value_t = 50)]
    pub recover_max_redeliveries: usize,
    /// Seconds running jobs get to finish after SIGTERM before they are handed back to
    /// the queue (keep it under the platform's kill timeout: fly.toml's `kill_timeout`).
    #[arg(long, env = "BLAST_SHUTDOWN_GRACE_SECONDS", default_value_t = 20)]
    pub shutdown_grace_seconds: u64,
    /// Days dead jobs are kept, for `blast-radius jobs list --state dead` and `retry-dead`.
    #[arg(long, env = "BLAST_RETAIN_DEAD_DAYS", default_value_t = 30)]
    pub retain_dead_days: u64,
    /// Days deliveries are kept: at least GitHub's redelivery window (3 days; 7 on GHES),
    /// so a redelivery is still recognised.
    #[arg(long, env = "BLAST_RETAIN_DELIVERIES_DAYS", default_value_t = 7)]
    pub retain_deliveries_days: u64,
    /// Least milliseconds between two comments or reviews of one installation (GitHub asks
    /// for a second between writes that notify people).
    #[arg(long, env = "BLAST_NOTIFY_SPACING_MS", default_value_t = 1000)]
    pub notify_spacing_ms: u64,
    /// The token that opens the status page at `/`, `/metrics` and `/setup` (all off when
    /// unset).
    #[arg(long, env = "BLAST_STATUS_TOKEN", hide_env_values = true)]
    pub status_token: Option<SecretString>,
    /// This server's public address, e.g. https://blast.example.com: the App's webhook and
    /// setup URLs in the manifest `/setup` posts to GitHub.
    #[arg(long, env = "PUBLIC_URL")]
    pub public_url: Option<String>,
    /// 32 random bytes in base64 (`openssl rand -base64 32`): seals the App's credentials
    /// that `/setup` stores in Postgres.
    #[arg(long, env = "BLAST_CREDENTIALS_KEY", hide_env_values = true)]
    pub credentials_key: Option<SecretString>,
    /// The header in which the proxy in front of the server names the client's address
    /// (`Fly-Client-IP` on Fly.io; `X-Forwarded-For`, read from its last entry). Set it
    /// only when every request comes through that proxy: the header is anyone's text
    /// otherwise. Unset: the TCP peer's address.
    #[arg(long, env = "BLAST_CLIENT_IP_HEADER")]
    pub client_ip_header: Option<String>,
}

/// The App's credentials given in the environment.
pub struct AppConfig {
    pub github: GithubConfig,
    pub secrets: WebhookSecrets,
}

/// The configuration, checked.
pub struct ServerConfig {
    /// The App's credentials from the environment; when absent, they are read from
    /// Postgres, where `/setup` stores them ([`SetupConfig`]).
    pub app: Option<AppConfig>,
    pub setup: Option<SetupConfig>,
    /// GitHub's REST API root, and the least time between notifying writes: what an App
    /// created later by `/setup` is reached with.
    pub api_url: String,
    pub notify_spacing: std::time::Duration,
    pub database_url: SecretString,
    pub port: u16,
    pub workers: usize,
    pub graph_memory_bytes: usize,
    pub catch_up_minutes: u64,
    /// The delivery recovery's schedule and bounds; `None`: off.
    pub recovery: Option<RecoverySettings>,
    /// How long running jobs get to finish after SIGTERM.
    pub shutdown_grace: std::time::Duration,
    pub job_lease: std::time::Duration,
    /// How long finished jobs and deliveries are kept.
    pub retention: Retention,
    pub status_token: Option<SecretString>,
    /// Where a request's client address is read from (BLAST_CLIENT_IP_HEADER).
    pub clients: ClientAddrSource,
    /// PUBLIC_URL, checked: whether browsers come over https (the cookie's `Secure`,
    /// HSTS).
    pub public_url: Option<String>,
}

/// Whether a secret was given with something in it.
fn given(s: &Option<SecretString>) -> bool {
    s.as_ref()
        .is_some_and(|s| !s.expose_secret().trim().is_empty())
}

fn days(n: u64) -> std::time::Duration {
    std::time::Duration::from_secs(n.saturating_mul(24 * 3600))
}

impl ServerConfig {
    /// How to reach GitHub as the App `app_id` with `key`, from the environment or stored
    /// by `/setup`.
    pub fn github_for(&self, app_id: u64, key: AppPrivateKey) -> GithubConfig {
        let mut github = GithubConfig::new(app_id, key).with_api_url(self.api_url.clone());
        github.notify_spacing = self.notify_spacing;
        github
    }
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
        let status_token = self
            .status_token
            .clone()
            .filter(|t| !t.expose_secret().trim().is_empty());
        if let Some(token) = &status_token {
            let chars = token.expose_secret().trim().chars().count();
            if chars < MIN_TOKEN_CHARS {
                problems.push(format!(
                    "BLAST_STATUS_TOKEN is {chars} characters long: it must be at least \
                     {MIN_TOKEN_CHARS} (make one with `openssl rand -hex 16`)"
                ));
            }
        }
        let clients = ClientAddrSource::parse(self.client_ip_header.as_deref().unwrap_or(""))
            .map_err(|e| problems.push(e))
            .unwrap_or_default();
        let setup = self.check_setup(&mut problems);
        let app = self.check_app_source(status_token.is_some(), &mut problems);
        let database_url = self.check_database_url(&mut problems);
        let api_url = self.api_url.trim().trim_end_matches('/').to_string();
        if !(api_url.starts_with("https://") || api_url.starts_with("http://")) {
            problems.push(format!(
                "GITHUB_API_URL must be an http(s) URL like {DEFAULT_API_URL} or https://HOST/api/v3, not '{api_url}'"
            ));
        }
        if self.job_lease_seconds < 2 {
            problems.push("BLAST_JOB_LEASE_SECONDS must be at least 2".into());
        }
        let (Some(database_url), true) = (database_url, problems.is_empty()) else {
            return Err(problems);
        };
        let mut config = ServerConfig {
            app: None,
            setup,
            api_url,
            notify_spacing: std::time::Duration::from_millis(self.notify_spacing_ms),
            database_url,
            port: self.port,
            workers: self.workers,
            graph_memory_bytes: self.graph_memory_mb.saturating_mul(1 << 20),
            catch_up_minutes: self.catch_up_minutes,
            recovery: (self.recover_every_seconds > 0).then(|| RecoverySettings {
                busy_every: std::time::Duration::from_secs(self.recover_every_seconds),
                idle_every: std::time::Duration::from_secs(
                    self.recover_idle_seconds.max(self.recover_every_seconds),
                ),
                max_redeliveries: self.recover_max_redeliveries,
                ..RecoverySettings::default()
            }),
            shutdown_grace: std::time::Duration::from_secs(self.shutdown_grace_seconds),
            job_lease: std::time::Duration::from_secs(self.job_lease_seconds),
            retention: Retention {
                done: days(self.retain_done_days),
                dead: days(self.retain_dead_days),
                deliveries: days(self.retain_deliveries_days),
                ..Retention::default()
            },
            status_token,
            clients,
            public_url: self
                .public_url
                .as_deref()
                .and_then(|u| check_public_url(u.trim()).ok()),
        };
        config.app = app.map(|(app_id, key, secrets)| AppConfig {
            github: config.github_for(app_id, key),
            secrets,
        });
        Ok(config)
    }

    /// The App from the environment when any of its credentials is given there (each
    /// checked); else `None`, and `/setup` will store it in Postgres, which needs a public
    /// URL, a credentials key and the status token in front of the setup page.
    fn check_app_source(
        &self,
        status_token_given: bool,
        problems: &mut Vec<String>,
    ) -> Option<(u64, AppPrivateKey, WebhookSecrets)> {
        let app_in_env = self.app_id.as_deref().is_some_and(|s| !s.trim().is_empty())
            || given(&self.private_key)
            || self.private_key_path.is_some()
            || given(&self.webhook_secret);
        if app_in_env {
            return self.check_app(problems);
        }
        let mut missing = Vec::new();
        if self
            .public_url
            .as_deref()
            .is_none_or(|u| u.trim().is_empty())
        {
            missing.push("PUBLIC_URL");
        }
        if !given(&self.credentials_key) {
            missing.push("BLAST_CREDENTIALS_KEY");
        }
        if !status_token_given {
            missing.push("BLAST_STATUS_TOKEN (the setup page is behind it)");
        }
        if !missing.is_empty() {
            problems.push(format!(
                "no GitHub App configured: set GITHUB_APP_ID, GITHUB_PRIVATE_KEY (or \
                 GITHUB_PRIVATE_KEY_PATH) and GITHUB_WEBHOOK_SECRET; or, to create the App \
                 from this server's /setup page, set {}",
                missing.join(", ")
            ));
        }
        None
    }

    fn check_database_url(&self, problems: &mut Vec<String>) -> Option<SecretString> {
        match &self.database_url {
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
        }
    }

    /// The App's id, key and webhook secrets from the environment, each checked.
    fn check_app(
        &self,
        problems: &mut Vec<String>,
    ) -> Option<(u64, AppPrivateKey, WebhookSecrets)> {
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
        Some((app_id?, key?, secrets?))
    }

    /// PUBLIC_URL and BLAST_CREDENTIALS_KEY, when given, each checked.
    fn check_setup(&self, problems: &mut Vec<String>) -> Option<SetupConfig> {
        let public_url = match self.public_url.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(text) => match check_public_url(text) {
                Ok(url) => Some(url),
                Err(e) => {
                    problems.push(e);
                    None
                }
            },
        };
        let key = match &self.credentials_key {
            Some(k) if !k.expose_secret().trim().is_empty() => {
                match CredentialsKey::parse(k.expose_secret()) {
                    Ok(key) => Some(key),
                    Err(e) => {
                        problems.push(format!("BLAST_CREDENTIALS_KEY {e}"));
                        None
                    }
                }
            }
            _ => None,
        };
        Some(SetupConfig {
            public_url: public_url?,
            key: key?,
        })
    }
}

/// An http(s) address without a query or fragment, returned without a trailing slash.
fn check_public_url(text: &str) -> Result<String, String> {
    let parsed = url::Url::parse(text)
        .map_err(|e| format!("PUBLIC_URL is not a URL ({e}): give https://HOST"))?;
    if !matches!(parsed.scheme(), "https" | "http")
        || parsed.host_str().is_none()
        || parsed.query().is_some()
        || parsed.fragment().is_some()
    {
        return Err(format!(
            "PUBLIC_URL must be this server's http(s) address without a query, like https://blast.example.com, not '{text}'"
        ));
    }
    Ok(text.trim_end_matches('/').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PEM: &str = include_str!("../../fixtures/github/test-app-key.pkcs1.pem");
    const KEY: &str = "q0cYd0pW2T6Qm3n9mM6bWmJg8bH1nJzq8mC3xJ0a1xE=";

    fn args() -> ServerArgs {
        ServerArgs {
            app_id: None,
            private_key: None,
            private_key_path: None,
            webhook_secret: None,
            database_url: Some("postgres://u@localhost:5432/db".to_string().into()),
            api_url: DEFAULT_API_URL.into(),
            port: 3000,
            workers: 2,
            graph_memory_mb: 64,
            job_lease_seconds: 60,
            catch_up_minutes: 60,
            recover_every_seconds: 120,
            recover_idle_seconds: 900,
            recover_max_redeliveries: 50,
            shutdown_grace_seconds: 20,
            retain_done_days: 7,
            retain_dead_days: 30,
            retain_deliveries_days: 7,
            notify_spacing_ms: 1000,
            status_token: None,
            public_url: None,
            credentials_key: None,
            client_ip_header: None,
        }
    }

    fn problems(args: &ServerArgs) -> Vec<String> {
        args.check_all().err().unwrap_or_default()
    }

    #[test]
    fn no_app_names_both_ways_to_give_one_and_what_setup_lacks() {
        let found = problems(&args());
        assert_eq!(found.len(), 1, "{found:?}");
        for name in [
            "GITHUB_APP_ID",
            "PUBLIC_URL",
            "BLAST_CREDENTIALS_KEY",
            "BLAST_STATUS_TOKEN",
        ] {
            assert!(found[0].contains(name), "{name}: {found:?}");
        }
        let mut some = args();
        some.public_url = Some("https://blast.example.com".into());
        let found = problems(&some);
        assert!(!found[0].contains("PUBLIC_URL"), "{found:?}");
        assert!(found[0].contains("BLAST_CREDENTIALS_KEY"), "{found:?}");
    }

    #[test]
    fn setup_mode_needs_a_public_url_a_key_and_the_token() {
        let mut a = args();
        a.public_url = Some("https://blast.example.com/".into());
        a.credentials_key = Some(KEY.to_string().into());
        a.status_token = Some("a status token of some length".to_string().into());
        let config = a.check_all().unwrap_or_else(|p| panic!("{p:?}"));
        assert!(config.app.is_none());
        let setup = config.setup.unwrap();
        assert_eq!(setup.public_url, "https://blast.example.com");

        a.public_url = Some("blast.example.com".into());
        a.credentials_key = Some("short".to_string().into());
        let found = problems(&a);
        assert!(
            found.iter().any(|p| p.starts_with("PUBLIC_URL")),
            "{found:?}"
        );
        assert!(
            found.iter().any(|p| p.starts_with("BLAST_CREDENTIALS_KEY")),
            "{found:?}"
        );
    }

    #[test]
    fn a_short_status_token_or_a_bad_client_header_is_refused_at_start() {
        let mut a = args();
        a.public_url = Some("https://blast.example.com".into());
        a.credentials_key = Some(KEY.to_string().into());
        a.status_token = Some("  short token   ".to_string().into());
        let found = problems(&a);
        assert!(
            found
                .iter()
                .any(|p| p.starts_with("BLAST_STATUS_TOKEN is 11 characters")
                    && p.contains("at least 16")),
            "{found:?}"
        );
        a.status_token = Some("0123456789abcdef".to_string().into());
        assert!(a.check_all().is_ok());

        a.client_ip_header = Some("Fly Client IP".into());
        let found = problems(&a);
        assert!(
            found
                .iter()
                .any(|p| p.starts_with("BLAST_CLIENT_IP_HEADER")),
            "{found:?}"
        );
        a.client_ip_header = Some("Fly-Client-IP".into());
        let config = a.check_all().unwrap_or_else(|p| panic!("{p:?}"));
        assert_eq!(
            config.clients,
            ClientAddrSource::Header("fly-client-ip".parse().unwrap())
        );
    }

    #[test]
    fn the_recovery_schedule_and_the_shutdown_grace_are_read() {
        let mut a = args();
        a.app_id = Some("42".into());
        a.private_key = Some(PEM.to_string().into());
        a.webhook_secret = Some("s".to_string().into());
        let config = a.check_all().unwrap_or_else(|p| panic!("{p:?}"));
        let recovery = config.recovery.expect("on by default");
        assert_eq!(recovery.busy_every, std::time::Duration::from_secs(120));
        assert_eq!(recovery.idle_every, std::time::Duration::from_secs(900));
        assert_eq!(recovery.max_redeliveries, 50);
        assert_eq!(config.shutdown_grace, std::time::Duration::from_secs(20));
        // Never idler than busy; 0 turns it off.
        a.recover_every_seconds = 5;
        a.recover_idle_seconds = 1;
        let recovery = a.check_all().ok().unwrap().recovery.unwrap();
        assert_eq!(recovery.idle_every, std::time::Duration::from_secs(5));
        a.recover_every_seconds = 0;
        assert!(a.check_all().ok().unwrap().recovery.is_none());
    }

    #[test]
    fn an_app_in_the_environment_is_checked_whole_and_wins() {
        let mut a = args();
        a.app_id = Some("42".into());
        let found = problems(&a);
        assert!(
            found.iter().any(|p| p.contains("GITHUB_PRIVATE_KEY")),
            "{found:?}"
        );
        assert!(
            found.iter().any(|p| p.contains("GITHUB_WEBHOOK_SECRET")),
            "{found:?}"
        );
        a.private_key = Some(PEM.to_string().into());
        a.webhook_secret = Some("s".to_string().into());
        a.public_url = Some("https://blast.example.com".into());
        a.credentials_key = Some(KEY.to_string().into());
        let config = a.check_all().unwrap_or_else(|p| panic!("{p:?}"));
        assert_eq!(config.app.unwrap().github.app_id, 42);
        assert!(config.setup.is_some());
    }
}
