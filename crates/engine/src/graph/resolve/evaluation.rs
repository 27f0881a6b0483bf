//! Evaluation: the values a symbolic value of a file may denote, through bindings,
//! imports, instances, stated returns, parameters and arrays.

use smallvec::SmallVec;

use super::builtins::PLATFORM_GLOBALS;
use super::{Resolver, TypeFrame, Vals, Value, MAX_DEPTH, MAX_VALUES};
use crate::graph::interner::NameId;
use crate::graph::{DefId, FileId, Graph};
use crate::indexer::facts::*;

impl Resolver<'_> {
    pub(super) fn push(out: &mut Vals, v: Value) {
        if out.len() < MAX_VALUES && !out.contains(&v) {
            out.push(v);
        }
    }

    /// What a call site calls. Like [`Self::eval`], except that a member that is a
    /// getter stays the getter: reading it is the call.
    pub(super) fn eval_callee(&mut self, f: FileId, sym: SymId, out: &mut Vals) {
        let facts = self.facts(f);
        match facts.sym(sym) {
            Sym::Member(base, name) if !is_module_exports(self.g, facts, base, name) => {
                let name = NameId(name);
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
            Sym::Global(n) if self.g.str(n) == "exports" => Self::push(out, Value::Module(f)),
            Sym::Global(n) if PLATFORM_GLOBALS.binary_search(&self.g.str(n)).is_ok() => {
                Self::push(out, Value::Platform);
                // The global object: also what the repository declares of it
                // (`declare global { interface Window { helpers: Helpers } }`).
                if matches!(self.g.str(n), "window" | "globalThis" | "self") {
                    for (d, interface) in self.global_scope() {
                        Self::push(
                            out,
                            if interface {
                                Value::Instance(d)
                            } else {
                                Value::Def(d)
                            },
                        );
                    }
                }
            }
            // A member of the global object is a global too (`helpers` in a test).
            Sym::Global(n) => {
                for (d, _) in self.global_scope() {
                    self.def_member(d, NameId(n), true, depth + 1, out);
                }
                // An interface a script declares (`interface Store` in a `.d.ts`
                // without imports, or in `declare global`): a global type, as
                // TypeScript reads it (`s: Store`).
                self.global_reads.insert(NameId(n));
                let interfaces: SmallVec<[DefId; 2]> = self
                    .g
                    .global_definitions(NameId(n))
                    .filter(|d| self.facts(d.file).def(d.def).kind == DefKind::Interface)
                    .collect();
                for d in interfaces {
                    Self::push(out, Value::Def(d));
                }
                // Free in a `declare module 'x'` block: declared by another block of x
                // (a module's declarations spread over files joined by references).
                let index = self.index(f);
                for &specifier in index.ambient.iter() {
                    self.global_reads.insert(specifier);
                    let blocks: SmallVec<[DefId; 4]> = self.g.ambient_modules(specifier).collect();
                    for d in blocks {
                        self.def_member(d, NameId(n), true, depth + 1, out);
                    }
                }
            }
            Sym::Unknown => {}
            Sym::Def(d) => Self::push(out, Value::Def(DefId::new(f, d))),
            Sym::Import(i) => {
                let import = facts.imports[i as usize];
                self.import_value(f, import, depth + 1, out)
            }
            Sym::Member(base, name) => {
                if is_module_exports(self.g, facts, base, name) {
                    return self.commonjs_value(f, depth + 1, out);
                }
                self.member_value(f, base, NameId(name), depth, out);
            }
            Sym::Instance(class) => self.eval_instance(f, class, depth, out),
            Sym::Return(callee) => self.eval_return(f, callee, depth, out),
            Sym::This(Some(c)) => {
                let d = DefId::new(f, c);
                if facts.def(c).kind == DefKind::Object {
                    Self::push(out, Value::Def(d));
                } else {
                    Self::push(out, Value::Instance(d));
                }
            }
            Sym::This(None) => {}
            // An Angular template's component: an instance of each class whose
            // `templateUrl` names this file (read from its file, so that a change to
            // the class re-resolves the template).
            Sym::Host => {
                for d in self.g.hosts_of(f) {
                    self.facts(d.file);
                    Self::push(out, Value::Instance(d));
                }
            }
            Sym::Super(c) => self.eval_super(f, c, depth, out),
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
                self.eval_callback_param(f, callee, slot, depth, out)
            }
            Sym::Apply(generic, list) => self.eval_applied(f, generic, list, depth, out),
            Sym::Generic(body, key) => {
                // The application under way, if its generic is this alias, binds the
                // alias's parameters; evaluated bare, they are their bounds.
                if let Some(frame) = self.type_frames.last_mut() {
                    if frame.owner.is_none() {
                        frame.owner = Some((f, key));
                    }
                }
                self.eval(f, body, depth + 1, out)
            }
            Sym::TypeArg(bound, slot) => self.eval_type_arg(f, bound, slot, depth, out),
            Sym::Signature(i) => Self::push(out, Value::Signature(f, i)),
            Sym::Shape(i) => Self::push(out, Value::Shape(f, i)),
            Sym::Array(_) => Self::push(out, Value::Elements(f, sym)),
            Sym::Element(array) => self.eval_element(f, array, depth, out),
            Sym::Awaited(value) => self.eval_awaited(f, value, depth, out),
        }
    }

    /// `await value`: what `value` is, except that an instance of a thenable class of
    /// the repository (one with a `then` method whose callback's parameter is stated,
    /// `class ResultAsync implements PromiseLike<Result>`) is what `then` hands its
    /// callback, as the compiler's `Awaited<T>` reads it.
    fn eval_awaited(&mut self, f: FileId, value: SymId, depth: u32, out: &mut Vals) {
        let mut values = Vals::new();
        self.eval(f, value, depth + 1, &mut values);
        let then = self.g.names.get("then");
        for v in values {
            if let (Value::Instance(_), Some(then)) = (v, then) {
                let mut methods = Vals::new();
                self.member(v, then, depth + 1, &mut methods);
                let before = out.len();
                for m in methods {
                    if matches!(m, Value::Def(_)) {
                        self.callback_param_of(m, 0, 0, depth + 1, out);
                    }
                }
                if out.len() > before {
                    continue;
                }
            }
            Self::push(out, v);
        }
    }

    /// An element of the array `array` evaluates to.
    fn eval_element(&mut self, f: FileId, array: SymId, depth: u32, out: &mut Vals) {
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

    /// `generic<args>`: what `generic` denotes, with the parameters of the alias it
    /// leads to bound to `args` (signature `list` of file `f`).
    fn eval_applied(&mut self, f: FileId, generic: SymId, list: u32, depth: u32, out: &mut Vals) {
        let outer = self.type_frames.len();
        self.type_frames.push(TypeFrame {
            file: f,
            list,
            owner: None,
            outer,
        });
        self.eval(f, generic, depth + 1, out);
        self.type_frames.truncate(outer);
    }

    /// Type parameter `slot & 0xff` of the generic alias of key `slot >> 8` in file
    /// `f`: the argument the innermost application of that alias gave it, evaluated
    /// where it was written; else its default or constraint, `bound`.
    fn eval_type_arg(&mut self, f: FileId, bound: SymId, slot: u32, depth: u32, out: &mut Vals) {
        let (key, index) = (slot >> 8, (slot & 0xff) as usize);
        let frame = self
            .type_frames
            .iter()
            .rev()
            .find(|frame| frame.owner == Some((f, key)))
            .copied();
        if let Some(frame) = frame {
            let arg = self.facts(frame.file).signatures[frame.list as usize]
                .params
                .get(index)
                .copied()
                .flatten();
            if let Some(arg) = arg {
                // The argument sees the frames open where it was written, not those
                // of the alias's body.
                let inner = self.type_frames.split_off(frame.outer);
                self.eval(frame.file, arg, depth + 1, out);
                self.type_frames.truncate(frame.outer);
                self.type_frames.extend(inner);
                return;
            }
        }
        self.eval(f, bound, depth + 1, out)
    }

    /// What the repository declares of the global object: its `Window` interfaces (an
    /// instance of each is the object) and its `declare global` variables (members of
    /// an object named `globalThis`), remembered as read (see
    /// `Resolver::global_reads`). With whether each is an interface.
    fn global_scope(&mut self) -> SmallVec<[(DefId, bool); 2]> {
        let mut out = SmallVec::new();
        for (name, interface) in [("Window", true), ("globalThis", false)] {
            let Some(name) = self.g.names.get(name) else {
                continue;
            };
            self.global_reads.insert(name);
            out.extend(self.g.global_definitions(name).map(|d| (d, interface)));
        }
        out
    }

    /// `new C()`, or a value of type `C`: an instance of what `class` denotes.
    fn eval_instance(&mut self, f: FileId, class: SymId, depth: u32, out: &mut Vals) {
        let mut classes = Vals::new();
        self.eval(f, class, depth + 1, &mut classes);
        // `require('./mocha')` gives the function `module.exports` is and the namespace
        // of `exports.run = ...`: a `Mocha` is an instance of the function.
        let has_class = classes.iter().any(|c| matches!(c, Value::Def(_)));
        for c in classes {
            match c {
                Value::Def(d) => Self::push(out, Value::Instance(d)),
                Value::External | Value::Platform => Self::push(out, Value::External),
                // A value of a function type is a function of that type; an
                // instance of a type that names an instance (`ReturnType<typeof
                // create>`), an array (`Shelf['stores']`) or a module's namespace
                // (`type Api = typeof import('./api')`) is that instance, array or
                // namespace.
                Value::Signature(..)
                | Value::Shape(..)
                | Value::Instance(_)
                | Value::Elements(..) => {
                    // `new Model()` with `Model: ModelCtor`, an instance of an
                    // interface with construct signatures: what they give. (Only an
                    // instance: a type written inline, `C: { new (): Store }`, is a
                    // shape here whether `C` is read or constructed.)
                    let constructs = match c {
                        Value::Instance(_) => self.stated_signatures(c, NEW, depth + 1),
                        _ => SmallVec::new(),
                    };
                    if constructs.is_empty() {
                        Self::push(out, c);
                    }
                    for (file, sig) in constructs {
                        if let Some(r) = self.facts(file).signatures[sig as usize].returns {
                            self.eval(file, r, depth + 1, out);
                        }
                    }
                }
                Value::Module(_) if !has_class => Self::push(out, c),
                Value::Module(_) => {}
            }
        }
    }

    /// `base.name` read as a value (a getter gives what it returns); returns the values
    /// of `base`.
    fn member_value(
        &mut self,
        f: FileId,
        base: SymId,
        name: NameId,
        depth: u32,
        out: &mut Vals,
    ) -> Vals {
        let mut bases = Vals::new();
        self.eval(f, base, depth + 1, &mut bases);
        let mut members = Vals::new();
        for &b in &bases {
            self.member(b, name, depth + 1, &mut members);
        }
        for m in members {
            self.accessor_value(m, depth + 1, out);
        }
        bases
    }

    /// What calling `callee` returns.
    fn eval_return(&mut self, f: FileId, callee: SymId, depth: u32, out: &mut Vals) {
        let facts = self.facts(f);
        // A method's receiver is evaluated once, for finding the method and for every
        // overload that returns `this`: evaluated again per overload, a fluent chain's
        // evaluation grew exponentially with its length and ran out of steps
        // (commander's `.option().option()...` has three overloads a link).
        let mut fns = Vals::new();
        let mut receiver_vals: Option<Vals> = None;
        match facts.sym(callee) {
            Sym::Member(base, name) if !is_module_exports(self.g, facts, base, name) => {
                receiver_vals = Some(self.member_value(f, base, NameId(name), depth, &mut fns));
            }
            _ => self.eval(f, callee, depth + 1, &mut fns),
        }
        for v in fns {
            match v {
                Value::Def(d) => {
                    let Some(r) = self.facts(d.file).def(d.def).returns() else {
                        continue;
                    };
                    // A method that returns `this` (stated or returned) gives
                    // back its receiver: `qb.where().select()` stays on qb's
                    // class, a subclass included.
                    let returns_this = matches!(self.facts(d.file).sym(r), Sym::This(Some(_)));
                    if let (true, Sym::Member(receiver, _)) = (returns_this, facts.sym(callee)) {
                        let vals = match &receiver_vals {
                            Some(vals) => vals.clone(),
                            None => {
                                let mut vals = Vals::new();
                                self.eval(f, receiver, depth + 1, &mut vals);
                                receiver_vals = Some(vals.clone());
                                vals
                            }
                        };
                        let before = out.len();
                        for value in vals {
                            Self::push(out, value);
                        }
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

    /// `super` in class `c`: an instance of what it extends.
    fn eval_super(&mut self, f: FileId, c: DefIdx, depth: u32, out: &mut Vals) {
        let facts = self.facts(f);
        if let Some(e) = facts.def(c).extends() {
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

    /// Parameter `param` of the callback passed as argument `slot >> 16` to `callee`.
    fn eval_callback_param(
        &mut self,
        f: FileId,
        callee: SymId,
        slot: u32,
        depth: u32,
        out: &mut Vals,
    ) {
        let (arg, param) = (slot >> 16, slot & 0xffff);
        // `[A, B].forEach((K) => ...)`, `list.map((item) => ...)`: the platform's
        // iteration methods call their callback with each element first.
        if (arg, param) == (0, 0) {
            if let Sym::Member(array, method) = self.facts(f).sym(callee) {
                if ITERATES_ELEMENTS.contains(&self.g.names.resolve(NameId(method))) {
                    self.eval_element(f, array, depth, out);
                }
            }
        }
        let mut fns = Vals::new();
        self.eval_callee(f, callee, &mut fns);
        for v in fns {
            self.callback_param_of(v, arg, param, depth, out);
        }
    }

    /// What the function `v` hands parameter `param` of the callback it is given as
    /// argument `arg`, by their stated types.
    fn callback_param_of(&mut self, v: Value, arg: u32, param: u32, depth: u32, out: &mut Vals) {
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
                        |c| c.rest && u32::from(c.arg) < arg && u32::from(c.param) == param,
                    )
                });
            if let Some(i) = found {
                self.eval(d.file, params[i].value, depth + 1, out);
                return;
            }
        }
        // The argument's type named elsewhere (`cb: BuilderCallback`), or a callee
        // that is itself only a type: the parameter of the parameter.
        let mut callbacks = Vals::new();
        self.param_of(v, arg, depth + 1, &mut callbacks);
        for c in callbacks {
            self.param_of(c, param, depth + 1, out);
        }
    }

    /// What parameter `index` of the function `v` is stated to be.
    pub(super) fn param_of(&mut self, v: Value, index: u32, depth: u32, out: &mut Vals) {
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
        match v {
            Value::Signature(file, sig) => smallvec::smallvec![(file, sig)],
            _ => self.stated_signatures(v, CALL, depth),
        }
    }

    /// The signatures an interface or object type states under `name` (its call or
    /// construct signatures: [`CALL`], [`NEW`]) that `v` is an instance of.
    fn stated_signatures(
        &mut self,
        v: Value,
        name: &str,
        depth: u32,
    ) -> SmallVec<[(FileId, u32); 2]> {
        let mut found = Vals::new();
        match v {
            Value::Shape(file, shape) => {
                for s in self.shape_members(file, shape, name) {
                    self.eval(file, s, depth + 1, &mut found);
                }
            }
            Value::Instance(d) | Value::Def(d)
                if self.facts(d.file).def(d.def).kind == DefKind::Interface =>
            {
                if let Some(name) = self.g.names.get(name) {
                    self.def_member(d, name, true, depth + 1, &mut found);
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
    pub(super) fn shape_members(
        &mut self,
        file: FileId,
        shape: u32,
        name: &str,
    ) -> SmallVec<[SymId; 2]> {
        let g = self.g;
        self.facts(file).shapes[shape as usize]
            .iter()
            .filter(|(n, _)| g.str(*n) == name)
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
                if let Some(r) = def.returns() {
                    self.eval(d.file, r, depth + 1, out);
                }
            }
            DefKind::Setter => {}
            _ => Self::push(out, v),
        }
    }
}

/// `module.exports` with `module` free: the file's own CommonJS export value.
fn is_module_exports(g: &Graph, facts: &FileFacts, base: SymId, name: StrId) -> bool {
    matches!(facts.sym(base), Sym::Global(m) if g.str(m) == "module") && g.str(name) == "exports"
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

/// The array methods whose callback's first parameter is an element of the array.
const ITERATES_ELEMENTS: [&str; 10] = [
    "forEach",
    "map",
    "filter",
    "find",
    "findLast",
    "some",
    "every",
    "flatMap",
    "findIndex",
    "findLastIndex",
];
