//! Member lookup: `value.name` on modules, classes (their static and instance sides),
//! objects, prototypes, inline object types and what they extend or spread; and the
//! interface methods a class method implements.

use smallvec::SmallVec;

use super::{Resolver, Vals, Value, MAX_DEPTH, MAX_VALUES};
use crate::graph::interner::NameId;
use crate::graph::{DefId, FileId, Graph};
use crate::indexer::facts::*;

impl Resolver<'_> {
    /// `value.name`
    pub(super) fn member(&mut self, value: Value, name: NameId, depth: u32, out: &mut Vals) {
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
                // (`Dog.prototype = Object.create(Animal.prototype)`). A base from a
                // package (`class Builder extends EventEmitter`) does not make it
                // external: `Builder.prototype.table` is still Builder's own method.
                if out[before..].iter().all(|v| matches!(v, Value::External))
                    && self.g.names.resolve(name) == "prototype"
                    && matches!(
                        self.facts(d.file).def(d.def).kind,
                        DefKind::Function | DefKind::Class
                    )
                {
                    out.truncate(before);
                    Self::push(out, Value::Instance(d));
                }
            }
            Value::Instance(d) => self.def_member(d, name, true, depth + 1, out),
            // Members of arrays are the platform's (`map`, `length`, `push`); an index
            // (`items[0]`, read as member `0` or an element) is an element.
            Value::Elements(..) => {
                let index = self
                    .g
                    .names
                    .resolve(name)
                    .bytes()
                    .all(|b| b.is_ascii_digit());
                if !index {
                    Self::push(out, Value::Platform)
                }
            }
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
    pub(super) fn def_member(
        &mut self,
        d: DefId,
        name: NameId,
        instance: bool,
        depth: u32,
        out: &mut Vals,
    ) {
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
        // Classes keep their two sides apart, and so do constructor functions
        // (`F.m = ...` beside `F.prototype.m = ...`), where the other side is a last
        // resort (a function's statics are also what an object made from it is given
        // by `Object.setPrototypeOf`); objects and interfaces have one side.
        let sided = matches!(owner.kind, DefKind::Class | DefKind::Function);
        // What this lookup finds, apart from what `out` held before: each step below
        // runs only if the ones before found nothing (a value already in `out` counts).
        let mut found = Vals::new();
        let mut other_side = false;
        for m in index.members.get(&(d.def, name)) {
            // A class may hold thousands of members of one name: each one looked at is
            // a step of the site's budget, and past the values kept none is worth one
            // (without this, a call per member made the file quadratic).
            if found.len() >= MAX_VALUES || !self.step() {
                break;
            }
            let member = facts.def(m);
            if !sided || member.is_static != instance {
                Self::push(&mut found, Value::Def(DefId::new(d.file, m)));
            } else {
                other_side = true;
            }
        }
        if found.is_empty() {
            for p in index.props.get(&(d.def, name)) {
                // (A prototype method is also recorded as a property of its function.)
                if let Sym::Def(m) = facts.sym(p) {
                    let member = facts.def(m);
                    if sided && member.container() == Some(d.def) && member.is_static == instance {
                        other_side = true;
                        continue;
                    }
                }
                self.eval(d.file, p, depth + 1, &mut found);
            }
        }
        if found.is_empty() {
            self.spread_member(d, name, depth, &mut found);
        }
        if found.is_empty() && instance {
            self.prototype_member(d, name, depth, &mut found);
        }
        if found.is_empty() {
            self.inherited_member(d, name, instance, depth, &mut found);
        }
        if found.is_empty() && other_side && owner.kind == DefKind::Function {
            for m in index.members.get(&(d.def, name)).take(MAX_VALUES) {
                Self::push(&mut found, Value::Def(DefId::new(d.file, m)));
            }
        }
        for v in found {
            Self::push(out, v);
        }
    }

    /// `{ ...base }`: a member of what the object spreads.
    fn spread_member(&mut self, d: DefId, name: NameId, depth: u32, out: &mut Vals) {
        let index = self.index(d.file);
        let spreads: SmallVec<[SymId; 2]> = match self.g.names.get(SPREAD) {
            Some(s) => index.props.get(&(d.def, s)).collect(),
            None => SmallVec::new(),
        };
        if spreads.is_empty() {
            return;
        }
        let mut sources = Vals::new();
        for p in spreads {
            self.eval(d.file, p, depth + 1, &mut sources);
        }
        for source in sources {
            self.member(source, name, depth + 1, out);
        }
    }

    /// Methods assigned to `X.prototype = { ... }`.
    fn prototype_member(&mut self, d: DefId, name: NameId, depth: u32, out: &mut Vals) {
        let Some(proto) = self.g.names.get("prototype") else {
            return;
        };
        let index = self.index(d.file);
        let props: SmallVec<[SymId; 2]> = index.props.get(&(d.def, proto)).collect();
        if props.is_empty() {
            return;
        }
        let mut protos = Vals::new();
        for p in props {
            self.eval(d.file, p, depth + 1, &mut protos);
        }
        for p in protos {
            if let Value::Def(obj) = p {
                self.def_member(obj, name, false, depth + 1, out);
            }
        }
    }

    /// Inherited: through `extends`, or an object's prototype (`Object.create(p)`),
    /// which, when it is an instance (`Object.create(Animal.prototype)`), lends its
    /// instance side.
    fn inherited_member(
        &mut self,
        d: DefId,
        name: NameId,
        instance: bool,
        depth: u32,
        out: &mut Vals,
    ) {
        let owner = self.facts(d.file).def(d.def);
        let Some(e) = owner.extends() else {
            return;
        };
        let object = owner.kind == DefKind::Object;
        // `extends Mixin(Base)` (the extractor's `Either(Return(Mixin), Base)`): what
        // the mixin's class defines first; the classes given to it when it defines
        // nothing of that name (its own class extends a parameter).
        let facts = self.facts(d.file);
        let (e, given) = match facts.sym(e) {
            Sym::Either(made, given) if matches!(facts.sym(made), Sym::Return(_)) => {
                (made, Some(given))
            }
            _ => (e, None),
        };
        let before = out.len();
        self.bases_member(d.file, e, name, instance, object, depth, out);
        if let (Some(given), true) = (given, out.len() == before) {
            self.bases_member(d.file, given, name, instance, object, depth, out);
        }
    }

    /// Member `name` of the bases a symbolic value of file `f` denotes.
    #[allow(clippy::too_many_arguments)]
    fn bases_member(
        &mut self,
        f: FileId,
        e: SymId,
        name: NameId,
        instance: bool,
        object: bool,
        depth: u32,
        out: &mut Vals,
    ) {
        let mut bases = Vals::new();
        self.eval(f, e, depth + 1, &mut bases);
        for b in bases {
            match b {
                Value::Def(base) => self.def_member(base, name, instance, depth + 1, out),
                Value::Instance(base) => {
                    self.def_member(base, name, instance || object, depth + 1, out)
                }
                Value::External | Value::Platform => Self::push(out, Value::External),
                // A mapped type over `keyof typeof import('./x')`: x's exports.
                Value::Module(_) => self.member(b, name, depth + 1, out),
                Value::Elements(..) | Value::Signature(..) | Value::Shape(..) => {}
            }
        }
    }
}

impl Graph {
    /// The interface methods that a class method implements: the members of the same
    /// name of every interface its class names after `implements` (and what those
    /// extend). A call through the interface (`repo: Repo; repo.find()`) reaches the
    /// implementation: TypeScript's find-references counts it too.
    pub fn implemented_methods(&self, d: DefId) -> Vec<DefId> {
        let facts = self.facts(d.file);
        let def = facts.def(d.def);
        let Some(class) = def.container() else {
            return Vec::new();
        };
        if !matches!(
            def.kind,
            DefKind::Method | DefKind::Getter | DefKind::Setter
        ) || def.is_static
        {
            return Vec::new();
        }
        let name = NameId(def.name);
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
