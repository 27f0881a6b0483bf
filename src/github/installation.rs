//! One installation's client and its access token.
//!
//! We mint installation tokens ourselves rather than use octocrab's `installation()` client:
//! octocrab mints inside its `execute`, out of reach of our retry policy, timeouts and
//! rate-limit readings, renews only 30 s before expiry, and lets concurrent first calls each
//! mint a token. Here the mint is an ordinary call through our transport
//! (`POST /app/installations/{id}/access_tokens` as the App), the token becomes an octocrab
//! client with `user_access_token` (same connection pool; octocrab attaches it to relative
//! routes, which is all we send, so a GHES `/api/v3` base and paging work), and both are
//! cached together until less than `token_refresh_margin` is left. A Tokio mutex makes
//! concurrent callers wait for a single mint.

use std::fmt;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::core::{AppCore, InstallationCore};
use super::error::Result;
use super::rate_limit::RateLimit;
use super::transport::Sender;
use crate::model::InstallationId;

/// A client acting as one installation. Cheap to clone; clones share the token.
#[derive(Clone)]
pub struct Installation {
    pub(crate) core: Arc<InstallationCore>,
}

impl fmt::Debug for Installation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Installation")
            .field("id", &self.core.id)
            .finish_non_exhaustive()
    }
}

impl Installation {
    pub(crate) fn new(id: InstallationId, app: Arc<AppCore>) -> Installation {
        Installation {
            core: Arc::new(InstallationCore::new(id, app)),
        }
    }

    pub fn id(&self) -> InstallationId {
        self.core.id
    }

    /// This installation's primary rate limit as last reported (`None` before the first
    /// answer).
    pub fn rate_limit(&self) -> Option<RateLimit> {
        self.core.rate.get()
    }

    /// When the cached token expires (`None` before the first call).
    pub async fn token_expires_at(&self) -> Option<DateTime<Utc>> {
        self.core.token.lock().await.as_ref().map(|t| t.expires_at)
    }

    /// The login of the App's bot user (`<slug>[bot]`): the author of what this
    /// installation writes. Asked once per process (`GET /app`, as the App).
    pub async fn bot_login(&self) -> Result<String> {
        Ok(self.core.app.identity().await?.bot_login())
    }

    /// The App's id (check runs carry it).
    pub fn app_id(&self) -> u64 {
        self.core.app.app_id()
    }

    pub(crate) fn sender(&self) -> Sender<'_> {
        Sender::Installation(&self.core)
    }
}
