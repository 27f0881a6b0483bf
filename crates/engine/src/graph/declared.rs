//! Declarations paired with the code they declare, where the two live apart: a
//! package's hand-written `types/*.d.ts` and its JavaScript, a declared factory's return
//! type and the object the JavaScript factory returns. TypeScript resolves calls to the
//! declarations; the pairing makes their callers callers of the code too.
//!
//! The pairing is worked out when a query first needs it and kept until a file it read
//! changes (or the file set, or a config), so updates that touch no package's
//! declarations or entries keep it, and those that do pay for it at the next query.

use std::sync::{Arc, OnceLock};

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Confidence, DefId, FileId, Graph};

/// Declaration ⇄ code pairs, each with how sure the pairing is.
#[derive(Default, Debug)]
pub(crate) struct Declared {
    /// Code definition -> the declarations that stand for it.
    by_code: FxHashMap<DefId, Vec<(DefId, Confidence)>>,
    /// Declaration -> the code it stands for.
    by_declaration: FxHashMap<DefId, Vec<(DefId, Confidence)>>,
    /// Every file whose facts or import targets the pairing read.
    reads: FxHashSet<FileId>,
}

impl Declared {
    /// From (declaration, code) pairs with their confidence.
    pub(crate) fn new(
        mut pairs: FxHashMap<(DefId, DefId), Confidence>,
        reads: FxHashSet<FileId>,
    ) -> Declared {
        // A declaration that stands for several functions is one of them: `likely`.
        let mut codes: FxHashMap<DefId, usize> = FxHashMap::default();
        for &(declaration, _) in pairs.keys() {
            *codes.entry(declaration).or_default() += 1;
        }
        for (&(declaration, _), confidence) in pairs.iter_mut() {
            if codes[&declaration] > 1 {
                *confidence = (*confidence).max(Confidence::Likely);
            }
        }
        let mut by_code: FxHashMap<DefId, Vec<(DefId, Confidence)>> = FxHashMap::default();
        let mut by_declaration: FxHashMap<DefId, Vec<(DefId, Confidence)>> = FxHashMap::default();
        for (&(declaration, code), &confidence) in &pairs {
            by_code
                .entry(code)
                .or_default()
                .push((declaration, confidence));
            by_declaration
                .entry(declaration)
                .or_default()
                .push((code, confidence));
        }
        for list in by_code.values_mut().chain(by_declaration.values_mut()) {
            list.sort();
        }
        Declared {
            by_code,
            by_declaration,
            reads,
        }
    }
}

/// The graph's pairing, worked out on first use (see the module doc).
#[derive(Default, Clone)]
pub(crate) struct DeclaredCache(Arc<OnceLock<Declared>>);

impl Graph {
    fn declared(&self) -> &Declared {
        self.declared.0.get_or_init(|| self.pair_declarations())
    }

    /// The declarations, apart from `d`'s file, that stand for the code definition `d`:
    /// calls resolved to them are calls of `d`.
    pub fn declared_as(&self, d: DefId) -> &[(DefId, Confidence)] {
        self.declared().by_code.get(&d).map_or(&[], Vec::as_slice)
    }

    /// The code a declaration stands for, where the two live apart.
    pub fn implementations_of(&self, d: DefId) -> &[(DefId, Confidence)] {
        self.declared()
            .by_declaration
            .get(&d)
            .map_or(&[], Vec::as_slice)
    }

    /// File `f`'s facts or targets are about to change: a pairing that read them is
    /// worked out again when next needed.
    pub(crate) fn forget_declared_if_read(&mut self, f: FileId) {
        let keep = match self.declared.0.get() {
            Some(declared) => !declared.reads.contains(&f),
            // Not worked out yet: a fork sharing the cell could fill it from its own
            // files, so this graph takes a cell of its own unless it has one.
            None => Arc::get_mut(&mut self.declared.0).is_some(),
        };
        if !keep {
            self.declared = DeclaredCache::default();
        }
    }

    /// The file set or the configs change: every pairing may.
    pub(crate) fn forget_declared(&mut self) {
        match Arc::get_mut(&mut self.declared.0) {
            Some(cell) if cell.get().is_none() => {}
            _ => self.declared = DeclaredCache::default(),
        }
    }
}
