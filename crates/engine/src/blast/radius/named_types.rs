//! What the types a file names accept, read across files: the interfaces and classes
//! a name leads to (through imports, namespaces and re-exports), the members they
//! require, and the type aliases whose values the extractor recorded. A caller's
//! argument and a changed parameter are weighed against these (see `judge`).

use rustc_hash::FxHashSet;

use crate::graph::modules::ModuleTarget;
use crate::graph::{DefId, FileId, Graph};
use crate::indexer::facts::{
    BindingIdx, DefKind, DefKinds, ExportValue, ImportKind, StrId, Sym, SymId, ValueKinds,
};

/// What a parameter stated to be of the types `defs` accepts (each an interface or a
/// class, as their facts record it, an interface with the members of those it
/// extends); ANY unless every one says.
pub(super) fn type_kinds(head: &Graph, defs: &[DefId]) -> ValueKinds {
    let (mut path, mut done) = (Vec::new(), FxHashSet::default());
    known_union(
        defs.iter()
            .map(|&d| type_accepts(head, d, &mut path, &mut done)),
    )
}

/// What a parameter stated as the union of the types `names` (joined by `|`, each as
/// file `f` names them) and of types that accept `also` accepts; ANY unless each of
/// `names` is an interface or a class whose facts say.
pub(super) fn union_kinds(head: &Graph, f: FileId, names: &str, also: ValueKinds) -> ValueKinds {
    let mut all = also;
    for name in names.split('|') {
        let defs = named_type_by_name(head, f, name);
        let kinds = if defs.is_empty() {
            alias_kinds_by_name(head, f, name)
        } else {
            type_kinds(head, &defs)
        };
        if kinds.is_any() {
            return ValueKinds::ANY;
        }
        all = all | kinds;
    }
    all
}

/// What a value of the type alias the name bound by `binding` in file `f` leads to may
/// be (with `member`, that member of the namespace it binds): an alias of the file, or
/// one another file of the repository exports under the name imported, through its
/// re-exports (see [`FileFacts::alias_kinds`]). ANY where it leads elsewhere.
pub(super) fn alias_kinds(
    head: &Graph,
    f: FileId,
    binding: BindingIdx,
    member: Option<&str>,
) -> ValueKinds {
    const MAX_STEPS: usize = 16;
    let facts = head.facts(f);
    let Some(b) = facts.bindings.get(binding as usize) else {
        return ValueKinds::ANY;
    };
    // Where to look next: a binding of a file, or an export name of a module.
    enum Step<'a> {
        Binding(FileId, BindingIdx),
        Export(FileId, &'a str),
    }
    let mut step = match (member, facts.sym(b.value)) {
        (None, _) => Step::Binding(f, binding),
        (Some(member), Sym::Import(i)) => match facts.imports.get(i as usize).map(|i| i.kind) {
            Some(ImportKind::Namespace | ImportKind::TypeNamespace) => {
                match import_target(head, f, i) {
                    Some(t) => Step::Export(t, member),
                    None => return ValueKinds::ANY,
                }
            }
            _ => return ValueKinds::ANY,
        },
        _ => return ValueKinds::ANY,
    };
    for _ in 0..MAX_STEPS {
        step = match step {
            Step::Binding(file, b) => {
                let facts = head.facts(file);
                let kinds = facts.alias_kinds(b);
                if !kinds.is_any() {
                    return kinds;
                }
                let Some(binding) = facts.bindings.get(b as usize) else {
                    return ValueKinds::ANY;
                };
                match facts.sym(binding.value) {
                    Sym::Binding(next) => Step::Binding(file, next),
                    Sym::Import(i) => {
                        let (Some(ImportKind::Named(name)), Some(t)) = (
                            facts.imports.get(i as usize).map(|i| i.kind),
                            import_target(head, file, i),
                        ) else {
                            return ValueKinds::ANY;
                        };
                        Step::Export(t, head.facts(file).str(name))
                    }
                    _ => return ValueKinds::ANY,
                }
            }
            Step::Export(file, name) => {
                let facts = head.facts(file);
                let found = facts.exports.iter().find_map(|e| match e.value {
                    ExportValue::Local(sym) if facts.str(e.name) == name => match facts.sym(sym) {
                        Sym::Binding(b) => Some(Step::Binding(file, b)),
                        _ => None,
                    },
                    ExportValue::From {
                        specifier,
                        kind: ImportKind::Named(inner),
                    } if facts.str(e.name) == name => module_target(head, file, specifier)
                        .map(|t| Step::Export(t, head.facts(file).str(inner))),
                    _ => None,
                });
                match found {
                    Some(next) => next,
                    None => return ValueKinds::ANY,
                }
            }
        };
    }
    ValueKinds::ANY
}

/// As [`alias_kinds`], for the name `name` as the file `f` binds it (see
/// [`named_type_by_name`]): every binding of the name must say, and they must agree.
fn alias_kinds_by_name(head: &Graph, f: FileId, name: &str) -> ValueKinds {
    let facts = head.facts(f);
    let (name, member) = match name.split_once('.') {
        Some((_, member)) if member.contains('.') => return ValueKinds::ANY,
        Some((namespace, member)) => (namespace, Some(member)),
        None => (name, None),
    };
    let mut found = None;
    for (b, binding) in facts.bindings.iter().enumerate() {
        if facts.str(binding.name) != name {
            continue;
        }
        let kinds = alias_kinds(head, f, b as BindingIdx, member);
        if kinds.is_any() || found.is_some_and(|k| k != kinds) {
            return ValueKinds::ANY;
        }
        found = Some(kinds);
    }
    found.unwrap_or(ValueKinds::ANY)
}

/// The file of the repository the import `i` of file `f` leads to.
fn import_target(head: &Graph, f: FileId, i: u32) -> Option<FileId> {
    let facts = head.facts(f);
    let import = facts.imports.get(i as usize)?;
    module_target(head, f, import.specifier)
}

/// The file of the repository the module specifier `specifier` of file `f` names.
fn module_target(head: &Graph, f: FileId, specifier: StrId) -> Option<FileId> {
    let facts = head.facts(f);
    let specifier = facts.str(specifier);
    match head
        .resolver()
        .resolve(facts.path.as_str(), specifier, &|p| {
            head.file_id(p).is_some()
        }) {
        ModuleTarget::File(p) => head.file_id(&p),
        _ => None,
    }
}

/// What the interface or class `d` accepts: its own members' say (see
/// `type_kinds::object_type`), with those of every interface it extends, in its file or
/// another (`interface SignOptions extends CritOption {}`); ANY where one is not known.
///
/// `path` holds the interfaces being read (one met again is a cycle: ANY), `done`
/// those read already, whose kinds are in the result: each is read once, so that
/// interfaces extending the same bases many times over cost their number, not the
/// number of paths through them.
fn type_accepts(
    head: &Graph,
    d: DefId,
    path: &mut Vec<DefId>,
    done: &mut FxHashSet<DefId>,
) -> ValueKinds {
    const MAX_DEPTH: usize = 8;
    if path.contains(&d) {
        return ValueKinds::ANY;
    }
    if done.contains(&d) {
        return ValueKinds::NONE;
    }
    let facts = head.facts(d.file);
    let own = facts.def_kinds(d.def, DefKinds::RESULT);
    if own.is_any() || path.len() > MAX_DEPTH {
        return ValueKinds::ANY;
    }
    // Callable: what it extends adds members, never lets a value that cannot be
    // called fit.
    if own == ValueKinds::CALLABLE {
        return own;
    }
    let def = facts.def(d.def);
    let Some(base) = def.extends().filter(|_| def.kind == DefKind::Interface) else {
        return own;
    };
    // What it extends can only add members a value must have: where that is not
    // known (`extends Omit<Base, 'run'>`), its own members still rule out what lacks
    // them (NONE: it has none of its own).
    let own_only = if own == ValueKinds::NONE {
        ValueKinds::ANY
    } else {
        own
    };
    let bases = types_of_sym(head, d.file, base);
    if bases.is_empty() {
        return own_only;
    }
    let mut all = own;
    path.push(d);
    for b in bases {
        let kinds = type_accepts(head, b, path, done);
        if kinds.is_any() {
            path.pop();
            return own_only;
        }
        all = all | kinds;
    }
    path.pop();
    done.insert(d);
    all
}

/// What the member `key` of a value of the interfaces `defs` may be by its stated
/// type (looked up through what each extends); ANY where one of them does not say.
pub(super) fn member_kinds(head: &Graph, defs: &[DefId], key: &str) -> ValueKinds {
    known_union(defs.iter().map(|&d| {
        for t in extends_walk(head, d) {
            let facts = head.facts(t.file);
            if facts.def(t.def).kind != DefKind::Interface {
                break;
            }
            if let Some(m) = facts
                .type_members_of(t.def)
                .iter()
                .find(|m| facts.str(m.name) == key)
            {
                return m.kinds;
            }
        }
        ValueKinds::ANY
    }))
}

/// The interfaces and classes the member `key` of a value of the interfaces `defs` is
/// stated to be of, where an object literal is what it holds (`validator: Constraint |
/// Function`: `Constraint`, as no object literal is a `Function`); empty where one of
/// `defs` does not state it as such types.
pub(super) fn member_types(head: &Graph, defs: &[DefId], key: &str) -> Vec<DefId> {
    let Some(name) = head.names.get(key) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &d in defs {
        let mut found = false;
        for t in extends_walk(head, d) {
            let facts = head.facts(t.file);
            if facts.def(t.def).kind != DefKind::Interface {
                break;
            }
            let props: Vec<SymId> = head
                .slot(t.file)
                .index()
                .props
                .get(&(t.def, name))
                .collect();
            if props.is_empty() {
                continue;
            }
            for sym in props {
                let types = object_types_of_sym(head, t.file, sym);
                if types.is_empty() {
                    return Vec::new();
                }
                out.extend(types);
            }
            found = true;
            break;
        }
        if !found {
            return Vec::new();
        }
    }
    out
}

/// The interfaces and classes of the stated type `sym` of file `f` that an object
/// literal may be (see [`member_types`]): the global `Function` is left out of a
/// union; empty where a part of it is no such type.
fn object_types_of_sym(head: &Graph, f: FileId, sym: SymId) -> Vec<DefId> {
    let facts = head.facts(f);
    let mut out = Vec::new();
    let mut stack = vec![sym];
    while let Some(sym) = stack.pop() {
        if out.len() + stack.len() > 16 {
            return Vec::new();
        }
        match facts.sym(sym) {
            Sym::Instance(of) => stack.push(of),
            Sym::Either(a, b) => stack.extend([a, b]),
            Sym::Global(name) if facts.str(name) == "Function" => {}
            _ => {
                let types = types_of_sym(head, f, sym);
                if types.is_empty() {
                    return Vec::new();
                }
                out.extend(types);
            }
        }
    }
    // (Empty where it is only `Function`: nothing an object literal may be.)
    out
}

/// The interfaces and classes each member of an object of the stated types `stated`
/// is (`schema: S`, where `S extends ObjectSchema` and `type ObjectSchema =
/// Record<string, Struct<any, any>>`, in another file: `Struct`), read through type
/// parameters' constraints, names and named imports. Empty where one of them is no
/// `Record` of such types.
pub(super) fn record_value_types(head: &Graph, stated: &[(FileId, SymId)]) -> Vec<DefId> {
    let mut out = Vec::new();
    for &(file, sym) in stated {
        let found = record_values_of_sym(head, file, sym);
        if found.is_empty() {
            return Vec::new();
        }
        out.extend(found);
    }
    out
}

/// As [`record_value_types`], for one stated type.
fn record_values_of_sym(head: &Graph, f: FileId, sym: SymId) -> Vec<DefId> {
    let Some((f, sym)) = stated_target(head, f, sym) else {
        return Vec::new();
    };
    let facts = head.facts(f);
    let Sym::Apply(generic, list) = facts.sym(sym) else {
        return Vec::new();
    };
    let record = matches!(facts.sym(generic), Sym::Global(n) if facts.str(n) == "Record");
    let value = facts
        .signatures
        .get(list as usize)
        .and_then(|s| s.params.get(1).copied().flatten());
    match (record, value) {
        (true, Some(value)) => types_of_sym(head, f, value),
        _ => Vec::new(),
    }
}

/// What a function of each of the stated types `stated` returns, where each is a
/// function type whose stated result is an interface or a class (`run: (app: App) =>
/// App`: what an instance of `App` may be); ANY where one says less.
pub(super) fn signature_result_kinds(head: &Graph, stated: &[(FileId, SymId)]) -> ValueKinds {
    if stated.is_empty() {
        return ValueKinds::ANY;
    }
    known_union(stated.iter().map(|&(f, sym)| {
        let Some((f, sym)) = stated_target(head, f, sym) else {
            return ValueKinds::ANY;
        };
        let facts = head.facts(f);
        let Sym::Signature(sig) = facts.sym(sym) else {
            return ValueKinds::ANY;
        };
        let Some(mut returns) = facts.signatures.get(sig as usize).and_then(|s| s.returns) else {
            return ValueKinds::ANY;
        };
        if let Sym::Instance(of) = facts.sym(returns) {
            returns = of;
        }
        let defs = types_of_sym(head, f, returns);
        if defs.is_empty() {
            return ValueKinds::ANY;
        }
        type_kinds(head, &defs)
    }))
}

/// The stated type `sym` of file `f`, read through what only names it: an instance
/// of it, a type parameter's constraint, a name bound to it and a named import of it
/// (to the symbol the other file exports). None where that leads nowhere.
fn stated_target(head: &Graph, mut f: FileId, mut sym: SymId) -> Option<(FileId, SymId)> {
    for _ in 0..16 {
        let facts = head.facts(f);
        match facts.sym(sym) {
            Sym::Instance(of) => sym = of,
            Sym::TypeArg(bound, _) => sym = bound,
            Sym::Binding(b) => sym = facts.bindings.get(b as usize)?.value,
            Sym::Import(i) => {
                let import = facts.imports.get(i as usize)?;
                let ImportKind::Named(name) = import.kind else {
                    return None;
                };
                let t = module_target(head, f, import.specifier)?;
                let name = facts.str(name);
                let target = head.facts(t);
                let exported = target.exports.iter().find_map(|e| match e.value {
                    ExportValue::Local(v) if target.str(e.name) == name => Some(v),
                    _ => None,
                })?;
                (f, sym) = (t, exported);
            }
            _ => return Some((f, sym)),
        }
    }
    None
}

/// The members an object of the interface `defs` names must or may hold (those of the
/// interfaces it extends too, where they are found): empty unless it is one interface.
pub(super) fn type_keys(head: &Graph, defs: &[DefId]) -> Vec<(String, bool)> {
    let [first] = defs else {
        return Vec::new();
    };
    let mut out: Vec<(String, bool)> = Vec::new();
    for d in extends_walk(head, *first) {
        let facts = head.facts(d.file);
        if facts.def(d.def).kind != DefKind::Interface {
            // A class's instance, or a type read no further: its keys are not known.
            if d == *first {
                return Vec::new();
            }
            continue;
        }
        for m in facts.type_members_of(d.def) {
            let name = facts.str(m.name);
            if !out.iter().any(|(k, _)| k == name) {
                out.push((name.to_string(), m.required));
            }
        }
    }
    out
}

/// `d` and what it extends, depth first, each once: an interface's bases are read
/// (in its file or another), anything else is listed but not read further. At most
/// a few types.
fn extends_walk(head: &Graph, d: DefId) -> Vec<DefId> {
    const MAX_TYPES: usize = 16;
    let mut seen: Vec<DefId> = Vec::new();
    let mut stack = vec![d];
    while let Some(d) = stack.pop() {
        if seen.contains(&d) || seen.len() >= MAX_TYPES {
            continue;
        }
        seen.push(d);
        let facts = head.facts(d.file);
        let def = facts.def(d.def);
        if def.kind != DefKind::Interface {
            continue;
        }
        if let Some(base) = def.extends() {
            stack.extend(types_of_sym(head, d.file, base));
        }
    }
    seen
}

/// The kinds all of `kinds` admit together: ANY if one of them is ANY, or if there
/// are none.
pub(super) fn known_union(kinds: impl IntoIterator<Item = ValueKinds>) -> ValueKinds {
    let mut all = ValueKinds::NONE;
    for k in kinds {
        if k.is_any() {
            return ValueKinds::ANY;
        }
        all = all | k;
    }
    if all == ValueKinds::NONE {
        ValueKinds::ANY
    } else {
        all
    }
}

/// The interfaces and classes the type name bound by `binding` in file `f` denotes:
/// declared in the file, or imported by name from another file of the repository
/// (where a type of that name is exported); with `member`, that member of the module
/// `binding` imports as a namespace (`types.JWK`). None where the binding is anything
/// else (a type parameter, an alias of a union with a primitive, a package's type).
pub(super) fn named_type(
    head: &Graph,
    f: FileId,
    binding: BindingIdx,
    member: Option<&str>,
) -> Vec<DefId> {
    let facts = head.facts(f);
    let Some(b) = facts.bindings.get(binding as usize) else {
        return Vec::new();
    };
    if let Some(member) = member {
        return match facts.sym(b.value) {
            Sym::Import(i) => namespace_type(head, f, i, member),
            _ => Vec::new(),
        };
    }
    types_of_sym(head, f, b.value)
}

/// The interfaces and classes the type `sym` of file `f` denotes (see [`named_type`]).
fn types_of_sym(head: &Graph, f: FileId, sym: SymId) -> Vec<DefId> {
    let facts = head.facts(f);
    let mut out = Vec::new();
    let mut stack = vec![sym];
    let mut steps = 0;
    while let Some(sym) = stack.pop() {
        steps += 1;
        if steps > 16 {
            return Vec::new();
        }
        match facts.sym(sym) {
            Sym::Binding(b) => match facts.bindings.get(b as usize) {
                Some(b) => stack.push(b.value),
                None => return Vec::new(),
            },
            Sym::Either(a, b) => stack.extend([a, b]),
            // `BaseSchema<unknown, unknown, BaseIssue<unknown>>`: the kinds of value an
            // interface or a class takes do not depend on its type arguments.
            Sym::Apply(generic, _) => stack.push(generic),
            Sym::Def(d) if is_type(facts.def(d).kind) => out.push(DefId { file: f, def: d }),
            Sym::Import(i) => {
                let Some(import) = facts.imports.get(i as usize) else {
                    return Vec::new();
                };
                // `import type Reference from './Reference'`: its default export.
                let name = match import.kind {
                    ImportKind::Named(name) => facts.str(name),
                    ImportKind::Default => "default",
                    _ => return Vec::new(),
                };
                let found = exported_types(head, f, i, name);
                if found.is_empty() {
                    return Vec::new();
                }
                out.extend(found);
            }
            // Something a type name is not read through here.
            _ => return Vec::new(),
        }
    }
    out
}

/// `member` of the module import `i` of file `f` brings in as a namespace (`import type
/// * as types`): the interfaces and classes of that name the module exports.
fn namespace_type(head: &Graph, f: FileId, i: u32, member: &str) -> Vec<DefId> {
    let facts = head.facts(f);
    match facts.imports.get(i as usize).map(|i| i.kind) {
        Some(ImportKind::Namespace | ImportKind::TypeNamespace) => {
            exported_types(head, f, i, member)
        }
        _ => Vec::new(),
    }
}

/// The interfaces and classes named `name` that the file import `i` of `f` leads to
/// exports (declared there, at its top level, or re-exported from another file).
fn exported_types(head: &Graph, f: FileId, i: u32, name: &str) -> Vec<DefId> {
    let Some(t) = import_target(head, f, i) else {
        return Vec::new();
    };
    head.exported_defs(t, name)
        .into_iter()
        .filter(|d| is_type(head.facts(d.file).def(d.def).kind))
        .collect()
}

/// As [`named_type`], for the name `name` as the file `f` binds it (`SignOptions`, or
/// a namespace's member, `types.SignOptions`): every binding of the name must lead to
/// a type (a type parameter of that name elsewhere in the file leaves it unknown).
pub(super) fn named_type_by_name(head: &Graph, f: FileId, name: &str) -> Vec<DefId> {
    let facts = head.facts(f);
    let (name, member) = match name.split_once('.') {
        Some((_, member)) if member.contains('.') => return Vec::new(),
        Some((namespace, member)) => (namespace, Some(member)),
        None => (name, None),
    };
    let mut out = Vec::new();
    for (b, binding) in facts.bindings.iter().enumerate() {
        if facts.str(binding.name) != name {
            continue;
        }
        let found = named_type(head, f, b as BindingIdx, member);
        if found.is_empty() {
            return Vec::new();
        }
        out.extend(found);
    }
    out
}

fn is_type(kind: DefKind) -> bool {
    matches!(kind, DefKind::Interface | DefKind::Class)
}
