//! Writers of one repository are serialised by a Postgres advisory lock held for the
//! length of their transaction. Holding the lock is a value: functions that write a
//! repository's graph take a `&RepoLock`, so code that forgot to lock does not compile.

use sqlx::{PgConnection, Postgres, Transaction};

use super::RepoId;

/// Namespaces our advisory lock keys away from any other user of the database.
const LOCK_NAMESPACE: i64 = 0x4252_0000_0000_0000; // "BR"

/// Proof that the current transaction holds the write lock of `repo`.
pub struct RepoLock {
    repo: RepoId,
}

impl RepoLock {
    pub fn repo(&self) -> RepoId {
        self.repo
    }
}

/// Waits for, then takes, the write lock of `repo` until `tx` ends.
pub async fn lock_repository(
    tx: &mut Transaction<'_, Postgres>,
    repo: RepoId,
) -> sqlx::Result<RepoLock> {
    let conn: &mut PgConnection = tx;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(LOCK_NAMESPACE | repo.0)
        .execute(conn)
        .await?;
    Ok(RepoLock { repo })
}
