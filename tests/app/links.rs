//! Across service boundaries, end to end on the GitHub fake (issue 47): a PR to a
//! service that changes a route's handler and a topic's consumer lists the clients and
//! producers of the installation's other repositories (`fixtures/services`).

use crate::app_fixtures::{pr_event, pushed, INSTALLATION};
use crate::common;
use crate::fake_github::{FakeGithub, TestRepo};
use crate::harness::Harness;
use serde_json::json;
use sqlx::PgPool;

fn repo_of(fixture: &str) -> TestRepo {
    let repo = TestRepo::new();
    common::copy_dir(
        &common::fixture(&format!("services/{fixture}")),
        repo.path(),
    );
    repo.commit("base");
    repo
}

const APP: &str = "src/app.js";

/// A new head for the users service's PR #1: `getUser` and `handleSignup` change their
/// bodies (`round` makes each head's text differ).
fn push_users_pr(fake: &FakeGithub, users: &TestRepo, round: u32) -> String {
    users.git(&["checkout", "-q", "fix"]);
    let text = std::fs::read_to_string(users.path().join(APP)).unwrap();
    let text = text
        .replace(
            "res.json({ id: req.params.id",
            &format!("res.json({{ round: {round}, id: req.params.id"),
        )
        .replace(
            "  return message;",
            &format!("  return [{round}, message];"),
        );
    users.write(APP, text);
    let head = users.commit("the handlers change");
    users.git(&["checkout", "-q", "main"]);
    fake.open_pr("acme/users", 1, "main", "fix");
    head
}

/// The summary comment's "Across service boundaries" section.
fn section(fake: &FakeGithub) -> String {
    let comments: Vec<_> = fake
        .issue_comments("acme/users", 1)
        .into_iter()
        .filter(|c| c.by_app && !c.body.contains("blast-radius:command"))
        .collect();
    assert_eq!(comments.len(), 1, "one summary comment");
    let body = &comments[0].body;
    let start = body
        .find("### Across service boundaries")
        .unwrap_or_else(|| panic!("no section: {body}"));
    body[start..].to_string()
}

/// Asks `body` in PR #1's thread of `repo` (GitHub id `id`) as a member; the App's reply.
async fn ask(app: &Harness, fake: &FakeGithub, id: i64, delivery: &str, body: &str) -> String {
    let asked = fake.add_comment_as("acme/users", 1, "dev", body);
    let event = json!({
        "action": "created",
        "issue": { "number": 1, "pull_request": { "url": "x" } },
        "comment": { "id": asked, "body": body, "user": { "login": "dev", "type": "User" }, "author_association": "MEMBER" },
        "repository": { "id": id, "full_name": "acme/users", "default_branch": "main" },
        "installation": { "id": INSTALLATION },
    });
    app.deliver_and_settle("issue_comment", delivery, &event)
        .await;
    let marker = format!("blast-radius:command:{asked} ");
    fake.issue_comments("acme/users", 1)
        .into_iter()
        .find(|c| c.by_app && c.body.contains(&marker))
        .expect("a reply")
        .body
}

#[sqlx::test(migrations = false)]
async fn a_pr_to_a_service_lists_the_clients_and_producers_of_its_handlers(pool: PgPool) {
    let fake = FakeGithub::start().await;
    fake.add_installation(INSTALLATION, "acme");
    let (users, web, billing) = (repo_of("users"), repo_of("web"), repo_of("billing"));
    users.git(&["checkout", "-q", "-b", "fix"]);
    users.git(&["checkout", "-q", "main"]);
    let users_id = fake.add_repo(INSTALLATION, "acme/users", users.path());
    let web_id = fake.add_repo(INSTALLATION, "acme/web", web.path());
    let billing_id = fake.add_repo(INSTALLATION, "acme/billing", billing.path());
    fake.make_public(users_id);
    fake.make_public(web_id);
    let app = Harness::start(pool.clone(), &fake).await;
    let installed = json!({
        "action": "created",
        "installation": { "id": INSTALLATION, "account": { "login": "acme" } },
        "repositories": [
            { "id": users_id, "full_name": "acme/users" },
            { "id": web_id, "full_name": "acme/web" },
            { "id": billing_id, "full_name": "acme/billing" },
        ],
    });
    app.deliver_and_settle("installation", "d-1", &installed)
        .await;
    // Each repository's sites are stored: the web app's three requests, the billing
    // service's two requests and two producers, the users service's routes and consumer.
    let stored: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT r.full_name, s.role, s.endpoint FROM link_sites s
         JOIN repositories r ON r.id = s.repo_id ORDER BY 1, s.file_id, s.site",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let shown: Vec<String> = stored
        .iter()
        .map(|(repo, role, endpoint)| format!("{repo} {role} {endpoint}"))
        .collect();
    assert_eq!(
        shown,
        [
            "acme/billing client GET */users/:id",
            "acme/billing client PUT */users/:id",
            "acme/billing producer kafka:user.signup",
            "acme/billing producer kafka:user.deleted",
            "acme/users route GET /users/:id",
            "acme/users route POST /users/:id",
            "acme/users route GET /users/:id/posts",
            "acme/users consumer kafka:user.signup",
            "acme/web client GET /users/:id",
            "acme/web client GET /users/:id/posts",
            "acme/web client DELETE /users/:id",
        ],
        "{shown:#?}"
    );

    let base = users.head();
    let head = push_users_pr(&fake, &users, 1);
    app.deliver_and_settle(
        "pull_request",
        "d-2",
        &pr_event("opened", users_id, 1, &head, &base),
    )
    .await;
    let text = section(&fake);
    let web_head = web.head();
    let web_url = fake.web_url();
    let web_url = web_url.trim_end_matches('/');
    // The web app's `fetch` of `GET /users/:id`, with file, line and a permalink at its
    // indexed commit; not its request of a longer path, nor its DELETE of the same one.
    assert!(
        text.contains("`getUser` (`src/app.js`, body) handles `GET /users/:id`: 2 clients in 2 other repositories:"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "- `acme/web src/api.js:2` ([view]({web_url}/acme/web/blob/{web_head}/src/api.js#L2)) calls `GET /users/:id` [exact]"
        )),
        "{text}"
    );
    assert!(!text.contains("src/api.js:7"), "a longer path: {text}");
    assert!(!text.contains("src/api.js:12"), "another method: {text}");
    assert!(!text.contains("DELETE"), "{text}");
    // The consumer's producer is the private billing service's: counted, like its
    // client, never named (nor its other topic).
    assert!(
        text.contains("`handleSignup` (`src/app.js`, body) handles `kafka:user.signup`: 1 producer in 1 other repository:"),
        "{text}"
    );
    assert!(
        text.contains(
            "2 call sites in 1 private repository of this installation are not named here."
        ),
        "{text}"
    );
    assert!(
        !text.contains("billing") && !text.contains("users.js"),
        "{text}"
    );
    assert!(!text.contains("user.deleted"), "{text}");
    // The check run counts them like untouched callers (bodies changed: none broken):
    // the three across, and the service's own `start`, which hands `handleSignup` on.
    let runs = fake.check_runs("acme/users");
    let run = runs.last().unwrap();
    assert_eq!(run.conclusion.as_deref(), Some("neutral"));
    assert_eq!(
        run.title.as_deref(),
        Some("4 call sites the change did not touch, none affected by the contract")
    );
    let summary = run.summary.as_deref().unwrap_or_default();
    assert!(!summary.contains("billing"), "{summary}");

    // `/callers getUser` answers the same, and so does the route asked for directly;
    // the consumer's name answers with the private producer, counted.
    let reply = ask(&app, &fake, users_id, "d-2a", "/callers getUser").await;
    let across = reply
        .split("**Across service boundaries** (`GET /users/:id`)")
        .nth(1)
        .unwrap_or_else(|| panic!("no links across: {reply}"));
    assert!(
        across.starts_with(": 2 call sites in 2 other repositories of this installation."),
        "{reply}"
    );
    assert!(
        across.contains("- `acme/web src/api.js:2` ([view]("),
        "{reply}"
    );
    assert!(
        across.contains(
            "1 call site in 1 private repository of this installation is not named here."
        ),
        "{reply}"
    );
    assert!(
        !reply.contains("billing") && !reply.contains("src/api.js:12"),
        "{reply}"
    );
    let reply = ask(&app, &fake, users_id, "d-2b", "/callers \"GET /users/:id\"").await;
    assert!(reply.contains("**Callers of `GET /users/:id`**"), "{reply}");
    assert!(reply.contains("- `acme/web src/api.js:2`"), "{reply}");
    assert!(!reply.contains("src/api.js:7"), "{reply}");
    assert!(!reply.contains("billing"), "{reply}");
    let reply = ask(
        &app,
        &fake,
        users_id,
        "d-2c",
        "/callers \"DELETE /users/:id\"",
    )
    .await;
    assert!(reply.contains("- `acme/web src/api.js:12`"), "{reply}");
    assert!(!reply.contains("src/api.js:2`"), "{reply}");
    let reply = ask(&app, &fake, users_id, "d-2d", "/callers handleSignup").await;
    assert!(
        reply.contains(
            "1 call site in 1 private repository of this installation is not named here."
        ),
        "{reply}"
    );
    assert!(
        !reply.contains("billing") && !reply.contains("user.deleted"),
        "{reply}"
    );

    // A push to the web app removes its call: the PR's edited comment no longer lists it.
    web.write(
        "src/api.js",
        "export async function loadPosts(id) {\n  const res = await fetch(`/users/${id}/posts`);\n  return res.json();\n}\n",
    );
    let after = web.commit("no more loadUser");
    app.deliver_and_settle(
        "push",
        "d-3",
        &pushed(web_id, "acme/web", &web_head, &after, false),
    )
    .await;
    let head = push_users_pr(&fake, &users, 2);
    app.deliver_and_settle(
        "pull_request",
        "d-4",
        &pr_event("synchronize", users_id, 1, &head, &base),
    )
    .await;
    let text = section(&fake);
    assert!(!text.contains("acme/web"), "{text}");
    assert!(
        text.contains("handles `GET /users/:id`: 1 client in 1 other repository:"),
        "{text}"
    );
    assert!(
        text.contains(
            "2 call sites in 1 private repository of this installation are not named here."
        ),
        "{text}"
    );

    // The billing service leaves the installation: gone at once, and with it the section.
    fake.uninstall_repo(billing_id);
    app.deliver_and_settle(
        "installation_repositories",
        "d-5",
        &json!({
            "action": "removed",
            "installation": { "id": INSTALLATION, "account": { "login": "acme" } },
            "repository_selection": "selected",
            "repositories_added": [],
            "repositories_removed": [ { "id": billing_id, "full_name": "acme/billing" } ],
        }),
    )
    .await;
    let left: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM link_sites s JOIN repositories r ON r.id = s.repo_id
         WHERE r.full_name = 'acme/billing'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(left, 0);
    let head = push_users_pr(&fake, &users, 3);
    app.deliver_and_settle(
        "pull_request",
        "d-6",
        &pr_event("synchronize", users_id, 1, &head, &base),
    )
    .await;
    let body = &fake
        .issue_comments("acme/users", 1)
        .into_iter()
        .find(|c| c.by_app)
        .unwrap()
        .body;
    assert!(!body.contains("Across service boundaries"), "{body}");
    assert!(!body.contains("private repositor"), "{body}");
}
