//! Failures a test asks for: "the next N requests whose path contains X answer so".

use std::time::Duration;

use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

/// How an injected failure answers.
#[derive(Clone, Debug)]
pub enum Fault {
    /// A bare error status (502, 500, 503, ...) with GitHub's JSON message shape.
    Status(u16),
    /// 403 "You have exceeded a secondary rate limit", with `Retry-After` when given.
    SecondaryRateLimit { retry_after: Option<u64> },
    /// 429 with `Retry-After`.
    TooManyRequests { retry_after: u64 },
    /// 403 with `x-ratelimit-remaining: 0`, resetting in `reset_in` seconds.
    PrimaryRateLimit { reset_in: u64 },
    /// Answers normally, but only after this long (for timeouts).
    Delay(Duration),
    /// Handles the request (its effect is applied: the comment is posted), then answers
    /// this status instead of the real answer: the write whose outcome the client cannot
    /// know.
    AppliedThenStatus(u16),
}

pub(crate) struct FaultRule {
    /// Only requests with this method, when given.
    pub method: Option<String>,
    pub path_contains: String,
    pub remaining: usize,
    pub fault: Fault,
}

/// The answer of a fault other than [`Fault::Delay`].
pub(crate) fn respond(fault: &Fault) -> Response {
    fn message(status: StatusCode, text: &str) -> Response {
        (
            status,
            Json(serde_json::json!({
                "message": text,
                "documentation_url": "https://docs.github.com/rest"
            })),
        )
            .into_response()
    }
    match fault {
        Fault::Status(code) | Fault::AppliedThenStatus(code) => {
            let status = StatusCode::from_u16(*code).unwrap();
            message(status, status.canonical_reason().unwrap_or("error"))
        }
        Fault::SecondaryRateLimit { retry_after } => {
            let mut r = message(
                StatusCode::FORBIDDEN,
                "You have exceeded a secondary rate limit. Please wait a few minutes before \
                 you try again.",
            );
            if let Some(secs) = retry_after {
                r.headers_mut()
                    .insert("retry-after", HeaderValue::from(*secs));
            }
            r
        }
        Fault::TooManyRequests { retry_after } => {
            let mut r = message(StatusCode::TOO_MANY_REQUESTS, "Too many requests");
            r.headers_mut()
                .insert("retry-after", HeaderValue::from(*retry_after));
            r
        }
        Fault::PrimaryRateLimit { reset_in } => {
            let mut r = message(
                StatusCode::FORBIDDEN,
                "API rate limit exceeded for installation.",
            );
            let reset = chrono::Utc::now().timestamp() as u64 + reset_in;
            let h = r.headers_mut();
            h.insert("x-ratelimit-limit", HeaderValue::from(5000u32));
            h.insert("x-ratelimit-remaining", HeaderValue::from(0u32));
            h.insert("x-ratelimit-reset", HeaderValue::from(reset));
            h.insert("x-ratelimit-resource", HeaderValue::from_static("core"));
            r
        }
        Fault::Delay(_) => unreachable!("a delay answers normally"),
    }
}
