//! The operators' pages as a browser meets them: the sign-in cookie is a session that
//! expires and dies with the token, never the token itself; guesses at the token are
//! slowed without locking the right token out; every page forbids framing and carries a
//! content policy that fits it; no database error reaches a page; the token may come
//! from a file.
//! `blast-radius serve` runs whole, with no App (nothing reaches GitHub), on a real
//! Postgres.

use crate::common;

use std::process::Stdio;

use common::server::{launch, setup_env, Server, STATUS_TOKEN, UNSET};
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
    sign_in_from(server, token, None).await
}

/// Signs in with `token`, the request naming `client` in `X-Forwarded-For` if given.
async fn sign_in_from(server: &Server, token: &str, from: Option<&str>) -> reqwest::Response {
    let mut request = client()
        .post(format!("{}/login", server.url))
        .form(&[("token", token), ("next", "/")]);
    if let Some(address) = from {
        request = request.header("x-forwarded-for", address);
    }
    request.send().await.unwrap()
}

/// `/metrics` with `token` as a Bearer token: the status.
async fn metrics_with(server: &Server, token: &str) -> u16 {
    client()
        .get(format!("{}/metrics", server.url))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
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
async fn guesses_at_the_token_are_slowed_but_the_right_token_still_works(pool: PgPool) {
    let server = serve(&pool, &[]).await;
    let signed_in = sign_in(&server, STATUS_TOKEN).await;
    let cookie = signed_in.headers()["set-cookie"].to_str().unwrap();
    let session = cookie.split(';').next().unwrap().to_string();
    let mut refused = 0;
    let (limited, took) = loop {
        let began = std::time::Instant::now();
        let answer = sign_in(&server, &format!("guess {refused}")).await;
        if answer.status() == 429 {
            break (answer, began.elapsed());
        }
        assert_eq!(answer.status(), 401);
        refused += 1;
        assert!(refused < 30, "30 wrong tokens and no limit");
    };
    assert!(refused >= 3, "a typo or two is no attack: {refused}");
    // A guess past the allowance costs its sender seconds.
    assert!(took >= std::time::Duration::from_millis(1500), "{took:?}");
    let retry: u64 = limited.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry > 0);
    // Another wrong one, as a Bearer header, is limited too.
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

/// Behind Fly's proxy every client may share one address: twenty wrong tokens from it
/// (the form's and Bearer headers) do not lock the operators out.
#[sqlx::test(migrations = false)]
async fn twenty_wrong_tokens_do_not_lock_out_the_right_one(pool: PgPool) {
    let server = serve(&pool, &[]).await;
    for i in 0..10 {
        assert_eq!(sign_in(&server, &format!("guess {i}")).await.status(), 401);
    }
    // Ten more at once: each is held for seconds, then limited.
    let more: Vec<_> = (10..20)
        .map(|i| {
            let url = server.url.clone();
            tokio::spawn(async move {
                let request = if i % 2 == 0 {
                    client()
                        .post(format!("{url}/login"))
                        .form(&[("token", format!("guess {i}"))])
                } else {
                    client()
                        .get(format!("{url}/metrics"))
                        .bearer_auth(format!("guess {i}"))
                };
                request.send().await.unwrap().status().as_u16()
            })
        })
        .collect();
    for task in more {
        assert_eq!(task.await.unwrap(), 429);
    }
    assert_eq!(metrics_with(&server, "guess 21").await, 429);
    // The right token signs in, and opens /metrics, at once.
    let began = std::time::Instant::now();
    let login = sign_in(&server, STATUS_TOKEN).await;
    assert_eq!(login.status(), 303);
    assert!(login.headers().contains_key("set-cookie"));
    assert_eq!(metrics_with(&server, STATUS_TOKEN).await, 200);
    assert!(
        began.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        began.elapsed()
    );
}

/// The proxy's header names the client only when BLAST_CLIENT_IP_HEADER says so: else
/// anyone could pick an address per guess.
#[sqlx::test(migrations = false)]
async fn the_client_address_comes_from_the_proxy_header_only_when_configured(pool: PgPool) {
    let (a, b) = (Some("203.0.113.1"), Some("203.0.113.2"));
    let server = serve(&pool, &[("BLAST_CLIENT_IP_HEADER", "X-Forwarded-For")]).await;
    for i in 0..10 {
        assert_eq!(
            sign_in_from(&server, &format!("guess {i}"), a)
                .await
                .status(),
            401
        );
    }
    assert_eq!(sign_in_from(&server, "guess 10", a).await.status(), 429);
    // Another client behind the proxy has its own allowance.
    assert_eq!(sign_in_from(&server, "guess 11", b).await.status(), 401);
    drop(server);

    let server = serve(&pool, &[]).await;
    for i in 0..10 {
        assert_eq!(
            sign_in_from(&server, &format!("guess {i}"), a)
                .await
                .status(),
            401
        );
    }
    // Not configured: the header is ignored, and both are the one peer.
    assert_eq!(sign_in_from(&server, "guess 11", b).await.status(), 429);
}

/// A database error names tables, hosts or users: the setup pages log it and say only
/// that the database failed.
#[sqlx::test(migrations = false)]
async fn setup_pages_show_no_database_error(pool: PgPool) {
    let server = serve(&pool, &[]).await;
    sqlx::query("ALTER TABLE setup_states RENAME TO setup_states_gone")
        .execute(&pool)
        .await
        .unwrap();
    let answer = client()
        .get(format!("{}/setup/callback?code=abc&state=def", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 503);
    let page = answer.text().await.unwrap();
    assert!(page.contains("The database did not answer"), "{page}");
    for leak in [
        "setup_states",
        "relation",
        "does not exist",
        "postgres",
        "error returned",
    ] {
        assert!(!page.contains(leak), "{leak}: {page}");
    }
    // /setup itself, signed in, starts a setup: the same.
    let answer = client()
        .get(format!("{}/setup?go=1&name=x", server.url))
        .bearer_auth(STATUS_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 503);
    let page = answer.text().await.unwrap();
    assert!(!page.contains("setup_states"), "{page}");
}

/// The status token from a file (BLAST_STATUS_TOKEN_FILE): it never passes through the
/// environment or the command line.
#[sqlx::test(migrations = false)]
async fn the_status_token_may_come_from_a_file(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("status-token");
    std::fs::write(&file, "a status token read from a file\n").unwrap();
    let path = file.to_str().unwrap().to_string();
    let path: &'static str = Box::leak(path.into_boxed_str());
    let server = serve(
        &pool,
        &[
            ("BLAST_STATUS_TOKEN", UNSET),
            ("BLAST_STATUS_TOKEN_FILE", path),
        ],
    )
    .await;
    assert_eq!(
        sign_in(&server, "a status token read from a file")
            .await
            .status(),
        303
    );
    assert_eq!(
        metrics_with(&server, "a status token read from a file").await,
        200
    );
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
