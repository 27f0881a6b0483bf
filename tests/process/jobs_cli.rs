//! `blast-radius jobs` as the binary, against a real database: list the queue's jobs,
//! retry dead ones.

use crate::common;

use std::time::Duration;

use blast_radius::queue::{JobId, JobState, NewJob, Queue, QueueConfig};
use common::{run, run_ok};
use sqlx::{ConnectOptions, PgPool};

fn url_of(pool: &PgPool) -> String {
    pool.connect_options().to_url_lossy().to_string()
}

/// A job that died of `error`.
async fn dead(q: &Queue, kind: &str, error: &str) -> JobId {
    let id = q
        .enqueue(&NewJob::new(kind, serde_json::json!({})))
        .await
        .unwrap()
        .id;
    let j = q.claim("w").await.unwrap().unwrap();
    assert_eq!(j.id, id);
    q.fail(&j, error, true).await.unwrap();
    id
}

#[sqlx::test]
async fn jobs_list_and_retry_dead(pool: PgPool) {
    let url = url_of(&pool);
    let q = Queue::new(pool.clone(), QueueConfig::default());
    let a = dead(
        &q,
        "index_repository",
        "acme/web: not found on GitHub\nmore",
    )
    .await;
    let b = dead(&q, "analyze_pr", "GitHub answered 422").await;
    let c = dead(&q, "apply_push", "GitHub answered 500").await;
    let waiting = q
        .enqueue(
            &NewJob::new("sync_installation", serde_json::json!({}))
                .delay(Duration::from_secs(600)),
        )
        .await
        .unwrap()
        .id;

    let out = run_ok(&["jobs", "list", "--state", "dead", "--database-url", &url]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].trim_start().starts_with(&c.0.to_string()),
        "newest first: {out}"
    );
    assert!(lines[2].contains("index_repository"), "{out}");
    assert!(lines[2].contains("dead"), "{out}");
    assert!(lines[2].contains("attempt 1/8"), "{out}");
    assert!(
        lines[2].ends_with("acme/web: not found on GitHub"),
        "first line only: {out}"
    );
    let all = run_ok(&["jobs", "list", "--limit", "2", "--database-url", &url]);
    assert_eq!(all.lines().count(), 2, "{all}");
    assert!(all.contains(&waiting.0.to_string()), "{all}");

    // One by id; a job that is not dead is named in a one-line error.
    let out = run_ok(&[
        "jobs",
        "retry-dead",
        &a.0.to_string(),
        "--database-url",
        &url,
    ]);
    assert!(out.contains(&format!("job {} waiting again", a.0)), "{out}");
    assert_eq!(q.state(a).await.unwrap(), Some(JobState::Waiting));
    let failed = run(&[
        "jobs",
        "retry-dead",
        &waiting.0.to_string(),
        "--database-url",
        &url,
    ]);
    assert!(!failed.status.success());
    let err = String::from_utf8(failed.stderr).unwrap();
    assert!(
        err.contains(&format!("not dead (or no such job): {}", waiting.0)),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");

    // The rest at once.
    let out = run_ok(&["jobs", "retry-dead", "--all", "--database-url", &url]);
    assert!(out.contains("2 dead job(s) waiting again"), "{out}");
    for id in [b, c] {
        assert_eq!(q.state(id).await.unwrap(), Some(JobState::Waiting));
    }
    let none = run_ok(&["jobs", "list", "--state", "dead", "--database-url", &url]);
    assert!(none.is_empty(), "{none}");

    // Without a database: what to give.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_blast-radius"))
        .args(["jobs", "list"])
        .env_remove("DATABASE_URL")
        .env_remove("BLAST_DATABASE_URL")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("say which database"));
}
