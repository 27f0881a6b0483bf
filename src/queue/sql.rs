//! The queue's statements, one function each, taking any executor (a pool, a
//! connection, a transaction).

use sqlx::postgres::PgRow;
use sqlx::{PgExecutor, Row};

use crate::store::text::{storable, storable_json};

use super::{
    ClaimedJob, Delivery, JobFailure, JobId, JobState, NewJob, QueueStatus, MAX_BATCH,
    NOTIFY_CHANNEL,
};

/// Inserts a job, or replaces the waiting job with its coalescing key (keeping that job's
/// id, so its place in line). Returns the id and whether it replaced one.
///
/// The waiting job keeps what it has spent: its attempts, its deferrals, and its time
/// when it waits for a reason (a retry's backoff, a rate limit's reset). A newcomer
/// never buys a failing job fresh attempts, nor runs a deferred one early. A batch
/// joined holds at most [`MAX_BATCH`] items: past it, newcomers' items are dropped.
pub(super) async fn upsert_job(
    ex: impl PgExecutor<'_>,
    job: &NewJob,
    max_attempts: i32,
    delivery: Option<&str>,
) -> sqlx::Result<(JobId, bool)> {
    let row = sqlx::query(
        "INSERT INTO jobs (kind, payload, serial_key, coalesce_key, max_attempts, run_at, delivery_id)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6), $7)
         ON CONFLICT (coalesce_key) WHERE state = 'waiting' DO UPDATE SET
             kind = EXCLUDED.kind,
             payload = CASE
                 WHEN $8 AND jsonb_typeof(jobs.payload->'batch') = 'array'
                      AND jsonb_typeof(EXCLUDED.payload->'batch') = 'array'
                 THEN jsonb_set(EXCLUDED.payload, '{batch}',
                      CASE WHEN jsonb_array_length(jobs.payload->'batch') >= $9
                           THEN jobs.payload->'batch'
                           ELSE (jobs.payload->'batch') || (EXCLUDED.payload->'batch') END)
                 ELSE EXCLUDED.payload END,
             serial_key = EXCLUDED.serial_key,
             max_attempts = EXCLUDED.max_attempts,
             run_at = CASE WHEN jobs.attempts > 0 OR jobs.deferrals > 0 THEN jobs.run_at
                           ELSE LEAST(jobs.run_at, EXCLUDED.run_at) END,
             delivery_id = EXCLUDED.delivery_id,
             timeouts = CASE WHEN jobs.payload = EXCLUDED.payload THEN jobs.timeouts ELSE 0 END,
             stalled_files = CASE WHEN jobs.payload = EXCLUDED.payload THEN jobs.stalled_files
                                  ELSE '{}' END,
             updated_at = now()
         RETURNING id, (xmax <> 0) AS replaced",
    )
    .bind(&job.kind)
    .bind(storable_json(&job.payload).as_ref())
    .bind(&job.serial_key)
    .bind(&job.coalesce_key)
    .bind(max_attempts)
    .bind(job.delay.as_secs_f64())
    .bind(delivery)
    .bind(job.merge_batches)
    .bind(MAX_BATCH)
    .fetch_one(ex)
    .await?;
    Ok((JobId(row.get("id")), row.get("replaced")))
}

/// Marks the running jobs with a coalescing key superseded.
pub(super) async fn supersede_running(ex: impl PgExecutor<'_>, key: &str) -> sqlx::Result<u64> {
    let done = sqlx::query(
        "UPDATE jobs SET superseded = true, updated_at = now()
         WHERE coalesce_key = $1 AND state = 'running' AND NOT superseded",
    )
    .bind(key)
    .execute(ex)
    .await?;
    Ok(done.rows_affected())
}

/// Wakes listening workers (at commit, when inside a transaction).
pub(super) async fn notify(ex: impl PgExecutor<'_>) -> sqlx::Result<()> {
    sqlx::query("SELECT pg_notify($1, '')")
        .bind(NOTIFY_CHANNEL)
        .execute(ex)
        .await?;
    Ok(())
}

/// Records a delivery; false if its id was recorded before.
pub(super) async fn insert_delivery(
    ex: impl PgExecutor<'_>,
    d: &Delivery,
    outcome: &str,
    jobs: i32,
) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "INSERT INTO deliveries (delivery_id, event, action, installation_id, repository_id, outcome, jobs)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (delivery_id) DO NOTHING",
    )
    .bind(&d.id)
    .bind(&d.event)
    .bind(d.action.as_deref().map(storable))
    .bind(d.installation_id)
    .bind(d.repository_id)
    .bind(outcome)
    .bind(jobs)
    .execute(ex)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Running jobs whose lease ran out on their last attempt, or that a newer job
/// superseded: done when superseded; else the first time one more attempt (a lease also
/// runs out while the database is away, and no job dies of that), dead the second (a job
/// that takes its worker down each time still ends). See migration 0017.
pub(super) async fn retire_expired(ex: impl PgExecutor<'_>) -> sqlx::Result<u64> {
    // Every right-hand side reads the row as it was before the update.
    let done = sqlx::query(
        "UPDATE jobs SET
             state = CASE WHEN superseded THEN 'done'
                          WHEN lease_grace THEN 'dead'
                          ELSE 'waiting' END,
             max_attempts = CASE WHEN superseded OR lease_grace THEN max_attempts
                                 ELSE max_attempts + 1 END,
             lease_grace = lease_grace OR NOT superseded,
             run_at = CASE WHEN superseded OR lease_grace THEN run_at ELSE now() END,
             last_error = CASE WHEN superseded THEN last_error
                 ELSE 'its worker stopped (lease expired) on attempt ' || attempts || ' of '
                      || max_attempts
                      || CASE WHEN lease_grace THEN ''
                              ELSE ', its last: one more attempt (its worker or the database \
                                   may only have been away)' END
                      || coalesce('; the error before: ' || last_error, '')
             END,
             claim_token = NULL, locked_until = NULL,
             finished_at = CASE WHEN superseded OR lease_grace THEN now() END,
             updated_at = now()
         WHERE state = 'running' AND locked_until < now()
           AND (superseded OR attempts >= max_attempts)",
    )
    .execute(ex)
    .await?;
    Ok(done.rows_affected())
}

const CLAIMED_COLUMNS: &str = "jobs.id, jobs.kind, jobs.payload, jobs.serial_key, \
     jobs.coalesce_key, jobs.attempts, jobs.max_attempts, jobs.superseded, jobs.delivery_id, \
     jobs.timeouts, jobs.stalled_files";

fn claimed(row: PgRow, worker: &str, token: i64) -> ClaimedJob {
    ClaimedJob {
        id: JobId(row.get("id")),
        kind: row.get("kind"),
        payload: row.get("payload"),
        serial_key: row.get("serial_key"),
        coalesce_key: row.get("coalesce_key"),
        attempt: row.get("attempts"),
        max_attempts: row.get("max_attempts"),
        superseded: row.get("superseded"),
        delivery_id: row.get("delivery_id"),
        timeouts: row.get("timeouts"),
        stalled_files: row.get("stalled_files"),
        claimed_by: worker.to_string(),
        token,
    }
}

/// Claims a running job whose lease ran out: its worker is gone.
pub(super) async fn claim_expired(
    ex: impl PgExecutor<'_>,
    worker: &str,
    token: i64,
    lease_secs: f64,
) -> sqlx::Result<Option<ClaimedJob>> {
    let row = sqlx::query(&format!(
        "WITH candidate AS (
             SELECT id FROM jobs
             WHERE state = 'running' AND locked_until < now()
               AND NOT superseded AND attempts < max_attempts
             ORDER BY locked_until
             LIMIT 1
             FOR UPDATE SKIP LOCKED
         )
         UPDATE jobs SET claimed_by = $1, claim_token = $2,
             locked_until = now() + make_interval(secs => $3),
             attempts = jobs.attempts + 1, updated_at = now()
         FROM candidate WHERE jobs.id = candidate.id
         RETURNING {CLAIMED_COLUMNS}"
    ))
    .bind(worker)
    .bind(token)
    .bind(lease_secs)
    .fetch_optional(ex)
    .await?;
    Ok(row.map(|r| claimed(r, worker, token)))
}

/// Claims the oldest due waiting job whose key has no running job and no older waiting
/// job.
pub(super) async fn claim_waiting(
    ex: impl PgExecutor<'_>,
    worker: &str,
    token: i64,
    lease_secs: f64,
) -> sqlx::Result<Option<ClaimedJob>> {
    let row = sqlx::query(&format!(
        "WITH candidate AS (
             SELECT j.id FROM jobs j
             WHERE j.state = 'waiting' AND j.run_at <= now()
               AND (j.serial_key IS NULL OR (
                   NOT EXISTS (SELECT 1 FROM jobs r
                               WHERE r.serial_key = j.serial_key AND r.state = 'running')
                   AND NOT EXISTS (SELECT 1 FROM jobs e
                                   WHERE e.serial_key = j.serial_key AND e.state = 'waiting'
                                     AND e.id < j.id)))
             ORDER BY j.run_at, j.id
             LIMIT 1
             FOR UPDATE SKIP LOCKED
         )
         UPDATE jobs SET state = 'running', claimed_by = $1, claim_token = $2,
             locked_until = now() + make_interval(secs => $3),
             attempts = jobs.attempts + 1, updated_at = now()
         FROM candidate WHERE jobs.id = candidate.id
         RETURNING {CLAIMED_COLUMNS}"
    ))
    .bind(worker)
    .bind(token)
    .bind(lease_secs)
    .fetch_optional(ex)
    .await?;
    Ok(row.map(|r| claimed(r, worker, token)))
}

/// Extends a held lease; None if the claim is no longer held.
pub(super) async fn heartbeat(
    ex: impl PgExecutor<'_>,
    id: JobId,
    token: i64,
    lease_secs: f64,
) -> sqlx::Result<Option<bool>> {
    sqlx::query_scalar(
        "UPDATE jobs SET locked_until = now() + make_interval(secs => $3), updated_at = now()
         WHERE id = $1 AND claim_token = $2 AND state = 'running'
         RETURNING superseded",
    )
    .bind(id.0)
    .bind(token)
    .bind(lease_secs)
    .fetch_optional(ex)
    .await
}

pub(super) async fn complete(ex: impl PgExecutor<'_>, id: JobId, token: i64) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "UPDATE jobs SET state = 'done', claim_token = NULL, locked_until = NULL,
             finished_at = now(), updated_at = now()
         WHERE id = $1 AND claim_token = $2 AND state = 'running'",
    )
    .bind(id.0)
    .bind(token)
    .execute(ex)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A failed attempt: waiting again after `wait_secs`, dead, or done if superseded.
/// Returns the new state and whether it was superseded; None if the claim is not held.
pub(super) async fn fail(
    ex: impl PgExecutor<'_>,
    id: JobId,
    token: i64,
    error: &str,
    permanent: bool,
    wait_secs: f64,
) -> sqlx::Result<Option<(JobState, bool)>> {
    let row = sqlx::query(
        "UPDATE jobs SET
             state = CASE WHEN superseded THEN 'done'
                          WHEN $4 OR attempts >= max_attempts THEN 'dead'
                          ELSE 'waiting' END,
             run_at = CASE WHEN superseded OR $4 OR attempts >= max_attempts THEN run_at
                           ELSE now() + make_interval(secs => $5) END,
             finished_at = CASE WHEN superseded OR $4 OR attempts >= max_attempts THEN now() END,
             last_error = $3, claim_token = NULL, locked_until = NULL, updated_at = now()
         WHERE id = $1 AND claim_token = $2 AND state = 'running'
         RETURNING state, superseded",
    )
    .bind(id.0)
    .bind(token)
    .bind(error)
    .bind(permanent)
    .bind(wait_secs)
    .fetch_optional(ex)
    .await?;
    Ok(row.map(|r| {
        (
            JobState::parse(r.get::<&str, _>("state")),
            r.get("superseded"),
        )
    }))
}

/// An attempt stopped at its deadline, having read `stalled` then: the first time on
/// this input it waits `wait_secs` and runs again (an attempt spent); the
/// `max_timeouts`-th time it is dead. Done if superseded. None if the claim is not held.
#[allow(clippy::too_many_arguments)]
pub(super) async fn time_out(
    ex: impl PgExecutor<'_>,
    id: JobId,
    token: i64,
    error: &str,
    stalled: &[String],
    max_timeouts: i32,
    wait_secs: f64,
) -> sqlx::Result<Option<(JobState, bool)>> {
    let row = sqlx::query(
        "UPDATE jobs SET
             state = CASE WHEN superseded THEN 'done'
                          WHEN timeouts + 1 >= $5 OR attempts >= max_attempts THEN 'dead'
                          ELSE 'waiting' END,
             run_at = CASE WHEN superseded OR timeouts + 1 >= $5 OR attempts >= max_attempts
                           THEN run_at ELSE now() + make_interval(secs => $6) END,
             finished_at = CASE WHEN superseded OR timeouts + 1 >= $5 OR attempts >= max_attempts
                                THEN now() END,
             timeouts = timeouts + 1,
             stalled_files = ARRAY(SELECT DISTINCT f FROM unnest(stalled_files || $4::text[]) f
                                   ORDER BY f),
             last_error = $3, claim_token = NULL, locked_until = NULL, updated_at = now()
         WHERE id = $1 AND claim_token = $2 AND state = 'running'
         RETURNING state, superseded",
    )
    .bind(id.0)
    .bind(token)
    .bind(error)
    .bind(stalled)
    .bind(max_timeouts)
    .bind(wait_secs)
    .fetch_optional(ex)
    .await?;
    Ok(row.map(|r| {
        (
            JobState::parse(r.get::<&str, _>("state")),
            r.get("superseded"),
        )
    }))
}

/// What [`defer`] did.
pub(super) struct Deferred {
    pub state: JobState,
    pub superseded: bool,
    /// The attempt was not counted (the job had deferrals left).
    pub free: bool,
}

/// A deferred attempt: waiting again after `wait_secs` without counting the attempt,
/// while the job has had fewer than `max_deferrals` deferrals; after that, counted as a
/// failed attempt (dead if it was the last). Done if superseded. None if the claim is not
/// held. (Every expression in SET sees the row as it was before the update.)
pub(super) async fn defer(
    ex: impl PgExecutor<'_>,
    id: JobId,
    token: i64,
    error: &str,
    wait_secs: f64,
    max_deferrals: i32,
) -> sqlx::Result<Option<Deferred>> {
    let row = sqlx::query(
        "UPDATE jobs SET
             state = CASE WHEN superseded THEN 'done'
                          WHEN deferrals < $4 THEN 'waiting'
                          WHEN attempts >= max_attempts THEN 'dead'
                          ELSE 'waiting' END,
             attempts = CASE WHEN NOT superseded AND deferrals < $4
                             THEN GREATEST(attempts - 1, 0) ELSE attempts END,
             deferrals = CASE WHEN superseded THEN deferrals ELSE deferrals + 1 END,
             run_at = CASE WHEN superseded OR (deferrals >= $4 AND attempts >= max_attempts)
                           THEN run_at ELSE now() + make_interval(secs => $5) END,
             finished_at = CASE WHEN superseded OR (deferrals >= $4 AND attempts >= max_attempts)
                                THEN now() END,
             last_error = $3, claim_token = NULL, locked_until = NULL, updated_at = now()
         WHERE id = $1 AND claim_token = $2 AND state = 'running'
         RETURNING state, superseded, deferrals <= $4 AS free",
    )
    .bind(id.0)
    .bind(token)
    .bind(error)
    .bind(max_deferrals)
    .bind(wait_secs)
    .fetch_optional(ex)
    .await?;
    Ok(row.map(|r| Deferred {
        state: JobState::parse(r.get::<&str, _>("state")),
        superseded: r.get("superseded"),
        free: r.get("free"),
    }))
}

/// Gives a claim back without counting its attempt; a superseded job is done instead
/// (the newer job waits in its place).
pub(super) async fn release(ex: impl PgExecutor<'_>, id: JobId, token: i64) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "UPDATE jobs SET
             state = CASE WHEN superseded THEN 'done' ELSE 'waiting' END,
             finished_at = CASE WHEN superseded THEN now() END,
             attempts = GREATEST(attempts - 1, 0),
             claimed_by = NULL, claim_token = NULL, locked_until = NULL, updated_at = now()
         WHERE id = $1 AND claim_token = $2 AND state = 'running'",
    )
    .bind(id.0)
    .bind(token)
    .execute(ex)
    .await?;
    Ok(done.rows_affected() == 1)
}

pub(super) async fn is_superseded(
    ex: impl PgExecutor<'_>,
    id: JobId,
) -> sqlx::Result<Option<bool>> {
    sqlx::query_scalar("SELECT superseded FROM jobs WHERE id = $1")
        .bind(id.0)
        .fetch_optional(ex)
        .await
}

pub(super) async fn state(
    ex: impl PgExecutor<'_>,
    id: JobId,
) -> Result<Option<JobState>, super::QueueError> {
    let s: Option<String> = sqlx::query_scalar("SELECT state FROM jobs WHERE id = $1")
        .bind(id.0)
        .fetch_optional(ex)
        .await?;
    Ok(s.as_deref().map(JobState::parse))
}

/// The queue's depth: waiting, due, running and dead jobs, each counted on its partial
/// index (these sets stay small), never a scan of the whole table. Done jobs are not
/// counted here (see [`count_done`]).
pub(super) async fn counts(ex: impl PgExecutor<'_>) -> Result<QueueStatus, super::QueueError> {
    let row = sqlx::query(
        "SELECT (SELECT count(*) FROM jobs WHERE state = 'waiting') AS waiting,
                (SELECT count(*) FROM jobs WHERE state = 'waiting' AND run_at <= now()) AS due,
                (SELECT count(*) FROM jobs WHERE state = 'running') AS running,
                (SELECT count(*) FROM jobs WHERE state = 'dead') AS dead,
                (SELECT extract(epoch FROM now() - min(run_at))::float8 FROM jobs
                 WHERE state = 'waiting' AND run_at <= now()) AS oldest_due",
    )
    .fetch_one(ex)
    .await?;
    Ok(QueueStatus {
        waiting: row.get("waiting"),
        due: row.get("due"),
        running: row.get("running"),
        done: 0,
        dead: row.get("dead"),
        oldest_due: row
            .get::<Option<f64>, _>("oldest_due")
            .map(|s| std::time::Duration::from_secs_f64(s.max(0.0))),
        last_error: None,
    })
}

/// Done jobs: as many as the retention keeps (an index-only count of its partial index).
pub(super) async fn count_done(ex: impl PgExecutor<'_>) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT count(*) FROM jobs WHERE state = 'done'")
        .fetch_one(ex)
        .await
}

pub(super) async fn recent_deliveries(
    ex: impl PgExecutor<'_>,
    limit: i64,
) -> Result<Vec<super::DeliveryRecord>, super::QueueError> {
    let rows = sqlx::query(
        "SELECT delivery_id, event, action, outcome, jobs,
                (extract(epoch FROM received_at) * 1000000)::int8 AS at_micros
         FROM deliveries ORDER BY received_at DESC LIMIT $1",
    )
    .bind(limit)
    .fetch_all(ex)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| super::DeliveryRecord {
            delivery: r.get("delivery_id"),
            event: r.get("event"),
            action: r.get("action"),
            outcome: r.get("outcome"),
            jobs: r.get("jobs"),
            at: chrono::DateTime::from_timestamp_micros(r.get("at_micros")).unwrap_or_default(),
        })
        .collect())
}

pub(super) async fn recent_failures(
    ex: impl PgExecutor<'_>,
    limit: i64,
) -> Result<Vec<JobFailure>, super::QueueError> {
    let rows = sqlx::query(
        "SELECT id, kind, state, attempts, last_error,
                (extract(epoch FROM updated_at) * 1000000)::int8 AS at_micros
         FROM jobs
         WHERE last_error IS NOT NULL
         ORDER BY updated_at DESC, id DESC
         LIMIT $1",
    )
    .bind(limit)
    .fetch_all(ex)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| JobFailure {
            id: JobId(r.get("id")),
            kind: r.get("kind"),
            state: JobState::parse(r.get::<&str, _>("state")),
            attempts: r.get("attempts"),
            error: r.get("last_error"),
            at: chrono::DateTime::from_timestamp_micros(r.get("at_micros")).unwrap_or_default(),
        })
        .collect())
}

/// Jobs that failed and wait to run again, or died, newest first.
pub(super) async fn troubled_jobs(
    ex: impl PgExecutor<'_>,
    offset: i64,
    limit: i64,
) -> sqlx::Result<Vec<super::TroubledJob>> {
    let rows = sqlx::query(
        "SELECT id, kind, state, payload->>'full_name' AS repository, attempts, max_attempts,
                deferrals, last_error,
                (extract(epoch FROM run_at) * 1000000)::int8 AS run_micros,
                (extract(epoch FROM updated_at) * 1000000)::int8 AS at_micros
         FROM jobs
         WHERE state = 'dead' OR (state = 'waiting' AND last_error IS NOT NULL)
         ORDER BY updated_at DESC, id DESC
         LIMIT $1 OFFSET $2",
    )
    .bind(limit)
    .bind(offset)
    .fetch_all(ex)
    .await?;
    let at =
        |r: &PgRow, c: &str| chrono::DateTime::from_timestamp_micros(r.get(c)).unwrap_or_default();
    Ok(rows
        .iter()
        .map(|r| {
            let state = JobState::parse(r.get::<&str, _>("state"));
            super::TroubledJob {
                id: JobId(r.get("id")),
                kind: r.get("kind"),
                state,
                repository: r.get("repository"),
                attempts: r.get("attempts"),
                max_attempts: r.get("max_attempts"),
                deferrals: r.get("deferrals"),
                error: r.get::<Option<String>, _>("last_error").unwrap_or_default(),
                next_run: (state == JobState::Waiting).then(|| at(r, "run_micros")),
                at: at(r, "at_micros"),
            }
        })
        .collect())
}

/// Records the head a push to a repository's default branch names (its `after`), from
/// the push job's payload; a repository not stored yet is left alone.
pub(super) async fn note_pushed_head(
    ex: impl PgExecutor<'_>,
    payload: &serde_json::Value,
) -> sqlx::Result<()> {
    let (Some(repository), Some(after)) = (
        payload.get("repository").and_then(|v| v.as_i64()),
        payload.get("after").and_then(|v| v.as_str()),
    ) else {
        return Ok(());
    };
    sqlx::query("UPDATE repositories SET pushed_sha = $2, pushed_at = now() WHERE github_id = $1")
        .bind(repository)
        .bind(storable(after).as_ref())
        .execute(ex)
        .await?;
    Ok(())
}

/// Jobs newest first (by their last change), of one state or all.
pub(super) async fn list_jobs(
    ex: impl PgExecutor<'_>,
    state: Option<JobState>,
    limit: i64,
) -> sqlx::Result<Vec<super::JobSummary>> {
    let rows = sqlx::query(
        "SELECT id, kind, state, attempts, max_attempts, deferrals, serial_key, last_error,
                (extract(epoch FROM updated_at) * 1000000)::int8 AS at_micros
         FROM jobs
         WHERE $1::text IS NULL OR state = $1
         ORDER BY updated_at DESC, id DESC
         LIMIT $2",
    )
    .bind(state.map(JobState::as_str))
    .bind(limit)
    .fetch_all(ex)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| super::JobSummary {
            id: JobId(r.get("id")),
            kind: r.get("kind"),
            state: JobState::parse(r.get::<&str, _>("state")),
            attempts: r.get("attempts"),
            max_attempts: r.get("max_attempts"),
            deferrals: r.get("deferrals"),
            serial_key: r.get("serial_key"),
            error: r.get("last_error"),
            at: chrono::DateTime::from_timestamp_micros(r.get("at_micros")).unwrap_or_default(),
        })
        .collect())
}

/// Makes every dead job wait again, with fresh attempts; how many.
pub(super) async fn retry_all_dead(ex: impl PgExecutor<'_>) -> sqlx::Result<u64> {
    let done = sqlx::query(
        "UPDATE jobs SET state = 'waiting', attempts = 0, deferrals = 0, run_at = now(),
             finished_at = NULL, claimed_by = NULL, lease_grace = false, updated_at = now()
         WHERE state = 'dead'",
    )
    .execute(ex)
    .await?;
    Ok(done.rows_affected())
}

pub(super) async fn retry_dead(ex: impl PgExecutor<'_>, id: JobId) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "UPDATE jobs SET state = 'waiting', attempts = 0, deferrals = 0, run_at = now(), finished_at = NULL,
             claimed_by = NULL, lease_grace = false, updated_at = now()
         WHERE id = $1 AND state = 'dead'",
    )
    .bind(id.0)
    .execute(ex)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Deletes up to `batch` jobs in `state` finished more than `age_secs` ago, oldest
/// first (by the partial indexes on finished_at); skips rows another pruner holds.
pub(super) async fn prune_jobs(
    ex: impl PgExecutor<'_>,
    state: &str,
    age_secs: f64,
    batch: i64,
) -> sqlx::Result<u64> {
    let done = sqlx::query(
        "DELETE FROM jobs WHERE id IN (
             SELECT id FROM jobs
             WHERE state = $1 AND finished_at < now() - make_interval(secs => $2)
             ORDER BY finished_at
             LIMIT $3
             FOR UPDATE SKIP LOCKED)",
    )
    .bind(state)
    .bind(age_secs)
    .bind(batch)
    .execute(ex)
    .await?;
    Ok(done.rows_affected())
}

/// Deletes up to `batch` deliveries received more than `age_secs` ago.
pub(super) async fn prune_deliveries(
    ex: impl PgExecutor<'_>,
    age_secs: f64,
    batch: i64,
) -> sqlx::Result<u64> {
    let done = sqlx::query(
        "DELETE FROM deliveries WHERE delivery_id IN (
             SELECT delivery_id FROM deliveries
             WHERE received_at < now() - make_interval(secs => $1)
             ORDER BY received_at
             LIMIT $2
             FOR UPDATE SKIP LOCKED)",
    )
    .bind(age_secs)
    .bind(batch)
    .execute(ex)
    .await?;
    Ok(done.rows_affected())
}

/// The versions in sqlx's migration table that applied successfully (none if the table
/// does not exist yet).
pub(super) async fn applied_migrations(ex: impl PgExecutor<'_>) -> sqlx::Result<Vec<i64>> {
    sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success")
        .fetch_all(ex)
        .await
        .or_else(|e| match &e {
            sqlx::Error::Database(db) if db.code().as_deref() == Some("42P01") => Ok(Vec::new()),
            _ => Err(e),
        })
}
