//! A fork's pull request of attacker-shaped code against the App as a process (issue
//! 41): the analysis ends, the pull request gets its comment and check run naming the
//! files that were not read, `/webhook` keeps answering meanwhile, and the server's
//! memory stays bounded.

use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::app_fixtures::{classify_repo, installed, pr_event, INSTALLATION};
use crate::common;
use crate::common::server::{launch, peak_rss_mb, post_delivery, settle, url_of, SECRET};
use crate::fake_github::{FakeGithub, TestRepo};
use serde_json::json;
use sqlx::PgPool;

#[sqlx::test(migrations = false)]
async fn a_fork_pr_of_hostile_code_gets_its_comment_while_the_webhook_answers(pool: PgPool) {
    /// The bound docs/security.md documents for the server.
    const PEAK_RSS_MB: u64 = 500;
    let fake = FakeGithub::start().await;
    fake.add_installation(INSTALLATION, "acme");
    let repo = classify_repo();
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());

    // The fork: the change that counts (classifyFields), and the issue's two files (5 KB
    // of nested arrows, 240 KB of `<` lines), and near 1 MB each: nested objects (over
    // the parse's memory allowance) and statements run together on a line (a syntax
    // error every few bytes: stopped by the parse's time allowance).
    let fork = TestRepo::new();
    fork.git(&["fetch", "-q", repo.path().to_str().unwrap(), "main"]);
    fork.git(&["checkout", "-q", "-b", "fix", "FETCH_HEAD"]);
    common::copy_dir(&common::fixture("blast/classify/head"), fork.path());
    fork.write(
        "src/arrows.js",
        format!("export const nest = {}1;\n", "() =>\n".repeat(1_000)),
    );
    fork.write(
        "src/angles.ts",
        format!("const x = a\n{});\n", " <b\n".repeat(60_000)),
    );
    let depth = 150_000;
    fork.write(
        "src/nested.js",
        format!("x = {}1{};\n", "{a:\n".repeat(depth), "}\n".repeat(depth)),
    );
    fork.write(
        "src/statements.js",
        format!("{}\n", "f()\r".repeat(300)).repeat(850),
    );
    fork.git(&["add", "-A"]);
    fork.git(&[
        "commit",
        "-q",
        "-m",
        "classifyFields always returns an array; and hostile files",
    ]);
    let head = fork.head();
    let fork_id = fake.add_repo(INSTALLATION, "someone/web", fork.path());

    let db = url_of(&pool);
    let server = launch("serve", &db, &fake.api_url(), &[], Stdio::inherit()).await;
    assert_eq!(
        post_delivery(
            &server.url,
            "installation",
            "d-1",
            &installed(id, "acme/web"),
            SECRET
        )
        .await,
        202
    );
    settle(&pool).await;
    let base = repo.head();
    fake.open_pr_from("acme/web", 1, "main", "someone/web", "fix");
    let mut opened = pr_event("opened", id, 1, &head, &base);
    opened["pull_request"]["head"]["repo"]["id"] = json!(fork_id);
    assert_eq!(
        post_delivery(&server.url, "pull_request", "d-2", &opened, SECRET).await,
        202
    );

    // Pings while the analysis runs: each must be answered, well within GitHub's 10 s.
    let done = Arc::new(AtomicBool::new(false));
    let pinger = {
        let (done, url) = (done.clone(), server.url.clone());
        tokio::spawn(async move {
            let mut slowest = Duration::ZERO;
            let mut answers = Vec::new();
            let mut n = 0;
            while !done.load(Ordering::Relaxed) {
                let ping = json!({"zen": "Keep it logically awesome.", "hook_id": 1});
                let began = Instant::now();
                answers
                    .push(post_delivery(&url, "ping", &format!("ping-{n}"), &ping, SECRET).await);
                slowest = slowest.max(began.elapsed());
                n += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            (answers, slowest)
        })
    };
    settle(&pool).await;
    done.store(true, Ordering::Relaxed);
    let (answers, slowest) = pinger.await.unwrap();
    eprintln!(
        "{} pings during the analysis, the slowest answered in {slowest:?}",
        answers.len()
    );
    assert!(!answers.is_empty());
    assert!(answers.iter().all(|&s| s == 200), "{answers:?}");

    let comments = fake.issue_comments("acme/web", 1);
    let summary = comments
        .iter()
        .find(|c| c.by_app && c.body.contains("<!-- blast-radius:summary -->"))
        .expect("the PR's comment");
    assert!(summary.body.contains("classifyFields"), "{}", summary.body);
    // Over their allowances on every machine: named, with why.
    for file in ["src/nested.js", "src/angles.ts"] {
        assert!(
            summary.body.contains(&format!(
                "`{file}` skipped: reading it would cost more than its size allows (too_costly)"
            )),
            "{file}: {}",
            summary.body
        );
    }
    let runs = fake.check_runs("acme/web");
    assert!(
        runs.iter().any(|r| r.head_sha == head),
        "a check run on the head"
    );
    let peak = peak_rss_mb(&server);
    eprintln!("peak RSS of the server: {peak} MB");
    assert!(
        peak < PEAK_RSS_MB,
        "peak RSS {peak} MB over {PEAK_RSS_MB} MB"
    );
}
