//! A differential test on code nobody here wrote: the corpus that
//! shared/scripts/make-corpus.sh builds (real npm packages). Needs BLAST_CORPUS=DIR;
//! `.ci/run` builds the small corpus and runs it:
//!   BLAST_CORPUS=DIR cargo test --test engine -- --ignored corpus::

use std::collections::BTreeMap;

use blast_radius::graph::{DefId, Graph};
use blast_radius::indexer::facts::DefKind;
use blast_radius::indexer::pipeline::extract_all;
use blast_radius::indexer::skip::SkipRules;
use blast_radius::workspace::walk;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn corpus() -> (Graph, BTreeMap<String, String>) {
    let dir = std::env::var("BLAST_CORPUS").expect("BLAST_CORPUS=DIR (see the file's doc)");
    let root = std::path::PathBuf::from(dir);
    let paths = walk::list(&root).unwrap();
    let files = walk::read(&root, paths).unwrap();
    let rules = SkipRules::default();
    let sources: BTreeMap<String, String> = files
        .iter()
        .filter(|f| blast_radius::indexer::Language::from_path(&f.path).is_some())
        .filter_map(|f| {
            Some((
                f.path.clone(),
                rules.check(&f.path, &f.bytes).ok()?.to_string(),
            ))
        })
        .collect();
    let extracted = extract_all(files, &rules, &|| {});
    assert!(extracted.facts.len() > 1000, "a corpus of real size");
    (Graph::build(extracted.facts, extracted.configs), sources)
}

/// Every call site belongs to the innermost callable definition around it (or to the
/// module when none is), and every edge points at something that exists.
fn check_invariants(g: &Graph, sources: &BTreeMap<String, String>) -> usize {
    let mut sites = 0;
    for f in g.file_ids() {
        let facts = g.facts(f);
        let text = &sources[&facts.path];
        let mut line_starts = vec![0u32];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i as u32 + 1));
        for (i, site) in facts.calls.iter().enumerate() {
            sites += 1;
            let pos = site.pos();
            let byte = line_starts[pos.line as usize] + pos.column;
            let innermost = facts
                .defs
                .iter()
                .enumerate()
                .filter(|(_, d)| d.kind.is_callable() && d.kind != DefKind::Class)
                .filter(|(_, d)| d.span.start_byte <= byte && byte < d.span.end_byte)
                .min_by_key(|(_, d)| d.span.end_byte - d.span.start_byte)
                .map(|(j, _)| j as u32);
            match (site.caller(), innermost) {
                (Some(c), _) if facts.def(c).kind == DefKind::Class => {
                    // Class-level code (field initialisers, static blocks, decorators):
                    // inside the class, outside its methods.
                    let class = facts.def(c);
                    assert!(
                        class.span.start_byte <= byte && byte < class.span.end_byte,
                        "{}: site {i} outside its class",
                        facts.path
                    );
                }
                (c, inner) => assert_eq!(
                    c,
                    inner,
                    "{}:{}: site {i} ({}) attributed to {:?}, innermost is {:?}",
                    facts.path,
                    site.pos().line + 1,
                    facts.str(site.name),
                    c.map(|d| facts.def_qualified(d)),
                    inner.map(|d| facts.def_qualified(d)),
                ),
            }
        }
        for e in g.edges(f) {
            assert!(
                (e.site() as usize) < facts.calls.len(),
                "{}: edge site",
                facts.path
            );
            let target = g.facts(e.target.file);
            assert!(
                (e.target.def as usize) < target.defs.len(),
                "edge target exists"
            );
            assert!(
                target.def(e.target.def).kind.is_callable(),
                "edges end at callables"
            );
        }
    }
    // The reverse index mirrors the edges.
    let mut forward = 0;
    for f in g.file_ids() {
        forward += g.edges(f).len();
    }
    let mut reverse = 0;
    for f in g.file_ids() {
        for d in 0..g.facts(f).defs.len() as u32 {
            reverse += g.callers(DefId::new(f, d)).len();
        }
    }
    assert_eq!(forward, reverse, "reverse index mirrors the edges");
    sites
}

#[test]
#[ignore = "needs BLAST_CORPUS; run by .ci/run"]
fn corpus_invariants_and_incremental_equals_full() {
    let (mut graph, mut sources) = corpus();
    let sites = check_invariants(&graph, &sources);
    assert!(sites > 10_000, "{sites} call sites");

    let mut rng = StdRng::seed_from_u64(2026);
    let paths: Vec<String> = sources.keys().cloned().collect();
    for round in 0..4 {
        for _ in 0..10 {
            let path = &paths[rng.random_range(0..paths.len())];
            match rng.random_range(0..5) {
                0 => {
                    graph.remove_file(path);
                    sources.remove(path);
                }
                4 => {
                    // A call added: what other files read of this one stays the same.
                    let text = sources.get(path).cloned().unwrap_or_default();
                    let edited = format!("{text}\nrender(added{round});\n");
                    graph.update_file(path, &edited);
                    sources.insert(path.clone(), edited);
                }
                1 => {
                    // Cut a random slice of lines: syntax errors included.
                    let text = sources.get(path).cloned().unwrap_or_default();
                    let lines: Vec<&str> = text.lines().collect();
                    let a = rng.random_range(0..=lines.len());
                    let b = rng.random_range(a..=lines.len());
                    let edited = [&lines[..a], &lines[b..]].concat().join("\n");
                    graph.update_file(path, &edited);
                    sources.insert(path.clone(), edited);
                }
                _ => {
                    let text = sources.get(path).cloned().unwrap_or_default();
                    let edited =
                        format!("{text}\nexport function added{round}() {{ return render(); }}\n");
                    graph.update_file(path, &edited);
                    sources.insert(path.clone(), edited);
                }
            }
        }
        let facts = sources
            .iter()
            .map(|(p, s)| {
                let lang = blast_radius::indexer::Language::from_path(p).unwrap();
                blast_radius::indexer::extract(p, lang, s).expect("the corpus reads")
            })
            .collect();
        let configs: Vec<(String, String)> =
            graph.configs().map(|(a, b)| (a.into(), b.into())).collect();
        let full = Graph::build(facts, configs);
        assert!(
            graph.edge_keys() == full.edge_keys(),
            "round {round}: incremental != full rebuild"
        );
        check_invariants(&graph, &sources);
    }
}

/// Real code fits the per-file extraction budgets with room to spare: no file of the
/// corpus is skipped as `too_costly`, and the largest share of each allowance it uses
/// is printed (the figures behind the constants in `extract/budget.rs`).
#[test]
#[ignore = "needs BLAST_CORPUS; run by .ci/run"]
fn corpus_files_fit_their_extraction_budgets() {
    use blast_radius::indexer::extract::{extract, last_spent};
    use blast_radius::indexer::Language;
    let dir = std::env::var("BLAST_CORPUS").expect("BLAST_CORPUS=DIR (see the file's doc)");
    let root = std::path::PathBuf::from(dir);
    let files = walk::read(&root, walk::list(&root).unwrap()).unwrap();
    let rules = SkipRules::default();
    // (share of the allowance, bytes per source byte, file) for steps, reports, bytes.
    let mut worst = [
        (0.0f64, 0.0f64, String::new()),
        Default::default(),
        Default::default(),
    ];
    // The most used per source byte in files of 64 KB and more, past the floors.
    let mut large = [0.0f64; 3];
    let mut read = 0;
    for f in &files {
        let Some(language) = Language::from_path(&f.path) else {
            continue;
        };
        let Ok(source) = rules.check(&f.path, &f.bytes) else {
            continue;
        };
        let result = extract(&f.path, language, source);
        let spent = last_spent();
        assert!(result.is_ok(), "{}: {:?} ({spent:?})", f.path, result.err());
        read += 1;
        let len = source.len().max(1) as f64;
        let figures = [
            (spent.steps as f64, spent.max_steps as f64),
            (spent.parse_reports as f64, spent.max_parse_reports as f64),
            (spent.parse_bytes as f64, spent.max_parse_bytes as f64),
        ];
        for ((w, l), (used, max)) in worst.iter_mut().zip(&mut large).zip(figures) {
            if used / max > w.0 {
                *w = (used / max, used / len, f.path.clone());
            }
            if len >= 65_536.0 {
                *l = l.max(used / len);
            }
        }
    }
    assert!(read > 1000, "a corpus of real size: {read} files");
    for ((name, (share, per_byte, path)), large) in ["walk steps", "parse reports", "parse bytes"]
        .iter()
        .zip(&worst)
        .zip(large)
    {
        eprintln!(
            "{name}: at most {:.1}% of the allowance ({per_byte:.2} per byte) in {path}; \
             at most {large:.2} per byte in files of 64 KB and more",
            share * 100.0
        );
        assert!(
            *share < 0.5,
            "{name}: real code uses {share:.2} of its allowance in {path}"
        );
    }
}
