//! Our own retry policy (octocrab's is turned off: it re-sends at once, writes included).
//!
//! What is retried: 5xx, timeouts and connection errors (with exponential backoff and
//! jitter), and rate limits (403/429 with `Retry-After`, 403 with `x-ratelimit-remaining: 0`
//! until `x-ratelimit-reset`, a secondary-limit 403/429 without either: at least
//! `secondary_wait`, doubling). Never retried: 401 (but see `transport`: one fresh token),
//! other 403s, 404, 422 and the like. A write that is not idempotent is only re-sent when
//! GitHub's answer proves it refused it (a rate limit); after a 5xx or a timeout it may have
//! been applied, so it fails with [`GithubError::WriteOutcomeUnknown`] for the caller to
//! check first.

use std::time::Duration;

use chrono::{DateTime, Utc};
use http::{HeaderMap, StatusCode};
use rand::Rng;

use super::error::GithubError;

/// How hard to try. The defaults suit a server; tests shrink the delays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 = never retry).
    pub max_attempts: u32,
    /// Backoff after the first failure; doubles each time, with jitter.
    pub base_delay: Duration,
    /// Backoff ceiling.
    pub max_delay: Duration,
    /// The longest a rate limit is waited out in place; a longer one fails at once with
    /// [`GithubError::RateLimited`] so the job can be rescheduled for `until`.
    pub max_wait: Duration,
    /// Wait after a secondary rate limit that names no time (GitHub: "at least one
    /// minute"); doubles on each further one.
    pub secondary_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 5,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            max_wait: Duration::from_secs(5 * 60),
            secondary_wait: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// Backoff before attempt `attempt + 1`: `base * 2^(attempt-1)`, capped at `max_delay`,
    /// then a uniformly random point in its upper half.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(1u32 << (attempt.saturating_sub(1)).min(20));
        let ceiling = exp.min(self.max_delay);
        let half = ceiling / 2;
        let spread = (ceiling - half).as_millis() as u64;
        half + Duration::from_millis(rand::rng().random_range(0..=spread))
    }
}

/// Whether a request may be sent twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryMode {
    /// Reads, and writes whose repetition does no harm (PUT of the same state, minting
    /// a token).
    Idempotent,
    /// Writes that create something (a comment, a check run): re-sent only after an answer
    /// that proves GitHub did nothing (a rate limit).
    NotIdempotent,
}

/// One failed attempt, as the retry decision sees it.
pub(crate) enum Failure {
    /// No answer (connection error, timeout, body cut short).
    Transport(String),
    /// An answer that is not a success.
    Status {
        status: StatusCode,
        headers: HeaderMap,
        message: String,
    },
}

pub(crate) enum Decision {
    RetryAfter(Duration),
    Fail(GithubError),
}

/// What to do after attempt number `attempt` (1-based) of `what` failed.
pub(crate) fn decide(
    policy: &RetryPolicy,
    mode: RetryMode,
    attempt: u32,
    what: &str,
    failure: Failure,
    now: DateTime<Utc>,
) -> Decision {
    let last = attempt >= policy.max_attempts;
    let what = what.to_string();
    match failure {
        Failure::Transport(message) => {
            if mode == RetryMode::NotIdempotent {
                Decision::Fail(GithubError::WriteOutcomeUnknown { what, message })
            } else if last {
                Decision::Fail(GithubError::Transport {
                    what,
                    message: format!("{message}; gave up after {attempt} attempts"),
                })
            } else {
                Decision::RetryAfter(policy.backoff(attempt))
            }
        }
        Failure::Status {
            status,
            headers,
            message,
        } => {
            if let Some(wait) = rate_limit_wait(policy, attempt, status, &headers, &message, now) {
                let until = now + chrono::Duration::from_std(wait).unwrap_or_default();
                return if last || wait > policy.max_wait {
                    Decision::Fail(GithubError::RateLimited { what, until })
                } else {
                    Decision::RetryAfter(wait)
                };
            }
            match status.as_u16() {
                401 => Decision::Fail(GithubError::Unauthorized { what, message }),
                403 => Decision::Fail(GithubError::Forbidden { what, message }),
                404 | 410 => Decision::Fail(GithubError::NotFound { what }),
                s @ 500..=599 => {
                    if mode == RetryMode::NotIdempotent {
                        Decision::Fail(GithubError::WriteOutcomeUnknown {
                            what,
                            message: format!("GitHub answered {s}: {message}"),
                        })
                    } else if last {
                        Decision::Fail(GithubError::Http {
                            what,
                            status: s,
                            message: format!("{message} (gave up after {attempt} attempts)"),
                        })
                    } else {
                        Decision::RetryAfter(policy.backoff(attempt))
                    }
                }
                s => Decision::Fail(GithubError::Http {
                    what,
                    status: s,
                    message,
                }),
            }
        }
    }
}

/// How long a rate-limit answer asks us to wait, or `None` if it is not one.
fn rate_limit_wait(
    policy: &RetryPolicy,
    attempt: u32,
    status: StatusCode,
    headers: &HeaderMap,
    message: &str,
    now: DateTime<Utc>,
) -> Option<Duration> {
    if status != StatusCode::FORBIDDEN && status != StatusCode::TOO_MANY_REQUESTS {
        return None;
    }
    if let Some(wait) = retry_after(headers, now) {
        return Some(wait);
    }
    let limits = super::rate_limit::RateLimit::from_headers(headers);
    if let Some(limits) = limits.filter(|l| l.remaining == 0) {
        return Some((limits.reset - now).to_std().unwrap_or(policy.base_delay));
    }
    let secondary = message
        .to_ascii_lowercase()
        .contains("secondary rate limit");
    if status == StatusCode::TOO_MANY_REQUESTS || secondary {
        return Some(
            policy
                .secondary_wait
                .saturating_mul(1u32 << attempt.saturating_sub(1).min(10)),
        );
    }
    None
}

/// `Retry-After`: seconds, or an HTTP date.
pub(crate) fn retry_after(headers: &HeaderMap, now: DateTime<Utc>) -> Option<Duration> {
    let value = headers
        .get(http::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = DateTime::parse_from_rfc2822(value)
        .ok()?
        .with_timezone(&Utc);
    Some((at - now).to_std().unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(700),
            max_wait: Duration::from_secs(10),
            secondary_wait: Duration::from_secs(2),
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn status(code: u16, h: &HeaderMap, message: &str) -> Failure {
        Failure::Status {
            status: StatusCode::from_u16(code).unwrap(),
            headers: h.clone(),
            message: message.to_string(),
        }
    }

    fn wait_of(d: Decision) -> Duration {
        match d {
            Decision::RetryAfter(w) => w,
            Decision::Fail(e) => panic!("expected a retry, got {e}"),
        }
    }

    fn error_of(d: Decision) -> GithubError {
        match d {
            Decision::RetryAfter(w) => panic!("expected a failure, got a retry after {w:?}"),
            Decision::Fail(e) => e,
        }
    }

    #[test]
    fn backoff_doubles_within_jitter_and_caps() {
        let p = policy();
        for _ in 0..50 {
            let b1 = p.backoff(1);
            assert!((50..=100).contains(&(b1.as_millis() as u64)), "{b1:?}");
            let b3 = p.backoff(3);
            assert!((200..=400).contains(&(b3.as_millis() as u64)), "{b3:?}");
            let b9 = p.backoff(9);
            assert!((350..=700).contains(&(b9.as_millis() as u64)), "{b9:?}");
        }
        // Absurd attempt numbers do not overflow.
        assert!(p.backoff(u32::MAX) <= p.max_delay);
    }

    #[test]
    fn server_errors_and_transport_errors_are_retried_until_the_last_attempt() {
        let p = policy();
        let now = Utc::now();
        let h = HeaderMap::new();
        let m = RetryMode::Idempotent;
        wait_of(decide(&p, m, 1, "GET /x", status(502, &h, "bad"), now));
        wait_of(decide(
            &p,
            m,
            2,
            "GET /x",
            Failure::Transport("reset".into()),
            now,
        ));
        let e = error_of(decide(&p, m, 4, "GET /x", status(502, &h, "bad"), now));
        assert!(matches!(e, GithubError::Http { status: 502, .. }), "{e}");
        let e = error_of(decide(
            &p,
            m,
            4,
            "GET /x",
            Failure::Transport("t".into()),
            now,
        ));
        assert!(matches!(e, GithubError::Transport { .. }), "{e}");
    }

    #[test]
    fn client_errors_are_not_retried() {
        let p = policy();
        let now = Utc::now();
        let h = HeaderMap::new();
        let m = RetryMode::Idempotent;
        let e = error_of(decide(
            &p,
            m,
            1,
            "GET /x",
            status(404, &h, "Not Found"),
            now,
        ));
        assert!(e.is_not_found());
        let e = error_of(decide(
            &p,
            m,
            1,
            "GET /x",
            status(401, &h, "Bad credentials"),
            now,
        ));
        assert!(matches!(e, GithubError::Unauthorized { .. }));
        let e = error_of(decide(
            &p,
            m,
            1,
            "GET /x",
            status(403, &h, "Resource not accessible by integration"),
            now,
        ));
        assert!(matches!(e, GithubError::Forbidden { .. }));
        let e = error_of(decide(
            &p,
            m,
            1,
            "GET /x",
            status(422, &h, "No commit"),
            now,
        ));
        assert!(matches!(e, GithubError::Http { status: 422, .. }));
    }

    #[test]
    fn rate_limits_wait_as_told() {
        let p = policy();
        let now = Utc::now();
        let m = RetryMode::Idempotent;
        let h = headers(&[("retry-after", "3")]);
        let w = wait_of(decide(
            &p,
            m,
            1,
            "GET /x",
            status(403, &h, "slow down"),
            now,
        ));
        assert_eq!(w, Duration::from_secs(3));
        let w = wait_of(decide(&p, m, 1, "GET /x", status(429, &h, ""), now));
        assert_eq!(w, Duration::from_secs(3));

        let reset = (now.timestamp() + 5).to_string();
        let h = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", &reset),
        ]);
        let w = wait_of(decide(
            &p,
            m,
            1,
            "GET /x",
            status(403, &h, "API rate limit"),
            now,
        ));
        assert!(
            w > Duration::from_secs(4) && w <= Duration::from_secs(5),
            "{w:?}"
        );

        let h = HeaderMap::new();
        let msg = "You have exceeded a secondary rate limit. Please wait.";
        let w1 = wait_of(decide(&p, m, 1, "GET /x", status(403, &h, msg), now));
        let w2 = wait_of(decide(&p, m, 2, "GET /x", status(403, &h, msg), now));
        assert_eq!((w1, w2), (Duration::from_secs(2), Duration::from_secs(4)));
    }

    #[test]
    fn a_rate_limit_longer_than_max_wait_fails_with_its_end() {
        let p = policy();
        let now = Utc::now();
        let h = headers(&[("retry-after", "3600")]);
        let e = error_of(decide(
            &p,
            RetryMode::Idempotent,
            1,
            "GET /x",
            status(429, &h, ""),
            now,
        ));
        let until = e.retry_at().expect("a rate limit");
        assert_eq!((until - now).num_seconds(), 3600);
        assert!(e.to_string().contains("try again after"), "{e}");
    }

    #[test]
    fn writes_are_not_resent_when_they_may_have_been_applied() {
        let p = policy();
        let now = Utc::now();
        let m = RetryMode::NotIdempotent;
        let h = HeaderMap::new();
        let e = error_of(decide(
            &p,
            m,
            1,
            "POST /x",
            status(502, &h, "bad gateway"),
            now,
        ));
        assert!(matches!(e, GithubError::WriteOutcomeUnknown { .. }), "{e}");
        let e = error_of(decide(
            &p,
            m,
            1,
            "POST /x",
            Failure::Transport("t".into()),
            now,
        ));
        assert!(matches!(e, GithubError::WriteOutcomeUnknown { .. }), "{e}");
        // A rate limit proves nothing was done: waited out and re-sent.
        let h = headers(&[("retry-after", "1")]);
        wait_of(decide(
            &p,
            m,
            1,
            "POST /x",
            status(403, &h, "secondary rate limit"),
            now,
        ));
    }

    #[test]
    fn retry_after_as_a_date() {
        let now = DateTime::parse_from_rfc3339("2015-10-21T07:27:50Z")
            .unwrap()
            .with_timezone(&Utc);
        let h = headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]);
        assert_eq!(retry_after(&h, now), Some(Duration::from_secs(10)));
    }
}
