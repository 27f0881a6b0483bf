//! An estimate of a graph's heap size, for memory budgets, and where it goes.

use std::mem::size_of;

use super::resolve::Resolution;
use super::{Caller, DefId, FileSource, Graph};
use crate::indexer::facts::thin_heap_bytes as thin;
use crate::indexer::facts::*;

/// A graph's heap, by part (bytes).
#[derive(Clone, Copy, Debug, Default)]
pub struct HeapParts {
    /// Each file's slot: the facts' and index's own structs, the `Arc`s around them.
    pub file_structs: usize,
    pub strings: usize,
    pub defs: usize,
    pub calls: usize,
    pub syms: usize,
    pub bindings: usize,
    /// Imports, exports, properties and the typed parts of facts (parameter types,
    /// callback parameters, signatures, shapes).
    pub other_facts: usize,
    /// Per-file lookup tables (`FileIndex`) and import targets.
    pub file_index: usize,
    pub resolutions: usize,
    /// The global names.
    pub names: usize,
    /// Paths and names to files and definitions.
    pub lookups: usize,
    /// The reverse index.
    pub callers: usize,
    /// What re-resolves what: dependents and name-only users.
    pub dependencies: usize,
}

impl HeapParts {
    pub fn total(&self) -> usize {
        self.parts().iter().map(|p| p.1).sum()
    }

    /// Each part with its name, largest first.
    pub fn named(&self) -> Vec<(&'static str, usize)> {
        let mut parts = self.parts().to_vec();
        parts.sort_by_key(|p| std::cmp::Reverse(p.1));
        parts
    }

    fn parts(&self) -> [(&'static str, usize); 13] {
        [
            ("file structs", self.file_structs),
            ("strings", self.strings),
            ("definitions", self.defs),
            ("call sites", self.calls),
            ("symbolic values", self.syms),
            ("bindings", self.bindings),
            ("other facts", self.other_facts),
            ("file index", self.file_index),
            ("resolutions", self.resolutions),
            ("global names", self.names),
            ("path and name lookups", self.lookups),
            ("reverse index", self.callers),
            ("dependencies", self.dependencies),
        ]
    }
}

impl Graph {
    /// An estimate of the graph's heap size, for memory budgets. What a graph shares
    /// with its forks counts in full for each of them.
    pub fn approx_heap_bytes(&self) -> usize {
        self.heap_parts().total()
    }

    /// The same estimate, by part.
    pub fn heap_parts(&self) -> HeapParts {
        let mut p = HeapParts {
            file_structs: self.files.heap_bytes(),
            ..HeapParts::default()
        };
        for slot in self.files.iter().flatten() {
            let f = slot.facts();
            // Three `Arc`s (two counts each) around the source, targets and resolution.
            p.file_structs += size_of::<FileSource>() + size_of::<Resolution>() + 3 * 16;
            p.strings += f.path.capacity() + f.strings.heap_bytes();
            p.defs += thin(&f.defs);
            p.calls += thin(&f.calls);
            p.syms += f.syms.heap_bytes();
            p.bindings += thin(&f.bindings);
            p.other_facts += thin(&f.repaired)
                + thin(&f.imports)
                + thin(&f.exports)
                + thin(&f.props)
                + thin(&f.implements)
                + thin(&f.callback_params)
                + thin(&f.param_types)
                + thin(&f.signatures)
                + f.signatures.iter().map(|s| thin(&s.params)).sum::<usize>()
                + thin(&f.shapes)
                + thin(&f.call_shapes)
                + thin(&f.argument_calls)
                + thin(&f.def_kinds)
                + thin(&f.named_arguments)
                + thin(&f.named_params)
                + thin(&f.alias_kinds)
                + thin(&f.suppressed_lines)
                + thin(&f.suppressed_arguments)
                + thin(&f.suppressed_reads)
                + thin(&f.argument_names)
                + thin(&f.property_calls)
                + thin(&f.type_members)
                + thin(&f.shape_keys)
                + f.shapes
                    .iter()
                    .map(|m| m.capacity() * size_of::<(StrId, SymId)>())
                    .sum::<usize>();
            let index = slot.index();
            p.file_index += index.members.heap_bytes()
                + index.props.heap_bytes()
                + index.exports.heap_bytes()
                + thin(&index.stars)
                + thin(&index.ambient);
            if !slot.targets.is_empty() {
                p.file_index += slot.targets.capacity() * (size_of::<(StrId, super::Target)>() + 1);
            }
            let r = &slot.resolution;
            p.resolutions += thin(&r.edges)
                + thin(&r.callees)
                + thin(&r.deps)
                + thin(&r.fallback_names)
                + thin(&r.external_sites)
                + thin(&r.unresolved_sites);
        }
        p.names = self.names.heap_bytes();
        p.lookups = self.by_path.heap_bytes()
            + self.by_name.heap_bytes()
            + self
                .by_name
                .values()
                .map(|v| v.capacity() * size_of::<DefId>())
                .sum::<usize>();
        p.callers = self.callers.heap_bytes();
        for lists in self.callers.iter().flatten() {
            p.callers += 16
                + lists.capacity() * size_of::<Vec<Caller>>()
                + lists
                    .iter()
                    .map(|v| v.capacity() * size_of::<Caller>())
                    .sum::<usize>();
        }
        p.dependencies = self.dependents.heap_bytes()
            + self
                .dependents
                .iter()
                .flatten()
                .map(|s| s.capacity() * 8 + 48 + 16)
                .sum::<usize>()
            + self.fallback_users.heap_bytes()
            + self
                .fallback_users
                .values()
                .map(|s| s.capacity() * 8 + 48)
                .sum::<usize>()
            // Angular templates and their classes.
            + self.hosts.heap_bytes();
        p
    }
}
