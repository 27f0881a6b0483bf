//! The files of recent pull requests as fetched (the PR's file list and both versions of
//! each changed file), kept a while in memory: a `/callers` asked after the analysis, or a
//! second command on the same head, reads them instead of fetching every blob again. An
//! entry is for one head, one test merge and one base graph commit; anything newer is
//! another entry.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use lru::LruCache;

use crate::github::PrFile;
use crate::model::{BlobSha, CommitSha, GithubRepoId};
use crate::workflow::source::InMemory;

/// Bytes of fetched files kept across pull requests: a PR's files are whoever opened
/// it's choice, so the cache is sized by what it holds, not by how many PRs.
const BUDGET_BYTES: usize = 64 * 1024 * 1024;

/// Which fetch an entry holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PrKey {
    pub repo: GithubRepoId,
    pub number: u64,
    pub head: CommitSha,
    /// GitHub's test merge, when the new versions were read from it.
    pub merge: Option<CommitSha>,
    /// The commit of the default branch's graph the old versions are from.
    pub base: CommitSha,
}

/// What a PR job fetched.
pub struct PrFetched {
    /// The changed paths the indexer reads (both sides of renames), sorted.
    pub changed: Vec<String>,
    /// The PR's files as GitHub lists them (with their patches).
    pub files: Vec<PrFile>,
    /// The PR changes more files than GitHub lists.
    pub hit_limit: bool,
    /// The blob of each changed path's new version.
    pub new_blobs: BTreeMap<String, BlobSha>,
    /// The base graph's versions; None when the fetch did not need them (a command).
    pub old: Option<InMemory>,
    pub new: InMemory,
}

impl PrFetched {
    /// The bytes it holds: files' contents, patches and paths.
    pub fn weight(&self) -> usize {
        let files = |m: &InMemory| {
            m.files
                .iter()
                .map(|f| f.bytes.len() + f.path.len())
                .sum::<usize>()
        };
        let listed: usize = self
            .files
            .iter()
            .map(|f| f.patch.as_ref().map_or(0, String::len) + f.path.0.len() + 64)
            .sum();
        files(&self.new) + self.old.as_ref().map_or(0, files) + listed
    }
}

pub struct PrFilesCache {
    entries: Mutex<Entries>,
    budget: usize,
}

struct Entries {
    lru: LruCache<PrKey, Arc<PrFetched>>,
    bytes: usize,
}

impl Default for PrFilesCache {
    fn default() -> PrFilesCache {
        PrFilesCache::with_budget(BUDGET_BYTES)
    }
}

impl PrFilesCache {
    /// The entry for `key`, if it holds the old versions when `with_old` asks for them.
    pub fn with_budget(budget: usize) -> PrFilesCache {
        PrFilesCache {
            entries: Mutex::new(Entries {
                lru: LruCache::unbounded(),
                bytes: 0,
            }),
            budget,
        }
    }

    pub fn get(&self, key: &PrKey, with_old: bool) -> Option<Arc<PrFetched>> {
        let mut entries = self.entries.lock().unwrap();
        let found = entries.lru.get(key)?;
        (!with_old || found.old.is_some()).then(|| found.clone())
    }

    /// Keeps `fetched`, letting the least recently used go while the cache holds more
    /// than its budget. One entry larger than the whole budget is not kept.
    pub fn put(&self, key: PrKey, fetched: Arc<PrFetched>) {
        let weight = fetched.weight();
        let mut entries = self.entries.lock().unwrap();
        if let Some(old) = entries.lru.pop(&key) {
            entries.bytes -= old.weight();
        }
        if weight > self.budget {
            return;
        }
        entries.bytes += weight;
        entries.lru.put(key, fetched);
        while entries.bytes > self.budget {
            match entries.lru.pop_lru() {
                Some((_, gone)) => entries.bytes -= gone.weight(),
                None => break,
            }
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.entries.lock().unwrap().bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(head: &str) -> PrKey {
        PrKey {
            repo: GithubRepoId(1),
            number: 7,
            head: CommitSha(head.into()),
            merge: None,
            base: CommitSha("b".into()),
        }
    }

    fn fetched(old: bool) -> Arc<PrFetched> {
        let empty = || InMemory {
            commit: None,
            files: Vec::new(),
        };
        Arc::new(PrFetched {
            changed: vec!["a.js".into()],
            files: Vec::new(),
            hit_limit: false,
            new_blobs: BTreeMap::new(),
            old: old.then(empty),
            new: empty(),
        })
    }

    fn weighing(n: usize) -> Arc<PrFetched> {
        Arc::new(PrFetched {
            changed: vec!["a.js".into()],
            files: Vec::new(),
            hit_limit: false,
            new_blobs: BTreeMap::new(),
            old: None,
            new: InMemory {
                commit: None,
                files: vec![crate::indexer::pipeline::SourceFile::new(
                    "a.js",
                    vec![b'x'; n],
                )],
            },
        })
    }

    #[test]
    fn the_cache_holds_bytes_not_entries() {
        let cache = PrFilesCache::with_budget(10_000);
        for i in 0..5 {
            cache.put(key(&format!("h{i}")), weighing(3_000));
        }
        assert!(cache.bytes() <= 10_000, "{}", cache.bytes());
        assert!(cache.get(&key("h4"), false).is_some(), "the newest stays");
        assert!(cache.get(&key("h0"), false).is_none(), "the oldest went");
        // One entry over the whole budget is not kept, and takes nothing else out.
        cache.put(key("huge"), weighing(20_000));
        assert!(cache.get(&key("huge"), false).is_none());
        assert!(cache.get(&key("h4"), false).is_some());
    }

    #[test]
    fn an_entry_answers_its_own_head_only_and_old_versions_only_when_it_has_them() {
        let cache = PrFilesCache::default();
        cache.put(key("h1"), fetched(false));
        assert!(cache.get(&key("h1"), false).is_some());
        assert!(cache.get(&key("h1"), true).is_none(), "no old versions");
        assert!(cache.get(&key("h2"), false).is_none(), "another head");
        cache.put(key("h1"), fetched(true));
        assert!(cache.get(&key("h1"), true).is_some());
    }
}
