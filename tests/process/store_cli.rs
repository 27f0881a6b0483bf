//! The CLI over the store: index into Postgres, answer from it.

use crate::common;

use common::{git, run_ok, two_commit_repo};
use sqlx::{ConnectOptions, PgPool};

fn url_of(pool: &PgPool) -> String {
    pool.connect_options().to_url_lossy().to_string()
}

#[sqlx::test(migrations = false)]
async fn index_then_answer_from_the_database(pool: PgPool) {
    let url = url_of(&pool);
    run_ok(&["migrate", "--database-url", &url]);
    let repo = two_commit_repo("blast/classify");
    let dir = repo.path().to_str().unwrap().to_string();
    // The working tree at the base commit is what gets stored.
    git(repo.path(), &["checkout", "-q", "HEAD~1"]);
    let out = run_ok(&[
        "index",
        "--repo",
        &dir,
        "--database-url",
        &url,
        "--name",
        "o/classify",
    ]);
    assert!(out.contains("stored       o/classify version 1"), "{out}");
    assert!(
        out.contains("5 files parsed, 0 from the facts cache"),
        "{out}"
    );
    let again = run_ok(&[
        "index",
        "--repo",
        &dir,
        "--database-url",
        &url,
        "--name",
        "o/classify",
    ]);
    assert!(again.contains("version 2"), "{again}");
    // Nothing changed since the stored graph: no file is read again, no row rewritten.
    assert!(
        again.contains(
            "0 changed and 0 removed files since the stored graph; rows of 0 files, 0 edges"
        ),
        "{again}"
    );

    // callers from the stored graph, without the directory's files.
    let elsewhere = tempfile::tempdir().unwrap();
    let out = run_ok(&[
        "callers",
        "classifyFields",
        "--repo",
        elsewhere.path().to_str().unwrap(),
        "--database-url",
        &url,
        "--name",
        "o/classify",
    ]);
    assert!(
        out.contains("routes/services/video.js:5:28  processVideo"),
        "{out}"
    );
    assert!(out.contains("3 call sites (3 exact)"), "{out}");

    // blast from the stored base graph equals blast from git.
    git(repo.path(), &["checkout", "-q", "-"]);
    let base = {
        let out = std::process::Command::new("git")
            .args(["-C", &dir, "rev-parse", "HEAD~1"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let stored = run_ok(&[
        "blast",
        "--repo",
        &dir,
        "--base",
        &base,
        "--format",
        "json",
        "--database-url",
        &url,
        "--name",
        "o/classify",
    ]);
    let from_git = run_ok(&["blast", "--repo", &dir, "--base", &base, "--format", "json"]);
    assert_eq!(stored, from_git);
    assert!(stored.contains("routes/posts.js"));
}

#[sqlx::test(migrations = false)]
async fn commands_other_than_migrate_ask_for_the_migrations_first(pool: PgPool) {
    let url = url_of(&pool);
    let repo = two_commit_repo("blast/classify");
    let dir = repo.path().to_str().unwrap().to_string();
    let out = common::run(&["index", "--repo", &dir, "--database-url", &url]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("run `blast-radius migrate"), "{err}");
    // Nothing was created: the schema is migrate's alone.
    let tables: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = 'repositories'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(tables, 0);
}

#[sqlx::test(migrations = false)]
async fn migrate_reads_the_server_s_database_url_when_given_no_flag(pool: PgPool) {
    let url = url_of(&pool);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_blast-radius"))
        .arg("migrate")
        .env_remove("BLAST_DATABASE_URL")
        .env("DATABASE_URL", &url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let applied: i64 = sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(applied >= 4, "{applied}");
    let none = std::process::Command::new(env!("CARGO_BIN_EXE_blast-radius"))
        .arg("migrate")
        .env_remove("BLAST_DATABASE_URL")
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    assert!(!none.status.success());
    assert!(String::from_utf8_lossy(&none.stderr).contains("--database-url"));
}

/// `callers --org`: the calls the database's other repositories (here the command line's
/// own, of no installation) make into the repository's packages and that reach the
/// target, beside its own callers.
#[sqlx::test(migrations = false)]
async fn callers_with_org_adds_the_calls_from_the_other_repositories(pool: PgPool) {
    let url = url_of(&pool);
    common::index_org_fixtures(&url);
    let ask = |org: bool, format: &str| {
        let mut args = vec![
            "callers",
            "formatPrice",
            "--database-url",
            &url,
            "--name",
            "acme/library",
            "--format",
            format,
        ];
        if org {
            args.push("--org");
        }
        run_ok(&args)
    };
    let out = ask(true, "text");
    assert!(
        out.contains("in other repositories: 3 call sites in 2 repositories"),
        "{out}"
    );
    assert!(out.contains("acme/service src/checkout.ts:7:"), "{out}");
    assert!(out.contains("acme/service src/receipt.ts:10:"), "{out}");
    assert!(out.contains("acme/private-app index.js:4:"), "{out}");
    assert!(out.contains("@acme/money ^2.1.0"), "{out}");
    // receipt.ts line 10 also calls the service's own formatPrice: one site there.
    assert_eq!(out.matches("src/receipt.ts:10:").count(), 1, "{out}");
    assert!(!ask(false, "text").contains("other repositories"));

    let json: serde_json::Value = serde_json::from_str(&ask(true, "json")).unwrap();
    let elsewhere = json["elsewhere"].as_array().unwrap();
    assert_eq!(elsewhere.len(), 3, "{json}");
    assert_eq!(elsewhere[0]["repository"], "acme/private-app");
    assert_eq!(elsewhere[0]["line"], 4);
    assert_eq!(elsewhere[0]["confidence"], "exact");
}

/// A NUL in a name past the first 8 KB of a file (before them the file is binary and
/// skipped), and a file name that is not UTF-8, are no reason to fail a repository's
/// index: its other files' edges are all stored.
#[sqlx::test(migrations = false)]
async fn index_stores_a_repository_holding_nul_names_and_odd_paths(pool: PgPool) {
    use std::os::unix::ffi::OsStrExt;
    let url = url_of(&pool);
    run_ok(&["migrate", "--database-url", &url]);
    let repo = tempfile::tempdir().unwrap();
    let src = repo.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let ordinary: String = (0..120)
        .map(|i| {
            format!(
                "export function f{i}(x) {{ return twice{i}(x) + {i}; }}\n\
                 function twice{i}(y) {{ return y * 2; }}\n"
            )
        })
        .collect();
    assert!(ordinary.len() > 8 * 1024);
    // A real NUL byte in one method's name, an escaped one in another's.
    let a = format!(
        "{ordinary}export class K {{\n  \"a\0b\"() {{ return f1(1); }}\n  \"c\\0d\"() {{ return 2; }}\n  \
         run() {{ return this[\"a\0b\"]() + this[\"c\\0d\"](); }}\n}}\n"
    );
    std::fs::write(src.join("a.js"), a).unwrap();
    std::fs::write(
        src.join("user.js"),
        "import { f2, K } from './a.js';\nexport function user() { return f2(3) + new K().run(); }\n",
    )
    .unwrap();
    std::fs::write(src.join("early.js"), "var a = 1;\0\nf1();\n").unwrap();
    let odd = std::ffi::OsStr::from_bytes(b"odd\xff.js");
    std::fs::write(src.join(odd), "export function z() { return 1; }\n").unwrap();
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "-A"]);
    git(repo.path(), &["commit", "-qm", "odd names"]);
    let dir = repo.path().to_str().unwrap();
    let index = || {
        run_ok(&[
            "index",
            "--repo",
            dir,
            "--database-url",
            &url,
            "--name",
            "o/odd",
        ])
    };
    let out = index();
    // a.js's 120 calls of twiceN, the NUL-named method's call of f1 and run's two calls
    // of the NUL-named methods; user.js's call of f2 (and of K's constructor and run).
    let edges: i64 = sqlx::query_scalar("SELECT count(*) FROM edges")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(out.contains("stored       o/odd version 1"), "{out}");
    assert!(out.contains(&format!("{edges} edges")), "{out}");
    assert!(edges >= 124, "{edges}");
    let files: Vec<(String, String)> =
        sqlx::query_as("SELECT path, status FROM files ORDER BY path")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(
        files,
        [
            ("src/a.js".to_string(), "indexed".to_string()),
            ("src/early.js".to_string(), "skipped".to_string()),
            ("src/user.js".to_string(), "indexed".to_string()),
        ]
    );
    // Answered from the stored graph: the method named with a NUL calls f1.
    let elsewhere = tempfile::tempdir().unwrap();
    let callers = |name: &str| {
        run_ok(&[
            "callers",
            name,
            "--repo",
            elsewhere.path().to_str().unwrap(),
            "--database-url",
            &url,
            "--name",
            "o/odd",
        ])
    };
    let f1 = callers("f1");
    assert!(f1.contains("src/a.js:242:"), "{f1}");
    let f2 = callers("f2");
    assert!(f2.contains("src/user.js:2:"), "{f2}");
    // Every later write of the repository goes through too.
    assert!(index().contains("version 2"));
}
