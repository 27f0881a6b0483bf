//! Recovering missed webhook deliveries. GitHub never retries a delivery that failed (no
//! connection, no answer within 10 s, a 5xx), and intake answers 503 while the database is
//! down or the process shuts down. So at start, right after the database comes back, and
//! on a schedule, a round reads the App's delivery log back to the last delivery already
//! taken (never past GitHub's 3 days) and asks GitHub to deliver again each failed one
//! with no later success that intake has not recorded ([`plan`]). The redelivery carries
//! the same GUID: intake takes it once, as any delivery.

pub mod plan;

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use tokio::sync::{watch, Notify};
use tokio::time::Instant;

use crate::github::GithubApp;
use crate::queue::{NotReady, Queue, RecoveryHold};
use plan::{plan, Limits};

/// How far back GitHub keeps deliveries to redeliver (github.com; 7 days on GHES), less a
/// margin so a round never asks for one GitHub has just dropped.
const RETENTION: chrono::Duration = chrono::Duration::minutes(3 * 24 * 60 - 10);
/// JWT requests the round leaves to the rest of the App (minting installation tokens).
const RATE_RESERVE: u32 = 200;
/// Between two redelivery requests: GitHub asks for serial, spaced-out writes.
const REDELIVERY_SPACING: Duration = Duration::from_millis(250);
/// After intake refused a delivery: GitHub logs the failure once our answer is in.
const AFTER_A_REFUSAL: Duration = Duration::from_secs(3);
/// A round's hold outlives a process that died during it by at most this.
const HOLD_LEASE: Duration = Duration::from_secs(90);
/// Rounds woken by a refusal start at least this far apart: anyone can make intake
/// refuse a request (a slow body), and each round spends the App's requests.
const WOKEN_GAP: Duration = Duration::from_secs(30);

/// When rounds run and how much each does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecoverySettings {
    /// Between rounds while a recent delivery is missed (not yet taken, or just asked for
    /// again).
    pub busy_every: Duration,
    /// Between rounds otherwise.
    pub idle_every: Duration,
    /// Redeliveries asked for in one round.
    pub max_redeliveries: usize,
    /// Pages of 100 attempts read in one round.
    pub max_pages: u32,
}

impl Default for RecoverySettings {
    fn default() -> Self {
        RecoverySettings {
            busy_every: Duration::from_secs(120),
            idle_every: Duration::from_secs(15 * 60),
            max_redeliveries: 50,
            max_pages: 10,
        }
    }
}

/// What a round found and did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Round {
    pub read: usize,
    pub redelivered: usize,
    pub outstanding: usize,
}

/// Why a round did not run to its end.
#[derive(Debug, thiserror::Error)]
pub enum RoundError {
    #[error("the database: {0}")]
    Database(#[from] crate::queue::QueueError),
    #[error("GitHub: {0}")]
    Github(#[from] crate::github::GithubError),
}

/// The recovery rounds: one as soon as the listener is up (`serving`), one after `wake`
/// (intake refused a delivery GitHub logs as failed: the database, load, a slow body)
/// once the database answers and at least [`WOKEN_GAP`] after the last, then on the
/// schedule, until `stop`.
pub async fn recovery_loop(
    github: GithubApp,
    queue: Queue,
    settings: RecoverySettings,
    wake: Arc<Notify>,
    mut serving: watch::Receiver<bool>,
    mut stop: watch::Receiver<bool>,
) {
    tokio::select! {
        _ = serving.wait_for(|s| *s) => {}
        _ = stop.wait_for(|s| *s) => return,
    }
    let holder = format!("{}:recovery", queue.config().worker_name);
    let mut next = Instant::now();
    // A round at start or after a refusal is followed by one at the busy pace even when
    // it found nothing: GitHub may log a failed attempt some time after it was made.
    let mut follow_up = true;
    // When the last woken round began.
    let mut last_woken: Option<Instant> = None;
    loop {
        let woken = tokio::select! {
            _ = tokio::time::sleep_until(next) => false,
            _ = wake.notified() => true,
            _ = stop.wait_for(|s| *s) => return,
        };
        if woken {
            follow_up = true;
            tracing::info!(
                "delivery recovery: intake refused a delivery; a round soon, once the database answers"
            );
            let soonest = last_woken.map_or(Instant::now(), |l| l + WOKEN_GAP);
            let at = soonest.max(Instant::now() + AFTER_A_REFUSAL);
            tokio::select! {
                _ = tokio::time::sleep_until(at) => {}
                _ = stop.wait_for(|s| *s) => return,
            }
        }
        if !database_back(&queue, &mut stop).await {
            return;
        }
        let began = Instant::now();
        if woken {
            last_woken = Some(began);
        }
        let outcome = run_round(&github, &queue, &holder, &settings).await;
        let label = match &outcome {
            Ok(Some(_)) => "done",
            Ok(None) => "skipped",
            Err(_) => "failed",
        };
        metrics::counter!("blast_delivery_recovery_rounds_total", "outcome" => label).increment(1);
        next = match outcome {
            Ok(Some(round)) => {
                if round.redelivered > 0 || round.outstanding > 0 {
                    tracing::info!(
                        read = round.read,
                        redelivered = round.redelivered,
                        outstanding = round.outstanding,
                        ms = began.elapsed().as_millis() as u64,
                        "delivery recovery: missed deliveries asked for again"
                    );
                    began + settings.busy_every
                } else if std::mem::take(&mut follow_up) {
                    tracing::debug!(read = round.read, "delivery recovery: nothing missed yet");
                    began + settings.busy_every
                } else {
                    tracing::debug!(read = round.read, "delivery recovery: nothing missed");
                    began + settings.idle_every
                }
            }
            // Another process holds the round.
            Ok(None) => began + settings.busy_every,
            Err(RoundError::Database(e)) => {
                // The loop waits for the database before the next round.
                tracing::warn!("delivery recovery: {e}; again once the database answers");
                Instant::now() + Duration::from_secs(1)
            }
            Err(e) => {
                tracing::warn!("delivery recovery failed (tried again later): {e}");
                began + settings.busy_every
            }
        };
    }
}

/// Waits until the database answers, probing with a backoff from 1 to 5 s (one connection attempt: cheap) and saying so
/// once; false on `stop`.
async fn database_back(queue: &Queue, stop: &mut watch::Receiver<bool>) -> bool {
    let mut wait = Duration::from_secs(1);
    let mut told = false;
    loop {
        // A pool waits up to its acquire timeout for a connection: a probe gives up
        // sooner.
        let ready = tokio::time::timeout(Duration::from_secs(3), queue.check_ready()).await;
        match ready.unwrap_or_else(|_| Err(NotReady::TimedOut)) {
            Ok(()) => {
                if told {
                    tracing::info!("delivery recovery: the database answers again");
                }
                return true;
            }
            Err(e) if !told => {
                told = true;
                tracing::warn!("delivery recovery waits for the database: {e}");
            }
            Err(_) => {}
        }
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = stop.wait_for(|s| *s) => return false,
        }
        wait = (wait * 2).min(Duration::from_secs(5));
    }
}

/// One round, if this process gets to hold it (`None`: another one does).
pub async fn run_round(
    github: &GithubApp,
    queue: &Queue,
    holder: &str,
    settings: &RecoverySettings,
) -> Result<Option<Round>, RoundError> {
    let Some(hold) = queue.hold_recovery(holder, HOLD_LEASE).await? else {
        return Ok(None);
    };
    let result = round(github, queue, &hold, settings).await;
    let release = match &result {
        Ok((_, mark)) => queue.release_recovery(&hold, *mark).await,
        Err(_) => queue.release_recovery(&hold, None).await,
    };
    let (round, _) = result?;
    release?;
    Ok(Some(round))
}

async fn round(
    github: &GithubApp,
    queue: &Queue,
    hold: &RecoveryHold,
    settings: &RecoverySettings,
) -> Result<(Round, Option<chrono::DateTime<Utc>>), RoundError> {
    let started = Utc::now();
    if !rate_left(github) {
        tracing::warn!("delivery recovery: the App's rate limit is nearly spent; next round");
        return Ok((Round::default(), None));
    }
    let floor = started - RETENTION;
    let since = hold.taken_through.map_or(floor, |mark| mark.max(floor));
    let log = github.hook_deliveries(since, settings.max_pages).await?;
    if !log.complete {
        tracing::warn!(
            pages = log.pages,
            "delivery recovery: the delivery log is longer than a round reads; the newest are taken first"
        );
    }
    let failed: Vec<String> = log
        .attempts
        .iter()
        .filter(|a| !a.succeeded())
        .map(|a| a.guid.clone())
        .collect();
    let recorded = if failed.is_empty() {
        Default::default()
    } else {
        queue.known_deliveries(&failed).await?
    };
    let plan = plan(
        &log,
        &recorded,
        started,
        Limits {
            redeliveries: settings.max_redeliveries,
            per_delivery: 5,
        },
    );
    if !plan.given_up.is_empty() {
        // One line a round, naming a few: a round may see many.
        let some: Vec<&str> = plan.given_up.iter().take(5).map(String::as_str).collect();
        tracing::warn!(
            count = plan.given_up.len(),
            deliveries = some.join(", "),
            "delivery recovery: missed deliveries not asked for again (refused for good, or failing every time)"
        );
    }
    let mut redelivered = 0;
    for (i, attempt) in plan.redeliver.iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(REDELIVERY_SPACING).await;
        }
        if !rate_left(github) {
            break;
        }
        match github.redeliver(attempt.id).await {
            Ok(()) => {
                redelivered += 1;
                metrics::counter!("blast_deliveries_recovered_total").increment(1);
                tracing::info!(
                    delivery = attempt.guid.as_str(),
                    event = attempt.event.as_str(),
                    action = attempt.action.as_deref().unwrap_or("-"),
                    "delivery recovery: asked GitHub to deliver it again"
                );
            }
            // The next round asks again.
            Err(e) => {
                tracing::warn!(
                    delivery = attempt.guid.as_str(),
                    "delivery recovery: redelivery refused: {e}"
                );
                if e.retry_at().is_some() {
                    break;
                }
            }
        }
    }
    metrics::gauge!("blast_delivery_oldest_missed_seconds").set(
        plan.oldest_outstanding.map_or(0.0, |t| {
            (Utc::now() - t).num_milliseconds().max(0) as f64 / 1000.0
        }),
    );
    Ok((
        Round {
            read: log.attempts.len(),
            redelivered,
            outstanding: plan.outstanding,
        },
        plan.taken_through,
    ))
}

/// Whether the App's JWT budget, as GitHub last reported it, leaves the reserve.
fn rate_left(github: &GithubApp) -> bool {
    github
        .rate_limit()
        .is_none_or(|r| r.remaining > RATE_RESERVE || r.reset <= Utc::now())
}
