//! Which declaration stands for which code, where a package's declarations live apart
//! from its JavaScript (see `graph/declared.rs`).
//!
//! Two entries are paired first: a JavaScript file and the declaration file beside it
//! (`x.js`, `x.d.ts`), and a package's declaration entry (`types`, `typings`, the
//! `types` condition of `exports`) and its code entry (`exports`, `main`). Then, as
//! TypeScript would read the two, each export of the declarations with the export of
//! the same name of the code; each declared function's stated return with what the
//! JavaScript function returns; each member of a declared type with the member of the
//! same name of the code's value. A pair is `exact` when each lookup on the code's side
//! found one definition, `likely` when it found several.
//!
//! The walk is breadth first with a depth bound, so which pairs it finds does not depend
//! on the order of files or names (a graph kept current pairs as a fresh one does). It
//! runs per package, from that package's entries: a change works out again only the
//! packages whose walk read a changed file.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::{Resolver, Vals, Value};
use crate::graph::declared::{Declared, PairGroup};
use crate::graph::interner::NameId;
use crate::graph::{Confidence, DefId, FileId, Graph};
use crate::indexer::facts::*;

/// Links from an entry to the pairs it leads to: export, return, member, and so on.
const MAX_LINKS: u32 = 8;
/// Pairs of values examined from one package's entries, at most: a bound for
/// pathological inputs.
const MAX_TASKS: usize = 200_000;
/// A file id no file has: the pairing reads every file as another's, so each is noted.
const NO_FILE: FileId = FileId(u32::MAX);

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Task {
    /// A declaration module and a code module.
    Modules(FileId, FileId),
    /// A declared value and a code value.
    Values(Value, Value),
}

struct Pairing<'g> {
    r: Resolver<'g>,
    queue: VecDeque<(Task, Confidence, u32)>,
    seen: FxHashSet<(Task, Confidence)>,
    pairs: FxHashMap<(DefId, DefId), Confidence>,
}

impl Graph {
    /// Works out the declaration ⇄ code pairs of the whole graph, package by package,
    /// taking from `kept` the groups of an earlier pairing that are still valid (same
    /// package, same entries, nothing they read changed since).
    ///
    /// A pair found from several packages' entries is found by each, at the least
    /// depth of any, so the union is what one walk from every entry would give (the
    /// task bound aside, which is now each package's own).
    pub(crate) fn pair_declarations(&self, kept: &[Arc<PairGroup>]) -> Declared {
        let mut roots: Vec<(&str, FileId, FileId)> = Vec::new();
        for f in self.file_ids() {
            let facts = self.slot(f).facts();
            if facts.declaration_only {
                continue;
            }
            if let Some(d) = self.declarations_beside(&facts.path) {
                roots.push((facts.path.as_str(), d, f));
            }
        }
        let exists = |p: &str| self.by_path.contains(p);
        for (declared, code) in self.resolver.declared_entries(&exists) {
            if let (Some(d), Some(c)) = (self.file_id(&declared), self.file_id(&code)) {
                let code = self.slot(c).facts();
                if self.facts(d).declaration_only && !code.declaration_only {
                    roots.push((code.path.as_str(), d, c));
                }
            }
        }
        roots.sort();
        roots.dedup();
        let mut packages: BTreeMap<&str, Vec<(FileId, FileId)>> = BTreeMap::new();
        for (path, d, c) in roots {
            packages
                .entry(self.resolver.package_root_of(path))
                .or_default()
                .push((d, c));
        }
        let kept: FxHashMap<&str, &Arc<PairGroup>> =
            kept.iter().map(|g| (g.package.as_str(), g)).collect();
        let groups: Vec<Arc<PairGroup>> = packages
            .into_par_iter()
            .map(|(package, roots)| match kept.get(package) {
                Some(group) if group.roots == roots => Arc::clone(group),
                _ => Arc::new(self.pair_package(package, roots)),
            })
            .collect();
        Declared::new(groups)
    }

    /// One package's pairs: a breadth-first walk from its entries.
    fn pair_package(&self, package: &str, roots: Vec<(FileId, FileId)>) -> PairGroup {
        let mut p = Pairing {
            r: Resolver::new(self, NO_FILE),
            queue: VecDeque::new(),
            seen: FxHashSet::default(),
            pairs: FxHashMap::default(),
        };
        for &(d, c) in &roots {
            p.push(Task::Modules(d, c), Confidence::Exact, 0);
        }
        let mut done = 0;
        while let Some((task, confidence, depth)) = p.queue.pop_front() {
            done += 1;
            if done > MAX_TASKS {
                break;
            }
            match task {
                Task::Modules(d, c) => p.modules(d, c, confidence, depth),
                Task::Values(d, c) => p.values(d, c, confidence, depth),
            }
        }
        let mut reads = std::mem::take(&mut p.r.deps);
        reads.remove(&NO_FILE);
        let mut pairs: Vec<_> = p.pairs.into_iter().collect();
        pairs.sort_unstable();
        PairGroup {
            package: package.to_string(),
            roots,
            pairs,
            reads,
            global_scope: !p.r.global_reads.is_empty(),
        }
    }
}

impl Pairing<'_> {
    fn push(&mut self, task: Task, confidence: Confidence, depth: u32) {
        if depth <= MAX_LINKS && self.seen.insert((task, confidence)) {
            self.queue.push_back((task, confidence, depth));
        }
    }

    /// Looks a value up on one side: the declarations as TypeScript reads them, or the
    /// code as it runs.
    fn lookup(&mut self, declarations: bool, f: impl FnOnce(&mut Resolver, &mut Vals)) -> Vals {
        self.r.declarations = declarations;
        self.r.steps = 0;
        let mut out = Vals::new();
        f(&mut self.r, &mut out);
        out
    }

    /// Each export of declaration module `d` with the same export of code module `c`.
    fn modules(&mut self, d: FileId, c: FileId, confidence: Confidence, depth: u32) {
        // `export = fastify`: the module is that value, whatever else it exports.
        if self.r.facts(d).module_exports.is_some() {
            let declared = self.lookup(true, |r, out| r.commonjs_value(d, 0, out));
            let code = self.lookup(false, |r, out| r.commonjs_value(c, 0, out));
            self.pair_all(&declared, &code, confidence, depth + 1);
        }
        let default = self.r.g.names.get("default");
        for name in self.export_names(d) {
            let declared = self.lookup(true, |r, out| r.export_lookup(d, name, 0, out));
            let code = self.lookup(false, |r, out| {
                r.export_lookup(c, name, 0, out);
                if out.is_empty() && Some(name) == default {
                    r.commonjs_value(c, 0, out);
                }
            });
            self.pair_all(&declared, &code, confidence, depth + 1);
        }
    }

    /// Every declared value with every code value of its sort; several make each pair
    /// `likely`.
    fn pair_all(&mut self, declared: &Vals, code: &Vals, confidence: Confidence, depth: u32) {
        for &d in declared {
            let matching: Vals = code
                .iter()
                .copied()
                .filter(|&c| pairable(d, c) && self.same_class(d, c))
                .collect();
            let confidence = if matching.len() > 1 {
                confidence.max(Confidence::Likely)
            } else {
                confidence
            };
            for c in matching {
                self.push(Task::Values(d, c), confidence, depth);
            }
        }
    }

    fn values(&mut self, d: Value, c: Value, confidence: Confidence, depth: u32) {
        match (d, c) {
            (Value::Def(d), Value::Def(c)) => {
                if !self.r.facts(d.file).declaration_only || self.r.facts(c.file).declaration_only {
                    return;
                }
                let (dk, ck) = (self.kind(d), self.kind(c));
                if dk.is_callable() && ck.is_callable() {
                    let best = self.pairs.entry((d, c)).or_insert(confidence);
                    *best = (*best).min(confidence);
                }
                let returns = |k: DefKind| matches!(k, DefKind::Function | DefKind::Method);
                if returns(dk) && returns(ck) {
                    let declared = self.returns(true, d);
                    let code = self.returns(false, c);
                    self.pair_all(&declared, &code, confidence, depth + 1);
                }
                // Static members, a namespace's, an object's.
                self.members(Value::Def(d), Value::Def(c), confidence, depth);
                if dk == DefKind::Class && matches!(ck, DefKind::Class | DefKind::Function) {
                    self.members(Value::Instance(d), Value::Instance(c), confidence, depth);
                }
            }
            (Value::Instance(_), Value::Def(_) | Value::Instance(_)) => {
                self.members(d, c, confidence, depth)
            }
            (Value::Module(d), Value::Module(c)) => {
                self.push(Task::Modules(d, c), confidence, depth + 1)
            }
            _ => {}
        }
    }

    /// A declared class stands for a class of its own name: a factory stated to return
    /// `Help` that may return a `Command` (`Object.assign(new Help(), this.x())`) does
    /// not make `Command` a `Help`. Other values (an interface's instance, an object
    /// literal a factory returns) pair whatever their names.
    fn same_class(&mut self, d: Value, c: Value) -> bool {
        let (Value::Def(d) | Value::Instance(d), Value::Def(c) | Value::Instance(c)) = (d, c)
        else {
            return true;
        };
        if self.kind(d) != DefKind::Class || self.kind(c) != DefKind::Class {
            return true;
        }
        // The graph's names: equal ids are equal names.
        self.r.facts(d.file).def(d.def).name == self.r.facts(c.file).def(c.def).name
    }

    fn kind(&mut self, d: DefId) -> DefKind {
        self.r.facts(d.file).def(d.def).kind
    }

    /// What a function returns: its stated type (declarations), or what its `return`
    /// statements give (code).
    fn returns(&mut self, declarations: bool, f: DefId) -> Vals {
        match self.r.facts(f.file).def(f.def).returns() {
            Some(r) => self.lookup(declarations, |res, out| res.eval(f.file, r, 0, out)),
            None => Vals::new(),
        }
    }

    /// Each member of the declared value `d` with the member of the same name of `c`.
    fn members(&mut self, d: Value, c: Value, confidence: Confidence, depth: u32) {
        for name in self.member_names(d) {
            let declared = self.lookup(true, |r, out| r.member(d, name, 0, out));
            let code = self.lookup(false, |r, out| r.member(c, name, 0, out));
            self.pair_all(&declared, &code, confidence, depth + 1);
        }
    }

    /// The names of the members a declared value has: its definition's own, and those
    /// of what it extends.
    fn member_names(&mut self, v: Value) -> Vec<NameId> {
        let (start, instance) = match v {
            Value::Def(d) => (d, false),
            Value::Instance(d) => (d, true),
            _ => return Vec::new(),
        };
        let mut names: Vec<NameId> = Vec::new();
        let mut seen = FxHashSet::default();
        let mut todo = vec![(start, 0u32)];
        while let Some((d, level)) = todo.pop() {
            if level > MAX_LINKS || !seen.insert(d) {
                continue;
            }
            names.extend_from_slice(&self.own_member_names(d, instance));
            if let Some(e) = self.r.facts(d.file).def(d.def).extends() {
                let bases = self.lookup(true, |r, out| r.eval(d.file, e, 0, out));
                for b in bases {
                    if let Value::Def(b) | Value::Instance(b) = b {
                        todo.push((b, level + 1));
                    }
                }
            }
        }
        names.sort_by(|a, b| self.r.g.names.resolve(*a).cmp(self.r.g.names.resolve(*b)));
        names.dedup();
        names
    }

    /// The names of `d`'s own members on one side (an interface has one).
    fn own_member_names(&mut self, d: DefId, instance: bool) -> Vec<NameId> {
        let facts = self.r.facts(d.file);
        let index = self.r.index(d.file);
        let both_sides = facts.def(d.def).kind != DefKind::Class;
        // A container's members are one run of the index, keyed (container, name).
        index
            .members
            .between(&(d.def, NameId(0)), &(d.def + 1, NameId(0)))
            .filter(|&(_, m)| both_sides || facts.def(m).is_static != instance)
            .map(|((_, name), _)| name)
            .collect()
    }

    /// The names module `d` exports, its `export *` re-exports' included (not
    /// `default`, which a star does not pass on).
    fn export_names(&mut self, d: FileId) -> Vec<NameId> {
        let mut names: Vec<NameId> = Vec::new();
        let mut seen = FxHashSet::default();
        let mut todo = vec![(d, true)];
        self.r.declarations = true;
        while let Some((f, own)) = todo.pop() {
            if !seen.insert(f) || seen.len() > 256 {
                continue;
            }
            let index = self.r.index(f);
            let default = self.r.g.names.get("default");
            names.extend(index.exports.keys().filter(|&n| own || Some(n) != default));
            for &spec in index.stars.iter() {
                if let crate::graph::Target::File(t) = self.r.target(f, spec) {
                    todo.push((t, false));
                }
            }
        }
        names.sort_by(|a, b| self.r.g.names.resolve(*a).cmp(self.r.g.names.resolve(*b)));
        names.dedup();
        names
    }
}

/// Whether a declared value and a code value can stand for each other: a definition
/// for a definition, an instance of a declared type for an object or an instance, a
/// module for a module.
fn pairable(declared: Value, code: Value) -> bool {
    matches!(
        (declared, code),
        (Value::Def(_), Value::Def(_))
            | (Value::Instance(_), Value::Def(_) | Value::Instance(_))
            | (Value::Module(_), Value::Module(_))
    )
}
