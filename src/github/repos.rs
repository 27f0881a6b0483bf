//! Repositories: which ones the installation sees, one by name or id, a branch's head.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

use super::error::{GithubError, Result};
use super::installation::Installation;
use super::transport::encode_path;
use crate::model::{CommitSha, GithubRepoId};

/// `owner/name`, as in GitHub's URLs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RepoName {
    pub owner: String,
    pub name: String,
}

impl RepoName {
    pub fn new(owner: impl Into<String>, name: impl Into<String>) -> RepoName {
        RepoName {
            owner: owner.into(),
            name: name.into(),
        }
    }

    /// `/repos/{owner}/{name}`.
    pub(crate) fn route(&self) -> String {
        format!(
            "/repos/{}/{}",
            encode_path(&self.owner, false),
            encode_path(&self.name, false)
        )
    }
}

impl fmt::Display for RepoName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

impl FromStr for RepoName {
    type Err = GithubError;

    fn from_str(s: &str) -> Result<RepoName> {
        match s.split_once('/') {
            Some((owner, name)) if !owner.is_empty() && !name.is_empty() && !name.contains('/') => {
                Ok(RepoName::new(owner, name))
            }
            _ => Err(GithubError::Config(format!(
                "{s:?} is not a repository name: write it as owner/repo"
            ))),
        }
    }
}

/// A repository as GitHub describes it (only the fields we use).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repository {
    /// Stable across renames and transfers: the key.
    pub id: GithubRepoId,
    /// The current `owner/name`.
    pub name: RepoName,
    /// `None` for an empty repository.
    pub default_branch: Option<String>,
    pub private: bool,
    pub archived: bool,
}

#[derive(Deserialize)]
struct RepositoryJson {
    id: i64,
    full_name: String,
    default_branch: Option<String>,
    #[serde(default)]
    private: bool,
    #[serde(default)]
    archived: bool,
}

impl RepositoryJson {
    fn into_repository(self, what: &str) -> Result<Repository> {
        let name = self.full_name.parse().map_err(|_| GithubError::Decode {
            what: what.to_string(),
            message: format!("full_name {:?} is not owner/repo", self.full_name),
        })?;
        Ok(Repository {
            id: GithubRepoId(self.id),
            name,
            default_branch: self.default_branch.filter(|b| !b.is_empty()),
            private: self.private,
            archived: self.archived,
        })
    }
}

#[derive(Deserialize)]
struct InstallationReposPage {
    repositories: Vec<RepositoryJson>,
}

#[derive(Deserialize)]
struct BranchJson {
    commit: CommitRefJson,
}

#[derive(Deserialize)]
struct CommitRefJson {
    sha: String,
}

impl Installation {
    /// `GET /installation/repositories`, every page: the repositories this installation
    /// can see.
    pub async fn list_repositories(&self) -> Result<Vec<Repository>> {
        let route = "/installation/repositories";
        let raw = self
            .sender()
            .get_all_pages(route, |page: InstallationReposPage| page.repositories)
            .await?;
        let what = format!("GET {route}");
        raw.into_iter().map(|r| r.into_repository(&what)).collect()
    }

    /// `GET /repos/{owner}/{repo}`. A renamed repository answers under its new name
    /// (GitHub redirects the old one).
    pub async fn get_repository(&self, repo: &RepoName) -> Result<Repository> {
        let route = repo.route();
        let json: RepositoryJson = self.sender().get_json(&route).await?;
        json.into_repository(&format!("GET {route}"))
    }

    /// `GET /repositories/{id}`: follows a repository across renames and transfers.
    pub async fn get_repository_by_id(&self, id: GithubRepoId) -> Result<Repository> {
        let route = format!("/repositories/{}", id.0);
        let json: RepositoryJson = self.sender().get_json(&route).await?;
        json.into_repository(&format!("GET {route}"))
    }

    /// `GET /repos/{owner}/{repo}/branches/{branch}`: the commit the branch points at.
    pub async fn branch_head(&self, repo: &RepoName, branch: &str) -> Result<CommitSha> {
        let route = format!("{}/branches/{}", repo.route(), encode_path(branch, true));
        let json: BranchJson = self.sender().get_json(route).await?;
        Ok(CommitSha(json.commit.sha))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_names() {
        let r: RepoName = "acme/web-app".parse().unwrap();
        assert_eq!(r, RepoName::new("acme", "web-app"));
        assert_eq!(r.to_string(), "acme/web-app");
        assert_eq!(r.route(), "/repos/acme/web-app");
        for bad in ["acme", "/x", "x/", "a/b/c"] {
            let err = bad.parse::<RepoName>().unwrap_err();
            assert!(err.to_string().contains("owner/repo"), "{err}");
        }
    }
}
