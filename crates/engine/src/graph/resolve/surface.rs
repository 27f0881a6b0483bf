//! A file's surface: everything another file's resolution can read of it, evaluated.
//! An edit that leaves it unchanged re-resolves no other file.

use rustc_hash::FxHashSet;

use super::{Resolver, Vals, Value};
use crate::graph::interner::NameId;
use crate::graph::{DefId, Target};
use crate::indexer::facts::*;

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
        let facts = self.g.slot(f).facts();
        let index = self.g.slot(f).index();
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
        self.exports_surface(&mut out);
        self.defs_surface(&mut out);
        self.stated_types_surface(&mut out);
        self.elements_surface(&mut out);
        out
    }

    /// Its exports, named and `*`, and its CommonJS value.
    fn exports_surface(&mut self, out: &mut Vec<SurfacePart>) {
        let f = self.current;
        let g = self.g;
        let index = g.slot(f).index();
        let mut exports: Vec<(&str, NameId)> = index
            .exports
            .keys()
            .map(|n| (g.names.resolve(n), n))
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
    }

    /// Its definitions (with stated returns and bases), their members and properties.
    fn defs_surface(&mut self, out: &mut Vec<SurfacePart>) {
        let f = self.current;
        let g = self.g;
        let facts = g.slot(f).facts();
        let index = g.slot(f).index();
        for (i, d) in facts.defs.iter().enumerate() {
            let key = format!(
                "def {i} {} {} {:?} {:?} {} {}",
                g.str(d.name),
                g.str(d.qualified),
                d.kind,
                d.container(),
                d.is_static,
                d.exported
            );
            let returns = self.part(d.returns());
            out.push((key, returns));
            let extends = self.part(d.extends());
            out.push(("extends".into(), extends));
        }
        let mut members: Vec<(DefIdx, &str, Vec<Value>)> = index
            .members
            .keys()
            .map(|(c, n)| {
                let defs = index
                    .members
                    .get(&(c, n))
                    .map(|m| Value::Def(DefId::new(f, m)))
                    .collect();
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
            .map(|((o, n), s)| (o, g.names.resolve(n), s))
            .collect();
        props.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        for (o, name, sym) in props {
            let vals = self.part(Some(sym));
            out.push((format!("prop {o} {name}"), vals));
        }
    }

    /// The types it states for callbacks' and functions' parameters, and implements.
    fn stated_types_surface(&mut self, out: &mut Vec<SurfacePart>) {
        let facts = self.g.slot(self.current).facts();
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
    }

    /// The elements of this file's arrays that the parts so far evaluate to: an array
    /// of this file is read through its element's value, which a symbol id alone does
    /// not show.
    fn elements_surface(&mut self, out: &mut Vec<SurfacePart>) {
        let f = self.current;
        let facts = self.g.slot(f).facts();
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
