//! The App `/setup` created, as stored (who it is in the clear, its secrets sealed), and
//! back again.

use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::seal::{CredentialsKey, Sealed};
use crate::github::{AppPrivateKey, NewApp};
use crate::intake::signature::WebhookSecrets;
use crate::store::StoredApp;

/// What is sealed: everything that acts as the App.
#[derive(Serialize, Deserialize)]
struct Secrets {
    pem: String,
    webhook_secret: String,
    client_id: String,
    client_secret: String,
}

/// The stored App, opened: what running as it takes.
pub struct OpenedApp {
    pub app_id: u64,
    pub slug: String,
    pub private_key: AppPrivateKey,
    pub secrets: WebhookSecrets,
}

pub fn seal_app(key: &CredentialsKey, app: &NewApp) -> StoredApp {
    let secrets = Secrets {
        pem: app.private_key.pem().expose_secret().to_string(),
        webhook_secret: app.webhook_secret.expose_secret().to_string(),
        client_id: app.client_id.clone(),
        client_secret: app.client_secret.expose_secret().to_string(),
    };
    let plain = serde_json::to_vec(&secrets).expect("plain strings serialize");
    let sealed = key.seal(&plain);
    StoredApp {
        app_id: app.id as i64,
        slug: app.slug.clone(),
        html_url: app.html_url.clone(),
        owner_login: app.owner_login.clone(),
        nonce: sealed.nonce,
        sealed: sealed.ciphertext,
    }
}

pub fn open_app(key: &CredentialsKey, stored: &StoredApp) -> Result<OpenedApp, String> {
    let plain = key.open(&Sealed {
        nonce: stored.nonce.clone(),
        ciphertext: stored.sealed.clone(),
    })?;
    let secrets: Secrets = serde_json::from_slice(&plain)
        .map_err(|e| format!("the stored App credentials are damaged ({e})"))?;
    let private_key = AppPrivateKey::from_pem(secrets.pem)
        .map_err(|e| format!("the stored App private key: {e}"))?;
    let secrets = WebhookSecrets::parse(&SecretString::from(secrets.webhook_secret))
        .map_err(|_| "the stored App has no webhook secret".to_string())?;
    Ok(OpenedApp {
        app_id: u64::try_from(stored.app_id).map_err(|_| "the stored App id is negative")?,
        slug: stored.slug.clone(),
        private_key,
        secrets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PEM: &str = include_str!("../../../fixtures/github/test-app-key.pkcs1.pem");

    #[test]
    fn a_sealed_app_opens_to_the_same_credentials_and_shows_no_secret() {
        let key = CredentialsKey::parse(&format!("{}A", "B".repeat(42))).unwrap();
        let app = NewApp {
            id: 42,
            slug: "blast-radius-acme".into(),
            html_url: "https://github.com/apps/blast-radius-acme".into(),
            owner_login: "acme".into(),
            private_key: AppPrivateKey::from_pem(PEM).unwrap(),
            webhook_secret: SecretString::from("whsec-123"),
            client_id: "Iv1.abc".into(),
            client_secret: SecretString::from("cs-456"),
        };
        let stored = seal_app(&key, &app);
        assert_eq!(
            (stored.app_id, stored.slug.as_str()),
            (42, "blast-radius-acme")
        );
        let text = String::from_utf8_lossy(&stored.sealed);
        for secret in ["whsec-123", "cs-456", "PRIVATE KEY"] {
            assert!(!text.contains(secret), "{secret} sealed in the clear");
        }
        let opened = open_app(&key, &stored).unwrap();
        assert_eq!(opened.app_id, 42);
        assert_eq!(opened.secrets.first(), "whsec-123");
        assert_eq!(opened.private_key.pem().expose_secret().trim(), PEM.trim());
        let other = CredentialsKey::parse(&format!("{}A", "C".repeat(42))).unwrap();
        assert!(open_app(&other, &stored).is_err());
    }
}
