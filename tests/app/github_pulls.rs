//! The `github` module's pull request calls (PR, files, comments, reactions, check runs,
//! reviews) through octocrab's real requests, against the fake GitHub on loopback serving
//! real git repositories; and every request of these tests checked against GitHub's REST
//! description.

use crate::fake_github;

use std::collections::BTreeSet;
use std::time::Duration;

use blast_radius::blast::patch::{commentable_lines, DiffLines};
use blast_radius::github::{
    Annotation, AnnotationLevel, CheckConclusion, CheckOutput, CheckRunUpdate, CheckStatus,
    CommentId, FileStatus, GithubApp, GithubConfig, GithubError, Installation, MarkedOutcome,
    NewCheckRun, NewReview, NewReviewComment, PrFile, PrState, Reaction, RepoName, RetryPolicy,
    ReviewCommentId, ReviewState, MAX_BODY_CHARS, PR_FILES_LIMIT,
};
use blast_radius::model::{CommitSha, GithubRepoId, InstallationId};
use fake_github::{openapi, FakeGithub, Fault, TestRepo, APP_ID, BOT_LOGIN, PRIVATE_KEY_PKCS1};

const INSTALLATION: i64 = 7;

/// The lines of a PR's file a review comment may be anchored on (none without a patch).
fn diff_lines(f: &PrFile) -> DiffLines {
    f.patch.as_deref().map(DiffLines::parse).unwrap_or_default()
}
const PR: u64 = 3;
const MARKER: &str = "<!-- blast-radius:summary -->";

fn config(fake: &FakeGithub) -> GithubConfig {
    let key = blast_radius::github::AppPrivateKey::from_pem(PRIVATE_KEY_PKCS1).unwrap();
    let mut config = GithubConfig::new(APP_ID, key).with_api_url(fake.api_url());
    config.retry = RetryPolicy {
        max_attempts: 4,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        max_wait: Duration::from_secs(5),
        secondary_wait: Duration::from_millis(50),
    };
    config.request_timeout = Duration::from_secs(20);
    // Paced in one test of its own.
    config.notify_spacing = Duration::ZERO;
    config
}

/// `image.js` on main: 40 lines, so that changes at its top and bottom are two hunks.
fn image_js(top: &str, bottom: &str) -> String {
    let mut lines = vec![
        "import { resize } from './resize';".to_string(),
        top.to_string(),
        String::new(),
        "export function classifyFields(fields) {".to_string(),
        "  return fields.map((f) => f.type);".to_string(),
        "}".to_string(),
    ];
    for i in 0..30 {
        lines.push(format!("export const c{i} = {i};"));
    }
    lines.push("export function upload(req) {".to_string());
    lines.push(format!("  {bottom}"));
    lines.push("  return classifyFields(req.body);".to_string());
    lines.push("}".to_string());
    lines.join("\n") + "\n"
}

/// A fake, installation 7 (`acme`), `acme/web` with `main`, and branch `fix` with PR 3 into
/// main: two hunks in `src/image.js`, a file added, one removed, one renamed and edited,
/// a binary file changed.
struct World {
    fake: FakeGithub,
    repo: TestRepo,
    inst: Installation,
    name: RepoName,
    base: CommitSha,
    head: CommitSha,
}

async fn world() -> World {
    let fake = FakeGithub::start().await;
    let repo = TestRepo::new();
    repo.write(
        "src/image.js",
        image_js("const MAX = 10;", "resize(req.file);"),
    )
    .write(
        "src/video.js",
        "import { classifyFields } from './image';\nclassifyFields([]);\n",
    )
    .write("src/old.js", "export const old = 1;\n")
    .write(
        "src/legacy/util.js",
        "export function util() {\n  return 1;\n}\n// end\n",
    )
    .write("assets/logo.png", [137u8, 80, 78, 71, 0, 1, 2, 3]);
    let base = CommitSha(repo.commit("first"));
    repo.git(&["checkout", "-q", "-b", "fix"]);
    repo.write(
        "src/image.js",
        image_js("const MAX = 20;", "resize(req.file, MAX);"),
    )
    .write(
        "src/log.js",
        "export function log(x) {\n  console.log(x);\n}\n",
    )
    .remove("src/old.js")
    .rename("src/legacy/util.js", "src/util.js")
    .write(
        "src/util.js",
        "export function util() {\n  return 2;\n}\n// end\n",
    )
    .write("assets/logo.png", [137u8, 80, 78, 71, 0, 9, 9, 9]);
    let head = CommitSha(repo.commit("fix"));
    repo.git(&["checkout", "-q", "main"]);
    fake.add_installation(INSTALLATION, "acme");
    fake.add_repo(INSTALLATION, "acme/web", repo.path());
    fake.open_pr("acme/web", PR, "main", "fix");
    let app = GithubApp::new(&config(&fake)).unwrap();
    let inst = app.installation(InstallationId(INSTALLATION));
    World {
        fake,
        repo,
        inst,
        name: RepoName::new("acme", "web"),
        base,
        head,
    }
}

fn output() -> CheckOutput {
    CheckOutput {
        title: "3 callers left behind".into(),
        summary: "classifyFields changed; callers in video.js".into(),
        text: Some("details".into()),
    }
}

fn annotations(n: u32) -> Vec<Annotation> {
    (1..=n)
        .map(|i| Annotation {
            path: "src/video.js".into(),
            start_line: i,
            end_line: i,
            level: AnnotationLevel::Warning,
            message: format!("call site {i} of classifyFields"),
            title: (i % 2 == 0).then(|| "untouched caller".to_string()),
            raw_details: None,
        })
        .collect()
}

fn new_run(head: &CommitSha) -> NewCheckRun {
    NewCheckRun {
        name: "Blast radius".into(),
        head_sha: head.clone(),
        status: CheckStatus::Completed,
        conclusion: Some(CheckConclusion::Neutral),
        external_id: Some("analysis-1".into()),
        details_url: None,
        output: Some(output()),
    }
}

// ---- Pull requests ----

#[tokio::test]
async fn a_pull_request_with_its_branches_and_github_s_test_merge() {
    let w = world().await;
    let pr = w.inst.get_pull_request(&w.name, PR).await.unwrap();
    assert_eq!(pr.number, PR);
    assert_eq!(pr.state, PrState::Open);
    assert!(pr.is_open() && !pr.draft && !pr.merged);
    assert_eq!(pr.user_login, "octocat");
    assert_eq!(
        (pr.head.sha.clone(), pr.head.ref_name.as_str()),
        (w.head.clone(), "fix")
    );
    assert_eq!(
        (pr.base.sha.clone(), pr.base.ref_name.as_str()),
        (w.base.clone(), "main")
    );
    assert!(!pr.is_from_fork());
    assert_eq!(pr.base.repo_name, Some(w.name.clone()));
    assert_eq!(pr.mergeable, Some(true));
    // A real merge commit: base and head its parents, head's files in it.
    let merge = pr.merge_commit_sha.expect("a test merge commit");
    assert_eq!(
        w.repo.git(&["rev-parse", &format!("{merge}^1")]),
        w.base.as_str()
    );
    assert_eq!(
        w.repo.git(&["rev-parse", &format!("{merge}^2")]),
        w.head.as_str()
    );
    assert_eq!(
        w.repo.show(merge.as_str(), "src/log.js"),
        w.repo.show(w.head.as_str(), "src/log.js")
    );

    // main moves on with a conflicting change: not mergeable, no merge commit.
    w.repo.write(
        "src/image.js",
        image_js("const MAX = 30;", "resize(req.file);"),
    );
    let main2 = w.repo.commit("conflict");
    let pr = w.inst.get_pull_request(&w.name, PR).await.unwrap();
    assert_eq!(pr.base.sha.as_str(), main2);
    assert_eq!((pr.mergeable, pr.merge_commit_sha), (Some(false), None));

    // GitHub still computing; a draft; closed.
    w.fake.set_pr_mergeable("acme/web", PR, Some(None));
    w.fake.set_pr_draft("acme/web", PR, true);
    let pr = w.inst.get_pull_request(&w.name, PR).await.unwrap();
    assert_eq!(pr.mergeable, None);
    assert!(pr.draft);
    w.fake.set_pr_state("acme/web", PR, false, true);
    let pr = w.inst.get_pull_request(&w.name, PR).await.unwrap();
    assert_eq!(pr.state, PrState::Closed);
    assert!(pr.merged && !pr.is_open());

    let err = w.inst.get_pull_request(&w.name, 99).await.unwrap_err();
    assert!(err.is_not_found(), "{err}");
}

#[tokio::test]
async fn a_pull_request_from_a_fork_is_told_apart() {
    let w = world().await;
    let fork = TestRepo::new();
    fork.git(&["fetch", "-q", w.repo.path().to_str().unwrap(), "main"]);
    fork.git(&["reset", "-q", "--hard", "FETCH_HEAD"]);
    fork.git(&["checkout", "-q", "-b", "patch-1"]);
    fork.write(
        "src/video.js",
        "import { classifyFields } from './image';\nclassifyFields([1]);\n",
    );
    let fork_head = fork.commit("from a fork");
    w.fake.add_installation(8, "someone");
    let fork_id = w.fake.add_repo(8, "someone/web", fork.path());
    w.fake
        .open_pr_from("acme/web", 4, "main", "someone/web", "patch-1");

    let pr = w.inst.get_pull_request(&w.name, 4).await.unwrap();
    assert!(pr.is_from_fork());
    assert_eq!(pr.head.repo_id, Some(GithubRepoId(fork_id)));
    assert_eq!(pr.head.repo_name, Some(RepoName::new("someone", "web")));
    assert_eq!(pr.head.sha.as_str(), fork_head);
    // The fork's commits were fetched into the base repository, as GitHub does.
    assert_eq!(w.repo.git(&["rev-parse", "refs/pull/4/head"]), fork_head);
    let files = w.inst.list_pull_request_files(&w.name, 4).await.unwrap();
    let paths: Vec<&str> = files.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["src/video.js"]);
}

#[tokio::test]
async fn the_files_of_a_pull_request_with_their_patches() {
    let w = world().await;
    let files = w.inst.list_pull_request_files(&w.name, PR).await.unwrap();
    assert!(!files.hit_limit);
    let mut got: Vec<(String, FileStatus, Option<String>, bool)> = files
        .files
        .iter()
        .map(|f| {
            (
                f.path.to_string(),
                f.status,
                f.previous_path.as_ref().map(|p| p.to_string()),
                f.patch.is_some(),
            )
        })
        .collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        got,
        [
            ("assets/logo.png".into(), FileStatus::Modified, None, false),
            ("src/image.js".into(), FileStatus::Modified, None, true),
            ("src/log.js".into(), FileStatus::Added, None, true),
            ("src/old.js".into(), FileStatus::Removed, None, true),
            (
                "src/util.js".into(),
                FileStatus::Renamed,
                Some("src/legacy/util.js".into()),
                true
            ),
        ]
    );
    let image = files
        .files
        .iter()
        .find(|f| f.path.as_str() == "src/image.js")
        .unwrap();
    assert_eq!((image.additions, image.deletions), (2, 2));
    assert_eq!(
        image.sha.as_ref().unwrap().as_str(),
        w.repo
            .git(&["rev-parse", &format!("{}:src/image.js", w.head)])
    );
    let patch = image.patch.as_deref().unwrap();
    assert!(patch.starts_with("@@ -1,"), "{patch}");
    assert!(!patch.ends_with('\n'));
}

/// The helper's lines against the fake's real `git diff` patches: each added line is the
/// head file's line, and a review comment on every commentable line is taken while one just
/// outside a hunk is refused.
#[tokio::test]
async fn commentable_lines_are_the_lines_github_takes() {
    let w = world().await;
    let files = w.inst.list_pull_request_files(&w.name, PR).await.unwrap();
    let mut comments = Vec::new();
    for f in &files.files {
        let lines = diff_lines(f);
        let Some(patch) = &f.patch else {
            assert!(lines.is_empty(), "{}", f.path);
            continue;
        };
        assert_eq!(
            lines.commentable_lines().collect::<BTreeSet<_>>(),
            commentable_lines(patch)
        );
        if f.status == FileStatus::Removed {
            assert_eq!(lines.commentable_lines().count(), 0);
            continue;
        }
        let head_text = String::from_utf8(w.repo.show(w.head.as_str(), f.path.as_str())).unwrap();
        let head_lines: Vec<&str> = head_text.lines().collect();
        let plus: BTreeSet<String> = patch
            .lines()
            .filter_map(|l| l.strip_prefix('+'))
            .map(str::to_string)
            .collect();
        for added in lines.added_lines() {
            assert!(
                plus.contains(head_lines[added as usize - 1]),
                "{}:{added}",
                f.path
            );
        }
        for line in lines.commentable_lines() {
            comments.push(NewReviewComment {
                path: f.path.to_string(),
                line,
                start_line: None,
                body: format!("line {line}"),
            });
        }
    }
    let image = files
        .files
        .iter()
        .find(|f| f.path.as_str() == "src/image.js")
        .unwrap();
    let d: DiffLines = diff_lines(image);
    assert_eq!(d.hunks().len(), 2);
    assert_eq!(d.added_lines().collect::<Vec<_>>(), [2, 38]);
    assert_eq!(d.first_commentable_in(37..=40), Some(38));
    let review = NewReview {
        commit_id: Some(w.head.clone()),
        body: "every commentable line".into(),
        comments: comments.clone(),
    };
    let posted = w.inst.create_review(&w.name, PR, &review).await.unwrap();
    assert_eq!(posted.state, ReviewState::Commented);
    assert_eq!(w.fake.review_comments("acme/web", PR).len(), comments.len());

    // Just past each hunk of image.js: refused.
    for hunk in d.hunks() {
        let past = hunk.right().unwrap().end() + 1;
        assert!(!d.is_commentable(past));
        let review = NewReview {
            commit_id: Some(w.head.clone()),
            body: String::new(),
            comments: vec![NewReviewComment {
                path: "src/image.js".into(),
                line: past,
                start_line: None,
                body: "off the diff".into(),
            }],
        };
        let err = w
            .inst
            .create_review(&w.name, PR, &review)
            .await
            .unwrap_err();
        assert!(err.is_unprocessable(), "{err}");
    }
}

#[tokio::test]
async fn every_page_of_250_files_is_read() {
    let w = world().await;
    w.repo.git(&["checkout", "-q", "-b", "many"]);
    for i in 0..250 {
        w.repo.write(
            &format!("gen/f{i:03}.js"),
            format!("export const f{i} = {i};\n"),
        );
    }
    w.repo.commit("many");
    w.repo.git(&["checkout", "-q", "main"]);
    w.fake.open_pr("acme/web", 5, "main", "many");
    let files = w.inst.list_pull_request_files(&w.name, 5).await.unwrap();
    assert_eq!(files.files.len(), 250);
    assert!(!files.hit_limit);
    assert!(files.files.iter().all(|f| f.status == FileStatus::Added
        && f.additions == 1
        && diff_lines(f).commentable_lines().eq([1])));
    let pages: Vec<Option<String>> = w
        .fake
        .requests_matching("/pulls/5/files")
        .into_iter()
        .map(|r| r.query)
        .collect();
    assert_eq!(
        pages,
        [1, 2, 3].map(|p| Some(format!("per_page=100&page={p}")))
    );
}

#[tokio::test]
async fn github_s_3000_file_limit_is_reported() {
    let w = world().await;
    w.repo.git(&["checkout", "-q", "-b", "huge"]);
    for i in 0..3001 {
        w.repo.write(&format!("gen/{}/f{i}.js", i / 500), "1;\n");
    }
    w.repo.commit("huge");
    w.repo.git(&["checkout", "-q", "main"]);
    w.fake.open_pr("acme/web", 6, "main", "huge");
    let files = w.inst.list_pull_request_files(&w.name, 6).await.unwrap();
    assert_eq!(files.files.len(), PR_FILES_LIMIT);
    assert!(files.hit_limit);
    assert_eq!(w.fake.requests_matching("/pulls/6/files").len(), 30);
}

// ---- Issue comments and reactions ----

#[tokio::test]
async fn the_marked_comment_is_created_once_then_edited() {
    let w = world().await;
    assert_eq!(w.inst.bot_login().await.unwrap(), BOT_LOGIN);
    // Someone quoting our marker is not us.
    w.fake
        .add_comment_as("acme/web", PR, "mallory", &format!("copied {MARKER}"));

    let first = w
        .inst
        .create_or_update_marked_comment(&w.name, PR, MARKER, "3 callers left behind")
        .await
        .unwrap();
    assert_eq!(first.outcome, MarkedOutcome::Created);
    assert_eq!(
        first.comment.body,
        format!("3 callers left behind\n\n{MARKER}")
    );
    assert_eq!(first.comment.user_login, BOT_LOGIN);
    assert!(first.comment.user_is_bot);

    let same = w
        .inst
        .create_or_update_marked_comment(&w.name, PR, MARKER, "3 callers left behind")
        .await
        .unwrap();
    assert_eq!(same.outcome, MarkedOutcome::Unchanged);
    assert_eq!(same.comment.id, first.comment.id);

    let edited = w
        .inst
        .create_or_update_marked_comment(&w.name, PR, MARKER, &format!("{MARKER}\n1 caller left"))
        .await
        .unwrap();
    assert_eq!(edited.outcome, MarkedOutcome::Updated);
    assert_eq!(edited.comment.id, first.comment.id);

    let comments = w.fake.issue_comments("acme/web", PR);
    assert_eq!(comments.len(), 2);
    let ours: Vec<_> = comments
        .iter()
        .filter(|c| c.author.login == BOT_LOGIN)
        .collect();
    assert_eq!(ours.len(), 1);
    assert_eq!(ours[0].body, format!("{MARKER}\n1 caller left"));
    assert_eq!(ours[0].edits, 1);
    assert_eq!(w.fake.requests_to("POST", "/issues/3/comments").len(), 1);
    assert_eq!(w.fake.requests_to("PATCH", "/issues/comments/").len(), 1);
    // The App's identity was asked once.
    assert_eq!(
        w.fake
            .requests_to("GET", "/app")
            .iter()
            .filter(|r| r.path == "/app")
            .count(),
        1
    );

    let listed = w.inst.list_issue_comments(&w.name, PR).await.unwrap();
    assert_eq!(listed.len(), 2);
    let found = w
        .inst
        .find_marked_comment(&w.name, PR, MARKER)
        .await
        .unwrap();
    assert_eq!(found.map(|c| c.id), Some(first.comment.id));
}

#[tokio::test]
async fn a_502_on_create_never_leaves_two_comments() {
    let w = world().await;
    // The comment is posted, but the answer is lost.
    w.fake.inject_method(
        "POST",
        "/issues/3/comments",
        1,
        Fault::AppliedThenStatus(502),
    );
    let got = w
        .inst
        .create_or_update_marked_comment(&w.name, PR, MARKER, "summary")
        .await
        .unwrap();
    assert_eq!(got.outcome, MarkedOutcome::Created);
    assert_eq!(w.fake.issue_comments("acme/web", PR).len(), 1);
    assert_eq!(w.fake.requests_to("POST", "/issues/3/comments").len(), 1);

    // On another PR the 502 comes before anything was posted: posted again, once.
    w.repo.git(&["branch", "other", "fix"]);
    w.fake.open_pr("acme/web", 7, "main", "other");
    w.fake
        .inject_method("POST", "/issues/7/comments", 1, Fault::Status(502));
    let got = w
        .inst
        .create_or_update_marked_comment(&w.name, 7, MARKER, "summary")
        .await
        .unwrap();
    assert_eq!(got.outcome, MarkedOutcome::Created);
    assert_eq!(w.fake.issue_comments("acme/web", 7).len(), 1);
    assert_eq!(w.fake.requests_to("POST", "/issues/7/comments").len(), 2);

    // The plain create says the outcome is unknown rather than posting twice.
    w.fake.inject_method(
        "POST",
        "/issues/7/comments",
        1,
        Fault::AppliedThenStatus(500),
    );
    let err = w
        .inst
        .create_issue_comment(&w.name, 7, "plain")
        .await
        .unwrap_err();
    assert!(
        matches!(err, GithubError::WriteOutcomeUnknown { .. }),
        "{err}"
    );
    assert_eq!(w.fake.issue_comments("acme/web", 7).len(), 2);
}

#[tokio::test]
async fn comments_of_one_installation_are_spaced_out_and_reactions_are_not() {
    let w = world().await;
    let mut config = config(&w.fake);
    config.notify_spacing = Duration::from_millis(300);
    let app = GithubApp::new(&config).unwrap();
    let inst = app.installation(InstallationId(INSTALLATION));
    let name = w.name.clone();
    let first = inst.create_issue_comment(&name, PR, "first").await.unwrap();
    // Three more at once: each waits for its slot, 300 ms after the one before.
    let started = std::time::Instant::now();
    let posted = futures_util::future::join_all(
        ["a", "b", "c"].map(|body| inst.create_issue_comment(&name, PR, body)),
    )
    .await;
    assert!(posted.iter().all(Result::is_ok));
    assert!(
        started.elapsed() >= Duration::from_millis(3 * 300 - 50),
        "{:?}",
        started.elapsed()
    );
    // Reactions notify nobody: not paced (were they, 20 of them at 10 s apart would
    // take minutes).
    let mut slow = config.clone();
    slow.notify_spacing = Duration::from_secs(10);
    let app = GithubApp::new(&slow).unwrap();
    let inst = app.installation(InstallationId(INSTALLATION));
    inst.create_issue_comment(&name, PR, "paced").await.unwrap();
    let reactions = async {
        for _ in 0..20 {
            inst.add_issue_comment_reaction(&name, first.id, Reaction::Eyes)
                .await
                .unwrap();
        }
    };
    tokio::time::timeout(Duration::from_secs(9), reactions)
        .await
        .expect("reactions are not paced");
}

#[tokio::test]
async fn reactions_on_a_command_and_on_a_review_comment() {
    let w = world().await;
    let command = w
        .fake
        .add_comment_as("acme/web", PR, "dev", "/callers classifyFields");
    let id = CommentId(command);
    w.inst
        .add_issue_comment_reaction(&w.name, id, Reaction::Eyes)
        .await
        .unwrap();
    w.inst
        .add_issue_comment_reaction(&w.name, id, Reaction::Rocket)
        .await
        .unwrap();
    // Twice the same: still one (GitHub answers 200 with the existing one).
    w.inst
        .add_issue_comment_reaction(&w.name, id, Reaction::Eyes)
        .await
        .unwrap();
    assert_eq!(w.fake.reactions_on(command), ["eyes", "rocket"]);
    assert!(w.fake.reactions().iter().all(|r| r.user == BOT_LOGIN));

    let review = NewReview {
        commit_id: None,
        body: "r".into(),
        comments: vec![NewReviewComment {
            path: "src/log.js".into(),
            line: 1,
            start_line: None,
            body: "/callers log".into(),
        }],
    };
    w.inst.create_review(&w.name, PR, &review).await.unwrap();
    let rc = w.inst.list_review_comments(&w.name, PR).await.unwrap();
    w.inst
        .add_review_comment_reaction(&w.name, rc[0].id, Reaction::Confused)
        .await
        .unwrap();
    assert_eq!(w.fake.reactions_on(rc[0].id.0), ["confused"]);

    let err = w
        .inst
        .add_issue_comment_reaction(&w.name, CommentId(1), Reaction::Eyes)
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err}");
    let err = w
        .inst
        .add_review_comment_reaction(&w.name, ReviewCommentId(1), Reaction::Eyes)
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err}");
}

// ---- Check runs ----

#[tokio::test]
async fn annotations_longer_than_github_takes_are_cut_not_refused() {
    let w = world().await;
    // A called function's name is the analysed code's: any length.
    let mut long = annotations(2);
    long[0].title = Some(format!("Calls {}", "x".repeat(1000)));
    long[1].message = "é".repeat(40 * 1024);
    let run = w
        .inst
        .publish_check_run(&w.name, &new_run(&w.head), &long)
        .await
        .unwrap();
    assert_eq!(run.annotations_count, 2);
    // Again (a retried job): the cut annotations are recognised, not sent twice.
    w.inst
        .publish_check_run(&w.name, &new_run(&w.head), &long)
        .await
        .unwrap();
    let ours = &w.fake.check_runs("acme/web")[0];
    assert_eq!(ours.annotations.len(), 2);
    let title = ours.annotations[0]["title"].as_str().unwrap();
    assert_eq!(title.chars().count(), 255);
    assert!(title.ends_with('…'));
    assert!(ours.annotations[1]["message"].as_str().unwrap().len() <= 64 * 1024);
}

#[tokio::test]
async fn a_check_run_with_120_annotations_takes_three_requests_of_at_most_50() {
    let w = world().await;
    let run = w
        .inst
        .create_check_run(&w.name, &new_run(&w.head), &annotations(120))
        .await
        .unwrap();
    assert_eq!(run.annotations_count, 120);
    assert_eq!(run.status, CheckStatus::Completed);
    assert_eq!(run.conclusion, Some(CheckConclusion::Neutral));
    assert_eq!(run.app_id, Some(APP_ID));
    assert_eq!(run.external_id.as_deref(), Some("analysis-1"));

    let runs = w.fake.check_runs("acme/web");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].annotation_batches, [50, 50, 20]);
    assert_eq!(runs[0].annotations.len(), 120);
    assert_eq!(runs[0].head_sha, w.head.as_str());
    let writes: Vec<(String, usize)> = w
        .fake
        .requests()
        .into_iter()
        .filter(|r| r.path.contains("/check-runs") && r.method != "GET")
        .map(|r| {
            let n = r.body.as_ref().unwrap()["output"]["annotations"]
                .as_array()
                .map_or(0, |a| a.len());
            (r.method, n)
        })
        .collect();
    assert_eq!(
        writes,
        [
            ("POST".into(), 50),
            ("PATCH".into(), 50),
            ("PATCH".into(), 20)
        ]
    );

    // Read back, in order, the same.
    let listed = w
        .inst
        .list_check_run_annotations(&w.name, run.id)
        .await
        .unwrap();
    assert_eq!(listed, annotations(120));

    // An update: status only, then 60 more annotations appended in two requests.
    let update = CheckRunUpdate {
        status: None,
        conclusion: Some(CheckConclusion::Failure),
        output: Some(output()),
    };
    let run = w
        .inst
        .update_check_run(&w.name, run.id, &update, &annotations(60))
        .await
        .unwrap();
    assert_eq!(run.conclusion, Some(CheckConclusion::Failure));
    assert_eq!(run.annotations_count, 180);
    assert_eq!(
        w.fake.check_runs("acme/web")[0].annotation_batches,
        [50, 50, 20, 50, 10]
    );
}

#[tokio::test]
async fn one_check_run_of_ours_per_head_commit() {
    let w = world().await;
    // Another App's run with the same name on the same commit is not ours.
    w.fake
        .add_check_run_of_app("acme/web", w.head.as_str(), "Blast radius", 99);
    assert!(w
        .inst
        .find_check_run(&w.name, &w.head, "Blast radius")
        .await
        .unwrap()
        .is_none());

    let first = w
        .inst
        .publish_check_run(&w.name, &new_run(&w.head), &annotations(70))
        .await
        .unwrap();
    // Published again (a redelivery, a restart after a crash): the same run, and no
    // annotation sent twice.
    let again = w
        .inst
        .publish_check_run(&w.name, &new_run(&w.head), &annotations(70))
        .await
        .unwrap();
    assert_eq!(again.id, first.id);
    let ours: Vec<_> = w
        .fake
        .check_runs("acme/web")
        .into_iter()
        .filter(|r| r.app_id == APP_ID)
        .collect();
    assert_eq!(ours.len(), 1);
    assert_eq!(ours[0].annotations.len(), 70);
    assert_eq!(w.fake.requests_to("POST", "/check-runs").len(), 1);

    // Listing by ref and name sees both Apps' runs; by the branch name too.
    let all = w
        .inst
        .list_check_runs_for_ref(&w.name, w.head.as_str(), Some("Blast radius"))
        .await
        .unwrap();
    assert_eq!(all.len(), 2);
    let by_branch = w
        .inst
        .list_check_runs_for_ref(&w.name, "fix", None)
        .await
        .unwrap();
    assert_eq!(by_branch.len(), 2);
    let found = w
        .inst
        .find_check_run(&w.name, &w.head, "Blast radius")
        .await
        .unwrap();
    assert_eq!(found.map(|r| r.id), Some(first.id));

    // A new head commit gets its own run.
    let other = CommitSha(w.base.to_string());
    w.inst
        .publish_check_run(&w.name, &new_run(&other), &[])
        .await
        .unwrap();
    assert_eq!(w.fake.requests_to("POST", "/check-runs").len(), 2);
}

#[tokio::test]
async fn lost_answers_while_publishing_a_check_run_duplicate_nothing() {
    let w = world().await;
    let messages = |run: &fake_github::FakeCheckRun| {
        let mut m: Vec<String> = run
            .annotations
            .iter()
            .map(|a| a["message"].as_str().unwrap().to_string())
            .collect();
        m.sort();
        m.dedup();
        m.len()
    };

    // The second batch of annotations is appended, but its answer is lost: read back,
    // the rest sent once.
    w.fake
        .inject_method("PATCH", "/check-runs/", 1, Fault::AppliedThenStatus(504));
    let run = w
        .inst
        .publish_check_run(&w.name, &new_run(&w.head), &annotations(120))
        .await
        .unwrap();
    let runs = w.fake.check_runs("acme/web");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].id, run.id.0);
    assert_eq!(runs[0].annotation_batches, [50, 50, 20]);
    assert_eq!((runs[0].annotations.len(), messages(&runs[0])), (120, 120));
    assert_eq!(w.fake.requests_to("GET", "/annotations").len(), 1);

    // On another commit the run is created with its first 50 annotations but the answer
    // is lost: found again, not created twice, the other 70 appended.
    w.fake
        .inject_method("POST", "/check-runs", 1, Fault::AppliedThenStatus(502));
    let run = w
        .inst
        .publish_check_run(&w.name, &new_run(&w.base), &annotations(120))
        .await
        .unwrap();
    let runs: Vec<_> = w
        .fake
        .check_runs("acme/web")
        .into_iter()
        .filter(|r| r.head_sha == w.base.as_str())
        .collect();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].id, run.id.0);
    assert_eq!((runs[0].annotations.len(), messages(&runs[0])), (120, 120));
    assert_eq!(run.annotations_count, 120);
    assert_eq!(w.fake.requests_to("POST", "/check-runs").len(), 2);
}

// ---- Reviews ----

fn inline(path: &str, line: u32, start_line: Option<u32>) -> NewReviewComment {
    NewReviewComment {
        path: path.into(),
        line,
        start_line,
        body: format!("`classifyFields` is still called from src/video.js:2 ({path}:{line})"),
    }
}

#[tokio::test]
async fn a_review_on_diff_lines_is_posted_and_one_off_the_diff_is_refused_whole() {
    let w = world().await;
    let review = NewReview {
        commit_id: Some(w.head.clone()),
        body: "Blast radius: 1 caller left behind".into(),
        comments: vec![
            inline("src/image.js", 2, None),
            inline("src/image.js", 40, Some(37)),
            inline("src/log.js", 2, None),
        ],
    };
    let posted = w.inst.create_review(&w.name, PR, &review).await.unwrap();
    assert_eq!(posted.state, ReviewState::Commented);
    assert_eq!(posted.user_login, BOT_LOGIN);
    assert_eq!(posted.commit_id.as_ref(), Some(&w.head));
    let sent = &w.fake.requests_to("POST", "/pulls/3/reviews")[0];
    assert_eq!(sent.body.as_ref().unwrap()["event"], "COMMENT");

    // Line 20 of image.js is between the two hunks.
    let off = NewReview {
        comments: vec![
            inline("src/image.js", 2, None),
            inline("src/image.js", 20, None),
        ],
        ..review.clone()
    };
    let err = w.inst.create_review(&w.name, PR, &off).await.unwrap_err();
    assert!(err.is_unprocessable(), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("Pull request review thread line must be part of the diff"),
        "{text}"
    );
    assert!(text.contains("/pulls/3/reviews"), "{text}");
    // A file the PR does not touch.
    let untouched = NewReview {
        comments: vec![inline("src/video.js", 2, None)],
        ..review.clone()
    };
    let err = w
        .inst
        .create_review(&w.name, PR, &untouched)
        .await
        .unwrap_err();
    assert!(err.is_unprocessable(), "{err}");
    // A multi-line comment across the two hunks.
    let across = NewReview {
        comments: vec![inline("src/image.js", 38, Some(5))],
        ..review.clone()
    };
    let err = w
        .inst
        .create_review(&w.name, PR, &across)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("same hunk"), "{err}");

    // Only the first review was recorded, none pending; read back through the API.
    assert_eq!(w.fake.reviews("acme/web", PR).len(), 1);
    assert!(w.fake.pending_reviews().is_empty());
    let reviews = w.inst.list_reviews(&w.name, PR).await.unwrap();
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0].id, posted.id);
    let comments = w.inst.list_review_comments(&w.name, PR).await.unwrap();
    type Anchor = (String, Option<u32>, Option<u32>, Option<String>);
    let anchors: Vec<Anchor> = comments
        .iter()
        .map(|c| (c.path.clone(), c.start_line, c.line, c.side.clone()))
        .collect();
    assert_eq!(
        anchors,
        [
            ("src/image.js".into(), None, Some(2), Some("RIGHT".into())),
            (
                "src/image.js".into(),
                Some(37),
                Some(40),
                Some("RIGHT".into())
            ),
            ("src/log.js".into(), None, Some(2), Some("RIGHT".into())),
        ]
    );
    assert!(comments
        .iter()
        .all(|c| c.review_id == Some(posted.id) && c.user_login == BOT_LOGIN));
}

#[tokio::test]
async fn a_marked_review_is_posted_once() {
    let w = world().await;
    let marker = format!("<!-- blast-radius:review:{} -->", w.head);
    let review = NewReview {
        commit_id: Some(w.head.clone()),
        body: "callers".into(),
        comments: vec![inline("src/image.js", 2, None)],
    };
    w.fake
        .inject_method("POST", "/pulls/3/reviews", 1, Fault::AppliedThenStatus(502));
    let first = w
        .inst
        .create_marked_review(&w.name, PR, &marker, &review)
        .await
        .unwrap();
    assert_eq!(first.outcome, MarkedOutcome::Created);
    assert!(first.review.body.ends_with(&marker));
    let again = w
        .inst
        .create_marked_review(&w.name, PR, &marker, &review)
        .await
        .unwrap();
    assert_eq!(again.outcome, MarkedOutcome::Unchanged);
    assert_eq!(again.review.id, first.review.id);
    assert_eq!(w.fake.reviews("acme/web", PR).len(), 1);
    assert_eq!(w.fake.requests_to("POST", "/pulls/3/reviews").len(), 1);
    let found = w
        .inst
        .find_marked_review(&w.name, PR, &marker)
        .await
        .unwrap();
    assert_eq!(found.map(|r| r.id), Some(first.review.id));
}

/// The fake records what GitHub would: a review sent without an event stays PENDING (which
/// our calls never do), and GitHub allows one pending review per user and PR.
#[tokio::test]
async fn the_fake_keeps_a_review_without_an_event_pending() {
    let w = world().await;
    w.inst.get_pull_request(&w.name, PR).await.unwrap(); // mints a token
    let token = w.fake.issued_tokens().pop().unwrap();
    let client = reqwest::Client::new();
    let url = format!("{}/repos/acme/web/pulls/{PR}/reviews", w.fake.api_url());
    let send = || {
        client
            .post(&url)
            .bearer_auth(&token)
            .json(&serde_json::json!({"body": "draft"}))
            .send()
    };
    assert_eq!(send().await.unwrap().status(), 200);
    assert_eq!(w.fake.pending_reviews().len(), 1);
    assert_eq!(send().await.unwrap().status(), 422);
    let reviews = w.inst.list_reviews(&w.name, PR).await.unwrap();
    assert_eq!(reviews[0].state, ReviewState::Pending);
    // Ours are never taken for the marked one while pending.
    let found = w
        .inst
        .find_marked_review(&w.name, PR, "draft")
        .await
        .unwrap();
    assert!(found.is_none());
}

// ---- Limits ----

#[tokio::test]
async fn bodies_over_github_s_limits_are_refused_before_sending() {
    let w = world().await;
    let too_long = "x".repeat(MAX_BODY_CHARS + 1);
    let err = w
        .inst
        .create_issue_comment(&w.name, PR, &too_long)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            GithubError::TooLong {
                chars: 65_537,
                limit: 65_536,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("cap it"), "{err}");
    let err = w
        .inst
        .create_or_update_marked_comment(&w.name, PR, MARKER, &"y".repeat(MAX_BODY_CHARS))
        .await
        .unwrap_err();
    assert!(
        matches!(err, GithubError::TooLong { .. }),
        "the marker makes it too long: {err}"
    );
    let review = NewReview {
        commit_id: None,
        body: too_long.clone(),
        comments: vec![],
    };
    let err = w
        .inst
        .create_review(&w.name, PR, &review)
        .await
        .unwrap_err();
    assert!(matches!(err, GithubError::TooLong { .. }), "{err}");
    let mut run = new_run(&w.head);
    run.output.as_mut().unwrap().summary = "s".repeat(65_536);
    let err = w
        .inst
        .create_check_run(&w.name, &run, &[])
        .await
        .unwrap_err();
    assert!(
        matches!(err, GithubError::TooLong { limit: 65_535, .. }),
        "{err}"
    );
    assert!(
        w.fake.requests().is_empty(),
        "nothing was sent: {:?}",
        w.fake
            .requests()
            .iter()
            .map(|r| r.line())
            .collect::<Vec<_>>()
    );

    // Exactly at the limit: GitHub (the fake) takes it, multi-byte characters included.
    let at_limit = "é".repeat(MAX_BODY_CHARS);
    let c = w
        .inst
        .create_issue_comment(&w.name, PR, &at_limit)
        .await
        .unwrap();
    assert_eq!(c.body.chars().count(), MAX_BODY_CHARS);
}

// ---- Against GitHub's REST description ----

/// Every request the other tests of this file make, checked against `@octokit/openapi`.
#[tokio::test]
async fn every_request_matches_github_s_rest_description() {
    let Some(report) = tokio::task::spawn_blocking(|| {
        openapi::check_every_test_of_this_module(
            "github_pulls::every_request_matches_github_s_rest_description",
        )
    })
    .await
    .unwrap() else {
        return;
    };
    eprintln!(
        "{} requests checked against {}: {:?}",
        report.checked, report.spec, report.operations
    );
    report.assert_clean();
    assert!(report.undocumented.is_empty(), "{:?}", report.undocumented);
    for operation in [
        "GET /app",
        "GET /repos/{owner}/{repo}/pulls/{pull_number}",
        "GET /repos/{owner}/{repo}/pulls/{pull_number}/files",
        "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
        "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
        "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}",
        "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
        "POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions",
        "POST /repos/{owner}/{repo}/check-runs",
        "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}",
        "GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations",
        "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
        "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
        "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
        "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments",
    ] {
        assert!(
            report.saw(operation),
            "no test sent {operation}: {:?}",
            report.operations
        );
    }
}

/// The checker is not a rubber stamp: what GitHub would not know or take is reported.
#[test]
fn the_openapi_check_reports_what_github_would_not_take() {
    if openapi::skipped() {
        return;
    }
    let request =
        |method: &str, path: &str, query: Option<&str>, body: Option<serde_json::Value>| {
            fake_github::Recorded {
                seq: 0,
                method: method.into(),
                path: path.into(),
                query: query.map(str::to_string),
                accept: None,
                body,
                status: None,
                response: None,
            }
        };
    let annotation = serde_json::json!({"path": "a.js", "start_line": 1, "end_line": 1,
        "annotation_level": "warning", "message": "m"});
    let requests = [
        request(
            "POST",
            "/repos/acme/web/issues/3/comments",
            None,
            Some(serde_json::json!({"body": "ok"})),
        ),
        request(
            "POST",
            "/repos/acme/web/pulls/3/reviews",
            None,
            Some(serde_json::json!({"event": "MAYBE"})),
        ),
        request(
            "POST",
            "/repos/acme/web/check-runs",
            None,
            Some(serde_json::json!({
            "name": "x", "head_sha": "abc",
            "output": {"title": "t", "summary": "s", "annotations": vec![annotation; 51]}})),
        ),
        request("DELETE", "/repos/acme/web/check-runs/1", None, None),
        request("GET", "/repos/acme/web/pulls/3/filez", None, None),
        request(
            "GET",
            "/repos/acme/web/pulls/3/files",
            Some("per_page=100&pge=2"),
            None,
        ),
        request(
            "POST",
            "/repos/acme/web/issues/3/comments",
            None,
            Some(serde_json::json!({})),
        ),
        // An answer checked too: a delivery without its GUID.
        fake_github::Recorded {
            status: Some(200),
            response: Some(
                serde_json::json!([{"id": 1, "delivered_at": "2026-01-01T00:00:00Z",
                "redelivery": false, "duration": 0.1, "status": "OK", "status_code": 200,
                "event": "push", "action": null, "installation_id": null, "repository_id": null}]),
            ),
            ..request("GET", "/app/hook/deliveries", Some("per_page=100"), None)
        },
    ];
    let report = openapi::check_requests(&requests);
    assert_eq!(report.checked, 8);
    let problems = report.problems.join("\n");
    assert_eq!(report.problems.len(), 7, "{problems}");
    for expected in [
        "must be equal to one of the allowed values",
        "must NOT have more than 50 items",
        "not DELETE",
        "no such path",
        "unknown query parameter pge",
        "must have required property 'body'",
        "answer 200 does not match GET /app/hook/deliveries: /0 must have required property 'guid'",
    ] {
        assert!(
            problems.contains(expected),
            "{expected:?} not in:\n{problems}"
        );
    }
}
