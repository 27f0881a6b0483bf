//! Cross-file resolution: evaluates a call site's symbolic callee through bindings,
//! imports, exports, classes and stated types to the definitions it calls, and falls
//! back to a labelled name match only where nothing better is possible.

use rustc_hash::FxHashSet;
use smallvec::SmallVec;

use super::interner::NameId;
use super::{Confidence, DefId, FileId, Graph, Target};
use crate::indexer::facts::*;

/// Deeper evaluation chains are cut (cycles in re-exports or bindings end here). Each
/// link of a fluent chain (`server.addHook(..).addHook(..)`) takes about two levels, so
/// this reaches some thirty links; the evaluation's stack stays far from a thread's.
const MAX_DEPTH: u32 = 64;
/// At most this many values are followed per expression.
const MAX_VALUES: usize = 24;
/// Evaluation steps one call site may take. Ordinary sites take a few dozen; the bound
/// keeps pathological code (dozens of fields assigned from one another) from taking
/// exponential time. A site that runs out keeps what it found so far.
const MAX_STEPS: u32 = 4_096;
/// A name shared by more definitions than this says nothing: the site stays unresolved
/// (and is counted as such). Measured against TypeScript's checker on real repositories
/// (benches/precision), a name-only match to 5 or more definitions picks the right one
/// for fewer than one site in five: past that, a list of guesses is noise in a report.
pub const MAX_CANDIDATES: usize = 4;

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

/// Free names the platform provides (ECMAScript, Node, browsers, test runners), sorted.
/// What they denote is outside the repository, like a package: their members are
/// external, never matched by name (`Math.round` is not the repository's `round`).
/// `require`, `module` and `exports` are not here: they lead into the repository.
const PLATFORM_GLOBALS: &[&str] = &[
    "AbortController",
    "Array",
    "ArrayBuffer",
    "BigInt",
    "Blob",
    "Boolean",
    "Buffer",
    "CustomEvent",
    "DataView",
    "Date",
    "Error",
    "Event",
    "EventTarget",
    "FileReader",
    "Float32Array",
    "Float64Array",
    "FormData",
    "Headers",
    "Image",
    "Int32Array",
    "IntersectionObserver",
    "Intl",
    "JSON",
    "Map",
    "Math",
    "MutationObserver",
    "Number",
    "Object",
    "Promise",
    "Proxy",
    "RangeError",
    "Reflect",
    "RegExp",
    "Request",
    "ResizeObserver",
    "Response",
    "Set",
    "String",
    "Symbol",
    "TextDecoder",
    "TextEncoder",
    "TypeError",
    "URL",
    "URLSearchParams",
    "Uint8Array",
    "WeakMap",
    "WeakRef",
    "WeakSet",
    "WebSocket",
    "Worker",
    "XMLHttpRequest",
    "afterAll",
    "afterEach",
    "alert",
    "atob",
    "beforeAll",
    "beforeEach",
    "btoa",
    "cancelAnimationFrame",
    "clearInterval",
    "clearTimeout",
    "confirm",
    "console",
    "crypto",
    "customElements",
    "decodeURI",
    "decodeURIComponent",
    "describe",
    "document",
    "encodeURI",
    "encodeURIComponent",
    "expect",
    "fetch",
    "getComputedStyle",
    "globalThis",
    "history",
    "isFinite",
    "isNaN",
    "it",
    "jest",
    "localStorage",
    "location",
    "matchMedia",
    "navigator",
    "parseFloat",
    "parseInt",
    "performance",
    "process",
    "queueMicrotask",
    "requestAnimationFrame",
    "sessionStorage",
    "setImmediate",
    "setInterval",
    "setTimeout",
    "structuredClone",
    "test",
    "window",
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
    /// An array whose elements are the value of a symbolic value of a file.
    Elements(FileId, SymId),
    /// A function of a stated type with no code known behind it: signature `.1` of
    /// file `.0`. Calling it resolves to nothing, but what it receives and returns is
    /// known (`getDefaultMiddleware().concat()`, `(builder) => builder.addCase()`).
    Signature(FileId, u32),
    /// A value of an object type written inline: shape `.1` of file `.0`.
    Shape(FileId, u32),
    /// A platform global (`Math`, `Object`, `document`) or a member of one: calling it is
    /// an external call, but what it returns may be the repository's own value
    /// (`Object.freeze(api)`), so its result is unknown rather than external.
    Platform,
}

type Vals = SmallVec<[Value; 2]>;

/// One resolved call edge out of a file. Graphs hold millions: the confidence rides in
/// the low bits of the site index (12 bytes, not 16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Edge {
    site_conf: u32,
    pub target: DefId,
}

pub(crate) fn pack_site(site: u32, confidence: Confidence) -> u32 {
    debug_assert!(site < 1 << 30, "call sites per file fit 30 bits");
    site << 2
        | match confidence {
            Confidence::Exact => 0,
            Confidence::Likely => 1,
            Confidence::Possible => 2,
        }
}

pub(crate) fn unpack_confidence(packed: u32) -> Confidence {
    match packed & 0b11 {
        0 => Confidence::Exact,
        1 => Confidence::Likely,
        _ => Confidence::Possible,
    }
}

impl Edge {
    pub fn new(site: u32, target: DefId, confidence: Confidence) -> Edge {
        Edge {
            site_conf: pack_site(site, confidence),
            target,
        }
    }

    /// Index into the file's call sites.
    pub fn site(&self) -> u32 {
        self.site_conf >> 2
    }

    pub fn confidence(&self) -> Confidence {
        unpack_confidence(self.site_conf)
    }
}

/// Everything resolving one file produced, and what it depended on.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// The resolver's edges, by site. Once the resolution is installed in a graph they
    /// move into its reverse index (the one copy of every edge) and this is empty:
    /// read a file's edges with [`super::Graph::edges`].
    pub(crate) edges: Vec<Edge>,
    /// Installed: the distinct definitions this file's sites call, sorted (where in
    /// the reverse index its edges are). Empty in the resolver's output.
    pub callees: Vec<DefId>,
    /// Other files whose facts were read: a change to one of them re-resolves this file.
    pub deps: Vec<FileId>,
    /// Names matched by name only: a definition of one appearing or vanishing anywhere
    /// re-resolves this file.
    pub fallback_names: Vec<NameId>,
    /// Call sites into packages outside the repository.
    pub external: u32,
    /// Those sites (indices), ascending.
    pub external_sites: Vec<u32>,
    /// The unresolved call sites (indices): "0 callers" of a function is a lower bound
    /// when one of them has its name.
    pub unresolved_sites: Vec<u32>,
}

pub(crate) struct Resolver<'g> {
    g: &'g Graph,
    current: FileId,
    deps: FxHashSet<FileId>,
    /// The (module, name) pairs the export lookup under way has visited. As with the
    /// ECMAScript spec's `ResolveExport` and its resolveSet, each is visited once per
    /// outermost lookup: that ends cycles of re-exports and keeps barrels that
    /// star-export each other linear (a depth bound alone is exponential there).
    export_visited: FxHashSet<(FileId, NameId)>,
    /// Export lookups in progress; the visited set starts afresh at zero.
    export_nesting: u32,
    /// Member lookups in progress (definition, name, instance side). A property whose
    /// value reads the same property (`this.cur = this.cur.next`) would otherwise
    /// recurse once per assignment at every level, exponentially in the depth bound.
    members_in_progress: FxHashSet<(DefId, NameId, bool)>,
    /// Evaluation steps spent on the current call site (see [`MAX_STEPS`]).
    steps: u32,
    /// Imports of JavaScript files with declarations beside them lead to the
    /// declarations, as in TypeScript (which reads `x.d.ts` for `./x.js`); false for
    /// the second look at a site the declarations say nothing about, in the code.
    declarations: bool,
    /// Whether the current site's evaluation went through such an import.
    crossed_typed: bool,
}

impl<'g> Resolver<'g> {
    pub(crate) fn new(g: &'g Graph, current: FileId) -> Self {
        Resolver {
            g,
            current,
            deps: FxHashSet::default(),
            export_visited: FxHashSet::default(),
            export_nesting: 0,
            members_in_progress: FxHashSet::default(),
            steps: 0,
            declarations: true,
            crossed_typed: false,
        }
    }

    /// Where an import of file `f` leads, in the current mode (see `declarations`).
    fn target(&mut self, f: FileId, specifier: StrId) -> Target {
        match self.g.slot(f).target(specifier) {
            Target::Typed(code, types) => {
                self.crossed_typed = true;
                Target::File(if self.declarations { types } else { code })
            }
            other => other,
        }
    }

    /// Counts one evaluation step; false once the site's budget is spent.
    fn step(&mut self) -> bool {
        self.steps += 1;
        self.steps <= MAX_STEPS
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
            self.steps = 0;
            self.crossed_typed = false;
            let mut vals = Vals::new();
            self.eval_callee(f, site.callee, &mut vals);
            let mut targets: SmallVec<[DefId; 2]> = SmallVec::new();
            let mut external = false;
            for v in &vals {
                match *v {
                    Value::Def(d) if self.accepts(site.kind, d) => targets.push(d),
                    // `super(...)` calls the base class; calling an instance of a
                    // constructor function calls what it returned, code inside it
                    // (`const float = new ConvertType('float'); float()`). An instance
                    // of a class is not callable.
                    Value::Instance(d)
                        if site.kind == CallKind::Call
                            && (matches!(facts.sym(site.callee), Sym::Super(_))
                                || self.facts(d.file).def(d.def).kind == DefKind::Function)
                            && self.accepts(site.kind, d) =>
                    {
                        targets.push(d)
                    }
                    Value::External | Value::Platform => external = true,
                    _ => {}
                }
            }
            // `f.call(this, x)` and `f.apply(this, args)` call `f` (when `f` has no member
            // of that name: a class may define its own `call`).
            if targets.is_empty() && !external && site.kind == CallKind::Call {
                if let Sym::Member(base, name) = facts.sym(site.callee) {
                    if matches!(facts.str(name), "call" | "apply") {
                        let mut bases = Vals::new();
                        self.eval_callee(f, base, &mut bases);
                        for b in bases {
                            if let Value::Def(d) = b {
                                let kind = self.facts(d.file).def(d.def).kind;
                                if matches!(kind, DefKind::Function | DefKind::Method) {
                                    targets.push(d);
                                }
                            }
                        }
                    }
                }
            }
            // Through a JavaScript file with declarations beside it, TypeScript reads
            // the declarations and so do we. Where they know nothing of the callee at
            // all (a file that declares less than its code does), the code says what
            // is called. Where they know it as something that is no definition (a
            // property of a function type), it is that: not the code's function.
            if targets.is_empty() && !external && self.crossed_typed && vals.is_empty() {
                self.declarations = false;
                self.steps = 0;
                let mut in_code = Vals::new();
                self.eval_callee(f, site.callee, &mut in_code);
                self.declarations = true;
                for v in &in_code {
                    match *v {
                        Value::Def(d) if self.accepts(site.kind, d) => targets.push(d),
                        Value::External | Value::Platform => external = true,
                        _ => {}
                    }
                }
            }
            if !targets.is_empty() {
                targets.sort();
                targets.dedup();
                for t in targets {
                    out.edges.push(Edge::new(i as u32, t, Confidence::Exact));
                }
                continue;
            }
            if external {
                out.external += 1;
                out.external_sites.push(i as u32);
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
                        out.edges.push(Edge::new(i as u32, t, confidence));
                    }
                }
                None => out.unresolved_sites.push(i as u32),
            }
        }
        // The order `Graph::edges` gives back: what the graph compares against.
        out.edges.sort_unstable_by_key(|e| (e.site(), e.target));
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

    /// What a call site calls. Like [`Self::eval`], except that a member that is a
    /// getter stays the getter: reading it is the call.
    fn eval_callee(&mut self, f: FileId, sym: SymId, out: &mut Vals) {
        let facts = self.facts(f);
        match facts.sym(sym) {
            Sym::Member(base, name) if !is_module_exports(facts, base, name) => {
                let name = self.index(f).name(name);
                let mut bases = Vals::new();
                self.eval(f, base, 1, &mut bases);
                for b in bases {
                    self.member(b, name, 1, out);
                }
            }
            _ => self.eval(f, sym, 0, out),
        }
    }

    /// The values `sym` may denote in file `f`.
    pub(crate) fn eval(&mut self, f: FileId, sym: SymId, depth: u32, out: &mut Vals) {
        if depth > MAX_DEPTH || !self.step() {
            return;
        }
        let facts = self.facts(f);
        match facts.sym(sym) {
            Sym::Binding(b) => {
                let value = facts.bindings[b as usize].value;
                self.eval(f, value, depth + 1, out)
            }
            // CommonJS: a module's free `exports` is its own exports object.
            Sym::Global(n) if facts.str(n) == "exports" => Self::push(out, Value::Module(f)),
            Sym::Global(n) if PLATFORM_GLOBALS.binary_search(&facts.str(n)).is_ok() => {
                Self::push(out, Value::Platform)
            }
            Sym::Global(_) | Sym::Unknown => {}
            Sym::Def(d) => Self::push(out, Value::Def(DefId::new(f, d))),
            Sym::Import(i) => {
                let import = facts.imports[i as usize];
                self.import_value(f, import, depth + 1, out)
            }
            Sym::Member(base, name) => {
                if is_module_exports(facts, base, name) {
                    return self.commonjs_value(f, depth + 1, out);
                }
                let name = self.index(f).name(name);
                let mut bases = Vals::new();
                self.eval(f, base, depth + 1, &mut bases);
                let mut members = Vals::new();
                for b in bases {
                    self.member(b, name, depth + 1, &mut members);
                }
                for m in members {
                    self.accessor_value(m, depth + 1, out);
                }
            }
            Sym::Instance(class) => {
                let mut classes = Vals::new();
                self.eval(f, class, depth + 1, &mut classes);
                for c in classes {
                    match c {
                        Value::Def(d) => Self::push(out, Value::Instance(d)),
                        Value::External | Value::Platform => Self::push(out, Value::External),
                        // A value of a function type is a function of that type; an
                        // instance of a type that names an instance (`ReturnType<typeof
                        // create>`) is that instance.
                        Value::Signature(..) | Value::Shape(..) | Value::Instance(_) => {
                            Self::push(out, c)
                        }
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
                            let Some(r) = self.facts(d.file).def(d.def).returns else {
                                continue;
                            };
                            // A method that returns `this` (stated or returned) gives
                            // back its receiver: `qb.where().select()` stays on qb's
                            // class, a subclass included.
                            let returns_this =
                                matches!(self.facts(d.file).sym(r), Sym::This(Some(_)));
                            if let (true, Sym::Member(receiver, _)) =
                                (returns_this, facts.sym(callee))
                            {
                                let before = out.len();
                                self.eval(f, receiver, depth + 1, out);
                                if out.len() > before {
                                    continue;
                                }
                            }
                            self.eval(d.file, r, depth + 1, out);
                        }
                        Value::External => Self::push(out, Value::External),
                        other => {
                            for (file, sig) in self.call_signatures(other, depth + 1) {
                                if let Some(r) = self.facts(file).signatures[sig as usize].returns {
                                    self.eval(file, r, depth + 1, out);
                                }
                            }
                        }
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
                            Value::External | Value::Platform => Self::push(out, Value::External),
                            _ => {}
                        }
                    }
                }
            }
            Sym::Either(a, b) => {
                self.eval(f, a, depth + 1, out);
                self.eval(f, b, depth + 1, out);
            }
            Sym::ParamType(function, index) => {
                let mut fns = Vals::new();
                self.eval_callee(f, function, &mut fns);
                for v in fns {
                    self.param_of(v, index, depth + 1, out);
                }
            }
            Sym::CallbackParam(callee, slot) => {
                let (arg, param) = (slot >> 16, slot & 0xffff);
                let mut fns = Vals::new();
                self.eval_callee(f, callee, &mut fns);
                for v in fns {
                    if let Value::Def(d) = v {
                        let params = &self.facts(d.file).callback_params;
                        let found = params
                            .binary_search_by_key(&(d.def, arg, param), |c| {
                                (c.def, u32::from(c.arg), u32::from(c.param))
                            })
                            .ok()
                            .or_else(|| {
                                // A rest parameter before `arg` takes it.
                                last_of_def(
                                    params,
                                    d.def,
                                    |c| c.def,
                                    |c| {
                                        c.rest
                                            && u32::from(c.arg) < arg
                                            && u32::from(c.param) == param
                                    },
                                )
                            });
                        if let Some(i) = found {
                            self.eval(d.file, params[i].value, depth + 1, out);
                            continue;
                        }
                    }
                    // The argument's type named elsewhere (`cb: BuilderCallback`), or a
                    // callee that is itself only a type: the parameter of the parameter.
                    let mut callbacks = Vals::new();
                    self.param_of(v, arg, depth + 1, &mut callbacks);
                    for c in callbacks {
                        self.param_of(c, param, depth + 1, out);
                    }
                }
            }
            Sym::Signature(i) => Self::push(out, Value::Signature(f, i)),
            Sym::Shape(i) => Self::push(out, Value::Shape(f, i)),
            Sym::Array(_) => Self::push(out, Value::Elements(f, sym)),
            Sym::Element(array) => {
                let mut arrays = Vals::new();
                self.eval(f, array, depth + 1, &mut arrays);
                for a in arrays {
                    if let Value::Elements(file, array_sym) = a {
                        if let Sym::Array(element) = self.facts(file).sym(array_sym) {
                            self.eval(file, element, depth + 1, out);
                        }
                    }
                }
            }
        }
    }

    /// What parameter `index` of the function `v` is stated to be.
    fn param_of(&mut self, v: Value, index: u32, depth: u32, out: &mut Vals) {
        if let Value::Def(d) = v {
            let params = &self.facts(d.file).param_types;
            let found = params
                .binary_search_by_key(&(d.def, index), |p| (p.def, u32::from(p.index)))
                .ok()
                .or_else(|| {
                    // A rest parameter before `index` takes it.
                    last_of_def(
                        params,
                        d.def,
                        |p| p.def,
                        |p| p.rest && u32::from(p.index) < index,
                    )
                });
            if let Some(i) = found {
                self.eval(d.file, params[i].value, depth + 1, out);
            }
            return;
        }
        for (file, sig) in self.call_signatures(v, depth) {
            let signature = &self.facts(file).signatures[sig as usize];
            // A rest parameter, last, takes every argument from its index on.
            let at = match signature.params.len() {
                n if signature.rest && index as usize >= n => n - 1,
                _ => index as usize,
            };
            let param = signature.params.get(at).copied().flatten();
            if let Some(p) = param {
                self.eval(file, p, depth + 1, out);
            }
        }
    }

    /// The stated signatures calling `v` goes through: a function type's own, or the
    /// call signatures of an interface it is an instance of.
    fn call_signatures(&mut self, v: Value, depth: u32) -> SmallVec<[(FileId, u32); 2]> {
        let mut found = Vals::new();
        match v {
            Value::Signature(..) => found.push(v),
            Value::Shape(file, shape) => {
                for s in self.shape_members(file, shape, CALL) {
                    self.eval(file, s, depth + 1, &mut found);
                }
            }
            Value::Instance(d) | Value::Def(d)
                if self.facts(d.file).def(d.def).kind == DefKind::Interface =>
            {
                if let Some(call) = self.g.names.get(CALL) {
                    self.def_member(d, call, true, depth + 1, &mut found);
                }
            }
            _ => {}
        }
        found
            .into_iter()
            .filter_map(|s| match s {
                Value::Signature(file, sig) => Some((file, sig)),
                _ => None,
            })
            .collect()
    }

    /// The stated values of an inline object type's members named `name`.
    fn shape_members(&mut self, file: FileId, shape: u32, name: &str) -> SmallVec<[SymId; 2]> {
        let facts = self.facts(file);
        facts.shapes[shape as usize]
            .iter()
            .filter(|(n, _)| facts.str(*n) == name)
            .map(|&(_, v)| v)
            .collect()
    }

    /// A member read as a value: a getter gives what it returns (its stated type), a
    /// setter nothing; anything else is itself.
    fn accessor_value(&mut self, v: Value, depth: u32, out: &mut Vals) {
        let Value::Def(d) = v else {
            return Self::push(out, v);
        };
        let def = self.facts(d.file).def(d.def);
        match def.kind {
            DefKind::Getter => {
                if let Some(r) = def.returns {
                    self.eval(d.file, r, depth + 1, out);
                }
            }
            DefKind::Setter => {}
            _ => Self::push(out, v),
        }
    }

    fn import_value(&mut self, f: FileId, import: Import, depth: u32, out: &mut Vals) {
        let target = self.target(f, import.specifier);
        let t = match target {
            Target::File(t) | Target::Typed(t, _) => t,
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
    /// A file that assigns `module.exports` and also `exports.x = ...` (express's
    /// `exports = module.exports = createApplication; exports.Router = Router`) gives
    /// both: the members of its `module.exports` value and its named exports.
    fn commonjs_value(&mut self, t: FileId, depth: u32, out: &mut Vals) {
        let facts = self.facts(t);
        match facts.module_exports {
            Some(m) => {
                self.eval(t, m, depth + 1, out);
                if !facts.exports.is_empty() {
                    Self::push(out, Value::Module(t));
                }
            }
            None => Self::push(out, Value::Module(t)),
        }
    }

    /// What module `t` exports as `name`.
    fn export_lookup(&mut self, t: FileId, name: NameId, depth: u32, out: &mut Vals) {
        if depth > MAX_DEPTH || !self.step() {
            return;
        }
        if self.export_nesting == 0 {
            self.export_visited.clear();
        }
        if !self.export_visited.insert((t, name)) {
            return;
        }
        self.export_nesting += 1;
        self.export_lookup_once(t, name, depth, out);
        self.export_nesting -= 1;
    }

    fn export_lookup_once(&mut self, t: FileId, name: NameId, depth: u32, out: &mut Vals) {
        let facts = self.facts(t);
        let index = self.index(t);
        let before = out.len();
        if let Some(entries) = index.exports.get(&name) {
            for &e in entries.iter() {
                match facts.exports[e as usize].value {
                    ExportValue::Local(sym) => self.eval(t, sym, depth + 1, out),
                    ExportValue::From { specifier, kind } => match self.target(t, specifier) {
                        Target::File(next) | Target::Typed(next, _) => {
                            self.module_value(t, next, kind, depth + 1, out)
                        }
                        Target::External => Self::push(out, Value::External),
                        Target::Unresolved => {}
                    },
                    ExportValue::Star { .. } => {}
                }
            }
        }
        if out.len() > before {
            return;
        }
        if self.g.names.resolve(name) != "default" {
            for &spec in index.stars.iter() {
                match self.target(t, spec) {
                    Target::File(next) | Target::Typed(next, _) => {
                        self.export_lookup(next, name, depth + 1, out)
                    }
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
            Value::Platform => Self::push(out, Value::Platform),
            Value::Module(t) => self.export_lookup(t, name, depth + 1, out),
            Value::Def(d) => {
                let before = out.len();
                self.def_member(d, name, false, depth + 1, out);
                // `Animal.prototype` that nothing assigned: what `new Animal()` gets its
                // methods from, so its members are an instance's
                // (`Dog.prototype = Object.create(Animal.prototype)`).
                if out.len() == before
                    && self.g.names.resolve(name) == "prototype"
                    && matches!(
                        self.facts(d.file).def(d.def).kind,
                        DefKind::Function | DefKind::Class
                    )
                {
                    Self::push(out, Value::Instance(d));
                }
            }
            Value::Instance(d) => self.def_member(d, name, true, depth + 1, out),
            // Members of arrays are the platform's (`map`, `length`, `push`).
            Value::Elements(..) => Self::push(out, Value::Platform),
            // A function type's members are `call`, `bind`, `apply`: nothing of ours.
            Value::Signature(..) => {}
            Value::Shape(file, shape) => {
                let wanted = self.g.names.resolve(name);
                let own = self.shape_members(file, shape, wanted);
                if !own.is_empty() {
                    for v in own {
                        self.eval(file, v, depth + 1, out);
                    }
                    return;
                }
                // The rest of a built-in's members (`Map<K, V>`: all but `get`).
                let mut sources = Vals::new();
                for s in self.shape_members(file, shape, SPREAD) {
                    self.eval(file, s, depth + 1, &mut sources);
                }
                for source in sources {
                    self.member(source, name, depth + 1, out);
                }
            }
        }
    }

    /// A member of a class/object/function `d`: its instance side or its static side.
    fn def_member(&mut self, d: DefId, name: NameId, instance: bool, depth: u32, out: &mut Vals) {
        if depth > MAX_DEPTH || !self.step() {
            return;
        }
        let key = (d, name, instance);
        if !self.members_in_progress.insert(key) {
            return;
        }
        self.def_member_once(d, name, instance, depth, out);
        self.members_in_progress.remove(&key);
    }

    fn def_member_once(
        &mut self,
        d: DefId,
        name: NameId,
        instance: bool,
        depth: u32,
        out: &mut Vals,
    ) {
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
        // `{ ...base }`: a member of what the object spreads.
        if let Some(spreads) = self
            .g
            .names
            .get(SPREAD)
            .and_then(|s| index.props.get(&(d.def, s)))
        {
            let mut sources = Vals::new();
            for &p in spreads.iter() {
                self.eval(d.file, p, depth + 1, &mut sources);
            }
            for source in sources {
                self.member(source, name, depth + 1, out);
            }
            if out.len() > before {
                return;
            }
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
        // Inherited: through `extends`, or an object's prototype (`Object.create(p)`),
        // which, when it is an instance (`Object.create(Animal.prototype)`), lends its
        // instance side.
        if let Some(e) = owner.extends {
            let mut bases = Vals::new();
            self.eval(d.file, e, depth + 1, &mut bases);
            let object = owner.kind == DefKind::Object;
            for b in bases {
                match b {
                    Value::Def(base) => self.def_member(base, name, instance, depth + 1, out),
                    Value::Instance(base) => {
                        self.def_member(base, name, instance || object, depth + 1, out)
                    }
                    Value::External | Value::Platform => Self::push(out, Value::External),
                    Value::Module(_)
                    | Value::Elements(..)
                    | Value::Signature(..)
                    | Value::Shape(..) => {}
                }
            }
        }
    }
}

/// `module.exports` with `module` free: the file's own CommonJS export value.
fn is_module_exports(facts: &FileFacts, base: SymId, name: StrId) -> bool {
    matches!(facts.sym(base), Sym::Global(m) if facts.str(m) == "module")
        && facts.str(name) == "exports"
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FallbackScope {
    /// Top-level functions and classes of script files.
    Globals,
    /// Methods and object-literal functions.
    Members,
}

impl Graph {
    /// The interface methods that a class method implements: the members of the same
    /// name of every interface its class names after `implements` (and what those
    /// extend). A call through the interface (`repo: Repo; repo.find()`) reaches the
    /// implementation: TypeScript's find-references counts it too.
    pub fn implemented_methods(&self, d: DefId) -> Vec<DefId> {
        let facts = self.facts(d.file);
        let def = facts.def(d.def);
        let Some(class) = def.container else {
            return Vec::new();
        };
        if !matches!(
            def.kind,
            DefKind::Method | DefKind::Getter | DefKind::Setter
        ) || def.is_static
        {
            return Vec::new();
        }
        let name = self.slot(d.file).index.name(def.name);
        let mut resolver = Resolver::new(self, d.file);
        let mut out = Vec::new();
        for &(_, ty) in facts.implements.iter().filter(|(c, _)| *c == class) {
            let mut interfaces = Vals::new();
            resolver.eval(d.file, ty, 0, &mut interfaces);
            for i in interfaces {
                if let Value::Def(interface) = i {
                    let mut members = Vals::new();
                    resolver.def_member(interface, name, true, 0, &mut members);
                    out.extend(members.into_iter().filter_map(|m| match m {
                        Value::Def(m) if m != d => Some(m),
                        _ => None,
                    }));
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

/// One observable part of a file: what it is, and the values it evaluates to.
pub(crate) type SurfacePart = (String, Vec<Value>);

impl<'g> Resolver<'g> {
    /// Everything another file's resolution can read of `self.current`: its exports and
    /// CommonJS value, its definitions (names, kinds, containers, stated returns and
    /// bases), their members and properties, and the types it states for parameters
    /// and callbacks, each evaluated. When an edit leaves this unchanged (a call added
    /// inside a function, a body rewritten), no other file's resolution can change.
    pub(crate) fn surface(mut self) -> Vec<SurfacePart> {
        let f = self.current;
        let g = self.g;
        let facts = &g.slot(f).facts;
        let index = &g.slot(f).index;
        let mut out: Vec<SurfacePart> = Vec::new();
        out.push((
            format!(
                "module {} {} {}",
                index.is_module,
                facts.declaration_only,
                facts.defs.len()
            ),
            Vec::new(),
        ));
        let mut exports: Vec<(&str, NameId)> = index
            .exports
            .keys()
            .map(|&n| (g.names.resolve(n), n))
            .collect();
        exports.sort_unstable();
        for (text, name) in exports {
            let mut vals = Vals::new();
            self.steps = 0;
            self.export_lookup(f, name, 0, &mut vals);
            out.push((format!("export {text}"), vals.into_vec()));
        }
        for &spec in &index.stars {
            let target = match g.slot(f).target(spec) {
                Target::File(t) | Target::Typed(t, _) => vec![Value::Module(t)],
                Target::External => vec![Value::External],
                Target::Unresolved => Vec::new(),
            };
            out.push(("export *".into(), target));
        }
        let mut cjs = Vals::new();
        self.steps = 0;
        self.commonjs_value(f, 0, &mut cjs);
        out.push(("module.exports".into(), cjs.into_vec()));
        for (i, d) in facts.defs.iter().enumerate() {
            let key = format!(
                "def {i} {} {} {:?} {:?} {} {}",
                facts.str(d.name),
                facts.str(d.qualified),
                d.kind,
                d.container,
                d.is_static,
                d.exported
            );
            let returns = self.part(d.returns);
            out.push((key, returns));
            let extends = self.part(d.extends);
            out.push(("extends".into(), extends));
        }
        let mut members: Vec<(DefIdx, &str, Vec<Value>)> = index
            .members
            .iter()
            .map(|(&(c, n), defs)| {
                let defs = defs.iter().map(|&m| Value::Def(DefId::new(f, m))).collect();
                (c, g.names.resolve(n), defs)
            })
            .collect();
        members.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        for (c, name, defs) in members {
            out.push((format!("member {c} {name}"), defs));
        }
        let mut props: Vec<(DefIdx, &str, SymId)> = index
            .props
            .iter()
            .flat_map(|(&(o, n), syms)| {
                let name = g.names.resolve(n);
                syms.iter().map(move |&s| (o, name, s))
            })
            .collect();
        props.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        for (o, name, sym) in props {
            let vals = self.part(Some(sym));
            out.push((format!("prop {o} {name}"), vals));
        }
        for c in &facts.callback_params {
            let vals = self.part(Some(c.value));
            out.push((format!("callback {} {} {}", c.def, c.arg, c.param), vals));
        }
        for p in &facts.param_types {
            let vals = self.part(Some(p.value));
            out.push((format!("param {} {}", p.def, p.index), vals));
        }
        for &(d, sym) in &facts.implements {
            let vals = self.part(Some(sym));
            out.push((format!("implements {d}"), vals));
        }
        // An array of this file is read through its element's value, which a symbol id
        // alone does not show.
        let arrays_in = |vals: &[Value]| -> Vec<SymId> {
            vals.iter()
                .filter_map(|v| match *v {
                    Value::Elements(file, sym) if file == f => Some(sym),
                    _ => None,
                })
                .collect()
        };
        let mut pending: Vec<SymId> = out.iter().flat_map(|(_, v)| arrays_in(v)).collect();
        let mut seen: FxHashSet<SymId> = FxHashSet::default();
        while let Some(sym) = pending.pop() {
            if !seen.insert(sym) {
                continue;
            }
            if let Sym::Array(element) = facts.sym(sym) {
                let vals = self.part(Some(element));
                pending.extend(arrays_in(&vals));
                out.push((format!("elements {sym}"), vals));
            }
        }
        out
    }

    fn part(&mut self, sym: Option<SymId>) -> Vec<Value> {
        let mut vals = Vals::new();
        if let Some(sym) = sym {
            self.steps = 0;
            self.eval(self.current, sym, 0, &mut vals);
        }
        vals.into_vec()
    }
}

/// The index of the last entry of `def` that `wanted` accepts, in a list sorted by
/// definition first.
fn last_of_def<T>(
    list: &[T],
    def: DefIdx,
    key: impl Fn(&T) -> DefIdx,
    wanted: impl Fn(&T) -> bool,
) -> Option<usize> {
    let start = list.partition_point(|e| key(e) < def);
    let end = list.partition_point(|e| key(e) <= def);
    list[start..end].iter().rposition(wanted).map(|i| start + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_globals_are_sorted_for_binary_search() {
        assert!(PLATFORM_GLOBALS.windows(2).all(|w| w[0] < w[1]));
    }
}
