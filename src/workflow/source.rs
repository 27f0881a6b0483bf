//! Where a workflow gets file bytes: the two small traits the disk and git implement
//! now (`workspace`), and GitHub later.

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

/// A commit's files as fetched with their blob shas (from an archive): the sha is the
/// whole file's even when `bytes` holds only the start of a file too large to index.
pub struct Fetched {
    pub commit: CommitSha,
    /// Sorted by path; with the reason a file was skipped while it was read.
    entries: Vec<(FileEntry, Option<SkipReason>)>,
    /// Each file's bytes, handed over on its first read: the indexer reads a file once,
    /// and holding every file until the graph is saved made a large repository's
    /// install hold its whole source twice over at the peak.
    bytes: std::sync::Mutex<Vec<Option<Vec<u8>>>>,
}

impl Fetched {
    pub fn new(
        commit: CommitSha,
        mut files: Vec<(FileEntry, Vec<u8>, Option<SkipReason>)>,
    ) -> Fetched {
        files.sort_by(|a, b| a.0.path.cmp(&b.0.path));
        let (entries, bytes) = files
            .into_iter()
            .map(|(e, b, skip)| ((e, skip), Some(b)))
            .unzip();
        Fetched {
            commit,
            entries,
            bytes: std::sync::Mutex::new(bytes),
        }
    }
}

impl Revision for Fetched {
    fn commit(&self) -> Option<CommitSha> {
        Some(self.commit.clone())
    }

    fn files(&self) -> anyhow::Result<Vec<FileEntry>> {
        Ok(self
            .entries
            .iter()
            .filter(|(e, _)| crate::indexer::select::wanted(&e.path))
            .map(|(e, _)| e.clone())
            .collect())
    }

    fn read(&self, entries: &[FileEntry]) -> anyhow::Result<Vec<SourceFile>> {
        let mut bytes = self.bytes.lock().expect("fetched bytes lock");
        entries
            .iter()
            .map(|e| {
                let i = self
                    .entries
                    .binary_search_by(|(f, _)| f.path.as_str().cmp(&e.path))
                    .map_err(|_| anyhow::anyhow!("{} is not in this revision", e.path))?;
                let taken = bytes[i]
                    .take()
                    .ok_or_else(|| anyhow::anyhow!("{} was read already", e.path))?;
                Ok(SourceFile {
                    path: e.path.clone(),
                    bytes: taken,
                    skip: self.entries[i].1,
                })
            })
            .collect()
    }

    fn reads_one_cheaply(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str) -> FileEntry {
        FileEntry {
            path: path.to_string(),
            blob: None,
        }
    }

    #[test]
    fn an_archive_hands_each_file_over_once() {
        let fetched = Fetched::new(
            CommitSha::from("c".repeat(40)),
            vec![
                (entry("src/b.ts"), b"export const b = 1;".to_vec(), None),
                (
                    entry("src/a.js"),
                    b"a()".to_vec(),
                    Some(SkipReason::TooLarge),
                ),
            ],
        );
        assert_eq!(
            fetched.files().unwrap(),
            vec![entry("src/a.js"), entry("src/b.ts")]
        );
        let read = fetched
            .read(&[entry("src/b.ts"), entry("src/a.js")])
            .unwrap();
        assert_eq!(read[0].bytes, b"export const b = 1;");
        assert_eq!(read[1].skip, Some(SkipReason::TooLarge));
        // Its bytes are gone from the archive: a second read is an error, not empty text.
        let again = fetched.read(&[entry("src/b.ts")]).unwrap_err().to_string();
        assert!(again.contains("src/b.ts was read already"), "{again}");
        let missing = fetched.read(&[entry("src/c.ts")]).unwrap_err().to_string();
        assert!(missing.contains("not in this revision"), "{missing}");
    }
}
