//! Webhooks in: the axum router. The only module that speaks HTTP to GitHub's webhook
//! deliveries.
//!
//! `POST /webhook` checks the signature on the raw bytes before anything reads them,
//! reads the payload into our own typed events ([`events`]), turns them into jobs
//! ([`jobs::jobs_for`], pure), and records the delivery and its jobs in one transaction
//! ([`Queue::record_delivery_and_enqueue`]); then answers. It never waits for GitHub or
//! for any job: GitHub gives up on a delivery after 10 seconds and does not retry it.
//!
//! | request | answer |
//! |---|---|
//! | no App set up on this server yet (`/setup`) | 503 (redeliver it once the App exists) |
//! | body over 25 MB (by `Content-Length`, or as it streams in) | 413 |
//! | `X-Hub-Signature-256` missing or wrong | 401, nothing stored, nothing of the body logged |
//! | `X-GitHub-Event` or `X-GitHub-Delivery` missing, or the body not a JSON object | 400 |
//! | a handled event whose payload lacks a field we read | 400 |
//! | a body still arriving after 30 s | 408 |
//! | a handled event: delivery recorded, jobs enqueued | 202 |
//! | `ping`, other events and actions: delivery recorded as ignored, no job | 200 |
//! | a delivery id seen before (a redelivery) | 200, nothing done again |
//! | the database failing or slow | 503 (GitHub shows the failure; redeliver it) |
//!
//! `GET /healthz` answers 200 while the process runs; `GET /readyz` answers 200 when
//! the database answers and every migration is applied, else 503.

pub mod events;
pub mod jobs;
pub mod signature;

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;

use crate::queue::{Delivery, Queue, Recorded};
pub use signature::{sign, SignatureError, WebhookSecrets};

/// GitHub caps payloads at 25 MB (it drops larger events rather than cut them).
pub const MAX_BODY: usize = 25 * 1024 * 1024;

/// Recording a delivery must answer well inside GitHub's 10 seconds.
const RECORD_TIMEOUT: Duration = Duration::from_secs(8);
const READY_TIMEOUT: Duration = Duration::from_secs(3);
/// A body still arriving after this long is not GitHub's (it would have given up).
const BODY_TIMEOUT: Duration = Duration::from_secs(30);

pub const EVENT_HEADER: &str = "x-github-event";
pub const DELIVERY_HEADER: &str = "x-github-delivery";

/// What the routes share: the queue and the webhook secrets.
#[derive(Clone, Debug)]
pub struct Intake {
    queue: Queue,
    /// None until the App is set up (`/setup`): deliveries are answered 503.
    secrets: Option<Arc<WebhookSecrets>>,
}

impl Intake {
    pub fn new(queue: Queue, secrets: WebhookSecrets) -> Intake {
        Intake {
            queue,
            secrets: Some(Arc::new(secrets)),
        }
    }

    /// Before the App exists: `/webhook` answers 503 (GitHub keeps the delivery to be
    /// redelivered), health and readiness as always.
    pub fn awaiting_app(queue: Queue) -> Intake {
        Intake {
            queue,
            secrets: None,
        }
    }

    /// `POST /webhook`, `GET /healthz`, `GET /readyz`.
    pub fn router(self) -> Router {
        Router::new()
            .route("/webhook", post(webhook))
            .route("/healthz", get(healthz))
            .route("/readyz", get(readyz))
            .with_state(self)
    }
}

/// The router for `queue` and `secrets`.
pub fn router(queue: Queue, secrets: WebhookSecrets) -> Router {
    Intake::new(queue, secrets).router()
}

fn answer(status: StatusCode, text: impl Into<String>) -> Response {
    (status, text.into()).into_response()
}

/// Counts a delivery by event and outcome for `/metrics`. The event is the header's only
/// once the signature is checked: before that it is anyone's text.
fn count(event: &str, outcome: &'static str) {
    metrics::counter!("blast_webhook_deliveries_total", "event" => event.to_string(), "outcome" => outcome)
        .increment(1);
}

async fn webhook(State(intake): State<Intake>, headers: HeaderMap, body: Body) -> Response {
    let Some(secrets) = &intake.secrets else {
        count("unverified", "no_app");
        return answer(
            StatusCode::SERVICE_UNAVAILABLE,
            "no GitHub App is set up on this server yet: open /setup\n",
        );
    };
    // Delivery ids are GitHub's GUIDs; anything else in the header is not logged.
    let delivery = headers
        .get(DELIVERY_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|d| valid_delivery_id(d))
        .map(str::to_string);
    let shown = delivery.as_deref().unwrap_or("-");

    let declared = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        tracing::warn!(delivery = shown, "webhook refused: body over 25 MB");
        count("unverified", "too_large");
        return answer(StatusCode::PAYLOAD_TOO_LARGE, "payload over 25 MB\n");
    }
    let Some(signature) = headers.get(signature::SIGNATURE_HEADER) else {
        tracing::warn!(
            delivery = shown,
            "webhook refused: {}",
            SignatureError::Missing
        );
        count("unverified", "bad_signature");
        return answer(StatusCode::UNAUTHORIZED, "signature missing\n");
    };
    let read = tokio::time::timeout(BODY_TIMEOUT, read_limited(body, declared, MAX_BODY));
    let bytes = match read.await.unwrap_or(Err(ReadError::TooSlow)) {
        Ok(b) => b,
        Err(ReadError::TooSlow) => {
            tracing::warn!(delivery = shown, "webhook refused: body too slow");
            count("unverified", "too_slow");
            return answer(StatusCode::REQUEST_TIMEOUT, "body too slow\n");
        }
        Err(ReadError::TooLarge) => {
            tracing::warn!(delivery = shown, "webhook refused: body over 25 MB");
            count("unverified", "too_large");
            return answer(StatusCode::PAYLOAD_TOO_LARGE, "payload over 25 MB\n");
        }
        Err(ReadError::Broken(e)) => {
            tracing::warn!(delivery = shown, "webhook body unreadable: {e}");
            count("unverified", "unreadable");
            return answer(StatusCode::BAD_REQUEST, "body unreadable\n");
        }
    };
    if let Err(e) = secrets.verify(&bytes, Some(signature.as_bytes())) {
        tracing::warn!(delivery = shown, "webhook refused: {e}");
        count("unverified", "bad_signature");
        return answer(StatusCode::UNAUTHORIZED, "signature does not match\n");
    }

    let Some(event) = headers.get(EVENT_HEADER).and_then(|v| v.to_str().ok()) else {
        count("unverified", "bad_request");
        return answer(StatusCode::BAD_REQUEST, "X-GitHub-Event missing\n");
    };
    let Some(delivery) = delivery else {
        count(event, "bad_request");
        return answer(
            StatusCode::BAD_REQUEST,
            "X-GitHub-Delivery missing or invalid\n",
        );
    };
    let parsed = match events::parse(event, &bytes) {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(delivery, event, "webhook refused: {e}");
            count(event, "bad_request");
            return answer(StatusCode::BAD_REQUEST, format!("{e}\n"));
        }
    };
    let jobs = parsed
        .event
        .as_ref()
        .map(jobs::jobs_for)
        .unwrap_or_default();
    let record = Delivery {
        id: delivery.clone(),
        event: event.to_string(),
        action: parsed.envelope.action.clone(),
        installation_id: parsed.envelope.installation.as_ref().map(|i| i.id.0),
        repository_id: parsed.envelope.repository.as_ref().map(|r| r.id),
    };
    let action = record.action.as_deref().unwrap_or("-");
    let recorded = tokio::time::timeout(
        RECORD_TIMEOUT,
        intake.queue.record_delivery_and_enqueue(&record, &jobs),
    )
    .await;
    match recorded {
        Ok(Ok(Recorded::New { jobs })) if jobs.is_empty() => {
            tracing::info!(delivery, event, action, "webhook ignored");
            count(event, "ignored");
            answer(StatusCode::OK, "ignored\n")
        }
        Ok(Ok(Recorded::New { jobs })) => {
            tracing::info!(delivery, event, action, jobs = jobs.len(), "webhook queued");
            count(event, "queued");
            answer(
                StatusCode::ACCEPTED,
                format!("queued {} job(s)\n", jobs.len()),
            )
        }
        Ok(Ok(Recorded::Duplicate)) => {
            tracing::info!(
                delivery,
                event,
                action,
                "webhook redelivered: already recorded"
            );
            count(event, "duplicate");
            answer(StatusCode::OK, "already recorded\n")
        }
        Ok(Err(e)) => {
            tracing::error!(
                delivery,
                event,
                action,
                "recording the delivery failed: {e}"
            );
            count(event, "unavailable");
            answer(
                StatusCode::SERVICE_UNAVAILABLE,
                "could not record the delivery\n",
            )
        }
        Err(_) => {
            tracing::error!(delivery, event, action, "recording the delivery timed out");
            count(event, "unavailable");
            answer(
                StatusCode::SERVICE_UNAVAILABLE,
                "could not record the delivery in time\n",
            )
        }
    }
}

/// A GUID, or at least something short and plain enough to be a key and be logged.
fn valid_delivery_id(d: &str) -> bool {
    !d.is_empty()
        && d.len() <= 100
        && d.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
}

enum ReadError {
    TooLarge,
    TooSlow,
    Broken(axum::Error),
}

/// Reads the body, stopping as soon as it passes `limit` (a chunked body has no length
/// to check up front).
async fn read_limited(body: Body, declared: Option<u64>, limit: usize) -> Result<Bytes, ReadError> {
    let mut buf = BytesMut::with_capacity(declared.unwrap_or(0).min(limit as u64) as usize);
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(ReadError::Broken)?;
        if buf.len() + chunk.len() > limit {
            return Err(ReadError::TooLarge);
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.freeze())
}

async fn healthz() -> Response {
    answer(StatusCode::OK, "ok\n")
}

async fn readyz(State(intake): State<Intake>) -> Response {
    match tokio::time::timeout(READY_TIMEOUT, intake.queue.check_ready()).await {
        Ok(Ok(())) => answer(StatusCode::OK, "ready\n"),
        Ok(Err(e)) => answer(StatusCode::SERVICE_UNAVAILABLE, format!("not ready: {e}\n")),
        Err(_) => answer(
            StatusCode::SERVICE_UNAVAILABLE,
            "not ready: the database did not answer in time\n",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivery_ids() {
        assert!(valid_delivery_id("72d3162e-cc78-11e3-81ab-4c9367dc0958"));
        assert!(!valid_delivery_id(""));
        assert!(!valid_delivery_id("a b"));
        assert!(!valid_delivery_id("<script>"));
        assert!(!valid_delivery_id(&"a".repeat(101)));
    }
}
