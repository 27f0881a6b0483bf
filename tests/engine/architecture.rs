//! The project's structure as a newcomer sees it: the engine crate links no IO crate and
//! names nothing of the app, each top-level module of either crate imports only the layers
//! below it, and no two files of a module import each other in a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use petgraph::algo::tarjan_scc;
use petgraph::graphmap::DiGraphMap;

/// Each module of a crate and the modules it may import.
type Layers = &'static [(&'static str, &'static [&'static str])];

/// The engine's modules (`crates/engine/src`) and the modules each may import. The crate
/// itself links no IO crate (`engine_links_no_io_crate`); this orders its modules.
const ENGINE_LAYERS: Layers = &[
    ("model", &[]),
    // Outside text made safe to show in markdown: below everything that echoes it.
    ("escape", &[]),
    // Stopping CPU work from outside (a job's deadline): below everything that loops.
    ("cancel", &[]),
    ("indexer", &["model", "cancel"]),
    ("graph", &["indexer", "model", "cancel"]),
    ("blast", &["graph", "indexer", "model"]),
    // Across service boundaries: a change's handlers and who reaches them.
    ("links", &["blast", "graph", "indexer", "model"]),
    ("query", &["graph", "indexer", "model"]),
    // Across repositories: other repositories' calls linked to an owner's graph.
    ("org", &["blast", "graph", "indexer", "model"]),
    ("thread_commands", &["escape"]),
    // A repository's .github/blast-radius.yml: pure, read by the jobs.
    ("repo_config", &["graph"]),
    (
        "report",
        &[
            "blast",
            "org",
            "links",
            "repo_config",
            "query",
            "graph",
            "indexer",
            "model",
            "escape",
        ],
    ),
];

/// The app's modules (`src`) and the modules each may import: its own, and the engine's
/// through the re-exports in `lib.rs` (`crate::graph` is the engine's `graph`).
/// `workflow::source` is named apart: the traits that `workspace` (and later `github`)
/// implement for the workflows.
const APP_LAYERS: Layers = &[
    ("store", &["graph", "indexer", "links", "model", "org"]),
    // The app's IO edges: each speaks one protocol and knows no workflow.
    ("github", &["model"]),
    // The queue stores text by the store's rule for what Postgres accepts.
    ("queue", &["model", "cancel", "store::text"]),
    // Which commands a comment holds is read by the (pure) command grammar.
    ("intake", &["queue", "model", "thread_commands"]),
    ("workspace", &["indexer", "model", "workflow::source"]),
    // A workflow may ask the engine's questions of a graph it put together
    // (`callers_read`: callers on a graph of part of the stored rows).
    (
        "workflow",
        &[
            "blast", "graph", "indexer", "links", "model", "org", "report", "store", "cancel",
            "query",
        ],
    ),
    (
        "jobs",
        &[
            "workflow",
            "workspace::walk",
            "store",
            "github",
            "queue",
            "intake::delivery_jobs",
            "thread_commands",
            "repo_config",
            "query",
            "blast",
            "org",
            "links",
            "graph",
            "indexer",
            "model",
            "report",
        ],
    ),
    (
        "server",
        &[
            "jobs", "intake", "queue", "github", "store", "indexer", "model",
        ],
    ),
    // The MCP server: an edge of its own (the protocol), over the workflows and queries.
    (
        "mcp",
        &[
            "workflow",
            "workspace",
            "store",
            "query",
            "org",
            "links",
            "blast",
            "graph",
            "indexer",
            "model",
            "report",
        ],
    ),
    // The CLI is the top: it may reach the queue too (`jobs list`, `jobs retry-dead`).
    (
        "cli",
        &[
            "mcp",
            "server",
            "queue",
            "intake",
            "workflow",
            "workspace",
            "store",
            "jobs",
            "query",
            "org",
            "blast",
            "graph",
            "indexer",
            "model",
            "report",
        ],
    ),
];

/// Crates an engine must never link: a database, a web server, GitHub's client, an async
/// runtime, the MCP SDK. Engine work builds and tests without them.
const IO_CRATES: &[&str] = &[
    "sqlx", "axum", "octocrab", "tokio", "rmcp", "reqwest", "hyper", "notify",
];

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Each crate's source root with the layers of its modules.
fn crates() -> [(PathBuf, Layers); 2] {
    [
        (manifest_dir().join("crates/engine/src"), ENGINE_LAYERS),
        (manifest_dir().join("src"), APP_LAYERS),
    ]
}

#[test]
fn engine_links_no_io_crate() {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--package",
            "blast-radius-engine",
            "--edges",
            "normal,build",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(manifest_dir())
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8(out.stdout).unwrap();
    let names: BTreeSet<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(
        names.contains("tree-sitter"),
        "cargo tree lists the engine's dependencies:\n{tree}"
    );
    let linked: Vec<&&str> = IO_CRATES.iter().filter(|c| names.contains(**c)).collect();
    assert!(linked.is_empty(), "the engine links IO crates: {linked:?}");
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `crate::a::b` paths named in a file (in `use` lines and in code), as (a, b). In the
/// app, `blast_radius_engine::a::b` is the same `crate::a::b` by another road.
fn crate_paths(text: &str) -> BTreeSet<(String, String)> {
    let text = &text.replace("blast_radius_engine::", "crate::");
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("crate::") {
        let before = text[..i].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `blast_radius::...crate::` or an identifier ending in crate
        }
        let rest = &text[i + "crate::".len()..];
        let ident = |s: &str| -> String {
            s.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        };
        let first = ident(rest);
        let second = rest[first.len()..]
            .strip_prefix("::")
            .map(ident)
            .unwrap_or_default();
        out.insert((first, second));
    }
    out
}

/// A file's top-level module: `src/graph/x.rs` and `src/graph.rs` are `graph`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

#[test]
fn modules_import_only_the_layers_below_them() {
    let mut wrong = Vec::new();
    for (src, layers) in crates() {
        let layers: BTreeMap<&str, &[&str]> = layers.iter().copied().collect();
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for file in &files {
            let module = module_of(&src, file);
            if matches!(module.as_str(), "lib" | "main") {
                continue;
            }
            let Some(allowed) = layers.get(module.as_str()) else {
                wrong.push(format!(
                    "{module}: not in its crate's layers (add it with what it may import)"
                ));
                continue;
            };
            let text = std::fs::read_to_string(file).unwrap();
            for (first, second) in crate_paths(&text) {
                if first == module {
                    continue;
                }
                let qualified = format!("{first}::{second}");
                if !allowed.contains(&first.as_str()) && !allowed.contains(&qualified.as_str()) {
                    wrong.push(format!(
                        "{}: imports crate::{qualified}",
                        file.strip_prefix(manifest_dir()).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

/// The engine reaches nothing of the app: no path names the app's crate.
#[test]
fn engine_names_nothing_of_the_app() {
    let mut files = Vec::new();
    rust_files(&manifest_dir().join("crates/engine/src"), &mut files);
    let naming: Vec<String> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .contains("blast_radius::")
        })
        .map(|f| {
            f.strip_prefix(manifest_dir())
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    assert!(naming.is_empty(), "engine files naming the app: {naming:?}");
}

/// The modules inside `dir`: each file (but `mod.rs`, which declares the others, and
/// `tests.rs`) and each subdirectory, a module of several files seen from outside as one.
/// With the files of each, test files left out.
fn sibling_modules(dir: &Path) -> Vec<(String, Vec<PathBuf>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            let mut files = Vec::new();
            rust_files(&path, &mut files);
            files.retain(|f| f.file_stem().is_some_and(|s| s != "tests"));
            out.push((name, files));
        } else if path.extension().is_some_and(|e| e == "rs") && name != "mod" && name != "tests" {
            out.push((name, vec![path]));
        }
    }
    out.sort();
    out
}

/// Whether `text`, of a module `levels` below the directory `module_path` (`::`-separated,
/// empty for the crate's root), names that directory's module `other`: by a path from the
/// crate's root, or by as many `super::` as lead there.
fn names_sibling(text: &str, levels: usize, module_path: &str, other: &str) -> bool {
    let absolute = match module_path {
        "" => format!("crate::{other}::"),
        path => format!("crate::{path}::{other}::"),
    };
    let relative = format!("{}{other}::", "super::".repeat(levels));
    text.contains(&absolute)
        // Not `super::super::other::` when one `super::` leads to the directory.
        || text
            .match_indices(&relative)
            .any(|(i, _)| !text[..i].ends_with("::"))
}

/// No two modules of one directory (its files and subdirectories) name each other, directly
/// or around a circle, through `super::` or `crate::` paths.
#[test]
fn no_circular_imports_between_files() {
    let mut cycles = Vec::new();
    for (src, _) in crates() {
        cycles.extend(cycles_under(&src));
    }
    cycles.sort();
    assert!(
        cycles.is_empty(),
        "modules importing each other:\n{}",
        cycles.join("\n")
    );
}

/// The circles among sibling modules in every directory under a crate's `src`.
fn cycles_under(src: &Path) -> Vec<String> {
    let mut dirs = vec![src.to_path_buf()];
    let mut cycles = Vec::new();
    while let Some(dir) = dirs.pop() {
        let modules = sibling_modules(&dir);
        let module_path = dir
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('/', "::");
        let mut graph: DiGraphMap<usize, ()> = DiGraphMap::new();
        for (i, (_, files)) in modules.iter().enumerate() {
            graph.add_node(i);
            for file in files {
                // As many `super::` as lead from the file's module to `dir`'s.
                let rel = file.strip_prefix(&dir).unwrap();
                let mut levels = rel.components().count();
                if file.file_stem().is_some_and(|s| s == "mod") {
                    levels -= 1;
                }
                let text = std::fs::read_to_string(file).unwrap();
                // Test modules may reach anything.
                let text = text.split("#[cfg(test)]").next().unwrap();
                for (j, (other, _)) in modules.iter().enumerate() {
                    if i != j && names_sibling(text, levels, &module_path, other) {
                        graph.add_edge(i, j, ());
                    }
                }
            }
        }
        for scc in tarjan_scc(&graph) {
            if scc.len() > 1 {
                let mut members: Vec<&str> = scc.iter().map(|&i| modules[i].0.as_str()).collect();
                members.sort();
                let at = dir
                    .strip_prefix(manifest_dir())
                    .unwrap()
                    .display()
                    .to_string();
                cycles.push(format!("{at}: {}", members.join(" <-> ")));
            }
        }
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            }
        }
    }
    cycles
}
