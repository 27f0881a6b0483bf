//! What functions return: `return` statements, and the literals a factory returns, which
//! are definitions named after it.

use tree_sitter::Node;

use crate::indexer::extract::fields::{Field, FieldExt};
use crate::indexer::extract::syntax::{is_class_node, is_function_node};
use crate::indexer::extract::{Extractor, MAX_DEPTH};
use crate::indexer::facts::*;

impl<'s> Extractor<'s> {
    /// Records what a function without a stated return type returns: the first `return`
    /// whose value is knowable (`return new Router()`, `return make()`, `return api`).
    /// A returned object literal becomes a definition (`createApi().fetchUser`), so
    /// factories' results resolve like the objects they are.
    pub(crate) fn infer_return(&mut self, def: DefIdx, value: Node<'s>) {
        if !self.may_add_return(def) {
            return;
        }
        let sym = self.expr_sym(value);
        if !matches!(self.facts.sym(sym), Sym::Unknown) {
            self.add_return(def, sym);
        }
    }

    /// Most functions return one kind of thing; a factory may return one of a few
    /// (`if (spa) return { requestDocument() {..} }; ...; return { requestDocument }`),
    /// and TypeScript's type is their union. Past three, the rest are not recorded.
    fn may_add_return(&self, def: DefIdx) -> bool {
        let mut returns = self.facts.def(def).returns();
        let mut count = 0;
        while let Some(r) = returns {
            count += 1;
            returns = match self.facts.syms.get(r) {
                Some(Sym::Either(first, _)) => Some(first),
                _ => None,
            };
        }
        count < 3
    }

    /// Records one more thing `def` returns (see [`Self::may_add_return`]).
    fn add_return(&mut self, def: DefIdx, sym: SymId) {
        let returns = self.one_more(self.facts.def(def).returns(), sym);
        self.def_mut(def).set_returns(Some(returns));
    }

    /// `return <expr>` inside a definition.
    pub(crate) fn return_statement(&mut self, node: Node<'s>, depth: usize) {
        // `return f()` where a type is stated: what becomes of `f`'s result if it turns
        // into a promise (see `shapes`).
        let typed = self.begin_typed_return(node);
        let target = self.returns_to.last().copied().flatten();
        let value = node.named_child(0).filter(|v| v.kind_str() != "comment");
        match (target, value) {
            (Some(def), Some(value))
                if value.kind_str() == "object" && self.may_add_return(def) =>
            {
                self.walk_around(node, value, depth, |ex, value| {
                    let label = format!("{}()", ex.facts.def_name(def));
                    let name = ex.intern(&label);
                    ex.name_next_after_call_of(def);
                    ex.object_is = ex.stated_return();
                    let object = ex.object_literal(value, name, None, None, depth + 1);
                    ex.object_is = None;
                    let sym = ex.sym(Sym::Def(object));
                    ex.add_return(def, sym);
                });
            }
            (Some(def), Some(value))
                if (is_function_node(value.kind_str()) || is_class_node(value.kind_str()))
                    && self.may_add_return(def) =>
            {
                self.walk_around(node, value, depth, |ex, v| {
                    ex.returned_literal(def, v, depth + 1)
                });
            }
            (Some(def), Some(value)) => {
                self.visit_children(node, depth);
                self.infer_return(def, value);
            }
            (None, Some(value)) if is_function_node(value.kind_str()) => {
                self.return_anonymous_literal(node, depth)
            }
            // `return { Once(root) {} }` from a function whose result is stated (and
            // that is no definition): the object is of that type.
            (None, Some(value))
                if value.kind_str() == "object" && self.stated_return().is_some() =>
            {
                self.return_stated_object(node, value, depth)
            }
            _ => self.visit_children(node, depth),
        }
        self.end_typed_uses(typed);
    }

    /// `return (c, next) => ...` from a function that is no definition: the literal is
    /// walked as it is, typed by the stated return type. Apart, so that
    /// `return_statement`'s frame stays small (it recurses through object literals).
    #[inline(never)]
    fn return_anonymous_literal(&mut self, node: Node<'s>, depth: usize) {
        self.function_is = self.stated_return();
        self.visit_children(node, depth);
        self.function_is = None;
    }

    /// `return { .. }` (or an arrow's `({ .. })`) from a function whose result a type
    /// states: the object is of that type. Apart, as `return_anonymous_literal` is.
    #[inline(never)]
    pub(super) fn return_stated_object(&mut self, node: Node<'s>, object: Node<'s>, depth: usize) {
        match self.stated_return() {
            Some(ty) => self.walk_around(node, object, depth, |ex, v| {
                ex.stated_literal(v, ty, depth + 1)
            }),
            None => self.visit_children(node, depth),
        }
    }

    /// A function's stated return type, noted for the function literals it returns.
    #[inline(never)]
    pub(super) fn stated_return_type(&mut self, annotation: Node<'s>) -> Option<SymId> {
        let returns = self.return_type(annotation);
        if let Some(top) = self.stated_returns.last_mut() {
            *top = returns;
        }
        returns
    }

    /// The stated return type of the function being walked, if it states one.
    pub(super) fn stated_return(&self) -> Option<SymId> {
        self.stated_returns.last().copied().flatten()
    }

    /// A function or class that a definition returns (`return function createSlice() {}`,
    /// `() => (state) => ...`) is a definition too: what the factory's result calls.
    /// It is named by its own name, else after the factory (`makeSelector()`).
    pub(crate) fn returned_literal(&mut self, def: DefIdx, value: Node<'s>, depth: usize) {
        // Each level costs what a function handler's frames cost (see `handler`); past
        // the limit the plain walk cuts the subtree.
        let depth = depth + 4;
        if depth >= MAX_DEPTH {
            return self.visit(value, depth);
        }
        let name = match value.field(Field::Name) {
            Some(n) => self.intern_node(n),
            None => {
                let label = format!("{}()", self.facts.def_name(def));
                // Named after the call that makes it: `makeSelector()`, not nested in it.
                self.name_next_after_call_of(def);
                self.intern(&label)
            }
        };
        let inner = if is_class_node(value.kind_str()) {
            self.class(value, name, None, value.field(Field::Name), depth)
        } else {
            // What the factory states it returns is what this function is: its
            // parameters take their types from it.
            self.function_is = self.stated_return();
            self.bound_function(
                value,
                DefKind::Function,
                name,
                None,
                value.field(Field::Name),
                depth,
            )
        };
        let sym = self.sym(Sym::Def(inner));
        self.add_return(def, sym);
    }

    /// The next definition made (a literal `def` returns) is qualified as the result of
    /// calling `def` (`makeSelector()`), and its members under that name. Named before
    /// it is walked, never renamed after: a rename would rescan the file's definitions
    /// at each level of nested factories (`() => () => ...`), quadratic in time, and
    /// keep every renamed copy in the string table.
    fn name_next_after_call_of(&mut self, def: DefIdx) {
        let qualified = format!("{}()", self.facts.def_qualified(def));
        self.next_qualified = Some(self.intern(&qualified));
    }
}
