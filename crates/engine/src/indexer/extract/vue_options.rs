//! Vue's Options API: a component whose script exports its options object
//! (`export default { methods: {...} }`, or the object given to `defineComponent`).
//!
//! Vue makes one instance of a component, whose members are its options' `data`,
//! `props`, `computed` and `methods`, what its `setup()` returns, and those of its
//! `mixins`, all flattened. So `this.save()` in any of its functions and `save()` in
//! its template both call `methods.save`, and `this.total` in a method reads `computed.total`. Here the
//! options object stands for the instance: it takes the members of its `methods` and
//! `computed` groups, of what `setup()` and `data()` return and of each mixin's (as
//! spreads); `this` in every function of the options is it; and a name the template
//! reads that no script binds is its member, as Vue's template compiler reads it
//! (`_ctx.save`), unless Vue lets templates read that global (`Math`, `Date`, ...).
//!
//! Its definitions are named after the component, where they are written:
//! `Counter.methods.save`, `Counter.created`; the options object is `Counter.options`
//! (the component itself is `Counter`).

use super::line_index::LineIndex;
use crate::indexer::facts::*;

/// The globals Vue's templates may read (`isGloballyAllowed` in `@vue/shared`), sorted:
/// any other name in a template is the instance's.
const TEMPLATE_GLOBALS: &[&str] = &[
    "Array",
    "BigInt",
    "Boolean",
    "Date",
    "Error",
    "Infinity",
    "Intl",
    "JSON",
    "Map",
    "Math",
    "NaN",
    "Number",
    "Object",
    "RegExp",
    "Set",
    "String",
    "Symbol",
    "console",
    "decodeURI",
    "decodeURIComponent",
    "encodeURI",
    "encodeURIComponent",
    "isFinite",
    "isNaN",
    "parseFloat",
    "parseInt",
    "undefined",
];

/// The option groups whose functions have the instance as `this`; the first two hold
/// its members.
const GROUPS: [&str; 3] = ["methods", "computed", "watch"];

/// How deep a template callee's chain is rebuilt (`a.b.c()`); a longer one is left as
/// it was (a template is input: its chains can be of any length).
const MAX_CHAIN: u32 = 64;

/// Makes `options` the component's instance (see the module's doc). `template` holds the
/// byte spans of the component's `<template>`.
pub(super) fn add_instance(
    facts: &mut FileFacts,
    options: DefIdx,
    component: &str,
    source: &str,
    template: &[(usize, usize)],
) {
    let groups: Vec<(DefIdx, bool)> = facts
        .defs
        .iter()
        .enumerate()
        .filter(|(_, d)| d.container() == Some(options) && d.kind == DefKind::Object)
        .filter_map(|(i, d)| {
            let name = facts.strings.get(d.name);
            GROUPS
                .iter()
                .position(|g| *g == name)
                .map(|at| (i as DefIdx, at < 2))
        })
        .collect();
    let spread = facts.strings.push(SPREAD);
    for &(group, holds_members) in &groups {
        if holds_members {
            let value = sym_id(facts, Sym::Def(group));
            facts.props.push(Prop {
                object: options,
                name: spread,
                value,
            });
        }
    }
    // What `setup()` and `data()` return is the instance's too (`setup() { return {
    // onSave } }`, then `@click="onSave()"`).
    let returning: Vec<DefIdx> = facts
        .defs
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            d.container() == Some(options)
                && d.kind == DefKind::Method
                && matches!(facts.strings.get(d.name), "setup" | "data")
        })
        .map(|(i, _)| i as DefIdx)
        .collect();
    for function in returning {
        let function = sym_id(facts, Sym::Def(function));
        let value = facts.syms.push(Sym::Return(function));
        facts.props.push(Prop {
            object: options,
            name: spread,
            value,
        });
    }
    // A mixin's members are the instance's: its options' `methods` and `computed`.
    let mixins: Vec<SymId> = facts
        .props
        .iter()
        .filter(|p| p.object == options && facts.strings.get(p.name) == "mixins")
        .map(|p| p.value)
        .collect();
    for mixin in mixins {
        for group in &GROUPS[..2] {
            let name = facts.strings.push(group);
            let value = facts.syms.push(Sym::Member(mixin, name));
            facts.props.push(Prop {
                object: options,
                name: spread,
                value,
            });
        }
    }
    // `this` in a group's functions (and in `computed: { total: { get() {} } }`).
    let in_group = |facts: &FileFacts, d: DefIdx| {
        let mut at = Some(d);
        for _ in 0..3 {
            match at {
                Some(c) if groups.iter().any(|&(g, _)| g == c) => return true,
                Some(c) => at = facts.def(c).container(),
                None => return false,
            }
        }
        false
    };
    for i in 0..facts.syms.len() as SymId {
        if let Sym::This(Some(c)) = facts.syms.at(i) {
            if c != options && in_group(facts, c) {
                facts.syms.set(i, Sym::This(Some(options)));
            }
        }
    }
    rename(facts, options, component);
    if !template.is_empty() {
        template_reads_instance(facts, options, source, template);
    }
}

/// `<script src="./Counter.ts">`: the component's options are that file's default
/// export, so the template reads its members. A local object stands for the instance
/// (`Counter.options`, at the tag), holding the exported options' `methods`, `computed`,
/// what their `setup()` and `data()` return, and their `components`.
pub(super) fn add_external_instance(
    facts: &mut FileFacts,
    component: &str,
    source: &str,
    template: &[(usize, usize)],
    (at, src): (usize, &str),
) {
    let pos = LineIndex::new(source).pos(at);
    let specifier = facts.strings.push(src);
    let import = facts.imports.len() as ImportIdx;
    facts.imports.push(Import {
        specifier,
        kind: ImportKind::Default,
        line: pos.line,
    });
    facts.top_level_import = true;
    let exported = facts.syms.push(Sym::Import(import));
    let name = facts.strings.push("options");
    let qualified = facts.strings.push(&format!("{component}.options"));
    let at = u32::try_from(at).unwrap_or(u32::MAX);
    let span = Span {
        start_byte: at,
        end_byte: at,
        start_line: pos.line,
        end_line: pos.line,
    };
    let options = facts.defs.len() as DefIdx;
    facts.defs.push(Definition::new(
        name,
        qualified,
        DefKind::Object,
        None,
        span,
        pos,
    ));
    let spread = facts.strings.push(SPREAD);
    let add = |facts: &mut FileFacts, prop: StrId, member: &str, called: bool| {
        let member = facts.strings.push(member);
        let mut value = facts.syms.push(Sym::Member(exported, member));
        if called {
            value = facts.syms.push(Sym::Return(value));
        }
        facts.props.push(Prop {
            object: options,
            name: prop,
            value,
        });
    };
    add(facts, spread, "methods", false);
    add(facts, spread, "computed", false);
    add(facts, spread, "setup", true);
    add(facts, spread, "data", true);
    let components = facts.strings.push("components");
    add(facts, components, "components", false);
    if !template.is_empty() {
        template_reads_instance(facts, options, source, template);
    }
}

/// The names the `components` option registers (`components: { Hamburger }`).
pub(super) fn registered(facts: &FileFacts, options: DefIdx) -> rustc_hash::FxHashSet<String> {
    let Some(group) = facts.defs.iter().position(|d| {
        d.container() == Some(options)
            && d.kind == DefKind::Object
            && facts.strings.get(d.name) == "components"
    }) else {
        return Default::default();
    };
    facts
        .props
        .iter()
        .filter(|p| p.object as usize == group)
        .map(|p| facts.strings.get(p.name).to_string())
        .collect()
}

/// Names the options and what they hold after the component: `default.methods.save`
/// becomes `Counter.methods.save`, the options themselves `Counter.options`.
fn rename(facts: &mut FileFacts, options: DefIdx, component: &str) {
    let old = facts.strings.get(facts.def(options).qualified).to_string();
    let prefix = format!("{old}.");
    let mut inside = vec![false; facts.defs.len()];
    inside[options as usize] = true;
    for d in 0..facts.defs.len() {
        // A container is made before what it holds.
        if let Some(c) = facts.defs[d].container() {
            if inside[c as usize] {
                inside[d] = true;
            }
        }
        // (What its functions return is named after them, outside it: `default.data()`.)
        let named_after = facts
            .strings
            .get(facts.defs[d].qualified)
            .starts_with(&prefix);
        if !inside[d] && !named_after {
            continue;
        }
        let qualified = if d == options as usize {
            format!("{component}.options")
        } else {
            match facts
                .strings
                .get(facts.defs[d].qualified)
                .strip_prefix(old.as_str())
            {
                Some(rest) if rest.starts_with('.') => format!("{component}{rest}"),
                _ => continue,
            }
        };
        facts.defs[d].qualified = facts.strings.push(&qualified);
    }
}

/// A call in the template whose callee's head is a name no script binds calls the
/// instance's member of that name.
fn template_reads_instance(
    facts: &mut FileFacts,
    options: DefIdx,
    source: &str,
    template: &[(usize, usize)],
) {
    let mut lines = LineIndex::new(source);
    let mut bounds: Vec<(Pos, Pos)> = Vec::with_capacity(template.len());
    for &(from, to) in template {
        let start = lines.pos(from);
        let end = lines.pos(to);
        bounds.push((start, end));
    }
    let this = facts.syms.push(Sym::This(Some(options)));
    // A tag no script binds names a component of the `components` option.
    let components = facts.strings.push("components");
    let options_sym = sym_id(facts, Sym::Def(options));
    let registered = facts.syms.push(Sym::Member(options_sym, components));
    for i in 0..facts.calls.len() {
        // The spans are in order and apart: the last one starting at or before the
        // call is the only one that can hold it (a template of many top-level
        // `<template>` blocks costs a search per call, not a scan).
        let at = facts.calls[i].pos();
        let inside = bounds
            .partition_point(|(a, _)| *a <= at)
            .checked_sub(1)
            .is_some_and(|k| at < bounds[k].1);
        if !inside {
            continue;
        }
        let on = if facts.calls[i].kind == CallKind::Jsx {
            registered
        } else {
            this
        };
        if let Some(callee) = on_instance(facts, facts.calls[i].callee, on, 0) {
            facts.calls[i].callee = callee;
        }
    }
}

/// `sym` read on `this` (the instance, or its registered components), if its head is a name the template may not read
/// as a global; None where nothing changes.
fn on_instance(facts: &mut FileFacts, sym: SymId, this: SymId, depth: u32) -> Option<SymId> {
    if depth > MAX_CHAIN {
        return None;
    }
    match facts.sym(sym) {
        Sym::Global(name) => {
            if TEMPLATE_GLOBALS
                .binary_search(&facts.strings.get(name))
                .is_ok()
            {
                return None;
            }
            Some(facts.syms.push(Sym::Member(this, name)))
        }
        Sym::Member(base, name) => {
            let base = on_instance(facts, base, this, depth + 1)?;
            Some(facts.syms.push(Sym::Member(base, name)))
        }
        Sym::Return(callee) => {
            let callee = on_instance(facts, callee, this, depth + 1)?;
            Some(facts.syms.push(Sym::Return(callee)))
        }
        _ => None,
    }
}

/// The id of a value: written into the id where it can be (see [`inline_sym`]).
fn sym_id(facts: &mut FileFacts, sym: Sym) -> SymId {
    inline_sym(sym).unwrap_or_else(|| facts.syms.push(sym))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_globals_are_sorted_for_the_search() {
        assert!(TEMPLATE_GLOBALS.windows(2).all(|w| w[0] < w[1]));
    }
}
