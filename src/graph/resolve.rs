//! Cross-file resolution: evaluates a call site's symbolic callee through bindings,
//! imports, exports, classes and stated types to the definitions it calls, and falls
//! back to a labelled name match only where nothing better is possible.

use rustc_hash::FxHashSet;
use smallvec::SmallVec;

use super::interner::NameId;
use super::{Confidence, DefId, FileId, Graph, Target};
use crate::indexer::facts::*;

/// Deeper evaluation chains are cut (cycles in re-exports or bindings end here).
const MAX_DEPTH: u32 = 24;
/// At most this many values are followed per expression.
const MAX_VALUES: usize = 8;
/// A name shared by more definitions than this says nothing: the site stays unresolved.
pub const MAX_CANDIDATES: usize = 16;

/// Methods of the JavaScript standard library. A call of one of these on a receiver of
/// unknown type is far more likely the builtin than a same-named method of the
/// repository, so it is never matched by name (it is counted as unresolved instead).
const BUILTIN_METHODS: &[&str] = &[
    "add",
    "all",
    "allSettled",
    "any",
    "apply",
    "assign",
    "at",
    "bind",
    "call",
    "catch",
    "charAt",
    "charCodeAt",
    "clear",
    "codePointAt",
    "concat",
    "create",
    "debug",
    "defineProperty",
    "delete",
    "dir",
    "emit",
    "endsWith",
    "entries",
    "error",
    "every",
    "exec",
    "fill",
    "filter",
    "finally",
    "find",
    "findIndex",
    "findLast",
    "flat",
    "flatMap",
    "forEach",
    "freeze",
    "from",
    "get",
    "getOwnPropertyNames",
    "has",
    "hasOwnProperty",
    "includes",
    "indexOf",
    "info",
    "isArray",
    "join",
    "keys",
    "lastIndexOf",
    "localeCompare",
    "log",
    "map",
    "match",
    "matchAll",
    "next",
    "normalize",
    "of",
    "off",
    "on",
    "once",
    "padEnd",
    "padStart",
    "parse",
    "pop",
    "push",
    "race",
    "reduce",
    "reduceRight",
    "reject",
    "repeat",
    "replace",
    "replaceAll",
    "resolve",
    "reverse",
    "search",
    "set",
    "shift",
    "slice",
    "some",
    "sort",
    "splice",
    "split",
    "startsWith",
    "stringify",
    "substr",
    "substring",
    "test",
    "then",
    "toFixed",
    "toLowerCase",
    "toString",
    "toUpperCase",
    "trim",
    "trimEnd",
    "trimStart",
    "unshift",
    "values",
    "warn",
    "write",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    /// A definition as a value: a function, a class (its static side), an object.
    Def(DefId),
    /// An instance of a class, interface, or constructor function.
    Instance(DefId),
    /// A module's namespace object.
    Module(FileId),
    /// Something from a package outside the repository.
    External,
}

type Vals = SmallVec<[Value; 2]>;

/// One resolved call edge out of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Edge {
    /// Index into the file's call sites.
    pub site: u32,
    pub target: DefId,
    pub confidence: Confidence,
}

/// Everything resolving one file produced, and what it depended on.
#[derive(Default, Debug, Clone)]
pub struct Resolution {
    pub edges: Vec<Edge>,
    /// Other files whose facts were read: a change to one of them re-resolves this file.
    pub deps: Vec<FileId>,
    /// Names matched by name only: a definition of one appearing or vanishing anywhere
    /// re-resolves this file.
    pub fallback_names: Vec<NameId>,
    /// Call sites into packages outside the repository.
    pub external: u32,
    /// The unresolved call sites (indices): "0 callers" of a function is a lower bound
    /// when one of them has its name.
    pub unresolved_sites: Vec<u32>,
}

pub(crate) struct Resolver<'g> {
    g: &'g Graph,
    current: FileId,
    deps: FxHashSet<FileId>,
}

impl<'g> Resolver<'g> {
    pub(crate) fn new(g: &'g Graph, current: FileId) -> Self {
        Resolver {
            g,
            current,
            deps: FxHashSet::default(),
        }
    }

    fn facts(&mut self, f: FileId) -> &'g FileFacts {
        if f != self.current {
            self.deps.insert(f);
        }
        &self.g.slot(f).facts
    }

    fn index(&mut self, f: FileId) -> &'g super::file_index::FileIndex {
        if f != self.current {
            self.deps.insert(f);
        }
        &self.g.slot(f).index
    }

    /// Resolves every call site of the current file.
    pub(crate) fn resolve_file(mut self) -> Resolution {
        let f = self.current;
        let facts = &self.g.slot(f).facts;
        let index = &self.g.slot(f).index;
        let mut out = Resolution::default();
        let mut fallback = FxHashSet::default();
        for (i, site) in facts.calls.iter().enumerate() {
            let mut vals = Vals::new();
            self.eval(f, site.callee, 0, &mut vals);
            let mut targets: SmallVec<[DefId; 2]> = SmallVec::new();
            let mut external = false;
            for v in &vals {
                match *v {
                    Value::Def(d) if self.accepts(site.kind, d) => targets.push(d),
                    // `super(...)`: the base class.
                    Value::Instance(d)
                        if site.kind == CallKind::Call && self.accepts(site.kind, d) =>
                    {
                        targets.push(d)
                    }
                    Value::External => external = true,
                    _ => {}
                }
            }
            if !targets.is_empty() {
                targets.sort();
                targets.dedup();
                for t in targets {
                    out.edges.push(Edge {
                        site: i as u32,
                        target: t,
                        confidence: Confidence::Exact,
                    });
                }
                continue;
            }
            if external {
                out.external += 1;
                continue;
            }
            if matches!(site.kind, CallKind::Get | CallKind::Reference) {
                continue;
            }
            let name = index.name(site.name);
            match self.fallback_scope(f, site, &vals) {
                Some(scope) => {
                    fallback.insert(name);
                    let candidates = self.g.candidates(name, scope, f);
                    if candidates.is_empty() || candidates.len() > MAX_CANDIDATES {
                        out.unresolved_sites.push(i as u32);
                        continue;
                    }
                    let confidence = if candidates.len() == 1 {
                        Confidence::Likely
                    } else {
                        Confidence::Possible
                    };
                    for t in candidates {
                        out.edges.push(Edge {
                            site: i as u32,
                            target: t,
                            confidence,
                        });
                    }
                }
                None => out.unresolved_sites.push(i as u32),
            }
        }
        // Candidates are read from every file of a name: those are dependencies through
        // `fallback_names`, not `deps`.
        out.deps = self.deps.into_iter().collect();
        out.deps.sort();
        out.fallback_names = fallback.into_iter().collect();
        out.fallback_names.sort();
        out
    }

    /// Whether a definition can be what a site of `kind` calls.
    fn accepts(&mut self, kind: CallKind, d: DefId) -> bool {
        let def_kind = self.facts(d.file).def(d.def).kind;
        match kind {
            CallKind::Get => def_kind == DefKind::Getter,
            _ => def_kind.is_callable(),
        }
    }

    /// Where a name-only match may look for an unresolved site, if anywhere: a bare
    /// global call may be a script's top-level function; a method call on a receiver
    /// of unknown type may be any method of that name (never a builtin's name).
    fn fallback_scope(&mut self, f: FileId, site: &CallSite, vals: &Vals) -> Option<FallbackScope> {
        if !vals.is_empty() {
            // The callee's value is known; what it lacks is not ours to guess.
            return None;
        }
        let g = self.g;
        let facts = &g.slot(f).facts;
        match facts.sym(site.callee) {
            Sym::Global(_) => Some(FallbackScope::Globals),
            Sym::Member(base, name) => {
                if BUILTIN_METHODS.contains(&facts.str(name)) {
                    return None;
                }
                let mut base_vals = Vals::new();
                self.eval(f, base, 0, &mut base_vals);
                if base_vals.is_empty() {
                    Some(FallbackScope::Members)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    // ---- evaluation ----

    fn push(out: &mut Vals, v: Value) {
        if out.len() < MAX_VALUES && !out.contains(&v) {
            out.push(v);
        }
    }

    pub(crate) fn eval(&mut self, f: FileId, sym: SymId, depth: u32, out: &mut Vals) {
        if depth > MAX_DEPTH {
            return;
        }
        let facts = self.facts(f);
        match facts.sym(sym) {
            Sym::Binding(b) => {
                let value = facts.bindings[b as usize].value;
                self.eval(f, value, depth + 1, out)
            }
            Sym::Global(_) | Sym::Unknown => {}
            Sym::Def(d) => Self::push(out, Value::Def(DefId::new(f, d))),
            Sym::Import(i) => {
                let import = facts.imports[i as usize];
                self.import_value(f, import, depth + 1, out)
            }
            Sym::Member(base, name) => {
                let name = self.index(f).name(name);
                let mut bases = Vals::new();
                self.eval(f, base, depth + 1, &mut bases);
                for b in bases {
                    self.member(b, name, depth + 1, out);
                }
            }
            Sym::Instance(class) => {
                let mut classes = Vals::new();
                self.eval(f, class, depth + 1, &mut classes);
                for c in classes {
                    match c {
                        Value::Def(d) => Self::push(out, Value::Instance(d)),
                        Value::External => Self::push(out, Value::External),
                        _ => {}
                    }
                }
            }
            Sym::Return(callee) => {
                let mut fns = Vals::new();
                self.eval(f, callee, depth + 1, &mut fns);
                for v in fns {
                    match v {
                        Value::Def(d) => {
                            if let Some(r) = self.facts(d.file).def(d.def).returns {
                                self.eval(d.file, r, depth + 1, out);
                            }
                        }
                        Value::External => Self::push(out, Value::External),
                        _ => {}
                    }
                }
            }
            Sym::This(Some(c)) => {
                let d = DefId::new(f, c);
                if facts.def(c).kind == DefKind::Object {
                    Self::push(out, Value::Def(d));
                } else {
                    Self::push(out, Value::Instance(d));
                }
            }
            Sym::This(None) => {}
            Sym::Super(c) => {
                if let Some(e) = facts.def(c).extends {
                    let mut bases = Vals::new();
                    self.eval(f, e, depth + 1, &mut bases);
                    for b in bases {
                        match b {
                            Value::Def(d) => Self::push(out, Value::Instance(d)),
                            Value::External => Self::push(out, Value::External),
                            _ => {}
                        }
                    }
                }
            }
        }
    }

    fn import_value(&mut self, f: FileId, import: Import, depth: u32, out: &mut Vals) {
        let target = self.g.slot(f).target(import.specifier);
        let t = match target {
            Target::File(t) => t,
            Target::External => return Self::push(out, Value::External),
            Target::Unresolved => return,
        };
        self.module_value(f, t, import.kind, depth, out);
    }

    /// What importing `t` with `kind` gives (`from` is the importer, for names).
    fn module_value(
        &mut self,
        from: FileId,
        t: FileId,
        kind: ImportKind,
        depth: u32,
        out: &mut Vals,
    ) {
        match kind {
            ImportKind::Named(n) => {
                let name = self.index(from).name(n);
                self.export_lookup(t, name, depth + 1, out);
            }
            ImportKind::Default => {
                let default = self.g.names.get("default");
                let before = out.len();
                if let Some(default) = default {
                    self.export_lookup(t, default, depth + 1, out);
                }
                if out.len() == before {
                    self.commonjs_value(t, depth + 1, out);
                }
            }
            ImportKind::Namespace => Self::push(out, Value::Module(t)),
            ImportKind::Require => self.commonjs_value(t, depth + 1, out),
        }
    }

    /// What `require(t)` returns: `module.exports` if assigned, else the namespace.
    fn commonjs_value(&mut self, t: FileId, depth: u32, out: &mut Vals) {
        match self.facts(t).module_exports {
            Some(m) => self.eval(t, m, depth + 1, out),
            None => Self::push(out, Value::Module(t)),
        }
    }

    fn export_lookup(&mut self, t: FileId, name: NameId, depth: u32, out: &mut Vals) {
        if depth > MAX_DEPTH {
            return;
        }
        let facts = self.facts(t);
        let index = self.index(t);
        let before = out.len();
        if let Some(entries) = index.exports.get(&name) {
            for &e in entries.iter() {
                match facts.exports[e as usize].value {
                    ExportValue::Local(sym) => self.eval(t, sym, depth + 1, out),
                    ExportValue::From { specifier, kind } => {
                        match self.g.slot(t).target(specifier) {
                            Target::File(next) => self.module_value(t, next, kind, depth + 1, out),
                            Target::External => Self::push(out, Value::External),
                            Target::Unresolved => {}
                        }
                    }
                    ExportValue::Star { .. } => {}
                }
            }
        }
        if out.len() > before {
            return;
        }
        if self.g.names.resolve(name) != "default" {
            for &spec in index.stars.iter() {
                match self.g.slot(t).target(spec) {
                    Target::File(next) => self.export_lookup(next, name, depth + 1, out),
                    Target::External => Self::push(out, Value::External),
                    Target::Unresolved => {}
                }
                if out.len() > before {
                    return;
                }
            }
        }
        // CommonJS: `module.exports = { name }` or `module.exports = obj`.
        if let Some(m) = facts.module_exports {
            let mut bases = Vals::new();
            self.eval(t, m, depth + 1, &mut bases);
            for b in bases {
                if b != Value::Module(t) {
                    self.member(b, name, depth + 1, out);
                }
            }
        }
    }

    /// `value.name`
    fn member(&mut self, value: Value, name: NameId, depth: u32, out: &mut Vals) {
        if depth > MAX_DEPTH {
            return;
        }
        match value {
            Value::External => Self::push(out, Value::External),
            Value::Module(t) => self.export_lookup(t, name, depth + 1, out),
            Value::Def(d) => self.def_member(d, name, false, depth + 1, out),
            Value::Instance(d) => self.def_member(d, name, true, depth + 1, out),
        }
    }

    /// A member of a class/object/function `d`: its instance side or its static side.
    fn def_member(&mut self, d: DefId, name: NameId, instance: bool, depth: u32, out: &mut Vals) {
        if depth > MAX_DEPTH {
            return;
        }
        let facts = self.facts(d.file);
        let index = self.index(d.file);
        let owner = facts.def(d.def);
        let is_class = matches!(owner.kind, DefKind::Class | DefKind::Interface);
        let before = out.len();
        if let Some(members) = index.members.get(&(d.def, name)) {
            for &m in members.iter() {
                let member = facts.def(m);
                // Classes keep their two sides apart; objects and functions have one.
                if !is_class || member.is_static != instance || owner.kind == DefKind::Interface {
                    Self::push(out, Value::Def(DefId::new(d.file, m)));
                }
            }
        }
        if out.len() > before {
            return;
        }
        if let Some(props) = index.props.get(&(d.def, name)) {
            for &p in props.iter() {
                self.eval(d.file, p, depth + 1, out);
            }
        }
        if out.len() > before {
            return;
        }
        // Methods assigned to `X.prototype = { ... }`.
        if instance {
            if let Some(proto) = self.g.names.get("prototype") {
                if let Some(props) = index.props.get(&(d.def, proto)) {
                    let mut protos = Vals::new();
                    for &p in props.iter() {
                        self.eval(d.file, p, depth + 1, &mut protos);
                    }
                    for p in protos {
                        if let Value::Def(obj) = p {
                            self.def_member(obj, name, false, depth + 1, out);
                        }
                    }
                }
            }
            if out.len() > before {
                return;
            }
        }
        // Inherited: through `extends`.
        if let Some(e) = owner.extends {
            let mut bases = Vals::new();
            self.eval(d.file, e, depth + 1, &mut bases);
            for b in bases {
                match b {
                    Value::Def(base) => self.def_member(base, name, instance, depth + 1, out),
                    Value::Instance(base) => self.def_member(base, name, instance, depth + 1, out),
                    Value::External => Self::push(out, Value::External),
                    Value::Module(_) => {}
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FallbackScope {
    /// Top-level functions and classes of script files.
    Globals,
    /// Methods and object-literal functions.
    Members,
}
