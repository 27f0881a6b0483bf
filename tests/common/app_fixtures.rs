//! The acme installation's deliveries and repositories, and what the App stored of them:
//! shared by the App's tests in this process (`tests/app`) and as a process
//! (`tests/process`).

use blast_radius::graph::EdgeKey;
use blast_radius::indexer::skip::SkipRules;
use blast_radius::model::CommitSha;
use blast_radius::store::Store;
use blast_radius::workflow::index::index;
use blast_radius::workflow::progress::Silent;
use blast_radius::workspace::git::{GitRepo, GitRevision};
use serde_json::json;
use sqlx::PgPool;

use crate::common;
use crate::fake_github::{FakeGithub, TestRepo};

pub const INSTALLATION: i64 = 7;

/// The edges of a full local index of `commit`.
pub fn local_edges(repo: &TestRepo, commit: &str) -> Vec<EdgeKey> {
    let git = GitRepo::open(repo.path()).unwrap();
    let revision = GitRevision {
        repo: &git,
        commit: CommitSha::from(commit),
    };
    index(&revision, &SkipRules::default(), &Silent)
        .unwrap()
        .graph
        .edge_keys()
}

/// The stored graph of `name`: its commit and edges.
pub async fn stored(pool: &PgPool, name: &str) -> (Option<String>, Vec<EdgeKey>) {
    let store = Store::from_pool(pool.clone());
    let state = store.repository(name).await.unwrap();
    let (graph, _) = store.load_graph(state.id).await.unwrap();
    (state.commit.map(|c| c.0), graph.edge_keys())
}

pub fn installed(repo_id: i64, name: &str) -> serde_json::Value {
    json!({
        "action": "created",
        "installation": { "id": INSTALLATION, "account": { "login": "acme" } },
        "repositories": [ { "id": repo_id, "full_name": name } ],
    })
}

pub fn pushed(
    repo_id: i64,
    name: &str,
    before: &str,
    after: &str,
    forced: bool,
) -> serde_json::Value {
    json!({
        "ref": "refs/heads/main",
        "before": before,
        "after": after,
        "created": false,
        "deleted": false,
        "forced": forced,
        "repository": { "id": repo_id, "full_name": name, "default_branch": "main" },
        "installation": { "id": INSTALLATION },
    })
}

/// The classifyFields change on branch `fix` of `repo` (committed with `message`), opened
/// as PR #1 of acme/web; its head.
pub fn open_classify_pr(fake: &FakeGithub, repo: &TestRepo, message: &str) -> String {
    repo.git(&["checkout", "-q", "-b", "fix"]);
    common::copy_dir(&common::fixture("blast/classify/head"), repo.path());
    let head = repo.commit(message);
    repo.git(&["checkout", "-q", "main"]);
    fake.open_pr("acme/web", 1, "main", "fix");
    head
}

/// The classify fixture as a repository with one commit.
pub fn classify_repo() -> TestRepo {
    let repo = TestRepo::new();
    common::copy_dir(&common::fixture("blast/classify/base"), repo.path());
    repo.commit("base");
    repo
}

pub async fn count(pool: &PgPool, sql: &str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(pool).await.unwrap()
}

pub fn pr_event(
    action: &str,
    repo_id: i64,
    number: u64,
    head: &str,
    base: &str,
) -> serde_json::Value {
    json!({
        "action": action,
        "number": number,
        "pull_request": {
            "head": { "ref": "fix", "sha": head, "repo": { "id": repo_id } },
            "base": { "ref": "main", "sha": base, "repo": { "id": repo_id } },
            "draft": false,
        },
        "repository": { "id": repo_id, "full_name": "acme/web", "default_branch": "main" },
        "installation": { "id": INSTALLATION },
    })
}

/// A member's comment on pull request #1 of acme/web, as GitHub delivers it (a command
/// such as `/callers f`).
pub fn member_comment(repo_id: i64, comment: u64, body: &str) -> serde_json::Value {
    json!({
        "action": "created",
        "issue": { "number": 1, "pull_request": { "url": "x" } },
        "comment": { "id": comment, "body": body, "user": { "login": "dev", "type": "User" }, "author_association": "MEMBER" },
        "repository": { "id": repo_id, "full_name": "acme/web", "default_branch": "main" },
        "installation": { "id": INSTALLATION },
    })
}
