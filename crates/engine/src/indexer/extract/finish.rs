//! The passes over a file's facts once the walk is done: exported flags, dropping the
//! uses that can never resolve, and compacting the symbolic values.

use rustc_hash::{FxHashMap, FxHashSet};

use super::Extractor;
use crate::indexer::facts::*;

impl<'s> Extractor<'s> {
    pub(super) fn finish(mut self) -> FileFacts {
        self.mark_exported();
        self.settle_later_named_arguments();
        self.drop_dead_uses();
        std::mem::take(&mut self.tokens).recycle();
        self.facts.shrink_to_fit();
        self.facts
    }

    /// References (`f(x)`) and property reads (`x.total`) whose value starts at a name
    /// that is nothing knowable (an untyped parameter, an undeclared global) can never
    /// resolve, and unlike calls they are never matched by name: they are dropped here
    /// rather than carried in every graph. Calls are all kept (unresolved calls are
    /// counted, and may be matched by name).
    fn drop_dead_uses(&mut self) {
        let facts = &self.facts;
        let dead = |mut sym: SymId| {
            for _ in 0..32 {
                match facts.syms.at(sym) {
                    Sym::Binding(b) => sym = facts.bindings[b as usize].value,
                    Sym::Member(base, _) | Sym::Element(base) => sym = base,
                    Sym::Unknown | Sym::Global(_) => return true,
                    _ => return false,
                }
            }
            false
        };
        let keep: Vec<bool> = facts
            .calls
            .iter()
            .map(|c| !matches!(c.kind, CallKind::Reference | CallKind::Get) || !dead(c.callee))
            .collect();
        let all_kept = keep.iter().all(|&k| k);
        self.facts
            .settle_call_shapes((!all_kept).then_some(keep.as_slice()));
        let mut keep = keep.into_iter();
        self.facts.calls.retain(|_| keep.next().unwrap_or(true));
        self.compact_syms();
    }

    /// Drops the symbolic values nothing refers to any more (those of dropped uses,
    /// and the scratch values of expressions that bound nothing), writes names and
    /// definitions into the ids that refer to them, and renumbers the rest.
    fn compact_syms(&mut self) {
        let f = &mut self.facts;
        let inline: Vec<Option<SymId>> = f.syms.iter().map(inline_sym).collect();
        let live = live_syms(f, &inline);
        // Signatures and shapes nothing refers to any more go too.
        let (sig_remap, sigs) = renumber_table(&f.syms, &live, f.signatures.len(), |s| match s {
            Sym::Signature(i) | Sym::Apply(_, i) => Some(i),
            _ => None,
        });
        let (shape_remap, shapes) = renumber_table(&f.syms, &live, f.shapes.len(), |s| match s {
            Sym::Shape(i) => Some(i),
            _ => None,
        });
        let mut remap = vec![0 as SymId; f.syms.len()];
        let mut next = 0;
        for (old, &alive) in live.iter().enumerate() {
            if alive {
                remap[old] = next;
                next += 1;
            }
        }
        let r = |s: SymId| inline[s as usize].unwrap_or(remap[s as usize]);
        let mut kept = Vec::with_capacity(next as usize);
        for (old, sym) in f.syms.iter().enumerate() {
            if live[old] {
                kept.push(match sym {
                    Sym::Member(base, n) => Sym::Member(r(base), n),
                    Sym::Instance(x) => Sym::Instance(r(x)),
                    Sym::Return(x) => Sym::Return(r(x)),
                    Sym::Awaited(x) => Sym::Awaited(r(x)),
                    Sym::Array(x) => Sym::Array(r(x)),
                    Sym::Element(x) => Sym::Element(r(x)),
                    Sym::Either(a, b) => Sym::Either(r(a), r(b)),
                    Sym::CallbackParam(c, slot) => Sym::CallbackParam(r(c), slot),
                    Sym::ParamType(c, i) => Sym::ParamType(r(c), i),
                    Sym::Signature(i) => Sym::Signature(sig_remap[i as usize]),
                    Sym::Shape(i) => Sym::Shape(shape_remap[i as usize]),
                    Sym::Apply(g, list) => Sym::Apply(r(g), sig_remap[list as usize]),
                    Sym::Generic(body, key) => Sym::Generic(r(body), key),
                    Sym::TypeArg(bound, slot) => Sym::TypeArg(r(bound), slot),
                    other @ (Sym::Binding(_)
                    | Sym::Global(_)
                    | Sym::Def(_)
                    | Sym::Import(_)
                    | Sym::This(_)
                    | Sym::Super(_)
                    | Sym::Unknown
                    | Sym::Host) => other,
                });
            }
        }
        f.syms = kept.into();
        let mut signatures = vec![Signature::default(); sigs as usize];
        for (old, sig) in std::mem::take(&mut f.signatures).into_iter().enumerate() {
            if sig_remap[old] != u32::MAX {
                signatures[sig_remap[old] as usize] = Signature {
                    params: sig.params.into_iter().map(|p| p.map(r)).collect(),
                    returns: sig.returns.map(r),
                    rest: sig.rest,
                };
            }
        }
        f.signatures = signatures.into();
        let mut kept_shapes = vec![Vec::new(); shapes as usize];
        for (old, members) in std::mem::take(&mut f.shapes).into_iter().enumerate() {
            if shape_remap[old] != u32::MAX {
                kept_shapes[shape_remap[old] as usize] =
                    members.into_iter().map(|(n, v)| (n, r(v))).collect();
            }
        }
        f.shapes = kept_shapes.into();
        renumber_uses(f, r);
    }

    /// Marks the definitions that exports reach within this file: what is exported, and
    /// what an exported object holds (its members and the values of its properties,
    /// nested objects included).
    fn mark_exported(&mut self) {
        let facts = &mut self.facts;
        let mut members: FxHashMap<DefIdx, Vec<DefIdx>> = FxHashMap::default();
        for (i, d) in facts.defs.iter().enumerate() {
            if let Some(c) = d.container() {
                members.entry(c).or_default().push(i as DefIdx);
            }
        }
        let mut props: FxHashMap<DefIdx, Vec<(StrId, SymId)>> = FxHashMap::default();
        for p in &facts.props {
            props.entry(p.object).or_default().push((p.name, p.value));
        }

        let mut syms: Vec<SymId> = facts
            .exports
            .iter()
            .filter_map(|e| match e.value {
                ExportValue::Local(s) => Some(s),
                _ => None,
            })
            .collect();
        syms.extend(facts.module_exports);
        let mut defs: Vec<DefIdx> = Vec::new();
        let mut seen_syms = FxHashSet::default();
        let mut seen_defs = vec![false; facts.defs.len()];
        loop {
            if let Some(d) = defs.pop() {
                if std::mem::replace(&mut seen_defs[d as usize], true) {
                    continue;
                }
                let def = &mut facts.defs[d as usize];
                def.exported = true;
                if def.kind == DefKind::Object {
                    defs.extend(members.get(&d).into_iter().flatten());
                    syms.extend(props.get(&d).into_iter().flatten().map(|&(_, v)| v));
                }
                continue;
            }
            let Some(sym) = syms.pop() else { break };
            if !seen_syms.insert(sym) {
                continue;
            }
            match facts.syms.at(sym) {
                Sym::Binding(b) => syms.push(facts.bindings[b as usize].value),
                Sym::Either(a, b) => syms.extend([a, b]),
                Sym::Def(d) => defs.push(d),
                // `Object.assign(module.exports, { f })` exports `module.exports.f`.
                Sym::Member(base, name) => {
                    let Some(owner) = local_def(facts, base) else {
                        continue;
                    };
                    defs.extend(
                        members
                            .get(&owner)
                            .into_iter()
                            .flatten()
                            .filter(|&&m| facts.defs[m as usize].name == name),
                    );
                    syms.extend(
                        props
                            .get(&owner)
                            .into_iter()
                            .flatten()
                            .filter(|&&(n, _)| n == name)
                            .map(|&(_, v)| v),
                    );
                }
                _ => {}
            }
        }
    }
}

/// The definition `sym` denotes through this file's bindings, if any.
fn local_def(facts: &FileFacts, mut sym: SymId) -> Option<DefIdx> {
    for _ in 0..8 {
        match facts.syms.at(sym) {
            Sym::Def(d) => return Some(d),
            Sym::Binding(b) => sym = facts.bindings[b as usize].value,
            _ => return None,
        }
    }
    None
}

/// Which of `f`'s symbolic values something refers to, directly or through other values
/// (`inline`: the values written into the ids that refer to them, which need no entry).
fn live_syms(f: &FileFacts, inline: &[Option<SymId>]) -> Vec<bool> {
    let mut live = vec![false; f.syms.len()];
    let mut stack: Vec<SymId> = Vec::new();
    stack.extend(f.calls.iter().map(|c| c.callee));
    stack.extend(f.bindings.iter().map(|b| b.value));
    stack.extend(f.props.iter().map(|p| p.value));
    stack.extend(f.implements.iter().map(|i| i.1));
    stack.extend(f.callback_params.iter().map(|c| c.value));
    stack.extend(f.param_types.iter().map(|p| p.value));
    stack.extend(f.module_exports);
    stack.extend(f.exports.iter().filter_map(|e| match e.value {
        ExportValue::Local(s) => Some(s),
        _ => None,
    }));
    for d in &f.defs {
        stack.extend(d.extends());
        stack.extend(d.returns());
    }
    while let Some(s) = stack.pop() {
        if inline[s as usize].is_some() || std::mem::replace(&mut live[s as usize], true) {
            continue;
        }
        match f.syms.at(s) {
            Sym::Member(base, _) => stack.push(base),
            Sym::Instance(x)
            | Sym::Return(x)
            | Sym::Awaited(x)
            | Sym::Array(x)
            | Sym::Element(x) => stack.push(x),
            Sym::Either(a, b) => stack.extend([a, b]),
            Sym::CallbackParam(c, _) | Sym::ParamType(c, _) => stack.push(c),
            Sym::Signature(i) => {
                let sig = &f.signatures[i as usize];
                stack.extend(sig.params.iter().flatten());
                stack.extend(sig.returns);
            }
            Sym::Shape(i) => stack.extend(f.shapes[i as usize].iter().map(|m| m.1)),
            Sym::Apply(g, list) => {
                stack.push(g);
                stack.extend(f.signatures[list as usize].params.iter().flatten());
            }
            Sym::Generic(x, _) | Sym::TypeArg(x, _) => stack.push(x),
            Sym::Binding(_)
            | Sym::Global(_)
            | Sym::Def(_)
            | Sym::Import(_)
            | Sym::This(_)
            | Sym::Super(_)
            | Sym::Unknown
            | Sym::Host => {}
        }
    }
    live
}

/// New numbers for the entries of a table of `len` entries (signatures, shapes) that the
/// live values among `syms` refer to (by `index`), in the order of their first use; with
/// their count. Entries no live value refers to get `u32::MAX`.
fn renumber_table(
    syms: &SymTable,
    live: &[bool],
    len: usize,
    index: impl Fn(Sym) -> Option<u32>,
) -> (Vec<u32>, u32) {
    let mut remap = vec![u32::MAX; len];
    let mut count = 0;
    for (s, &alive) in syms.iter().zip(live) {
        let Some(i) = index(s).filter(|_| alive) else {
            continue;
        };
        if remap[i as usize] == u32::MAX {
            remap[i as usize] = count;
            count += 1;
        }
    }
    (remap, count)
}

/// Rewrites every symbolic value `f` holds outside `syms`, signatures and shapes by `r`.
fn renumber_uses(f: &mut FileFacts, r: impl Fn(SymId) -> SymId) {
    for c in &mut f.calls {
        c.callee = r(c.callee);
    }
    for b in &mut f.bindings {
        b.value = r(b.value);
    }
    for p in &mut f.props {
        p.value = r(p.value);
    }
    for i in &mut f.implements {
        i.1 = r(i.1);
    }
    for c in &mut f.callback_params {
        c.value = r(c.value);
    }
    f.callback_params
        .sort_unstable_by_key(|c| (c.def, c.arg, c.param));
    for p in &mut f.param_types {
        p.value = r(p.value);
    }
    f.param_types.sort_unstable_by_key(|p| (p.def, p.index));
    f.module_exports = f.module_exports.map(&r);
    for e in &mut f.exports {
        if let ExportValue::Local(s) = &mut e.value {
            *s = r(*s);
        }
    }
    for d in &mut f.defs {
        d.set_extends(d.extends().map(&r));
        d.set_returns(d.returns().map(&r));
    }
}
