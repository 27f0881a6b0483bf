//! The App's credentials as `/setup` stored them (sealed: this module never sees them
//! readable), and the `state` values of setup flows begun.

use sqlx::{PgPool, Row};

/// The stored App: who it is in the clear, its secrets sealed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredApp {
    pub app_id: i64,
    pub slug: String,
    pub html_url: String,
    pub owner_login: String,
    pub nonce: Vec<u8>,
    pub sealed: Vec<u8>,
}

/// How long a setup flow's `state` is good for: GitHub's code lives an hour too.
const STATE_TTL: &str = "1 hour";

/// Stores the App unless one is stored already: the first App set up wins, and a second
/// callback (a reload, a race between two tabs) changes nothing. True when stored.
pub(super) async fn save_app(pool: &PgPool, app: &StoredApp) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "INSERT INTO app_credentials (app_id, slug, html_url, owner_login, nonce, sealed)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (singleton) DO NOTHING",
    )
    .bind(app.app_id)
    .bind(&app.slug)
    .bind(&app.html_url)
    .bind(&app.owner_login)
    .bind(&app.nonce)
    .bind(&app.sealed)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

pub(super) async fn app(pool: &PgPool) -> sqlx::Result<Option<StoredApp>> {
    let row = sqlx::query(
        "SELECT app_id, slug, html_url, owner_login, nonce, sealed FROM app_credentials",
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| StoredApp {
        app_id: r.get("app_id"),
        slug: r.get("slug"),
        html_url: r.get("html_url"),
        owner_login: r.get("owner_login"),
        nonce: r.get("nonce"),
        sealed: r.get("sealed"),
    }))
}

/// Records a flow's `state`, and forgets those too old to be used.
pub(super) async fn begin_setup(pool: &PgPool, state: &str) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query(&format!(
        "DELETE FROM setup_states WHERE created_at < now() - interval '{STATE_TTL}'"
    ))
    .execute(&mut *tx)
    .await?;
    sqlx::query("INSERT INTO setup_states (state) VALUES ($1)")
        .bind(state)
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}

/// True once for a `state` this server handed out within the hour: it is used up.
pub(super) async fn take_setup_state(pool: &PgPool, state: &str) -> sqlx::Result<bool> {
    let row = sqlx::query(&format!(
        "DELETE FROM setup_states WHERE state = $1 AND created_at >= now() - interval '{STATE_TTL}'
         RETURNING state"
    ))
    .bind(state)
    .fetch_optional(pool)
    .await?;
    Ok(row.is_some())
}
