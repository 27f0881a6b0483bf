//! The graph as table rows (files, definitions, edges) in COPY form, and stored facts
//! encoded for the facts cache. Pure: no database here.

use rustc_hash::FxHashMap;

use super::copy::CopyBuf;
use crate::graph::external::ExternalCall;
use crate::graph::stored::StoredResolution;
use crate::graph::{FileId, Graph};
use crate::indexer::component::component_name;
use crate::indexer::facts::{DefKind, FileFacts};
use crate::indexer::skip::SkipReason;
use crate::indexer::PARSER_VERSION;
use crate::links::{Endpoint, PathPattern, RepoLinks, Segment};

/// What the graph does not hold about files: their blobs, and the files it skipped.
#[derive(Default, Clone)]
pub struct FileMeta {
    /// Path -> git blob sha.
    pub blobs: FxHashMap<String, String>,
    pub skipped: Vec<(String, SkipReason)>,
}

impl FileMeta {
    /// The git blob sha of `path` ("" when unknown).
    pub fn blob(&self, path: &str) -> &str {
        self.blobs.get(path).map_or("", String::as_str)
    }
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

/// What besides the bytes the facts of a blob depend on: the language, whether it is a
/// declaration file, and a component's name (which its path gives: one blob at
/// `a/index.vue` and `b/index.vue` is two components).
pub fn variant(facts: &FileFacts) -> String {
    let lang = facts.language.map_or("unknown", |l| l.name());
    if facts.declaration_only {
        format!("{lang}.d")
    } else if facts.language.and_then(|l| l.component()).is_some() {
        format!("{lang}:{}", component_name(&facts.path))
    } else {
        lang.to_string()
    }
}

/// Facts as stored in the cache: the path is left out (the same blob may live at many).
/// Facts as stored: postcard, compressed with LZ4. Most files' facts shrink from 3-4
/// KB to under Postgres' 2 KB out-of-line threshold, so they are written (and read)
/// inline in the row instead of through TOAST; LZ4 decodes at gigabytes per second.
pub fn encode_facts(facts: &FileFacts) -> Vec<u8> {
    compress(&postcard::to_stdvec(facts).expect("facts serialise"))
}

pub fn decode_facts(path: &str, bytes: &[u8]) -> Result<FileFacts, DecodeError> {
    let mut facts: FileFacts = postcard::from_bytes(&decompress(bytes)?)?;
    facts.path = path.to_string();
    Ok(facts)
}

/// A file's stored resolution, encoded like its facts.
pub fn encode_resolution(r: &StoredResolution) -> Vec<u8> {
    compress(&postcard::to_stdvec(r).expect("resolution serialises"))
}

pub fn decode_resolution(bytes: &[u8]) -> Result<StoredResolution, DecodeError> {
    Ok(postcard::from_bytes(&decompress(bytes)?)?)
}

fn compress(bytes: &[u8]) -> Vec<u8> {
    lz4_flex::compress_prepend_size(bytes)
}

fn decompress(bytes: &[u8]) -> Result<Vec<u8>, DecodeError> {
    Ok(lz4_flex::decompress_size_prepended(bytes)?)
}

/// Stored bytes that do not decode: a corrupt row, or one written by another format.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("not LZ4: {0}")]
    Compression(#[from] lz4_flex::block::DecompressError),
    #[error("not postcard: {0}")]
    Encoding(#[from] postcard::Error),
}

/// An entry of the content-addressed facts cache: (blob, variant, encoded facts).
pub type CacheEntry = (String, String, Vec<u8>);

/// The cache entry of an indexed file.
pub fn cache_entry(facts: &FileFacts, blob: &str) -> CacheEntry {
    (blob.to_string(), variant(facts), encode_facts(facts))
}

/// COPY rows for a set of files of the graph (and skipped and config files).
pub struct Rows {
    pub files: CopyBuf,
    pub definitions: CopyBuf,
    pub edges: CopyBuf,
    pub external_calls: CopyBuf,
    pub unresolved: CopyBuf,
    pub links: CopyBuf,
}

pub const FILES_COLUMNS: &str = "repo_id, file_id, path, blob_sha, language, status, \
     skip_reason, parse_errors, variant, parser_version, content, resolution, version";
pub const DEFINITIONS_COLUMNS: &str =
    "repo_id, file_id, def_index, name, qualified_name, kind, start_line, end_line, exported";
pub const EXTERNAL_CALL_GROUPS_COLUMNS: &str = "repo_id, file_id, package, sites, calls, args";
pub const LINK_SITES_COLUMNS: &str = "repo_id, file_id, site, role, kind, method, endpoint, \
     name, literals, segments, line, col, handler, encoded";
pub const UNRESOLVED_COLUMNS: &str = "repo_id, file_id, name, sites";
pub const EDGES_COLUMNS: &str = "repo_id, caller_file, site, caller_def, line, col, kind, \
     callee_file, callee_def, confidence";

/// Line numbers and indices fit INT columns (files are capped far below 2^31 lines).
fn int4(v: u32) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

impl Rows {
    pub fn new() -> Self {
        Rows {
            files: CopyBuf::new(),
            definitions: CopyBuf::new(),
            edges: CopyBuf::new(),
            external_calls: CopyBuf::new(),
            unresolved: CopyBuf::new(),
            links: CopyBuf::new(),
        }
    }

    /// Rows of an indexed file: its files row (with its resolution), definitions, edges.
    pub fn add_file(
        &mut self,
        repo: i64,
        version: i64,
        graph: &Graph,
        f: FileId,
        blob: &str,
        numbers: &FileNumbers,
    ) {
        let facts = graph.facts(f);
        let variant = variant(&facts);
        let number = |f: FileId| {
            let path = &graph.facts(f).path;
            numbers
                .get(path)
                .unwrap_or_else(|| panic!("{path} was numbered before its rows were built"))
        };
        let file_id = number(f);
        let edges = graph.edges(f);
        let resolution = encode_resolution(&graph.stored_resolution_of(f, &edges));
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
                .int4(int4(d.first_line()) + 1)
                .int4(int4(d.span.end_line) + 1)
                .boolean(d.exported);
            self.definitions.end_row();
        }
        for e in edges {
            let site = &facts.calls[e.site() as usize];
            let callee_file = number(e.target.file);
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
        self.add_external_calls(repo, file_id, graph.external_calls(f));
        self.add_unresolved(repo, file_id, graph, f);
    }

    /// The rows of a file's unresolved call sites: one per name, with how many carry it.
    fn add_unresolved(&mut self, repo: i64, file_id: i32, graph: &Graph, f: FileId) {
        let facts = graph.facts(f);
        let mut names: Vec<&str> = graph
            .resolution(f)
            .unresolved_sites
            .iter()
            .map(|&s| facts.str(facts.calls[s as usize].name))
            .collect();
        names.sort_unstable();
        for group in names.chunk_by(|a, b| a == b) {
            self.unresolved
                .int8(repo)
                .int4(file_id)
                .text(group[0])
                .int4(int4(group.len() as u32));
            self.unresolved.end_row();
        }
    }

    /// The rows of a file's calls into packages: one per package, holding its calls
    /// back to back in the file's order, and their arguments.
    pub fn add_external_calls(&mut self, repo: i64, file_id: i32, mut calls: Vec<ExternalCall>) {
        calls.sort_by(|a, b| a.package.cmp(&b.package));
        for group in calls.chunk_by(|a, b| a.package == b.package) {
            let mut bytes = Vec::new();
            for call in group {
                bytes = postcard::to_extend(call, bytes).expect("a call serialises");
            }
            // Each call's arguments, one byte each in the same order (not in the
            // encoded call: rows written before they were kept still decode).
            let args: Vec<u8> = group.iter().map(|c| c.args).collect();
            self.external_calls
                .int8(repo)
                .int4(file_id)
                .text(&group[0].package)
                .int4(int4(group.len() as u32))
                .bytes(&bytes)
                .bytes(&args);
            self.external_calls.end_row();
        }
    }

    /// The rows of a repository's link sites (routes, clients, producers, consumers,
    /// their mounts and instances composed), numbered within each file in the order
    /// `links` holds them; files `numbers` does not know are left out.
    pub fn add_links(
        &mut self,
        repo: i64,
        graph: &Graph,
        links: &RepoLinks,
        numbers: impl Fn(&str) -> Option<i32>,
    ) {
        for group in links.sites.chunk_by(|a, b| a.file == b.file) {
            let Some(file_id) = numbers(&group[0].path) else {
                continue;
            };
            for (i, s) in group.iter().enumerate() {
                let keys = link_keys(&s.site.endpoint);
                let handler = s
                    .handler
                    .map(|d| graph.facts(d.file).def_qualified(d.def).to_string());
                let encoded =
                    postcard::to_stdvec(&s.site.endpoint).expect("an endpoint serialises");
                self.links
                    .int8(repo)
                    .int4(file_id)
                    .int4(int4(i as u32))
                    .text(s.site.role.as_str())
                    .text(keys.kind)
                    .opt_text(keys.method.as_deref())
                    .text(&s.site.endpoint.to_string())
                    .text(&keys.name)
                    .text_array(&keys.literals.iter().map(String::as_str).collect::<Vec<_>>())
                    .int4(keys.segments)
                    .int4(int4(s.site.at.line) + 1)
                    .int4(int4(s.site.at.column) + 1)
                    .opt_text(handler.as_deref())
                    .bytes(&encoded);
                self.links.end_row();
            }
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

/// What a link site is looked up by (see migration 0022).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkKeys {
    /// `http`, `trpc`, or a topic's system.
    pub kind: &'static str,
    pub method: Option<String>,
    /// A topic's name, a procedure's path; "" for HTTP.
    pub name: String,
    /// HTTP: the path's literal segments, each once.
    pub literals: Vec<String>,
    pub segments: i32,
}

pub fn link_keys(endpoint: &Endpoint) -> LinkKeys {
    match endpoint {
        Endpoint::Http { method, path } => {
            let mut literals: Vec<String> = path
                .segments
                .iter()
                .filter_map(|s| match s {
                    Segment::Literal(l) => Some(l.clone()),
                    _ => None,
                })
                .collect();
            literals.sort();
            literals.dedup();
            LinkKeys {
                kind: "http",
                method: method.map(|m| m.as_str().to_string()),
                name: String::new(),
                literals,
                segments: int4(path.segments.len() as u32),
            }
        }
        Endpoint::Topic { system, name } => LinkKeys {
            kind: system.as_str(),
            method: None,
            name: name.clone(),
            literals: Vec::new(),
            segments: 0,
        },
        // An AMQP exchange: its producers and the bindings of its queues, by its name
        // (the key confirmed against the binding in Rust).
        Endpoint::Exchange { exchange, .. } | Endpoint::Binding { exchange, .. } => LinkKeys {
            kind: "amqp",
            method: None,
            name: exchange.clone(),
            literals: Vec::new(),
            segments: 0,
        },
        Endpoint::Procedure { path, kind } => LinkKeys {
            kind: "trpc",
            method: kind.map(|k| format!("{k:?}").to_ascii_lowercase()),
            name: path.clone(),
            literals: Vec::new(),
            segments: 0,
        },
    }
}

/// The literal segment every client that reaches a route holds: the route's last (a
/// client whose base is unknown holds a tail of the route, and a tail that says
/// anything holds it). None for a route without one (`/`, `/:id`): no client is looked
/// up for it across repositories.
pub fn route_key(path: &PathPattern) -> Option<&str> {
    path.segments.iter().rev().find_map(|s| match s {
        Segment::Literal(l) => Some(l.as_str()),
        _ => None,
    })
}

impl Rows {
    /// Appends another set of rows.
    pub fn append(&mut self, other: Rows) {
        self.files.append(&other.files);
        self.definitions.append(&other.definitions);
        self.edges.append(&other.edges);
        self.external_calls.append(&other.external_calls);
        self.unresolved.append(&other.unresolved);
        self.links.append(&other.links);
    }
}

impl Default for Rows {
    fn default() -> Self {
        Rows::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_component_blob_at_two_paths_is_two_cache_entries() {
        // A component is named after its path: the same bytes at `Menu/index.vue` and
        // `Tabs/index.vue` are two components, whose cached facts must not be shared.
        let source = "<template><div /></template>\n";
        let variants: Vec<String> = ["src/Menu/index.vue", "src/Tabs/index.vue", "src/Card.vue"]
            .iter()
            .map(|path| {
                let facts = crate::indexer::extract_source(path, source)
                    .expect("a language")
                    .expect("read");
                variant(&facts)
            })
            .collect();
        assert_eq!(variants, ["vue:Menu", "vue:Tabs", "vue:Card"]);
    }

    #[test]
    fn facts_round_trip_compressed_without_their_path() {
        let facts = crate::indexer::extract_source(
            "lib/a.ts",
            "export function f(x: number) { return g(x) + g(x); }\nfunction g(y) { return y; }\n",
        )
        .expect("parses")
        .expect("read");
        let bytes = encode_facts(&facts);
        assert!(
            !bytes.windows(8).any(|w| w == b"lib/a.ts"),
            "path not stored"
        );
        let back = decode_facts("other/b.ts", &bytes).expect("decodes");
        assert_eq!(back.path, "other/b.ts");
        assert_eq!(back.defs, facts.defs);
        assert_eq!(back.calls, facts.calls);
        assert_eq!(back.syms, facts.syms);
    }

    #[test]
    fn unreadable_bytes_are_an_error_not_a_panic() {
        assert!(matches!(
            decode_facts("a.ts", &[0xff, 0xff, 0xff, 0x7f, 1, 2]),
            Err(DecodeError::Compression(_))
        ));
        let not_postcard = compress(&[0xff; 16]);
        assert!(decode_facts("a.ts", &not_postcard).is_err());
        assert!(decode_resolution(b"").is_err());
    }
}
