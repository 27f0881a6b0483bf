//! Components a Vue template uses without importing them: registered for the whole app.
//!
//! Vue resolves a tag no script binds among the app's global components. Their
//! declarations are what vue-tsc reads: the `GlobalComponents` interface of
//! `declare module 'vue'` (or `@vue/runtime-core`), which unplugin-vue-components
//! generates (`components.d.ts`) and libraries write by hand, each member typed
//! `typeof import('./Button.vue')['default']`. A tag is a member of that interface, by
//! its name as written or in PascalCase (the template's `<base-button>` is read as
//! `BaseButton` already).

use super::{Resolver, Vals, Value};
use crate::graph::interner::NameId;
use crate::graph::FileId;
use crate::indexer::facts::*;
use crate::indexer::language::Language;

/// The modules whose `GlobalComponents` interface Vue's types read.
const AUGMENTED: [&str; 3] = ["vue", "@vue/runtime-core", "@vue/runtime-dom"];

impl Resolver<'_> {
    /// The values of a tag of file `f`'s template that names no binding (`callee` is a
    /// global): the members of that name of every `GlobalComponents` the repository
    /// declares. Nothing for files that are not Vue components.
    pub(super) fn global_component(&mut self, f: FileId, site: &CallSite, out: &mut Vals) {
        let facts = self.g.slot(f).facts();
        if site.kind != CallKind::Jsx || facts.language != Some(Language::Vue) {
            return;
        }
        let Sym::Global(name) = facts.sym(site.callee) else {
            return;
        };
        let Some(interface) = self.g.names.get("GlobalComponents") else {
            return;
        };
        for module in AUGMENTED {
            let Some(specifier) = self.g.names.get(module) else {
                continue;
            };
            // Read again when a file declares that module (or stops declaring it).
            self.global_reads.insert(specifier);
            let blocks: Vec<_> = self.g.ambient_modules(specifier).collect();
            for block in blocks {
                let mut interfaces = Vals::new();
                self.def_member(block, interface, false, 1, &mut interfaces);
                for i in interfaces {
                    let as_instance = match i {
                        Value::Def(d) => Value::Instance(d),
                        other => other,
                    };
                    let mut found = Vals::new();
                    self.member(as_instance, NameId(name), 1, &mut found);
                    for v in found {
                        // A member typed `typeof import('./X.vue')['default']` is read as
                        // a value of that type: the component itself.
                        let v = match v {
                            Value::Instance(d)
                                if self.facts(d.file).def(d.def).kind == DefKind::Component =>
                            {
                                Value::Def(d)
                            }
                            other => other,
                        };
                        Self::push(out, v);
                    }
                }
            }
        }
    }
}
