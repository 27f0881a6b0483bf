//! Declarations paired with the code they declare, where the two live apart: a
//! package's hand-written `types/*.d.ts` and its JavaScript, a declared factory's return
//! type and the object the JavaScript factory returns. TypeScript resolves calls to the
//! declarations; the pairing makes their callers callers of the code too.
//!
//! The pairing is worked out, package by package, when a query first needs it. A change
//! to a file keeps the packages whose walk did not read it; the others are worked out
//! again at the next query (all of them when a config changes). So a PR's head, laid
//! over the base's graph, pays for the packages it touched, not for the repository.

use std::sync::{Arc, OnceLock};

use rustc_hash::{FxHashMap, FxHashSet};

use super::interner::NameId;
use super::{Confidence, DefId, FileId, Graph};
use crate::indexer::facts::{DefKind, Reach};

/// Declaration ⇄ code pairs, each with how sure the pairing is.
#[derive(Default, Debug)]
pub(crate) struct Declared {
    /// Code definition -> the declarations that stand for it.
    by_code: FxHashMap<DefId, Vec<(DefId, Confidence)>>,
    /// Declaration -> the code it stands for.
    by_declaration: FxHashMap<DefId, Vec<(DefId, Confidence)>>,
    /// The packages' pairs these were put together from, with what each read.
    groups: Vec<Arc<PairGroup>>,
}

impl Declared {
    /// From each package's (declaration, code) pairs with their confidence.
    pub(crate) fn new(groups: Vec<Arc<PairGroup>>) -> Declared {
        let mut pairs: FxHashMap<(DefId, DefId), Confidence> = FxHashMap::default();
        for &(pair, confidence) in groups.iter().flat_map(|g| g.pairs.iter()) {
            let best = pairs.entry(pair).or_insert(confidence);
            *best = (*best).min(confidence);
        }
        // A declaration that stands for several functions is one of them: `likely`.
        let mut codes: FxHashMap<DefId, usize> = FxHashMap::default();
        for &(declaration, _) in pairs.keys() {
            *codes.entry(declaration).or_default() += 1;
        }
        for (&(declaration, _), confidence) in pairs.iter_mut() {
            if codes[&declaration] > 1 {
                *confidence = (*confidence).max(Confidence::Likely);
            }
        }
        let mut by_code: FxHashMap<DefId, Vec<(DefId, Confidence)>> = FxHashMap::default();
        let mut by_declaration: FxHashMap<DefId, Vec<(DefId, Confidence)>> = FxHashMap::default();
        for (&(declaration, code), &confidence) in &pairs {
            by_code
                .entry(code)
                .or_default()
                .push((declaration, confidence));
            by_declaration
                .entry(declaration)
                .or_default()
                .push((code, confidence));
        }
        for list in by_code.values_mut().chain(by_declaration.values_mut()) {
            list.sort();
        }
        Declared {
            by_code,
            by_declaration,
            groups,
        }
    }
}

/// The pairs one package's entries lead to, and what finding them read: the unit a
/// graph kept current works out again when a file it read changes.
#[derive(Debug)]
pub(crate) struct PairGroup {
    /// The package's directory (the one holding its package.json; "" for none).
    pub(crate) package: String,
    /// (declaration module, code module) entries, by the code's path.
    pub(crate) roots: Vec<(FileId, FileId)>,
    pub(crate) pairs: Vec<((DefId, DefId), Confidence)>,
    /// Every file whose facts or import targets the walk read.
    pub(crate) reads: FxHashSet<FileId>,
    /// Whether the walk read the repository's global scope (`Window`, `globalThis`).
    pub(crate) global_scope: bool,
}

impl PairGroup {
    /// Whether a change to file `f` (one that declares the global scope or not) can
    /// change this group's pairs.
    pub(crate) fn affected_by(&self, f: FileId, declares_global_scope: bool) -> bool {
        self.reads.contains(&f) || (declares_global_scope && self.global_scope)
    }
}

/// The graph's pairing, worked out on first use (see the module doc), and the groups of
/// an earlier one that a change left valid, to be taken as they are.
#[derive(Default, Clone)]
pub(crate) struct DeclaredCache {
    cell: Arc<OnceLock<Declared>>,
    kept: Arc<Vec<Arc<PairGroup>>>,
}

impl DeclaredCache {
    /// The groups a change is checked against: the pairing's, or those kept for it.
    fn groups(&self) -> &[Arc<PairGroup>] {
        match self.cell.get() {
            Some(declared) => &declared.groups,
            None => &self.kept,
        }
    }
}

impl Graph {
    /// Every declaration ⇄ code pair, worked out if it was not: (code, declaration,
    /// confidence), sorted. What a store keeps so that a graph of part of a repository
    /// can be given them ([`Graph::set_declared_pairs`]).
    pub fn declared_pairs(&self) -> Vec<(DefId, DefId, Confidence)> {
        let mut out: Vec<(DefId, DefId, Confidence)> = self
            .declared()
            .by_code
            .iter()
            .flat_map(|(&code, list)| list.iter().map(move |&(d, c)| (code, d, c)))
            .collect();
        out.sort();
        out
    }

    /// Gives the graph its pairs instead of working them out: a graph restored from part
    /// of a repository's rows lacks files the walks read, and takes the pairs the whole
    /// graph stored ([`Graph::declared_pairs`]). Their confidences are final: a
    /// declaration that stands for several functions is `likely` already.
    pub fn set_declared_pairs(&mut self, pairs: Vec<(DefId, DefId, Confidence)>) {
        let group = PairGroup {
            package: String::new(),
            roots: Vec::new(),
            pairs: pairs
                .into_iter()
                .map(|(code, declaration, c)| ((declaration, code), c))
                .collect(),
            reads: FxHashSet::default(),
            global_scope: false,
        };
        let cell = OnceLock::new();
        let _ = cell.set(Declared::new(vec![Arc::new(group)]));
        self.declared = DeclaredCache {
            cell: Arc::new(cell),
            kept: Arc::new(Vec::new()),
        };
    }

    fn declared(&self) -> &Declared {
        self.declared
            .cell
            .get_or_init(|| self.pair_declarations(&self.declared.kept))
    }

    /// The declarations, apart from `d`'s file, that stand for the code definition `d`:
    /// calls resolved to them are calls of `d`.
    pub fn declared_as(&self, d: DefId) -> &[(DefId, Confidence)] {
        self.declared().by_code.get(&d).map_or(&[], Vec::as_slice)
    }

    /// The code a declaration stands for, where the two live apart.
    pub fn implementations_of(&self, d: DefId) -> &[(DefId, Confidence)] {
        self.declared()
            .by_declaration
            .get(&d)
            .map_or(&[], Vec::as_slice)
    }

    /// File `f`'s facts or targets are about to change, or it is about to come or go:
    /// the pairing is put together again when next needed, from the packages whose
    /// walk did not read `f` as they are and the others worked out again. (Even when
    /// no walk read `f`, the entries may change: a new file can be a package's code
    /// or declarations.) `f` as it is now is what is looked at; a caller replacing its
    /// facts calls this again with the new ones in place.
    pub(crate) fn forget_declared_if_read(&mut self, f: FileId) {
        let global = !self.declared.groups().is_empty() && self.declares_global_scope(f);
        let cache = &mut self.declared;
        // Not worked out yet and not shared with a fork that could fill it from its
        // own files: nothing to forget unless a kept group read `f`.
        let own_and_empty = Arc::get_mut(&mut cache.cell).is_some_and(|c| c.get().is_none());
        let groups = cache.groups();
        if own_and_empty && !groups.iter().any(|g| g.affected_by(f, global)) {
            return;
        }
        let kept = groups
            .iter()
            .filter(|g| !g.affected_by(f, global))
            .cloned()
            .collect();
        *cache = DeclaredCache {
            cell: Default::default(),
            kept: Arc::new(kept),
        };
    }

    /// The configs change: every import may lead elsewhere, every pairing may change.
    pub(crate) fn forget_declared(&mut self) {
        match Arc::get_mut(&mut self.declared.cell) {
            Some(cell) if cell.get().is_none() && self.declared.kept.is_empty() => {}
            _ => self.declared = DeclaredCache::default(),
        }
    }

    /// Whether file `f` declares part of the global scope a pairing may read
    /// (`interface Window`, `declare global { var x }`).
    fn declares_global_scope(&self, f: FileId) -> bool {
        let Some(slot) = self.files.get(f.0 as usize).and_then(Option::as_ref) else {
            return false;
        };
        let globals = ["Window", "globalThis"].map(|n| self.names.get(n));
        slot.facts().defs.iter().any(|d| {
            globals.contains(&Some(NameId(d.name)))
                && (d.kind == DefKind::Interface
                    || matches!(d.reach, Reach::Global | Reach::ScriptGlobal))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexer::{extract, Language};

    /// Two packages whose declarations live beside their JavaScript, and an app that
    /// calls into both.
    fn files() -> Vec<(String, String)> {
        let mut files = Vec::new();
        for (package, function) in [("a", "run"), ("b", "go")] {
            let path = |name: &str| format!("packages/{package}/{name}");
            files.push((
                path("package.json"),
                format!(r#"{{ "name": "{package}", "main": "index.js" }}"#),
            ));
            files.push((
                path("index.js"),
                format!(
                    "export function {function}() {{ return helper(); }}\nfunction helper() {{}}\n"
                ),
            ));
            files.push((
                path("index.d.ts"),
                format!("export declare function {function}(): void;\n"),
            ));
        }
        files.push((
            "app.ts".to_string(),
            "import { run } from './packages/a';\nimport { go } from './packages/b';\nrun();\ngo();\n"
                .to_string(),
        ));
        files
    }

    fn graph(files: &[(String, String)]) -> Graph {
        let (configs, sources): (Vec<_>, Vec<_>) =
            files.iter().partition(|(p, _)| p.ends_with("package.json"));
        let facts = sources
            .iter()
            .map(|(p, s)| extract(p, Language::from_path(p).unwrap(), s).expect("read"))
            .collect();
        let configs = configs
            .iter()
            .map(|&(p, s)| (p.clone(), s.clone()))
            .collect();
        Graph::build(facts, configs)
    }

    /// Every pair, by path and qualified name: two graphs compare by it.
    fn pairs(g: &Graph) -> Vec<(String, String, Confidence)> {
        let name = |d: DefId| {
            let facts = g.facts(d.file);
            format!("{}:{}", facts.path, facts.def_qualified(d.def))
        };
        let mut out: Vec<_> = g
            .declared()
            .by_declaration
            .iter()
            .flat_map(|(&d, codes)| codes.iter().map(move |&(c, conf)| (d, c, conf)))
            .map(|(d, c, conf)| (name(d), name(c), conf))
            .collect();
        out.sort();
        out
    }

    fn group<'g>(g: &'g Graph, package: &str) -> &'g Arc<PairGroup> {
        g.declared()
            .groups
            .iter()
            .find(|group| {
                group.pairs.iter().any(|&((d, _), _)| {
                    g.facts(d.file)
                        .path
                        .starts_with(&format!("packages/{package}/"))
                })
            })
            .expect("the package has pairs")
    }

    #[test]
    fn a_fork_works_out_again_only_the_packages_whose_files_changed() {
        let mut files = files();
        let base = graph(&files);
        assert_eq!(pairs(&base).len(), 2, "{:?}", pairs(&base));

        // The fork changes package a's code: a is paired again, b is taken as it was.
        let mut fork = base.clone();
        let edited = "export function run() { return helper(); }\nexport function run2() {}\nfunction helper() {}\n";
        fork.update_file("packages/a/index.js", edited);
        files[1].1 = edited.to_string();
        assert!(Arc::ptr_eq(group(&fork, "b"), group(&base, "b")));
        assert!(!Arc::ptr_eq(group(&fork, "a"), group(&base, "a")));
        assert_eq!(pairs(&fork), pairs(&graph(&files)));

        // A declaration removed from a: its pair goes, b's stays the same one.
        let mut fork2 = fork.clone();
        fork2.update_file(
            "packages/a/index.d.ts",
            "export declare function other(): void;\n",
        );
        files[2].1 = "export declare function other(): void;\n".to_string();
        assert_eq!(pairs(&fork2), pairs(&graph(&files)));
        assert_eq!(pairs(&fork2).len(), 1);
        assert!(Arc::ptr_eq(group(&fork2, "b"), group(&base, "b")));

        // A new file in the repository, read by no walk: every group is kept.
        let mut fork3 = fork2.clone();
        fork3.update_file("other.ts", "export function unrelated() {}\n");
        files.push(("other.ts".into(), "export function unrelated() {}\n".into()));
        assert_eq!(pairs(&fork3), pairs(&graph(&files)));
        assert!(Arc::ptr_eq(group(&fork3, "b"), group(&base, "b")));

        // A new package without a package.json: its entries are new, its pairs found.
        let mut fork5 = fork3.clone();
        for (name, text) in [
            ("index.js", "export function stop() {}\n"),
            ("index.d.ts", "export declare function stop(): void;\n"),
        ] {
            fork5.update_file(&format!("packages/c/{name}"), text);
            files.push((format!("packages/c/{name}"), text.into()));
        }
        assert_eq!(pairs(&fork5), pairs(&graph(&files)));
        assert_eq!(pairs(&fork5).len(), pairs(&fork3).len() + 1);
        assert!(Arc::ptr_eq(group(&fork5, "b"), group(&base, "b")));

        // A config change pairs everything again.
        let mut fork4 = fork3.clone();
        fork4.update_file(
            "packages/b/package.json",
            r#"{ "name": "b", "main": "index.js" }"#,
        );
        assert!(!Arc::ptr_eq(group(&fork4, "b"), group(&base, "b")));
        assert_eq!(pairs(&fork4), pairs(&fork3));
    }
}
