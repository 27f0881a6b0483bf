//! `/setup`: creating the GitHub App from its manifest, as GitHub intends
//! (<https://docs.github.com/apps/sharing-github-apps/registering-a-github-app-from-a-manifest>).
//!
//! 1. `GET /setup` (behind the status token): the App's name and the account it belongs
//!    to (a personal account, or an organization); then a form that POSTs the manifest
//!    (`app-manifest.yml` with `PUBLIC_URL` filled in) to GitHub with a fresh `state`.
//! 2. GitHub creates the App and sends the person to `GET /setup/callback?code&state`. A
//!    `state` this server did not hand out within the hour is refused: nobody can make the
//!    server adopt an App by sending it there.
//! 3. The code is traded for the App's credentials (`POST
//!    /app-manifests/{code}/conversions`), which are sealed with `BLAST_CREDENTIALS_KEY`
//!    and stored in Postgres; the running server (and every `work` process, which polls)
//!    starts acting as the App without a restart, and the person is sent on to install it.

pub mod manifest;
pub mod seal;
pub mod stored;

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tokio::sync::{watch, Notify};

use super::auth::{Guard, Peer};
use super::status::{esc, html, refusal, HEAD};
use crate::store::{Store, StoredApp};

/// What creating the App from this server (`/setup`) and reading its stored credentials
/// take.
#[derive(Clone, Debug)]
pub struct SetupConfig {
    /// Without a trailing slash.
    pub public_url: String,
    pub key: seal::CredentialsKey,
}

/// How the setup routes tell the server that credentials were stored, and learn when it
/// runs as the App.
#[derive(Clone)]
pub struct Activation {
    pub wake: Arc<Notify>,
    pub running: watch::Receiver<bool>,
}

impl Activation {
    /// Waits until the server runs as the App, at most `limit`; whether it does.
    async fn until_running(&self, limit: Duration) -> bool {
        let mut running = self.running.clone();
        tokio::time::timeout(limit, running.wait_for(|r| *r))
            .await
            .is_ok_and(|r| r.is_ok())
    }
}

/// What the routes share.
#[derive(Clone)]
pub struct SetupState {
    pub store: Store,
    /// None when PUBLIC_URL or BLAST_CREDENTIALS_KEY is not set.
    pub config: Option<SetupConfig>,
    pub guard: Option<Arc<Guard>>,
    /// GitHub's web address (the new-App page) and its API's (the conversion).
    pub web_url: String,
    pub api_url: String,
    /// The App's id when it is configured in the environment (then `/setup` has nothing
    /// to do).
    pub env_app: Option<u64>,
    pub activation: Activation,
}

/// `/setup` and `/setup/callback`.
pub fn router(state: SetupState) -> Router {
    Router::new()
        .route("/setup", get(setup_page))
        .route("/setup/callback", get(callback))
        .with_state(state)
}

#[derive(serde::Deserialize, Default)]
struct SetupQuery {
    name: Option<String>,
    org: Option<String>,
    /// Set by the first form: show the button that goes to GitHub.
    go: Option<String>,
}

async fn setup_page(
    State(st): State<SetupState>,
    Peer(peer): Peer,
    headers: HeaderMap,
    Query(q): Query<SetupQuery>,
) -> Response {
    let Some(guard) = &st.guard else {
        return (
            StatusCode::NOT_FOUND,
            "Setup is off: set BLAST_STATUS_TOKEN (it guards this page), PUBLIC_URL and BLAST_CREDENTIALS_KEY.\n",
        )
            .into_response();
    };
    if let Some(refused) = refusal(guard.check(&headers, peer).await, "/setup") {
        return refused;
    }
    if let Some(id) = st.env_app {
        return page(&format!(
            "<p>This server runs as App {id}, configured in its environment \
             (<code>GITHUB_APP_ID</code>): there is nothing to set up.</p>"
        ));
    }
    let Some(config) = &st.config else {
        return page(
            "<p class=\"bad\">Set <code>PUBLIC_URL</code> (this server's public address) and \
             <code>BLAST_CREDENTIALS_KEY</code> (<code>openssl rand -base64 32</code>: it \
             seals the App's credentials in Postgres), then open this page again.</p>",
        );
    };
    match st.store.stored_app().await {
        Err(e) => return unavailable("reading the stored App", &e),
        Ok(Some(app)) => return set_up_page(&app, *st.activation.running.borrow()),
        Ok(None) => {}
    }
    let name = q.name.as_deref().map(str::trim).unwrap_or("");
    let org = q.org.as_deref().map(str::trim).filter(|o| !o.is_empty());
    if q.go.is_none() {
        return page(&choose_form(name, org.unwrap_or(""), None));
    }
    if let Some(org) = org {
        if !manifest::valid_org(org) {
            return page(&choose_form(
                name,
                org,
                Some("That is not an organization's login: letters, digits and hyphens."),
            ));
        }
    }
    create_app_page(&st, config, name, org).await
}

/// The App already stored: where to install it, and whether this server runs as it.
fn set_up_page(app: &StoredApp, running: bool) -> Response {
    page(&format!(
        "<p>The App <b>{}</b> (id {}, owned by {}) is set up{}.</p>\
         <p><a class=\"button\" href=\"{}\">Install it on an account or organization</a></p>\
         <p class=\"muted\">Then open a pull request that changes a function: the \
         blast radius arrives as a comment, a check run and review comments.</p>",
        esc(&app.slug),
        app.app_id,
        esc(&app.owner_login),
        if running {
            " and this server runs as it"
        } else {
            ", but this server does not run as it yet: see its log"
        },
        esc(&manifest::install_url(&app.html_url)),
    ))
}

/// The form that posts the App's manifest to GitHub, under a new one-time state.
async fn create_app_page(
    st: &SetupState,
    config: &SetupConfig,
    name: &str,
    org: Option<&str>,
) -> Response {
    let state = new_state();
    if let Err(e) = st.store.begin_setup(&state).await {
        return unavailable("recording the setup's state", &e);
    }
    let manifest =
        manifest::manifest_json(&config.public_url, Some(name).filter(|n| !n.is_empty()));
    let action = manifest::new_app_url(&st.web_url, org, &state);
    let owner = match org {
        Some(org) => format!("the organization <b>{}</b>", esc(org)),
        None => "your personal account".to_string(),
    };
    page(&format!(
        "<p>GitHub will create the App <b>{}</b> for {owner}, with webhooks to \
         <code>{}/webhook</code>, and send you back here.</p>\
         <form method=\"post\" action=\"{}\">\
         <input type=\"hidden\" name=\"manifest\" value=\"{}\">\
         <p><button type=\"submit\" id=\"create\">Create the App on GitHub</button></p></form>\
         <p class=\"muted\">It asks for: contents read (the code to index), metadata read, \
         pull requests write (comments and reviews), checks write (the check run); events: \
         push, pull request, issue comment, repository.</p>",
        esc(manifest["name"].as_str().unwrap_or("")),
        esc(&config.public_url),
        esc(&action),
        esc(&manifest.to_string()),
    ))
}

#[derive(serde::Deserialize)]
struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
}

async fn callback(State(st): State<SetupState>, Query(q): Query<CallbackQuery>) -> Response {
    let (Some(code), Some(state), Some(config)) = (q.code, q.state, &st.config) else {
        return refused(
            StatusCode::BAD_REQUEST,
            "This address is where GitHub sends you back with a code and a state: start at /setup.",
        );
    };
    match st.store.take_setup_state(&state).await {
        Ok(true) => {}
        Ok(false) => {
            tracing::warn!(
                "setup callback refused: a state this server did not hand out, or an old one"
            );
            return refused(
                StatusCode::BAD_REQUEST,
                "This setup link was not started here, or is older than an hour: start again at /setup.",
            );
        }
        Err(e) => return unavailable("checking the setup's state", &e),
    }
    let app = match crate::github::convert_manifest(&st.api_url, &code).await {
        Ok(app) => app,
        Err(e) => {
            tracing::error!(error = %e, "setup: GitHub did not hand over the App's credentials");
            return refused(
                StatusCode::BAD_GATEWAY,
                "GitHub did not hand over the new App's credentials (the server's log says \
                 why). Start again at /setup (if GitHub created the App, delete it in its \
                 settings first).",
            );
        }
    };
    let stored = stored::seal_app(&config.key, &app);
    match st.store.save_app(&stored).await {
        Ok(true) => {}
        Ok(false) => {
            return refused(
                StatusCode::CONFLICT,
                &format!(
                    "An App is set up here already; GitHub created another, {}: delete it in \
                     its settings.",
                    app.slug
                ),
            )
        }
        Err(e) => {
            tracing::error!(error = %e, app = app.id, "setup: the App's credentials could not be stored");
            return refused(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!(
                    "The database did not answer (the server's log says why). GitHub created \
                     the App {}: delete it in its settings and start again.",
                    app.slug
                ),
            );
        }
    }
    tracing::info!(app = app.id, slug = %app.slug, owner = %app.owner_login, "App created from the manifest: credentials stored");
    st.activation.wake.notify_one();
    if !st.activation.until_running(Duration::from_secs(10)).await {
        tracing::warn!("setup: credentials stored, but the server does not run as the App yet");
    }
    (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, manifest::install_url(&app.html_url))],
    )
        .into_response()
}

/// 32 random bytes, hex: what GitHub carries back as `state`.
fn new_state() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

fn choose_form(name: &str, org: &str, problem: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(p) = problem {
        let _ = write!(out, "<p class=\"bad\">{}</p>", esc(p));
    }
    let _ = write!(
        out,
        "<p>Create the GitHub App this server runs as. GitHub asks you to confirm, then \
         sends you back here.</p>\
         <form method=\"get\" action=\"/setup\"><input type=\"hidden\" name=\"go\" value=\"1\">\
         <p><label>App name (unique on GitHub)<br><input name=\"name\" id=\"name\" value=\"{}\" \
         placeholder=\"Blast Radius (your team)\"></label></p>\
         <p><label>Organization (leave empty for your personal account)<br>\
         <input name=\"org\" id=\"org\" value=\"{}\" placeholder=\"acme\"></label></p>\
         <p><button type=\"submit\" id=\"continue\">Continue</button></p></form>",
        esc(name),
        esc(org)
    );
    out
}

fn page(body: &str) -> Response {
    let mut out = String::from(HEAD);
    out.push_str("<h1>Set up Blast Radius</h1>");
    out.push_str(body);
    out.push_str("</body></html>\n");
    html(&out).into_response()
}

fn refused(status: StatusCode, message: &str) -> Response {
    let mut response = page(&format!("<p class=\"bad\">{}</p>", esc(message)));
    *response.status_mut() = status;
    response
}

/// The database failed while `doing`: the cause goes to the log (a database error can
/// name hosts, users and tables), the page says only that.
fn unavailable(doing: &str, error: &dyn std::fmt::Display) -> Response {
    tracing::error!(error = %error, "setup: {doing} failed");
    refused(
        StatusCode::SERVICE_UNAVAILABLE,
        "The database did not answer (the server's log says why): try again shortly.",
    )
}
