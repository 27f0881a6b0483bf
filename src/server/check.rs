//! `check-config`: the configuration read as `serve` reads it, then the database and
//! GitHub asked whether they agree with it. Every problem is reported, each in one line
//! that says what to set or do.

use secrecy::ExposeSecret;

use super::config::ServerArgs;
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
    out.passed.push(format!(
        "configuration: App {}, {} webhook secret(s), GitHub at {}",
        config.github.app_id,
        config.secrets.len(),
        config.github.api_url
    ));
    let url = config.database_url.expose_secret();
    let target = crate::store::describe_url(url).unwrap_or_default();
    match Store::connect(url).await {
        Ok(store) => match store.require_migrated().await {
            Ok(()) => out
                .passed
                .push(format!("database at {target}: answers, migrations applied")),
            Err(e) => out.problems.push(e.to_string()),
        },
        Err(e) => out.problems.push(format!("DATABASE_URL: {e}")),
    }
    match GithubApp::new(&config.github) {
        Ok(app) => match app.identity().await {
            Ok(identity) => out.passed.push(format!(
                "GitHub: the key signs as App {} ({}), whose bot is {}",
                identity.id,
                identity.name,
                identity.bot_login()
            )),
            Err(e) if e.is_not_found() => out.problems.push(format!(
                "GitHub does not know App {} with this key ({e}): check GITHUB_APP_ID and the private key",
                config.github.app_id
            )),
            Err(e) => out.problems.push(format!("GitHub: {e}")),
        },
        Err(e) => out.problems.push(format!("GitHub: {e}")),
    }
    out
}
