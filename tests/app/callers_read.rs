//! Callers read in place from the stored rows (`workflow::callers_read`) against the
//! answer of the whole stored graph, on every fixture repository, for every name.

use crate::common;

use std::collections::BTreeSet;

use blast_radius::indexer::skip::SkipRules;
use blast_radius::query::{self, TargetError};
use blast_radius::report::json;
use blast_radius::store::Store;
use blast_radius::workflow::callers_read::{callers_in_place, ReadInPlace};
use blast_radius::workflow::progress::Silent;
use blast_radius::workflow::save::{index_and_save, load_stored};
use blast_radius::workflow::source::InMemory;
use blast_radius::workspace::walk;
use sqlx::PgPool;

/// Every fixture repository: the resolution cases and both sides of the blast cases.
fn fixture_dirs() -> Vec<(String, std::path::PathBuf)> {
    let mut dirs = Vec::new();
    for group in ["resolve", "blast"] {
        let root = common::fixture(group);
        for entry in std::fs::read_dir(&root).unwrap() {
            let dir = entry.unwrap().path();
            if !dir.is_dir() {
                continue;
            }
            let sides: Vec<_> = ["base", "head"]
                .iter()
                .map(|s| dir.join(s))
                .filter(|d| d.is_dir())
                .collect();
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            if sides.is_empty() {
                dirs.push((format!("{group}/{name}"), dir));
            } else {
                for side in sides {
                    let s = side.file_name().unwrap().to_string_lossy().into_owned();
                    dirs.push((format!("{group}/{name}/{s}"), side));
                }
            }
        }
    }
    dirs.sort();
    dirs
}

#[sqlx::test(migrations = false)]
async fn callers_read_in_place_equal_the_whole_graphs(pool: PgPool) {
    let store = Store::from_pool(pool);
    store.migrate().await.unwrap();
    let (mut in_place, mut ambiguous, mut whole, mut with_callers) = (0, 0, 0, 0);
    for (case, dir) in fixture_dirs() {
        let files = walk::read(&dir, walk::list(&dir).unwrap()).unwrap();
        let revision = InMemory {
            commit: None,
            files,
        };
        index_and_save(&store, &case, &revision, &SkipRules::default(), &Silent)
            .await
            .unwrap();
        let (full, _) = load_stored(&store, &case).await.unwrap();
        let g = &full.graph;
        // Every name and qualified name of a definition, and each at FILE:LINE.
        let mut targets: BTreeSet<String> = BTreeSet::new();
        for f in g.file_ids() {
            let facts = g.facts(f);
            for i in 0..facts.defs.len() as u32 {
                targets.insert(facts.def_name(i).to_string());
                targets.insert(facts.def_qualified(i).to_string());
                let d = query::describe(g, blast_radius::graph::DefId::new(f, i));
                targets.insert(format!("{}:{}", d.file, d.line));
            }
        }
        for target in &targets {
            for depth in [1, 2] {
                let read = callers_in_place(&store, &case, target, depth)
                    .await
                    .unwrap();
                let expected = query::lookup(g, target).map(|d| query::callers(g, d, depth, 0));
                match (read, expected) {
                    (ReadInPlace::Answer(answer), Ok(expected)) => {
                        assert_eq!(answer, expected, "{case}: callers of {target} at {depth}");
                        assert_eq!(
                            json::pretty(&json::callers(&answer)),
                            json::pretty(&json::callers(&expected))
                        );
                        in_place += 1;
                        with_callers += usize::from(!answer.callers.is_empty());
                    }
                    (ReadInPlace::Ambiguous(e), Err(expected @ TargetError::Ambiguous { .. })) => {
                        assert_eq!(e, expected, "{case}: choices for {target}");
                        assert_eq!(e.to_string(), expected.to_string());
                        ambiguous += 1;
                    }
                    (ReadInPlace::LoadAll, _) => whole += 1,
                    (_, expected) => {
                        panic!("{case}: {target} read in place, but the whole graph gives {expected:?}")
                    }
                }
            }
        }
    }
    eprintln!("in place {in_place} ({with_callers} with callers), ambiguous {ambiguous}, whole graph {whole}");
    // Most questions are answered in place; those that are not load the whole graph.
    assert!(with_callers > 200, "{with_callers} answers with callers");
    assert!(ambiguous > 0);
    assert!(
        in_place + ambiguous > whole * 2,
        "{in_place} in place, {whole} not"
    );
}

#[sqlx::test(migrations = false)]
async fn a_name_that_matches_nothing_loads_the_whole_graph_for_its_suggestions(pool: PgPool) {
    let store = Store::from_pool(pool);
    store.migrate().await.unwrap();
    let dir = common::fixture("blast/classify/base");
    let files = walk::read(&dir, walk::list(&dir).unwrap()).unwrap();
    let revision = InMemory {
        commit: None,
        files,
    };
    index_and_save(
        &store,
        "o/classify",
        &revision,
        &SkipRules::default(),
        &Silent,
    )
    .await
    .unwrap();
    let read = callers_in_place(&store, "o/classify", "classifyField", 1)
        .await
        .unwrap();
    assert!(matches!(read, ReadInPlace::LoadAll));
    let read = callers_in_place(&store, "o/classify", "classifyFields", 1)
        .await
        .unwrap();
    let ReadInPlace::Answer(answer) = read else {
        panic!("answered in place");
    };
    assert_eq!(answer.callers.len(), 3);
}
