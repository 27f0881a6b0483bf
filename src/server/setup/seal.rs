//! Sealing the App's credentials for Postgres: ChaCha20-Poly1305 with a 32-byte key from
//! the environment (`BLAST_CREDENTIALS_KEY`, base64), a fresh random nonce per seal. A
//! database dump alone never gives the App's private key, and a row altered or sealed
//! with another key fails to open instead of being used.

use base64::Engine as _;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};

/// Bound into every seal: a sealed value of another kind or version does not open as this.
const ASSOCIATED: &[u8] = b"blast-radius app credentials v1";

/// The key that seals and opens the stored credentials. Never printed.
#[derive(Clone)]
pub struct CredentialsKey(Key);

impl std::fmt::Debug for CredentialsKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CredentialsKey([redacted])")
    }
}

/// A sealed value: the nonce and the ciphertext (with its tag).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sealed {
    pub nonce: Vec<u8>,
    pub ciphertext: Vec<u8>,
}

impl CredentialsKey {
    /// 32 bytes in base64 (standard or URL-safe, padded or not), as `openssl rand -base64
    /// 32` prints them.
    pub fn parse(text: &str) -> Result<CredentialsKey, String> {
        let text = text.trim();
        let engines = [
            base64::engine::general_purpose::STANDARD,
            base64::engine::general_purpose::STANDARD_NO_PAD,
            base64::engine::general_purpose::URL_SAFE,
            base64::engine::general_purpose::URL_SAFE_NO_PAD,
        ];
        let bytes = engines
            .iter()
            .find_map(|e| e.decode(text).ok())
            .ok_or("is not base64: make one with `openssl rand -base64 32`")?;
        if bytes.len() != 32 {
            return Err(format!(
                "holds {} bytes, not 32: make one with `openssl rand -base64 32`",
                bytes.len()
            ));
        }
        Ok(CredentialsKey(*Key::from_slice(&bytes)))
    }

    pub fn seal(&self, plaintext: &[u8]) -> Sealed {
        let cipher = ChaCha20Poly1305::new(&self.0);
        let nonce = ChaCha20Poly1305::generate_nonce(&mut OsRng);
        let ciphertext = cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: plaintext,
                    aad: ASSOCIATED,
                },
            )
            .expect("sealing in memory cannot fail");
        Sealed {
            nonce: nonce.to_vec(),
            ciphertext,
        }
    }

    pub fn open(&self, sealed: &Sealed) -> Result<Vec<u8>, String> {
        if sealed.nonce.len() != 12 {
            return Err("the stored credentials are damaged (bad nonce)".into());
        }
        ChaCha20Poly1305::new(&self.0)
            .decrypt(
                Nonce::from_slice(&sealed.nonce),
                Payload {
                    msg: &sealed.ciphertext,
                    aad: ASSOCIATED,
                },
            )
            .map_err(|_| {
                "the stored App credentials do not open with BLAST_CREDENTIALS_KEY: it is not \
                 the key they were sealed with (set that one, or delete the row in \
                 app_credentials and run /setup again)"
                    .to_string()
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "q0cYd0pW2T6Qm3n9mM6bWmJg8bH1nJzq8mC3xJ0a1xE=";

    #[test]
    fn a_seal_opens_with_its_key_and_hides_the_text() {
        let key = CredentialsKey::parse(KEY).unwrap();
        let sealed = key.seal(b"-----BEGIN RSA PRIVATE KEY-----");
        assert!(!sealed.ciphertext.windows(5).any(|w| w == b"BEGIN"));
        assert_eq!(
            key.open(&sealed).unwrap(),
            b"-----BEGIN RSA PRIVATE KEY-----"
        );
        // A fresh nonce each time: the same text seals differently.
        assert_ne!(key.seal(b"x"), key.seal(b"x"));
    }

    #[test]
    fn another_key_or_a_changed_byte_does_not_open() {
        let key = CredentialsKey::parse(KEY).unwrap();
        let other = CredentialsKey::parse(&"A".repeat(43)).unwrap();
        let mut sealed = key.seal(b"secret");
        assert!(other
            .open(&sealed)
            .unwrap_err()
            .contains("BLAST_CREDENTIALS_KEY"));
        sealed.ciphertext[0] ^= 1;
        assert!(key.open(&sealed).is_err());
    }

    #[test]
    fn keys_must_be_32_bytes_of_base64() {
        assert!(CredentialsKey::parse("not base64!")
            .unwrap_err()
            .contains("openssl"));
        assert!(CredentialsKey::parse("AAAA")
            .unwrap_err()
            .contains("3 bytes"));
        // URL-safe and unpadded forms are the same key.
        let url = KEY.replace('+', "-").replace('/', "_").replace('=', "");
        let a = CredentialsKey::parse(KEY).unwrap();
        let b = CredentialsKey::parse(&url).unwrap();
        assert_eq!(b.open(&a.seal(b"same")).unwrap(), b"same");
        assert!(!format!("{a:?}").contains(KEY));
    }
}
