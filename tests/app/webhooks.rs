//! Real payloads nobody here wrote: every example payload in `@octokit/webhooks-examples`
//! (github.com's and each GHES version's) of an event we handle parses into our types,
//! and `@octokit/webhooks-methods` agrees with our signatures both ways.
//!
//! The packages are pinned in `package.json` and `package-lock.json` beside this file and
//! installed by `npm ci` into the target directory on first use (Node.js 20 or later
//! and npm are needed, and the package registry must be reachable).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use blast_radius::intake::delivery_jobs::jobs_for;
use blast_radius::intake::events::{parse, Event};
use blast_radius::intake::{sign, WebhookSecrets};
use secrecy::SecretString;
use serde::Deserialize;
use serde_json::{json, Value};

const FILES: [&str; 4] = [
    "package.json",
    "package-lock.json",
    ".npmrc",
    "fixtures.mjs",
];

/// The packages, installed once per lockfile into the target directory.
fn packages() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| common::npm_ci("webhooks", "webhooks-npm", &FILES))
}

fn node(args: &[&str]) {
    let out = Command::new("node")
        .arg("fixtures.mjs")
        .args(args)
        .current_dir(packages())
        .output()
        .unwrap_or_else(|e| panic!("cannot run node ({e}): install Node.js 20+"));
    assert!(
        out.status.success(),
        "node fixtures.mjs {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[derive(Deserialize)]
struct Example {
    source: String,
    event: String,
    index: usize,
    payload: Value,
}

const HANDLED_EVENTS: [&str; 6] = [
    "installation",
    "installation_repositories",
    "push",
    "repository",
    "pull_request",
    "issue_comment",
];

#[test]
fn every_example_of_a_handled_event_parses_into_our_types() {
    let out = packages().join("examples.json");
    let mut args = vec!["examples", out.to_str().unwrap(), "ping"];
    args.extend(HANDLED_EVENTS);
    node(&args);
    let examples: Vec<Example> = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert!(examples.len() > 50, "only {} examples", examples.len());

    let mut handled: BTreeSet<(String, String)> = BTreeSet::new();
    let mut per_event: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut job_kinds: BTreeSet<String> = BTreeSet::new();
    for ex in &examples {
        let name = format!("{} {} #{}", ex.source, ex.event, ex.index);
        let body = serde_json::to_vec(&ex.payload).unwrap();
        let parsed = parse(&ex.event, &body).unwrap_or_else(|e| panic!("{name}: {e}"));
        let action = ex.payload["action"].as_str().unwrap_or("").to_string();
        assert_eq!(
            parsed.envelope.action.as_deref().unwrap_or(""),
            action,
            "{name}"
        );
        let counts = per_event.entry(ex.event.clone()).or_default();
        counts.0 += 1;
        let Some(event) = parsed.event else {
            continue;
        };
        counts.1 += 1;
        handled.insert((ex.event.clone(), action));
        agrees_with_the_raw_payload(&name, &event, &ex.payload);
        for job in jobs_for(&event) {
            assert!(job.serial_key.is_some(), "{name}: {} has no key", job.kind);
            job_kinds.insert(job.kind);
        }
    }
    eprintln!("examples (all, handled) per event: {per_event:?}");
    eprintln!("job kinds made from them: {job_kinds:?}");

    assert_eq!(
        per_event.get("ping").map(|c| c.1),
        Some(0),
        "ping is ignored"
    );
    for event in HANDLED_EVENTS {
        let (all, ours) = per_event.get(event).copied().unwrap_or_default();
        assert!(ours > 0, "{event}: none of {all} examples handled");
    }
    // Every handled (event, action) that the package has an example of.
    let expected = [
        ("installation", "created"),
        ("installation", "deleted"),
        ("installation", "suspend"),
        ("installation", "unsuspend"),
        ("installation", "new_permissions_accepted"),
        ("installation_repositories", "added"),
        ("installation_repositories", "removed"),
        ("push", ""),
        ("repository", "renamed"),
        ("repository", "transferred"),
        ("repository", "edited"),
        ("pull_request", "opened"),
        ("pull_request", "reopened"),
        ("pull_request", "synchronize"),
        ("pull_request", "ready_for_review"),
        ("pull_request", "closed"),
        ("issue_comment", "created"),
    ];
    for (event, action) in expected {
        assert!(
            handled.contains(&(event.to_string(), action.to_string())),
            "no example of {event} {action} was handled"
        );
    }
    for kind in [
        "sync_installation",
        "index_repository",
        "purge_repository",
        "rename_repository",
        "analyze_pr",
        "close_pr",
    ] {
        assert!(job_kinds.contains(kind), "no example made a {kind} job");
    }
}

/// What our types read is what the payload says.
fn agrees_with_the_raw_payload(name: &str, event: &Event, raw: &Value) {
    let repo_id = raw["repository"]["id"].as_i64();
    let installation = raw["installation"]["id"].as_i64();
    match event {
        Event::Installation(e) => {
            assert_eq!(Some(e.installation.id.0), installation, "{name}");
            assert_eq!(
                e.installation
                    .account
                    .as_ref()
                    .and_then(|a| a.login.as_deref()),
                raw["installation"]["account"]["login"].as_str(),
                "{name}"
            );
            let listed = raw["repositories"].as_array().map(Vec::len);
            assert_eq!(e.repositories.as_ref().map(Vec::len), listed, "{name}");
        }
        Event::InstallationRepositories(e) => {
            assert_eq!(Some(e.installation.id.0), installation, "{name}");
            let ids = |key: &str| -> Vec<i64> {
                raw[key]
                    .as_array()
                    .map(|a| a.iter().map(|r| r["id"].as_i64().unwrap()).collect())
                    .unwrap_or_default()
            };
            let added: Vec<i64> = e.repositories_added.iter().map(|r| r.id.0).collect();
            let removed: Vec<i64> = e.repositories_removed.iter().map(|r| r.id.0).collect();
            assert_eq!(added, ids("repositories_added"), "{name}");
            assert_eq!(removed, ids("repositories_removed"), "{name}");
        }
        Event::Push(e) => {
            assert_eq!(Some(e.git_ref.as_str()), raw["ref"].as_str(), "{name}");
            assert_eq!(Some(e.before.as_str()), raw["before"].as_str(), "{name}");
            assert_eq!(Some(e.after.as_str()), raw["after"].as_str(), "{name}");
            assert_eq!(
                (e.created, e.deleted, e.forced),
                (
                    raw["created"].as_bool().unwrap(),
                    raw["deleted"].as_bool().unwrap(),
                    raw["forced"].as_bool().unwrap()
                ),
                "{name}"
            );
            assert_eq!(Some(e.repository.id.0), repo_id, "{name}");
            assert_eq!(
                Some(e.repository.default_branch.as_str()),
                raw["repository"]["default_branch"].as_str(),
                "{name}"
            );
            assert_eq!(
                e.installation.as_ref().map(|i| i.id.0),
                installation,
                "{name}"
            );
        }
        Event::Repository(e) => {
            assert_eq!(Some(e.repository.id.0), repo_id, "{name}");
            assert_eq!(
                Some(e.repository.full_name.as_str()),
                raw["repository"]["full_name"].as_str(),
                "{name}"
            );
        }
        Event::PullRequest(e) => {
            let pr = &raw["pull_request"];
            assert_eq!(Some(e.number), raw["number"].as_u64(), "{name}");
            assert_eq!(
                Some(e.pull_request.head.sha.as_str()),
                pr["head"]["sha"].as_str(),
                "{name}"
            );
            assert_eq!(
                Some(e.pull_request.base.git_ref.as_str()),
                pr["base"]["ref"].as_str(),
                "{name}"
            );
            assert_eq!(
                e.pull_request.draft,
                pr["draft"].as_bool().unwrap_or(false),
                "{name}"
            );
            assert_eq!(Some(e.repository.id.0), repo_id, "{name}");
        }
        Event::IssueComment(e) => {
            let c = &raw["comment"];
            assert_eq!(Some(e.comment.id), c["id"].as_i64(), "{name}");
            assert_eq!(e.comment.body.as_deref(), c["body"].as_str(), "{name}");
            assert_eq!(
                Some(e.comment.user.kind.as_str()),
                c["user"]["type"].as_str()
            );
            assert_eq!(
                e.issue.is_pull_request(),
                !raw["issue"]["pull_request"].is_null(),
                "{name}"
            );
        }
    }
}

#[test]
fn signatures_agree_with_octokit_webhooks_methods() {
    let secrets = [
        "It's a Secret to Everybody",
        "rotated: ünïcödé and spaces 🔑",
        "x",
    ];
    let big = json!({"zen": "a".repeat(200_000), "hook_id": 1}).to_string();
    let payloads = [
        "Hello, World!".to_string(),
        "{\"zen\":\"Non-blocking is better than blocking.\",\"hook_id\":109948940}".to_string(),
        "{\"comment\":{\"body\":\"/callers classifyFields — ça marche 👍\\n\"}}".to_string(),
        big,
    ];
    let mut cases = Vec::new();
    for secret in secrets {
        for payload in &payloads {
            let ours = sign(secret, payload.as_bytes());
            cases.push(json!({"secret": secret, "payload": payload, "ours": ours}));
        }
    }
    let dir = packages();
    let input = dir.join("sign-in.json");
    let output = dir.join("sign-out.json");
    std::fs::write(&input, serde_json::to_vec(&cases).unwrap()).unwrap();
    node(&["sign", input.to_str().unwrap(), output.to_str().unwrap()]);
    #[derive(Deserialize)]
    struct Theirs {
        theirs: String,
        accepts_ours: bool,
        accepts_tampered: bool,
    }
    let results: Vec<Theirs> = serde_json::from_slice(&std::fs::read(&output).unwrap()).unwrap();
    assert_eq!(results.len(), cases.len());
    for (case, theirs) in cases.iter().zip(&results) {
        let secret = case["secret"].as_str().unwrap();
        let payload = case["payload"].as_str().unwrap();
        let what = format!("secret {secret:?}, payload of {} bytes", payload.len());
        assert_eq!(theirs.theirs, case["ours"].as_str().unwrap(), "{what}");
        assert!(theirs.accepts_ours, "{what}: webhooks-methods rejects ours");
        assert!(!theirs.accepts_tampered, "{what}: a changed body verified");
        // Ours accepts theirs, alone and among rotated secrets.
        let alone = WebhookSecrets::parse(&SecretString::from(secret.to_string())).unwrap();
        assert_eq!(
            alone.verify(payload.as_bytes(), Some(theirs.theirs.as_bytes())),
            Ok(()),
            "{what}"
        );
        let rotating =
            WebhookSecrets::new(vec![SecretString::from("old".to_string()), secret.into()])
                .unwrap();
        assert_eq!(
            rotating.verify(payload.as_bytes(), Some(theirs.theirs.as_bytes())),
            Ok(()),
            "{what}"
        );
    }
    // GitHub's documented vector, through webhooks-methods too.
    assert_eq!(
        results[0].theirs,
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    );
}
