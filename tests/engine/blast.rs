//! `blast` end to end on fixture repositories with real git history.

use crate::common;

use common::{run_ok, two_commit_repo};
use serde_json::Value;

fn blast_json(repo: &std::path::Path) -> Value {
    let out = run_ok(&[
        "blast",
        "--repo",
        repo.to_str().unwrap(),
        "--base",
        "HEAD~1",
        "--head",
        "HEAD",
        "--format",
        "json",
    ]);
    serde_json::from_str(&out).unwrap()
}

fn callers_of<'a>(report: &'a Value, callee: &str) -> Vec<&'a Value> {
    report["callers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["callee"] == callee)
        .collect()
}

/// The case the product exists for: classifyFields changes, only image.js is updated.
#[test]
fn classify_fields_untouched_callers_are_listed() {
    let repo = two_commit_repo("blast/classify");
    let report = blast_json(repo.path());

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

    let callers = callers_of(&report, "classifyFields");
    let mut untouched: Vec<(String, String)> = callers
        .iter()
        .filter(|c| c["touched"] == false)
        .map(|c| {
            (
                format!("{}:{}", c["file"].as_str().unwrap(), c["line"]),
                c["caller"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    untouched.sort();
    assert_eq!(
        untouched,
        vec![
            ("routes/posts.js:7".to_string(), "createPost".to_string()),
            (
                "routes/services/video.js:5".to_string(),
                "processVideo".to_string()
            ),
        ]
    );
    let touched: Vec<&str> = callers
        .iter()
        .filter(|c| c["touched"] == true)
        .map(|c| c["file"].as_str().unwrap())
        .collect();
    assert_eq!(touched, vec!["routes/services/image.js"]);
    // Comments and strings that mention the name are not call sites.
    assert_eq!(callers.len(), 3, "{callers:#?}");
    for c in &callers {
        assert_eq!(c["confidence"], "exact");
    }
}

/// classifyFields' body changed, nothing else: its untouched callers are counted per
/// file in a fold, none affected by the contract, and none is listed line by line.
#[test]
fn classify_fields_markdown_folds_the_callers_of_a_body_change() {
    let repo = two_commit_repo("blast/classify");
    let out = run_ok(&[
        "blast",
        "--repo",
        repo.path().to_str().unwrap(),
        "--base",
        "HEAD~1",
    ]);
    assert!(out.starts_with("<!-- blast-radius -->"), "{out}");
    let headline = out.lines().nth(3).unwrap();
    assert!(
        headline.starts_with("**2** call sites this change did not touch, in 2 files,"),
        "{out}"
    );
    assert!(headline.contains("none affected by the contract"), "{out}");
    let fold = out
        .split("<details><summary>2 untouched call sites in 2 files, none affected by the contract")
        .nth(1)
        .unwrap_or_else(|| panic!("no fold: {out}"));
    assert!(
        fold.contains("`routes/posts.js` (1), `routes/services/video.js` (1)"),
        "{out}"
    );
    for site in ["routes/posts.js:7", "routes/services/video.js:5"] {
        assert!(!out.contains(site), "{site} listed: {out}");
    }
    assert!(!out.contains("```mermaid"), "nothing to look at: {out}");
}

/// classifyFields now calls a helper the change added, and lookupRules, which it calls,
/// changed too. Each of them used to list classifyFields' callers again at depth 2:
/// three sections of the same two lines.
#[test]
fn each_caller_is_listed_once_under_the_nearest_changed_function() {
    let repo = two_commit_repo("blast/helper");
    let report = blast_json(repo.path());
    let sites = |callee: &str| -> Vec<String> {
        let mut sites: Vec<String> = callers_of(&report, callee)
            .iter()
            .map(|c| {
                format!(
                    "{}:{} {} depth {}{}",
                    c["file"].as_str().unwrap(),
                    c["line"],
                    c["caller"].as_str().unwrap(),
                    c["depth"],
                    if c["touched"] == true { " touched" } else { "" }
                )
            })
            .collect();
        sites.sort();
        sites
    };
    assert_eq!(
        sites("classifyFields"),
        vec![
            "routes/posts.js:7 createPost depth 1",
            "routes/services/image.js:4 processImage depth 1 touched",
            "routes/services/video.js:5 processVideo depth 1",
        ]
    );
    // Its callers' callers are classifyFields' callers, listed under it.
    assert_eq!(
        sites("lookupRules"),
        vec!["services/classify.js:9 classifyFields depth 1 touched"]
    );
    // The added helper is reported, but the change wrote its only caller.
    assert!(report["changed"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["name"] == "normalizeFields" && c["change"] == "added"));
    assert_eq!(sites("normalizeFields"), Vec::<String>::new());
    // An added function an existing, untouched call now reaches (it called a global of
    // that name): the one caller of an added function its author may not know of.
    assert_eq!(
        sites("sanitize"),
        vec!["services/rules.js:9 cleanRules depth 1"]
    );

    let out = run_ok(&[
        "blast",
        "--repo",
        repo.path().to_str().unwrap(),
        "--base",
        "HEAD~1",
    ]);
    // classifyFields' body alone changed: its callers are counted per file, not listed;
    // sanitize's caller is listed once.
    for (site, times) in [
        ("routes/posts.js:7", 0),
        ("routes/services/video.js:5", 0),
        ("routes/services/image.js:4", 0),
        ("services/rules.js:9", 1),
    ] {
        assert_eq!(out.matches(site).count(), times, "{site} in:\n{out}");
    }
    assert!(
        out.contains("**2** untouched callers in 2 files: `routes/posts.js` (1), `routes/services/video.js` (1) · 1 touched"),
        "{out}"
    );
    assert!(!out.contains("### `normalizeFields`"), "{out}");
    assert!(
        out.contains("- `normalizeFields` — function at `services/classify.js:4` · added"),
        "{out}"
    );
}

/// docs/pull-requests.md shows the PR comment for `blast/helper` as the app would post it.
#[test]
fn the_documented_example_is_the_comment_for_the_helper_fixture() {
    use blast_radius::blast::report::BlastReport;
    use blast_radius::report::markdown::render_markdown;

    let repo = two_commit_repo("blast/helper");
    let mut report: BlastReport = serde_json::from_value(blast_json(repo.path())).unwrap();
    report.base = "main@1f0c2d9e8b7a".into();
    report.head = "#42@6d5e4f3a2b1c".into();
    let link = |file: &str, line: u32| {
        format!("https://github.com/acme/uploads/blob/6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e/{file}#L{line}")
    };
    let md = render_markdown(&report, 60_000, Some(&link));
    let page = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/pull-requests.md"
    ))
    .unwrap();
    assert!(
        page.contains(&format!("````markdown\n{md}````\n")),
        "docs/pull-requests.md's example of the comment is out of date; it is now:\n{md}"
    );
}

/// The loudest finding: a renamed function whose other caller still uses the old name.
#[test]
fn a_renamed_function_still_called_is_reported_first() {
    let repo = two_commit_repo("blast/rename");
    let report = blast_json(repo.path());
    let changed = report["changed"].as_array().unwrap();
    let renamed = changed
        .iter()
        .position(|c| c["change"] == "renamed")
        .expect("a rename");
    assert_eq!(changed[renamed]["name"], "formatDay");
    assert_eq!(changed[renamed]["renamed_from"], "formatDate");
    assert!(changed
        .iter()
        .any(|c| c["name"] == "unused" && c["change"] == "removed"));
    let callers = callers_of(&report, "formatDay");
    let untouched: Vec<String> = callers
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
    assert_eq!(untouched, vec!["b.js:4 footer"]);
    let out = run_ok(&[
        "blast",
        "--repo",
        repo.path().to_str().unwrap(),
        "--base",
        "HEAD~1",
    ]);
    let loud = out
        .find("Removed or renamed, but still called")
        .expect("loud section");
    let section = out.find("### `formatDay`").expect("function section");
    assert!(loud < section, "{out}");
    assert!(out.contains("`formatDate` renamed to `formatDay`"), "{out}");
}

/// A function moved to another file and re-exported: its callers still reach it, so
/// nothing is reported as calling a removed function.
#[test]
fn a_moved_function_is_not_reported_as_removed_and_still_called() {
    let repo = two_commit_repo("blast/moved");
    let report = blast_json(repo.path());
    let changed: Vec<(String, String)> = report["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                format!(
                    "{}:{}",
                    c["file"].as_str().unwrap(),
                    c["name"].as_str().unwrap()
                ),
                c["change"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        changed.contains(&("utils.js:slugify".into(), "removed".into())),
        "{changed:?}"
    );
    assert!(
        changed.contains(&("strings.js:slugify".into(), "added".into())),
        "{changed:?}"
    );
    let removed = changed
        .iter()
        .position(|c| c.0 == "utils.js:slugify")
        .unwrap();
    let still_calling_removed: Vec<&serde_json::Value> = report["callers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["changed_index"] == removed)
        .collect();
    assert!(
        still_calling_removed.is_empty(),
        "{still_calling_removed:#?}"
    );
    // The moved function's callers are listed under it.
    let mut callers: Vec<&str> = callers_of(&report, "slugify")
        .iter()
        .map(|c| c["file"].as_str().unwrap())
        .collect();
    callers.sort();
    assert_eq!(callers, vec!["a.js", "b.js"]);
}

/// The files of a fixture directory, by repository path.
fn fixture_files(dir: &std::path::Path) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn blast_reads_the_base_graph_and_leaves_it_as_it_was() {
    use blast_radius::blast::radius::{blast, BlastOptions, FileChange};
    use blast_radius::report::graph_export;

    for name in [
        "blast/classify",
        "blast/rename",
        "blast/moved",
        "blast/helper",
    ] {
        let base = fixture_files(&common::fixture(&format!("{name}/base")));
        let mut head = base.clone();
        let overlay = fixture_files(&common::fixture(&format!("{name}/head")));
        for (path, src) in &overlay {
            if path == ".deleted" {
                for gone in src.lines().filter(|l| !l.trim().is_empty()) {
                    head.remove(gone.trim());
                }
            } else {
                head.insert(path.clone(), src.clone());
            }
        }
        let paths: std::collections::BTreeSet<&String> = base.keys().chain(head.keys()).collect();
        let changes: Vec<FileChange> = paths
            .into_iter()
            .filter(|p| base.get(*p) != head.get(*p))
            .map(|p| FileChange {
                path: p.clone(),
                old: base.get(p).cloned(),
                new: head.get(p).cloned(),
            })
            .collect();
        let graph = common::graph_of(base.iter().map(|(p, s)| (p.as_str(), s.as_str())));
        let export = |g: &blast_radius::graph::Graph| {
            (
                graph_export::to_json(&graph_export::collect(g)),
                g.edge_keys(),
                g.reverse_keys(),
            )
        };
        let before = export(&graph);
        let options = BlastOptions {
            base: "base".into(),
            head: "head".into(),
            depth: 2,
            skipped_files: 0,
            skipped: Vec::new(),
        };
        let first = blast(&graph, &changes, &options);
        assert!(
            !first.changed.is_empty(),
            "{name}: the change changes functions"
        );
        assert!(
            export(&graph) == before,
            "{name}: blast changed the base graph"
        );
        // The same base answers the next request the same way.
        assert_eq!(blast(&graph, &changes, &options), first, "{name}");
    }
}

/// Component files in a change: a function called only from component scripts lists
/// those components as its untouched callers, and a component whose template changed
/// is a changed definition whose users (`<PostCard/>` in TSX, `<post-card>` in another
/// component's template) are listed.
#[test]
fn components_are_callers_and_changed_definitions() {
    let repo = two_commit_repo("blast/components");
    let report = blast_json(repo.path());
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
    assert!(changed.contains(&("PostCard", "body")), "{changed:?}");
    assert!(
        changed.iter().any(|(n, _)| *n == "formatDate"),
        "{changed:?}"
    );
    let sites = |callee: &str| -> Vec<(String, String, bool)> {
        let mut v: Vec<_> = callers_of(&report, callee)
            .iter()
            .map(|c| {
                (
                    format!("{}:{}", c["file"].as_str().unwrap(), c["line"]),
                    c["caller"].as_str().unwrap_or_default().to_string(),
                    c["touched"] == true,
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        sites("formatDate"),
        vec![
            (
                "src/components/List.svelte:4".to_string(),
                "List".to_string(),
                false
            ),
            (
                "src/components/PostCard.vue:8".to_string(),
                "PostCard".to_string(),
                true
            ),
        ]
    );
    // An MDX page the change adds uses it too, and the graph cannot read MDX: the
    // report says so rather than let "no other callers" stand for "could not see".
    let skipped: Vec<(&str, &str)> = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["file"].as_str().unwrap(), s["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        skipped,
        vec![("docs/intro.mdx", "unreadable")],
        "{}",
        report["skipped"]
    );
    // Its users: a TSX file's `<PostCard/>`, and another component's template tag.
    assert_eq!(
        sites("PostCard"),
        vec![
            ("src/App.tsx:4".to_string(), "App".to_string(), false),
            (
                "src/components/Feed.vue:3".to_string(),
                "Feed".to_string(),
                false
            ),
        ]
    );
}

/// An Angular template changed: the template is the changed definition, and the
/// component class whose `templateUrl` names it is its caller (what renders it).
#[test]
fn a_changed_angular_template_lists_its_component() {
    let repo = two_commit_repo("blast/angular");
    let report = blast_json(repo.path());
    let changed: Vec<(&str, &str, &str)> = report["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["file"].as_str().unwrap(),
                c["kind"].as_str().unwrap(),
                c["change"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        changed,
        vec![("src/app/todo.component.html", "template", "body")]
    );
    let callers: Vec<(String, &str, &str)> = callers_of(&report, "template")
        .iter()
        .map(|c| {
            (
                format!("{}:{}", c["file"].as_str().unwrap(), c["line"]),
                c["caller"].as_str().unwrap(),
                c["kind"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        callers,
        vec![(
            "src/app/todo.component.ts:5".to_string(),
            "TodoComponent",
            "reference"
        )]
    );
}

/// Each direct caller of `report` (blast's JSON) as (file, line, verdict, reason), sorted.
fn direct_verdicts(report: &serde_json::Value) -> Vec<(String, u64, String, String)> {
    let mut got: Vec<(String, u64, String, String)> = report["callers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["depth"] == 1)
        .map(|c| {
            (
                c["file"].as_str().unwrap().to_string(),
                c["line"].as_u64().unwrap(),
                c["verdict"].as_str().unwrap_or("none").to_string(),
                c["reason"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    got.sort();
    got
}

/// The direct callers' verdicts in `src/use.ts` of the two-commit repository made from
/// `fixture`, as (line, "verdict: reason"), in order.
fn use_ts_verdicts(fixture: &str) -> Vec<(u64, String)> {
    let repo = two_commit_repo(fixture);
    let report = blast_json(repo.path());
    verdicts_in(&direct_verdicts(&report), "src/use.ts")
}

/// The verdicts of `got` (see [`direct_verdicts`]) at call sites in `file`, by line.
fn verdicts_in(got: &[(String, u64, String, String)], file: &str) -> Vec<(u64, String)> {
    got.iter()
        .filter(|(f, ..)| f == file)
        .map(|(_, line, verdict, reason)| (*line, format!("{verdict}: {reason}")))
        .collect()
}

/// Each verdict is on the expected line and starts with the expected text.
fn assert_verdicts_start_with(got: &[(u64, String)], expected: &[(u64, impl AsRef<str>)]) {
    assert_eq!(got.len(), expected.len(), "{got:#?}");
    for ((line, said), (want_line, want)) in got.iter().zip(expected) {
        assert!(
            line == want_line && said.starts_with(want.as_ref()),
            "{got:#?}"
        );
    }
}

/// Each untouched caller is judged against its callee's new contract (issue 44): a
/// required parameter added breaks the calls that do not pass it, a parameter removed
/// before later arguments shifts them, async and spreads are checks, and a body-only
/// change is fine.
#[test]
fn callers_are_judged_against_the_new_contract() {
    let repo = two_commit_repo("blast/verdicts");
    let report = blast_json(repo.path());
    let got = direct_verdicts(&report);
    let got: Vec<(String, String, String)> = got
        .into_iter()
        .map(|(f, l, v, r)| (format!("{f}:{l}"), v, r))
        .collect();
    let verdicts: Vec<(&str, &str)> = got
        .iter()
        .map(|(s, v, _)| (s.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        verdicts,
        vec![
            ("src/checkout.js:4", "breaks"),
            ("src/checkout.js:5", "fine"),
            ("src/checkout.js:7", "check"),
            ("src/checkout.js:8", "fine"),
            ("src/checkout.js:12", "check"),
            ("src/checkout.js:13", "fine"),
            ("src/checkout.js:14", "fine"),
            ("src/checkout.js:15", "breaks"),
            ("src/checkout.js:16", "fine"),
            ("src/checkout.js:17", "check"),
            ("src/pay.ts:4", "breaks"),
        ],
        "{got:#?}"
    );
    let reason = |site: &str| got.iter().find(|(s, _, _)| s == site).unwrap().2.clone();
    assert_eq!(
        reason("src/checkout.js:4"),
        "passes 2 arguments; `charge` now requires 3 (`card` not passed)"
    );
    assert!(reason("src/checkout.js:15").contains("`by` (parameter 2) was removed"));
    // `move(1)` passed fewer than the three the old `move` required: no new break.
    assert_eq!(
        reason("src/checkout.js:16"),
        "passes 1 argument, fewer than `move` requires, as it did before this change"
    );
    assert!(reason("src/checkout.js:12").contains("does not await it"));
    assert!(reason("src/checkout.js:17").contains("uses its result without `await`"));
    assert_eq!(
        reason("src/checkout.js:8"),
        "only the body changed: the contract is the same"
    );

    // The comment opens with what breaks, and each such line says why.
    let markdown = run_ok(&[
        "blast",
        "--repo",
        repo.path().to_str().unwrap(),
        "--base",
        "HEAD~1",
        "--head",
        "HEAD",
    ]);
    let first = markdown
        .lines()
        .find(|l| !l.is_empty() && !l.starts_with("<!--") && !l.starts_with('#'))
        .unwrap();
    assert_eq!(
        first,
        "**3** untouched call sites **break** with this change: `src/checkout.js:4`, \
         `src/checkout.js:15`, `src/pay.ts:4`."
    );
    assert!(
        markdown.contains("**breaks**: ``passes 2 arguments; `charge` now requires 3"),
        "{markdown}"
    );
}

/// Every verdict, in JavaScript and in TypeScript (`fixtures/blast/contracts`): each
/// line of `checkout.js` and `use.ts` calls a function of `billing.js` or `api.ts`
/// changed in one way. The TypeScript side's `breaks` are the sites where `tsc`
/// reports an error on the head commit, and no others.
#[test]
fn every_verdict_in_javascript_and_typescript() {
    let repo = two_commit_repo("blast/contracts");
    let report = blast_json(repo.path());
    let got = direct_verdicts(&report);
    // The same call on the same line of either file, and its verdict.
    let expected: [(u64, &str, &str); 19] = [
        (
            4,
            "breaks",
            "passes 2 arguments; `{charge}` now requires 3 (`card` not passed)",
        ),
        (
            5,
            "fine",
            "passes 3 arguments, as the new signature of `{charge}` takes",
        ),
        (6, "check", "passes a spread"),
        (7, "breaks", "passes 3 arguments; "), // per language, below
        (8, "fine", "passes 1 argument"),      // a defaulted parameter added
        (9, "fine", "passes 1 argument"),      // a rest parameter added
        (
            10,
            "breaks",
            "the object passed as argument 1 lacks `currency`, which `{pay}` now requires",
        ),
        (11, "fine", "passes 1 argument"), // already passes the new key
        (
            12,
            "check",
            "the object passed as argument 1 must now hold `currency`",
        ),
        (13, "breaks", ""), // per language, below
        (14, "fine", "passes 1 argument"),
        (
            15,
            "breaks",
            "reads `.name` from the result of `{load}`, which is now a promise (not awaited)",
        ),
        (
            16,
            "breaks",
            "reads `.name` from the result of `{load}`, which is now a promise (not awaited)",
        ),
        (17, "fine", "passes 1 argument"), // awaited
        (
            18,
            "check",
            "`{load}` is now async, and this call does not await it",
        ),
        (
            19,
            "breaks",
            "reads `.name` from the result of `{user}`, which no longer returns it",
        ),
        (20, "fine", "only the body changed"), // reads a member still returned
        (
            21,
            "check",
            "`{user}` no longer returns `name`, and this call uses its result",
        ),
        (
            22,
            "fine",
            "only the body changed: the contract is the same",
        ),
    ];
    for (file, suffix) in [("src/checkout.js", ""), ("src/use.ts", "Ts")] {
        let sites: Vec<&(String, u64, String, String)> =
            got.iter().filter(|(f, ..)| f == file).collect();
        assert_eq!(sites.len(), expected.len(), "{file}: {sites:#?}");
        for ((_, line, verdict, reason), (want_line, want_verdict, want_reason)) in
            sites.iter().zip(expected)
        {
            let want_reason = want_reason
                .replace("{charge}", &format!("charge{suffix}"))
                .replace("{pay}", &format!("pay{suffix}"))
                .replace("{load}", &format!("load{suffix}"))
                .replace("{user}", &format!("user{suffix}"));
            assert_eq!(
                (*line, verdict.as_str()),
                (want_line, want_verdict),
                "{file}:{line}: {reason}"
            );
            assert!(
                reason.contains(&want_reason),
                "{file}:{line}: {reason:?} lacks {want_reason:?}"
            );
        }
    }
    let reason = |file: &str, line: u64| {
        got.iter()
            .find(|(f, l, ..)| f == file && *l == line)
            .map(|(.., r)| r.clone())
            .unwrap()
    };
    // JavaScript: a key JSDoc's `message.subject` now requires; TypeScript: a key the
    // stated object type no longer has, in an object literal (an excess property).
    assert_eq!(
        reason("src/checkout.js", 13),
        "the object passed as argument 1 lacks `subject`, which `notify` now requires"
    );
    // A parameter removed in the middle: JavaScript's arguments shift; TypeScript's
    // compiler rejects the count.
    assert!(reason("src/checkout.js", 7)
        .contains("`by` (parameter 2) was removed, so the arguments after it shift"));
    assert_eq!(
        reason("src/use.ts", 7),
        "passes 3 arguments; `moveTs` now takes at most 2"
    );
    assert_eq!(
        reason("src/use.ts", 13),
        "the object passed as argument 1 holds `height`, which `sizeTs` no longer takes"
    );
}

/// TypeScript: a parameter removed or two swapped, or a stated type changed, breaks a
/// call where an argument is known to be of a kind the parameter it now lands on does
/// not take: by its syntax (`'abc'`, `3`, `2 * n`), or a name or a field whose
/// declaration in the file states its type or initial value (`name: string`, `const
/// count = 3`, `#cek: Uint8Array`, a function declared there), innermost declaration
/// first; a `string` is no string of a union of literals (`'a' | 'b'`), a literal may
/// be. A name stated to be an interface of another file (`key: Key`) is an object;
/// one typed `any` is a check. `tsc --strict` on the fixture's head reports TS2345 or
/// TS2559 on exactly the lines said to break here.
#[test]
fn typescript_arguments_that_no_longer_fit_their_parameters_break() {
    let repo = two_commit_repo("blast/argument-types");
    let report = blast_json(repo.path());
    let got: Vec<(String, u64, String, String)> = direct_verdicts(&report);
    let breaks =
        |file: &'static str, line: u64, reason: &'static str| (file, line, "breaks", reason);
    let check = |file: &'static str, line: u64, reason: &'static str| (file, line, "check", reason);
    let expected = [
        breaks(
            "src/more.ts",
            10,
            "passes a number as argument 1, where `scale` now takes `factor`",
        ),
        breaks(
            "src/more.ts",
            12,
            "passes a number as argument 1, where `repeat` now takes `text`",
        ),
        breaks(
            "src/more.ts",
            13,
            "passes a number as argument 1, where `scale` now takes `factor`",
        ),
        breaks(
            "src/more.ts",
            14,
            "passes an object as argument 1, where `wrap` now takes `label`",
        ),
        breaks(
            "src/more.ts",
            15,
            "passes an object as argument 1, where `wrap` now takes `label`",
        ),
        breaks(
            "src/more.ts",
            16,
            "passes a function as argument 1, where `wrap` now takes `label`",
        ),
        breaks(
            "src/more.ts",
            17,
            "passes a string as argument 1, where `pad` now takes `width`",
        ),
        breaks(
            "src/more.ts",
            18,
            "passes a boolean as argument 1, where `wrap` now takes `label`",
        ),
        breaks(
            "src/more.ts",
            19,
            "passes a string as argument 1, where `frame` now takes `options`",
        ),
        breaks(
            "src/more.ts",
            20,
            "passes a string as argument 1, where `frame` now takes `options`",
        ),
        check(
            "src/more.ts",
            21,
            "`sep` (parameter 1) was removed, so the arguments after it shift",
        ),
        breaks(
            "src/more.ts",
            23,
            "passes a string as argument 2, where `tone` now takes `mode`",
        ),
        check(
            "src/more.ts",
            24,
            "the parameters `mode`, `text` of `tone` changed places",
        ),
        breaks(
            "src/use.ts",
            5,
            "passes a string as argument 1, where `pad` now takes `width`",
        ),
        breaks(
            "src/use.ts",
            6,
            "passes a string as argument 1, where `pad` now takes `width`",
        ),
        breaks(
            "src/use.ts",
            7,
            "passes a number as argument 1, where `repeat` now takes `text`",
        ),
        breaks(
            "src/use.ts",
            8,
            "passes a number as argument 1, where `repeat` now takes `text`",
        ),
        breaks(
            "src/use.ts",
            9,
            "passes a number as argument 1, where `wrap` now takes `label`",
        ),
        check(
            "src/use.ts",
            10,
            "the parameters `value`, `label` of `wrap` changed places",
        ),
        check(
            "src/use.ts",
            11,
            "`sep` (parameter 1) was removed, so the arguments after it shift",
        ),
        breaks(
            "src/use.ts",
            12,
            "passes a number or a bigint as argument 1, where `scale` now takes `factor`",
        ),
        breaks(
            "src/use.ts",
            13,
            "passes a number as argument 1, where `scale` now takes `factor`",
        ),
        check(
            "src/use.ts",
            14,
            "`text` (parameter 1) was removed, so the arguments after it shift",
        ),
    ];
    assert_eq!(got.len(), expected.len(), "{got:#?}");
    for ((file, line, verdict, reason), (want_file, want_line, want_verdict, want_reason)) in
        got.iter().zip(expected)
    {
        assert_eq!(
            (file.as_str(), *line, verdict.as_str()),
            (want_file, want_line, want_verdict),
            "{reason}"
        );
        assert!(
            reason.contains(want_reason),
            "{file}:{line}: {reason:?} lacks {want_reason:?}"
        );
    }
}

/// TypeScript: a type of another file of the repository counts, through the graph's
/// imports, on both sides of a call: a name stated to be an interface or a class
/// (`key: Key`) is an object, and a parameter stated as an options interface
/// (`options?: Options`) takes no string. An alias of a primitive is not followed (a
/// check). `tsc --strict` on the fixture's head reports TS2345 or TS2559 on exactly the
/// lines said to break here, and on line 7 (`alias: Alias`, a string).
#[test]
fn types_of_other_files_decide_what_an_argument_is_and_what_a_parameter_takes() {
    let repo = two_commit_repo("blast/named-types");
    let report = blast_json(repo.path());
    let got: Vec<(u64, String, String)> = direct_verdicts(&report)
        .into_iter()
        .filter(|(file, ..)| file == "src/use.ts")
        .map(|(_, line, verdict, reason)| (line, verdict, reason))
        .collect();
    let expected: [(u64, &str, &str); 5] = [
        (
            6,
            "breaks",
            "passes a string as argument 1, where `sign` now takes `options`",
        ),
        (
            7,
            "check",
            "`key` (parameter 1) was removed, so the arguments after it shift",
        ),
        (
            8,
            "breaks",
            "passes an object as argument 1, where `show` now takes `text`",
        ),
        (
            9,
            "breaks",
            "passes an object as argument 1, where `show` now takes `text`",
        ),
        (
            10,
            "check",
            "the parameters `value`, `text` of `show` changed places",
        ),
    ];
    assert_eq!(got.len(), expected.len(), "{got:#?}");
    for ((line, verdict, reason), (want_line, want_verdict, want_reason)) in
        got.iter().zip(expected)
    {
        assert_eq!(
            (*line, verdict.as_str()),
            (want_line, want_verdict),
            "{reason}"
        );
        assert!(
            reason.contains(want_reason),
            "{line}: {reason:?} lacks {want_reason:?}"
        );
    }
}

/// TypeScript: a namespace's member names a type as well as an import does
/// (`types.SignOptions`); an interface has the members of those it extends, so
/// `SignOptions extends CritOption {}` is a weak type a `Uint8Array` (a well-known
/// global's instance, whose members are known) does not fit, while `Sized`, which
/// names a `length`, may; a field stated as an interface, with or without
/// `| undefined`, holds an object, which a `string` parameter does not take. `tsc
/// --strict` on the fixture's head reports TS2345 or TS2559 on exactly the lines said
/// to break here.
#[test]
fn namespace_members_and_extended_interfaces_are_types_of_other_files_too() {
    let got = use_ts_verdicts("blast/namespace-types");
    let expected = [
        (
            10,
            "breaks: passes an object as argument 1, where `assertNotSet` now takes `name`",
        ),
        (
            11,
            "breaks: passes an object as argument 1, where `assertNotSet` now takes `name`",
        ),
        (
            13,
            "breaks: passes an object as argument 1, where `sign` now takes `options`",
        ),
        (
            14,
            "breaks: passes an object as argument 1, where `sign` now takes `options`",
        ),
        (15, "check: "),
        (16, "check: "),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A string literal that lands on a parameter whose stated type lists some strings
/// breaks when it is not one of them (a swap, a parameter removed); a function that
/// lands on `Partial<T>` or `Readonly<T>` of an options interface (of this file or
/// another) or on an intersection with one (`{ priority?: number } & JobOptions`)
/// breaks as it would on `T`. `tsc --strict` on the fixture's head reports lines 7, 8,
/// 10, 11 and 13 to 17; line 10 passes a name stated `unknown`, which the graph cannot
/// judge.
#[test]
fn literals_and_partial_types_are_judged_by_what_the_parameter_lists() {
    let got = use_ts_verdicts("blast/literal-types");
    let expected = [
        (
            7,
            "breaks: passes 'foo' as argument 2, where `checkKeyType` now takes `usage`",
        ),
        (
            8,
            "breaks: passes '' as argument 2, where `checkKeyType` now takes `usage`",
        ),
        (9, "check: "),
        (10, "check: "),
        (
            11,
            "breaks: passes 'a' as argument 1, where `setMode` now takes `mode`",
        ),
        (12, "check: "),
        (
            13,
            "breaks: passes a function as argument 1, where `enqueue` now takes `options`",
        ),
        (
            14,
            "breaks: passes a function as argument 1, where `enqueue` now takes `options`",
        ),
        (
            15,
            "breaks: passes a function as argument 1, where `schedule` now takes `options`",
        ),
        (
            16,
            "breaks: passes a function as argument 1, where `schedule` now takes `options`",
        ),
        (
            17,
            "breaks: passes a function as argument 1, where `limit` now takes `options`",
        ),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A function made async breaks the calls that pass its result to a parameter stated
/// as an interface of another file (`options: Partial<Options>`, `shared: Shared`,
/// `shared?: types.Shared`): a promise has none of their members. Passed to an
/// `unknown`, it is a check. An object literal that a swap moves onto a parameter of
/// an interface of another file breaks when it lacks a key the interface requires
/// (not for `Partial<T>`). `tsc --strict` on the fixture's head reports lines 6 to 8
/// and 10.
/// `null` and `undefined` passed where a parameter now lands that does not admit them
/// break where the caller's tsconfig turns on strict null checks, and only there: the
/// same calls under a config without them compile (`tsc` agrees on the fixture's
/// head, both configs). An optional parameter admits `undefined`, also one of another
/// file's interface.
#[test]
fn null_and_undefined_arguments_break_under_strict_null_checks_only() {
    let got = use_ts_verdicts("blast/null-arguments");
    let expected = [
        (
            5,
            "breaks: passes undefined as argument 1, where `open` now takes `mode`",
        ),
        (
            6,
            "breaks: passes null as argument 1, where `remove` now takes `name`",
        ),
        (7, "check: "),
        // Fits the optional parameter it now lands on, but its meaning shifted.
        (8, "check: "),
        (
            9,
            "breaks: passes null as argument 1, where `save` now takes `options`",
        ),
        (
            10,
            "breaks: passes undefined as argument 1, where `queue` now takes `options`",
        ),
        (11, "check: "),
        // Already rejected before (a type not read here may not have taken `null`).
        (12, "check: "),
        (
            13,
            "breaks: passes null as argument 1, where `tag` now takes `label`",
        ),
    ];
    assert_verdicts_start_with(&got, &expected);

    let repo = two_commit_repo("blast/null-arguments");
    let lax: Vec<(u64, String)> = direct_verdicts(&blast_json(repo.path()))
        .into_iter()
        .filter(|(file, ..)| file == "lax/use.ts")
        .map(|(_, line, verdict, _)| (line, verdict))
        .collect();
    assert_eq!(lax.len(), 9, "{lax:#?}");
    assert!(lax.iter().all(|(_, v)| v != "breaks"), "{lax:#?}");
}

/// A function passed by a name declared further down the file (hoisted) is a
/// function where it lands, as one declared above it is.
#[test]
fn functions_passed_before_their_declaration_are_functions() {
    let got = use_ts_verdicts("blast/hoisted-arguments");
    let expected = [
        (
            4,
            "breaks: passes a function as argument 1, where `purry` now takes `args`",
        ),
        (
            9,
            "breaks: passes a function as argument 1, where `purry` now takes `args`",
        ),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A call under `// @ts-expect-error` or `// @ts-ignore` gets no error from the
/// compiler: a check, with its reason, not a break. Such a comment inside a call over
/// several lines silences an error in the arguments under it (line 13's argument too
/// many), not one at the call's first line (line 9's missing argument).
/// `tsc` on the fixture's head reports lines 3, 8 and 9.
#[test]
fn calls_the_compiler_is_told_to_expect_an_error_at_are_checks() {
    let got = use_ts_verdicts("blast/expect-error");
    let short = "passes 1 argument; `charge` now requires 2 (`currency` not passed)";
    let silenced =
        "a `@ts-expect-error` or `@ts-ignore` comment above the call silences the compiler there";
    let inside =
        "a `@ts-expect-error` or `@ts-ignore` comment inside the call silences the compiler there";
    let expected = [
        (3, format!("breaks: {short}")),
        (5, format!("check: {short}; {silenced}")),
        (7, format!("check: {short}; {silenced}")),
        (8, format!("breaks: {short}")),
        (9, format!("breaks: {short}")),
        (
            13,
            format!("check: passes 3 arguments; `charge` now takes at most 2; {inside}"),
        ),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A method called on a union of classes (`r: Ok | Err`) is checked against one
/// signature made of all the members': one member's method taking fewer arguments
/// leaves the call fine with the compiler (`tsc` on the fixture's head reports line 8
/// only), so it is a check there and a break on a value of that class alone.
#[test]
fn too_many_arguments_for_one_member_of_a_union_is_a_check() {
    let got = use_ts_verdicts("blast/union-methods");
    let expected = [
        (
            4,
            "check: passes 1 argument; `mapErr` now takes at most 0, but the call reaches other definitions",
        ),
        (8, "breaks: passes 1 argument; `mapErr` now takes at most 0"),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A name of no stated type passed as an argument is what the graph evaluates it to:
/// a callback's parameter the callee's stated type makes a `Context`, or an instance
/// made in place, or a name stated to be of a class that extends nothing, is an
/// object no function type takes; a callback's parameter of an interface type is an
/// object, which no `string` takes; a name of type `any` may be anything. (`tsc` on
/// the fixture's head reports lines 3, 5, 9 and 10.)
#[test]
fn names_passed_as_arguments_are_what_the_graph_evaluates_them_to() {
    let got = use_ts_verdicts("blast/named-values");
    let shifted = "passes an object as argument 1, where `stream` now takes `cb`";
    let expected = [
        (3, format!("breaks: {shifted}")),
        (5, format!("breaks: {shifted}")),
        (7, "check: ".to_string()),
        (9, format!("breaks: {shifted}")),
        (
            10,
            "breaks: passes an object as argument 1, where `log` now takes `label`".to_string(),
        ),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A parameter's type imported from an index that re-exports it (`export *`, `export
/// { type Properties as Props } from`) is read where it is declared: an interface's
/// value is an object, which a `string` parameter does not take. (`tsc` on the
/// fixture's head reports line 5.)
#[test]
fn a_type_reexported_by_an_index_is_read_where_it_is_declared() {
    let got = use_ts_verdicts("blast/reexported-types");
    let expected = [(
        5,
        "breaks: passes an object as argument 2, where `encode` now takes `direction`",
    )];
    assert_verdicts_start_with(&got, &expected);
}

/// A result made a promise that is a property of an object literal passed where the
/// parameter's stated type says what that property is (an interface's member, found
/// through what it extends, and of a generic interface's type; the parameter of a
/// function type a constant is stated to be) breaks; a member of type `unknown` takes it. (`tsc` on the fixture's head
/// reports lines 4 and 5.)
#[test]
fn a_result_in_an_object_passed_to_a_typed_parameter_breaks_as_a_promise() {
    let got = use_ts_verdicts("blast/property-results");
    let member = "breaks: its result is a property of an object passed where the property's stated type a promise does not fit";
    let expected = [(4, member), (5, member), (6, "check: ")];
    assert_verdicts_start_with(&got, &expected);
}

/// A result made a promise that is a property of an object literal one level down in
/// the options (`{ validator: { defaultMessage: buildMessage() } }`) breaks where the
/// options' member is stated to be an interface whose member is a method (no object
/// literal is the union's `Function`); a member of type `unknown`, or one of a type
/// not read (`Record<...>`), takes it or does not say. (`tsc` on the fixture's head
/// reports line 3.)
#[test]
fn a_result_in_an_object_nested_in_the_options_breaks_as_a_promise() {
    let got = use_ts_verdicts("blast/nested-properties");
    let member = "breaks: its result is a property of an object passed where the property's stated type a promise does not fit";
    let expected = [(3, member), (4, "check: "), (5, "check: ")];
    assert_verdicts_start_with(&got, &expected);
}

/// A result made a promise that is a property of an object literal passed where a
/// `Record` of a class is stated (`object({ name: string() })`, through a type
/// parameter's constraint and an alias imported from another file) breaks: every
/// member of such an object is an instance of the class. A `Record` of `unknown`
/// takes it. (`tsc` on the fixture's head reports lines 3 and 5.)
#[test]
fn a_result_in_an_object_passed_as_a_record_of_a_class_breaks_as_a_promise() {
    let got = use_ts_verdicts("blast/record-members");
    let member = "breaks: its result is a property of an object passed where the property's stated type a promise does not fit";
    let expected = [(3, member), (3, member), (5, member), (7, "check: ")];
    assert_verdicts_start_with(&got, &expected);
}

/// A call through a `let` declared with neither a type nor a value, read in another
/// function than its own (`let store;` set in a setup function, used in a test): the
/// compiler reads `store` as `any` and checks nothing of the call, so a change that
/// breaks the call elsewhere is `check` there; so is a call on an object cast to `any`. A name whose value the compiler types
/// `any` (`{ id: 3 } as any`, `Object.create(null)`) is no object to it, whatever
/// members are assigned to it. (`tsc` on the fixture's head reports lines 11 and 15.)
#[test]
fn calls_and_names_the_compiler_reads_as_any_are_not_breaks() {
    let got = use_ts_verdicts("blast/any-receivers");
    let expected = [
        (
            8,
            "check: passes 2 arguments; `resolve` now takes at most 1; the compiler reads the callee's object as `any` here",
        ),
        (11, "breaks: passes 2 arguments; `resolve` now takes at most 1"),
        (15, "breaks: passes an object as argument 1, where `label` now takes `field`"),
        (16, "check: "),
        (17, "check: "),
        (
            18,
            "check: passes 2 arguments; `resolve` now takes at most 1; the compiler reads the callee's object as `any` here",
        ),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A result made a promise that an arrow function passed as an argument returns
/// breaks where the parameter's stated function type (written in place, or an alias
/// of one) returns a class's instance; where it returns `unknown`, it takes it.
/// (`tsc` on the fixture's head reports lines 4 and 6.)
#[test]
fn a_result_returned_by_a_callback_of_a_stated_type_breaks_as_a_promise() {
    let got = use_ts_verdicts("blast/callback-results");
    let returned =
        "breaks: its result is returned by a callback whose stated result a promise does not fit";
    let expected = [(4, returned), (5, "check: "), (6, returned)];
    assert_verdicts_start_with(&got, &expected);
}

/// A rest parameter of a generic alias's elements (`...middleware:
/// Array<GameQueryMiddleware<C>>`, the alias of a union of an alias of a function type
/// and an interface, all in the method's file; `...middleware: MiddlewareFn<Context>[]`,
/// imported) takes no string and no array: the first parameter removed, the trigger
/// passed lands there and breaks. An alias whose union holds its own type parameter
/// (`Either<T> = T | string`) says nothing without its argument. (`tsc` on the
/// fixture's head reports lines 5 to 7.)
#[test]
fn a_rest_parameter_of_generic_aliases_takes_what_they_take() {
    let got = use_ts_verdicts("blast/generic-aliases");
    let expected = [
        (
            5,
            "breaks: passes a string as argument 1, where `gameQuery` now takes `...middleware`",
        ),
        (
            6,
            "breaks: passes an array as argument 1, where `gameQuery` now takes `...middleware`",
        ),
        (
            7,
            "breaks: passes a string as argument 1, where `game` now takes `...middleware`",
        ),
        (8, "check: "),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// An argument that is a call of the platform's says its kind of value by the
/// platform's types (`String(x)`, `JSON.stringify(x)`, a string's or an array's
/// method on a value known to be one): swapped onto a `number`, or an array onto an
/// options object all of whose keys are optional (a weak type), the call breaks.
/// (`tsc` on the fixture's head reports every line from 5 to 12.)
#[test]
fn platform_calls_passed_as_arguments_say_their_kind() {
    let got = use_ts_verdicts("blast/platform-results");
    let swapped = "breaks: passes a string as argument 1, where `label` now takes `count`";
    let array = "breaks: passes an array as argument 1, where `parse` now takes";
    let expected = [
        (5, swapped),
        (6, swapped),
        (7, swapped),
        (8, swapped),
        // `x.y()` says nothing; the `2` after it lands on a `string`.
        (
            9,
            "breaks: passes a number as argument 2, where `label` now takes `name`",
        ),
        (10, array),
        // A `string[]` parameter may hold an instance of a subclass of Array, which
        // may have a `run`.
        (11, "check: "),
        // `Infinity` is a number.
        (
            12,
            "breaks: passes a number as argument 2, where `label` now takes `name`",
        ),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A parameter removed before a function passed in its place: the function now lands
/// on an options object all of whose members are optional (a weak type), with which it
/// has no property in common, though one of them is named as a function's (`name`):
/// the call breaks (TS2559). Where the type requires only what every function has
/// (`name: string`), the function fits it. (`tsc` on the fixture's head reports lines
/// 3 and 4.)
#[test]
fn a_function_shifted_onto_an_options_bag_breaks() {
    let got = use_ts_verdicts("blast/weak-types");
    let expected = [
        (
            3,
            "breaks: passes a function as argument 1, where `computed` now takes `options`",
        ),
        (
            4,
            "breaks: passes 2 arguments; `computed` now takes at most 1",
        ),
        (5, "check: "),
        (6, "check: "),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A `@ts-expect-error` silences what is reported on the line under it: above a member
/// read of the result, the read's error, not one in the arguments on the call's first
/// line; above an argument, that argument's (`tsc` on the fixture's head reports line
/// 3 only).
#[test]
fn a_comment_inside_a_call_silences_the_part_under_it() {
    let got = use_ts_verdicts("blast/silenced-parts");
    let short = "passes 2 arguments; `pick` now takes at most 1";
    let expected = [
        (3, format!("breaks: {short}")),
        (6, format!("check: {short}; a `@ts-expect-error` or `@ts-ignore` comment inside the call silences the compiler there")),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A call through a name stated to be of a function type (`export const shift: (o?:
/// O) => M = shiftCore`, an alias of one, an interface of call signatures) is checked
/// by the compiler against that type, not against the function it was given: where
/// the function now takes more, the compiler reports the declaration, not the call,
/// and the call is a check. A name given the function without a type is the function
/// (`tsc` on the fixture's head reports line 6 of `use.ts` only).
#[test]
fn a_call_through_a_stated_function_type_is_a_check() {
    let got = use_ts_verdicts("blast/stated-aliases");
    let through = |name: &str| {
        format!("; the call goes through `{name}`, whose stated type the compiler checks it against instead")
    };
    let shift = "passes 0 arguments; `shift` now requires 1 (`options` not passed)";
    let place = "passes 1 argument; `place` now requires 2 (`by` not passed)";
    let expected = [
        (3, format!("check: {shift}{}", through("shift"))),
        (4, format!("check: {place}{}", through("place"))),
        (5, format!("check: {place}{}", through("produce"))),
        (6, format!("breaks: {place}")),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// `place.call(self, 1)` passes `self` as `this` and 1 as `at`: counted from its second
/// argument, it misses the new `by` as `place(1)` does. `place.apply(self, [1])`
/// passes an array's elements, which the count does not see: a check. (`tsc` on the
/// fixture's head reports lines 3 to 6.)
#[test]
fn a_call_through_call_or_apply_counts_from_its_second_argument() {
    let got = use_ts_verdicts("blast/call-apply");
    let short = "breaks: passes 1 argument; `place` now requires 2 (`by` not passed)";
    let expected = [(3, short), (4, short), (5, "check: "), (6, short)];
    assert_verdicts_start_with(&got, &expected);
}

/// A parameter of type `T`, `T extends Schema`, takes only what is a `Schema`: with
/// the parameters swapped, an array, a number or a string passed there breaks (`tsc` on
/// the fixture's head reports lines 3, 4 and 6), through a second type parameter
/// bounded by the first too; `T extends string` still takes a string (line 5). A
/// promise passed there breaks as well (line 7, `build` made async).
#[test]
fn a_type_parameter_takes_what_its_constraint_does() {
    let got = use_ts_verdicts("blast/bounded-generics");
    let broken = |line: u64| {
        got.iter()
            .any(|(l, said)| *l == line && said.starts_with("breaks"))
    };
    assert!(broken(3) && broken(4) && broken(6) && broken(7), "{got:#?}");
    assert!(!broken(5), "{got:#?}");
}

/// A class method that now requires more, called through the interface the class
/// implements (a name of that type, or a type parameter bounded by it): the compiler
/// checks the call against the interface, and reports the class instead (`tsc` on the
/// fixture's head reports line 4 of `use.ts` only, the class's own instance).
#[test]
fn a_call_through_an_implemented_interface_is_checked_against_it() {
    let got = use_ts_verdicts("blast/interface-calls");
    let through = "check: passes 2 arguments; `once` now requires 3 (`times` not passed); the call goes through `SocketLike.once`";
    let expected = [
        (3, through),
        (4, "breaks: passes 2 arguments; `once` now requires 3"),
        (6, through),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A decorator's call is a call: too few arguments break it, and a decorator factory
/// made async hands the class a promise, which is no decorator (`tsc` on the
/// fixture's head reports lines 4, 7 and 10; line 10's spread is not counted here).
#[test]
fn a_decorators_call_is_judged_as_a_call() {
    let got = use_ts_verdicts("blast/decorators");
    let expected = [
        (
            4,
            "breaks: passes 2 arguments; `Length` now requires 3 (`strict` not passed)",
        ),
        (
            7,
            "breaks: its result is applied as a decorator, and `Trim` now returns a promise",
        ),
        (10, "check: passes a spread"),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A type the file imports is that type, though a global bears its name (`Response`):
/// an object literal now passed where a `Response` is stated lacks its keys (`tsc`
/// on the fixture's head reports both lines).
#[test]
fn an_imported_type_is_not_the_global_of_its_name() {
    let got = use_ts_verdicts("blast/shadowed-globals");
    let expected = [
        (2, "breaks: the object passed as argument 1 lacks `id`, `status`, which `accumulate` now requires (`snapshot`)"),
        (3, "breaks: passes 2 arguments; `accumulate` now takes at most 1"),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A type imported as another file's default export (`import type Reference from
/// './Reference'`) is read there: a promise fits neither a `number` nor a `Reference`,
/// a class that requires `getValue`, which no string or array has, though they have
/// its `toString` (`tsc` on the fixture's head reports both lines).
#[test]
fn a_default_imported_type_is_read_where_it_is_declared() {
    let got = use_ts_verdicts("blast/default-types");
    let passed =
        "breaks: its result is passed to a parameter whose stated type a promise does not fit";
    assert_verdicts_start_with(&got, &[(4, passed), (5, passed)]);
}

/// An object literal now landing on a parameter of a stated object type holds a key
/// the type does not declare: the compiler rejects it (`tsc` on the fixture's head
/// reports lines 2 and 3); an empty object type `{}` takes any (line 4), and so does a
/// type parameter bounded by an object type, inferred from the literal (line 5).
#[test]
fn an_object_literal_with_keys_the_new_parameter_lacks_breaks() {
    let got = use_ts_verdicts("blast/excess-keys");
    let broken = |line: u64| {
        got.iter()
            .any(|(l, said)| *l == line && said.starts_with("breaks"))
    };
    assert!(broken(2) && broken(3), "{got:#?}");
    assert!(!broken(4) && !broken(5), "{got:#?}");
    let (_, reason) = got.iter().find(|(l, _)| *l == 2).unwrap();
    assert!(
        reason.contains("holds `path`, which `build` does not take there"),
        "{got:#?}"
    );
}

/// An interface that extends what is not read here (`Omit<BaseSchema, 'type'>`) still
/// requires its own members, which a promise lacks, whatever type arguments it is
/// given (`BaseSchema<Issue>`): `tsc` on the fixture's head reports line 2; line 3
/// casts the promise away.
#[test]
fn an_interfaces_own_members_count_when_its_bases_are_not_known() {
    let got = use_ts_verdicts("blast/partial-bases");
    let broken = |line: u64| {
        got.iter()
            .any(|(l, said)| *l == line && said.starts_with("breaks"))
    };
    assert!(broken(2) && !broken(3), "{got:#?}");
}

/// A name holding an awaited call's result is what the callee states its promise
/// holds (`Promise<CryptoKey | Uint8Array>`): passed where an options bag now is, it
/// breaks (`tsc` on the fixture's head reports line 4); of `Promise<any>`, not known.
#[test]
fn a_name_holding_an_awaited_result_is_what_the_promise_holds() {
    let got = use_ts_verdicts("blast/awaited-names");
    let broken = |line: u64| {
        got.iter()
            .any(|(l, said)| *l == line && said.starts_with("breaks"))
    };
    assert!(broken(4) && !broken(6), "{got:#?}");
}

/// A result passed to one of the platform's functions or classes whose parameter a
/// promise does not fit (`fetch`, `JSON.parse`, `parseInt`, `new Date`) breaks (`tsc`
/// on the fixture's head reports lines 3 to 6); `console.log` and `String` take any.
#[test]
fn a_result_passed_to_a_platform_function_is_checked_against_it() {
    let got = use_ts_verdicts("blast/platform-calls");
    let passed =
        "breaks: its result is passed to a parameter whose stated type a promise does not fit";
    let expected = [
        (3, passed),
        (4, passed),
        (5, passed),
        (6, passed),
        (7, "check: "),
        (8, "check: "),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// `new Resp(body, normalize(init))`: the class's constructor states what its
/// arguments must be, as a function's parameters do; a promise fits neither an `Init`
/// nor a `Request` member of an options object (`tsc` on the fixture's head reports
/// lines 3 and 4).
#[test]
fn a_constructor_states_what_its_arguments_must_be() {
    let got = use_ts_verdicts("blast/constructor-arguments");
    let expected = [
        (3, "breaks: its result is passed to a parameter whose stated type a promise does not fit"),
        (4, "breaks: its result is a property of an object passed where the property's stated type a promise does not fit"),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A call the graph is not sure reaches the changed function (a name matched on a
/// value of type `any`: a likely edge) is a check where it would break, saying so;
/// `tsc` on the fixture's head reports line 4 only.
#[test]
fn a_call_the_graph_is_unsure_of_is_a_check() {
    let got = use_ts_verdicts("blast/unsure-edges");
    let short = "passes 1 argument; `charge` now requires 2 (`currency` not passed)";
    let expected = [
        (4, format!("breaks: {short}")),
        (
            8,
            format!(
                "check: {short}; the graph is not sure this call reaches `charge` (likely edge)"
            ),
        ),
    ];
    assert_verdicts_start_with(&got, &expected);
}

#[test]
fn parameters_stated_as_interfaces_of_other_files_are_read_there() {
    let got = use_ts_verdicts("blast/named-params");
    let passed = "its result is passed to a parameter whose stated type a promise does not fit";
    let expected = [
        (6, format!("breaks: {passed}")),
        (7, format!("breaks: {passed}")),
        (8, format!("breaks: {passed}")),
        (9, "check: ".to_string()),
        (
            10,
            "breaks: the object passed as argument 1 lacks `alg`, which `check` now requires (`entry`)"
                .to_string(),
        ),
        (11, "check: ".to_string()),
        (12, "check: ".to_string()),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// Places whose type the file states, read where the extraction meets them: a
/// property of an object returned by a function stated to return an interface of the
/// file (`user: string`: a promise does not fit; `note: unknown`: it does), a branch of
/// a conditional passed to a parameter stated as an alias of the file (`a: Label`),
/// and a global function passed as a value (`tag(Boolean)`) that a removed parameter
/// moves onto a union of strings. `tsc --strict` on the fixture's head reports lines 15
/// and 21 (twice).
#[test]
fn places_typed_by_the_file_are_read_where_a_result_or_a_value_lands() {
    let got = use_ts_verdicts("blast/typed-places");
    let expected = [
        (15, "breaks: its result goes where a type is stated"),
        (16, "check: "),
        (
            21,
            "breaks: its result is passed to a parameter whose stated type a promise does not fit",
        ),
        (
            21,
            "breaks: passes a function as argument 1, where `tag` now takes `kind`",
        ),
    ];
    assert_verdicts_start_with(&got, &expected);
}

/// A function made async breaks the calls that iterate its result or test it as a
/// condition, in JavaScript and TypeScript, and in TypeScript those that assign it (the
/// place has a type); a result kept in a new name is a check. `tsc --strict` on the
/// fixture's head reports exactly the TypeScript side's breaks.
#[test]
fn a_result_that_became_a_promise_breaks_where_a_promise_does_not_do() {
    let repo = two_commit_repo("blast/async-uses");
    let report = blast_json(repo.path());
    let got = direct_verdicts(&report);
    for (file, assigned) in [
        (
            "src/use.ts",
            "breaks: its result is assigned where a type holds",
        ),
        (
            "src/use.js",
            "check: `load` is now async, and this call uses its result",
        ),
    ] {
        let sites: Vec<(u64, String)> = got
            .iter()
            .filter(|(f, ..)| f == file)
            .map(|(_, line, verdict, reason)| (*line, format!("{verdict}: {reason}")))
            .collect();
        let expected = [
            (4, assigned),
            (6, "breaks: its result is iterated"),
            (7, "breaks: its result is iterated"),
            (8, "breaks: its result is tested as a condition"),
            (9, "breaks: its result is iterated"),
            (9, "breaks: its result is tested as a condition"),
            (
                10,
                "check: `load` is now async, and this call uses its result",
            ),
        ];
        assert_eq!(sites.len(), expected.len(), "{file}: {sites:#?}");
        for (line, prefix) in expected {
            assert!(
                sites
                    .iter()
                    .any(|(l, s)| *l == line && s.starts_with(prefix)),
                "{file}:{line}: no {prefix:?} in {sites:#?}"
            );
        }
    }
    // Passed to a parameter whose stated type a promise does not fit, in this file or
    // another (`shout` is `text.ts`'s); a parameter of type `unknown` takes a promise.
    let passed = verdicts_in(&got, "src/pass.ts");
    let promise =
        "breaks: its result is passed to a parameter whose stated type a promise does not fit";
    // A promise has `then`, `catch` and `finally` only: a well-known global class
    // (`Date`), an element of a rest parameter and an object type that names none of
    // them (a weak type: TS2559) do not take it; a union with a promise does.
    let expected = [
        (13, promise),
        (14, promise),
        (15, "check: "),
        (36, promise),
        (37, promise),
        (38, promise),
        (39, "check: "),
    ];
    assert_verdicts_start_with(&passed, &expected);
    // Passed to parameters stated by another file's names: a generic alias of a
    // function type (in a union with `string`, or as a rest parameter's elements, of
    // a property's implementation assigned in the constructor), a union of such
    // aliases; an alias whose type argument decides its kinds (`any` here) may take it.
    let mounted = verdicts_in(&got, "src/mount.ts");
    let expected = [(5, promise), (6, promise), (7, promise), (8, "check: ")];
    assert_verdicts_start_with(&mounted, &expected);
    // Assigned to a name whose type its declaration took from the same call (a
    // promise now too), or `Object.prototype`'s member read: the compiler is content;
    // assigned to a name declared a string, or to a parameter of a type: not.
    let assigned = verdicts_in(&got, "src/assign.ts");
    let expected = [
        (4, "check: "),
        (5, "check: "),
        (7, "breaks: its result is assigned where a type holds"),
        (8, "check: "),
        // A parameter's type is its own.
        (13, "breaks: its result is assigned where a type holds"),
        // An element of an array of `unknown`, or of a value narrowed to an array:
        // whatever it holds, not known here.
        (19, "check: "),
        (20, "check: "),
        // A name or parameter stated `any` or `unknown` takes a promise too.
        (26, "check: "),
        (28, "check: "),
        (29, "check: "),
        // A `let` that takes its value from a name stated `any`, or from one typed by
        // the same call, takes its type from it: a promise fits; from a `string`, not.
        (35, "check: "),
        (36, "check: "),
        (38, "check: "),
        (41, "breaks: its result is assigned where a type holds"),
        // A callback's parameter of no stated type takes its type from the context
        // (`{}`, the initial value's, here).
        (47, "check: "),
        // A member of `this` in a method of an object literal cast `as any` (`this`
        // is `any`), or of a class's instance (the field's type).
        (57, "check: "),
        (65, "breaks: its result is assigned where a type holds"),
        // A field typed by the same call's result (a promise now too).
        (70, "check: "),
        (72, "check: "),
    ];
    assert_verdicts_start_with(&assigned, &expected);
    // Tested as a condition (an `if`'s through `||` and `&&`, a `?:`'s, the left of any
    // `&&`), or an operand of arithmetic or of a comparison with a primitive: `tsc`
    // reports lines 4 to 7, 10 to 12 and 17 (and 15, where `n` is a `number` not known
    // here); a `||` outside a condition, `!`, a `+` with a string, a comparison with
    // `null` and the left of a `||` inside a `?:`'s condition's `&&` it does not.
    let tested = "breaks: its result is tested as a condition";
    let operand = "breaks: its result is an operand of arithmetic or of a comparison";
    let expected = [
        (4, tested),
        (5, tested),
        (6, tested),
        (7, tested),
        (8, "check: "),
        (9, "check: "),
        (10, operand),
        (11, operand),
        (12, operand),
        (13, "check: "),
        (14, "check: "),
        (15, "check: "),
        (16, "check: "),
        (17, tested),
    ];
    assert_verdicts_start_with(&verdicts_in(&got, "src/conditions.ts"), &expected);
    // Passed to a generic interface of the file, or a generic alias of an object type
    // of another: what kinds of value they take does not depend on their arguments
    // (`tsc` reports both).
    let expected = [(13, promise), (14, promise)];
    assert_verdicts_start_with(&verdicts_in(&got, "src/generic.ts"), &expected);
    // An element of an array literal passed where the parameter's stated type is an
    // array (`T[]` or `Array<T>`) of what a promise is not (`tsc` reports 16, 17, 19
    // and 20); of `unknown`, it fits.
    let expected = [
        (16, promise),
        (17, promise),
        (18, "check: "),
        (19, promise),
        (20, promise),
    ];
    assert_verdicts_start_with(&verdicts_in(&got, "src/elements.ts"), &expected);
    // An element of an array returned where the stated return type is an array or a
    // tuple (a named member's too) of a type a promise is not (`tsc` reports 4, 7 and
    // 13); of `unknown`, it fits. So does an arrow function's expression body, a
    // conditional's branch too (`tsc` reports 15 and 16), unless the type is `unknown`
    // or not stated.
    let stated = "breaks: its result goes where a type is stated";
    let expected = [
        (4, stated),
        (7, stated),
        (10, "check: "),
        (13, stated),
        (15, stated),
        (16, stated),
        (17, "check: "),
        (18, "check: "),
    ];
    assert_verdicts_start_with(&verdicts_in(&got, "src/returns.ts"), &expected);
    // A member read from the result on a line of its own that a `@ts-expect-error`
    // governs: the compiler reports nothing there (`tsc` reports 3 and 8).
    let read = "breaks: reads `.amount` from the result of `wallet`, which is now a promise";
    let expected = [(3, read), (4, "check: "), (7, read)];
    assert_verdicts_start_with(&verdicts_in(&got, "src/reads.ts"), &expected);
}

/// A function still defined but no longer exported (or exported under another name)
/// breaks the other modules that import it, and only those: its own module still calls
/// it. In JavaScript and in TypeScript.
#[test]
fn a_function_no_longer_exported_breaks_its_importers() {
    let repo = two_commit_repo("blast/unexported");
    let report = blast_json(repo.path());
    let changed: Vec<(&str, &str)> = report["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["change"].as_str().unwrap()))
        .collect();
    // JavaScript's `export` dropped; TypeScript's `total` exported as `sum` instead.
    assert_eq!(changed, [("f", "unexported"), ("total", "unexported")]);
    let mut callers: Vec<(String, u64, String)> = report["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["file"].as_str().unwrap().to_string(),
                c["line"].as_u64().unwrap(),
                c["verdict"].as_str().unwrap_or("none").to_string(),
            )
        })
        .collect();
    callers.sort();
    assert_eq!(
        callers,
        [
            ("src/lib.js".to_string(), 6, "fine".to_string()),
            ("src/report.ts".to_string(), 3, "breaks".to_string()),
            ("src/use.js".to_string(), 4, "breaks".to_string()),
        ]
    );
}
