//! GitHub's webhook payloads as our own small types: only the fields we use, and only
//! for the (event, action) pairs we handle. Everything else is ignored, not refused:
//! GitHub adds actions and fields over time.

use serde::Deserialize;

use crate::model::{CommitSha, GithubRepoId, InstallationId};

/// A delivery's common fields, read from any event's payload.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Envelope {
    #[serde(default)]
    pub action: Option<String>,
    #[serde(default)]
    pub installation: Option<InstallationRef>,
    #[serde(default)]
    pub repository: Option<IdOnly>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct IdOnly {
    pub id: i64,
}

/// The payload's `installation` (a lite object on most events).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct InstallationRef {
    pub id: InstallationId,
}

/// An event we act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    Installation(InstallationEvent),
    InstallationRepositories(InstallationRepositoriesEvent),
    Push(PushEvent),
    Repository(RepositoryEvent),
    PullRequest(PullRequestEvent),
    IssueComment(IssueCommentEvent),
}

/// A delivery's payload, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub envelope: Envelope,
    /// None: an event or action we do not handle (`ping` among them).
    pub event: Option<Event>,
}

#[derive(thiserror::Error, Debug)]
pub enum ParseError {
    #[error("the body is not a JSON object: {0}")]
    NotJson(serde_json::Error),
    #[error("a {event} ({action}) payload lacks what we read from it: {source}")]
    Shape {
        event: String,
        action: String,
        source: serde_json::Error,
    },
}

/// Reads a delivery's payload, given its `X-GitHub-Event`.
pub fn parse(event: &str, body: &[u8]) -> Result<Parsed, ParseError> {
    let envelope: Envelope = serde_json::from_slice(body).map_err(ParseError::NotJson)?;
    let action = envelope.action.as_deref().unwrap_or("");
    let handled = match event {
        "installation" => matches!(
            action,
            "created" | "deleted" | "suspend" | "unsuspend" | "new_permissions_accepted"
        ),
        "installation_repositories" => matches!(action, "added" | "removed"),
        "push" => true,
        "repository" => matches!(action, "renamed" | "transferred" | "deleted" | "edited"),
        "pull_request" => matches!(
            action,
            "opened" | "reopened" | "synchronize" | "ready_for_review" | "closed" | "edited"
        ),
        "issue_comment" => action == "created",
        _ => false,
    };
    if !handled {
        return Ok(Parsed {
            envelope,
            event: None,
        });
    }
    let shape = |source| ParseError::Shape {
        event: event.to_string(),
        action: action.to_string(),
        source,
    };
    let event = match event {
        "installation" => Event::Installation(serde_json::from_slice(body).map_err(shape)?),
        "installation_repositories" => {
            Event::InstallationRepositories(serde_json::from_slice(body).map_err(shape)?)
        }
        "push" => Event::Push(serde_json::from_slice(body).map_err(shape)?),
        "repository" => Event::Repository(serde_json::from_slice(body).map_err(shape)?),
        "pull_request" => Event::PullRequest(serde_json::from_slice(body).map_err(shape)?),
        "issue_comment" => Event::IssueComment(serde_json::from_slice(body).map_err(shape)?),
        _ => unreachable!("only handled events get here"),
    };
    Ok(Parsed {
        envelope,
        event: Some(event),
    })
}

/// The account an App is installed on: a user or organisation (with a login) or an
/// enterprise (with a slug).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Account {
    #[serde(default)]
    pub login: Option<String>,
    #[serde(default)]
    pub slug: Option<String>,
}

impl Account {
    /// The login, or an enterprise's slug.
    pub fn name(&self) -> Option<&str> {
        self.login.as_deref().or(self.slug.as_deref())
    }
}

/// The full `installation` object of `installation*` events.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Installation {
    pub id: InstallationId,
    #[serde(default)]
    pub account: Option<Account>,
}

/// A repository as `installation*` events list them.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct RepoRef {
    pub id: GithubRepoId,
    pub full_name: String,
}

/// The `repository` object of repository-scoped events.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Repository {
    pub id: GithubRepoId,
    pub full_name: String,
    pub default_branch: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstallationAction {
    Created,
    Deleted,
    Suspend,
    Unsuspend,
    NewPermissionsAccepted,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct InstallationEvent {
    pub action: InstallationAction,
    pub installation: Installation,
    /// The repositories it was given (on `created`, and some other actions).
    #[serde(default)]
    pub repositories: Option<Vec<RepoRef>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstallationRepositoriesAction {
    Added,
    Removed,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct InstallationRepositoriesEvent {
    pub action: InstallationRepositoriesAction,
    pub installation: Installation,
    #[serde(default)]
    pub repositories_added: Vec<RepoRef>,
    #[serde(default)]
    pub repositories_removed: Vec<RepoRef>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct PushEvent {
    /// The full ref: `refs/heads/main`, `refs/tags/v1`.
    #[serde(rename = "ref")]
    pub git_ref: String,
    /// All zeros when the push created the ref.
    pub before: CommitSha,
    /// All zeros when the push deleted the ref.
    pub after: CommitSha,
    pub created: bool,
    pub deleted: bool,
    pub forced: bool,
    pub repository: Repository,
    /// Absent on a repository's own webhook (not an App's).
    #[serde(default)]
    pub installation: Option<InstallationRef>,
}

impl PushEvent {
    /// The branch name if the ref is a branch.
    pub fn branch(&self) -> Option<&str> {
        self.git_ref.strip_prefix("refs/heads/")
    }

    /// A push to the repository's default branch (what its graph follows).
    pub fn is_to_default_branch(&self) -> bool {
        self.branch() == Some(self.repository.default_branch.as_str())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepositoryAction {
    Renamed,
    Transferred,
    Deleted,
    Edited,
}

/// `changes.*.from` in `repository` events.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct ChangedFrom<T> {
    pub from: T,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct RepositoryChanges {
    /// Set on `edited` when the default branch changed.
    #[serde(default)]
    pub default_branch: Option<ChangedFrom<String>>,
    /// Set on `renamed`: the old name (without the owner).
    #[serde(default)]
    pub repository: Option<RenamedFrom>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct RenamedFrom {
    #[serde(default)]
    pub name: Option<ChangedFrom<String>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct RepositoryEvent {
    pub action: RepositoryAction,
    pub repository: Repository,
    #[serde(default)]
    pub changes: Option<RepositoryChanges>,
    #[serde(default)]
    pub installation: Option<InstallationRef>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PullRequestAction {
    Opened,
    Reopened,
    Synchronize,
    ReadyForReview,
    Closed,
    Edited,
}

/// A pull request's head or base.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct PrBranch {
    #[serde(rename = "ref")]
    pub git_ref: String,
    pub sha: CommitSha,
    /// Null when a fork's repository was deleted.
    #[serde(default)]
    pub repo: Option<IdOnly>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct PullRequest {
    pub head: PrBranch,
    pub base: PrBranch,
    #[serde(default)]
    pub draft: bool,
    #[serde(default)]
    pub merged: Option<bool>,
    /// GitHub's test merge commit while the PR is open and mergeable.
    #[serde(default)]
    pub merge_commit_sha: Option<CommitSha>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct PullRequestChanges {
    /// Set on `edited` when the base branch changed.
    #[serde(default)]
    pub base: Option<serde_json::Value>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct PullRequestEvent {
    pub action: PullRequestAction,
    pub number: u64,
    pub pull_request: PullRequest,
    pub repository: Repository,
    #[serde(default)]
    pub changes: Option<PullRequestChanges>,
    #[serde(default)]
    pub installation: Option<InstallationRef>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueCommentAction {
    Created,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct User {
    pub login: String,
    /// "User", "Bot", "Organization".
    #[serde(rename = "type")]
    pub kind: String,
}

impl User {
    pub fn is_bot(&self) -> bool {
        self.kind == "Bot"
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Issue {
    pub number: u64,
    /// Present when the issue is a pull request.
    #[serde(default)]
    pub pull_request: Option<serde_json::Value>,
}

impl Issue {
    pub fn is_pull_request(&self) -> bool {
        self.pull_request.as_ref().is_some_and(|v| !v.is_null())
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Comment {
    pub id: i64,
    #[serde(default)]
    pub body: Option<String>,
    pub user: User,
    /// How the author relates to the repository: `OWNER`, `MEMBER`, `COLLABORATOR`,
    /// `CONTRIBUTOR`, `NONE`, ...
    #[serde(default)]
    pub author_association: Option<String>,
    #[serde(default)]
    pub created_at: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct IssueCommentEvent {
    pub action: IssueCommentAction,
    pub issue: Issue,
    pub comment: Comment,
    pub repository: Repository,
    #[serde(default)]
    pub installation: Option<InstallationRef>,
}
