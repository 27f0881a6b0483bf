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
    let comments = fake.issue_comments("acme/library", 1);
    assert_eq!(comments.len(), 1, "one summary comment");
    let body = &comments[0].body;
    let start = body
        .find("### In other repositories")
        .unwrap_or_else(|| panic!("no section: {body}"));
    body[start..].to_string()
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
