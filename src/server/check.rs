//! `check-config`: the configuration read as `serve` reads it, then the database and
//! GitHub asked whether they agree with it. Every problem is reported, each in one line
//! that says what to set or do.

use secrecy::ExposeSecret;

use super::settings::ServerArgs;
use super::setup::stored::open_app;
use crate::github::GithubApp;
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
    let url = config.database_url.expose_secret();
    let target = crate::store::describe_url(url).unwrap_or_default();
    let store = match Store::connect(url).await {
        Ok(store) => match store.require_migrated().await {
            Ok(()) => {
                out.passed
                    .push(format!("database at {target}: answers, migrations applied"));
                Some(store)
            }
            Err(e) => {
                out.problems.push(e.to_string());
                None
            }
        },
        Err(e) => {
            out.problems.push(format!("DATABASE_URL: {e}"));
            None
        }
    };
    let github = match (&config.app, &config.setup, &store) {
        (Some(app), _, _) => Some(app.github.clone()),
        (None, Some(setup), Some(store)) => match store.stored_app().await {
            Ok(Some(stored)) => match open_app(&setup.key, &stored) {
                Ok(opened) => {
                    out.passed.push(format!(
                        "stored App {} ({}) opens with BLAST_CREDENTIALS_KEY",
                        opened.app_id, opened.slug
                    ));
                    Some(config.github_for(opened.app_id, opened.private_key))
                }
                Err(e) => {
                    out.problems.push(e);
                    None
                }
            },
            Ok(None) => {
                out.passed.push(format!(
                    "no App created yet: open {}/setup to create it (webhooks are refused until then)",
                    setup.public_url
                ));
                None
            }
            Err(e) => {
                out.problems.push(format!("reading the stored App: {e}"));
                None
            }
        },
        _ => None,
    };
    if let Some(github) = github {
        match GithubApp::new(&github) {
            Ok(app) => match app.identity().await {
                Ok(identity) => out.passed.push(format!(
                    "GitHub: the key signs as App {} ({}), whose bot is {}",
                    identity.id,
                    identity.name,
                    identity.bot_login()
                )),
                Err(e) if e.is_not_found() => out.problems.push(format!(
                    "GitHub does not know App {} with this key ({e}): check GITHUB_APP_ID and the private key",
                    github.app_id
                )),
                Err(e) => out.problems.push(format!("GitHub: {e}")),
            },
            Err(e) => out.problems.push(format!("GitHub: {e}")),
        }
    }
    out
}
