//! The worker loop: claim, run the handler with a heartbeat, complete or fail; on
//! shutdown stop claiming, and let running jobs finish within a grace period or give
//! them back.

use std::future::Future;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use sqlx::postgres::PgListener;
use tokio::sync::{watch, Notify};
use tokio::time::{sleep, sleep_until, Instant};

use super::{ClaimedJob, Failed, JobError, Queue, QueueError, NOTIFY_CHANNEL};
use crate::cancel::Cancel;

/// What runs a job. Closures `Fn(RunningJob) -> impl Future<Output = Result<(), JobError>>`
/// are handlers; so is any type that implements this.
pub trait Handler: Send + Sync + 'static {
    fn handle(&self, job: RunningJob) -> impl Future<Output = Result<(), JobError>> + Send;
}

impl<F, Fut> Handler for F
where
    F: Fn(RunningJob) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), JobError>> + Send,
{
    fn handle(&self, job: RunningJob) -> impl Future<Output = Result<(), JobError>> + Send {
        self(job)
    }
}

/// A claimed job as its handler sees it: the job (through `Deref`), and what the worker
/// learns while it runs.
#[derive(Clone)]
pub struct RunningJob {
    job: Arc<ClaimedJob>,
    queue: Queue,
    signals: Arc<Signals>,
}

struct Signals {
    superseded: AtomicBool,
    lease_lost: AtomicBool,
    shutdown: watch::Receiver<bool>,
    /// Cancelled at the job's deadline (and at the end of the shutdown grace): CPU work
    /// run under it stops at its next checkpoint.
    cancel: Cancel,
}

impl RunningJob {
    /// A job claimed by hand (tests, one-off runs), with no worker loop around it.
    pub fn new(queue: Queue, job: ClaimedJob) -> RunningJob {
        let (_, shutdown) = watch::channel(false);
        RunningJob::with_shutdown(queue, job, shutdown)
    }

    fn with_shutdown(queue: Queue, job: ClaimedJob, shutdown: watch::Receiver<bool>) -> Self {
        RunningJob {
            signals: Arc::new(Signals {
                superseded: AtomicBool::new(job.superseded),
                lease_lost: AtomicBool::new(false),
                shutdown,
                // The files an earlier attempt stalled on are skipped, not read again.
                cancel: Cancel::leaving_out(job.stalled_files.clone()),
            }),
            job: Arc::new(job),
            queue,
        }
    }

    pub fn job(&self) -> &ClaimedJob {
        &self.job
    }

    /// The payload as its type; a payload that does not fit is a permanent error.
    pub fn payload_as<T: DeserializeOwned>(&self) -> Result<T, JobError> {
        self.job.payload_as()
    }

    /// Whether a newer job with this job's coalescing key exists, asked of the database:
    /// check it right before publishing a result, and publish nothing if it is true.
    pub async fn is_superseded(&self) -> Result<bool, QueueError> {
        let superseded = self.queue.is_superseded(self.job.id).await?;
        if superseded {
            self.signals.superseded.store(true, Ordering::Relaxed);
        }
        Ok(superseded)
    }

    /// Superseded as of the last heartbeat: cheap, for stopping long work early.
    pub fn superseded_hint(&self) -> bool {
        self.signals.superseded.load(Ordering::Relaxed)
    }

    /// The lease ran out and the job may be running elsewhere (the worker then stops
    /// this handler).
    pub fn lease_lost(&self) -> bool {
        self.signals.lease_lost.load(Ordering::Relaxed)
    }

    /// The process is shutting down: a long job may stop early and return an error (it
    /// is retried), or finish within the grace period.
    pub fn shutting_down(&self) -> bool {
        *self.signals.shutdown.borrow()
    }

    /// What stops this job's CPU work when its time is up: install it around the work
    /// (`workflow::cancellable` does, for `workflow::cpu`).
    pub fn cancel_token(&self) -> Cancel {
        self.signals.cancel.clone()
    }

    /// The queue, to enqueue follow-up jobs.
    pub fn queue(&self) -> &Queue {
        &self.queue
    }
}

impl Deref for RunningJob {
    type Target = ClaimedJob;

    fn deref(&self) -> &ClaimedJob {
        &self.job
    }
}

/// Runs `workers` workers until `shutdown` resolves; then stops claiming, gives running
/// jobs the configured grace period to finish, releases those that did not, and returns.
///
/// Each worker runs one job at a time, its handler in a task of its own (a panic fails
/// the job, to be retried), with a heartbeat every `config.heartbeat`. Idle workers look
/// for work every `config.poll_interval`, and at once when a job is enqueued or a key
/// frees up if `config.listen` (LISTEN holds one connection of the pool for itself).
pub async fn run_workers<H: Handler>(
    queue: Queue,
    workers: usize,
    handler: H,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let (stop_tx, stop) = watch::channel(false);
    let stopper = tokio::spawn(async move {
        shutdown.await;
        let _ = stop_tx.send(true);
        // Keep the sender: receivers then never see a closed channel.
        std::future::pending::<()>().await;
    });
    let wake = Arc::new(Notify::new());
    let listener = queue
        .config()
        .listen
        .then(|| tokio::spawn(listen(queue.clone(), wake.clone())));
    let handler = Arc::new(handler);
    let name = queue.config().worker_name.clone();
    let tasks: Vec<_> = (0..workers)
        .map(|i| {
            let worker = Worker {
                id: format!("{name}:{i}:{:08x}", rand::random::<u32>()),
                queue: queue.clone(),
                stop: stop.clone(),
                wake: wake.clone(),
            };
            tokio::spawn(worker.run(handler.clone()))
        })
        .collect();
    for task in tasks {
        if let Err(e) = task.await {
            tracing::error!("a queue worker task ended abnormally: {e}");
        }
    }
    if let Some(listener) = listener {
        listener.abort();
    }
    stopper.abort();
}

/// Wakes idle workers when a job may have become claimable.
async fn listen(queue: Queue, wake: Arc<Notify>) {
    // Said once per outage, not every try.
    let mut down = false;
    loop {
        let connected = match PgListener::connect_with(queue.pool()).await {
            Ok(mut l) => l.listen(NOTIFY_CHANNEL).await.map(|()| l),
            Err(e) => Err(e),
        };
        let mut listener = match connected {
            Ok(l) => l,
            Err(e) => {
                if !down {
                    tracing::warn!("queue: LISTEN failed ({e}); polling only until it connects");
                }
                down = true;
                sleep(Duration::from_secs(5)).await;
                continue;
            }
        };
        if down {
            tracing::info!("queue: LISTEN connected again");
        }
        // Connected (again: the database may be back): look for work now.
        wake.notify_waiters();
        loop {
            match listener.try_recv().await {
                Ok(Some(_)) => wake.notify_waiters(),
                // The connection dropped (and notifications with it): look now.
                Ok(None) => wake.notify_waiters(),
                Err(e) => {
                    tracing::warn!("queue: LISTEN connection lost ({e})");
                    down = true;
                    wake.notify_waiters();
                    sleep(Duration::from_secs(1)).await;
                    break;
                }
            }
        }
    }
}

struct Worker {
    id: String,
    queue: Queue,
    stop: watch::Receiver<bool>,
    wake: Arc<Notify>,
}

impl Worker {
    async fn run<H: Handler>(mut self, handler: Arc<H>) {
        let poll = self.queue.config().poll_interval;
        // Claims failed in a row (the database is down): said once, then waited out with
        // a backoff rather than a line and a connection attempt every poll.
        let mut failures = 0u32;
        while !*self.stop.borrow() {
            // Armed before looking, so a notification during the claim is not lost.
            let wake = self.wake.clone();
            let notified = wake.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let claimed = self.queue.claim(&self.id).await;
            if claimed.is_ok() && failures > 0 {
                tracing::info!("queue: claiming works again after {failures} failure(s)");
                failures = 0;
            }
            match claimed {
                Ok(Some(job)) => {
                    if *self.stop.borrow() {
                        // Shutdown began while claiming: give it straight back.
                        if let Err(e) = self.queue.release(&job).await {
                            tracing::warn!("queue: releasing {} at shutdown: {e}", job.id);
                        }
                        break;
                    }
                    self.run_one(&handler, job).await;
                    continue;
                }
                Ok(None) => {}
                Err(e) => {
                    failures += 1;
                    if failures == 1 {
                        tracing::warn!("queue: claiming failed ({e}); trying again with a backoff");
                    } else {
                        tracing::debug!("queue: claiming failed again ({e})");
                    }
                    // LISTEN, connected again, wakes it as soon as the database is back.
                    let wait = claim_backoff(poll, failures);
                    tokio::select! {
                        _ = &mut notified => {}
                        _ = sleep(wait) => {}
                        () = stopped(&mut self.stop) => {}
                    }
                    continue;
                }
            }
            tokio::select! {
                _ = &mut notified => {}
                _ = sleep(poll) => {}
                () = stopped(&mut self.stop) => {}
            }
        }
    }

    async fn run_one<H: Handler>(&self, handler: &Arc<H>, job: ClaimedJob) {
        let config = self.queue.config().clone();
        tracing::debug!(
            "queue: {} ({}) attempt {} on {}",
            job.id,
            job.kind,
            job.attempt,
            self.id
        );
        let running = RunningJob::with_shutdown(self.queue.clone(), job.clone(), self.stop.clone());
        let signals = running.signals.clone();
        let h = handler.clone();
        let began = Instant::now();
        let mut task = tokio::spawn(async move { h.handle(running).await });
        let limit = config.timeout_for(&job.kind);
        let time_up = Instant::now() + limit;
        let mut beat =
            tokio::time::interval_at(Instant::now() + config.heartbeat, config.heartbeat);
        let far = Instant::now() + Duration::from_secs(100 * 365 * 24 * 3600);
        let mut deadline: Option<Instant> = None;
        let mut stop_by: Option<Instant> = None;
        let mut stop = self.stop.clone();
        // Heartbeats failed in a row: the first is said, the rest are quiet until one works.
        let mut beats_failed = 0u32;
        loop {
            tokio::select! {
                result = &mut task => {
                    // Stopped at the deadline (a stop unwinds as a panic; a handler that
                    // saw it may return an error): settled as a time-out.
                    if stop_by.is_some() && !matches!(result, Ok(Ok(()))) {
                        self.time_out(&job, limit, began, &signals.cancel).await;
                        return;
                    }
                    let outcome = match &result {
                        Ok(Ok(())) => "done",
                        Ok(Err(e)) if e.is_permanent() => "failed_permanently",
                        Ok(Err(e)) if e.deferred_until().is_some() => "deferred",
                        Ok(Err(_)) => "failed",
                        Err(_) => "panicked",
                    };
                    metrics::histogram!("blast_job_seconds", "kind" => job.kind.clone(), "outcome" => outcome)
                        .record(began.elapsed().as_secs_f64());
                    self.settle(&job, result).await;
                    return;
                }
                _ = beat.tick() => match self.queue.heartbeat(&job).await {
                    Ok(hb) => {
                        if beats_failed > 0 {
                            tracing::info!("queue: heartbeat of {} works again", job.id);
                            beats_failed = 0;
                        }
                        signals.superseded.store(hb.superseded, Ordering::Relaxed)
                    }
                    Err(QueueError::LeaseLost(_)) => {
                        signals.lease_lost.store(true, Ordering::Relaxed);
                        task.abort();
                        tracing::warn!("queue: lost the lease of {}; stopped its handler", job.id);
                        return;
                    }
                    // The lease may still hold: try again at the next beat.
                    Err(e) => {
                        beats_failed += 1;
                        if beats_failed == 1 {
                            tracing::warn!("queue: heartbeat of {} failed: {e}", job.id);
                        }
                    }
                },
                _ = sleep_until(time_up), if stop_by.is_none() => {
                    // Ask the work to stop, and keep the lease (the beats go on) while it
                    // does: a job whose lease lapsed would be taken by another worker.
                    // CPU work stops at its next checkpoint; a hung await is aborted when
                    // the grace ends. (Not at once: the work must get to record where it
                    // stood before its task ends.)
                    signals.cancel.cancel();
                    stop_by = Some(Instant::now() + config.stop_grace);
                }
                _ = sleep_until(stop_by.unwrap_or(far)), if stop_by.is_some() => {
                    task.abort();
                    tracing::error!(
                        "queue: {} did not stop within {:?} of its deadline; its attempt is settled, its work may still hold a thread",
                        job.id,
                        config.stop_grace
                    );
                    self.time_out(&job, limit, began, &signals.cancel).await;
                    return;
                }
                () = stopped(&mut stop), if deadline.is_none() => {
                    deadline = Some(Instant::now() + config.shutdown_grace);
                }
                _ = sleep_until(deadline.unwrap_or(far)), if deadline.is_some() => {
                    signals.cancel.cancel();
                    task.abort();
                    // CPU work stops at its next checkpoint; do not wait on one that
                    // does not (the process is going anyway).
                    let _ = tokio::time::timeout(Duration::from_secs(5), &mut task).await;
                    match self.queue.release(&job).await {
                        Ok(()) => tracing::info!("queue: released {} at shutdown", job.id),
                        Err(e) => tracing::warn!("queue: releasing {} at shutdown: {e}", job.id),
                    }
                    return;
                }
            }
        }
    }

    /// Settles an attempt stopped at its deadline, naming the files its work was
    /// reading: retried without them, or dead if it was stopped on this input before.
    async fn time_out(&self, job: &ClaimedJob, limit: Duration, began: Instant, cancel: &Cancel) {
        metrics::histogram!("blast_job_seconds", "kind" => job.kind.clone(), "outcome" => "timed_out")
            .record(began.elapsed().as_secs_f64());
        let stalled = cancel.stalled();
        let reading = match stalled.as_slice() {
            [] => String::new(),
            files => format!(" while reading {}", files.join(", ")),
        };
        let error = format!(
            "the job ran longer than its time limit of {} s and was stopped{reading} (stop {} of {} on this input)",
            limit.as_secs_f64(),
            job.timeouts + 1,
            self.queue.config().max_timeouts
        );
        match self.queue.time_out(job, &error, &stalled).await {
            Ok(Failed::Dead) => tracing::error!("queue: {} is dead: {error}", job.id),
            Ok(Failed::Superseded) => {
                tracing::info!("queue: {} timed out but was superseded", job.id)
            }
            Ok(_) => tracing::warn!("queue: {} timed out, retried: {error}", job.id),
            Err(e) => tracing::warn!("queue: recording the time-out of {}: {e}", job.id),
        }
    }

    async fn settle(
        &self,
        job: &ClaimedJob,
        result: Result<Result<(), JobError>, tokio::task::JoinError>,
    ) {
        // Recording the end is tried again while the database is unreachable: a job
        // whose end is lost runs again after its lease, spending another attempt.
        let outcome = match result {
            Ok(Ok(())) => until_recorded(|| self.queue.complete(job))
                .await
                .map(|()| None),
            Ok(Err(e)) => {
                let text = format!("{e:#}");
                let settled = match e.deferred_until() {
                    Some(until) => until_recorded(|| self.queue.defer(job, &text, until)).await,
                    None => until_recorded(|| self.queue.fail(job, &text, e.is_permanent())).await,
                };
                settled.map(|f| Some((f, text)))
            }
            Err(join) => {
                let text = match join.try_into_panic() {
                    Ok(panic) => format!("the handler panicked: {}", panic_message(&panic)),
                    Err(e) => format!("the handler was cancelled: {e}"),
                };
                until_recorded(|| self.queue.fail(job, &text, false))
                    .await
                    .map(|f| Some((f, text)))
            }
        };
        match outcome {
            Ok(None) => tracing::info!("queue: {} done", job.id),
            Ok(Some((Failed::Retry { after }, e))) => {
                tracing::warn!("queue: {} failed, retried in {after:?}: {e}", job.id)
            }
            Ok(Some((Failed::Deferred { until }, e))) => {
                tracing::warn!(
                    "queue: {} deferred until {until} (attempt not counted): {e}",
                    job.id
                )
            }
            Ok(Some((Failed::Dead, e))) => tracing::error!("queue: {} is dead: {e}", job.id),
            Ok(Some((Failed::Superseded, e))) => {
                tracing::info!("queue: {} failed but was superseded: {e}", job.id)
            }
            Err(e) => tracing::warn!("queue: recording the end of {}: {e}", job.id),
        }
    }
}

/// The wait after `failures` claims failed in a row: the poll interval doubled each time,
/// at most 15 s.
fn claim_backoff(poll: Duration, failures: u32) -> Duration {
    poll.saturating_mul(1 << failures.min(5))
        .min(Duration::from_secs(15))
}

/// Runs `record` until it is not a database error, for at most about a minute (1, 2, 4,
/// 8, 15, 15, 15 s apart): the end of a job is worth waiting for the database.
async fn until_recorded<T, F, Fut>(mut record: F) -> Result<T, QueueError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, QueueError>>,
{
    let mut wait = Duration::from_secs(1);
    for _ in 0..7 {
        match record().await {
            Err(QueueError::Sql(e)) => {
                tracing::warn!(
                    "queue: recording a job's end failed ({e}); trying again in {wait:?}"
                );
                sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(15));
            }
            other => return other,
        }
    }
    record().await
}

/// Resolves once shutdown has begun (at once if it has).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    // The sender outlives every worker, so this errs only if it never sends.
    let _ = stop.wait_for(|&s| s).await;
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}
