//! The job queue on a real Postgres: claims are exactly-once, keys are exclusive and
//! ordered, newer work coalesces and supersedes, failures back off and die with their
//! error, shutdown gives work back, and a dead worker's job is taken over.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use blast_radius::queue::{
    run_pruner, run_workers, Delivery, Failed, JobError, JobId, JobState, NewJob, Pruned, Queue,
    QueueConfig, QueueError, Recorded, Retention, RunningJob, MAX_BATCH,
};
use serde_json::json;
use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;

fn config() -> QueueConfig {
    QueueConfig {
        lease: Duration::from_secs(10),
        heartbeat: Duration::from_secs(2),
        max_attempts: 5,
        backoff_base: Duration::from_millis(200),
        backoff_max: Duration::from_secs(2),
        poll_interval: Duration::from_millis(50),
        shutdown_grace: Duration::from_millis(500),
        listen: false,
        worker_name: "test".into(),
        ..QueueConfig::default()
    }
}

fn queue(pool: &PgPool) -> Queue {
    Queue::new(pool.clone(), config())
}

/// Another pool on the same database: another process, as far as Postgres can tell.
async fn other_process(pool: &PgPool, config: QueueConfig) -> Queue {
    let other = PgPoolOptions::new()
        .max_connections(8)
        .connect_with((*pool.connect_options()).clone())
        .await
        .unwrap();
    Queue::new(other, config)
}

fn job(kind: &str, payload: serde_json::Value) -> NewJob {
    NewJob::new(kind, payload)
}

async fn wait_until<F, Fut>(what: &str, mut done: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !done().await {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn states(pool: &PgPool) -> HashMap<String, i64> {
    sqlx::query_as::<_, (String, i64)>("SELECT state, count(*) FROM jobs GROUP BY state")
        .fetch_all(pool)
        .await
        .unwrap()
        .into_iter()
        .collect()
}

#[sqlx::test]
async fn many_concurrent_claimers_claim_each_job_exactly_once(pool: PgPool) {
    let q1 = queue(&pool);
    let q2 = other_process(&pool, config()).await;
    let mut enqueued = HashSet::new();
    for i in 0..300 {
        // Unkeyed jobs and jobs of 30 keys, interleaved.
        let mut j = job("count", json!({ "i": i }));
        if i % 2 == 0 {
            j = j.serial(format!("repo:{}", i % 30));
        }
        enqueued.insert(q1.enqueue(&j).await.unwrap().id);
    }
    let claimed: Arc<Mutex<Vec<JobId>>> = Arc::default();
    let mut tasks = Vec::new();
    for c in 0..16 {
        let q = if c % 2 == 0 { q1.clone() } else { q2.clone() };
        let claimed = claimed.clone();
        tasks.push(tokio::spawn(async move {
            let me = format!("claimer-{c}");
            let mut idle = 0;
            while idle < 20 {
                match q.claim(&me).await.unwrap() {
                    Some(j) => {
                        idle = 0;
                        claimed.lock().unwrap().push(j.id);
                        q.complete(&j).await.unwrap();
                    }
                    None => {
                        idle += 1;
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                }
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let claimed = claimed.lock().unwrap().clone();
    let unique: HashSet<JobId> = claimed.iter().copied().collect();
    assert_eq!(claimed.len(), 300, "every job claimed once, none twice");
    assert_eq!(unique, enqueued);
    assert_eq!(states(&pool).await.get("done"), Some(&300));
}

#[sqlx::test]
async fn jobs_of_one_key_never_overlap_and_run_in_order(pool: PgPool) {
    // Claim level: a running job of a key holds back every other job of that key.
    let q = queue(&pool);
    let a1 = q
        .enqueue(&job("k", json!(1)).serial("repo:a"))
        .await
        .unwrap()
        .id;
    let a2 = q
        .enqueue(&job("k", json!(2)).serial("repo:a"))
        .await
        .unwrap()
        .id;
    let b1 = q
        .enqueue(&job("k", json!(3)).serial("repo:b"))
        .await
        .unwrap()
        .id;
    let first = q.claim("w1").await.unwrap().unwrap();
    assert_eq!(first.id, a1);
    let second = q.claim("w2").await.unwrap().unwrap();
    assert_eq!(second.id, b1, "a2 waits for a1");
    assert!(q.claim("w3").await.unwrap().is_none());
    q.complete(&first).await.unwrap();
    assert_eq!(q.claim("w3").await.unwrap().unwrap().id, a2);

    // A job in backoff still holds its place: the key's next job waits behind it.
    sqlx::query("DELETE FROM jobs")
        .execute(&pool)
        .await
        .unwrap();
    let mut slow_retries = config();
    slow_retries.backoff_base = Duration::from_secs(60);
    let q = Queue::new(pool.clone(), slow_retries);
    let c1 = q
        .enqueue(&job("k", json!(1)).serial("repo:c"))
        .await
        .unwrap()
        .id;
    let c2 = q
        .enqueue(&job("k", json!(2)).serial("repo:c"))
        .await
        .unwrap()
        .id;
    let c1_claim = q.claim("w1").await.unwrap().unwrap();
    assert_eq!(c1_claim.id, c1);
    assert!(matches!(
        q.fail(&c1_claim, "GitHub answered 502", false)
            .await
            .unwrap(),
        Failed::Retry { .. }
    ));
    assert!(
        q.claim("w1").await.unwrap().is_none(),
        "c2 must not overtake c1"
    );
    // Its backoff over (time moved on by hand), c1 runs, then c2.
    sqlx::query("UPDATE jobs SET run_at = now() WHERE id = $1")
        .bind(c1.0)
        .execute(&pool)
        .await
        .unwrap();
    let again = q.claim("w1").await.unwrap().unwrap();
    assert_eq!((again.id, again.attempt), (c1, 2));
    q.complete(&again).await.unwrap();
    assert_eq!(q.claim("w1").await.unwrap().unwrap().id, c2);
}

#[sqlx::test]
async fn workers_in_two_processes_keep_keys_exclusive(pool: PgPool) {
    let q1 = queue(&pool);
    let q2 = other_process(&pool, config()).await;
    const KEYS: usize = 4;
    const PER_KEY: usize = 8;
    for n in 0..PER_KEY {
        for k in 0..KEYS {
            let j = job("step", json!({ "key": k, "n": n })).serial(format!("repo:{k}"));
            q1.enqueue(&j).await.unwrap();
        }
    }
    #[derive(Default)]
    struct Seen {
        running: HashMap<u64, usize>,
        order: HashMap<u64, Vec<u64>>,
        overlaps: usize,
    }
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let handler = {
        let seen = seen.clone();
        move |job: RunningJob| {
            let seen = seen.clone();
            async move {
                let key = job.payload["key"].as_u64().unwrap();
                let n = job.payload["n"].as_u64().unwrap();
                {
                    let mut s = seen.lock().unwrap();
                    let r = s.running.entry(key).or_default();
                    *r += 1;
                    if *r > 1 {
                        s.overlaps += 1;
                    }
                    s.order.entry(key).or_default().push(n);
                }
                tokio::time::sleep(Duration::from_millis(15)).await;
                *seen.lock().unwrap().running.get_mut(&key).unwrap() -= 1;
                Ok::<(), JobError>(())
            }
        }
    };
    let (stop1, rx1) = tokio::sync::oneshot::channel::<()>();
    let (stop2, rx2) = tokio::sync::oneshot::channel::<()>();
    let w1 = tokio::spawn(run_workers(q1.clone(), 4, handler.clone(), async {
        let _ = rx1.await;
    }));
    let w2 = tokio::spawn(run_workers(q2.clone(), 4, handler, async {
        let _ = rx2.await;
    }));
    wait_until("all jobs done", || async {
        states(&pool).await.get("done") == Some(&((KEYS * PER_KEY) as i64))
    })
    .await;
    stop1.send(()).unwrap();
    stop2.send(()).unwrap();
    w1.await.unwrap();
    w2.await.unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.overlaps, 0, "two jobs of one key ran at once");
    for k in 0..KEYS as u64 {
        assert_eq!(seen.order[&k], (0..PER_KEY as u64).collect::<Vec<_>>());
    }
}

#[sqlx::test]
async fn three_pushes_coalesce_into_one_catch_up(pool: PgPool) {
    let q = queue(&pool);
    let push = |after: &str| {
        job("apply_push", json!({ "after": after }))
            .serial("repo:42")
            .coalesce("apply_push:42")
    };
    let first = q.enqueue(&push("aaa")).await.unwrap();
    let second = q.enqueue(&push("bbb")).await.unwrap();
    let third = q.enqueue(&push("ccc")).await.unwrap();
    assert!(!first.replaced_waiting);
    assert!(second.replaced_waiting && third.replaced_waiting);
    assert_eq!((second.id, third.id), (first.id, first.id));
    // Another repository's pushes are their own.
    let other = q
        .enqueue(&job("apply_push", json!({"after": "zzz"})).coalesce("apply_push:43"))
        .await
        .unwrap();
    assert_ne!(other.id, first.id);

    let claimed = q.claim("w").await.unwrap().unwrap();
    assert_eq!(claimed.id, first.id);
    assert_eq!(
        claimed.payload,
        json!({ "after": "ccc" }),
        "the newest push wins"
    );
    assert_eq!(claimed.attempt, 1);
    q.complete(&claimed).await.unwrap();
    assert_eq!(q.claim("w").await.unwrap().unwrap().id, other.id);
    assert!(q.claim("w").await.unwrap().is_none());
}

#[sqlx::test]
async fn batched_jobs_join_a_waiting_one_and_leave_a_running_one_be(pool: PgPool) {
    let q = queue(&pool);
    let comment = |id: u64| {
        job(
            "answer_command",
            json!({ "number": 5, "batch": [{ "comment_id": id }] }),
        )
        .serial("commands:42:5")
        .batched("commands:42:5")
    };
    let first = q.enqueue(&comment(1)).await.unwrap();
    let second = q.enqueue(&comment(2)).await.unwrap();
    assert_eq!(second.id, first.id, "joined the waiting job");
    let running = q.claim("w").await.unwrap().unwrap();
    assert_eq!(
        running.payload["batch"],
        json!([{ "comment_id": 1 }, { "comment_id": 2 }]),
        "both comments, oldest first"
    );
    // While it runs, a third comment makes a job of its own, and the running one is not
    // superseded (its comments are not the newcomer's).
    let third = q.enqueue(&comment(3)).await.unwrap();
    assert_ne!(third.id, first.id);
    assert_eq!(third.superseded_running, 0);
    assert!(!q.is_superseded(running.id).await.unwrap());
    q.complete(&running).await.unwrap();
    let next = q.claim("w").await.unwrap().unwrap();
    assert_eq!(next.payload["batch"], json!([{ "comment_id": 3 }]));
}

#[sqlx::test]
async fn a_newer_job_supersedes_a_running_one(pool: PgPool) {
    let q = queue(&pool);
    let analyse = |head: &str| {
        job("analyze_pr", json!({ "head": head }))
            .serial("repo:42")
            .coalesce("pr:42:5")
    };
    q.enqueue(&analyse("h1")).await.unwrap();
    let old = q.claim("w1").await.unwrap().unwrap();
    assert!(!old.superseded);
    assert!(!q.is_superseded(old.id).await.unwrap());

    let newer = q.enqueue(&analyse("h2")).await.unwrap();
    assert_ne!(newer.id, old.id);
    assert!(!newer.replaced_waiting);
    assert_eq!(newer.superseded_running, 1);
    // The old job's worker can tell, from the database or its next heartbeat.
    assert!(q.is_superseded(old.id).await.unwrap());
    assert!(q.heartbeat(&old).await.unwrap().superseded);
    let running = RunningJob::new(q.clone(), old.clone());
    assert!(running.is_superseded().await.unwrap());
    assert!(!q.is_superseded(newer.id).await.unwrap());
    // A third push replaces the waiting job and leaves the running one superseded.
    let third = q.enqueue(&analyse("h3")).await.unwrap();
    assert_eq!(third.id, newer.id);
    assert!(third.replaced_waiting);
    assert_eq!(third.superseded_running, 0, "already marked");

    // The newer job waits until the old one ends (same repository).
    assert!(q.claim("w2").await.unwrap().is_none());
    // A superseded job that fails is not retried: the newer one does its work.
    assert_eq!(
        q.fail(&old, "stale anyway", false).await.unwrap(),
        Failed::Superseded
    );
    assert_eq!(q.state(old.id).await.unwrap(), Some(JobState::Done));
    let next = q.claim("w2").await.unwrap().unwrap();
    assert_eq!(
        (next.id, next.payload["head"].as_str()),
        (newer.id, Some("h3"))
    );

    // Released at shutdown, a superseded job is done too (its successor waits).
    let successor = q.enqueue(&analyse("h4")).await.unwrap();
    q.release(&next).await.unwrap();
    assert_eq!(q.state(next.id).await.unwrap(), Some(JobState::Done));
    assert_eq!(q.claim("w3").await.unwrap().unwrap().id, successor.id);
}

#[sqlx::test]
async fn failures_back_off_then_die_with_their_last_error(pool: PgPool) {
    let q = queue(&pool);
    let id = q
        .enqueue(&job("index_repository", json!({})).max_attempts(3))
        .await
        .unwrap()
        .id;
    let mut waits = Vec::new();
    for attempt in 1..=3 {
        let started = Instant::now();
        let j = loop {
            if let Some(j) = q.claim("w").await.unwrap() {
                break j;
            }
            assert!(started.elapsed() < Duration::from_secs(30));
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert_eq!((j.id, j.attempt, j.max_attempts), (id, attempt, 3));
        let failed = q
            .fail(
                &j,
                &format!("GitHub answered 502 (attempt {attempt})"),
                false,
            )
            .await
            .unwrap();
        if attempt < 3 {
            let Failed::Retry { after } = failed else {
                panic!("attempt {attempt}: {failed:?}")
            };
            // Equal jitter: between half and all of base * 2^(attempt-1).
            let full = Duration::from_millis(200) * (1 << (attempt - 1));
            assert!(after >= full / 2 && after <= full, "{attempt}: {after:?}");
            waits.push(after);
            // Waiting again, not claimable before its time.
            let row: (String, bool) =
                sqlx::query_as("SELECT state, run_at > now() FROM jobs WHERE id = $1")
                    .bind(id.0)
                    .fetch_one(&pool)
                    .await
                    .unwrap();
            assert_eq!(row, ("waiting".to_string(), true));
        } else {
            assert_eq!(failed, Failed::Dead);
        }
    }
    assert_eq!(q.state(id).await.unwrap(), Some(JobState::Dead));
    assert!(q.claim("w").await.unwrap().is_none(), "dead jobs stay dead");
    let status = q.status().await.unwrap();
    assert_eq!((status.dead, status.waiting, status.running), (1, 0, 0));
    let last = status.last_error.unwrap();
    assert_eq!(
        (last.id, last.state, last.attempts),
        (id, JobState::Dead, 3)
    );
    assert_eq!(last.error, "GitHub answered 502 (attempt 3)");

    // A permanent error is dead at once, whatever attempts are left.
    let p = q
        .enqueue(&job("purge_repository", json!({})))
        .await
        .unwrap()
        .id;
    let j = q.claim("w").await.unwrap().unwrap();
    assert_eq!(j.id, p);
    assert_eq!(
        q.fail(&j, "the payload names no repository", true)
            .await
            .unwrap(),
        Failed::Dead
    );
    assert_eq!(q.state(p).await.unwrap(), Some(JobState::Dead));
    let failures = q.recent_failures(10).await.unwrap();
    assert_eq!(failures.len(), 2);
    assert_eq!(failures[0].error, "the payload names no repository");

    // An operator may revive a dead job: fresh attempts.
    assert!(q.retry_dead(id).await.unwrap());
    let revived = q.claim("w").await.unwrap().unwrap();
    assert_eq!((revived.id, revived.attempt), (id, 1));
}

#[sqlx::test]
async fn the_worker_loop_retries_errors_and_panics_and_kills_permanent_errors(pool: PgPool) {
    let q = queue(&pool);
    let flaky = q.enqueue(&job("flaky", json!({}))).await.unwrap().id;
    let panicky = q.enqueue(&job("panicky", json!({}))).await.unwrap().id;
    let broken = q.enqueue(&job("broken", json!({}))).await.unwrap().id;
    let handler = |job: RunningJob| async move {
        match (job.kind.as_str(), job.attempt) {
            ("flaky", 1 | 2) => Err(anyhow::anyhow!("GitHub answered 502").into()),
            ("panicky", 1) => panic!("index out of bounds"),
            ("broken", _) => Err(JobError::permanent(anyhow::anyhow!("no such repository"))),
            _ => Ok(()),
        }
    };
    let (stop, rx) = tokio::sync::oneshot::channel::<()>();
    let workers = tokio::spawn(run_workers(q.clone(), 2, handler, async {
        let _ = rx.await;
    }));
    wait_until("all settled", || async {
        let s = states(&pool).await;
        s.get("done") == Some(&2) && s.get("dead") == Some(&1)
    })
    .await;
    stop.send(()).unwrap();
    workers.await.unwrap();
    let attempts = |id: JobId| {
        let pool = pool.clone();
        async move {
            sqlx::query_as::<_, (i32, Option<String>)>(
                "SELECT attempts, last_error FROM jobs WHERE id = $1",
            )
            .bind(id.0)
            .fetch_one(&pool)
            .await
            .unwrap()
        }
    };
    assert_eq!(attempts(flaky).await.0, 3);
    let (n, error) = attempts(panicky).await;
    assert_eq!(n, 2);
    assert!(error.unwrap().contains("panicked: index out of bounds"));
    assert_eq!(
        attempts(broken).await,
        (1, Some("no such repository".to_string()))
    );
}

/// A job's attempts, deferrals, and how many seconds ahead its run_at is.
async fn deferral_row(pool: &PgPool, id: JobId) -> (String, i32, i32, f64) {
    sqlx::query_as(
        "SELECT state, attempts, deferrals, extract(epoch FROM run_at - now())::float8
         FROM jobs WHERE id = $1",
    )
    .bind(id.0)
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn make_due(pool: &PgPool, id: JobId) {
    sqlx::query("UPDATE jobs SET run_at = now() WHERE id = $1")
        .bind(id.0)
        .execute(pool)
        .await
        .unwrap();
}

#[sqlx::test]
async fn a_deferred_job_waits_for_its_time_without_spending_attempts(pool: PgPool) {
    let mut cfg = config();
    cfg.max_deferrals = 2;
    cfg.max_defer = Duration::from_secs(75 * 60);
    let q = Queue::new(pool.clone(), cfg);
    let id = q
        .enqueue(&job("analyze_pr", json!({})).max_attempts(2))
        .await
        .unwrap()
        .id;
    let reset = chrono::Utc::now() + chrono::Duration::hours(1);
    let j = q.claim("w").await.unwrap().unwrap();
    assert_eq!(j.attempt, 1);
    let failed = q.defer(&j, "rate limit spent", reset).await.unwrap();
    assert!(matches!(failed, Failed::Deferred { .. }), "{failed:?}");
    let (state, attempts, deferrals, ahead) = deferral_row(&pool, id).await;
    assert_eq!((state.as_str(), attempts, deferrals), ("waiting", 0, 1));
    assert!(
        (3500.0..=3605.0).contains(&ahead),
        "run_at ≈ the reset: {ahead}"
    );
    assert!(
        q.claim("w").await.unwrap().is_none(),
        "not before the reset"
    );

    // The reset comes: the job runs from its first attempt again. A bogus reset a year
    // ahead defers it by the cap only.
    make_due(&pool, id).await;
    let j = q.claim("w").await.unwrap().unwrap();
    assert_eq!(j.attempt, 1);
    let year = chrono::Utc::now() + chrono::Duration::days(365);
    q.defer(&j, "rate limit spent", year).await.unwrap();
    let (_, attempts, deferrals, ahead) = deferral_row(&pool, id).await;
    assert_eq!((attempts, deferrals), (0, 2));
    assert!(
        (4400.0..=4505.0).contains(&ahead),
        "capped at 75 min: {ahead}"
    );

    // Out of free deferrals: each further one spends an attempt, so the job ends.
    make_due(&pool, id).await;
    let j = q.claim("w").await.unwrap().unwrap();
    let failed = q.defer(&j, "rate limit spent", reset).await.unwrap();
    assert!(matches!(failed, Failed::Retry { .. }), "{failed:?}");
    assert_eq!(deferral_row(&pool, id).await.1, 1, "this one counted");
    make_due(&pool, id).await;
    let j = q.claim("w").await.unwrap().unwrap();
    assert_eq!(j.attempt, 2);
    assert_eq!(
        q.defer(&j, "rate limit spent", reset).await.unwrap(),
        Failed::Dead
    );
    // An operator's retry starts it afresh, deferrals too.
    assert!(q.retry_dead(id).await.unwrap());
    assert_eq!(deferral_row(&pool, id).await.2, 0);
}

#[sqlx::test]
async fn the_worker_loop_defers_a_rate_limited_job_to_its_reset(pool: PgPool) {
    let q = queue(&pool);
    let id = q.enqueue(&job("limited", json!({}))).await.unwrap().id;
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let handler = {
        let calls = calls.clone();
        move |_job: RunningJob| {
            let first = calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0;
            async move {
                if first {
                    let reset = chrono::Utc::now() + chrono::Duration::hours(1);
                    Err(JobError::deferred(
                        anyhow::anyhow!("rate limit spent"),
                        reset,
                    ))
                } else {
                    Ok(())
                }
            }
        }
    };
    let (stop, rx) = tokio::sync::oneshot::channel::<()>();
    let workers = tokio::spawn(run_workers(q.clone(), 1, handler, async {
        let _ = rx.await;
    }));
    wait_until("deferred", || async {
        deferral_row(&pool, id).await.2 == 1
    })
    .await;
    let (state, attempts, _, ahead) = deferral_row(&pool, id).await;
    assert_eq!((state.as_str(), attempts), ("waiting", 0));
    assert!(ahead > 3500.0, "{ahead}");
    make_due(&pool, id).await;
    wait_until("done", || async {
        q.state(id).await.unwrap() == Some(JobState::Done)
    })
    .await;
    stop.send(()).unwrap();
    workers.await.unwrap();
    assert_eq!(deferral_row(&pool, id).await.1, 1, "one attempt counted");
}

#[sqlx::test]
async fn a_job_past_its_time_limit_is_stopped_and_retried(pool: PgPool) {
    let mut cfg = config();
    cfg.job_timeout = Duration::from_secs(3600);
    cfg.job_timeouts = vec![("hangs".into(), Duration::from_millis(300))];
    // A hung await never reaches a checkpoint: it is aborted when the grace ends.
    cfg.stop_grace = Duration::from_millis(200);
    assert_eq!(cfg.timeout_for("other"), Duration::from_secs(3600));
    let q = Queue::new(pool.clone(), cfg);
    let id = q.enqueue(&job("hangs", json!({}))).await.unwrap().id;
    // The first attempt hangs for good (the heartbeat alone would keep it forever).
    let handler = |job: RunningJob| async move {
        if job.attempt == 1 {
            std::future::pending::<()>().await;
        }
        Ok::<(), JobError>(())
    };
    let (stop, rx) = tokio::sync::oneshot::channel::<()>();
    let workers = tokio::spawn(run_workers(q.clone(), 1, handler, async {
        let _ = rx.await;
    }));
    wait_until("done", || async {
        q.state(id).await.unwrap() == Some(JobState::Done)
    })
    .await;
    stop.send(()).unwrap();
    workers.await.unwrap();
    let (attempts, error): (i32, Option<String>) =
        sqlx::query_as("SELECT attempts, last_error FROM jobs WHERE id = $1")
            .bind(id.0)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(attempts, 2);
    let error = error.unwrap();
    assert!(
        error.contains("longer than its time limit of 0.3 s"),
        "{error}"
    );
}

#[sqlx::test]
async fn the_queue_s_own_pool_has_a_statement_timeout(pool: PgPool) {
    use sqlx::ConnectOptions;
    let url = pool.connect_options().to_url_lossy().to_string();
    let q = Queue::connect(&url, 2, config()).await.unwrap();
    let timeout: String = sqlx::query_scalar("SHOW statement_timeout")
        .fetch_one(q.pool())
        .await
        .unwrap();
    assert_eq!(timeout, "30s");
}

#[sqlx::test]
async fn shutdown_finishes_short_jobs_and_releases_long_ones(pool: PgPool) {
    let q = queue(&pool); // grace 500 ms
    let short = q.enqueue(&job("short", json!({}))).await.unwrap().id;
    let long = q.enqueue(&job("long", json!({}))).await.unwrap().id;
    let started = Arc::new(tokio::sync::Semaphore::new(0));
    let handler = {
        let started = started.clone();
        move |job: RunningJob| {
            let started = started.clone();
            async move {
                started.add_permits(1);
                let work = if job.kind == "short" { 200 } else { 60_000 };
                tokio::time::sleep(Duration::from_millis(work)).await;
                Ok::<(), JobError>(())
            }
        }
    };
    let (stop, rx) = tokio::sync::oneshot::channel::<()>();
    let workers = tokio::spawn(run_workers(q.clone(), 2, handler, async {
        let _ = rx.await;
    }));
    let _both = started.acquire_many(2).await.unwrap();
    let asked = Instant::now();
    stop.send(()).unwrap();
    workers.await.unwrap();
    let took = asked.elapsed();
    assert!(
        took >= Duration::from_millis(400) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert_eq!(q.state(short).await.unwrap(), Some(JobState::Done));
    assert_eq!(q.state(long).await.unwrap(), Some(JobState::Waiting));
    let (attempts, claimed_by): (i32, Option<String>) =
        sqlx::query_as("SELECT attempts, claimed_by FROM jobs WHERE id = $1")
            .bind(long.0)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(
        (attempts, claimed_by),
        (0, None),
        "released without counting"
    );
    // And it runs again, from its first attempt, after a restart.
    let again = q.claim("after-restart").await.unwrap().unwrap();
    assert_eq!((again.id, again.attempt), (long, 1));
}

#[sqlx::test]
async fn a_crashed_workers_job_is_taken_over_when_its_lease_runs_out(pool: PgPool) {
    let mut cfg = config();
    cfg.lease = Duration::from_millis(400);
    let q = Queue::new(pool.clone(), cfg.clone());
    let id = q
        .enqueue(&job("index_repository", json!({})).serial("repo:1"))
        .await
        .unwrap()
        .id;
    let waiting = q
        .enqueue(&job("apply_push", json!({})).serial("repo:1"))
        .await
        .unwrap()
        .id;
    // Worker A claims, then is killed (kill -9): no heartbeat, no release.
    let a = q.claim("worker-a").await.unwrap().unwrap();
    assert_eq!(a.id, id);
    assert!(
        q.claim("worker-b").await.unwrap().is_none(),
        "lease still held"
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    // Another process takes it over: the same job, its next attempt, before the
    // repository's next job.
    let b_queue = other_process(&pool, cfg).await;
    let b = b_queue.claim("worker-b").await.unwrap().unwrap();
    assert_eq!(
        (b.id, b.attempt, b.claimed_by.as_str()),
        (id, 2, "worker-b")
    );
    // Were A only frozen, not dead, it can no longer touch the job.
    assert!(matches!(q.complete(&a).await, Err(QueueError::LeaseLost(j)) if j == id));
    assert!(matches!(
        q.heartbeat(&a).await,
        Err(QueueError::LeaseLost(_))
    ));
    assert!(matches!(
        q.fail(&a, "x", false).await,
        Err(QueueError::LeaseLost(_))
    ));
    assert!(matches!(q.release(&a).await, Err(QueueError::LeaseLost(_))));
    b_queue.complete(&b).await.unwrap();
    assert_eq!(q.state(id).await.unwrap(), Some(JobState::Done));
    let next = q.claim("worker-b").await.unwrap().unwrap();
    assert_eq!(next.id, waiting);
    q.complete(&next).await.unwrap();

    // A job whose lease runs out on its last attempt (its worker died, or could not
    // reach the database for longer than the lease) gets one more attempt, saying why;
    // the second time it is dead, so a job that takes its worker down still ends.
    let last = q
        .enqueue(&job("crashes", json!({})).max_attempts(1))
        .await
        .unwrap()
        .id;
    let c = q.claim("worker-c").await.unwrap().unwrap();
    assert_eq!(c.id, last);
    tokio::time::sleep(Duration::from_millis(600)).await;
    let again = q
        .claim("worker-d")
        .await
        .unwrap()
        .expect("one more attempt");
    assert_eq!(again.id, last);
    assert_eq!((again.attempt, again.max_attempts), (2, 2));
    let error: String = sqlx::query_scalar("SELECT last_error FROM jobs WHERE id = $1")
        .bind(last.0)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(error.contains("its last: one more attempt"), "{error}");
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(q.claim("worker-e").await.unwrap().is_none());
    assert_eq!(q.state(last).await.unwrap(), Some(JobState::Dead));
    let err = q.status().await.unwrap().last_error.unwrap();
    assert_eq!(err.id, last);
    assert!(err.error.contains("its worker stopped"), "{}", err.error);
    // Retried by hand, it has its grace again.
    assert!(q.retry_dead(last).await.unwrap());
    let grace: bool = sqlx::query_scalar("SELECT lease_grace FROM jobs WHERE id = $1")
        .bind(last.0)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(!grace);
}

#[sqlx::test]
async fn heartbeats_keep_a_long_job_from_being_taken_over(pool: PgPool) {
    let mut cfg = config();
    cfg.lease = Duration::from_millis(300);
    cfg.heartbeat = Duration::from_millis(100);
    let q = Queue::new(pool.clone(), cfg);
    let id = q.enqueue(&job("long", json!({}))).await.unwrap().id;
    let handler = |_job: RunningJob| async {
        tokio::time::sleep(Duration::from_millis(1200)).await;
        Ok::<(), JobError>(())
    };
    let (stop, rx) = tokio::sync::oneshot::channel::<()>();
    let workers = tokio::spawn(run_workers(q.clone(), 1, handler, async {
        let _ = rx.await;
    }));
    wait_until("claimed", || async {
        q.state(id).await.unwrap() == Some(JobState::Running)
    })
    .await;
    for _ in 0..8 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(q.claim("intruder").await.unwrap().is_none());
    }
    wait_until("done", || async {
        q.state(id).await.unwrap() == Some(JobState::Done)
    })
    .await;
    stop.send(()).unwrap();
    workers.await.unwrap();
    let attempts: i32 = sqlx::query_scalar("SELECT attempts FROM jobs WHERE id = $1")
        .bind(id.0)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(attempts, 1);
}

#[sqlx::test]
async fn notify_wakes_idle_workers_at_once(pool: PgPool) {
    let mut cfg = config();
    cfg.listen = true;
    cfg.poll_interval = Duration::from_secs(60);
    let q = Queue::new(pool.clone(), cfg);
    let handler = |_job: RunningJob| async { Ok::<(), JobError>(()) };
    let (stop, rx) = tokio::sync::oneshot::channel::<()>();
    let workers = tokio::spawn(run_workers(q.clone(), 2, handler, async {
        let _ = rx.await;
    }));
    // Let the workers find nothing and go idle, and the listener start.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    let id = q.enqueue(&job("now", json!({}))).await.unwrap().id;
    wait_until("the job", || async {
        q.state(id).await.unwrap() == Some(JobState::Done)
    })
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    stop.send(()).unwrap();
    workers.await.unwrap();
}

fn delivery(id: &str) -> Delivery {
    Delivery {
        id: id.to_string(),
        event: "push".into(),
        action: None,
        installation_id: Some(7),
        repository_id: Some(42),
    }
}

#[sqlx::test]
async fn a_redelivery_is_recorded_once(pool: PgPool) {
    let q = queue(&pool);
    let jobs = [
        job("apply_push", json!({"after": "b"})).serial("repo:42"),
        job("other", json!({})),
    ];
    let first = q
        .record_delivery_and_enqueue(&delivery("d-1"), &jobs)
        .await
        .unwrap();
    let Recorded::New { jobs: ids } = first else {
        panic!("{first:?}")
    };
    assert_eq!(ids.len(), 2);
    assert_eq!(
        q.record_delivery_and_enqueue(&delivery("d-1"), &jobs)
            .await
            .unwrap(),
        Recorded::Duplicate
    );
    // Redelivered many times at once: still once.
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let q = q.clone();
        let jobs = jobs.clone();
        tasks.push(tokio::spawn(async move {
            q.record_delivery_and_enqueue(&delivery("d-2"), &jobs)
                .await
                .unwrap()
        }));
    }
    let mut new = 0;
    for t in tasks {
        if matches!(t.await.unwrap(), Recorded::New { .. }) {
            new += 1;
        }
    }
    assert_eq!(new, 1);
    let (deliveries, jobs): (i64, i64) =
        sqlx::query_as("SELECT (SELECT count(*) FROM deliveries), (SELECT count(*) FROM jobs)")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!((deliveries, jobs), (2, 4));
    let row: (String, i32, Option<String>) = sqlx::query_as(
        "SELECT d.outcome, d.jobs, j.delivery_id FROM deliveries d JOIN jobs j USING (delivery_id)
         WHERE d.delivery_id = 'd-1' LIMIT 1",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(row, ("queued".into(), 2, Some("d-1".into())));
    // A delivery with no job is recorded as ignored, and is a duplicate the next time.
    assert_eq!(
        q.record_delivery_and_enqueue(&delivery("d-3"), &[])
            .await
            .unwrap(),
        Recorded::New { jobs: vec![] }
    );
    assert_eq!(
        q.record_delivery_and_enqueue(&delivery("d-3"), &[])
            .await
            .unwrap(),
        Recorded::Duplicate
    );
    let outcome: String =
        sqlx::query_scalar("SELECT outcome FROM deliveries WHERE delivery_id = 'd-3'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(outcome, "ignored");
}

#[sqlx::test]
async fn a_job_enqueued_in_a_rolled_back_transaction_never_existed(pool: PgPool) {
    let q = queue(&pool);
    let mut tx = pool.begin().await.unwrap();
    q.enqueue_in(&mut tx, &job("k", json!({}))).await.unwrap();
    tx.rollback().await.unwrap();
    assert!(q.claim("w").await.unwrap().is_none());
    let mut tx = pool.begin().await.unwrap();
    let id = q
        .enqueue_in(&mut tx, &job("k", json!({})))
        .await
        .unwrap()
        .id;
    assert!(q.claim("w").await.unwrap().is_none(), "not before commit");
    tx.commit().await.unwrap();
    assert_eq!(q.claim("w").await.unwrap().unwrap().id, id);
}

#[sqlx::test]
async fn status_counts_and_pruning(pool: PgPool) {
    let q = queue(&pool);
    for i in 0..3 {
        q.enqueue(&job("k", json!(i))).await.unwrap();
    }
    q.enqueue(&job("later", json!({})).delay(Duration::from_secs(3600)))
        .await
        .unwrap();
    let j = q.claim("w").await.unwrap().unwrap();
    q.complete(&j).await.unwrap();
    let _running = q.claim("w").await.unwrap().unwrap();
    let s = q.status().await.unwrap();
    assert_eq!(
        (s.waiting, s.due, s.running, s.done, s.dead),
        (2, 1, 1, 1, 0)
    );
    assert!(s.oldest_due.is_some());
    assert_eq!(s.last_error, None);
    // The scrape's depth leaves the done jobs uncounted.
    let d = q.depth().await.unwrap();
    assert_eq!(
        (d.waiting, d.due, d.running, d.done, d.dead),
        (2, 1, 1, 0, 0)
    );
    q.record_delivery_and_enqueue(&delivery("old"), &[])
        .await
        .unwrap();
    let keep = Retention {
        done: Duration::from_secs(3600),
        dead: Duration::from_secs(3600),
        deliveries: Duration::from_secs(3600),
        ..Retention::default()
    };
    assert_eq!(q.prune(&keep).await.unwrap(), Pruned::default());
    let now = Retention {
        done: Duration::ZERO,
        dead: Duration::ZERO,
        deliveries: Duration::ZERO,
        ..Retention::default()
    };
    let pruned = q.prune(&now).await.unwrap();
    assert_eq!((pruned.done, pruned.deliveries), (1, 1));
    assert!(q.check_ready().await.is_ok());
}

/// `n` finished jobs in `state` (done or dead), each from a delivery of its own, finished
/// `age` ago; and `fresh` more finished now.
async fn finished(pool: &PgPool, state: &str, n: i64, age_days: i64, fresh: i64) {
    sqlx::query(
        "WITH d AS (
             INSERT INTO deliveries (delivery_id, received_at)
             SELECT $1 || '-' || $3 || '-' || i, now() - make_interval(days => CASE WHEN i <= $2 THEN $3 ELSE 0 END)
             FROM generate_series(1, $2 + $4) i
             RETURNING delivery_id, received_at)
         INSERT INTO jobs (kind, payload, state, delivery_id, finished_at)
         SELECT 'k', '{\"body\": \"a long comment\"}', $1, delivery_id, received_at FROM d",
    )
    .bind(state)
    .bind(n)
    .bind(age_days as i32)
    .bind(fresh)
    .execute(pool)
    .await
    .unwrap();
}

#[sqlx::test]
async fn pruning_keeps_each_kind_of_row_for_its_retention_in_small_batches(pool: PgPool) {
    let q = queue(&pool);
    finished(&pool, "done", 250, 8, 5).await; // past the 7 days
    finished(&pool, "dead", 40, 8, 0).await; // within the 30 days
    finished(&pool, "dead", 30, 31, 0).await; // past them
    let waiting = q.enqueue(&job("k", json!({}))).await.unwrap().id;
    // A waiting job whose delivery is old keeps waiting; its link goes.
    sqlx::query("UPDATE jobs SET delivery_id = 'done-8-1' WHERE id = $1")
        .bind(waiting.0)
        .execute(&pool)
        .await
        .unwrap();
    let retention = Retention {
        batch: 100,
        ..Retention::default()
    };
    let pruned = q.prune(&retention).await.unwrap();
    assert_eq!(
        pruned,
        Pruned {
            done: 250,
            dead: 30,
            deliveries: 250 + 40 + 30,
        }
    );
    let s = states(&pool).await;
    assert_eq!(
        (s.get("done"), s.get("dead"), s.get("waiting")),
        (Some(&5), Some(&40), Some(&1))
    );
    assert_eq!(q.state(waiting).await.unwrap(), Some(JobState::Waiting));
    let deliveries: i64 = sqlx::query_scalar("SELECT count(*) FROM deliveries")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(deliveries, 5);
}

#[sqlx::test]
async fn the_pruner_runs_on_its_schedule_until_shutdown(pool: PgPool) {
    let mut cfg = config();
    cfg.retention = Retention {
        done: Duration::ZERO,
        every: Duration::from_millis(50),
        ..Retention::default()
    };
    let q = Queue::new(pool.clone(), cfg);
    let (stop, rx) = tokio::sync::oneshot::channel::<()>();
    let pruner = tokio::spawn(run_pruner(q.clone(), async {
        let _ = rx.await;
    }));
    // Work finished after the pruner started goes at its next round.
    for _ in 0..3 {
        q.enqueue(&job("k", json!({}))).await.unwrap();
        let j = q.claim("w").await.unwrap().unwrap();
        q.complete(&j).await.unwrap();
    }
    wait_until("done jobs pruned", || async {
        !states(&pool).await.contains_key("done")
    })
    .await;
    stop.send(()).unwrap();
    pruner.await.unwrap();
}

#[sqlx::test(migrations = false)]
async fn not_ready_without_migrations(pool: PgPool) {
    let q = queue(&pool);
    let err = q.check_ready().await.unwrap_err();
    assert!(err.to_string().contains("not applied"), "{err}");
}

#[sqlx::test]
async fn coalescing_keeps_attempts_deferrals_and_a_rate_limit_wait(pool: PgPool) {
    let mut cfg = config();
    cfg.max_deferrals = 2;
    cfg.max_defer = Duration::from_secs(75 * 60);
    // Backoffs of minutes: a wait pulled back to now is plain to see.
    cfg.backoff_base = Duration::from_secs(600);
    cfg.backoff_max = Duration::from_secs(1200);
    let q = Queue::new(pool.clone(), cfg);
    let comment = |id: u64| {
        job(
            "answer_command",
            json!({ "number": 5, "batch": [{ "comment_id": id }] }),
        )
        .serial("commands:42:5")
        .batched("commands:42:5")
    };
    let id = q.enqueue(&comment(1)).await.unwrap().id;
    // Deferred to GitHub's reset, an hour ahead.
    let j = q.claim("w").await.unwrap().unwrap();
    let reset = chrono::Utc::now() + chrono::Duration::hours(1);
    q.defer(&j, "rate limit spent", reset).await.unwrap();
    let (_, attempts, deferrals, ahead) = deferral_row(&pool, id).await;
    assert_eq!((attempts, deferrals), (0, 1));
    // A new comment joins it: the deferral stands, and it still waits for the reset.
    assert_eq!(q.enqueue(&comment(2)).await.unwrap().id, id);
    let (state, attempts, deferrals, still) = deferral_row(&pool, id).await;
    assert_eq!((state.as_str(), attempts, deferrals), ("waiting", 0, 1));
    assert!(
        still > ahead - 60.0,
        "not pulled back to now: {still} vs {ahead}"
    );
    assert!(
        q.claim("w").await.unwrap().is_none(),
        "not before the reset"
    );

    // A failed attempt: a new comment buys it no fresh attempts, and its backoff stands.
    make_due(&pool, id).await;
    let j = q.claim("w").await.unwrap().unwrap();
    assert_eq!(j.attempt, 1);
    q.fail(&j, "GitHub said 502", false).await.unwrap();
    let (_, attempts, _, backoff) = deferral_row(&pool, id).await;
    assert_eq!(attempts, 1);
    assert!(backoff > 60.0, "{backoff}");
    assert_eq!(q.enqueue(&comment(3)).await.unwrap().id, id);
    let (_, attempts, deferrals, after) = deferral_row(&pool, id).await;
    assert_eq!((attempts, deferrals), (1, 1));
    assert!(after > backoff - 1.0, "{after} vs {backoff}");
    make_due(&pool, id).await;
    let j = q.claim("w").await.unwrap().unwrap();
    assert_eq!(j.attempt, 2, "the attempts go on from where they were");
    assert_eq!(
        j.payload["batch"],
        json!([{ "comment_id": 1 }, { "comment_id": 2 }, { "comment_id": 3 }])
    );
}

#[sqlx::test]
async fn a_batch_of_commands_holds_at_most_its_cap(pool: PgPool) {
    let q = queue(&pool);
    let comment = |id: i32| {
        job(
            "answer_command",
            json!({ "number": 5, "batch": [{ "comment_id": id }] }),
        )
        .serial("commands:42:5")
        .batched("commands:42:5")
    };
    let first = q.enqueue(&comment(0)).await.unwrap().id;
    for id in 1..MAX_BATCH + 30 {
        assert_eq!(q.enqueue(&comment(id)).await.unwrap().id, first);
    }
    let j = q.claim("w").await.unwrap().unwrap();
    let batch = j.payload["batch"].as_array().unwrap();
    assert_eq!(batch.len(), MAX_BATCH as usize);
    // The first ones, in order: a flood after them does not push them out.
    assert_eq!(batch[0], json!({ "comment_id": 0 }));
    assert_eq!(
        batch[MAX_BATCH as usize - 1],
        json!({ "comment_id": MAX_BATCH - 1 })
    );
}

/// CPU work that checks its token now and then, as the engine's loops do, reading
/// `path`; it counts its turns so the test can see it stop.
fn spin_reading(
    job: &RunningJob,
    path: &'static str,
    turns: Arc<AtomicU64>,
) -> impl std::future::Future<Output = Result<(), JobError>> {
    let token = job.cancel_token();
    async move {
        tokio::task::spawn_blocking(move || {
            blast_radius::cancel::scoped(Some(token), || {
                let _reading = blast_radius::cancel::reading(path);
                loop {
                    turns.fetch_add(1, Ordering::Relaxed);
                    blast_radius::cancel::checkpoint();
                    std::thread::sleep(Duration::from_millis(1));
                }
            })
        })
        .await
        .map_err(|e| JobError::retry(anyhow::anyhow!("{e}")))
    }
}

#[sqlx::test]
async fn cpu_work_past_its_deadline_stops_keeps_its_lease_and_dies_the_second_time(pool: PgPool) {
    let mut cfg = config();
    cfg.job_timeouts = vec![("spins".into(), Duration::from_millis(600))];
    // A lease shorter than the stop: only the beats going on keep the job from being
    // claimed by another worker meanwhile.
    cfg.lease = Duration::from_millis(800);
    cfg.heartbeat = Duration::from_millis(100);
    cfg.stop_grace = Duration::from_secs(10);
    let q = Queue::new(pool.clone(), cfg);
    let id = q.enqueue(&job("spins", json!({}))).await.unwrap().id;
    let turns = Arc::new(AtomicU64::new(0));
    // Each attempt as its handler saw it: (attempt, earlier stops, stalled files).
    type Seen = Vec<(i32, i32, Vec<String>)>;
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let handler = {
        let (turns, seen) = (turns.clone(), seen.clone());
        move |job: RunningJob| {
            seen.lock()
                .unwrap()
                .push((job.attempt, job.timeouts, job.stalled_files.clone()));
            spin_reading(&job, "src/slow.ts", turns.clone())
        }
    };
    let (stop, rx) = tokio::sync::oneshot::channel::<()>();
    let workers = tokio::spawn(run_workers(q.clone(), 2, handler, async {
        let _ = rx.await;
    }));
    wait_until("dead", || async {
        q.state(id).await.unwrap() == Some(JobState::Dead)
    })
    .await;
    // The work really stopped: its turns no longer move.
    let after = turns.load(Ordering::Relaxed);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        turns.load(Ordering::Relaxed),
        after,
        "the CPU work still runs"
    );
    assert!(after > 0);
    stop.send(()).unwrap();
    workers.await.unwrap();

    // Two attempts, one after the other (never two at once), the second told where the
    // first stalled.
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![(1, 0, vec![]), (2, 1, vec!["src/slow.ts".to_string()])]
    );
    let (timeouts, stalled, error): (i32, Vec<String>, String) =
        sqlx::query_as("SELECT timeouts, stalled_files, last_error FROM jobs WHERE id = $1")
            .bind(id.0)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!((timeouts, stalled), (2, vec!["src/slow.ts".to_string()]));
    assert!(error.contains("time limit of 0.6 s"), "{error}");
    assert!(error.contains("while reading src/slow.ts"), "{error}");
    assert!(error.contains("stop 2 of 2"), "{error}");
}

#[sqlx::test]
async fn a_new_input_starts_the_time_outs_afresh(pool: PgPool) {
    let mut cfg = config();
    cfg.job_timeouts = vec![("spins".into(), Duration::from_millis(300))];
    let q = Queue::new(pool.clone(), cfg);
    let first = q
        .enqueue(&job("spins", json!({"head": "a"})).coalesce("pr-1"))
        .await
        .unwrap()
        .id;
    let claimed = q.claim("w").await.unwrap().unwrap();
    q.time_out(&claimed, "stopped", &["src/slow.ts".to_string()])
        .await
        .unwrap();
    // The same input coalesced keeps what it learnt; a new one does not.
    let same = q
        .enqueue(&job("spins", json!({"head": "a"})).coalesce("pr-1"))
        .await
        .unwrap();
    assert_eq!(same.id, first);
    let row = || async {
        sqlx::query_as::<_, (i32, Vec<String>)>(
            "SELECT timeouts, stalled_files FROM jobs WHERE id = $1",
        )
        .bind(first.0)
        .fetch_one(&pool)
        .await
        .unwrap()
    };
    assert_eq!(row().await, (1, vec!["src/slow.ts".to_string()]));
    q.enqueue(&job("spins", json!({"head": "b"})).coalesce("pr-1"))
        .await
        .unwrap();
    assert_eq!(row().await, (0, vec![]));
}
