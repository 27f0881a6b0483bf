//! What a module gives its importers: import values, `require`, named exports followed
//! through re-exports and `export *`, and CommonJS `module.exports`.

use smallvec::SmallVec;

use super::{Resolver, Vals, Value, MAX_DEPTH};
use crate::graph::interner::NameId;
use crate::graph::{DefId, FileId, Target};
use crate::indexer::facts::*;

impl Resolver<'_> {
    pub(super) fn import_value(&mut self, f: FileId, import: Import, depth: u32, out: &mut Vals) {
        // A module some file declares (`declare module 'x' { ... }`): TypeScript reads
        // that declaration before looking for a file. A name it does not declare (the
        // block only augments the module: `declare module 'express' { interface
        // Request ... }`) comes from where the specifier leads. Recorded as a read of
        // the name, so a file that starts (or stops) declaring the module re-resolves
        // this one.
        //
        // A block in a module (a file that imports or exports) is an augmentation, not a
        // declaration: TypeScript merges it into the module the specifier leads to
        // (`declare module '@tiptap/core' { interface Editor {..} }` beside the
        // package's own `class Editor`). Where that module is a file of the repository,
        // the block's names are added to the file's, never put in their place.
        let specifier = NameId(import.specifier);
        let target = self.target(f, import.specifier);
        if !is_relative(self.g.names.resolve(specifier)) {
            self.global_reads.insert(specifier);
            let mut blocks: SmallVec<[DefId; 4]> = self.g.ambient_modules(specifier).collect();
            let in_repository = matches!(target, Target::File(_) | Target::Typed(..));
            let augments = in_repository && !blocks.is_empty();
            if augments {
                let (augmentations, declarations): (SmallVec<[DefId; 4]>, SmallVec<[DefId; 4]>) =
                    blocks
                        .iter()
                        .copied()
                        .partition(|d| self.g.slot(d.file).index().is_module);
                if declarations.is_empty() {
                    if let ImportKind::Named(n) = import.kind {
                        for d in augmentations {
                            self.def_member(d, NameId(n), true, depth + 1, out);
                        }
                    }
                    blocks.clear();
                } else {
                    blocks = declarations;
                }
            }
            if !blocks.is_empty() {
                let before = out.len();
                // `export = X` in the declaration: X is the module, whole.
                if !matches!(import.kind, ImportKind::Named(_)) {
                    if let Some(assigned) = self.g.names.get(EXPORT_ASSIGNED) {
                        for &d in &blocks {
                            self.def_member(d, assigned, true, depth + 1, out);
                        }
                    }
                    if out.len() > before {
                        return;
                    }
                }
                for d in blocks {
                    match import.kind {
                        ImportKind::Named(n) => self.def_member(d, NameId(n), true, depth + 1, out),
                        ImportKind::Default | ImportKind::Template(_) => {
                            if let Some(default) = self.g.names.get("default") {
                                self.def_member(d, default, true, depth + 1, out);
                            }
                        }
                        ImportKind::Namespace | ImportKind::TypeNamespace | ImportKind::Require => {
                            Self::push(out, Value::Def(d))
                        }
                    }
                }
                // A whole module declared here for a package outside the repository may
                // only add to it (its other members stay the package's); one the
                // repository holds is what the declaration says.
                let whole = matches!(
                    import.kind,
                    ImportKind::Namespace | ImportKind::TypeNamespace | ImportKind::Require
                );
                let outside = matches!(target, Target::External | Target::Unresolved);
                if out.len() > before && !(whole && outside) {
                    return;
                }
            }
        }
        let t = match target {
            Target::File(t) | Target::Typed(t, _) => t,
            Target::External => return Self::push(out, Value::External),
            Target::Unresolved => return,
        };
        self.module_value(t, import.kind, depth, out);
    }

    /// What importing `t` with `kind` gives.
    fn module_value(&mut self, t: FileId, kind: ImportKind, depth: u32, out: &mut Vals) {
        match kind {
            ImportKind::Named(n) => self.export_lookup(t, NameId(n), depth + 1, out),
            // A template file's default export is its definition.
            ImportKind::Default | ImportKind::Template(_) => {
                let default = self.g.names.get("default");
                let before = out.len();
                if let Some(default) = default {
                    self.export_lookup(t, default, depth + 1, out);
                }
                if out.len() == before {
                    self.commonjs_value(t, depth + 1, out);
                }
            }
            ImportKind::Namespace | ImportKind::TypeNamespace => Self::push(out, Value::Module(t)),
            ImportKind::Require => self.commonjs_value(t, depth + 1, out),
        }
    }

    /// What `require(t)` returns: `module.exports` if assigned, else the namespace.
    /// A file that assigns `module.exports` and also `exports.x = ...` (express's
    /// `exports = module.exports = createApplication; exports.Router = Router`) gives
    /// both: the members of its `module.exports` value and its named exports.
    pub(super) fn commonjs_value(&mut self, t: FileId, depth: u32, out: &mut Vals) {
        let facts = self.facts(t);
        match facts.module_exports {
            Some(m) => {
                self.eval(t, m, depth + 1, out);
                if !facts.exports.is_empty() {
                    Self::push(out, Value::Module(t));
                }
            }
            None => Self::push(out, Value::Module(t)),
        }
    }

    /// What module `t` exports as `name`.
    pub(super) fn export_lookup(&mut self, t: FileId, name: NameId, depth: u32, out: &mut Vals) {
        if depth > MAX_DEPTH || !self.step() {
            return;
        }
        if self.export_nesting == 0 {
            self.export_visited.clear();
        }
        if !self.export_visited.insert((t, name)) {
            return;
        }
        self.export_nesting += 1;
        self.export_lookup_once(t, name, depth, out);
        self.export_nesting -= 1;
    }

    fn export_lookup_once(&mut self, t: FileId, name: NameId, depth: u32, out: &mut Vals) {
        let facts = self.facts(t);
        let index = self.index(t);
        let before = out.len();
        {
            for e in index.exports.get(&name) {
                match facts.exports[e as usize].value {
                    ExportValue::Local(sym) => self.eval(t, sym, depth + 1, out),
                    ExportValue::From { specifier, kind } => match self.target(t, specifier) {
                        Target::File(next) | Target::Typed(next, _) => {
                            self.module_value(next, kind, depth + 1, out)
                        }
                        Target::External => Self::push(out, Value::External),
                        Target::Unresolved => {}
                    },
                    ExportValue::Star { .. } => {}
                }
            }
        }
        if out.len() > before {
            return;
        }
        if self.g.names.resolve(name) != "default" {
            for &spec in index.stars.iter() {
                match self.target(t, spec) {
                    Target::File(next) | Target::Typed(next, _) => {
                        self.export_lookup(next, name, depth + 1, out)
                    }
                    Target::External => Self::push(out, Value::External),
                    Target::Unresolved => {}
                }
                if out.len() > before {
                    return;
                }
            }
        }
        // CommonJS: `module.exports = { name }` or `module.exports = obj`.
        if let Some(m) = facts.module_exports {
            let mut bases = Vals::new();
            self.eval(t, m, depth + 1, &mut bases);
            let default = self.g.names.resolve(name) == "default";
            for b in bases {
                if b != Value::Module(t) {
                    let start = out.len();
                    self.member(b, name, depth + 1, out);
                    // `export = class extends Error {}`: a `default` only the platform
                    // base could have is none, and a default import is the class.
                    if default && out[start..].iter().all(|v| v.is_outside()) {
                        out.truncate(start);
                    }
                }
            }
        }
    }
}

/// `./x`, `../x`: a path, never the name of a declared module.
fn is_relative(specifier: &str) -> bool {
    specifier.starts_with("./")
        || specifier.starts_with("../")
        || specifier == "."
        || specifier == ".."
}
