//! Which jobs a delivery makes: the pure mapping from our typed events to the queue's
//! payloads ([`crate::queue::payloads`], where their keys are described), and the bounded
//! reading of a comment's commands.

use super::events::{
    Event, InstallationAction, InstallationEvent, InstallationRepositoriesAction,
    InstallationRepositoriesEvent, IssueCommentEvent, PullRequestAction, PullRequestEvent,
    PushEvent, RepoRef, RepositoryAction, RepositoryEvent,
};
use crate::model::{GithubRepoId, InstallationId};
use crate::queue::payloads::{
    installation_key, pr_key, repo_key, AnalyzePr, AnswerCommand, ApplyPush, ClosePr,
    CommandComment, IndexRepository, PurgeRepository, RenameRepository, SyncInstallation,
    MAX_COMMANDS_PER_COMMENT, MAX_COMMAND_LINE,
};
use crate::queue::NewJob;

/// The jobs an event asks for; none means the delivery is recorded and ignored.
pub fn jobs_for(event: &Event) -> Vec<NewJob> {
    match event {
        Event::Installation(e) => installation(e),
        Event::InstallationRepositories(e) => installation_repositories(e),
        Event::Push(e) => push(e),
        Event::Repository(e) => repository(e),
        Event::PullRequest(e) => pull_request(e),
        Event::IssueComment(e) => issue_comment(e),
    }
}

fn installation(e: &InstallationEvent) -> Vec<NewJob> {
    let id = e.installation.id;
    let account = e
        .installation
        .account
        .as_ref()
        .and_then(|a| a.name().map(str::to_string));
    let action = match e.action {
        InstallationAction::Created => "created",
        InstallationAction::Deleted => "deleted",
        InstallationAction::Suspend => "suspend",
        InstallationAction::Unsuspend => "unsuspend",
        InstallationAction::NewPermissionsAccepted => "new_permissions_accepted",
    };
    let mut jobs = vec![NewJob::of(&SyncInstallation {
        installation: id,
        account: account.clone(),
        action: action.to_string(),
    })
    .serial(installation_key(id))
    .coalesce(format!("sync_installation:{}", id.0))];
    if e.action == InstallationAction::Created {
        for repo in e.repositories.iter().flatten() {
            jobs.push(index(id, account.clone(), repo, "installed"));
        }
    }
    jobs
}

fn index(
    installation: InstallationId,
    account: Option<String>,
    repo: &RepoRef,
    reason: &str,
) -> NewJob {
    NewJob::of(&IndexRepository {
        installation,
        account,
        repository: repo.id,
        full_name: repo.full_name.clone(),
        reason: reason.to_string(),
    })
    .serial(repo_key(repo.id))
    .coalesce(format!("index_repository:{}", repo.id.0))
}

fn installation_repositories(e: &InstallationRepositoriesEvent) -> Vec<NewJob> {
    let id = e.installation.id;
    let account = e
        .installation
        .account
        .as_ref()
        .and_then(|a| a.name().map(str::to_string));
    match e.action {
        InstallationRepositoriesAction::Added => e
            .repositories_added
            .iter()
            .map(|repo| index(id, account.clone(), repo, "added to the installation"))
            .collect(),
        InstallationRepositoriesAction::Removed => e
            .repositories_removed
            .iter()
            .map(|repo| purge(id, repo.id, &repo.full_name))
            .collect(),
    }
}

fn purge(installation: InstallationId, repo: GithubRepoId, full_name: &str) -> NewJob {
    NewJob::of(&PurgeRepository {
        installation,
        repository: repo,
        full_name: full_name.to_string(),
    })
    .serial(repo_key(repo))
}

/// Pushes to other branches, tags and branch deletions change nothing we keep.
fn push(e: &PushEvent) -> Vec<NewJob> {
    let Some(installation) = &e.installation else {
        return Vec::new();
    };
    if e.deleted || !e.is_to_default_branch() {
        return Vec::new();
    }
    let repo = &e.repository;
    if e.created {
        // The default branch's first push: there is nothing to diff against.
        let r = RepoRef {
            id: repo.id,
            full_name: repo.full_name.clone(),
        };
        return vec![index(installation.id, None, &r, "default branch created")];
    }
    vec![NewJob::of(&ApplyPush {
        installation: installation.id,
        repository: repo.id,
        full_name: repo.full_name.clone(),
        default_branch: repo.default_branch.clone(),
        before: e.before.clone(),
        after: e.after.clone(),
        forced: e.forced,
    })
    .serial(repo_key(repo.id))
    .coalesce(format!("apply_push:{}", repo.id.0))]
}

fn repository(e: &RepositoryEvent) -> Vec<NewJob> {
    let Some(installation) = &e.installation else {
        return Vec::new();
    };
    let repo = &e.repository;
    match e.action {
        RepositoryAction::Renamed | RepositoryAction::Transferred => {
            vec![NewJob::of(&RenameRepository {
                installation: installation.id,
                repository: repo.id,
                full_name: repo.full_name.clone(),
            })
            .serial(repo_key(repo.id))
            .coalesce(format!("rename_repository:{}", repo.id.0))]
        }
        RepositoryAction::Deleted => vec![purge(installation.id, repo.id, &repo.full_name)],
        RepositoryAction::Edited => {
            let branch_changed = e
                .changes
                .as_ref()
                .is_some_and(|c| c.default_branch.is_some());
            if branch_changed {
                let r = RepoRef {
                    id: repo.id,
                    full_name: repo.full_name.clone(),
                };
                vec![index(installation.id, None, &r, "default branch changed")]
            } else {
                Vec::new()
            }
        }
    }
}

fn pull_request(e: &PullRequestEvent) -> Vec<NewJob> {
    let Some(installation) = &e.installation else {
        return Vec::new();
    };
    let repo = &e.repository;
    let pr = &e.pull_request;
    let action = match e.action {
        PullRequestAction::Closed => {
            return vec![NewJob::of(&ClosePr {
                installation: installation.id,
                repository: repo.id,
                full_name: repo.full_name.clone(),
                number: e.number,
                merged: pr.merged.unwrap_or(false),
            })
            .serial(repo_key(repo.id))
            .coalesce(pr_key(repo.id, e.number))];
        }
        // A title or body edit changes no code; a new base does.
        PullRequestAction::Edited => {
            let base_changed = e.changes.as_ref().is_some_and(|c| c.base.is_some());
            if !base_changed {
                return Vec::new();
            }
            "edited"
        }
        PullRequestAction::Opened => "opened",
        PullRequestAction::Reopened => "reopened",
        PullRequestAction::Synchronize => "synchronize",
        PullRequestAction::ReadyForReview => "ready_for_review",
    };
    vec![NewJob::of(&AnalyzePr {
        installation: installation.id,
        repository: repo.id,
        full_name: repo.full_name.clone(),
        default_branch: repo.default_branch.clone(),
        number: e.number,
        action: action.to_string(),
        head_sha: pr.head.sha.clone(),
        head_ref: pr.head.git_ref.clone(),
        head_repository: pr.head.repo.as_ref().map(|r| GithubRepoId(r.id)),
        base_sha: pr.base.sha.clone(),
        base_ref: pr.base.git_ref.clone(),
        merge_commit_sha: pr.merge_commit_sha.clone(),
        draft: pr.draft,
    })
    .serial(repo_key(repo.id))
    .coalesce(pr_key(repo.id, e.number))]
}

/// A command is a line of its own starting with `/`; a comment with no such line (most
/// of them) makes no job. Bots, ours included, are never answered.
fn issue_comment(e: &IssueCommentEvent) -> Vec<NewJob> {
    let Some(installation) = &e.installation else {
        return Vec::new();
    };
    let body = e.comment.body.as_deref().unwrap_or("");
    let may_hold_command = body.lines().any(|l| l.trim_start().starts_with('/'));
    if !e.issue.is_pull_request() || e.comment.user.is_bot() || !may_hold_command {
        return Vec::new();
    }
    let comment = command_comment(
        e.comment.id,
        &e.comment.user.login,
        e.comment.author_association.as_deref(),
        e.comment.created_at,
        body,
    );
    if comment.lines.is_empty() {
        return Vec::new();
    }
    let repo = &e.repository;
    // A key of their own: a reply never waits behind a push or an analysis of the
    // repository, and one pull request's comments are answered in order.
    let key = format!("commands:{}:{}", repo.id.0, e.issue.number);
    vec![NewJob::of(&AnswerCommand {
        installation: installation.id,
        repository: repo.id,
        full_name: repo.full_name.clone(),
        number: e.issue.number,
        batch: vec![comment],
        comment_id: None,
        author: None,
        body: None,
    })
    .serial(key.clone())
    .batched(key)]
}

/// The command lines of `body` (by the command grammar's reading of markdown), bounded:
/// what a job needs of a comment, never the whole comment.
pub fn command_comment(
    id: i64,
    author: &str,
    association: Option<&str>,
    created_at: Option<chrono::DateTime<chrono::Utc>>,
    body: &str,
) -> CommandComment {
    let commands: Vec<String> = crate::thread_commands::command_lines(body)
        .into_iter()
        .filter(|l| l.starts_with('/'))
        .collect();
    let more = commands.len().saturating_sub(MAX_COMMANDS_PER_COMMENT);
    CommandComment {
        comment_id: id,
        author: author.to_string(),
        association: association.map(str::to_string),
        created_at,
        lines: commands
            .into_iter()
            .take(MAX_COMMANDS_PER_COMMENT)
            .map(|l| l.chars().take(MAX_COMMAND_LINE).collect())
            .collect(),
        more,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::intake::events::parse;

    fn jobs(event: &str, payload: serde_json::Value) -> Vec<NewJob> {
        let parsed = parse(event, payload.to_string().as_bytes()).unwrap();
        parsed.event.as_ref().map(jobs_for).unwrap_or_default()
    }

    fn kinds(jobs: &[NewJob]) -> Vec<&str> {
        jobs.iter().map(|j| j.kind.as_str()).collect()
    }

    fn repo() -> serde_json::Value {
        json!({"id": 42, "full_name": "o/r", "default_branch": "main"})
    }

    fn inst() -> serde_json::Value {
        json!({"id": 7, "account": {"login": "o"}})
    }

    fn push_payload(git_ref: &str, created: bool, deleted: bool) -> serde_json::Value {
        json!({
            "ref": git_ref, "before": "a".repeat(40), "after": "b".repeat(40),
            "created": created, "deleted": deleted, "forced": false,
            "repository": repo(), "installation": {"id": 7},
        })
    }

    #[test]
    fn installation_created_syncs_and_indexes_each_repository() {
        let js = jobs(
            "installation",
            json!({"action": "created", "installation": inst(),
                   "repositories": [{"id": 1, "full_name": "o/a"}, {"id": 2, "full_name": "o/b"}]}),
        );
        assert_eq!(
            kinds(&js),
            ["sync_installation", "index_repository", "index_repository"]
        );
        assert_eq!(js[0].serial_key.as_deref(), Some("installation:7"));
        assert_eq!(js[0].coalesce_key.as_deref(), Some("sync_installation:7"));
        assert_eq!(js[1].serial_key.as_deref(), Some("repo:1"));
        assert_eq!(js[2].serial_key.as_deref(), Some("repo:2"));
        let index: IndexRepository = serde_json::from_value(js[2].payload.clone()).unwrap();
        assert_eq!(
            index,
            IndexRepository {
                installation: InstallationId(7),
                account: Some("o".into()),
                repository: GithubRepoId(2),
                full_name: "o/b".into(),
                reason: "installed".into(),
            }
        );
    }

    #[test]
    fn an_enterprise_installation_has_a_slug_not_a_login() {
        let js = jobs(
            "installation",
            json!({"action": "created", "installation": {"id": 8, "account": {"slug": "ent", "name": "Ent"}},
                   "repositories": [{"id": 1, "full_name": "o/a"}]}),
        );
        assert_eq!(kinds(&js), ["sync_installation", "index_repository"]);
        assert_eq!(js[0].payload["account"], "ent");
        let none = jobs(
            "installation",
            json!({"action": "suspend", "installation": {"id": 8, "account": null}}),
        );
        assert_eq!(none[0].payload["account"], serde_json::Value::Null);
    }

    #[test]
    fn other_installation_actions_sync_only() {
        for action in [
            "deleted",
            "suspend",
            "unsuspend",
            "new_permissions_accepted",
        ] {
            let js = jobs(
                "installation",
                json!({"action": action, "installation": inst(),
                       "repositories": [{"id": 1, "full_name": "o/a"}]}),
            );
            assert_eq!(kinds(&js), ["sync_installation"], "{action}");
            assert_eq!(js[0].payload["action"], action);
        }
    }

    #[test]
    fn repositories_added_are_indexed_and_removed_purged() {
        let added = jobs(
            "installation_repositories",
            json!({"action": "added", "installation": inst(),
                   "repositories_added": [{"id": 3, "full_name": "o/c"}], "repositories_removed": []}),
        );
        assert_eq!(kinds(&added), ["index_repository"]);
        let removed = jobs(
            "installation_repositories",
            json!({"action": "removed", "installation": inst(), "repositories_added": [],
                   "repositories_removed": [{"id": 3, "full_name": "o/c"}, {"id": 4, "full_name": "o/d"}]}),
        );
        assert_eq!(kinds(&removed), ["purge_repository", "purge_repository"]);
        assert_eq!(removed[1].serial_key.as_deref(), Some("repo:4"));
        assert_eq!(removed[1].coalesce_key, None);
    }

    #[test]
    fn only_pushes_to_the_default_branch_count() {
        let js = jobs("push", push_payload("refs/heads/main", false, false));
        assert_eq!(kinds(&js), ["apply_push"]);
        assert_eq!(js[0].serial_key.as_deref(), Some("repo:42"));
        assert_eq!(js[0].coalesce_key.as_deref(), Some("apply_push:42"));
        let p: ApplyPush = serde_json::from_value(js[0].payload.clone()).unwrap();
        assert_eq!(p.after.as_str(), "b".repeat(40));

        assert!(jobs("push", push_payload("refs/heads/feature", false, false)).is_empty());
        assert!(jobs("push", push_payload("refs/tags/main", false, false)).is_empty());
        assert!(jobs("push", push_payload("refs/heads/main", false, true)).is_empty());
        let first = jobs("push", push_payload("refs/heads/main", true, false));
        assert_eq!(kinds(&first), ["index_repository"]);
        // A repository's own webhook, not the App's: no installation, nothing to do.
        let mut hook = push_payload("refs/heads/main", false, false);
        hook.as_object_mut().unwrap().remove("installation");
        assert!(jobs("push", hook).is_empty());
    }

    #[test]
    fn repository_changes() {
        let renamed = jobs(
            "repository",
            json!({"action": "renamed", "repository": repo(), "installation": {"id": 7},
                   "changes": {"repository": {"name": {"from": "old"}}}}),
        );
        assert_eq!(kinds(&renamed), ["rename_repository"]);
        assert_eq!(renamed[0].payload["full_name"], "o/r");
        let moved = jobs(
            "repository",
            json!({"action": "transferred", "repository": repo(), "installation": {"id": 7}}),
        );
        assert_eq!(kinds(&moved), ["rename_repository"]);
        let deleted = jobs(
            "repository",
            json!({"action": "deleted", "repository": repo(), "installation": {"id": 7}}),
        );
        assert_eq!(kinds(&deleted), ["purge_repository"]);
        let branch = jobs(
            "repository",
            json!({"action": "edited", "repository": repo(), "installation": {"id": 7},
                   "changes": {"default_branch": {"from": "master"}}}),
        );
        assert_eq!(kinds(&branch), ["index_repository"]);
        let description = jobs(
            "repository",
            json!({"action": "edited", "repository": repo(), "installation": {"id": 7},
                   "changes": {"description": {"from": ""}}}),
        );
        assert!(description.is_empty());
        let archived = jobs(
            "repository",
            json!({"action": "archived", "repository": repo(), "installation": {"id": 7}}),
        );
        assert!(archived.is_empty());
    }

    fn pr_payload(action: &str) -> serde_json::Value {
        json!({
            "action": action, "number": 5,
            "pull_request": {
                "head": {"ref": "fix", "sha": "c".repeat(40), "repo": {"id": 42}},
                "base": {"ref": "main", "sha": "d".repeat(40), "repo": {"id": 42}},
                "draft": false, "merged": action == "closed", "merge_commit_sha": null,
            },
            "repository": repo(), "installation": {"id": 7},
        })
    }

    #[test]
    fn pull_requests_are_analysed_per_pr_and_closing_supersedes() {
        for action in ["opened", "reopened", "synchronize", "ready_for_review"] {
            let js = jobs("pull_request", pr_payload(action));
            assert_eq!(kinds(&js), ["analyze_pr"], "{action}");
            assert_eq!(js[0].serial_key.as_deref(), Some("repo:42"));
            assert_eq!(js[0].coalesce_key.as_deref(), Some("pr:42:5"));
            let a: AnalyzePr = serde_json::from_value(js[0].payload.clone()).unwrap();
            assert_eq!(a.head_sha.as_str(), "c".repeat(40));
            assert_eq!(a.action, action);
        }
        let closed = jobs("pull_request", pr_payload("closed"));
        assert_eq!(kinds(&closed), ["close_pr"]);
        assert_eq!(closed[0].coalesce_key.as_deref(), Some("pr:42:5"));
        assert_eq!(closed[0].payload["merged"], true);

        assert!(jobs("pull_request", pr_payload("edited")).is_empty());
        let mut base = pr_payload("edited");
        base["changes"] = json!({"base": {"ref": {"from": "dev"}, "sha": {"from": "e"}}});
        assert_eq!(kinds(&jobs("pull_request", base)), ["analyze_pr"]);
        assert!(jobs("pull_request", pr_payload("labeled")).is_empty());
    }

    fn comment_payload(body: &str, user_type: &str, on_pr: bool) -> serde_json::Value {
        let mut issue = json!({"number": 5});
        if on_pr {
            issue["pull_request"] = json!({"url": "https://example.invalid/pulls/5"});
        }
        json!({
            "action": "created", "issue": issue,
            "comment": {"id": 99, "body": body, "user": {"login": "u", "type": user_type},
                        "author_association": "MEMBER"},
            "repository": repo(), "installation": {"id": 7},
        })
    }

    #[test]
    fn commands_on_pull_requests_by_people_only() {
        let js = jobs(
            "issue_comment",
            comment_payload("thanks!\n/callers classifyFields 2", "User", true),
        );
        assert_eq!(kinds(&js), ["answer_command"]);
        assert_eq!(js[0].serial_key.as_deref(), Some("commands:42:5"));
        assert_eq!(js[0].coalesce_key.as_deref(), Some("commands:42:5"));
        assert!(js[0].merge_batches);
        let a: AnswerCommand = serde_json::from_value(js[0].payload.clone()).unwrap();
        let c = &a.batch[0];
        assert_eq!((a.number, c.comment_id, c.author.as_str()), (5, 99, "u"));
        assert_eq!(c.lines, ["/callers classifyFields 2"]);
        assert_eq!(c.association.as_deref(), Some("MEMBER"));

        // Thousands of command lines: five kept, the rest counted.
        let many = "/callers x\n".repeat(3000);
        let js = jobs("issue_comment", comment_payload(&many, "User", true));
        let a: AnswerCommand = serde_json::from_value(js[0].payload.clone()).unwrap();
        assert_eq!(a.batch[0].lines.len(), MAX_COMMANDS_PER_COMMENT);
        assert_eq!(a.batch[0].more, 3000 - MAX_COMMANDS_PER_COMMENT);
        // A slash in a code block is no command: no job.
        assert!(jobs(
            "issue_comment",
            comment_payload("```\n/callers x\n```", "User", true)
        )
        .is_empty());

        assert!(jobs("issue_comment", comment_payload("/callers x", "Bot", true)).is_empty());
        assert!(jobs(
            "issue_comment",
            comment_payload("/callers x", "User", false)
        )
        .is_empty());
        assert!(jobs("issue_comment", comment_payload("looks good", "User", true)).is_empty());
        let mut edited = comment_payload("/callers x", "User", true);
        edited["action"] = json!("edited");
        assert!(jobs("issue_comment", edited).is_empty());
        let mut null_pr = comment_payload("/callers x", "User", false);
        null_pr["issue"]["pull_request"] = json!(null);
        assert!(jobs("issue_comment", null_pr).is_empty());
    }

    #[test]
    fn ping_and_unknown_events_are_ignored() {
        assert!(jobs("ping", json!({"zen": "Design for failure.", "hook_id": 1})).is_empty());
        assert!(jobs("check_suite", json!({"action": "requested"})).is_empty());
        assert!(parse("push", b"[1, 2]").is_err());
        assert!(parse("ping", b"{not json").is_err());
    }
}
