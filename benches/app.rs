//! The GitHub App's figures (see BENCHMARKS.md), with GitHub faked on loopback and the
//! release binary as the server:
//!   BLAST_CORPUS=DIR DATABASE_URL=postgres://... cargo bench --bench app
//! Uses (and drops) databases named `blast_bench_app` and `blast_bench_cli`. Prints:
//! intake latency at 200 signed deliveries per second for 30 s; installing a repository
//! the size of the corpus, webhook to graph stored, against `index --database-url` on a
//! local checkout; one changed file pushed, webhook to graph stored; a pull request
//! changing 50 files, webhook to summary comment posted; `/callers` in its thread,
//! webhook to reply posted.
//!
//! BLAST_BENCH_COPIES=N makes the repository N copies of the corpus side by side (a
//! monorepo: 10 copies of the full corpus are 104,000 source files), and adds the
//! server's peak RSS, `index` without a database, `/callers` from a restarted server (the
//! graph reloaded from rows) and a cold `callers --database-url` process. BLAST_INTAKE_SECONDS=0
//! skips the intake part.

mod common;
#[path = "../tests/fake_github/mod.rs"]
mod fake_github;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use blast_radius::intake::sign;
use common::{binary, free_port, fresh_database};
use fake_github::{FakeGithub, TestRepo, APP_ID, PRIVATE_KEY_PKCS1};
use serde_json::json;
use sqlx::PgPool;

const SECRET: &str = "bench secret";
/// The intake part's deliveries come from an installation of their own: their 6,000
/// jobs each make a GitHub call, and the fake (as GitHub) allows an installation 5,000
/// requests an hour, which would leave the install below waiting for the next hour.
const NOISE_INSTALLATION: i64 = 8;
/// Their repositories' ids: apart from the fake's own (from 1000 up), so no job of the
/// noise shares a repository's serial key with the install.
const NOISE_REPOSITORIES: i64 = 900_000;

struct Server(Child);

impl Server {
    /// The process's peak resident memory so far (`VmHWM`), in MB.
    fn peak_rss_mb(&self) -> u64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.0.id())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    }
}

/// Runs a command under `/usr/bin/time`: its wall seconds and peak RSS in MB. It must
/// succeed, or fail saying `allowed` (an answer all the same).
fn timed(cmd: &mut Command, allowed: Option<&str>) -> (f64, u64) {
    let program = cmd.get_program().to_owned();
    let args: Vec<_> = cmd.get_args().map(|a| a.to_owned()).collect();
    let t = Instant::now();
    let out = Command::new("/usr/bin/time")
        .args(["-f", "peak-rss-kb %M"])
        .arg(program)
        .args(args)
        .output()
        .expect("/usr/bin/time");
    let secs = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() || allowed.is_some_and(|a| err.contains(a)),
        "{err}"
    );
    let kb: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("peak-rss-kb "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    (secs, kb / 1024)
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn serve(db: &str, fake: &FakeGithub, port: u16) -> Server {
    let child = Command::new(binary())
        .arg("serve")
        .env("GITHUB_APP_ID", APP_ID.to_string())
        .env("GITHUB_PRIVATE_KEY", PRIVATE_KEY_PKCS1)
        .env("GITHUB_WEBHOOK_SECRET", SECRET)
        .env("DATABASE_URL", db)
        .env("GITHUB_API_URL", fake.api_url())
        .env("PORT", port.to_string())
        .env("BLAST_CATCH_UP_MINUTES", "0")
        .stdout(Stdio::null())
        // BLAST_BENCH_LOG=FILE keeps the server's log, to see where the time goes.
        .stderr(match std::env::var_os("BLAST_BENCH_LOG") {
            Some(path) => Stdio::from(std::fs::File::create(path).unwrap()),
            None => Stdio::null(),
        })
        .spawn()
        .expect("build the release binary first: cargo build --release");
    let deadline = Instant::now() + Duration::from_secs(60);
    while reqwest::get(format!("http://127.0.0.1:{port}/readyz"))
        .await
        .map_or(true, |r| !r.status().is_success())
    {
        assert!(Instant::now() < deadline, "server not ready");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Server(child)
}

async fn deliver(client: &reqwest::Client, port: u16, event: &str, id: &str, body: &[u8]) -> u16 {
    client
        .post(format!("http://127.0.0.1:{port}/webhook"))
        .header("X-GitHub-Event", event)
        .header("X-GitHub-Delivery", id)
        .header("X-Hub-Signature-256", sign(SECRET, body))
        .header("Content-Type", "application/json")
        .body(body.to_vec())
        .send()
        .await
        .map(|r| r.status().as_u16())
        .unwrap_or(0)
}

fn push(repo: i64, before: &str, after: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "ref": "refs/heads/main", "before": before, "after": after,
        "created": false, "deleted": false, "forced": false,
        "repository": { "id": repo, "full_name": format!("noise/r{repo}"), "default_branch": "main" },
        "installation": { "id": NOISE_INSTALLATION },
    }))
    .unwrap()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn wait_for_commit(pool: &PgPool, name: &str, commit: &str) {
    loop {
        let at: Option<Option<String>> =
            sqlx::query_scalar("SELECT commit_sha FROM repositories WHERE full_name = $1")
                .bind(name)
                .fetch_optional(pool)
                .await
                .unwrap();
        if at.flatten().as_deref() == Some(commit) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

fn main() {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run());
}

async fn run() {
    let fake = FakeGithub::start().await;
    fake.add_installation(7, "acme");
    fake.add_installation(NOISE_INSTALLATION, "noise");
    let db = fresh_database("blast_bench_app").await;
    let pool = PgPool::connect(&db).await.unwrap();
    let port = free_port();
    let server = serve(&db, &fake, port).await;
    let client = reqwest::Client::new();

    // ---- intake: 200 deliveries per second for 30 s ----
    let seconds: u64 = std::env::var("BLAST_INTAKE_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let total = 200 * seconds as usize;
    if total > 0 {
        intake(&client, port, &pool, total).await;
    }

    // ---- install a repository the size of the corpus (or N times it) ----
    let copies: usize = std::env::var("BLAST_BENCH_COPIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let corpus = common::corpus();
    let repo = TestRepo::new();
    if copies == 1 {
        common_copy(&corpus, repo.path());
    } else {
        for k in 0..copies {
            let dir = repo.path().join(format!("copy{k}"));
            std::fs::create_dir_all(&dir).unwrap();
            common_copy(&corpus, &dir);
        }
    }
    let head = repo.commit("corpus");
    let sources = repo
        .git(&[
            "ls-files", "*.js", "*.mjs", "*.cjs", "*.jsx", "*.ts", "*.mts", "*.cts", "*.tsx",
        ])
        .lines()
        .count();
    println!("repository: {copies} cop(ies) of the corpus, {sources} source files");
    let id = fake.add_repo(7, "acme/corpus", repo.path());
    // The archive GitHub would serve, made before the clock starts (see git::archive).
    fake_github::git::archive(repo.path(), &head, &format!("acme-corpus-{}", &head[..7])).unwrap();
    let installed = serde_json::to_vec(&json!({
        "action": "created",
        "installation": { "id": 7, "account": { "login": "acme" } },
        "repositories": [ { "id": id, "full_name": "acme/corpus" } ],
    }))
    .unwrap();
    let t = Instant::now();
    assert_eq!(
        deliver(&client, port, "installation", "install-1", &installed).await,
        202
    );
    wait_for_commit(&pool, "acme/corpus", &head).await;
    let install = t.elapsed().as_secs_f64();
    let install_peak = server.peak_rss_mb();
    let cli_db = fresh_database("blast_bench_cli").await;
    let migrate = Command::new(binary())
        .args(["migrate", "--database-url", &cli_db])
        .output()
        .unwrap();
    assert!(migrate.status.success());
    let t = Instant::now();
    let out = Command::new(binary())
        .args(["index", "--repo"])
        .arg(repo.path())
        .args(["--database-url", &cli_db, "--name", "corpus"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli = t.elapsed().as_secs_f64();
    println!(
        "install, webhook to graph stored: {install:.2} s (server peak RSS {install_peak} MB); index --database-url on a local checkout: {cli:.2} s ({:.2}x)",
        install / cli
    );
    let (index_only, index_rss) = timed(
        Command::new(binary())
            .args(["index", "--repo"])
            .arg(repo.path()),
        None,
    );
    println!("index without a database: {index_only:.2} s, peak RSS {index_rss} MB");

    // ---- one changed file pushed, webhook to graph stored ----
    // ---- one changed file pushed, webhook to graph stored ----
    let files: Vec<String> = repo
        .git(&["ls-files", "*.js"])
        .lines()
        .filter(|p| !p.contains("node_modules"))
        .map(str::to_string)
        .collect();
    let mut times = Vec::new();
    let mut before = head;
    for k in 0..10 {
        let path = &files[(k * 97) % files.len()];
        let mut text = std::fs::read_to_string(repo.path().join(path)).unwrap_or_default();
        text.push_str(&format!(
            "\nexport function benchEdit{k}() {{ return {k}; }}\n"
        ));
        repo.write(path, text);
        let after = repo.commit("edit");
        let body = serde_json::to_vec(&json!({
            "ref": "refs/heads/main", "before": before, "after": after,
            "created": false, "deleted": false, "forced": false,
            "repository": { "id": id, "full_name": "acme/corpus", "default_branch": "main" },
            "installation": { "id": 7 },
        }))
        .unwrap();
        let t = Instant::now();
        assert_eq!(
            deliver(&client, port, "push", &format!("push-{k}"), &body).await,
            202
        );
        wait_for_commit(&pool, "acme/corpus", &after).await;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        before = after;
    }
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    println!(
        "push of one changed file, webhook to graph stored: median {:.0} ms, max {:.0} ms over {} pushes",
        percentile(&sorted, 0.5),
        sorted[sorted.len() - 1],
        sorted.len()
    );

    // ---- a pull request changing 50 files, webhook to summary comment posted ----
    let mut pr_times = Vec::new();
    let mut callers_times = Vec::new();
    for number in 1..=3u64 {
        idle(&pool).await;
        let branch = format!("pr{number}");
        repo.git(&["checkout", "-q", "-b", &branch]);
        let mut edited = 0;
        let mut k = number as usize * 1_000;
        while edited < 50 {
            let path = &files[(k * 97) % files.len()];
            k += 1;
            let text = std::fs::read_to_string(repo.path().join(path)).unwrap_or_default();
            // A changed body: `return x` becomes `return void 0, x`, same value and type.
            let Some(at) = text.find("return ").filter(|&i| {
                !matches!(text.as_bytes().get(i + 7), Some(b';' | b'\n' | b'}') | None)
            }) else {
                continue;
            };
            repo.write(
                path,
                format!("{}return void 0, {}", &text[..at], &text[at + 7..]),
            );
            edited += 1;
        }
        let pr_head = repo.commit("fifty files");
        repo.git(&["checkout", "-q", "main"]);
        fake.open_pr("acme/corpus", number, "main", &branch);
        fake.prepare_pr("acme/corpus", number).await;
        let body = serde_json::to_vec(&json!({
            "action": "opened",
            "number": number,
            "pull_request": {
                "head": { "ref": branch, "sha": pr_head, "repo": { "id": id } },
                "base": { "ref": "main", "sha": before, "repo": { "id": id } },
                "draft": false,
            },
            "repository": { "id": id, "full_name": "acme/corpus", "default_branch": "main" },
            "installation": { "id": 7 },
        }))
        .unwrap();
        let t = Instant::now();
        assert_eq!(
            deliver(
                &client,
                port,
                "pull_request",
                &format!("pr-{number}"),
                &body
            )
            .await,
            202
        );
        wait_for_comment(&fake, number, "<!-- blast-radius:summary -->").await;
        pr_times.push(t.elapsed().as_secs_f64() * 1e3);

        // ---- /callers in its thread, webhook to reply posted ----
        idle(&pool).await;
        let (comment, body) = ask_callers(&fake, id, number);
        let t = Instant::now();
        assert_eq!(
            deliver(
                &client,
                port,
                "issue_comment",
                &format!("ask-{number}"),
                &body
            )
            .await,
            202
        );
        wait_for_comment(
            &fake,
            number,
            &format!("<!-- blast-radius:command:{comment} -->"),
        )
        .await;
        callers_times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "pull request changing 50 files, webhook to summary comment posted: {} ms",
        pr_times
            .iter()
            .map(|t| format!("{t:.0}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "/callers, webhook to reply posted: {} ms",
        callers_times
            .iter()
            .map(|t| format!("{t:.0}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "server peak RSS over the whole run: {} MB",
        server.peak_rss_mb()
    );
    drop(server);

    // ---- the graph reloaded from rows: a restarted server, and a cold CLI ----
    let server = serve(&db, &fake, port).await;
    idle(&pool).await;
    let (comment, body) = ask_callers(&fake, id, 1);
    let t = Instant::now();
    assert_eq!(
        deliver(&client, port, "issue_comment", "ask-cold", &body).await,
        202
    );
    wait_for_comment(
        &fake,
        1,
        &format!("<!-- blast-radius:command:{comment} -->"),
    )
    .await;
    println!(
        "/callers from a restarted server (graph reloaded from rows), webhook to reply posted: {:.0} ms; server peak RSS {} MB",
        t.elapsed().as_secs_f64() * 1e3,
        server.peak_rss_mb()
    );
    drop(server);
    let (cold, cold_rss) = timed(
        Command::new(binary()).args([
            "callers",
            "baseGetTag",
            "--database-url",
            &cli_db,
            "--name",
            "corpus",
        ]),
        // In a monorepo of copies the name is ambiguous: the answer lists the candidates.
        Some("names"),
    );
    println!(
        "callers --database-url, a cold process (load the graph from rows, answer): {cold:.2} s, peak RSS {cold_rss} MB; index without a database / this: {:.1}x",
        index_only / cold
    );
}

/// A member's `/callers baseGetTag` in PR `number`'s thread: the comment's id and its
/// `issue_comment` delivery.
fn ask_callers(fake: &FakeGithub, repo: i64, number: u64) -> (u64, Vec<u8>) {
    let text = "/callers baseGetTag";
    let comment = fake.add_comment_as("acme/corpus", number, "dev", text);
    let body = serde_json::to_vec(&json!({
        "action": "created",
        "issue": { "number": number, "pull_request": { "url": "x" } },
        "comment": {
            "id": comment, "body": text, "user": { "login": "dev", "type": "User" },
            "author_association": "MEMBER",
        },
        "repository": { "id": repo, "full_name": "acme/corpus", "default_branch": "main" },
        "installation": { "id": 7 },
    }))
    .unwrap();
    (comment, body)
}

/// 200 signed deliveries per second until `total`; prints their latencies.
async fn intake(client: &reqwest::Client, port: u16, pool: &PgPool, total: usize) {
    let start = Instant::now();
    let mut tasks = Vec::with_capacity(total);
    for i in 0..total {
        let due = start + Duration::from_micros(5_000 * i as u64);
        tokio::time::sleep_until(due.into()).await;
        let client = client.clone();
        // Pushes to the default branches of 20 repositories GitHub does not know: each
        // a delivery and a job, as real pushes are.
        let body = push(
            NOISE_REPOSITORIES + (i % 20) as i64,
            &format!("{:040x}", i),
            &format!("{:040x}", i + 1),
        );
        tasks.push(tokio::spawn(async move {
            let t = Instant::now();
            let status = deliver(&client, port, "push", &format!("bench-{i}"), &body).await;
            (status, t.elapsed().as_secs_f64() * 1e3)
        }));
    }
    let mut latencies = Vec::with_capacity(total);
    let mut failed = 0;
    for t in tasks {
        let (status, ms) = t.await.unwrap();
        if !(200..300).contains(&status) {
            failed += 1;
        }
        latencies.push(ms);
    }
    latencies.sort_by(f64::total_cmp);
    let recorded: i64 = sqlx::query_scalar("SELECT count(*) FROM deliveries")
        .fetch_one(pool)
        .await
        .unwrap();
    println!(
        "intake: {total} deliveries at 200/s: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; {failed} not 2xx; {recorded} recorded",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies[latencies.len() - 1],
    );

    // The noise's jobs run (or wait out the fake's rate limit) before the clock starts.
    idle(pool).await;
}

/// Until no job runs or waits to run, and a second more (the App spaces out its
/// comments: the next one timed must not wait for the last one's slot).
async fn idle(pool: &PgPool) {
    loop {
        let busy: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM jobs WHERE state = 'running' OR (state = 'waiting' AND run_at <= now())",
        )
        .fetch_one(pool)
        .await
        .unwrap();
        if busy == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(1_100)).await;
}

async fn wait_for_comment(fake: &FakeGithub, number: u64, marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !fake
        .issue_comments("acme/corpus", number)
        .iter()
        .any(|c| c.body.contains(marker))
    {
        assert!(Instant::now() < deadline, "no comment with {marker}");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// Copies the corpus into the repository (no node_modules: the corpus keeps packages
/// outside it).
fn common_copy(from: &std::path::Path, to: &std::path::Path) {
    let status = Command::new("cp")
        .arg("-R")
        .arg(format!("{}/.", from.display()))
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}
