//! What a module gives its importers: import values, `require`, named exports followed
//! through re-exports and `export *`, and CommonJS `module.exports`.

use super::{Resolver, Vals, Value, MAX_DEPTH};
use crate::graph::interner::NameId;
use crate::graph::{FileId, Target};
use crate::indexer::facts::*;

impl Resolver<'_> {
    pub(super) fn import_value(&mut self, f: FileId, import: Import, depth: u32, out: &mut Vals) {
        let target = self.target(f, import.specifier);
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
            ImportKind::Default => {
                let default = self.g.names.get("default");
                let before = out.len();
                if let Some(default) = default {
                    self.export_lookup(t, default, depth + 1, out);
                }
                if out.len() == before {
                    self.commonjs_value(t, depth + 1, out);
                }
            }
            ImportKind::Namespace => Self::push(out, Value::Module(t)),
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
            for b in bases {
                if b != Value::Module(t) {
                    self.member(b, name, depth + 1, out);
                }
            }
        }
    }
}
