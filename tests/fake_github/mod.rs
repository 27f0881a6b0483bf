//! A GitHub for tests, on loopback: an axum server that answers the REST routes the App
//! uses from real git repositories the test builds ([`TestRepo`]).
//!
//! It checks credentials as GitHub does (the App's RS256 JWT against the test public key in
//! `fixtures/github/`; installation tokens it minted, until they expire), records every
//! request, and answers injected failures. Use it with `mod fake_github;`:
//!
//! ```ignore
//! let fake = FakeGithub::start().await;
//! let repo = TestRepo::new();
//! repo.write("src/a.ts", "export const a = 1;\n");
//! let head = repo.commit("first");
//! fake.add_installation(7, "acme");
//! fake.add_repo(7, "acme/web", repo.path());
//! fake.inject("/branches/", 1, Fault::Status(502));
//! // ... point the client at fake.api_url(), then:
//! assert_eq!(fake.requests_matching("/branches/").len(), 2);
//! ```
//!
//! The model ([`model`]) and the routes ([`routes`]) are apart; pull requests ([`pulls`]:
//! the PR, its files with real `git diff` patches, GitHub's test merge, reviews checked
//! against the diff), issue comments and reactions ([`issues`]) and check runs ([`checks`])
//! each have their routes beside them. Pull requests:
//!
//! ```ignore
//! repo.git(&["checkout", "-q", "-b", "fix"]);
//! repo.write("src/a.ts", "export const a = 2;\n");
//! repo.commit("fix");
//! fake.open_pr("acme/web", 3, "main", "fix");
//! // ... the client reviews it, then:
//! assert!(fake.pending_reviews().is_empty());
//! assert_eq!(fake.issue_comments("acme/web", 3).len(), 1);
//! fake.check_against_openapi().assert_clean();
//! ```
//!
//! The App's webhook ([`hooks`]): the fake delivers to it as GitHub does and logs every
//! attempt, taken or not, with GitHub's fields; the App reads that log and asks for
//! redeliveries, which the fake sends again with the same GUID. Its answers on those
//! routes are checked against GitHub's response schemas too:
//!
//! ```ignore
//! fake.set_webhook(&format!("{}/webhook", server.url), SECRET);
//! let attempt = fake.send_webhook("pull_request", "guid-1", &payload).await;
//! assert_eq!(attempt.status_code, 0); // the server was down: logged as failed
//! // ... the App reads GET /app/hook/deliveries and POSTs .../attempts, then:
//! assert!(fake.hook_attempts().iter().any(|a| a.redelivery && a.status == "OK"));
//! ```
//!
//! Everything the App writes with an installation token is authored by its bot user,
//! [`BOT_LOGIN`].

#![allow(dead_code)]

mod auth;
mod checks;
mod faults;
pub mod git;
mod hooks;
mod issues;
mod manifest;
mod model;
pub mod openapi;
mod pulls;
mod routes;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use faults::Fault;
pub use git::TestRepo;
pub use hooks::HookAttempt;
pub use manifest::CreatedApp;
pub use model::{
    Author, FakeCheckRun, FakeComment, FakeReaction, FakeReview, FakeReviewComment, Recorded,
};

use model::{Installation, Model, PullRequest, Repo, Shared};

/// The test App's id.
pub const APP_ID: u64 = 4242;
/// The test App's private key, PKCS#1 (test-only key).
pub const PRIVATE_KEY_PKCS1: &str = include_str!("../../fixtures/github/test-app-key.pkcs1.pem");
/// The same key, PKCS#8.
pub const PRIVATE_KEY_PKCS8: &str = include_str!("../../fixtures/github/test-app-key.pkcs8.pem");
/// A key the fake does not know.
pub const OTHER_PRIVATE_KEY: &str = include_str!("../../fixtures/github/other-key.pkcs1.pem");
/// The test App's slug (`GET /app`).
pub const APP_SLUG: &str = "blast-radius-test";
/// The App's bot user: the author of what the App writes.
pub const BOT_LOGIN: &str = "blast-radius-test[bot]";

/// Numbers the dumps of one process.
static DUMPS: AtomicUsize = AtomicUsize::new(0);

pub struct FakeGithub {
    shared: Arc<Shared>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for FakeGithub {
    fn drop(&mut self) {
        self.server.abort();
        if let Some(dir) = std::env::var_os(openapi::RECORD_DIR_ENV) {
            let n = DUMPS.fetch_add(1, Ordering::Relaxed);
            let path = Path::new(&dir).join(format!("fake-{}-{n}.json", std::process::id()));
            self.dump_requests(&path);
        }
    }
}

impl FakeGithub {
    /// A github.com-like fake: the API at the root of `http://127.0.0.1:PORT`.
    pub async fn start() -> FakeGithub {
        FakeGithub::start_with_prefix("").await
    }

    /// A GitHub Enterprise Server-like fake: the API under `prefix` (`/api/v3`).
    pub async fn start_with_prefix(prefix: &str) -> FakeGithub {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared {
            app_id: APP_ID,
            app_slug: APP_SLUG.to_string(),
            origin: format!("http://{addr}"),
            prefix: prefix.trim_end_matches('/').to_string(),
            rate_reset: chrono::Utc::now().timestamp() + 3600,
            model: Mutex::new(Model::new()),
        });
        let app = routes::router(shared.clone());
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        FakeGithub { shared, server }
    }

    /// Its web address (github.com's part of the fake: the manifest flow's pages).
    pub fn web_url(&self) -> String {
        self.shared.origin.clone()
    }

    /// The Apps created from a manifest, in order.
    pub fn created_apps(&self) -> Vec<CreatedApp> {
        self.model().created_apps.clone()
    }

    /// The webhooks the fake delivered: (event, status the App answered).
    pub fn deliveries(&self) -> Vec<(String, u16)> {
        self.model().deliveries.clone()
    }

    /// The App's webhook: where [`send_webhook`](Self::send_webhook) and redeliveries go.
    pub fn set_webhook(&self, url: &str, secret: &str) {
        self.model().hook = Some(hooks::Hook {
            url: url.to_string(),
            secret: secret.to_string(),
        });
    }

    /// GitHub delivers `payload` as `event` with the GUID `guid` to the App's webhook, and
    /// logs the attempt (failed when the App is down, slow or answers other than 2xx:
    /// status code 0 when it gave no answer). The attempt.
    pub async fn send_webhook(
        &self,
        event: &str,
        guid: &str,
        payload: &serde_json::Value,
    ) -> HookAttempt {
        let bytes = Arc::new(serde_json::to_vec(payload).unwrap());
        hooks::deliver(&self.shared, event, guid, bytes, false).await
    }

    /// Every delivery attempt logged, oldest first.
    pub fn hook_attempts(&self) -> Vec<HookAttempt> {
        self.model().hook_attempts.clone()
    }

    /// The API root to configure the client with.
    pub fn api_url(&self) -> String {
        self.shared.api_root()
    }

    fn model(&self) -> std::sync::MutexGuard<'_, Model> {
        self.shared.model.lock().unwrap()
    }

    pub fn add_installation(&self, id: i64, account: &str) {
        self.model().installations.insert(
            id,
            Installation {
                account: account.to_string(),
                suspended: false,
            },
        );
    }

    pub fn suspend_installation(&self, id: i64, suspended: bool) {
        if let Some(i) = self.model().installations.get_mut(&id) {
            i.suspended = suspended;
        }
    }

    /// Uninstalls the App from `installation`: GitHub no longer knows it (404 as the App)
    /// and its tokens stop working.
    pub fn remove_installation(&self, id: i64) {
        let mut m = self.model();
        m.installations.remove(&id);
        m.tokens.retain(|_, t| t.installation != id);
    }

    /// Serves the git repository at `dir` as `full_name` (`owner/name`) to `installation`;
    /// returns its repository id. Several names may share one directory.
    pub fn add_repo(&self, installation: i64, full_name: &str, dir: &Path) -> i64 {
        let (owner, name) = full_name.split_once('/').expect("owner/name");
        let mut m = self.model();
        let id = m.next_repo_id;
        m.next_repo_id += 1;
        m.repos.insert(
            id,
            Repo {
                id,
                owner: owner.to_string(),
                name: name.to_string(),
                dir: dir.to_path_buf(),
                installation,
                private: true,
            },
        );
        id
    }

    /// Renames (or transfers) a repository: the id stays, the old name redirects.
    pub fn rename_repo(&self, id: i64, new_full_name: &str) {
        let (owner, name) = new_full_name.split_once('/').expect("owner/name");
        let mut m = self.model();
        let repo = m.repos.get_mut(&id).expect("a known repository");
        let old = repo.full_name().to_lowercase();
        repo.owner = owner.to_string();
        repo.name = name.to_string();
        m.old_names.insert(old, id);
    }

    /// Deletes a repository, or removes it from its installation: either way the
    /// installation no longer sees it.
    pub fn remove_repo(&self, id: i64) {
        self.model().repos.remove(&id);
    }

    /// Makes a repository public: every installation's token reads it by id.
    pub fn make_public(&self, id: i64) {
        if let Some(repo) = self.model().repos.get_mut(&id) {
            repo.private = false;
        }
    }

    /// Takes a repository out of its installation; it stays on GitHub.
    pub fn uninstall_repo(&self, id: i64) {
        if let Some(repo) = self.model().repos.get_mut(&id) {
            repo.installation = 0;
        }
    }

    /// How long new installation tokens live (GitHub: one hour).
    pub fn set_token_ttl(&self, ttl: Duration) {
        self.model().token_ttl = chrono::Duration::from_std(ttl).unwrap();
    }

    /// Every installation's rate limit back to a full hour's worth (a benchmark's next
    /// run starts as a new hour would).
    pub fn reset_rate_limits(&self) {
        self.model().rate_remaining.clear();
    }

    /// Recursive trees with more entries than `limit` answer `truncated: true` (GitHub:
    /// 100,000 entries or 7 MB).
    pub fn set_tree_limit(&self, limit: Option<usize>) {
        self.model().tree_limit = limit;
    }

    /// Answer blobs as base64 JSON even when the raw media type is asked for.
    pub fn set_blobs_as_json(&self, yes: bool) {
        self.model().blobs_as_json = yes;
    }

    /// The next `times` requests whose path (relative to the API root) contains
    /// `path_contains` answer `fault` (before any credential check, except
    /// [`Fault::AppliedThenStatus`]).
    pub fn inject(&self, path_contains: &str, times: usize, fault: Fault) {
        self.model().faults.push(faults::FaultRule {
            method: None,
            path_contains: path_contains.to_string(),
            remaining: times,
            fault,
        });
    }

    /// Like [`inject`](Self::inject), for requests with `method` only (`POST` a comment,
    /// not `GET` the list at the same path).
    pub fn inject_method(&self, method: &str, path_contains: &str, times: usize, fault: Fault) {
        self.model().faults.push(faults::FaultRule {
            method: Some(method.to_string()),
            path_contains: path_contains.to_string(),
            remaining: times,
            fault,
        });
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.model().requests.clone()
    }

    /// The requests with `method` whose path contains `fragment`.
    pub fn requests_to(&self, method: &str, fragment: &str) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == method && r.path.contains(fragment))
            .collect()
    }

    /// Writes every request so far as JSON (`{"requests": [...]}`), the dump
    /// `tests/openapi/check.mjs` reads.
    pub fn dump_requests(&self, path: &Path) {
        openapi::write_dump(&self.requests(), path);
    }

    /// Checks every request so far against GitHub's REST description (see [`openapi`]).
    /// `None` when the check is skipped (`BLAST_RADIUS_SKIP_OPENAPI=1`).
    pub fn check_against_openapi(&self) -> Option<openapi::OpenapiReport> {
        (!openapi::skipped()).then(|| openapi::check_requests(&self.requests()))
    }

    /// The requests whose path contains `fragment`.
    pub fn requests_matching(&self, fragment: &str) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.path.contains(fragment))
            .collect()
    }

    pub fn clear_requests(&self) {
        self.model().requests.clear();
    }

    /// Installation tokens minted for `installation`.
    pub fn tokens_minted(&self, installation: i64) -> usize {
        self.model().mints.get(&installation).copied().unwrap_or(0)
    }

    /// Forgets every installation token, as if they were revoked: the next request with
    /// one gets a 401.
    pub fn revoke_tokens(&self) {
        self.model().tokens.clear();
    }

    /// Every installation token the fake ever issued (to check none leaks).
    pub fn issued_tokens(&self) -> Vec<String> {
        self.model().issued.clone()
    }

    /// The claims of the last App JWT the fake accepted.
    pub fn last_jwt_claims(&self) -> Option<serde_json::Value> {
        self.model().last_jwt_claims.clone()
    }

    // ---- Pull requests ----

    fn repo_id(&self, full_name: &str) -> i64 {
        let (owner, name) = full_name.split_once('/').expect("owner/name");
        match self.model().lookup(owner, name) {
            model::Lookup::Found(r) => r.id,
            _ => panic!("no repository {full_name}"),
        }
    }

    /// Opens pull request `number` on `repo` (`owner/name`): `head_branch` into
    /// `base_branch`, both branches of the repository's git directory. Its head follows the
    /// branch (push to it and the PR is updated); its files are `git diff` between the merge
    /// base and the head; GitHub's test merge commit is made with git when asked for.
    pub fn open_pr(&self, repo: &str, number: u64, base_branch: &str, head_branch: &str) {
        self.open_pr_from(repo, number, base_branch, repo, head_branch);
    }

    /// Like [`open_pr`](Self::open_pr), from a branch of another repository (a fork, added
    /// with [`add_repo`](Self::add_repo), possibly to another installation): its commits
    /// are fetched into the base repository as `refs/pull/N/head`, as GitHub does.
    pub fn open_pr_from(
        &self,
        repo: &str,
        number: u64,
        base_branch: &str,
        head_repo: &str,
        head_branch: &str,
    ) {
        let repo_id = self.repo_id(repo);
        let head_repo_id = self.repo_id(head_repo);
        let mut m = self.model();
        let id = m.new_id();
        m.pulls.insert(
            (repo_id, number),
            PullRequest {
                id,
                repo_id,
                number,
                base_ref: base_branch.to_string(),
                head_repo_id,
                head_ref: head_branch.to_string(),
                state: "open".into(),
                draft: false,
                merged: false,
                user_login: "octocat".into(),
                mergeable_override: None,
                updated_at: chrono::Utc::now(),
            },
        );
    }

    /// Computes PR `number`'s test merge and changed files now (GitHub does it in the
    /// background when a PR opens), so that a benchmark does not time the fake's git.
    pub async fn prepare_pr(&self, repo: &str, number: u64) {
        let (owner, name) = repo.split_once('/').expect("owner/name");
        let found = match self.model().lookup(owner, name) {
            model::Lookup::Found(r) => r,
            _ => return,
        };
        pulls::prepare(&self.shared, &found, number).await;
    }

    fn with_pr(&self, repo: &str, number: u64, f: impl FnOnce(&mut PullRequest)) {
        let repo_id = self.repo_id(repo);
        let mut m = self.model();
        f(m.pulls
            .get_mut(&(repo_id, number))
            .expect("an open_pr first"));
    }

    /// Closes (or reopens) a pull request; `merged` marks it merged too.
    pub fn set_pr_state(&self, repo: &str, number: u64, open: bool, merged: bool) {
        self.with_pr(repo, number, |pr| {
            pr.state = if open { "open" } else { "closed" }.into();
            pr.merged = merged;
        });
    }

    pub fn set_pr_draft(&self, repo: &str, number: u64, draft: bool) {
        self.with_pr(repo, number, |pr| pr.draft = draft);
    }

    /// Who opened the pull request (default `octocat`).
    pub fn set_pr_author(&self, repo: &str, number: u64, login: &str) {
        self.with_pr(repo, number, |pr| pr.user_login = login.to_string());
    }

    /// Overrides `mergeable` (`Some(None)`: GitHub has not computed it yet, `mergeable: null`
    /// and no merge commit); `None` goes back to the real test merge.
    pub fn set_pr_mergeable(&self, repo: &str, number: u64, mergeable: Option<Option<bool>>) {
        self.with_pr(repo, number, |pr| pr.mergeable_override = mergeable);
    }

    /// At most this many files in a PR's file list (GitHub: 3,000).
    pub fn set_pr_files_limit(&self, limit: usize) {
        self.model().pr_files_limit = limit;
    }

    // ---- Comments, reactions, reviews, check runs: what the App wrote ----

    /// A comment by someone else than the App (`login`, a user) on issue or PR `number`.
    pub fn add_comment_as(&self, repo: &str, number: u64, login: &str, body: &str) -> u64 {
        let repo_id = self.repo_id(repo);
        let mut m = self.model();
        let id = m.new_id();
        let now = chrono::Utc::now();
        m.comments.insert(
            id,
            FakeComment {
                id,
                repo_id,
                number,
                body: body.to_string(),
                author: Author {
                    login: login.to_string(),
                    kind: if login.ends_with("[bot]") {
                        "Bot"
                    } else {
                        "User"
                    }
                    .into(),
                },
                by_app: false,
                created_at: now,
                updated_at: now,
                edits: 0,
            },
        );
        id
    }

    /// The comments on issue or PR `number`, oldest first.
    pub fn issue_comments(&self, repo: &str, number: u64) -> Vec<FakeComment> {
        let repo_id = self.repo_id(repo);
        self.model()
            .comments
            .values()
            .filter(|c| c.repo_id == repo_id && c.number == number)
            .cloned()
            .collect()
    }

    /// Every reaction, in order.
    pub fn reactions(&self) -> Vec<FakeReaction> {
        self.model().reactions.clone()
    }

    /// The reactions on one comment (`content`s, in order).
    pub fn reactions_on(&self, comment_id: u64) -> Vec<String> {
        self.model()
            .reactions
            .iter()
            .filter(|r| r.comment_id == comment_id)
            .map(|r| r.content.clone())
            .collect()
    }

    /// The check runs on a repository, oldest first.
    pub fn check_runs(&self, repo: &str) -> Vec<FakeCheckRun> {
        let repo_id = self.repo_id(repo);
        self.model()
            .check_runs
            .values()
            .filter(|r| r.repo_id == repo_id)
            .cloned()
            .collect()
    }

    /// A check run made by another App (`app_id`), e.g. a CI with the same run name.
    pub fn add_check_run_of_app(&self, repo: &str, head_sha: &str, name: &str, app_id: u64) -> u64 {
        let repo_id = self.repo_id(repo);
        let mut m = self.model();
        let id = m.new_id();
        m.check_runs.insert(
            id,
            FakeCheckRun {
                id,
                repo_id,
                app_id,
                name: name.to_string(),
                head_sha: head_sha.to_string(),
                status: "completed".into(),
                conclusion: Some("success".into()),
                external_id: None,
                details_url: None,
                title: Some("Other".into()),
                summary: Some("Another App's run".into()),
                text: None,
                annotations: Vec::new(),
                annotation_batches: Vec::new(),
                started_at: chrono::Utc::now(),
                completed_at: Some(chrono::Utc::now()),
            },
        );
        id
    }

    /// The reviews on PR `number`, oldest first.
    pub fn reviews(&self, repo: &str, number: u64) -> Vec<FakeReview> {
        let repo_id = self.repo_id(repo);
        self.model()
            .reviews
            .values()
            .filter(|r| r.repo_id == repo_id && r.number == number)
            .cloned()
            .collect()
    }

    /// Every review left PENDING (sent without an event), on any PR: the App should never
    /// leave one.
    pub fn pending_reviews(&self) -> Vec<FakeReview> {
        self.model()
            .reviews
            .values()
            .filter(|r| r.state == "PENDING")
            .cloned()
            .collect()
    }

    /// The inline review comments on PR `number`, oldest first.
    pub fn review_comments(&self, repo: &str, number: u64) -> Vec<FakeReviewComment> {
        let repo_id = self.repo_id(repo);
        self.model()
            .review_comments
            .values()
            .filter(|c| c.repo_id == repo_id && c.number == number)
            .cloned()
            .collect()
    }
}
