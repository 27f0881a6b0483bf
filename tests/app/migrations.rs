//! Migrations are safe on a live database: no NOT NULL column without a default, and
//! every migration applies in order over sample data written after the one before.

use std::path::Path;

use sqlx::PgPool;

fn migrations() -> Vec<(i64, String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut out: Vec<(i64, String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let version: i64 = name.split('_').next().unwrap().parse().unwrap();
            (version, name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// Column definitions (and ADD COLUMNs) that say NOT NULL without a DEFAULT.
fn not_null_without_default(sql: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for line in sql.lines() {
        let code = line.split("--").next().unwrap_or("").trim();
        // `x IS NOT NULL` (a partial index's predicate) declares no column.
        let upper = code.to_uppercase().replace("IS NOT NULL", "");
        if upper.contains("NOT NULL") && !upper.contains("DEFAULT") && !upper.starts_with("CHECK") {
            bad.push(code.to_string());
        }
    }
    bad
}

#[test]
fn no_not_null_column_without_a_default() {
    for (_, name, sql) in migrations() {
        let bad = not_null_without_default(&sql);
        assert!(bad.is_empty(), "{name}: NOT NULL without DEFAULT: {bad:#?}");
    }
    // The check itself catches what it should.
    assert_eq!(
        not_null_without_default("  x INT NOT NULL,\n y INT NOT NULL DEFAULT 0").len(),
        1
    );
    assert_eq!(
        not_null_without_default("ALTER TABLE t ADD COLUMN z TEXT NOT NULL;").len(),
        1
    );
    assert!(not_null_without_default("CREATE INDEX i ON t (a) WHERE a IS NOT NULL;").is_empty());
}

#[sqlx::test(migrations = false)]
async fn every_migration_applies_over_sample_data(pool: PgPool) {
    let all = migrations();
    assert!(!all.is_empty());
    for (version, name, sql) in &all {
        sqlx::raw_sql(sql)
            .execute(&pool)
            .await
            .unwrap_or_else(|e| panic!("{name} over the sample data of earlier migrations: {e}"));
        let sample = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/sample_data")
            .join(format!("{version:04}.sql"));
        if sample.exists() {
            sqlx::raw_sql(&std::fs::read_to_string(&sample).unwrap())
                .execute(&pool)
                .await
                .unwrap_or_else(|e| panic!("sample data after {name}: {e}"));
        }
    }
    // The sample rows survived every migration, in the tables keyed by repository.
    let edges: Vec<(i64, String)> =
        sqlx::query_as("SELECT repo_id, tableoid::regclass::text FROM edges ORDER BY repo_id")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(
        edges,
        vec![(1, "edges".to_string()), (2, "edges".to_string())]
    );
    let files: Vec<(i64, String)> =
        sqlx::query_as("SELECT repo_id, path FROM files ORDER BY repo_id, path")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(files.len(), 3, "{files:?}");
    // The facts cache kept, per repository, what its files hold, and nothing else.
    let cached: Vec<(i64, String)> =
        sqlx::query_as("SELECT repo_id, blob_sha FROM facts_cache ORDER BY 1, 2")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(cached, vec![(1, "b1".to_string()), (2, "b3".to_string())]);
    // External calls, one row per call in 0010, are grouped by file and package, each
    // group's calls back to back in site order.
    let groups: Vec<(i64, i32, String, i32, Vec<u8>)> = sqlx::query_as(
        "SELECT repo_id, file_id, package, sites, calls FROM external_call_groups ORDER BY 3",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        groups,
        vec![
            (1, 1, "@acme/money".to_string(), 2, vec![1, 1, 2, 2]),
            (1, 1, "react".to_string(), 1, vec![3]),
        ]
    );
    // Their calls' arguments (0018) are not known until written again: every
    // repository's calls are written again from its stored graph.
    let args: Vec<Vec<u8>> =
        sqlx::query_scalar("SELECT args FROM external_call_groups ORDER BY package")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(args, vec![Vec::<u8>::new(), Vec::new()]);
    let recorded: Vec<bool> = sqlx::query_scalar("SELECT calls_recorded FROM repositories")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert!(
        !recorded.is_empty() && recorded.iter().all(|r| !r),
        "{recorded:?}"
    );
    // No partition and no table a dead writer left is left.
    let stray: Vec<String> = sqlx::query_scalar(
        "SELECT relname::text FROM pg_class
         WHERE relname ~ '^(files|definitions|edges)_r[0-9]+$' OR relispartition",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(stray, Vec::<String>::new());
    // The queue's sample rows too, deferred never.
    let jobs: Vec<(String, i32)> = sqlx::query_as("SELECT state, deferrals FROM jobs ORDER BY id")
        .fetch_all(&pool)
        .await
        .unwrap();
    let states: Vec<(&str, i32)> = jobs.iter().map(|(s, d)| (s.as_str(), *d)).collect();
    assert_eq!(states, [("waiting", 0), ("done", 0), ("dead", 0)]);
    // And sqlx's migrator agrees with applying them by hand on a fresh schema.
    sqlx::raw_sql("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
        .execute(&pool)
        .await
        .unwrap();
    let store = blast_radius::store::Store::from_pool(pool.clone());
    store.migrate().await.unwrap();
    store.migrate().await.unwrap();
}
