//! A pull request's blast radius: computed from the default branch's stored graph with
//! the PR's changed files laid over it (what the code will be once merged), posted as
//! one summary comment (created once, edited after) and a "Blast radius" check run on
//! the head commit. Only the PR's changed files are fetched, never a checkout.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::fetch::{fetch_blobs, FetchBudget, Wanted, JOB_FETCH_BUDGET};
use super::pr_files::{PrFetched, PrKey};
use super::push::catch_up;
use super::repo_config::repo_config;
use super::review::{plan_review, LISTED};
use super::{errors, App};
use crate::blast::diff::Change;
use crate::blast::report::BlastReport;
use crate::config::REPO_CONFIG_PATH;
use crate::github::Repository;
use crate::github::{
    Annotation, AnnotationLevel, CheckConclusion, CheckOutput, CheckStatus, EntryKind, FileStatus,
    Installation, NewCheckRun, PullRequest, RepoName, MAX_CHECK_TEXT_CHARS,
};
use crate::indexer::pipeline::SourceFile;
use crate::indexer::select::wanted;
use crate::intake::jobs::AnalyzePr;
use crate::model::{BlobSha, CommitSha, GithubRepoId, InstallationId};
use crate::queue::{JobError, RunningJob};
use crate::report::markdown::{config_problems, render_markdown_listing, COMMENT_BUDGET, MARKER};
use crate::store::RepoState;
use crate::workflow::blast::{blast_revisions, BlastRequest};
use crate::workflow::source::InMemory;

/// The hidden marker that finds our summary comment again, whatever the database knows.
pub const SUMMARY_MARKER: &str = "<!-- blast-radius:summary -->";
/// The check run's name.
pub const CHECK_NAME: &str = "Blast radius";
/// Annotations on untouched call sites, at most (GitHub shows the first ones).
const MAX_ANNOTATIONS: usize = 500;

/// A pull request ready to analyse or to answer about: the base graph's state, the
/// changed paths the indexer reads, and the versions of each.
pub(super) struct PrView {
    pub repo: Repository,
    pub pr: PullRequest,
    pub state: RepoState,
    pub base_commit: CommitSha,
    pub fetched: Arc<PrFetched>,
}

/// Which versions of the PR's files a job reads.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Versions {
    /// Both: the base graph's and the new (a blast radius compares them).
    Both,
    /// Only the new ones (a command lays them over the base graph).
    New,
}

impl PrView {
    /// A permalink to a line as the graph knows it: at the PR's head for the PR's files,
    /// at the default branch's indexed commit for the rest.
    pub fn link<'a>(&'a self, web_url: &'a str) -> impl Fn(&str, u32) -> String + 'a {
        let web = web_url.trim_end_matches('/');
        move |file: &str, line: u32| {
            let commit = if self
                .fetched
                .changed
                .binary_search_by(|p| p.as_str().cmp(file))
                .is_ok()
            {
                &self.pr.head.sha
            } else {
                &self.base_commit
            };
            format!("{web}/{}/blob/{}/{file}#L{line}", self.repo.name, commit)
        }
    }
}

/// What a PR job needs from GitHub and the store; None when there is nothing to do
/// (the repository is gone, the PR is closed or targets another branch than the
/// default one, or it changes no JavaScript or TypeScript).
pub(super) async fn pr_view(
    app: &App,
    installation: &Installation,
    installation_id: InstallationId,
    repository: GithubRepoId,
    number: u64,
    drafts: bool,
    versions: Versions,
) -> Result<Option<PrView>, JobError> {
    if app
        .store
        .installation_suspended(installation_id)
        .await
        .map_err(errors::store)?
        == Some(true)
    {
        return Ok(None);
    }
    let repo = match installation.get_repository_by_id(repository).await {
        Ok(repo) => repo,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(errors::github(e)),
    };
    let pr = installation
        .get_pull_request(&repo.name, number)
        .await
        .map_err(errors::github)?;
    if !pr.is_open()
        || (pr.draft && !drafts)
        || Some(&pr.base.ref_name) != repo.default_branch.as_ref()
    {
        return Ok(None);
    }
    // The base graph, current with the default branch (indexed first if it is not yet).
    let Some(state) = catch_up(app, installation, installation_id, &repo).await? else {
        return Ok(None);
    };
    let base_commit = state.commit.clone().expect("indexed");
    let key = PrKey {
        repo: repository,
        number,
        head: pr.head.sha.clone(),
        merge: merge_commit(&pr).cloned(),
        base: base_commit.clone(),
    };
    let with_old = versions == Versions::Both;
    let fetched = match app.pr_files.get(&key, with_old) {
        Some(fetched) => fetched,
        None => {
            let fetched = Arc::new(
                fetch_pr(
                    app,
                    installation,
                    &repo,
                    &pr,
                    &state,
                    &base_commit,
                    with_old,
                )
                .await?,
            );
            app.pr_files.put(key, fetched.clone());
            fetched
        }
    };
    Ok(Some(PrView {
        repo,
        pr,
        state,
        base_commit,
        fetched,
    }))
}

/// GitHub's test merge commit when the PR merges cleanly: the code once merged.
fn merge_commit(pr: &PullRequest) -> Option<&CommitSha> {
    match (pr.mergeable, &pr.merge_commit_sha) {
        (Some(true), Some(merge)) => Some(merge),
        _ => None,
    }
}

/// The PR's files and the versions of them asked for: the stored graph's blobs (old)
/// and GitHub's test merge commit's, else the head's (new). Only changed files.
async fn fetch_pr(
    app: &App,
    installation: &Installation,
    repo: &Repository,
    pr: &PullRequest,
    state: &RepoState,
    base_commit: &CommitSha,
    with_old: bool,
) -> Result<PrFetched, JobError> {
    let files = installation
        .list_pull_request_files(&repo.name, pr.number)
        .await
        .map_err(errors::github)?;
    let mut changed: Vec<String> = Vec::new();
    for f in &files.files {
        changed.push(f.path.0.clone());
        if let Some(previous) = &f.previous_path {
            changed.push(previous.0.clone());
        }
    }
    changed.retain(|p| wanted(p));
    changed.sort();
    changed.dedup();
    let new_blobs = new_versions(installation, &repo.name, pr, &files.files, &changed).await?;
    // One budget for both versions: a PR's blobs are whoever opened it's choice.
    let budget = FetchBudget::new(app.rules.max_bytes, JOB_FETCH_BUDGET);
    let old = if with_old {
        let stored: Vec<Wanted> = app
            .store
            .file_blobs(state.id)
            .await
            .map_err(errors::store)?
            .into_iter()
            .filter(|(p, _)| changed.binary_search(p).is_ok())
            .map(|(p, b)| (p, b, None))
            .collect();
        let old = fetch_blobs(installation, &repo.name, stored, &budget).await?;
        Some(InMemory {
            commit: Some(base_commit.clone()),
            files: old.into_iter().map(source).collect(),
        })
    } else {
        None
    };
    let analysed: BTreeMap<String, BlobSha> = new_blobs
        .iter()
        .map(|(p, b, _)| (p.clone(), b.clone()))
        .collect();
    let new = fetch_blobs(installation, &repo.name, new_blobs, &budget).await?;
    Ok(PrFetched {
        changed,
        files: files.files,
        hit_limit: files.hit_limit,
        new_blobs: analysed,
        old,
        new: InMemory {
            commit: Some(pr.head.sha.clone()),
            files: new.into_iter().map(source).collect(),
        },
    })
}

pub async fn analyze_pr(app: &App, job: &RunningJob, pr_job: &AnalyzePr) -> Result<(), JobError> {
    let installation = app.github.installation(pr_job.installation);
    let Some(view) = pr_view(
        app,
        &installation,
        pr_job.installation,
        pr_job.repository,
        pr_job.number,
        false,
        Versions::Both,
    )
    .await?
    else {
        return Ok(());
    };
    if view.fetched.changed.is_empty() {
        return Ok(());
    }
    let (repo, pr, base_commit) = (&view.repo, &view.pr, &view.base_commit);
    // The repository's rules, as of the base: a pull request cannot change its own.
    let loaded = repo_config(app, &installation, repo, base_commit).await?;
    let config = &loaded.config;
    let snapshot = app
        .cache
        .get_fresh(view.state.id)
        .await
        .map_err(errors::store)?;
    let base_label = format!(
        "{}@{}",
        repo.default_branch.clone().unwrap_or_default(),
        base_commit.short()
    );
    let head_label = format!("#{}@{}", pr.number, pr.head.sha.short());
    let request = BlastRequest {
        base_label: &base_label,
        head_label: &head_label,
        depth: config.depth,
        base_skipped: 0,
    };
    let rules = app.rules;
    let report = crate::workflow::cpu(|| {
        let fetched = &view.fetched;
        let old = fetched.old.as_ref().expect("fetched with the old versions");
        blast_revisions(
            &snapshot.graph,
            old,
            &fetched.new,
            &fetched.changed,
            &rules,
            &request,
        )
        .map(|mut report| {
            report.retain(|path| config.paths.allows(path), config.min_confidence);
            report
        })
    })
    .map_err(JobError::retry)?;
    // A newer push to this PR wins: nothing older is posted over it.
    if job.is_superseded().await.map_err(JobError::retry)? {
        return Ok(());
    }
    let outputs = config.outputs;
    // What is wrong in the configuration goes where the results are: the check run, or
    // the summary comment when the check run is off (posted for it alone if need be).
    let problems =
        (!loaded.problems.is_empty()).then(|| config_problems(REPO_CONFIG_PATH, &loaded.problems));
    let problems_in_comment = problems.as_deref().filter(|_| !outputs.check);
    // Permalinks: the PR's head for its changed files, the base graph's commit for the rest.
    let link = view.link(&app.web_url);
    let reserve = problems_in_comment.map_or(0, |p| p.len() + 2);
    let mut body = render_markdown_listing(
        &report,
        COMMENT_BUDGET.saturating_sub(reserve),
        Some(&link),
        config.max_callers,
    );
    if view.fetched.hit_limit {
        body.push_str(&format!(
            "\n\n_This pull request changes more files than GitHub lists ({}): files past that were not analysed._\n",
            crate::github::PR_FILES_LIMIT
        ));
    }
    if let Some(comment) = summary_comment(&body, outputs.summary, problems_in_comment) {
        installation
            .create_or_update_marked_comment(&repo.name, pr.number, SUMMARY_MARKER, &comment)
            .await
            .map_err(errors::github)?;
    }
    if outputs.check {
        if job.is_superseded().await.map_err(JobError::retry)? {
            return Ok(());
        }
        let (conclusion, title) = verdict(&report, config.fail_on_removed_called);
        let problems = problems.map(|p| p + "\n").unwrap_or_default();
        let mut summary = format!("{problems}{body}");
        if summary.chars().count() > MAX_CHECK_TEXT_CHARS {
            let budget = (MAX_CHECK_TEXT_CHARS - 1_000).saturating_sub(problems.len());
            let body = render_markdown_listing(&report, budget, Some(&link), config.max_callers);
            summary = format!("{problems}{body}");
        }
        let run = NewCheckRun {
            name: CHECK_NAME.to_string(),
            head_sha: pr.head.sha.clone(),
            status: CheckStatus::Completed,
            conclusion: Some(conclusion),
            external_id: Some(format!("pr-{}", pr.number)),
            details_url: None,
            output: Some(CheckOutput {
                title,
                summary,
                text: None,
            }),
        };
        let annotations = annotations(&report, config.fail_on_removed_called);
        installation
            .publish_check_run(&repo.name, &run, &annotations)
            .await
            .map_err(errors::github)?;
    }
    // Inline comments last: the summary and the check run stand even if GitHub refuses them.
    if outputs.inline {
        if job.is_superseded().await.map_err(JobError::retry)? {
            return Ok(());
        }
        let listed = config.max_callers.map_or(LISTED, |n| n.min(LISTED));
        post_review(&installation, &view, &report, listed, &link).await?;
    }
    tracing::info!(
        repo = %repo.name,
        pr = pr.number,
        changed = report.changed.len(),
        untouched = report.callers.iter().filter(|c| !c.touched).count(),
        config_problems = loaded.problems.len(),
        "blast radius posted"
    );
    Ok(())
}

/// The summary comment to post: the report (with the configuration's problems when they
/// go there), or, when the repository turned the comment off, the problems alone; None
/// when there is nothing to post.
fn summary_comment(body: &str, enabled: bool, problems: Option<&str>) -> Option<String> {
    match (enabled, problems) {
        (true, None) => Some(body.to_string()),
        (true, Some(problems)) => Some(format!("{}\n\n{problems}", body.trim_end())),
        (false, Some(problems)) => Some(format!(
            "{MARKER}\n## Blast radius\n\n{problems}\n_The summary comment and the check run are turned off by `{REPO_CONFIG_PATH}`: this comment only says what is wrong in it._\n"
        )),
        (false, None) => None,
    }
}

/// The inline review, unless each of its comments was posted before. A 422 (a line GitHub
/// does not take as part of the diff) is logged, not retried: sending it again would
/// fail again, and the summary and the check run say everything it would.
async fn post_review(
    installation: &Installation,
    view: &PrView,
    report: &BlastReport,
    listed: usize,
    link: &(dyn Fn(&str, u32) -> String + Sync),
) -> Result<(), JobError> {
    let bot = installation.bot_login().await.map_err(errors::github)?;
    let posted: Vec<String> = installation
        .list_review_comments(&view.repo.name, view.pr.number)
        .await
        .map_err(errors::github)?
        .into_iter()
        .filter(|c| c.user_login.eq_ignore_ascii_case(&bot))
        .map(|c| c.body)
        .collect();
    let Some(plan) = plan_review(
        report,
        &view.fetched.files,
        &view.fetched.new_blobs,
        &view.pr.head.sha,
        &posted,
        listed,
        link,
    ) else {
        return Ok(());
    };
    match installation
        .create_marked_review(&view.repo.name, view.pr.number, &plan.marker, &plan.review)
        .await
    {
        Ok(_) => Ok(()),
        Err(e) if e.is_unprocessable() => {
            tracing::warn!(repo = %view.repo.name, pr = view.pr.number, error = %e, "GitHub refused the inline review");
            Ok(())
        }
        Err(e) => Err(errors::github(e)),
    }
}

/// (path, blob) of the new version of each changed path that exists after the change.
async fn new_versions(
    installation: &Installation,
    name: &RepoName,
    pr: &PullRequest,
    files: &[crate::github::PrFile],
    changed: &[String],
) -> Result<Vec<Wanted>, JobError> {
    if let Some(merge) = merge_commit(pr) {
        let tree = installation
            .get_full_tree(name, merge)
            .await
            .map_err(errors::github)?;
        return Ok(tree
            .into_iter()
            .filter(|e| e.kind == EntryKind::Blob && e.mode != "120000")
            .filter(|e| changed.binary_search(&e.path.0).is_ok())
            .filter_map(|e| Some((e.path.0.clone(), e.blob_sha()?, e.size)))
            .collect());
    }
    Ok(files
        .iter()
        .filter(|f| f.status != FileStatus::Removed && wanted(f.path.as_str()))
        .filter_map(|f| Some((f.path.0.clone(), f.sha.clone()?, None)))
        .collect())
}

fn source(input: crate::workflow::push::FileInput) -> SourceFile {
    SourceFile {
        path: input.path,
        bytes: input.bytes,
        skip: input.skip,
    }
}

/// Failure when a removed or renamed function is still called (the PR breaks those
/// calls), neutral instead when the repository says so (`fail_on_removed_called:
/// false`); neutral when changed functions have callers the PR did not touch (worth a
/// look, not wrong); success otherwise.
fn verdict(report: &BlastReport, fail_on_removed_called: bool) -> (CheckConclusion, String) {
    let untouched: Vec<_> = report.callers.iter().filter(|c| !c.touched).collect();
    let broken = untouched.iter().any(|c| {
        matches!(
            report.changed[c.changed_index].change,
            Change::Removed | Change::Renamed
        ) && c.depth == 1
    });
    let n = untouched.len();
    if broken {
        let conclusion = if fail_on_removed_called {
            CheckConclusion::Failure
        } else {
            CheckConclusion::Neutral
        };
        (
            conclusion,
            "A removed or renamed function is still called".into(),
        )
    } else if n > 0 {
        (
            CheckConclusion::Neutral,
            format!(
                "{n} call site{} the change did not touch",
                if n == 1 { "" } else { "s" }
            ),
        )
    } else {
        (
            CheckConclusion::Success,
            "Every caller of a changed function was touched".into(),
        )
    }
}

fn annotations(report: &BlastReport, fail_on_removed_called: bool) -> Vec<Annotation> {
    report
        .callers
        .iter()
        .filter(|c| !c.touched)
        .take(MAX_ANNOTATIONS)
        .map(|c| {
            let changed = &report.changed[c.changed_index];
            let broken = matches!(changed.change, Change::Removed | Change::Renamed) && c.depth == 1;
            Annotation {
                path: c.file.clone(),
                start_line: c.line,
                end_line: c.line,
                level: if broken && fail_on_removed_called {
                    AnnotationLevel::Failure
                } else {
                    AnnotationLevel::Warning
                },
                title: Some(format!("Calls {} ({})", c.callee, changed.change.as_str())),
                message: format!(
                    "{} calls {}, which this pull request changes ({}), and was not updated [{} {}{}]",
                    c.caller,
                    c.callee,
                    changed.change.as_str(),
                    c.kind.as_str(),
                    c.confidence.as_str(),
                    if c.depth > 1 {
                        format!(", {} levels away", c.depth)
                    } else {
                        String::new()
                    }
                ),
                raw_details: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blast::report::{CallerFinding, ChangedFunction};
    use crate::graph::Confidence;
    use crate::indexer::facts::{CallKind, DefKind};

    /// `gone` removed, still called directly by untouched code.
    fn removed_still_called() -> BlastReport {
        BlastReport {
            base: "main".into(),
            head: "#1".into(),
            changed: vec![ChangedFunction {
                file: "src/a.js".into(),
                name: "gone".into(),
                qualified_name: "gone".into(),
                kind: DefKind::Function,
                line: 1,
                end_line: 3,
                change: Change::Removed,
                renamed_from: None,
            }],
            callers: vec![CallerFinding {
                callee: "gone".into(),
                changed_index: 0,
                file: "src/b.js".into(),
                line: 4,
                column: 1,
                caller: "use".into(),
                kind: CallKind::Call,
                confidence: Confidence::Exact,
                touched: false,
                depth: 1,
                via: None,
            }],
            depth: 2,
            unresolved_same_name: 0,
            skipped_files: 0,
        }
    }

    #[test]
    fn a_removed_function_still_called_fails_the_check_unless_the_repository_says_not_to() {
        let report = removed_still_called();
        assert_eq!(verdict(&report, true).0, CheckConclusion::Failure);
        assert_eq!(
            annotations(&report, true)[0].level,
            AnnotationLevel::Failure
        );
        let (conclusion, title) = verdict(&report, false);
        assert_eq!(conclusion, CheckConclusion::Neutral);
        assert_eq!(title, "A removed or renamed function is still called");
        assert_eq!(
            annotations(&report, false)[0].level,
            AnnotationLevel::Warning
        );
    }

    #[test]
    fn the_summary_comment_carries_the_problems_only_when_the_check_run_does_not() {
        let body = "<!-- blast-radius -->\n## Blast radius\n\nreport\n";
        let problems = "### Configuration\n\n- `colour`: unknown key, ignored\n";
        assert_eq!(summary_comment(body, true, None).as_deref(), Some(body));
        let with = summary_comment(body, true, Some(problems)).unwrap();
        assert!(with.starts_with(body.trim_end()), "{with}");
        assert!(with.ends_with(problems), "{with}");
        let alone = summary_comment(body, false, Some(problems)).unwrap();
        assert!(alone.starts_with(MARKER), "{alone}");
        assert!(
            alone.contains(problems) && !alone.contains("report"),
            "{alone}"
        );
        assert_eq!(summary_comment(body, false, None), None);
    }
}
