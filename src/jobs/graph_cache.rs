//! Graphs of many repositories in memory, loaded on first use and kept in an LRU under
//! a memory budget. A graph whose stored version moved on (another process wrote it)
//! keeps serving while a background task catches it up from the rows written since.

use std::sync::{Arc, Mutex};

use lru::LruCache;

use crate::graph::Graph;
use crate::indexer::skip::SkipRules;
use crate::model::{CommitSha, RepoId};
use crate::store::{Result, Store, StoreError, Written};
use crate::workflow::apply_push::{apply_push, FileInput};

/// A graph as of one stored version.
pub struct Snapshot {
    pub graph: Graph,
    pub version: i64,
    pub commit: Option<CommitSha>,
    pub bytes: usize,
}

struct Entry {
    snapshot: Arc<Snapshot>,
    refreshing: bool,
}

struct Inner {
    lru: LruCache<RepoId, Entry>,
    bytes: usize,
}

pub struct GraphCache {
    store: Store,
    budget: usize,
    inner: Mutex<Inner>,
}

impl GraphCache {
    pub fn new(store: Store, budget_bytes: usize) -> Arc<GraphCache> {
        Arc::new(GraphCache {
            store,
            budget: budget_bytes,
            inner: Mutex::new(Inner {
                lru: LruCache::unbounded(),
                bytes: 0,
            }),
        })
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The memory the graphs may take, in bytes.
    pub fn budget_bytes(&self) -> usize {
        self.budget
    }

    /// Bytes of the graphs held now.
    pub fn held_bytes(&self) -> usize {
        self.inner.lock().expect("cache lock").bytes
    }

    /// Drops a repository's graph (the repository was purged or indexed anew).
    pub fn forget(&self, repo: RepoId) {
        let mut inner = self.inner.lock().expect("cache lock");
        if let Some(e) = inner.lru.pop(&repo) {
            inner.bytes -= e.snapshot.bytes;
        }
    }

    /// Holds the graph a full index just stored at `version`: the next push or pull
    /// request then starts from it instead of loading it again from rows (seconds, on a
    /// hundred-thousand-file repository).
    pub fn hold(&self, repo: RepoId, graph: Graph, version: i64, commit: Option<CommitSha>) {
        self.put(repo, graph, version, commit);
    }

    pub fn contains(&self, repo: RepoId) -> bool {
        self.inner.lock().expect("cache lock").lru.contains(&repo)
    }

    /// The graph of `repo`. Loaded on first use. When the database holds a newer
    /// version, the graph held now is returned and a background task catches it up.
    pub async fn get(self: &Arc<Self>, repo: RepoId) -> Result<Arc<Snapshot>> {
        let held = {
            let mut inner = self.inner.lock().expect("cache lock");
            inner
                .lru
                .get(&repo)
                .map(|e| (e.snapshot.clone(), e.refreshing))
        };
        let Some((snapshot, refreshing)) = held else {
            return self.load(repo).await;
        };
        let version = self.store.graph_version(repo).await?;
        if version != snapshot.version && !refreshing {
            self.mark_refreshing(repo, true);
            let this = Arc::clone(self);
            let stale = Arc::clone(&snapshot);
            tokio::spawn(async move {
                let result = this
                    .store
                    .catch_up(repo, stale.graph.clone(), stale.version)
                    .await;
                match result {
                    Ok((graph, version)) => {
                        let commit = this
                            .store
                            .repository_by_id(repo)
                            .await
                            .ok()
                            .and_then(|s| s.commit);
                        this.put(repo, graph, version, commit);
                    }
                    Err(e) => {
                        tracing::warn!(repo = repo.0, error = %e, "catching up a graph failed");
                        this.mark_refreshing(repo, false);
                    }
                }
            });
        }
        Ok(snapshot)
    }

    /// The graph of `repo` at the newest stored version, waiting for it if needed.
    pub async fn get_fresh(self: &Arc<Self>, repo: RepoId) -> Result<Arc<Snapshot>> {
        let held = {
            let mut inner = self.inner.lock().expect("cache lock");
            inner.lru.get(&repo).map(|e| e.snapshot.clone())
        };
        match held {
            None => self.load(repo).await,
            Some(s) => {
                let version = self.store.graph_version(repo).await?;
                if version == s.version {
                    return Ok(s);
                }
                let (graph, version) = self
                    .store
                    .catch_up(repo, s.graph.clone(), s.version)
                    .await?;
                let commit = self.store.repository_by_id(repo).await?.commit;
                Ok(self.put(repo, graph, version, commit))
            }
        }
    }

    async fn load(&self, repo: RepoId) -> Result<Arc<Snapshot>> {
        let (graph, state) = self.store.load_graph(repo).await?;
        Ok(self.put(repo, graph, state.version, state.commit))
    }

    fn mark_refreshing(&self, repo: RepoId, on: bool) {
        if let Some(e) = self.inner.lock().expect("cache lock").lru.peek_mut(&repo) {
            e.refreshing = on;
        }
    }

    /// Holds a graph (replacing an older one), then evicts the least recently used
    /// graphs until the budget holds (the newest one always stays).
    fn put(
        &self,
        repo: RepoId,
        graph: Graph,
        version: i64,
        commit: Option<CommitSha>,
    ) -> Arc<Snapshot> {
        let bytes = graph.approx_heap_bytes();
        let snapshot = Arc::new(Snapshot {
            graph,
            version,
            commit,
            bytes,
        });
        let mut inner = self.inner.lock().expect("cache lock");
        if let Some(old) = inner.lru.peek(&repo) {
            if old.snapshot.version > version {
                // A newer graph arrived meanwhile (a write through this cache).
                return old.snapshot.clone();
            }
        }
        if let Some(old) = inner.lru.put(
            repo,
            Entry {
                snapshot: snapshot.clone(),
                refreshing: false,
            },
        ) {
            inner.bytes -= old.snapshot.bytes;
        }
        inner.bytes += bytes;
        while inner.bytes > self.budget && inner.lru.len() > 1 {
            match inner.lru.pop_lru() {
                Some((_, e)) => inner.bytes -= e.snapshot.bytes,
                None => break,
            }
        }
        snapshot
    }

    /// The graph of `snapshot` to write on: taken out of the cache without a copy when
    /// nobody else holds it, else copied (readers keep the one they have).
    fn writable(&self, repo: RepoId, snapshot: Arc<Snapshot>) -> Graph {
        {
            let mut inner = self.inner.lock().expect("cache lock");
            // Holders: the cache and this caller. Readers take theirs under this lock.
            let sole = inner.lru.peek(&repo).is_some_and(|e| {
                Arc::ptr_eq(&e.snapshot, &snapshot) && Arc::strong_count(&snapshot) == 2
            });
            if sole {
                if let Some(e) = inner.lru.pop(&repo) {
                    inner.bytes -= e.snapshot.bytes;
                }
            }
        }
        match Arc::try_unwrap(snapshot) {
            Ok(own) => own.graph,
            Err(shared) => shared.graph.clone(),
        }
    }

    /// Applies a push through the cache: the held graph is updated (a copy, if readers
    /// hold it) and stored; a graph that another process moved on is caught up first.
    pub async fn apply_changes(
        self: &Arc<Self>,
        repo: RepoId,
        commit: Option<&CommitSha>,
        changed: Vec<FileInput>,
        removed: Vec<String>,
        rules: &SkipRules,
    ) -> Result<Written> {
        for _ in 0..3 {
            let snapshot = self.get_fresh(repo).await?;
            let expected = snapshot.version;
            let graph = self.writable(repo, snapshot);
            match apply_push(
                &self.store,
                repo,
                graph,
                expected,
                commit,
                changed.clone(),
                removed.clone(),
                rules,
            )
            .await
            {
                Ok((graph, written)) => {
                    self.put(repo, graph, written.version, commit.cloned());
                    return Ok(written);
                }
                // Another writer got there first: catch up and try again.
                Err(StoreError::Stale { .. }) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::Stale {
            expected: -1,
            actual: self.store.graph_version(repo).await?,
        })
    }
}
