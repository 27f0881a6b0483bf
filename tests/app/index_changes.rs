//! `index --database-url` of a tree the database holds a graph of: only what changed is
//! indexed and written, and the stored graph is the one a full index would store.

use crate::common;

use blast_radius::indexer::pipeline::SourceFile;
use blast_radius::indexer::skip::SkipRules;
use blast_radius::store::Store;
use blast_radius::workflow::callers_read::{callers_in_place, ReadInPlace};
use blast_radius::workflow::index_changes::Changed;
use blast_radius::workflow::progress::Silent;
use blast_radius::workflow::save::{index_and_save, index_in_memory, Saved};
use blast_radius::workflow::source::InMemory;
use blast_radius::workspace::walk;
use sqlx::PgPool;

async fn index(store: &Store, name: &str, files: &[SourceFile]) -> Saved {
    let revision = InMemory {
        commit: None,
        files: files.to_vec(),
    };
    let (_, saved) = index_and_save(store, name, &revision, &SkipRules::default(), &Silent)
        .await
        .unwrap();
    saved
}

/// Whether the graph stored as `name` is the one a full index of `files` gives, row for
/// row: the graph's edges both ways, the table counts of a fresh full write, and the
/// unresolved call sites a question about a name counts.
async fn assert_stored_as_fresh(store: &Store, name: &str, files: &[SourceFile]) {
    let repo = store.repository(name).await.unwrap();
    let (stored, _) = store.load_graph(repo.id).await.unwrap();
    let (fresh, _) = index_in_memory(files.to_vec(), &SkipRules::default());
    assert_eq!(stored.edge_keys(), fresh.graph.edge_keys());
    assert_eq!(stored.reverse_keys(), fresh.graph.reverse_keys());
    let fresh_name = format!("{name} (fresh, {} files)", files.len());
    index(store, &fresh_name, files).await;
    let fresh_repo = store.repository(&fresh_name).await.unwrap();
    assert_eq!(
        store.counts(repo.id).await.unwrap(),
        store.counts(fresh_repo.id).await.unwrap()
    );
    for target in ["classifyFields", "lookupRules", "rulesFor"] {
        let (a, b) = (
            callers_in_place(store, name, target, 2).await.unwrap(),
            callers_in_place(store, &fresh_name, target, 2)
                .await
                .unwrap(),
        );
        match (a, b) {
            (ReadInPlace::Answer(a), ReadInPlace::Answer(b)) => assert_eq!(a, b, "{target}"),
            (ReadInPlace::LoadAll, ReadInPlace::LoadAll) => {}
            _ => panic!("{target}: answered one way from one graph and another from the other"),
        }
    }
}

#[sqlx::test(migrations = false)]
async fn one_file_changed_writes_its_rows_and_those_it_moved(pool: PgPool) {
    let store = Store::from_pool(pool);
    store.migrate().await.unwrap();
    let dir = common::fixture("blast/classify/base");
    let mut files = walk::read(&dir, walk::list(&dir).unwrap()).unwrap();
    let first = index(&store, "o/classify", &files).await;
    assert_eq!(first.changed, None, "the first index is a full one");
    assert_eq!(first.files, 5);

    // The same tree again: nothing to write but the new version.
    let again = index(&store, "o/classify", &files).await;
    assert_eq!(
        again.changed,
        Some(Changed {
            edited: 0,
            removed: 0
        })
    );
    assert_eq!((again.files, again.edges), (0, 0));

    // One file edited: a function added that calls into another file.
    let rules = files
        .iter_mut()
        .find(|f| f.path == "services/rules.js")
        .unwrap();
    rules.bytes = b"const { classifyFields } = require('./classify');\n\
        function lookupRules(fields) {\n  return Object.keys(fields).map((name) => ({ name }));\n}\n\
        function rulesFor(post) {\n  return classifyFields(post.fields);\n}\n\
        module.exports = { lookupRules, rulesFor };\n"
        .to_vec();
    let edited = index(&store, "o/classify", &files).await;
    assert_eq!(
        edited.changed,
        Some(Changed {
            edited: 1,
            removed: 0
        })
    );
    assert!(
        (1..5).contains(&edited.files),
        "{} files' rows rewritten of 5",
        edited.files
    );
    assert_eq!(edited.version, first.version + 2);
    assert_stored_as_fresh(&store, "o/classify", &files).await;

    // One file removed.
    files.retain(|f| f.path != "routes/services/video.js");
    let removed = index(&store, "o/classify", &files).await;
    assert_eq!(
        removed.changed,
        Some(Changed {
            edited: 0,
            removed: 1
        })
    );
    assert_stored_as_fresh(&store, "o/classify", &files).await;
}

/// The declaration pairs a graph stores (a `.d.ts` beside its `.js`): an edit that
/// leaves them as they were writes none of them again, one that changes them rewrites
/// them, and a full rewrite stores them even where their digest is unchanged.
#[sqlx::test(migrations = false)]
async fn declaration_pairs_are_written_only_when_they_change(pool: PgPool) {
    let store = Store::from_pool(pool.clone());
    store.migrate().await.unwrap();
    let dir = common::fixture("resolve/declarations_beside");
    let mut files = walk::read(&dir, walk::list(&dir).unwrap()).unwrap();
    // Enough other files that one edit is applied as a change, not a full index.
    for i in 0..12 {
        files.push(SourceFile::new(
            format!("src/part{i}.js"),
            format!("export function part{i}() {{ return {i}; }}\n").into_bytes(),
        ));
    }
    index(&store, "o/declared", &files).await;
    let repo = store.repository("o/declared").await.unwrap();
    // Each row's transaction id says which write made it.
    let pairs = || async {
        let rows: Vec<(String, i32)> = sqlx::query_as(
            "SELECT xmin::text, code_def FROM declared_pairs WHERE repo_id = $1 ORDER BY 2",
        )
        .bind(repo.id.0)
        .fetch_all(&pool)
        .await
        .unwrap();
        rows
    };
    let first = pairs().await;
    assert!(!first.is_empty(), "`version` is declared beside its code");

    // The app's code edited, not what is declared: the pairs are not written again.
    let app = files.iter_mut().find(|f| f.path == "app.js").unwrap();
    app.bytes.extend_from_slice(b"\nversion();\n");
    let edited = index(&store, "o/declared", &files).await;
    assert!(edited.changed.is_some(), "applied as a change");
    assert_eq!(pairs().await, first);

    // A declaration dropped: the pairs change, and are written.
    let declared = files
        .iter_mut()
        .find(|f| f.path == "lib/client.d.ts")
        .unwrap();
    let text = String::from_utf8(declared.bytes.clone()).unwrap();
    declared.bytes = text
        .replace("export declare function version(): string;", "")
        .into_bytes();
    index(&store, "o/declared", &files).await;
    let after = pairs().await;
    assert_ne!(after.len(), first.len(), "{after:?}");
    assert_stored_pairs_as_fresh(&store, "o/declared", &files, &pool).await;
}

/// The pairs stored as `name` are those a fresh full index of `files` stores.
async fn assert_stored_pairs_as_fresh(
    store: &Store,
    name: &str,
    files: &[SourceFile],
    pool: &PgPool,
) {
    let fresh_name = format!("{name} (fresh pairs)");
    index(store, &fresh_name, files).await;
    let count = |repo: blast_radius::store::RepoId| async move {
        let n: i64 = sqlx::query_scalar("SELECT count(*) FROM declared_pairs WHERE repo_id = $1")
            .bind(repo.0)
            .fetch_one(pool)
            .await
            .unwrap();
        n
    };
    let (a, b) = (
        store.repository(name).await.unwrap().id,
        store.repository(&fresh_name).await.unwrap().id,
    );
    assert_eq!(count(a).await, count(b).await);
}
