//! What the recovery of missed webhook deliveries keeps in Postgres: the high-water mark
//! of GitHub's delivery log already taken, a hold so one process runs a round at a time,
//! and which delivery GUIDs the `deliveries` table already holds.

use std::collections::HashSet;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::Row;

use super::{Queue, Result};

fn from_epoch(seconds: f64) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp_micros((seconds * 1e6).round() as i64)
}

/// A recovery round this process holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecoveryHold {
    pub holder: String,
    /// Every delivery GitHub attempted before this was taken or given up on (`None`:
    /// no round has finished yet).
    pub taken_through: Option<DateTime<Utc>>,
}

impl Queue {
    /// Takes the recovery round for `holder` for at most `lease`, unless another
    /// process holds it: then `None`. A holder that died frees it when its lease ends.
    pub async fn hold_recovery(
        &self,
        holder: &str,
        lease: Duration,
    ) -> Result<Option<RecoveryHold>> {
        let row = sqlx::query(
            "UPDATE delivery_recovery
             SET held_by = $1, held_until = now() + make_interval(secs => $2), updated_at = now()
             WHERE id = 1 AND (held_until IS NULL OR held_until < now() OR held_by = $1)
             RETURNING extract(epoch FROM taken_through)::float8 AS taken_through",
        )
        .bind(holder)
        .bind(lease.as_secs_f64())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|r| RecoveryHold {
            holder: holder.to_string(),
            taken_through: r
                .get::<Option<f64>, _>("taken_through")
                .and_then(from_epoch),
        }))
    }

    /// Ends `hold`'s round: the mark moves to `taken_through` when given (never back
    /// past where it was), and the round is free.
    pub async fn release_recovery(
        &self,
        hold: &RecoveryHold,
        taken_through: Option<DateTime<Utc>>,
    ) -> Result<()> {
        sqlx::query(
            "UPDATE delivery_recovery
             SET taken_through = CASE WHEN $2::float8 IS NULL THEN taken_through
                                      ELSE GREATEST(taken_through, to_timestamp($2)) END,
                 held_by = NULL, held_until = NULL, updated_at = now()
             WHERE id = 1 AND held_by = $1",
        )
        .bind(&hold.holder)
        .bind(taken_through.map(|t| t.timestamp_micros() as f64 / 1e6))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Which of `ids` (`X-GitHub-Delivery` GUIDs) are recorded deliveries.
    pub async fn known_deliveries(&self, ids: &[String]) -> Result<HashSet<String>> {
        let known: Vec<String> =
            sqlx::query_scalar("SELECT delivery_id FROM deliveries WHERE delivery_id = ANY($1)")
                .bind(ids)
                .fetch_all(&self.pool)
                .await?;
        Ok(known.into_iter().collect())
    }
}
