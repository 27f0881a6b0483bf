//! The App's webhook, as GitHub drives it: the fake sends deliveries (signed) to the
//! App's webhook URL and logs every attempt as GitHub does, whether the App took it or
//! not; the App reads the log (`GET /app/hook/deliveries`, newest first, cursor pages) and
//! asks for a delivery again (`POST /app/hook/deliveries/{delivery_id}/attempts`), which
//! the fake then sends again with the same GUID.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::{json, Value};

use super::model::Shared;
use super::routes::{not_found, Params};

/// Where the App takes its deliveries.
#[derive(Clone, Debug)]
pub(crate) struct Hook {
    pub url: String,
    pub secret: String,
}

/// One attempt at delivering an event, with GitHub's fields.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HookAttempt {
    pub id: u64,
    pub guid: String,
    pub delivered_at: DateTime<Utc>,
    pub redelivery: bool,
    /// Seconds the App took to answer.
    pub duration: f64,
    pub status: String,
    pub status_code: u16,
    pub event: String,
    pub action: Option<String>,
    pub installation_id: Option<i64>,
    pub repository_id: Option<i64>,
    #[serde(skip)]
    pub payload: Arc<Vec<u8>>,
}

impl HookAttempt {
    fn json(&self) -> Value {
        json!({
            "id": self.id,
            "guid": self.guid,
            "delivered_at": self.delivered_at.to_rfc3339_opts(SecondsFormat::Secs, true),
            "redelivery": self.redelivery,
            "duration": self.duration,
            "status": self.status,
            "status_code": self.status_code,
            "event": self.event,
            "action": self.action,
            "installation_id": self.installation_id,
            "repository_id": self.repository_id,
            "throttled_at": null,
        })
    }
}

/// GitHub gives up on an answer after 10 seconds.
const TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) fn api_routes(api: Router<Arc<Shared>>) -> Router<Arc<Shared>> {
    api.route("/app/hook/deliveries", get(list)).route(
        "/app/hook/deliveries/{delivery_id}/attempts",
        post(redeliver),
    )
}

/// Sends `payload` as event `event` with delivery `guid` to the App's hook, logs the
/// attempt, and returns it.
pub(crate) async fn deliver(
    st: &Shared,
    event: &str,
    guid: &str,
    payload: Arc<Vec<u8>>,
    redelivery: bool,
) -> HookAttempt {
    let hook = st
        .model
        .lock()
        .unwrap()
        .hook
        .clone()
        .expect("set_webhook first");
    let started = Instant::now();
    let delivered_at = Utc::now();
    let sent = reqwest::Client::builder()
        .timeout(TIMEOUT)
        .build()
        .unwrap()
        .post(&hook.url)
        .header("content-type", "application/json")
        .header("user-agent", "GitHub-Hookshot/fake")
        .header("x-github-event", event)
        .header("x-github-delivery", guid)
        .header("x-github-hook-id", "1")
        .header(
            "x-hub-signature-256",
            blast_radius::intake::sign(&hook.secret, &payload),
        )
        .body(payload.as_ref().clone())
        .send()
        .await;
    let (status, status_code) = match sent {
        Ok(r) if r.status().is_success() => ("OK".to_string(), r.status().as_u16()),
        Ok(r) => (
            format!("Invalid HTTP Response: {}", r.status().as_u16()),
            r.status().as_u16(),
        ),
        Err(e) if e.is_timeout() => ("timed out".to_string(), 0),
        Err(_) => ("failed to connect to host".to_string(), 0),
    };
    let body: Value = serde_json::from_slice(&payload).unwrap_or(Value::Null);
    let mut m = st.model.lock().unwrap();
    let attempt = HookAttempt {
        id: m.new_id(),
        guid: guid.to_string(),
        delivered_at,
        redelivery,
        duration: started.elapsed().as_secs_f64(),
        status,
        status_code,
        event: event.to_string(),
        action: body["action"].as_str().map(str::to_string),
        installation_id: body["installation"]["id"].as_i64(),
        repository_id: body["repository"]["id"].as_i64(),
        payload,
    };
    m.hook_attempts.push(attempt.clone());
    attempt
}

/// `GET /app/hook/deliveries`: newest first; `per_page` up to 100 (30 by default); the
/// next page by the opaque `cursor` of the `Link` header's `rel="next"` URL.
async fn list(State(st): State<Arc<Shared>>, Query(params): Params) -> Response {
    let per_page = params
        .get("per_page")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(30)
        .clamp(1, 100);
    let after: Option<u64> = match params.get("cursor") {
        None => None,
        Some(c) => match c.strip_prefix("v1_").and_then(|n| n.parse().ok()) {
            Some(n) => Some(n),
            None => return super::routes::message(StatusCode::BAD_REQUEST, "Invalid cursor"),
        },
    };
    let newest_first: Vec<HookAttempt> = {
        let m = st.model.lock().unwrap();
        let mut all = m.hook_attempts.clone();
        all.sort_by_key(|a| std::cmp::Reverse(a.id));
        all.into_iter()
            .filter(|a| after.is_none_or(|n| a.id <= n))
            .collect()
    };
    let page: Vec<Value> = newest_first
        .iter()
        .take(per_page)
        .map(HookAttempt::json)
        .collect();
    let mut response = Json(Value::Array(page)).into_response();
    if let Some(next) = newest_first.get(per_page) {
        let link = format!(
            "<{}/app/hook/deliveries?per_page={per_page}&cursor=v1_{}>; rel=\"next\"",
            st.api_root(),
            next.id
        );
        response
            .headers_mut()
            .insert(header::LINK, HeaderValue::from_str(&link).unwrap());
    }
    response
}

/// `POST /app/hook/deliveries/{delivery_id}/attempts`: 202, then the delivery is sent
/// again (a new attempt, `redelivery: true`, the same GUID).
async fn redeliver(State(st): State<Arc<Shared>>, Path(id): Path<String>) -> Response {
    let Ok(id) = id.parse::<u64>() else {
        return not_found();
    };
    let found = st
        .model
        .lock()
        .unwrap()
        .hook_attempts
        .iter()
        .find(|a| a.id == id)
        .cloned();
    let Some(attempt) = found else {
        return not_found();
    };
    let shared = st.clone();
    tokio::spawn(async move {
        deliver(
            &shared,
            &attempt.event,
            &attempt.guid,
            attempt.payload.clone(),
            true,
        )
        .await;
    });
    (StatusCode::ACCEPTED, Json(json!({}))).into_response()
}
