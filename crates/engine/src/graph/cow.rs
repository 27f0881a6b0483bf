//! Copy-on-write containers behind the graph, so that a clone of a graph (a fork) is
//! cheap and a write to a fork copies only what it touches.
//!
//! Each container is a list of `Arc`'d chunks. Cloning one copies the chunk pointers;
//! writing through one copies the chunk written to if another graph still shares it
//! (`Arc::make_mut`), and writes in place if not, so a graph nobody forked pays no
//! copies at all. Chunks are small, so a fork that updates a few files copies a few
//! small chunks, not the repository.

use std::borrow::Borrow;
use std::hash::{BuildHasher, Hash};
use std::sync::Arc;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

use super::interner::NameId;

/// Entries per [`Column`] chunk (a power of two): a fork of the 9,300-file corpus copies
/// 146 chunk pointers per column, and its first write to a chunk copies 64 entries.
const CHUNK: usize = 64;
const CHUNK_BITS: u32 = CHUNK.trailing_zeros();

/// A vector indexed by file id (or any dense index), in chunks of [`CHUNK`] entries.
#[derive(Clone)]
pub(crate) struct Column<T> {
    chunks: Vec<Arc<[T; CHUNK]>>,
    len: usize,
}

impl<T> Default for Column<T> {
    fn default() -> Self {
        Column {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Clone + Default> Column<T> {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The entry at `i`: None past the last chunk (in the last chunk, past `len`, the
    /// default).
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        self.chunks
            .get(i >> CHUNK_BITS)
            .map(|chunk| &chunk[i & (CHUNK - 1)])
    }

    /// The entry at `i` to write to, the column grown to hold it if needed.
    pub(crate) fn get_mut(&mut self, i: usize) -> &mut T {
        if i >= self.len {
            self.len = i + 1;
            while self.chunks.len() << CHUNK_BITS < self.len {
                self.chunks
                    .push(Arc::new(std::array::from_fn(|_| T::default())));
            }
        }
        &mut Arc::make_mut(&mut self.chunks[i >> CHUNK_BITS])[i & (CHUNK - 1)]
    }

    pub(crate) fn push(&mut self, value: T) -> usize {
        let i = self.len;
        *self.get_mut(i) = value;
        i
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.chunks.iter().flat_map(|c| c.iter()).take(self.len)
    }

    /// Every entry to write to (copying every chunk another graph shares).
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> + '_ {
        let len = self.len;
        self.chunks
            .iter_mut()
            .flat_map(|c| Arc::make_mut(c).iter_mut())
            .take(len)
    }

    /// Heap bytes of the chunks themselves (not of what their entries point to).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.chunks.capacity() * std::mem::size_of::<usize>()
            + self.chunks.len() * (16 + std::mem::size_of::<[T; CHUNK]>())
    }
}

/// Which shard a key lives in: a few bits of the key, spread (Fibonacci hashing).
pub(crate) trait ShardKey {
    fn shard_bits(&self) -> u32;
}

impl ShardKey for NameId {
    #[inline]
    fn shard_bits(&self) -> u32 {
        self.0.wrapping_mul(0x9E37_79B9)
    }
}

/// A hash map in [`SHARDS`] shards chosen by key: a write copies one shard of a map
/// that another graph shares. A shard is made on its first entry (a small repository
/// pays for the shards it fills).
#[derive(Clone)]
pub(crate) struct Shards<K, V> {
    shards: Box<[Option<Shard<K, V>>]>,
}

type Shard<K, V> = Arc<FxHashMap<K, V>>;

/// Shards per [`Shards`] map (a power of two): the maps keyed by name hold some tens
/// of thousands of entries in a large repository, so a shard holds a few dozen.
const SHARDS: usize = 1024;
const SHARD_BITS: u32 = SHARDS.trailing_zeros();

impl<K, V> Default for Shards<K, V> {
    fn default() -> Self {
        Shards {
            shards: (0..SHARDS).map(|_| None).collect(),
        }
    }
}

impl<K: ShardKey + Hash + Eq + Clone, V: Clone + Default> Shards<K, V> {
    #[inline]
    fn shard(key: &K) -> usize {
        (key.shard_bits() >> (32 - SHARD_BITS)) as usize
    }

    #[inline]
    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        self.shards[Self::shard(key)].as_ref()?.get(key)
    }

    /// The entry of `key` to write to, if there is one: a shard is copied only when it
    /// holds the key.
    pub(crate) fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        let shard = self.shards[Self::shard(key)].as_mut()?;
        if !shard.contains_key(key) {
            return None;
        }
        Arc::make_mut(shard).get_mut(key)
    }

    /// The entry of `key` to write to, made (empty) if there is none.
    pub(crate) fn entry(&mut self, key: K) -> &mut V {
        let shard = self.shards[Self::shard(&key)].get_or_insert_default();
        Arc::make_mut(shard).entry(key).or_default()
    }

    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let shard = self.shards[Self::shard(key)].as_mut()?;
        if !shard.contains_key(key) {
            return None;
        }
        Arc::make_mut(shard).remove(key)
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.shards.iter().flatten().flat_map(|s| s.values())
    }

    /// Every value to write to (copying every shard another graph shares).
    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut V> + '_ {
        self.shards
            .iter_mut()
            .flatten()
            .flat_map(|s| Arc::make_mut(s).values_mut())
    }

    /// Heap bytes of the shards' tables (not of what their values point to).
    pub(crate) fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<(K, V)>() + 1;
        let table = 16 + std::mem::size_of::<FxHashMap<K, V>>();
        self.shards.len() * 8
            + self
                .shards
                .iter()
                .flatten()
                .map(|s| table + s.capacity() * entry)
                .sum::<usize>()
    }
}

/// Files by path, in [`PATH_SHARDS`] shards chosen by the path's hash (computed once
/// per lookup: existence checks while resolving imports are frequent).
#[derive(Clone)]
pub(crate) struct PathIndex {
    shards: Box<[PathShard]>,
    len: usize,
}

/// (path, file id) entries, found by the path's hash.
type PathShard = Arc<HashTable<(Box<str>, u32)>>;

const PATH_SHARDS: usize = 64;
const PATH_SHARD_BITS: u32 = PATH_SHARDS.trailing_zeros();

impl Default for PathIndex {
    fn default() -> Self {
        PathIndex {
            shards: (0..PATH_SHARDS)
                .map(|_| Arc::new(HashTable::new()))
                .collect(),
            len: 0,
        }
    }
}

fn path_hash(path: &str) -> u64 {
    FxBuildHasher.hash_one(path)
}

impl PathIndex {
    #[inline]
    fn shard(hash: u64) -> usize {
        (hash >> (64 - PATH_SHARD_BITS)) as usize
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(crate) fn get(&self, path: &str) -> Option<u32> {
        let hash = path_hash(path);
        self.shards[Self::shard(hash)]
            .find(hash, |(p, _)| p.as_ref() == path)
            .map(|&(_, id)| id)
    }

    pub(crate) fn contains(&self, path: &str) -> bool {
        self.get(path).is_some()
    }

    /// Adds or replaces the id of `path`.
    pub(crate) fn insert(&mut self, path: &str, id: u32) {
        let hash = path_hash(path);
        let shard = Arc::make_mut(&mut self.shards[Self::shard(hash)]);
        match shard.find_mut(hash, |(p, _)| p.as_ref() == path) {
            Some(entry) => entry.1 = id,
            None => {
                shard.insert_unique(hash, (path.into(), id), |(p, _)| path_hash(p.borrow()));
                self.len += 1;
            }
        }
    }

    pub(crate) fn remove(&mut self, path: &str) {
        let hash = path_hash(path);
        let shard = &mut self.shards[Self::shard(hash)];
        if shard.find(hash, |(p, _)| p.as_ref() == path).is_none() {
            return;
        }
        if let Ok(entry) = Arc::make_mut(shard).find_entry(hash, |(p, _)| p.as_ref() == path) {
            entry.remove();
            self.len -= 1;
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.shards
            .iter()
            .map(|s| 40 + s.capacity() * 25 + s.iter().map(|(p, _)| p.len()).sum::<usize>())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_to_a_clone_leaves_the_original_as_it_was() {
        let mut column: Column<Option<u32>> = Column::default();
        for i in 0..200 {
            column.push(Some(i));
        }
        let mut fork = column.clone();
        *fork.get_mut(70) = Some(7);
        *fork.get_mut(300) = Some(3);
        assert_eq!(column.get(70), Some(&Some(70)));
        assert_eq!(fork.get(70), Some(&Some(7)));
        assert_eq!((column.len(), fork.len()), (200, 301));
        assert_eq!(column.get(300), None);
        assert_eq!(fork.iter().filter(|v| v.is_some()).count(), 201);

        let mut names: Shards<NameId, Vec<u32>> = Shards::default();
        names.entry(NameId(5)).push(1);
        let mut fork = names.clone();
        fork.entry(NameId(5)).push(2);
        assert!(fork.remove(&NameId(6)).is_none());
        assert_eq!(names.get(&NameId(5)), Some(&vec![1]));
        assert_eq!(fork.get(&NameId(5)), Some(&vec![1, 2]));

        let mut paths = PathIndex::default();
        paths.insert("a.ts", 0);
        let mut fork = paths.clone();
        fork.insert("b.ts", 1);
        fork.remove("a.ts");
        assert_eq!((paths.get("a.ts"), paths.get("b.ts")), (Some(0), None));
        assert_eq!((fork.get("a.ts"), fork.get("b.ts")), (None, Some(1)));
        assert_eq!((paths.len(), fork.len()), (1, 1));
    }
}
