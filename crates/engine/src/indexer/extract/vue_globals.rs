//! Vue's global components, registered in code: `app.component('BaseButton', BaseButton)`
//! (Vue 3) or `Vue.component('base-button', BaseButton)` (Vue 2) makes the component
//! usable in every template of the app without an import.
//!
//! A registration is recorded as what it declares, in the form vue-tsc reads and
//! unplugin-vue-components writes: a member of the `GlobalComponents` interface of
//! module `vue` (an ambient module block of this file, `vue.GlobalComponents`). The
//! resolver looks a template's unbound tags up there (`graph/resolve/global_components`),
//! whichever file declares them, so one rule serves the declaration files and the code.

use tree_sitter::Node;

use super::calls::string_literal;
use super::fields::{Field, FieldExt};
use super::Extractor;
use crate::indexer::component::pascal_case;
use crate::indexer::facts::*;

impl<'s> Extractor<'s> {
    /// `x.component('Name', Component)`: a global registration, if the name is a
    /// literal and the component a name (`x.component('Name')` reads one; an options
    /// object is no component file).
    pub(crate) fn global_registration(&mut self, call: Node<'s>, callee: Node<'s>, args: Node<'s>) {
        if callee.kind_str() != "member_expression"
            || callee.field(Field::Property).map(|p| self.text(p)) != Some("component")
            || args.named_child_count() != 2
        {
            return;
        }
        let (Some(name), Some(value)) = (args.named_child(0), args.named_child(1)) else {
            return;
        };
        if !matches!(value.kind_str(), "identifier" | "member_expression") {
            return;
        }
        let Some(registered) = string_literal(name, self.src).and_then(|n| pascal_case(&n)) else {
            return;
        };
        let interface = match self.vue_global_components {
            Some(i) => i,
            None => {
                let module = self.intern("vue");
                self.next_qualified = Some(module);
                let block = self.new_def(DefKind::Object, module, None, call, None);
                self.def_mut(block).reach = Reach::AmbientModule;
                let interface = self.intern("GlobalComponents");
                let i = self.new_def(DefKind::Interface, interface, Some(block), name, None);
                self.vue_global_components = Some(i);
                i
            }
        };
        let key = self.intern(&registered);
        let sym = self.expr_sym(value);
        self.add_prop(interface, key, sym);
    }
}
