//! Who may see the operators' pages (`/`, `/setup`, `/metrics`): the holder of the status
//! token (`BLAST_STATUS_TOKEN`), sent as `Authorization: Bearer TOKEN`, or signed in once
//! through the page's form, which leaves a session cookie.
//!
//! The cookie never holds the token: it holds an expiry and an HMAC of it under a key
//! derived from the token. The server keeps no session table, a copied cookie lapses
//! within [`SESSION`], and a new token ends every session at once.
//!
//! Wrong tokens (the form's or a Bearer header's) are counted per client address
//! ([`Peer`]): past [`GUESSES`] in [`WINDOW`], each further wrong token from that address
//! is answered 429, after [`SLOWDOWN`]. The right token always opens the pages, at once:
//! behind a proxy every client may share one address, and an attacker's guesses must not
//! lock the operators out. What keeps guessing hopeless is the token's length (at least
//! [`MIN_TOKEN_CHARS`], checked at start); the slowdown makes each guess past the
//! allowance cost the guesser a connection held for seconds.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;

use crate::intake::client::ClientAddr;

pub const COOKIE: &str = "blast_status";
/// How long a sign-in lasts.
pub const SESSION: Duration = Duration::from_secs(12 * 3600);
/// Wrong tokens an address may send in one window.
pub const GUESSES: u32 = 10;
pub const WINDOW: Duration = Duration::from_secs(10 * 60);
/// How long a wrong token past the allowance waits for its answer.
pub const SLOWDOWN: Duration = Duration::from_secs(2);
/// The shortest status token the server starts with.
pub const MIN_TOKEN_CHARS: usize = 16;
/// Addresses counted one by one; past this many, new ones share one count, so memory
/// stays bounded however many addresses guess (and guessing from many stays limited).
const ADDRESSES: usize = 4096;

type HmacSha256 = Hmac<Sha256>;

/// The status token and what it opens.
pub struct Guard {
    token: SecretString,
    /// HMAC key of the sessions: derived from the token, so a new token voids them.
    session_key: [u8; 32],
    /// Whether the cookie is marked `Secure` ([`cookie_needs_https`]).
    secure: bool,
    guesses: Limiter,
}

/// What a request may do.
#[derive(Debug, PartialEq, Eq)]
pub enum Access {
    Granted,
    /// No token, a wrong one, or an expired session: the sign-in form.
    Denied,
    /// A wrong token, past the address's allowance: answered 429 (after [`SLOWDOWN`]);
    /// the allowance comes back after this long.
    Limited(Duration),
}

impl Guard {
    pub fn new(token: SecretString, secure: bool) -> Guard {
        let mut mac =
            HmacSha256::new_from_slice(b"blast-radius status session v1").expect("any key");
        mac.update(token.expose_secret().as_bytes());
        Guard {
            session_key: mac.finalize().into_bytes().into(),
            token,
            secure,
            guesses: Limiter::default(),
        }
    }

    /// Whether the request carries the token (Bearer) or a live session (cookie). A
    /// wrong Bearer token counts as a guess from `peer`; past the allowance, its answer
    /// comes after [`SLOWDOWN`].
    pub async fn check(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> Access {
        slowed(self.check_at(headers, peer, SystemTime::now(), Instant::now())).await
    }

    fn check_at(
        &self,
        headers: &HeaderMap,
        peer: Option<IpAddr>,
        now: SystemTime,
        instant: Instant,
    ) -> Access {
        // A live session first: its MAC cannot be guessed, so it opens the pages even
        // while the address is limited (behind a proxy, an attacker's guesses must not
        // lock out the operators already signed in).
        let session = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|kv| kv.trim().strip_prefix(COOKIE)?.strip_prefix('='))
            .any(|value| self.session_is_live(value, now));
        if session {
            return Access::Granted;
        }
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let Some(given) = bearer else {
            return Access::Denied;
        };
        self.judge(given, peer, instant)
    }

    /// The right token is granted whatever came before it from `peer`; a wrong one is
    /// counted, and limited past the allowance.
    fn judge(&self, given: &str, peer: Option<IpAddr>, instant: Instant) -> Access {
        if same(given.trim(), self.token.expose_secret()) {
            return Access::Granted;
        }
        let limited = self.guesses.blocked(peer, instant);
        self.guesses.failed(peer, instant);
        limited.map_or(Access::Denied, Access::Limited)
    }

    /// The form's sign-in: the `Set-Cookie` value that opens the pages, or why not (past
    /// the allowance, after [`SLOWDOWN`]).
    pub async fn sign_in(&self, given: &str, peer: Option<IpAddr>) -> Result<String, Access> {
        match self.judge(given, peer, Instant::now()) {
            Access::Granted => {}
            refused => return Err(slowed(refused).await),
        }
        // Lax: GitHub sends the person back here (the App's setup URL) after installing
        // it; every page behind the cookie only reads, so a cross-site GET can do no harm.
        Ok(format!(
            "{COOKIE}={}; HttpOnly; SameSite=Lax; Path=/; Max-Age={}{}",
            self.session(SystemTime::now()),
            SESSION.as_secs(),
            if self.secure { "; Secure" } else { "" }
        ))
    }

    /// `v1.EXPIRY.MAC`: the expiry in Unix seconds, and its HMAC under the session key.
    fn session(&self, now: SystemTime) -> String {
        let expiry = unix(now) + SESSION.as_secs();
        format!(
            "v1.{expiry}.{}",
            hex::encode(self.mac(expiry).finalize().into_bytes())
        )
    }

    fn session_is_live(&self, value: &str, now: SystemTime) -> bool {
        let mut parts = value.split('.');
        let (Some("v1"), Some(expiry), Some(mac), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return false;
        };
        let (Ok(expiry), Ok(mac)) = (expiry.parse::<u64>(), hex::decode(mac)) else {
            return false;
        };
        let now = unix(now);
        // Constant-time: the MAC check (`verify_slice`) leaks nothing of the right one.
        expiry > now
            && expiry <= now + SESSION.as_secs()
            && self.mac(expiry).verify_slice(&mac).is_ok()
    }

    fn mac(&self, expiry: u64) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.session_key).expect("any key");
        mac.update(format!("v1.{expiry}").as_bytes());
        mac
    }
}

/// `access`, once [`SLOWDOWN`] has passed when it is a limited guess.
async fn slowed(access: Access) -> Access {
    if let Access::Limited(_) = access {
        tokio::time::sleep(SLOWDOWN).await;
    }
    access
}

fn unix(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Whether the sign-in cookie must be `Secure` (sent over https only): always, unless
/// PUBLIC_URL says browsers reach this server over plain http on a loopback address (a
/// developer's machine), where a `Secure` cookie would be dropped and the token never
/// crosses a network anyway. Over plain http elsewhere the form cannot sign in; the
/// Bearer header still works.
pub fn cookie_needs_https(public_url: Option<&str>) -> bool {
    let Some(url) = public_url.and_then(|u| url::Url::parse(u).ok()) else {
        return true;
    };
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    !(url.scheme() == "http" && loopback)
}

/// Compares in time independent of where the texts differ.
pub fn same(given: &str, expected: &str) -> bool {
    // Comparing MACs of both: constant-time, whatever the lengths.
    let mac = |text: &str| {
        let mut m = HmacSha256::new_from_slice(b"blast-radius status").expect("any key");
        m.update(text.as_bytes());
        m
    };
    mac(given)
        .verify_slice(&mac(expected).finalize().into_bytes())
        .is_ok()
}

/// The 429 a limited address gets.
pub fn limited(wait: Duration) -> Response {
    let seconds = wait.as_secs().max(1);
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::RETRY_AFTER, seconds.to_string())],
        format!("Too many wrong tokens from your address: try again in {seconds} s.\n"),
    )
        .into_response()
}

/// The client's address ([`ClientAddr`]: the TCP peer's, or the one the proxy in front
/// names when `BLAST_CLIENT_IP_HEADER` says which header holds it).
pub struct Peer(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for Peer {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Peer(ClientAddr::of(parts).0))
    }
}

/// Wrong tokens per address in fixed windows. `None` is the shared count: unknown
/// addresses, and new ones once [`ADDRESSES`] are counted.
#[derive(Default)]
struct Limiter {
    windows: Mutex<HashMap<Option<IpAddr>, Window>>,
}

struct Window {
    start: Instant,
    failures: u32,
}

impl Limiter {
    /// How long `peer` must wait, when it has guessed too often.
    fn blocked(&self, peer: Option<IpAddr>, now: Instant) -> Option<Duration> {
        let windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        let key = Self::key(&windows, peer.map(prefix));
        let w = windows.get(&key)?;
        let end = w.start + WINDOW;
        (w.failures >= GUESSES && end > now).then(|| end - now)
    }

    fn failed(&self, peer: Option<IpAddr>, now: Instant) {
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if windows.len() >= ADDRESSES {
            windows.retain(|_, w| w.start + WINDOW > now);
        }
        let key = Self::key(&windows, peer.map(prefix));
        let w = windows.entry(key).or_insert(Window {
            start: now,
            failures: 0,
        });
        if w.start + WINDOW <= now {
            *w = Window {
                start: now,
                failures: 0,
            };
        }
        w.failures += 1;
    }

    /// The count `peer` is kept in: its own while there is room.
    fn key(windows: &HashMap<Option<IpAddr>, Window>, peer: Option<IpAddr>) -> Option<IpAddr> {
        match peer {
            Some(_) if windows.contains_key(&peer) || windows.len() < ADDRESSES => peer,
            _ => None,
        }
    }
}

/// An IPv6 client is its /64: one host holds a whole /64 and could count each address
/// apart.
fn prefix(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(bits.into())
        }
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(token: &str) -> Guard {
        Guard::new(token.to_string().into(), true)
    }

    fn with_cookie(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            format!("x=1; {COOKIE}={value}").parse().unwrap(),
        );
        h
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same("secret", "secret"));
        assert!(!same("secret", "secre"));
        assert!(!same("", "secret"));
    }

    #[test]
    fn a_session_lapses_and_dies_with_its_token() {
        let g = guard("the token");
        let now = SystemTime::now();
        let session = g.session(now);
        assert!(!session.contains("the token"));
        let at =
            |t: SystemTime, g: &Guard| g.check_at(&with_cookie(&session), None, t, Instant::now());
        assert_eq!(at(now, &g), Access::Granted);
        assert_eq!(
            at(now + SESSION - Duration::from_secs(1), &g),
            Access::Granted
        );
        assert_eq!(at(now + SESSION, &g), Access::Denied);
        assert_eq!(at(now, &guard("a new token")), Access::Denied);
        // A forged expiry does not carry the MAC over.
        let forged = session.replacen(
            &unix(now + SESSION).to_string(),
            &unix(now + SESSION * 2).to_string(),
            1,
        );
        assert_eq!(
            g.check_at(&with_cookie(&forged), None, now, Instant::now()),
            Access::Denied
        );
        assert_eq!(
            g.check_at(&with_cookie("the token"), None, now, Instant::now()),
            Access::Denied
        );

        // Guesses from the address limit wrong tokens, not the right one, nor a live
        // session.
        for _ in 0..GUESSES * 2 {
            g.guesses.failed(None, Instant::now());
        }
        let bearer = |token: &str| {
            let mut h = HeaderMap::new();
            h.insert(
                header::AUTHORIZATION,
                format!("Bearer {token}").parse().unwrap(),
            );
            h
        };
        assert!(matches!(
            g.check_at(&bearer("a guess"), None, now, Instant::now()),
            Access::Limited(_)
        ));
        assert_eq!(
            g.check_at(&bearer("the token"), None, now, Instant::now()),
            Access::Granted
        );
        assert_eq!(
            g.check_at(&with_cookie(&session), None, now, Instant::now()),
            Access::Granted
        );
    }

    #[test]
    fn guesses_are_counted_per_address_in_bounded_memory() {
        let g = guard("t");
        let now = Instant::now();
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        for _ in 0..GUESSES {
            assert!(g.guesses.blocked(Some(a), now).is_none());
            g.guesses.failed(Some(a), now);
        }
        assert_eq!(g.guesses.blocked(Some(a), now), Some(WINDOW));
        assert!(g
            .guesses
            .blocked(Some("192.0.2.2".parse().unwrap()), now)
            .is_none());
        assert!(g.guesses.blocked(Some(a), now + WINDOW).is_none());
        // The same /64 is one client.
        let v6 = |i: u16| -> IpAddr { format!("2001:db8::{i:x}").parse().unwrap() };
        for i in 0..GUESSES as u16 {
            g.guesses.failed(Some(v6(i)), now);
        }
        assert!(g.guesses.blocked(Some(v6(999)), now).is_some());
        // Countless addresses: the table stops growing, and they share one count.
        for i in 0..(ADDRESSES as u32 * 2) {
            g.guesses.failed(
                Some(std::net::Ipv4Addr::from(0x0a00_0000u32 + i).into()),
                now,
            );
        }
        assert!(g.guesses.windows.lock().unwrap().len() <= ADDRESSES + 1);
        assert!(g
            .guesses
            .blocked(Some("198.51.100.7".parse().unwrap()), now)
            .is_some());
    }

    #[test]
    fn the_cookie_is_secure_except_on_plain_http_loopback() {
        assert!(cookie_needs_https(None));
        assert!(cookie_needs_https(Some("https://blast.example.com")));
        assert!(cookie_needs_https(Some("http://blast.example.com")));
        assert!(!cookie_needs_https(Some("http://127.0.0.1:3000")));
        assert!(!cookie_needs_https(Some("http://localhost:3000")));
        assert!(!cookie_needs_https(Some("http://[::1]:3000")));
        assert!(cookie_needs_https(Some("https://localhost:3000")));
    }
}
