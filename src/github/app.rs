//! The App: one octocrab client signed with the App's JWT, and one [`Installation`] handle
//! per installation, kept so each installation's token is reused.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use octocrab::service::middleware::retry::RetryConfig;
use octocrab::Octocrab;
use serde::Deserialize;

use super::app_settings::GithubConfig;
use super::core::{AppCore, AppIdentity, Settings};
use super::error::{GithubError, Result};
use super::installation::Installation;
use super::rate_limit::{RateLimit, RateLimitCell};
use super::transport::Sender;
use crate::model::InstallationId;

/// The GitHub App. Cheap to clone; build one per process.
#[derive(Clone)]
pub struct GithubApp {
    core: Arc<AppCore>,
    installations: Arc<Mutex<HashMap<InstallationId, Installation>>>,
}

impl fmt::Debug for GithubApp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GithubApp")
            .field("app_id", &self.core.app_id)
            .finish_non_exhaustive()
    }
}

/// An installation of the App, as `GET /app/installations/{id}` describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallationInfo {
    pub id: InstallationId,
    /// The user or organization the App is installed on.
    pub account_login: String,
    /// `User` or `Organization`.
    pub account_type: String,
    /// Suspended installations get no work until unsuspended.
    pub suspended: bool,
}

#[derive(Deserialize)]
struct InstallationJson {
    id: i64,
    account: Option<AccountJson>,
    suspended_at: Option<String>,
}

#[derive(Deserialize)]
struct AccountJson {
    login: String,
    #[serde(rename = "type", default)]
    kind: String,
}

impl From<InstallationJson> for InstallationInfo {
    fn from(j: InstallationJson) -> InstallationInfo {
        let (account_login, account_type) = match j.account {
            Some(a) => (a.login, a.kind),
            None => (String::new(), String::new()),
        };
        InstallationInfo {
            id: InstallationId(j.id),
            account_login,
            account_type,
            suspended: j.suspended_at.is_some(),
        }
    }
}

impl AppCore {
    pub(crate) fn app_id(&self) -> u64 {
        self.app_id
    }

    pub(crate) async fn identity(&self) -> Result<AppIdentity> {
        self.identity
            .get_or_try_init(|| async { Sender::App(self).get_json("/app").await })
            .await
            .cloned()
    }
}

impl GithubApp {
    /// Builds the App's client. Call it inside a Tokio runtime (octocrab spawns its
    /// connection worker there).
    ///
    /// octocrab's own retry is turned off (it re-sends at once, writes included: ours is in
    /// [`RetryPolicy`](super::RetryPolicy)), and its timeouts, which default to none, are set.
    pub fn new(config: &GithubConfig) -> Result<GithubApp> {
        let api_uri = config.api_uri()?;
        let key = config.private_key.encoding_key()?;
        let crab = Octocrab::builder()
            .base_uri(api_uri)
            .map_err(|e| GithubError::Config(format!("GITHUB_API_URL: {e}")))?
            .app(octocrab::models::AppId(config.app_id), key)
            .add_retry_config(RetryConfig::None)
            .set_connect_timeout(Some(config.connect_timeout))
            .set_read_timeout(Some(config.request_timeout))
            .set_write_timeout(Some(config.request_timeout))
            .build()
            .map_err(|e| GithubError::Config(format!("building the GitHub client: {e}")))?;
        Ok(GithubApp {
            core: Arc::new(AppCore {
                crab,
                settings: Settings {
                    policy: config.retry.clone(),
                    request_timeout: config.request_timeout,
                    notify_spacing: config.notify_spacing,
                },
                rate: RateLimitCell::default(),
                token_refresh_margin: config.token_refresh_margin,
                app_id: config.app_id,
                identity: tokio::sync::OnceCell::new(),
            }),
            installations: Arc::default(),
        })
    }

    #[cfg(test)]
    pub(crate) fn core(&self) -> &AppCore {
        &self.core
    }

    pub(super) fn core_ref(&self) -> &AppCore {
        &self.core
    }

    pub fn app_id(&self) -> u64 {
        self.core.app_id
    }

    /// The client of one installation: the same handle (and so the same cached token) for
    /// the same id, as long as the App lives. No request is made until a call needs one.
    pub fn installation(&self, id: InstallationId) -> Installation {
        let mut map = self.installations.lock().unwrap();
        map.entry(id)
            .or_insert_with(|| Installation::new(id, self.core.clone()))
            .clone()
    }

    /// The rate limit an installation's client last saw, if this process holds one for
    /// it (never makes one).
    pub fn installation_rate_limit(&self, id: InstallationId) -> Option<RateLimit> {
        let map = self.installations.lock().unwrap();
        map.get(&id)?.rate_limit()
    }

    /// Drops an installation's client and token (the installation was deleted).
    pub fn forget_installation(&self, id: InstallationId) {
        self.installations.lock().unwrap().remove(&id);
    }

    /// `GET /app/installations/{id}`: whom the installation belongs to, and whether it is
    /// suspended. `NotFound` once it was uninstalled.
    pub async fn get_installation(&self, id: InstallationId) -> Result<InstallationInfo> {
        let json: InstallationJson = Sender::App(&self.core)
            .get_json(format!("/app/installations/{}", id.0))
            .await?;
        Ok(json.into())
    }

    /// `GET /app/installations`, every page: all installations of the App.
    pub async fn list_installations(&self) -> Result<Vec<InstallationInfo>> {
        Sender::App(&self.core)
            .get_all_pages("/app/installations", |page: Vec<InstallationJson>| {
                page.into_iter().map(InstallationInfo::from).collect()
            })
            .await
    }

    /// `GET /app` (as the App), asked once per process: its slug names its bot user.
    pub async fn identity(&self) -> Result<AppIdentity> {
        self.core.identity().await
    }

    /// The App's (JWT) primary rate limit as last reported.
    pub fn rate_limit(&self) -> Option<RateLimit> {
        self.core.rate.get()
    }
}
