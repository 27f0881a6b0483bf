//! Cross-file resolution: evaluates a call site's symbolic callee through bindings,
//! imports, exports, classes and stated types to the definitions it calls, and falls
//! back to a labelled name match only where nothing better is possible.

mod builtins;
mod evaluation;
mod exports;
mod global_components;
mod members;
mod pairing;
mod stated;
mod surface;
mod value_kinds;

use rustc_hash::FxHashSet;
use smallvec::SmallVec;
use thin_vec::ThinVec;

use super::interner::NameId;
use super::{Confidence, DefId, Edge, FileId, Graph, Target};
use crate::indexer::facts::*;
use builtins::BUILTIN_METHODS;

/// Deeper evaluation chains are cut (cycles in re-exports or bindings end here). Each
/// link of a fluent chain (`server.addHook(..).addHook(..)`) takes about two levels, so
/// this reaches some thirty links; the evaluation's stack stays far from a thread's.
const MAX_DEPTH: u32 = 64;
/// At most this many values are followed per expression.
const MAX_VALUES: usize = 24;
/// Declarations of one overload set a call reaches, at most.
const MAX_OVERLOADS: usize = 64;
/// Evaluation steps one call site may take. Ordinary sites take a few dozen; the bound
/// keeps pathological code (dozens of fields assigned from one another) from taking
/// exponential time. A site that runs out keeps what it found so far.
const MAX_STEPS: u32 = 4_096;
/// A name shared by more definitions than this says nothing: the site stays unresolved
/// (and is counted as such). Measured against TypeScript's checker on real repositories
/// (benches/precision), a name-only match to 5 or more definitions picks the right one
/// for fewer than one site in five: past that, a list of guesses is noise in a report.
pub const MAX_CANDIDATES: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

impl Value {
    /// Outside the repository: a package's or the platform's.
    fn is_outside(self) -> bool {
        matches!(self, Value::External | Value::Platform)
    }
}

type Vals = SmallVec<[Value; 2]>;

/// Everything resolving one file produced, and what it depended on.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// The resolver's edges, by site. Once the resolution is installed in a graph they
    /// move into its reverse index (the one copy of every edge) and this is empty:
    /// read a file's edges with [`super::Graph::edges`].
    pub(crate) edges: ThinVec<Edge>,
    /// Installed: the distinct definitions this file's sites call, sorted (where in
    /// the reverse index its edges are). Empty in the resolver's output.
    pub callees: ThinVec<DefId>,
    /// Other files whose facts were read: a change to one of them re-resolves this file.
    pub deps: ThinVec<FileId>,
    /// Names matched by name only: a definition of one appearing or vanishing anywhere
    /// re-resolves this file.
    pub fallback_names: ThinVec<NameId>,
    /// Call sites into packages outside the repository.
    pub external: u32,
    /// Those sites (indices), ascending.
    pub external_sites: ThinVec<u32>,
    /// The unresolved call sites (indices): "0 callers" of a function is a lower bound
    /// when one of them has its name.
    pub unresolved_sites: ThinVec<u32>,
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
    /// Names of global interfaces read (`Window`): one appearing or vanishing anywhere
    /// re-resolves this file, as for names matched by name only.
    global_reads: FxHashSet<NameId>,
    /// Generic aliases being applied, innermost last (see [`TypeFrame`]).
    type_frames: Vec<TypeFrame>,
}

/// An application of a generic type alias under evaluation (`Hydrated<User>`): where
/// its arguments are, and which alias took them.
#[derive(Clone, Copy, Debug)]
struct TypeFrame {
    /// The file of the application, whose signatures' table holds the arguments.
    file: FileId,
    /// The arguments: an entry of that table.
    list: u32,
    /// The alias that took them (its file and key), once the generic's evaluation
    /// reached it; `None` while it has not (or never will: a class given arguments).
    owner: Option<(FileId, u32)>,
    /// How many frames were open at the application: the arguments are evaluated
    /// with those alone (they were written outside the alias).
    outer: usize,
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
            global_reads: FxHashSet::default(),
            type_frames: Vec::new(),
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
        self.g.slot(f).facts()
    }

    fn index(&mut self, f: FileId) -> &'g super::file_index::FileIndex {
        if f != self.current {
            self.deps.insert(f);
        }
        self.g.slot(f).index()
    }

    /// Resolves every call site of the current file.
    pub(crate) fn resolve_file(mut self) -> Resolution {
        let f = self.current;
        let facts = self.g.slot(f).facts();
        let mut out = Resolution::default();
        let mut fallback = FxHashSet::default();
        for (i, site) in facts.calls.iter().enumerate() {
            let i = i as u32;
            let (vals, mut targets, external) = self.site_targets(f, site);
            if !targets.is_empty() {
                targets.sort();
                targets.dedup();
                for t in targets {
                    out.edges.push(Edge::new(i, t, Confidence::Exact));
                }
                continue;
            }
            if external {
                out.external += 1;
                out.external_sites.push(i);
                continue;
            }
            if matches!(site.kind, CallKind::Get | CallKind::Reference) {
                continue;
            }
            self.match_by_name(f, i, site, &vals, &mut fallback, &mut out);
        }
        // The order `Graph::edges` gives back: what the graph compares against.
        out.edges.sort_unstable_by_key(|e| (e.site(), e.target));
        // Candidates are read from every file of a name: those are dependencies through
        // `fallback_names`, not `deps`.
        out.deps = self.deps.into_iter().collect();
        out.deps.sort();
        fallback.extend(self.global_reads.drain());
        out.fallback_names = fallback.into_iter().collect();
        out.fallback_names.sort();
        out
    }

    /// What a site calls, as far as values say: the callee's values, the definitions
    /// among them, and whether it calls into a package or the platform.
    fn site_targets(&mut self, f: FileId, site: &CallSite) -> (Vals, SmallVec<[DefId; 2]>, bool) {
        let facts = self.g.slot(f).facts();
        self.steps = 0;
        self.crossed_typed = false;
        let mut vals = Vals::new();
        self.eval_callee(f, site.callee, &mut vals);
        if vals.is_empty() {
            self.global_component(f, site, &mut vals);
        }
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
        if targets.is_empty() && !external && site.kind == CallKind::Call {
            self.called_through_call_or_apply(f, site, &mut targets);
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
        self.whole_overload_sets(&mut targets);
        (vals, targets, external)
    }

    /// Adds to each target the rest of its overload set: the declarations of its name
    /// in the same container, which TypeScript names together. A set larger than the
    /// values a lookup keeps (mongoose's `Schema.post` has 27) would otherwise lose its
    /// tail. Bounded by [`MAX_OVERLOADS`] per target.
    fn whole_overload_sets(&mut self, targets: &mut SmallVec<[DefId; 2]>) {
        // Targets of one set (a class with many members of one name) add it once: the
        // set read again for each of them made a site cost its size squared.
        let mut sets: SmallVec<[OverloadSet; 2]> = SmallVec::new();
        for i in 0..targets.len() {
            let d = targets[i];
            let facts = self.facts(d.file);
            let def = facts.def(d.def);
            let Some(container) = def.container() else {
                continue;
            };
            if !matches!(def.kind, DefKind::Method | DefKind::Function) {
                continue;
            }
            let set_key = (d.file, container, def.name, def.kind, def.is_static);
            if sets.contains(&set_key) {
                continue;
            }
            sets.push(set_key);
            let index = self.index(d.file);
            let set = index.members.get(&(container, NameId(def.name)));
            for m in set.take(MAX_OVERLOADS) {
                let other = facts.def(m);
                let id = DefId::new(d.file, m);
                if other.kind == def.kind
                    && other.is_static == def.is_static
                    && !targets.contains(&id)
                {
                    targets.push(id);
                }
            }
        }
    }

    /// `f.call(this, x)` and `f.apply(this, args)` call `f` (when `f` has no member of
    /// that name: a class may define its own `call`).
    fn called_through_call_or_apply(
        &mut self,
        f: FileId,
        site: &CallSite,
        targets: &mut SmallVec<[DefId; 2]>,
    ) {
        let facts = self.g.slot(f).facts();
        if let Sym::Member(base, name) = facts.sym(site.callee) {
            if matches!(self.g.str(name), "call" | "apply") {
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

    /// A site whose values name no definition: the definitions its name alone matches,
    /// where a name-only match may look ([`Self::fallback_scope`]); unresolved when
    /// there are none or too many to say anything.
    fn match_by_name(
        &mut self,
        f: FileId,
        i: u32,
        site: &CallSite,
        vals: &Vals,
        fallback: &mut FxHashSet<NameId>,
        out: &mut Resolution,
    ) {
        let name = NameId(site.name);
        let Some(scope) = self.fallback_scope(f, site, vals) else {
            out.unresolved_sites.push(i);
            return;
        };
        fallback.insert(name);
        let mut candidates = Vec::new();
        if scope == FallbackScope::Globals {
            // In a Nuxt app, an unbound name may be one Nuxt imports (see `nuxt`).
            candidates = self.g.nuxt_candidates(f, site, self.g.str(site.name));
        }
        if candidates.is_empty() {
            candidates = self.g.candidates(name, scope, f);
        }
        if candidates.is_empty() || candidates.len() > MAX_CANDIDATES {
            out.unresolved_sites.push(i);
            return;
        }
        let confidence = if candidates.len() == 1 {
            Confidence::Likely
        } else {
            Confidence::Possible
        };
        for t in candidates {
            out.edges.push(Edge::new(i, t, confidence));
        }
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
        let facts = g.slot(f).facts();
        match facts.sym(site.callee) {
            Sym::Global(_) => Some(FallbackScope::Globals),
            Sym::Member(base, name) => {
                if BUILTIN_METHODS.contains(&g.str(name)) {
                    return None;
                }
                // A template's names are its component's members: while no component
                // names the template, nothing in it is guessed.
                if facts.language == Some(crate::indexer::Language::Angular)
                    && g.hosts_of(f).next().is_none()
                {
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
}

/// What makes declarations one overload set: file, container, name, kind, static side.
type OverloadSet = (FileId, DefIdx, StrId, DefKind, bool);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FallbackScope {
    /// Top-level functions and classes of script files.
    Globals,
    /// Methods and object-literal functions.
    Members,
}
