//! The last step of creating an App from its manifest: `POST
//! /app-manifests/{code}/conversions` trades the code GitHub sent back for the new App's
//! credentials. Unauthenticated: the code is the proof, good once and for an hour.

use std::time::Duration;

use octocrab::Octocrab;
use secrecy::SecretString;
use serde::Deserialize;

use super::app_settings::{api_uri, AppPrivateKey};
use super::error::{GithubError, Result};
use super::transport::{describe, encode_path};

/// What GitHub hands back for a new App. The secrets never print.
#[derive(Clone, Debug)]
pub struct NewApp {
    pub id: u64,
    pub slug: String,
    /// The App's page, `https://github.com/apps/SLUG`; its `/installations/new` installs it.
    pub html_url: String,
    pub owner_login: String,
    pub private_key: AppPrivateKey,
    pub webhook_secret: SecretString,
    pub client_id: String,
    pub client_secret: SecretString,
}

#[derive(Deserialize)]
struct ConversionJson {
    id: u64,
    slug: String,
    html_url: String,
    owner: Option<OwnerJson>,
    pem: String,
    webhook_secret: Option<String>,
    #[serde(default)]
    client_id: String,
    #[serde(default)]
    client_secret: String,
}

#[derive(Deserialize)]
struct OwnerJson {
    login: String,
}

/// Trades `code` for the App it stands for. Sent once: a code is used up by its first
/// conversion, so a failure is reported for the person to start again, never retried.
pub async fn convert_manifest(api_url: &str, code: &str) -> Result<NewApp> {
    let crab = Octocrab::builder()
        .base_uri(api_uri(api_url)?)
        .map_err(|e| GithubError::Config(format!("GITHUB_API_URL: {e}")))?
        .add_retry_config(octocrab::service::middleware::retry::RetryConfig::None)
        .set_connect_timeout(Some(Duration::from_secs(10)))
        .set_read_timeout(Some(Duration::from_secs(30)))
        .build()
        .map_err(|e| GithubError::Config(format!("building the GitHub client: {e}")))?;
    let route = format!("/app-manifests/{}/conversions", encode_path(code, false));
    let what = "POST /app-manifests/{code}/conversions".to_string();
    let json: ConversionJson = crab.post(route, None::<&()>).await.map_err(|e| match e {
        octocrab::Error::GitHub { source, .. } if source.status_code.as_u16() == 404 => {
            GithubError::NotFound { what: what.clone() }
        }
        octocrab::Error::GitHub { source, .. } => GithubError::Http {
            what: what.clone(),
            status: source.status_code.as_u16(),
            message: source.message,
        },
        other => GithubError::Transport {
            what: what.clone(),
            message: describe(&other),
        },
    })?;
    let webhook_secret = json
        .webhook_secret
        .filter(|s| !s.is_empty())
        .ok_or_else(|| GithubError::Decode {
            what: what.clone(),
            message: "GitHub created the App without a webhook secret".into(),
        })?;
    Ok(NewApp {
        id: json.id,
        slug: json.slug,
        html_url: json.html_url,
        owner_login: json.owner.map(|o| o.login).unwrap_or_default(),
        private_key: AppPrivateKey::from_pem(json.pem)?,
        webhook_secret: SecretString::from(webhook_secret),
        client_id: json.client_id,
        client_secret: SecretString::from(json.client_secret),
    })
}
