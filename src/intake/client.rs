//! Who sent a request: the client's address, by which unverified bodies ([`super::budget`])
//! and wrong status tokens are counted.
//!
//! It is the TCP peer's address, unless the operator says a proxy in front of the server
//! names the client in a header (`BLAST_CLIENT_IP_HEADER`, e.g. `Fly-Client-IP` on Fly.io,
//! or `X-Forwarded-For`). The header is read only then: anyone can send it, so trusting it
//! without a proxy that sets it would let every caller pick its own address.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName};

/// Where the client's address is read from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ClientAddrSource {
    /// The TCP peer: the client itself, or, behind a proxy, the proxy (all clients then
    /// share one address).
    #[default]
    Peer,
    /// A header the proxy in front sets. `X-Forwarded-For` is read from its last entry,
    /// the one the proxy appended (those before it are the client's own text).
    Header(HeaderName),
}

impl ClientAddrSource {
    /// From `BLAST_CLIENT_IP_HEADER`: empty for the peer, else a header's name.
    pub fn parse(text: &str) -> Result<ClientAddrSource, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(ClientAddrSource::Peer);
        }
        HeaderName::try_from(text)
            .map(ClientAddrSource::Header)
            .map_err(|_| format!("BLAST_CLIENT_IP_HEADER must be a header's name, like Fly-Client-IP or X-Forwarded-For, not '{text}'"))
    }

    /// The client's address: the header's when one is configured and holds an address,
    /// else the peer's.
    pub fn resolve(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> Option<IpAddr> {
        let ClientAddrSource::Header(name) = self else {
            return peer;
        };
        // The last value: a proxy appends its own, after whatever the client sent.
        let last = headers.get_all(name).iter().next_back();
        last.and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .and_then(|v| v.trim().parse::<IpAddr>().ok())
            .or(peer)
    }
}

/// The client's address as the server resolved it (a request extension set where the
/// connection is accepted); without one, the TCP peer's; `None` when neither is known
/// (a request handed to a router in-process).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddr(pub Option<IpAddr>);

impl ClientAddr {
    pub fn of(parts: &Parts) -> ClientAddr {
        if let Some(addr) = parts.extensions.get::<ClientAddr>() {
            return *addr;
        }
        ClientAddr(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| c.0.ip()),
        )
    }

    /// The key a client is counted under: an IPv6 client is its /64 (one host holds a
    /// whole /64 and could count each of its addresses apart).
    pub fn key(self) -> Option<IpAddr> {
        self.0.map(|ip| match ip {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
            },
            v4 => v4,
        })
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(ClientAddr::of(parts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(HeaderName::try_from(*k).unwrap(), v.parse().unwrap());
        }
        h
    }

    #[test]
    fn the_header_counts_only_when_configured() {
        let peer: Option<IpAddr> = Some("10.0.0.1".parse().unwrap());
        let spoofed = headers(&[("fly-client-ip", "203.0.113.9")]);
        assert_eq!(ClientAddrSource::Peer.resolve(&spoofed, peer), peer);
        let fly = ClientAddrSource::parse("Fly-Client-IP").unwrap();
        assert_eq!(
            fly.resolve(&spoofed, peer),
            Some("203.0.113.9".parse().unwrap())
        );
        // Missing or not an address: the peer.
        assert_eq!(fly.resolve(&HeaderMap::new(), peer), peer);
        let junk = headers(&[("fly-client-ip", "<script>")]);
        assert_eq!(fly.resolve(&junk, peer), peer);
        assert_eq!(
            ClientAddrSource::parse(" ").unwrap(),
            ClientAddrSource::Peer
        );
        assert!(ClientAddrSource::parse("not a header").is_err());
    }

    #[test]
    fn forwarded_for_is_read_from_the_entry_the_proxy_appended() {
        let xff = ClientAddrSource::parse("X-Forwarded-For").unwrap();
        // The client wrote the first entry; the proxy appended the last.
        let h = headers(&[("x-forwarded-for", "1.2.3.4, 198.51.100.7")]);
        assert_eq!(xff.resolve(&h, None), Some("198.51.100.7".parse().unwrap()));
        let h = headers(&[
            ("x-forwarded-for", "1.2.3.4"),
            ("x-forwarded-for", "2001:db8::1"),
        ]);
        assert_eq!(xff.resolve(&h, None), Some("2001:db8::1".parse().unwrap()));
    }

    #[test]
    fn an_ipv6_client_is_its_64() {
        let a = ClientAddr(Some("2001:db8::1".parse().unwrap()));
        let b = ClientAddr(Some("2001:db8::ffff:1".parse().unwrap()));
        assert_eq!(a.key(), b.key());
        let mapped = ClientAddr(Some("::ffff:192.0.2.1".parse().unwrap()));
        assert_eq!(mapped.key(), Some("192.0.2.1".parse().unwrap()));
        assert_ne!(
            ClientAddr(Some("2001:db8:0:1::1".parse().unwrap())).key(),
            a.key()
        );
    }
}
