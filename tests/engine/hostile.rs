//! Attacker-shaped files: each is indexed, or skipped as `too_costly`, and never costs
//! more than its size allows (issue 41). The shapes that once were quadratic are read
//! in full: their fix is structural, not a skip.

use blast_radius::indexer::extract::last_spent;
use blast_radius::indexer::pipeline::{extract_all, SourceFile};
use blast_radius::indexer::skip::{SkipReason, SkipRules};
use blast_radius::indexer::{extract, Language};

use crate::hostile_shapes::{units_for, FILE_SHAPES};

fn language(path: &str) -> Language {
    // An `.html` shape is an Angular template (its text says so).
    Language::from_path(path).unwrap_or(Language::Angular)
}

#[test]
fn every_hostile_shape_is_read_or_skipped_within_its_allowance() {
    read_or_skipped_within_allowance(&[300, 3_000]);
}

/// At 30,000 units (a few minutes in a debug build; `benches/hostile.rs` runs every
/// shape near 1 MB on the release binary).
#[test]
#[ignore]
fn every_hostile_shape_at_30_000_units() {
    read_or_skipped_within_allowance(&[30_000]);
}

fn read_or_skipped_within_allowance(sizes: &[usize]) {
    for &n in sizes {
        for &(path, shape) in FILE_SHAPES {
            // Under the 1 MB a file may have: the longer units stop short of 30,000.
            let source = shape(n.min(units_for(shape, 1 << 20)));
            match extract(path, language(path), &source) {
                Ok(facts) => {
                    assert!(
                        facts.weight() <= (1 << 20) + 24 * source.len(),
                        "{path} at {n}: {} bytes of facts for {} bytes",
                        facts.weight(),
                        source.len()
                    );
                    let spent = last_spent();
                    assert!(
                        spent.parse_bytes <= spent.max_parse_bytes,
                        "{path} at {n}: {spent:?}"
                    );
                }
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
