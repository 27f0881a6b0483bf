//! The App's jobs from deliveries, in this process (the [`Harness`]): install and index,
//! pushes (forced, missed, redelivered), renames and removals, pull request analysis
//! (summary comment, check run, inline review, the repository's config) and commands in
//! a PR's thread, against the GitHub fake over real git repositories. Graphs are checked
//! against a local full index of the same commit.

use crate::app_fixtures::{
    classify_repo, count, installed, local_edges, member_comment, open_classify_pr, pr_event,
    pushed, stored, INSTALLATION,
};
use crate::fake_github::{FakeGithub, Fault, TestRepo};
use crate::harness::Harness;
use blast_radius::store::Store;
use serde_json::json;
use sqlx::PgPool;

#[sqlx::test(migrations = false)]
async fn install_push_redeliver_force_push_and_rename(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    fake.add_installation(INSTALLATION, "acme");
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    let app = Harness::start(pool.clone(), &fake).await;

    // A bad signature: 401, nothing stored.
    let status = app
        .deliver_signed("installation", "d-bad", &installed(id, "acme/web"), "wrong")
        .await;
    assert_eq!(status, 401);
    assert_eq!(count(&pool, "SELECT count(*) FROM deliveries").await, 0);

    // Installed: the repository is indexed from one tarball, equal to a local index.
    app.deliver_and_settle("installation", "d-1", &installed(id, "acme/web"))
        .await;
    let head = repo.head();
    let (commit, edges) = stored(&pool, "acme/web").await;
    assert_eq!(commit.as_deref(), Some(head.as_str()));
    assert_eq!(edges, local_edges(&repo, &head));
    assert!(!edges.is_empty());
    assert_eq!(fake.requests_matching("/tarball/").len(), 1);
    // The install left the graph it stored in the cache: the first push starts from it
    // instead of loading it again from rows.
    let state = app.app.store.repository("acme/web").await.unwrap();
    assert!(app.app.cache.contains(state.id));
    let held = app.app.cache.get(state.id).await.unwrap();
    assert_eq!(
        held.version,
        app.app.store.graph_version(state.id).await.unwrap()
    );
    assert_eq!(
        held.commit.as_ref().map(|c| c.to_string()),
        Some(head.clone())
    );

    // A push of one changed file: only its blob is fetched, and the graph equals a full
    // index of the new head.
    fake.clear_requests();
    let before = head.clone();
    repo.write(
        "services/classify.js",
        "const { lookupRules } = require('./rules');\nfunction classifyFields(f, strict) { return lookupRules(f || {}, strict); }\nfunction extra() { return classifyFields({}); }\nmodule.exports = { classifyFields, extra };\n",
    );
    let head = repo.commit("change classify");
    app.deliver_and_settle(
        "push",
        "d-2",
        &pushed(id, "acme/web", &before, &head, false),
    )
    .await;
    let (commit, edges) = stored(&pool, "acme/web").await;
    assert_eq!(commit.as_deref(), Some(head.as_str()));
    assert_eq!(edges, local_edges(&repo, &head));
    assert_eq!(fake.requests_matching("/git/blobs/").len(), 1);
    assert!(fake.requests_matching("/tarball/").is_empty());

    // The same delivery again: answered, not processed again.
    let jobs = count(&pool, "SELECT count(*) FROM jobs").await;
    let status = app
        .deliver(
            "push",
            "d-2",
            &pushed(id, "acme/web", &before, &head, false),
        )
        .await;
    assert!((200..300).contains(&status), "{status}");
    assert_eq!(count(&pool, "SELECT count(*) FROM jobs").await, jobs);

    // A missed push, then another: the graph catches up over both.
    repo.write("routes/extra.js", "const { extra } = require('../services/classify');\nexport function route() { return extra(); }\n");
    let missed = repo.commit("missed");
    repo.remove("routes/posts.js");
    let head = repo.commit("remove posts");
    app.deliver_and_settle(
        "push",
        "d-3",
        &pushed(id, "acme/web", &missed, &head, false),
    )
    .await;
    let (commit, edges) = stored(&pool, "acme/web").await;
    assert_eq!(commit.as_deref(), Some(head.as_str()));
    assert_eq!(edges, local_edges(&repo, &head));

    // A forced push that drops those commits: converges on the new head.
    repo.git(&["reset", "-q", "--hard", &before]);
    repo.write("services/rules.js", "function lookupRules(f) { return f; }\nfunction unused() {}\nmodule.exports = { lookupRules, unused };\n");
    let forced = repo.commit("rewrite");
    app.deliver_and_settle("push", "d-4", &pushed(id, "acme/web", &head, &forced, true))
        .await;
    let (commit, edges) = stored(&pool, "acme/web").await;
    assert_eq!(commit.as_deref(), Some(forced.as_str()));
    assert_eq!(edges, local_edges(&repo, &forced));

    // Renamed: the same graph under the new name.
    fake.rename_repo(id, "acme/renamed");
    let renamed = json!({
        "action": "renamed",
        "repository": { "id": id, "full_name": "acme/renamed", "default_branch": "main" },
        "changes": { "repository": { "name": { "from": "web" } } },
        "installation": { "id": INSTALLATION },
    });
    app.deliver_and_settle("repository", "d-5", &renamed).await;
    let (commit, renamed_edges) = stored(&pool, "acme/renamed").await;
    assert_eq!(commit.as_deref(), Some(forced.as_str()));
    assert_eq!(renamed_edges, edges);
    let store = Store::from_pool(pool.clone());
    assert!(store.repository("acme/web").await.is_err());

    // Uninstalled (GitHub no longer has it): everything of it is purged.
    fake.remove_installation(INSTALLATION);
    let deleted = json!({
        "action": "deleted",
        "installation": { "id": INSTALLATION, "account": { "login": "acme" } },
    });
    app.deliver_and_settle("installation", "d-6", &deleted)
        .await;
    assert_eq!(count(&pool, "SELECT count(*) FROM repositories").await, 0);
    assert_eq!(count(&pool, "SELECT count(*) FROM files").await, 0);
}

#[sqlx::test(migrations = false)]
async fn github_failures_are_retried_until_done(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    fake.add_installation(INSTALLATION, "acme");
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    // A bad gateway, then a secondary rate limit, on the way to the tarball.
    fake.inject("/tarball/", 1, Fault::Status(502));
    fake.inject(
        "/branches/",
        1,
        Fault::SecondaryRateLimit {
            retry_after: Some(1),
        },
    );
    let app = Harness::start(pool.clone(), &fake).await;
    app.deliver_and_settle("installation", "d-1", &installed(id, "acme/web"))
        .await;
    let head = repo.head();
    let (commit, edges) = stored(&pool, "acme/web").await;
    assert_eq!(commit.as_deref(), Some(head.as_str()));
    assert_eq!(edges, local_edges(&repo, &head));
    assert!(fake.requests_matching("/tarball/").len() >= 2, "retried");
}

#[sqlx::test(migrations = false)]
async fn a_pull_request_gets_one_summary_comment_and_a_check_run_per_head(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    fake.add_installation(INSTALLATION, "acme");
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    let app = Harness::start(pool.clone(), &fake).await;
    app.deliver_and_settle("installation", "d-1", &installed(id, "acme/web"))
        .await;
    let base = repo.head();

    // The classifyFields case: the PR changes classifyFields and updates image.js only.
    let head = open_classify_pr(
        &fake,
        &repo,
        "classifyFields takes options; image.js updated",
    );
    app.deliver_and_settle(
        "pull_request",
        "d-2",
        &pr_event("opened", id, 1, &head, &base),
    )
    .await;

    let comments = fake.issue_comments("acme/web", 1);
    assert_eq!(comments.len(), 1, "one summary comment");
    let body = &comments[0].body;
    assert!(comments[0].by_app);
    assert!(body.contains("<!-- blast-radius:summary -->"), "{body}");
    assert!(body.contains("classifyFields"), "{body}");
    for caller in ["routes/services/video.js", "routes/posts.js"] {
        assert!(body.contains(caller), "{caller} untouched: {body}");
    }
    let runs = fake.check_runs("acme/web");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].name, "Blast radius");
    assert_eq!(runs[0].head_sha, head);
    assert_eq!(runs[0].conclusion.as_deref(), Some("neutral"));
    let annotated: Vec<String> = runs[0]
        .annotations
        .iter()
        .map(|a| a["path"].as_str().unwrap().to_string())
        .collect();
    // Only classifyFields' body changed: its untouched callers are counted (the title),
    // never annotated line by line.
    assert!(annotated.is_empty(), "{annotated:?}");
    assert_eq!(
        runs[0].title.as_deref(),
        Some("2 call sites the change did not touch, none affected by the contract")
    );
    // One review (COMMENT, never pending) with one inline comment on classifyFields,
    // on a line of the PR's diff (the fake refuses others with 422, as GitHub does).
    let reviews = fake.reviews("acme/web", 1);
    assert_eq!(reviews.len(), 1, "{reviews:?}");
    assert_eq!(reviews[0].state, "COMMENTED");
    assert_eq!(reviews[0].commit_id, head);
    let inline = fake.review_comments("acme/web", 1);
    assert_eq!(inline.len(), 1, "{inline:?}");
    assert_eq!(inline[0].path, "services/classify.js");
    assert_eq!(inline[0].side, "RIGHT");
    for caller in ["routes/services/video.js", "routes/posts.js"] {
        assert!(
            inline[0].body.contains(caller),
            "{caller}: {}",
            inline[0].body
        );
    }
    assert!(
        !inline[0].body.contains("image.js"),
        "touched: {}",
        inline[0].body
    );

    // Another push to the PR: the same comment edited, a new check run on the new head.
    repo.git(&["checkout", "-q", "fix"]);
    let posts = std::fs::read_to_string(repo.path().join("routes/posts.js")).unwrap();
    repo.write(
        "routes/posts.js",
        posts.replace("classifyFields(", "classifyFields({ strict: true }, "),
    );
    let head2 = repo.commit("posts.js updated too");
    repo.git(&["checkout", "-q", "main"]);
    fake.open_pr("acme/web", 1, "main", "fix");
    app.deliver_and_settle(
        "pull_request",
        "d-3",
        &pr_event("synchronize", id, 1, &head2, &base),
    )
    .await;
    let comments = fake.issue_comments("acme/web", 1);
    assert_eq!(comments.len(), 1, "edited, not a second comment");
    assert!(comments[0].edits >= 1);
    let runs = fake.check_runs("acme/web");
    assert_eq!(runs.len(), 2, "one check run per head commit");
    assert!(runs.iter().any(|r| r.head_sha == head2));
    // What the inline comment says changed (posts.js is touched now): a new one.
    let inline = fake.review_comments("acme/web", 1);
    assert_eq!(inline.len(), 2, "{inline:?}");
    assert!(inline[1].body.contains("routes/services/video.js"));
    assert!(
        !inline[1].body.contains("routes/posts.js"),
        "{}",
        inline[1].body
    );

    // A push that changes what no comment says (a comment in rules.js): no new inline
    // comment, a new check run.
    repo.git(&["checkout", "-q", "fix"]);
    let rules = std::fs::read_to_string(repo.path().join("services/rules.js")).unwrap();
    repo.write("services/rules.js", format!("// Rules.\n{rules}"));
    let head3 = repo.commit("a comment");
    repo.git(&["checkout", "-q", "main"]);
    fake.open_pr("acme/web", 1, "main", "fix");
    app.deliver_and_settle(
        "pull_request",
        "d-3b",
        &pr_event("synchronize", id, 1, &head3, &base),
    )
    .await;
    assert_eq!(fake.check_runs("acme/web").len(), 3);
    assert_eq!(fake.review_comments("acme/web", 1).len(), 2, "not repeated");
    assert_eq!(fake.reviews("acme/web", 1).len(), 2);
    assert!(fake.pending_reviews().is_empty());

    // Commands in the PR's thread: answered in one reply each, from the graph with the
    // PR's files laid over the default branch's.
    let ask = |comment: u64, body: &str| member_comment(id, comment, body);
    let blobs_fetched = fake.requests_matching("/git/blobs/").len();
    let listed = fake.requests_to("GET", "/issues/1/comments").len();
    let asked = fake.add_comment_as(
        "acme/web",
        1,
        "dev",
        "/callers classifyFields\n/callers classifyFeilds",
    );
    app.deliver_and_settle(
        "issue_comment",
        "d-4",
        &ask(asked, "/callers classifyFields\n/callers classifyFeilds"),
    )
    .await;
    let replies: Vec<_> = fake
        .issue_comments("acme/web", 1)
        .into_iter()
        .filter(|c| c.by_app && c.body.contains("blast-radius:command"))
        .collect();
    assert_eq!(replies.len(), 1, "one reply");
    // The thread is looked at once for an earlier reply (one page here).
    let lists = fake.requests_to("GET", "/issues/1/comments");
    assert_eq!(lists.len(), listed + 1, "{lists:?}");
    assert_eq!(
        fake.requests_matching("/git/blobs/").len(),
        blobs_fetched,
        "the command reads the files the analysis of this head fetched"
    );
    let reply = &replies[0].body;
    for caller in [
        "routes/services/video.js",
        "routes/posts.js",
        "routes/services/image.js",
    ] {
        assert!(reply.contains(caller), "{caller}: {reply}");
    }
    assert!(
        reply.contains(&format!("/blob/{head3}/routes/posts.js#L")),
        "head permalink for a PR file: {reply}"
    );
    assert!(
        reply.contains(&format!("/blob/{base}/routes/services/video.js#L")),
        "base permalink: {reply}"
    );
    assert!(reply.contains("Did you mean"), "{reply}");
    let reactions = fake.reactions_on(asked);
    assert!(reactions.iter().any(|r| r == "eyes"), "{reactions:?}");
    // A command in a code block makes no job; a redelivery answers once.
    let quiet = fake.add_comment_as("acme/web", 1, "dev", "```\n/callers classifyFields\n```");
    assert_eq!(
        app.deliver(
            "issue_comment",
            "d-5",
            &ask(quiet, "```\n/callers classifyFields\n```")
        )
        .await,
        200
    );
    let again = app
        .deliver(
            "issue_comment",
            "d-4",
            &ask(asked, "/callers classifyFields"),
        )
        .await;
    assert!((200..300).contains(&again));
    app.settle().await;
    let replies = fake
        .issue_comments("acme/web", 1)
        .into_iter()
        .filter(|c| c.by_app && c.body.contains("blast-radius:command"))
        .count();
    assert_eq!(replies, 1);
    assert!(fake.reactions_on(quiet).is_empty());
    // The same comment captured and sent again under new delivery ids: still one reply.
    for replay in ["d-4-replay-1", "d-4-replay-2"] {
        app.deliver_and_settle(
            "issue_comment",
            replay,
            &ask(asked, "/callers classifyFields\n/callers classifyFeilds"),
        )
        .await;
    }
    let replies = fake
        .issue_comments("acme/web", 1)
        .into_iter()
        .filter(|c| c.by_app && c.body.contains(&format!("blast-radius:command:{asked} ")))
        .count();
    assert_eq!(
        replies, 1,
        "one reply per comment id, whatever the delivery id"
    );

    // Someone with no say in the repository: no reply, no reaction, no GitHub call for it.
    let outsider_body = "/callers classifyFields";
    let outsider = fake.add_comment_as("acme/web", 1, "passer-by", outsider_body);
    let mut outsider_ask = ask(outsider, outsider_body);
    outsider_ask["comment"]["author_association"] = json!("NONE");
    let calls_before = fake.requests().len();
    app.deliver_and_settle("issue_comment", "d-6", &outsider_ask)
        .await;
    assert!(fake.reactions_on(outsider).is_empty());
    assert!(
        fake.requests()[calls_before..]
            .iter()
            .all(|r| !r.path.contains("/pulls/") && !r.path.contains("/comments")),
        "nothing fetched or posted for an outsider"
    );

    // A member's comment of many commands, one crafted: five answered, the rest counted,
    // and the commenter's text shown only as code.
    let many = "/callers classifyFields\n/caller @admin [x](https://evil.test)\n".repeat(4);
    let flood = fake.add_comment_as("acme/web", 1, "dev", &many);
    app.deliver_and_settle("issue_comment", "d-7", &ask(flood, &many))
        .await;
    let marker = format!("blast-radius:command:{flood}");
    let reply = fake
        .issue_comments("acme/web", 1)
        .into_iter()
        .find(|c| c.by_app && c.body.contains(&marker))
        .expect("a reply")
        .body;
    assert!(
        reply.contains("3 more commands in this comment were not answered"),
        "{reply}"
    );
    assert!(!reply.contains("evil.test"), "{reply}");
    assert!(reply.contains("`/caller @admin x`"), "{reply}");
    if let Some(report) = fake.check_against_openapi() {
        report.assert_clean();
    }
}

/// The classify repository with `.github/blast-radius.yml` holding `config` on main, its
/// graph indexed by the app, and PR 1 (classifyFields changed, image.js updated) open:
/// (repository id, base, head).
async fn classify_pr_with_config(
    fake: &FakeGithub,
    app: &Harness,
    repo: &TestRepo,
    config: &str,
) -> (i64, String, String) {
    repo.write(".github/blast-radius.yml", config);
    let base = repo.commit("blast radius config");
    fake.add_installation(INSTALLATION, "acme");
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    app.deliver_and_settle("installation", "d-1", &installed(id, "acme/web"))
        .await;
    let head = open_classify_pr(fake, repo, "classifyFields always returns an array");
    app.deliver_and_settle(
        "pull_request",
        "d-2",
        &pr_event("opened", id, 1, &head, &base),
    )
    .await;
    (id, base, head)
}

#[sqlx::test(migrations = false)]
async fn a_repository_config_excludes_paths_and_turns_the_inline_review_off(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    let app = Harness::start(pool.clone(), &fake).await;
    // routes/services/ holds video.js (an untouched caller) and image.js (changed).
    let config = "paths:\n  exclude: [\"routes/services/**\"]\noutputs:\n  inline: false\n";
    let (id, base, head) = classify_pr_with_config(&fake, &app, &repo, config).await;

    // Read once, at the base, through the contents API.
    let reads = fake.requests_to("GET", "/contents/.github/blast-radius.yml");
    assert_eq!(reads.len(), 1, "{reads:?}");
    assert_eq!(
        reads[0].query.as_deref(),
        Some(format!("ref={base}").as_str())
    );
    // The summary: posts.js still listed, nothing from the excluded directory, neither
    // as a caller (video.js) nor as a changed function (image.js's processImage).
    let comments = fake.issue_comments("acme/web", 1);
    assert_eq!(comments.len(), 1);
    let body = &comments[0].body;
    assert!(body.contains("classifyFields"), "{body}");
    assert!(body.contains("routes/posts.js"), "{body}");
    assert!(!body.contains("routes/services/"), "excluded: {body}");
    assert!(!body.contains("processImage"), "excluded: {body}");
    assert!(!body.contains("### Configuration"), "no problem: {body}");
    // The check run counts the one caller left (none in the excluded directory), and
    // annotates none: only classifyFields' body changed.
    let runs = fake.check_runs("acme/web");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].head_sha, head);
    assert!(runs[0].annotations.is_empty(), "{:?}", runs[0].annotations);
    assert_eq!(
        runs[0].title.as_deref(),
        Some("1 call site the change did not touch, none affected by the contract")
    );
    // No inline review: not even asked for.
    assert!(fake.requests_matching("/reviews").is_empty());
    assert!(fake.requests_matching("/pulls/1/comments").is_empty());
    assert!(fake.reviews("acme/web", 1).is_empty());

    // `/callers` follows the same paths, and says how many sites they leave out.
    let asked = fake.add_comment_as("acme/web", 1, "dev", "/callers classifyFields");
    let ask = json!({
        "action": "created",
        "issue": { "number": 1, "pull_request": { "url": "x" } },
        "comment": { "id": asked, "body": "/callers classifyFields", "user": { "login": "dev", "type": "User" }, "author_association": "COLLABORATOR" },
        "repository": { "id": id, "full_name": "acme/web", "default_branch": "main" },
        "installation": { "id": INSTALLATION },
    });
    app.deliver_and_settle("issue_comment", "d-3", &ask).await;
    let replies: Vec<_> = fake
        .issue_comments("acme/web", 1)
        .into_iter()
        .filter(|c| c.by_app && c.body.contains("blast-radius:command"))
        .collect();
    assert_eq!(replies.len(), 1);
    let reply = &replies[0].body;
    assert!(reply.contains("routes/posts.js"), "{reply}");
    assert!(!reply.contains("routes/services/"), "excluded: {reply}");
    assert!(
        reply.contains("2 more call sites are in paths or of a confidence that `.github/blast-radius.yml` leaves out"),
        "video.js and image.js: {reply}"
    );
    if let Some(report) = fake.check_against_openapi() {
        report.assert_clean();
    }
}

#[sqlx::test(migrations = false)]
async fn a_broken_repository_config_is_named_in_the_check_run_and_defaults_are_used(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    let app = Harness::start(pool.clone(), &fake).await;
    let config = "depth: 9\ncolour: blue\n";
    let (id, _, head) = classify_pr_with_config(&fake, &app, &repo, config).await;

    // Everything is posted as without the file, but for the key that is right.
    let comments = fake.issue_comments("acme/web", 1);
    assert_eq!(comments.len(), 1);
    let body = &comments[0].body;
    for caller in ["routes/services/video.js", "routes/posts.js"] {
        assert!(body.contains(caller), "{caller}: {body}");
    }
    assert!(body.contains("up to depth 2"), "the default depth: {body}");
    assert!(
        !body.contains("### Configuration"),
        "in the check run: {body}"
    );
    assert_eq!(fake.reviews("acme/web", 1).len(), 1);
    // The check run names the file and both problems.
    let runs = fake.check_runs("acme/web");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].conclusion.as_deref(), Some("neutral"));
    let summary = runs[0].summary.as_deref().unwrap_or_default();
    assert!(summary.contains("### Configuration"), "{summary}");
    assert!(
        summary.contains("`.github/blast-radius.yml` has 2 problems; the defaults were used"),
        "{summary}"
    );
    assert!(
        summary.contains("- `depth`: out of range: use a whole number from 1 to 5; the default (2) was used (found `9`)"),
        "{summary}"
    );
    assert!(
        summary.contains("- `colour`: unknown key, ignored"),
        "{summary}"
    );
    assert!(
        summary.contains("routes/posts.js"),
        "and the report: {summary}"
    );

    // The check run turned off (and the same unknown key): the problems go in the
    // summary comment, and no check run is posted for the new base.
    let before = repo.head();
    repo.write(
        ".github/blast-radius.yml",
        "outputs:\n  check: false\ncolour: blue\n",
    );
    let after = repo.commit("no check run");
    app.deliver_and_settle(
        "push",
        "d-3",
        &pushed(id, "acme/web", &before, &after, false),
    )
    .await;
    app.deliver_and_settle(
        "pull_request",
        "d-4",
        &pr_event("synchronize", id, 1, &head, &after),
    )
    .await;
    let reads = fake.requests_to("GET", "/contents/.github/blast-radius.yml");
    assert!(
        reads
            .iter()
            .any(|r| r.query.as_deref() == Some(&format!("ref={after}"))),
        "{reads:?}"
    );
    let comments = fake.issue_comments("acme/web", 1);
    assert_eq!(comments.len(), 1, "the same comment, edited");
    let body = &comments[0].body;
    assert!(body.contains("### Configuration"), "{body}");
    assert!(body.contains("- `colour`: unknown key, ignored"), "{body}");
    assert!(body.contains("routes/posts.js"), "and the report: {body}");
    assert_eq!(fake.check_runs("acme/web").len(), 1, "no new check run");
    if let Some(report) = fake.check_against_openapi() {
        report.assert_clean();
    }
}

/// `/callers` with a name two files define, in a pull request that changes one of them:
/// answered for that one, with a line naming the other.
#[sqlx::test(migrations = false)]
async fn an_ambiguous_name_in_a_pr_thread_means_the_definition_the_pr_changes(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = TestRepo::new();
    repo.write(
        "src/money.ts",
        "export function formatPrice(x: number) {\n  return x.toFixed(2);\n}\n",
    )
    .write(
        "src/legacy/money.ts",
        "export function formatPrice(x: number) {\n  return '$' + x;\n}\n",
    )
    .write(
        "src/cart.ts",
        "import { formatPrice } from './money';\nexport function total(x: number) {\n  return formatPrice(x);\n}\n",
    );
    let base = repo.commit("base");
    fake.add_installation(INSTALLATION, "acme");
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    let app = Harness::start(pool.clone(), &fake).await;
    app.deliver_and_settle("installation", "d-1", &installed(id, "acme/web"))
        .await;
    repo.git(&["checkout", "-q", "-b", "fix"]);
    repo.write(
        "src/money.ts",
        "export function formatPrice(x: number, digits = 2) {\n  return x.toFixed(digits);\n}\n",
    );
    let head = repo.commit("formatPrice takes digits");
    repo.git(&["checkout", "-q", "main"]);
    fake.open_pr("acme/web", 1, "main", "fix");
    app.deliver_and_settle(
        "pull_request",
        "d-2",
        &pr_event("opened", id, 1, &head, &base),
    )
    .await;

    let body = "/callers formatPrice";
    let asked = fake.add_comment_as("acme/web", 1, "dev", body);
    let ask = json!({
        "action": "created",
        "issue": { "number": 1, "pull_request": { "url": "x" } },
        "comment": { "id": asked, "body": body, "user": { "login": "dev", "type": "User" }, "author_association": "MEMBER" },
        "repository": { "id": id, "full_name": "acme/web", "default_branch": "main" },
        "installation": { "id": INSTALLATION },
    });
    app.deliver_and_settle("issue_comment", "d-3", &ask).await;
    let reply = fake
        .issue_comments("acme/web", 1)
        .into_iter()
        .find(|c| c.by_app && c.body.contains("blast-radius:command"))
        .expect("a reply")
        .body;
    assert_eq!(reply.matches("**Callers of").count(), 1, "{reply}");
    assert!(reply.contains("src/money.ts:1"), "{reply}");
    assert!(reply.contains("src/cart.ts:3"), "the caller: {reply}");
    assert!(
        reply.contains("also names") && reply.contains("src/legacy/money.ts:1"),
        "the other definition named: {reply}"
    );
    assert!(!reply.contains("ask again"), "{reply}");
}

/// Vendored code is indexed and its callers stored; a graph stored under an older policy
/// of which files to read (before vendored code was read) is indexed again in full by
/// the next push instead of being patched by its diff, and the push after that is a
/// diff again.
#[sqlx::test(migrations = false)]
async fn a_graph_stored_under_an_older_file_policy_is_indexed_again_in_full(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    repo.write(
        "services/vendor/pad/index.js",
        "function pad(s, n) { return String(s).padStart(n); }\nmodule.exports = { pad };\n",
    )
    .write(
        "routes/pad.js",
        "const { pad } = require('../services/vendor/pad');\nexport function column(x) { return pad(x, 8); }\n",
    );
    let before = repo.commit("vendored pad");
    fake.add_installation(INSTALLATION, "acme");
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    let app = Harness::start(pool.clone(), &fake).await;
    app.deliver_and_settle("installation", "d-1", &installed(id, "acme/web"))
        .await;
    let (_, edges) = stored(&pool, "acme/web").await;
    assert_eq!(edges, local_edges(&repo, &before));
    assert!(
        edges
            .iter()
            .any(|e| e.from_file == "routes/pad.js" && e.to_file == "services/vendor/pad/index.js"),
        "the call into vendored code: {edges:?}"
    );
    let selection = "SELECT selection_version::bigint FROM repositories";
    assert_eq!(
        count(&pool, selection).await,
        i64::from(blast_radius::indexer::select::SELECTION_VERSION)
    );

    // As a graph stored by an earlier release: the next push reads the whole tree.
    sqlx::query("UPDATE repositories SET selection_version = 0")
        .execute(&pool)
        .await
        .unwrap();
    fake.clear_requests();
    repo.write("routes/extra.js", "export function extra() { return 1; }\n");
    let head = repo.commit("extra");
    app.deliver_and_settle(
        "push",
        "d-2",
        &pushed(id, "acme/web", &before, &head, false),
    )
    .await;
    assert_eq!(fake.requests_matching("/tarball/").len(), 1);
    let (commit, edges) = stored(&pool, "acme/web").await;
    assert_eq!(commit.as_deref(), Some(head.as_str()));
    assert_eq!(edges, local_edges(&repo, &head));
    assert_eq!(
        count(&pool, selection).await,
        i64::from(blast_radius::indexer::select::SELECTION_VERSION)
    );

    // Current again: the next push is a diff.
    fake.clear_requests();
    let before = head;
    repo.write("routes/extra.js", "export function extra() { return 2; }\n");
    let head = repo.commit("extra 2");
    app.deliver_and_settle(
        "push",
        "d-3",
        &pushed(id, "acme/web", &before, &head, false),
    )
    .await;
    assert!(fake.requests_matching("/tarball/").is_empty());
    assert_eq!(stored(&pool, "acme/web").await.1, local_edges(&repo, &head));
}

/// What is stored: (installations, repositories, files).
async fn held(pool: &PgPool) -> (i64, i64, i64) {
    (
        count(pool, "SELECT count(*) FROM installations").await,
        count(pool, "SELECT count(*) FROM repositories").await,
        count(pool, "SELECT count(*) FROM files").await,
    )
}

#[sqlx::test(migrations = false)]
async fn a_replayed_uninstall_purges_nothing_and_a_real_one_purges_everything(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    fake.add_installation(INSTALLATION, "acme");
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    let app = Harness::start(pool.clone(), &fake).await;
    app.deliver_and_settle("installation", "d-1", &installed(id, "acme/web"))
        .await;
    let before = held(&pool).await;
    assert!(before.2 > 0, "{before:?}");

    // A captured `deleted` delivery, signed, sent again under a fresh delivery id while
    // the App is still installed: GitHub still has the installation, so nothing goes.
    let deleted = json!({
        "action": "deleted",
        "installation": { "id": INSTALLATION, "account": { "login": "acme" } },
    });
    app.deliver_and_settle("installation", "d-replayed", &deleted)
        .await;
    assert_eq!(held(&pool).await, before);

    // Uninstalled for real: GitHub answers 404 for it, and everything of it goes.
    fake.remove_installation(INSTALLATION);
    app.deliver_and_settle("installation", "d-2", &deleted)
        .await;
    assert_eq!(held(&pool).await, (0, 0, 0));
    if let Some(report) = fake.check_against_openapi() {
        report.assert_clean();
    }
}

#[sqlx::test(migrations = false)]
async fn replayed_repository_removals_purge_nothing_and_real_ones_purge_it(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    fake.add_installation(INSTALLATION, "acme");
    let web = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    let api = fake.add_repo(INSTALLATION, "acme/api", repo.path());
    // Any token reads a public repository: only the installation's list tells.
    fake.make_public(web);
    let app = Harness::start(pool.clone(), &fake).await;
    let installed_both = json!({
        "action": "created",
        "installation": { "id": INSTALLATION, "account": { "login": "acme" } },
        "repositories": [
            { "id": web, "full_name": "acme/web" },
            { "id": api, "full_name": "acme/api" },
        ],
    });
    app.deliver_and_settle("installation", "d-1", &installed_both)
        .await;
    let before = held(&pool).await;
    assert_eq!(before.1, 2);

    let removed = |id: i64, name: &str| {
        json!({
            "action": "removed",
            "installation": { "id": INSTALLATION, "account": { "login": "acme" } },
            "repository_selection": "selected",
            "repositories_added": [],
            "repositories_removed": [ { "id": id, "full_name": name } ],
        })
    };
    let deleted = |id: i64, name: &str| {
        json!({
            "action": "deleted",
            "repository": { "id": id, "full_name": name, "default_branch": "main" },
            "installation": { "id": INSTALLATION },
        })
    };

    // Both replayed while the installation still sees both repositories: kept.
    assert_eq!(
        app.deliver(
            "installation_repositories",
            "d-replayed-1",
            &removed(web, "acme/web")
        )
        .await,
        202
    );
    app.deliver_and_settle("repository", "d-replayed-2", &deleted(api, "acme/api"))
        .await;
    assert_eq!(held(&pool).await, before);

    // Removed and deleted for real: each is purged, the installation stays.
    fake.uninstall_repo(web);
    app.deliver_and_settle(
        "installation_repositories",
        "d-2",
        &removed(web, "acme/web"),
    )
    .await;
    let store = Store::from_pool(pool.clone());
    assert!(store.repository("acme/web").await.is_err());
    assert!(store.repository("acme/api").await.is_ok());
    fake.remove_repo(api);
    app.deliver_and_settle("repository", "d-3", &deleted(api, "acme/api"))
        .await;
    assert_eq!(held(&pool).await, (1, 0, 0));
    if let Some(report) = fake.check_against_openapi() {
        report.assert_clean();
    }
}

#[sqlx::test(migrations = false)]
async fn a_command_from_someone_not_answered_indexes_nothing_before_the_first_graph(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    fake.add_installation(INSTALLATION, "acme");
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    let app = Harness::start(pool.clone(), &fake).await;
    open_classify_pr(&fake, &repo, "classifyFields always returns an array");
    // No graph stored yet (the installation's delivery has not come): a stranger's
    // command on the public repository is refused by the default rules, before the pull
    // request is read or the repository indexed.
    let body = "/callers classifyFields";
    let asked = fake.add_comment_as("acme/web", 1, "stranger", body);
    let event = json!({
        "action": "created",
        "issue": { "number": 1, "pull_request": { "url": "x" } },
        "comment": { "id": asked, "body": body, "user": { "login": "stranger", "type": "User" }, "author_association": "NONE" },
        "repository": { "id": id, "full_name": "acme/web", "default_branch": "main" },
        "installation": { "id": INSTALLATION },
    });
    app.deliver_and_settle("issue_comment", "d-1", &event).await;
    assert!(fake.requests_matching("/tarball/").is_empty());
    assert!(fake.requests_matching("/pulls/1").is_empty());
    assert!(app.app.store.repository("acme/web").await.is_err());
    assert!(fake.issue_comments("acme/web", 1).iter().all(|c| !c.by_app));
    assert!(fake.reactions_on(asked).is_empty());
}

#[sqlx::test(migrations = false)]
async fn an_alias_bomb_of_a_config_is_a_problem_reported_not_memory_spent(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    let app = Harness::start(pool.clone(), &fake).await;
    // 28 KB, one anchor used by 4,000 aliases: 20 million values if expanded.
    let anchored = vec!["x"; 5_000].join(", ");
    let uses = vec!["*a"; 4_000].join(", ");
    let bomb = format!("paths:\n  include: &a [{anchored}]\n  exclude: [{uses}]\n");
    let (id, _, _) = classify_pr_with_config(&fake, &app, &repo, &bomb).await;

    // The analysis is posted as without the file, and the check run says why.
    let body = &fake.issue_comments("acme/web", 1)[0].body;
    assert!(body.contains("routes/posts.js"), "{body}");
    let runs = fake.check_runs("acme/web");
    let summary = runs[0].summary.as_deref().unwrap_or_default();
    assert!(summary.contains("### Configuration"), "{summary}");
    assert!(
        summary.contains("the file expands to more than 10000 values (aliases repeat what an anchor holds); every default was used"),
        "{summary}"
    );
    // A member's command, which reads the file to decide who may ask: answered by the
    // defaults.
    let asked = fake.add_comment_as("acme/web", 1, "dev", "/callers classifyFields");
    let ask = json!({
        "action": "created",
        "issue": { "number": 1, "pull_request": { "url": "x" } },
        "comment": { "id": asked, "body": "/callers classifyFields", "user": { "login": "dev", "type": "User" }, "author_association": "MEMBER" },
        "repository": { "id": id, "full_name": "acme/web", "default_branch": "main" },
        "installation": { "id": INSTALLATION },
    });
    app.deliver_and_settle("issue_comment", "d-3", &ask).await;
    let marker = format!("blast-radius:command:{asked} ");
    assert!(fake
        .issue_comments("acme/web", 1)
        .iter()
        .any(|c| c.by_app && c.body.contains(&marker)));
}

/// A PR analysis whose first attempt was stopped at its deadline while reading a file:
/// the retry leaves that file out, and the comment and the check run name it, with why,
/// over what the rest of the PR changed.
#[sqlx::test(migrations = false)]
async fn a_retry_after_a_deadline_names_the_file_it_stalled_on_and_reports_the_rest(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    let app = Harness::start(pool.clone(), &fake).await;
    fake.add_installation(INSTALLATION, "acme");
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    app.deliver_and_settle("installation", "d-1", &installed(id, "acme/web"))
        .await;
    let base = repo.git(&["rev-parse", "HEAD"]);
    let head = open_classify_pr(&fake, &repo, "classifyFields always returns an array");
    let event = pr_event("opened", id, 1, &head, base.trim());
    assert_eq!(app.deliver("pull_request", "d-2", &event).await, 202);
    // As the worker records a first stop: one time-out, reading image.js.
    let marked = sqlx::query(
        "UPDATE jobs SET timeouts = 1, stalled_files = '{routes/services/image.js}'
          WHERE kind = 'analyze_pr' AND state = 'waiting'",
    )
    .execute(&pool)
    .await
    .unwrap();
    assert_eq!(marked.rows_affected(), 1);
    app.settle().await;

    let comments = fake.issue_comments("acme/web", 1);
    assert_eq!(comments.len(), 1);
    let body = &comments[0].body;
    assert!(
        body.contains("classifyFields"),
        "the rest is analysed: {body}"
    );
    assert!(
        body.contains("`routes/services/image.js` skipped: the time limit passed while it was read (timed_out)"),
        "{body}"
    );
    let runs = fake.check_runs("acme/web");
    assert_eq!(runs.len(), 1);
    let summary = runs[0].summary.clone().unwrap_or_default();
    assert!(
        summary.contains("`routes/services/image.js` skipped"),
        "{summary}"
    );
}

/// A fork's pull request of attacker-shaped code (5 KB of nested arrows, 240 KB of `<`
/// lines that drive the TypeScript repair pass) beside a real change: the analysis
/// ends, and the PR gets its comment and check run, with every file either read or
/// named as skipped.
#[sqlx::test(migrations = false)]
async fn a_pull_request_of_hostile_code_still_gets_its_comment_and_check_run(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    let app = Harness::start(pool.clone(), &fake).await;
    fake.add_installation(INSTALLATION, "acme");
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    app.deliver_and_settle("installation", "d-1", &installed(id, "acme/web"))
        .await;
    let base = repo.git(&["rev-parse", "HEAD"]);
    repo.git(&["checkout", "-q", "-b", "fix"]);
    crate::common::copy_dir(&crate::common::fixture("blast/classify/head"), repo.path());
    let depth = 1_000;
    let arrows = format!("export const nest = {}1;\n", "() =>\n".repeat(depth));
    assert!(arrows.len() >= 5_000);
    repo.write("src/arrows.js", &arrows);
    repo.write(
        "src/angles.ts",
        format!("const x = a\n{});\n", " <b\n".repeat(60_000)),
    );
    let head = repo.commit("classifyFields always returns an array, and hostile files");
    repo.git(&["checkout", "-q", "main"]);
    fake.open_pr("acme/web", 1, "main", "fix");
    app.deliver_and_settle(
        "pull_request",
        "d-2",
        &pr_event("opened", id, 1, &head, base.trim()),
    )
    .await;

    let comments = fake.issue_comments("acme/web", 1);
    assert_eq!(comments.len(), 1);
    let body = &comments[0].body;
    assert!(body.contains("classifyFields"), "{body}");
    let runs = fake.check_runs("acme/web");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].head_sha, head);
    // A file not read is named, with why: no skipped file goes unnamed.
    let named = body.matches("` skipped: ").count();
    match named {
        0 => assert!(!body.contains("skipped"), "{body}"),
        n => assert!(body.contains(&format!("{n} file")), "{body}"),
    }
}

/// The skip reason stored for a file of a repository, if it was skipped.
async fn stored_skip(pool: &PgPool, repo: &str, path: &str) -> Option<String> {
    sqlx::query_scalar(
        "SELECT f.skip_reason FROM files f JOIN repositories r ON r.id = f.repo_id
          WHERE r.full_name = $1 AND f.path = $2",
    )
    .bind(repo)
    .bind(path)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// A push, and a full index, whose first attempt was stopped at its deadline while
/// reading a file: the retry skips that file as `timed_out` and applies the rest, so a
/// hostile file on a default branch cannot hold its repository's graph back forever.
#[sqlx::test(migrations = false)]
async fn push_and_index_retries_after_a_deadline_skip_the_file_they_stalled_on(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = classify_repo();
    let app = Harness::start(pool.clone(), &fake).await;
    fake.add_installation(INSTALLATION, "acme");
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    // A full index, marked as a first stop while it read posts.js (enqueued alone: the
    // installation's sync would coalesce a different payload into it, which starts the
    // time-outs afresh).
    let index = blast_radius::queue::payloads::IndexRepository {
        installation: blast_radius::model::InstallationId(INSTALLATION),
        account: Some("acme".into()),
        repository: blast_radius::model::GithubRepoId(id),
        full_name: "acme/web".into(),
        reason: "installed".into(),
    };
    app.app
        .queue
        .enqueue(&blast_radius::queue::NewJob::of(&index))
        .await
        .unwrap();
    let mark = |kind: &'static str, file: &'static str| {
        let pool = pool.clone();
        async move {
            sqlx::query(
                "UPDATE jobs SET timeouts = 1, stalled_files = ARRAY[$2]
                  WHERE kind = $1 AND state = 'waiting'",
            )
            .bind(kind)
            .bind(file)
            .execute(&pool)
            .await
            .unwrap()
            .rows_affected()
        }
    };
    assert_eq!(mark("index_repository", "routes/posts.js").await, 1);
    app.settle().await;
    assert_eq!(
        stored_skip(&pool, "acme/web", "routes/posts.js")
            .await
            .as_deref(),
        Some("timed_out")
    );
    assert_eq!(
        stored_skip(&pool, "acme/web", "services/classify.js").await,
        None
    );

    // A push changing two files, stopped once on one of them.
    let before = repo.head();
    repo.write("routes/extra.js", "export function route() { return 1; }\n");
    repo.write(
        "services/rules.js",
        "function lookupRules(f) { return f; }\nmodule.exports = { lookupRules };\n",
    );
    let head = repo.commit("two files");
    assert_eq!(
        app.deliver(
            "push",
            "d-2",
            &pushed(id, "acme/web", &before, &head, false)
        )
        .await,
        202
    );
    assert_eq!(mark("apply_push", "routes/extra.js").await, 1);
    app.settle().await;
    let (commit, _) = stored(&pool, "acme/web").await;
    assert_eq!(commit.as_deref(), Some(head.as_str()));
    assert_eq!(
        stored_skip(&pool, "acme/web", "routes/extra.js")
            .await
            .as_deref(),
        Some("timed_out")
    );
    assert_eq!(
        stored_skip(&pool, "acme/web", "services/rules.js").await,
        None
    );
    // The other file is read at its new version.
    let blob: String = sqlx::query_scalar(
        "SELECT f.blob_sha FROM files f JOIN repositories r ON r.id = f.repo_id
          WHERE r.full_name = 'acme/web' AND f.path = 'services/rules.js'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        blob,
        repo.git(&["rev-parse", "HEAD:services/rules.js"]).trim()
    );
}

/// Issue 44 end to end: a PR adds a required parameter to `charge` and updates one of its
/// three callers. The comment opens with the two that break, their lines and why; the
/// check run fails, with a failure annotation on each giving the reason.
#[sqlx::test(migrations = false)]
async fn a_pr_that_adds_a_required_parameter_fails_on_the_callers_it_breaks(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let repo = TestRepo::new();
    crate::common::copy_dir(&crate::common::fixture("blast/charge/base"), repo.path());
    repo.commit("base");
    fake.add_installation(INSTALLATION, "acme");
    let id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    let app = Harness::start(pool.clone(), &fake).await;
    app.deliver_and_settle("installation", "d-1", &installed(id, "acme/web"))
        .await;
    let base = repo.head();
    repo.git(&["checkout", "-q", "-b", "fix"]);
    crate::common::copy_dir(&crate::common::fixture("blast/charge/head"), repo.path());
    let head = repo.commit("charge takes the card; subscription.ts passes it");
    repo.git(&["checkout", "-q", "main"]);
    fake.open_pr("acme/web", 1, "main", "fix");
    app.deliver_and_settle(
        "pull_request",
        "d-2",
        &pr_event("opened", id, 1, &head, &base),
    )
    .await;

    let comments = fake.issue_comments("acme/web", 1);
    assert_eq!(comments.len(), 1);
    let body = &comments[0].body;
    let first = body
        .lines()
        .find(|l| !l.is_empty() && !l.starts_with("<!--") && !l.starts_with('#'))
        .unwrap();
    assert!(
        first.starts_with("**2** untouched call sites **break** with this change:"),
        "{body}"
    );
    for site in ["src/cart.ts", "src/shop.ts"] {
        assert!(first.contains(site), "{site} in {first}");
    }
    assert!(!first.contains("subscription.ts"), "updated: {first}");
    assert!(
        body.contains("passes 2 arguments; `charge` now requires 3 (`card` not passed)"),
        "{body}"
    );

    let runs = fake.check_runs("acme/web");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].conclusion.as_deref(), Some("failure"));
    let failing: Vec<(String, String)> = runs[0]
        .annotations
        .iter()
        .filter(|a| a["annotation_level"] == "failure")
        .map(|a| {
            (
                format!("{}:{}", a["path"].as_str().unwrap(), a["start_line"]),
                a["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let places: Vec<&str> = failing.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(places, ["src/cart.ts:4", "src/shop.ts:4"], "{failing:?}");
    for (_, message) in &failing {
        assert!(
            message.ends_with(
                "it breaks, passes 2 arguments; `charge` now requires 3 (`card` not passed)"
            ),
            "{message}"
        );
    }
}
