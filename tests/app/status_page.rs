//! The operators' pages as a browser meets them: the sign-in cookie is a session that
//! expires and dies with the token, never the token itself; guesses at the token are
//! limited; every page forbids framing and carries a content policy that fits it.
//! `blast-radius serve` runs whole, with no App (nothing reaches GitHub), on a real
//! Postgres.

use crate::common;

use std::process::Stdio;

use common::server::{launch, setup_env, Server, STATUS_TOKEN};
use reqwest::header::HeaderMap;
use sqlx::{ConnectOptions, PgPool};

/// Nothing listens there: no App is configured, so nothing calls it.
const NO_GITHUB: &str = "http://127.0.0.1:9";

async fn serve(pool: &PgPool, env: &[(&'static str, &'static str)]) -> Server {
    let db = pool.connect_options().to_url_lossy().to_string();
    let mut all = setup_env();
    all.extend_from_slice(env);
    launch("serve", &db, NO_GITHUB, &all, Stdio::inherit()).await
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Signs in with `token` through the form; the answer.
async fn sign_in(server: &Server, token: &str) -> reqwest::Response {
    client()
        .post(format!("{}/login", server.url))
        .form(&[("token", token), ("next", "/")])
        .send()
        .await
        .unwrap()
}

/// The status page's status with `cookie` (`name=value`).
async fn page_with_cookie(server: &Server, cookie: &str) -> u16 {
    client()
        .get(format!("{}/", server.url))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[sqlx::test(migrations = false)]
async fn the_cookie_is_a_secure_session_that_dies_with_the_token(pool: PgPool) {
    let server = serve(&pool, &[("PUBLIC_URL", "https://blast.example.com")]).await;
    let login = sign_in(&server, STATUS_TOKEN).await;
    assert_eq!(login.status(), 303);
    let cookie = login.headers()["set-cookie"].to_str().unwrap().to_string();
    let attributes: Vec<&str> = cookie.split(';').map(str::trim).collect();
    assert!(attributes.contains(&"Secure"), "{cookie}");
    assert!(attributes.contains(&"HttpOnly"), "{cookie}");
    let max_age: u64 = attributes
        .iter()
        .find_map(|a| a.strip_prefix("Max-Age="))
        .unwrap_or_else(|| panic!("{cookie}"))
        .parse()
        .unwrap();
    assert!(max_age <= 12 * 3600, "{cookie}");
    let pair = attributes[0].to_string();
    assert!(!pair.contains("status token"), "the token itself: {cookie}");
    assert_eq!(page_with_cookie(&server, &pair).await, 200);
    // The token where a session belongs is no session.
    let raw = format!("blast_status={STATUS_TOKEN}");
    assert_eq!(page_with_cookie(&server, &raw).await, 401);
    drop(server);

    // A new token: every session signed in with the old one is over. Served on plain
    // http on loopback, the cookie cannot be Secure (the browser would drop it).
    let server = serve(
        &pool,
        &[
            ("BLAST_STATUS_TOKEN", "the next status token"),
            ("PUBLIC_URL", "{url}"),
        ],
    )
    .await;
    assert_eq!(page_with_cookie(&server, &pair).await, 401);
    let login = sign_in(&server, "the next status token").await;
    assert_eq!(login.status(), 303);
    let cookie = login.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(!cookie.split(';').any(|a| a.trim() == "Secure"), "{cookie}");
}

#[sqlx::test(migrations = false)]
async fn guesses_at_the_token_are_limited(pool: PgPool) {
    let server = serve(&pool, &[]).await;
    let signed_in = sign_in(&server, STATUS_TOKEN).await;
    let cookie = signed_in.headers()["set-cookie"].to_str().unwrap();
    let session = cookie.split(';').next().unwrap().to_string();
    let mut refused = 0;
    let limited = loop {
        let answer = sign_in(&server, &format!("guess {refused}")).await;
        if answer.status() == 429 {
            break answer;
        }
        assert_eq!(answer.status(), 401);
        refused += 1;
        assert!(refused < 30, "30 wrong tokens and no limit");
    };
    assert!(refused >= 3, "a typo or two is no attack: {refused}");
    let retry: u64 = limited.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry > 0);
    // While limited, even the right token (or a Bearer guess) is not checked.
    assert_eq!(sign_in(&server, STATUS_TOKEN).await.status(), 429);
    let bearer = client()
        .get(format!("{}/", server.url))
        .bearer_auth("another guess")
        .send()
        .await
        .unwrap();
    assert_eq!(bearer.status(), 429);
    // A session from before is no guess: it still opens the page.
    assert_eq!(page_with_cookie(&server, &session).await, 200);
}

fn assert_guarded(headers: &HeaderMap, https: bool, what: &str) {
    let get = |name: &str| {
        headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    assert_eq!(get("x-frame-options"), "DENY", "{what}");
    assert_eq!(get("x-content-type-options"), "nosniff", "{what}");
    assert!(!get("referrer-policy").is_empty(), "{what}");
    let csp = get("content-security-policy");
    for directive in ["default-src 'none'", "frame-ancestors 'none'", "style-src"] {
        assert!(csp.contains(directive), "{what}: {csp}");
    }
    assert!(
        !csp.contains("script-src"),
        "the pages run no script: {csp}"
    );
    assert_eq!(
        get("strict-transport-security").contains("max-age="),
        https,
        "{what}"
    );
}

#[sqlx::test(migrations = false)]
async fn every_page_forbids_framing_and_sniffing(pool: PgPool) {
    for (public_url, https) in [("https://blast.example.com", true), ("{url}", false)] {
        let server = serve(&pool, &[("PUBLIC_URL", public_url)]).await;
        for path in ["/", "/setup", "/setup/callback"] {
            let url = format!("{}{path}", server.url);
            let anonymous = client().get(&url).send().await.unwrap();
            assert_guarded(anonymous.headers(), https, &format!("{path} anonymous"));
            let signed = client()
                .get(&url)
                .bearer_auth(STATUS_TOKEN)
                .send()
                .await
                .unwrap();
            assert_guarded(signed.headers(), https, &format!("{path} signed in"));
        }
        let login = sign_in(&server, "wrong").await;
        assert_guarded(login.headers(), https, "/login refused");
    }
}
