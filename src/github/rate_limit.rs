//! The primary rate limit as GitHub last reported it (`x-ratelimit-*` on every answer), kept
//! per credential so callers and metrics can read it and so we stop before hitting zero.

use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use http::HeaderMap;

/// One reading of the `x-ratelimit-*` headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests per hour for this credential (`x-ratelimit-limit`).
    pub limit: Option<u32>,
    /// Requests left in the window (`x-ratelimit-remaining`).
    pub remaining: u32,
    /// When the window resets (`x-ratelimit-reset`, epoch seconds).
    pub reset: DateTime<Utc>,
    /// Which budget (`core`, `search`, ...), when GitHub says.
    pub resource: Option<String>,
}

impl RateLimit {
    pub(crate) fn from_headers(headers: &HeaderMap) -> Option<RateLimit> {
        let get = |name: &str| headers.get(name)?.to_str().ok().map(str::trim);
        let remaining = get("x-ratelimit-remaining")?.parse().ok()?;
        let reset = get("x-ratelimit-reset")?.parse::<i64>().ok()?;
        Some(RateLimit {
            limit: get("x-ratelimit-limit").and_then(|v| v.parse().ok()),
            remaining,
            reset: Utc.timestamp_opt(reset, 0).single()?,
            resource: get("x-ratelimit-resource").map(str::to_string),
        })
    }
}

/// The last reading for one credential.
#[derive(Debug, Default)]
pub(crate) struct RateLimitCell(Mutex<Option<RateLimit>>);

impl RateLimitCell {
    pub(crate) fn record(&self, headers: &HeaderMap) {
        if let Some(reading) = RateLimit::from_headers(headers) {
            // Other budgets (search, graphql) do not gate our REST calls.
            if reading.resource.as_deref().is_none_or(|r| r == "core") {
                *self.0.lock().unwrap() = Some(reading);
            }
        }
    }

    pub(crate) fn get(&self) -> Option<RateLimit> {
        self.0.lock().unwrap().clone()
    }

    /// If the budget was spent and has not reset yet: how long until it does.
    pub(crate) fn exhausted_for(&self, now: DateTime<Utc>) -> Option<(Duration, DateTime<Utc>)> {
        let reading = self.get()?;
        if reading.remaining > 0 || reading.reset <= now {
            return None;
        }
        Some(((reading.reset - now).to_std().ok()?, reading.reset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(pairs: &[(&'static str, String)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn reads_the_headers() {
        let h = headers(&[
            ("x-ratelimit-limit", "5000".into()),
            ("x-ratelimit-remaining", "4987".into()),
            ("x-ratelimit-reset", "1700000000".into()),
            ("x-ratelimit-resource", "core".into()),
        ]);
        let r = RateLimit::from_headers(&h).unwrap();
        assert_eq!(r.limit, Some(5000));
        assert_eq!(r.remaining, 4987);
        assert_eq!(r.reset.timestamp(), 1_700_000_000);
        assert!(RateLimit::from_headers(&HeaderMap::new()).is_none());
    }

    #[test]
    fn an_exhausted_budget_says_how_long_to_wait() {
        let now = Utc::now();
        let cell = RateLimitCell::default();
        assert!(cell.exhausted_for(now).is_none());
        let reset = (now.timestamp() + 30).to_string();
        cell.record(&headers(&[
            ("x-ratelimit-remaining", "0".into()),
            ("x-ratelimit-reset", reset.clone()),
        ]));
        let (wait, _) = cell.exhausted_for(now).unwrap();
        assert!(wait <= Duration::from_secs(30) && wait > Duration::from_secs(28));
        // A search budget does not overwrite the core one.
        cell.record(&headers(&[
            ("x-ratelimit-remaining", "9".into()),
            ("x-ratelimit-reset", reset),
            ("x-ratelimit-resource", "search".into()),
        ]));
        assert_eq!(cell.get().unwrap().remaining, 0);
    }
}
