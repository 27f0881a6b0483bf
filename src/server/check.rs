//! `check-config`: the configuration read as `serve` reads it, then the database and
//! GitHub asked whether they agree with it. Every problem is reported, each in one line
//! that says what to set or do.

use secrecy::ExposeSecret;

use super::settings::{ServerArgs, ServerConfig};
use super::setup::stored::open_app;
use super::setup::SetupConfig;
use crate::github::{GithubApp, GithubConfig};
use crate::store::Store;

/// What was checked: the lines that passed and the problems found.
#[derive(Debug, Default)]
pub struct Checked {
    pub passed: Vec<String>,
    pub problems: Vec<String>,
}

pub async fn check_config(args: &ServerArgs) -> Checked {
    let mut out = Checked::default();
    let config = match args.check_all() {
        Ok(config) => config,
        Err(problems) => {
            out.problems = problems;
            return out;
        }
    };
    match (&config.app, &config.setup) {
        (Some(app), _) => out.passed.push(format!(
            "configuration: App {}, {} webhook secret(s), GitHub at {}",
            app.github.app_id,
            app.secrets.len(),
            config.api_url
        )),
        (None, Some(setup)) => out.passed.push(format!(
            "configuration: the App is read from the database (created at {}/setup), GitHub at {}",
            setup.public_url, config.api_url
        )),
        (None, None) => {}
    }
    let store = out.database(&config).await;
    let github = match (&config.app, &config.setup, &store) {
        (Some(app), _, _) => Some(app.github.clone()),
        (None, Some(setup), Some(store)) => out.stored_app(&config, setup, store).await,
        _ => None,
    };
    if let Some(github) = github {
        out.github(&github).await;
    }
    out
}

impl Checked {
    /// Whether the database answers and is migrated.
    async fn database(&mut self, config: &ServerConfig) -> Option<Store> {
        let url = config.database_url.expose_secret();
        let target = crate::store::describe_url(url).unwrap_or_default();
        match Store::connect(url).await {
            Ok(store) => match store.require_migrated().await {
                Ok(()) => {
                    self.passed
                        .push(format!("database at {target}: answers, migrations applied"));
                    Some(store)
                }
                Err(e) => {
                    self.problems.push(e.to_string());
                    None
                }
            },
            Err(e) => {
                self.problems.push(format!("DATABASE_URL: {e}"));
                None
            }
        }
    }

    /// The App `/setup` stored, if any, opened with the credentials key.
    async fn stored_app(
        &mut self,
        config: &ServerConfig,
        setup: &SetupConfig,
        store: &Store,
    ) -> Option<GithubConfig> {
        match store.stored_app().await {
            Ok(Some(stored)) => match open_app(&setup.key, &stored) {
                Ok(opened) => {
                    self.passed.push(format!(
                        "stored App {} ({}) opens with BLAST_CREDENTIALS_KEY",
                        opened.app_id, opened.slug
                    ));
                    Some(config.github_for(opened.app_id, opened.private_key))
                }
                Err(e) => {
                    self.problems.push(e);
                    None
                }
            },
            Ok(None) => {
                self.passed.push(format!(
                    "no App created yet: open {}/setup to create it (webhooks are refused until then)",
                    setup.public_url
                ));
                None
            }
            Err(e) => {
                self.problems.push(format!("reading the stored App: {e}"));
                None
            }
        }
    }

    /// Whether GitHub knows the App by its key.
    async fn github(&mut self, github: &GithubConfig) {
        match GithubApp::new(github) {
            Ok(app) => match app.identity().await {
                Ok(identity) => self.passed.push(format!(
                    "GitHub: the key signs as App {} ({}), whose bot is {}",
                    identity.id,
                    identity.name,
                    identity.bot_login()
                )),
                Err(e) if e.is_not_found() => self.problems.push(format!(
                    "GitHub does not know App {} with this key ({e}): check GITHUB_APP_ID and the private key",
                    github.app_id
                )),
                Err(e) => self.problems.push(format!("GitHub: {e}")),
            },
            Err(e) => self.problems.push(format!("GitHub: {e}")),
        }
    }
}
