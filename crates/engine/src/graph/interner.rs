//! Global names: every distinct string of every file once, as a small integer.
//!
//! Each string is stored once, in one buffer: the table holds only ids and finds a
//! string's id by comparing against the stored strings (a map keyed by the strings would
//! keep a second copy of each).
//!
//! Forks of a graph share its names: the table is behind an `Arc`, and a fork that
//! meets a new name while another graph shares the table adds it to a small table of
//! its own, whose ids continue where the shared table's end. Ids never change.

use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::indexer::facts::StringTable;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

/// Strings and the table that finds them; ids are positions in `names`.
#[derive(Default, Clone)]
struct Table {
    ids: HashTable<u32>,
    names: StringTable,
}

fn hash(s: &str) -> u64 {
    FxBuildHasher.hash_one(s)
}

impl Table {
    #[inline]
    fn get(&self, s: &str, hash: u64) -> Option<u32> {
        self.ids.find(hash, |&i| self.names.get(i) == s).copied()
    }

    fn push(&mut self, s: &str, h: u64) -> u32 {
        let id = self.names.push(s);
        let names = &self.names;
        self.ids.insert_unique(h, id, |&i| hash(names.get(i)));
        id
    }

    fn len(&self) -> u32 {
        self.names.len() as u32
    }

    fn heap_bytes(&self) -> usize {
        self.names.heap_bytes() + self.ids.capacity() * 5
    }

    fn shrink_to_fit(&mut self) {
        self.names.shrink_to_fit();
        let names = &self.names;
        self.ids.shrink_to_fit(|&i| hash(names.get(i)));
    }
}

#[derive(Clone)]
pub struct Interner {
    /// Names shared with forks of this graph (or with the graph it was forked from).
    shared: Arc<Table>,
    /// Names added while `shared` was shared; ids from `shared.len()` on.
    own: Table,
}

/// Names the resolver looks up whatever the files hold: each has an id from the start,
/// so that a file that reads one before any file declares it (`globalThis`, Vue's
/// `GlobalComponents`) is read again when one does (see `Resolution::fallback_names`).
pub(crate) const WELL_KNOWN: &[&str] = &[
    "globalThis",
    "Window",
    "GlobalComponents",
    "vue",
    "@vue/runtime-core",
    "@vue/runtime-dom",
];

impl Default for Interner {
    fn default() -> Self {
        let mut names = Interner {
            shared: Arc::default(),
            own: Table::default(),
        };
        for name in WELL_KNOWN {
            names.intern(name);
        }
        names
    }
}

impl Interner {
    #[inline]
    pub fn intern(&mut self, s: &str) -> NameId {
        let h = hash(s);
        match self.shared.get(s, h) {
            Some(id) => NameId(id),
            None => self.intern_unshared(s, h),
        }
    }

    /// A name that the shared table does not hold.
    fn intern_unshared(&mut self, s: &str, h: u64) -> NameId {
        if self.own.len() > 0 {
            if let Some(id) = self.own.get(s, h) {
                return NameId(self.shared.len() + id);
            }
        }
        if Arc::get_mut(&mut self.shared).is_some() || self.own.len() > self.own_limit() {
            // Nobody else holds the shared table (any more), or ours grew large: ours
            // goes into it (a copy of it, in the second case) and so does the name.
            self.fold_own();
            return NameId(Arc::make_mut(&mut self.shared).push(s, h));
        }
        NameId(self.shared.len() + self.own.push(s, h))
    }

    /// How many names a graph keeps of its own before it copies the shared table: forks
    /// copy this table, and a graph forked over and over keeps it small.
    fn own_limit(&self) -> u32 {
        (self.shared.len() / 8).max(4096)
    }

    /// Moves the names of `own` into `shared` (a copy of it, if it is shared), in order,
    /// so that their ids stay as they were.
    fn fold_own(&mut self) {
        if self.own.len() == 0 {
            return;
        }
        let own = std::mem::take(&mut self.own);
        let shared = Arc::make_mut(&mut self.shared);
        for s in own.names.iter() {
            shared.push(s, hash(s));
        }
    }

    #[inline]
    fn find(&self, s: &str, h: u64) -> Option<NameId> {
        if let Some(i) = self.shared.get(s, h) {
            return Some(NameId(i));
        }
        if self.own.len() == 0 {
            return None;
        }
        self.own.get(s, h).map(|i| NameId(self.shared.len() + i))
    }

    #[inline]
    pub fn get(&self, s: &str) -> Option<NameId> {
        self.find(s, hash(s))
    }

    pub fn resolve(&self, id: NameId) -> &str {
        let shared = self.shared.len();
        if id.0 < shared {
            self.shared.names.get(id.0)
        } else {
            self.own.names.get(id.0 - shared)
        }
    }

    pub fn heap_bytes(&self) -> usize {
        self.shared.heap_bytes() + self.own.heap_bytes()
    }

    /// Gives back the spare capacity of the tables this graph alone holds.
    pub fn shrink_to_fit(&mut self) {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.shrink_to_fit();
        }
        self.own.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_idempotent() {
        let mut i = Interner::default();
        let a = i.intern("render");
        let b = i.intern("save");
        assert_eq!(i.intern("render"), a);
        assert_ne!(a, b);
        assert_eq!(i.resolve(b), "save");
        assert_eq!(i.get("nope"), None);
        for n in 0..1000 {
            i.intern(&format!("n{n}"));
        }
        assert_eq!(i.get("save"), Some(b));
    }

    #[test]
    fn a_fork_adds_names_of_its_own_with_the_next_ids() {
        let mut base = Interner::default();
        // The well-known names come first.
        let first = WELL_KNOWN.len() as u32;
        assert_eq!(base.get("globalThis"), Some(NameId(0)));
        let a = base.intern("a");
        assert_eq!(a, NameId(first));
        let mut fork = base.clone();
        let b = fork.intern("b");
        assert_eq!(b, NameId(first + 1));
        assert_eq!(base.get("b"), None);
        let c = base.intern("c");
        assert_eq!(
            c,
            NameId(first + 1),
            "the original goes on from its own end"
        );
        assert_eq!((fork.resolve(a), fork.resolve(b)), ("a", "b"));
        assert_eq!(fork.get("c"), None);
        // Enough names of its own fold them into a table of the fork's own.
        for n in 0..5000 {
            fork.intern(&format!("n{n}"));
        }
        assert_eq!(fork.get("b"), Some(b));
        assert_eq!(fork.resolve(NameId(first + 1 + 5000)), "n4999");
        assert_eq!(base.resolve(c), "c");
        // A graph whose fork is gone takes its own names back into its table.
        drop(fork);
        let d = base.intern("d");
        assert_eq!(
            (base.own.len(), base.resolve(c), base.resolve(d)),
            (0, "c", "d")
        );
    }
}
