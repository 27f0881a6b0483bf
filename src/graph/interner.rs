//! Global names: every distinct string of every file once, as a small integer.
//!
//! Each string is stored once, in one buffer: the table holds only ids and finds a
//! string's id by comparing against the stored strings (a map keyed by the strings would
//! keep a second copy of each).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::indexer::facts::StringTable;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

#[derive(Default, Clone)]
pub struct Interner {
    ids: HashTable<u32>,
    names: StringTable,
}

fn hash(s: &str) -> u64 {
    FxBuildHasher.hash_one(s)
}

impl Interner {
    pub fn intern(&mut self, s: &str) -> NameId {
        if let Some(id) = self.get(s) {
            return id;
        }
        let id = self.names.push(s);
        let names = &self.names;
        self.ids.insert_unique(hash(s), id, |&i| hash(names.get(i)));
        NameId(id)
    }

    pub fn get(&self, s: &str) -> Option<NameId> {
        self.ids
            .find(hash(s), |&i| self.names.get(i) == s)
            .map(|&i| NameId(i))
    }

    pub fn resolve(&self, id: NameId) -> &str {
        self.names.get(id.0)
    }

    pub fn heap_bytes(&self) -> usize {
        self.names.heap_bytes() + self.ids.capacity() * 5
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
}
