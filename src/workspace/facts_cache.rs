//! The command line's per-user cache of extracted facts, on disk: a second `blast`,
//! `index` or `callers` of mostly the same files reads their facts back instead of
//! parsing them again (issue 45 §3).
//!
//! One file per (blob, parser version, what else decides the facts): the file's blob id
//! as git names it, the variant its path makes of it (a component is named after its
//! file), and the skip rules. Runs that share the cache never see each other's partial
//! writes (each entry is written to a file of its own and renamed into place), and an
//! entry that cannot be read back whole, for whatever reason, is a miss that is removed,
//! never an error. The cache is bounded in bytes: a run that wrote to it evicts the
//! entries read or written longest ago until it is under its bound again.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use crate::indexer::facts::FileFacts;
use crate::indexer::skip::{SkipReason, SkipRules};
use crate::indexer::PARSER_VERSION;
use crate::model::BlobSha;
use crate::workflow::source::FactsCache;

/// The cache's size bound unless told otherwise: some 10 KB of facts per file is a
/// 100,000-file monorepo, twice.
pub const DEFAULT_MAX_BYTES: u64 = 2 << 30;

/// What every entry starts with, so a file of anything else is a miss.
const MAGIC: &[u8; 4] = b"BRF1";

/// Eviction brings the cache down to this share of its bound, so the next runs do not
/// evict again at once.
const TRIM_TO_PERCENT: u64 = 80;

pub struct DiskCache {
    /// This parser version's entries: `<root>/facts-v<version>`.
    dir: PathBuf,
    max_bytes: u64,
    /// The skip rules' part of every key.
    rules: u64,
    /// Whether this run wrote an entry (only then can the cache have outgrown its bound).
    wrote: AtomicBool,
    /// Entries that could not be written (a full disk, a read-only home): said once.
    failed: AtomicU64,
}

#[derive(Serialize, Deserialize)]
enum Entry {
    // Boxed: an entry is read and moved once (the encoding is the same).
    Facts(Box<FileFacts>),
    Skipped(SkipReason),
}

/// The cache's place: `$BLAST_RADIUS_CACHE_DIR`, else the platform's cache directory
/// (`$XDG_CACHE_HOME`, else `~/.cache`, on Linux) + `blast-radius`.
pub fn default_root() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("BLAST_RADIUS_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("blast-radius"));
    }
    if cfg!(target_os = "macos") {
        if let Some(home) = std::env::var_os("HOME") {
            return Some(PathBuf::from(home).join("Library/Caches/blast-radius"));
        }
    }
    if let Some(dir) = std::env::var_os("LOCALAPPDATA") {
        return Some(PathBuf::from(dir).join("blast-radius"));
    }
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache/blast-radius"))
}

impl DiskCache {
    /// The cache under `root` for extraction with `rules`. Entries of other parser
    /// versions are no use to this one: their directories are removed.
    pub fn open(root: &Path, rules: &SkipRules, max_bytes: u64) -> DiskCache {
        let current = format!("facts-v{PARSER_VERSION}");
        if let Ok(dirs) = std::fs::read_dir(root) {
            for d in dirs.flatten() {
                let name = d.file_name().to_string_lossy().into_owned();
                if name.starts_with("facts-v") && name != current {
                    let _ = std::fs::remove_dir_all(d.path());
                }
            }
        }
        DiskCache {
            dir: root.join(current),
            max_bytes,
            rules: xxh3_64(format!("{}:{}", rules.max_bytes, rules.max_line).as_bytes()),
            wrote: AtomicBool::new(false),
            failed: AtomicU64::new(0),
        }
    }

    /// Where the entry of `blob` read as `path` is.
    fn entry_path(&self, blob: &BlobSha, path: &str) -> Option<PathBuf> {
        let blob = blob.as_str();
        if blob.len() < 8 || !blob.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let variant = crate::indexer::select::variant_of_path(path).unwrap_or_default();
        let key = xxh3_64(format!("{variant}\0{}", self.rules).as_bytes());
        Some(
            self.dir
                .join(&blob[..2])
                .join(format!("{}-{key:016x}", &blob[2..])),
        )
    }

    fn read(&self, file: &Path, path: &str) -> Option<Entry> {
        let bytes = std::fs::read(file).ok()?;
        let body = bytes.strip_prefix(MAGIC.as_slice())?;
        let raw = lz4_flex::decompress_size_prepended(body).ok()?;
        let mut entry: Entry = postcard::from_bytes(&raw).ok()?;
        if let Entry::Facts(facts) = &mut entry {
            facts.path = path.to_string();
        }
        Some(entry)
    }

    /// Files and bytes the cache holds (every parser version's).
    pub fn usage(root: &Path) -> (u64, u64) {
        let mut files = 0;
        let mut bytes = 0;
        for (_, len, _) in entries(root) {
            files += 1;
            bytes += len;
        }
        (files, bytes)
    }

    /// Empties the cache under `root`; what it held.
    pub fn clear(root: &Path) -> std::io::Result<(u64, u64)> {
        let held = Self::usage(root);
        match std::fs::remove_dir_all(root) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(held),
        }
    }

    /// Evicts the entries used longest ago until the cache is under its bound.
    fn trim(&self) {
        let Some(root) = self.dir.parent() else {
            return;
        };
        let mut all = entries(root);
        let total: u64 = all.iter().map(|(_, len, _)| len).sum();
        if total <= self.max_bytes {
            return;
        }
        let target = self.max_bytes / 100 * TRIM_TO_PERCENT;
        all.sort_by_key(|(_, _, used)| *used);
        let mut left = total;
        for (file, len, _) in all {
            if left <= target {
                break;
            }
            // Another run may have removed it first: either way it is gone.
            let _ = std::fs::remove_file(&file);
            left = left.saturating_sub(len);
        }
    }
}

/// Every entry under `root`: its file, size and when it was last used (written, or read:
/// a hit touches it).
fn entries(root: &Path) -> Vec<(PathBuf, u64, SystemTime)> {
    let mut out = Vec::new();
    let Ok(versions) = std::fs::read_dir(root) else {
        return out;
    };
    for version in versions.flatten() {
        let Ok(shards) = std::fs::read_dir(version.path()) else {
            continue;
        };
        for shard in shards.flatten() {
            let Ok(files) = std::fs::read_dir(shard.path()) else {
                continue;
            };
            for f in files.flatten() {
                if let Ok(meta) = f.metadata() {
                    if meta.is_file() {
                        let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                        out.push((f.path(), meta.len(), used));
                    }
                }
            }
        }
    }
    out
}

impl FactsCache for DiskCache {
    fn get(&self, blob: &BlobSha, path: &str) -> Option<Result<FileFacts, SkipReason>> {
        let file = self.entry_path(blob, path)?;
        match self.read(&file, path) {
            Some(entry) => {
                // Used now: eviction goes by last use.
                if let Ok(f) = std::fs::File::options().write(true).open(&file) {
                    let _ = f.set_modified(SystemTime::now());
                }
                Some(match entry {
                    Entry::Facts(facts) => Ok(*facts),
                    Entry::Skipped(reason) => Err(reason),
                })
            }
            None => {
                // Truncated, foreign, from an older format: a miss, and gone.
                if file.exists() {
                    let _ = std::fs::remove_file(&file);
                }
                None
            }
        }
    }

    fn put(&self, blob: &BlobSha, path: &str, extracted: Result<&FileFacts, SkipReason>) {
        let Some(file) = self.entry_path(blob, path) else {
            return;
        };
        let raw = match extracted {
            Ok(facts) => postcard::to_stdvec(&EntryRef::Facts(facts)),
            Err(reason) => postcard::to_stdvec(&EntryRef::Skipped(reason)),
        };
        let Ok(raw) = raw else {
            return;
        };
        let mut bytes = MAGIC.to_vec();
        bytes.extend(lz4_flex::compress_prepend_size(&raw));
        if write_atomically(&file, &bytes).is_err() {
            if self.failed.fetch_add(1, Ordering::Relaxed) == 0 {
                eprintln!(
                    "note: the facts cache at {} cannot be written; this run goes on without it",
                    self.dir.display()
                );
            }
            return;
        }
        self.wrote.store(true, Ordering::Relaxed);
    }

    fn finish(&self) {
        if self.wrote.load(Ordering::Relaxed) {
            self.trim();
        }
    }
}

/// [`Entry`] borrowing its facts, for writing (same encoding).
#[derive(Serialize)]
enum EntryRef<'a> {
    Facts(&'a FileFacts),
    Skipped(SkipReason),
}

/// Writes `bytes` to `file` through a temporary file of this process renamed into place:
/// a reader sees the whole entry or none.
fn write_atomically(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = file.parent().ok_or(std::io::ErrorKind::InvalidInput)?;
    std::fs::create_dir_all(dir)?;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".tmp-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        std::fs::rename(&tmp, file)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts_of(path: &str, source: &str) -> FileFacts {
        crate::indexer::extract_source(path, source)
            .expect("code")
            .expect("read")
    }

    #[test]
    fn an_entry_is_read_back_by_blob_and_variant() {
        let root = tempfile::tempdir().unwrap();
        let rules = SkipRules::default();
        let cache = DiskCache::open(root.path(), &rules, DEFAULT_MAX_BYTES);
        let source = "export function f() { return g(); }\n";
        let blob = BlobSha::of(source.as_bytes());
        let facts = facts_of("src/a.ts", source);
        assert!(cache.get(&blob, "src/a.ts").is_none());
        cache.put(&blob, "src/a.ts", Ok(&facts));
        // Another path of the same language: the same facts, under that path.
        let got = cache.get(&blob, "lib/b.ts").expect("a hit").expect("facts");
        assert_eq!(got.path, "lib/b.ts");
        assert_eq!(got.calls.len(), facts.calls.len());
        assert_eq!(got.defs.len(), facts.defs.len());
        // Another variant (a declaration file, another component name) misses.
        assert!(cache.get(&blob, "src/a.d.ts").is_none());
        // A skip is kept as one.
        let big = BlobSha::of(b"x");
        cache.put(&big, "src/big.js", Err(SkipReason::TooLarge));
        assert_eq!(
            cache.get(&big, "src/big.js").map(|r| r.err()),
            Some(Some(SkipReason::TooLarge))
        );
        // Other rules, another key.
        let strict = SkipRules {
            max_bytes: 10,
            ..SkipRules::default()
        };
        let other = DiskCache::open(root.path(), &strict, DEFAULT_MAX_BYTES);
        assert!(other.get(&blob, "src/a.ts").is_none());
    }

    #[test]
    fn a_damaged_entry_is_a_miss_and_is_removed() {
        let root = tempfile::tempdir().unwrap();
        let cache = DiskCache::open(root.path(), &SkipRules::default(), DEFAULT_MAX_BYTES);
        let source = "export const x = () => 1;\n";
        let blob = BlobSha::of(source.as_bytes());
        cache.put(&blob, "a.js", Ok(&facts_of("a.js", source)));
        let file = cache.entry_path(&blob, "a.js").unwrap();
        for damage in [
            &b""[..],
            b"BRF1",
            b"BRF1\x05\x00\x00\x00abc",
            b"not an entry at all",
        ] {
            std::fs::write(&file, damage).unwrap();
            assert!(cache.get(&blob, "a.js").is_none(), "{damage:?}");
            assert!(!file.exists(), "{damage:?}");
        }
        // A truncated real entry too.
        cache.put(&blob, "a.js", Ok(&facts_of("a.js", source)));
        let whole = std::fs::read(&file).unwrap();
        std::fs::write(&file, &whole[..whole.len() - 3]).unwrap();
        assert!(cache.get(&blob, "a.js").is_none());
    }

    #[test]
    fn the_cache_stays_under_its_bound_evicting_what_was_used_longest_ago() {
        let root = tempfile::tempdir().unwrap();
        let rules = SkipRules::default();
        let mut blobs = Vec::new();
        let size;
        {
            let cache = DiskCache::open(root.path(), &rules, u64::MAX);
            for i in 0..20 {
                let source = format!("export function f{i}() {{ return g{i}(); }}\n");
                let blob = BlobSha::of(source.as_bytes());
                cache.put(&blob, "a.js", Ok(&facts_of("a.js", &source)));
                let file = cache.entry_path(&blob, "a.js").unwrap();
                // Used in order, a second apart.
                let when = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000 + i);
                std::fs::File::options()
                    .write(true)
                    .open(&file)
                    .unwrap()
                    .set_modified(when)
                    .unwrap();
                blobs.push(blob);
            }
            size = DiskCache::usage(root.path()).1;
        }
        // A bound of half: the oldest go, the newest stay.
        let cache = DiskCache::open(root.path(), &rules, size / 2);
        let extra = "export const late = 1;\n";
        cache.put(
            &BlobSha::of(extra.as_bytes()),
            "a.js",
            Ok(&facts_of("a.js", extra)),
        );
        cache.finish();
        let (files, bytes) = DiskCache::usage(root.path());
        assert!(bytes <= size / 2, "{bytes} > {}", size / 2);
        assert!(files < 21);
        assert!(
            cache.get(&blobs[0], "a.js").is_none(),
            "the oldest is evicted"
        );
        assert!(cache.get(&blobs[19], "a.js").is_some(), "the newest stays");
        // Clearing empties it.
        assert_eq!(DiskCache::clear(root.path()).unwrap().0, files);
        assert_eq!(DiskCache::usage(root.path()), (0, 0));
    }

    #[test]
    fn other_parser_versions_are_removed_on_open() {
        let root = tempfile::tempdir().unwrap();
        let old = root.path().join("facts-v1/ab");
        std::fs::create_dir_all(&old).unwrap();
        std::fs::write(old.join("cdef-0"), b"BRF1").unwrap();
        let _ = DiskCache::open(root.path(), &SkipRules::default(), DEFAULT_MAX_BYTES);
        assert!(!root.path().join("facts-v1").exists());
    }
}
