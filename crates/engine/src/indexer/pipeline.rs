//! Many files at once: skip rules, then extraction on every core.

use rayon::prelude::*;

use super::facts::FileFacts;
use super::select::{select_decided, Selected};
use super::skip::{SkipReason, SkipRules};

/// One input file: repository-relative path and its bytes.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub path: String,
    pub bytes: Vec<u8>,
    /// Skipped before its bytes were kept (too large by its size, say): `bytes` is then
    /// empty.
    pub skip: Option<SkipReason>,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, bytes: Vec<u8>) -> SourceFile {
        SourceFile {
            path: path.into(),
            bytes,
            skip: None,
        }
    }
}

/// What indexing a set of files produced.
#[derive(Default)]
pub struct Extracted {
    pub facts: Vec<FileFacts>,
    /// tsconfig/jsconfig/package.json contents: they decide how imports resolve.
    pub configs: Vec<(String, String)>,
    pub skipped: Vec<(String, SkipReason)>,
    /// Bytes of source parsed.
    pub bytes: u64,
}

/// What one file gave.
enum Out {
    Facts(Box<FileFacts>, u64),
    Config(String, String),
    Skipped(String, SkipReason),
    Ignored,
}

/// Classifies and extracts every file in parallel. `progress` is called once per file.
pub fn extract_all(
    files: Vec<SourceFile>,
    rules: &SkipRules,
    progress: &(dyn Fn() + Sync),
) -> Extracted {
    extract_each(files, Ok::<_, std::convert::Infallible>, rules, progress)
        .unwrap_or_else(|never| match never {})
}

/// Like [`extract_all`], reading each item into a file only when a core is ready for it,
/// so a repository's bytes are never all in memory at once. The first read error is
/// returned (after the other files are done).
pub fn extract_each<T: Send, E: Send>(
    items: Vec<T>,
    read: impl Fn(T) -> Result<SourceFile, E> + Sync,
    rules: &SkipRules,
    progress: &(dyn Fn() + Sync),
) -> Result<Extracted, E> {
    // A bulk extraction keeps less of each thread's arena between files (see
    // `arena::set_bulk`); after it, the arenas' memory sits idle while the graph is
    // built: give it back (a few files' worth is not worth faulting in again).
    let bulk = items.len() > 256;
    // A job's deadline stops the work between files and inside each (see `cancel`).
    let cancel = crate::cancel::current();
    if bulk {
        rayon::broadcast(|_| super::arena::set_bulk(true));
    }
    // One file per piece of work: rayon otherwise hands each core a run of files
    // split in halves, and with the largest first a core could end on a run of large
    // ones while the other waits.
    let outs: Vec<Result<Out, E>> = items
        .into_par_iter()
        .with_max_len(1)
        .map(|item| {
            crate::cancel::scoped(cancel.clone(), || {
                crate::cancel::checkpoint();
                extract_one(read(item)?, rules, progress)
            })
        })
        .collect();

    if bulk {
        rayon::broadcast(|_| {
            super::arena::set_bulk(false);
            super::arena::release_idle();
        });
    }
    let mut extracted = Extracted::default();
    for out in outs {
        match out? {
            Out::Facts(f, bytes) => {
                extracted.bytes += bytes;
                extracted.facts.push(*f);
            }
            Out::Config(p, c) => extracted.configs.push((p, c)),
            Out::Skipped(p, r) => extracted.skipped.push((p, r)),
            Out::Ignored => {}
        }
    }
    extracted.facts.sort_by(|a, b| a.path.cmp(&b.path));
    extracted.configs.sort();
    extracted.skipped.sort();
    Ok(extracted)
}

/// One file's facts, or why it is not read.
fn extract_one<E>(
    file: SourceFile,
    rules: &SkipRules,
    progress: &(dyn Fn() + Sync),
) -> Result<Out, E> {
    let out = match select_decided(&file.path, &file.bytes, file.skip, rules) {
        Selected::Code(language, text) => match super::extract(&file.path, language, text) {
            Ok(facts) => Out::Facts(Box::new(facts), file.bytes.len() as u64),
            Err(reason) => Out::Skipped(file.path, reason),
        },
        Selected::Config(text) => Out::Config(file.path.clone(), text.to_string()),
        Selected::Skipped(reason) => Out::Skipped(file.path, reason),
        Selected::Ignored => Out::Ignored,
    };
    progress();
    Ok(out)
}
