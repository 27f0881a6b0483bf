//! `blast-radius mcp` through a real MCP client: the official TypeScript SDK
//! (`@modelcontextprotocol/sdk`, pinned in `tests/mcp/package.json` and its lockfile,
//! installed by `npm ci` into the target directory on first use; Node.js 20+ and npm
//! needed) spawns the server on fixture repositories, lists the tools and calls each.
//! The answers equal the CLI's `--format json` for the same questions; an edit on disk
//! between two calls changes the second answer; the classifyFields change, uncommitted,
//! gets its untouched callers back; Streamable HTTP serves the same answers.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::{copy_dir, fixture, git, run_ok, two_commit_repo};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_blast-radius");
const FILES: [&str; 4] = ["package.json", "package-lock.json", ".npmrc", "client.mjs"];
/// A session that takes longer has hung.
const SESSION_LIMIT: Duration = Duration::from_secs(120);

/// The SDK, installed once per lockfile into the target directory.
fn packages() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| common::npm_ci("mcp", "mcp-npm", &FILES))
}

/// Waits for `child`, killing it past `limit`.
fn finish(mut child: Child, limit: Duration, what: &str) -> std::process::Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{what} took over {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Runs a scenario through the SDK's client; one result per step.
fn session(transport: Value, steps: &[Value]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("scenario.json");
    let mut body = transport;
    body["steps"] = Value::Array(steps.to_vec());
    std::fs::write(&scenario, serde_json::to_vec(&body).unwrap()).unwrap();
    let child = Command::new("node")
        .arg("client.mjs")
        .arg(&scenario)
        .current_dir(packages())
        .env("RUST_LOG", "blast_radius=info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run node ({e}): install Node.js 20+"));
    let out = finish(child, SESSION_LIMIT, "an MCP session");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the MCP client failed:\n{stderr}");
    eprintln!("{stderr}");
    let mut results: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let last = results.pop().unwrap();
    assert_eq!(last["server"]["name"], "blast-radius", "{last}");
    assert_eq!(results.len(), steps.len());
    results
}

fn stdio(repo: &Path) -> Value {
    json!({ "stdio": { "command": BIN, "args": ["mcp", "--repo", repo.to_str().unwrap()] } })
}

fn call(name: &str, arguments: Value) -> Value {
    json!({ "op": "call", "name": name, "arguments": arguments })
}

fn write(path: &Path, text: &str) -> Value {
    json!({ "op": "write", "path": path.to_str().unwrap(), "text": text })
}

fn cli_json(repo: &Path, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--repo", repo.to_str().unwrap(), "--format", "json"]);
    serde_json::from_str(&run_ok(&all)).unwrap()
}

/// A successful tool result's JSON, checked to be the same as structured content and
/// as text.
fn answer(result: &Value) -> &Value {
    assert_eq!(result["isError"], false, "{result:#}");
    let structured = &result["structuredContent"];
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(&text, structured);
    structured
}

/// A tool error's JSON.
fn error(result: &Value) -> &Value {
    assert_eq!(result["isError"], true, "{result:#}");
    &result["structuredContent"]
}

fn callers(answer: &Value) -> Vec<String> {
    answer["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}:{} {}",
                c["file"].as_str().unwrap(),
                c["line"],
                c["caller"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn every_tool_answers_as_the_cli_does() {
    let repo = two_commit_repo("blast/classify");
    let root = repo.path();
    let results = session(
        stdio(root),
        &[
            json!({ "op": "tools" }),
            call("find_callers", json!({ "target": "classifyFields" })),
            call(
                "find_callers",
                json!({ "target": "lookupRules", "depth": 2 }),
            ),
            call(
                "find_callees",
                json!({ "target": "services/classify.js:4" }),
            ),
            call(
                "call_path",
                json!({ "from": "createPost", "to": "lookupRules" }),
            ),
            call(
                "call_path",
                json!({ "from": "lookupRules", "to": "createPost" }),
            ),
            call("blast_radius", json!({ "base": "HEAD~1", "head": "HEAD" })),
            call("search_definitions", json!({ "query": "classify" })),
            call("search_definitions", json!({ "query": "procesVideo" })),
            call("find_callers", json!({ "target": "clasifyFields" })),
            call("blast_radius", json!({ "base": "no-such-branch" })),
            json!({ "op": "resources" }),
            json!({ "op": "read", "uri": "blast-radius://graph/summary" }),
        ],
    );
    let [tools, callers_1, callers_2, callees, path, no_path, blast, search, near, unknown, bad_rev, resources, summary] =
        &results[..]
    else {
        unreachable!()
    };

    // Every tool, each with a description and a schema naming what it requires.
    let mut names: Vec<(&str, Vec<&str>)> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            assert!(t["description"].as_str().unwrap().len() > 80, "{t}");
            assert_eq!(t["annotations"]["readOnlyHint"], true, "{t}");
            let required = t["inputSchema"]["required"]
                .as_array()
                .map(|r| r.iter().map(|v| v.as_str().unwrap()).collect())
                .unwrap_or_default();
            (t["name"].as_str().unwrap(), required)
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec![
            ("blast_radius", vec![]),
            ("call_path", vec!["from", "to"]),
            ("find_callees", vec!["target"]),
            ("find_callers", vec!["target"]),
            ("search_definitions", vec!["query"]),
        ]
    );

    // The answers are the CLI's JSON.
    assert_eq!(
        answer(callers_1),
        &cli_json(root, &["callers", "classifyFields"])
    );
    assert_eq!(
        callers(answer(callers_1)),
        vec![
            "routes/posts.js:7 createPost",
            "routes/services/image.js:4 processImage",
            "routes/services/video.js:5 processVideo",
        ]
    );
    assert_eq!(answer(callers_1)["complete"], true);
    assert_eq!(
        answer(callers_2),
        &cli_json(root, &["callers", "lookupRules", "--depth", "2"])
    );
    assert!(answer(callers_2)["callers"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["depth"] == 2 && c["via"] == "classifyFields"));
    assert_eq!(
        answer(callees),
        &cli_json(root, &["callees", "services/classify.js:4"])
    );
    assert_eq!(
        answer(callees)["callees"][0]["callee"]["name"],
        "lookupRules"
    );
    assert_eq!(
        answer(path),
        &cli_json(root, &["path", "createPost", "lookupRules"])
    );
    let steps: Vec<&str> = answer(path)["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["qualified_name"].as_str().unwrap())
        .collect();
    assert_eq!(steps, vec!["createPost", "classifyFields", "lookupRules"]);
    assert_eq!(
        answer(no_path),
        &cli_json(root, &["path", "lookupRules", "createPost"])
    );
    assert_eq!(answer(no_path)["path"], Value::Null);
    assert_eq!(
        answer(blast),
        &cli_json(root, &["blast", "--base", "HEAD~1", "--head", "HEAD"])
    );

    // Search: ranked, and "did you mean" when nothing matches.
    let found: Vec<&str> = answer(search)["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["qualified_name"].as_str().unwrap())
        .collect();
    assert_eq!(found, vec!["classifyFields", "classifyFieldsLater"]);
    let near = answer(near);
    assert_eq!(near["total"], 0);
    assert_eq!(near["did_you_mean"][0]["qualified_name"], "processVideo");

    // A name that names nothing is an error with the closest names, never an empty list.
    let unknown = error(unknown);
    assert_eq!(unknown["error"], "unknown_target");
    assert_eq!(unknown["candidates"][0]["qualified_name"], "classifyFields");
    assert!(unknown["message"]
        .as_str()
        .unwrap()
        .contains("did you mean services/classify.js:4"));
    let bad_rev = error(bad_rev);
    assert!(
        bad_rev["message"]
            .as_str()
            .unwrap()
            .contains("unknown revision 'no-such-branch'"),
        "{bad_rev}"
    );

    // The summary resource counts what `index` counts.
    assert_eq!(resources[0]["uri"], "blast-radius://graph/summary");
    let text = summary["contents"][0]["text"].as_str().unwrap();
    let summary: Value = serde_json::from_str(text).unwrap();
    let index = run_ok(&["index", "--repo", root.to_str().unwrap()]);
    let e = &summary["edges"];
    for line in [
        format!("files        {} indexed", summary["files"]),
        format!("definitions  {}", summary["definitions"]),
        format!(
            "edges        exact {}, likely {}, possible {}",
            e["exact"], e["likely"], e["possible"]
        ),
        format!(
            "unmatched    external {}, unresolved {}",
            summary["external"], summary["unresolved"]
        ),
        format!("skipped      {} (none)", summary["skipped"]["total"]),
    ] {
        assert!(index.contains(&line), "{line:?} not in:\n{index}");
    }
    assert_eq!(summary["files"], 5);
}

#[test]
fn an_edit_between_two_calls_changes_the_second_answer() {
    let repo = two_commit_repo("blast/classify");
    let root = repo.path();
    let extra = root.join("routes/extra.js");
    let posts = root.join("routes/posts.js");
    let posts_text = std::fs::read_to_string(&posts).unwrap();
    let who = || call("find_callers", json!({ "target": "classifyFields" }));
    let results = session(
        stdio(root),
        &[
            who(),
            // A new file with a new caller, in a new directory too.
            write(
                &extra,
                "const { classifyFields } = require('../services/classify');\n\
                 function extra(x) {\n  return classifyFields(x);\n}\n\
                 function processImage() {}\nmodule.exports = { extra, processImage };\n",
            ),
            write(
                &root.join("lib/deep/more.ts"),
                "import { classifyFields } from '../../services/classify';\n\
                 export function more() {\n  return classifyFields({});\n}\n",
            ),
            who(),
            // An existing caller stops calling it.
            write(
                &posts,
                &posts_text.replace("const tags = classifyFields(req.body);", "const tags = [];"),
            ),
            who(),
            // Two definitions of one name: the choice is the caller's.
            call("find_callees", json!({ "target": "processImage" })),
            json!({ "op": "remove", "path": extra.to_str().unwrap() }),
            who(),
            call("find_callees", json!({ "target": "processImage" })),
        ],
    );
    assert_eq!(
        callers(answer(&results[0])),
        vec![
            "routes/posts.js:7 createPost",
            "routes/services/image.js:4 processImage",
            "routes/services/video.js:5 processVideo",
        ]
    );
    assert_eq!(
        callers(answer(&results[3])),
        vec![
            "lib/deep/more.ts:3 more",
            "routes/extra.js:3 extra",
            "routes/posts.js:7 createPost",
            "routes/services/image.js:4 processImage",
            "routes/services/video.js:5 processVideo",
        ]
    );
    assert_eq!(
        callers(answer(&results[5])),
        vec![
            "lib/deep/more.ts:3 more",
            "routes/extra.js:3 extra",
            "routes/services/image.js:4 processImage",
            "routes/services/video.js:5 processVideo",
        ]
    );
    let ambiguous = error(&results[6]);
    assert_eq!(ambiguous["error"], "ambiguous_target");
    let mut files: Vec<&str> = ambiguous["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    files.sort();
    assert_eq!(files, vec!["routes/extra.js", "routes/services/image.js"]);
    let last = answer(&results[8]);
    assert_eq!(
        callers(last),
        vec![
            "lib/deep/more.ts:3 more",
            "routes/services/image.js:4 processImage",
            "routes/services/video.js:5 processVideo",
        ]
    );
    assert_eq!(
        answer(&results[9])["target"]["file"],
        "routes/services/image.js"
    );
    // And the graph kept current equals one indexed from scratch.
    assert_eq!(last, &cli_json(root, &["callers", "classifyFields"]));
}

/// Issue 44 through the MCP tool: `charge` gains a required parameter and one of its
/// three callers passes it. `blast_radius` gives each caller its verdict and reason,
/// as the CLI's JSON does.
#[test]
fn blast_radius_gives_each_caller_its_verdict_and_reason() {
    let repo = two_commit_repo("blast/charge");
    let root = repo.path();
    let results = session(
        stdio(root),
        &[call(
            "blast_radius",
            json!({ "base": "HEAD~1", "head": "HEAD" }),
        )],
    );
    let report = answer(&results[0]);
    assert_eq!(
        report,
        &cli_json(root, &["blast", "--base", "HEAD~1", "--head", "HEAD"])
    );
    let mut judged: Vec<(String, &str, &str)> = report["callers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["callee"] == "charge")
        .map(|c| {
            (
                format!("{}:{}", c["file"].as_str().unwrap(), c["line"]),
                c["verdict"].as_str().unwrap_or("none"),
                c["reason"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    judged.sort();
    let breaks = "passes 2 arguments; `charge` now requires 3 (`card` not passed)";
    assert_eq!(
        judged,
        vec![
            ("src/cart.ts:4".to_string(), "breaks", breaks),
            ("src/shop.ts:4".to_string(), "breaks", breaks),
            (
                "src/subscription.ts:4".to_string(),
                "fine",
                "passes 3 arguments, as the new signature of `charge` takes"
            ),
        ],
        "{report:#}"
    );
}

/// The case the product exists for, as an agent meets it: it changes what
/// `classifyFields` returns, updates the one caller it knew of (image.js), and asks
/// before committing.
#[test]
fn the_uncommitted_classify_fields_change_gets_its_untouched_callers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    copy_dir(&fixture("blast/classify/base"), root);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "base"]);
    let head = fixture("blast/classify/head");
    let edit = |rel: &str| {
        write(
            &root.join(rel),
            &std::fs::read_to_string(head.join(rel)).unwrap(),
        )
    };
    let results = session(
        stdio(root),
        &[
            call("blast_radius", json!({})),
            edit("services/classify.js"),
            edit("routes/services/image.js"),
            call("blast_radius", json!({})),
        ],
    );
    let before = answer(&results[0]);
    assert_eq!(
        before["changed"],
        json!([]),
        "nothing changed yet: {before}"
    );
    let report = answer(&results[3]);
    assert_eq!(
        (report["base"].as_str(), report["head"].as_str()),
        (Some("HEAD"), Some("working tree"))
    );
    let changed: Vec<(&str, &str)> = report["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["qualified_name"].as_str().unwrap(),
                c["change"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(changed.contains(&("classifyFields", "body")), "{changed:?}");
    let of_classify: Vec<&Value> = report["callers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["callee"] == "classifyFields")
        .collect();
    let mut untouched: Vec<String> = of_classify
        .iter()
        .filter(|c| c["touched"] == false)
        .map(|c| {
            format!(
                "{}:{} {}",
                c["file"].as_str().unwrap(),
                c["line"],
                c["caller"].as_str().unwrap()
            )
        })
        .collect();
    untouched.sort();
    assert_eq!(
        untouched,
        vec![
            "routes/posts.js:7 createPost",
            "routes/services/video.js:5 processVideo"
        ]
    );
    let touched: Vec<&str> = of_classify
        .iter()
        .filter(|c| c["touched"] == true)
        .map(|c| c["file"].as_str().unwrap())
        .collect();
    assert_eq!(touched, vec!["routes/services/image.js"]);

    // Committed, the same change gets the same report from the CLI.
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "head"]);
    let mut cli = cli_json(root, &["blast", "--base", "HEAD~1", "--head", "HEAD"]);
    cli["base"] = json!("HEAD");
    cli["head"] = json!("working tree");
    assert_eq!(report, &cli);
}

/// `--database-url`: the graph the app (or `index --database-url`) stored is served, and
/// caught up with the store when it moves on; a blast at the stored commit starts from it.
#[sqlx::test(migrations = false)]
async fn a_stored_graph_is_served_and_follows_the_store(pool: sqlx::PgPool) {
    use sqlx::ConnectOptions;
    let url = pool.connect_options().to_url_lossy().to_string();
    run_ok(&["migrate", "--database-url", &url]);
    let repo = two_commit_repo("blast/classify");
    let root = repo.path();
    let dir = root.to_str().unwrap();
    git(root, &["tag", "base", "HEAD~1"]);
    git(root, &["tag", "tip", "HEAD"]);
    git(root, &["checkout", "-q", "base"]);
    let index = [
        "index",
        "--repo",
        dir,
        "--database-url",
        &url,
        "--name",
        "o/classify",
    ];
    run_ok(&index);
    let stored = ["--database-url", url.as_str(), "--name", "o/classify"];
    let transport = json!({ "stdio": { "command": BIN, "args": [
        "mcp", "--repo", dir, "--database-url", &url, "--name", "o/classify",
    ] } });
    let who = || call("find_callers", json!({ "target": "classifyFields" }));
    let results = session(
        transport,
        &[
            who(),
            call("blast_radius", json!({ "base": "base", "head": "tip" })),
            // The repository moves on and is stored again: the next answer follows.
            json!({ "op": "run", "command": "git", "args": ["-C", dir, "checkout", "-q", "-"] }),
            write(
                &root.join("routes/extra.js"),
                "const { classifyFields } = require('../services/classify');\n\
                 function extra(x) {\n  return classifyFields(x);\n}\n",
            ),
            json!({ "op": "run", "command": BIN, "args": index }),
            who(),
        ],
    );
    let mut args = vec!["callers", "classifyFields"];
    args.extend(stored);
    let first = answer(&results[0]);
    assert_eq!(callers(first).len(), 3);
    assert_eq!(first["target"]["file"], "services/classify.js");
    let mut blast_args = vec!["blast", "--base", "base", "--head", "tip"];
    blast_args.extend(stored);
    assert_eq!(answer(&results[1]), &cli_json(root, &blast_args));
    let last = answer(&results[5]);
    assert_eq!(
        callers(last),
        vec![
            "routes/extra.js:3 extra",
            "routes/posts.js:7 createPost",
            "routes/services/image.js:4 processImage",
            "routes/services/video.js:5 processVideo",
        ]
    );
    assert_eq!(last, &cli_json(root, &args));
}

/// `--database-url ... --org`: find_callers adds the calls the database's other
/// repositories make into the served repository's packages, as `callers --org` does.
#[sqlx::test(migrations = false)]
async fn with_org_find_callers_adds_the_other_repositories_calls(pool: sqlx::PgPool) {
    use sqlx::ConnectOptions;
    let url = pool.connect_options().to_url_lossy().to_string();
    common::index_org_fixtures(&url);
    let library = fixture("org/library");
    let dir = library.to_str().unwrap();
    let serve = |org: bool| {
        let mut args = vec![
            "mcp",
            "--repo",
            dir,
            "--database-url",
            &url,
            "--name",
            "acme/library",
        ];
        if org {
            args.push("--org");
        }
        json!({ "stdio": { "command": BIN, "args": args } })
    };
    let who = call("find_callers", json!({ "target": "formatPrice" }));
    let with = session(serve(true), std::slice::from_ref(&who));
    let with = answer(&with[0]);
    let elsewhere = with["elsewhere"].as_array().expect("an elsewhere list");
    let places: Vec<String> = elsewhere
        .iter()
        .map(|c| {
            format!(
                "{} {}:{}",
                c["repository"].as_str().unwrap(),
                c["file"].as_str().unwrap(),
                c["line"]
            )
        })
        .collect();
    assert_eq!(
        places,
        [
            "acme/private-app index.js:4",
            "acme/service src/checkout.ts:7",
            "acme/service src/receipt.ts:10",
        ]
    );
    let cli = cli_json(
        &library,
        &[
            "callers",
            "formatPrice",
            "--database-url",
            &url,
            "--name",
            "acme/library",
            "--org",
        ],
    );
    assert_eq!(with, &cli);
    let without = session(serve(false), &[who]);
    assert!(answer(&without[0]).get("elsewhere").is_none());
}

/// `--database-url ... --org`: find_callers on a route's handler or a topic's consumer
/// adds the clients and producers that reach it (issue 47), the database's other
/// repositories' among them; another method, a longer path and another topic are not.
#[sqlx::test(migrations = false)]
async fn with_org_find_callers_adds_the_clients_of_what_a_handler_serves(pool: sqlx::PgPool) {
    use sqlx::ConnectOptions;
    let url = pool.connect_options().to_url_lossy().to_string();
    common::run_ok(&["migrate", "--database-url", &url]);
    for name in ["users", "web", "billing"] {
        let dir = fixture(&format!("services/{name}"));
        common::run_ok(&[
            "index",
            "--repo",
            dir.to_str().unwrap(),
            "--database-url",
            &url,
            "--name",
            &format!("acme/{name}"),
        ]);
    }
    let users = fixture("services/users");
    let args = [
        "mcp",
        "--repo",
        users.to_str().unwrap(),
        "--database-url",
        &url,
        "--name",
        "acme/users",
        "--org",
    ];
    let answers = session(
        json!({ "stdio": { "command": BIN, "args": args } }),
        &[
            call("find_callers", json!({ "target": "getUser" })),
            call("find_callers", json!({ "target": "handleSignup" })),
            call("find_callers", json!({ "target": "listPosts" })),
        ],
    );
    let places = |i: usize| -> Vec<String> {
        let mut out: Vec<String> = answer(&answers[i])["across"]
            .as_array()
            .map(|a| a.as_slice())
            .unwrap_or_default()
            .iter()
            .map(|c| {
                format!(
                    "{} {}:{} {} {}",
                    c["repository"].as_str().unwrap(),
                    c["file"].as_str().unwrap(),
                    c["line"],
                    c["role"].as_str().unwrap(),
                    c["reaches"].as_str().unwrap(),
                )
            })
            .collect();
        out.sort();
        out
    };
    assert_eq!(
        places(0),
        [
            "acme/billing src/users.js:5 client GET /users/:id",
            "acme/web src/api.js:2 client GET /users/:id",
        ]
    );
    assert_eq!(
        places(1),
        ["acme/billing src/users.js:17 producer kafka:user.signup"]
    );
    assert_eq!(
        places(2),
        ["acme/web src/api.js:7 client GET /users/:id/posts"]
    );
}

/// `blast-radius mcp --http 127.0.0.1:0` on `root` with `extra` arguments: the process and
/// the URL it listens on.
fn serve_http(root: &Path, extra: &[&str]) -> (Child, String) {
    let mut server = Command::new(BIN)
        .args([
            "mcp",
            "--repo",
            root.to_str().unwrap(),
            "--http",
            "127.0.0.1:0",
        ])
        .args(extra)
        .env_remove("BLAST_MCP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(server.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines
            .next()
            .expect("the server ended before it listened")
            .unwrap();
        if let Some(url) = line.split("listening on ").nth(1) {
            break url.trim().to_string();
        }
    };
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    // Keep reading the server's log so it never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    (server, url)
}

/// The status of an MCP `initialize` POSTed to `url` with `headers` (raw HTTP/1.1).
fn initialize_status(url: &str, headers: &[(&str, &str)]) -> u16 {
    use std::io::{Read, Write};
    let addr = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .unwrap();
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-03-26",
            "capabilities": {},
            "clientInfo": { "name": "raw", "version": "1" }
        }
    })
    .to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).unwrap();
    let line = String::from_utf8_lossy(&head);
    line[9..12].parse().unwrap_or_else(|_| panic!("{line}"))
}

#[test]
fn streamable_http_wants_its_token_and_a_loopback_origin() {
    let repo = two_commit_repo("blast/classify");
    let root = repo.path();
    let token = "an mcp token for tests";
    let (mut server, url) = serve_http(root, &["--token", token]);
    let bearer = format!("Bearer {token}");
    let port = url.split(':').nth(2).unwrap().split('/').next().unwrap();
    let local_origin = format!("http://localhost:{port}");
    let statuses = [
        initialize_status(&url, &[]),
        initialize_status(&url, &[("Authorization", "Bearer not the token")]),
        initialize_status(
            &url,
            &[
                ("Authorization", &bearer),
                ("Origin", "http://evil.example"),
            ],
        ),
        initialize_status(
            &url,
            &[("Authorization", &bearer), ("Origin", &local_origin)],
        ),
        initialize_status(&url, &[("Authorization", &bearer)]),
    ];
    let results = session(
        json!({ "http": url, "token": token }),
        &[call("find_callers", json!({ "target": "classifyFields" }))],
    );
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(statuses, [401, 401, 403, 200, 200]);
    assert_eq!(
        answer(&results[0]),
        &cli_json(root, &["callers", "classifyFields"])
    );

    // Without a token, on loopback: a page in a browser still may not call it.
    let (mut open, url) = serve_http(root, &[]);
    let foreign = initialize_status(&url, &[("Origin", "http://evil.example")]);
    let _ = open.kill();
    let _ = open.wait();
    assert_eq!(foreign, 403);
}

#[test]
fn streamable_http_on_a_public_address_needs_a_token() {
    let repo = two_commit_repo("blast/classify");
    let out = Command::new(BIN)
        .args(["mcp", "--repo", repo.path().to_str().unwrap()])
        .args(["--http", "0.0.0.0:0"])
        .env_remove("BLAST_MCP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = finish(out, Duration::from_secs(60), "a refused start");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("BLAST_MCP_TOKEN"), "{err}");
}

#[test]
fn streamable_http_serves_the_same_answers() {
    let repo = two_commit_repo("blast/classify");
    let root = repo.path();
    let (mut server, url) = serve_http(root, &[]);
    let results = session(
        json!({ "http": url }),
        &[
            json!({ "op": "tools" }),
            call("find_callers", json!({ "target": "classifyFields" })),
            call("find_callers", json!({ "target": "nope" })),
        ],
    );
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(results[0].as_array().unwrap().len(), 5);
    assert_eq!(
        answer(&results[1]),
        &cli_json(root, &["callers", "classifyFields"])
    );
    assert_eq!(error(&results[2])["error"], "unknown_target");
}
