//! Open pull requests whose head was never analysed get an analysis, after an
//! installation's catch-up: what GitHub no longer holds to redeliver (past its 3 days, or
//! never sent) is still covered. Bounded: the most recently updated few of each
//! installation, and only heads the queue has never seen an analysis of (a job waiting,
//! running, done or dead) and that carry no check run of ours.

use chrono::{DateTime, Utc};

use super::check_name::CHECK_NAME;
use super::{errors, App};
use crate::github::{Installation, OpenPullRequest, Repository};
use crate::model::InstallationId;
use crate::queue::payloads::{pr_key, repo_key, AnalyzePr};
use crate::queue::{JobError, JobPayload, NewJob};

/// Open pull requests of one installation looked at per catch-up.
pub const MAX_OPEN_PRS: usize = 30;

/// An open pull request of a repository, with the repository.
pub struct Candidate<'a> {
    pub repo: &'a Repository,
    pub open: OpenPullRequest,
}

/// The `max` most recently updated pull requests an analysis would look at: not drafts,
/// into their repository's default branch (the others it leaves alone).
pub fn pick(mut all: Vec<Candidate<'_>>, max: usize) -> Vec<Candidate<'_>> {
    all.retain(|c| {
        !c.open.pr.draft
            && c.open.pr.is_open()
            && c.repo.default_branch.as_deref() == Some(c.open.pr.base.ref_name.as_str())
    });
    let never = DateTime::<Utc>::MIN_UTC;
    all.sort_by_key(|c| std::cmp::Reverse((c.open.updated_at.unwrap_or(never), c.open.pr.number)));
    all.truncate(max);
    all
}

/// Enqueues an analysis of each open pull request of `repos` whose head has none.
pub async fn analyse_unanalysed(
    app: &App,
    id: InstallationId,
    installation: &Installation,
    repos: &[Repository],
) -> Result<(), JobError> {
    let mut all = Vec::new();
    for repo in repos
        .iter()
        .filter(|r| !r.archived && r.default_branch.is_some())
    {
        let open = match installation
            .list_open_pull_requests(&repo.name, MAX_OPEN_PRS as u32)
            .await
        {
            Ok(open) => open,
            Err(e) if e.is_not_found() => continue,
            Err(e) => return Err(errors::github(e)),
        };
        all.extend(open.into_iter().map(|open| Candidate { repo, open }));
    }
    for Candidate { repo, open } in pick(all, MAX_OPEN_PRS) {
        let pr = open.pr;
        let key = pr_key(repo.id, pr.number);
        let seen = app
            .queue
            .has_job_for(AnalyzePr::KIND, &key, "head_sha", pr.head.sha.as_str())
            .await
            .map_err(JobError::retry)?;
        if seen {
            continue;
        }
        let ran = installation
            .find_check_run(&repo.name, &pr.head.sha, CHECK_NAME)
            .await
            .map_err(errors::github)?;
        if ran.is_some() {
            continue;
        }
        tracing::info!(
            repo = %repo.name,
            pr = pr.number,
            head = %pr.head.sha,
            "catch-up: an open pull request never analysed at its head"
        );
        let job = NewJob::of(&AnalyzePr {
            installation: id,
            repository: repo.id,
            full_name: repo.name.to_string(),
            default_branch: repo.default_branch.clone().unwrap_or_default(),
            number: pr.number,
            action: "catch_up".into(),
            head_sha: pr.head.sha.clone(),
            head_ref: pr.head.ref_name.clone(),
            head_repository: pr.head.repo_id,
            base_sha: pr.base.sha.clone(),
            base_ref: pr.base.ref_name.clone(),
            merge_commit_sha: pr.merge_commit_sha.clone(),
            draft: pr.draft,
        })
        .serial(repo_key(repo.id))
        .coalesce(key);
        app.queue.enqueue(&job).await.map_err(JobError::retry)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::github::{PrBranch, PrState, PullRequest, RepoName};
    use crate::model::{CommitSha, GithubRepoId};

    fn repo(id: i64, default: &str) -> Repository {
        Repository {
            id: GithubRepoId(id),
            name: RepoName::new("acme", format!("r{id}")),
            default_branch: Some(default.into()),
            private: true,
            archived: false,
        }
    }

    fn open(number: u64, base: &str, draft: bool, minutes_ago: i64) -> OpenPullRequest {
        let branch = |r: &str| PrBranch {
            sha: CommitSha(format!("{number:040}")),
            ref_name: r.into(),
            repo_id: Some(GithubRepoId(1)),
            repo_name: None,
        };
        OpenPullRequest {
            pr: PullRequest {
                number,
                title: String::new(),
                state: PrState::Open,
                draft,
                merged: false,
                user_login: "dev".into(),
                head: branch("fix"),
                base: branch(base),
                merge_commit_sha: None,
                mergeable: None,
            },
            updated_at: Some(Utc::now() - chrono::Duration::minutes(minutes_ago)),
        }
    }

    #[test]
    fn the_most_recently_updated_that_an_analysis_would_look_at() {
        let (a, b) = (repo(1, "main"), repo(2, "trunk"));
        let all = vec![
            Candidate {
                repo: &a,
                open: open(1, "main", false, 30),
            },
            Candidate {
                repo: &a,
                open: open(2, "main", true, 1),
            },
            Candidate {
                repo: &a,
                open: open(3, "release", false, 2),
            },
            Candidate {
                repo: &b,
                open: open(4, "trunk", false, 5),
            },
            Candidate {
                repo: &b,
                open: open(5, "trunk", false, 10),
            },
        ];
        let picked: Vec<u64> = pick(all, 2).iter().map(|c| c.open.pr.number).collect();
        // No draft, none into another branch than the default; newest first, two.
        assert_eq!(picked, [4, 5]);
    }
}
