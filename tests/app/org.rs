//! Across the org, end to end on the GitHub fake: a PR to the repository that owns a
//! package lists the calls the installation's other repositories make into what it
//! changed (`fixtures/org`).

use crate::app_fixtures::{pr_event, pushed, INSTALLATION};
use crate::common;
use crate::fake_github::{FakeGithub, TestRepo};
use crate::harness::Harness;
use serde_json::json;
use sqlx::PgPool;

fn repo_of(fixture: &str) -> TestRepo {
    let repo = TestRepo::new();
    common::copy_dir(&common::fixture(&format!("org/{fixture}")), repo.path());
    repo.commit("base");
    repo
}

const FORMAT: &str = "packages/money/src/format.ts";

/// A new head for the library's PR #1: `formatPrice` takes a third parameter (`round`
/// makes each head's text differ).
fn push_library_pr(fake: &FakeGithub, library: &TestRepo, round: u32) -> String {
    library.git(&["checkout", "-q", "fix"]);
    let text = std::fs::read_to_string(library.path().join(FORMAT)).unwrap();
    let text = text.replace(
        "export function formatPrice(cents: number, currency: string",
        &format!("export function formatPrice(cents: number, currency: string, digits{round} = 2"),
    );
    library.write(FORMAT, text);
    let head = library.commit("formatPrice takes the digits");
    library.git(&["checkout", "-q", "main"]);
    fake.open_pr("acme/library", 1, "main", "fix");
    head
}

/// The summary comment's "In other repositories" section.
fn section(fake: &FakeGithub) -> String {
    let comments: Vec<_> = fake
        .issue_comments("acme/library", 1)
        .into_iter()
        .filter(|c| c.by_app && !c.body.contains("blast-radius:command"))
        .collect();
    assert_eq!(comments.len(), 1, "one summary comment");
    let body = &comments[0].body;
    let start = body
        .find("### In other repositories")
        .unwrap_or_else(|| panic!("no section: {body}"));
    body[start..].to_string()
}

/// Asks `body` in the library's PR #1 thread as a member; the App's reply.
async fn ask(app: &Harness, fake: &FakeGithub, lib_id: i64, delivery: &str, body: &str) -> String {
    ask_in(app, fake, "acme/library", lib_id, delivery, body).await
}

/// Asks `body` in PR #1's thread of `repo` (GitHub id `id`) as a member; the App's reply.
async fn ask_in(
    app: &Harness,
    fake: &FakeGithub,
    repo: &str,
    id: i64,
    delivery: &str,
    body: &str,
) -> String {
    let asked = fake.add_comment_as(repo, 1, "dev", body);
    let event = json!({
        "action": "created",
        "issue": { "number": 1, "pull_request": { "url": "x" } },
        "comment": { "id": asked, "body": body, "user": { "login": "dev", "type": "User" }, "author_association": "MEMBER" },
        "repository": { "id": id, "full_name": repo, "default_branch": "main" },
        "installation": { "id": INSTALLATION },
    });
    app.deliver_and_settle("issue_comment", delivery, &event)
        .await;
    let marker = format!("blast-radius:command:{asked} ");
    fake.issue_comments(repo, 1)
        .into_iter()
        .find(|c| c.by_app && c.body.contains(&marker))
        .expect("a reply")
        .body
}

/// The org's library, service and private app, with `more` (name, repository, public)
/// beside them, all installed and indexed: their GitHub ids, in that order.
async fn installed_org(
    fake: &FakeGithub,
    app: &Harness,
    org: &[(&str, &TestRepo, bool)],
) -> Vec<i64> {
    fake.add_installation(INSTALLATION, "acme");
    let mut ids = Vec::new();
    let mut listed = Vec::new();
    for &(name, repo, public) in org {
        let id = fake.add_repo(INSTALLATION, name, repo.path());
        if public {
            fake.make_public(id);
        }
        ids.push(id);
        listed.push(json!({ "id": id, "full_name": name }));
    }
    let installed = json!({
        "action": "created",
        "installation": { "id": INSTALLATION, "account": { "login": "acme" } },
        "repositories": listed,
    });
    app.deliver_and_settle("installation", "d-1", &installed)
        .await;
    ids
}

/// Copies the library's `@acme/money` package into `repo` under `dir`.
fn copy_money_package(repo: &TestRepo, dir: &str) {
    let to = repo.path().join(dir);
    std::fs::create_dir_all(&to).unwrap();
    common::copy_dir(&common::fixture("org/library/packages/money"), &to);
}

#[sqlx::test(migrations = false)]
async fn a_package_json_a_pr_adds_claims_no_other_repositorys_callers(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let (library, service, private) = (
        repo_of("library"),
        repo_of("service"),
        repo_of("private-app"),
    );
    // A private repository of the same org whose PR claims the library's package.
    let tools = TestRepo::new();
    tools.write(
        "src/util.ts",
        "export function pad(s: string) {\n  return s;\n}\n",
    );
    tools.commit("base");
    let app = Harness::start(pool.clone(), &fake).await;
    let ids = installed_org(
        &fake,
        &app,
        &[
            ("acme/library", &library, true),
            ("acme/service", &service, true),
            ("acme/private-app", &private, false),
            ("acme/tools", &tools, false),
        ],
    )
    .await;
    tools.git(&["checkout", "-q", "-b", "claim"]);
    copy_money_package(&tools, "packages/money");
    // And a package no repository of the installation owns, that the service calls.
    tools.write(
        "packages/pad/package.json",
        "{ \"name\": \"left-pad\", \"main\": \"index.js\" }\n",
    );
    tools.write(
        "packages/pad/index.js",
        "export default function leftPad(s, n) {\n  return s;\n}\n",
    );
    tools.commit("packages named @acme/money and left-pad");
    tools.git(&["checkout", "-q", "main"]);
    fake.open_pr("acme/tools", 1, "main", "claim");

    // The PR's own formatPrice is answered for; no other repository's call is, neither
    // the public service's nor the private app's.
    let reply = ask_in(
        &app,
        &fake,
        "acme/tools",
        ids[3],
        "d-2",
        "/callers formatPrice",
    )
    .await;
    assert!(reply.contains("**Callers of"), "{reply}");
    assert!(!reply.contains("In other repositories"), "{reply}");
    assert!(!reply.contains("acme/service"), "{reply}");
    assert!(!reply.contains("private-app"), "{reply}");
    assert!(!reply.contains("call site in"), "{reply}");
    // Claimed by the PR alone (no repository owns it on its default branch): nothing
    // across either.
    let reply = ask_in(&app, &fake, "acme/tools", ids[3], "d-3", "/callers leftPad").await;
    assert!(reply.contains("**Callers of"), "{reply}");
    assert!(!reply.contains("In other repositories"), "{reply}");
    assert!(!reply.contains("acme/service"), "{reply}");
}

#[sqlx::test(migrations = false)]
async fn a_package_two_repositories_own_is_ambiguous_and_nothing_is_listed_across(pool: PgPool) {
    let fake = FakeGithub::start().await;
    let (library, service) = (repo_of("library"), repo_of("service"));
    // A second repository that owns `@acme/money` on its default branch too.
    let copy = TestRepo::new();
    copy_money_package(&copy, "money");
    copy.commit("a copy of the money package");
    library.git(&["checkout", "-q", "-b", "fix"]);
    library.git(&["checkout", "-q", "main"]);
    let app = Harness::start(pool.clone(), &fake).await;
    let ids = installed_org(
        &fake,
        &app,
        &[
            ("acme/library", &library, true),
            ("acme/service", &service, true),
            ("acme/money-copy", &copy, true),
        ],
    )
    .await;
    let base = library.head();
    let head = push_library_pr(&fake, &library, 1);
    app.deliver_and_settle(
        "pull_request",
        "d-2",
        &pr_event("opened", ids[0], 1, &head, &base),
    )
    .await;
    // The summary says why no call elsewhere is listed, naming neither repository.
    let text = section(&fake);
    assert!(
        text.contains("`@acme/money` is also the name of a package in another repository of this installation"),
        "{text}"
    );
    assert!(!text.contains("acme/service"), "{text}");
    assert!(!text.contains("money-copy"), "{text}");

    let reply = ask(&app, &fake, ids[0], "d-3", "/callers formatPrice").await;
    assert!(reply.contains("**Callers of"), "{reply}");
    assert!(
        reply.contains("`@acme/money` is also the name of a package in another repository of this installation"),
        "{reply}"
    );
    assert!(!reply.contains("acme/service"), "{reply}");
    assert!(!reply.contains("In other repositories"), "{reply}");
}

#[sqlx::test(migrations = false)]
async fn a_pr_to_a_shared_package_lists_the_callers_in_the_other_repositories(pool: PgPool) {
    let fake = FakeGithub::start().await;
    fake.add_installation(INSTALLATION, "acme");
    let (library, service, private) = (
        repo_of("library"),
        repo_of("service"),
        repo_of("private-app"),
    );
    let lib_id = fake.add_repo(INSTALLATION, "acme/library", library.path());
    let service_id = fake.add_repo(INSTALLATION, "acme/service", service.path());
    let private_id = fake.add_repo(INSTALLATION, "acme/private-app", private.path());
    fake.make_public(lib_id);
    fake.make_public(service_id);
    library.git(&["checkout", "-q", "-b", "fix"]);
    library.git(&["checkout", "-q", "main"]);
    let app = Harness::start(pool.clone(), &fake).await;
    let installed = json!({
        "action": "created",
        "installation": { "id": INSTALLATION, "account": { "login": "acme" } },
        "repositories": [
            { "id": lib_id, "full_name": "acme/library" },
            { "id": service_id, "full_name": "acme/service" },
            { "id": private_id, "full_name": "acme/private-app" },
        ],
    });
    app.deliver_and_settle("installation", "d-1", &installed)
        .await;
    let base = library.head();

    // The PR changes formatPrice's signature in @acme/money.
    let head = push_library_pr(&fake, &library, 1);
    app.deliver_and_settle(
        "pull_request",
        "d-2",
        &pr_event("opened", lib_id, 1, &head, &base),
    )
    .await;
    let text = section(&fake);
    let service_head = service.head();
    let web = fake.web_url();
    let web = web.trim_end_matches('/');
    // The public service's two call sites (by name through the barrel, by subpath), each
    // with a permalink at the service's indexed commit and the range it depends on; its
    // own formatPrice on line 10 is not the package's.
    let listed: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("acme/service"))
        .collect();
    assert_eq!(listed.len(), 2, "{text}");
    assert!(text.contains("`acme/service src/checkout.ts:7`"), "{text}");
    assert!(text.contains("`acme/service src/receipt.ts:10`"), "{text}");
    assert!(
        text.contains(&format!(
            "({web}/acme/service/blob/{service_head}/src/checkout.ts#L7)"
        )),
        "{text}"
    );
    assert!(text.contains("depends on `@acme/money` `^2.1.0`"), "{text}");
    assert!(text.contains("this repository has `3.0.0-dev`"), "{text}");
    // The private repository: counted, never named.
    assert!(
        !text.contains("private-app") && !text.contains("index.js"),
        "{text}"
    );
    assert!(
        text.contains("1 call site in 1 private repository of this installation"),
        "{text}"
    );
    let runs = fake.check_runs("acme/library");
    assert_eq!(runs.last().unwrap().conclusion.as_deref(), Some("neutral"));

    // `/callers formatPrice` in the PR's thread answers across the installation too:
    // the service's two sites named, the private one counted.
    let reply = ask(&app, &fake, lib_id, "d-2a", "/callers formatPrice").await;
    let elsewhere = reply
        .split("**In other repositories**")
        .nth(1)
        .unwrap_or_else(|| panic!("no other repositories: {reply}"));
    assert!(
        elsewhere.starts_with(": 3 call sites in 2 other repositories"),
        "{reply}"
    );
    assert!(
        elsewhere.contains("`acme/service src/checkout.ts:7`"),
        "{reply}"
    );
    assert!(
        elsewhere.contains("`acme/service src/receipt.ts:10`"),
        "{reply}"
    );
    assert!(
        elsewhere.contains(&format!(
            "({web}/acme/service/blob/{service_head}/src/receipt.ts#L10)"
        )),
        "{reply}"
    );
    assert!(!reply.contains("private-app"), "{reply}");
    assert!(
        elsewhere.contains("1 call site in 1 private repository of this installation"),
        "{reply}"
    );
    // A function of the library nobody else calls: nothing about other repositories.
    let reply = ask(&app, &fake, lib_id, "d-2b", "/callers roundCents").await;
    assert!(reply.contains("**Callers of"), "{reply}");
    assert!(!reply.contains("In other repositories"), "{reply}");

    // A push to the service removes one of its calls: the next analysis has one.
    service.write(
        "src/checkout.ts",
        "export function total(cents: number): string {\n  return String(cents);\n}\n",
    );
    let before = service_head.clone();
    let after = service.commit("checkout no longer formats");
    app.deliver_and_settle(
        "push",
        "d-3",
        &pushed(service_id, "acme/service", &before, &after, false),
    )
    .await;
    let head = push_library_pr(&fake, &library, 2);
    app.deliver_and_settle(
        "pull_request",
        "d-4",
        &pr_event("synchronize", lib_id, 1, &head, &base),
    )
    .await;
    let text = section(&fake);
    assert!(!text.contains("src/checkout.ts"), "{text}");
    assert!(text.contains("`acme/service src/receipt.ts:10`"), "{text}");
    assert!(
        text.contains(&format!("/acme/service/blob/{after}/")),
        "{text}"
    );

    // The private repository leaves the installation: gone from the count at once.
    fake.uninstall_repo(private_id);
    app.deliver_and_settle(
        "installation_repositories",
        "d-5",
        &json!({
            "action": "removed",
            "installation": { "id": INSTALLATION, "account": { "login": "acme" } },
            "repository_selection": "selected",
            "repositories_added": [],
            "repositories_removed": [ { "id": private_id, "full_name": "acme/private-app" } ],
        }),
    )
    .await;
    let head = push_library_pr(&fake, &library, 3);
    app.deliver_and_settle(
        "pull_request",
        "d-6",
        &pr_event("synchronize", lib_id, 1, &head, &base),
    )
    .await;
    let text = section(&fake);
    assert!(!text.contains("private repositor"), "{text}");
    assert!(text.contains("`acme/service src/receipt.ts:10`"), "{text}");
}

/// Issue 44 across the org: a PR to the public library makes `formatPrice` require a
/// third parameter. The public service's two calls pass two arguments: each is named
/// with why it breaks; the private app's call breaks too, and is counted as breaking,
/// never named. The check run fails on them, as on the library's own callers.
#[sqlx::test(migrations = false)]
async fn calls_in_other_repositories_that_a_new_required_parameter_breaks_fail_the_check(
    pool: PgPool,
) {
    let fake = FakeGithub::start().await;
    let (library, service, private) = (
        repo_of("library"),
        repo_of("service"),
        repo_of("private-app"),
    );
    let app = Harness::start(pool.clone(), &fake).await;
    let ids = installed_org(
        &fake,
        &app,
        &[
            ("acme/library", &library, true),
            ("acme/service", &service, true),
            ("acme/private-app", &private, false),
        ],
    )
    .await;
    let base = library.head();
    library.git(&["checkout", "-q", "-b", "fix"]);
    let text = std::fs::read_to_string(library.path().join(FORMAT)).unwrap();
    library.write(
        FORMAT,
        text.replace(
            "formatPrice(cents: number, currency: string)",
            "formatPrice(cents: number, currency: string, digits: number)",
        ),
    );
    let head = library.commit("formatPrice requires the digits");
    library.git(&["checkout", "-q", "main"]);
    fake.open_pr("acme/library", 1, "main", "fix");
    app.deliver_and_settle(
        "pull_request",
        "d-2",
        &pr_event("opened", ids[0], 1, &head, &base),
    )
    .await;

    let comments: Vec<_> = fake
        .issue_comments("acme/library", 1)
        .into_iter()
        .filter(|c| c.by_app)
        .collect();
    assert_eq!(comments.len(), 1);
    let body = &comments[0].body;
    // The library's own caller (Wallet.balance passes two) breaks; the three elsewhere
    // break too, counted in the same sentence.
    let first = body
        .lines()
        .find(|l| !l.is_empty() && !l.starts_with("<!--") && !l.starts_with('#'))
        .unwrap();
    assert!(
        first.starts_with("**1** untouched call site **breaks** with this change: `packages/money/src/wallet.ts:7`."),
        "{body}"
    );
    assert!(
        first.contains("**3** call sites in other repositories of this installation break too."),
        "{body}"
    );
    let text = section(&fake);
    let reason = "``passes 2 arguments; `formatPrice` now requires 3 (`digits` not passed)``";
    for site in ["src/checkout.ts:7", "src/receipt.ts:10"] {
        let line = text
            .lines()
            .find(|l| l.contains(&format!("`acme/service {site}`")))
            .unwrap_or_else(|| panic!("{site} not listed: {text}"));
        assert!(
            line.ends_with(&format!(" · **breaks**: {reason}")),
            "{line}"
        );
    }
    assert!(
        text.contains("; **3** of them break with this change:"),
        "{text}"
    );
    assert!(
        text.contains("1 call site in 1 private repository of this installation is not named here. **1** of them breaks with this change."),
        "{text}"
    );
    assert!(
        !text.contains("private-app") && !text.contains("index.js"),
        "{text}"
    );

    let runs = fake.check_runs("acme/library");
    let run = runs.last().unwrap();
    assert_eq!(run.conclusion.as_deref(), Some("failure"));
    assert_eq!(
        run.title.as_deref(),
        Some("4 call sites the change did not touch break")
    );
    let summary = run.summary.as_deref().unwrap_or_default();
    assert!(!summary.contains("private-app"), "{summary}");
}
