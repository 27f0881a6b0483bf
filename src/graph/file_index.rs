//! Per-file lookup tables built when a file's facts enter the graph, keyed by global
//! names so that another file's lookups (`ns.f`, `x.m`) are one probe.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::interner::{Interner, NameId};
use crate::indexer::facts::*;

pub type Few<T> = SmallVec<[T; 1]>;

#[derive(Default, Clone)]
pub struct FileIndex {
    /// Local string id -> global name.
    pub names: Vec<NameId>,
    /// (container, member name) -> member definitions.
    pub members: FxHashMap<(DefIdx, NameId), Few<DefIdx>>,
    /// (object, property name) -> recorded property values.
    pub props: FxHashMap<(DefIdx, NameId), Few<SymId>>,
    /// Exported name -> export entries.
    pub exports: FxHashMap<NameId, Few<u32>>,
    /// `export * from` specifiers.
    pub stars: Vec<StrId>,
    /// An ES or CommonJS module (it imports or exports); a script's top-level functions
    /// are globals that other scripts can call by name.
    pub is_module: bool,
}

impl FileIndex {
    pub fn build(facts: &FileFacts, interner: &mut Interner) -> FileIndex {
        let names: Vec<NameId> = facts.strings.iter().map(|s| interner.intern(s)).collect();
        let mut members: FxHashMap<(DefIdx, NameId), Few<DefIdx>> = FxHashMap::default();
        for (i, d) in facts.defs.iter().enumerate() {
            if let Some(c) = d.container {
                members
                    .entry((c, names[d.name as usize]))
                    .or_default()
                    .push(i as DefIdx);
            }
        }
        let mut props: FxHashMap<(DefIdx, NameId), Few<SymId>> = FxHashMap::default();
        for p in &facts.props {
            props
                .entry((p.object, names[p.name as usize]))
                .or_default()
                .push(p.value);
        }
        let mut exports: FxHashMap<NameId, Few<u32>> = FxHashMap::default();
        let mut stars = Vec::new();
        for (i, e) in facts.exports.iter().enumerate() {
            match e.value {
                ExportValue::Star { specifier } => stars.push(specifier),
                _ => exports
                    .entry(names[e.name as usize])
                    .or_default()
                    .push(i as u32),
            }
        }
        let is_module = !facts.imports.is_empty()
            || !facts.exports.is_empty()
            || facts.module_exports.is_some();
        FileIndex {
            names,
            members,
            props,
            exports,
            stars,
            is_module,
        }
    }

    pub fn name(&self, local: StrId) -> NameId {
        self.names[local as usize]
    }
}
