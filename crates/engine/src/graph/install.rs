//! Resolution bookkeeping: resolving files and moving their edges into the reverse
//! index (and their reads into the dependents and name-match indexes), and back out.

use std::sync::{Arc, LazyLock};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::resolve::{Resolution, Resolver};
use super::{Caller, DefId, Edge, FileId, Graph};

/// The resolution of a file not resolved yet: one allocation for every graph.
pub(crate) static NO_RESOLUTION: LazyLock<Arc<Resolution>> = LazyLock::new(Arc::default);

impl Graph {
    /// Resolves files that hold no resolution yet (a new graph's) and installs them:
    /// [`Self::resolve_and_install`] without taking out what is not there.
    pub(crate) fn resolve_new(&mut self, files: &[FileId]) {
        let results: Vec<(FileId, Resolution)> = files
            .par_iter()
            .map(|&f| (f, Resolver::new(self, f).resolve_file()))
            .collect();
        for (f, r) in results {
            self.install(f, r);
        }
    }

    /// Re-resolves `files`; returns those whose resolution changed, sorted.
    pub(crate) fn resolve_and_install(&mut self, files: &[FileId]) -> Vec<FileId> {
        let mut old: FxHashMap<FileId, Resolution> = FxHashMap::default();
        for &f in files {
            old.insert(f, self.uninstall(f));
        }
        let results: Vec<(FileId, Resolution)> = if files.len() > 8 {
            files
                .par_iter()
                .map(|&f| (f, Resolver::new(self, f).resolve_file()))
                .collect()
        } else {
            files
                .iter()
                .map(|&f| (f, Resolver::new(self, f).resolve_file()))
                .collect()
        };
        let mut changed = Vec::new();
        for (f, r) in results {
            if old.get(&f) != Some(&r) {
                changed.push(f);
            }
            self.install(f, r);
        }
        changed.sort();
        changed
    }

    /// Moves `r`'s edges into the reverse index, which keeps each callee's callers
    /// sorted by (file, site): a file's callers of one callee are one contiguous run.
    pub(crate) fn install(&mut self, f: FileId, mut r: Resolution) {
        let mut edges = std::mem::take(&mut r.edges);
        edges.sort_unstable_by_key(|e| (e.target, e.site()));
        let mut callees: Vec<DefId> = Vec::new();
        for run in edges.chunk_by(|a, b| a.target == b.target) {
            let target = run[0].target;
            callees.push(target);
            let list = self.callers_mut(target);
            let callers = run.iter().map(|e| Caller::new(f, e.site(), e.confidence()));
            let at = list.partition_point(|c| c.file < f);
            if at == list.len() {
                list.extend(callers);
            } else {
                list.splice(at..at, callers);
            }
        }
        r.callees = callees.into();
        r.unresolved_sites.shrink_to_fit();
        r.external_sites.shrink_to_fit();
        for &d in &r.deps {
            let set = self
                .dependents
                .get_mut(d.0 as usize)
                .get_or_insert_default();
            Arc::make_mut(set).insert(f);
        }
        for &n in &r.fallback_names {
            self.fallback_users.entry(n).insert(f);
        }
        self.slot_mut(f).resolution = Arc::new(r);
    }

    /// Takes `f`'s edges out of the reverse index (and its reads out of the other
    /// indexes); returns its resolution with its edges, as the resolver made it.
    pub(crate) fn uninstall(&mut self, f: FileId) -> Resolution {
        let r = std::mem::replace(&mut self.slot_mut(f).resolution, NO_RESOLUTION.clone());
        let mut r = Arc::unwrap_or_clone(r);
        let mut edges = Vec::new();
        for t in std::mem::take(&mut r.callees) {
            if self.callers(t).is_empty() {
                continue;
            }
            let list = self.callers_mut(t);
            let run = file_run(list, f);
            edges.extend(
                list.drain(run)
                    .map(|c| Edge::new(c.site(), t, c.confidence())),
            );
            if list.is_empty() {
                // What the entry of a callee nobody calls any more held.
                *list = Vec::new();
            }
        }
        edges.sort_unstable_by_key(|e| (e.site(), e.target));
        r.edges = edges.into();
        for d in &r.deps {
            // A fork copies a set only where it holds `f`.
            let i = d.0 as usize;
            if matches!(self.dependents.get(i), Some(Some(set)) if set.contains(&f)) {
                if let Some(set) = self.dependents.get_mut(i) {
                    Arc::make_mut(set).remove(&f);
                }
            }
        }
        for n in &r.fallback_names {
            if self
                .fallback_users
                .get(n)
                .is_some_and(|set| set.contains(&f))
            {
                if let Some(set) = self.fallback_users.get_mut(n) {
                    set.remove(&f);
                }
            }
        }
        r
    }

    /// The callers of `d`, to write to.
    fn callers_mut(&mut self, d: DefId) -> &mut Vec<Caller> {
        let lists = self
            .callers
            .get_mut(d.file.0 as usize)
            .get_or_insert_default();
        let lists = Arc::make_mut(lists);
        let i = d.def as usize;
        if i >= lists.len() {
            lists.resize_with(i + 1, Vec::new);
        }
        &mut lists[i]
    }
}

/// Where `f`'s callers are in a callee's caller list (sorted by file).
pub(crate) fn file_run(list: &[Caller], f: FileId) -> std::ops::Range<usize> {
    list.partition_point(|c| c.file < f)..list.partition_point(|c| c.file <= f)
}
