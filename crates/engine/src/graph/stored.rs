//! A file's resolution in a form that outlives the process: paths and names instead of
//! this process's ids. With the facts, it is all a store needs to give back a graph
//! without parsing or resolving anything.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::resolve::Resolution;
use super::{Confidence, DefId, Edge, FileId, Graph};
use crate::indexer::facts::FileFacts;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredResolution {
    /// Paths that `edges` and `deps` refer to by index.
    pub files: Vec<String>,
    pub edges: Vec<StoredEdge>,
    pub deps: Vec<u32>,
    pub fallback_names: Vec<String>,
    pub external: u32,
    pub external_sites: Vec<u32>,
    pub unresolved_sites: Vec<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredEdge {
    pub site: u32,
    /// Index into `StoredResolution::files`.
    pub file: u32,
    pub def: u32,
    pub confidence: Confidence,
}

impl Graph {
    /// The resolution of `f`, in stored form.
    pub fn stored_resolution(&self, f: FileId) -> StoredResolution {
        self.stored_resolution_of(f, &self.edges(f))
    }

    /// The same, given the file's edges (`Graph::edges(f)`) when the caller has them.
    pub fn stored_resolution_of(&self, f: FileId, edges: &[Edge]) -> StoredResolution {
        let r = self.resolution(f);
        let mut files: Vec<String> = Vec::new();
        let mut index: FxHashMap<FileId, u32> = FxHashMap::default();
        let mut file_index = |id: FileId, files: &mut Vec<String>| {
            *index.entry(id).or_insert_with(|| {
                files.push(self.facts(id).path.clone());
                (files.len() - 1) as u32
            })
        };
        let edges = edges
            .iter()
            .map(|e| StoredEdge {
                site: e.site(),
                file: file_index(e.target.file, &mut files),
                def: e.target.def,
                confidence: e.confidence(),
            })
            .collect();
        let deps = r.deps.iter().map(|&d| file_index(d, &mut files)).collect();
        StoredResolution {
            files,
            edges,
            deps,
            fallback_names: r
                .fallback_names
                .iter()
                .map(|&n| self.name(n).to_string())
                .collect(),
            external: r.external,
            external_sites: r.external_sites.to_vec(),
            unresolved_sites: r.unresolved_sites.to_vec(),
        }
    }

    /// A graph from stored facts and resolutions, without resolving: what a warm start
    /// does. A file whose stored resolution no longer fits (a path that is gone, a
    /// definition or site out of range) is resolved again rather than trusted.
    pub fn restore(
        files: Vec<(FileFacts, StoredResolution)>,
        configs: Vec<(String, String)>,
    ) -> Graph {
        let mut g = Graph::build(Vec::new(), configs);
        let mut stored = Vec::with_capacity(files.len());
        for (facts, resolution) in files {
            let f = g.insert_slot(facts);
            stored.push((f, resolution));
        }
        g.retarget_all();
        let mut stale = Vec::new();
        for (f, s) in stored {
            match g.thaw(f, &s) {
                Some(r) => g.install(f, r),
                None => stale.push(f),
            }
        }
        let _ = g.resolve_and_install(&stale);
        g.shrink();
        g
    }

    fn thaw(&mut self, f: FileId, s: &StoredResolution) -> Option<Resolution> {
        let ids: Vec<FileId> = s
            .files
            .iter()
            .map(|p| self.file_id(p))
            .collect::<Option<_>>()?;
        let sites = self.facts(f).calls.len() as u32;
        let mut edges = Vec::with_capacity(s.edges.len());
        for e in &s.edges {
            let target = *ids.get(e.file as usize)?;
            if e.site >= sites || e.def as usize >= self.facts(target).defs.len() {
                return None;
            }
            edges.push(Edge::new(e.site, DefId::new(target, e.def), e.confidence));
        }
        let deps = s
            .deps
            .iter()
            .map(|&d| ids.get(d as usize).copied())
            .collect::<Option<Vec<_>>>()?;
        let fallback_names = s
            .fallback_names
            .iter()
            .map(|n| self.names.intern(n))
            .collect();
        Some(Resolution {
            edges: edges.into(),
            callees: thin_vec::ThinVec::new(),
            deps: deps.into(),
            fallback_names,
            external: s.external,
            external_sites: s.external_sites.as_slice().into(),
            unresolved_sites: s.unresolved_sites.as_slice().into(),
        })
    }
}

impl Graph {
    /// Lays rows another writer stored over this graph: files replaced or added with
    /// their stored resolutions, files removed, configs replaced. What a replica does to
    /// catch up with a newer graph version without resolving anything: the writer stored
    /// every file whose resolution changed.
    pub fn apply_stored(
        &mut self,
        changed: Vec<(FileFacts, StoredResolution)>,
        removed: &[String],
        configs: Option<Vec<(String, String)>>,
    ) {
        for path in removed {
            if let Some(f) = self.file_id(path) {
                let _ = self.drop_slot(f);
            }
        }
        let mut stored = Vec::with_capacity(changed.len());
        for (facts, resolution) in changed {
            let f = match self.file_id(&facts.path) {
                Some(f) => {
                    let _ = self.uninstall(f);
                    self.replace_source(f, facts);
                    f
                }
                None => self.insert_slot(facts),
            };
            stored.push((f, resolution));
        }
        if let Some(configs) = configs {
            self.resolver = Arc::new(super::modules::ModuleResolver::new(&configs));
            self.forget_declared();
            self.configs = Arc::new(configs.into_iter().collect());
        }
        self.retarget_all();
        // A replaced file's classes may name their templates anew with the same
        // targets: the writer resolved the templates; only the index is brought along.
        for (f, _) in &stored {
            let _ = self.refresh_hosts(*f, true);
        }
        let mut stale = Vec::new();
        for (f, s) in stored {
            match self.thaw(f, &s) {
                Some(r) => self.install(f, r),
                None => stale.push(f),
            }
        }
        let _ = self.resolve_and_install(&stale);
    }
}
