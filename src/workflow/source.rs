//! Where a workflow gets file bytes: the two small traits the disk and git implement
//! now (`workspace`), and GitHub later.

use crate::indexer::facts::FileFacts;
use crate::indexer::pipeline::SourceFile;
use crate::indexer::skip::SkipReason;
use crate::model::{BlobSha, CommitSha};

/// One file of a revision: its path and, when the source knows it without reading the
/// file, its blob sha (git trees do; a plain directory does not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEntry {
    pub path: String,
    pub blob: Option<BlobSha>,
}

/// A revision's files: what the indexer wants of it, and their contents.
pub trait Revision: Sync {
    /// The commit, when the revision is one.
    fn commit(&self) -> Option<CommitSha>;
    /// Every file the indexer reads (code and config, by `indexer::select`), sorted.
    fn files(&self) -> anyhow::Result<Vec<FileEntry>>;
    /// The contents of `entries`, in their order.
    fn read(&self, entries: &[FileEntry]) -> anyhow::Result<Vec<SourceFile>>;
    /// Whether reading files one at a time costs no more than in batches (a disk does;
    /// git and the network prefer batches).
    fn reads_one_cheaply(&self) -> bool {
        false
    }
    /// The size of `entry` in bytes when it costs no read to know (a disk's metadata).
    fn size(&self, _entry: &FileEntry) -> Option<u64> {
        None
    }
    /// The contents of those of `paths` that exist in this revision (and that the
    /// indexer reads), in path order.
    fn read_paths(&self, paths: &[String]) -> anyhow::Result<Vec<SourceFile>> {
        let mut wanted: Vec<&String> = paths.iter().collect();
        wanted.sort();
        let entries: Vec<FileEntry> = self
            .files()?
            .into_iter()
            .filter(|e| wanted.binary_search(&&e.path).is_ok())
            .collect();
        self.read(&entries)
    }
}

/// Facts kept between runs by blob (the CLI's per-user cache, `workspace::facts_cache`):
/// what an index of mostly the same files reads instead of parsing them again. Never
/// wrong, only absent: whatever it cannot read back is a miss.
pub trait FactsCache: Sync {
    /// What extracting blob `blob` as the file at `path` gave (its facts, or why it was
    /// skipped), when kept.
    fn get(&self, blob: &BlobSha, path: &str) -> Option<Result<FileFacts, SkipReason>>;
    /// Keeps what extracting blob `blob` as the file at `path` gave.
    fn put(&self, blob: &BlobSha, path: &str, extracted: Result<&FileFacts, SkipReason>);
    /// The run is over: a cache bounded in size evicts here.
    fn finish(&self) {}
}

/// The paths whose contents differ between two revisions (added, modified, deleted,
/// both sides of a rename), whatever the indexer makes of them.
pub trait Changes {
    fn changed_paths(&self) -> anyhow::Result<Vec<String>>;
}

/// Files held in memory: a revision made of what a caller already fetched.
pub struct InMemory {
    pub commit: Option<CommitSha>,
    pub files: Vec<SourceFile>,
}

impl Revision for InMemory {
    fn commit(&self) -> Option<CommitSha> {
        self.commit.clone()
    }

    fn files(&self) -> anyhow::Result<Vec<FileEntry>> {
        let mut entries: Vec<FileEntry> = self
            .files
            .iter()
            .filter(|f| crate::indexer::select::wanted(&f.path))
            .map(|f| FileEntry {
                path: f.path.clone(),
                blob: Some(BlobSha::of(&f.bytes)),
            })
            .collect();
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(entries)
    }

    fn read(&self, entries: &[FileEntry]) -> anyhow::Result<Vec<SourceFile>> {
        let by_path: rustc_hash::FxHashMap<&str, &SourceFile> =
            self.files.iter().map(|f| (f.path.as_str(), f)).collect();
        entries
            .iter()
            .map(|e| {
                let f = by_path
                    .get(e.path.as_str())
                    .ok_or_else(|| anyhow::anyhow!("{} is not in this revision", e.path))?;
                Ok(SourceFile {
                    path: f.path.clone(),
                    bytes: f.bytes.clone(),
                    skip: f.skip,
                })
            })
            .collect()
    }
}
