//! Per-file lookup tables built when a file's facts enter the graph, keyed by global
//! names so that another file's lookups (`ns.f`, `x.m`) are one probe.

use thin_vec::ThinVec;

use super::interner::{Interner, NameId};
use crate::indexer::facts::*;

/// A map from keys to one or more values, as one sorted vector: a file's tables are
/// small and many, and a hash map per table cost three times the entries' bytes
/// (buckets, load factor, a heap list per key). Lookups are a binary search. The vector
/// is a thin one: many tables are empty, and an empty one costs a pointer.
#[derive(Clone, Debug)]
pub struct SortedMulti<K, V> {
    entries: ThinVec<(K, V)>,
}

impl<K, V> Default for SortedMulti<K, V> {
    fn default() -> Self {
        SortedMulti {
            entries: ThinVec::new(),
        }
    }
}

impl<K: Ord + Copy, V: Copy> SortedMulti<K, V> {
    /// From entries in any order; values of one key keep their order.
    fn build(mut entries: Vec<(K, V)>) -> Self {
        entries.sort_by_key(|e| e.0);
        SortedMulti {
            entries: entries.into_iter().collect(),
        }
    }

    /// The values of `key`, in the order they were given.
    pub fn get(&self, key: &K) -> impl Iterator<Item = V> + '_ {
        let key = *key;
        let start = self.entries.partition_point(|e| e.0 < key);
        self.entries[start..]
            .iter()
            .take_while(move |e| e.0 == key)
            .map(|e| e.1)
    }

    /// The (key, value) entries with `from <= key < to`, by key.
    pub fn between(&self, from: &K, to: &K) -> impl Iterator<Item = (K, V)> + '_ {
        let start = self.entries.partition_point(|e| e.0 < *from);
        let end = self.entries.partition_point(|e| e.0 < *to);
        self.entries[start..end.max(start)].iter().copied()
    }

    /// Every (key, value), by key.
    pub fn iter(&self) -> impl Iterator<Item = (K, V)> + '_ {
        self.entries.iter().copied()
    }

    /// Every key once, in order.
    pub fn keys(&self) -> impl Iterator<Item = K> + '_ {
        self.entries
            .iter()
            .enumerate()
            .filter(|&(i, e)| i == 0 || self.entries[i - 1].0 != e.0)
            .map(|(_, e)| e.0)
    }

    pub fn heap_bytes(&self) -> usize {
        thin_heap_bytes(&self.entries)
    }
}

#[derive(Default, Clone)]
pub struct FileIndex {
    /// (container, member name) -> member definitions.
    pub members: SortedMulti<(DefIdx, NameId), DefIdx>,
    /// (object, property name) -> recorded property values.
    pub props: SortedMulti<(DefIdx, NameId), SymId>,
    /// Exported name -> export entries.
    pub exports: SortedMulti<NameId, u32>,
    /// `export * from` specifiers.
    pub stars: ThinVec<StrId>,
    /// An ES or CommonJS module (it imports or exports); a script's top-level functions
    /// are globals that other scripts can call by name.
    pub is_module: bool,
    /// Lies in a vendored directory (`vendor/`): imports and declarations lead to its
    /// code, name-only matches never cross between it and the repository's own.
    pub vendored: bool,
    /// The specifiers of the modules the file declares (`declare module 'x' { ... }`):
    /// a name free in such a block may be declared by another block of the same module.
    pub ambient: ThinVec<NameId>,
}

impl FileIndex {
    /// The tables of `facts`, whose strings it first moves into `interner`: their ids
    /// become names of the graph and their own table goes (see `Facts`).
    pub fn build(facts: &mut FileFacts, interner: &mut Interner) -> FileIndex {
        let names: Vec<NameId> = facts.strings.iter().map(|s| interner.intern(s)).collect();
        facts.map_strings(|s| names[s as usize].0);
        facts.strings = StringTable::default();
        let members = SortedMulti::build(
            facts
                .defs
                .iter()
                .enumerate()
                .filter_map(|(i, d)| Some(((d.container()?, NameId(d.name)), i as DefIdx)))
                .collect(),
        );
        let props = SortedMulti::build(
            facts
                .props
                .iter()
                .map(|p| ((p.object, NameId(p.name)), p.value))
                .collect(),
        );
        let mut exports = Vec::new();
        let mut stars = ThinVec::new();
        for (i, e) in facts.exports.iter().enumerate() {
            match e.value {
                ExportValue::Star { specifier } => stars.push(specifier),
                _ => exports.push((NameId(e.name), i as u32)),
            }
        }
        let exports = SortedMulti::build(exports);
        // A type's `import('./x')` does not make a module (TypeScript's rule), nor does
        // an import inside a `declare module` block.
        let is_module =
            facts.top_level_import || !facts.exports.is_empty() || facts.module_exports.is_some();
        let mut ambient: ThinVec<NameId> = facts
            .defs
            .iter()
            .filter(|d| d.reach == Reach::AmbientModule)
            .map(|d| NameId(d.name))
            .collect();
        ambient.sort();
        ambient.dedup();
        FileIndex {
            members,
            props,
            exports,
            stars,
            is_module,
            vendored: crate::indexer::select::vendored_dir(&facts.path).is_some(),
            ambient,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SortedMulti;

    #[test]
    fn values_of_a_key_keep_their_order_and_keys_come_once() {
        let m = SortedMulti::build(vec![(3, 'a'), (1, 'b'), (3, 'c'), (2, 'd'), (3, 'e')]);
        assert_eq!(m.get(&3).collect::<String>(), "ace");
        assert_eq!(m.get(&1).collect::<String>(), "b");
        assert_eq!(m.get(&4).count(), 0);
        assert_eq!(m.get(&0).count(), 0);
        assert_eq!(m.keys().collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(m.iter().count(), 5);
        assert_eq!(m.between(&2, &4).map(|e| e.1).collect::<String>(), "dace");
        assert_eq!(m.between(&4, &9).count(), 0);
        let empty: SortedMulti<u32, u32> = SortedMulti::default();
        assert_eq!(empty.keys().count(), 0);
    }
}
