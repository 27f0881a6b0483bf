//! What the status page shows of the work, on a real Postgres: each pull request's
//! analysis as its job records it, each repository's freshness against the head its last
//! push named, the rate limit its jobs last saw, the failed and deferred jobs; every list
//! read one bounded page at a time.

use crate::app_fixtures::{
    classify_repo, installed, open_classify_pr, pr_event, pushed, INSTALLATION,
};
use crate::fake_github::FakeGithub;
use crate::harness::Harness;
use blast_radius::model::{GithubRepoId, InstallationId};
use blast_radius::queue::{Delivery, JobState, NewJob, Queue, QueueConfig};
use blast_radius::store::{NewAnalysis, Page, Store, ANALYSES_KEPT};
use serde_json::json;
use sqlx::PgPool;

fn analysis(number: u64) -> NewAnalysis {
    NewAnalysis {
        number,
        title: format!("PR {number}"),
        url: format!("https://github.com/acme/web/pull/{number}"),
        head: format!("{number:040}"),
        conclusion: Some("neutral".into()),
        breaking: 0,
        untouched: 2,
        changed: 1,
        took_ms: 120,
    }
}

#[sqlx::test]
async fn analyses_are_paged_newest_first_and_bounded_per_repository(pool: PgPool) {
    let store = Store::from_pool(pool.clone());
    store
        .upsert_installation(InstallationId(7), "acme")
        .await
        .unwrap();
    let web = store
        .upsert_github_repository(InstallationId(7), GithubRepoId(1), "acme/web", "main", true)
        .await
        .unwrap();
    let api = store
        .upsert_github_repository(InstallationId(7), GithubRepoId(2), "acme/api", "main", true)
        .await
        .unwrap();
    let total = ANALYSES_KEPT as u64 + 5;
    for n in 1..=total {
        store.record_analysis(web.id, &analysis(n)).await.unwrap();
    }
    store.record_analysis(api.id, &analysis(1)).await.unwrap();

    // The web repository keeps its newest ANALYSES_KEPT; the other keeps its own.
    let kept: i64 = sqlx::query_scalar("SELECT count(*) FROM analyses WHERE repo_id = $1")
        .bind(web.id.0)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(kept, ANALYSES_KEPT);

    let first = store.analyses(Page::new(1, 20)).await.unwrap();
    assert_eq!(first.items.len(), 20);
    assert!(first.more);
    assert_eq!(first.items[0].full_name, "acme/api", "newest first");
    assert_eq!(first.items[1].analysis.number, total);
    assert_eq!(first.items[1].analysis, analysis(total));
    // The last page: what is left, and no more.
    let last = store.analyses(Page::new(6, 20)).await.unwrap();
    assert_eq!(last.items.len(), (ANALYSES_KEPT as usize + 1) - 100);
    assert!(!last.more);
    assert_eq!(last.items.last().unwrap().analysis.number, total - 99);
    let past = store.analyses(Page::new(7, 20)).await.unwrap();
    assert!(past.items.is_empty() && !past.more);

    // A repository purged takes its analyses with it.
    store.delete_repository(web.id).await.unwrap();
    let left = store.analyses(Page::new(1, 20)).await.unwrap();
    assert_eq!(left.items.len(), 1);
    assert_eq!(left.items[0].full_name, "acme/api");
}

#[sqlx::test]
async fn repositories_and_installations_are_paged(pool: PgPool) {
    let store = Store::from_pool(pool.clone());
    for i in 0..3 {
        store
            .upsert_installation(InstallationId(i), &format!("org{i}"))
            .await
            .unwrap();
        for r in 0..4 {
            store
                .upsert_github_repository(
                    InstallationId(i),
                    GithubRepoId(i * 10 + r),
                    &format!("org{i}/r{r}"),
                    "main",
                    true,
                )
                .await
                .unwrap();
        }
    }
    let mut seen = Vec::new();
    for n in 1..=3 {
        let page = store.overview(Page::new(n, 5)).await.unwrap();
        assert_eq!(page.more, n < 3, "page {n}");
        seen.extend(page.items.into_iter().map(|r| r.full_name));
    }
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(seen, sorted, "in order across pages");
    assert_eq!(seen.len(), 12, "each once: {seen:?}");
    let installations = store.installations(Page::new(2, 2)).await.unwrap();
    assert_eq!(installations.items.len(), 1);
    assert_eq!(installations.items[0].account, "org2");
    assert_eq!(installations.items[0].repositories, 4);
    assert!(!installations.more);
}

#[sqlx::test]
async fn the_rate_limit_left_is_kept_per_installation(pool: PgPool) {
    let store = Store::from_pool(pool.clone());
    store
        .upsert_installation(InstallationId(7), "acme")
        .await
        .unwrap();
    let page = store.installations(Page::new(1, 10)).await.unwrap();
    assert_eq!(page.items[0].rate, None, "not seen yet");
    let reset = chrono::DateTime::from_timestamp(1_900_000_000, 0).unwrap();
    store
        .record_rate_limit(InstallationId(7), 4321, Some(5000), reset)
        .await
        .unwrap();
    // An installation not recorded is no error, and makes no row.
    store
        .record_rate_limit(InstallationId(8), 1, None, reset)
        .await
        .unwrap();
    let page = store.installations(Page::new(1, 10)).await.unwrap();
    assert_eq!(page.items.len(), 1);
    let rate = page.items[0].rate.clone().unwrap();
    assert_eq!(
        (rate.remaining, rate.limit, rate.reset),
        (4321, Some(5000), reset)
    );
    assert!((chrono::Utc::now() - rate.seen).num_seconds() < 60);
}

#[sqlx::test]
async fn a_push_records_the_head_its_repository_is_measured_against(pool: PgPool) {
    let store = Store::from_pool(pool.clone());
    let queue = Queue::new(pool.clone(), QueueConfig::default());
    store
        .upsert_installation(InstallationId(7), "acme")
        .await
        .unwrap();
    store
        .upsert_github_repository(
            InstallationId(7),
            GithubRepoId(42),
            "acme/web",
            "main",
            true,
        )
        .await
        .unwrap();
    let before = store.overview(Page::new(1, 10)).await.unwrap();
    assert_eq!(before.items[0].pushed, None);
    assert_eq!(before.items[0].current(), None);
    let push = NewJob::new(
        "apply_push",
        json!({"installation": 7, "repository": 42, "full_name": "acme/web",
               "default_branch": "main", "before": "a", "after": "b\u{0}c", "forced": false}),
    );
    let delivery = Delivery {
        id: "d-1".into(),
        event: "push".into(),
        action: None,
        installation_id: Some(7),
        repository_id: Some(42),
    };
    queue
        .record_delivery_and_enqueue(&delivery, &[push])
        .await
        .unwrap();
    let after = store.overview(Page::new(1, 10)).await.unwrap();
    let (head, _) = after.items[0].pushed.clone().unwrap();
    assert_eq!(
        head, "b\u{FFFD}c",
        "a NUL is stored as U+FFFD, as every text"
    );
    assert_eq!(after.items[0].current(), Some(false), "not indexed: behind");
}

#[sqlx::test]
async fn failed_and_deferred_jobs_are_listed_with_their_reasons(pool: PgPool) {
    let queue = Queue::new(
        pool.clone(),
        QueueConfig {
            listen: false,
            ..QueueConfig::default()
        },
    );
    for (n, kind) in ["index_repository", "analyze_pr", "apply_push", "fine"]
        .iter()
        .enumerate()
    {
        queue
            .enqueue(&NewJob::new(
                *kind,
                json!({"full_name": format!("acme/r{n}"), "installation": 7}),
            ))
            .await
            .unwrap();
    }
    // One dies, one is deferred to a rate limit's reset, one fails and waits to retry, one
    // is done.
    let dead = queue.claim("w").await.unwrap().unwrap();
    queue.fail(&dead, "tarball: 502", true).await.unwrap();
    let deferred = queue.claim("w").await.unwrap().unwrap();
    let until = chrono::Utc::now() + chrono::Duration::minutes(10);
    queue
        .defer(&deferred, "GitHub rate limit spent", until)
        .await
        .unwrap();
    let retried = queue.claim("w").await.unwrap().unwrap();
    queue.fail(&retried, "compare: 500", false).await.unwrap();
    let fine = queue.claim("w").await.unwrap().unwrap();
    queue.complete(&fine).await.unwrap();

    let listed = queue.troubled_jobs(0, 10).await.unwrap();
    assert_eq!(listed.len(), 3, "{listed:?}");
    let by_kind = |k: &str| listed.iter().find(|j| j.kind == k).unwrap();
    let d = by_kind("index_repository");
    assert_eq!(d.state, JobState::Dead);
    assert_eq!(d.error, "tarball: 502");
    assert_eq!(d.repository.as_deref(), Some("acme/r0"));
    assert_eq!(d.next_run, None);
    let w = by_kind("analyze_pr");
    assert_eq!(w.state, JobState::Waiting);
    assert_eq!(w.deferrals, 1);
    assert_eq!(w.error, "GitHub rate limit spent");
    assert!(w.next_run.unwrap() > chrono::Utc::now() + chrono::Duration::minutes(9));
    let r = by_kind("apply_push");
    assert_eq!((r.deferrals, r.error.as_str()), (0, "compare: 500"));
    // Paged: two, then the third.
    assert_eq!(queue.troubled_jobs(0, 2).await.unwrap().len(), 2);
    assert_eq!(queue.troubled_jobs(2, 2).await.unwrap().len(), 1);
}

/// The jobs record it as they run: a PR's analysis with its verdict and callers, the
/// head a push named, and the rate limit GitHub said was left.
#[sqlx::test(migrations = false)]
async fn a_pull_request_job_records_its_analysis_and_a_push_its_head(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    fake.add_installation(INSTALLATION, "acme");
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    let app = Harness::start(pool.clone(), &fake).await;
    app.deliver_and_settle("installation", "d-1", &installed(id, "acme/web"))
        .await;
    let base = repo.head();
    let head = open_classify_pr(&fake, &repo, "classifyFields changed");
    app.deliver_and_settle(
        "pull_request",
        "d-2",
        &pr_event("opened", id, 1, &head, &base),
    )
    .await;

    let store = Store::from_pool(pool.clone());
    let analyses = store.analyses(Page::new(1, 10)).await.unwrap();
    assert_eq!(analyses.items.len(), 1, "{analyses:?}");
    let a = &analyses.items[0];
    assert_eq!(a.full_name, "acme/web");
    assert_eq!(a.analysis.number, 1);
    assert_eq!(a.analysis.title, "Pull request 1", "the fake's title");
    assert!(
        a.analysis.url.ends_with("/acme/web/pull/1"),
        "{}",
        a.analysis.url
    );
    assert_eq!(a.analysis.head, head);
    // As the check run GitHub holds says.
    let runs = fake.check_runs("acme/web");
    assert_eq!(a.analysis.conclusion, runs[0].conclusion);
    // posts.js and video.js call classifyFields and were left untouched.
    assert!(a.analysis.untouched >= 2, "{a:?}");
    assert!(a.analysis.changed >= 1, "{a:?}");

    let installations = store.installations(Page::new(1, 10)).await.unwrap();
    let rate = installations.items[0]
        .rate
        .clone()
        .expect("a rate limit seen");
    assert_eq!(rate.limit, Some(5000));
    assert!(rate.remaining > 0 && rate.remaining < 5000, "{rate:?}");

    // A push to the default branch: the head it names is recorded, and once its job
    // ran the graph is at that head.
    repo.write("services/extra.js", "export function extra() {}\n");
    let after = repo.commit("extra");
    app.deliver_and_settle("push", "d-3", &pushed(id, "acme/web", &base, &after, false))
        .await;
    let repos = store.overview(Page::new(1, 10)).await.unwrap();
    let web = &repos.items[0];
    assert_eq!(
        web.pushed.as_ref().map(|(h, _)| h.as_str()),
        Some(after.as_str())
    );
    assert_eq!(web.current(), Some(true), "{web:?}");
}
