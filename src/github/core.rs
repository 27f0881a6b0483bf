//! The state the App's clients share, apart from the code that sends requests with it:
//! the App's (its JWT client, settings, rate limit) and each installation's (its token).
//! `transport` sends as either; `app` and `installation` are the public faces.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use octocrab::Octocrab;
use serde::Deserialize;

use super::rate_limit::RateLimitCell;
use super::retry::RetryPolicy;
use crate::model::InstallationId;

/// What every client of one App shares.
pub(crate) struct AppCore {
    /// Authenticates as the App: octocrab signs a fresh RS256 JWT (`iss` = app id, `iat`
    /// 60 s in the past, `exp` 9 minutes ahead) for each request. Installation clients are
    /// derived from it and share its connection pool.
    pub(crate) crab: Octocrab,
    pub(crate) settings: Settings,
    /// The App's own (JWT) rate limit.
    pub(crate) rate: RateLimitCell,
    pub(crate) token_refresh_margin: Duration,
    pub(crate) app_id: u64,
    /// `GET /app`, asked once.
    pub(crate) identity: tokio::sync::OnceCell<AppIdentity>,
}

/// The App as `GET /app` describes it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct AppIdentity {
    pub id: u64,
    /// The App's URL name: its bot user is `<slug>[bot]`.
    pub slug: String,
    pub name: String,
}

impl AppIdentity {
    /// The login of the App's bot user, the author of everything the App writes with an
    /// installation token (comments, reviews).
    pub fn bot_login(&self) -> String {
        format!("{}[bot]", self.slug)
    }
}

pub(crate) struct InstallationCore {
    pub(crate) id: InstallationId,
    pub(crate) app: Arc<AppCore>,
    pub(crate) token: tokio::sync::Mutex<Option<TokenClient>>,
    pub(crate) rate: RateLimitCell,
    /// When this installation's next notifying write may start.
    pub(crate) next_notifying_write: std::sync::Mutex<Option<tokio::time::Instant>>,
}

/// An octocrab client carrying one installation token.
pub(crate) struct TokenClient {
    pub(crate) crab: Octocrab,
    pub(crate) expires_at: DateTime<Utc>,
}

/// Not Debug: it holds the token until it moves into a `SecretString`.
#[derive(Deserialize)]
pub(crate) struct AccessTokenJson {
    pub(crate) token: String,
    pub(crate) expires_at: DateTime<Utc>,
}

impl InstallationCore {
    pub(crate) fn new(id: InstallationId, app: Arc<AppCore>) -> InstallationCore {
        InstallationCore {
            id,
            app,
            token: tokio::sync::Mutex::new(None),
            rate: RateLimitCell::default(),
            next_notifying_write: std::sync::Mutex::new(None),
        }
    }

    /// Waits for this installation's next slot for a notifying write, `spacing` after the
    /// previous one's: GitHub asks integrations to wait at least a second between writes,
    /// and allows no more than 80 content-creating requests a minute. Slots are handed
    /// out in order without holding a lock while waiting.
    pub(crate) async fn pace_notifying_write(&self, spacing: Duration) {
        if spacing.is_zero() {
            return;
        }
        let at = {
            let mut next = self.next_notifying_write.lock().unwrap();
            let now = tokio::time::Instant::now();
            let at = next.map_or(now, |n| n.max(now));
            *next = Some(at + spacing);
            at
        };
        tokio::time::sleep_until(at).await;
    }
}

/// Per-attempt limits shared by every call of one App.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub policy: RetryPolicy,
    pub request_timeout: Duration,
    pub notify_spacing: Duration,
}
