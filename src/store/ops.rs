//! One async function per SQL statement. Each takes any executor (the pool, a
//! connection, a transaction), so callers compose them into transactions.

use rustc_hash::FxHashSet;
use sqlx::{PgConnection, PgExecutor, Row};

use super::copy::CopyBuf;
use super::lock::RepoLock;
use super::RepoId;

/// Versions of the migrations applied (none when sqlx's table does not exist yet).
pub async fn applied_migrations(db: impl PgExecutor<'_> + Copy) -> sqlx::Result<Vec<i64>> {
    let exists: bool = sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
        .fetch_one(db)
        .await?;
    if !exists {
        return Ok(Vec::new());
    }
    sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success")
        .fetch_all(db)
        .await
}

pub async fn upsert_installation(
    db: impl PgExecutor<'_>,
    id: i64,
    account_login: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO installations (id, account_login) VALUES ($1, $2)
         ON CONFLICT (id) DO UPDATE SET account_login = EXCLUDED.account_login",
    )
    .bind(id)
    .bind(account_login)
    .execute(db)
    .await?;
    Ok(())
}

/// The repositories of an installation.
pub async fn installation_repositories(
    db: impl PgExecutor<'_>,
    id: i64,
) -> sqlx::Result<Vec<RepoId>> {
    let ids: Vec<i64> =
        sqlx::query_scalar("SELECT id FROM repositories WHERE installation_id = $1 ORDER BY id")
            .bind(id)
            .fetch_all(db)
            .await?;
    Ok(ids.into_iter().map(RepoId).collect())
}

/// Deletes an installation with its repositories and every row of theirs. The caller
/// holds the lock of each of its repositories.
pub async fn delete_installation(
    db: &mut PgConnection,
    id: i64,
    locks: &[RepoLock],
) -> sqlx::Result<u64> {
    for lock in locks {
        delete_graph_rows(&mut *db, lock.repo()).await?;
    }
    Ok(sqlx::query("DELETE FROM installations WHERE id = $1")
        .bind(id)
        .execute(db)
        .await?
        .rows_affected())
}

/// Creates the repository row if missing; returns its id.
pub async fn ensure_repository(
    db: &mut PgConnection,
    full_name: &str,
    installation_id: Option<i64>,
    github_id: Option<i64>,
) -> sqlx::Result<RepoId> {
    let row = sqlx::query(
        "INSERT INTO repositories (full_name, installation_id, github_id) VALUES ($1, $2, $3)
         ON CONFLICT (full_name) DO UPDATE
           SET installation_id = COALESCE(EXCLUDED.installation_id, repositories.installation_id),
               github_id = COALESCE(EXCLUDED.github_id, repositories.github_id)
         RETURNING id",
    )
    .bind(full_name)
    .bind(installation_id)
    .bind(github_id)
    .fetch_one(db)
    .await?;
    Ok(RepoId(row.get(0)))
}

/// Deletes a repository and every row of it: edges and definitions here, the rest by
/// cascade from its row.
pub async fn delete_repository(db: &mut PgConnection, repo: RepoId) -> sqlx::Result<u64> {
    delete_graph_rows(&mut *db, repo).await?;
    Ok(sqlx::query("DELETE FROM repositories WHERE id = $1")
        .bind(repo.0)
        .execute(db)
        .await?
        .rows_affected())
}

/// Deletes the rows of `repo` that no foreign key deletes with its repository row (the
/// rest go with it: files, removals, the facts cache). Each statement walks the
/// repository's own range of an index that leads with `repo_id`, and locks only its rows.
async fn delete_graph_rows(db: &mut PgConnection, repo: RepoId) -> sqlx::Result<()> {
    for table in [
        "edges",
        "definitions",
        "external_call_groups",
        "unresolved_calls",
        "declared_pairs",
        "link_sites",
    ] {
        sqlx::query(&format!("DELETE FROM {table} WHERE repo_id = $1"))
            .bind(repo.0)
            .execute(&mut *db)
            .await?;
    }
    Ok(())
}

/// A row of [`calls_into`]: one file's calls into one package.
#[derive(sqlx::FromRow)]
pub struct CallIntoRow {
    pub repo_id: i64,
    pub full_name: String,
    pub private: bool,
    pub commit_sha: Option<String>,
    pub path: String,
    /// How many calls `calls` holds, and of those how many fit the bound.
    pub sites: i32,
    pub within: i64,
    pub calls: Vec<u8>,
    /// Each call's arguments, packed, in the order of `calls` (shorter when written
    /// before they were kept: the rest are not known).
    pub args: Vec<u8>,
}

/// The calls into `packages` of the installation's repositories but `except`, by file
/// and package in key order, up to `limit` calls (the last group read may hold more:
/// `within` says how many of its calls are inside the bound). Reads the index by package
/// and repository, then each row's repository and file.
pub async fn calls_into(
    db: impl PgExecutor<'_>,
    installation: Option<i64>,
    except: i64,
    packages: &[String],
    limit: i64,
) -> sqlx::Result<Vec<CallIntoRow>> {
    sqlx::query_as(
        "SELECT repo_id, full_name, private, commit_sha, path, sites,
                LEAST(sites, $4 - (upto - sites)) AS within, calls, args
         FROM (
           SELECT g.repo_id, r.full_name, r.private, r.commit_sha, f.path, g.sites, g.calls,
                  g.args,
                  sum(g.sites) OVER (ORDER BY g.repo_id, g.file_id, g.package) AS upto
           FROM external_call_groups g
           JOIN repositories r ON r.id = g.repo_id
           JOIN files f ON f.repo_id = g.repo_id AND f.file_id = g.file_id
           WHERE g.package = ANY($1) AND r.installation_id IS NOT DISTINCT FROM $2
             AND g.repo_id <> $3
         ) bounded
         WHERE upto - sites < $4",
    )
    .bind(packages)
    .bind(installation)
    .bind(except)
    .bind(limit)
    .fetch_all(db)
    .await
}

/// A row of [`link_sites_reaching`]: a client or producer of another repository.
#[derive(sqlx::FromRow)]
pub struct LinkSiteRow {
    pub full_name: String,
    pub private: bool,
    pub commit_sha: Option<String>,
    pub path: String,
    pub role: String,
    pub line: i32,
    pub encoded: Vec<u8>,
}

/// The clients and producers of the installation's repositories but `except` that may
/// reach what is served: producers and tRPC clients of the same (kind, name) as one of
/// `kinds`/`names`, HTTP clients whose path holds one of `literals`. Candidates, each
/// read by index (migration 0022), the first `limit` by repository, path and place;
/// the caller confirms each.
pub async fn link_sites_reaching(
    db: impl PgExecutor<'_>,
    installation: Option<i64>,
    except: i64,
    kinds: &[String],
    names: &[String],
    literals: &[String],
    limit: i64,
) -> sqlx::Result<Vec<LinkSiteRow>> {
    sqlx::query_as(
        "SELECT r.full_name, r.private, r.commit_sha, f.path, s.role, s.line,
                s.encoded
         FROM (
           SELECT repo_id, file_id, role, line, col, encoded FROM link_sites
           WHERE role IN ('client', 'producer')
             AND (kind, name) IN (SELECT * FROM unnest($1::text[], $2::text[]))
           UNION ALL
           SELECT repo_id, file_id, role, line, col, encoded FROM link_sites
           WHERE role = 'client' AND kind = 'http' AND literals && $3::text[]
         ) s
         JOIN repositories r ON r.id = s.repo_id
         JOIN files f ON f.repo_id = s.repo_id AND f.file_id = s.file_id
         WHERE r.installation_id IS NOT DISTINCT FROM $4 AND s.repo_id <> $5
         ORDER BY r.full_name, f.path, s.line, s.col
         LIMIT $6",
    )
    .bind(kinds)
    .bind(names)
    .bind(literals)
    .bind(installation)
    .bind(except)
    .bind(limit)
    .fetch_all(db)
    .await
}

/// The text of the package.json files of the installation's repositories but `except`
/// that mention one of `packages`, at most `limit` of them, one at a time: who else may
/// own one of the names (the caller reads each file's `name`).
pub fn package_manifests_mentioning<'a>(
    db: &'a sqlx::PgPool,
    installation: Option<i64>,
    except: i64,
    packages: &'a [String],
    limit: i64,
) -> futures_util::stream::BoxStream<'a, sqlx::Result<String>> {
    sqlx::query_scalar(
        "SELECT f.content
         FROM files f
         JOIN repositories r ON r.id = f.repo_id
         WHERE r.installation_id IS NOT DISTINCT FROM $1 AND f.repo_id <> $2
           AND f.status = 'config' AND f.content IS NOT NULL
           AND (f.path = 'package.json' OR f.path LIKE '%/package.json')
           AND EXISTS (SELECT 1 FROM unnest($3::text[]) p WHERE strpos(f.content, p) > 0)
         LIMIT $4",
    )
    .bind(installation)
    .bind(except)
    .bind(packages)
    .bind(limit)
    .fetch(db)
}

/// A repository row as the store hands it out.
pub type RepoRow = (
    RepoId,
    String,
    Option<String>,
    i64,
    Option<i64>,
    Option<i64>,
    String,
    i32,
);

const REPO_COLUMNS: &str = "id, full_name, commit_sha, graph_version, github_id, installation_id, \
     default_branch, selection_version";

fn repo_row(r: sqlx::postgres::PgRow) -> RepoRow {
    (
        RepoId(r.get(0)),
        r.get(1),
        r.get(2),
        r.get(3),
        r.get(4),
        r.get(5),
        r.get(6),
        r.get(7),
    )
}

pub async fn repository_by_name(
    db: impl PgExecutor<'_>,
    full_name: &str,
) -> sqlx::Result<Option<RepoRow>> {
    let row = sqlx::query(&format!(
        "SELECT {REPO_COLUMNS} FROM repositories WHERE full_name = $1"
    ))
    .bind(full_name)
    .fetch_optional(db)
    .await?;
    Ok(row.map(repo_row))
}

pub async fn repository_by_id(
    db: impl PgExecutor<'_>,
    repo: RepoId,
) -> sqlx::Result<Option<RepoRow>> {
    let row = sqlx::query(&format!(
        "SELECT {REPO_COLUMNS} FROM repositories WHERE id = $1"
    ))
    .bind(repo.0)
    .fetch_optional(db)
    .await?;
    Ok(row.map(repo_row))
}

pub async fn repository_by_github_id(
    db: impl PgExecutor<'_>,
    github_id: i64,
) -> sqlx::Result<Option<RepoRow>> {
    let row = sqlx::query(&format!(
        "SELECT {REPO_COLUMNS} FROM repositories WHERE github_id = $1"
    ))
    .bind(github_id)
    .fetch_optional(db)
    .await?;
    Ok(row.map(repo_row))
}

/// Repositories of an installation, or of every installation.
pub async fn repositories_of(
    db: impl PgExecutor<'_>,
    installation: Option<i64>,
) -> sqlx::Result<Vec<RepoRow>> {
    let rows = sqlx::query(&format!(
        "SELECT {REPO_COLUMNS} FROM repositories
         WHERE installation_id IS NOT NULL AND ($1::bigint IS NULL OR installation_id = $1)
         ORDER BY id"
    ))
    .bind(installation)
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(repo_row).collect())
}

/// Records a GitHub repository under its id (the key: names change). A row indexed
/// from the CLI under the same name is adopted; a row of another repository that
/// still holds the name (renamed or deleted on GitHub without our hearing) gives it up.
pub async fn upsert_github_repository(
    db: &mut PgConnection,
    installation: i64,
    github_id: i64,
    full_name: &str,
    default_branch: &str,
    private: bool,
) -> sqlx::Result<RepoId> {
    sqlx::query(
        "UPDATE repositories SET github_id = $2
         WHERE full_name = $1 AND github_id IS NULL
           AND NOT EXISTS (SELECT 1 FROM repositories WHERE github_id = $2)",
    )
    .bind(full_name)
    .bind(github_id)
    .execute(&mut *db)
    .await?;
    sqlx::query(
        "UPDATE repositories SET full_name = full_name || ' (was #' || id || ')'
         WHERE full_name = $1 AND github_id IS DISTINCT FROM $2",
    )
    .bind(full_name)
    .bind(github_id)
    .execute(&mut *db)
    .await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO repositories (full_name, installation_id, github_id, default_branch, private)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (github_id) DO UPDATE
           SET full_name = EXCLUDED.full_name, installation_id = EXCLUDED.installation_id,
               default_branch = EXCLUDED.default_branch, private = EXCLUDED.private
         RETURNING id",
    )
    .bind(full_name)
    .bind(installation)
    .bind(github_id)
    .bind(default_branch)
    .bind(private)
    .fetch_one(db)
    .await?;
    Ok(RepoId(id))
}

pub async fn set_installation_suspended(
    db: impl PgExecutor<'_>,
    id: i64,
    suspended: bool,
) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("UPDATE installations SET suspended = $2 WHERE id = $1")
            .bind(id)
            .bind(suspended)
            .execute(db)
            .await?
            .rows_affected(),
    )
}

/// Whether an installation is suspended; None when we do not know it.
pub async fn installation_suspended(
    db: impl PgExecutor<'_>,
    id: i64,
) -> sqlx::Result<Option<bool>> {
    sqlx::query_scalar("SELECT suspended FROM installations WHERE id = $1")
        .bind(id)
        .fetch_optional(db)
        .await
}

pub async fn installation_ids(db: impl PgExecutor<'_>) -> sqlx::Result<Vec<i64>> {
    sqlx::query_scalar("SELECT id FROM installations ORDER BY id")
        .fetch_all(db)
        .await
}

pub async fn set_repository_error(
    db: impl PgExecutor<'_>,
    repo: RepoId,
    error: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE repositories SET last_error = $2 WHERE id = $1")
        .bind(repo.0)
        .bind(error.map(super::text::storable))
        .execute(db)
        .await?;
    Ok(())
}

/// Every stored file's path and blob (code, config and skipped alike).
pub async fn file_blobs(
    db: impl PgExecutor<'_>,
    repo: RepoId,
) -> sqlx::Result<Vec<(String, String)>> {
    sqlx::query_as("SELECT path, blob_sha FROM files WHERE repo_id = $1 ORDER BY path")
        .bind(repo.0)
        .fetch_all(db)
        .await
}

pub async fn graph_version(db: impl PgExecutor<'_>, repo: RepoId) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar("SELECT graph_version FROM repositories WHERE id = $1")
        .bind(repo.0)
        .fetch_optional(db)
        .await
}

/// Moves the repository to a new commit and graph version.
pub async fn set_graph_version(
    db: &mut PgConnection,
    lock: &RepoLock,
    commit: Option<&str>,
    version: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE repositories SET commit_sha = COALESCE($2, commit_sha), graph_version = $3,
           updated_at = now() WHERE id = $1",
    )
    .bind(lock.repo().0)
    .bind(commit)
    .bind(version)
    .execute(db)
    .await?;
    Ok(())
}

/// Says which policy of files to read the stored graph was built under (a full write).
pub async fn set_selection_version(
    db: &mut PgConnection,
    lock: &RepoLock,
    version: i32,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE repositories SET selection_version = $2 WHERE id = $1")
        .bind(lock.repo().0)
        .bind(version)
        .execute(db)
        .await?;
    Ok(())
}

/// Says the repository's calls into packages are stored (a full write stored them).
pub async fn set_calls_recorded(db: &mut PgConnection, lock: &RepoLock) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE repositories SET calls_recorded = true WHERE id = $1 AND NOT calls_recorded",
    )
    .bind(lock.repo().0)
    .execute(db)
    .await?;
    Ok(())
}

/// Repositories with a stored graph whose calls into packages are not stored, by id.
pub async fn calls_unrecorded(db: impl PgExecutor<'_>) -> sqlx::Result<Vec<i64>> {
    sqlx::query_scalar(
        "SELECT r.id FROM repositories r
         WHERE NOT r.calls_recorded AND EXISTS (SELECT 1 FROM files f WHERE f.repo_id = r.id)
         ORDER BY r.id",
    )
    .fetch_all(db)
    .await
}

/// Removes every row of the repository's files: edges, definitions, files, removals.
pub async fn delete_all_files(db: &mut PgConnection, lock: &RepoLock) -> sqlx::Result<()> {
    for table in [
        "edges",
        "definitions",
        "external_call_groups",
        "unresolved_calls",
        "declared_pairs",
        "link_sites",
        "files",
        "removed_files",
    ] {
        sqlx::query(&format!("DELETE FROM {table} WHERE repo_id = $1"))
            .bind(lock.repo().0)
            .execute(&mut *db)
            .await?;
    }
    // The pairs are gone: their digest no longer says what is stored.
    sqlx::query("UPDATE repositories SET declared_pairs_hash = NULL WHERE id = $1")
        .bind(lock.repo().0)
        .execute(&mut *db)
        .await?;
    Ok(())
}

/// Deletes every link site of the repository (they are written again whole).
pub async fn delete_link_sites(db: &mut PgConnection, lock: &RepoLock) -> sqlx::Result<u64> {
    Ok(sqlx::query("DELETE FROM link_sites WHERE repo_id = $1")
        .bind(lock.repo().0)
        .execute(db)
        .await?
        .rows_affected())
}

/// Removes the rows of some files (by number): their edges, definitions, files rows.
/// Returns the facts-cache keys the removed files rows held.
pub async fn delete_files(
    db: &mut PgConnection,
    lock: &RepoLock,
    file_ids: &[i32],
) -> sqlx::Result<Vec<CacheKey>> {
    for (table, column) in [
        ("edges", "caller_file"),
        ("definitions", "file_id"),
        ("external_call_groups", "file_id"),
        ("unresolved_calls", "file_id"),
    ] {
        sqlx::query(&format!(
            "DELETE FROM {table} WHERE repo_id = $1 AND {column} = ANY($2)"
        ))
        .bind(lock.repo().0)
        .bind(file_ids)
        .execute(&mut *db)
        .await?;
    }
    sqlx::query_as(
        "DELETE FROM files WHERE repo_id = $1 AND file_id = ANY($2)
         RETURNING blob_sha, variant, parser_version",
    )
    .bind(lock.repo().0)
    .bind(file_ids)
    .fetch_all(db)
    .await
}

/// A facts-cache entry's key within a repository: (blob, variant, parser version).
pub type CacheKey = (String, String, i32);

/// Drops the repository's facts-cache entries among `keys` (all of them when `None`)
/// that no stored file of it holds any more.
pub async fn prune_facts_cache(
    db: &mut PgConnection,
    lock: &RepoLock,
    keys: Option<&[CacheKey]>,
) -> sqlx::Result<u64> {
    // `hashtext` as in the index `files_by_blob`.
    let unheld = "NOT EXISTS (SELECT 1 FROM files f
                   WHERE f.repo_id = c.repo_id AND hashtext(f.blob_sha) = hashtext(c.blob_sha)
                     AND f.blob_sha = c.blob_sha AND f.variant = c.variant
                     AND f.parser_version = c.parser_version)";
    let done = match keys {
        None => {
            sqlx::query(&format!(
                "DELETE FROM facts_cache c WHERE c.repo_id = $1 AND {unheld}"
            ))
            .bind(lock.repo().0)
            .execute(db)
            .await?
        }
        Some([]) => return Ok(0),
        Some(keys) => {
            let blobs: Vec<&str> = keys.iter().map(|k| k.0.as_str()).collect();
            let variants: Vec<&str> = keys.iter().map(|k| k.1.as_str()).collect();
            let versions: Vec<i32> = keys.iter().map(|k| k.2).collect();
            sqlx::query(&format!(
                "DELETE FROM facts_cache c
                 USING unnest($2::text[], $3::text[], $4::int[]) AS k(blob_sha, variant, parser_version)
                 WHERE c.repo_id = $1 AND c.blob_sha = k.blob_sha AND c.variant = k.variant
                   AND c.parser_version = k.parser_version AND {unheld}"
            ))
            .bind(lock.repo().0)
            .bind(&blobs)
            .bind(&variants)
            .bind(&versions)
            .execute(db)
            .await?
        }
    };
    Ok(done.rows_affected())
}

/// Every stored file's number, by path.
pub async fn file_numbers(
    db: impl PgExecutor<'_>,
    repo: RepoId,
) -> sqlx::Result<Vec<(String, i32)>> {
    let rows = sqlx::query("SELECT path, file_id FROM files WHERE repo_id = $1")
        .bind(repo.0)
        .fetch_all(db)
        .await?;
    Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Records removed paths (for replicas) and forgets removals of re-added ones.
pub async fn record_removed(
    db: &mut PgConnection,
    lock: &RepoLock,
    removed: &[String],
    added: &[String],
    version: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO removed_files (repo_id, path, version) SELECT $1, p, $3 FROM unnest($2::text[]) p
         ON CONFLICT (repo_id, path) DO UPDATE SET version = EXCLUDED.version",
    )
    .bind(lock.repo().0)
    .bind(removed)
    .bind(version)
    .execute(&mut *db)
    .await?;
    sqlx::query("DELETE FROM removed_files WHERE repo_id = $1 AND path = ANY($2)")
        .bind(lock.repo().0)
        .bind(added)
        .execute(db)
        .await?;
    Ok(())
}

/// Blob shas of some files, by path.
pub async fn blobs_of(
    db: impl PgExecutor<'_>,
    repo: RepoId,
    paths: &[String],
) -> sqlx::Result<Vec<(String, String)>> {
    let rows =
        sqlx::query("SELECT path, blob_sha FROM files WHERE repo_id = $1 AND path = ANY($2)")
            .bind(repo.0)
            .bind(paths)
            .fetch_all(db)
            .await?;
    Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Cached facts for (blob, variant) keys at the current parser version.
pub async fn cached_facts(
    db: impl PgExecutor<'_>,
    repo: RepoId,
    blobs: &[String],
    variants: &[String],
    parser_version: i32,
) -> sqlx::Result<Vec<(String, String, Vec<u8>)>> {
    let rows = sqlx::query(
        "SELECT c.blob_sha, c.variant, c.facts
         FROM unnest($1::text[], $2::text[]) AS k(blob_sha, variant)
         JOIN facts_cache c ON c.repo_id = $4 AND c.blob_sha = k.blob_sha
                           AND c.variant = k.variant AND c.parser_version = $3",
    )
    .bind(blobs)
    .bind(variants)
    .bind(parser_version)
    .bind(repo.0)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect())
}

/// Adds facts to the content-addressed cache; entries already there stay. The keys
/// already present are read first and the rest copied in (see [`copy_facts_cache`]).
pub async fn insert_facts_cache(
    db: &mut PgConnection,
    repo: RepoId,
    entries: &[(String, String, Vec<u8>)],
    parser_version: i32,
) -> sqlx::Result<()> {
    if entries.is_empty() {
        return Ok(());
    }
    let keys: Vec<(&str, &str)> = entries
        .iter()
        .map(|e| (e.0.as_str(), e.1.as_str()))
        .collect();
    let present = facts_cache_present(&mut *db, repo, &keys, parser_version).await?;
    copy_facts_cache(db, repo, entries, parser_version, &present).await
}

/// Which of the (blob, variant) `keys` the repository's facts cache holds. One query
/// for a whole write: asked chunk by chunk of a large write, the plan made for the
/// empty cache of its start scans the cache the write is filling, for every chunk.
pub async fn facts_cache_present(
    db: &mut PgConnection,
    repo: RepoId,
    keys: &[(&str, &str)],
    parser_version: i32,
) -> sqlx::Result<FxHashSet<(String, String)>> {
    if keys.is_empty() {
        return Ok(FxHashSet::default());
    }
    let blobs: Vec<&str> = keys.iter().map(|k| k.0).collect();
    let variants: Vec<&str> = keys.iter().map(|k| k.1).collect();
    let present: Vec<(String, String)> = sqlx::query_as(
        "SELECT c.blob_sha, c.variant
         FROM unnest($1::text[], $2::text[]) AS k(blob_sha, variant)
         JOIN facts_cache c ON c.repo_id = $4 AND c.blob_sha = k.blob_sha
                           AND c.variant = k.variant AND c.parser_version = $3",
    )
    .bind(&blobs)
    .bind(&variants)
    .bind(parser_version)
    .bind(repo.0)
    .fetch_all(db)
    .await?;
    Ok(present.into_iter().collect())
}

/// Copies into the facts cache the entries whose keys are not in `present` (each key
/// once). A concurrent writer of the same blob can get there first: the COPY then fails
/// on the key and the entries go in again through an INSERT that skips conflicts.
pub async fn copy_facts_cache(
    db: &mut PgConnection,
    repo: RepoId,
    entries: &[(String, String, Vec<u8>)],
    parser_version: i32,
    present: &FxHashSet<(String, String)>,
) -> sqlx::Result<()> {
    let mut seen: FxHashSet<(&str, &str)> = present
        .iter()
        .map(|(b, v)| (b.as_str(), v.as_str()))
        .collect();
    let mut rows = CopyBuf::new();
    for (blob, variant, facts) in entries {
        // The same blob at two paths is one entry.
        if seen.insert((blob, variant)) {
            rows.int8(repo.0)
                .text(blob)
                .text(variant)
                .int4(parser_version)
                .bytes(facts);
            rows.end_row();
        }
    }
    let copied = super::copy::copy_in(
        db,
        "facts_cache",
        "repo_id, blob_sha, variant, parser_version, facts",
        &rows,
    )
    .await;
    match copied {
        Ok(_) => Ok(()),
        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
            let blobs: Vec<&str> = entries.iter().map(|e| e.0.as_str()).collect();
            let variants: Vec<&str> = entries.iter().map(|e| e.1.as_str()).collect();
            let facts: Vec<&[u8]> = entries.iter().map(|e| e.2.as_slice()).collect();
            sqlx::query(
                "INSERT INTO facts_cache (repo_id, blob_sha, variant, parser_version, facts)
                 SELECT $5, b, v, $3, f FROM unnest($1::text[], $2::text[], $4::bytea[]) AS t(b, v, f)
                 ON CONFLICT DO NOTHING",
            )
            .bind(&blobs)
            .bind(&variants)
            .bind(parser_version)
            .bind(&facts)
            .bind(repo.0)
            .execute(db)
            .await?;
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// A stored file as loading needs it.
pub struct StoredFileRow {
    pub path: String,
    pub status: String,
    pub blob_sha: String,
    pub skip_reason: Option<String>,
    pub content: Option<String>,
    pub resolution: Option<Vec<u8>>,
    pub facts: Option<Vec<u8>>,
}

/// Files written after `since` (all of them for `since` < 0), with their cached facts.
pub async fn files_since(
    db: impl PgExecutor<'_>,
    repo: RepoId,
    since: i64,
) -> sqlx::Result<Vec<StoredFileRow>> {
    let rows = sqlx::query(
        "SELECT f.path, f.status, f.blob_sha, f.skip_reason, f.content, f.resolution, c.facts
         FROM files f
         LEFT JOIN facts_cache c ON c.repo_id = f.repo_id AND c.blob_sha = f.blob_sha
                                AND c.variant = f.variant AND c.parser_version = f.parser_version
         WHERE f.repo_id = $1 AND f.version > $2
         ORDER BY f.file_id",
    )
    .bind(repo.0)
    .bind(since)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| StoredFileRow {
            path: r.get(0),
            status: r.get(1),
            blob_sha: r.get(2),
            skip_reason: r.get(3),
            content: r.get(4),
            resolution: r.get(5),
            facts: r.get(6),
        })
        .collect())
}

pub async fn removed_since(
    db: impl PgExecutor<'_>,
    repo: RepoId,
    since: i64,
) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar("SELECT path FROM removed_files WHERE repo_id = $1 AND version > $2")
        .bind(repo.0)
        .bind(since)
        .fetch_all(db)
        .await
}

/// Whether the given paths have config rows (a config change means a new resolver).
pub async fn config_changed_since(
    db: impl PgExecutor<'_>,
    repo: RepoId,
    since: i64,
    removed: &[String],
) -> sqlx::Result<bool> {
    let changed: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM files WHERE repo_id = $1 AND version > $2 AND status = 'config')",
    )
    .bind(repo.0)
    .bind(since)
    .fetch_one(db)
    .await?;
    Ok(changed
        || removed
            .iter()
            .any(|p| crate::indexer::select::is_config_file(p)))
}

pub async fn configs(db: impl PgExecutor<'_>, repo: RepoId) -> sqlx::Result<Vec<(String, String)>> {
    let rows = sqlx::query(
        "SELECT path, COALESCE(content, '') FROM files WHERE repo_id = $1 AND status = 'config'
         ORDER BY path",
    )
    .bind(repo.0)
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// A caller as the edges table has it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct CallerRow {
    pub caller_path: String,
    pub site: i32,
    pub caller: Option<String>,
    pub line: i32,
    pub col: i32,
    pub kind: String,
    pub confidence: String,
}

/// Who calls a definition, from the edges table alone.
pub async fn callers_of(
    db: impl PgExecutor<'_>,
    repo: RepoId,
    callee_path: &str,
    callee_def: i32,
) -> sqlx::Result<Vec<CallerRow>> {
    let rows = sqlx::query(
        "SELECT cf.path, e.site, d.qualified_name, e.line, e.col, e.kind, e.confidence
         FROM files t
         JOIN edges e ON e.repo_id = t.repo_id AND e.callee_file = t.file_id
         JOIN files cf ON cf.repo_id = e.repo_id AND cf.file_id = e.caller_file
         LEFT JOIN definitions d ON d.repo_id = e.repo_id AND d.file_id = e.caller_file
                                AND d.def_index = e.caller_def
         WHERE t.repo_id = $1 AND t.path = $2 AND e.callee_def = $3
         ORDER BY cf.path, e.site",
    )
    .bind(repo.0)
    .bind(super::text::storable(callee_path))
    .bind(callee_def)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| CallerRow {
            caller_path: r.get(0),
            site: r.get(1),
            caller: r.get(2),
            line: r.get(3),
            col: r.get(4),
            kind: r.get(5),
            confidence: r.get(6),
        })
        .collect())
}

/// Row counts of a repository's tables: (files, definitions, edges).
pub async fn counts(db: impl PgExecutor<'_>, repo: RepoId) -> sqlx::Result<(i64, i64, i64)> {
    let row = sqlx::query(
        "SELECT (SELECT count(*) FROM files WHERE repo_id = $1),
                (SELECT count(*) FROM definitions WHERE repo_id = $1),
                (SELECT count(*) FROM edges WHERE repo_id = $1)",
    )
    .bind(repo.0)
    .fetch_one(db)
    .await?;
    Ok((row.get(0), row.get(1), row.get(2)))
}

/// Whether every stored file's facts are of parser version `version`, and every row a
/// full write stores is there (the unresolved calls, from migration 0020): a graph that
/// can be brought up to date file by file.
pub async fn rows_current(
    db: impl PgExecutor<'_>,
    repo: RepoId,
    version: i32,
) -> sqlx::Result<bool> {
    let current: Option<bool> = sqlx::query_scalar(
        "SELECT r.callers_recorded AND NOT EXISTS (
                  SELECT 1 FROM files f
                  WHERE f.repo_id = r.id AND f.status = 'indexed' AND f.parser_version <> $2)
         FROM repositories r WHERE r.id = $1",
    )
    .bind(repo.0)
    .bind(version)
    .fetch_optional(db)
    .await?;
    Ok(current.unwrap_or(false))
}

/// The stored files the index skipped, with the reason, by path.
pub async fn skipped_files(
    db: impl PgExecutor<'_>,
    repo: RepoId,
) -> sqlx::Result<Vec<(String, String)>> {
    sqlx::query_as(
        "SELECT path, COALESCE(skip_reason, '') FROM files
         WHERE repo_id = $1 AND status = 'skipped' ORDER BY path",
    )
    .bind(repo.0)
    .fetch_all(db)
    .await
}
