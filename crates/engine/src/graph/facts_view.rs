//! A file's facts as a graph holds them: their string ids are the graph's names.

use std::ops::Deref;

use rustc_hash::FxHashMap;

use super::interner::{Interner, NameId};
use crate::indexer::facts::*;

/// A file's facts as a graph holds them. A file's strings enter the graph's names when
/// the file does (`FileIndex::build`) and its facts' string ids become those names, so
/// a string is kept once per graph rather than once per file that holds it; read them
/// with [`Facts::str`]. Everything else reads as [`FileFacts`].
#[derive(Clone, Copy)]
pub struct Facts<'g> {
    facts: &'g FileFacts,
    names: &'g Interner,
}

impl<'g> Deref for Facts<'g> {
    type Target = FileFacts;

    #[inline]
    fn deref(&self) -> &FileFacts {
        self.facts
    }
}

impl<'g> Facts<'g> {
    pub(super) fn new(facts: &'g FileFacts, names: &'g Interner) -> Facts<'g> {
        Facts { facts, names }
    }

    /// The facts themselves, for as long as the graph is borrowed; their strings are
    /// still the graph's names.
    #[inline]
    pub fn held(self) -> &'g FileFacts {
        self.facts
    }

    #[inline]
    pub fn str(&self, id: StrId) -> &'g str {
        self.names.resolve(NameId(id))
    }

    pub fn def_name(&self, idx: DefIdx) -> &'g str {
        self.str(self.facts.def(idx).name)
    }

    pub fn def_qualified(&self, idx: DefIdx) -> &'g str {
        self.str(self.facts.def(idx).qualified)
    }

    /// See [`FileFacts::describe`].
    pub fn describe(&self, id: SymId) -> String {
        self.facts.describe_with(id, &|n| self.str(n))
    }

    /// The facts with a string table of their own, as extraction makes them: what the
    /// store keeps and what reads facts outside a graph.
    pub fn to_file_facts(&self) -> FileFacts {
        let mut out = self.facts.clone();
        let mut local: FxHashMap<StrId, StrId> = FxHashMap::default();
        let mut strings = StringTable::default();
        out.map_strings(|n| *local.entry(n).or_insert_with(|| strings.push(self.str(n))));
        strings.shrink_to_fit();
        out.strings = strings;
        out
    }
}
