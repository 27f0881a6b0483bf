//! Which paths of the working tree changed: file-system events (inotify, FSEvents, ...)
//! through `notify`, one non-recursive watch per directory the walk enters, so that
//! `node_modules` and ignored build output cost nothing.
//!
//! Events arrive on the watcher's thread a moment after the write that caused them. So
//! that an edit made before a tool call is always in that call's answer, each call first
//! creates a marker file in a directory of our own, watched by the same watcher, and
//! waits for its event: the events of one watcher come in order, so every change made
//! before the marker has been seen by then. Where no watcher can be had (an OS without
//! one, too few inotify watches), every call compares the whole tree's stamps instead.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::watch as channel;

use crate::indexer::select::SKIPPED_DIRS;

/// How long a call waits for its marker's event before it walks the tree instead.
const MARKER_WAIT: Duration = Duration::from_secs(2);

/// Paths (relative to the root) reported changed since the last call, and whether
/// events were lost (then the whole tree is compared).
#[derive(Debug, Default)]
pub struct Pending {
    pub paths: BTreeSet<String>,
    pub rescan: bool,
}

impl Pending {
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && !self.rescan
    }
}

pub struct Watch {
    root: PathBuf,
    active: Option<Active>,
}

struct Active {
    watcher: Mutex<RecommendedWatcher>,
    inbox: Arc<Inbox>,
    /// Our own directory for markers (removed on drop), and its canonical path.
    _markers: tempfile::TempDir,
    marker_dir: PathBuf,
    next_marker: AtomicU64,
    /// Set when a directory could not be watched: events no longer cover the tree.
    broken: AtomicBool,
}

/// What the watcher's thread hands over.
struct Inbox {
    pending: Mutex<Pending>,
    /// The highest marker seen.
    seen: channel::Sender<u64>,
}

impl Watch {
    /// Starts a watcher for the tree at `root` (canonical); directories are added with
    /// [`Watch::watch_dirs`]. Without one, every call compares stamps.
    pub fn start(root: &Path) -> Watch {
        match Active::start(root) {
            Ok(active) => Watch {
                root: root.to_path_buf(),
                active: Some(active),
            },
            Err(e) => {
                tracing::warn!("no file watcher ({e:#}): every call compares the tree's files");
                Watch {
                    root: root.to_path_buf(),
                    active: None,
                }
            }
        }
    }

    pub fn mode(&self) -> &'static str {
        if self.active.is_some() {
            "file events"
        } else {
            "stamps compared at each call"
        }
    }

    /// Watches `added` directories (relative to the root, `""` for the root) and stops
    /// watching `gone` ones. A directory that cannot be watched (too few inotify
    /// watches) turns the watcher off: every call then compares stamps.
    pub fn watch_dirs(&self, added: &[String], gone: &[String]) {
        let Some(active) = self.active.as_ref().filter(|a| !a.is_broken()) else {
            return;
        };
        let mut watcher = active.watcher.lock().unwrap_or_else(|e| e.into_inner());
        for dir in gone {
            let _ = watcher.unwatch(&self.root.join(dir));
        }
        for dir in added {
            if let Err(e) = watcher.watch(&self.root.join(dir), RecursiveMode::NonRecursive) {
                if self.root.join(dir).is_dir() {
                    tracing::warn!(
                        "cannot watch {dir:?} ({e}): every call compares the tree's files"
                    );
                    active.lock_pending().rescan = true;
                    active.broken();
                    return;
                }
            }
        }
    }

    /// Waits until every event of a change made before this call has been received:
    /// the marker's round trip. False when events cannot be trusted to cover the tree
    /// (no watcher, or it did not answer in time): then [`Watch::take`] asks for a walk.
    pub async fn sync(&self) -> bool {
        let Some(active) = self.active.as_ref().filter(|a| !a.is_broken()) else {
            return false;
        };
        let n = active.next_marker.fetch_add(1, Ordering::Relaxed) + 1;
        let marker = active.marker_dir.join(n.to_string());
        let mut seen = active.inbox.seen.subscribe();
        let arrived = match std::fs::write(&marker, b"") {
            Ok(()) => tokio::time::timeout(MARKER_WAIT, seen.wait_for(|&s| s >= n))
                .await
                .is_ok_and(|r| r.is_ok()),
            Err(_) => false,
        };
        let _ = std::fs::remove_file(&marker);
        if !arrived {
            tracing::warn!("the file watcher did not answer in time: comparing the tree's files");
        }
        arrived
    }

    /// The changes received so far, taken; `synced` is what [`Watch::sync`] said.
    pub fn take(&self, synced: bool) -> Pending {
        let mut pending = match &self.active {
            Some(active) => std::mem::take(&mut *active.lock_pending()),
            None => Pending::default(),
        };
        pending.rescan |= !synced;
        pending
    }
}

impl Active {
    fn start(root: &Path) -> anyhow::Result<Active> {
        let markers = tempfile::Builder::new()
            .prefix("blast-radius-mcp-")
            .tempdir()?;
        let marker_dir = markers.path().canonicalize()?;
        let (seen, _) = channel::channel(0u64);
        let inbox = Arc::new(Inbox {
            pending: Mutex::new(Pending::default()),
            seen,
        });
        let root = root.to_path_buf();
        let sink = Arc::clone(&inbox);
        let dir = marker_dir.clone();
        let mut watcher = notify::recommended_watcher(move |event| {
            sink.receive(&root, &dir, event);
        })?;
        watcher.watch(&marker_dir, RecursiveMode::NonRecursive)?;
        Ok(Active {
            watcher: Mutex::new(watcher),
            inbox,
            _markers: markers,
            marker_dir,
            next_marker: AtomicU64::new(0),
            broken: AtomicBool::new(false),
        })
    }

    fn lock_pending(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.inbox.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn broken(&self) {
        self.broken.store(true, Ordering::Relaxed);
    }

    fn is_broken(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
    }
}

impl Inbox {
    fn receive(&self, root: &Path, marker_dir: &Path, event: notify::Result<notify::Event>) {
        let event = match event {
            Ok(event) => event,
            Err(e) => {
                tracing::warn!("file watcher: {e}");
                self.pending
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .rescan = true;
                return;
            }
        };
        if matches!(event.kind, EventKind::Access(_)) && !is_close_write(&event.kind) {
            return;
        }
        let mut marker = None;
        {
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            if event.need_rescan() {
                pending.rescan = true;
            }
            for path in &event.paths {
                if let Ok(name) = path.strip_prefix(marker_dir) {
                    marker = marker.max(name.to_str().and_then(|n| n.parse::<u64>().ok()));
                } else if let Ok(rel) = path.strip_prefix(root) {
                    let rel = rel.to_string_lossy().replace('\\', "/");
                    if !rel.split('/').any(|part| SKIPPED_DIRS.contains(&part)) {
                        pending.paths.insert(rel);
                    }
                }
            }
        }
        if let Some(n) = marker {
            self.seen.send_if_modified(|seen| {
                let newer = n > *seen;
                *seen = (*seen).max(n);
                newer
            });
        }
    }
}

fn is_close_write(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Access(notify::event::AccessKind::Close(
            notify::event::AccessMode::Write
        ))
    )
}
