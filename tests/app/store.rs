//! The Postgres store against a real database: every test gets a fresh one.

use crate::common;

use std::path::Path;

use blast_radius::graph::Graph;
use blast_radius::indexer::pipeline::SourceFile;
use blast_radius::indexer::skip::SkipRules;
use blast_radius::model::{BlobSha, CommitSha, GithubRepoId, InstallationId};
use blast_radius::store::{FileMeta, RepoId, Store, StoreError};
use blast_radius::workflow::apply_push::{apply_push, FileInput};
use blast_radius::workflow::progress::Silent;
use blast_radius::workflow::save::{index_and_save, index_in_memory};
use blast_radius::workflow::source::InMemory;
use blast_radius::workspace::walk;
use sqlx::PgPool;

struct Repo {
    files: std::collections::BTreeMap<String, String>,
}

impl Repo {
    fn from_dir(dir: &Path) -> Repo {
        let paths = walk::list(dir).unwrap();
        let files = walk::read(dir, paths).unwrap();
        Repo {
            files: files
                .into_iter()
                .map(|f| (f.path, String::from_utf8(f.bytes).unwrap()))
                .collect(),
        }
    }

    fn sources(&self) -> Vec<SourceFile> {
        self.files
            .iter()
            .map(|(p, s)| SourceFile::new(p.clone(), s.clone().into_bytes()))
            .collect()
    }

    fn build(&self) -> (Graph, FileMeta) {
        let (indexed, meta) = index_in_memory(self.sources(), &SkipRules::default());
        (indexed.graph, meta)
    }

    fn input(&self, path: &str) -> FileInput {
        FileInput::new(path, self.files[path].clone().into_bytes())
    }
}

/// A commit named for a test (leaked: tests are short).
fn sha(name: &'static str) -> &'static CommitSha {
    Box::leak(Box::new(CommitSha::from(name)))
}

async fn store(pool: PgPool) -> Store {
    let store = Store::from_pool(pool);
    store.migrate().await.unwrap();
    store
}

async fn saved(store: &Store, name: &str, repo: &Repo) -> (RepoId, Graph) {
    let revision = InMemory {
        commit: Some(sha("c1").clone()),
        files: repo.sources(),
    };
    let (indexed, saved) = index_and_save(store, name, &revision, &SkipRules::default(), &Silent)
        .await
        .unwrap();
    (saved.repo, indexed.graph)
}

fn fixture_repo() -> Repo {
    Repo::from_dir(&common::fixture("blast/classify/base"))
}

#[sqlx::test(migrations = false)]
async fn loaded_graph_equals_built_graph(pool: PgPool) {
    let store = store(pool).await;
    for case in [
        "resolve/cjs_require",
        "resolve/reexports",
        "resolve/class_methods",
        "resolve/tsconfig_paths",
        "resolve/workspace",
        "resolve/components",
        "blast/classify/base",
    ] {
        let dir = common::fixture(case);
        if !dir.exists() {
            continue;
        }
        let repo = Repo::from_dir(&dir);
        let (id, built) = saved(&store, case, &repo).await;
        let (loaded, state) = store.load_graph(id).await.unwrap();
        assert_eq!(state.version, 1);
        assert_eq!(state.commit.as_ref().map(CommitSha::as_str), Some("c1"));
        assert_eq!(loaded.edge_keys(), built.edge_keys(), "{case}");
        assert_eq!(loaded.reverse_keys(), built.reverse_keys(), "{case}");
        assert!(!built.edge_keys().is_empty(), "{case} has edges");
    }
}

#[sqlx::test(migrations = false)]
async fn sql_reverse_lookup_matches_the_graph(pool: PgPool) {
    let store = store(pool).await;
    let repo = fixture_repo();
    let (id, graph) = saved(&store, "o/classify", &repo).await;
    let f = graph.file_id("services/classify.js").unwrap();
    let blast_radius::graph::Found::One(d) = graph.find("classifyFields") else {
        panic!("classifyFields is one definition");
    };
    assert_eq!(d.file, f);
    let rows = store
        .callers_sql(id, "services/classify.js", d.def)
        .await
        .unwrap();
    let mut from_sql: Vec<(String, i32)> = rows
        .iter()
        .map(|r| (r.caller_path.clone(), r.line))
        .collect();
    from_sql.sort();
    let mut from_graph: Vec<(String, i32)> = graph
        .callers(d)
        .iter()
        .map(|c| {
            (
                graph.facts(c.file).path.clone(),
                graph.site(*c).pos().line as i32 + 1,
            )
        })
        .collect();
    from_graph.sort();
    assert_eq!(from_sql, from_graph);
    assert_eq!(from_sql.len(), 3);
    let callers: Vec<Option<String>> = rows.iter().map(|r| r.caller.clone()).collect();
    assert!(callers.contains(&Some("processVideo".to_string())));
}

/// Applies edits through the store and checks the stored graph against a full build of
/// the new files, both in memory and reloaded.
async fn apply_and_check(
    store: &Store,
    id: RepoId,
    graph: Graph,
    expected: i64,
    repo: &mut Repo,
    edits: Vec<(&str, Option<&str>)>,
) -> Graph {
    let mut changed = Vec::new();
    let mut removed = Vec::new();
    for (path, text) in edits {
        match text {
            Some(t) => {
                repo.files.insert(path.to_string(), t.to_string());
                changed.push(repo.input(path));
            }
            None => {
                repo.files.remove(path);
                removed.push(path.to_string());
            }
        }
    }
    let (graph, written) = apply_push(
        store,
        id,
        graph,
        expected,
        Some(sha("next")),
        changed,
        removed,
        &SkipRules::default(),
    )
    .await
    .unwrap();
    assert_eq!(written.version, expected + 1);
    let (rebuilt, _) = repo.build();
    assert_eq!(
        graph.edge_keys(),
        rebuilt.edge_keys(),
        "in memory after apply"
    );
    let (loaded, state) = store.load_graph(id).await.unwrap();
    assert_eq!(state.version, expected + 1);
    assert_eq!(
        loaded.edge_keys(),
        rebuilt.edge_keys(),
        "reloaded after apply"
    );
    let (files, defs, edges) = store.counts(id).await.unwrap();
    assert_eq!(files as usize, repo.files.len());
    assert_eq!(edges as usize, rebuilt.edge_keys().len());
    assert!(defs > 0);
    graph
}

#[sqlx::test(migrations = false)]
async fn incremental_changes_equal_a_full_build(pool: PgPool) {
    let store = store(pool).await;
    let mut repo = fixture_repo();
    let (id, graph) = saved(&store, "o/classify", &repo).await;

    // One file changes: classifyFields' body.
    let graph = apply_and_check(&store, id, graph, 1, &mut repo, vec![(
        "services/classify.js",
        Some("const { lookupRules } = require('./rules');\nfunction classifyFields(f) { return lookupRules(f || {}); }\nmodule.exports = { classifyFields };\n"),
    )])
    .await;

    // Removal: video.js goes.
    let graph = apply_and_check(
        &store,
        id,
        graph,
        2,
        &mut repo,
        vec![("routes/services/video.js", None)],
    )
    .await;

    // Rename: image.js moves to picture.js.
    let image = repo.files["routes/services/image.js"].clone();
    let graph = apply_and_check(
        &store,
        id,
        graph,
        3,
        &mut repo,
        vec![
            ("routes/services/image.js", None),
            ("routes/services/picture.js", Some(&image)),
        ],
    )
    .await;

    // A function moves between files: classifyFields now lives in rules.js, and
    // classify.js re-exports it. Callers elsewhere must re-resolve to the new place.
    let graph = apply_and_check(
        &store,
        id,
        graph,
        4,
        &mut repo,
        vec![
            (
                "services/rules.js",
                Some("function lookupRules(fields) { return []; }\nfunction classifyFields(f) { return lookupRules(f); }\nmodule.exports = { lookupRules, classifyFields };\n"),
            ),
            (
                "services/classify.js",
                Some("const { classifyFields } = require('./rules');\nmodule.exports = { classifyFields };\n"),
            ),
        ],
    )
    .await;
    let blast_radius::graph::Found::One(d) = graph.find("classifyFields") else {
        panic!("one classifyFields");
    };
    assert_eq!(graph.facts(d.file).path, "services/rules.js");
    let callers: Vec<String> = graph
        .callers(d)
        .iter()
        .map(|c| graph.facts(c.file).path.clone())
        .collect();
    assert!(
        callers.contains(&"routes/posts.js".to_string()),
        "{callers:?}"
    );
    assert!(
        callers.contains(&"routes/services/picture.js".to_string()),
        "{callers:?}"
    );
}

#[sqlx::test(migrations = false)]
async fn unchanged_blobs_come_from_the_facts_cache(pool: PgPool) {
    let store = store(pool).await;
    let repo = fixture_repo();
    let (id, _) = saved(&store, "o/one", &repo).await;
    let keys: Vec<(String, BlobSha)> = repo
        .files
        .iter()
        .map(|(p, s)| (p.clone(), BlobSha::of(s.as_bytes())))
        .collect();
    let cached = store.cached_facts(id, &keys).await.unwrap();
    assert_eq!(cached.len(), repo.files.len(), "every blob is cached");
    // The same blob under another path (a copy) is a hit too, with its own path.
    let other = vec![("copy/of/posts.js".to_string(), keys[0].1.clone())];
    let hit = store.cached_facts(id, &other).await.unwrap();
    assert_eq!(hit["copy/of/posts.js"].path, "copy/of/posts.js");
    // The cache is the repository's own: another repository's write cannot be read
    // through it (nor purged with it).
    let elsewhere = store.ensure_repository("o/two").await.unwrap().id;
    assert!(store
        .cached_facts(elsewhere, &keys)
        .await
        .unwrap()
        .is_empty());
}

#[sqlx::test(migrations = false)]
async fn a_replica_catches_up_from_the_rows_written_since(pool: PgPool) {
    let store = store(pool).await;
    let mut repo = fixture_repo();
    let (id, graph) = saved(&store, "o/classify", &repo).await;
    let (replica, state) = store.load_graph(id).await.unwrap();
    // The writer moves on twice.
    let graph = apply_and_check(
        &store,
        id,
        graph,
        1,
        &mut repo,
        vec![("routes/posts.js", None)],
    )
    .await;
    let _ = apply_and_check(
        &store,
        id,
        graph,
        2,
        &mut repo,
        vec![("routes/extra.js", Some("const { classifyFields } = require('../services/classify');\nexport function extra(x) { return classifyFields(x); }\n"))],
    )
    .await;
    let (replica, version) = store.catch_up(id, replica, state.version).await.unwrap();
    assert_eq!(version, 3);
    let (rebuilt, _) = repo.build();
    assert_eq!(replica.edge_keys(), rebuilt.edge_keys());
}

#[sqlx::test(migrations = false)]
async fn concurrent_writers_are_serialised(pool: PgPool) {
    let store = store(pool).await;
    let repo = fixture_repo();
    let (id, _) = saved(&store, "o/classify", &repo).await;
    let cache = blast_radius::jobs::GraphCache::new(store.clone(), 1 << 30);
    let a = FileInput {
        blob: BlobSha::of(b"a"),
        file: SourceFile::new(
            "routes/a.js",
            b"const { classifyFields } = require('../services/classify');\nexport function a(x) { return classifyFields(x); }\n".to_vec(),
        ),
    };
    let b = FileInput {
        blob: BlobSha::of(b"b"),
        file: SourceFile::new(
            "routes/b.js",
            b"const { lookupRules } = require('../services/rules');\nexport function b(x) { return lookupRules(x); }\n".to_vec(),
        ),
    };
    let rules = SkipRules::default();
    let (ra, rb) = tokio::join!(
        cache.apply_changes(id, Some(sha("ca")), vec![a.clone()], vec![], &rules),
        cache.apply_changes(id, Some(sha("cb")), vec![b.clone()], vec![], &rules),
    );
    let mut versions = vec![ra.unwrap().version, rb.unwrap().version];
    versions.sort();
    assert_eq!(versions, vec![2, 3]);
    let mut expected = fixture_repo();
    expected.files.insert(
        a.file.path.clone(),
        String::from_utf8(a.file.bytes).unwrap(),
    );
    expected.files.insert(
        b.file.path.clone(),
        String::from_utf8(b.file.bytes).unwrap(),
    );
    let (loaded, _) = store.load_graph(id).await.unwrap();
    assert_eq!(loaded.edge_keys(), expected.build().0.edge_keys());
}

#[sqlx::test(migrations = false)]
async fn a_writer_that_dies_mid_transaction_leaves_the_old_state(pool: PgPool) {
    let store = store(pool.clone()).await;
    let repo = fixture_repo();
    let (id, graph) = saved(&store, "o/classify", &repo).await;
    let before = store.load_graph(id).await.unwrap().0.edge_keys();
    // A writer takes the lock, deletes rows, then its connection dies before commit.
    let mut tx = pool.begin().await.unwrap();
    // The store's advisory lock key for the repository (its namespace | the id).
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(0x4252_0000_0000_0000_i64 | id.0)
        .execute(&mut *tx)
        .await
        .unwrap();
    sqlx::query("DELETE FROM files WHERE repo_id = $1")
        .bind(id.0)
        .execute(&mut *tx)
        .await
        .unwrap();
    let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&mut *tx)
        .await
        .unwrap();
    sqlx::query("SELECT pg_terminate_backend($1)")
        .bind(pid)
        .execute(&pool)
        .await
        .unwrap();
    assert!(
        tx.commit().await.is_err(),
        "the dead transaction cannot commit"
    );
    let (after, state) = store.load_graph(id).await.unwrap();
    assert_eq!(state.version, 1);
    assert_eq!(after.edge_keys(), before);
    // And the repository is writable again (the lock died with the connection).
    let mut repo2 = fixture_repo();
    let _ = apply_and_check(
        &store,
        id,
        graph,
        1,
        &mut repo2,
        vec![("routes/posts.js", None)],
    )
    .await;
}

#[sqlx::test(migrations = false)]
async fn a_stale_writer_is_refused(pool: PgPool) {
    let store = store(pool).await;
    let repo = fixture_repo();
    let (id, graph) = saved(&store, "o/classify", &repo).await;
    let err = apply_push(
        &store,
        id,
        graph,
        0,
        None,
        vec![],
        vec!["routes/posts.js".into()],
        &SkipRules::default(),
    )
    .await
    .err()
    .expect("version 0 is stale");
    assert!(
        matches!(
            err,
            StoreError::Stale {
                expected: 0,
                actual: 1
            }
        ),
        "{err}"
    );
    assert_eq!(store.counts(id).await.unwrap().0 as usize, repo.files.len());
}

#[sqlx::test(migrations = false)]
async fn deleting_a_repository_or_installation_removes_its_rows(pool: PgPool) {
    let store = store(pool.clone()).await;
    let repo = fixture_repo();
    let (a, _) = saved(&store, "o/a", &repo).await;
    let (b, _) = saved(&store, "o/b", &repo).await;
    store
        .upsert_installation(InstallationId(42), "o")
        .await
        .unwrap();
    sqlx::query("UPDATE repositories SET installation_id = 42 WHERE id = $1")
        .bind(b.0)
        .execute(&pool)
        .await
        .unwrap();
    assert!(store.delete_repository(a).await.unwrap());
    assert_eq!(store.counts(a).await.unwrap(), (0, 0, 0));
    assert_ne!(store.counts(b).await.unwrap().2, 0);
    assert!(store.delete_installation(InstallationId(42)).await.unwrap());
    assert_eq!(store.counts(b).await.unwrap(), (0, 0, 0));
    let left: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM repositories) + (SELECT count(*) FROM files)
              + (SELECT count(*) FROM edges) + (SELECT count(*) FROM definitions)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(left, 0);
    // Their facts went with them.
    let cached: i64 = sqlx::query_scalar("SELECT count(*) FROM facts_cache")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(cached, 0);
}

/// Relations of the schema: tables, indexes, TOAST tables and their indexes.
async fn relations(pool: &PgPool) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_class c
         WHERE c.relnamespace = current_schema()::regnamespace
            OR c.oid IN (SELECT reltoastrelid FROM pg_class
                         WHERE relnamespace = current_schema()::regnamespace)
            OR c.oid IN (SELECT i.indexrelid FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
                         WHERE t.relnamespace = 'pg_toast'::regnamespace
                           AND t.oid IN (SELECT reltoastrelid FROM pg_class
                                         WHERE relnamespace = current_schema()::regnamespace))",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrations = false)]
async fn repositories_add_rows_not_relations(pool: PgPool) {
    let store = store(pool.clone()).await;
    let before = relations(&pool).await;
    let repo = fixture_repo();
    let mut ids = Vec::new();
    for name in ["o/a", "o/b", "o/c"] {
        let (id, graph) = saved(&store, name, &repo).await;
        let (files, _, edges) = store.counts(id).await.unwrap();
        assert_eq!(files as usize, repo.files.len());
        assert_eq!(edges as usize, graph.edge_keys().len());
        ids.push(id);
    }
    assert_eq!(relations(&pool).await, before);
    store.delete_repository(ids[1]).await.unwrap();
    assert_eq!(relations(&pool).await, before);
    assert_ne!(store.counts(ids[0]).await.unwrap().2, 0);
}

#[sqlx::test(migrations = false)]
async fn the_facts_cache_keeps_only_what_stored_files_hold(pool: PgPool) {
    let store = store(pool.clone()).await;
    let mut repo = fixture_repo();
    let (id, graph) = saved(&store, "o/classify", &repo).await;
    let cached = |pool: PgPool| async move {
        let blobs: Vec<String> =
            sqlx::query_scalar("SELECT blob_sha FROM facts_cache WHERE repo_id = $1 ORDER BY 1")
                .bind(id.0)
                .fetch_all(&pool)
                .await
                .unwrap();
        blobs
    };
    let held = |repo: &Repo| {
        let mut blobs: Vec<String> = repo
            .files
            .iter()
            .filter(|(p, _)| blast_radius::indexer::Language::from_path(p).is_some())
            .map(|(_, t)| BlobSha::of(t.as_bytes()).0)
            .collect();
        blobs.sort();
        blobs.dedup();
        blobs
    };
    assert_eq!(cached(pool.clone()).await, held(&repo));
    // A push that edits one file and removes another: their old facts go.
    let paths: Vec<String> = repo.files.keys().take(2).cloned().collect();
    let edited = format!(
        "{}\nexport function addedByThePush() {{}}\n",
        repo.files[&paths[0]]
    );
    apply_and_check(
        &store,
        id,
        graph,
        1,
        &mut repo,
        vec![
            (paths[0].as_str(), Some(edited.as_str())),
            (paths[1].as_str(), None),
        ],
    )
    .await;
    assert_eq!(cached(pool.clone()).await, held(&repo));
    // Facts of an older parser no file holds go with the next full write.
    sqlx::query(
        "INSERT INTO facts_cache (repo_id, blob_sha, variant, parser_version, facts)
         SELECT repo_id, blob_sha, variant, parser_version - 1, facts FROM facts_cache
         WHERE repo_id = $1",
    )
    .bind(id.0)
    .execute(&pool)
    .await
    .unwrap();
    let (full, meta) = repo.build();
    store
        .save_full(id, Some(sha("c3")), &full, &meta)
        .await
        .unwrap();
    assert_eq!(cached(pool.clone()).await, held(&repo));
}

#[sqlx::test(migrations = false)]
async fn a_first_write_does_not_wait_for_readers_of_other_repositories(pool: PgPool) {
    let store = store(pool.clone()).await;
    let repo = fixture_repo();
    let (a, _) = saved(&store, "o/a", &repo).await;
    // A reader of repository a, in the middle of a transaction: it holds a lock on
    // every parent table it read until it ends.
    let mut reader = pool.begin().await.unwrap();
    sqlx::query(
        "SELECT (SELECT count(*) FROM files WHERE repo_id = $1)
              + (SELECT count(*) FROM definitions WHERE repo_id = $1)
              + (SELECT count(*) FROM edges WHERE repo_id = $1)",
    )
    .bind(a.0)
    .execute(&mut *reader)
    .await
    .unwrap();
    // Rows of other repositories are all it shares with them: a write that took a
    // table lock would wait for the reader forever.
    let b = store.ensure_repository("o/b").await.unwrap().id;
    let (graph, meta) = repo.build();
    tokio::time::timeout(
        std::time::Duration::from_secs(60),
        store.save_full(b, Some(sha("c1")), &graph, &meta),
    )
    .await
    .expect("the write of b does not wait for the reader of a")
    .unwrap();
    // And a push to b does not either.
    let mut repo_b = fixture_repo();
    tokio::time::timeout(
        std::time::Duration::from_secs(60),
        apply_and_check(
            &store,
            b,
            graph,
            1,
            &mut repo_b,
            vec![("routes/posts.js", None)],
        ),
    )
    .await
    .expect("the push to b does not wait for the reader of a");
    // Nor does a purge of b.
    tokio::time::timeout(
        std::time::Duration::from_secs(60),
        store.delete_repository(b),
    )
    .await
    .expect("the purge of b does not wait for the reader of a")
    .unwrap();
    reader.commit().await.unwrap();
}

#[sqlx::test(migrations = false)]
async fn a_repository_first_written_by_a_push(pool: PgPool) {
    let store = store(pool.clone()).await;
    let id = store.ensure_repository("o/new").await.unwrap().id;
    let mut repo = Repo {
        files: Default::default(),
    };
    let all = fixture_repo();
    let edits: Vec<(&str, Option<&str>)> = all
        .files
        .iter()
        .map(|(p, t)| (p.as_str(), Some(t.as_str())))
        .collect();
    let empty = Graph::build(Vec::new(), Vec::new());
    let graph = apply_and_check(&store, id, empty, 0, &mut repo, edits).await;
    assert!(!graph.edge_keys().is_empty());
    let (files, _, edges) = store.counts(id).await.unwrap();
    assert_eq!(files as usize, all.files.len());
    assert_eq!(edges as usize, graph.edge_keys().len());
}

#[tokio::test]
async fn an_unreachable_database_is_a_clear_error_without_the_password() {
    let err = Store::connect("postgres://alice:s3cret@127.0.0.1:1/graphs")
        .await
        .err()
        .expect("nothing listens on port 1");
    let msg = err.to_string();
    assert!(msg.contains("127.0.0.1:1/graphs"), "{msg}");
    assert!(!msg.contains("s3cret"), "{msg}");
    let err = Store::connect("not a url").await.err().unwrap();
    assert!(matches!(err, StoreError::BadUrl));
}

#[sqlx::test(migrations = false)]
async fn the_cache_serves_a_stale_graph_while_it_catches_up(pool: PgPool) {
    use blast_radius::jobs::GraphCache;
    let store = store(pool).await;
    let mut repo = fixture_repo();
    let (id, graph) = saved(&store, "o/classify", &repo).await;
    let cache = GraphCache::new(store.clone(), 1 << 30);
    let first = cache.get(id).await.unwrap();
    assert_eq!(first.version, 1);
    // Another process writes version 2.
    let _ = apply_and_check(
        &store,
        id,
        graph,
        1,
        &mut repo,
        vec![("routes/posts.js", None)],
    )
    .await;
    // The held graph answers at once (stale), and a background task catches it up.
    let stale = cache.get(id).await.unwrap();
    assert_eq!(stale.version, 1);
    let mut fresh = stale;
    for _ in 0..200 {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        fresh = cache.get(id).await.unwrap();
        if fresh.version == 2 {
            break;
        }
    }
    assert_eq!(fresh.version, 2, "caught up in the background");
    assert_eq!(fresh.graph.edge_keys(), repo.build().0.edge_keys());
}

#[sqlx::test(migrations = false)]
async fn the_cache_keeps_graphs_under_its_memory_budget(pool: PgPool) {
    use blast_radius::jobs::GraphCache;
    let store = store(pool).await;
    let repo = fixture_repo();
    let (a, _) = saved(&store, "o/a", &repo).await;
    let (b, _) = saved(&store, "o/b", &repo).await;
    let (c, _) = saved(&store, "o/c", &repo).await;
    let one = GraphCache::new(store.clone(), 1 << 30)
        .get(a)
        .await
        .unwrap()
        .bytes;
    assert!(one > 0);
    // Room for two graphs: the least recently used one goes.
    let cache = GraphCache::new(store.clone(), one * 2 + one / 2);
    cache.get(a).await.unwrap();
    cache.get(b).await.unwrap();
    cache.get(a).await.unwrap(); // a is now the most recent
    cache.get(c).await.unwrap();
    assert!(cache.contains(a) && cache.contains(c));
    assert!(
        !cache.contains(b),
        "the least recently used graph was evicted"
    );
    assert!(cache.held_bytes() <= one * 2 + one / 2);
    // An evicted graph loads again on use.
    assert_eq!(cache.get(b).await.unwrap().version, 1);
}

#[sqlx::test(migrations = false)]
async fn a_write_through_the_cache_leaves_readers_their_graph(pool: PgPool) {
    use blast_radius::jobs::GraphCache;
    let store = store(pool).await;
    let repo = fixture_repo();
    let (id, _) = saved(&store, "o/classify", &repo).await;
    let cache = GraphCache::new(store.clone(), 1 << 30);
    let reader = cache.get(id).await.unwrap();
    let before = reader.graph.edge_keys();
    let rules = SkipRules::default();
    // With a reader holding version 1, the write works on a copy.
    let written = cache
        .apply_changes(
            id,
            Some(sha("c2")),
            vec![],
            vec!["routes/posts.js".into()],
            &rules,
        )
        .await
        .unwrap();
    assert_eq!(written.version, 2);
    assert_eq!(reader.version, 1);
    assert_eq!(
        reader.graph.edge_keys(),
        before,
        "the reader's graph is untouched"
    );
    drop(reader);
    // With no reader, the graph is taken out of the cache and comes back updated.
    let written = cache
        .apply_changes(
            id,
            Some(sha("c3")),
            vec![],
            vec!["routes/services/video.js".into()],
            &rules,
        )
        .await
        .unwrap();
    assert_eq!(written.version, 3);
    let now = cache.get(id).await.unwrap();
    assert_eq!(now.version, 3);
    let mut expected = fixture_repo();
    expected.files.remove("routes/posts.js");
    expected.files.remove("routes/services/video.js");
    assert_eq!(now.graph.edge_keys(), expected.build().0.edge_keys());
}

/// On real code (a slice of the corpus `.ci/run` builds): the graph loaded from the
/// database equals the graph built from source, and stays equal through a push.
#[sqlx::test(migrations = false)]
#[ignore = "needs BLAST_CORPUS; run by .ci/run"]
async fn a_corpus_slice_loads_as_built_and_takes_a_push(pool: PgPool) {
    let store = store(pool).await;
    let dir = std::env::var("BLAST_CORPUS").expect("BLAST_CORPUS=DIR (see tests/engine/corpus.rs)");
    let dir = Path::new(&dir);
    let mut files = walk::read(dir, walk::list(dir).unwrap()).unwrap();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut repo = Repo {
        files: files
            .into_iter()
            .filter_map(|f| Some((f.path, String::from_utf8(f.bytes).ok()?)))
            .take(3000)
            .collect(),
    };
    let (id, built) = saved(&store, "corpus/slice", &repo).await;
    let (loaded, _) = store.load_graph(id).await.unwrap();
    assert!(built.edge_keys().len() > 1000, "a slice with real edges");
    assert_eq!(loaded.edge_keys(), built.edge_keys());
    assert_eq!(loaded.reverse_keys(), built.reverse_keys());

    // A push: five files gain a function and a call, one file goes.
    let code: Vec<String> = repo
        .files
        .keys()
        .filter(|p| blast_radius::indexer::Language::from_path(p).is_some())
        .cloned()
        .collect();
    let stride = code.len() / 6;
    let mut edited = Vec::new();
    for (i, path) in code.iter().step_by(stride).take(5).enumerate() {
        let text = format!(
            "{}\nexport function sliceEdit{i}() {{ return sliceEdit{i}(); }}\n",
            repo.files[path]
        );
        edited.push((path.clone(), text));
    }
    let mut edits: Vec<(&str, Option<&str>)> = edited
        .iter()
        .map(|(p, t)| (p.as_str(), Some(t.as_str())))
        .collect();
    edits.push((code[code.len() - 1].as_str(), None));
    let _ = apply_and_check(&store, id, built, 1, &mut repo, edits).await;
}

#[sqlx::test(migrations = false)]
async fn first_writes_of_two_repositories_at_once_both_land(pool: PgPool) {
    let store = store(pool).await;
    let repo = fixture_repo();
    let (graph, meta) = repo.build();
    let a = store.ensure_repository("o/a").await.unwrap().id;
    let b = store.ensure_repository("o/b").await.unwrap().id;
    // Both copy into the same tables, each its own rows: neither waits for the other.
    let (wa, wb) = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        tokio::join!(
            store.save_full(a, Some(sha("c1")), &graph, &meta),
            store.save_full(b, Some(sha("c1")), &graph, &meta)
        )
    })
    .await
    .expect("no deadlock");
    wa.unwrap();
    wb.unwrap();
    for id in [a, b] {
        let (loaded, _) = store.load_graph(id).await.unwrap();
        assert_eq!(loaded.edge_keys(), graph.edge_keys());
    }
}

#[sqlx::test(migrations = false)]
async fn more_first_writes_than_the_pool_can_serve_at_once_all_land(pool: PgPool) {
    // A write uses two connections at once (its transaction, the facts cache's). With
    // as many writers as connections, each holding its transaction, none could get
    // the other: the store admits writers so that each admitted one can finish.
    let small = sqlx::postgres::PgPoolOptions::new()
        .max_connections(5)
        .acquire_timeout(std::time::Duration::from_secs(20))
        .connect_with((*pool.connect_options()).clone())
        .await
        .unwrap();
    let store = store(small).await;
    let repo = fixture_repo();
    let (graph, meta) = repo.build();
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(
            store
                .ensure_repository(&format!("o/r{i}"))
                .await
                .unwrap()
                .id,
        );
    }
    let save = |id| store.save_full(id, Some(sha("c1")), &graph, &meta);
    let written = tokio::join!(
        save(ids[0]),
        save(ids[1]),
        save(ids[2]),
        save(ids[3]),
        save(ids[4])
    );
    for w in [written.0, written.1, written.2, written.3, written.4] {
        w.unwrap();
    }
    for id in ids {
        let (loaded, _) = store.load_graph(id).await.unwrap();
        assert_eq!(loaded.edge_keys(), graph.edge_keys());
    }
}

/// Each stored file's status and skip reason, by path.
async fn file_rows(pool: &PgPool, id: RepoId) -> Vec<(String, String, Option<String>)> {
    sqlx::query_as("SELECT path, status, skip_reason FROM files WHERE repo_id = $1 ORDER BY path")
        .bind(id.0)
        .fetch_all(pool)
        .await
        .unwrap()
}

#[sqlx::test(migrations = false)]
async fn a_pushed_config_that_is_not_utf8_is_skipped_as_a_full_index_skips_it(pool: PgPool) {
    let store = store(pool.clone()).await;
    let repo = fixture_repo();
    let (id, graph) = saved(&store, "o/pushed", &repo).await;
    // A package.json with a byte that is not UTF-8: a full index skips it.
    let bad = b"{ \"name\": \"classify\xff\", \"main\": \"services/classify.js\" }\n".to_vec();
    let (graph, _) = apply_push(
        &store,
        id,
        graph,
        1,
        Some(sha("c2")),
        vec![FileInput::new("package.json", bad.clone())],
        vec![],
        &SkipRules::default(),
    )
    .await
    .unwrap();
    // The same files indexed in full.
    let mut files = repo.sources();
    files.push(SourceFile::new("package.json", bad));
    let full = InMemory {
        commit: Some(sha("c2").clone()),
        files,
    };
    let (indexed, saved) = index_and_save(&store, "o/full", &full, &SkipRules::default(), &Silent)
        .await
        .unwrap();
    assert_eq!(
        indexed.skipped,
        vec![(
            "package.json".to_string(),
            blast_radius::indexer::skip::SkipReason::NotUtf8
        )]
    );
    let configs = |g: &Graph| -> Vec<(String, String)> {
        g.configs()
            .map(|(p, c)| (p.to_string(), c.to_string()))
            .collect()
    };
    assert_eq!(configs(&graph), configs(&indexed.graph));
    assert_eq!(graph.edge_keys(), indexed.graph.edge_keys());
    assert_eq!(
        file_rows(&pool, id).await,
        file_rows(&pool, saved.repo).await
    );
    let (loaded, _) = store.load_graph(id).await.unwrap();
    assert_eq!(configs(&loaded), configs(&indexed.graph));
}

#[sqlx::test(migrations = false)]
async fn a_full_write_in_chunks_stores_what_one_write_stores(pool: PgPool) {
    let whole = store(pool.clone()).await;
    let chunked = Store::from_pool(pool.clone()).with_write_chunk(2);
    let mut repo = fixture_repo();
    // The same contents at two paths far apart, so in different chunks: one cache entry.
    let (first, text) = repo
        .files
        .iter()
        .next()
        .map(|(p, s)| (p.clone(), s.clone()))
        .unwrap();
    repo.files.insert(format!("zz/{first}"), text);
    repo.files
        .insert("package.json".into(), r#"{ "name": "c" }"#.into());
    let (a, built) = saved(&whole, "o/whole", &repo).await;
    let (b, _) = saved(&chunked, "o/chunked", &repo).await;
    assert!(built.file_ids().count() > 4, "several chunks");

    assert_eq!(file_rows(&pool, b).await, file_rows(&pool, a).await);
    let count = |table: &'static str, id: RepoId| {
        let pool = pool.clone();
        async move {
            let n: i64 =
                sqlx::query_scalar(&format!("SELECT count(*) FROM {table} WHERE repo_id = $1"))
                    .bind(id.0)
                    .fetch_one(&pool)
                    .await
                    .unwrap();
            n
        }
    };
    for table in ["files", "definitions", "edges", "facts_cache"] {
        assert_eq!(count(table, b).await, count(table, a).await, "{table}");
    }
    let statuses: Vec<String> = file_rows(&pool, b).await.into_iter().map(|r| r.1).collect();
    let indexed = statuses.iter().filter(|s| *s == "indexed").count();
    assert!(statuses.iter().any(|s| s == "config"), "{statuses:?}");
    assert_eq!(
        count("facts_cache", b).await as usize,
        indexed - 1,
        "one entry per distinct parsed blob"
    );
    let (loaded, _) = chunked.load_graph(b).await.unwrap();
    assert_eq!(loaded.edge_keys(), built.edge_keys());
    assert_eq!(loaded.reverse_keys(), built.reverse_keys());
}

/// The installation's repositories of `fixtures/org`, saved and recorded as GitHub's:
/// (library, service, private app).
async fn org_saved(store: &Store, installation: i64) -> [(RepoId, Graph); 3] {
    store
        .upsert_installation(InstallationId(installation), "acme")
        .await
        .unwrap();
    let mut out = Vec::new();
    for (i, (dir, private)) in [
        ("library", false),
        ("service", false),
        ("private-app", true),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("acme{installation}/{dir}");
        let repo = Repo::from_dir(&common::fixture(&format!("org/{dir}")));
        let (id, graph) = saved(store, &name, &repo).await;
        let github_id = GithubRepoId(installation * 100 + i as i64);
        let state = store
            .upsert_github_repository(
                InstallationId(installation),
                github_id,
                &name,
                "main",
                private,
            )
            .await
            .unwrap();
        assert_eq!(state.id, id, "the saved row becomes GitHub's");
        out.push((id, graph));
    }
    let [a, b, c]: [(RepoId, Graph); 3] = out.try_into().ok().expect("three repositories");
    [a, b, c]
}

#[sqlx::test(migrations = false)]
async fn calls_into_a_package_come_from_the_installations_other_repositories(pool: PgPool) {
    let store = store(pool.clone()).await;
    let [(library, owner), (service, _), (private, _)] = org_saved(&store, 7).await;
    // Another installation's service calls the same package: never read from here.
    let [_, (elsewhere, _), _] = org_saved(&store, 8).await;
    let packages = blast_radius::org::owned_packages(&owner);
    let calls = store
        .calls_into(Some(InstallationId(7)), library, &packages, 1_000)
        .await
        .unwrap();
    // Bounded: the first ones in key order (the first repository's, here the service's),
    // handed out by name and place like the rest.
    let first = store
        .calls_into(Some(InstallationId(7)), library, &packages, 2)
        .await
        .unwrap();
    assert!(service < private);
    assert_eq!(first.len(), 2);
    assert!(
        first.iter().all(|c| c.repo == service && calls.contains(c)),
        "{first:#?}"
    );
    assert!(first[0].path <= first[1].path);
    let by_repo = |id: RepoId| calls.iter().filter(|c| c.repo == id).count();
    assert_eq!(by_repo(service), 6, "{calls:#?}");
    assert_eq!(by_repo(private), 1);
    assert_eq!(by_repo(elsewhere), 0);
    assert_eq!(
        by_repo(library),
        0,
        "a repository's own calls are its graph's"
    );
    let private_call = calls.iter().find(|c| c.repo == private).unwrap();
    assert!(private_call.private);
    assert_eq!(private_call.path, "index.js");
    assert_eq!(
        private_call.commit.as_ref().map(CommitSha::as_str),
        Some("c1")
    );
    assert_eq!(private_call.call.range.as_deref(), Some("^3.0.0"));

    // Linked to the owner's graph: formatPrice's callers elsewhere.
    let file = owner.file_id("packages/money/src/format.ts").unwrap();
    let facts = owner.facts(file);
    let format = (0..facts.defs.len() as u32)
        .find(|&d| facts.def_qualified(d) == "formatPrice")
        .map(|def| blast_radius::graph::DefId { file, def })
        .unwrap();
    let refs: Vec<_> = calls.iter().map(|c| &c.call).collect();
    let reached = blast_radius::org::link(&owner, &refs, &[format]);
    let mut sites: Vec<(&str, &str, u32)> = reached
        .iter()
        .map(|r| {
            let c = &calls[r.call];
            (c.full_name.as_str(), c.path.as_str(), c.call.line)
        })
        .collect();
    sites.sort();
    assert_eq!(
        sites,
        vec![
            ("acme7/private-app", "index.js", 4),
            ("acme7/service", "src/checkout.ts", 7),
            ("acme7/service", "src/receipt.ts", 10),
        ]
    );

    // A push to the service that removes a call: its rows follow.
    let mut repo = Repo::from_dir(&common::fixture("org/service"));
    repo.files.insert(
        "src/checkout.ts".into(),
        "export function total(cents: number): string {\n  return String(cents);\n}\n".into(),
    );
    let (graph, meta) = repo.build();
    store
        .save_full(service, Some(sha("c2")), &graph, &meta)
        .await
        .unwrap();
    let calls = store
        .calls_into(Some(InstallationId(7)), library, &packages, 1_000)
        .await
        .unwrap();
    assert_eq!(calls.iter().filter(|c| c.repo == service).count(), 5);

    // A repository made private is marked so; one removed is gone from the answers.
    store.set_repository_private(service, true).await.unwrap();
    assert!(store
        .calls_into(Some(InstallationId(7)), library, &packages, 1_000)
        .await
        .unwrap()
        .iter()
        .filter(|c| c.repo == service)
        .all(|c| c.private));
    assert!(store.delete_repository(private).await.unwrap());
    let calls = store
        .calls_into(Some(InstallationId(7)), library, &packages, 1_000)
        .await
        .unwrap();
    assert_eq!(calls.iter().filter(|c| c.repo == private).count(), 0);
}

/// Files of a chain `f0 <- f1 <- ... <- f{n-1}`, each calling the one before it.
fn chain(n: usize) -> Vec<SourceFile> {
    let mut files = vec![SourceFile::new(
        "package.json",
        br#"{ "name": "chain" }"#.to_vec(),
    )];
    for i in 0..n {
        let text = if i == 0 {
            "function f0() { return 0; }\nmodule.exports = { f0 };\n".to_string()
        } else {
            let p = i - 1;
            format!(
                "const {{ f{p} }} = require('./f{p}');\nfunction f{i}() {{ return f{p}(); }}\nmodule.exports = {{ f{i} }};\n"
            )
        };
        files.push(SourceFile::new(format!("m/f{i}.js"), text.into_bytes()));
    }
    files
}

/// Streams `files` in the order given, as an archive's reader does, and stores them.
async fn streamed(
    store: &Store,
    name: &str,
    files: Vec<SourceFile>,
) -> (
    blast_radius::workflow::index::Indexed,
    blast_radius::workflow::save::Saved,
) {
    use blast_radius::workflow::save::{extract_stream, resolve_and_save};
    use blast_radius::workflow::source::FileEntry;
    let repo = store.ensure_repository(name).await.unwrap();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let sender = tokio::spawn(async move {
        for f in files {
            let entry = FileEntry {
                blob: Some(BlobSha::of(&f.bytes)),
                path: f.path,
            };
            let bytes = if f.skip.is_some() {
                Vec::new()
            } else {
                f.bytes
            };
            tx.send((entry, bytes, f.skip)).unwrap();
            // Arrivals spread out, as over a network.
            tokio::task::yield_now().await;
        }
    });
    let extracted = extract_stream(store, repo.id, rx, SkipRules::default())
        .await
        .unwrap();
    sender.await.unwrap();
    resolve_and_save(store, repo.id, Some(sha("c1").clone()), extracted)
        .await
        .unwrap()
}

#[sqlx::test(migrations = false)]
async fn a_streamed_index_stores_what_a_full_index_stores_and_parses_only_new_blobs(pool: PgPool) {
    let store = store(pool.clone()).await;
    // More files than two of the stream's batches, in no particular order, one dropped
    // while it was read.
    let mut files = chain(1_300);
    files.reverse();
    files.rotate_left(400);
    let mut dropped = SourceFile::new("m/app.min.js", b"x".to_vec());
    dropped.skip = Some(blast_radius::indexer::skip::SkipReason::Minified);
    files.push(dropped);

    let revision = InMemory {
        commit: Some(sha("c1").clone()),
        files: files.clone(),
    };
    let (whole, whole_saved) =
        index_and_save(&store, "o/whole", &revision, &SkipRules::default(), &Silent)
            .await
            .unwrap();
    let (indexed, saved) = streamed(&store, "o/streamed", files.clone()).await;
    assert_eq!(indexed.graph.edge_keys(), whole.graph.edge_keys());
    assert_eq!(indexed.graph.edge_keys().len(), 1_299);
    assert_eq!(indexed.skipped, whole.skipped);
    assert_eq!(
        file_rows(&pool, saved.repo).await,
        file_rows(&pool, whole_saved.repo).await
    );
    assert_eq!(
        sqlx::query_as::<_, (String, String)>(
            "SELECT path, blob_sha FROM files WHERE repo_id = $1 EXCEPT \
             SELECT path, blob_sha FROM files WHERE repo_id = $2"
        )
        .bind(saved.repo.0)
        .bind(whole_saved.repo.0)
        .fetch_all(&pool)
        .await
        .unwrap(),
        vec![],
        "the same blobs stored"
    );
    assert_eq!((saved.parsed, saved.cached), (1_302, 0));
    // Streamed again: every code blob comes from the repository's facts cache; only the
    // config and the dropped file (whose skip is decided again) are looked at.
    let (again, saved) = streamed(&store, "o/streamed", files).await;
    assert_eq!((saved.parsed, saved.cached), (2, 1_300));
    assert_eq!(again.graph.edge_keys(), whole.graph.edge_keys());
    let (loaded, _) = store.load_graph(saved.repo).await.unwrap();
    assert_eq!(loaded.edge_keys(), whole.graph.edge_keys());
}

/// Repositories stored before migration 0010 have a graph but no calls into packages:
/// `record_missing_calls` (run by `migrate` and at `serve`'s start) writes them from the
/// stored graph, as a full write would have, once.
#[sqlx::test(migrations = false)]
async fn calls_of_repositories_stored_before_they_were_kept_are_recorded_from_their_graphs(
    pool: PgPool,
) {
    let store = store(pool.clone()).await;
    let [_, (service, _), (private, _)] = org_saved(&store, 7).await;
    let groups = |id: RepoId| {
        let pool = pool.clone();
        async move {
            sqlx::query_as::<_, (i32, String, i32, Vec<u8>)>(
                "SELECT file_id, package, sites, calls FROM external_call_groups
                 WHERE repo_id = $1 ORDER BY 1, 2",
            )
            .bind(id.0)
            .fetch_all(&pool)
            .await
            .unwrap()
        }
    };
    let recorded = || {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar::<_, bool>("SELECT calls_recorded FROM repositories ORDER BY id")
                .fetch_all(&pool)
                .await
                .unwrap()
        }
    };
    assert!(
        recorded().await.iter().all(|&r| r),
        "full writes record them"
    );
    let before = (groups(service).await, groups(private).await);
    assert!(!before.0.is_empty() && !before.1.is_empty());
    // As repositories stored before 0010 are: no rows, not recorded.
    for id in [service, private] {
        sqlx::query("DELETE FROM external_call_groups WHERE repo_id = $1")
            .bind(id.0)
            .execute(&pool)
            .await
            .unwrap();
        sqlx::query("UPDATE repositories SET calls_recorded = false WHERE id = $1")
            .bind(id.0)
            .execute(&pool)
            .await
            .unwrap();
    }
    assert!(groups(service).await.is_empty());
    assert_eq!(store.record_missing_calls().await.unwrap(), 2);
    assert_eq!((groups(service).await, groups(private).await), before);
    assert!(recorded().await.iter().all(|&r| r));
    assert_eq!(store.record_missing_calls().await.unwrap(), 0, "once");
}

/// 8 KB and more of ordinary code, so a NUL after it is not taken for a binary file.
fn ordinary_code(prefix: &str) -> String {
    let code: String = (0..120)
        .map(|i| {
            format!(
                "export function {prefix}{i}(x) {{ return {prefix}Twice{i}(x) + {i}; }}\n\
                 function {prefix}Twice{i}(y) {{ return y * 2; }}\n"
            )
        })
        .collect();
    assert!(code.len() > 8 * 1024);
    code
}

#[sqlx::test(migrations = false)]
async fn names_holding_nul_are_stored_and_read_back(pool: PgPool) {
    let store = store(pool.clone()).await;
    // A path that was not UTF-8 arrives decoded lossily; a NUL in a name arrives as is
    // (a real NUL byte in a string literal), or as an escape the extractor keeps.
    let odd_path = String::from_utf8_lossy(b"src/odd\xff.js").into_owned();
    let mut repo = Repo {
        files: Default::default(),
    };
    repo.files.insert(
        odd_path.clone(),
        format!(
            "{}export class K {{\n  \"a\0b\"() {{ return f1(1); }}\n  \"c\\0d\"() {{ return 2; }}\n  \
             run() {{ return this[\"a\0b\"]() + this[\"c\\0d\"](); }}\n}}\n",
            ordinary_code("f")
        ),
    );
    repo.files.insert(
        "src/user.js".to_string(),
        format!(
            "{}import {{ f2, K }} from \"./odd\u{FFFD}.js\";\n\
             export function user() {{ return f2(3) + new K().run(); }}\n",
            ordinary_code("u")
        ),
    );
    repo.files
        .insert("src/binary.js".to_string(), "var a = 1;\0\n".to_string());
    let (id, built) = saved(&store, "o/odd", &repo).await;
    let (loaded, _) = store.load_graph(id).await.unwrap();
    assert_eq!(loaded.edge_keys(), built.edge_keys());
    assert_eq!(loaded.reverse_keys(), built.reverse_keys());
    // The graph keeps the names as parsed; the definitions' rows hold them by the rule.
    let blast_radius::graph::Found::One(d) = loaded.find("K.a\0b") else {
        panic!("the method named with a NUL is found by its name");
    };
    let odd = loaded.file_id(&odd_path).unwrap();
    assert_eq!(
        loaded.callers_of(d).len(),
        1,
        "run calls it, across the 8 KB"
    );
    let names: Vec<String> = sqlx::query_scalar(
        "SELECT qualified_name FROM definitions WHERE repo_id = $1 AND (name LIKE 'c%d' OR name LIKE 'a%b') ORDER BY 1",
    )
    .bind(id.0)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(names, ["K.a\u{FFFD}b", "K.c\\0d"]);
    let callers = store.callers_sql(id, &odd_path, d.def).await.unwrap();
    assert_eq!(callers.len(), 1, "{callers:?}");
    assert_eq!(d.file, odd);
    // A package.json may name a package with a NUL (imports never can): asking who
    // else calls or owns it is no error.
    let named = ["pk\0g".to_string()];
    let calls = store.calls_into(None, RepoId(0), &named, 10).await.unwrap();
    assert!(calls.is_empty(), "{calls:?}");
    let owners = store.packages_owned_elsewhere(None, RepoId(0), &named);
    assert_eq!(owners.await.unwrap(), Vec::<String>::new());
    let (files, _, edges) = store.counts(id).await.unwrap();
    assert_eq!(files, 3, "the binary file is stored as skipped");
    assert_eq!(edges as usize, built.edge_keys().len());
    // Later pushes of the file write too, and the graph stays the full build's.
    apply_and_check(
        &store,
        id,
        loaded,
        1,
        &mut repo,
        vec![(
            odd_path.as_str(),
            Some(&format!(
                "{}export class K {{\n  \"a\0b\"() {{ return f3(1); }}\n  run() {{ return this[\"a\0b\"](); }}\n}}\n",
                ordinary_code("f")
            )),
        )],
    )
    .await;
}

/// A full index's extraction runs on blocking threads, off the job's task: the job's
/// stop token goes with it, so a deadline stops it (it used to run on to the end), and
/// a retry's token leaves out the files an earlier attempt stalled on.
#[sqlx::test(migrations = false)]
async fn a_streamed_index_stops_with_its_job_and_leaves_out_what_it_stalled_on(pool: PgPool) {
    use blast_radius::cancel::Cancel;
    use blast_radius::workflow::save::extract_stream;
    use blast_radius::workflow::source::FileEntry;
    let store = store(pool.clone()).await;
    let repo = store.ensure_repository("o/stopped").await.unwrap();
    let stream = || {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        for path in ["src/a.ts", "src/b.ts"] {
            let bytes = format!("export function {}() {{ return 1; }}\n", &path[4..5]);
            let entry = FileEntry {
                blob: Some(BlobSha::of(bytes.as_bytes())),
                path: path.into(),
            };
            tx.send((entry, bytes.into_bytes(), None)).unwrap();
        }
        rx
    };
    let token = Cancel::new();
    token.cancel();
    let stopped = blast_radius::workflow::cancellable(
        token,
        extract_stream(&store, repo.id, stream(), SkipRules::default()),
    )
    .await;
    assert!(stopped.is_err(), "the extraction stopped");

    let retry = Cancel::leaving_out(vec!["src/a.ts".into()]);
    let extracted = blast_radius::workflow::cancellable(
        retry,
        extract_stream(&store, repo.id, stream(), SkipRules::default()),
    )
    .await
    .unwrap();
    let (indexed, _) = blast_radius::workflow::save::resolve_and_save(
        &store,
        repo.id,
        Some(sha("c1").clone()),
        extracted,
    )
    .await
    .unwrap();
    assert_eq!(
        indexed.skipped,
        vec![(
            "src/a.ts".to_string(),
            blast_radius::indexer::skip::SkipReason::TimedOut
        )]
    );
    let rows = file_rows(&pool, repo.id).await;
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0].0, "src/a.ts");
    assert_eq!(rows[0].2.as_deref(), Some("timed_out"));
    assert_eq!(rows[1].2, None);
}
