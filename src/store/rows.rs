//! The graph as table rows (files, definitions, edges) in COPY form, and stored facts
//! encoded for the facts cache. Pure: no database here.

use rustc_hash::FxHashMap;

use super::copy::CopyBuf;
use crate::graph::{FileId, Graph};
use crate::indexer::facts::{DefKind, FileFacts};
use crate::indexer::skip::SkipReason;
use crate::indexer::PARSER_VERSION;

/// What the graph does not hold about files: their blobs, and the files it skipped.
#[derive(Default, Clone)]
pub struct FileMeta {
    /// Path -> git blob sha.
    pub blobs: FxHashMap<String, String>,
    pub skipped: Vec<(String, SkipReason)>,
}

/// Each stored file's number in its repository, by path; new paths get new numbers.
#[derive(Default, Clone, Debug)]
pub struct FileNumbers {
    by_path: FxHashMap<String, i32>,
    next: i32,
}

impl FileNumbers {
    pub fn from_rows(rows: impl IntoIterator<Item = (String, i32)>) -> Self {
        let mut numbers = FileNumbers::default();
        for (path, id) in rows {
            numbers.next = numbers.next.max(id + 1);
            numbers.by_path.insert(path, id);
        }
        numbers
    }

    pub fn get(&self, path: &str) -> Option<i32> {
        self.by_path.get(path).copied()
    }

    /// The number of `path`, given a new one if it has none.
    pub fn number(&mut self, path: &str) -> i32 {
        if let Some(&id) = self.by_path.get(path) {
            return id;
        }
        let id = self.next;
        self.next += 1;
        self.by_path.insert(path.to_string(), id);
        id
    }

    pub fn forget(&mut self, path: &str) -> Option<i32> {
        self.by_path.remove(path)
    }
}

/// What besides the bytes the facts of a blob depend on.
pub fn variant(facts: &FileFacts) -> String {
    let lang = facts.language.map_or("unknown", |l| l.name());
    if facts.declaration_only {
        format!("{lang}.d")
    } else {
        lang.to_string()
    }
}

/// Facts as stored in the cache: the path is left out (the same blob may live at many).
pub fn encode_facts(facts: &FileFacts) -> Vec<u8> {
    let mut copy = facts.clone();
    copy.path = String::new();
    postcard::to_stdvec(&copy).expect("facts serialise")
}

pub fn decode_facts(path: &str, bytes: &[u8]) -> Result<FileFacts, postcard::Error> {
    let mut facts: FileFacts = postcard::from_bytes(bytes)?;
    facts.path = path.to_string();
    Ok(facts)
}

/// COPY rows for a set of files of the graph (and skipped and config files).
pub struct Rows {
    /// (blob, variant, encoded facts) for the content-addressed cache.
    pub facts_cache: Vec<(String, String, Vec<u8>)>,
    pub files: CopyBuf,
    pub definitions: CopyBuf,
    pub edges: CopyBuf,
}

pub const FILES_COLUMNS: &str = "repo_id, file_id, path, blob_sha, language, status, \
     skip_reason, parse_errors, variant, parser_version, content, resolution, version";
pub const DEFINITIONS_COLUMNS: &str =
    "repo_id, file_id, def_index, name, qualified_name, kind, start_line, end_line, exported";
pub const EDGES_COLUMNS: &str = "repo_id, caller_file, site, caller_def, line, col, kind, \
     callee_file, callee_def, confidence";

/// Line numbers and indices fit INT columns (files are capped far below 2^31 lines).
fn int4(v: u32) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

impl Rows {
    pub fn new() -> Self {
        Rows {
            facts_cache: Vec::new(),
            files: CopyBuf::new(),
            definitions: CopyBuf::new(),
            edges: CopyBuf::new(),
        }
    }

    /// Rows of an indexed file: its files row (with its resolution), definitions, edges,
    /// and (with `cache`) its facts for the content-addressed cache.
    #[allow(clippy::too_many_arguments)]
    pub fn add_file(
        &mut self,
        repo: i64,
        version: i64,
        graph: &Graph,
        f: FileId,
        blob: &str,
        numbers: &mut FileNumbers,
        cache: bool,
    ) {
        let facts = graph.facts(f);
        let variant = variant(facts);
        if cache {
            self.facts_cache
                .push((blob.to_string(), variant.clone(), encode_facts(facts)));
        }
        let file_id = numbers.number(&facts.path);
        let resolution = postcard::to_stdvec(&graph.stored_resolution(f)).expect("serialise");
        self.files
            .int8(repo)
            .int4(file_id)
            .text(&facts.path)
            .text(blob)
            .opt_text(facts.language.map(|l| l.name()))
            .text("indexed")
            .null()
            .int4(int4(facts.parse_errors))
            .text(&variant)
            .int4(PARSER_VERSION)
            .null()
            .bytes(&resolution)
            .int8(version);
        self.files.end_row();
        for (i, d) in facts.defs.iter().enumerate() {
            if d.kind == DefKind::Object {
                continue;
            }
            self.definitions
                .int8(repo)
                .int4(file_id)
                .int4(int4(i as u32))
                .text(facts.str(d.name))
                .text(facts.str(d.qualified))
                .text(d.kind.as_str())
                .int4(int4(d.span.start_line) + 1)
                .int4(int4(d.span.end_line) + 1)
                .boolean(d.exported);
            self.definitions.end_row();
        }
        for e in graph.edges(f) {
            let site = &facts.calls[e.site() as usize];
            let callee_file = numbers.number(&graph.facts(e.target.file).path);
            self.edges
                .int8(repo)
                .int4(file_id)
                .int4(int4(e.site()))
                .opt_int4(site.caller().map(int4))
                .int4(int4(site.pos().line) + 1)
                .int4(int4(site.pos().column) + 1)
                .text(site.kind.as_str())
                .int4(callee_file)
                .int4(int4(e.target.def))
                .text(e.confidence().as_str());
            self.edges.end_row();
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn add_skipped(
        &mut self,
        repo: i64,
        version: i64,
        path: &str,
        blob: &str,
        reason: SkipReason,
        numbers: &mut FileNumbers,
    ) {
        self.files
            .int8(repo)
            .int4(numbers.number(path))
            .text(path)
            .text(blob)
            .opt_text(crate::indexer::Language::from_path(path).map(|l| l.name()))
            .text("skipped")
            .text(reason.as_str())
            .int4(0)
            .text("")
            .int4(PARSER_VERSION)
            .null()
            .null()
            .int8(version);
        self.files.end_row();
    }

    #[allow(clippy::too_many_arguments)]
    pub fn add_config(
        &mut self,
        repo: i64,
        version: i64,
        path: &str,
        blob: &str,
        content: &str,
        numbers: &mut FileNumbers,
    ) {
        self.files
            .int8(repo)
            .int4(numbers.number(path))
            .text(path)
            .text(blob)
            .null()
            .text("config")
            .null()
            .int4(0)
            .text("")
            .int4(PARSER_VERSION)
            .text(content)
            .null()
            .int8(version);
        self.files.end_row();
    }
}

impl Rows {
    /// Appends another set of rows.
    pub fn append(&mut self, other: Rows) {
        self.facts_cache.extend(other.facts_cache);
        self.files.append(&other.files);
        self.definitions.append(&other.definitions);
        self.edges.append(&other.edges);
    }
}

impl Default for Rows {
    fn default() -> Self {
        Rows::new()
    }
}
