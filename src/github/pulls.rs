//! Pull requests: one PR's state and branches, and the files it changes with their patches.

use serde::Deserialize;

use super::compare::FileStatus;
use super::error::Result;
use super::installation::Installation;
use super::repos::RepoName;
use crate::model::{BlobSha, CommitSha, GithubRepoId, RepoPath};

/// GitHub lists at most this many files of a pull request ("Responses include a maximum of
/// 3000 files").
pub const PR_FILES_LIMIT: usize = 3000;

/// Open or closed (a merged PR is closed, with `merged`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PrState {
    Open,
    Closed,
    #[serde(other)]
    Unknown,
}

/// One side of a pull request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrBranch {
    pub sha: CommitSha,
    /// The branch name (`feature/x`), not `refs/heads/...`.
    pub ref_name: String,
    /// The repository the branch lives in; `None` when it was deleted (a fork removed).
    pub repo_id: Option<GithubRepoId>,
    pub repo_name: Option<RepoName>,
}

/// A pull request, with only the fields we use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PullRequest {
    pub number: u64,
    /// Its title (anyone's text: escape it wherever it is shown).
    pub title: String,
    pub state: PrState,
    pub draft: bool,
    pub merged: bool,
    /// Who opened it.
    pub user_login: String,
    pub head: PrBranch,
    pub base: PrBranch,
    /// GitHub's test merge commit of head into base, when it could make one (the code as it
    /// will be once merged). Trust it only when `mergeable` is `Some(true)`.
    pub merge_commit_sha: Option<CommitSha>,
    /// `None` while GitHub is still computing it (asking again later gets the answer).
    pub mergeable: Option<bool>,
}

impl PullRequest {
    /// Whether the head branch lives in another repository than the base (a fork), or in a
    /// repository since deleted.
    pub fn is_from_fork(&self) -> bool {
        self.head.repo_id.is_none() || self.head.repo_id != self.base.repo_id
    }

    pub fn is_open(&self) -> bool {
        self.state == PrState::Open
    }
}

/// One file a pull request changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrFile {
    pub path: RepoPath,
    /// The path before a rename (or the source of a copy).
    pub previous_path: Option<RepoPath>,
    pub status: FileStatus,
    /// The file's blob at the head (for a removed file, GitHub's sha is not to be fetched).
    pub sha: Option<BlobSha>,
    pub additions: u64,
    pub deletions: u64,
    /// The unified-diff hunks; absent for binary files, pure renames, and diffs GitHub finds
    /// too large to show.
    pub patch: Option<String>,
}

/// The files of a pull request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrFiles {
    pub files: Vec<PrFile>,
    /// GitHub listed [`PR_FILES_LIMIT`] files: the PR may change more that it will not
    /// list. Say so in what is posted.
    pub hit_limit: bool,
}

#[derive(Deserialize)]
struct PullRequestJson {
    number: u64,
    #[serde(default)]
    title: String,
    state: PrState,
    #[serde(default)]
    draft: bool,
    #[serde(default)]
    merged: bool,
    user: Option<UserJson>,
    head: BranchJson,
    base: BranchJson,
    merge_commit_sha: Option<String>,
    mergeable: Option<bool>,
    #[serde(default)]
    updated_at: Option<chrono::DateTime<chrono::Utc>>,
}

impl From<PullRequestJson> for PullRequest {
    fn from(json: PullRequestJson) -> PullRequest {
        PullRequest {
            number: json.number,
            title: json.title,
            state: json.state,
            draft: json.draft,
            merged: json.merged,
            user_login: json.user.map(|u| u.login).unwrap_or_default(),
            head: json.head.into(),
            base: json.base.into(),
            merge_commit_sha: json
                .merge_commit_sha
                .filter(|s| !s.is_empty())
                .map(CommitSha),
            mergeable: json.mergeable,
        }
    }
}

/// An open pull request as GitHub lists them, with when it last changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenPullRequest {
    pub pr: PullRequest,
    pub updated_at: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(Deserialize)]
pub(crate) struct UserJson {
    pub login: String,
}

#[derive(Deserialize)]
struct BranchJson {
    sha: String,
    #[serde(rename = "ref")]
    ref_name: String,
    repo: Option<BranchRepoJson>,
}

#[derive(Deserialize)]
struct BranchRepoJson {
    id: i64,
    full_name: Option<String>,
}

impl From<BranchJson> for PrBranch {
    fn from(b: BranchJson) -> PrBranch {
        PrBranch {
            sha: CommitSha(b.sha),
            ref_name: b.ref_name,
            repo_id: b.repo.as_ref().map(|r| GithubRepoId(r.id)),
            repo_name: b
                .repo
                .and_then(|r| r.full_name)
                .and_then(|n| n.parse().ok()),
        }
    }
}

#[derive(Deserialize)]
struct PrFileJson {
    filename: String,
    previous_filename: Option<String>,
    status: FileStatus,
    sha: Option<String>,
    #[serde(default)]
    additions: u64,
    #[serde(default)]
    deletions: u64,
    patch: Option<String>,
}

impl Installation {
    /// `GET /repos/{owner}/{repo}/pulls/{number}`.
    pub async fn get_pull_request(&self, repo: &RepoName, number: u64) -> Result<PullRequest> {
        let route = format!("{}/pulls/{number}", repo.route());
        let json: PullRequestJson = self.sender().get_json(route).await?;
        Ok(json.into())
    }

    /// `GET /repos/{owner}/{repo}/pulls?state=open&sort=updated&direction=desc`: the
    /// `max` (at most 100: one page) most recently updated open pull requests.
    pub async fn list_open_pull_requests(
        &self,
        repo: &RepoName,
        max: u32,
    ) -> Result<Vec<OpenPullRequest>> {
        let route = format!(
            "{}/pulls?state=open&sort=updated&direction=desc&per_page={}",
            repo.route(),
            max.clamp(1, 100)
        );
        let page: Vec<PullRequestJson> = self.sender().get_json(route).await?;
        Ok(page
            .into_iter()
            .map(|json| OpenPullRequest {
                updated_at: json.updated_at,
                pr: json.into(),
            })
            .collect())
    }

    /// `GET /repos/{owner}/{repo}/pulls/{number}/files`, every page (100 files a page), up
    /// to GitHub's [`PR_FILES_LIMIT`].
    pub async fn list_pull_request_files(&self, repo: &RepoName, number: u64) -> Result<PrFiles> {
        let route = format!("{}/pulls/{number}/files", repo.route());
        let mut raw = self
            .sender()
            .get_all_pages(&route, |page: Vec<PrFileJson>| page)
            .await?;
        raw.truncate(PR_FILES_LIMIT);
        let hit_limit = raw.len() >= PR_FILES_LIMIT;
        let files = raw
            .into_iter()
            .map(|f| PrFile {
                path: RepoPath(f.filename),
                previous_path: f.previous_filename.map(RepoPath),
                status: f.status,
                sha: f.sha.filter(|s| !s.is_empty()).map(BlobSha),
                additions: f.additions,
                deletions: f.deletions,
                patch: f.patch,
            })
            .collect();
        Ok(PrFiles { files, hit_limit })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fork_and_a_deleted_head_repository() {
        let json = |head_repo: &str| {
            format!(
                r#"{{"number":3,"state":"open","draft":false,"user":{{"login":"octo"}},
                "head":{{"sha":"a","ref":"fix","repo":{head_repo}}},
                "base":{{"sha":"b","ref":"main","repo":{{"id":1,"full_name":"acme/web"}}}},
                "merge_commit_sha":null,"mergeable":null}}"#
            )
        };
        let pr = |head_repo: &str| {
            let j: PullRequestJson = serde_json::from_str(&json(head_repo)).unwrap();
            PullRequest {
                number: j.number,
                title: j.title,
                state: j.state,
                draft: j.draft,
                merged: j.merged,
                user_login: String::new(),
                head: j.head.into(),
                base: j.base.into(),
                merge_commit_sha: None,
                mergeable: j.mergeable,
            }
        };
        let same = pr(r#"{"id":1,"full_name":"acme/web"}"#);
        assert!(!same.is_from_fork());
        assert_eq!(same.base.repo_name, Some(RepoName::new("acme", "web")));
        assert!(pr(r#"{"id":2,"full_name":"someone/web"}"#).is_from_fork());
        assert!(pr("null").is_from_fork());
    }
}
