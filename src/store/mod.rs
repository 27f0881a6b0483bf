//! The durable half of the graph, in Postgres: per-file facts, resolutions, definitions
//! and edges of every repository. The only module that speaks SQL.
//!
//! Writes replace whole files' rows in one transaction under the repository's advisory
//! lock, so a reader never sees half an update and two writers never interleave.
//! Loading rebuilds the in-memory graph from rows alone: no parsing, no resolving.

mod callers_read;
mod copy;
mod credentials;
mod lock;
mod ops;
mod overview;
mod rows;
pub mod text;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection, PgConnection, PgPool};

use crate::graph::external::ExternalCall;
use crate::graph::stored::StoredResolution;
use crate::graph::{FileId, Graph};
use crate::indexer::facts::FileFacts;
use crate::indexer::select::variant_of_path;
use crate::indexer::skip::SkipReason;
use crate::indexer::PARSER_VERSION;
use crate::model::{BlobSha, CommitSha, GithubRepoId, InstallationId};
pub use credentials::StoredApp;
use lock::lock_repository;
pub use overview::{
    AnalysisOverview, InstallationOverview, NewAnalysis, Page, Paged, RateSeen, RepoOverview,
    ANALYSES_KEPT,
};
use rows::{CacheEntry, FileNumbers, Rows};
use tokio::sync::{Semaphore, SemaphorePermit};
use tokio::task::JoinHandle;

pub use crate::model::RepoId;

/// package.json files of other repositories read to learn who else owns a package name,
/// at most (those that mention one of its names).
pub const MAX_MANIFESTS_READ: i64 = 2_000;
pub use callers_read::{CallerLink, Pair, Snapshot, StoredFile};
pub use ops::CallerRow;
pub use rows::FileMeta;

/// A repository row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoState {
    pub id: RepoId,
    pub full_name: String,
    /// The commit the stored graph reflects.
    pub commit: Option<CommitSha>,
    pub version: i64,
    /// Set for repositories the app installed (None: indexed from the CLI).
    pub github_id: Option<GithubRepoId>,
    pub installation: Option<InstallationId>,
    pub default_branch: String,
    /// The policy of files to read its graph was built under
    /// ([`crate::indexer::select::SELECTION_VERSION`]).
    pub selection_version: i32,
}

impl RepoState {
    fn from_row(row: ops::RepoRow) -> RepoState {
        let (id, full_name, commit, version, github_id, installation, default_branch, selection) =
            row;
        RepoState {
            id,
            full_name,
            commit: commit.map(CommitSha),
            version,
            github_id: github_id.map(GithubRepoId),
            installation: installation.map(InstallationId),
            default_branch,
            selection_version: selection,
        }
    }

    /// Whether its graph was built under the policy of files to read in use now (or a
    /// later one): if not, it lacks files the indexer reads now and is indexed again.
    pub fn selection_current(&self) -> bool {
        self.selection_version >= crate::indexer::select::SELECTION_VERSION
    }
}

/// What a push changed, for [`Store::write_push`]: the graph already holds the change.
pub struct PushWrite<'a> {
    /// The stored version the graph was at before the change.
    pub expected: i64,
    pub commit: Option<&'a CommitSha>,
    /// Blobs of the pushed files, and those of them skipped with their reasons.
    pub meta: &'a FileMeta,
    /// Pushed config files (path, contents).
    pub configs: &'a [(String, String)],
    /// Every file whose rows change: the pushed code files and the files whose
    /// resolution moved because of them, sorted.
    pub rewritten: &'a [FileId],
    /// Paths removed by the push.
    pub removed: &'a [String],
    /// Paths whose facts were parsed now (not taken from the facts cache).
    pub parsed: &'a FxHashSet<String>,
}

#[derive(thiserror::Error, Debug)]
pub enum StoreError {
    #[error("cannot connect to Postgres at {target}: {cause}")]
    Connect { target: String, cause: String },
    #[error("invalid database URL (expected postgres://USER@HOST:PORT/DATABASE)")]
    BadUrl,
    #[error("repository {0} is not in the database: index it first")]
    UnknownRepository(String),
    #[error(
        "the stored graph moved on (version {actual}, expected {expected}): catch up and retry"
    )]
    Stale { expected: i64, actual: i64 },
    #[error("stored facts of {path} are unreadable ({reason}): re-index the repository")]
    Corrupt { path: String, reason: String },
    #[error(
        "the database at {target} lacks {pending} of Blast Radius's migrations: run `blast-radius migrate --database-url URL` first"
    )]
    NotMigrated { target: String, pending: usize },
    #[error("database error: {0}")]
    Sql(sqlx::Error),
    #[error("a database task failed: {0}")]
    Task(String),
    #[error("migration failed: {0}")]
    Migrate(sqlx::migrate::MigrateError),
}

// By hand rather than `#[from]`: the message already says the cause, and a source
// would make `{:#}` say it twice.
impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::Sql(e)
    }
}

impl StoreError {
    /// The database could not be reached (no connection, a dropped one, none free in
    /// time): nothing is wrong with the work, it may go on once the database answers.
    pub fn is_unreachable(&self) -> bool {
        match self {
            StoreError::Connect { .. } => true,
            StoreError::Sql(e) => unreachable_sql(e),
            _ => false,
        }
    }
}

/// Whether a sqlx error says the database could not be reached, rather than refused a
/// statement.
pub fn unreachable_sql(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        // Postgres shutting down or restarting (admin_shutdown, crash_shutdown,
        // cannot_connect_now).
        sqlx::Error::Database(db) => db
            .code()
            .is_some_and(|c| matches!(c.as_ref(), "57P01" | "57P02" | "57P03")),
        _ => false,
    }
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        StoreError::Migrate(e)
    }
}

/// The innermost message of a connection error (no repetition of wrapped errors).
fn connect_cause(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Io(io) => io.to_string(),
        sqlx::Error::Database(db) => db.message().to_string(),
        other => other.to_string(),
    }
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// The result of a write: the new graph version and how many files' rows were written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    pub version: i64,
    pub files: usize,
    pub edges: usize,
}

/// The migrations under `migrations/`, embedded in the binary.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

#[derive(Clone)]
pub struct Store {
    pool: PgPool,
    /// Host, port and database, for messages.
    target: String,
    /// One permit per pooled connection. A write holds its transaction's connection
    /// while it waits for another (the facts cache's): it is admitted only with permits
    /// for both, so writers never hold the whole pool between them, each waiting for a
    /// connection another holds.
    connections: Arc<Semaphore>,
    /// Files whose rows a full write builds and copies at a time.
    write_chunk: usize,
}

/// Files whose rows a full write builds and copies at a time: a monorepo's rows (and
/// its facts-cache entries) are never all in memory beside its graph.
const WRITE_CHUNK_FILES: usize = 4096;

/// A call another repository of the installation makes into a package, where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallInto {
    pub repo: RepoId,
    pub full_name: String,
    pub private: bool,
    /// The commit the calling repository's stored graph reflects (its default branch).
    pub commit: Option<CommitSha>,
    pub path: String,
    pub call: ExternalCall,
}

/// Connections a write may hold at once: its transaction and the facts cache's.
const WRITE_CONNECTIONS: u32 = 2;

/// Where a URL points, for messages: host, port and database, never the password.
pub fn describe_url(url: &str) -> Result<String> {
    let options = PgConnectOptions::from_str(url).map_err(|_| StoreError::BadUrl)?;
    Ok(describe(&options))
}

fn describe(options: &PgConnectOptions) -> String {
    format!(
        "{}:{}/{}",
        options.get_host(),
        options.get_port(),
        options.get_database().unwrap_or("postgres")
    )
}

/// The longest any one statement of the store's pool may run (a hung query, a lock
/// waited on forever, fails instead of holding its job). Generous: loading a large
/// repository's graph reads millions of rows. Bulk writes take longer
/// ([`copy::BULK_STATEMENT_TIMEOUT`], set in their transaction).
pub const STATEMENT_TIMEOUT: &str = "5min";

impl Store {
    /// Connects, failing fast with a message that names the host (never the password).
    pub async fn connect(url: &str) -> Result<Store> {
        let options = PgConnectOptions::from_str(url).map_err(|_| StoreError::BadUrl)?;
        let target = describe_url(url)?;
        let fail = |e: sqlx::Error| StoreError::Connect {
            target: target.clone(),
            cause: connect_cause(&e),
        };
        // One direct connection first: it fails with the real cause (refused, unknown
        // host, authentication) where a pool would only time out.
        let probe = tokio::time::timeout(
            Duration::from_secs(10),
            PgConnection::connect_with(&options),
        )
        .await
        .map_err(|_| StoreError::Connect {
            target: target.clone(),
            cause: "timed out after 10 s".into(),
        })?
        .map_err(fail)?;
        let _ = probe.close().await;
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(30))
            .connect_with(options.options([("statement_timeout", STATEMENT_TIMEOUT)]))
            .await
            .map_err(fail)?;
        Ok(Store::from_pool(pool))
    }

    /// Connects, retrying with exponential backoff: what a server does at start, so a
    /// database that comes up a little later does not crash it.
    pub async fn connect_retrying(url: &str, attempts: u32) -> Result<Store> {
        let mut delay = Duration::from_millis(250);
        let mut attempt = 1;
        loop {
            match Store::connect(url).await {
                Ok(store) => return Ok(store),
                Err(e @ StoreError::BadUrl) => return Err(e),
                Err(e) if attempt >= attempts => return Err(e),
                Err(e) => {
                    tracing::warn!(attempt, error = %e, "database not reachable, retrying in {delay:?}");
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_secs(10));
                    attempt += 1;
                }
            }
        }
    }

    pub fn from_pool(pool: PgPool) -> Store {
        let connections = Arc::new(Semaphore::new(pool.options().get_max_connections() as usize));
        let target = describe(&pool.connect_options());
        Store {
            pool,
            target,
            connections,
            write_chunk: WRITE_CHUNK_FILES,
        }
    }

    /// Full writes build and copy the rows of `files` files at a time (4,096 unless
    /// set): fewer bound the write's memory further, at a few more round trips.
    pub fn with_write_chunk(mut self, files: usize) -> Store {
        self.write_chunk = files.max(1);
        self
    }

    /// Waits until a write can have all the connections it may hold at once.
    async fn admit_write(&self) -> SemaphorePermit<'_> {
        let all = self.pool.options().get_max_connections();
        self.connections
            .acquire_many(WRITE_CONNECTIONS.min(all))
            .await
            .expect("the semaphore is never closed")
    }

    /// Applies the embedded migrations (idempotent).
    pub async fn migrate(&self) -> Result<()> {
        // A migration may rebuild an index of a big table: no statement timeout for it,
        // on a connection of its own (it is closed after, not returned to the pool).
        let mut conn = self.pool.acquire().await?.detach();
        sqlx::query("SET statement_timeout = 0")
            .execute(&mut conn)
            .await?;
        MIGRATOR.run(&mut conn).await?;
        let _ = conn.close().await;
        Ok(())
    }

    /// How many of the embedded migrations the database has not applied.
    pub async fn pending_migrations(&self) -> Result<usize> {
        let applied = ops::applied_migrations(&self.pool).await?;
        Ok(MIGRATOR
            .iter()
            .filter(|m| !m.migration_type.is_down_migration())
            .filter(|m| !applied.contains(&m.version))
            .count())
    }

    /// Fails with [`StoreError::NotMigrated`] unless every migration is applied: what a
    /// command that only reads or writes rows checks, instead of migrating itself.
    pub async fn require_migrated(&self) -> Result<()> {
        match self.pending_migrations().await? {
            0 => Ok(()),
            pending => Err(StoreError::NotMigrated {
                target: self.target.clone(),
                pending,
            }),
        }
    }

    pub async fn ensure_repository(&self, full_name: &str) -> Result<RepoState> {
        let mut conn = self.pool.acquire().await?;
        let id = ops::ensure_repository(&mut conn, full_name, None, None).await?;
        self.repository_by_id(id).await
    }

    pub async fn repository(&self, full_name: &str) -> Result<RepoState> {
        let row = ops::repository_by_name(&self.pool, full_name).await?;
        row.map(RepoState::from_row)
            .ok_or_else(|| StoreError::UnknownRepository(full_name.to_string()))
    }

    pub async fn repository_by_id(&self, repo: RepoId) -> Result<RepoState> {
        let row = ops::repository_by_id(&self.pool, repo).await?;
        row.map(RepoState::from_row)
            .ok_or_else(|| StoreError::UnknownRepository(format!("#{}", repo.0)))
    }

    /// The repository GitHub knows by `id`, if we hold it.
    pub async fn repository_by_github_id(&self, id: GithubRepoId) -> Result<Option<RepoState>> {
        let row = ops::repository_by_github_id(&self.pool, id.0).await?;
        Ok(row.map(RepoState::from_row))
    }

    /// Repositories of one installation, or of all (for catching up after downtime).
    pub async fn installed_repositories(
        &self,
        installation: Option<InstallationId>,
    ) -> Result<Vec<RepoState>> {
        let rows = ops::repositories_of(&self.pool, installation.map(|i| i.0)).await?;
        Ok(rows.into_iter().map(RepoState::from_row).collect())
    }

    /// Records (or renames, or moves to another installation) a GitHub repository,
    /// keyed by its GitHub id.
    pub async fn upsert_github_repository(
        &self,
        installation: InstallationId,
        github_id: GithubRepoId,
        full_name: &str,
        default_branch: &str,
        private: bool,
    ) -> Result<RepoState> {
        let mut tx = self.pool.begin().await?;
        let id = ops::upsert_github_repository(
            &mut tx,
            installation.0,
            github_id.0,
            full_name,
            default_branch,
            private,
        )
        .await?;
        tx.commit().await?;
        self.repository_by_id(id).await
    }

    /// Records whether a repository is private now (GitHub's payloads say, on every
    /// push): what decides whether other repositories' pull requests may name it.
    pub async fn set_repository_private(&self, repo: RepoId, private: bool) -> Result<()> {
        sqlx::query(
            "UPDATE repositories SET private = $2 WHERE id = $1 AND private IS DISTINCT FROM $2",
        )
        .bind(repo.0)
        .bind(private)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The calls that the installation's other repositories make into `packages`
    /// (by name), each with the repository, file and commit it is at; the first
    /// `limit` of them. The repositories of other installations are never read; with no
    /// installation, the other repositories of none (those the command line indexed).
    pub async fn calls_into(
        &self,
        installation: Option<InstallationId>,
        except: RepoId,
        packages: &[String],
        limit: usize,
    ) -> Result<Vec<CallInto>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // Package names are stored by the rule for text: asked for by it too.
        let stored: Vec<String> = packages
            .iter()
            .map(|p| text::storable(p).into_owned())
            .collect();
        let rows = ops::calls_into(
            &self.pool,
            installation.map(|i| i.0),
            except.0,
            &stored,
            limit,
        )
        .await?;
        let mut calls = Vec::new();
        for r in rows {
            let corrupt = |e: postcard::Error| StoreError::Corrupt {
                path: format!("{}: {}", r.full_name, r.path),
                reason: format!("an external call's row: {e}"),
            };
            let mut rest = r.calls.as_slice();
            for i in 0..r.within.clamp(0, i64::from(r.sites)) {
                let (mut call, after) =
                    postcard::take_from_bytes::<ExternalCall>(rest).map_err(corrupt)?;
                rest = after;
                call.args = usize::try_from(i)
                    .ok()
                    .and_then(|i| r.args.get(i))
                    .copied()
                    .unwrap_or(0);
                calls.push(CallInto {
                    repo: RepoId(r.repo_id),
                    full_name: r.full_name.clone(),
                    private: r.private,
                    commit: r.commit_sha.clone().map(CommitSha::from),
                    path: r.path.clone(),
                    call,
                });
            }
        }
        // Bounded in key order; handed out by repository name, path and place.
        calls.sort_by(|a, b| {
            (&a.full_name, &a.path, a.call.line, a.call.column).cmp(&(
                &b.full_name,
                &b.path,
                b.call.line,
                b.call.column,
            ))
        });
        Ok(calls)
    }

    /// The clients and producers of the installation's other repositories (of none:
    /// the other repositories the command line indexed) that may reach one of
    /// `served` (routes, topics, procedures), the first `limit` of them by repository,
    /// path and line: candidates read by index, which the caller confirms with
    /// `links::match_endpoints`. A route without a literal segment (`/`, `/:id`) looks
    /// up nothing (no client path says it means that service).
    pub async fn link_sites_reaching(
        &self,
        installation: Option<InstallationId>,
        except: RepoId,
        served: &[crate::links::Endpoint],
        limit: usize,
    ) -> Result<Vec<crate::links::LinkCaller>> {
        use crate::links::{Endpoint, Role};
        let (mut kinds, mut names, mut literals) = (Vec::new(), Vec::new(), Vec::new());
        for e in served {
            match e {
                Endpoint::Http { path, .. } => {
                    if let Some(l) = rows::route_key(path) {
                        literals.push(text::storable(l).into_owned());
                    }
                }
                _ => {
                    let keys = rows::link_keys(e);
                    kinds.push(keys.kind.to_string());
                    names.push(text::into_storable(keys.name));
                }
            }
        }
        if kinds.is_empty() && literals.is_empty() {
            return Ok(Vec::new());
        }
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = ops::link_sites_reaching(
            &self.pool,
            installation.map(|i| i.0),
            except.0,
            &kinds,
            &names,
            &literals,
            limit,
        )
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let role = match r.role.as_str() {
                "client" => Role::Client,
                "producer" => Role::Producer,
                _ => continue,
            };
            let endpoint: Endpoint =
                postcard::from_bytes(&r.encoded).map_err(|e| StoreError::Corrupt {
                    path: format!("{}: {}", r.full_name, r.path),
                    reason: format!("a link site's row: {e}"),
                })?;
            out.push(crate::links::LinkCaller {
                repo: r.full_name,
                private: r.private,
                own: false,
                commit: r.commit_sha,
                path: r.path,
                line: u32::try_from(r.line).unwrap_or(0),
                role,
                endpoint,
            });
        }
        Ok(out)
    }

    /// Which of `packages` another repository of the installation (of none: those the
    /// command line indexed) also names in a package.json: names a call from elsewhere
    /// cannot be told apart by. Reads at most [`MAX_MANIFESTS_READ`] files, one at a time.
    pub async fn packages_owned_elsewhere(
        &self,
        installation: Option<InstallationId>,
        except: RepoId,
        packages: &[String],
    ) -> Result<Vec<String>> {
        use futures_util::TryStreamExt;
        let mut found: Vec<String> = Vec::new();
        if packages.is_empty() {
            return Ok(found);
        }
        // Manifests are stored by the rule for text: the names are matched under it.
        let stored: Vec<String> = packages
            .iter()
            .map(|p| text::storable(p).into_owned())
            .collect();
        let mut manifests = ops::package_manifests_mentioning(
            &self.pool,
            installation.map(|i| i.0),
            except.0,
            &stored,
            MAX_MANIFESTS_READ,
        );
        while let Some(content) = manifests.try_next().await? {
            let Some(name) = crate::org::package_name(&content) else {
                continue;
            };
            let name = text::storable(&name);
            if let Some(i) = stored.iter().position(|p| *p == name) {
                if !found.contains(&packages[i]) {
                    found.push(packages[i].clone());
                }
            }
        }
        found.sort();
        Ok(found)
    }

    /// Stores the calls into packages of the repositories stored before they were kept
    /// (migration 0010), from their stored graphs: an upgrade does not wait for each
    /// repository's next full index. Each is written under its lock, from its graph as
    /// stored then. Returns how many repositories were written.
    pub async fn record_missing_calls(&self) -> Result<usize> {
        let ids = ops::calls_unrecorded(&self.pool).await?;
        for &id in &ids {
            let repo = RepoId(id);
            let mut tx = self.pool.begin().await?;
            let lock = lock_repository(&mut tx, repo).await?;
            let (graph, _) = self.load_graph(repo).await?;
            let numbers: FxHashMap<String, i32> = ops::file_numbers(&mut *tx, repo)
                .await?
                .into_iter()
                .collect();
            let mut rows = Rows::new();
            for f in graph.file_ids() {
                if let Some(&number) = numbers.get(&graph.facts(f).path) {
                    rows.add_external_calls(id, number, graph.external_calls(f));
                }
            }
            link_rows(&mut rows, repo, &graph, |p| numbers.get(p).copied());
            sqlx::query("DELETE FROM external_call_groups WHERE repo_id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
            ops::delete_link_sites(&mut tx, &lock).await?;
            copy::copy_in(&mut tx, "link_sites", rows::LINK_SITES_COLUMNS, &rows.links).await?;
            copy::copy_in(
                &mut tx,
                "external_call_groups",
                rows::EXTERNAL_CALL_GROUPS_COLUMNS,
                &rows.external_calls,
            )
            .await?;
            ops::set_calls_recorded(&mut tx, &lock).await?;
            tx.commit().await?;
            tracing::info!(
                repo = id,
                groups = rows.external_calls.rows(),
                "calls into packages recorded"
            );
        }
        Ok(ids.len())
    }

    /// One page of the repositories as the status page shows them.
    pub async fn overview(&self, page: Page) -> Result<Paged<RepoOverview>> {
        Ok(overview::overview(&self.pool, page).await?)
    }

    /// One page of the installations as the status page shows them.
    pub async fn installations(&self, page: Page) -> Result<Paged<InstallationOverview>> {
        Ok(overview::installations(&self.pool, page).await?)
    }

    /// One page of the pull requests' analyses, newest first.
    pub async fn analyses(&self, page: Page) -> Result<Paged<AnalysisOverview>> {
        Ok(overview::analyses(&self.pool, page).await?)
    }

    /// Records a pull request's analysis (the repository's newest
    /// [`overview::ANALYSES_KEPT`] are kept).
    pub async fn record_analysis(&self, repo: RepoId, analysis: &NewAnalysis) -> Result<()> {
        Ok(overview::record_analysis(&self.pool, repo, analysis).await?)
    }

    /// Records the rate limit left for an installation's token, as last seen.
    pub async fn record_rate_limit(
        &self,
        installation: InstallationId,
        remaining: u32,
        limit: Option<u32>,
        reset: chrono::DateTime<chrono::Utc>,
    ) -> Result<()> {
        Ok(overview::record_rate_limit(&self.pool, installation, remaining, limit, reset).await?)
    }

    /// Stores the App `/setup` created, unless one is stored: true when stored.
    pub async fn save_app(&self, app: &StoredApp) -> Result<bool> {
        Ok(credentials::save_app(&self.pool, app).await?)
    }

    /// The App `/setup` stored, if any.
    pub async fn stored_app(&self) -> Result<Option<StoredApp>> {
        Ok(credentials::app(&self.pool).await?)
    }

    /// Records the `state` of a setup flow handed to GitHub.
    pub async fn begin_setup(&self, state: &str) -> Result<()> {
        Ok(credentials::begin_setup(&self.pool, state).await?)
    }

    /// Whether `state` was handed out by this server within the hour; true once only.
    pub async fn take_setup_state(&self, state: &str) -> Result<bool> {
        Ok(credentials::take_setup_state(&self.pool, state).await?)
    }

    pub async fn installation_ids(&self) -> Result<Vec<InstallationId>> {
        let ids = ops::installation_ids(&self.pool).await?;
        Ok(ids.into_iter().map(InstallationId).collect())
    }

    /// Whether the installation is suspended; None when we do not know it.
    pub async fn installation_suspended(&self, id: InstallationId) -> Result<Option<bool>> {
        Ok(ops::installation_suspended(&self.pool, id.0).await?)
    }

    pub async fn set_installation_suspended(
        &self,
        id: InstallationId,
        suspended: bool,
    ) -> Result<()> {
        ops::set_installation_suspended(&self.pool, id.0, suspended).await?;
        Ok(())
    }

    /// Records the last failure to bring a repository's graph up to date (None: it is).
    pub async fn set_repository_error(&self, repo: RepoId, error: Option<&str>) -> Result<()> {
        Ok(ops::set_repository_error(&self.pool, repo, error).await?)
    }

    /// Every stored file's path and blob: what a tree compares against to find the
    /// files that changed, whatever commit the graph reflects.
    pub async fn file_blobs(&self, repo: RepoId) -> Result<Vec<(String, BlobSha)>> {
        let rows = ops::file_blobs(&self.pool, repo).await?;
        Ok(rows.into_iter().map(|(p, b)| (p, BlobSha(b))).collect())
    }

    /// Whether every stored file's facts come from this parser version and the rows
    /// are all those a full write stores now: else the graph is indexed again in full
    /// rather than file by file.
    pub async fn rows_current(&self, repo: RepoId) -> Result<bool> {
        Ok(ops::rows_current(&self.pool, repo, PARSER_VERSION).await?)
    }

    /// The stored files the index skipped, with why.
    pub async fn skipped_files(&self, repo: RepoId) -> Result<Vec<(String, SkipReason)>> {
        ops::skipped_files(&self.pool, repo)
            .await?
            .into_iter()
            .map(|(path, reason)| match reason.parse() {
                Ok(reason) => Ok((path, reason)),
                Err(_) => Err(StoreError::Corrupt {
                    path,
                    reason: format!("unknown skip reason '{reason}'"),
                }),
            })
            .collect()
    }

    pub async fn graph_version(&self, repo: RepoId) -> Result<i64> {
        ops::graph_version(&self.pool, repo)
            .await?
            .ok_or_else(|| StoreError::UnknownRepository(format!("#{}", repo.0)))
    }

    pub async fn delete_repository(&self, repo: RepoId) -> Result<bool> {
        let mut tx = self.pool.begin().await?;
        let lock = lock_repository(&mut tx, repo).await?;
        let deleted = ops::delete_repository(&mut tx, lock.repo()).await? > 0;
        tx.commit().await?;
        Ok(deleted)
    }

    pub async fn upsert_installation(&self, id: InstallationId, account_login: &str) -> Result<()> {
        Ok(ops::upsert_installation(&self.pool, id.0, account_login).await?)
    }

    pub async fn delete_installation(&self, id: InstallationId) -> Result<bool> {
        let mut tx = self.pool.begin().await?;
        let mut locks = Vec::new();
        // In id order, as every writer that takes several locks must.
        for repo in ops::installation_repositories(&mut *tx, id.0).await? {
            locks.push(lock_repository(&mut tx, repo).await?);
        }
        let deleted = ops::delete_installation(&mut tx, id.0, &locks).await? > 0;
        tx.commit().await?;
        Ok(deleted)
    }

    /// Cached facts for files of `repo` about to be indexed, by path: what need not be
    /// parsed.
    pub async fn cached_facts(
        &self,
        repo: RepoId,
        files: &[(String, BlobSha)],
    ) -> Result<FxHashMap<String, FileFacts>> {
        let mut keys: FxHashMap<(String, String), Vec<String>> = FxHashMap::default();
        for (path, blob) in files {
            if let Some(variant) = variant_of_path(path) {
                keys.entry((blob.0.clone(), variant))
                    .or_default()
                    .push(path.clone());
            }
        }
        let (blobs, variants): (Vec<String>, Vec<String>) = keys.keys().cloned().unzip();
        let rows = ops::cached_facts(&self.pool, repo, &blobs, &variants, PARSER_VERSION).await?;
        let mut out = FxHashMap::default();
        for (blob, variant, bytes) in rows {
            for path in keys.get(&(blob, variant)).into_iter().flatten() {
                let facts = rows::decode_facts(path, &bytes).map_err(|e| StoreError::Corrupt {
                    path: path.clone(),
                    reason: e.to_string(),
                })?;
                out.insert(path.clone(), facts);
            }
        }
        Ok(out)
    }

    /// Replaces everything stored for `repo` with `graph` at `commit`.
    pub async fn save_full(
        &self,
        repo: RepoId,
        commit: Option<&CommitSha>,
        graph: &Graph,
        meta: &FileMeta,
    ) -> Result<Written> {
        let _admitted = self.admit_write().await;
        let mut tx = self.pool.begin().await?;
        let lock = lock_repository(&mut tx, repo).await?;
        let version = ops::graph_version(&mut *tx, repo)
            .await?
            .ok_or_else(|| StoreError::UnknownRepository(format!("#{}", repo.0)))?
            + 1;
        ops::delete_all_files(&mut tx, &lock).await?;
        let files: Vec<FileId> = graph.file_ids().collect();
        // Every file is numbered first: an edge's row names its callee's number.
        let mut numbers = FileNumbers::default();
        for &f in &files {
            numbers.number(&graph.facts(f).path);
        }
        // Which contents the facts cache holds already, asked once for the write.
        let keys: Vec<(&str, String)> = files
            .iter()
            .map(|&f| graph.facts(f))
            .map(|facts| (meta.blob(&facts.path), rows::variant(&facts)))
            .collect();
        let asked: Vec<(&str, &str)> = keys.iter().map(|(b, v)| (*b, v.as_str())).collect();
        let mut cached_keys =
            ops::facts_cache_present(&mut tx, repo, &asked, PARSER_VERSION).await?;
        let mut edges = 0;
        for (chunk, keys) in files
            .chunks(self.write_chunk)
            .zip(keys.chunks(self.write_chunk))
        {
            // The chunk's facts-cache entries first, each content once: their write
            // runs while the other rows are built and copied.
            let missing: Vec<FileId> = chunk
                .iter()
                .zip(keys)
                .filter(|(_, (blob, variant))| {
                    cached_keys.insert((blob.to_string(), variant.clone()))
                })
                .map(|(&f, _)| f)
                .collect();
            let entries: Vec<CacheEntry> = missing
                .par_iter()
                .map(|&f| graph.facts(f))
                .map(|facts| rows::cache_entry(&facts.to_file_facts(), meta.blob(&facts.path)))
                .collect();
            let cached = write_cache(&self.pool, repo, entries, true);
            let rows = file_rows(repo, version, graph, chunk, meta, &numbers);
            edges += rows.edges.rows();
            write_rows(&mut tx, &rows, cached).await?;
        }
        let mut rows = other_rows(repo, version, graph, meta, &mut numbers);
        link_rows(&mut rows, repo, graph, |p| numbers.get(p));
        write_rows(
            &mut tx,
            &rows,
            write_cache(&self.pool, repo, Vec::new(), true),
        )
        .await?;
        // Facts of blobs no file holds now: earlier contents, earlier parser versions.
        ops::prune_facts_cache(&mut tx, &lock, None).await?;
        ops::set_graph_version(&mut tx, &lock, commit.map(CommitSha::as_str), version).await?;
        ops::set_calls_recorded(&mut tx, &lock).await?;
        callers_read::replace_pairs(&mut tx, &lock, graph, &numbers, true).await?;
        ops::set_selection_version(&mut tx, &lock, crate::indexer::select::SELECTION_VERSION)
            .await?;
        tx.commit().await?;
        Ok(Written {
            version,
            files: files.len(),
            edges,
        })
    }

    /// Writes a push that `graph` already holds (see `workflow::apply_push`): in one
    /// transaction under the repository lock, replaces the rows of the changed, removed
    /// and re-resolved files and moves the repository to the commit and a new graph
    /// version. Refused as [`StoreError::Stale`] when the stored graph is no longer at
    /// `change.expected`.
    pub async fn write_push(
        &self,
        repo: RepoId,
        graph: &Graph,
        change: &PushWrite<'_>,
    ) -> Result<Written> {
        let _admitted = self.admit_write().await;
        let mut tx = self.pool.begin().await?;
        let lock = lock_repository(&mut tx, repo).await?;
        let actual = ops::graph_version(&mut *tx, repo)
            .await?
            .ok_or_else(|| StoreError::UnknownRepository(format!("#{}", repo.0)))?;
        if actual != change.expected {
            return Err(StoreError::Stale {
                expected: change.expected,
                actual,
            });
        }
        let version = actual + 1;

        let meta = push_meta(&mut tx, repo, graph, change).await?;
        let mut paths: Vec<String> = change
            .rewritten
            .iter()
            .map(|&f| graph.facts(f).path.clone())
            .collect();
        paths.extend(meta.skipped.iter().map(|(p, _)| p.clone()));
        paths.extend(change.configs.iter().map(|(p, _)| p.clone()));
        let mut numbers = FileNumbers::from_rows(ops::file_numbers(&mut *tx, repo).await?);
        let mut doomed: Vec<i32> = paths.iter().filter_map(|p| numbers.get(p)).collect();
        doomed.extend(change.removed.iter().filter_map(|p| numbers.forget(p)));
        let replaced = ops::delete_files(&mut tx, &lock, &doomed).await?;
        // Number the rewritten files and every file they call into, then build rows.
        for &f in change.rewritten {
            numbers.number(&graph.facts(f).path);
            for e in graph.edges(f) {
                numbers.number(&graph.facts(e.target.file).path);
            }
        }
        let entries: Vec<CacheEntry> = change
            .rewritten
            .iter()
            .map(|&f| graph.facts(f))
            .filter(|facts| change.parsed.contains(&facts.path))
            .map(|facts| rows::cache_entry(&facts.to_file_facts(), meta.blob(&facts.path)))
            .collect();
        let cached = write_cache(&self.pool, repo, entries, false);
        let mut rows = push_rows(repo, version, graph, change, &meta, &mut numbers);
        // A mount or a client instance in one file changes the sites of others: the
        // repository's sites are written again whole (they are few), from the graph.
        ops::delete_link_sites(&mut tx, &lock).await?;
        link_rows(&mut rows, repo, graph, |p| numbers.get(p));
        let edges = rows.edges.rows();
        let files = rows.files.rows();
        write_rows(&mut tx, &rows, cached).await?;
        callers_read::replace_pairs(&mut tx, &lock, graph, &numbers, false).await?;
        // The facts of contents the push replaced, unless another file holds them.
        ops::prune_facts_cache(&mut tx, &lock, Some(&replaced)).await?;
        let added: Vec<String> = change.meta.blobs.keys().cloned().collect();
        ops::record_removed(&mut tx, &lock, change.removed, &added, version).await?;
        let commit = change.commit.map(CommitSha::as_str);
        ops::set_graph_version(&mut tx, &lock, commit, version).await?;
        tx.commit().await?;
        Ok(Written {
            version,
            files,
            edges,
        })
    }

    /// The repository's graph from its rows alone, with the state it reflects.
    pub async fn load_graph(&self, repo: RepoId) -> Result<(Graph, RepoState)> {
        // Read the version first: rows written later are at a higher version, and a
        // catch-up from this version will see them again.
        let state = self.repository_by_id(repo).await?;
        let rows = ops::files_since(&self.pool, repo, -1).await?;
        let (files, configs, _) = decode_rows(rows)?;
        let graph = tokio::task::spawn_blocking(move || Graph::restore(files, configs))
            .await
            .expect("restore does not panic");
        Ok((graph, state))
    }

    /// Brings a graph loaded at version `from` up to the stored version, reading only
    /// the rows written since.
    pub async fn catch_up(
        &self,
        repo: RepoId,
        mut graph: Graph,
        from: i64,
    ) -> Result<(Graph, i64)> {
        let version = self.graph_version(repo).await?;
        if version == from {
            return Ok((graph, version));
        }
        let rows = ops::files_since(&self.pool, repo, from).await?;
        let removed = ops::removed_since(&self.pool, repo, from).await?;
        let configs_changed = ops::config_changed_since(&self.pool, repo, from, &removed).await?;
        let (files, _, _) = decode_rows(rows)?;
        let configs = if configs_changed {
            Some(ops::configs(&self.pool, repo).await?)
        } else {
            None
        };
        let graph = tokio::task::spawn_blocking(move || {
            graph.apply_stored(files, &removed, configs);
            graph
        })
        .await
        .expect("apply_stored does not panic");
        Ok((graph, version))
    }

    /// Callers of a definition answered by SQL alone.
    pub async fn callers_sql(
        &self,
        repo: RepoId,
        path: &str,
        def: u32,
    ) -> Result<Vec<ops::CallerRow>> {
        Ok(ops::callers_of(&self.pool, repo, path, def as i32).await?)
    }

    /// (files, definitions, edges) rows stored for a repository.
    pub async fn counts(&self, repo: RepoId) -> Result<(i64, i64, i64)> {
        Ok(ops::counts(&self.pool, repo).await?)
    }
}

/// The push's file metadata, completed with the blobs of the re-resolved files it did
/// not carry: those are in their old rows.
async fn push_meta(
    tx: &mut PgConnection,
    repo: RepoId,
    graph: &Graph,
    change: &PushWrite<'_>,
) -> Result<FileMeta> {
    let mut meta = change.meta.clone();
    let unknown_blobs: Vec<String> = change
        .rewritten
        .iter()
        .map(|&f| graph.facts(f).path.clone())
        .filter(|p| !meta.blobs.contains_key(p))
        .collect();
    for (path, blob) in ops::blobs_of(&mut *tx, repo, &unknown_blobs).await? {
        meta.blobs.insert(path, blob);
    }
    Ok(meta)
}

/// The rows of the repository's link sites, resolved over the whole graph (mounts and
/// client instances composed across its files).
fn link_rows(rows: &mut Rows, repo: RepoId, graph: &Graph, numbers: impl Fn(&str) -> Option<i32>) {
    let links = crate::links::resolve(graph);
    rows.add_links(repo.0, graph, &links, numbers);
}

/// Rows of a push: its rewritten files, and its skipped and config files.
fn push_rows(
    repo: RepoId,
    version: i64,
    graph: &Graph,
    change: &PushWrite<'_>,
    meta: &FileMeta,
    numbers: &mut FileNumbers,
) -> Rows {
    let mut rows = Rows::new();
    for &f in change.rewritten {
        let path = &graph.facts(f).path;
        let blob = meta.blob(path);
        rows.add_file(repo.0, version, graph, f, blob, numbers);
    }
    for (path, reason) in &meta.skipped {
        let blob = meta.blob(path);
        rows.add_skipped(repo.0, version, path, blob, *reason, numbers);
    }
    for (path, text) in change.configs {
        let blob = meta.blob(path);
        rows.add_config(repo.0, version, path, blob, text, numbers);
    }
    rows
}

/// Rows of the given files plus the skipped and config files of `meta`/`graph`.
/// The rows of indexed `files` (each numbered in `numbers`), built on every core.
fn file_rows(
    repo: RepoId,
    version: i64,
    graph: &Graph,
    files: &[FileId],
    meta: &FileMeta,
    numbers: &FileNumbers,
) -> Rows {
    files
        .par_chunks(256)
        .map(|chunk| {
            let mut rows = Rows::new();
            for &f in chunk {
                let blob = meta.blob(&graph.facts(f).path);
                rows.add_file(repo.0, version, graph, f, blob, numbers);
            }
            rows
        })
        .reduce(Rows::new, |mut a, b| {
            a.append(b);
            a
        })
}

/// The rows of the files that are not indexed: skipped ones and configs.
fn other_rows(
    repo: RepoId,
    version: i64,
    graph: &Graph,
    meta: &FileMeta,
    numbers: &mut FileNumbers,
) -> Rows {
    let mut rows = Rows::new();
    for (path, reason) in &meta.skipped {
        let blob = meta.blob(path);
        rows.add_skipped(repo.0, version, path, blob, *reason, numbers);
    }
    for (path, content) in graph.configs() {
        let blob = meta.blob(path);
        rows.add_config(repo.0, version, path, blob, content, numbers);
    }
    rows
}

/// Starts writing entries to the facts cache on a connection of its own, while the
/// caller writes the other rows; `write_rows` waits for it before the caller commits,
/// so no reader finds a file without facts. Outside the repository's transaction: a
/// writer that fails after it leaves entries that the next full write prunes.
/// `checked`: the caller kept only entries the cache lacks, so it is not asked again.
fn write_cache(
    pool: &PgPool,
    repo: RepoId,
    entries: Vec<CacheEntry>,
    checked: bool,
) -> JoinHandle<sqlx::Result<()>> {
    let pool = pool.clone();
    tokio::spawn(async move {
        if entries.is_empty() {
            return Ok(());
        }
        let mut conn = pool.acquire().await?;
        if checked {
            let none = FxHashSet::default();
            ops::copy_facts_cache(&mut conn, repo, &entries, PARSER_VERSION, &none).await
        } else {
            ops::insert_facts_cache(&mut conn, repo, &entries, PARSER_VERSION).await
        }
    })
}

/// Copies the rows of a change in `tx`, while the facts cache is written (`cached`).
async fn write_rows(
    tx: &mut sqlx::PgConnection,
    rows: &Rows,
    cached: JoinHandle<sqlx::Result<()>>,
) -> Result<()> {
    let cache = async {
        cached
            .await
            .map_err(|e| StoreError::Task(e.to_string()))?
            .map_err(StoreError::from)
    };
    let repo_rows = async {
        for (table, columns, rows) in [
            ("files", rows::FILES_COLUMNS, &rows.files),
            ("definitions", rows::DEFINITIONS_COLUMNS, &rows.definitions),
            ("edges", rows::EDGES_COLUMNS, &rows.edges),
            (
                "external_call_groups",
                rows::EXTERNAL_CALL_GROUPS_COLUMNS,
                &rows.external_calls,
            ),
            (
                "unresolved_calls",
                rows::UNRESOLVED_COLUMNS,
                &rows.unresolved,
            ),
            ("link_sites", rows::LINK_SITES_COLUMNS, &rows.links),
        ] {
            copy::copy_in(&mut *tx, table, columns, rows).await?;
        }
        Ok::<_, sqlx::Error>(())
    };
    let (cached, written) = tokio::join!(cache, repo_rows);
    cached?;
    written?;
    Ok(())
}

type Decoded = (
    Vec<(FileFacts, StoredResolution)>,
    Vec<(String, String)>,
    Vec<(String, SkipReason)>,
);

/// Decodes stored rows on every core.
fn decode_rows(rows: Vec<ops::StoredFileRow>) -> Result<Decoded> {
    let mut configs = Vec::new();
    let mut skipped = Vec::new();
    let mut indexed = Vec::new();
    for row in rows {
        match row.status.as_str() {
            "config" => configs.push((row.path, row.content.unwrap_or_default())),
            "skipped" => {
                let reason = row.skip_reason.as_deref().unwrap_or_default();
                let reason = reason.parse().map_err(|_| StoreError::Corrupt {
                    path: row.path.clone(),
                    reason: format!("unknown skip reason '{reason}'"),
                })?;
                skipped.push((row.path, reason));
            }
            _ => indexed.push(row),
        }
    }
    let files = indexed
        .into_par_iter()
        .map(|row| {
            let corrupt = |reason: String| StoreError::Corrupt {
                path: row.path.clone(),
                reason,
            };
            let facts_bytes = row
                .facts
                .as_deref()
                .ok_or_else(|| corrupt(format!("no cached facts for blob {}", row.blob_sha)))?;
            let facts =
                rows::decode_facts(&row.path, facts_bytes).map_err(|e| corrupt(e.to_string()))?;
            let resolution: StoredResolution = match row.resolution.as_deref() {
                Some(bytes) => {
                    rows::decode_resolution(bytes).map_err(|e| corrupt(e.to_string()))?
                }
                None => StoredResolution::default(),
            };
            Ok((facts, resolution))
        })
        .collect::<Result<Vec<_>>>()?;
    configs.sort();
    Ok((files, configs, skipped))
}
