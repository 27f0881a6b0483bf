use super::*;
use crate::escape::MAX_NAME_CHARS;
use crate::indexer::facts::{CallKind, DefKind};

const LIMIT: usize = 60_000;

fn changed(
    file: &str,
    qualified: &str,
    kind: DefKind,
    line: u32,
    change: Change,
) -> ChangedFunction {
    ChangedFunction {
        file: file.into(),
        name: qualified.rsplit('.').next().unwrap_or(qualified).into(),
        qualified_name: qualified.into(),
        kind,
        line,
        end_line: line + 4,
        change,
        renamed_from: None,
    }
}

/// A direct, exact, untouched call; adjust the rest with struct update syntax.
fn call(
    report: &BlastReport,
    changed_index: usize,
    site: (&str, u32),
    caller: &str,
) -> CallerFinding {
    CallerFinding {
        judged: None,
        callee: report.changed[changed_index].qualified_name.clone(),
        changed_index,
        file: site.0.into(),
        line: site.1,
        column: 5,
        caller: caller.into(),
        kind: CallKind::Call,
        confidence: Confidence::Exact,
        touched: false,
        depth: 1,
        via: None,
    }
}

fn judged(verdict: Verdict, reason: &str) -> Option<crate::blast::report::Judged> {
    Some(crate::blast::report::Judged {
        verdict,
        reason: reason.into(),
        reported: Default::default(),
    })
}

fn report(changed: Vec<ChangedFunction>) -> BlastReport {
    BlastReport {
        base: "main".into(),
        head: "feature/profile".into(),
        changed,
        callers: Vec::new(),
        depth: 1,
        unresolved_same_name: 0,
        skipped_files: 0,
        skipped: Vec::new(),
    }
}

fn typical() -> BlastReport {
    let mut r = report(vec![
        changed(
            "src/services/user.ts",
            "UserService.getUser",
            DefKind::Method,
            12,
            Change::Body,
        ),
        changed(
            "src/util/format.ts",
            "formatName",
            DefKind::Function,
            3,
            Change::SignatureAndBody,
        ),
        changed(
            "src/util/format.ts",
            "newHelper",
            DefKind::Function,
            20,
            Change::Added,
        ),
        changed(
            "src/api/client.ts",
            "ApiClient.constructor",
            DefKind::Constructor,
            8,
            Change::Signature,
        ),
    ]);
    r.depth = 2;
    r.callers = vec![
        call(&r, 0, ("src/api/handler.ts", 40), "handleRequest"),
        CallerFinding {
            judged: None,
            confidence: Confidence::Likely,
            ..call(&r, 0, ("src/pages/profile.tsx", 12), "ProfilePage")
        },
        CallerFinding {
            judged: None,
            touched: true,
            ..call(&r, 0, ("src/services/user.ts", 30), "UserService.refresh")
        },
        CallerFinding {
            judged: None,
            depth: 2,
            via: Some("handleRequest".into()),
            ..call(&r, 0, ("src/app.ts", 5), "main")
        },
        CallerFinding {
            judged: None,
            confidence: Confidence::Possible,
            ..call(&r, 0, ("src/legacy/users.js", 88), "<module>")
        },
        CallerFinding {
            judged: judged(
                Verdict::Breaks,
                "passes 1 argument; `formatName` now requires 2 (`locale` not passed)",
            ),
            ..call(&r, 1, ("src/components/Name.tsx", 9), "NameTag")
        },
        CallerFinding {
            judged: judged(
                Verdict::Fine,
                "passes 2 arguments, as the new signature of `formatName` takes",
            ),
            ..call(&r, 1, ("src/components/Header.tsx", 4), "Header")
        },
        CallerFinding {
            judged: None,
            touched: true,
            ..call(&r, 1, ("src/util/format.ts", 15), "formatAll")
        },
        CallerFinding {
            judged: judged(
                Verdict::Check,
                "passes a spread: its arguments cannot be counted against `constructor`",
            ),
            kind: CallKind::New,
            ..call(&r, 3, ("src/index.ts", 3), "<module>")
        },
    ];
    r
}

fn rename_still_called() -> BlastReport {
    let mut r = report(vec![
        ChangedFunction {
            renamed_from: Some("UserService.getUser".into()),
            ..changed(
                "src/services/user.ts",
                "UserService.fetchUser",
                DefKind::Method,
                12,
                Change::Renamed,
            )
        },
        changed(
            "src/util/legacy.ts",
            "legacyFormat",
            DefKind::Function,
            7,
            Change::Removed,
        ),
        changed(
            "src/util/format.ts",
            "formatName",
            DefKind::Function,
            3,
            Change::Body,
        ),
    ]);
    r.unresolved_same_name = 2;
    r.skipped_files = 1;
    let renamed = || judged(Verdict::Breaks, "`fetchUser` was renamed");
    r.callers = vec![
        CallerFinding {
            judged: renamed(),
            ..call(&r, 0, ("src/api/handler.ts", 40), "handleRequest")
        },
        CallerFinding {
            judged: renamed(),
            ..call(&r, 0, ("src/pages/profile.tsx", 12), "ProfilePage")
        },
        CallerFinding {
            judged: None,
            touched: true,
            ..call(&r, 0, ("src/services/cache.ts", 9), "warmCache")
        },
        CallerFinding {
            judged: judged(Verdict::Breaks, "`legacyFormat` was removed"),
            ..call(&r, 1, ("src/reports/export.ts", 51), "exportCsv")
        },
        CallerFinding {
            judged: None,
            confidence: Confidence::Possible,
            ..call(&r, 2, ("src/old/format.js", 2), "<module>")
        },
    ];
    r
}

/// Code fences and `<details>` blocks open and close in pairs.
fn assert_balanced(md: &str) {
    let fences = md.lines().filter(|l| l.starts_with("```")).count();
    assert_eq!(fences % 2, 0, "unbalanced fences in:\n{md}");
    assert_eq!(
        md.matches("<details>").count(),
        md.matches("</details>").count(),
        "unbalanced details in:\n{md}"
    );
}

#[test]
fn typical_report() {
    let md = render_markdown(&typical(), LIMIT, None);
    assert!(md.starts_with(&format!("{MARKER}\n")));
    assert_balanced(&md);
    insta::assert_snapshot!("typical", md);
}

#[test]
fn rename_still_called_report() {
    let md = render_markdown(&rename_still_called(), LIMIT, None);
    assert_balanced(&md);
    insta::assert_snapshot!("rename_still_called", md);
}

#[test]
fn empty_report() {
    let md = render_markdown(&report(Vec::new()), LIMIT, None);
    insta::assert_snapshot!("empty", md);
}

#[test]
fn hostile_names_are_escaped() {
    let hostile = "x`y|z<script>alert(1)</script>]]#1 *b* _i_";
    let mut r = report(vec![
        ChangedFunction {
            renamed_from: Some("- [ ] `` old ``".into()),
            ..changed(
                "src/@scope/we ird.ts",
                hostile,
                DefKind::Function,
                1,
                Change::Renamed,
            )
        },
        changed("+plus.ts", "`", DefKind::Function, 2, Change::Body),
    ]);
    r.callers = vec![
        CallerFinding {
            judged: judged(Verdict::Breaks, "`` <img src=x> `x` was renamed\n# h"),
            ..call(&r, 0, ("src/@evil/a.ts", 1), "line\nbreak\"quote\";[x]{y}")
        },
        call(&r, 0, ("src/b.ts", 2), "<module>"),
        call(&r, 1, ("src/c.ts", 3), "# not a heading"),
        call(&r, 1, ("src/<img src=x>`d.ts", 4), "d"),
    ];
    let md = render_markdown(&r, LIMIT, None);
    assert_balanced(&md);
    // No raw HTML from names survives outside code spans or Mermaid entities.
    assert!(!md.contains("\nbreak"));
    assert!(!md.contains("\n# h"));
    assert!(md.contains("#60;script#62;"));
    // A reason and a file among the unaffected callers: each only in a code span.
    assert_eq!(md.matches("<img").count(), 2, "{md}");
    assert!(
        md.contains("**breaks**: ``` `` <img src=x> `x` was renamed\u{FFFD}# h ```"),
        "{md}"
    );
    assert!(md.contains("``src/<img src=x>`d.ts`` (1)"), "{md}");
    insta::assert_snapshot!("hostile", md);
}

#[test]
fn code_spans_outlast_backtick_runs() {
    assert_eq!(code("a"), "`a`");
    assert_eq!(code("a`b"), "``a`b``");
    assert_eq!(code("``x"), "``` ``x ```");
    assert_eq!(code(" a "), "`  a  `");
    assert_eq!(code(""), "(empty)");
    assert_eq!(code("<module>"), "`<module>`");
    assert_eq!(code("a\nb\u{202E}c"), "`a\u{FFFD}b\u{FFFD}c`");
    let long = "x".repeat(500);
    assert_eq!(code(&long), format!("`{}…`", "x".repeat(MAX_NAME_CHARS)));
}

#[test]
fn mermaid_labels_use_entities() {
    assert_eq!(
        mermaid_label("a\"b[c]<d>#e;f"),
        "a#34;b#91;c#93;#60;d#62;#35;e#59;f"
    );
}

/// 5,000 untouched callers over 50 changed functions, with some touched and possible.
fn huge() -> BlastReport {
    let mut r = report(
        (0..50)
            .map(|i| {
                changed(
                    &format!("src/mod{i}.ts"),
                    &format!("Service{i}.method"),
                    DefKind::Method,
                    i + 1,
                    Change::Signature,
                )
            })
            .collect(),
    );
    r.callers = (0..5000u32)
        .map(|i| {
            let idx = (i % 50) as usize;
            CallerFinding {
                judged: None,
                confidence: if i % 7 == 0 {
                    Confidence::Possible
                } else {
                    Confidence::Exact
                },
                touched: i % 11 == 0,
                ..call(
                    &r,
                    idx,
                    (&format!("src/callers/file{i}.ts"), i + 1),
                    &format!("caller{i}"),
                )
            }
        })
        .collect();
    r
}

#[test]
fn truncation_keeps_limit_and_balance() {
    let r = huge();
    let md = render_markdown(&r, LIMIT, None);
    assert!(md.len() <= LIMIT, "{} bytes", md.len());
    assert!(
        md.len() > LIMIT - 2_000,
        "the budget is used: {} bytes",
        md.len()
    );
    assert_balanced(&md);
    assert!(md.starts_with(MARKER));
    let note = md.lines().last().expect("a last line");
    assert!(note.starts_with("_Truncated"), "{note}");
}

#[test]
fn truncation_note_counts_what_is_missing() {
    // Only untouched exact callers: each shown caller is one `- ` line in a section.
    let mut r = huge();
    for f in &mut r.callers {
        f.confidence = Confidence::Exact;
        f.touched = false;
    }
    let md = render_markdown(&r, LIMIT, None);
    let listed_callers = md
        .lines()
        .filter(|l| l.starts_with("- `src/callers/"))
        .count();
    // Callers beyond the per-function list are counted in its "and N more" line.
    let summarized: usize = md
        .lines()
        .filter_map(|l| l.strip_prefix("- … and **"))
        .filter_map(|l| l.split("**").next()?.parse::<usize>().ok())
        .sum();
    let shown_callers = listed_callers + summarized;
    let shown_functions = md.lines().filter(|l| l.starts_with("### `")).count();
    let note = md.lines().last().expect("a last line");
    let numbers: Vec<usize> = note.split(' ').filter_map(|w| w.parse().ok()).collect();
    assert_eq!(numbers.len(), 2, "{note}");
    assert_eq!(shown_callers + numbers[0], 5000, "{note}");
    assert_eq!(shown_functions + numbers[1], 50, "{note}");
}

#[test]
fn a_long_report_lists_a_few_callers_per_function_to_show_more_functions() {
    let r = huge();
    let sections = |md: &str| md.lines().filter(|l| l.starts_with("### `")).count();
    let capped = sections(&render_markdown(&r, LIMIT, None));
    let reserve = truncation_note(r.callers.len(), r.changed.len()).len() + 2;
    let uncapped = sections(&render(
        &r,
        LIMIT,
        reserve,
        usize::MAX,
        None,
        Elsewhere::default(),
    ));
    assert!(
        capped >= 2 * uncapped,
        "{capped} sections capped, {uncapped} not"
    );
    assert!(render_markdown(&r, LIMIT, None).contains("more untouched callers in"));
}

#[test]
fn every_budget_is_respected() {
    for r in [typical(), rename_still_called(), report(Vec::new())] {
        let full = render_markdown(&r, usize::MAX, None);
        for limit in (0..full.len() + 10).step_by(3) {
            let md = render_markdown(&r, limit, None);
            assert!(md.len() <= limit, "{} > {limit}", md.len());
            assert_balanced(&md);
        }
    }
}

#[test]
fn diagram_is_capped_and_shared_out() {
    let mut r = report(
        (0..20)
            .map(|i| {
                changed(
                    "src/a.ts",
                    &format!("f{i}"),
                    DefKind::Function,
                    i + 1,
                    Change::Signature,
                )
            })
            .collect(),
    );
    r.callers = (0..100)
        .map(|i| call(&r, i % 20, ("src/b.ts", i as u32 + 1), &format!("g{i}")))
        .collect();
    let md = render_markdown(&r, LIMIT, None);
    let diagram = md
        .split("```mermaid\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a diagram");
    let functions = diagram.lines().filter(|l| l.contains(":::changed")).count();
    let edges = diagram.lines().filter(|l| l.contains(" --> ")).count();
    assert_eq!(
        (functions, edges),
        (DIAGRAM_MAX_FUNCTIONS, DIAGRAM_MAX_EDGES)
    );
    // 15 functions, 40 edges: every function drawn gets at least 2.
    for f in 0..DIAGRAM_MAX_FUNCTIONS {
        let to_f = format!(" --> f{f}\n");
        assert!(diagram.matches(&to_f).count() >= 2, "f{f}");
    }
    assert!(md.contains(
        "_Diagram capped: 5 more changed functions and 60 more caller edges are not drawn"
    ));
}

#[test]
fn output_is_deterministic() {
    let r = typical();
    assert_eq!(
        render_markdown(&r, LIMIT, None),
        render_markdown(&r, LIMIT, None)
    );
    let mut shuffled = r.clone();
    shuffled.callers.reverse();
    assert_eq!(
        render_markdown(&r, LIMIT, None),
        render_markdown(&shuffled, LIMIT, None)
    );
}

/// The complaint of issue 15, as the engine now reports it (on `fixtures/blast/helper`,
/// whose README example `tests/engine/blast.rs` keeps current): classifyFields changed and
/// calls `normalizeFields`, a helper the change added; `lookupRules`, which it calls,
/// changed too; `sanitize` was added where an untouched call to a global of that name
/// now reaches it. The helpers and `lookupRules` used to repeat classifyFields' callers
/// at depth 2: three sections of the same two lines.
fn classify_helper() -> BlastReport {
    let mut r = report(vec![
        changed(
            "routes/services/image.js",
            "processImage",
            DefKind::Function,
            3,
            Change::Body,
        ),
        changed(
            "services/classify.js",
            "normalizeFields",
            DefKind::Function,
            4,
            Change::Added,
        ),
        changed(
            "services/classify.js",
            "classifyFields",
            DefKind::Function,
            8,
            Change::Body,
        ),
        changed(
            "services/rules.js",
            "lookupRules",
            DefKind::Function,
            1,
            Change::Body,
        ),
        changed(
            "services/rules.js",
            "sanitize",
            DefKind::Function,
            12,
            Change::Added,
        ),
    ]);
    r.base = "main@1f0c2d9e8b7a".into();
    r.head = "#42@6d5e4f3a2b1c".into();
    r.depth = 2;
    r.callers = vec![
        call(&r, 2, ("routes/posts.js", 7), "createPost"),
        call(&r, 2, ("routes/services/video.js", 5), "processVideo"),
        CallerFinding {
            judged: None,
            touched: true,
            ..call(&r, 2, ("routes/services/image.js", 4), "processImage")
        },
        CallerFinding {
            judged: None,
            touched: true,
            ..call(&r, 3, ("services/classify.js", 9), "classifyFields")
        },
        call(&r, 4, ("services/rules.js", 9), "cleanRules"),
    ];
    r
}

fn github_link(file: &str, line: u32) -> String {
    format!("https://github.com/acme/uploads/blob/6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e/{file}#L{line}")
}

/// Every `file:line` of a call site in `md` (a list item or an inline mention).
fn site_mentions(md: &str, report: &BlastReport) -> Vec<String> {
    report
        .callers
        .iter()
        .map(|f| format!("`{}:{}`", f.file, f.line))
        .flat_map(|site| std::iter::repeat_n(site.clone(), md.matches(&site).count()))
        .collect()
}

#[test]
fn classify_helper_report() {
    let r = classify_helper();
    let md = render_markdown(&r, LIMIT, None);
    assert_balanced(&md);
    // The added helper that only the change calls gets no section; the one an untouched
    // call reaches does.
    assert!(!md.contains("### `normalizeFields`"), "{md}");
    assert!(md.contains("### `sanitize`"), "{md}");
    insta::assert_snapshot!("classify_helper", md);
}

#[test]
fn each_call_site_is_mentioned_once() {
    let r = classify_helper();
    for md in [
        render_markdown(&r, LIMIT, None),
        render_markdown(&r, LIMIT, Some(&github_link)),
    ] {
        let mut mentions = site_mentions(&md, &r);
        let all = mentions.len();
        mentions.sort();
        mentions.dedup();
        assert_eq!(mentions.len(), all, "a site twice in:\n{md}");
        // Once each, but the callers of classifyFields, whose body alone changed: its
        // untouched and touched callers are counted per file, not listed.
        let listed = r
            .callers
            .iter()
            .filter(|f| r.changed[f.changed_index].qualified_name != "classifyFields")
            .count();
        assert_eq!(all, listed, "every other site once in:\n{md}");
        assert!(
            md.contains("`routes/posts.js` (1), `routes/services/video.js` (1)"),
            "{md}"
        );
    }
}

/// Issue 44's complaint: a refactor of one module's function bodies, 138 untouched call
/// sites. They are counted per function and per file in one fold, none listed by line,
/// and the comment stays short.
#[test]
fn callers_of_body_only_changes_are_summarized_folded_never_listed() {
    let mut r = report(
        (0..4)
            .map(|i| {
                changed(
                    "src/middleware/auth.ts",
                    &format!("guard{i}"),
                    DefKind::Function,
                    i * 10 + 1,
                    Change::Body,
                )
            })
            .collect(),
    );
    r.callers = (0..138u32)
        .map(|i| CallerFinding {
            judged: judged(
                Verdict::Fine,
                "only the body changed: the contract is the same",
            ),
            ..call(
                &r,
                (i % 4) as usize,
                (&format!("src/routes/r{:02}.ts", i % 31), i + 1),
                &format!("handler{i}"),
            )
        })
        .collect();
    let md = render_markdown(&r, LIMIT, None);
    assert_balanced(&md);
    assert_eq!(
        md.lines().nth(3),
        Some(
            "**138** call sites this change did not touch, in 31 files, call the changed \
             functions, none affected by the contract: only the bodies of the functions they \
             call changed (folded below)."
        ),
        "{md}"
    );
    assert!(!md.contains("### `"), "no section: {md}");
    assert!(!md.contains("```mermaid"), "nothing to draw: {md}");
    assert!(!md.contains("src/routes/r00.ts:"), "no line listed: {md}");
    assert!(
        md.contains("<details><summary>138 untouched call sites in 31 files, none affected by the contract (4 changed functions)</summary>"),
        "{md}"
    );
    // guard0: i = 0, 4, ..., 136 (35 calls) over every file, 4 of them twice.
    assert!(
        md.contains("- `guard0` — function at `src/middleware/auth.ts:1` · body changed: the contract is the same · **35** untouched callers in 31 files: `src/routes/r00.ts` (2),"),
        "{md}"
    );
    assert!(md.contains(", and 23 more files\n"), "{md}");
    assert!(md.len() < 3_000, "{} bytes:\n{md}", md.len());
    for limit in (0..md.len() + 10).step_by(7) {
        let cut = render_markdown(&r, limit, None);
        assert!(cut.len() <= limit, "{} > {limit}", cut.len());
        assert_balanced(&cut);
    }
}

#[test]
fn the_headline_says_what_needs_a_look() {
    let first_line = |r: &BlastReport| {
        render_markdown(r, LIMIT, None)
            .lines()
            .nth(3)
            .expect("a headline")
            .to_string()
    };
    // classifyFields' body changed: its callers are not counted as needing a look.
    assert_eq!(
        first_line(&classify_helper()),
        "**1** call site this change did not touch needs a look: `sanitize` (1)."
    );
    // What breaks comes first, where it is.
    assert_eq!(
        first_line(&rename_still_called()),
        "**3** untouched call sites **break** with this change: `src/api/handler.ts:40`, `src/pages/profile.tsx:12`, `src/reports/export.ts:51`."
    );
    let typical = render_markdown(&typical(), LIMIT, None);
    let paragraphs: Vec<&str> = typical.lines().skip(3).step_by(2).take(3).collect();
    assert_eq!(
        paragraphs,
        [
            "**1** untouched call site **breaks** with this change: `src/components/Name.tsx:9`.",
            "**1** other untouched call site needs a look: `ApiClient.constructor` (1).",
            "**4** more untouched call sites in 4 files, none affected by the contract: only bodies changed, or the calls already match the new signatures (folded below).",
        ]
    );
    // Calls in other repositories that break are counted in the first sentence, with
    // this repository's or alone.
    let others = Elsewhere {
        sites: 3,
        repositories: 2,
        breaks: 2,
    };
    let with_others = |r: &BlastReport| {
        render_markdown_elsewhere(r, LIMIT, None, None, others)
            .lines()
            .nth(3)
            .unwrap()
            .to_string()
    };
    assert!(
        with_others(&rename_still_called())
            .contains("`src/reports/export.ts:51`. **2** call sites in other repositories of this installation break too. "),
        "{}",
        with_others(&rename_still_called())
    );
    assert_eq!(
        with_others(&classify_helper()),
        "**2** call sites in other repositories of this installation **break** with this change (\"In other repositories\", below)."
    );
    let mut r = classify_helper();
    r.callers.retain(|f| f.touched);
    assert_eq!(
        first_line(&r),
        "Every caller of the changed functions was touched by this change."
    );
    r.callers.clear();
    assert_eq!(
        first_line(&r),
        "No caller of the changed functions was found."
    );
    // Past a few functions, the rest are counted.
    let many = huge();
    assert!(
        first_line(&many).ends_with("(79), and 45 more."),
        "{}",
        first_line(&many)
    );
}

#[test]
fn an_added_function_called_only_by_the_change_has_no_section() {
    // As an older engine reported it: the added helper's caller is the changed
    // classifyFields (touched), and classifyFields' callers again at depth 2.
    let mut r = classify_helper();
    let repeated = vec![
        CallerFinding {
            judged: None,
            touched: true,
            ..call(&r, 1, ("services/classify.js", 9), "classifyFields")
        },
        CallerFinding {
            judged: None,
            touched: true,
            depth: 2,
            via: Some("classifyFields".into()),
            ..call(&r, 1, ("routes/services/image.js", 4), "processImage")
        },
    ];
    r.callers.extend(repeated);
    let md = render_markdown(&r, LIMIT, None);
    assert!(!md.contains("### `normalizeFields`"), "{md}");
    assert!(
        md.contains("- `normalizeFields` — function at `services/classify.js:4` · added, no caller outside this change"),
        "{md}"
    );
}

#[test]
fn sites_and_definitions_are_permalinks() {
    let r = classify_helper();
    let md = render_markdown(&r, LIMIT, Some(&github_link));
    assert_balanced(&md);
    assert!(md.contains(
        "- [`services/rules.js:9`](https://github.com/acme/uploads/blob/6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e/services/rules.js#L9) — `cleanRules` — exact"
    ));
    assert!(md.contains(
        "function at [`services/classify.js:8`](https://github.com/acme/uploads/blob/6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e/services/classify.js#L8)"
    ));
    insta::assert_snapshot!("classify_helper_linked", md);

    // A removed function's line is on the base side: not linked at head.
    let md = render_markdown(&rename_still_called(), LIMIT, Some(&github_link));
    assert!(
        md.contains("function at `src/util/legacy.ts:7` · removed"),
        "{md}"
    );
    assert!(
        md.contains("method at [`src/services/user.ts:12`]("),
        "{md}"
    );
}

#[test]
fn link_targets_cannot_end_the_link() {
    assert_eq!(
        link_target("https://x.test/a b)(c<d>\"e\\f`g\n#L1"),
        "https://x.test/a%20b%29%28c%3Cd%3E%22e%5Cf%60g%0A#L1"
    );
    assert_eq!(
        link_target("https://x.test/é.js"),
        "https://x.test/%C3%A9.js"
    );
    let link = |f: &str, l: u32| format!("https://x.test/{f}#L{l}");
    assert_eq!(
        place("a) [x](y.js", 3, Some(&link)),
        "[`a) [x](y.js:3`](https://x.test/a%29%20[x]%28y.js#L3)"
    );
}

#[test]
fn every_budget_is_respected_with_links() {
    for r in [typical(), rename_still_called(), classify_helper()] {
        let full = render_markdown(&r, usize::MAX, Some(&github_link));
        assert!(full.len() > render_markdown(&r, usize::MAX, None).len());
        for limit in (0..full.len() + 10).step_by(3) {
            let md = render_markdown(&r, limit, Some(&github_link));
            assert!(md.len() <= limit, "{} > {limit}", md.len());
            assert_balanced(&md);
        }
    }
}

#[test]
fn truncation_with_links_keeps_limit_and_counts() {
    let mut r = huge();
    for f in &mut r.callers {
        f.confidence = Confidence::Exact;
        f.touched = false;
    }
    let md = render_markdown(&r, LIMIT, Some(&github_link));
    assert!(md.len() <= LIMIT, "{} bytes", md.len());
    assert!(md.len() > LIMIT - 2_000, "the budget is used: {}", md.len());
    assert_balanced(&md);
    let listed = md
        .lines()
        .filter(|l| l.starts_with("- [`src/callers/"))
        .count();
    let summarized: usize = md
        .lines()
        .filter_map(|l| l.strip_prefix("- … and **"))
        .filter_map(|l| l.split("**").next()?.parse::<usize>().ok())
        .sum();
    let sections = md.lines().filter(|l| l.starts_with("### `")).count();
    let note = md.lines().last().expect("a last line");
    let numbers: Vec<usize> = note.split(' ').filter_map(|w| w.parse().ok()).collect();
    assert_eq!(numbers.len(), 2, "{note}");
    assert_eq!(listed + summarized + numbers[0], 5000, "{note}");
    assert_eq!(sections + numbers[1], 50, "{note}");
    // Links take room: fewer sections fit than without them.
    let plain = render_markdown(&r, LIMIT, None);
    assert!(sections < plain.lines().filter(|l| l.starts_with("### `")).count());
}

#[test]
fn a_repository_s_max_callers_lists_that_many_per_function_and_counts_the_rest() {
    // getUser's signature changed too: its three untouched callers need a look.
    let mut r = typical();
    r.changed[0].change = Change::Signature;
    // Callers listed in each section, above its folds.
    let listed = |md: &str| -> Vec<usize> {
        md.split("\n### ")
            .skip(1)
            .map(|section| {
                let top = section.split("<details>").next().unwrap_or_default();
                top.lines().filter(|l| l.starts_with("- `")).count()
            })
            .collect()
    };
    let all = render_markdown_listing(&r, LIMIT, None, None);
    assert_eq!(
        all,
        render_markdown(&r, LIMIT, None),
        "None: today's rendering"
    );
    // formatName first (a caller breaks), then getUser (three to look at).
    assert_eq!(listed(&all), [1, 3, 1], "{all}");
    let one = render_markdown_listing(&r, LIMIT, None, Some(1));
    assert_eq!(listed(&one), [1, 1, 1], "{one}");
    assert!(
        one.contains("- … and **2** more untouched callers in 2 files"),
        "{one}"
    );
    assert_balanced(&one);
    // A long report lists no more than the limit asks, whichever is smaller.
    let huge = huge();
    let md = render_markdown_listing(&huge, LIMIT, None, Some(3));
    assert!(md.len() <= LIMIT);
    for section in md.split("\n### ").skip(1) {
        let listed = section
            .lines()
            .filter(|l| l.starts_with("- `src/callers/") || l.starts_with("- [`src/callers/"))
            .count();
        assert!(listed <= 3 + 3, "untouched and possible, 3 each: {section}");
    }
}

#[test]
fn config_problems_quote_the_file_s_text_in_code_spans() {
    let problems = vec![
        ConfigProblem {
            key: "colour".into(),
            message: "unknown key, ignored".into(),
            found: None,
        },
        ConfigProblem {
            key: "depth".into(),
            message: "out of range: use a whole number from 1 to 5; the default (2) was used"
                .into(),
            found: Some("9 @octocat <img>".into()),
        },
    ];
    let md = config_problems(".github/blast-radius.yml", &problems);
    assert!(md.starts_with("### Configuration\n"), "{md}");
    assert!(md.contains("`.github/blast-radius.yml` has 2 problems; the defaults were used"));
    assert!(md.contains("- `colour`: unknown key, ignored\n"), "{md}");
    assert!(md.contains("(found `9 @octocat <img>`)"), "{md}");
}

#[test]
fn skipped_changed_files_are_named_with_their_reason_escaped_and_capped() {
    use crate::blast::report::SkippedFile;
    use crate::indexer::skip::SkipReason;
    let mut r = typical();
    let hostile = "src/a`b\u{202E}<img src=x>.ts";
    r.skipped = vec![
        SkippedFile {
            file: hostile.into(),
            reason: SkipReason::TooCostly,
        },
        SkippedFile {
            file: "src/slow.ts".into(),
            reason: SkipReason::TimedOut,
        },
    ];
    r.skipped_files = 2;
    let md = render_markdown(&r, LIMIT, None);
    assert_balanced(&md);
    assert!(md.contains("2 files were skipped"), "{md}");
    assert!(
        md.contains(&format!(
            "{} skipped: reading it would cost more than its size allows (too_costly)",
            code(hostile)
        )),
        "{md}"
    );
    assert!(
        md.contains("`src/slow.ts` skipped: the time limit passed while it was read (timed_out)")
    );
    // The name is inert: no bidi override and no HTML of its own.
    assert!(!md.contains('\u{202E}'));
    assert!(code(hostile).starts_with("``"));

    // Past the cap, the rest are counted, not named.
    r.skipped = (0..SKIPPED_NAMED + 5)
        .map(|i| SkippedFile {
            file: format!("src/f{i:03}.ts"),
            reason: SkipReason::TooCostly,
        })
        .collect();
    r.skipped_files = r.skipped.len() as u32;
    let md = render_markdown(&r, LIMIT, None);
    assert_eq!(md.matches("skipped: reading it").count(), SKIPPED_NAMED);
    assert!(md.contains("> - and 5 more skipped"));
}
