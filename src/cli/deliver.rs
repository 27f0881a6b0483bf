//! `deliver`: a payload signed and posted with GitHub's headers, to replay a delivery
//! against a server (a local one, or a deployed one behind a webhook proxy).

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context};
use secrecy::{ExposeSecret, SecretString};

use crate::intake::signature::{sign, WebhookSecrets};

pub fn deliver(
    event: &str,
    payload: &Path,
    url: &str,
    secret: &SecretString,
    delivery: Option<String>,
) -> anyhow::Result<()> {
    let body = std::fs::read(payload)
        .with_context(|| format!("reading the payload {}", payload.display()))?;
    serde_json::from_slice::<serde_json::Value>(&body)
        .with_context(|| format!("{} is not JSON", payload.display()))?;
    let secrets = WebhookSecrets::parse(secret)
        .map_err(|_| anyhow::anyhow!("GITHUB_WEBHOOK_SECRET holds no secret"))?;
    let delivery = delivery.unwrap_or_else(new_delivery_id);
    let signature = sign(secrets.first(), &body);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (status, answer) = runtime.block_on(async {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()?;
        let response = client
            .post(url)
            .header("Content-Type", "application/json")
            .header("User-Agent", "GitHub-Hookshot/blast-radius-deliver")
            .header("X-GitHub-Event", event)
            .header("X-GitHub-Delivery", &delivery)
            .header("X-Hub-Signature-256", signature)
            .body(body)
            .send()
            .await
            .with_context(|| format!("posting to {url}"))?;
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        anyhow::Ok((status, text))
    })?;
    println!("{event} delivery {delivery}: {status}");
    if !answer.trim().is_empty() {
        println!("{}", answer.trim());
    }
    if !status.is_success() {
        bail!("the server answered {status}");
    }
    Ok(())
}

/// The webhook secret of the App `/setup` created: read from the database and opened
/// with the key it was sealed with.
pub fn stored_secret(
    database_url: Option<SecretString>,
    key: Option<SecretString>,
) -> anyhow::Result<SecretString> {
    let (Some(url), Some(key)) = (database_url, key) else {
        bail!(
            "no webhook secret: set GITHUB_WEBHOOK_SECRET, or DATABASE_URL and \
             BLAST_CREDENTIALS_KEY to use the one of the App /setup created"
        );
    };
    let key = crate::server::setup::seal::CredentialsKey::parse(key.expose_secret())
        .map_err(|e| anyhow::anyhow!("BLAST_CREDENTIALS_KEY {e}"))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let store = crate::store::Store::connect(url.expose_secret()).await?;
        let Some(stored) = store.stored_app().await? else {
            bail!("no webhook secret: GITHUB_WEBHOOK_SECRET is not set and no App was created at /setup");
        };
        let opened = crate::server::setup::stored::open_app(&key, &stored)
            .map_err(anyhow::Error::msg)?;
        Ok(SecretString::from(opened.secrets.first().to_string()))
    })
}

/// A delivery id in GitHub's form (a random UUID, version 4).
fn new_delivery_id() -> String {
    let b: [u8; 16] = rand::random();
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
        u16::from_be_bytes([b[4], b[5]]),
        u16::from_be_bytes([b[6], b[7]]) & 0x0fff,
        (u16::from_be_bytes([b[8], b[9]]) & 0x3fff) | 0x8000,
        u64::from_be_bytes([0, 0, b[10], b[11], b[12], b[13], b[14], b[15]]),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn delivery_ids_look_like_github_s() {
        let id = super::new_delivery_id();
        let parts: Vec<&str> = id.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'));
        assert_ne!(id, super::new_delivery_id());
    }
}
