//! What kind of value a name is, as the graph evaluates it: where a call's argument
//! is a name of no stated type (a callback's parameter, an instance made in place),
//! the blast radius's verdicts weigh it against the parameter it lands on.

use super::{Resolver, Vals, Value};
use crate::graph::{DefId, FileId, Graph};
use crate::indexer::facts::*;

impl Graph {
    /// What the name bound by `binding` in file `f` may be, where every value the
    /// graph evaluates it to says: a function (one defined in the repository, or of a
    /// stated function type), an array, an object (an object literal bound to a name,
    /// a module's namespace, a value of an interface or a class: never a primitive),
    /// or an instance of a class of the repository that extends nothing (which no
    /// call signature, array or global's members come with). ANY otherwise.
    pub(crate) fn binding_value_kinds(&self, f: FileId, binding: BindingIdx) -> ValueKinds {
        let Some(sym) = inline_sym(Sym::Binding(binding)) else {
            return ValueKinds::ANY;
        };
        let mut resolver = Resolver::new(self, f);
        let mut values = Vals::new();
        resolver.eval(f, sym, 0, &mut values);
        if values.is_empty() {
            return ValueKinds::ANY;
        }
        let mut all = ValueKinds::NONE;
        for v in values {
            let kinds = match v {
                Value::Def(d) => match self.facts(d.file).def(d.def).kind {
                    DefKind::Function | DefKind::Method | DefKind::Class => ValueKinds::FUNCTION,
                    DefKind::Object => ValueKinds::OBJECTS,
                    _ => ValueKinds::ANY,
                },
                Value::Instance(d) if self.is_plain_class(d) => ValueKinds::OBJECT,
                // A value of an interface or a class is an object, whatever its members:
                // never a primitive, as far as the compiler is concerned.
                Value::Instance(d)
                    if matches!(
                        self.facts(d.file).def(d.def).kind,
                        DefKind::Class | DefKind::Interface
                    ) =>
                {
                    ValueKinds::OBJECTS
                }
                Value::Signature(..) => ValueKinds::FUNCTION,
                Value::Elements(..) => ValueKinds::ARRAY,
                Value::Module(_) => ValueKinds::OBJECTS,
                _ => ValueKinds::ANY,
            };
            if kinds.is_any() {
                return ValueKinds::ANY;
            }
            all = all | kinds;
        }
        all
    }

    /// What the name bound by `binding` in file `f` holds where its value is a call's
    /// result (`const hash = digest(data)`) or an awaited call's (`const key = await
    /// importJWK(jwk)`): what every definition the call reaches states it returns (for
    /// an awaited promise, what the promise holds). ANY otherwise.
    pub(crate) fn binding_result_kinds(&self, f: FileId, binding: BindingIdx) -> ValueKinds {
        let facts = self.facts(f);
        let Some(b) = facts.bindings.get(binding as usize) else {
            return ValueKinds::ANY;
        };
        let (callee, slot) = match facts.sym(b.value) {
            Sym::Return(callee) => (callee, DefKinds::RESULT),
            Sym::Awaited(inner) => match facts.sym(inner) {
                Sym::Return(callee) => (callee, DefKinds::AWAITED),
                _ => return ValueKinds::ANY,
            },
            _ => return ValueKinds::ANY,
        };
        let mut resolver = Resolver::new(self, f);
        let mut values = Vals::new();
        resolver.eval_callee(f, callee, &mut values);
        if values.is_empty() {
            return ValueKinds::ANY;
        }
        let mut all = ValueKinds::NONE;
        for v in values {
            let Value::Def(d) = v else {
                return ValueKinds::ANY;
            };
            let kinds = self.facts(d.file).def_kinds(d.def, slot);
            if kinds.is_any() {
                return ValueKinds::ANY;
            }
            all = all | kinds;
        }
        all
    }

    /// The definitions module `t` exports as `name`, through its re-exports (`export *
    /// from`, `export { X as name } from`): where a type name imported from an index
    /// file leads.
    pub(crate) fn exported_defs(&self, t: FileId, name: &str) -> Vec<DefId> {
        let Some(name) = self.names.get(name) else {
            return Vec::new();
        };
        let mut resolver = Resolver::new(self, t);
        let mut values = Vals::new();
        resolver.export_lookup(t, name, 0, &mut values);
        values
            .into_iter()
            .filter_map(|v| match v {
                Value::Def(d) => Some(d),
                _ => None,
            })
            .collect()
    }

    /// The interfaces and classes the parameter at `slot` of what call `call` of file
    /// `f` calls is stated to be an instance of, through the callee's own parameters
    /// or the function type it is stated to be (`const persist: Persist = ...`). Empty
    /// where one of them is anything else.
    pub(crate) fn param_type_defs(&self, f: FileId, call: usize, slot: u8) -> Vec<DefId> {
        let Some((mut resolver, callees)) = self.callees_of(f, call) else {
            return Vec::new();
        };
        let mut types = Vals::new();
        for c in callees {
            // `new Frame({ request })`: the constructor's parameter.
            let constructors = match c {
                Value::Def(d) => self.constructors_of(d),
                _ => Vec::new(),
            };
            if constructors.is_empty() {
                resolver.param_of(c, u32::from(slot), 1, &mut types);
            }
            for d in constructors {
                resolver.param_of(Value::Def(d), u32::from(slot), 1, &mut types);
            }
        }
        let mut out = Vec::new();
        for t in types {
            match t {
                Value::Instance(d)
                    if matches!(
                        self.facts(d.file).def(d.def).kind,
                        DefKind::Interface | DefKind::Class
                    ) =>
                {
                    out.push(d)
                }
                _ => return Vec::new(),
            }
        }
        out
    }

    /// The stated types of the parameter at `slot` of each function that call `call`
    /// of file `f` calls, as written where each is declared (file and symbol); empty
    /// where a callee is not a function of the repository or states no type there.
    pub(crate) fn param_type_syms(&self, f: FileId, call: usize, slot: u8) -> Vec<(FileId, SymId)> {
        let Some((_, callees)) = self.callees_of(f, call) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for c in callees {
            let Value::Def(d) = c else {
                return Vec::new();
            };
            let params = &self.facts(d.file).param_types;
            match params
                .binary_search_by_key(&(d.def, u32::from(slot)), |p| (p.def, u32::from(p.index)))
            {
                Ok(i) => out.push((d.file, params[i].value)),
                Err(_) => return Vec::new(),
            }
        }
        out
    }

    /// What call `call` of file `f` calls, with the resolver that evaluated it (to ask
    /// it more); None where there is no such call.
    fn callees_of(&self, f: FileId, call: usize) -> Option<(Resolver<'_>, Vals)> {
        let callee = self.facts(f).calls.get(call)?.callee;
        let mut resolver = Resolver::new(self, f);
        let mut callees = Vals::new();
        resolver.eval_callee(f, callee, &mut callees);
        Some((resolver, callees))
    }

    /// The constructors class `class` declares (overloads and all): what `new C(...)`
    /// passes its arguments to. Empty for a class without one (or another definition).
    pub(crate) fn constructors_of(&self, class: DefId) -> Vec<DefId> {
        let facts = self.facts(class.file);
        let Some(name) = self.names.get("constructor") else {
            return Vec::new();
        };
        if facts.def(class.def).kind != DefKind::Class {
            return Vec::new();
        }
        self.slot(class.file)
            .index()
            .members
            .get(&(class.def, name))
            .filter(|&m| facts.def(m).kind == DefKind::Constructor)
            .map(|m| DefId::new(class.file, m))
            .collect()
    }

    /// A class of the repository's code (not a declaration file's) that extends
    /// nothing: an instance of it is an object, never a function, an array or a
    /// global's instance (the class may not extend `Function` or `Array`).
    pub(crate) fn is_plain_class(&self, d: DefId) -> bool {
        let facts = self.facts(d.file);
        let def = facts.def(d.def);
        def.kind == DefKind::Class && def.extends().is_none() && !facts.declaration_only
    }
}
