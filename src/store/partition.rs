//! Each repository's files, definitions and edges live in partitions of their own
//! (migration 0002 says why). A repository's first full write builds its partitions as
//! plain tables: rows copied in with no index and no foreign key to maintain, then each
//! index built with one sort, then the tables attached to their parents in the
//! writer's transaction, which is when readers first see them.
//!
//! The plain tables are built on connections of their own, at the same time, and
//! committed before they are attached: until then no query of the parents reads them,
//! and a writer that fails halfway leaves tables that the next write of the repository
//! (under the same advisory lock) drops and builds again.

use sqlx::{PgConnection, PgPool, Postgres, Row, Transaction};
use tokio::task::JoinHandle;

use super::copy::CopyBuf;
use super::lock::RepoLock;
use super::RepoId;

/// The tables partitioned by repository, in the order they are attached.
pub const TABLES: [&str; 3] = ["files", "definitions", "edges"];

/// The partition of `table` that holds `repo`'s rows.
pub fn partition(table: &str, repo: RepoId) -> String {
    format!("{table}_r{}", repo.0)
}

/// Whether every table has `repo`'s partition attached.
pub async fn attached(db: &mut PgConnection, repo: RepoId) -> sqlx::Result<bool> {
    let names: Vec<String> = TABLES.iter().map(|t| partition(t, repo)).collect();
    let attached: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_class
         WHERE oid IN (SELECT to_regclass(n) FROM unnest($1::text[]) n) AND relispartition",
    )
    .bind(&names)
    .fetch_one(db)
    .await?;
    Ok(attached == TABLES.len() as i64)
}

/// Drops `repo`'s partitions, attached or left over, and their rows. Dropping a
/// partition locks its parent exclusively until the transaction ends (every reader of
/// every repository waits), so the transactions that do it do nothing slow after it.
pub async fn drop_all(db: &mut PgConnection, repo: RepoId) -> sqlx::Result<()> {
    let names: Vec<String> = TABLES.iter().map(|t| partition(t, repo)).collect();
    sqlx::query(&format!("DROP TABLE IF EXISTS {}", names.join(", ")))
        .execute(db)
        .await?;
    Ok(())
}

/// A repository's partition of one table being built as a plain table, in a
/// transaction of its own.
pub struct Detached {
    tx: Transaction<'static, Postgres>,
    name: String,
    /// Statements that give it its parent's indexes.
    indexes: Vec<String>,
}

/// Starts building `repo`'s partitions: one task per table creates the plain table on
/// a connection of its own, while the caller builds the rows to fill them with.
/// The lock is the caller's proof that no other writer builds them at the same time.
pub fn start(pool: &PgPool, lock: &RepoLock) -> [JoinHandle<sqlx::Result<Detached>>; 3] {
    TABLES.map(|table| tokio::spawn(create_detached(pool.clone(), lock.repo(), table)))
}

async fn create_detached(
    pool: PgPool,
    repo: RepoId,
    table: &'static str,
) -> sqlx::Result<Detached> {
    let name = partition(table, repo);
    let mut conn = pool.acquire().await?;
    let indexes = index_statements(&mut conn, table, &name).await?;
    let mut tx = Transaction::begin(conn, None).await?;
    // Left over by a writer that failed before attaching it.
    sqlx::query(&format!("DROP TABLE IF EXISTS {name}"))
        .execute(&mut *tx)
        .await?;
    // The CHECK lets ATTACH PARTITION skip scanning the table for stray rows.
    sqlx::query(&format!(
        "CREATE TABLE {name} (LIKE {table} INCLUDING DEFAULTS INCLUDING STORAGE,
                              CONSTRAINT {name}_repo CHECK (repo_id = {}))",
        repo.0
    ))
    .execute(&mut *tx)
    .await?;
    Ok(Detached { tx, name, indexes })
}

impl Detached {
    /// Copies the rows in, builds the indexes, and commits the table (still unseen:
    /// `attach` makes it a partition).
    pub async fn fill(mut self, columns: &str, rows: &CopyBuf) -> sqlx::Result<()> {
        super::copy::copy_in(&mut self.tx, &self.name, columns, rows).await?;
        for statement in &self.indexes {
            sqlx::query(statement).execute(&mut *self.tx).await?;
        }
        self.tx.commit().await
    }
}

/// Attaches `repo`'s plain tables as its partitions, in the caller's transaction.
pub async fn attach(db: &mut PgConnection, lock: &RepoLock) -> sqlx::Result<()> {
    let repo = lock.repo();
    for table in TABLES {
        sqlx::query(&format!(
            "ALTER TABLE {table} ATTACH PARTITION {} FOR VALUES IN ({})",
            partition(table, repo),
            repo.0
        ))
        .execute(&mut *db)
        .await?;
    }
    Ok(())
}

/// The statements that give table `name` the indexes and index-backed constraints
/// (primary key, unique) of partitioned `table`, so that ATTACH PARTITION adopts them
/// instead of building its own. Read from the catalog: they follow the migrations.
async fn index_statements(
    db: &mut PgConnection,
    table: &str,
    name: &str,
) -> sqlx::Result<Vec<String>> {
    let rows = sqlx::query(
        "SELECT i.relname::text, pg_get_indexdef(x.indexrelid),
                c.conname::text, pg_get_constraintdef(c.oid)
         FROM pg_index x
         JOIN pg_class i ON i.oid = x.indexrelid
         LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid
         WHERE x.indrelid = to_regclass($1)
         ORDER BY i.relname",
    )
    .bind(table)
    .fetch_all(db)
    .await?;
    let mut out = Vec::new();
    for row in rows {
        let index: String = row.get(0);
        let definition: String = row.get(1);
        let constraint: Option<String> = row.get(2);
        let suffix = index.strip_prefix(table).unwrap_or(&index);
        match constraint {
            Some(_) => {
                let def: String = row.get(3);
                out.push(format!(
                    "ALTER TABLE {name} ADD CONSTRAINT {name}{suffix} {def}"
                ));
            }
            None => {
                // "CREATE [UNIQUE] INDEX x ON ONLY public.t USING btree (a, b)"
                let using = definition
                    .find(" USING ")
                    .map(|at| &definition[at..])
                    .unwrap_or_default();
                let unique = if definition.starts_with("CREATE UNIQUE") {
                    "UNIQUE "
                } else {
                    ""
                };
                out.push(format!(
                    "CREATE {unique}INDEX {name}{suffix} ON {name}{using}"
                ));
            }
        }
    }
    Ok(out)
}
