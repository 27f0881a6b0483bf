//! Each direct caller judged against its callee's new contract (see `blast::verdict`):
//! the changed function's contract read on both sides of the change, the call's
//! arguments from the head graph.

use rustc_hash::FxHashMap;

use super::named_types::{
    alias_kinds, known_union, member_kinds, member_types, named_type, named_type_by_name,
    record_value_types, signature_result_kinds, type_keys, type_kinds, union_kinds,
};
use super::FileChange;
use crate::blast::contract::{Contract, Reader};
use crate::blast::diff::Change;
use crate::blast::report::{BlastReport, ChangedFunction};
use crate::blast::verdict::{judge_site, renamed, Judged, Reported, ResultUse, Site, Verdict};
use crate::graph::{Confidence, DefId, Edge, Facts, FileId, Graph};
use crate::indexer::facts::{CallKind, CallShape, DefKind, DefKinds, FileFacts, Sym, ValueKinds};
use crate::indexer::language::is_declaration_file;
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
    returned: FxHashMap<u32, (u32, u8)>,
}

pub(super) fn callers(head: &Graph, changes: &[FileChange], report: &mut BlastReport) {
    // What each direct caller passes and reads, each caller file's sites found once.
    let mut by_file: FxHashMap<String, (SitesByPlace, Option<Around>)> = FxHashMap::default();
    let mut sites: Vec<Option<Site>> = Vec::with_capacity(report.callers.len());
    // Where each direct caller's call is in the head graph, where it is found.
    let mut places_of: Vec<Option<(FileId, usize)>> = Vec::with_capacity(report.callers.len());
    let mut targets: FxHashMap<FileId, FxHashMap<u32, usize>> = FxHashMap::default();
    for caller in report.callers.iter() {
        if caller.depth != 1 {
            sites.push(None);
            places_of.push(None);
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
        let at = file.zip(
            places
                .get(&(caller.line, caller.column, caller.kind))
                .copied(),
        );
        places_of.push(at);
        let site = match at {
            Some((f, i)) => {
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
                    || !facts.property_calls.is_empty()
                {
                    let around = around.get_or_insert_with(|| Around {
                        callees: sure_callees(head, f),
                        passed: facts.passed_to(),
                        returned: facts.returned_to(),
                    });
                    stated_around(head, f, i, around, &mut site);
                }
                let func = &report.changed[caller.changed_index];
                if let Some(how) = borrowed_this(&facts, i).filter(|&how| how != func.name) {
                    site.unbind(how == "apply");
                }
                site
            }
            _ => Site::default(),
        };
        sites.push(Some(site));
    }
    let contracts = contracts(head, changes, report, &sites);
    // Each caller file's edges, read once however many of its calls would break.
    let mut edges_of: FxHashMap<FileId, Vec<Edge>> = FxHashMap::default();
    for ((caller, site), at) in report.callers.iter_mut().zip(&sites).zip(places_of) {
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
            judged = judged.checked(
                "a `@ts-expect-error` or `@ts-ignore` comment above the call silences the compiler there",
            );
        }
        // The same comment above an argument on a line of its own, or above a member
        // read of the result: an error in the arguments or at the read is not reported
        // either (one at the callee still is).
        let silenced_inside = |(f, i): (FileId, usize)| {
            let facts = head.facts(f);
            let at = facts.calls[i].pos();
            match judged.reported {
                Reported::AtArgument => facts.argument_suppressed(at),
                Reported::AtRead => facts.read_suppressed(at),
                Reported::AtCall => false,
            }
        };
        if typed && judged.verdict == Verdict::Breaks && at.is_some_and(silenced_inside) {
            judged = judged.checked(
                "a `@ts-expect-error` or `@ts-ignore` comment inside the call silences the compiler there",
            );
        }
        // `export const shift: (o?: O) => M = shiftCore`: a call of `shift` runs
        // `shiftCore`, but the compiler checks it against the stated type, and reports
        // a function that no longer fits it at the declaration.
        if typed && judged.verdict == Verdict::Breaks {
            if let Some((f, i)) = at.filter(|&(f, i)| head.callee_has_stated_type(f, i)) {
                let name = head.facts(f).str(head.facts(f).calls[i].name);
                judged = judged.checked(format_args!(
                    "the call goes through `{name}`, whose stated type the compiler checks it against instead"
                ));
            }
        }
        // `socket: SocketLike; socket.once(...)`: the call reaches the class's method
        // through the interface the class implements (or through a declaration file),
        // and the compiler checks it against that, reporting the class that no longer
        // fits it instead.
        if typed && judged.verdict == Verdict::Breaks {
            let through = at.and_then(|(f, i)| {
                let edges = edges_of.entry(f).or_insert_with(|| head.edges(f));
                reached_through(head, edges, i, func)
            });
            if let Some(through) = through {
                judged = judged.checked(format_args!(
                    "the call goes through `{through}`, whose signature the compiler checks it against instead"
                ));
            }
        }
        // `let store;` assigned in a `beforeEach`, `store.resolve(...)` in a test, or
        // `(group as any).run(...)`: the compiler takes the object for `any` there, and
        // checks nothing of the call.
        if typed && judged.verdict == Verdict::Breaks && site.any_receiver {
            judged = judged.checked(
                "the compiler reads the callee's object as `any` here (cast to `any`, or a `let` declared with neither a type nor a value, read in another function), and checks nothing of the call",
            );
        }
        // A call the graph only matched by name (or among several candidates) may
        // not reach the changed function at all: what would break it is for the
        // reviewer to confirm.
        if judged.verdict == Verdict::Breaks && caller.confidence != Confidence::Exact {
            judged = judged.checked(format_args!(
                "the graph is not sure this call reaches `{}` ({} edge)",
                func.name,
                caller.confidence.as_str()
            ));
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

/// `f.call(self, x)` or `f.apply(self, args)`: the name (`call` or `apply`) where call
/// `i` of `facts` calls its callee's base with a `this` of its own (the graph's edge
/// goes to `f`, whose parameters begin at the second argument).
fn borrowed_this<'f>(facts: &Facts<'f>, i: usize) -> Option<&'f str> {
    match facts.sym(facts.calls[i].callee) {
        Sym::Member(_, name) => Some(facts.str(name)).filter(|n| matches!(*n, "call" | "apply")),
        _ => None,
    }
}

/// A call in the file of a function it no longer exports: still in scope there.
fn judged_fine(name: &str) -> Judged {
    Judged {
        verdict: Verdict::Fine,
        reason: format!("`{name}` is no longer exported, and this call is in its own module"),
        reported: Reported::AtCall,
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
        CallShape::OPERAND => Some(ResultUse::Operand),
        _ => None,
    }
}

/// What call `i` of `facts` passes and reads.
fn site_of(facts: Facts, i: usize) -> Site {
    let call = &facts.calls[i];
    let mut site = Site::of(call.args());
    // `@Length(1, 9)`: what the call returns is called with the class or member.
    if call.kind == CallKind::Decorator && site.args.is_some() {
        site.uses.push(ResultUse::Decorates);
    }
    for (shape, keys) in facts.shapes_of(i) {
        let keys: Vec<String> = keys.iter().map(|&k| facts.str(k).to_string()).collect();
        if shape.slot == CallShape::RESULT {
            site.reads.extend(keys);
        } else if shape.slot == CallShape::ANY_RECEIVER {
            site.any_receiver = true;
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

/// What call `i` of a file whose edges (sorted by site) are `edges` reaches the changed
/// function `func` through, where it does not reach it directly: the method of an
/// interface `func`'s class implements, or a declaration of it in a declaration file
/// (see `Graph::callers_of`). The compiler types the call by that, not by `func`.
fn reached_through(
    head: &Graph,
    edges: &[Edge],
    i: usize,
    func: &ChangedFunction,
) -> Option<String> {
    let site = u32::try_from(i).ok()?;
    let start = edges.partition_point(|e| e.site() < site);
    let mut through = None;
    for edge in edges[start..].iter().take_while(|e| e.site() == site) {
        let facts = head.facts(edge.target.file);
        let def = facts.def(edge.target.def);
        let qualified = facts.str(def.qualified);
        if facts.path == func.file && qualified == func.qualified_name {
            return None;
        }
        let in_interface = def
            .container()
            .is_some_and(|c| facts.def(c).kind == DefKind::Interface);
        let declared = is_declaration_file(&facts.path) && !is_declaration_file(&func.file);
        if (in_interface || declared) && through.is_none() {
            through = Some(qualified.to_string());
        }
    }
    through
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
    // `new Resp(body, init)` reaches the class: its constructor's parameters are the
    // call's.
    let callees = targets.iter().flat_map(|&t| {
        let constructors = head.constructors_of(t);
        if constructors.is_empty() {
            vec![t]
        } else {
            constructors
        }
    });
    known_union(callees.map(|t| {
        let facts = head.facts(t.file);
        if slot == DefKinds::RESULT {
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
        }
    }))
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
                let mut kinds = head.binding_value_kinds(f, named.binding);
                // `const key = await importJWK(jwk)`: what the callee states.
                if kinds.is_any() {
                    kinds = head.binding_result_kinds(f, named.binding);
                }
                if !kinds.is_any() {
                    site.kinds.push((named.slot, kinds));
                }
            }
        }
    }
    let passed = u32::try_from(i).ok().and_then(|i| around.passed.get(&i));
    if let Some(&(outer, slot)) = passed {
        let mut accepts = stated_by_callees(head, callees, outer as usize, slot);
        // `fetch(bypass(request))`: a platform function's parameter.
        if accepts.is_any() && !callees.contains_key(&outer) {
            accepts = super::platform::accepted(&facts, outer as usize, slot);
        }
        if !accepts.is_any() && !accepts.meets(ValueKinds::PROMISE) {
            site.uses.push(ResultUse::Passed);
        }
    }
    // `group('/a', (app) => app.get(...))`: the result is what a callback returns,
    // whose type the outer callee states (`run: (app: App) => App`).
    if let Some(&(outer, slot)) = u32::try_from(i).ok().and_then(|i| around.returned.get(&i)) {
        let returns = signature_result_kinds(head, &head.param_type_syms(f, outer as usize, slot));
        if !returns.is_any() && !returns.meets(ValueKinds::PROMISE) {
            site.uses.push(ResultUse::Returned);
        }
    }
    // `persist(init, { storage: createStorage() })`: the result is a member of an
    // object whose type the outer callee states (`options: PersistOptions`).
    if let Some(p) = facts.property_call(i) {
        let mut types = head.param_type_defs(f, p.outer as usize, p.slot);
        let mut key = facts.str(p.key);
        // `ValidateBy({ validator: { defaultMessage: buildMessage() } })`: a member of
        // the object the options' member is.
        if let Some(nested) = p.nested {
            types = member_types(head, &types, key);
            key = facts.str(nested);
        }
        let accepts = if !types.is_empty() {
            member_kinds(head, &types, key)
        } else if p.nested.is_none() {
            // `object({ name: string() })`: every member of a `Record<string, Struct>`
            // is a `Struct`.
            let values =
                record_value_types(head, &head.param_type_syms(f, p.outer as usize, p.slot));
            match values.is_empty() {
                true => ValueKinds::ANY,
                false => type_kinds(head, &values),
            }
        } else {
            ValueKinds::ANY
        };
        if !accepts.is_any() && !accepts.meets(ValueKinds::PROMISE) {
            site.uses.push(ResultUse::Member);
        }
    }
}

/// The contracts before and after the change of each changed function whose signature
/// changed and that something calls directly (or whose body changed and whose result
/// a direct caller uses), by its index in the report. Each changed
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
        // reads members of the result, or keeps or passes on the result.
        let body_read = func.change == Change::Body
            && (!site.reads.is_empty() || site.args.is_some_and(|a| !a.discarded));
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
