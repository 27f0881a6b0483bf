//! What an operator's status page shows, and what the App's jobs record for it: each
//! repository's graph and its freshness against its default branch, each installation
//! and the rate limit its jobs last saw, and the pull requests' analyses. Every list is
//! read one bounded page at a time.

use chrono::{DateTime, Utc};
use sqlx::postgres::PgRow;
use sqlx::{PgExecutor, PgPool, Row};

use crate::model::{InstallationId, RepoId};

/// Analyses kept per repository: the newest; older ones are deleted as new ones come.
pub const ANALYSES_KEPT: i64 = 100;

/// One page of a list: `number` counts from 1, `size` rows each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    pub number: u32,
    pub size: u32,
}

impl Page {
    /// Page `number` (0 is taken as 1) of `size` rows (at least 1, at most 200).
    pub fn new(number: u32, size: u32) -> Page {
        Page {
            number: number.max(1),
            size: size.clamp(1, 200),
        }
    }

    fn offset(self) -> i64 {
        i64::from(self.number - 1) * i64::from(self.size)
    }

    /// One row more than the page holds: its presence says there is a next page.
    fn limit(self) -> i64 {
        i64::from(self.size) + 1
    }
}

/// A page of rows, and whether more follow it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paged<T> {
    pub items: Vec<T>,
    pub page: Page,
    pub more: bool,
}

impl<T> Paged<T> {
    /// The rows read with [`Page::limit`]: the extra one, if there, only says "more".
    pub fn from_rows(mut items: Vec<T>, page: Page) -> Paged<T> {
        let more = items.len() > page.size as usize;
        items.truncate(page.size as usize);
        Paged { items, page, more }
    }
}

fn micros(row: &PgRow, column: &str) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(row.get(column)).unwrap_or_default()
}

fn micros_opt(row: &PgRow, column: &str) -> Option<DateTime<Utc>> {
    row.get::<Option<i64>, _>(column)
        .and_then(DateTime::from_timestamp_micros)
}

/// One repository, for the status page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoOverview {
    pub full_name: String,
    /// None for repositories indexed from the CLI.
    pub installation: Option<i64>,
    pub account: String,
    pub suspended: bool,
    /// The commit the stored graph reflects.
    pub commit: Option<String>,
    pub updated_at: DateTime<Utc>,
    pub last_error: Option<String>,
    pub files: i64,
    pub edges: i64,
    /// The default branch's head as the last push to it said, and when it arrived.
    pub pushed: Option<(String, DateTime<Utc>)>,
}

impl RepoOverview {
    /// Whether the graph reflects the default branch's head as last pushed: None when no
    /// push was seen since the App recorded heads (the graph is as fresh as its last
    /// update).
    pub fn current(&self) -> Option<bool> {
        let (head, _) = self.pushed.as_ref()?;
        Some(self.commit.as_deref() == Some(head.as_str()))
    }
}

pub(super) async fn overview(pool: &PgPool, page: Page) -> sqlx::Result<Paged<RepoOverview>> {
    // Counted for this page's repositories only: the page's cost is bounded by its size.
    let rows = sqlx::query(
        "SELECT r.full_name, r.installation_id, COALESCE(i.account_login, '') AS account,
                COALESCE(i.suspended, false) AS suspended, r.commit_sha,
                (extract(epoch FROM r.updated_at) * 1000000)::int8 AS updated_micros,
                r.last_error, r.pushed_sha,
                (extract(epoch FROM r.pushed_at) * 1000000)::int8 AS pushed_micros,
                (SELECT count(*) FROM files f WHERE f.repo_id = r.id) AS files,
                (SELECT count(*) FROM edges e WHERE e.repo_id = r.id) AS edges
         FROM repositories r LEFT JOIN installations i ON i.id = r.installation_id
         ORDER BY account, r.full_name, r.id
         LIMIT $1 OFFSET $2",
    )
    .bind(page.limit())
    .bind(page.offset())
    .fetch_all(pool)
    .await?;
    let items = rows
        .iter()
        .map(|r| RepoOverview {
            full_name: r.get("full_name"),
            installation: r.get("installation_id"),
            account: r.get("account"),
            suspended: r.get("suspended"),
            commit: r.get("commit_sha"),
            updated_at: micros(r, "updated_micros"),
            last_error: r.get("last_error"),
            files: r.get("files"),
            edges: r.get("edges"),
            pushed: r
                .get::<Option<String>, _>("pushed_sha")
                .zip(micros_opt(r, "pushed_micros")),
        })
        .collect();
    Ok(Paged::from_rows(items, page))
}

/// GitHub's primary rate limit for one credential as last seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateSeen {
    pub remaining: i32,
    /// Requests per hour, when GitHub said.
    pub limit: Option<i32>,
    pub reset: DateTime<Utc>,
    pub seen: DateTime<Utc>,
}

/// One installation, for the status page (whether or not it has repositories yet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallationOverview {
    pub id: i64,
    pub account: String,
    pub suspended: bool,
    pub repositories: i64,
    pub since: DateTime<Utc>,
    /// The rate limit its jobs last saw; None before any job of it answered.
    pub rate: Option<RateSeen>,
}

pub(super) async fn installations(
    pool: &PgPool,
    page: Page,
) -> sqlx::Result<Paged<InstallationOverview>> {
    let rows = sqlx::query(
        "SELECT i.id, i.account_login, i.suspended,
                (extract(epoch FROM i.created_at) * 1000000)::int8 AS created_micros,
                (SELECT count(*) FROM repositories r WHERE r.installation_id = i.id) AS repos,
                i.rate_remaining, i.rate_limit,
                (extract(epoch FROM i.rate_reset) * 1000000)::int8 AS reset_micros,
                (extract(epoch FROM i.rate_seen_at) * 1000000)::int8 AS seen_micros
         FROM installations i ORDER BY i.account_login, i.id
         LIMIT $1 OFFSET $2",
    )
    .bind(page.limit())
    .bind(page.offset())
    .fetch_all(pool)
    .await?;
    let items = rows
        .iter()
        .map(|r| InstallationOverview {
            id: r.get("id"),
            account: r.get("account_login"),
            suspended: r.get("suspended"),
            repositories: r.get("repos"),
            since: micros(r, "created_micros"),
            rate: match (
                r.get::<Option<i32>, _>("rate_remaining"),
                micros_opt(r, "reset_micros"),
                micros_opt(r, "seen_micros"),
            ) {
                (Some(remaining), Some(reset), Some(seen)) => Some(RateSeen {
                    remaining,
                    limit: r.get("rate_limit"),
                    reset,
                    seen,
                }),
                _ => None,
            },
        })
        .collect();
    Ok(Paged::from_rows(items, page))
}

/// Records the rate limit a job of `installation` last saw (an installation not
/// recorded yet is left alone).
pub(super) async fn record_rate_limit(
    ex: impl PgExecutor<'_>,
    installation: InstallationId,
    remaining: u32,
    limit: Option<u32>,
    reset: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE installations SET rate_remaining = $2, rate_limit = $3,
                rate_reset = to_timestamp($4::float8 / 1000000), rate_seen_at = now()
         WHERE id = $1",
    )
    .bind(installation.0)
    .bind(i32::try_from(remaining).unwrap_or(i32::MAX))
    .bind(limit.map(|l| i32::try_from(l).unwrap_or(i32::MAX)))
    .bind(reset.timestamp_micros())
    .execute(ex)
    .await?;
    Ok(())
}

/// A pull request's analysis as its job posted it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewAnalysis {
    pub number: u64,
    pub title: String,
    /// The pull request's page.
    pub url: String,
    pub head: String,
    /// The check run's conclusion (`success`, `neutral`, `failure`); None when the
    /// repository turned the check run off.
    pub conclusion: Option<String>,
    /// Untouched call sites the change breaks.
    pub breaking: u32,
    /// Call sites the change left untouched.
    pub untouched: u32,
    /// Changed functions.
    pub changed: u32,
    pub took_ms: u64,
}

/// One analysis, for the status page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisOverview {
    pub full_name: String,
    pub analysis: NewAnalysis,
    pub at: DateTime<Utc>,
}

fn clamp_u32(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Records an analysis and lets go of the repository's analyses past the newest
/// [`ANALYSES_KEPT`].
pub(super) async fn record_analysis(
    pool: &PgPool,
    repo: RepoId,
    a: &NewAnalysis,
) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query(
        "INSERT INTO analyses (repo_id, pr_number, pr_title, pr_url, head_sha, conclusion,
                               breaking, untouched, changed, took_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(repo.0)
    .bind(i64::try_from(a.number).unwrap_or(i64::MAX))
    .bind(&a.title)
    .bind(&a.url)
    .bind(&a.head)
    .bind(a.conclusion.as_deref())
    .bind(clamp_u32(a.breaking))
    .bind(clamp_u32(a.untouched))
    .bind(clamp_u32(a.changed))
    .bind(i64::try_from(a.took_ms).unwrap_or(i64::MAX))
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "DELETE FROM analyses WHERE repo_id = $1 AND id < (
             SELECT id FROM analyses WHERE repo_id = $1
             ORDER BY id DESC OFFSET $2 - 1 LIMIT 1)",
    )
    .bind(repo.0)
    .bind(ANALYSES_KEPT)
    .execute(&mut *tx)
    .await?;
    tx.commit().await
}

pub(super) async fn analyses(pool: &PgPool, page: Page) -> sqlx::Result<Paged<AnalysisOverview>> {
    let rows = sqlx::query(
        "SELECT r.full_name, a.pr_number, a.pr_title, a.pr_url, a.head_sha, a.conclusion,
                a.breaking, a.untouched, a.changed, a.took_ms,
                (extract(epoch FROM a.finished_at) * 1000000)::int8 AS at_micros
         FROM analyses a JOIN repositories r ON r.id = a.repo_id
         ORDER BY a.finished_at DESC, a.id DESC
         LIMIT $1 OFFSET $2",
    )
    .bind(page.limit())
    .bind(page.offset())
    .fetch_all(pool)
    .await?;
    let count = |r: &PgRow, c: &str| u32::try_from(r.get::<i32, _>(c)).unwrap_or(0);
    let items = rows
        .iter()
        .map(|r| AnalysisOverview {
            full_name: r.get("full_name"),
            analysis: NewAnalysis {
                number: u64::try_from(r.get::<i64, _>("pr_number")).unwrap_or(0),
                title: r.get("pr_title"),
                url: r.get("pr_url"),
                head: r.get("head_sha"),
                conclusion: r.get("conclusion"),
                breaking: count(r, "breaking"),
                untouched: count(r, "untouched"),
                changed: count(r, "changed"),
                took_ms: u64::try_from(r.get::<i64, _>("took_ms")).unwrap_or(0),
            },
            at: micros(r, "at_micros"),
        })
        .collect();
    Ok(Paged::from_rows(items, page))
}
