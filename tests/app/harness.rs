//! The App in the test's own task: intake and the jobs built against the GitHub fake and
//! the test's database. A delivery goes to intake's router in-process (it writes the
//! delivery and its jobs in one transaction, as over HTTP), and [`Harness::settle`] claims
//! and runs the jobs one by one until none is left, so a debugger steps from a delivery
//! to GitHub's writes. What needs a process (kill -9, restart, several workers, its
//! memory or its logs) stays in the `process` tests.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::Router;
use blast_radius::github::{AppPrivateKey, GithubApp, GithubConfig};
use blast_radius::indexer::skip::SkipRules;
use blast_radius::intake::{sign, Intake, WebhookSecrets};
use blast_radius::jobs::{App, GraphCache, Jobs};
use blast_radius::queue::{ClaimedJob, Handler, Queue, QueueConfig, RunningJob};
use blast_radius::store::Store;
use sqlx::PgPool;
use tower::ServiceExt as _;

use crate::common::server::{APP_ID, PRIVATE_KEY_PKCS1, SECRET};
use crate::fake_github::FakeGithub;

/// As `serve` holds them by default (BLAST_GRAPH_MEMORY_MB).
const GRAPH_MEMORY_BYTES: usize = 1024 << 20;
/// The longest [`Harness::settle`] waits (a failed job waits its backoff before it runs
/// again).
const SETTLE_LIMIT: Duration = Duration::from_secs(90);

pub struct Harness {
    pub pool: PgPool,
    pub app: Arc<App>,
    intake: Router,
}

impl Harness {
    /// The App as `serve` builds it, against `fake` and the test's database (migrated
    /// here, as `serve` does at start).
    pub async fn start(pool: PgPool, fake: &FakeGithub) -> Harness {
        let store = Store::from_pool(pool.clone());
        store.migrate().await.unwrap();
        // No LISTEN: nothing idles here waiting to be woken.
        let config = QueueConfig {
            listen: false,
            ..QueueConfig::default()
        };
        let queue = Queue::new(pool.clone(), config);
        let key = AppPrivateKey::from_pem(PRIVATE_KEY_PKCS1).unwrap();
        let api_url = fake.api_url();
        let github = GithubConfig::new(APP_ID, key).with_api_url(api_url.clone());
        let app = Arc::new(App {
            cache: GraphCache::new(store.clone(), GRAPH_MEMORY_BYTES),
            store,
            github: GithubApp::new(&github).unwrap(),
            queue: queue.clone(),
            rules: SkipRules::default(),
            pr_files: Default::default(),
            repo_configs: Default::default(),
            web_url: api_url
                .trim_end_matches('/')
                .trim_end_matches("/api/v3")
                .to_string(),
        });
        // Two secrets, as the process tests' environment has (a rotation under way).
        let secrets = WebhookSecrets::parse(&format!("old secret,{SECRET}").into()).unwrap();
        let intake = Intake::new(queue, secrets).router();
        Harness { pool, app, intake }
    }

    /// Hands a delivery signed as GitHub does to intake; the answer's status.
    pub async fn deliver(&self, event: &str, id: &str, body: &serde_json::Value) -> u16 {
        self.deliver_signed(event, id, body, SECRET).await
    }

    pub async fn deliver_signed(
        &self,
        event: &str,
        id: &str,
        body: &serde_json::Value,
        secret: &str,
    ) -> u16 {
        let bytes = serde_json::to_vec(body).unwrap();
        let request = http::Request::post("/webhook")
            .header("X-GitHub-Event", event)
            .header("X-GitHub-Delivery", id)
            .header("X-Hub-Signature-256", sign(secret, &bytes))
            .header("Content-Type", "application/json")
            .body(Body::from(bytes))
            .unwrap();
        let response = self.intake.clone().oneshot(request).await.unwrap();
        response.status().as_u16()
    }

    /// A delivery that makes work (202), and that work done.
    pub async fn deliver_and_settle(&self, event: &str, id: &str, body: &serde_json::Value) {
        assert_eq!(self.deliver(event, id, body).await, 202, "{event} {id}");
        self.settle().await;
    }

    /// Claims and runs jobs here, one at a time, until none waits or runs; fails on a
    /// dead job, with its error, and after [`SETTLE_LIMIT`].
    pub async fn settle(&self) {
        let deadline = Instant::now() + SETTLE_LIMIT;
        loop {
            if let Some(job) = self.app.queue.claim("harness").await.unwrap() {
                self.run(job).await;
                continue;
            }
            let (open, dead): (i64, i64) = sqlx::query_as(
                "SELECT count(*) FILTER (WHERE state IN ('waiting', 'running')),
                        count(*) FILTER (WHERE state = 'dead') FROM jobs",
            )
            .fetch_one(&self.pool)
            .await
            .unwrap();
            if dead > 0 {
                let errors: Vec<(String, Option<String>)> =
                    sqlx::query_as("SELECT kind, last_error FROM jobs WHERE state = 'dead'")
                        .fetch_all(&self.pool)
                        .await
                        .unwrap();
                panic!("dead jobs: {errors:?}");
            }
            if open == 0 {
                return;
            }
            // A job waits for its backoff (or its serial key): look again shortly.
            assert!(Instant::now() < deadline, "jobs never settled");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Runs one claimed job and records its end as a worker does.
    async fn run(&self, job: ClaimedJob) {
        let queue = &self.app.queue;
        let running = RunningJob::new(queue.clone(), job.clone());
        match Jobs(self.app.clone()).handle(running).await {
            Ok(()) => queue.complete(&job).await.unwrap(),
            Err(e) => {
                let text = format!("{e:#}");
                match e.deferred_until() {
                    Some(until) => queue.defer(&job, &text, until).await.map(drop).unwrap(),
                    None => queue
                        .fail(&job, &text, e.is_permanent())
                        .await
                        .map(drop)
                        .unwrap(),
                }
            }
        }
    }
}
