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
//! The model ([`model`]) and the routes ([`routes`]) are apart so that more of GitHub
//! (pull request files, comments, reviews, check runs) can be added beside them.

#![allow(dead_code)]

mod auth;
mod faults;
mod git;
mod model;
mod routes;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use faults::Fault;
pub use git::TestRepo;
pub use model::Recorded;

use model::{Installation, Model, Repo, Shared};

/// The test App's id.
pub const APP_ID: u64 = 4242;
/// The test App's private key, PKCS#1 (test-only key).
pub const PRIVATE_KEY_PKCS1: &str = include_str!("../../fixtures/github/test-app-key.pkcs1.pem");
/// The same key, PKCS#8.
pub const PRIVATE_KEY_PKCS8: &str = include_str!("../../fixtures/github/test-app-key.pkcs8.pem");
/// A key the fake does not know.
pub const OTHER_PRIVATE_KEY: &str = include_str!("../../fixtures/github/other-key.pkcs1.pem");

pub struct FakeGithub {
    shared: Arc<Shared>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for FakeGithub {
    fn drop(&mut self) {
        self.server.abort();
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

    /// How long new installation tokens live (GitHub: one hour).
    pub fn set_token_ttl(&self, ttl: Duration) {
        self.model().token_ttl = chrono::Duration::from_std(ttl).unwrap();
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
    /// `path_contains` answer `fault` (before any credential check).
    pub fn inject(&self, path_contains: &str, times: usize, fault: Fault) {
        self.model().faults.push(faults::FaultRule {
            path_contains: path_contains.to_string(),
            remaining: times,
            fault,
        });
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.model().requests.clone()
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
}
