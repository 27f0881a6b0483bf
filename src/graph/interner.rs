//! Global names: every distinct string of every file once, as a small integer.

use rustc_hash::FxHashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

#[derive(Default, Clone)]
pub struct Interner {
    ids: FxHashMap<Box<str>, NameId>,
    names: Vec<Box<str>>,
}

impl Interner {
    pub fn intern(&mut self, s: &str) -> NameId {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = NameId(self.names.len() as u32);
        self.names.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }

    pub fn get(&self, s: &str) -> Option<NameId> {
        self.ids.get(s).copied()
    }

    pub fn resolve(&self, id: NameId) -> &str {
        &self.names[id.0 as usize]
    }

    pub fn heap_bytes(&self) -> usize {
        self.names.iter().map(|s| s.len() * 2 + 32).sum::<usize>()
    }
}
