//! The command line's promises: clear one-line errors with a non-zero exit, never a
//! panic; each subcommand runs on a plain directory.

use crate::common;

use common::{fixture, run, run_ok, two_commit_repo};

fn stderr_of(args: &[&str]) -> String {
    let out = run(args);
    assert!(!out.status.success(), "{args:?} should fail");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    // A warning (a secret given as a flag) may come first; the error is one line.
    let errors = err.trim().lines().filter(|l| !l.starts_with("warning: "));
    assert_eq!(errors.count(), 1, "one line: {err}");
    err
}

#[test]
fn errors_are_one_clear_line() {
    let plain = tempfile::tempdir().unwrap();
    let dir = plain.path().to_str().unwrap();
    let err = stderr_of(&["blast", "--repo", dir, "--base", "HEAD~1"]);
    assert!(err.contains("is not a git repository"), "{err}");

    let repo = two_commit_repo("blast/classify");
    let path = repo.path().to_str().unwrap();
    let err = stderr_of(&["blast", "--repo", path, "--base", "no-such-branch"]);
    assert!(err.contains("unknown revision 'no-such-branch'"), "{err}");

    let err = stderr_of(&["callers", "noSuchFunction", "--repo", path]);
    assert!(
        err.contains("no definition named 'noSuchFunction'"),
        "{err}"
    );

    let err = stderr_of(&["index", "--repo", "/definitely/not/here"]);
    assert!(err.contains("is not a directory"), "{err}");

    // `facts` of a file the indexer leaves out names the real reason.
    let built = plain.path().join("packages/server/dist/x.js");
    std::fs::create_dir_all(built.parent().unwrap()).unwrap();
    std::fs::write(&built, "export function x() {}\n").unwrap();
    let err = stderr_of(&["facts", built.to_str().unwrap()]);
    assert!(err.contains("under a `dist/` directory"), "{err}");
    // Vendored code is read; `facts` says how it is linked to the repository's own.
    let vendored = plain.path().join("src/vendor/lib/x.ts");
    std::fs::create_dir_all(vendored.parent().unwrap()).unwrap();
    std::fs::write(&vendored, "export function x() {}\n").unwrap();
    let out = run(&["facts", vendored.to_str().unwrap()]);
    assert!(out.status.success());
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert!(stdout.contains("def function x exported"), "{stdout}");
    assert!(
        stderr.contains("vendored code (under `vendor/`)"),
        "{stderr}"
    );
    let readme = plain.path().join("README.md");
    std::fs::write(&readme, "# x\n").unwrap();
    let err = stderr_of(&["facts", readme.to_str().unwrap()]);
    assert!(
        err.contains("not a JavaScript, TypeScript or component"),
        "{err}"
    );

    let err = stderr_of(&[
        "callers",
        "x",
        "--repo",
        path,
        "--database-url",
        "postgres://alice:s3cret@127.0.0.1:1/graphs",
    ]);
    assert!(err.contains("127.0.0.1:1/graphs"), "{err}");
    assert!(!err.contains("s3cret"), "{err}");
}

#[test]
fn ambiguous_names_list_the_candidates() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.js"), "export function save() {}\n").unwrap();
    std::fs::write(dir.path().join("b.js"), "export function save() {}\n").unwrap();
    let path = dir.path().to_str().unwrap();
    let out = run(&["callers", "save", "--repo", path]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("'save' names 2 definitions; pick one:"),
        "{err}"
    );
    assert!(err.contains("a.js:1  save (function)"), "{err}");
    assert!(err.contains("b.js:1  save (function)"), "{err}");
    // FILE:LINE picks one.
    let out = run_ok(&["callers", "b.js:1", "--repo", path]);
    assert!(out.contains("callers of b.js:1  save"), "{out}");
}

#[test]
fn file_line_names_a_function_bound_below_its_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("link.js"),
        "export const Link = forwardRef(\n  function LinkWithRef(props) {\n    return props;\n  }\n);\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("app.js"),
        "import { Link } from './link.js';\nLink({});\n",
    )
    .unwrap();
    let path = dir.path().to_str().unwrap();
    // Line 1 holds the name; the function starts on line 2.
    let out = run_ok(&["callers", "link.js:1", "--repo", path]);
    assert!(out.contains("Link"), "{out}");
    assert!(out.contains("app.js:2"), "{out}");
}

#[test]
fn graph_json_has_the_documented_shape() {
    let dir = fixture("blast/classify/base");
    let out = run_ok(&["graph", "--repo", dir.to_str().unwrap(), "--format", "json"]);
    let g: serde_json::Value = serde_json::from_str(&out).unwrap();
    let nodes = g["nodes"].as_array().unwrap();
    let edges = g["edges"].as_array().unwrap();
    for key in [
        "id",
        "name",
        "qualified_name",
        "kind",
        "file",
        "line",
        "end_line",
    ] {
        assert!(
            nodes.iter().all(|n| n.get(key).is_some()),
            "nodes have {key}"
        );
    }
    for key in ["from", "to", "file", "line", "column", "kind", "confidence"] {
        assert!(
            edges.iter().all(|e| e.get(key).is_some()),
            "edges have {key}"
        );
    }
    let classify = nodes
        .iter()
        .find(|n| n["name"] == "classifyFields")
        .expect("classifyFields node");
    assert_eq!(classify["file"], "services/classify.js");
    assert_eq!(classify["line"], 4);
    let into_classify = edges.iter().filter(|e| e["to"] == classify["id"]).count();
    assert_eq!(into_classify, 3);
    for format in ["dot", "graphml"] {
        let out = run_ok(&["graph", "--repo", dir.to_str().unwrap(), "--format", format]);
        assert!(out.contains("classifyFields"), "{format}");
    }
}

#[test]
fn index_callers_callees_and_path_work_on_a_plain_directory() {
    let dir = fixture("blast/classify/base");
    let dir = dir.to_str().unwrap();
    let out = run_ok(&["index", "--repo", dir]);
    assert!(out.contains("files        5 indexed"), "{out}");
    assert!(out.contains("peak memory"), "{out}");
    let out = run_ok(&["callers", "classifyFields", "--repo", dir]);
    assert!(
        out.contains("routes/services/video.js:5:28  processVideo"),
        "{out}"
    );
    assert!(out.contains("3 call sites (3 exact)"), "{out}");
    let out = run_ok(&[
        "callers",
        "services/classify.js:4",
        "--repo",
        dir,
        "--depth",
        "2",
    ]);
    assert!(out.contains("processVideo"), "{out}");
    let out = run_ok(&["callees", "classifyFields", "--repo", dir]);
    assert!(out.contains("lookupRules"), "{out}");
    let out = run_ok(&["path", "createPost", "lookupRules", "--repo", dir]);
    assert_eq!(out.lines().count(), 3, "{out}");
}

#[test]
fn index_counts_files_with_syntax_errors_by_cause() {
    let dir = fixture("resolve/export_type_star");
    let out = run_ok(&["index", "--repo", dir.to_str().unwrap()]);
    assert!(out.contains("0 with syntax errors"), "{out}");
    assert!(
        out.contains(
            "syntax       export type * (TS 5.0): 2 files, repaired (e.g. src/decl/index.d.ts)"
        ),
        "{out}"
    );
    let dir = fixture("extract/errors");
    let out = run_ok(&["index", "--repo", dir.to_str().unwrap()]);
    assert!(
        out.contains("syntax       other syntax errors: 3 files (e.g. broken.js)"),
        "{out}"
    );
}

#[test]
fn a_mistyped_name_gets_the_closest_names() {
    let repo = two_commit_repo("blast/classify");
    let path = repo.path().to_str().unwrap();
    // A transposition: one near name, one line.
    let err = stderr_of(&["callers", "classifyFeilds", "--repo", path]);
    assert!(
        err.contains("no definition named 'classifyFeilds'; did you mean")
            && err.contains("classifyFields (function)"),
        "{err}"
    );
    // Part of a name, in the wrong case, for every command that takes one.
    for args in [
        vec!["callees", "CLASSIFY"],
        vec!["path", "CLASSIFY", "lookupRules"],
    ] {
        let mut args = args.clone();
        args.extend(["--repo", path]);
        let out = run(&args);
        assert!(!out.status.success());
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("did you mean"), "{err}");
        assert!(err.contains("classifyFields"), "{err}");
    }
}

#[test]
fn a_bare_repository_is_a_repository() {
    let repo = two_commit_repo("blast/classify");
    let bare = tempfile::tempdir().unwrap();
    let bare_path = bare.path().join("classify.git");
    common::git(
        repo.path(),
        &["clone", "-q", "--bare", ".", bare_path.to_str().unwrap()],
    );
    let args = |dir: &str| -> Vec<String> {
        [
            "blast", "--repo", dir, "--base", "HEAD~1", "--format", "json",
        ]
        .map(String::from)
        .to_vec()
    };
    let run_with = |dir: &str| -> String {
        let a = args(dir);
        run_ok(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let from_bare = run_with(bare_path.to_str().unwrap());
    assert_eq!(from_bare, run_with(repo.path().to_str().unwrap()));
    assert!(from_bare.contains("classifyFields"), "{from_bare}");
}

/// Every secret the command line reads from the environment, each set to a value that must
/// never be printed.
const SECRET_ENV: &[&str] = &[
    "DATABASE_URL",
    "BLAST_DATABASE_URL",
    "GITHUB_WEBHOOK_SECRET",
    "GITHUB_PRIVATE_KEY",
    "BLAST_STATUS_TOKEN",
    "BLAST_CREDENTIALS_KEY",
    "BLAST_MCP_TOKEN",
];

#[test]
fn help_never_prints_a_secret_from_the_environment() {
    let help = |args: &[&str]| -> String {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_blast-radius"));
        cmd.args(args);
        for name in SECRET_ENV {
            cmd.env(name, format!("postgres://alice:pw-{name}@127.0.0.1/db"));
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    // Every subcommand `help` lists, so a new one is covered too.
    let top = help(&["--help"]);
    let commands: Vec<String> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() > 10, "{top}");
    for command in &commands {
        let text = help(&[command, "--help"]);
        assert!(
            !text.contains("pw-"),
            "{command} --help prints a secret:\n{text}"
        );
    }
}

/// `blast-radius` with the facts cache at `cache` (a test's own, to count its entries).
fn run_cached(cache: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_blast-radius"))
        .args(args)
        .env("BLAST_RADIUS_CACHE_DIR", cache)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The per-user facts cache (issue 45 §3): a second run reads what the first parsed,
/// and answers the same; a file edited on disk since it was staged is parsed again;
/// `--no-cache` reads and writes nothing; `cache` shows and clears it.
#[test]
fn a_second_run_reads_the_facts_cache_and_answers_the_same() {
    let repo = two_commit_repo("blast/contracts");
    let cache = tempfile::tempdir().unwrap();
    let dir = repo.path().to_str().unwrap();
    let cold = run_cached(cache.path(), &["index", "--repo", dir]);
    assert!(!cold.contains("from the facts cache"), "{cold}");
    let shown = run_cached(cache.path(), &["cache"]);
    assert!(shown.contains("holds        4 files"), "{shown}");
    let warm = run_cached(cache.path(), &["index", "--repo", dir]);
    assert!(
        warm.contains("cache        4 files read from the facts cache"),
        "{warm}"
    );
    let graph = |extra: &[&str]| {
        let mut args = vec!["graph", "--repo", dir];
        args.extend_from_slice(extra);
        run_cached(cache.path(), &args)
    };
    assert_eq!(graph(&[]), graph(&["--no-cache"]));

    // An edit not staged: git's blob is stale, so the file is read and parsed.
    let api = repo.path().join("src/api.ts");
    let edited = std::fs::read_to_string(&api)
        .unwrap()
        .replace("export function labelTs(", "export function renamedTs(");
    std::fs::write(&api, edited).unwrap();
    let callers = |name: &str| {
        run_cached(
            cache.path(),
            &["callers", name, "--repo", dir, "--format", "json"],
        )
    };
    assert!(callers("renamedTs").contains("\"callers\""));
    let warm = run_cached(cache.path(), &["index", "--repo", dir]);
    assert!(
        warm.contains("cache        3 files read from the facts cache"),
        "{warm}"
    );

    // A blast between commits reads its base from the cache too, and says the same.
    let cached = run_cached(
        cache.path(),
        &[
            "blast", "--repo", dir, "--base", "HEAD~1", "--format", "json",
        ],
    );
    let fresh = run_cached(
        cache.path(),
        &[
            "blast",
            "--repo",
            dir,
            "--base",
            "HEAD~1",
            "--format",
            "json",
            "--no-cache",
        ],
    );
    assert_eq!(cached, fresh);

    let before = run_cached(cache.path(), &["cache"]);
    let cleared = run_cached(cache.path(), &["cache", "--clear"]);
    assert!(cleared.starts_with("cleared"), "{cleared}");
    let after = run_cached(cache.path(), &["cache"]);
    assert!(after.contains("holds        0 files"), "{before}\n{after}");
    run_cached(cache.path(), &["index", "--repo", dir, "--no-cache"]);
    let untouched = run_cached(cache.path(), &["cache"]);
    assert!(untouched.contains("holds        0 files"), "{untouched}");
}
