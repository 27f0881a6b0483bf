//! The webhook router served on loopback with a real Postgres, by the server's own
//! listener, driven by signed requests as GitHub sends them. The listener is told that a
//! proxy names the client in `X-Forwarded-For`, so that requests from loopback can stand
//! for several addresses.

use std::net::SocketAddr;
use std::time::Duration;

use blast_radius::intake::client::ClientAddrSource;
use blast_radius::intake::{sign, Intake, IntakeLimits, WebhookSecrets, MAX_BODY};
use blast_radius::queue::{Queue, QueueConfig};
use blast_radius::server::listen::{self, Listening};
use reqwest::StatusCode;
use secrecy::SecretString;
use serde_json::json;
use sqlx::PgPool;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const SECRET: &str = "test-secret";

struct Server {
    addr: SocketAddr,
    client: reqwest::Client,
    pool: PgPool,
}

async fn serve(pool: PgPool) -> Server {
    serve_with(pool, None).await
}

async fn serve_with(pool: PgPool, limits: Option<IntakeLimits>) -> Server {
    serve_listening(pool, limits, listen::HEADER_TIMEOUT).await
}

async fn serve_listening(
    pool: PgPool,
    limits: Option<IntakeLimits>,
    header_timeout: Duration,
) -> Server {
    let queue = Queue::new(pool.clone(), QueueConfig::default());
    // Two secrets, as during a rotation.
    let secrets =
        WebhookSecrets::parse(&SecretString::from(format!("previous-secret,{SECRET}"))).unwrap();
    let app = Intake::with_limits(queue, Some(secrets), limits.unwrap_or_default()).router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let listening = Listening {
        header_timeout,
        clients: ClientAddrSource::parse("X-Forwarded-For").unwrap(),
    };
    tokio::spawn(listen::serve(
        listener,
        app,
        listening,
        std::future::pending(),
    ));
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    Server { addr, client, pool }
}

struct Delivery<'a> {
    event: Option<&'a str>,
    id: Option<&'a str>,
    body: Vec<u8>,
    signature: Option<String>,
}

fn delivery<'a>(event: &'a str, id: &'a str, payload: &serde_json::Value) -> Delivery<'a> {
    let body = payload.to_string().into_bytes();
    Delivery {
        event: Some(event),
        id: Some(id),
        signature: Some(sign(SECRET, &body)),
        body,
    }
}

impl Server {
    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    async fn post(&self, d: Delivery<'_>) -> (StatusCode, String) {
        let mut req = self
            .client
            .post(self.url("/webhook"))
            .header("content-type", "application/json")
            .header("user-agent", "GitHub-Hookshot/test")
            .body(d.body);
        if let Some(e) = d.event {
            req = req.header("x-github-event", e);
        }
        if let Some(id) = d.id {
            req = req.header("x-github-delivery", id);
        }
        if let Some(s) = d.signature {
            req = req.header("x-hub-signature-256", s);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status();
        (status, resp.text().await.unwrap())
    }

    async fn rows(&self) -> (i64, i64) {
        sqlx::query_as("SELECT (SELECT count(*) FROM deliveries), (SELECT count(*) FROM jobs)")
            .fetch_one(&self.pool)
            .await
            .unwrap()
    }

    async fn job_kinds(&self) -> Vec<(String, Option<String>, Option<String>)> {
        sqlx::query_as("SELECT kind, serial_key, delivery_id FROM jobs ORDER BY id")
            .fetch_all(&self.pool)
            .await
            .unwrap()
    }

    async fn get(&self, path: &str) -> StatusCode {
        self.client
            .get(self.url(path))
            .send()
            .await
            .unwrap()
            .status()
    }
}

fn push(after: &str) -> serde_json::Value {
    json!({
        "ref": "refs/heads/main",
        "before": "1".repeat(40),
        "after": after,
        "created": false, "deleted": false, "forced": false,
        "commits": [], "head_commit": null,
        "repository": {"id": 42, "full_name": "octo/app", "default_branch": "main", "private": false},
        "installation": {"id": 7, "node_id": "x"},
        "sender": {"login": "octo", "type": "User"},
    })
}

#[sqlx::test]
async fn a_signed_push_is_recorded_and_queued(pool: PgPool) {
    let s = serve(pool).await;
    let (status, text) = s
        .post(delivery("push", "d-push-1", &push(&"2".repeat(40))))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{text}");
    assert_eq!(s.rows().await, (1, 1));
    assert_eq!(
        s.job_kinds().await,
        vec![(
            "apply_push".to_string(),
            Some("repo:42".to_string()),
            Some("d-push-1".to_string())
        )]
    );
    let (event, action, installation, repository, outcome): (
        String,
        Option<String>,
        Option<i64>,
        Option<i64>,
        String,
    ) = sqlx::query_as(
        "SELECT event, action, installation_id, repository_id, outcome FROM deliveries",
    )
    .fetch_one(&s.pool)
    .await
    .unwrap();
    assert_eq!(
        (
            event.as_str(),
            action,
            installation,
            repository,
            outcome.as_str()
        ),
        ("push", None, Some(7), Some(42), "queued")
    );
    let after: String = sqlx::query_scalar("SELECT payload->>'after' FROM jobs")
        .fetch_one(&s.pool)
        .await
        .unwrap();
    assert_eq!(after, "2".repeat(40));

    // The old secret of a rotation still signs valid deliveries.
    let mut old = delivery("push", "d-push-2", &push(&"3".repeat(40)));
    old.signature = Some(sign("previous-secret", &old.body));
    assert_eq!(s.post(old).await.0, StatusCode::ACCEPTED);
    // Two pushes waiting for one repository: one catch-up, to the newest.
    assert_eq!(s.rows().await, (2, 1));
}

#[sqlx::test]
async fn an_installation_queues_its_sync_and_an_index_per_repository(pool: PgPool) {
    let s = serve(pool).await;
    let payload = json!({
        "action": "created",
        "installation": {"id": 7, "account": {"login": "octo", "type": "Organization"}},
        "repositories": [
            {"id": 1, "full_name": "octo/a", "private": false},
            {"id": 2, "full_name": "octo/b", "private": true},
        ],
        "sender": {"login": "octo", "type": "User"},
    });
    let (status, _) = s.post(delivery("installation", "d-inst", &payload)).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let kinds: Vec<_> = s
        .job_kinds()
        .await
        .into_iter()
        .map(|(k, key, _)| (k, key.unwrap()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("sync_installation".into(), "installation:7".into()),
            ("index_repository".into(), "repo:1".into()),
            ("index_repository".into(), "repo:2".into()),
        ]
    );
}

#[sqlx::test]
async fn a_bad_or_missing_signature_is_refused_and_nothing_stored(pool: PgPool) {
    let s = serve(pool).await;
    let mut wrong = delivery("push", "d-1", &push(&"2".repeat(40)));
    wrong.signature = Some(sign("not-the-secret", &wrong.body));
    assert_eq!(s.post(wrong).await.0, StatusCode::UNAUTHORIZED);

    // Signed, then the body changed on the way.
    let mut tampered = delivery("push", "d-2", &push(&"2".repeat(40)));
    tampered.body = push(&"6".repeat(40)).to_string().into_bytes();
    assert_eq!(s.post(tampered).await.0, StatusCode::UNAUTHORIZED);

    let mut missing = delivery("push", "d-3", &push(&"2".repeat(40)));
    missing.signature = None;
    assert_eq!(s.post(missing).await.0, StatusCode::UNAUTHORIZED);

    let mut legacy = delivery("push", "d-4", &push(&"2".repeat(40)));
    legacy.signature = Some("sha1=0000000000000000000000000000000000000000".into());
    assert_eq!(s.post(legacy).await.0, StatusCode::UNAUTHORIZED);

    assert_eq!(s.rows().await, (0, 0));
}

#[sqlx::test]
async fn missing_headers_or_malformed_json_are_bad_requests(pool: PgPool) {
    let s = serve(pool).await;
    let mut no_event = delivery("push", "d-1", &push(&"2".repeat(40)));
    no_event.event = None;
    assert_eq!(s.post(no_event).await.0, StatusCode::BAD_REQUEST);

    let mut no_id = delivery("push", "d-2", &push(&"2".repeat(40)));
    no_id.id = None;
    assert_eq!(s.post(no_id).await.0, StatusCode::BAD_REQUEST);

    let body = b"{\"ref\": \"refs/heads/main\", ".to_vec();
    let malformed = Delivery {
        event: Some("push"),
        id: Some("d-3"),
        signature: Some(sign(SECRET, &body)),
        body,
    };
    assert_eq!(s.post(malformed).await.0, StatusCode::BAD_REQUEST);

    // Valid JSON that is not what GitHub sends for a handled event.
    let (status, text) = s
        .post(delivery("push", "d-4", &json!({"ref": "refs/heads/main"})))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(text.contains("push"), "{text}");

    assert_eq!(s.rows().await, (0, 0));
}

#[sqlx::test]
async fn ping_and_unhandled_events_are_recorded_and_ignored(pool: PgPool) {
    let s = serve(pool).await;
    let ping = json!({"zen": "Keep it logically awesome.", "hook_id": 1, "hook": {"type": "App"}});
    let (status, text) = s.post(delivery("ping", "d-ping", &ping)).await;
    assert!(status.is_success(), "{status} {text}");
    let star = json!({"action": "created", "repository": {"id": 42}, "installation": {"id": 7}});
    assert!(s
        .post(delivery("star", "d-star", &star))
        .await
        .0
        .is_success());
    // A handled event with an action we do not act on.
    let labeled = json!({"action": "labeled", "number": 1, "repository": {"id": 42}});
    assert!(s
        .post(delivery("pull_request", "d-label", &labeled))
        .await
        .0
        .is_success());
    // A push to another branch.
    let mut branch = push(&"2".repeat(40));
    branch["ref"] = json!("refs/heads/feature");
    assert!(s
        .post(delivery("push", "d-branch", &branch))
        .await
        .0
        .is_success());

    assert_eq!(s.rows().await, (4, 0));
    let outcomes: Vec<String> = sqlx::query_scalar("SELECT DISTINCT outcome FROM deliveries")
        .fetch_all(&s.pool)
        .await
        .unwrap();
    assert_eq!(outcomes, vec!["ignored".to_string()]);
}

#[sqlx::test]
async fn a_redelivery_is_processed_once(pool: PgPool) {
    let s = serve(pool).await;
    let d = || {
        delivery(
            "push",
            "72d3162e-cc78-11e3-81ab-4c9367dc0958",
            &push(&"2".repeat(40)),
        )
    };
    assert_eq!(s.post(d()).await.0, StatusCode::ACCEPTED);
    // Say the job ran; the redelivery must not queue it again.
    sqlx::query("UPDATE jobs SET state = 'done'")
        .execute(&s.pool)
        .await
        .unwrap();
    let (status, text) = s.post(d()).await;
    assert!(status.is_success(), "{status}");
    assert_eq!(text.trim(), "already recorded");
    assert_eq!(s.rows().await, (1, 1));
}

#[sqlx::test]
async fn bodies_over_25_mb_are_refused(pool: PgPool) {
    let s = serve(pool).await;
    // Declared by Content-Length: refused before the body is read.
    let mut body = b"{\"zen\": \"".to_vec();
    body.resize(MAX_BODY + 1024, b'a');
    let big = Delivery {
        event: Some("ping"),
        id: Some("d-big"),
        signature: Some(sign(SECRET, &body)),
        body,
    };
    match s
        .client
        .post(s.url("/webhook"))
        .header("x-github-event", big.event.unwrap())
        .header("x-github-delivery", big.id.unwrap())
        .header("x-hub-signature-256", big.signature.unwrap())
        .body(big.body)
        .send()
        .await
    {
        Ok(resp) => assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE),
        // The server may close the connection while the client still sends: then the
        // raw-socket checks below stand for this case.
        Err(e) => eprintln!("reqwest could not read the early answer: {e}"),
    }

    // The header alone, no body sent: the answer comes at once.
    let head = format!(
        "POST /webhook HTTP/1.1\r\nHost: {}\r\nX-GitHub-Event: ping\r\nX-GitHub-Delivery: d-big-2\r\n\
         X-Hub-Signature-256: sha256={}\r\nContent-Length: {}\r\n\r\n",
        s.addr,
        "0".repeat(64),
        MAX_BODY + 1
    );
    let status = raw_request(s.addr, head.as_bytes(), None).await;
    assert_eq!(status, 413);

    // Chunked, with no length up front: cut off as it streams past 25 MB.
    let head = format!(
        "POST /webhook HTTP/1.1\r\nHost: {}\r\nX-GitHub-Event: ping\r\nX-GitHub-Delivery: d-big-3\r\n\
         X-Hub-Signature-256: sha256={}\r\nTransfer-Encoding: chunked\r\n\r\n",
        s.addr,
        "0".repeat(64),
    );
    let status = raw_request(s.addr, head.as_bytes(), Some(MAX_BODY + 4 * 1024 * 1024)).await;
    assert_eq!(status, 413);

    // Exactly 25 MB is allowed (and, here, a wrong signature).
    let head = format!(
        "POST /webhook HTTP/1.1\r\nHost: {}\r\nX-GitHub-Event: ping\r\nX-GitHub-Delivery: d-big-4\r\n\
         X-Hub-Signature-256: sha256={}\r\nTransfer-Encoding: chunked\r\n\r\n",
        s.addr,
        "0".repeat(64),
    );
    let status = raw_request(s.addr, head.as_bytes(), Some(MAX_BODY)).await;
    assert_eq!(status, 401);

    assert_eq!(s.rows().await, (0, 0));
}

/// Sends a request head and, if asked, `chunked` bytes of body in 1 MB chunks (giving up
/// quietly when the server stops reading); returns the answer's status code.
async fn raw_request(addr: SocketAddr, head: &[u8], chunked: Option<usize>) -> u16 {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut rd, mut wr) = stream.into_split();
    wr.write_all(head).await.unwrap();
    let writer = tokio::spawn(async move {
        let Some(total) = chunked else { return };
        let chunk = vec![b'a'; 1024 * 1024];
        let mut sent = 0;
        while sent < total {
            let n = chunk.len().min(total - sent);
            let mut frame = format!("{n:x}\r\n").into_bytes();
            frame.extend_from_slice(&chunk[..n]);
            frame.extend_from_slice(b"\r\n");
            if wr.write_all(&frame).await.is_err() {
                return;
            }
            sent += n;
        }
        let _ = wr.write_all(b"0\r\n\r\n").await;
        // Keep the write half open until the answer is read.
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    let read = tokio::time::timeout(Duration::from_secs(30), async {
        while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = rd.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            answer.extend_from_slice(&buf[..n]);
        }
    })
    .await;
    writer.abort();
    assert!(read.is_ok(), "no answer in time");
    let text = String::from_utf8_lossy(&answer);
    text.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"))
}

/// Sends a request head and `sent` bytes of a chunked body, then holds the connection
/// open without ending the body; the task ends with the answer's status code.
fn hold_request(addr: SocketAddr, head: String, sent: usize) -> tokio::task::JoinHandle<u16> {
    tokio::spawn(async move {
        let stream = TcpStream::connect(addr).await.unwrap();
        let (mut rd, mut wr) = stream.into_split();
        wr.write_all(head.as_bytes()).await.unwrap();
        if sent > 0 {
            let mut frame = format!("{sent:x}\r\n").into_bytes();
            frame.extend(std::iter::repeat_n(b'a', sent));
            frame.extend_from_slice(b"\r\n");
            let _ = wr.write_all(&frame).await;
        }
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
            match rd.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
        drop(wr);
        let text = String::from_utf8_lossy(&answer);
        text.split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0)
    })
}

fn chunked_head(addr: SocketAddr, id: &str) -> String {
    chunked_head_from(addr, id, "127.0.0.1")
}

/// A chunked post with a well-formed (wrong) signature, from `client` as the proxy names it.
fn chunked_head_from(addr: SocketAddr, id: &str, client: &str) -> String {
    format!(
        "POST /webhook HTTP/1.1\r\nHost: {addr}\r\nX-GitHub-Event: ping\r\nX-GitHub-Delivery: {id}\r\n\
         X-Hub-Signature-256: sha256={}\r\nX-Forwarded-For: {client}\r\n\
         Transfer-Encoding: chunked\r\n\r\n",
        "0".repeat(64),
    )
}

fn ping(id: &str) -> Delivery<'_> {
    delivery(
        "ping",
        id,
        &json!({"zen": "Keep it logically awesome.", "hook_id": 1}),
    )
}

#[sqlx::test]
async fn a_full_budget_drops_its_slowest_reader_rather_than_refuse_a_delivery(pool: PgPool) {
    const MB: usize = 1024 * 1024;
    let s = serve_with(
        pool,
        Some(IntakeLimits {
            unverified_bytes: 3 * MB,
            unverified_bytes_per_address: 3 * MB,
            body_timeout: Duration::from_secs(3),
        }),
    )
    .await;
    // Three callers each send 1 MB and stall: the budget is spent.
    let stalled: Vec<_> = (0..3)
        .map(|i| hold_request(s.addr, chunked_head(s.addr, &format!("slow-{i}")), MB))
        .collect();
    tokio::time::sleep(Duration::from_millis(700)).await;
    // A signed delivery is not refused: the slowest stalled reader makes room (503).
    let (status, _) = s.post(ping("d-during")).await;
    assert_eq!(status, StatusCode::OK);
    let mut answers = Vec::new();
    for task in stalled {
        answers.push(task.await.unwrap());
    }
    answers.sort();
    // The others run out of time, and give their bytes back.
    assert_eq!(answers, vec![408, 408, 503]);
    let (status, _) = s.post(ping("d-after")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(s.rows().await, (2, 0));
}

/// `n` callers, from the addresses `client(i)` names, each send `each` bytes of a body
/// and stall; the tasks end with their answers.
fn stall_many(
    addr: SocketAddr,
    n: usize,
    each: usize,
    client: impl Fn(usize) -> String,
) -> Vec<tokio::task::JoinHandle<u16>> {
    (0..n)
        .map(|i| {
            hold_request(
                addr,
                chunked_head_from(addr, &format!("junk-{i}"), &client(i)),
                each,
            )
        })
        .collect()
}

async fn answers_of(
    tasks: Vec<tokio::task::JoinHandle<u16>>,
) -> std::collections::BTreeMap<u16, usize> {
    let mut answers = std::collections::BTreeMap::new();
    for task in tasks {
        *answers.entry(task.await.unwrap()).or_default() += 1;
    }
    answers
}

/// Every junk caller was answered: dropped (503), or, at most `room` of them, out of time
/// (408).
fn assert_junk_answers(answers: &std::collections::BTreeMap<u16, usize>, room: usize) {
    let (dropped, timed_out) = (
        answers.get(&503).copied().unwrap_or(0),
        answers.get(&408).copied().unwrap_or(0),
    );
    assert_eq!(dropped + timed_out, 66, "{answers:?}");
    assert!((1..=room).contains(&timed_out), "{answers:?}");
}

/// The measured attack, scaled down: 66 connections of junk, each with a well-formed
/// signature header, from one address, stall with their bytes held. That address holds
/// its share at most (its own slowest readers are dropped past it), and a signed delivery
/// from another address is taken.
#[sqlx::test]
async fn junk_from_one_address_cannot_refuse_a_signed_delivery(pool: PgPool) {
    const KB: usize = 1024;
    let s = serve_with(
        pool,
        Some(IntakeLimits {
            unverified_bytes: 8 * 1024 * KB,
            unverified_bytes_per_address: 4 * 1024 * KB,
            body_timeout: Duration::from_secs(4),
        }),
    )
    .await;
    let junk = stall_many(s.addr, 66, 256 * KB, |_| "203.0.113.66".into());
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let (status, text) = s
        .post(delivery("push", "d-real", &push(&"2".repeat(40))))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{text}");
    let answers = answers_of(junk).await;
    // 4 MB holds 16 of the 256 KB bodies: the others were dropped as they came (which
    // ones, and so how many whole ones stay, depends on how their bytes interleaved).
    assert_junk_answers(&answers, 16);
    assert_eq!(s.rows().await, (1, 1));
}

/// Junk from many addresses, each within its share, fills the whole budget: a signed
/// delivery from yet another address is still taken, the slowest junk dropped for it.
#[sqlx::test]
async fn junk_from_many_addresses_cannot_refuse_a_signed_delivery(pool: PgPool) {
    const KB: usize = 1024;
    let s = serve_with(
        pool,
        Some(IntakeLimits {
            unverified_bytes: 8 * 1024 * KB,
            unverified_bytes_per_address: 4 * 1024 * KB,
            body_timeout: Duration::from_secs(4),
        }),
    )
    .await;
    let junk = stall_many(s.addr, 66, 256 * KB, |i| format!("203.0.113.{i}"));
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let (status, text) = s
        .post(delivery("push", "d-real", &push(&"2".repeat(40))))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{text}");
    let answers = answers_of(junk).await;
    // 8 MB holds 32 of them; the rest were dropped.
    assert_junk_answers(&answers, 32);
    assert_eq!(s.rows().await, (1, 1));
}

/// Headers that are not GitHub's are refused before a byte of the body is read: each of
/// these announces a body it never sends, and is answered at once, not at the body
/// timeout.
#[sqlx::test]
async fn malformed_headers_are_refused_before_the_body_is_read(pool: PgPool) {
    let s = serve_with(
        pool,
        Some(IntakeLimits {
            body_timeout: Duration::from_secs(20),
            ..IntakeLimits::default()
        }),
    )
    .await;
    let good_signature = format!("sha256={}", "0".repeat(64));
    let long_event = "x".repeat(65);
    let cases: [(&str, &str, Option<&str>, u16); 6] = [
        ("push", "sha256=xyz", Some("d-1"), 401),
        (
            "push",
            "sha1=0000000000000000000000000000000000000000",
            Some("d-2"),
            401,
        ),
        ("Push Event!", &good_signature, Some("d-3"), 400),
        (&long_event, &good_signature, Some("d-4"), 400),
        ("push", &good_signature, None, 400),
        ("push", &good_signature, Some("<script>"), 400),
    ];
    for (event, signature, id, expected) in cases {
        let id_header = id
            .map(|id| format!("X-GitHub-Delivery: {id}\r\n"))
            .unwrap_or_default();
        let head = format!(
            "POST /webhook HTTP/1.1\r\nHost: {}\r\nX-GitHub-Event: {event}\r\n{id_header}\
             X-Hub-Signature-256: {signature}\r\nContent-Length: 100000\r\n\r\n{{",
            s.addr
        );
        let began = std::time::Instant::now();
        let status = raw_request(s.addr, head.as_bytes(), None).await;
        assert_eq!(status, expected, "{event} {signature} {id:?}");
        // Well before the body timeout: nothing waited for the body.
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "{event} {signature} {id:?}"
        );
    }
    assert_eq!(s.rows().await, (0, 0));
}

/// A caller that sends half its headers and stops has its connection closed after the
/// header timeout (hyper's, which `axum::serve` leaves unset).
#[sqlx::test]
async fn a_request_whose_headers_never_end_is_closed(pool: PgPool) {
    let s = serve_listening(pool, None, Duration::from_secs(1)).await;
    let mut stream = TcpStream::connect(s.addr).await.unwrap();
    stream
        .write_all(b"POST /webhook HTTP/1.1\r\nHost: x\r\nX-GitHub-Ev")
        .await
        .unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(15), stream.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "the connection was still open after 15 s");
    // It never became a request.
    assert!(!String::from_utf8_lossy(&rest).contains(" 20"), "{rest:?}");
    assert_eq!(s.rows().await, (0, 0));
}

#[sqlx::test]
async fn a_declared_length_reserves_nothing(pool: PgPool) {
    let s = serve_with(
        pool,
        Some(IntakeLimits {
            unverified_bytes: 1024 * 1024,
            unverified_bytes_per_address: 1024 * 1024,
            body_timeout: Duration::from_secs(3),
        }),
    )
    .await;
    // Ten callers announce 20 MB each and send a few bytes.
    let idle: Vec<_> = (0..10)
        .map(|i| {
            let head = format!(
                "POST /webhook HTTP/1.1\r\nHost: {}\r\nX-GitHub-Event: ping\r\nX-GitHub-Delivery: idle-{i}\r\n\
                 X-Hub-Signature-256: sha256={}\r\nContent-Length: {}\r\n\r\n{{\"zen\":",
                s.addr,
                "0".repeat(64),
                20 * 1024 * 1024
            );
            hold_request(s.addr, head, 0)
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (status, _) = s.post(ping("d-real")).await;
    assert_eq!(status, StatusCode::OK);
    for task in idle {
        assert_eq!(task.await.unwrap(), 408);
    }
}

#[sqlx::test]
async fn health_and_readiness(pool: PgPool) {
    let s = serve(pool).await;
    assert_eq!(s.get("/healthz").await, StatusCode::OK);
    assert_eq!(s.get("/readyz").await, StatusCode::OK);
    assert_eq!(s.get("/webhook").await, StatusCode::METHOD_NOT_ALLOWED);
}

#[sqlx::test(migrations = false)]
async fn not_ready_before_migrations(pool: PgPool) {
    let s = serve(pool).await;
    assert_eq!(s.get("/healthz").await, StatusCode::OK);
    assert_eq!(s.get("/readyz").await, StatusCode::SERVICE_UNAVAILABLE);
    // The cause is logged, not told to whoever asks.
    let body = s.client.get(s.url("/readyz")).send().await.unwrap();
    assert_eq!(body.text().await.unwrap(), "not ready\n");
}

/// Intake as `serve` builds it: it tells the delivery recovery of what the database could
/// not take, and answers 503 from the moment the process shuts down.
async fn serve_recovering(
    queue: Queue,
) -> (
    SocketAddr,
    std::sync::Arc<tokio::sync::Notify>,
    tokio::sync::watch::Sender<bool>,
) {
    let secrets = WebhookSecrets::parse(&SecretString::from(SECRET.to_string())).unwrap();
    let refused = std::sync::Arc::new(tokio::sync::Notify::new());
    let (stopping_tx, stopping) = tokio::sync::watch::channel(false);
    let app = Intake::new(queue, secrets)
        .recovering(refused.clone(), stopping)
        .router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(listen::serve(
        listener,
        app,
        Listening::default(),
        std::future::pending(),
    ));
    (addr, refused, stopping_tx)
}

#[sqlx::test]
async fn a_delivery_the_database_cannot_take_is_503_and_wakes_the_recovery(pool: PgPool) {
    // A pool of its own, closed: every statement fails as with the database gone.
    let gone = PgPool::connect_with((*pool.connect_options()).clone())
        .await
        .unwrap();
    gone.close().await;
    let (addr, refused, _stopping) =
        serve_recovering(Queue::new(gone, QueueConfig::default())).await;
    let s = Server {
        addr,
        client: reqwest::Client::new(),
        pool,
    };
    let (status, _) = s
        .post(delivery("push", "db-gone-1", &push(&"3".repeat(40))))
        .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    tokio::time::timeout(Duration::from_secs(1), refused.notified())
        .await
        .expect("the recovery was told");
    assert_eq!(s.get("/readyz").await, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(s.get("/healthz").await, StatusCode::OK);
}

#[sqlx::test]
async fn deliveries_during_shutdown_are_503_and_nothing_is_stored(pool: PgPool) {
    let (addr, refused, stopping) =
        serve_recovering(Queue::new(pool.clone(), QueueConfig::default())).await;
    let s = Server {
        addr,
        client: reqwest::Client::new(),
        pool,
    };
    assert_eq!(s.get("/readyz").await, StatusCode::OK);
    stopping.send_replace(true);
    let (status, text) = s
        .post(delivery("push", "late-1", &push(&"4".repeat(40))))
        .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{text}");
    assert!(text.contains("shutting down"), "{text}");
    assert_eq!(s.rows().await, (0, 0));
    assert_eq!(s.get("/readyz").await, StatusCode::SERVICE_UNAVAILABLE);
    // Not a database failure: the recovery finds it on its first round after the restart.
    assert!(
        tokio::time::timeout(Duration::from_millis(200), refused.notified())
            .await
            .is_err()
    );
}
