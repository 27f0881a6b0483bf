//! The App's identity and how to reach GitHub: read once at start, checked at once.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use jsonwebtoken::EncodingKey;
use secrecy::{ExposeSecret, SecretString};

use super::error::{GithubError, Result};
use super::retry::RetryPolicy;

/// github.com's REST API. A GitHub Enterprise Server is `https://HOST/api/v3`.
pub const DEFAULT_API_URL: &str = "https://api.github.com";

/// The App's RSA private key, PEM text (PKCS#1 `BEGIN RSA PRIVATE KEY`, as GitHub hands it
/// out, or PKCS#8 `BEGIN PRIVATE KEY`). Never printed.
#[derive(Clone)]
pub struct AppPrivateKey {
    pem: SecretString,
}

impl AppPrivateKey {
    /// Checks the key at once (parses it and signs a test JWT), so a bad key is one clear
    /// line at start rather than a failure at the first webhook. A PEM pasted into an
    /// environment variable with literal `\n`s is accepted too.
    pub fn from_pem(pem: impl Into<String>) -> Result<AppPrivateKey> {
        let mut pem: String = pem.into();
        if !pem.contains('\n') && pem.contains("\\n") {
            pem = pem.replace("\\n", "\n");
        }
        let pem = pem.trim().to_string() + "\n";
        let key = AppPrivateKey {
            pem: SecretString::from(pem),
        };
        let encoding = key.encoding_key()?;
        octocrab::auth::create_jwt(octocrab::models::AppId(1), &encoding).map_err(|e| {
            GithubError::Config(format!(
                "the private key parses but cannot sign a JWT ({e}); use the RSA key GitHub \
                 generated for the App"
            ))
        })?;
        Ok(key)
    }

    /// Reads the PEM from a file (`GITHUB_PRIVATE_KEY_PATH`).
    pub fn from_file(path: &Path) -> Result<AppPrivateKey> {
        let pem = std::fs::read_to_string(path).map_err(|e| {
            GithubError::Config(format!(
                "cannot read the private key file {}: {e}",
                path.display()
            ))
        })?;
        AppPrivateKey::from_pem(pem)
    }

    /// The PEM text, to be sealed and stored (`/setup`).
    pub fn pem(&self) -> &SecretString {
        &self.pem
    }

    /// jsonwebtoken reads both PKCS#1 and PKCS#8 RSA PEMs (for PKCS#8 it takes the PKCS#1
    /// key inside), so no conversion is needed.
    pub(crate) fn encoding_key(&self) -> Result<EncodingKey> {
        EncodingKey::from_rsa_pem(self.pem.expose_secret().as_bytes()).map_err(|e| {
            GithubError::Config(format!(
                "the private key is not an RSA key in PEM form ({e}); give the .pem file \
                 GitHub generated for the App (PKCS#1 or PKCS#8)"
            ))
        })
    }
}

impl fmt::Debug for AppPrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AppPrivateKey([redacted])")
    }
}

/// Everything needed to act as the App.
#[derive(Clone, Debug)]
pub struct GithubConfig {
    /// The App's id: the JWT's `iss`.
    pub app_id: u64,
    pub private_key: AppPrivateKey,
    /// REST API root: [`DEFAULT_API_URL`], or `https://HOST/api/v3` for GHES.
    pub api_url: String,
    /// Time to open a connection.
    pub connect_timeout: Duration,
    /// Time for one attempt: until the whole body for JSON calls, until the headers for
    /// downloads, whose body then may not stall longer than this between two chunks.
    pub request_timeout: Duration,
    /// An installation token is renewed when it has less than this left (they last an
    /// hour).
    pub token_refresh_margin: Duration,
    pub retry: RetryPolicy,
    /// The least time between two writes of one installation that notify people
    /// (comments, reviews): GitHub's best practices ask for a second.
    pub notify_spacing: Duration,
}

impl GithubConfig {
    pub fn new(app_id: u64, private_key: AppPrivateKey) -> GithubConfig {
        GithubConfig {
            app_id,
            private_key,
            api_url: DEFAULT_API_URL.to_string(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            token_refresh_margin: Duration::from_secs(5 * 60),
            retry: RetryPolicy::default(),
            notify_spacing: Duration::from_secs(1),
        }
    }

    pub fn with_api_url(mut self, api_url: impl Into<String>) -> GithubConfig {
        self.api_url = api_url.into();
        self
    }

    /// The API root as a URI without a trailing slash; its path (`/api/v3`) is kept as a
    /// prefix of every route.
    pub(crate) fn api_uri(&self) -> Result<http::Uri> {
        api_uri(&self.api_url)
    }
}

/// `api_url` checked, as a URI without a trailing slash.
pub(crate) fn api_uri(api_url: &str) -> Result<http::Uri> {
    let trimmed = api_url.trim().trim_end_matches('/');
    let uri: http::Uri = trimmed.parse().map_err(|e| {
        GithubError::Config(format!(
            "GITHUB_API_URL {trimmed:?} is not a URL ({e}); use {DEFAULT_API_URL} or \
             https://HOST/api/v3"
        ))
    })?;
    match (uri.scheme_str(), uri.authority()) {
        (Some("https" | "http"), Some(_)) if uri.query().is_none() => Ok(uri),
        _ => Err(GithubError::Config(format!(
            "GITHUB_API_URL {trimmed:?} must be an http(s) URL without a query, such as \
             {DEFAULT_API_URL} or https://HOST/api/v3"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PKCS1: &str = include_str!("../../fixtures/github/test-app-key.pkcs1.pem");
    const PKCS8: &str = include_str!("../../fixtures/github/test-app-key.pkcs8.pem");

    #[test]
    fn both_pem_forms_are_accepted() {
        assert!(PKCS1.starts_with("-----BEGIN RSA PRIVATE KEY-----"));
        assert!(PKCS8.starts_with("-----BEGIN PRIVATE KEY-----"));
        AppPrivateKey::from_pem(PKCS1).unwrap();
        AppPrivateKey::from_pem(PKCS8).unwrap();
    }

    #[test]
    fn escaped_newlines_from_an_env_var_are_accepted() {
        AppPrivateKey::from_pem(PKCS1.trim().replace('\n', "\\n")).unwrap();
    }

    #[test]
    fn a_bad_key_is_a_config_error_that_says_what_to_give() {
        let err = AppPrivateKey::from_pem("not a key").unwrap_err();
        assert!(matches!(err, GithubError::Config(_)));
        assert!(err.to_string().contains("PEM"), "{err}");
    }

    #[test]
    fn the_key_never_prints() {
        let config = GithubConfig::new(7, AppPrivateKey::from_pem(PKCS1).unwrap());
        let shown = format!("{config:?}");
        assert!(shown.contains("[redacted]"), "{shown}");
        let body_line = PKCS1.lines().nth(1).unwrap();
        assert!(!shown.contains(body_line));
        assert!(!shown.contains("BEGIN"));
    }

    #[test]
    fn api_urls() {
        let key = AppPrivateKey::from_pem(PKCS1).unwrap();
        let config = GithubConfig::new(7, key);
        assert_eq!(config.api_uri().unwrap(), "https://api.github.com/");
        let ghes = config
            .clone()
            .with_api_url("https://ghe.example.com/api/v3/");
        assert_eq!(ghes.api_uri().unwrap().path(), "/api/v3");
        for bad in ["", "api.github.com", "ftp://x/y", "https://x/api?q=1"] {
            let err = config.clone().with_api_url(bad).api_uri().unwrap_err();
            assert!(err.to_string().contains("GITHUB_API_URL"), "{bad}: {err}");
        }
    }
}
