//! What an operator's status page shows of each repository: its installation, the
//! commit its graph reflects, its size, its last update and its last error.

use chrono::{DateTime, Utc};
use sqlx::{PgPool, Row};

/// One repository, for the status page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoOverview {
    pub full_name: String,
    /// None for repositories indexed from the CLI.
    pub installation: Option<i64>,
    pub account: String,
    pub suspended: bool,
    pub commit: Option<String>,
    pub updated_at: DateTime<Utc>,
    pub last_error: Option<String>,
    pub files: i64,
    pub edges: i64,
}

pub(super) async fn overview(pool: &PgPool) -> sqlx::Result<Vec<RepoOverview>> {
    let rows = sqlx::query(
        "SELECT r.full_name, r.installation_id, COALESCE(i.account_login, '') AS account,
                COALESCE(i.suspended, false) AS suspended, r.commit_sha,
                (extract(epoch FROM r.updated_at) * 1000000)::int8 AS updated_micros,
                r.last_error,
                (SELECT count(*) FROM files f WHERE f.repo_id = r.id) AS files,
                (SELECT count(*) FROM edges e WHERE e.repo_id = r.id) AS edges
         FROM repositories r LEFT JOIN installations i ON i.id = r.installation_id
         ORDER BY account, r.full_name",
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| RepoOverview {
            full_name: r.get("full_name"),
            installation: r.get("installation_id"),
            account: r.get("account"),
            suspended: r.get("suspended"),
            commit: r.get("commit_sha"),
            updated_at: DateTime::from_timestamp_micros(r.get("updated_micros"))
                .unwrap_or_default(),
            last_error: r.get("last_error"),
            files: r.get("files"),
            edges: r.get("edges"),
        })
        .collect())
}

/// One installation, for the status page (whether or not it has repositories yet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallationOverview {
    pub id: i64,
    pub account: String,
    pub suspended: bool,
    pub repositories: i64,
    pub since: DateTime<Utc>,
}

pub(super) async fn installations(pool: &PgPool) -> sqlx::Result<Vec<InstallationOverview>> {
    let rows = sqlx::query(
        "SELECT i.id, i.account_login, i.suspended,
                (extract(epoch FROM i.created_at) * 1000000)::int8 AS created_micros,
                (SELECT count(*) FROM repositories r WHERE r.installation_id = i.id) AS repos
         FROM installations i ORDER BY i.account_login, i.id",
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| InstallationOverview {
            id: r.get("id"),
            account: r.get("account_login"),
            suspended: r.get("suspended"),
            repositories: r.get("repos"),
            since: DateTime::from_timestamp_micros(r.get("created_micros")).unwrap_or_default(),
        })
        .collect())
}
