//! Reading only what a question about one definition needs: its definitions by name, the
//! edges into it, the files those edges come from, and the unresolved call sites named
//! like it. What a cold `callers --database-url` reads instead of the whole graph.
//!
//! Every read of one question runs in one read-only snapshot, so a write that lands
//! between two of them is seen by none or by all.

use sqlx::{PgConnection, Postgres, Row, Transaction};

use super::copy::{self, CopyBuf};
use super::lock::RepoLock;
use super::rows::FileNumbers;
use super::{rows, text, RepoId, Result, Store, StoreError};
use crate::graph::stored::StoredResolution;
use crate::graph::{Confidence, DefId, Graph};
use crate::indexer::facts::FileFacts;

/// Rows one read of a snapshot hands back at most: past this, the question is not small
/// and the caller loads the whole graph instead.
pub const MAX_ROWS: i64 = 100_000;

/// An indexed file as a partial read hands it out.
pub struct StoredFile {
    /// Its number in the repository (the edges' and definitions' key).
    pub number: i32,
    pub facts: FileFacts,
    pub resolution: StoredResolution,
}

/// A call site into the definitions asked about: the file it is in, and the function it
/// is in (None at the file's top level).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallerLink {
    pub file: i32,
    pub def: Option<u32>,
}

/// One consistent view of a repository's rows, read a piece at a time.
pub struct Snapshot {
    tx: Transaction<'static, Postgres>,
    repo: RepoId,
}

impl Store {
    /// A read-only snapshot of `repo`'s rows.
    pub async fn snapshot(&self, repo: RepoId) -> Result<Snapshot> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        Ok(Snapshot { tx, repo })
    }
}

impl Snapshot {
    /// Whether the rows a read in place needs are stored (a full write since migration
    /// 0020 stored them): the unresolved call sites, and the declaration pairs.
    pub async fn reads_in_place(&mut self) -> Result<bool> {
        let ok: Option<bool> =
            sqlx::query_scalar("SELECT callers_recorded FROM repositories WHERE id = $1")
                .bind(self.repo.0)
                .fetch_optional(&mut *self.tx)
                .await?;
        Ok(ok.unwrap_or(false))
    }

    /// The declarations that stand for the code definitions `defs` (file number,
    /// definition index), with how sure each pairing is; None when there are more than
    /// [`MAX_ROWS`].
    pub async fn declarations_of(&mut self, defs: &[(i32, u32)]) -> Result<Option<Vec<Pair>>> {
        let (files, indexes) = columns(defs);
        let rows = sqlx::query(
            "SELECT p.code_file, p.code_def, p.decl_file, p.decl_def, p.confidence
             FROM unnest($2::int[], $3::int[]) AS t(file, def)
             JOIN declared_pairs p ON p.repo_id = $1 AND p.code_file = t.file AND p.code_def = t.def
             ORDER BY 1, 2, 3, 4 LIMIT $4",
        )
        .bind(self.repo.0)
        .bind(&files)
        .bind(&indexes)
        .bind(MAX_ROWS + 1)
        .fetch_all(&mut *self.tx)
        .await?;
        let pairs = rows
            .into_iter()
            .map(|r| {
                let confidence: String = r.get(4);
                let confidence =
                    Confidence::from_name(&confidence).ok_or_else(|| StoreError::Corrupt {
                        path: format!("file #{}", r.get::<i32, _>(0)),
                        reason: format!("a declaration pair's confidence '{confidence}'"),
                    })?;
                Ok(Pair {
                    code: (r.get(0), r.get::<i32, _>(1) as u32),
                    declaration: (r.get(2), r.get::<i32, _>(3) as u32),
                    confidence,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(within_bound(pairs))
    }

    /// The numbers of the files holding a definition whose simple or qualified name is
    /// `name`, ascending; None when there are more than [`MAX_ROWS`].
    pub async fn files_defining(&mut self, name: &str) -> Result<Option<Vec<i32>>> {
        let files: Vec<i32> = sqlx::query_scalar(
            "SELECT file_id FROM (
                SELECT file_id FROM definitions WHERE repo_id = $1 AND name = $2
                UNION
                SELECT file_id FROM definitions WHERE repo_id = $1 AND qualified_name = $2
             ) found ORDER BY file_id LIMIT $3",
        )
        .bind(self.repo.0)
        .bind(text::storable(name))
        .bind(MAX_ROWS + 1)
        .fetch_all(&mut *self.tx)
        .await?;
        Ok(within_bound(files))
    }

    /// The number of the file at `path`, if it is stored.
    pub async fn file_number(&mut self, path: &str) -> Result<Option<i32>> {
        Ok(
            sqlx::query_scalar("SELECT file_id FROM files WHERE repo_id = $1 AND path = $2")
                .bind(self.repo.0)
                .bind(text::storable(path))
                .fetch_optional(&mut *self.tx)
                .await?,
        )
    }

    /// The numbers of the stored files among `paths`.
    pub async fn file_numbers(&mut self, paths: &[String]) -> Result<Vec<i32>> {
        let stored: Vec<String> = paths
            .iter()
            .map(|p| text::storable(p).into_owned())
            .collect();
        Ok(sqlx::query_scalar(
            "SELECT file_id FROM files WHERE repo_id = $1 AND path = ANY($2) ORDER BY file_id",
        )
        .bind(self.repo.0)
        .bind(&stored)
        .fetch_all(&mut *self.tx)
        .await?)
    }

    /// Where the calls into the definitions `defs` (file number, definition index) are,
    /// each place once; None when there are more than [`MAX_ROWS`].
    pub async fn callers_into(&mut self, defs: &[(i32, u32)]) -> Result<Option<Vec<CallerLink>>> {
        let (files, indexes) = columns(defs);
        let rows = sqlx::query(
            "SELECT DISTINCT e.caller_file, e.caller_def
             FROM unnest($2::int[], $3::int[]) AS t(file, def)
             JOIN edges e ON e.repo_id = $1 AND e.callee_file = t.file AND e.callee_def = t.def
             ORDER BY 1, 2 LIMIT $4",
        )
        .bind(self.repo.0)
        .bind(&files)
        .bind(&indexes)
        .bind(MAX_ROWS + 1)
        .fetch_all(&mut *self.tx)
        .await?;
        let links = rows
            .into_iter()
            .map(|r| CallerLink {
                file: r.get(0),
                def: r.get::<Option<i32>, _>(1).map(|d| d as u32),
            })
            .collect();
        Ok(within_bound(links))
    }

    /// The indexed files among `numbers`, with their facts and resolutions, by number.
    pub async fn files(&mut self, numbers: &[i32]) -> Result<Vec<StoredFile>> {
        let rows = sqlx::query(
            "SELECT f.file_id, f.path, f.blob_sha, f.resolution, c.facts
             FROM files f
             LEFT JOIN facts_cache c ON c.repo_id = f.repo_id AND c.blob_sha = f.blob_sha
                                    AND c.variant = f.variant AND c.parser_version = f.parser_version
             WHERE f.repo_id = $1 AND f.file_id = ANY($2) AND f.status = 'indexed'
             ORDER BY f.file_id",
        )
        .bind(self.repo.0)
        .bind(numbers)
        .fetch_all(&mut *self.tx)
        .await?;
        rows.into_iter()
            .map(|r| {
                let path: String = r.get(1);
                let corrupt = |reason: String| StoreError::Corrupt {
                    path: path.clone(),
                    reason,
                };
                let blob: String = r.get(2);
                let resolution: Option<Vec<u8>> = r.get(3);
                let facts: Option<Vec<u8>> = r.get(4);
                let facts =
                    facts.ok_or_else(|| corrupt(format!("no cached facts for blob {blob}")))?;
                let facts =
                    rows::decode_facts(&path, &facts).map_err(|e| corrupt(e.to_string()))?;
                let resolution = match resolution {
                    Some(bytes) => {
                        rows::decode_resolution(&bytes).map_err(|e| corrupt(e.to_string()))?
                    }
                    None => StoredResolution::default(),
                };
                Ok(StoredFile {
                    number: r.get(0),
                    facts,
                    resolution,
                })
            })
            .collect()
    }

    /// How many call sites named `name` resolved to nothing, across the repository.
    pub async fn unresolved_named(&mut self, name: &str) -> Result<usize> {
        let sites: i64 = sqlx::query_scalar(
            "SELECT COALESCE(sum(sites), 0)::bigint FROM unresolved_calls
             WHERE repo_id = $1 AND name = $2",
        )
        .bind(self.repo.0)
        .bind(text::storable(name))
        .fetch_one(&mut *self.tx)
        .await?;
        Ok(usize::try_from(sites).unwrap_or(0))
    }
}

fn within_bound<T>(rows: Vec<T>) -> Option<Vec<T>> {
    (rows.len() as i64 <= MAX_ROWS).then_some(rows)
}

/// (file numbers, definition indexes) of `defs`, as two array parameters.
fn columns(defs: &[(i32, u32)]) -> (Vec<i32>, Vec<i32>) {
    defs.iter()
        .map(|&(f, d)| (f, i32::try_from(d).unwrap_or(i32::MAX)))
        .unzip()
}

/// A declaration that stands for a code definition, each by (file number, definition
/// index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    pub code: (i32, u32),
    pub declaration: (i32, u32),
    pub confidence: Confidence,
}

/// Replaces the repository's declaration pairs with `graph`'s (worked out now if they
/// were not), its files numbered by `numbers`; marks the rows a read in place needs as
/// stored when `complete` (a full write: the unresolved calls are all there too).
pub async fn replace_pairs(
    db: &mut PgConnection,
    lock: &RepoLock,
    graph: &Graph,
    numbers: &FileNumbers,
    complete: bool,
) -> Result<()> {
    let repo = lock.repo().0;
    // Worked out here if no query needed them yet (a package's at a time, on every core).
    let pairs = graph.declared_pairs();
    let mut rows = CopyBuf::new();
    for (code, declaration, confidence) in pairs {
        let number = |d: DefId| numbers.get(&graph.facts(d.file).path);
        let (Some(code_file), Some(decl_file)) = (number(code), number(declaration)) else {
            continue;
        };
        rows.int8(repo)
            .int4(code_file)
            .int4(code.def as i32)
            .int4(decl_file)
            .int4(declaration.def as i32)
            .text(confidence.as_str());
        rows.end_row();
    }
    // Most pushes leave the pairs as they were: then nothing is written.
    let digest = rows.digest();
    let stored: Option<i64> =
        sqlx::query_scalar("SELECT declared_pairs_hash FROM repositories WHERE id = $1")
            .bind(repo)
            .fetch_optional(&mut *db)
            .await?
            .flatten();
    if complete || stored != Some(digest) {
        sqlx::query("DELETE FROM declared_pairs WHERE repo_id = $1")
            .bind(repo)
            .execute(&mut *db)
            .await?;
        copy::copy_in(&mut *db, "declared_pairs", PAIRS_COLUMNS, &rows).await?;
        sqlx::query("UPDATE repositories SET declared_pairs_hash = $2 WHERE id = $1")
            .bind(repo)
            .bind(digest)
            .execute(&mut *db)
            .await?;
    }
    if complete {
        sqlx::query(
            "UPDATE repositories SET callers_recorded = true WHERE id = $1 AND NOT callers_recorded",
        )
        .bind(repo)
        .execute(&mut *db)
        .await?;
    }
    Ok(())
}

const PAIRS_COLUMNS: &str = "repo_id, code_file, code_def, decl_file, decl_def, confidence";
