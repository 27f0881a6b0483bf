//! A recovery round in this process, against the fake's delivery log and a real
//! Postgres: the log is read by cursor pages back to the mark, a round asks for at most
//! its cap of redeliveries, a delivery intake recorded is never asked for, and the mark
//! waits at the oldest one still missed.

use crate::common::server::{free_port, APP_ID, PRIVATE_KEY_PKCS1, SECRET};
use crate::fake_github::FakeGithub;

use std::time::Duration;

use blast_radius::github::{AppPrivateKey, GithubApp, GithubConfig};
use blast_radius::queue::{Delivery, Queue, QueueConfig};
use blast_radius::server::recovery::{run_round, RecoverySettings};
use blast_radius::store::Store;
use serde_json::json;
use sqlx::PgPool;

async fn app(fake: &FakeGithub) -> GithubApp {
    let key = AppPrivateKey::from_pem(PRIVATE_KEY_PKCS1).unwrap();
    let mut config = GithubConfig::new(APP_ID, key).with_api_url(fake.api_url());
    config.request_timeout = Duration::from_secs(10);
    GithubApp::new(&config).unwrap()
}

/// `n` pushes GitHub failed to deliver (the App's port is closed), as `g-0` ... .
async fn missed(fake: &FakeGithub, n: usize) {
    fake.set_webhook(&format!("http://127.0.0.1:{}/webhook", free_port()), SECRET);
    for i in 0..n {
        let payload = json!({"ref": "refs/heads/main", "installation": {"id": 7}, "repository": {"id": 1000 + i}});
        let attempt = fake.send_webhook("push", &format!("g-{i}"), &payload).await;
        assert_eq!(attempt.status_code, 0);
    }
}

#[tokio::test]
async fn the_log_is_read_by_cursor_pages_back_to_a_time_within_a_page_budget() {
    let fake = FakeGithub::start().await;
    missed(&fake, 150).await;
    let app = app(&fake).await;
    let long_ago = chrono::Utc::now() - chrono::Duration::days(3);
    let log = app.hook_deliveries(long_ago, 10).await.unwrap();
    assert!(log.complete);
    assert_eq!((log.attempts.len(), log.pages), (150, 2));
    assert_eq!(log.attempts[0].guid, "g-149", "newest first");
    let cut = app.hook_deliveries(long_ago, 1).await.unwrap();
    assert!(!cut.complete, "one page of two read");
    assert_eq!(cut.attempts.len(), 100);
    // Back to a point in time: the page that reaches it is the last read.
    let since = chrono::Utc::now() + chrono::Duration::seconds(1);
    let none = app.hook_deliveries(since, 10).await.unwrap();
    assert!(none.complete);
    assert_eq!((none.attempts.len(), none.pages), (0, 1));
    let pages: Vec<_> = fake
        .requests_to("GET", "/app/hook/deliveries")
        .into_iter()
        .map(|r| r.query.unwrap_or_default())
        .collect();
    assert!(pages[1].contains("cursor=v1_"), "{pages:?}");
    if let Some(report) = fake.check_against_openapi() {
        report.assert_clean();
    }
}

#[sqlx::test(migrations = false)]
async fn a_round_asks_for_its_cap_skips_what_intake_recorded_and_keeps_the_mark_at_the_oldest_missed(
    pool: PgPool,
) {
    Store::from_pool(pool.clone()).migrate().await.unwrap();
    let queue = Queue::new(pool.clone(), QueueConfig::default());
    let fake = FakeGithub::start().await;
    missed(&fake, 8).await;
    // Intake recorded g-0 after all (the answer was lost on the way back).
    queue
        .record_delivery_and_enqueue(
            &Delivery {
                id: "g-0".into(),
                event: "push".into(),
                action: None,
                installation_id: Some(7),
                repository_id: Some(1000),
            },
            &[],
        )
        .await
        .unwrap();
    let app = app(&fake).await;
    let settings = RecoverySettings {
        max_redeliveries: 3,
        ..RecoverySettings::default()
    };
    let round = run_round(&app, &queue, "test", &settings)
        .await
        .unwrap()
        .expect("held");
    assert_eq!(
        (round.read, round.redelivered, round.outstanding),
        (8, 3, 7)
    );
    let asked: Vec<String> = fake
        .requests_to("POST", "/app/hook/deliveries/")
        .into_iter()
        .map(|r| r.path)
        .collect();
    assert_eq!(asked.len(), 3);
    // Oldest first: g-1, g-2, g-3 (g-0 is recorded).
    let attempts = fake.hook_attempts();
    let id_of = |guid: &str| attempts.iter().find(|a| a.guid == guid).unwrap().id;
    for (path, guid) in asked.iter().zip(["g-1", "g-2", "g-3"]) {
        assert_eq!(
            path,
            &format!("/app/hook/deliveries/{}/attempts", id_of(guid))
        );
    }
    // The mark waits at g-1's first attempt (or a minute before the round, GitHub's
    // lag in logging attempts, if that is earlier).
    let mark: f64 = sqlx::query_scalar(
        "SELECT extract(epoch FROM taken_through)::float8 FROM delivery_recovery",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let g1 = attempts
        .iter()
        .find(|a| a.guid == "g-1")
        .unwrap()
        .delivered_at;
    let g1 = g1.timestamp_micros() as f64 / 1e6;
    assert!(mark <= g1 && mark > g1 - 62.0, "{mark} vs {g1}");
    // Another process cannot run a round while this one holds it.
    let held = queue
        .hold_recovery("other", Duration::from_secs(60))
        .await
        .unwrap();
    assert!(held.is_some(), "released at the end of the round");
    assert!(run_round(&app, &queue, "test", &settings)
        .await
        .unwrap()
        .is_none());
    if let Some(report) = fake.check_against_openapi() {
        report.assert_clean();
        assert!(report.saw("POST /app/hook/deliveries/{delivery_id}/attempts"));
    }
}
