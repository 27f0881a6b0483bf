//! Keeping the queue's tables to their retention: finished jobs and old deliveries are
//! deleted on a schedule, in small batches, so a large backlog never holds long locks and
//! the tables (and the command payloads in them, whole comment bodies) stay bounded.

use std::future::Future;
use std::time::Duration;

use super::{sql, Queue, Result};

/// How long finished work is kept, and how it is deleted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Retention {
    /// Done jobs, after they finished.
    pub done: Duration,
    /// Dead jobs, after they died: long enough for an operator to look and retry them
    /// (`blast-radius jobs retry-dead`).
    pub dead: Duration,
    /// Deliveries, after they arrived. Keep them longer than GitHub's redelivery window (3
    /// days on github.com, 7 on GHES), so a redelivery is still recognised as one.
    pub deliveries: Duration,
    /// Rows deleted per statement.
    pub batch: i64,
    /// How often the pruner runs.
    pub every: Duration,
}

impl Default for Retention {
    fn default() -> Self {
        const DAY: u64 = 24 * 3600;
        Retention {
            done: Duration::from_secs(7 * DAY),
            dead: Duration::from_secs(30 * DAY),
            deliveries: Duration::from_secs(7 * DAY),
            batch: 1000,
            every: Duration::from_secs(3600),
        }
    }
}

/// What one pruning deleted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    pub done: u64,
    pub dead: u64,
    pub deliveries: u64,
}

impl Queue {
    /// Deletes the jobs and deliveries older than `retention` allows, `retention.batch`
    /// rows per statement (each its own transaction), until none is left. Waiting and
    /// running jobs are never touched; a job whose delivery is deleted keeps running
    /// (its `delivery_id` becomes NULL).
    pub async fn prune(&self, retention: &Retention) -> Result<Pruned> {
        let batch = retention.batch.max(1);
        let mut pruned = Pruned::default();
        for (state, age, count) in [
            ("done", retention.done, &mut pruned.done),
            ("dead", retention.dead, &mut pruned.dead),
        ] {
            loop {
                let n = sql::prune_jobs(&self.pool, state, age.as_secs_f64(), batch).await?;
                *count += n;
                if n < batch as u64 {
                    break;
                }
                tokio::task::yield_now().await;
            }
        }
        loop {
            let n = sql::prune_deliveries(&self.pool, retention.deliveries.as_secs_f64(), batch)
                .await?;
            pruned.deliveries += n;
            if n < batch as u64 {
                break;
            }
            tokio::task::yield_now().await;
        }
        Ok(pruned)
    }
}

/// Prunes now and then every `queue.config().retention.every`, until `shutdown`
/// resolves. Several processes may run it: batches skip rows another one holds.
pub async fn run_pruner(queue: Queue, shutdown: impl Future<Output = ()> + Send) {
    let retention = queue.config().retention.clone();
    tokio::pin!(shutdown);
    loop {
        match queue.prune(&retention).await {
            Ok(p) if p != Pruned::default() => tracing::info!(
                done = p.done,
                dead = p.dead,
                deliveries = p.deliveries,
                "queue: pruned finished jobs and old deliveries"
            ),
            Ok(_) => {}
            Err(e) => tracing::warn!("queue: pruning failed (tried again later): {e}"),
        }
        tokio::select! {
            _ = tokio::time::sleep(retention.every) => {}
            _ = &mut shutdown => return,
        }
    }
}
