//! The App's JWT, checked as GitHub checks it, and installation tokens.

use jsonwebtoken::{decode, Algorithm, DecodingKey, Validation};
use rand::distr::{Alphanumeric, SampleString};
use serde_json::Value;

const PUBLIC_KEY: &str = include_str!("../../fixtures/github/test-app-key.pub.pem");

/// The claims of a JWT that GitHub would take for `app_id`, or why not: RS256 signed by the
/// App's key, `iss` the app id, `iat` not in the future, `exp` in the future but at most 10
/// minutes ahead.
pub(crate) fn verify_jwt(jwt: &str, app_id: u64) -> Result<Value, String> {
    let key = DecodingKey::from_rsa_pem(PUBLIC_KEY.as_bytes()).unwrap();
    let mut validation = Validation::new(Algorithm::RS256);
    validation.leeway = 0;
    validation.validate_aud = false;
    // `iss` is checked below: octocrab sends it as a number, which jsonwebtoken only
    // recognises as a string.
    validation.set_required_spec_claims(&["exp", "iat"]);
    let claims = decode::<Value>(jwt, &key, &validation)
        .map_err(|e| format!("A JSON web token could not be decoded ({e})"))?
        .claims;
    let iss = match &claims["iss"] {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    };
    if iss != Some(app_id) {
        return Err(format!("'Issuer' claim ('iss') must be {app_id}"));
    }
    let now = chrono::Utc::now().timestamp();
    let iat = claims["iat"].as_i64().ok_or("'iat' must be a number")?;
    let exp = claims["exp"].as_i64().ok_or("'exp' must be a number")?;
    if iat > now + 1 {
        return Err(
            "'Issued at' claim ('iat') must be an Integer representing a time in the past".into(),
        );
    }
    if exp > now + 600 + 1 {
        return Err("'Expiration time' claim ('exp') is too far in the future".into());
    }
    Ok(claims)
}

/// A new installation token, shaped like GitHub's.
pub(crate) fn new_token() -> String {
    format!("ghs_{}", Alphanumeric.sample_string(&mut rand::rng(), 36))
}

/// The credential of an `Authorization: Bearer x` or `token x` header.
pub(crate) fn bearer(header: Option<&str>) -> Option<&str> {
    let header = header?;
    header
        .strip_prefix("Bearer ")
        .or_else(|| header.strip_prefix("token "))
        .map(str::trim)
}
