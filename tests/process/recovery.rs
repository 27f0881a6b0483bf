//! No delivery lost: what GitHub failed to hand over while the server was down, its
//! database was down, or it was shutting down, is asked for again from GitHub's delivery
//! log (the fake logs every attempt as GitHub does and redelivers on request) and handled
//! once. The server runs as a process against a real Postgres.

use crate::app_fixtures::{
    classify_repo, count, installed, member_comment, open_classify_pr, pr_event, INSTALLATION,
};
use crate::fake_github;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::server::{free_port, launch, settle, url_of, Server, SECRET, STATUS_TOKEN};
use fake_github::{FakeGithub, TestRepo};
use sqlx::PgPool;

use crate::common;

const SUMMARY: &str = "<!-- blast-radius:summary -->";

/// What the App wrote on PR #1: summary comments, command replies, check runs on `head`.
fn written(fake: &FakeGithub, head: &str) -> (usize, usize, usize) {
    let comments = fake.issue_comments("acme/web", 1);
    let summaries = comments
        .iter()
        .filter(|c| c.by_app && c.body.contains(SUMMARY))
        .count();
    let replies = comments
        .iter()
        .filter(|c| c.by_app && c.body.contains("blast-radius:command"))
        .count();
    let runs = fake
        .check_runs("acme/web")
        .iter()
        .filter(|r| r.head_sha == head)
        .count();
    (summaries, replies, runs)
}

async fn wait_until(what: &str, seconds: u64, mut done: impl FnMut() -> bool) -> Duration {
    let started = Instant::now();
    while !done() {
        assert!(
            started.elapsed() < Duration::from_secs(seconds),
            "never {what} within {seconds} s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    started.elapsed()
}

/// A server on a port of its own, kept across restarts (GitHub delivers to one URL),
/// with the recovery's schedule at `every` seconds.
struct Setup {
    fake: FakeGithub,
    repo: TestRepo,
    repo_id: i64,
    db: String,
    port: String,
    every: &'static str,
}

impl Setup {
    async fn new(pool: &PgPool, every: &'static str) -> Setup {
        let fake = FakeGithub::start().await;
        let repo = classify_repo();
        fake.add_installation(INSTALLATION, "acme");
        let repo_id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
        Setup {
            fake,
            repo,
            repo_id,
            db: url_of(pool),
            port: free_port().to_string(),
            every,
        }
    }

    async fn start_on(&self, db: &str, more: &[(&str, &str)]) -> Server {
        let mut env = vec![
            ("PORT", self.port.as_str()),
            ("BLAST_RECOVER_EVERY_SECONDS", self.every),
            ("BLAST_NOTIFY_SPACING_MS", "10"),
        ];
        env.extend_from_slice(more);
        let server = launch("serve", db, &self.fake.api_url(), &env, Stdio::inherit()).await;
        self.fake
            .set_webhook(&format!("{}/webhook", server.url), SECRET);
        server
    }

    async fn start(&self) -> Server {
        self.start_on(&self.db, &[]).await
    }

    /// Installs the App on acme/web and waits for its first index.
    async fn install(&self, pool: &PgPool) {
        let took = self
            .fake
            .send_webhook(
                "installation",
                "d-install",
                &installed(self.repo_id, "acme/web"),
            )
            .await;
        assert_eq!(took.status_code, 202, "{took:?}");
        settle(pool).await;
    }
}

#[sqlx::test(migrations = false)]
async fn a_pr_and_a_command_sent_while_the_server_was_down_are_recovered_at_start(pool: PgPool) {
    let s = Setup::new(&pool, "120").await;
    let server = s.start().await;
    s.install(&pool).await;
    drop(server); // SIGKILL: down

    let base = s.repo.head();
    let head = open_classify_pr(&s.fake, &s.repo, "classifyFields always returns an array");
    let opened = s
        .fake
        .send_webhook(
            "pull_request",
            "d-pr",
            &pr_event("opened", s.repo_id, 1, &head, &base),
        )
        .await;
    assert_eq!(
        (opened.status_code, opened.status.as_str()),
        (0, "failed to connect to host")
    );
    let body = "/callers classifyFields";
    let comment = s.fake.add_comment_as("acme/web", 1, "dev", body);
    let asked = s
        .fake
        .send_webhook(
            "issue_comment",
            "d-ask",
            &member_comment(s.repo_id, comment, body),
        )
        .await;
    assert_eq!(asked.status_code, 0);

    // Started again with its normal schedule (a round every 2 minutes while something
    // is missed): the round at start finds both.
    let restarted = Instant::now();
    let server = s.start().await;
    let took = wait_until("recovered", 60, || written(&s.fake, &head) == (1, 1, 1)).await;
    settle(&pool).await;
    eprintln!(
        "recovered a PR and a command {:?} after the restart ({took:?} after it was ready)",
        restarted.elapsed()
    );
    assert_eq!(written(&s.fake, &head), (1, 1, 1), "once each");
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) FROM deliveries WHERE delivery_id IN ('d-pr', 'd-ask')"
        )
        .await,
        2
    );
    // Each was asked for once, and redelivered with its GUID.
    let redelivered: Vec<(String, u16)> = s
        .fake
        .hook_attempts()
        .into_iter()
        .filter(|a| a.redelivery)
        .map(|a| (a.guid, a.status_code))
        .collect();
    assert_eq!(redelivered.len(), 2, "{redelivered:?}");
    assert!(
        redelivered.iter().all(|(_, code)| *code == 202),
        "{redelivered:?}"
    );
    assert_eq!(s.fake.requests_to("POST", "/app/hook/deliveries/").len(), 2);
    // The mark moved on: a later round reads back only to it.
    let mark: Option<f64> = sqlx::query_scalar(
        "SELECT extract(epoch FROM now() - taken_through)::float8 FROM delivery_recovery",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(mark.is_some_and(|age| age < 600.0), "{mark:?}");
    // /metrics counts them, and the round; nothing is missed any more.
    let metrics = reqwest::Client::new()
        .get(format!("{}/metrics", server.url))
        .bearer_auth(STATUS_TOKEN)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for line in [
        "blast_deliveries_recovered_total 2",
        "blast_delivery_recovery_rounds_total{outcome=\"done\"} 1",
        "blast_delivery_oldest_missed_seconds ",
    ] {
        assert!(metrics.contains(line), "{line} in:\n{metrics}");
    }
    if let Some(report) = s.fake.check_against_openapi() {
        report.assert_clean();
        assert!(
            report.saw("GET /app/hook/deliveries"),
            "{:?}",
            report.operations
        );
        assert!(report.saw("POST /app/hook/deliveries/{delivery_id}/attempts"));
    }
}

/// Whether the server process still runs.
fn alive(server: &mut Server) -> bool {
    server.child.try_wait().unwrap().is_none()
}

async fn status_of(url: String) -> u16 {
    reqwest::get(url)
        .await
        .map(|r| r.status().as_u16())
        .unwrap_or(0)
}

#[sqlx::test(migrations = false)]
async fn a_synchronize_and_a_command_refused_while_the_database_was_down_are_recovered(
    pool: PgPool,
) {
    let s = Setup::new(&pool, "120").await;
    let options = pool.connect_options();
    let target = format!("{}:{}", options.get_host(), options.get_port());
    let target = tokio::net::lookup_host(target)
        .await
        .unwrap()
        .next()
        .unwrap();
    let proxy = common::db_proxy::DbProxy::start(target).await;
    let mut server = s.start_on(&proxy.url(&s.db), &[]).await;
    s.install(&pool).await;
    let base = s.repo.head();
    let head = open_classify_pr(&s.fake, &s.repo, "classifyFields always returns an array");
    let opened = s
        .fake
        .send_webhook(
            "pull_request",
            "d-pr",
            &pr_event("opened", s.repo_id, 1, &head, &base),
        )
        .await;
    assert_eq!(opened.status_code, 202);
    wait_until("analysed", 60, || written(&s.fake, &head) == (1, 0, 1)).await;
    settle(&pool).await;

    // The database goes away; meanwhile the PR gets a new head and a command.
    proxy.down();
    s.repo.git(&["checkout", "-q", "fix"]);
    let posts = std::fs::read_to_string(s.repo.path().join("routes/posts.js")).unwrap();
    s.repo.write(
        "routes/posts.js",
        posts.replace("classifyFields(", "classifyFields({ strict: true }, "),
    );
    let head2 = s.repo.commit("posts.js updated");
    s.repo.git(&["checkout", "-q", "main"]);
    let body = "/callers classifyFields";
    let comment = s.fake.add_comment_as("acme/web", 1, "dev", body);
    let synchronize = pr_event("synchronize", s.repo_id, 1, &head2, &base);
    let ask = member_comment(s.repo_id, comment, body);
    let (pushed, asked) = tokio::join!(
        s.fake.send_webhook("pull_request", "d-sync", &synchronize),
        s.fake.send_webhook("issue_comment", "d-ask", &ask),
    );
    assert_eq!((pushed.status_code, asked.status_code), (503, 503));
    assert_eq!(status_of(format!("{}/readyz", server.url)).await, 503);
    assert_eq!(status_of(format!("{}/healthz", server.url)).await, 200);
    // 5 s by default; BLAST_TEST_OUTAGE_SECONDS makes it longer (BENCHMARKS.md: the wait
    // for the database backs off to 15 s between probes).
    let outage = std::env::var("BLAST_TEST_OUTAGE_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    tokio::time::sleep(Duration::from_secs(outage)).await;
    assert!(alive(&mut server), "the process lives through the outage");
    assert_eq!(status_of(format!("{}/readyz", server.url)).await, 503);

    // Back: both are asked for again and handled, the summary edited in place.
    proxy.up();
    let back = Instant::now();
    let took = wait_until("recovered", 120, || written(&s.fake, &head2) == (1, 1, 1)).await;
    settle(&pool).await;
    eprintln!("recovered a synchronize and a command {took:?} after the database came back");
    assert!(took < Duration::from_secs(120), "{:?}", back.elapsed());
    assert!(alive(&mut server));
    assert_eq!(status_of(format!("{}/readyz", server.url)).await, 200);
    let summaries: Vec<_> = s
        .fake
        .issue_comments("acme/web", 1)
        .into_iter()
        .filter(|c| c.body.contains(SUMMARY))
        .collect();
    assert_eq!(summaries.len(), 1, "never a second summary");
    assert!(
        summaries[0].edits >= 1,
        "the summary was edited for the new head"
    );
    assert_eq!(written(&s.fake, &head2), (1, 1, 1));
    assert_eq!(
        count(&pool, "SELECT count(*) FROM jobs WHERE state = 'dead'").await,
        0,
        "no job died of the outage"
    );
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) FROM deliveries WHERE delivery_id IN ('d-sync', 'd-ask')"
        )
        .await,
        2
    );
}

/// Sends SIGTERM (a deploy) and waits for the process to end; its exit code and how long
/// it took.
async fn terminate(server: &mut Server) -> (Option<i32>, Duration) {
    let started = Instant::now();
    // SAFETY: a plain kill(2) of our own child.
    unsafe { libc::kill(server.child.id() as i32, libc::SIGTERM) };
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            return (status.code(), started.elapsed());
        }
        assert!(started.elapsed() < Duration::from_secs(60), "never exited");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[sqlx::test(migrations = false)]
async fn sigterm_mid_analysis_hands_the_job_back_refuses_deliveries_and_loses_nothing(
    pool: PgPool,
) {
    let s = Setup::new(&pool, "120").await;
    let grace = [("BLAST_SHUTDOWN_GRACE_SECONDS", "1")];
    let mut server = s.start_on(&s.db, &grace).await;
    s.install(&pool).await;
    let base = s.repo.head();
    let head = open_classify_pr(&s.fake, &s.repo, "classifyFields always returns an array");
    // The analysis is held while it publishes its check run, past the grace.
    s.fake.inject(
        "/check-runs",
        1,
        fake_github::Fault::Delay(Duration::from_secs(4)),
    );
    let opened = s
        .fake
        .send_webhook(
            "pull_request",
            "d-pr",
            &pr_event("opened", s.repo_id, 1, &head, &base),
        )
        .await;
    assert_eq!(opened.status_code, 202);
    wait_until("mid-analysis", 60, || {
        !s.fake.requests_matching("/check-runs").is_empty()
    })
    .await;

    // A deploy: SIGTERM; a command arrives while the process shuts down.
    let term = {
        let pid = server.child.id() as i32;
        // SAFETY: a plain kill(2) of our own child.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        Instant::now()
    };
    // Once the signal is taken, readiness says so.
    let ready = format!("{}/readyz", server.url);
    let started = Instant::now();
    while status_of(ready.clone()).await != 503 {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "readiness never fell"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let body = "/callers classifyFields";
    let comment = s.fake.add_comment_as("acme/web", 1, "dev", body);
    let asked = s
        .fake
        .send_webhook(
            "issue_comment",
            "d-ask",
            &member_comment(s.repo_id, comment, body),
        )
        .await;
    assert_eq!(
        asked.status_code, 503,
        "refused while shutting down: {asked:?}"
    );
    let (code, _) = terminate(&mut server).await;
    let took = term.elapsed();
    eprintln!("exited {took:?} after SIGTERM (grace 1 s)");
    assert_eq!(code, Some(0), "a clean exit");
    assert!(
        took < Duration::from_secs(15),
        "within the grace and the release: {took:?}"
    );
    // Handed back, its attempt not counted; nothing about the command recorded.
    let (state, attempts): (String, i32) =
        sqlx::query_as("SELECT state, attempts FROM jobs WHERE kind = 'analyze_pr'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!((state.as_str(), attempts), ("waiting", 0));
    assert_eq!(
        count(
            &pool,
            "SELECT count(*) FROM deliveries WHERE delivery_id = 'd-ask'"
        )
        .await,
        0
    );

    // The restart: the analysis runs again, the command is recovered; each written once.
    let _server = s.start().await;
    wait_until("finished after the restart", 60, || {
        written(&s.fake, &head) == (1, 1, 1)
    })
    .await;
    settle(&pool).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(written(&s.fake, &head), (1, 1, 1), "nothing doubled");
    assert_eq!(s.fake.check_runs("acme/web").len(), 1);
    assert_eq!(s.fake.reviews("acme/web", 1).len(), 1);
    assert!(s.fake.pending_reviews().is_empty());
}

#[sqlx::test(migrations = false)]
async fn an_open_pr_github_holds_no_delivery_of_is_analysed_after_the_catch_up(pool: PgPool) {
    let s = Setup::new(&pool, "120").await;
    let server = s.start().await;
    s.install(&pool).await;
    drop(server);
    // Opened while the server was down, and GitHub logged no delivery of it (past its
    // 3 days, or never sent): nothing to redeliver.
    let head = open_classify_pr(&s.fake, &s.repo, "classifyFields always returns an array");
    let server = s.start().await;
    wait_until("analysed after the catch-up", 60, || {
        written(&s.fake, &head) == (1, 0, 1)
    })
    .await;
    settle(&pool).await;
    assert!(s.fake.hook_attempts().iter().all(|a| !a.redelivery));
    // The next catch-up finds it analysed: nothing more.
    drop(server);
    let _server = s.start().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    settle(&pool).await;
    assert_eq!(written(&s.fake, &head), (1, 0, 1));
    assert_eq!(
        count(&pool, "SELECT count(*) FROM jobs WHERE kind = 'analyze_pr'").await,
        1
    );
    if let Some(report) = s.fake.check_against_openapi() {
        report.assert_clean();
        assert!(
            report.saw("GET /repos/{owner}/{repo}/pulls"),
            "{:?}",
            report.operations
        );
    }
}
