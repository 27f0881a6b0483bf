//! The `github` module through octocrab's real requests, against the fake GitHub on
//! loopback serving real git repositories.

use crate::fake_github;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use blast_radius::github::{
    AppPrivateKey, CappedBlob, EntryKind, FileStatus, GithubApp, GithubConfig, GithubError,
    Installation, RepoName, RetryPolicy, MAX_TREE_REQUESTS,
};
use blast_radius::model::{BlobSha, CommitSha, GithubRepoId, InstallationId};
use fake_github::{
    FakeGithub, Fault, TestRepo, APP_ID, OTHER_PRIVATE_KEY, PRIVATE_KEY_PKCS1, PRIVATE_KEY_PKCS8,
};

const INSTALLATION: i64 = 7;

/// Retries with delays short enough for tests.
fn fast_retries() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 4,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
        max_wait: Duration::from_secs(5),
        secondary_wait: Duration::from_millis(50),
    }
}

fn config_with_key(fake: &FakeGithub, pem: &str) -> GithubConfig {
    let mut config = GithubConfig::new(APP_ID, AppPrivateKey::from_pem(pem).unwrap())
        .with_api_url(fake.api_url());
    config.retry = fast_retries();
    config.request_timeout = Duration::from_secs(10);
    config
}

fn config(fake: &FakeGithub) -> GithubConfig {
    config_with_key(fake, PRIVATE_KEY_PKCS1)
}

/// A fake with installation 7 (`acme`) and its repository `acme/web`.
struct World {
    fake: FakeGithub,
    repo: TestRepo,
    repo_id: i64,
    app: GithubApp,
    inst: Installation,
    name: RepoName,
    head: CommitSha,
}

fn sample_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("package.json", "{\"name\": \"web\"}\n")
        .write(
            "src/index.ts",
            "import { add } from './lib/math';\nadd(1, 2);\n",
        )
        .write(
            "src/lib/math.js",
            "export function add(a, b) {\n  return a + b;\n}\n",
        )
        .write("README.md", "# web\n");
    repo.commit("first");
    repo
}

async fn world_with(fake: FakeGithub, config: GithubConfig) -> World {
    let repo = sample_repo();
    fake.add_installation(INSTALLATION, "acme");
    let repo_id = fake.add_repo(INSTALLATION, "acme/web", repo.path());
    let app = GithubApp::new(&config).unwrap();
    let inst = app.installation(InstallationId(INSTALLATION));
    let head = CommitSha(repo.head());
    World {
        fake,
        repo,
        repo_id,
        app,
        inst,
        name: RepoName::new("acme", "web"),
        head,
    }
}

async fn world() -> World {
    let fake = FakeGithub::start().await;
    let config = config(&fake);
    world_with(fake, config).await
}

// ---- App and installation authentication ----

#[tokio::test]
async fn one_token_is_minted_and_reused_across_calls() {
    let w = world().await;
    for _ in 0..5 {
        let repo = w.inst.get_repository(&w.name).await.unwrap();
        assert_eq!(repo.id, GithubRepoId(w.repo_id));
        assert_eq!(w.inst.branch_head(&w.name, "main").await.unwrap(), w.head);
    }
    // The App hands out the same client for the same installation.
    let again = w.app.installation(InstallationId(INSTALLATION));
    again.get_repository(&w.name).await.unwrap();
    assert_eq!(w.fake.tokens_minted(INSTALLATION), 1);
    assert_eq!(w.fake.requests_matching("/access_tokens").len(), 1);
    // Every other request carried the token (the fake answers 401 otherwise).
    assert_eq!(w.fake.requests().len(), 12);
}

#[tokio::test]
async fn a_token_is_renewed_before_it_expires() {
    let fake = FakeGithub::start().await;
    let mut config = config(&fake);
    config.token_refresh_margin = Duration::from_secs(5 * 60);
    // Tokens that enter the renewal margin two seconds after they are minted.
    fake.set_token_ttl(Duration::from_secs(5 * 60 + 2));
    let w = world_with(fake, config).await;

    w.inst.get_repository(&w.name).await.unwrap();
    w.inst.get_repository(&w.name).await.unwrap();
    assert_eq!(w.fake.tokens_minted(INSTALLATION), 1);
    let first_expiry = w.inst.token_expires_at().await.unwrap();

    tokio::time::sleep(Duration::from_millis(2500)).await;
    w.inst.get_repository(&w.name).await.unwrap();
    assert_eq!(w.fake.tokens_minted(INSTALLATION), 2);
    assert!(w.inst.token_expires_at().await.unwrap() > first_expiry);
}

#[tokio::test]
async fn a_revoked_token_is_replaced_once() {
    let w = world().await;
    w.inst.get_repository(&w.name).await.unwrap();
    w.fake.revoke_tokens();
    w.inst.get_repository(&w.name).await.unwrap();
    assert_eq!(w.fake.tokens_minted(INSTALLATION), 2);
}

#[tokio::test]
async fn the_jwt_has_the_claims_github_requires() {
    let w = world().await;
    w.inst.get_repository(&w.name).await.unwrap();
    let claims = w.fake.last_jwt_claims().expect("the fake accepted a JWT");
    let now = chrono::Utc::now().timestamp();
    assert_eq!(claims["iss"].as_u64(), Some(APP_ID));
    let iat = claims["iat"].as_i64().unwrap();
    let exp = claims["exp"].as_i64().unwrap();
    assert!((55..=70).contains(&(now - iat)), "iat {iat}, now {now}");
    assert!(exp > now && exp - now <= 600, "exp {exp}, now {now}");
}

#[tokio::test]
async fn a_pkcs8_key_works_too() {
    let fake = FakeGithub::start().await;
    let config = config_with_key(&fake, PRIVATE_KEY_PKCS8);
    let w = world_with(fake, config).await;
    assert_eq!(w.inst.branch_head(&w.name, "main").await.unwrap(), w.head);
}

#[tokio::test]
async fn a_jwt_signed_with_the_wrong_key_is_refused_without_retries() {
    let fake = FakeGithub::start().await;
    let config = config_with_key(&fake, OTHER_PRIVATE_KEY);
    let w = world_with(fake, config).await;
    let err = w.inst.get_repository(&w.name).await.unwrap_err();
    assert!(matches!(err, GithubError::Unauthorized { .. }), "{err}");
    assert!(err.to_string().contains("private key"), "{err}");
    assert!(err.to_string().contains("InvalidSignature"), "{err}");
    assert_eq!(w.fake.requests_matching("/access_tokens").len(), 1);
    assert_eq!(w.fake.tokens_minted(INSTALLATION), 0);
}

#[tokio::test]
async fn a_wrong_app_id_is_refused() {
    let fake = FakeGithub::start().await;
    let mut config = config(&fake);
    config.app_id = APP_ID + 1;
    let w = world_with(fake, config).await;
    let err = w.inst.get_repository(&w.name).await.unwrap_err();
    assert!(matches!(err, GithubError::Unauthorized { .. }), "{err}");
    assert!(err.to_string().contains("'iss'"), "{err}");
}

#[tokio::test]
async fn a_suspended_installation_is_forbidden() {
    let w = world().await;
    w.fake.suspend_installation(INSTALLATION, true);
    let err = w.inst.get_repository(&w.name).await.unwrap_err();
    assert!(matches!(err, GithubError::Forbidden { .. }), "{err}");
    let info = w
        .app
        .get_installation(InstallationId(INSTALLATION))
        .await
        .unwrap();
    assert!(info.suspended);
}

#[tokio::test]
async fn installations_as_the_app() {
    let w = world().await;
    w.fake.add_installation(8, "globex");
    let info = w
        .app
        .get_installation(InstallationId(INSTALLATION))
        .await
        .unwrap();
    assert_eq!(info.account_login, "acme");
    assert_eq!(info.account_type, "Organization");
    assert!(!info.suspended);
    let all = w.app.list_installations().await.unwrap();
    let logins: Vec<&str> = all.iter().map(|i| i.account_login.as_str()).collect();
    assert_eq!(logins, ["acme", "globex"]);
    let err = w
        .app
        .get_installation(InstallationId(99))
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err}");
}

#[tokio::test]
async fn one_installation_cannot_see_another_ones_repositories() {
    let w = world().await;
    w.fake.add_installation(8, "globex");
    let other = TestRepo::new();
    other.write("a.js", "1;\n");
    other.commit("first");
    w.fake.add_repo(8, "globex/secret", other.path());
    let err = w
        .inst
        .get_repository(&RepoName::new("globex", "secret"))
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err}");
    let names: Vec<String> = w
        .inst
        .list_repositories()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.name.to_string())
        .collect();
    assert_eq!(names, ["acme/web"]);
}

// ---- Repositories and paging ----

#[tokio::test]
async fn every_page_of_250_repositories_is_read() {
    let w = world().await;
    for i in 1..250 {
        w.fake
            .add_repo(INSTALLATION, &format!("acme/repo-{i:03}"), w.repo.path());
    }
    let repos = w.inst.list_repositories().await.unwrap();
    assert_eq!(repos.len(), 250);
    let ids: BTreeSet<GithubRepoId> = repos.iter().map(|r| r.id).collect();
    assert_eq!(ids.len(), 250);
    assert!(repos
        .iter()
        .all(|r| r.default_branch.as_deref() == Some("main") && r.private));
    let pages: Vec<Option<String>> = w
        .fake
        .requests_matching("/installation/repositories")
        .into_iter()
        .map(|r| r.query)
        .collect();
    assert_eq!(
        pages,
        [1, 2, 3].map(|p| Some(format!("per_page=100&page={p}")))
    );
}

#[tokio::test]
async fn a_ghes_base_url_with_a_path_prefix_works() {
    let fake = FakeGithub::start_with_prefix("/api/v3").await;
    assert!(fake.api_url().ends_with("/api/v3"));
    let config = config(&fake);
    let w = world_with(fake, config).await;
    for i in 1..150 {
        w.fake
            .add_repo(INSTALLATION, &format!("acme/r{i}"), w.repo.path());
    }
    assert_eq!(w.inst.list_repositories().await.unwrap().len(), 150);
    assert_eq!(
        w.fake.requests_matching("/installation/repositories").len(),
        2
    );
    assert_eq!(w.inst.branch_head(&w.name, "main").await.unwrap(), w.head);
    let archive = w
        .inst
        .download_tarball(&w.name, &w.head, |_| true, 1 << 20)
        .await
        .unwrap();
    assert_eq!(archive.files.len(), 4);
    let info = w
        .app
        .get_installation(InstallationId(INSTALLATION))
        .await
        .unwrap();
    assert_eq!(info.account_login, "acme");
}

#[tokio::test]
async fn a_renamed_repository_is_followed_by_id_and_by_its_old_name() {
    let w = world().await;
    w.fake.rename_repo(w.repo_id, "acme/storefront");
    let by_id = w
        .inst
        .get_repository_by_id(GithubRepoId(w.repo_id))
        .await
        .unwrap();
    assert_eq!(by_id.name, RepoName::new("acme", "storefront"));
    // GitHub redirects the old name; octocrab follows.
    let by_old_name = w.inst.get_repository(&w.name).await.unwrap();
    assert_eq!(by_old_name.name.to_string(), "acme/storefront");
    assert_eq!(w.inst.branch_head(&w.name, "main").await.unwrap(), w.head);
}

#[tokio::test]
async fn branch_heads() {
    let w = world().await;
    w.repo.git(&["checkout", "-q", "-b", "feature/x"]);
    w.repo.write("src/feature.ts", "export {};\n");
    let feature = w.repo.commit("feature");
    assert_eq!(
        w.inst.branch_head(&w.name, "feature/x").await.unwrap(),
        CommitSha(feature)
    );
    assert_eq!(w.inst.branch_head(&w.name, "main").await.unwrap(), w.head);
    let err = w.inst.branch_head(&w.name, "nope").await.unwrap_err();
    assert!(err.is_not_found(), "{err}");
}

// ---- Tarball ----

#[tokio::test]
async fn the_tarball_holds_the_commit_s_files_with_their_blobs() {
    let w = world().await;
    let long = format!("deep/{}/{}.js", "a".repeat(70), "b".repeat(60));
    w.repo
        .write(&long, "export const deep = 1;\n")
        .write("docs/ünïcödé.md", "# ü\n")
        .write("with space/file name.js", "1;\n")
        .write("empty.txt", "");
    std::os::unix::fs::symlink("src/index.ts", w.repo.path().join("link.ts")).unwrap();
    let head = CommitSha(w.repo.commit("more"));

    let archive = w
        .inst
        .download_tarball(&w.name, &head, |_| true, 1 << 20)
        .await
        .unwrap();

    let tracked = w.repo.git(&["ls-tree", "-r", "--name-only", "-z", "HEAD"]);
    let mut expected: BTreeSet<String> = tracked
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    assert!(expected.remove("link.ts"), "symlinks are left out");
    let got: BTreeSet<String> = archive.files.iter().map(|f| f.path.clone()).collect();
    assert_eq!(got, expected);
    for file in &archive.files {
        assert_eq!(
            file.bytes,
            w.repo.show(head.as_str(), &file.path),
            "{}",
            file.path
        );
        let blob = w
            .repo
            .git(&["rev-parse", &format!("{}:{}", head.as_str(), file.path)]);
        assert_eq!(file.blob.0, blob.trim(), "git's blob sha of {}", file.path);
    }
    assert_eq!(archive.regular, expected.len());
    assert_eq!(archive.skipped, 1);
    // One API request (then the download URL it redirected to).
    assert_eq!(w.fake.requests_matching("/tarball/").len(), 1);
    assert_eq!(w.fake.requests_matching("/_codeload/").len(), 1);
    // A filter keeps only what it accepts.
    let js = w
        .inst
        .download_tarball(&w.name, &head, |p| p.ends_with(".js"), 1 << 20)
        .await
        .unwrap();
    assert!(js.files.iter().all(|f| f.path.ends_with(".js")));
    assert!(js.files.iter().any(|f| f.path == long));
}

#[tokio::test]
async fn a_tarball_of_an_unknown_commit_is_not_found() {
    let w = world().await;
    let missing = CommitSha("0".repeat(40));
    let err = w
        .inst
        .download_tarball(&w.name, &missing, |_| true, 1 << 20)
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err}");
}

// ---- Compare ----

#[tokio::test]
async fn compare_lists_the_changed_files() {
    let w = world().await;
    let base = w.head.clone();
    w.repo
        .write(
            "src/index.ts",
            "import { add } from './lib/arith';\nadd(2, 3);\n",
        )
        .write("src/new.ts", "export const n = 1;\n")
        .remove("README.md")
        .rename("src/lib/math.js", "src/lib/arith.js");
    let head = CommitSha(w.repo.commit("change"));

    let cmp = w.inst.compare(&w.name, &base, &head).await.unwrap();
    assert_eq!(cmp.status, "ahead");
    assert_eq!((cmp.ahead_by, cmp.behind_by), (1, 0));
    assert_eq!(cmp.merge_base, Some(base.clone()));
    assert!(!cmp.files_may_be_incomplete);
    let mut got: Vec<(FileStatus, String, Option<String>)> = cmp
        .files
        .iter()
        .map(|f| {
            (
                f.status,
                f.path.to_string(),
                f.previous_path.as_ref().map(|p| p.to_string()),
            )
        })
        .collect();
    got.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(
        got,
        [
            (FileStatus::Removed, "README.md".into(), None),
            (FileStatus::Modified, "src/index.ts".into(), None),
            (
                FileStatus::Renamed,
                "src/lib/arith.js".into(),
                Some("src/lib/math.js".into())
            ),
            (FileStatus::Added, "src/new.ts".into(), None),
        ]
    );
    let modified = cmp
        .files
        .iter()
        .find(|f| f.path.as_str() == "src/index.ts")
        .unwrap();
    assert_eq!(
        modified.sha,
        Some(BlobSha(w.repo.git(&["rev-parse", "HEAD:src/index.ts"])))
    );
}

#[tokio::test]
async fn compare_says_when_github_s_300_file_cap_may_hide_files() {
    let w = world().await;
    let base = w.head.clone();
    for i in 0..301 {
        w.repo.write(&format!("gen/f{i:03}.js"), format!("{i};\n"));
    }
    let head = CommitSha(w.repo.commit("many"));
    let cmp = w.inst.compare(&w.name, &base, &head).await.unwrap();
    assert_eq!(cmp.files.len(), 300);
    assert!(cmp.files_may_be_incomplete);
}

// ---- Trees and blobs ----

fn git_tree(repo: &TestRepo) -> BTreeSet<(String, String, String)> {
    repo.git(&["ls-tree", "-r", "-t", "-z", "HEAD"])
        .split('\0')
        .filter(|l| !l.is_empty())
        .map(|line| {
            let (meta, path) = line.split_once('\t').unwrap();
            let fields: Vec<&str> = meta.split(' ').collect();
            (
                path.to_string(),
                fields[1].to_string(),
                fields[2].to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn the_full_tree_matches_git_even_when_github_truncates_it() {
    let w = world().await;
    w.repo
        .write("a/b/c/d.js", "d;\n")
        .write("a/b/e.js", "e;\n")
        .write("z.js", "z;\n");
    let head = CommitSha(w.repo.commit("nested"));
    let expected = git_tree(&w.repo);
    let as_set = |entries: &[blast_radius::github::TreeEntry]| {
        entries
            .iter()
            .map(|e| {
                let kind = match e.kind {
                    EntryKind::Blob => "blob",
                    EntryKind::Tree => "tree",
                    EntryKind::Commit => "commit",
                    EntryKind::Unknown => "?",
                };
                (e.path.to_string(), kind.to_string(), e.sha.clone())
            })
            .collect::<BTreeSet<_>>()
    };

    let whole = w.inst.get_full_tree(&w.name, &head).await.unwrap();
    assert_eq!(as_set(&whole), expected);
    assert_eq!(w.fake.requests_matching("/git/trees/").len(), 1);

    w.fake.clear_requests();
    w.fake.set_tree_limit(Some(3));
    let walked = w.inst.get_full_tree(&w.name, &head).await.unwrap();
    assert_eq!(walked, whole, "same entries, same order");
    let non_recursive = w
        .fake
        .requests_matching("/git/trees/")
        .into_iter()
        .filter(|r| r.query.is_none())
        .count();
    assert!(
        non_recursive >= 2,
        "the truncated trees were walked level by level"
    );
}

#[tokio::test]
async fn a_truncated_tree_is_walked_within_a_bound_of_requests() {
    let w = world().await;
    // More directories than the walk may ask for, each listed truncated.
    for d in 0..MAX_TREE_REQUESTS + 20 {
        w.repo.write(&format!("d{d}/x/f.js"), "f;\n");
    }
    let head = CommitSha(w.repo.commit("many directories"));
    w.fake.set_tree_limit(Some(3));
    w.fake.clear_requests();
    let err = w.inst.get_full_tree(&w.name, &head).await.unwrap_err();
    assert!(err.is_tree_too_large(), "{err}");
    let asked = w.fake.requests_matching("/git/trees/").len();
    assert_eq!(asked, MAX_TREE_REQUESTS, "stopped at the bound");
}

#[tokio::test]
async fn blobs_raw_and_base64() {
    let w = world().await;
    w.repo.write("bin.dat", [0u8, 159, 146, 150, 255, 10]);
    let head = CommitSha(w.repo.commit("binary"));
    let tree = w.inst.get_full_tree(&w.name, &head).await.unwrap();
    let blobs: Vec<(String, BlobSha)> = tree
        .iter()
        .filter_map(|e| e.blob_sha().map(|sha| (e.path.to_string(), sha)))
        .collect();
    assert_eq!(blobs.len(), 5);
    for (path, sha) in &blobs {
        let bytes = w.inst.get_blob(&w.name, sha).await.unwrap();
        assert_eq!(bytes, w.repo.show(head.as_str(), path), "{path}");
        assert_eq!(&BlobSha::of(&bytes), sha);
    }
    assert!(w.fake.requests_matching("/git/blobs/").iter().all(|r| r
        .accept
        .as_deref()
        .unwrap_or_default()
        .contains("raw")));

    w.fake.set_blobs_as_json(true);
    for (path, sha) in &blobs {
        let bytes = w.inst.get_blob(&w.name, sha).await.unwrap();
        assert_eq!(bytes, w.repo.show(head.as_str(), path), "{path} as base64");
    }
}

#[tokio::test]
async fn a_capped_blob_read_stops_at_its_cap() {
    let w = world().await;
    let big = vec![b'x'; 3 * 1024 * 1024];
    w.repo.write("big.js", &big).write("small.js", "f()\n");
    let head = CommitSha(w.repo.commit("big"));
    let tree = w.inst.get_full_tree(&w.name, &head).await.unwrap();
    let sha = |path: &str| {
        tree.iter()
            .find(|e| e.path.as_str() == path)
            .and_then(|e| e.blob_sha())
            .unwrap()
    };
    for json in [false, true] {
        w.fake.set_blobs_as_json(json);
        let got = w
            .inst
            .get_blob_capped(&w.name, &sha("big.js"), 1024 * 1024)
            .await
            .unwrap();
        assert_eq!(got, CappedBlob::TooLarge, "as json: {json}");
        let got = w
            .inst
            .get_blob_capped(&w.name, &sha("small.js"), 1024 * 1024)
            .await
            .unwrap();
        assert_eq!(got, CappedBlob::Whole(b"f()\n".to_vec()), "as json: {json}");
    }
    // The contents API, as a repository's configuration is read, is capped the same way.
    let got = w
        .inst
        .get_file_at_capped(&w.name, "big.js", &head, 64 * 1024)
        .await
        .unwrap();
    assert_eq!(got, Some(CappedBlob::TooLarge));
    let got = w
        .inst
        .get_file_at_capped(&w.name, "small.js", &head, 64 * 1024)
        .await
        .unwrap();
    assert_eq!(got, Some(CappedBlob::Whole(b"f()\n".to_vec())));
}

// ---- Retries, rate limits, errors ----

#[tokio::test]
async fn a_502_then_a_secondary_rate_limit_are_retried() {
    let w = world().await;
    w.fake.inject("/branches/main", 1, Fault::Status(502));
    w.fake.inject(
        "/branches/main",
        1,
        Fault::SecondaryRateLimit {
            retry_after: Some(1),
        },
    );
    let started = Instant::now();
    assert_eq!(w.inst.branch_head(&w.name, "main").await.unwrap(), w.head);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After honoured"
    );
    assert_eq!(w.fake.requests_matching("/branches/main").len(), 3);
}

#[tokio::test]
async fn a_429_and_a_secondary_limit_without_retry_after_are_retried() {
    let w = world().await;
    w.fake
        .inject("/compare/", 1, Fault::TooManyRequests { retry_after: 0 });
    w.fake.inject(
        "/compare/",
        1,
        Fault::SecondaryRateLimit { retry_after: None },
    );
    let cmp = w.inst.compare(&w.name, &w.head, &w.head).await.unwrap();
    assert_eq!(cmp.status, "identical");
    assert_eq!(w.fake.requests_matching("/compare/").len(), 3);
}

#[tokio::test]
async fn a_spent_primary_limit_is_waited_out_and_recorded() {
    let w = world().await;
    w.fake
        .inject("/git/trees/", 1, Fault::PrimaryRateLimit { reset_in: 1 });
    let tree = w
        .inst
        .get_tree(&w.name, w.head.as_str(), false)
        .await
        .unwrap();
    assert!(!tree.entries.is_empty());
    assert_eq!(w.fake.requests_matching("/git/trees/").len(), 2);
    let limit = w.inst.rate_limit().expect("recorded from the headers");
    assert_eq!(limit.limit, Some(5000));
    assert!(limit.remaining > 0 && limit.remaining < 5000);
}

#[tokio::test]
async fn a_rate_limit_longer_than_max_wait_fails_at_once_with_its_end() {
    let w = world().await;
    w.fake.inject(
        "/branches/",
        1,
        Fault::SecondaryRateLimit {
            retry_after: Some(3600),
        },
    );
    let started = Instant::now();
    let err = w.inst.branch_head(&w.name, "main").await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2));
    let until = err.retry_at().expect("a rate limit error");
    let ahead = (until - chrono::Utc::now()).num_seconds();
    assert!((3590..=3600).contains(&ahead), "{ahead}");
    assert!(err.is_transient());
    assert_eq!(w.fake.requests_matching("/branches/").len(), 1);
}

#[tokio::test]
async fn server_errors_are_retried_up_to_max_attempts() {
    let w = world().await;
    w.fake.inject("/repos/acme/web", 10, Fault::Status(502));
    let err = w.inst.get_repository(&w.name).await.unwrap_err();
    assert!(
        matches!(err, GithubError::Http { status: 502, .. }),
        "{err}"
    );
    assert!(err.is_transient());
    assert_eq!(w.fake.requests_matching("/repos/acme/web").len(), 4);
}

#[tokio::test]
async fn a_timeout_is_retried() {
    let fake = FakeGithub::start().await;
    let mut config = config(&fake);
    config.request_timeout = Duration::from_millis(300);
    let w = world_with(fake, config).await;
    w.inst.get_repository(&w.name).await.unwrap(); // the token, outside the test
    w.fake
        .inject("/repos/acme/web", 1, Fault::Delay(Duration::from_secs(2)));
    let started = Instant::now();
    w.inst.get_repository(&w.name).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(w.fake.requests_matching("/repos/acme/web").len(), 3);
}

#[tokio::test]
async fn a_404_is_not_found_at_once() {
    let w = world().await;
    let missing = RepoName::new("acme", "missing");
    let err = w.inst.get_repository(&missing).await.unwrap_err();
    assert!(err.is_not_found(), "{err}");
    assert!(!err.is_transient());
    assert!(err.to_string().contains("/repos/acme/missing"), "{err}");
    assert_eq!(w.fake.requests_matching("/repos/acme/missing").len(), 1);
}

#[tokio::test]
async fn secrets_never_print() {
    let fake = FakeGithub::start().await;
    let bad_config = config_with_key(&fake, OTHER_PRIVATE_KEY);
    let bad = world_with(fake, bad_config).await;
    let refused = bad.inst.get_repository(&bad.name).await.unwrap_err();

    let w = world().await;
    w.inst.get_repository(&w.name).await.unwrap();
    let tokens = w.fake.issued_tokens();
    assert_eq!(tokens.len(), 1);

    let shown = [
        format!("{:?}", config(&w.fake)),
        format!("{:?}", w.app),
        format!("{:?}", w.inst),
        format!("{refused:?} {refused}"),
    ]
    .join("\n");
    let key_lines: Vec<&str> = PRIVATE_KEY_PKCS1
        .lines()
        .chain(OTHER_PRIVATE_KEY.lines())
        .filter(|l| !l.starts_with("-----"))
        .collect();
    for line in key_lines {
        assert!(!shown.contains(line), "a key line printed:\n{shown}");
    }
    for token in tokens {
        assert!(!shown.contains(&token), "a token printed:\n{shown}");
    }
    assert!(shown.contains("[redacted]"));
}

// ---- Against GitHub's REST description ----

/// Every request the other tests of this file make, checked against `@octokit/openapi`.
#[tokio::test]
async fn every_request_matches_github_s_rest_description() {
    let Some(report) = tokio::task::spawn_blocking(|| {
        fake_github::openapi::check_every_test_of_this_module(
            "github::every_request_matches_github_s_rest_description",
        )
    })
    .await
    .unwrap() else {
        return;
    };
    eprintln!(
        "{} requests checked against {}: {:?}, undocumented: {:?}",
        report.checked, report.spec, report.operations, report.undocumented
    );
    report.assert_clean();
    // Following a repository by id has no documented endpoint: the one we use knowingly.
    let undocumented: Vec<&String> = report.undocumented.keys().collect();
    assert_eq!(undocumented, ["GET /repositories/{repository_id}"]);
    for operation in [
        "GET /app/installations",
        "POST /app/installations/{installation_id}/access_tokens",
        "GET /installation/repositories",
        "GET /repos/{owner}/{repo}/branches/{branch}",
        "GET /repos/{owner}/{repo}/compare/{basehead}",
        "GET /repos/{owner}/{repo}/git/trees/{tree_sha}",
        "GET /repos/{owner}/{repo}/git/blobs/{file_sha}",
        "GET /repos/{owner}/{repo}/tarball/{ref}",
    ] {
        assert!(report.saw(operation), "no test sent {operation}");
    }
}
