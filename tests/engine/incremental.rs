//! `update_file`/`remove_file` must leave the graph equal to a full rebuild, whatever
//! the sequence of edits. Random repositories with colliding names, re-exports,
//! CommonJS and ESM, classes across files; random edits; compare after every step.

use crate::common;

use std::collections::BTreeMap;

use blast_radius::graph::Graph;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const NAMES: &[&str] = &[
    "render", "helper", "format", "init", "load", "save", "parse2",
];
const CLASSES: &[&str] = &["Repo", "Cache", "Service"];

fn pick<'a>(rng: &mut StdRng, items: &'a [&'a str]) -> &'a str {
    items[rng.random_range(0..items.len())]
}

fn file_name(i: usize) -> String {
    match i % 4 {
        0 => format!("src/m{i}.ts"),
        1 => format!("src/lib/m{i}.js"),
        2 => format!("src/lib/index{i}.tsx"),
        _ => format!("pkg/m{i}.cjs"),
    }
}

/// A relative specifier from `from` to `to`, without extension (as people write them).
fn specifier(from: &str, to: &str) -> String {
    let from_dir: Vec<&str> = from.split('/').collect::<Vec<_>>();
    let from_dir = &from_dir[..from_dir.len() - 1];
    let to_parts: Vec<&str> = to.split('/').collect();
    let common = from_dir
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<String> = Vec::new();
    for _ in common..from_dir.len() {
        parts.push("..".into());
    }
    for p in &to_parts[common..] {
        parts.push(p.to_string());
    }
    let mut spec = parts.join("/");
    if !spec.starts_with("..") {
        spec = format!("./{spec}");
    }
    spec.rsplit_once('.')
        .map(|(s, _)| s.to_string())
        .unwrap_or(spec)
}

fn random_file(rng: &mut StdRng, path: &str, all: &[String]) -> String {
    let mut src = String::new();
    let cjs = path.ends_with(".cjs") || rng.random_bool(0.2);
    let mut imported: Vec<String> = Vec::new();
    for _ in 0..rng.random_range(0..4) {
        let other = &all[rng.random_range(0..all.len())];
        if other == path {
            continue;
        }
        let spec = specifier(path, other);
        let name = pick(rng, NAMES);
        let local = format!("{name}_{}", imported.len());
        match rng.random_range(0..5) {
            0 if !cjs => src.push_str(&format!("import {{ {name} as {local} }} from '{spec}';\n")),
            1 if !cjs => src.push_str(&format!("import * as {local} from '{spec}';\n")),
            2 if !cjs => src.push_str(&format!("export * from '{spec}';\n")),
            3 => src.push_str(&format!(
                "const {{ {name}: {local} }} = require('{spec}');\n"
            )),
            _ => src.push_str(&format!("const {local} = require('{spec}');\n")),
        }
        imported.push(local);
    }
    if !cjs && rng.random_bool(0.3) {
        let other = &all[rng.random_range(0..all.len())];
        if other != path {
            let class = pick(rng, CLASSES);
            src.push_str(&format!(
                "import {{ {class} as Base }} from '{}';\n",
                specifier(path, other)
            ));
            src.push_str(&format!(
                "export class Sub extends Base {{ run() {{ this.{}(); super.{}(); }} }}\n",
                pick(rng, NAMES),
                pick(rng, NAMES)
            ));
        }
    }
    let mut exported = Vec::new();
    for _ in 0..rng.random_range(0..4) {
        let name = pick(rng, NAMES);
        let mut body = String::new();
        for _ in 0..rng.random_range(0..4) {
            match rng.random_range(0..5) {
                0 if !imported.is_empty() => {
                    let i = &imported[rng.random_range(0..imported.len())];
                    body.push_str(&format!("  {i}();\n"));
                }
                1 if !imported.is_empty() => {
                    let i = &imported[rng.random_range(0..imported.len())];
                    body.push_str(&format!("  {i}.{}();\n", pick(rng, NAMES)));
                }
                2 => body.push_str(&format!("  unknown.{}();\n", pick(rng, NAMES))),
                3 => body.push_str(&format!("  {}();\n", pick(rng, NAMES))),
                _ => body.push_str(&format!(
                    "  new {}().{}();\n",
                    pick(rng, CLASSES),
                    pick(rng, NAMES)
                )),
            }
        }
        if exported.contains(&name) {
            continue;
        }
        exported.push(name);
        if cjs {
            src.push_str(&format!(
                "exports.{name} = function ({}) {{\n{body}}};\n",
                "a"
            ));
        } else {
            src.push_str(&format!("export function {name}(a) {{\n{body}}}\n"));
        }
    }
    if rng.random_bool(0.5) {
        let class = pick(rng, CLASSES);
        let m = pick(rng, NAMES);
        let other = pick(rng, NAMES);
        let decl = format!("class {class} {{ {m}() {{ this.{other}(); }} {other}() {{}} }}\n");
        if cjs {
            src.push_str(&decl);
            src.push_str(&format!("module.exports.{class} = {class};\n"));
        } else {
            src.push_str(&format!("export {decl}"));
        }
    }
    if rng.random_bool(0.3) {
        src.push_str(&format!("{}();\n", pick(rng, NAMES)));
    }
    src
}

fn build(files: &BTreeMap<String, String>) -> Graph {
    common::graph_of(files.iter().map(|(p, s)| (p.as_str(), s.as_str())))
}

fn assert_same(incremental: &Graph, files: &BTreeMap<String, String>, step: &str) {
    let full = build(files);
    let (a, b) = (incremental.edge_keys(), full.edge_keys());
    if a != b {
        let only_inc: Vec<_> = a.iter().filter(|e| !b.contains(e)).collect();
        let only_full: Vec<_> = b.iter().filter(|e| !a.contains(e)).collect();
        panic!("after {step}: incremental differs from full rebuild\nonly incremental: {only_inc:#?}\nonly full: {only_full:#?}");
    }
    assert_eq!(
        incremental.reverse_keys(),
        full.reverse_keys(),
        "reverse index after {step}"
    );
}

#[test]
fn random_edit_sequences_equal_full_rebuilds() {
    for seed in 0..40u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let count = rng.random_range(3..12);
        let mut paths: Vec<String> = (0..count).map(file_name).collect();
        let mut files: BTreeMap<String, String> = BTreeMap::new();
        for p in &paths {
            files.insert(p.clone(), random_file(&mut rng, p, &paths));
        }
        let mut graph = build(&files);
        let mut next = count;
        for step in 0..25 {
            let label = format!("seed {seed} step {step}");
            match rng.random_range(0..10) {
                // Add a file (possibly one that other files already import).
                0 | 1 => {
                    let p = file_name(next);
                    next += 1;
                    paths.push(p.clone());
                    let src = random_file(&mut rng, &p, &paths);
                    graph.update_file(&p, &src);
                    files.insert(p, src);
                }
                // Remove a file.
                2 if files.len() > 1 => {
                    let p = files
                        .keys()
                        .nth(rng.random_range(0..files.len()))
                        .unwrap()
                        .clone();
                    graph.remove_file(&p);
                    files.remove(&p);
                }
                // A small edit: a call appended (nothing other files read changes, so
                // they are not re-resolved) or a definition appended (they are).
                3 | 4 => {
                    let p = files
                        .keys()
                        .nth(rng.random_range(0..files.len()))
                        .unwrap()
                        .clone();
                    let line = match rng.random_range(0..4) {
                        0 => format!("{}();", pick(&mut rng, NAMES)),
                        1 => format!(
                            "new {}().{}();",
                            pick(&mut rng, CLASSES),
                            pick(&mut rng, NAMES)
                        ),
                        2 => format!(
                            "export function {}() {{ return 1; }}",
                            pick(&mut rng, NAMES)
                        ),
                        _ => format!(
                            "export class {} {{ {}() {{}} }}",
                            pick(&mut rng, CLASSES),
                            pick(&mut rng, NAMES)
                        ),
                    };
                    let src = format!("{}\n{line}\n", files[&p]);
                    graph.update_file(&p, &src);
                    files.insert(p, src);
                }
                // Rewrite a file.
                _ => {
                    let p = files
                        .keys()
                        .nth(rng.random_range(0..files.len()))
                        .unwrap()
                        .clone();
                    let src = random_file(&mut rng, &p, &paths);
                    graph.update_file(&p, &src);
                    files.insert(p, src);
                }
            }
            assert_same(&graph, &files, &label);
        }
    }
}

#[test]
fn random_repositories_resolve_some_edges() {
    // Guards the test above against comparing two empty graphs.
    let mut rng = StdRng::seed_from_u64(7);
    let paths: Vec<String> = (0..10).map(file_name).collect();
    let files: BTreeMap<String, String> = paths
        .iter()
        .map(|p| (p.clone(), random_file(&mut rng, p, &paths)))
        .collect();
    let g = build(&files);
    let edges = g.edge_keys();
    assert!(edges.len() > 10, "{} edges", edges.len());
    assert!(
        edges.iter().any(|e| e.from_file != e.to_file),
        "cross-file edges"
    );
}

#[test]
fn declarations_appearing_beside_a_javascript_file_re_resolve_its_importers() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/resolve/declarations_beside");
    let read = |p: &str| std::fs::read_to_string(fixture.join(p)).expect("fixture file");
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    for p in ["app.js", "lib/client.js"] {
        files.insert(p.to_string(), read(p));
    }
    let mut graph = build(&files);
    let before = graph.edge_keys().len();

    // The declarations arrive: `client.get()` now resolves, through them.
    let declarations = read("lib/client.d.ts");
    graph.update_file("lib/client.d.ts", &declarations);
    files.insert("lib/client.d.ts".into(), declarations.clone());
    assert_same(&graph, &files, "adding the declarations");
    assert!(
        graph.edge_keys().len() > before,
        "the declarations add edges"
    );

    // They change: one method goes.
    let fewer = declarations.replace("  post(url: string): Promise<string>;\n", "");
    graph.update_file("lib/client.d.ts", &fewer);
    files.insert("lib/client.d.ts".into(), fewer);
    assert_same(&graph, &files, "editing the declarations");

    // They go.
    graph.remove_file("lib/client.d.ts");
    files.remove("lib/client.d.ts");
    assert_same(&graph, &files, "removing the declarations");
    assert_eq!(graph.edge_keys().len(), before);
}

/// Everything a graph answers, in a form two graphs compare by: its edges, its
/// reverse index and its export.
#[derive(PartialEq)]
struct Snapshot {
    edges: Vec<blast_radius::graph::EdgeKey>,
    reverse: Vec<(String, u32, String, u32)>,
    export: String,
}

fn snapshot(g: &Graph) -> Snapshot {
    use blast_radius::report::graph_export;
    Snapshot {
        edges: g.edge_keys(),
        reverse: g.reverse_keys(),
        export: graph_export::to_json(&graph_export::collect(g)),
    }
}

/// One random step of an edit sequence (add, remove, append to or rewrite a file),
/// applied to both `graph` and `files`.
fn random_step(
    rng: &mut StdRng,
    graph: &mut Graph,
    files: &mut BTreeMap<String, String>,
    paths: &mut Vec<String>,
) {
    let pick_file = |rng: &mut StdRng, files: &BTreeMap<String, String>| {
        let i = rng.random_range(0..files.len());
        files.keys().nth(i).unwrap().clone()
    };
    match rng.random_range(0..4) {
        0 => {
            let p = file_name(paths.len() + 1000);
            paths.push(p.clone());
            let src = random_file(rng, &p, paths);
            graph.update_file(&p, &src);
            files.insert(p, src);
        }
        1 if files.len() > 1 => {
            let p = pick_file(rng, files);
            graph.remove_file(&p);
            files.remove(&p);
        }
        2 => {
            let p = pick_file(rng, files);
            let line = format!("export function {}() {{ return 1; }}", pick(rng, NAMES));
            let src = format!("{}\n{line}\n", files[&p]);
            graph.update_file(&p, &src);
            files.insert(p, src);
        }
        _ => {
            let p = pick_file(rng, files);
            let src = random_file(rng, &p, paths);
            graph.update_file(&p, &src);
            files.insert(p, src);
        }
    }
}

#[test]
fn a_fork_and_its_original_update_apart() {
    for seed in 0..20u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let count = rng.random_range(3..12);
        let mut paths: Vec<String> = (0..count).map(file_name).collect();
        let base_files: BTreeMap<String, String> = paths
            .iter()
            .map(|p| (p.clone(), random_file(&mut rng, p, &paths)))
            .collect();
        let mut base = build(&base_files);
        let before = snapshot(&base);

        // A fork's updates leave the original as it was.
        let mut fork = base.clone();
        let mut fork_files = base_files.clone();
        for step in 0..10 {
            random_step(&mut rng, &mut fork, &mut fork_files, &mut paths);
            assert_same(&fork, &fork_files, &format!("seed {seed} fork step {step}"));
            assert!(
                snapshot(&base) == before,
                "seed {seed} step {step}: the original changed"
            );
        }

        // And the original's updates leave the fork as it was.
        let forked = snapshot(&fork);
        let mut files = base_files;
        for step in 0..10 {
            random_step(&mut rng, &mut base, &mut files, &mut paths);
            assert_same(&base, &files, &format!("seed {seed} original step {step}"));
            assert!(
                snapshot(&fork) == forked,
                "seed {seed} step {step}: the fork changed"
            );
        }
    }
}

/// The `declarations_apart` fixture's sources, and its package.json.
fn declarations_apart() -> (BTreeMap<String, String>, String) {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/resolve/declarations_apart");
    let paths = [
        "lib/index.js",
        "lib/parse.js",
        "lib/user.js",
        "types/index.d.ts",
        "types/parse.d.ts",
        "types/user.d.ts",
        "test-d/index.test-d.ts",
        "docs/example.mjs",
    ];
    let files = paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(fixture.join(p)).expect("fixture file");
            (p.to_string(), text)
        })
        .collect();
    let package = std::fs::read_to_string(fixture.join("package.json")).unwrap();
    (files, package)
}

/// A graph of `files` with `package` as the root package.json.
fn with_package(files: &BTreeMap<String, String>, package: &str) -> Graph {
    use blast_radius::indexer::{extract, Language};
    let facts = files
        .iter()
        .map(|(p, s)| extract(p, Language::from_path(p).unwrap(), s).expect("read"))
        .collect();
    Graph::build(facts, vec![("package.json".into(), package.to_string())])
}

/// Declarations that live apart from their code are paired with it when a query first
/// asks; an edit to either side (or to the package's entries) pairs them again, as a
/// fresh build of the same files does.
#[test]
fn declarations_apart_follow_edits_to_either_side() {
    use blast_radius::graph::DefId;
    let (mut files, mut package) = declarations_apart();
    let full = with_package;
    // The declarations standing for `lib/user.js`'s `User.save`, and its callers (the
    // type test's two calls, through the declaration or, without one, directly).
    let save = |g: &Graph| {
        let f = g.file_id("lib/user.js").unwrap();
        let facts = g.facts(f);
        let save = (0..facts.defs.len() as u32)
            .find(|&i| facts.def_qualified(i) == "User.save")
            .unwrap();
        let save = DefId::new(f, save);
        (g.declared_as(save).len(), g.callers_of(save).len())
    };
    let mut g = full(&files, &package);
    assert_eq!(save(&g), (1, 2), "the type tests' calls, through types/");

    let edit = |g: &mut Graph, files: &mut BTreeMap<String, String>, path: &str, text: String| {
        g.update_file(path, &text);
        files.insert(path.to_string(), text);
    };
    // A file the pairing did not read: the pairing holds.
    let example = files["docs/example.mjs"].clone() + "parseX('c')\n";
    edit(&mut g, &mut files, "docs/example.mjs", example);
    assert!(
        snapshot(&g) == snapshot(&full(&files, &package)),
        "an unrelated edit"
    );
    // The declaration goes: its callers are no one's.
    let user = files["types/user.d.ts"].replace("  save(): object\n", "");
    edit(&mut g, &mut files, "types/user.d.ts", user);
    assert!(
        snapshot(&g) == snapshot(&full(&files, &package)),
        "a declaration removed"
    );
    assert_eq!(
        save(&g),
        (0, 2),
        "the code says what the declarations leave out"
    );
    // It comes back under the code's class.
    let user = files["types/user.d.ts"].replace(
        "  constructor(row: object)\n",
        "  constructor(row: object)\n  save(): object\n",
    );
    edit(&mut g, &mut files, "types/user.d.ts", user);
    assert!(
        snapshot(&g) == snapshot(&full(&files, &package)),
        "a declaration back"
    );
    assert_eq!(save(&g), (1, 2));
    // The code renames the method: the declaration stands for nothing.
    let code = files["lib/user.js"].replace("save ()", "store ()");
    edit(&mut g, &mut files, "lib/user.js", code);
    assert!(
        snapshot(&g) == snapshot(&full(&files, &package)),
        "the code renamed"
    );
    // The package's types move: the imports of the package lead to the code again.
    package = package.replace(
        "\"types\": \"types/index.d.ts\"",
        "\"types\": \"gone.d.ts\"",
    );
    g.update_file("package.json", &package);
    assert!(
        snapshot(&g) == snapshot(&full(&files, &package)),
        "the types field"
    );
}

/// A fork made before the pairing was worked out, then edited, pairs its own files:
/// the original's first query does not answer for it, nor its for the original.
#[test]
fn a_fork_pairs_its_own_declarations() {
    let (files, package) = declarations_apart();
    let base = with_package(&files, &package);
    let before = snapshot(&base);
    let mut fork = base.clone();
    let mut fork_files = files.clone();
    let user = files["types/user.d.ts"].replace("  save(): object\n", "");
    fork.update_file("types/user.d.ts", &user);
    fork_files.insert("types/user.d.ts".into(), user);
    // The original asks first, then the fork.
    assert!(
        snapshot(&base) == before,
        "the original pairs its own files"
    );
    assert!(
        snapshot(&fork) == snapshot(&with_package(&fork_files, &package)),
        "the fork pairs its own files"
    );
    // And the other way round, from a fresh fork.
    let base = with_package(&files, &package);
    let mut fork = base.clone();
    let code = files["lib/user.js"].replace("save ()", "store ()");
    fork.update_file("lib/user.js", &code);
    fork_files = files.clone();
    fork_files.insert("lib/user.js".into(), code);
    assert!(snapshot(&fork) == snapshot(&with_package(&fork_files, &package)));
    assert!(snapshot(&base) == before);
}
