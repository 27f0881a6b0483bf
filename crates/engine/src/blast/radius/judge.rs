//! Each direct caller judged against its callee's new contract (see `blast::verdict`):
//! the changed function's contract read on both sides of the change, the call's
//! arguments from the head graph.

use rustc_hash::{FxHashMap, FxHashSet};

use super::FileChange;
use crate::blast::contract::{Contract, Reader};
use crate::blast::diff::Change;
use crate::blast::report::BlastReport;
use crate::blast::verdict::{judge_site, renamed, Judged, ResultUse, Site, Verdict};
use crate::graph::modules::ModuleTarget;
use crate::graph::{Confidence, DefId, Facts, FileId, Graph};
use crate::indexer::facts::{
    BindingIdx, CallKind, CallShape, DefIdx, DefKind, DefKinds, ExportValue, FileFacts, ImportKind,
    StrId, Sym, SymId, ValueKinds,
};
use crate::indexer::Language;

/// A file's call sites by 1-based line, column and kind: their index in its facts.
type SitesByPlace = FxHashMap<(u32, u32, CallKind), usize>;

/// A file's call sites (indices) and the definitions each surely calls.
type Callees = FxHashMap<u32, Vec<DefId>>;

/// What is read of a caller file once, however many of its calls are judged: the
/// definitions its calls surely call, and which of its calls are passed to which.
struct Around {
    callees: Callees,
    passed: FxHashMap<u32, (u32, u8)>,
}

pub(super) fn callers(head: &Graph, changes: &[FileChange], report: &mut BlastReport) {
    // What each direct caller passes and reads, each caller file's sites found once.
    let mut by_file: FxHashMap<String, (SitesByPlace, Option<Around>)> = FxHashMap::default();
    let mut sites: Vec<Option<Site>> = Vec::with_capacity(report.callers.len());
    let mut targets: FxHashMap<FileId, FxHashMap<u32, usize>> = FxHashMap::default();
    for caller in report.callers.iter() {
        if caller.depth != 1 {
            sites.push(None);
            continue;
        }
        let file = head.file_id(&caller.file);
        let (places, around) = by_file.entry(caller.file.clone()).or_insert_with(|| {
            let mut map = FxHashMap::default();
            if let Some(f) = file {
                for (i, s) in head.facts(f).calls.iter().enumerate() {
                    let at = s.pos();
                    map.entry((at.line + 1, at.column + 1, s.kind)).or_insert(i);
                }
            }
            (map, None)
        });
        let site = match (file, places.get(&(caller.line, caller.column, caller.kind))) {
            (Some(f), Some(&i)) => {
                let mut site = site_of(head.facts(f), i);
                let targets = targets
                    .entry(f)
                    .or_insert_with(|| sure_target_counts(head, f));
                site.reaches_others = u32::try_from(i)
                    .ok()
                    .and_then(|i| targets.get(&i))
                    .is_some_and(|&n| n > 1);
                if !head.resolver().strict_null_checks(&caller.file) {
                    site.without_nulls();
                }
                let facts = head.facts(f);
                if !facts.argument_calls.is_empty()
                    || !facts.named_arguments.is_empty()
                    || !facts.argument_names.is_empty()
                {
                    let around = around.get_or_insert_with(|| Around {
                        callees: sure_callees(head, f),
                        passed: facts.passed_to(),
                    });
                    stated_around(head, f, i, around, &mut site);
                }
                site
            }
            _ => Site::default(),
        };
        sites.push(Some(site));
    }
    let contracts = contracts(head, changes, report, &sites);
    for (caller, site) in report.callers.iter_mut().zip(&sites) {
        let Some(site) = site else {
            continue;
        };
        let Some(func) = report.changed.get(caller.changed_index) else {
            continue;
        };
        let (old, new) = contracts
            .get(&caller.changed_index)
            .map_or((None, None), |(o, n)| (o.as_ref(), n.as_ref()));
        // A TypeScript file's calls are checked by its compiler (extra arguments too).
        let typed = Language::from_path(&caller.file)
            .is_some_and(|l| matches!(l, Language::TypeScript | Language::Tsx))
            && !head
                .file_id(&caller.file)
                .is_some_and(|f| head.facts(f).unchecked);
        let mut judged = match (func.change, &func.renamed_from) {
            (Change::Unexported, _) if caller.file == func.file => judged_fine(&func.name),
            (Change::Renamed, Some(from)) => renamed(from, &func.name),
            _ => judge_site(&func.name, func.change, old, new, site, typed),
        };
        // A call the compiler is told to expect an error at (a type test's wrong call)
        // or to ignore: its new contract's error is not reported, so the build does
        // not break there; what the call does at run time is the reviewer's to weigh.
        let signature = matches!(func.change, Change::Signature | Change::SignatureAndBody);
        if signature && typed && judged.verdict == Verdict::Breaks && suppressed(head, caller) {
            judged = Judged {
                verdict: Verdict::Check,
                reason: format!(
                    "{}; a `@ts-expect-error` or `@ts-ignore` comment above the call silences the compiler there",
                    judged.reason
                ),
            };
        }
        // A call the graph only matched by name (or among several candidates) may
        // not reach the changed function at all: what would break it is for the
        // reviewer to confirm.
        if judged.verdict == Verdict::Breaks && caller.confidence != Confidence::Exact {
            judged = Judged {
                verdict: Verdict::Check,
                reason: format!(
                    "{}; the graph is not sure this call reaches `{}` ({} edge)",
                    judged.reason,
                    func.name,
                    caller.confidence.as_str()
                ),
            };
        }
        caller.judged = Some(judged);
    }
}

/// Whether a `@ts-expect-error` or `@ts-ignore` comment governs the caller's line.
fn suppressed(head: &Graph, caller: &crate::blast::report::CallerFinding) -> bool {
    head.file_id(&caller.file).is_some_and(|f| {
        let facts = head.facts(f);
        caller
            .line
            .checked_sub(1)
            .is_some_and(|line| facts.suppressed(line))
    })
}

/// A call in the file of a function it no longer exports: still in scope there.
fn judged_fine(name: &str) -> Judged {
    Judged {
        verdict: Verdict::Fine,
        reason: format!("`{name}` is no longer exported, and this call is in its own module"),
    }
}

/// The use of a call's result a shape's slot records, if it records one.
fn result_use(slot: u8) -> Option<ResultUse> {
    match slot {
        CallShape::TYPED_USE => Some(ResultUse::Typed),
        CallShape::ASSIGNED => Some(ResultUse::Assigned),
        CallShape::ITERATED => Some(ResultUse::Iterated),
        CallShape::TESTED => Some(ResultUse::Tested),
        CallShape::CALLED => Some(ResultUse::Called),
        _ => None,
    }
}

/// What call `i` of `facts` passes and reads.
fn site_of(facts: Facts, i: usize) -> Site {
    let mut site = Site::of(facts.calls[i].args());
    for (shape, keys) in facts.shapes_of(i) {
        let keys: Vec<String> = keys.iter().map(|&k| facts.str(k).to_string()).collect();
        if shape.slot == CallShape::RESULT {
            site.reads.extend(keys);
        } else if let Some(used) = result_use(shape.slot) {
            site.uses.push(used);
        } else {
            site.kinds.push((shape.slot, shape.kinds));
            if shape.kinds == ValueKinds::OBJECT {
                site.objects.push((shape.slot, keys, shape.open()));
            } else if let (ValueKinds::LITERAL_STRING, [value]) = (shape.kinds, &keys[..]) {
                site.literals.push((shape.slot, value.clone()));
            }
        }
    }
    site
}

/// How many definitions each call site of `f` surely calls (exact edges), by site.
fn sure_target_counts(head: &Graph, f: FileId) -> FxHashMap<u32, usize> {
    sure_callees(head, f)
        .into_iter()
        .map(|(site, mut targets)| {
            targets.sort();
            targets.dedup();
            (site, targets.len())
        })
        .collect()
}

/// The definitions each call site of `f` calls, where the graph is sure (exact edges).
fn sure_callees(head: &Graph, f: FileId) -> Callees {
    let mut out: Callees = FxHashMap::default();
    for edge in head.edges(f) {
        if edge.confidence() == Confidence::Exact {
            out.entry(edge.site()).or_default().push(edge.target);
        }
    }
    out
}

/// What the stated types of the definitions call `call` of `f` surely calls say of
/// parameter `slot` (or with [`DefKinds::RESULT`], of the result): ANY unless every
/// one of them states it.
fn stated_by_callees(head: &Graph, callees: &Callees, call: usize, slot: u8) -> ValueKinds {
    let Some(targets) = u32::try_from(call).ok().and_then(|c| callees.get(&c)) else {
        return ValueKinds::ANY;
    };
    let mut all = ValueKinds::NONE;
    for t in targets {
        let facts = head.facts(t.file);
        let kinds = if slot == DefKinds::RESULT {
            facts.def_kinds(t.def, slot)
        } else {
            match (
                facts.param_kinds(t.def, slot),
                facts.named_param(t.def, slot),
            ) {
                // `create(options: Options)`, `Options` an interface of another file;
                // `use(...handlers: Handler[])`, `Handler` an alias of a function type.
                (kinds, Some(named)) if kinds.is_any() => {
                    let member = named.member.map(|m| facts.str(m));
                    let defs = named_type(head, t.file, named.ty, member);
                    let kinds = if defs.is_empty() {
                        alias_kinds(head, t.file, named.ty, member)
                    } else {
                        type_kinds(head, &defs)
                    };
                    if kinds.is_any() {
                        kinds
                    } else {
                        kinds | named.also
                    }
                }
                (kinds, _) => kinds,
            }
        };
        if kinds.is_any() {
            return ValueKinds::ANY;
        }
        all = all | kinds;
    }
    if all == ValueKinds::NONE {
        ValueKinds::ANY
    } else {
        all
    }
}

/// Call `i` of `f` as the calls around it state (TypeScript): an argument that is
/// another call's result is what that call's callee states it returns (`pad(encode(x))`,
/// `encode(): Uint8Array`); the call itself, passed as another's argument, goes to a
/// parameter a promise may not fit (`digest(concat(a, b))`, `digest(data: string)`).
fn stated_around(head: &Graph, f: FileId, i: usize, around: &Around, site: &mut Site) {
    let facts = head.facts(f);
    let callees = &around.callees;
    let count = site.args.map_or(0, |a| a.count);
    for slot in 0..count.min(CallShape::FIRST_USE) {
        if site.kinds.iter().any(|&(s, _)| s == slot) {
            continue;
        }
        if let Some(inner) = facts.argument_call(i, slot) {
            let kinds = stated_by_callees(head, callees, inner, DefKinds::RESULT);
            if !kinds.is_any() {
                site.kinds.push((slot, kinds));
            }
        }
    }
    for named in facts.named_arguments_of(i) {
        if site.kinds.iter().any(|&(s, _)| s == named.slot) {
            continue;
        }
        // A value stated to be of an interface or a class (or a union of them) is an
        // object, whatever its members: never a primitive, as far as the compiler is
        // concerned.
        let member = named.member.map(|m| facts.str(m));
        let types = named_type(head, f, named.ty, member);
        // An instance of a class that extends nothing is no function, array or
        // global's instance (`let c: Context` onto a callback's parameter); a value
        // of an interface may be a function that has its members.
        let plain_classes = types.iter().all(|&t| head.is_plain_class(t));
        match (types.is_empty(), plain_classes) {
            (true, _) => {}
            (false, true) => site.kinds.push((named.slot, ValueKinds::OBJECT)),
            (false, false) => site.kinds.push((named.slot, ValueKinds::OBJECTS)),
        }
    }
    // A name of no stated type: what the graph evaluates it to (`streamSSE(c, cb)`,
    // `c` a callback's parameter the callee's stated type makes a `Context`).
    // An instance by its syntax (`const c = new Client()`) is an object no function
    // type takes where the graph finds the class extends nothing.
    for named in facts.argument_names_of(i) {
        let known = site.kinds.iter_mut().find(|(s, _)| *s == named.slot);
        match known {
            Some((_, kinds)) if *kinds == ValueKinds::INSTANCE => {
                if head.binding_value_kinds(f, named.binding) == ValueKinds::OBJECT {
                    *kinds = ValueKinds::OBJECT;
                }
            }
            Some(_) => {}
            None => {
                let kinds = head.binding_value_kinds(f, named.binding);
                if !kinds.is_any() {
                    site.kinds.push((named.slot, kinds));
                }
            }
        }
    }
    let passed = u32::try_from(i).ok().and_then(|i| around.passed.get(&i));
    if let Some(&(outer, slot)) = passed {
        let accepts = stated_by_callees(head, callees, outer as usize, slot);
        if !accepts.is_any() && !accepts.meets(ValueKinds::PROMISE) {
            site.uses.push(ResultUse::Passed);
        }
    }
}

/// What a parameter stated to be of the types `defs` accepts (each an interface or a
/// class, as their facts record it, an interface with the members of those it
/// extends); ANY unless every one says.
fn type_kinds(head: &Graph, defs: &[DefId]) -> ValueKinds {
    let mut all = ValueKinds::NONE;
    let (mut path, mut done) = (Vec::new(), FxHashSet::default());
    for &d in defs {
        let kinds = type_accepts(head, d, &mut path, &mut done);
        if kinds.is_any() {
            return ValueKinds::ANY;
        }
        all = all | kinds;
    }
    if all == ValueKinds::NONE {
        ValueKinds::ANY
    } else {
        all
    }
}

/// What a parameter stated as the union of the types `names` (joined by `|`, each as
/// file `f` names them) and of types that accept `also` accepts; ANY unless each of
/// `names` is an interface or a class whose facts say.
fn union_kinds(head: &Graph, f: FileId, names: &str, also: ValueKinds) -> ValueKinds {
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
fn alias_kinds(head: &Graph, f: FileId, binding: BindingIdx, member: Option<&str>) -> ValueKinds {
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
    let bases = types_of_sym(head, d.file, base);
    if bases.is_empty() {
        return ValueKinds::ANY;
    }
    let mut all = own;
    path.push(d);
    for b in bases {
        let kinds = type_accepts(head, b, path, done);
        if kinds.is_any() {
            path.pop();
            return ValueKinds::ANY;
        }
        all = all | kinds;
    }
    path.pop();
    done.insert(d);
    all
}

/// The members an object of the interface `defs` names must or may hold (those of the
/// interfaces it extends too, where they are found): empty unless it is one interface.
fn type_keys(head: &Graph, defs: &[DefId]) -> Vec<(String, bool)> {
    const MAX_TYPES: usize = 16;
    let [first] = defs else {
        return Vec::new();
    };
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut seen: Vec<DefId> = Vec::new();
    let mut stack = vec![*first];
    while let Some(d) = stack.pop() {
        if seen.contains(&d) || seen.len() >= MAX_TYPES {
            continue;
        }
        seen.push(d);
        let facts = head.facts(d.file);
        let def = facts.def(d.def);
        if def.kind != DefKind::Interface {
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
        if let Some(base) = def.extends() {
            stack.extend(types_of_sym(head, d.file, base));
        }
    }
    out
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
            Sym::Def(d) if is_type(facts.def(d).kind) => out.push(DefId { file: f, def: d }),
            Sym::Import(i) => {
                let Some(import) = facts.imports.get(i as usize) else {
                    return Vec::new();
                };
                let ImportKind::Named(name) = import.kind else {
                    return Vec::new();
                };
                let found = exported_types(head, f, i, facts.str(name));
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
/// exports (declared there, at its top level).
fn exported_types(head: &Graph, f: FileId, i: u32, name: &str) -> Vec<DefId> {
    let Some(t) = import_target(head, f, i) else {
        return Vec::new();
    };
    let theirs = head.facts(t);
    theirs
        .defs
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            d.exported && d.container().is_none() && is_type(d.kind) && theirs.str(d.name) == name
        })
        .map(|(i, _)| DefId {
            file: t,
            def: i as DefIdx,
        })
        .collect()
}

/// As [`named_type`], for the name `name` as the file `f` binds it (`SignOptions`, or
/// a namespace's member, `types.SignOptions`): every binding of the name must lead to
/// a type (a type parameter of that name elsewhere in the file leaves it unknown).
fn named_type_by_name(head: &Graph, f: FileId, name: &str) -> Vec<DefId> {
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

/// The contracts before and after the change of each changed function whose signature
/// changed and that something calls directly (or whose body changed and whose result
/// a direct caller reads), by its index in the report. Each changed
/// file is parsed once per side, however many of its functions changed.
pub(super) fn contracts(
    head: &Graph,
    changes: &[FileChange],
    report: &BlastReport,
    sites: &[Option<Site>],
) -> FxHashMap<usize, (Option<Contract>, Option<Contract>)> {
    let mut wanted: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (c, site) in report.callers.iter().zip(sites) {
        let Some(site) = site else {
            continue;
        };
        let func = &report.changed[c.changed_index];
        // A body-only change can still change what is returned: read where a caller
        // reads members of the result.
        let body_read = func.change == Change::Body && !site.reads.is_empty();
        if matches!(func.change, Change::Signature | Change::SignatureAndBody) || body_read {
            let list = wanted.entry(func.file.as_str()).or_default();
            if !list.contains(&c.changed_index) {
                list.push(c.changed_index);
            }
        }
    }
    let mut out = FxHashMap::default();
    for (path, indexes) in wanted {
        let (Some(change), Some(language)) = (
            changes.iter().find(|c| c.path == path),
            Language::from_path(path),
        ) else {
            continue;
        };
        let new_side = change.new.as_deref().zip(head.file_id(path));
        let new_reader = new_side.map(|(source, _)| Reader::new(language, source));
        let old_facts = change
            .old
            .as_deref()
            .and_then(|source| crate::indexer::extract_source(path, source)?.ok());
        let old_reader = change
            .old
            .as_deref()
            .map(|source| Reader::new(language, source));
        // The callable definitions of each side by qualified name, found once per file.
        let by_name = |facts: &FileFacts, qualified: &dyn Fn(usize) -> String| {
            let mut map: FxHashMap<String, Vec<usize>> = FxHashMap::default();
            for (i, d) in facts.defs.iter().enumerate() {
                if d.kind.is_callable() {
                    map.entry(qualified(i)).or_default().push(i);
                }
            }
            map
        };
        let new_defs = new_side.map(|(_, f)| {
            let facts = head.facts(f);
            by_name(&facts, &|d| facts.def_qualified(d as u32).to_string())
        });
        let old_defs = old_facts
            .as_ref()
            .map(|facts| by_name(facts, &|d| facts.def_qualified(d as u32).to_string()));
        for index in indexes {
            let func = &report.changed[index];
            let new = match (&new_reader, new_side, &new_defs) {
                (Some(reader), Some((_, f)), Some(defs)) => contract_of(
                    &head.facts(f),
                    defs,
                    reader,
                    &func.qualified_name,
                    Some(func.line),
                ),
                _ => None,
            };
            let mut new = new;
            let mut old = match (&old_reader, &old_facts, &old_defs) {
                (Some(reader), Some(facts), Some(defs)) => {
                    let name = func.renamed_from.as_deref().unwrap_or(&func.qualified_name);
                    contract_of(facts, defs, reader, name, None)
                }
                _ => None,
            };
            // A parameter stated as a type of another file: what that type accepts, and
            // the keys an object of it must hold, read alike on both sides (the names
            // as the head's file binds them), so that a type neither side changed
            // changes nothing.
            if let Some((_, f)) = new_side {
                for contract in [old.as_mut(), new.as_mut()].into_iter().flatten() {
                    for p in &mut contract.params {
                        if let Some(names) = p.named.as_deref().filter(|_| p.accepts.is_any()) {
                            p.accepts = union_kinds(head, f, names, p.also);
                        }
                        // (`Partial<Options>` is read as `Options` for the kinds it
                        // takes; none of its keys is required.)
                        let partial = p.stated.as_deref().is_some_and(|t| t.contains("Partial<"));
                        let named = p.named.as_deref().filter(|n| !n.contains('|') && !partial);
                        if let (Some(name), true) = (named, p.keys.is_empty()) {
                            p.keys = type_keys(head, &named_type_by_name(head, f, name));
                        }
                    }
                }
            }
            out.insert(index, (old, new));
        }
    }
    out
}

/// The contract of the definition of `facts` qualified `name` (the one at 1-based `line`
/// when given: overloads share a name); `defs` holds its callable definitions by name.
fn contract_of(
    facts: &FileFacts,
    defs: &FxHashMap<String, Vec<usize>>,
    reader: &Reader,
    name: &str,
    line: Option<u32>,
) -> Option<Contract> {
    let def = defs.get(name)?.iter().map(|&i| &facts.defs[i]).find(|d| {
        line.is_none_or(|l| (d.span.start_line + 1..=d.span.end_line + 1).contains(&l))
    })?;
    reader.at(def.span.start_byte as usize, def.span.end_byte as usize)
}
