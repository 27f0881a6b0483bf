//! `blast-radius serve` (or `work`) as a process, for the tests that run the App whole.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The test App (the GitHub fake's): its id, key and webhook secret.
pub const APP_ID: u64 = 4242;
pub const PRIVATE_KEY_PKCS1: &str = include_str!("../../fixtures/github/test-app-key.pkcs1.pem");
pub const SECRET: &str = "a webhook secret for tests";
pub const STATUS_TOKEN: &str = "a status token for tests";
/// An environment value that removes the variable instead.
pub const UNSET: &str = "<unset>";
/// Seals the credentials an App created at `/setup` is stored with.
pub const CREDENTIALS_KEY: &str = "q0cYd0pW2T6Qm3n9mM6bWmJg8bH1nJzq8mC3xJ0a1xE=";

/// No App in the environment: the server runs as the one `/setup` creates.
pub fn setup_env() -> Vec<(&'static str, &'static str)> {
    vec![
        ("GITHUB_APP_ID", UNSET),
        ("GITHUB_PRIVATE_KEY", UNSET),
        ("GITHUB_WEBHOOK_SECRET", UNSET),
        ("PUBLIC_URL", "{url}"),
        ("BLAST_CREDENTIALS_KEY", CREDENTIALS_KEY),
    ]
}

/// A running server; killed with -9 when dropped.
pub struct Server {
    pub child: Child,
    pub url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `command` as the test App against the database `db` and GitHub at `api_url`;
/// `env` is set after the defaults (a value of [`UNSET`] removes the variable; `{url}` in
/// a value is the server's own address). `serve` is waited for until ready.
pub async fn launch(
    command: &str,
    db: &str,
    api_url: &str,
    env: &[(&str, &str)],
    stderr: Stdio,
) -> Server {
    // A port given in `env` is kept (a server restarted where GitHub delivers to).
    let port = env
        .iter()
        .find(|(k, _)| *k == "PORT")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or_else(free_port);
    let url = format!("http://127.0.0.1:{port}");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_blast-radius"));
    cmd.arg(command)
        .env("GITHUB_APP_ID", APP_ID.to_string())
        .env("GITHUB_PRIVATE_KEY", PRIVATE_KEY_PKCS1)
        .env("GITHUB_WEBHOOK_SECRET", format!("old secret,{SECRET}"))
        .env("DATABASE_URL", db)
        .env("GITHUB_API_URL", api_url)
        .env("PORT", port.to_string())
        .env("BLAST_WORKERS", "2")
        .env("BLAST_CATCH_UP_MINUTES", "0")
        .env("BLAST_JOB_LEASE_SECONDS", "4")
        .env("BLAST_STATUS_TOKEN", STATUS_TOKEN)
        .env("RUST_LOG", "blast_radius=warn");
    for (k, v) in env {
        if *v == UNSET {
            cmd.env_remove(k);
        } else {
            cmd.env(k, v.replace("{url}", &url));
        }
    }
    let child = cmd
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("the binary runs");
    let server = Server { child, url };
    if command == "serve" {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(r) = reqwest::get(format!("{}/readyz", server.url)).await {
                if r.status().is_success() {
                    break;
                }
            }
            assert!(Instant::now() < deadline, "the server never became ready");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    server
}

/// Waits until no job waits or runs; fails on a dead job, with its error.
pub async fn settle(pool: &sqlx::PgPool) {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let (open, dead): (i64, i64) = sqlx::query_as(
            "SELECT count(*) FILTER (WHERE state IN ('waiting', 'running')),
                    count(*) FILTER (WHERE state = 'dead') FROM jobs",
        )
        .fetch_one(pool)
        .await
        .unwrap();
        if dead > 0 {
            let errors: Vec<(String, Option<String>)> =
                sqlx::query_as("SELECT kind, last_error FROM jobs WHERE state = 'dead'")
                    .fetch_all(pool)
                    .await
                    .unwrap();
            panic!("dead jobs: {errors:?}");
        }
        if open == 0 {
            return;
        }
        assert!(Instant::now() < deadline, "jobs never settled");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The database URL of a test's pool, for a server process to connect to.
pub fn url_of(pool: &sqlx::PgPool) -> String {
    use sqlx::ConnectOptions;
    pool.connect_options().to_url_lossy().to_string()
}

/// Posts a delivery to the server at `url` as GitHub does, signed with `secret`; the
/// answer's status. Given GitHub's 10 s to answer.
pub async fn post_delivery(
    url: &str,
    event: &str,
    id: &str,
    body: &serde_json::Value,
    secret: &str,
) -> u16 {
    let bytes = serde_json::to_vec(body).unwrap();
    let signature = blast_radius::intake::sign(secret, &bytes);
    reqwest::Client::new()
        .post(format!("{url}/webhook"))
        .header("X-GitHub-Event", event)
        .header("X-GitHub-Delivery", id)
        .header("X-Hub-Signature-256", signature)
        .header("Content-Type", "application/json")
        .body(bytes)
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// The server's peak resident memory (VmHWM), in MB.
pub fn peak_rss_mb(server: &Server) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .expect("VmHWM")
        / 1024
}
