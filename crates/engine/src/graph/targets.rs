//! Where each import specifier of a file leads, with the file set as it is now.

use std::sync::{Arc, LazyLock};

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::modules::ModuleTarget;
use super::{FileId, Graph};
use crate::indexer::facts::*;

/// Where an import specifier of a file leads, with the file set as it is now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    File(FileId),
    /// A JavaScript file with a declaration file beside it (`index.js` and `index.d.ts`),
    /// or a package's code entry imported by the package's name or directory where its
    /// `types` name another file: the code, and the types TypeScript reads for it instead.
    Typed(FileId, FileId),
    External,
    Unresolved,
}

/// A file's targets, by specifier (a local string id).
pub(crate) type Targets = FxHashMap<StrId, Target>;

/// The targets of a file that imports nothing (or is not targeted yet): one
/// allocation for every graph.
pub(crate) static NO_TARGETS: LazyLock<Arc<Targets>> = LazyLock::new(Arc::default);

impl Graph {
    /// Where each specifier of `f` leads with the current file set.
    pub(crate) fn targets_of(&self, f: FileId) -> Targets {
        let facts = self.facts(f);
        let exists = |p: &str| self.by_path.contains(p);
        let specifiers =
            facts
                .imports
                .iter()
                .map(|i| i.specifier)
                .chain(facts.exports.iter().filter_map(|e| match e.value {
                    ExportValue::From { specifier, .. } | ExportValue::Star { specifier } => {
                        Some(specifier)
                    }
                    ExportValue::Local(_) => None,
                }));
        let mut targets = FxHashMap::default();
        for spec in specifiers {
            targets.entry(spec).or_insert_with(|| {
                match self.resolver.resolve(&facts.path, facts.str(spec), &exists) {
                    ModuleTarget::File(p) => match self.file_id(p.as_str()) {
                        Some(t) => match self
                            .declarations_beside(&p)
                            .or_else(|| self.declared_entry(&facts.path, facts.str(spec), &p))
                        {
                            Some(d) => Target::Typed(t, d),
                            None => Target::File(t),
                        },
                        None => Target::Unresolved,
                    },
                    ModuleTarget::External(_) => Target::External,
                    ModuleTarget::Unresolved => Target::Unresolved,
                }
            });
        }
        targets
    }

    /// Sets the targets of `f`. Returns the template files whose component classes
    /// changed with them (see `templates`): theirs are to be resolved again.
    pub(crate) fn set_targets(
        &mut self,
        f: FileId,
        targets: Targets,
    ) -> smallvec::SmallVec<[FileId; 2]> {
        self.forget_declared_if_read(f);
        self.slot_mut(f).targets = Arc::new(targets);
        self.refresh_hosts(f, true)
    }

    /// The declaration file TypeScript reads for a JavaScript file, if there is one
    /// (`x.js` → `x.d.ts`, `x.mjs` → `x.d.mts`, `x.cjs` → `x.d.cts`).
    pub(crate) fn declarations_beside(&self, path: &str) -> Option<FileId> {
        let (base, ext) = path.rsplit_once('.')?;
        let declarations = match ext {
            "js" | "jsx" => "d.ts",
            "mjs" => "d.mts",
            "cjs" => "d.cts",
            _ => return None,
        };
        self.file_id(&format!("{base}.{declarations}"))
    }

    /// The declaration entry TypeScript reads where `specifier` names a package whose
    /// code entry is `code` and whose declarations start elsewhere (`types/index.d.ts`
    /// for `lib/index.js`).
    fn declared_entry(&self, importer: &str, specifier: &str, code: &str) -> Option<FileId> {
        let exists = |p: &str| self.by_path.contains(p);
        match self
            .resolver
            .declared_entry_of(importer, specifier, &exists)
        {
            Some((declared, entry)) if entry == code => self.file_id(&declared),
            _ => None,
        }
    }

    /// Recomputes every file's import targets; returns the files whose resolution may
    /// change as a result (those whose targets changed, and their dependents).
    pub(crate) fn retarget_all(&mut self) -> FxHashSet<FileId> {
        let ids: Vec<FileId> = self.file_ids().collect();
        let new: Vec<(FileId, Targets)> =
            ids.par_iter().map(|&f| (f, self.targets_of(f))).collect();
        let mut changed = FxHashSet::default();
        let mut templates = Vec::new();
        for (f, targets) in new {
            if *self.slot(f).targets != targets {
                templates.extend(self.set_targets(f, targets));
                changed.insert(f);
            }
        }
        let mut dirty = changed.clone();
        dirty.extend(templates);
        for f in changed {
            dirty.extend(self.dependents_of(f));
        }
        dirty
    }
}
