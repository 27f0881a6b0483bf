//! Attacker-shaped files: each is indexed, or skipped as `too_costly`, and never costs
//! more than its size allows (issue 41). The shapes that once were quadratic are read
//! in full: their fix is structural, not a skip.

use blast_radius::indexer::pipeline::{extract_all, SourceFile};
use blast_radius::indexer::skip::{SkipReason, SkipRules};
use blast_radius::indexer::{extract, Language};

/// Shapes of hostile files, each about `n` units long.
fn shapes(n: usize) -> Vec<(&'static str, String)> {
    let rep = |s: &str, k: usize| s.repeat(k);
    vec![
        ("nested_arrows.js", format!("x = {}1;\n", rep("()=>", n))),
        (
            "returned_arrows.js",
            (0..n)
                .map(|i| format!("function f{i}(){{return ()=>1}}\n"))
                .collect(),
        ),
        (
            "lt_lines.ts",
            format!("const x = a\n{};\n)\n", rep(" <b\n", n)),
        ),
        (
            "parens.js",
            format!("x = {}1{};\n", rep("(", n), rep(")", n)),
        ),
        (
            "arrays.js",
            format!("x = {}{};\n", rep("[", n), rep("]", n)),
        ),
        (
            "objects.js",
            format!("x = {}1{};\n", rep("{a:", n), rep("}", n)),
        ),
        (
            "calls.js",
            format!("x = {}1{};\n", rep("f(", n), rep(")", n)),
        ),
        ("ternaries.js", format!("x = {}0;\n", rep("a ? b : ", n))),
        ("member_chain.js", format!("x = a{};\n", rep(".b", n))),
        ("call_chain.js", format!("x = a(){};\n", rep(".b()", n))),
        ("assign_chain.js", format!("{}1;\n", rep("a = ", n))),
        (
            "generics.ts",
            format!("let x: {}T{};\n", rep("A<", n), rep(">", n)),
        ),
        ("unions.ts", format!("type U = {}never;\n", rep("A | ", n))),
        (
            "overloads.ts",
            format!(
                "{}export function f(a) {{}}\n",
                rep("export function f(a: number): void;\n", n)
            ),
        ),
        (
            "decorators.ts",
            format!("class A {{\n{}}}\n", rep("  @a(\n", n)),
        ),
        (
            "templates.js",
            format!("x = {}1{};\n", rep("`${", n), rep("}`", n)),
        ),
        (
            "jsx.jsx",
            format!("x = {}{};\n", rep("<a>", n), rep("</a>", n)),
        ),
        (
            "functions.js",
            format!("{}{}\n", rep("function a(){", n), rep("}", n)),
        ),
        ("unclosed.ts", rep("import('./x').A<", n)),
        (
            "jsdoc.js",
            format!(
                "/** @param {{{}}} a */\nfunction f(a) {{}}\n",
                rep("{a:", n)
            ),
        ),
        (
            "same_names.js",
            (0..n)
                .map(|_| "function f(){ f() }\n".to_string())
                .collect(),
        ),
    ]
}

fn language(path: &str) -> Language {
    Language::from_path(path).expect("a JS/TS path")
}

#[test]
fn every_hostile_shape_is_read_or_skipped_within_its_allowance() {
    for n in [300, 3_000, 30_000] {
        for (path, source) in shapes(n) {
            match extract(path, language(path), &source) {
                Ok(facts) => assert!(
                    facts.weight() <= (1 << 20) + 24 * source.len(),
                    "{path} at {n}: {} bytes of facts for {} bytes",
                    facts.weight(),
                    source.len()
                ),
                Err(reason) => assert_eq!(reason, SkipReason::TooCostly, "{path} at {n}"),
            }
        }
    }
}

#[test]
fn the_shapes_that_were_quadratic_are_read_in_full() {
    // 300 nested arrows once took 1.3 GB of renamed names; 20,000 returned arrows and
    // 10,000 `<` lines seconds each. They are ordinary files: read, not skipped.
    let arrows = format!("x = {}1;\n", "()=>".repeat(300));
    let facts = extract("a.js", Language::JavaScript, &arrows).expect("read");
    let deepest = facts
        .defs
        .iter()
        .map(|d| facts.str(d.qualified).len())
        .max()
        .unwrap();
    // Each level is named once after the call that makes it (`x()()...`), never a
    // renamed copy per level.
    // (Before, 1.3 GB; now the names themselves, about depth squared: 90 KB.)
    assert!(
        facts.strings.byte_len() < 1 << 20,
        "{}",
        facts.strings.byte_len()
    );
    assert!(deepest > 0);
    let returned: String = (0..20_000)
        .map(|i| format!("function f{i}(){{return ()=>1}}\n"))
        .collect();
    let facts = extract("r.js", Language::JavaScript, &returned).expect("read");
    assert!(facts
        .defs
        .iter()
        .any(|d| facts.str(d.qualified) == "f19999()"));
    let lt = format!("const x = a\n{};\n)\n", " <b\n".repeat(10_000));
    extract("lt.ts", Language::TypeScript, &lt).expect("read");
}

#[test]
fn a_file_whose_facts_outgrow_its_size_is_skipped_and_the_rest_indexes() {
    // Nested functions with long names: each level's qualified name holds every name
    // above it, so the facts grow as the square of the nesting.
    let name = "a".repeat(200);
    let nested = format!(
        "{}{}\n",
        format!("function {name}(){{\n").repeat(250),
        "}\n".repeat(250)
    );
    assert_eq!(
        extract("n.js", Language::JavaScript, &nested).unwrap_err(),
        SkipReason::TooCostly
    );
    let files = vec![
        SourceFile::new("src/n.js", nested.into_bytes()),
        SourceFile::new("src/ok.js", b"export function ok() { return 1 }\n".to_vec()),
    ];
    let out = extract_all(files, &SkipRules::default(), &|| {});
    assert_eq!(
        out.skipped,
        vec![("src/n.js".to_string(), SkipReason::TooCostly)]
    );
    assert_eq!(out.facts.len(), 1);
    assert_eq!(out.facts[0].path, "src/ok.js");
}

#[test]
fn a_cancelled_extraction_unwinds_instead_of_returning_a_result() {
    use blast_radius::cancel::{is_cancellation, scoped, Cancel};
    let cancel = Cancel::new();
    cancel.cancel();
    let files: Vec<SourceFile> = (0..8)
        .map(|i| SourceFile::new(format!("f{i}.js"), b"function f() {}\n".to_vec()))
        .collect();
    let stopped = std::panic::catch_unwind(|| {
        scoped(Some(cancel), || {
            extract_all(files, &SkipRules::default(), &|| {})
        })
    });
    assert!(is_cancellation(&*stopped.err().expect("stopped")));
}
