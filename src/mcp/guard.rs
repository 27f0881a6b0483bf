//! Who may call the MCP server over HTTP. With a token (`--token`, BLAST_MCP_TOKEN) every
//! request must carry it as `Authorization: Bearer TOKEN` (401 without it); without one,
//! only a loopback address may be bound, where nothing else on the network reaches it.
//! Either way a browser page from another site may not call it: its `Origin` must be a
//! loopback one or one of `--allowed-host` (the MCP specification's guard against DNS
//! rebinding), as its `Host` must.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;

/// Refuses a non-loopback address without a token: anyone who reaches it could read the
/// repository's code through the graph.
pub fn check_exposure(addr: SocketAddr, token: Option<&SecretString>) -> anyhow::Result<()> {
    if addr.ip().is_loopback() || token.is_some() {
        return Ok(());
    }
    anyhow::bail!(
        "refusing to serve MCP on {addr} without a token: anyone who reaches that address \
         could read the repository through it. Set --token (or BLAST_MCP_TOKEN) and have \
         clients send `Authorization: Bearer TOKEN`, or bind a loopback address such as \
         127.0.0.1:8808"
    )
}

/// The browser origins allowed: loopback's and each allowed host's, over http or https
/// (any port, unless the host names one).
pub fn allowed_origins(allowed_hosts: &[String]) -> Vec<String> {
    let hosts = ["localhost", "127.0.0.1", "[::1]"]
        .into_iter()
        .map(String::from)
        .chain(allowed_hosts.iter().map(|h| bracketed(h.trim())));
    hosts
        .flat_map(|host| {
            let port = if has_port(&host) { "" } else { ":*" };
            ["http", "https"].map(|scheme| format!("{scheme}://{host}{port}"))
        })
        .collect()
}

/// An IPv6 address as URLs write it.
fn bracketed(host: &str) -> String {
    if host.matches(':').count() > 1 && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}

fn has_port(host: &str) -> bool {
    match host.rsplit_once(']') {
        Some((_, rest)) => rest.starts_with(':'),
        None => host.contains(':'),
    }
}

type HmacSha256 = Hmac<Sha256>;
const KEY: &[u8] = b"blast-radius mcp token";

/// `router` behind the token, when there is one.
pub fn require_token(router: Router, token: Option<SecretString>) -> Router {
    let Some(token) = token else {
        return router;
    };
    let expected: Arc<[u8]> = mac(token.expose_secret())
        .finalize()
        .into_bytes()
        .to_vec()
        .into();
    router.layer(axum::middleware::from_fn(
        move |request: Request, next: Next| {
            let expected = Arc::clone(&expected);
            async move {
                let given = request
                    .headers()
                    .get(header::AUTHORIZATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.strip_prefix("Bearer "))
                    .unwrap_or("");
                // Constant-time: `verify_slice` compares MACs, whatever the lengths.
                if mac(given.trim()).verify_slice(&expected).is_err() {
                    return unauthorized();
                }
                next.run(request).await
            }
        },
    ))
}

fn mac(text: &str) -> HmacSha256 {
    let mut m = HmacSha256::new_from_slice(KEY).expect("any key");
    m.update(text.as_bytes());
    m
}

fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        "send the server's token (BLAST_MCP_TOKEN) as `Authorization: Bearer TOKEN`\n",
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_loopback_and_the_allowed_hosts() {
        let origins = allowed_origins(&[
            "mcp.example.com".into(),
            "10.0.0.5:8808".into(),
            "fd00::1".into(),
        ]);
        for o in [
            "http://localhost:*",
            "https://127.0.0.1:*",
            "http://[::1]:*",
            "https://mcp.example.com:*",
            "http://10.0.0.5:8808",
            "http://[fd00::1]:*",
        ] {
            assert!(origins.iter().any(|x| x == o), "{o}: {origins:?}");
        }
    }

    #[test]
    fn only_loopback_goes_without_a_token() {
        let token = SecretString::from("t".to_string());
        assert!(check_exposure("127.0.0.1:1".parse().unwrap(), None).is_ok());
        assert!(check_exposure("[::1]:1".parse().unwrap(), None).is_ok());
        assert!(check_exposure("0.0.0.0:1".parse().unwrap(), None).is_err());
        assert!(check_exposure("0.0.0.0:1".parse().unwrap(), Some(&token)).is_ok());
    }
}
