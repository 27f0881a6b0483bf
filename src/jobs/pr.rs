//! A pull request's blast radius: computed from the default branch's stored graph with
//! the PR's changed files laid over it (what the code will be once merged), posted as
//! one summary comment (created once, edited after) and a "Blast radius" check run on
//! the head commit. Only the PR's changed files are fetched, never a checkout.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::fetch::{fetch_blobs, FetchBudget, Wanted, JOB_FETCH_BUDGET};
use super::graph_catch_up::catch_up;
use super::pr_files::{PrFetched, PrKey};
use super::repo_config_cache::repo_config;
use super::{errors, App};
use crate::blast::diff::Change;
use crate::blast::radius::{judge_elsewhere, CallToJudge};
use crate::blast::report::{BlastReport, SkippedFile};
use crate::blast::verdict::Verdict as CallVerdict;
use crate::github::{
    Annotation, AnnotationLevel, CheckConclusion, CheckOutput, CheckStatus, EntryKind, FileStatus,
    Installation, NewCheckRun, NewReview, NewReviewComment, PullRequest, RepoName, Repository,
    PR_FILES_LIMIT,
};
use crate::graph::Graph;
use crate::indexer::select::wanted;
use crate::indexer::skip::SkipReason;
use crate::model::{BlobSha, CommitSha, GithubRepoId, InstallationId};
use crate::org::{self, CallElsewhere, FoundElsewhere};
use crate::queue::payloads::AnalyzePr;
use crate::queue::{JobError, RunningJob};
use crate::repo_config::RepoConfig;
use crate::report::pull_request::{
    self, Across, Elsewhere, Note, NoteLevel, PatchedFile, PrAnalysis, PrOutputs, ReviewPlan,
    Verdict,
};
use crate::store::{NewAnalysis, RepoState};
use crate::workflow::blast_change::{blast_revisions, pair_versions, BlastRequest};
use crate::workflow::elsewhere::{calls_into_packages, Elsewhere as CallsElsewhere};
use crate::workflow::links_across::{callers_of, Across as LinksAcross, Asking};
use crate::workflow::source::InMemory;

/// The hidden marker that finds our summary comment again, whatever the database knows.
pub const SUMMARY_MARKER: &str = "<!-- blast-radius:summary -->";
pub use super::check_name::CHECK_NAME;

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
            files: old.into_iter().map(|input| input.file).collect(),
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
            files: new.into_iter().map(|input| input.file).collect(),
        },
    })
}

/// A pull request's blast radius, posted: fetch (the PR, its files, the base graph, the
/// repository's rules, our earlier inline comments), compute (the blast radius), plan
/// (`report::pull_request`, pure), post (comment, check run, review).
pub async fn analyze_pr(app: &App, job: &RunningJob, pr_job: &AnalyzePr) -> Result<(), JobError> {
    let began = std::time::Instant::now();
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
    // The repository's rules, as of the base: a pull request cannot change its own.
    let loaded = repo_config(app, &installation, &view.repo, &view.base_commit).await?;
    let config = &loaded.config;
    let posted = if config.outputs.inline {
        our_review_comments(&installation, &view).await?
    } else {
        Vec::new()
    };

    // One base graph for both: a push landing between them cannot make them disagree.
    let base = app
        .cache
        .get_fresh(view.state.id)
        .await
        .map_err(errors::store)?;
    let report = blast(app, &base.graph, &view, config, &job.stalled_files)?;
    let others = calls_elsewhere(app, pr_job.installation, &base.graph, &view, &report).await?;
    let across = links_across(app, pr_job.installation, &base.graph, &view, &report).await?;
    // A newer push to this PR wins: nothing older is posted over it.
    if job.is_superseded().await.map_err(JobError::retry)? {
        return Ok(());
    }

    // Permalinks: the PR's head for its changed files, the base graph's commit for the rest.
    let link = view.link(&app.web_url);
    let files: Vec<PatchedFile> = view
        .fetched
        .files
        .iter()
        .map(|f| PatchedFile {
            path: f.path.as_str(),
            blob: f.sha.as_ref(),
            patch: f.patch.as_deref(),
        })
        .collect();
    let outputs = pull_request::plan(&PrAnalysis {
        report: &report,
        config,
        problems: &loaded.problems,
        link: &link,
        listed_files_cap: view.fetched.hit_limit.then_some(PR_FILES_LIMIT),
        files: &files,
        analysed: &view.fetched.new_blobs,
        head: &view.pr.head.sha,
        posted: &posted,
        elsewhere: others.as_ref().map(|o| Elsewhere {
            calls: &o.calls,
            found: &o.found,
            from_private: view.repo.private,
            web_url: &app.web_url,
            versions: &o.versions,
            ambiguous: &o.ambiguous,
        }),
        across: (!across.found.is_empty()).then(|| Across {
            served: &across.served,
            callers: &across.callers,
            found: &across.found,
            from_private: view.repo.private,
            web_url: &app.web_url,
        }),
    });

    let analysis = NewAnalysis {
        number: view.pr.number,
        title: view.pr.title.clone(),
        url: format!(
            "{}/{}/pull/{}",
            app.web_url.trim_end_matches('/'),
            view.repo.name,
            view.pr.number
        ),
        head: view.pr.head.sha.0.clone(),
        conclusion: outputs
            .check_run
            .as_ref()
            .map(|run| conclusion_name(run.verdict).to_string()),
        breaking: report
            .callers
            .iter()
            .filter(|c| !c.touched)
            .filter(|c| c.judged.as_ref().map(|j| j.verdict) == Some(CallVerdict::Breaks))
            .count() as u32,
        untouched: report.callers.iter().filter(|c| !c.touched).count() as u32,
        changed: report.changed.len() as u32,
        took_ms: 0,
    };
    post(&installation, job, &view, outputs).await?;
    // For the status page: what was posted, and how long it took. Its failure is logged
    // only: the PR has its results, and running the job again would post them again.
    let analysis = NewAnalysis {
        took_ms: began.elapsed().as_millis() as u64,
        ..analysis
    };
    if let Err(e) = app.store.record_analysis(view.state.id, &analysis).await {
        tracing::warn!(error = %e, "could not record the analysis for the status page");
    }
    tracing::info!(
        repo = %view.repo.name,
        pr = view.pr.number,
        changed = report.changed.len(),
        untouched = report.callers.iter().filter(|c| !c.touched).count(),
        elsewhere = others.as_ref().map_or(0, |o| o.found.len()),
        across = across.found.len(),
        config_problems = loaded.problems.len(),
        "blast radius posted"
    );
    Ok(())
}

/// The bodies of the inline comments the App already left on the PR: a comment that
/// says the same is not posted again.
async fn our_review_comments(
    installation: &Installation,
    view: &PrView,
) -> Result<Vec<String>, JobError> {
    let bot = installation.bot_login().await.map_err(errors::github)?;
    Ok(installation
        .list_review_comments_by(&view.repo.name, view.pr.number, &bot)
        .await
        .map_err(errors::github)?
        .into_iter()
        .map(|c| c.body)
        .collect())
}

/// The PR's blast radius over the base graph, within what the repository's configuration
/// lets through.
fn blast(
    app: &App,
    base: &Graph,
    view: &PrView,
    config: &RepoConfig,
    stalled: &[String],
) -> Result<BlastReport, JobError> {
    let base_label = format!(
        "{}@{}",
        view.repo.default_branch.clone().unwrap_or_default(),
        view.base_commit.short()
    );
    let head_label = format!("#{}@{}", view.pr.number, view.pr.head.sha.short());
    let request = BlastRequest {
        base_label: &base_label,
        head_label: &head_label,
        depth: config.depth,
    };
    let rules = app.rules;
    // The files an earlier attempt was reading when its deadline stopped it are left
    // out, and named: the PR gets its comment without them rather than no comment.
    let (changed, timed_out): (Vec<String>, Vec<String>) = view
        .fetched
        .changed
        .iter()
        .cloned()
        .partition(|path| stalled.binary_search(path).is_err());
    crate::workflow::cpu(|| {
        let fetched = &view.fetched;
        let old = fetched.old.as_ref().expect("fetched with the old versions");
        blast_revisions(base, 0, old, &fetched.new, &changed, &rules, &request).map(|mut report| {
            report.skipped_files += timed_out.len() as u32;
            report
                .skipped
                .extend(timed_out.iter().map(|file| SkippedFile {
                    file: file.clone(),
                    reason: SkipReason::TimedOut,
                }));
            report.skipped.sort_by(|a, b| a.file.cmp(&b.file));
            report.retain(|path| config.paths.allows(path), config.min_confidence);
            report
        })
    })
    .map_err(JobError::retry)
}

/// The calls the installation's other repositories make into the packages this one
/// holds that reach a function the PR changed.
struct Others {
    calls: Vec<CallElsewhere>,
    found: Vec<FoundElsewhere>,
    versions: Vec<(String, String)>,
    /// Package names another repository owns too: nothing listed for them.
    ambiguous: Vec<String>,
}

/// [`Others`], from the stored external calls linked to the base graph; None when the
/// repository holds no package another repository calls.
async fn calls_elsewhere(
    app: &App,
    installation: InstallationId,
    base: &Graph,
    view: &PrView,
    report: &BlastReport,
) -> Result<Option<Others>, JobError> {
    if report.changed.is_empty() {
        return Ok(None);
    }
    let CallsElsewhere { calls, ambiguous } =
        calls_into_packages(&app.store, Some(installation), view.state.id, base)
            .await
            .map_err(JobError::retry)?;
    if calls.is_empty() && ambiguous.is_empty() {
        return Ok(None);
    }
    let rules = app.rules;
    let (found, versions) = crate::workflow::cpu(|| {
        let mut found = org::reached_by_changes(base, &report.changed, &calls);
        judge_found(base, view, report, &calls, &mut found, &rules)?;
        anyhow::Ok((found, org::package_versions(base)))
    })
    .map_err(JobError::retry)?;
    Ok(Some(Others {
        calls,
        found,
        versions,
        ambiguous,
    }))
}

/// The clients and producers, here and in the installation's other repositories,
/// that reach the routes and topics the changed functions handle (as the stored graph,
/// the default branch's, has them: a route the pull request adds claims nobody).
async fn links_across(
    app: &App,
    installation: InstallationId,
    base: &Graph,
    view: &PrView,
    report: &BlastReport,
) -> Result<LinksAcross, JobError> {
    if report.changed.is_empty() {
        return Ok(LinksAcross::default());
    }
    let (links, served) = crate::workflow::cpu(|| {
        let links = crate::links::resolve(base);
        let served = crate::links::across::served_by_changes(base, &links, &report.changed);
        anyhow::Ok((links, served))
    })
    .map_err(JobError::retry)?;
    let asking = Asking {
        installation: Some(installation),
        repo: view.state.id,
        full_name: &view.repo.name.to_string(),
        private: view.repo.private,
        commit: Some(view.base_commit.as_str()),
    };
    callers_of(&app.store, &asking, &links, served)
        .await
        .map_err(JobError::retry)
}

/// Gives each call from elsewhere in `found` its verdict against the new contract of
/// the function it reaches (issue 44), as the repository's own direct callers have
/// theirs: the changed files whose functions changed signature are paired again from
/// the fetched versions.
fn judge_found(
    base: &Graph,
    view: &PrView,
    report: &BlastReport,
    calls: &[CallElsewhere],
    found: &mut [FoundElsewhere],
    rules: &crate::indexer::skip::SkipRules,
) -> anyhow::Result<()> {
    if found.is_empty() {
        return Ok(());
    }
    let mut paths: Vec<String> = found
        .iter()
        .map(|f| &report.changed[f.changed])
        .filter(|c| matches!(c.change, Change::Signature | Change::SignatureAndBody))
        .map(|c| c.file.clone())
        .collect();
    paths.sort();
    paths.dedup();
    let changes = match (&view.fetched.old, paths.is_empty()) {
        (Some(old), false) => pair_versions(old, &view.fetched.new, &paths, rules)?.0,
        _ => Vec::new(),
    };
    let asked: Vec<CallToJudge> = found
        .iter()
        .map(|f| CallToJudge {
            changed: f.changed,
            path: &calls[f.call].path,
            args: calls[f.call].call.args(),
        })
        .collect();
    let judged = judge_elsewhere(base, &changes, report, &asked);
    for (f, j) in found.iter_mut().zip(judged) {
        f.judged = Some(j);
    }
    Ok(())
}

/// Posts what was planned: the summary comment, then the check run, then the inline
/// review last (the summary and the check run stand even if GitHub refuses it). A newer
/// push to the PR stops it between posts.
async fn post(
    installation: &Installation,
    job: &RunningJob,
    view: &PrView,
    outputs: PrOutputs,
) -> Result<(), JobError> {
    let (repo, pr) = (&view.repo.name, &view.pr);
    if let Some(comment) = outputs.comment {
        installation
            .create_or_update_marked_comment(repo, pr.number, SUMMARY_MARKER, &comment)
            .await
            .map_err(errors::github)?;
    }
    if let Some(run) = outputs.check_run {
        if job.is_superseded().await.map_err(JobError::retry)? {
            return Ok(());
        }
        let annotations: Vec<Annotation> = run.notes.iter().map(annotation).collect();
        let run = NewCheckRun {
            name: CHECK_NAME.to_string(),
            head_sha: pr.head.sha.clone(),
            status: CheckStatus::Completed,
            conclusion: Some(conclusion(run.verdict)),
            external_id: Some(format!("pr-{}", pr.number)),
            details_url: None,
            output: Some(CheckOutput {
                title: run.title,
                summary: run.summary,
                text: None,
            }),
        };
        installation
            .publish_check_run(repo, &run, &annotations)
            .await
            .map_err(errors::github)?;
    }
    if let Some(review) = outputs.review {
        if job.is_superseded().await.map_err(JobError::retry)? {
            return Ok(());
        }
        post_review(installation, view, review).await?;
    }
    Ok(())
}

/// The inline review. A 422 (a line GitHub does not take as part of the diff) is logged,
/// not retried: sending it again would fail again, and the summary and the check run say
/// everything it would.
async fn post_review(
    installation: &Installation,
    view: &PrView,
    review: ReviewPlan,
) -> Result<(), JobError> {
    let new = NewReview {
        commit_id: Some(review.commit),
        body: review.body,
        comments: review
            .comments
            .into_iter()
            .map(|c| NewReviewComment {
                path: c.path,
                line: c.line,
                start_line: None,
                body: c.body,
            })
            .collect(),
    };
    match installation
        .create_marked_review(&view.repo.name, view.pr.number, &review.marker, &new)
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

fn conclusion(verdict: Verdict) -> CheckConclusion {
    match verdict {
        Verdict::Success => CheckConclusion::Success,
        Verdict::Neutral => CheckConclusion::Neutral,
        Verdict::Failure => CheckConclusion::Failure,
    }
}

/// The check run's conclusion as GitHub names it.
fn conclusion_name(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Success => "success",
        Verdict::Neutral => "neutral",
        Verdict::Failure => "failure",
    }
}

fn annotation(note: &Note) -> Annotation {
    Annotation {
        path: note.path.clone(),
        start_line: note.line,
        end_line: note.line,
        level: match note.level {
            NoteLevel::Warning => AnnotationLevel::Warning,
            NoteLevel::Failure => AnnotationLevel::Failure,
        },
        title: Some(note.title.clone()),
        message: note.message.clone(),
        raw_details: None,
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
    // The merge commit's versions when its tree lists within the job's requests; else
    // the head's, as GitHub lists the PR's files.
    let merged = match merge_commit(pr) {
        Some(merge) => match installation.get_full_tree(name, merge).await {
            Ok(tree) => Some(tree),
            Err(e) if e.is_tree_too_large() => None,
            Err(e) => return Err(errors::github(e)),
        },
        None => None,
    };
    if let Some(tree) = merged {
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

#[cfg(test)]
mod tests {
    /// The planner fits the check run's summary to the limit the GitHub edge enforces:
    /// the two constants name one GitHub rule and must not drift apart.
    #[test]
    fn the_planned_summary_limit_is_the_one_github_enforces() {
        assert_eq!(
            crate::report::pull_request::CHECK_TEXT_CHARS,
            crate::github::MAX_CHECK_TEXT_CHARS
        );
    }
}
