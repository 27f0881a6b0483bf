//! The schema can be distributed by repository (Citus): read from `information_schema`
//! after every migration, every table is in one of three kinds, and the graph's tables
//! keep the rules a distributed table needs. A new table fails here until someone
//! decides which kind it is.

use sqlx::PgPool;

/// Rows of one repository's graph: distributed by `repo_id`, co-located.
const BY_REPOSITORY: &[&str] = &[
    "files",
    "definitions",
    "edges",
    "external_call_groups",
    "unresolved_calls",
    "declared_pairs",
    "link_sites",
    "removed_files",
    "facts_cache",
    "analyses",
];
/// Small tables every node may read: replicated (Citus reference tables).
const REFERENCE: &[&str] = &["installations", "repositories"];
/// The coordinator's own: the queue, deliveries and their recovery's mark, the App's
/// credentials and setup.
const COORDINATOR: &[&str] = &[
    "jobs",
    "deliveries",
    "delivery_recovery",
    "app_credentials",
    "setup_states",
];

async fn migrated(pool: &PgPool) {
    blast_radius::store::Store::from_pool(pool.clone())
        .migrate()
        .await
        .unwrap();
}

async fn strings(pool: &PgPool, sql: &str, table: &str) -> Vec<String> {
    sqlx::query_scalar(sql)
        .bind(table)
        .fetch_all(pool)
        .await
        .unwrap()
}

#[sqlx::test(migrations = false)]
async fn every_table_is_distributed_by_repository_or_small_or_the_coordinators(pool: PgPool) {
    migrated(&pool).await;
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables
         WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
           AND table_name <> '_sqlx_migrations'
         ORDER BY 1",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let mut known: Vec<String> = [BY_REPOSITORY, REFERENCE, COORDINATOR]
        .concat()
        .iter()
        .map(|t| t.to_string())
        .collect();
    known.sort();
    assert_eq!(tables, known, "every table is in exactly one kind");
}

#[sqlx::test(migrations = false)]
async fn graph_tables_carry_repo_id_in_every_key_and_refer_only_to_reference_tables(pool: PgPool) {
    migrated(&pool).await;
    for table in BY_REPOSITORY {
        let repo_id: Vec<String> = strings(
            &pool,
            "SELECT data_type::text || ' ' || is_nullable::text FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = $1
               AND column_name = 'repo_id'",
            table,
        )
        .await;
        assert_eq!(
            repo_id,
            ["bigint NO"],
            "{table} carries repo_id, never null"
        );

        // Primary keys and unique constraints: each includes repo_id.
        let constraints: Vec<String> = strings(
            &pool,
            "SELECT tc.constraint_name::text FROM information_schema.table_constraints tc
             WHERE tc.table_schema = current_schema() AND tc.table_name = $1
               AND tc.constraint_type IN ('PRIMARY KEY', 'UNIQUE')
               AND NOT EXISTS (
                 SELECT 1 FROM information_schema.key_column_usage k
                 WHERE k.constraint_schema = tc.constraint_schema
                   AND k.constraint_name = tc.constraint_name AND k.column_name = 'repo_id')",
            table,
        )
        .await;
        assert_eq!(
            constraints,
            Vec::<String>::new(),
            "{table}: keys without repo_id"
        );
        let has_key: Vec<String> = strings(
            &pool,
            "SELECT constraint_name::text FROM information_schema.table_constraints
             WHERE table_schema = current_schema() AND table_name = $1
               AND constraint_type = 'PRIMARY KEY'",
            table,
        )
        .await;
        assert!(
            has_key.len() == 1 || *table == "edges",
            "{table} has a primary key"
        );

        // Unique indexes made outside constraints too (information_schema does not
        // list them): read from the catalog.
        let unique_without: Vec<String> = strings(
            &pool,
            "SELECT i.relname::text FROM pg_index x
             JOIN pg_class i ON i.oid = x.indexrelid
             JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attname = 'repo_id'
             WHERE x.indrelid = to_regclass($1) AND x.indisunique
               AND NOT a.attnum = ANY(x.indkey::int2[])",
            table,
        )
        .await;
        assert_eq!(unique_without, Vec::<String>::new(), "{table}");

        // Foreign keys: only to reference tables, and by repo_id (or the
        // installation) so that a row never points at another repository's rows.
        let references: Vec<String> = strings(
            &pool,
            "SELECT ccu.table_name::text || '(' || ccu.column_name::text || ')'
             FROM information_schema.referential_constraints rc
             JOIN information_schema.table_constraints tc
               ON tc.constraint_name = rc.constraint_name
              AND tc.constraint_schema = rc.constraint_schema
             JOIN information_schema.constraint_column_usage ccu
               ON ccu.constraint_name = rc.unique_constraint_name
              AND ccu.constraint_schema = rc.unique_constraint_schema
             WHERE tc.table_schema = current_schema() AND tc.table_name = $1",
            table,
        )
        .await;
        for r in &references {
            assert!(
                REFERENCE.iter().any(|t| r.starts_with(&format!("{t}("))),
                "{table} refers to {r}, which is not a reference table"
            );
        }
        let by_repo: Vec<String> = strings(
            &pool,
            "SELECT kcu.column_name::text FROM information_schema.table_constraints tc
             JOIN information_schema.key_column_usage kcu
               ON kcu.constraint_name = tc.constraint_name
              AND kcu.constraint_schema = tc.constraint_schema
             WHERE tc.table_schema = current_schema() AND tc.table_name = $1
               AND tc.constraint_type = 'FOREIGN KEY'",
            table,
        )
        .await;
        assert!(
            by_repo.iter().all(|c| c == "repo_id"),
            "{table}'s foreign keys go by repo_id: {by_repo:?}"
        );
    }
}

#[sqlx::test(migrations = false)]
async fn nothing_outside_the_graph_refers_to_a_graph_table(pool: PgPool) {
    migrated(&pool).await;
    // No table outside the graph's refers to a graph table: moving those to workers
    // breaks no foreign key.
    let into_graph: Vec<String> = sqlx::query_scalar(
        "SELECT tc.table_name::text || ' -> ' || ccu.table_name::text
         FROM information_schema.table_constraints tc
         JOIN information_schema.referential_constraints rc
           ON rc.constraint_name = tc.constraint_name
          AND rc.constraint_schema = tc.constraint_schema
         JOIN information_schema.constraint_column_usage ccu
           ON ccu.constraint_name = rc.unique_constraint_name
          AND ccu.constraint_schema = rc.unique_constraint_schema
         WHERE tc.table_schema = current_schema() AND tc.constraint_type = 'FOREIGN KEY'
           AND ccu.table_name = ANY($1) AND NOT tc.table_name = ANY($1)",
    )
    .bind(BY_REPOSITORY)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(into_graph, Vec::<String>::new());
}
