//! Creating an App from a manifest, as GitHub runs it
//! (<https://docs.github.com/apps/sharing-github-apps/registering-a-github-app-from-a-manifest>):
//!
//! - `POST /settings/apps/new?state=S` (or `/organizations/ORG/settings/apps/new`), a form
//!   with the `manifest` JSON: GitHub creates the App and sends the person to the
//!   manifest's `redirect_url` with `?code=CODE&state=S`.
//! - `POST /app-manifests/{code}/conversions` (API, unauthenticated): the code, once, for
//!   the App's credentials (the fake's App: its id and test key, a fresh webhook secret).
//! - `GET /apps/{slug}/installations/new`: the install page; its form installs the App on
//!   an account and delivers the `installation` webhook, signed with the App's secret,
//!   to the manifest's hook URL, then sends the person to its `setup_url`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Form, Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use rand::distr::{Alphanumeric, SampleString};
use serde_json::{json, Value};

use super::model::{Installation, Shared};
use super::routes::{message, not_found};
use super::{APP_ID, APP_SLUG, PRIVATE_KEY_PKCS1};

/// An App created through the flow.
#[derive(Clone, Debug)]
pub struct CreatedApp {
    pub manifest: Value,
    /// The organization it was created for; None for a personal account.
    pub org: Option<String>,
    pub state: String,
    pub code: String,
    pub converted: bool,
    pub webhook_secret: String,
}

/// The web pages (outside any API prefix).
pub(super) fn web_routes(app: Router<Arc<Shared>>) -> Router<Arc<Shared>> {
    app.route("/settings/apps/new", post(new_app_personal))
        .route("/organizations/{org}/settings/apps/new", post(new_app_org))
        .route("/apps/{slug}/installations/new", get(install_page))
        .route("/apps/{slug}/installations", post(install))
}

/// The API route.
pub(super) fn api_routes(api: Router<Arc<Shared>>) -> Router<Arc<Shared>> {
    api.route("/app-manifests/{code}/conversions", post(convert))
}

/// Whether a path needs no credential: the web pages, and the conversion (its code is
/// the proof).
pub(super) fn is_public(rel: &str) -> bool {
    rel == "/settings/apps/new"
        || (rel.starts_with("/organizations/") && rel.ends_with("/settings/apps/new"))
        || rel.starts_with("/apps/")
        || (rel.starts_with("/app-manifests/") && rel.ends_with("/conversions"))
}

#[derive(serde::Deserialize)]
struct ManifestForm {
    manifest: String,
}

async fn new_app_personal(
    State(st): State<Arc<Shared>>,
    Query(q): Query<HashMap<String, String>>,
    Form(form): Form<ManifestForm>,
) -> Response {
    new_app(&st, None, q.get("state").cloned(), &form.manifest)
}

async fn new_app_org(
    State(st): State<Arc<Shared>>,
    Path(org): Path<String>,
    Query(q): Query<HashMap<String, String>>,
    Form(form): Form<ManifestForm>,
) -> Response {
    new_app(&st, Some(org), q.get("state").cloned(), &form.manifest)
}

fn new_app(st: &Shared, org: Option<String>, state: Option<String>, manifest: &str) -> Response {
    let Ok(manifest) = serde_json::from_str::<Value>(manifest) else {
        return (StatusCode::UNPROCESSABLE_ENTITY, "the manifest is not JSON").into_response();
    };
    // What GitHub requires of a manifest to create the App from it.
    let hook = manifest["hook_attributes"]["url"].as_str().unwrap_or("");
    let redirect = manifest["redirect_url"].as_str().unwrap_or("");
    if manifest["url"].as_str().is_none_or(str::is_empty)
        || !hook.starts_with("http")
        || !redirect.starts_with("http")
    {
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            "the manifest needs url, hook_attributes.url and redirect_url",
        )
            .into_response();
    }
    let code = Alphanumeric.sample_string(&mut rand::rng(), 20);
    let state = state.unwrap_or_default();
    let location = format!("{redirect}?code={code}&state={state}");
    st.model.lock().unwrap().created_apps.push(CreatedApp {
        manifest,
        org,
        state,
        code,
        converted: false,
        webhook_secret: Alphanumeric.sample_string(&mut rand::rng(), 32),
    });
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}

async fn convert(State(st): State<Arc<Shared>>, Path(code): Path<String>) -> Response {
    let mut m = st.model.lock().unwrap();
    let Some(app) = m.created_apps.iter_mut().find(|a| a.code == code) else {
        return not_found();
    };
    if app.converted {
        return not_found();
    }
    app.converted = true;
    let owner = app.org.clone().unwrap_or_else(|| "octocat".into());
    let body = json!({
        "id": APP_ID,
        "slug": APP_SLUG,
        "node_id": format!("A_{APP_ID}"),
        "owner": {"login": owner, "type": if app.org.is_some() { "Organization" } else { "User" }},
        "name": app.manifest["name"],
        "description": app.manifest["description"],
        "external_url": app.manifest["url"],
        "html_url": format!("{}/apps/{APP_SLUG}", st.origin),
        "created_at": "2026-12-01T00:00:00Z",
        "updated_at": "2026-12-01T00:00:00Z",
        "permissions": app.manifest["default_permissions"],
        "events": app.manifest["default_events"],
        "client_id": "Iv1.fake0123456789",
        "client_secret": Alphanumeric.sample_string(&mut rand::rng(), 40),
        "webhook_secret": app.webhook_secret,
        "pem": PRIVATE_KEY_PKCS1,
    });
    (StatusCode::CREATED, Json(body)).into_response()
}

async fn install_page(Path(slug): Path<String>) -> Response {
    if slug != APP_SLUG {
        return not_found();
    }
    Html(format!(
        "<!doctype html><title>Install {slug}</title><h1>Install {slug}</h1>\
         <form method=\"post\" action=\"/apps/{slug}/installations\">\
         <label>Account <input name=\"account\" id=\"account\" value=\"acme\"></label>\
         <button type=\"submit\" id=\"install\">Install</button></form>"
    ))
    .into_response()
}

#[derive(serde::Deserialize)]
struct InstallForm {
    account: String,
}

/// Installs the App on `account` (the installation the test added for it, or a new one
/// with no repositories) and delivers `installation.created` to the App's hook URL.
async fn install(
    State(st): State<Arc<Shared>>,
    Path(slug): Path<String>,
    Form(form): Form<InstallForm>,
) -> Response {
    if slug != APP_SLUG {
        return not_found();
    }
    let (app, id, repositories) = {
        let mut m = st.model.lock().unwrap();
        let Some(app) = m.created_apps.iter().rev().find(|a| a.converted).cloned() else {
            return message(StatusCode::NOT_FOUND, "no App was created");
        };
        let existing = m
            .installations
            .iter()
            .find(|(_, i)| i.account == form.account)
            .map(|(id, _)| *id);
        let id = existing.unwrap_or_else(|| {
            let id = 9000 + m.installations.len() as i64;
            m.installations.insert(
                id,
                Installation {
                    account: form.account.clone(),
                    suspended: false,
                },
            );
            id
        });
        let repositories: Vec<Value> = m
            .repos
            .iter()
            .filter(|(_, r)| r.installation == id)
            .map(|(rid, r)| json!({"id": rid, "full_name": r.full_name(), "name": r.name, "private": r.private}))
            .collect();
        (app, id, repositories)
    };
    let payload = json!({
        "action": "created",
        "installation": {
            "id": id,
            "app_id": APP_ID,
            "account": {"login": form.account, "type": "Organization"},
        },
        "repositories": repositories,
        "sender": {"login": "octocat"},
    });
    let body = serde_json::to_vec(&payload).unwrap();
    let hook = app.manifest["hook_attributes"]["url"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let delivered = reqwest::Client::new()
        .post(&hook)
        .header("content-type", "application/json")
        .header("x-github-event", "installation")
        .header("x-github-delivery", format!("fake-install-{id}"))
        .header(
            "x-hub-signature-256",
            blast_radius::intake::sign(&app.webhook_secret, &body),
        )
        .body(body)
        .send()
        .await;
    let status = delivered.map(|r| r.status().as_u16()).unwrap_or(0);
    st.model
        .lock()
        .unwrap()
        .deliveries
        .push(("installation".into(), status));
    let setup_url = app.manifest["setup_url"].as_str().unwrap_or("/");
    let location = format!("{setup_url}?installation_id={id}&setup_action=install");
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}
