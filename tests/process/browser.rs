//! The setup flow and the status page in a real browser: Debian's Chromium, headless,
//! driven by playwright-core (`tests/browser/drive.mjs`), against `blast-radius serve`
//! started with no App, a real Postgres, and GitHub faked on loopback. An operator signs
//! in, creates the App from its manifest, installs it; the status page then shows the
//! installation and its repository's graph, at a desktop and a phone's width. Then a pull
//! request: the comment the App posts is rendered as GitHub shows it (GitHub's own
//! markdown CSS) and photographed: the README's picture. Last, the status page on a phone
//! shows that work (a hostile repository name and PR title beside it stay text).
//!
//! Ignored by default (it needs Chromium and npm): `.ci/run` installs Chromium and runs
//! it. Screenshots go to `target/screenshots/`; with `BLAST_UPDATE_PICTURE=1` the
//! comment's also replaces `docs/comment.png`.

use crate::common;
use crate::fake_github;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::server::{launch, settle, setup_env, STATUS_TOKEN};
use fake_github::{FakeGithub, TestRepo};
use serde_json::{json, Value};
use sqlx::{ConnectOptions, PgPool};

const INSTALLATION: i64 = 7;

fn chromium() -> String {
    let path = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(
        Path::new(&path).exists(),
        "no Chromium at {path}: install Debian's package (apt-get install chromium) or set CHROMIUM"
    );
    path
}

/// Runs `drive.mjs` with `args`; the JSON it prints.
fn drive(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new("node")
        .arg(dir.join("drive.mjs"))
        .args(args)
        .env("CHROMIUM", chromium())
        .current_dir(dir)
        .stderr(Stdio::inherit())
        .output()
        .expect("node runs");
    assert!(out.status.success(), "drive.mjs {args:?} failed");
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn shots_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A PNG of some size: its signature, and width and height from its header.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is a PNG",
        path.display()
    );
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

#[sqlx::test(migrations = false)]
#[ignore = "needs Chromium and npm: .ci/run installs Chromium and runs it"]
async fn an_operator_sets_up_installs_and_sees_the_status_then_the_comment_is_photographed(
    pool: PgPool,
) {
    let dir = common::npm_ci(
        "browser",
        "browser",
        &["package.json", "package-lock.json", "drive.mjs"],
    );
    let fake = FakeGithub::start().await;
    let repo = TestRepo::new();
    common::copy_dir(&common::fixture("blast/charge/base"), repo.path());
    let base = repo.commit("base");
    fake.add_installation(INSTALLATION, "acme");
    let repo_id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    let db = pool.connect_options().to_url_lossy().to_string();
    let server = launch(
        "serve",
        &db,
        &fake.api_url(),
        &setup_env(),
        Stdio::inherit(),
    )
    .await;
    let shots = shots_dir();

    // The browser runs on its own thread: the fake GitHub answers on this one.
    let (d, url, s) = (dir.clone(), server.url.clone(), shots.clone());
    let seen = tokio::task::spawn_blocking(move || {
        drive(&d, &["setup", &url, STATUS_TOKEN, s.to_str().unwrap()])
    })
    .await
    .unwrap();
    assert_eq!(seen["loginStatus"], 401, "{seen}");
    assert_eq!(seen["afterSignIn"], "/setup", "{seen}");
    let confirm = seen["confirm"].as_str().unwrap();
    assert!(confirm.contains("organization acme"), "{confirm}");
    assert!(
        seen["installPage"]
            .as_str()
            .unwrap()
            .ends_with("/apps/blast-radius-test/installations/new"),
        "{seen}"
    );
    assert_eq!(
        seen["afterInstall"], "/",
        "GitHub sends the person to the setup URL"
    );
    let status = seen["status"].as_str().unwrap();
    assert!(status.contains("set up at /setup"), "{status}");
    assert!(status.contains("acme/web"), "{status}");
    assert!(status.contains("installation.created"), "{status}");
    assert!(seen["phoneOverflow"].as_i64().unwrap() <= 0, "{seen}");
    assert_eq!(
        seen["phoneCards"], true,
        "rows read as cards on a phone: {seen}"
    );
    // What the browser did is what the database and GitHub hold.
    let app = fake.created_apps().pop().expect("an App was created");
    assert_eq!(app.org.as_deref(), Some("acme"));
    assert_eq!(app.manifest["name"], "Blast Radius (acme)");
    let stored: (i64, String) = sqlx::query_as("SELECT app_id, slug FROM app_credentials")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(
        stored,
        (
            fake_github::APP_ID as i64,
            fake_github::APP_SLUG.to_string()
        )
    );
    for name in [
        "1-sign-in",
        "2-choose",
        "3-confirm",
        "4-install",
        "5-status",
        "6-status-phone",
    ] {
        let (w, h) = png_size(&shots.join(format!("{name}.png")));
        assert!(w >= 390 && h >= 300, "{name}: {w}x{h}");
    }

    // A pull request: the App comments; the comment is photographed as GitHub shows it.
    settle(&pool).await;
    repo.git(&["checkout", "-q", "-b", "fix"]);
    common::copy_dir(&common::fixture("blast/charge/head"), repo.path());
    let head = repo.commit("fix");
    repo.git(&["checkout", "-q", "main"]);
    fake.open_pr("acme/web", 1, "main", "fix");
    let event = json!({
        "action": "opened",
        "number": 1,
        "pull_request": {
            "head": { "ref": "fix", "sha": head, "repo": { "id": repo_id } },
            "base": { "ref": "main", "sha": base, "repo": { "id": repo_id } },
            "draft": false,
        },
        "repository": { "id": repo_id, "full_name": "acme/web", "default_branch": "main" },
        "installation": { "id": INSTALLATION },
    });
    let body = serde_json::to_vec(&event).unwrap();
    let answered = reqwest::Client::new()
        .post(format!("{}/webhook", server.url))
        .header("x-github-event", "pull_request")
        .header("x-github-delivery", "d-pr-1")
        .header(
            "x-hub-signature-256",
            blast_radius::intake::sign(&app.webhook_secret, &body),
        )
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), 202);
    settle(&pool).await;
    let comments = fake.issue_comments("acme/web", 1);
    assert_eq!(comments.len(), 1);
    let markdown = &comments[0].body;
    // A required parameter added, one of three callers updated: the picture shows what
    // breaks, and why.
    assert!(markdown.contains("**break**"), "{markdown}");

    let html = comment_page(&dir, markdown);
    let page = dir.join("comment.html");
    std::fs::write(&page, html).unwrap();
    let png = shots.join("comment.png");
    let (d, p, o) = (dir.clone(), page.clone(), png.clone());
    let rendered = tokio::task::spawn_blocking(move || {
        drive(&d, &["render", p.to_str().unwrap(), o.to_str().unwrap()])
    })
    .await
    .unwrap();
    let text = rendered["text"].as_str().unwrap();
    assert!(text.contains("now requires 3"), "{text}");
    assert!(
        !text.contains("<!--"),
        "the hidden marker stays hidden: {text}"
    );
    assert!(
        !text.contains("**"),
        "markdown is rendered, not shown: {text}"
    );
    let (w, h) = png_size(&png);
    assert!(w >= 800 && h >= 200, "comment.png: {w}x{h}");
    if std::env::var_os("BLAST_UPDATE_PICTURE").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::copy(&png, docs.join("comment.png")).unwrap();
    }

    // The status page shows the work, on a phone: the analysis just posted (its PR a
    // link), and, beside it, a repository and a pull request whose names are markup.
    let store = blast_radius::store::Store::from_pool(pool.clone());
    let hostile = "<img src=x onerror=alert(1)><script>alert(2)</script>";
    let evil = store
        .upsert_github_repository(
            blast_radius::model::InstallationId(INSTALLATION),
            blast_radius::model::GithubRepoId(999_999),
            &format!("acme/{hostile}"),
            "main",
            true,
        )
        .await
        .unwrap();
    store
        .record_analysis(
            evil.id,
            &blast_radius::store::NewAnalysis {
                number: 2,
                title: format!("a very long title that must wrap on a phone {hostile}"),
                url: "javascript:alert(3)".into(),
                head: "f".repeat(40),
                conclusion: Some("failure".into()),
                breaking: 3,
                untouched: 12,
                changed: 2,
                took_ms: 2_400,
            },
        )
        .await
        .unwrap();
    let (d, url, s) = (dir.clone(), server.url.clone(), shots.clone());
    let seen = tokio::task::spawn_blocking(move || {
        drive(&d, &["status", &url, STATUS_TOKEN, s.to_str().unwrap()])
    })
    .await
    .unwrap();
    let text = seen["text"].as_str().unwrap();
    for heading in [
        "Recent analyses",
        "Repositories",
        "Failed and deferred jobs",
        "Installations",
    ] {
        assert!(
            seen["headings"].to_string().contains(heading),
            "{heading}: {seen}"
        );
    }
    assert!(text.contains("Pull request 1"), "the PR's title: {text}");
    assert!(text.contains("3 breaking"), "{text}");
    assert!(text.contains("rate limit left"), "{text}");
    assert!(text.contains(hostile), "shown as text: {text}");
    let links: Vec<&str> = seen["prLinks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l.as_str())
        .collect();
    assert_eq!(links.len(), 1, "one PR link, none from javascript: {seen}");
    assert!(links[0].ends_with("/acme/web/pull/1"), "{seen}");
    assert_eq!(seen["dialogs"], 0, "nothing stored ran: {seen}");
    assert_eq!(seen["injected"], 0, "no element came out of a name: {seen}");
    assert!(seen["overflow"].as_i64().unwrap() <= 0, "{seen}");
    assert!(seen["widest"].as_f64().unwrap() <= 390.5, "{seen}");
    let (w, _) = png_size(&shots.join("7-status-work-phone.png"));
    assert!(w >= 390, "{w}");
}

/// The comment as GitHub shows it in a pull request's conversation: its markdown
/// rendered (GitHub-flavoured: tables, task lists, raw HTML such as `<details>`) inside a
/// comment box styled with GitHub's own markdown CSS.
fn comment_page(npm_dir: &Path, markdown: &str) -> String {
    use pulldown_cmark::{html, Options, Parser};
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let mut body = String::new();
    html::push_html(&mut body, Parser::new_ext(markdown, options));
    let css = std::fs::read_to_string(
        npm_dir.join("node_modules/github-markdown-css/github-markdown-light.css"),
    )
    .unwrap();
    format!(
        r#"<!doctype html><html><head><meta charset="utf-8"><style>{css}
body{{background:#fff;margin:0;padding:16px;font-family:-apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif}}
#comment{{width:860px;border:1px solid #d1d9e0;border-radius:6px;overflow:hidden}}
.header{{background:#f6f8fa;border-bottom:1px solid #d1d9e0;padding:8px 16px;font-size:14px;color:#59636e}}
.header b{{color:#1f2328}} .bot{{border:1px solid #d1d9e0;border-radius:2em;padding:0 7px;font-size:12px;margin-left:4px}}
.markdown-body{{padding:16px;font-size:14px}}
</style></head><body><div id="comment"><div class="header"><b>blast-radius</b><span class="bot">bot</span> commented</div>
<div class="markdown-body">{body}</div></div></body></html>"#
    )
}
