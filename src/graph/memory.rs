//! An estimate of a graph's heap size, for memory budgets.

use std::mem::size_of;

use super::resolve::Resolution;
use super::{Caller, DefId, Graph};
use crate::indexer::facts::*;

impl Graph {
    /// An estimate of the graph's heap size, for memory budgets. What a graph shares
    /// with its forks counts in full for each of them.
    pub fn approx_heap_bytes(&self) -> usize {
        let mut total = self.files.heap_bytes();
        for slot in self.files.iter().flatten() {
            let f = slot.facts();
            total += f.path.len()
                + f.strings.heap_bytes()
                + f.defs.capacity() * size_of::<Definition>()
                + f.defs
                    .iter()
                    .map(|d| d.params.capacity() * 4)
                    .sum::<usize>()
                + f.calls.capacity() * size_of::<CallSite>()
                + f.imports.capacity() * size_of::<Import>()
                + f.exports.capacity() * size_of::<Export>()
                + f.bindings.capacity() * size_of::<Binding>()
                + f.props.capacity() * size_of::<Prop>()
                + f.callback_params.capacity() * size_of::<CallbackParam>()
                + f.param_types.capacity() * size_of::<ParamType>()
                + f.syms.capacity() * size_of::<Sym>()
                + f.signatures.capacity() * size_of::<Signature>()
                + f.signatures
                    .iter()
                    .map(|s| s.params.capacity() * size_of::<Option<SymId>>())
                    .sum::<usize>()
                + f.shapes.capacity() * size_of::<Vec<(StrId, SymId)>>()
                + f.shapes
                    .iter()
                    .map(|m| m.capacity() * size_of::<(StrId, SymId)>())
                    .sum::<usize>();
            let index = slot.index();
            total += index.names.capacity() * 4
                + index.members.heap_bytes()
                + index.props.heap_bytes()
                + index.exports.heap_bytes()
                + slot.targets.capacity() * 16;
            let r = &slot.resolution;
            total += r.callees.capacity() * size_of::<DefId>()
                + (r.deps.capacity() + r.fallback_names.capacity()) * 4
                + (r.external_sites.capacity() + r.unresolved_sites.capacity()) * 4;
            // The three shared parts of a slot, each behind an Arc.
            total += 3 * 16 + size_of::<Resolution>() + 32;
        }
        total += self.names.heap_bytes();
        total += self.by_path.heap_bytes();
        total += self.by_name.heap_bytes()
            + self
                .by_name
                .values()
                .map(|v| v.capacity() * size_of::<DefId>())
                .sum::<usize>();
        total += self.callers.heap_bytes();
        for lists in self.callers.iter().flatten() {
            total += 16
                + lists.capacity() * size_of::<Vec<Caller>>()
                + lists
                    .iter()
                    .map(|v| v.capacity() * size_of::<Caller>())
                    .sum::<usize>();
        }
        total += self.dependents.heap_bytes();
        total += self
            .dependents
            .iter()
            .flatten()
            .map(|s| s.capacity() * 8 + 48 + 16)
            .sum::<usize>();
        total += self.fallback_users.heap_bytes()
            + self
                .fallback_users
                .values()
                .map(|s| s.capacity() * 8 + 48)
                .sum::<usize>();
        total
    }
}
