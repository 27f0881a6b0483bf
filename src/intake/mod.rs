//! Webhooks in: the axum router. The only module that speaks HTTP to GitHub's webhook
//! deliveries.
//!
//! `POST /webhook` checks the signature on the raw bytes before anything reads them,
//! reads the payload into our own typed events ([`events`]), turns them into jobs
//! ([`delivery_jobs::jobs_for`], pure), and records the delivery and its jobs in one transaction
//! ([`Queue::record_delivery_and_enqueue`]); then answers. It never waits for GitHub or
//! for any job: GitHub gives up on a delivery after 10 seconds and does not retry it.
//!
//! Anyone who can reach `/webhook` can send a body, and a body cannot be verified before
//! it is whole. So the headers are checked first, before a byte of the body is read (a
//! signature that is not `sha256=` and 64 hex digits, an event or delivery id that is no
//! GitHub name, is refused at once); the bodies not yet verified share one byte budget,
//! with a share per client address ([`budget`], [`IntakeLimits`]), counted as the bytes
//! arrive (never reserved from a `Content-Length`); and each must arrive within
//! [`IntakeLimits::body_timeout`]. A full budget drops its slowest reader rather than
//! refuse a newcomer, so junk that holds the budget cannot refuse GitHub's deliveries.
//!
//! | request | answer |
//! |---|---|
//! | no App set up on this server yet (`/setup`) | 503 (redeliver it once the App exists) |
//! | body over 25 MB (by `Content-Length`) | 413 |
//! | `X-Hub-Signature-256` missing, or not `sha256=` and 64 hex digits | 401, body not read |
//! | `X-GitHub-Event` or `X-GitHub-Delivery` missing or not a GitHub name | 400, body not read |
//! | body over 25 MB as it streams in | 413 |
//! | dropped for a faster body while the budget is full, or one body over its address's share | 503 |
//! | a body still arriving after the body timeout (10 s) | 408 |
//! | `X-Hub-Signature-256` not the body's | 401, nothing stored, nothing of the body logged |
//! | the body not a JSON object, or a handled event's payload lacks a field we read | 400 |
//! | a handled event: delivery recorded, jobs enqueued | 202 |
//! | `ping`, other events and actions: delivery recorded as ignored, no job | 200 |
//! | a delivery id seen before (a redelivery) | 200, nothing done again |
//! | the database failing or slow | 503 (GitHub shows the failure; recovery redelivers it) |
//! | the process shutting down (SIGTERM) | 503, body not read (recovered after the restart) |
//!
//! `GET /healthz` answers 200 while the process runs; `GET /readyz` answers 200 when
//! the database answers and every migration is applied and the process is not shutting
//! down, else 503 (the cause is logged, not told to whoever asks).
//!
//! A delivery refused for the database wakes the delivery recovery ([`Intake::recovering`]),
//! which asks GitHub for it again once the database answers.

pub mod budget;
pub mod client;
pub mod delivery_jobs;
pub mod events;
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
use tokio::sync::{watch, Notify};

use crate::queue::{Delivery, Queue, QueueError, Recorded};
use budget::{Budget, Share};
use client::ClientAddr;
pub use signature::{sign, SignatureError, WebhookSecrets};

/// GitHub caps payloads at 25 MB (it drops larger events rather than cut them).
pub const MAX_BODY: usize = 25 * 1024 * 1024;

/// Recording a delivery must answer well inside GitHub's 10 seconds.
const RECORD_TIMEOUT: Duration = Duration::from_secs(8);
const READY_TIMEOUT: Duration = Duration::from_secs(3);

pub const EVENT_HEADER: &str = "x-github-event";
pub const DELIVERY_HEADER: &str = "x-github-delivery";

/// What `/webhook` lets unverified callers cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntakeLimits {
    /// Bytes of bodies read but not yet verified, across all requests at once: the
    /// server's memory stays bounded whatever number of callers post at once. When a
    /// body's bytes would pass it, the slowest reader is dropped (503) to make room.
    pub unverified_bytes: usize,
    /// The most of that one client address holds (its slowest reader is dropped past it).
    /// At least a whole delivery (25 MB) by default, so that GitHub, which may post from
    /// one address, is never refused a delivery it may send.
    pub unverified_bytes_per_address: usize,
    /// A body still arriving after this long is not GitHub's (GitHub gives up on a
    /// delivery after 10 seconds).
    pub body_timeout: Duration,
}

impl Default for IntakeLimits {
    fn default() -> Self {
        IntakeLimits {
            unverified_bytes: 64 * 1024 * 1024,
            unverified_bytes_per_address: 32 * 1024 * 1024,
            body_timeout: Duration::from_secs(10),
        }
    }
}

/// What the routes share: the queue and the webhook secrets.
#[derive(Clone, Debug)]
pub struct Intake {
    queue: Queue,
    /// None until the App is set up (`/setup`): deliveries are answered 503.
    secrets: Option<Arc<WebhookSecrets>>,
    limits: IntakeLimits,
    unverified: Arc<Budget>,
    /// Told when a delivery could not be recorded (the database failed) or was dropped
    /// for load (503) or slowness (408): the delivery recovery then runs a round soon,
    /// once the database answers.
    refused: Option<Arc<Notify>>,
    /// True once the process shuts down: deliveries are answered 503, so GitHub logs
    /// them failed and they are recovered after the restart.
    stopping: Option<watch::Receiver<bool>>,
}

impl Intake {
    pub fn new(queue: Queue, secrets: WebhookSecrets) -> Intake {
        Intake::with_limits(queue, Some(secrets), IntakeLimits::default())
    }

    /// Before the App exists: `/webhook` answers 503 (GitHub keeps the delivery to be
    /// redelivered), health and readiness as always.
    pub fn awaiting_app(queue: Queue) -> Intake {
        Intake::with_limits(queue, None, IntakeLimits::default())
    }

    pub fn with_limits(
        queue: Queue,
        secrets: Option<WebhookSecrets>,
        limits: IntakeLimits,
    ) -> Intake {
        Intake {
            queue,
            secrets: secrets.map(Arc::new),
            limits,
            unverified: Budget::new(limits.unverified_bytes, limits.unverified_bytes_per_address),
            refused: None,
            stopping: None,
        }
    }

    /// Tells `refused` of each delivery the database could not take, and answers 503 to
    /// every delivery (and to `/readyz`) once `stopping` turns true.
    pub fn recovering(mut self, refused: Arc<Notify>, stopping: watch::Receiver<bool>) -> Intake {
        self.refused = Some(refused);
        self.stopping = Some(stopping);
        self
    }

    fn stopping(&self) -> bool {
        self.stopping.as_ref().is_some_and(|s| *s.borrow())
    }

    fn tell_refused(&self) {
        if let Some(refused) = &self.refused {
            refused.notify_one();
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

/// The events we name in metrics; any other header value counts as `other`, so a
/// sender cannot grow the metric's label set.
const KNOWN_EVENTS: &[&str] = &[
    // Ours: a request refused before its signature was checked.
    "unverified",
    "installation",
    "installation_repositories",
    "installation_target",
    "push",
    "pull_request",
    "issue_comment",
    "repository",
    "ping",
    "check_run",
    "check_suite",
    "github_app_authorization",
    "meta",
];

fn event_label(event: &str) -> &'static str {
    KNOWN_EVENTS
        .iter()
        .find(|&&e| e == event)
        .copied()
        .unwrap_or("other")
}

/// Counts a delivery by event and outcome for `/metrics`. The event is the header's only
/// once the signature is checked (before that it is anyone's text), and only when it is
/// one we know.
fn count(event: &str, outcome: &'static str) {
    metrics::counter!("blast_webhook_deliveries_total", "event" => event_label(event), "outcome" => outcome)
        .increment(1);
}

/// Why `/webhook` turned a request away before it was verified.
enum Unverified {
    NoApp,
    ShuttingDown,
    TooLarge,
    Busy,
    SignatureMissing,
    SignatureMalformed,
    EventMissing,
    EventMalformed,
    DeliveryMissing,
    TooSlow,
    Unreadable(axum::Error),
    BadSignature(SignatureError),
}

/// A delivery `/webhook` turned away: each is its answer, its log line and its count.
enum Refusal {
    /// Before the signature was checked, counted as `unverified` (the headers are anyone's
    /// text until then); with the delivery id shown in the log (`-` when it is none).
    Unverified(Unverified, String),
    /// A handled event whose payload lacks a field we read.
    Unparsed {
        delivery: String,
        event: String,
        error: events::ParseError,
    },
    /// The database failed: GitHub shows the failure, to be redelivered.
    NotRecorded { record: Delivery, error: QueueError },
    /// The database did not answer within [`RECORD_TIMEOUT`].
    RecordTimedOut { record: Delivery },
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::Unverified(why, delivery) => unverified(why, &delivery),
            Refusal::Unparsed {
                delivery,
                event,
                error,
            } => {
                let (delivery, event) = (delivery.as_str(), event.as_str());
                tracing::warn!(delivery, event, "webhook refused: {error}");
                count(event, "bad_request");
                answer(StatusCode::BAD_REQUEST, format!("{error}\n"))
            }
            Refusal::NotRecorded { record, error } => {
                let (delivery, event) = (record.id.as_str(), record.event.as_str());
                let action = record.action.as_deref().unwrap_or("-");
                tracing::error!(
                    delivery,
                    event,
                    action,
                    "recording the delivery failed: {error}"
                );
                count(event, "unavailable");
                answer(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "could not record the delivery\n",
                )
            }
            Refusal::RecordTimedOut { record } => {
                let (delivery, event) = (record.id.as_str(), record.event.as_str());
                let action = record.action.as_deref().unwrap_or("-");
                tracing::error!(delivery, event, action, "recording the delivery timed out");
                count(event, "unavailable");
                answer(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "could not record the delivery in time\n",
                )
            }
        }
    }
}

/// The answer, log line and count of a request refused before it was verified.
fn unverified(why: Unverified, delivery: &str) -> Response {
    let (status, outcome, text) = match &why {
        Unverified::NoApp => (
            StatusCode::SERVICE_UNAVAILABLE,
            "no_app",
            "no GitHub App is set up on this server yet: open /setup\n",
        ),
        Unverified::ShuttingDown => (
            StatusCode::SERVICE_UNAVAILABLE,
            "shutting_down",
            "shutting down: deliver it again later\n",
        ),
        Unverified::TooLarge => (
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            "payload over 25 MB\n",
        ),
        Unverified::Busy => (
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            "too many unverified bodies in flight: try again\n",
        ),
        Unverified::SignatureMissing => (
            StatusCode::UNAUTHORIZED,
            "bad_signature",
            "signature missing\n",
        ),
        Unverified::SignatureMalformed => (
            StatusCode::UNAUTHORIZED,
            "bad_signature",
            "signature not sha256= and 64 hex digits\n",
        ),
        Unverified::EventMissing => (
            StatusCode::BAD_REQUEST,
            "bad_request",
            "X-GitHub-Event missing\n",
        ),
        Unverified::EventMalformed => (
            StatusCode::BAD_REQUEST,
            "bad_request",
            "X-GitHub-Event is not an event's name\n",
        ),
        Unverified::DeliveryMissing => (
            StatusCode::BAD_REQUEST,
            "bad_request",
            "X-GitHub-Delivery missing or invalid\n",
        ),
        Unverified::TooSlow => (StatusCode::REQUEST_TIMEOUT, "too_slow", "body too slow\n"),
        Unverified::Unreadable(_) => (StatusCode::BAD_REQUEST, "unreadable", "body unreadable\n"),
        Unverified::BadSignature(_) => (
            StatusCode::UNAUTHORIZED,
            "bad_signature",
            "signature does not match\n",
        ),
    };
    match &why {
        Unverified::NoApp => {}
        Unverified::ShuttingDown => tracing::info!(delivery, "webhook refused: shutting down"),
        Unverified::Unreadable(e) => tracing::warn!(delivery, "webhook body unreadable: {e}"),
        Unverified::BadSignature(e) => tracing::warn!(delivery, "webhook refused: {e}"),
        _ => tracing::warn!(delivery, "webhook refused: {}", text.trim_end()),
    }
    count("unverified", outcome);
    answer(status, text)
}

/// A delivery recorded: what the queue did with it.
struct Accepted {
    record: Delivery,
    recorded: Recorded,
}

impl IntoResponse for Accepted {
    fn into_response(self) -> Response {
        let (delivery, event) = (self.record.id.as_str(), self.record.event.as_str());
        let action = self.record.action.as_deref().unwrap_or("-");
        match self.recorded {
            Recorded::New { jobs } if jobs.is_empty() => {
                tracing::info!(delivery, event, action, "webhook ignored");
                count(event, "ignored");
                answer(StatusCode::OK, "ignored\n")
            }
            Recorded::New { jobs } => {
                tracing::info!(delivery, event, action, jobs = jobs.len(), "webhook queued");
                count(event, "queued");
                answer(
                    StatusCode::ACCEPTED,
                    format!("queued {} job(s)\n", jobs.len()),
                )
            }
            Recorded::Duplicate => {
                tracing::info!(
                    delivery,
                    event,
                    action,
                    "webhook redelivered: already recorded"
                );
                count(event, "duplicate");
                answer(StatusCode::OK, "already recorded\n")
            }
        }
    }
}

/// The module's table, in order: every check answers with its [`Refusal`], a recorded
/// delivery with what was done ([`Accepted`]).
async fn webhook(
    State(intake): State<Intake>,
    client: ClientAddr,
    headers: HeaderMap,
    body: Body,
) -> Result<Accepted, Refusal> {
    // Delivery ids are GitHub's GUIDs; anything else in the header is not logged.
    let delivery = headers
        .get(DELIVERY_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|d| valid_delivery_id(d))
        .map(str::to_string);
    let refuse = |why| Refusal::Unverified(why, delivery.as_deref().unwrap_or("-").into());
    let event = checked_headers(&intake, &headers)
        .map_err(refuse)?
        .to_string();
    let delivery = delivery
        .clone()
        .ok_or_else(|| refuse(Unverified::DeliveryMissing))?;
    // Held until the answer: the body counts against the unverified budget while it is
    // in memory.
    let (bytes, _held) = verified_body(&intake, client, &headers, body)
        .await
        .map_err(|why| {
            // GitHub logs these as failed (503, 408): the recovery asks for them again.
            if matches!(why, Unverified::Busy | Unverified::TooSlow) {
                intake.tell_refused();
            }
            Refusal::Unverified(why, delivery.clone())
        })?;

    let parsed = events::parse(&event, &bytes).map_err(|error| Refusal::Unparsed {
        delivery: delivery.clone(),
        event: event.clone(),
        error,
    })?;
    let jobs = parsed
        .event
        .as_ref()
        .map(delivery_jobs::jobs_for)
        .unwrap_or_default();
    let record = Delivery {
        id: delivery,
        event,
        action: parsed.envelope.action.clone(),
        installation_id: parsed.envelope.installation.as_ref().map(|i| i.id.0),
        repository_id: parsed.envelope.repository.as_ref().map(|r| r.id),
    };
    let recorded = tokio::time::timeout(
        RECORD_TIMEOUT,
        intake.queue.record_delivery_and_enqueue(&record, &jobs),
    )
    .await;
    let refused = match recorded {
        Ok(Ok(recorded)) => return Ok(Accepted { record, recorded }),
        Ok(Err(error)) => Refusal::NotRecorded { record, error },
        Err(_) => Refusal::RecordTimedOut { record },
    };
    intake.tell_refused();
    Err(refused)
}

/// What can be judged from the headers alone, before any byte of the body is read: that
/// the App exists, the declared length, and that the signature and the event have
/// GitHub's form (the delivery id is checked by the caller). The event's name.
fn checked_headers<'h>(intake: &Intake, headers: &'h HeaderMap) -> Result<&'h str, Unverified> {
    if intake.secrets.is_none() {
        return Err(Unverified::NoApp);
    }
    if intake.stopping() {
        return Err(Unverified::ShuttingDown);
    }
    let declared = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return Err(Unverified::TooLarge);
    }
    let signature = headers
        .get(signature::SIGNATURE_HEADER)
        .ok_or(Unverified::SignatureMissing)?;
    signature::well_formed(signature.as_bytes()).map_err(|_| Unverified::SignatureMalformed)?;
    let event = headers
        .get(EVENT_HEADER)
        .ok_or(Unverified::EventMissing)?
        .to_str()
        .ok()
        .filter(|e| valid_event_name(e))
        .ok_or(Unverified::EventMalformed)?;
    Ok(event)
}

/// A GUID, or at least something short and plain enough to be a key and be logged.
fn valid_delivery_id(d: &str) -> bool {
    !d.is_empty()
        && d.len() <= 100
        && d.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
}

/// GitHub's event names are short snake_case words (`pull_request_review_comment`); any
/// such name is let through (unknown ones are recorded as ignored), nothing else.
fn valid_event_name(e: &str) -> bool {
    (1..=64).contains(&e.len())
        && e.as_bytes()[0].is_ascii_lowercase()
        && e.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// The body, read within the limits and checked against the webhook secrets; with its
/// share of the unverified budget.
async fn verified_body(
    intake: &Intake,
    client: ClientAddr,
    headers: &HeaderMap,
    body: Body,
) -> Result<(Bytes, Share), Unverified> {
    let Some(secrets) = &intake.secrets else {
        return Err(Unverified::NoApp);
    };
    let signature = headers.get(signature::SIGNATURE_HEADER);
    let share = intake.unverified.reader(client.key());
    let read = read_limited(body, MAX_BODY, share);
    let (bytes, share) = tokio::time::timeout(intake.limits.body_timeout, read)
        .await
        .unwrap_or(Err(Unverified::TooSlow))?;
    secrets
        .verify(&bytes, signature.map(|s| s.as_bytes()))
        .map_err(Unverified::BadSignature)?;
    Ok((bytes, share))
}

/// Reads the body, stopping as soon as it passes `limit` (a chunked body has no length
/// to check up front), its `share` of the budget covering the bytes as they arrive.
/// Nothing is reserved from a declared length: a caller who announces 25 MB and sends
/// nothing costs nothing. Dropped for a faster reader, it gives up at once.
async fn read_limited(
    body: Body,
    limit: usize,
    mut share: Share,
) -> Result<(Bytes, Share), Unverified> {
    let mut buf = BytesMut::new();
    let mut stream = body.into_data_stream();
    loop {
        let chunk = tokio::select! {
            biased;
            () = share.dropped() => return Err(Unverified::Busy),
            chunk = stream.next() => chunk,
        };
        let Some(chunk) = chunk else { break };
        let chunk = chunk.map_err(Unverified::Unreadable)?;
        let len = buf.len() + chunk.len();
        if len > limit {
            return Err(Unverified::TooLarge);
        }
        share.cover(len).map_err(|_| Unverified::Busy)?;
        buf.extend_from_slice(&chunk);
    }
    Ok((buf.freeze(), share))
}

async fn healthz() -> Response {
    answer(StatusCode::OK, "ok\n")
}

async fn readyz(State(intake): State<Intake>) -> Response {
    if intake.stopping() {
        return answer(StatusCode::SERVICE_UNAVAILABLE, "shutting down\n");
    }
    // The cause goes to the log: a database error can name hosts and users.
    match tokio::time::timeout(READY_TIMEOUT, intake.queue.check_ready()).await {
        Ok(Ok(())) => answer(StatusCode::OK, "ready\n"),
        Ok(Err(e)) => {
            tracing::warn!("not ready: {e}");
            answer(StatusCode::SERVICE_UNAVAILABLE, "not ready\n")
        }
        Err(_) => {
            tracing::warn!("not ready: the database did not answer in time");
            answer(StatusCode::SERVICE_UNAVAILABLE, "not ready\n")
        }
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

    #[test]
    fn event_names() {
        for ok in [
            "push",
            "pull_request_review_comment",
            "star",
            "security_advisory",
        ] {
            assert!(valid_event_name(ok), "{ok}");
        }
        for bad in ["", "Push", "push\n", "a b", "_x", "x-y", &"x".repeat(65)] {
            assert!(!valid_event_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn only_known_event_names_become_metric_labels() {
        assert_eq!(event_label("push"), "push");
        assert_eq!(event_label("pull_request"), "pull_request");
        assert_eq!(event_label("push\n"), "other");
        assert_eq!(event_label(&"x".repeat(10_000)), "other");
    }
}
