//! The files of recent pull requests as fetched (the PR's file list and both versions of
//! each changed file), kept a while in memory: a `/callers` asked after the analysis, or a
//! second command on the same head, reads them instead of fetching every blob again. An
//! entry is for one head, one test merge and one base graph commit; anything newer is
//! another entry.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use lru::LruCache;

use crate::github::PrFile;
use crate::model::{BlobSha, CommitSha, GithubRepoId};
use crate::workflow::source::InMemory;

/// Pull requests whose files are kept (a few MB at most: only changed files).
const ENTRIES: usize = 64;

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

pub struct PrFilesCache {
    entries: Mutex<LruCache<PrKey, Arc<PrFetched>>>,
}

impl Default for PrFilesCache {
    fn default() -> PrFilesCache {
        PrFilesCache {
            entries: Mutex::new(LruCache::new(NonZeroUsize::new(ENTRIES).expect("> 0"))),
        }
    }
}

impl PrFilesCache {
    /// The entry for `key`, if it holds the old versions when `with_old` asks for them.
    pub fn get(&self, key: &PrKey, with_old: bool) -> Option<Arc<PrFetched>> {
        let mut entries = self.entries.lock().unwrap();
        let found = entries.get(key)?;
        (!with_old || found.old.is_some()).then(|| found.clone())
    }

    pub fn put(&self, key: PrKey, fetched: Arc<PrFetched>) {
        self.entries.lock().unwrap().put(key, fetched);
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
