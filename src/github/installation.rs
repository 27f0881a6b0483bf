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
use octocrab::Octocrab;
use secrecy::SecretString;
use serde::Deserialize;

use super::app::AppCore;
use super::error::{GithubError, Result};
use super::rate_limit::{RateLimit, RateLimitCell};
use super::retry::RetryMode;
use super::transport::{Call, Sender};
use crate::model::InstallationId;

/// A client acting as one installation. Cheap to clone; clones share the token.
#[derive(Clone)]
pub struct Installation {
    pub(crate) core: Arc<InstallationCore>,
}

pub(crate) struct InstallationCore {
    id: InstallationId,
    app: Arc<AppCore>,
    token: tokio::sync::Mutex<Option<TokenClient>>,
    rate: RateLimitCell,
}

/// An octocrab client carrying one installation token.
struct TokenClient {
    crab: Octocrab,
    expires_at: DateTime<Utc>,
}

/// Not Debug: it holds the token until it moves into a `SecretString`.
#[derive(Deserialize)]
struct AccessTokenJson {
    token: String,
    expires_at: DateTime<Utc>,
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
            core: Arc::new(InstallationCore {
                id,
                app,
                token: tokio::sync::Mutex::new(None),
                rate: RateLimitCell::default(),
            }),
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

impl InstallationCore {
    pub(crate) fn app(&self) -> &AppCore {
        &self.app
    }

    pub(crate) fn rate(&self) -> &RateLimitCell {
        &self.rate
    }

    /// A client with a token good for at least `token_refresh_margin` more.
    pub(crate) async fn client(&self) -> Result<Octocrab> {
        let mut slot = self.token.lock().await;
        let margin = chrono::Duration::from_std(self.app.token_refresh_margin)
            .unwrap_or_else(|_| chrono::Duration::minutes(5));
        if let Some(cached) = slot.as_ref() {
            if cached.expires_at - Utc::now() > margin {
                return Ok(cached.crab.clone());
            }
        }
        let fresh = self.mint().await?;
        let crab = fresh.crab.clone();
        *slot = Some(fresh);
        Ok(crab)
    }

    /// Drops the cached token (GitHub refused it).
    pub(crate) async fn forget_token(&self) {
        *self.token.lock().await = None;
    }

    async fn mint(&self) -> Result<TokenClient> {
        let route = format!("/app/installations/{}/access_tokens", self.id.0);
        // Minting twice does no harm: safe to retry.
        let call = Call::post(route, serde_json::json!({}), RetryMode::Idempotent);
        // Boxed: sending as the App is the same async fn that called us.
        let answer = Box::pin(Sender::App(&self.app).send_buffered(&call)).await?;
        let token: AccessTokenJson = answer.json(&call.what())?;
        let crab = self
            .app
            .crab
            .user_access_token(SecretString::from(token.token))
            .map_err(|e| GithubError::Config(format!("building the installation client: {e}")))?;
        tracing::debug!(installation = self.id.0, expires_at = %token.expires_at, "minted an installation token");
        Ok(TokenClient {
            crab,
            expires_at: token.expires_at,
        })
    }
}
