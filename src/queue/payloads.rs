//! The jobs the App queues, typed: each payload is the contract between intake, which
//! makes it from a delivery, and the handler that runs it.
//!
//! Keys:
//! - serialisation: `repo:<GitHub repository id>` for work on one repository (the id
//!   survives renames and transfers), `installation:<id>` for installation-wide work.
//!   Jobs of one key run one at a time, in the order they arrived.
//! - coalescing, where newer work makes older work pointless: pushes to a default branch
//!   (`apply_push:<repo>`: one catch-up to the newest head), full indexes
//!   (`index_repository:<repo>`), renames (`rename_repository:<repo>`: the newest name),
//!   installation syncs (`sync_installation:<id>`), and a pull request's analysis
//!   (`pr:<repo>:<number>`, shared by `analyze_pr` and `close_pr`: a newer push, or the
//!   PR's closing, replaces a waiting analysis and supersedes a running one).

use serde::{Deserialize, Serialize};

use super::JobPayload;
use crate::model::{CommitSha, GithubRepoId, InstallationId};

pub fn repo_key(repo: GithubRepoId) -> String {
    format!("repo:{}", repo.0)
}

pub fn installation_key(installation: InstallationId) -> String {
    format!("installation:{}", installation.0)
}

pub fn pr_key(repo: GithubRepoId, number: u64) -> String {
    format!("pr:{}:{number}", repo.0)
}

/// Bring our record of an installation in line with GitHub's: record it (created),
/// purge its data (deleted), stop or resume its work (suspend, unsuspend), catch up
/// (new permissions). The action is the reason; the handler should ask GitHub for the
/// installation's current state, since a newer sync replaces a waiting one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncInstallation {
    pub installation: InstallationId,
    pub account: Option<String>,
    pub action: String,
}

impl JobPayload for SyncInstallation {
    const KIND: &'static str = "sync_installation";
}

/// Index a repository's default branch in full (installed, added, default branch
/// changed, or created by its first push).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexRepository {
    pub installation: InstallationId,
    /// The installation's account, so the handler can record the installation if the
    /// installation's own sync has not run yet.
    pub account: Option<String>,
    pub repository: GithubRepoId,
    pub full_name: String,
    pub reason: String,
}

impl JobPayload for IndexRepository {
    const KIND: &'static str = "index_repository";
}

/// Bring a repository's graph to the pushed head of its default branch. Coalesced: the
/// payload is the newest push; the handler diffs from the commit the stored graph
/// reflects (not `before`), so missed and forced pushes converge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplyPush {
    pub installation: InstallationId,
    pub repository: GithubRepoId,
    pub full_name: String,
    pub default_branch: String,
    pub before: CommitSha,
    pub after: CommitSha,
    pub forced: bool,
}

impl JobPayload for ApplyPush {
    const KIND: &'static str = "apply_push";
}

/// Delete everything stored of a repository (deleted, or removed from the installation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PurgeRepository {
    pub installation: InstallationId,
    pub repository: GithubRepoId,
    pub full_name: String,
}

impl JobPayload for PurgeRepository {
    const KIND: &'static str = "purge_repository";
}

/// A repository was renamed or transferred: same id, new name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenameRepository {
    pub installation: InstallationId,
    pub repository: GithubRepoId,
    pub full_name: String,
}

impl JobPayload for RenameRepository {
    const KIND: &'static str = "rename_repository";
}

/// Compute and post a pull request's blast radius.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalyzePr {
    pub installation: InstallationId,
    pub repository: GithubRepoId,
    pub full_name: String,
    pub default_branch: String,
    pub number: u64,
    pub action: String,
    pub head_sha: CommitSha,
    pub head_ref: String,
    /// The head's repository: another id for a PR from a fork; None if the fork is gone.
    pub head_repository: Option<GithubRepoId>,
    pub base_sha: CommitSha,
    pub base_ref: String,
    pub merge_commit_sha: Option<CommitSha>,
    pub draft: bool,
}

impl JobPayload for AnalyzePr {
    const KIND: &'static str = "analyze_pr";
}

/// A pull request was closed: nothing more to analyse (it supersedes a running
/// analysis and replaces a waiting one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosePr {
    pub installation: InstallationId,
    pub repository: GithubRepoId,
    pub full_name: String,
    pub number: u64,
    pub merged: bool,
}

impl JobPayload for ClosePr {
    const KIND: &'static str = "close_pr";
}

/// New comments on a pull request that hold commands (`/callers ...`). Comments that
/// come while one waits join its batch (see [`NewJob::batched`](super::NewJob::batched)): one job answers them
/// all, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerCommand {
    pub installation: InstallationId,
    pub repository: GithubRepoId,
    pub full_name: String,
    pub number: u64,
    /// The comments, oldest first.
    #[serde(default)]
    pub batch: Vec<CommandComment>,
    /// A payload queued by a version before batches: one comment, whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment_id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// One comment's commands, as the job needs them: never the whole comment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandComment {
    pub comment_id: i64,
    pub author: String,
    /// GitHub's `author_association`; None from a payload without it (then the commenter
    /// is answered only if the repository answers everyone).
    #[serde(default)]
    pub association: Option<String>,
    /// When it was written: the reply to it is never older.
    #[serde(default)]
    pub created_at: Option<chrono::DateTime<chrono::Utc>>,
    /// The lines that start a command, at most [`MAX_COMMANDS_PER_COMMENT`], each cut
    /// at [`MAX_COMMAND_LINE`] characters.
    pub lines: Vec<String>,
    /// Command lines past the first [`MAX_COMMANDS_PER_COMMENT`]: not answered, counted.
    #[serde(default)]
    pub more: usize,
}

/// Commands answered per comment: each costs GitHub calls on the installation's shared
/// rate limit, and one comment can hold thousands of lines.
pub const MAX_COMMANDS_PER_COMMENT: usize = 5;
/// A command line longer than this is cut (names are short; this is only a bound).
pub const MAX_COMMAND_LINE: usize = 1000;

impl JobPayload for AnswerCommand {
    const KIND: &'static str = "answer_command";
}
