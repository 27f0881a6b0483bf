//! A soak of the queue's tables: thousands of signed deliveries sent to `blast-radius
//! serve` (GitHub faked on loopback), in rounds; after each round the finished work is
//! pruned to a retention of one round, and /metrics is timed. The tables must come back
//! to their retention size every round, and the scrape must not grow with what is done.
//!
//! Takes a minute or so: `cargo test --test process -- --ignored --nocapture soak::`
//! (SOAK_ROUNDS, SOAK_PER_ROUND to change its size). Prints the figures BENCHMARKS.md
//! records.

use crate::common;
#[allow(unused_imports)]
use crate::fake_github;

use std::process::Stdio;
use std::time::{Duration, Instant};

use blast_radius::intake::sign;
use blast_radius::queue::{Queue, QueueConfig, Retention};
use common::server::{launch, settle, SECRET, STATUS_TOKEN};
use fake_github::FakeGithub;
use serde_json::json;
use sqlx::{ConnectOptions, PgPool};

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A pull request closed: a job that is done at once, as many real ones are.
fn closed(repo: i64, number: u64) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "action": "closed",
        "number": number,
        "pull_request": {
            "head": { "ref": "fix", "sha": "c".repeat(40), "repo": { "id": repo } },
            "base": { "ref": "main", "sha": "d".repeat(40), "repo": { "id": repo } },
            "draft": false, "merged": true,
        },
        "repository": { "id": repo, "full_name": format!("acme/r{repo}"), "default_branch": "main" },
        "installation": { "id": 7 },
    }))
    .unwrap()
}

async fn rows(pool: &PgPool, table: &str) -> i64 {
    sqlx::query_scalar(&format!("SELECT count(*) FROM {table}"))
        .fetch_one(pool)
        .await
        .unwrap()
}

/// The median of 9 scrapes of /metrics, in ms.
async fn scrape_ms(client: &reqwest::Client, url: &str) -> f64 {
    let mut times = Vec::new();
    for _ in 0..9 {
        let t = Instant::now();
        let r = client
            .get(format!("{url}/metrics"))
            .bearer_auth(STATUS_TOKEN)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
        r.text().await.unwrap();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    times[4]
}

/// What the scrape used to run: a count of every job by state, in ms (median of 9).
async fn whole_table_count_ms(pool: &PgPool) -> f64 {
    let mut times = Vec::new();
    for _ in 0..9 {
        let t = Instant::now();
        sqlx::query(
            "SELECT count(*) FILTER (WHERE state = 'waiting'), count(*) FILTER (WHERE state = 'done'),
                    count(*) FILTER (WHERE state = 'dead') FROM jobs",
        )
        .fetch_one(pool)
        .await
        .unwrap();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    times[4]
}

#[sqlx::test(migrations = false)]
#[ignore = "a soak of a minute or so: cargo test --test process -- --ignored --nocapture soak::"]
async fn the_queue_tables_stay_at_their_retention_size(pool: PgPool) {
    let rounds = env_or("SOAK_ROUNDS", 6);
    let per_round = env_or("SOAK_PER_ROUND", 600);
    let fake = FakeGithub::start().await;
    let db = pool.connect_options().to_url_lossy().to_string();
    let server = launch("serve", &db, &fake.api_url(), &[], Stdio::null()).await;
    let client = reqwest::Client::new();
    let queue = Queue::new(pool.clone(), QueueConfig::default());
    let began = Instant::now();
    let mut first_scrape = None;
    println!("round  deliveries  jobs  (before prune)  deliveries  jobs  (after)  scrape ms  whole-table count ms");
    for round in 0..rounds {
        let round_began = Instant::now();
        // 16 senders at once, as GitHub's bursts come.
        let mut senders = tokio::task::JoinSet::new();
        for s in 0..16 {
            let client = client.clone();
            let url = server.url.clone();
            senders.spawn(async move {
                for i in (s..per_round).step_by(16) {
                    let n = (round * per_round + i) as u64;
                    let body = closed(1000 + (n % 40) as i64, n);
                    let status = client
                        .post(format!("{url}/webhook"))
                        .header("X-GitHub-Event", "pull_request")
                        .header("X-GitHub-Delivery", format!("soak-{n}"))
                        .header("X-Hub-Signature-256", sign(SECRET, &body))
                        .header("Content-Type", "application/json")
                        .body(body)
                        .send()
                        .await
                        .unwrap()
                        .status();
                    assert_eq!(status.as_u16(), 202);
                }
            });
        }
        while let Some(done) = senders.join_next().await {
            done.unwrap();
        }
        settle(&pool).await;
        let before = (rows(&pool, "deliveries").await, rows(&pool, "jobs").await);
        let count_ms = whole_table_count_ms(&pool).await;
        // Retention: the last round's work is kept, everything older goes.
        let keep = round_began.elapsed() + Duration::from_millis(50);
        let retention = Retention {
            done: keep,
            dead: keep,
            deliveries: keep,
            batch: 500,
            ..Retention::default()
        };
        queue.prune(&retention).await.unwrap();
        let after = (rows(&pool, "deliveries").await, rows(&pool, "jobs").await);
        let scrape = scrape_ms(&client, &server.url).await;
        first_scrape.get_or_insert(scrape);
        println!(
            "{round:>5}  {:>10}  {:>4}  {:>14}  {:>10}  {:>4}  {:>7}  {scrape:>9.2}  {count_ms:>20.2}",
            before.0, before.1, "", after.0, after.1, ""
        );
        // Back to one round's worth, however many rounds came before.
        assert!(after.0 <= per_round as i64, "deliveries kept: {after:?}");
        assert!(after.1 <= per_round as i64, "jobs kept: {after:?}");
    }
    let sizes: Vec<(String, i64)> = sqlx::query_as(
        "SELECT relname::text, pg_total_relation_size(oid) FROM pg_class
         WHERE relname IN ('jobs', 'deliveries') ORDER BY relname",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    // A history no one pruned (a month of a busy installation's done jobs): the scrape
    // does not count it; the old whole-table count did. Then one pruning clears it in
    // batches.
    let history = env_or("SOAK_HISTORY", 300_000) as i64;
    sqlx::query(
        "INSERT INTO jobs (kind, payload, state, finished_at)
         SELECT 'answer_command', '{\"body\": \"@blast-radius callers x\"}', 'done',
                now() - interval '40 days'
         FROM generate_series(1, $1)",
    )
    .bind(history)
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query("ANALYZE jobs").execute(&pool).await.unwrap();
    let scrape_with_history = scrape_ms(&client, &server.url).await;
    let count_with_history = whole_table_count_ms(&pool).await;
    let t = Instant::now();
    let pruned = queue.prune(&Retention::default()).await.unwrap();
    let prune_s = t.elapsed().as_secs_f64();
    assert_eq!(pruned.done, history as u64);
    let scrape_after = scrape_ms(&client, &server.url).await;
    println!(
        "with {history} unpruned done jobs: scrape {scrape_with_history:.2} ms, whole-table count \
         {count_with_history:.2} ms; pruned in {prune_s:.1} s (batches of 1000); scrape after \
         {scrape_after:.2} ms"
    );
    println!(
        "{} deliveries in {:.1} s; scrape first {:.2} ms; table bytes {sizes:?}",
        rounds * per_round,
        began.elapsed().as_secs_f64(),
        first_scrape.unwrap()
    );
    drop(server);
}
