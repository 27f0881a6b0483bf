//! What the fake knows: installations, repositories (backed by real git directories),
//! tokens, the request log and the failures still to inject. Routes read and change it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use super::faults::{Fault, FaultRule};
use super::git::FileDiff;

/// One request as the fake received it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Recorded {
    /// Order of arrival, from 0, over the fake's life.
    pub seq: u64,
    pub method: String,
    /// Relative to the API root (a GHES `/api/v3` prefix removed).
    pub path: String,
    pub query: Option<String>,
    /// The `Accept` header.
    pub accept: Option<String>,
    /// The body: its JSON, or its text as a JSON string when it is not JSON; `None` when
    /// empty.
    pub body: Option<Value>,
    /// The status answered (`None` while the answer is under way).
    pub status: Option<u16>,
    /// The JSON answered, kept only for the routes whose answers the OpenAPI check
    /// validates too (see `routes::RESPONSES_CHECKED`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<Value>,
}

impl Recorded {
    /// `GET /repos/o/r/git/blobs/abc`: handy for assertions.
    pub fn line(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

/// A pull request on one of the fake's repositories. Its head and base shas are read from
/// the branches at each request, as GitHub follows pushes.
#[derive(Clone, Debug)]
pub(crate) struct PullRequest {
    pub id: u64,
    pub repo_id: i64,
    pub number: u64,
    pub base_ref: String,
    /// The repository the head branch is in (another one for a fork).
    pub head_repo_id: i64,
    pub head_ref: String,
    /// `open` or `closed`.
    pub state: String,
    pub draft: bool,
    pub merged: bool,
    pub user_login: String,
    /// Set by a test: `Some(None)` is "GitHub is still computing it".
    pub mergeable_override: Option<Option<bool>>,
    /// When it was opened (or last opened again): the order of `sort=updated`.
    pub updated_at: DateTime<Utc>,
}

/// Who wrote something.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Author {
    pub login: String,
    /// `User` or `Bot`.
    pub kind: String,
}

/// An issue comment (the PR conversation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FakeComment {
    pub id: u64,
    pub repo_id: i64,
    pub number: u64,
    pub body: String,
    pub author: Author,
    /// Written with an installation token of the App.
    pub by_app: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// How many times it was edited.
    pub edits: usize,
}

/// A reaction on an issue comment or a review comment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FakeReaction {
    pub id: u64,
    /// `issue_comment` or `review_comment`.
    pub subject: String,
    pub comment_id: u64,
    pub content: String,
    pub user: String,
}

/// A check run, with everything it was sent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FakeCheckRun {
    pub id: u64,
    pub repo_id: i64,
    pub app_id: u64,
    pub name: String,
    pub head_sha: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub external_id: Option<String>,
    pub details_url: Option<String>,
    pub title: Option<String>,
    pub summary: Option<String>,
    pub text: Option<String>,
    /// Every annotation, appended in the order received.
    pub annotations: Vec<Value>,
    /// How many annotations each create or update request carried (0 for none).
    pub annotation_batches: Vec<usize>,
    pub started_at: DateTime<Utc>,
    pub completed_at: Option<DateTime<Utc>>,
}

/// A review.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FakeReview {
    pub id: u64,
    pub repo_id: i64,
    pub number: u64,
    pub author: Author,
    pub body: String,
    /// `COMMENTED`, `APPROVED`, `CHANGES_REQUESTED` or `PENDING` (no event given).
    pub state: String,
    pub commit_id: String,
    pub submitted_at: Option<DateTime<Utc>>,
}

/// An inline review comment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FakeReviewComment {
    pub id: u64,
    pub review_id: u64,
    pub repo_id: i64,
    pub number: u64,
    pub path: String,
    pub line: u64,
    pub start_line: Option<u64>,
    pub side: String,
    pub start_side: Option<String>,
    pub body: String,
    pub author: Author,
    pub commit_id: String,
    pub diff_hunk: String,
}

/// GitHub's test merge of a PR's head into its base.
#[derive(Clone, Debug)]
pub(crate) struct TestMerge {
    /// `None` when head does not merge cleanly.
    pub commit: Option<String>,
}

pub(crate) struct Installation {
    pub account: String,
    pub suspended: bool,
}

#[derive(Clone)]
pub(crate) struct Repo {
    pub id: i64,
    pub owner: String,
    pub name: String,
    pub dir: PathBuf,
    pub installation: i64,
    pub private: bool,
}

impl Repo {
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }
}

pub(crate) struct IssuedToken {
    pub installation: i64,
    pub expires_at: DateTime<Utc>,
}

/// Where a repository name leads.
pub(crate) enum Lookup {
    Found(Repo),
    /// An old name: the repository's current one.
    Moved(Repo),
    Missing,
}

pub(crate) struct Model {
    pub installations: BTreeMap<i64, Installation>,
    pub repos: BTreeMap<i64, Repo>,
    /// Lower-cased old `owner/name` → repository id.
    pub old_names: HashMap<String, i64>,
    pub next_repo_id: i64,
    pub tokens: HashMap<String, IssuedToken>,
    /// Every token ever minted, revoked ones included.
    pub issued: Vec<String>,
    pub download_tokens: HashSet<String>,
    pub mints: HashMap<i64, usize>,
    pub token_ttl: chrono::Duration,
    pub requests: Vec<Recorded>,
    pub faults: Vec<FaultRule>,
    /// Recursive trees with more entries than this answer `truncated`.
    pub tree_limit: Option<usize>,
    /// Answer blobs as base64 JSON whatever the `Accept` header asks.
    pub blobs_as_json: bool,
    pub last_jwt_claims: Option<serde_json::Value>,
    pub rate_remaining: HashMap<i64, u32>,
    pub next_seq: u64,
    /// Ids for comments, reviews, check runs, reactions: one sequence, as GitHub's are
    /// unique across kinds in practice.
    pub next_id: u64,
    /// `(repository id, number)` → the pull request.
    pub pulls: BTreeMap<(i64, u64), PullRequest>,
    pub comments: BTreeMap<u64, FakeComment>,
    pub reactions: Vec<FakeReaction>,
    pub check_runs: BTreeMap<u64, FakeCheckRun>,
    pub reviews: BTreeMap<u64, FakeReview>,
    pub review_comments: BTreeMap<u64, FakeReviewComment>,
    /// `(directory, base sha, head sha)` → the test merge.
    pub merges: HashMap<(PathBuf, String, String), TestMerge>,
    /// `(directory, from sha, to sha)` → the files changed.
    pub diffs: HashMap<(PathBuf, String, String), Arc<Vec<FileDiff>>>,
    /// The most files a PR's file list shows (GitHub: 3,000).
    pub pr_files_limit: usize,
    /// Apps created from a manifest.
    pub created_apps: Vec<super::manifest::CreatedApp>,
    /// Webhooks the fake delivered: (event, the status the App answered; 0 when none).
    pub deliveries: Vec<(String, u16)>,
    /// The App's webhook, once a test sets it.
    pub hook: Option<super::hooks::Hook>,
    /// Every attempt at delivering to it, in order.
    pub hook_attempts: Vec<super::hooks::HookAttempt>,
}

impl Model {
    pub fn new() -> Model {
        Model {
            installations: BTreeMap::new(),
            repos: BTreeMap::new(),
            old_names: HashMap::new(),
            next_repo_id: 1000,
            tokens: HashMap::new(),
            issued: Vec::new(),
            download_tokens: HashSet::new(),
            mints: HashMap::new(),
            token_ttl: chrono::Duration::hours(1),
            requests: Vec::new(),
            faults: Vec::new(),
            tree_limit: None,
            blobs_as_json: false,
            last_jwt_claims: None,
            rate_remaining: HashMap::new(),
            next_seq: 0,
            next_id: 1_000_001,
            pulls: BTreeMap::new(),
            comments: BTreeMap::new(),
            reactions: Vec::new(),
            check_runs: BTreeMap::new(),
            reviews: BTreeMap::new(),
            review_comments: BTreeMap::new(),
            merges: HashMap::new(),
            diffs: HashMap::new(),
            pr_files_limit: 3000,
            created_apps: Vec::new(),
            deliveries: Vec::new(),
            hook: None,
            hook_attempts: Vec::new(),
        }
    }

    pub fn new_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    pub fn lookup(&self, owner: &str, name: &str) -> Lookup {
        let wanted = format!("{owner}/{name}").to_lowercase();
        if let Some(repo) = self
            .repos
            .values()
            .find(|r| r.full_name().to_lowercase() == wanted)
        {
            return Lookup::Found(repo.clone());
        }
        match self
            .old_names
            .get(&wanted)
            .and_then(|id| self.repos.get(id))
        {
            Some(repo) => Lookup::Moved(repo.clone()),
            None => Lookup::Missing,
        }
    }

    /// The first injected failure for `method path`, used up by one.
    pub fn take_fault(&mut self, method: &str, path: &str) -> Option<Fault> {
        let rule = self.faults.iter_mut().find(|r| {
            r.remaining > 0
                && path.contains(&r.path_contains)
                && r.method
                    .as_deref()
                    .is_none_or(|m| m.eq_ignore_ascii_case(method))
        })?;
        rule.remaining -= 1;
        let fault = rule.fault.clone();
        self.faults.retain(|r| r.remaining > 0);
        Some(fault)
    }

    /// One request's worth of this installation's rate limit; what is left.
    pub fn spend(&mut self, installation: i64) -> u32 {
        let left = self.rate_remaining.entry(installation).or_insert(5000);
        *left = left.saturating_sub(1);
        *left
    }
}

/// The model behind a lock, plus what never changes.
pub(crate) struct Shared {
    pub app_id: u64,
    pub app_slug: String,
    /// `http://127.0.0.1:PORT`.
    pub origin: String,
    /// `""` or a GHES-style `/api/v3`.
    pub prefix: String,
    /// When every installation's rate-limit window resets.
    pub rate_reset: i64,
    pub model: Mutex<Model>,
}

impl Shared {
    pub fn api_root(&self) -> String {
        format!("{}{}", self.origin, self.prefix)
    }
}
