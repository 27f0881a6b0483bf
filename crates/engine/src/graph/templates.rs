//! Angular templates and the component classes that name them.
//!
//! A class's `@Component({ templateUrl: './x.html' })` is known in the class's file (a
//! [`ImportKind::Template`] import of the template, with the class); the template file
//! knows nothing of it, so its bindings call members of [`Sym::Host`]: "the component
//! whose template I am". This index answers that question, from the imports' targets:
//! template file → the classes whose `templateUrl` leads to it. It is kept with the
//! targets: whenever a file's targets are set or it is dropped, what it names is
//! recomputed, and the template files whose classes changed are handed back to be
//! re-resolved (a class that starts or stops naming a template is no edit of the
//! template). A template's resolution reads its classes' files, so an edit to a class
//! re-resolves it as any dependent.
//!
//! [`ImportKind::Template`]: crate::indexer::facts::ImportKind::Template
//! [`Sym::Host`]: crate::indexer::facts::Sym::Host

use std::sync::Arc;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::{DefId, FileId, Graph, Target};
use crate::indexer::facts::*;

/// Which classes name which template files.
#[derive(Clone, Debug, Default)]
pub(crate) struct Hosts {
    /// Template file → the classes whose `templateUrl` leads to it, sorted.
    by_template: FxHashMap<FileId, SmallVec<[DefId; 1]>>,
    /// File → the template files its classes name.
    by_owner: FxHashMap<FileId, SmallVec<[FileId; 1]>>,
}

impl Hosts {
    /// Heap bytes of the two maps (their entries' inline vectors included).
    pub(crate) fn heap_bytes(&self) -> usize {
        let entry = |key: usize, value: usize| key + value + 1;
        self.by_template.capacity()
            * entry(
                std::mem::size_of::<FileId>(),
                std::mem::size_of::<SmallVec<[DefId; 1]>>(),
            )
            + self.by_owner.capacity()
                * entry(
                    std::mem::size_of::<FileId>(),
                    std::mem::size_of::<SmallVec<[FileId; 1]>>(),
                )
            + self
                .by_template
                .values()
                .filter(|v| v.spilled())
                .map(|v| v.capacity() * std::mem::size_of::<DefId>())
                .sum::<usize>()
            + self
                .by_owner
                .values()
                .filter(|v| v.spilled())
                .map(|v| v.capacity() * std::mem::size_of::<FileId>())
                .sum::<usize>()
    }
}

impl Graph {
    /// The component classes whose `templateUrl` leads to `template`.
    pub(crate) fn hosts_of(&self, template: FileId) -> impl Iterator<Item = DefId> + '_ {
        self.hosts
            .by_template
            .get(&template)
            .into_iter()
            .flatten()
            .copied()
    }

    /// Recomputes which templates the classes of `f` name, from its facts and targets
    /// as they are now (nothing when `f` is gone). Returns the live template files whose
    /// classes changed.
    pub(crate) fn refresh_hosts(&mut self, f: FileId, live: bool) -> SmallVec<[FileId; 2]> {
        let mut named: SmallVec<[(FileId, DefId); 1]> = SmallVec::new();
        if live {
            let slot = self.slot(f);
            for import in &slot.facts().imports {
                if let ImportKind::Template(class) = import.kind {
                    if let Target::File(t) | Target::Typed(t, _) = slot.target(import.specifier) {
                        named.push((t, DefId::new(f, class)));
                    }
                }
            }
        }
        let old = self.hosts.by_owner.get(&f).cloned().unwrap_or_default();
        let mut changed = SmallVec::new();
        if old.is_empty() && named.is_empty() {
            return changed;
        }
        let hosts = Arc::make_mut(&mut self.hosts);
        let mut touched: SmallVec<[FileId; 2]> = old.iter().copied().collect();
        touched.extend(named.iter().map(|(t, _)| *t));
        touched.sort_unstable();
        touched.dedup();
        for &t in &touched {
            let list = hosts.by_template.entry(t).or_default();
            let before = list.clone();
            list.retain(|d| d.file != f);
            list.extend(named.iter().filter(|(n, _)| *n == t).map(|(_, d)| *d));
            list.sort_unstable();
            list.dedup();
            if *list != before {
                changed.push(t);
            }
            if list.is_empty() {
                hosts.by_template.remove(&t);
            }
        }
        let mut templates: SmallVec<[FileId; 1]> = named.iter().map(|(t, _)| *t).collect();
        templates.sort_unstable();
        templates.dedup();
        if templates.is_empty() {
            hosts.by_owner.remove(&f);
        } else {
            hosts.by_owner.insert(f, templates);
        }
        changed.retain(|t| self.files.get(t.0 as usize).is_some_and(|s| s.is_some()));
        changed
    }
}
