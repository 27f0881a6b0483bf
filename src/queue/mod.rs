//! The durable job queue, in Postgres: its own IO edge beside `store`.
//!
//! Intake records each webhook delivery and the jobs it asks for in one transaction
//! ([`Queue::record_delivery_and_enqueue`]); workers in any number of processes, on any
//! number of machines, claim jobs with `FOR UPDATE SKIP LOCKED` ([`Queue::claim`]) and run
//! them ([`run_workers`]). Postgres is the only coordinator.
//!
//! The rules, each enforced in SQL (see `migrations/0003_app_queue.sql`):
//! - **Serialisation.** Jobs with the same `serial_key` (a repository, an installation)
//!   never run at the same time, and start in the order they were enqueued: a unique
//!   index allows one running job per key, and a job is claimable only when no older job
//!   of its key is waiting.
//! - **Coalescing.** A new job with the `coalesce_key` of a waiting job replaces it (three
//!   pushes in a row become one catch-up), and marks a running job with that key
//!   superseded, so its worker can see it ([`RunningJob::is_superseded`]) and not post a
//!   stale result. The waiting job keeps its attempts, its deferrals, and a wait it has a
//!   reason for (a backoff, a rate limit's reset): newer work never resets what older
//!   work spent.
//! - **Leases.** A claim holds the job until `locked_until`, which the worker's heartbeat
//!   moves on. A running job whose lease ran out (its worker crashed, was killed, or lost
//!   the database) is claimable again; a fencing token keeps the old worker from then
//!   completing or failing it.
//! - **Retries.** A failed job waits an exponential backoff with jitter and runs again, up
//!   to its `max_attempts`; then, or at once for a [`JobError::permanent`] error, it is
//!   dead, with its last error kept. [`Queue::release`] (graceful shutdown) gives a job back
//!   without counting the attempt.
//! - **Deferral.** A job that cannot go on before a known time (GitHub's rate limit resets
//!   at the hour; [`JobError::deferred`]) waits until then without spending an attempt
//!   ([`Queue::defer`]): a spent budget never kills work. The wait is capped at
//!   [`QueueConfig::max_defer`] (a bogus reset header cannot park a job for a day), and a
//!   job is deferred for free at most [`QueueConfig::max_deferrals`] times; after that each
//!   deferral counts as a failed attempt, so a job that is always limited still dies in the
//!   end, after at most `max_deferrals + max_attempts` runs. A deferred job keeps its place in its
//!   serial key's line, so the key's later jobs (which would meet the same limit: one
//!   installation, one budget) wait behind it.
//!
//! The App's jobs, typed, are in [`payloads`], beside the [`JobPayload`] trait they implement.

mod backoff;
mod job_error;
pub mod payloads;
mod prune;
mod recovery;
mod sql;
mod worker;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::Serialize;
use sqlx::{PgConnection, PgPool};

use crate::store::text::storable;

pub use backoff::backoff;
pub use job_error::JobError;
pub use prune::{run_pruner, Pruned, Retention};
pub use recovery::RecoveryHold;
pub use worker::{run_workers, Handler, RunningJob};

/// The channel a `NOTIFY` goes to when a job may have become claimable.
pub const NOTIFY_CHANNEL: &str = "blast_radius_jobs";

/// The longest one statement of the queue's pool may run: its statements touch a few
/// rows by index (pruning deletes in batches), so one that takes longer is stuck on a lock
/// and had better fail than hold a worker.
pub const STATEMENT_TIMEOUT: &str = "30s";

/// A job's row id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct JobId(pub i64);

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "job {}", self.0)
    }
}

/// Where a job is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobState {
    Waiting,
    Running,
    Done,
    Dead,
}

impl JobState {
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Waiting => "waiting",
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Dead => "dead",
        }
    }

    fn parse(s: &str) -> JobState {
        match s {
            "waiting" => JobState::Waiting,
            "running" => JobState::Running,
            "done" => JobState::Done,
            _ => JobState::Dead,
        }
    }
}

impl fmt::Display for JobState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(thiserror::Error, Debug)]
pub enum QueueError {
    #[error("database error: {0}")]
    Sql(sqlx::Error),
    #[error("{0} is no longer held by this worker: its lease ran out and it may run elsewhere")]
    LeaseLost(JobId),
}

impl From<sqlx::Error> for QueueError {
    fn from(e: sqlx::Error) -> Self {
        QueueError::Sql(e)
    }
}

pub type Result<T> = std::result::Result<T, QueueError>;

/// How the queue behaves: leases, retries, polling, shutdown.
#[derive(Clone, Debug)]
pub struct QueueConfig {
    /// How long a claim holds a job without a heartbeat.
    pub lease: Duration,
    /// How often a running job's lease is extended (well under `lease`).
    pub heartbeat: Duration,
    /// Attempts of a job that sets none.
    pub max_attempts: i32,
    /// The wait after a job's first failure; it doubles with each failure after.
    pub backoff_base: Duration,
    /// The longest wait between attempts.
    pub backoff_max: Duration,
    /// How often an idle worker looks for work when no notification wakes it.
    pub poll_interval: Duration,
    /// On shutdown, how long running jobs may take to finish before they are released.
    pub shutdown_grace: Duration,
    /// Wake idle workers at once with LISTEN/NOTIFY (else they only poll).
    pub listen: bool,
    /// The start of this process's worker ids (host and process id by default).
    pub worker_name: String,
    /// The furthest ahead a deferred job is put off. GitHub's primary limit resets within
    /// the hour; a reset further out is a bogus header, and the job tries again then.
    pub max_defer: Duration,
    /// Deferrals a job gets without spending an attempt; each one after spends one. At
    /// 24 and `max_defer` 75 min, an always-limited job keeps trying for a day or more.
    pub max_deferrals: i32,
    /// How long one attempt of a job may run (the heartbeat would otherwise hold a hung
    /// job's lease forever): then its handler is stopped and the attempt fails, to be
    /// retried like any failure.
    pub job_timeout: Duration,
    /// After its deadline a job's work is asked to stop; how long the worker waits for it
    /// (heartbeating) before settling the attempt anyway.
    pub stop_grace: Duration,
    /// Stops at the deadline a job gets on one input before it is dead: a file that
    /// stalls every attempt must not pin a worker forever.
    pub max_timeouts: i32,
    /// Kinds that may run longer (or must run shorter) than `job_timeout`.
    pub job_timeouts: Vec<(String, Duration)>,
    /// How long finished jobs and deliveries are kept ([`run_pruner`]).
    pub retention: Retention,
}

impl QueueConfig {
    /// The time limit of one attempt of a job of `kind`.
    pub fn timeout_for(&self, kind: &str) -> Duration {
        self.job_timeouts
            .iter()
            .find(|(k, _)| k == kind)
            .map_or(self.job_timeout, |(_, t)| *t)
    }
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig {
            lease: Duration::from_secs(60),
            heartbeat: Duration::from_secs(15),
            max_attempts: 8,
            backoff_base: Duration::from_secs(10),
            backoff_max: Duration::from_secs(30 * 60),
            poll_interval: Duration::from_secs(2),
            shutdown_grace: Duration::from_secs(20),
            listen: true,
            worker_name: default_worker_name(),
            max_defer: Duration::from_secs(75 * 60),
            max_deferrals: 24,
            job_timeout: Duration::from_secs(15 * 60),
            stop_grace: Duration::from_secs(30),
            max_timeouts: 2,
            job_timeouts: Vec::new(),
            retention: Retention::default(),
        }
    }
}

fn default_worker_name() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_string())
                .filter(|h| !h.is_empty())
        })
        .unwrap_or_else(|| "host".to_string());
    format!("{host}:{}", std::process::id())
}

/// A job to enqueue.
#[derive(Clone, Debug, PartialEq)]
pub struct NewJob {
    pub kind: String,
    pub payload: serde_json::Value,
    /// Jobs with the same key never run at the same time, and start in enqueue order.
    pub serial_key: Option<String>,
    /// A newer job with the same key replaces a waiting one and supersedes a running one.
    pub coalesce_key: Option<String>,
    /// None: the queue's default.
    pub max_attempts: Option<i32>,
    /// Not claimable before this much time has passed. With a serial key, later jobs of
    /// that key wait behind it (keys run in enqueue order).
    pub delay: Duration,
    /// With a coalescing key: a waiting job with that key takes this job's `batch` (a
    /// JSON array in the payload) after its own, instead of being replaced; a running
    /// one is not superseded (its batch is not this one's). Many comments on one pull
    /// request become one job that answers them all, at most [`MAX_BATCH`] of them.
    pub merge_batches: bool,
}

/// Files one stop records at most (a job reads one file per thread at a time).
pub const MAX_STALLED_FILES: usize = 64;

/// Items a joined batch holds at most: the comments one command job answers. Past it a
/// newcomer's items are dropped (a flood of comments on one pull request buys one job
/// of bounded size, not a job that grows without end).
pub const MAX_BATCH: i32 = 50;

impl NewJob {
    pub fn new(kind: impl Into<String>, payload: serde_json::Value) -> NewJob {
        NewJob {
            kind: kind.into(),
            payload,
            serial_key: None,
            coalesce_key: None,
            max_attempts: None,
            delay: Duration::ZERO,
            merge_batches: false,
        }
    }

    /// A job whose kind and payload come from a typed payload.
    pub fn of<P: JobPayload>(payload: &P) -> NewJob {
        // Serialising plain data structs to a Value cannot fail.
        let value = serde_json::to_value(payload).expect("a job payload serialises to JSON");
        NewJob::new(P::KIND, value)
    }

    pub fn serial(mut self, key: impl Into<String>) -> NewJob {
        self.serial_key = Some(key.into());
        self
    }

    pub fn coalesce(mut self, key: impl Into<String>) -> NewJob {
        self.coalesce_key = Some(key.into());
        self
    }

    /// Coalesces with a waiting job of `key` by joining their batches (see
    /// [`NewJob::merge_batches`]).
    pub fn batched(mut self, key: impl Into<String>) -> NewJob {
        self.coalesce_key = Some(key.into());
        self.merge_batches = true;
        self
    }

    pub fn max_attempts(mut self, n: i32) -> NewJob {
        self.max_attempts = Some(n);
        self
    }

    pub fn delay(mut self, d: Duration) -> NewJob {
        self.delay = d;
        self
    }
}

/// A typed job payload: its kind names it in the `jobs` table.
pub trait JobPayload: Serialize + DeserializeOwned {
    const KIND: &'static str;
}

/// What [`Queue::enqueue`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enqueued {
    pub id: JobId,
    /// It replaced a waiting job with the same coalescing key (and took its id).
    pub replaced_waiting: bool,
    /// Running jobs with the same coalescing key now marked superseded.
    pub superseded_running: u64,
}

/// A job a worker holds.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimedJob {
    pub id: JobId,
    pub kind: String,
    pub payload: serde_json::Value,
    pub serial_key: Option<String>,
    pub coalesce_key: Option<String>,
    /// This claim's attempt, from 1.
    pub attempt: i32,
    pub max_attempts: i32,
    /// A newer job with the same coalescing key existed when it was claimed.
    pub superseded: bool,
    pub delivery_id: Option<String>,
    /// Earlier attempts on this input stopped at their deadline.
    pub timeouts: i32,
    /// The files those attempts were reading when stopped, sorted: a retry leaves them
    /// out (and says so) rather than stall on them again.
    pub stalled_files: Vec<String>,
    pub claimed_by: String,
    /// Fences this claim: only its holder may heartbeat, complete, fail or release it.
    token: i64,
}

impl ClaimedJob {
    /// The payload as its type; a payload that does not fit is a permanent error.
    pub fn payload_as<T: DeserializeOwned>(&self) -> std::result::Result<T, JobError> {
        T::deserialize(&self.payload).map_err(|e| {
            JobError::permanent(anyhow::anyhow!(
                "{} of kind {} has a payload that does not fit: {e}",
                self.id,
                self.kind
            ))
        })
    }
}

/// A heartbeat's news.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heartbeat {
    pub superseded: bool,
}

/// Where a failed job went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failed {
    /// It will run again after the backoff.
    Retry { after: Duration },
    /// Deferred: it will run again at `until`, this attempt not counted.
    Deferred { until: DateTime<Utc> },
    /// Permanent error or out of attempts: dead, its error kept.
    Dead,
    /// A newer job with its coalescing key exists: it is done, not retried.
    Superseded,
}

/// A webhook delivery as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// `X-GitHub-Delivery`: the same on a redelivery.
    pub id: String,
    /// `X-GitHub-Event`.
    pub event: String,
    pub action: Option<String>,
    pub installation_id: Option<i64>,
    pub repository_id: Option<i64>,
}

/// What [`Queue::record_delivery_and_enqueue`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// A delivery not seen before: recorded, with its jobs.
    New { jobs: Vec<JobId> },
    /// Seen before (a redelivery): nothing done.
    Duplicate,
}

/// Counts for a status page.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct QueueStatus {
    pub waiting: i64,
    /// Waiting and due now (the rest wait for a backoff or a delay).
    pub due: i64,
    pub running: i64,
    pub done: i64,
    pub dead: i64,
    /// The age of the oldest due waiting job.
    pub oldest_due: Option<Duration>,
    /// The most recent error of any job.
    pub last_error: Option<JobFailure>,
}

/// A job's error, for a status page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobFailure {
    pub id: JobId,
    pub kind: String,
    pub state: JobState,
    pub attempts: i32,
    pub error: String,
    pub at: DateTime<Utc>,
}

/// A job as an operator lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobSummary {
    pub id: JobId,
    pub kind: String,
    pub state: JobState,
    pub attempts: i32,
    pub max_attempts: i32,
    pub deferrals: i32,
    pub serial_key: Option<String>,
    /// Its last error, if it ever failed.
    pub error: Option<String>,
    /// Its last change.
    pub at: DateTime<Utc>,
}

/// A job that failed and waits to run again, or died: for a status page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TroubledJob {
    pub id: JobId,
    pub kind: String,
    /// `waiting` (to be retried, or deferred to a rate limit's reset) or `dead`.
    pub state: JobState,
    /// The repository it is about, when its payload names one.
    pub repository: Option<String>,
    pub attempts: i32,
    pub max_attempts: i32,
    /// Times it waited for a rate limit's reset.
    pub deferrals: i32,
    pub error: String,
    /// When a waiting job runs next.
    pub next_run: Option<DateTime<Utc>>,
    /// Its last change.
    pub at: DateTime<Utc>,
}

/// A delivery as recorded, for a status page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryRecord {
    pub delivery: String,
    pub event: String,
    pub action: Option<String>,
    /// `queued` or `ignored`.
    pub outcome: String,
    pub jobs: i32,
    pub at: DateTime<Utc>,
}

/// Whether the database can take deliveries.
#[derive(thiserror::Error, Debug)]
pub enum NotReady {
    #[error("database unreachable: {0}")]
    Unreachable(sqlx::Error),
    #[error("{0} migration(s) not applied: run `blast-radius migrate` (or start `serve` without --no-migrate)")]
    Migrations(usize),
    #[error("the database did not answer in time")]
    TimedOut,
}

/// The queue: a handle on the pool and the configuration. Cheap to clone.
#[derive(Clone)]
pub struct Queue {
    pool: PgPool,
    config: Arc<QueueConfig>,
}

impl fmt::Debug for Queue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Queue")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Queue {
    pub fn new(pool: PgPool, config: QueueConfig) -> Queue {
        Queue {
            pool,
            config: Arc::new(config),
        }
    }

    /// A queue on a pool of its own at `url` (the store keeps its own pool).
    pub async fn connect(url: &str, connections: u32, config: QueueConfig) -> Result<Queue> {
        let options: sqlx::postgres::PgConnectOptions = url.parse()?;
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(connections)
            .acquire_timeout(std::time::Duration::from_secs(30))
            .connect_with(options.options([("statement_timeout", STATEMENT_TIMEOUT)]))
            .await?;
        Ok(Queue::new(pool, config))
    }

    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    pub fn config(&self) -> &QueueConfig {
        &self.config
    }

    /// Enqueues a job in its own transaction.
    pub async fn enqueue(&self, job: &NewJob) -> Result<Enqueued> {
        let mut tx = self.pool.begin().await?;
        let out = self.enqueue_in(&mut tx, job).await?;
        tx.commit().await?;
        Ok(out)
    }

    /// Enqueues a job inside the caller's transaction (`&mut *tx`): it exists, and wakes
    /// workers, only if that transaction commits.
    pub async fn enqueue_in(&self, conn: &mut PgConnection, job: &NewJob) -> Result<Enqueued> {
        self.enqueue_linked(conn, job, None).await
    }

    async fn enqueue_linked(
        &self,
        conn: &mut PgConnection,
        job: &NewJob,
        delivery: Option<&str>,
    ) -> Result<Enqueued> {
        let max_attempts = job.max_attempts.unwrap_or(self.config.max_attempts).max(1);
        let (id, replaced_waiting) =
            sql::upsert_job(&mut *conn, job, max_attempts, delivery).await?;
        let superseded_running = match &job.coalesce_key {
            Some(key) if !job.merge_batches => sql::supersede_running(&mut *conn, key).await?,
            _ => 0,
        };
        sql::notify(&mut *conn).await?;
        Ok(Enqueued {
            id,
            replaced_waiting,
            superseded_running,
        })
    }

    /// Records a webhook delivery and enqueues its jobs, in one transaction. A delivery id
    /// seen before (a redelivery) changes nothing and answers `Duplicate`.
    pub async fn record_delivery_and_enqueue(
        &self,
        delivery: &Delivery,
        jobs: &[NewJob],
    ) -> Result<Recorded> {
        let mut tx = self.pool.begin().await?;
        let outcome = if jobs.is_empty() { "ignored" } else { "queued" };
        if !sql::insert_delivery(&mut *tx, delivery, outcome, jobs.len() as i32).await? {
            tx.rollback().await?;
            return Ok(Recorded::Duplicate);
        }
        let mut ids = Vec::with_capacity(jobs.len());
        for job in jobs {
            if job.kind == payloads::ApplyPush::KIND {
                // The default branch's head as this push says: the status page sets the
                // graph's commit against it.
                sql::note_pushed_head(&mut *tx, &job.payload).await?;
            }
            ids.push(
                self.enqueue_linked(&mut tx, job, Some(&delivery.id))
                    .await?
                    .id,
            );
        }
        tx.commit().await?;
        Ok(Recorded::New { jobs: ids })
    }

    /// Claims the next claimable job for `worker`, if any: a running job whose lease ran
    /// out (its worker is gone), else the oldest due waiting job whose key has no running
    /// job and no older waiting job. Counts an attempt.
    pub async fn claim(&self, worker: &str) -> Result<Option<ClaimedJob>> {
        // Jobs superseded are not run again; one whose worker died (or lost the database)
        // on its last attempt gets one more, and is dead the second time.
        sql::retire_expired(&self.pool).await?;
        let token: i64 = rand::random();
        let lease = self.config.lease.as_secs_f64();
        if let Some(job) = sql::claim_expired(&self.pool, worker, token, lease).await? {
            return Ok(Some(job));
        }
        // Two claimers can race for two jobs of one key; the unique index lets one win,
        // and the other looks again.
        for _ in 0..4 {
            match sql::claim_waiting(&self.pool, worker, token, lease).await {
                Err(sqlx::Error::Database(e)) if e.is_unique_violation() => continue,
                other => return Ok(other?),
            }
        }
        Ok(None)
    }

    /// Extends the lease of a running job; says whether it has been superseded.
    pub async fn heartbeat(&self, job: &ClaimedJob) -> Result<Heartbeat> {
        let lease = self.config.lease.as_secs_f64();
        match sql::heartbeat(&self.pool, job.id, job.token, lease).await? {
            Some(superseded) => Ok(Heartbeat { superseded }),
            None => Err(QueueError::LeaseLost(job.id)),
        }
    }

    /// The job succeeded.
    pub async fn complete(&self, job: &ClaimedJob) -> Result<()> {
        if sql::complete(&self.pool, job.id, job.token).await? {
            sql::notify(&self.pool).await?;
            Ok(())
        } else {
            Err(QueueError::LeaseLost(job.id))
        }
    }

    /// The job failed: it runs again after a backoff, or is dead (permanent error or out
    /// of attempts) with `error` kept.
    pub async fn fail(&self, job: &ClaimedJob, error: &str, permanent: bool) -> Result<Failed> {
        let wait = backoff(
            job.attempt,
            self.config.backoff_base,
            self.config.backoff_max,
            rand::random::<f64>(),
        );
        let error = storable(&truncate(error, 8 * 1024)).into_owned();
        let state = sql::fail(
            &self.pool,
            job.id,
            job.token,
            &error,
            permanent,
            wait.as_secs_f64(),
        )
        .await?;
        let Some((state, superseded)) = state else {
            return Err(QueueError::LeaseLost(job.id));
        };
        sql::notify(&self.pool).await?;
        Ok(match state {
            JobState::Waiting => Failed::Retry { after: wait },
            JobState::Done if superseded => Failed::Superseded,
            _ => Failed::Dead,
        })
    }

    /// The attempt ran past its deadline and was stopped while reading `stalled`: it
    /// runs again after a backoff, leaving those files out, unless this was its
    /// [`QueueConfig::max_timeouts`]-th stop on this input: then it is dead with `error`.
    pub async fn time_out(
        &self,
        job: &ClaimedJob,
        error: &str,
        stalled: &[String],
    ) -> Result<Failed> {
        let wait = backoff(
            job.attempt,
            self.config.backoff_base,
            self.config.backoff_max,
            rand::random::<f64>(),
        );
        let error = truncate(error, 8 * 1024);
        // A bounded list of bounded names: what a stop records is the work's own.
        let stalled: Vec<String> = stalled
            .iter()
            .take(MAX_STALLED_FILES)
            .map(|f| truncate(&f.replace('\0', "\u{FFFD}"), 1024))
            .collect();
        let state = sql::time_out(
            &self.pool,
            job.id,
            job.token,
            &error,
            &stalled,
            self.config.max_timeouts,
            wait.as_secs_f64(),
        )
        .await?;
        let Some((state, superseded)) = state else {
            return Err(QueueError::LeaseLost(job.id));
        };
        sql::notify(&self.pool).await?;
        Ok(match state {
            JobState::Waiting => Failed::Retry { after: wait },
            JobState::Done if superseded => Failed::Superseded,
            _ => Failed::Dead,
        })
    }

    /// The job cannot go on before `until` (a rate limit's reset): it waits until then (at
    /// most [`QueueConfig::max_defer`] ahead, at least a second) without counting this
    /// attempt, unless it was deferred [`QueueConfig::max_deferrals`] times already: then
    /// the attempt counts as a failure (and may be its last), still waiting until `until`.
    pub async fn defer(
        &self,
        job: &ClaimedJob,
        error: &str,
        until: DateTime<Utc>,
    ) -> Result<Failed> {
        let wait = defer_wait(until, Utc::now(), self.config.max_defer);
        let error = storable(&truncate(error, 8 * 1024)).into_owned();
        let settled = sql::defer(
            &self.pool,
            job.id,
            job.token,
            &error,
            wait.as_secs_f64(),
            self.config.max_deferrals,
        )
        .await?;
        let Some(settled) = settled else {
            return Err(QueueError::LeaseLost(job.id));
        };
        sql::notify(&self.pool).await?;
        let until = Utc::now() + chrono::Duration::from_std(wait).unwrap_or_default();
        Ok(match settled.state {
            JobState::Waiting if settled.free => Failed::Deferred { until },
            JobState::Waiting => Failed::Retry { after: wait },
            JobState::Done if settled.superseded => Failed::Superseded,
            _ => Failed::Dead,
        })
    }

    /// Gives a running job back without counting its attempt (graceful shutdown).
    pub async fn release(&self, job: &ClaimedJob) -> Result<()> {
        if sql::release(&self.pool, job.id, job.token).await? {
            sql::notify(&self.pool).await?;
            Ok(())
        } else {
            Err(QueueError::LeaseLost(job.id))
        }
    }

    /// Whether a newer job with the job's coalescing key has been enqueued since. A job
    /// that no longer exists counts as superseded: publish nothing for it.
    pub async fn is_superseded(&self, job: JobId) -> Result<bool> {
        Ok(sql::is_superseded(&self.pool, job).await?.unwrap_or(true))
    }

    /// Whether a job of `kind` with coalescing key `key` whose payload's `field` is `value`
    /// exists, in any state (a dead one had its chance too).
    pub async fn has_job_for(
        &self,
        kind: &str,
        key: &str,
        field: &str,
        value: &str,
    ) -> Result<bool> {
        Ok(sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM jobs
                            WHERE kind = $1 AND coalesce_key = $2 AND payload->>$3 = $4)",
        )
        .bind(kind)
        .bind(key)
        .bind(field)
        .bind(value)
        .fetch_one(&self.pool)
        .await?)
    }

    /// A job's state, if it exists.
    pub async fn state(&self, job: JobId) -> Result<Option<JobState>> {
        sql::state(&self.pool, job).await
    }

    /// The queue's depth, cheap enough for every metrics scrape: waiting, due, running and
    /// dead jobs and the oldest due one. `done` and `last_error` are left empty (the done
    /// rate is the `blast_job_seconds` histogram's count, kept in process).
    pub async fn depth(&self) -> Result<QueueStatus> {
        sql::counts(&self.pool).await
    }

    /// Counts for a status page (done jobs too), and the last error.
    pub async fn status(&self) -> Result<QueueStatus> {
        let mut status = sql::counts(&self.pool).await?;
        status.done = sql::count_done(&self.pool).await?;
        status.last_error = sql::recent_failures(&self.pool, 1)
            .await?
            .into_iter()
            .next();
        Ok(status)
    }

    /// The most recent deliveries, newest first.
    pub async fn recent_deliveries(&self, limit: i64) -> Result<Vec<DeliveryRecord>> {
        sql::recent_deliveries(&self.pool, limit).await
    }

    /// The most recent job errors, newest first.
    pub async fn recent_failures(&self, limit: i64) -> Result<Vec<JobFailure>> {
        sql::recent_failures(&self.pool, limit).await
    }

    /// Jobs that failed and wait to run again, or died, newest first: `limit` of them
    /// after the first `offset`.
    pub async fn troubled_jobs(&self, offset: i64, limit: i64) -> Result<Vec<TroubledJob>> {
        Ok(sql::troubled_jobs(&self.pool, offset.max(0), limit.max(0)).await?)
    }

    /// Jobs newest first (by their last change), of one state or all.
    pub async fn list(&self, state: Option<JobState>, limit: i64) -> Result<Vec<JobSummary>> {
        Ok(sql::list_jobs(&self.pool, state, limit.max(0)).await?)
    }

    /// Makes every dead job wait again, with fresh attempts; how many.
    pub async fn retry_all_dead(&self) -> Result<u64> {
        let n = sql::retry_all_dead(&self.pool).await?;
        if n > 0 {
            sql::notify(&self.pool).await?;
        }
        Ok(n)
    }

    /// Makes a dead job wait again, with fresh attempts. False if it was not dead.
    pub async fn retry_dead(&self, job: JobId) -> Result<bool> {
        let revived = sql::retry_dead(&self.pool, job).await?;
        if revived {
            sql::notify(&self.pool).await?;
        }
        Ok(revived)
    }

    /// The database answers and every migration this build knows is applied.
    pub async fn check_ready(&self) -> std::result::Result<(), NotReady> {
        let applied = sql::applied_migrations(&self.pool)
            .await
            .map_err(NotReady::Unreachable)?;
        let missing = sqlx::migrate!("./migrations")
            .iter()
            .filter(|m| !applied.contains(&m.version))
            .count();
        if missing == 0 {
            Ok(())
        } else {
            Err(NotReady::Migrations(missing))
        }
    }
}

/// How long a job deferred until `until` waits: never past `max` (a reset header hours
/// or years ahead is wrong), never less than a second (a reset just passed must not make
/// a job spin).
fn defer_wait(until: DateTime<Utc>, now: DateTime<Utc>, max: Duration) -> Duration {
    let wait = (until - now).to_std().unwrap_or(Duration::ZERO);
    wait.clamp(Duration::from_secs(1), max.max(Duration::from_secs(1)))
}

fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes cut)", &s[..end], s.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_keeps_char_boundaries() {
        assert_eq!(truncate("abc", 5), "abc");
        let t = truncate("ééé", 3);
        assert!(t.starts_with('é') && t.ends_with("(4 bytes cut)"), "{t}");
    }

    #[test]
    fn a_deferral_waits_for_the_reset_within_bounds() {
        let now = Utc::now();
        let max = Duration::from_secs(75 * 60);
        let hour = now + chrono::Duration::hours(1);
        assert_eq!(defer_wait(hour, now, max), Duration::from_secs(3600));
        // A bogus reset a year ahead waits the cap; one in the past, a second.
        let year = now + chrono::Duration::days(365);
        assert_eq!(defer_wait(year, now, max), max);
        let past = now - chrono::Duration::minutes(5);
        assert_eq!(defer_wait(past, now, max), Duration::from_secs(1));
    }

    #[test]
    fn new_job_builder() {
        let j = NewJob::new("k", serde_json::json!({"a": 1}))
            .serial("repo:1")
            .coalesce("push:1")
            .max_attempts(3)
            .delay(Duration::from_secs(2));
        assert_eq!(j.serial_key.as_deref(), Some("repo:1"));
        assert_eq!(j.coalesce_key.as_deref(), Some("push:1"));
        assert_eq!(j.max_attempts, Some(3));
        assert_eq!(j.delay, Duration::from_secs(2));
    }
}
