//! `X-Hub-Signature-256`: the HMAC-SHA256 of the raw body under the webhook secret, as
//! `sha256=` and lowercase hex. Checked before anything reads the body, with the hmac
//! crate's constant-time comparison, against each configured secret (several during a
//! rotation).

use std::fmt;

use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The header GitHub signs deliveries in.
pub const SIGNATURE_HEADER: &str = "x-hub-signature-256";

#[derive(thiserror::Error, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureError {
    #[error("no X-Hub-Signature-256 header: is the App's webhook secret set?")]
    Missing,
    #[error("X-Hub-Signature-256 is not `sha256=` and 64 hex digits")]
    Malformed,
    #[error("X-Hub-Signature-256 does not match the body under any configured secret")]
    Mismatch,
}

#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
#[error(
    "GITHUB_WEBHOOK_SECRET is empty: set it to the App's webhook secret \
     (several, comma-separated, while rotating)"
)]
pub struct NoSecrets;

/// The webhook secrets a delivery may be signed with. Never printed.
#[derive(Clone)]
pub struct WebhookSecrets(Vec<SecretString>);

impl WebhookSecrets {
    /// The first secret: the one a sender signs with (GitHub holds one at a time).
    pub fn first(&self) -> &str {
        self.0[0].expose_secret()
    }

    /// From the configuration's text: one secret, or several separated by commas (during
    /// a rotation, the old and the new). Blanks around each are ignored, so a secret
    /// cannot hold a comma or start or end with a blank here; [`WebhookSecrets::new`]
    /// takes secrets as they are.
    pub fn parse(text: &SecretString) -> Result<WebhookSecrets, NoSecrets> {
        let secrets: Vec<SecretString> = text
            .expose_secret()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| SecretString::from(s.to_string()))
            .collect();
        if secrets.is_empty() {
            Err(NoSecrets)
        } else {
            Ok(WebhookSecrets(secrets))
        }
    }

    pub fn new(secrets: Vec<SecretString>) -> Result<WebhookSecrets, NoSecrets> {
        if secrets.iter().all(|s| s.expose_secret().is_empty()) {
            Err(NoSecrets)
        } else {
            Ok(WebhookSecrets(secrets))
        }
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Checks a delivery's signature header against its raw body.
    pub fn verify(&self, body: &[u8], header: Option<&[u8]>) -> Result<(), SignatureError> {
        let header = header.ok_or(SignatureError::Missing)?;
        let digest = parse_header(header)?;
        let mut ok = false;
        // Every secret is tried, so the time taken does not say which one matched.
        for secret in &self.0 {
            let mut mac = mac(secret.expose_secret().as_bytes());
            mac.update(body);
            ok |= mac.verify_slice(&digest).is_ok();
        }
        if ok {
            Ok(())
        } else {
            Err(SignatureError::Mismatch)
        }
    }
}

impl fmt::Debug for WebhookSecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WebhookSecrets({} secret(s), redacted)", self.0.len())
    }
}

fn mac(key: &[u8]) -> HmacSha256 {
    HmacSha256::new_from_slice(key).expect("HMAC takes a key of any length")
}

/// Whether `header` has the form of a signature (`sha256=` and 64 hex digits), before
/// there is a body to check it against.
pub fn well_formed(header: &[u8]) -> Result<(), SignatureError> {
    parse_header(header).map(drop)
}

fn parse_header(header: &[u8]) -> Result<[u8; 32], SignatureError> {
    let hex_digits = header
        .strip_prefix(b"sha256=")
        .ok_or(SignatureError::Malformed)?;
    let mut digest = [0u8; 32];
    hex::decode_to_slice(hex_digits, &mut digest).map_err(|_| SignatureError::Malformed)?;
    Ok(digest)
}

/// The `X-Hub-Signature-256` value GitHub sends for `body` under `secret` (for tests,
/// benchmarks and fakes of GitHub).
pub fn sign(secret: &str, body: &[u8]) -> String {
    let mut mac = mac(secret.as_bytes());
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(text: &str) -> WebhookSecrets {
        WebhookSecrets::parse(&SecretString::from(text.to_string())).unwrap()
    }

    // GitHub's documented test vector (Validating webhook deliveries).
    const SECRET: &str = "It's a Secret to Everybody";
    const PAYLOAD: &[u8] = b"Hello, World!";
    const EXPECTED: &str =
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

    #[test]
    fn agrees_with_githubs_test_vector() {
        assert_eq!(sign(SECRET, PAYLOAD), EXPECTED);
        assert_eq!(
            secrets(SECRET).verify(PAYLOAD, Some(EXPECTED.as_bytes())),
            Ok(())
        );
    }

    #[test]
    fn any_configured_secret_verifies_during_a_rotation() {
        let both = secrets(&format!("old-secret , {SECRET}"));
        assert_eq!(both.len(), 2);
        assert_eq!(both.verify(PAYLOAD, Some(EXPECTED.as_bytes())), Ok(()));
        let old = sign("old-secret", PAYLOAD);
        assert_eq!(both.verify(PAYLOAD, Some(old.as_bytes())), Ok(()));
        // Once the old one is dropped, its signatures stop working.
        assert_eq!(
            secrets(SECRET).verify(PAYLOAD, Some(old.as_bytes())),
            Err(SignatureError::Mismatch)
        );
    }

    #[test]
    fn wrong_missing_or_malformed_signatures_fail() {
        let s = secrets(SECRET);
        assert_eq!(s.verify(PAYLOAD, None), Err(SignatureError::Missing));
        assert_eq!(
            s.verify(b"Hello, World?", Some(EXPECTED.as_bytes())),
            Err(SignatureError::Mismatch)
        );
        let wrong_key = sign("It's a secret to everybody", PAYLOAD);
        assert_eq!(
            s.verify(PAYLOAD, Some(wrong_key.as_bytes())),
            Err(SignatureError::Mismatch)
        );
        for bad in [
            "",
            "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
            "sha1=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e1",
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17ff",
            "sha256=z57107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
            "SHA256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
        ] {
            assert_eq!(
                s.verify(PAYLOAD, Some(bad.as_bytes())),
                Err(SignatureError::Malformed),
                "{bad:?}"
            );
        }
        // Hex digits in upper case are the same digest.
        let upper = format!("sha256={}", EXPECTED[7..].to_uppercase());
        assert_eq!(s.verify(PAYLOAD, Some(upper.as_bytes())), Ok(()));
    }

    #[test]
    fn empty_configuration_is_refused_and_secrets_never_print() {
        assert_eq!(
            WebhookSecrets::parse(&SecretString::from(" , ".to_string())).unwrap_err(),
            NoSecrets
        );
        let s = secrets("hunter2,correct-horse");
        let shown = format!("{s:?}");
        assert!(
            !shown.contains("hunter2") && !shown.contains("correct-horse"),
            "{shown}"
        );
    }

    /// The comparison is the hmac crate's constant-time `verify_slice` (through
    /// `subtle`), never `==` on digests: this test pins that the API used takes the
    /// expected digest's bytes and rejects a digest of the wrong length.
    #[test]
    fn comparison_is_constant_time_verify_slice() {
        let mut mac = mac(SECRET.as_bytes());
        mac.update(PAYLOAD);
        assert!(mac.clone().verify_slice(&[0u8; 31]).is_err());
        let digest = hex::decode(&EXPECTED[7..]).unwrap();
        assert!(mac.verify_slice(&digest).is_ok());
        let src = include_str!("signature.rs");
        let code = src.split("#[cfg(test)]").next().unwrap();
        assert!(code.contains(".verify_slice(&digest)"));
        assert!(!code.contains("== digest") && !code.contains("digest =="));
    }
}
