//! What reading a component file costs against parsing the code in it (issue 43):
//!   BLAST_CORPUS=REPO [BLAST_ROUNDS=5] cargo bench --bench components
//! REPO is any checkout holding `.vue`, `.svelte` or `.astro` files. One thread, the
//! files in memory, best of the rounds. Prints, per kind and in all:
//! - parse: tree-sitter parsing the component's program alone (its scripts and its
//!   template's expressions, at their places: the code the file holds), one parser
//!   reused, as any tree-sitter user would;
//! - same as .ts: reading that program as a plain TypeScript file would be read
//!   (parse and extraction: what any file costs);
//! - component: reading the component file as the index does (finding its blocks,
//!   building the program, parsing, extracting, its template's tags and the Options API).
//!
//! The ratio of the last to the first is the target (at most 1.3); the last to
//! the second is what being a component adds to reading the same code.

use std::time::Instant;

use blast_radius::indexer::component::{grammar_for, program_text, script_blocks};
use blast_radius::indexer::{extract, Language};
use blast_radius::workspace::walk;

mod common;

fn main() {
    let root = common::corpus();
    let paths = walk::list(&root).expect("listing the repository");
    let files = walk::read(&root, paths).expect("reading the repository");
    let components: Vec<(String, Language, String)> = files
        .into_iter()
        .filter_map(|f| {
            let language = Language::from_path(&f.path)?;
            language.component()?;
            Some((f.path, language, String::from_utf8(f.bytes).ok()?))
        })
        .collect();
    let bytes: usize = components.iter().map(|c| c.2.len()).sum();
    println!(
        "{}: {} component files, {:.1} MB",
        root.display(),
        components.len(),
        bytes as f64 / 1e6
    );
    // The programs, made once: parsing them alone is the baseline.
    let programs: Vec<(Language, Language, String)> = components
        .iter()
        .map(|(_, language, source)| {
            let kind = language.component().expect("a component");
            let blocks = script_blocks(kind, source);
            (
                *language,
                grammar_for(kind, &blocks),
                program_text(kind, source, &blocks),
            )
        })
        .collect();
    let rounds: usize = std::env::var("BLAST_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let kinds = [Language::Vue, Language::Svelte, Language::Astro];
    let mut best = [[f64::INFINITY; 3]; 3];
    let mut parser = tree_sitter::Parser::new();
    for _ in 0..rounds {
        for (k, kind) in kinds.iter().enumerate() {
            // Parsing alone.
            let start = Instant::now();
            for (language, grammar, program) in &programs {
                if language == kind {
                    parser.set_language(&grammar.grammar()).unwrap();
                    std::hint::black_box(
                        parser
                            .parse(program, None)
                            .map(|t| t.root_node().child_count()),
                    );
                }
            }
            best[k][0] = best[k][0].min(start.elapsed().as_secs_f64());
            // The same program read as a TypeScript (or TSX) file.
            let start = Instant::now();
            for (language, grammar, program) in &programs {
                if language == kind {
                    let path = if *grammar == Language::Tsx {
                        "x.tsx"
                    } else {
                        "x.ts"
                    };
                    std::hint::black_box(
                        extract(path, *grammar, program).ok().map(|f| f.calls.len()),
                    );
                }
            }
            best[k][1] = best[k][1].min(start.elapsed().as_secs_f64());
            // The component as the index reads it.
            let start = Instant::now();
            for (path, language, source) in &components {
                if language == kind {
                    std::hint::black_box(
                        extract(path, *language, source).ok().map(|f| f.calls.len()),
                    );
                }
            }
            best[k][2] = best[k][2].min(start.elapsed().as_secs_f64());
        }
    }
    let mut all = [0.0; 3];
    for (k, kind) in kinds.iter().enumerate() {
        let n = components.iter().filter(|c| c.1 == *kind).count();
        if n == 0 {
            continue;
        }
        for i in 0..3 {
            all[i] += best[k][i];
        }
        report(kind.name(), n, best[k]);
    }
    report("all", components.len(), all);
}

fn report(what: &str, files: usize, [parse, as_ts, component]: [f64; 3]) {
    println!(
        "{what}: {files} files; parse {:.1} ms, same as .ts {:.1} ms, component {:.1} ms; \
         component / parse {:.2}, component / same as .ts {:.2}",
        parse * 1e3,
        as_ts * 1e3,
        component * 1e3,
        component / parse,
        component / as_ts
    );
}
