//! Object literals: bound to a name (a definition whose methods are definitions), or
//! typed by what they are passed to.

use tree_sitter::Node;

use super::FnCtx;
use crate::indexer::extract::fields::{Field, FieldExt};
use crate::indexer::extract::syntax::is_function_node;
use crate::indexer::extract::{Extractor, ThisCtx};
use crate::indexer::facts::*;

impl<'s> Extractor<'s> {
    /// An object literal bound to `name`: its function-valued properties and methods are
    /// definitions (`api.fetchUser`), its other properties are recorded values.
    pub(crate) fn object_literal(
        &mut self,
        node: Node<'s>,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> DefIdx {
        let stated = self.object_is.take();
        let def = self.new_def(DefKind::Object, name, container, node, name_node);
        self.names.push(def);
        let items = self.kids(node);
        for item in items {
            match item.kind_str() {
                "pair" => self.object_pair(item, def, stated, depth + 1),
                "method_definition" => {
                    self.function_is = self.stated_key(stated, item.field(Field::Name));
                    self.method(item, def, depth + 1);
                    self.function_is = None;
                }
                "shorthand_property_identifier" => {
                    let key = self.intern_node(item);
                    let value = self.reference(key);
                    self.add_prop(def, key, value);
                    self.tokens.leaf(item, self.src);
                }
                // `{ ...schemas, extra }`: the spread object's members are members of
                // this one (under a name no property can have).
                "spread_element" => {
                    if let Some(spread) = item.named_child(0) {
                        let value = self.expr_sym(spread);
                        let name = self.intern(SPREAD);
                        self.add_prop(def, name, value);
                    }
                    self.visit(item, depth + 1);
                }
                _ => self.visit(item, depth + 1),
            }
        }
        self.names.pop();
        def
    }

    /// Member `key` of `stated`, a value of the type an object literal is stated to be.
    fn stated_key(&mut self, stated: Option<SymId>, key: Option<Node<'s>>) -> Option<SymId> {
        let stated = stated?;
        let key = self.key_name(key?)?;
        Some(self.sym(Sym::Member(stated, key)))
    }

    /// `const x = { .. } satisfies T`: a value of `T`.
    pub(crate) fn satisfied_type(&mut self, value: Node<'s>) -> Option<SymId> {
        if value.kind_str() != "satisfies_expression" {
            return None;
        }
        let ty = value.named_child(1)?;
        self.value_of_type(ty, 0)
    }

    fn object_pair(&mut self, pair: Node<'s>, object: DefIdx, stated: Option<SymId>, depth: usize) {
        let key_node = pair.field(Field::Key);
        let value = pair.field(Field::Value);
        let key = key_node.and_then(|k| self.key_name(k));
        let children = self.kids(pair);
        for child in children {
            if Some(child) == key_node {
                self.property_key(child, depth + 1);
                continue;
            }
            if Some(child) != value {
                self.visit(child, depth + 1);
                continue;
            }
            let Some(key) = key else {
                self.visit(child, depth + 1);
                continue;
            };
            // Vue's `mixins: [a, b]`: each element is a prop of that name, so that a
            // component's options can take the members of each (see `component_def`).
            if child.kind_str() == "array" && self.facts.str(key) == "mixins" {
                for element in self.named_kids(child) {
                    if matches!(element.kind_str(), "identifier" | "member_expression") {
                        let sym = self.expr_sym(element);
                        self.add_prop(object, key, sym);
                    }
                }
                self.visit(child, depth + 1);
                continue;
            }
            // `{ Rule(rule) {} }` stated to be a `Plugin`: the function is the type's
            // `Rule`; a nested object is its member's type.
            let inner = super::variables::unwrap_wrappers(child).kind_str();
            let member = self.stated_key(stated, key_node);
            if is_function_node(inner) {
                self.function_is = member;
            } else if inner == "object" {
                self.object_is = member;
            }
            let bound = self.bound_value(child, key, Some(object), key_node, depth + 1);
            self.function_is = None;
            self.object_is = None;
            if let Some(def) = bound {
                let sym = self.sym(Sym::Def(def));
                self.add_prop(object, key, sym);
            } else {
                let sym = self.expr_sym(child);
                self.add_prop(object, key, sym);
                self.visit(child, depth + 1);
            }
        }
    }

    /// `key: value` in an object literal not bound to a name.
    pub(crate) fn pair(&mut self, pair: Node<'s>, depth: usize) {
        let key = pair.field(Field::Key);
        let stated = self.stated_member(pair, key);
        let value = pair.field(Field::Value);
        let children = self.kids(pair);
        for child in children {
            if Some(child) == key {
                self.property_key(child, depth + 1);
            } else if let (Some(stated), true) = (
                stated,
                Some(child) == value && is_function_node(child.kind_str()),
            ) {
                // The object's own pairs are done with it: nested objects are not it.
                let outer = self.object_arg.take();
                self.function_is = Some(stated);
                self.visit(child, depth + 1);
                self.function_is = None;
                self.object_arg = outer;
            } else if let (Some(stated), true) = (
                stated,
                Some(child) == value && matches!(child.kind_str(), "object" | "array"),
            ) {
                // `{ routes: [{ loader() {} }] }`: typed by the member of that name.
                self.stated_literal(child, stated, depth + 1);
            } else {
                self.visit(child, depth + 1);
            }
        }
    }

    /// `f({ key: (x) => ... })` or `f({ key(x) {} })`: the function is `key` of f's stated
    /// parameter type, when `item` is a property of the object passed to f.
    fn stated_member(&mut self, item: Node<'s>, key: Option<Node<'s>>) -> Option<SymId> {
        match (&self.object_arg, key) {
            (Some((items, ty)), Some(k)) if items.binary_search(&item.id()).is_ok() => {
                let ty = *ty;
                self.key_name(k).map(|name| self.sym(Sym::Member(ty, name)))
            }
            _ => None,
        }
    }

    /// An object or array literal whose type is stated elsewhere (`ty`, a value of
    /// it): `f({ loader(args) {} })`, `f([{ loader(args) {} }])`, `{ routes: [...] }`
    /// inside either. The functions in it take their parameters from that type.
    pub(crate) fn stated_literal(&mut self, node: Node<'s>, ty: SymId, depth: usize) {
        match node.kind_str() {
            "object" => {
                // Its own properties, found again by id: `Node::parent` searches down
                // from the root, a cost per property that grows with the file.
                let mut items: Vec<usize> = self.kids(node).iter().map(|p| p.id()).collect();
                items.sort_unstable();
                let outer = self.object_arg.replace((items, ty));
                self.visit(node, depth);
                self.object_arg = outer;
            }
            "array" => {
                let element = self.sym(Sym::Element(ty));
                let items = self.kids(node);
                for item in items {
                    let kind = item.kind_str();
                    if kind == "object" || kind == "array" {
                        self.stated_literal(item, element, depth + 1);
                    } else if is_function_node(kind) {
                        let outer = self.object_arg.take();
                        self.function_is = Some(element);
                        self.visit(item, depth + 1);
                        self.function_is = None;
                        self.object_arg = outer;
                    } else {
                        self.visit(item, depth + 1);
                    }
                }
            }
            _ => self.visit(node, depth),
        }
    }

    /// `{ key(x) {} }` in an object literal not bound to a name (classes and named
    /// objects make their methods definitions): a function whose parameters are its
    /// own, typed as the object's stated type says.
    pub(crate) fn object_method(&mut self, node: Node<'s>, depth: usize) {
        let stated = self.stated_member(node, node.field(Field::Name));
        // The object's own methods are done with it: nested objects are not it.
        let outer = self.object_arg.take();
        self.function_is = stated;
        self.function_like(
            node,
            FnCtx {
                def: None,
                this: Some(ThisCtx::Unknown),
            },
            depth,
        );
        self.function_is = None;
        self.object_arg = outer;
    }

    /// A property key: `'a'` hashes as `a` (prettier removes the quotes it does not need).
    fn property_key(&mut self, key: Node<'s>, depth: usize) {
        if key.kind_str() == "string" {
            let text = self.text(key);
            let inner = text.get(1..text.len().saturating_sub(1)).unwrap_or("");
            let mut chars = inner.chars();
            let identifier = chars
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
                && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$');
            if identifier {
                return self.tokens.synthetic(inner);
            }
        }
        self.visit(key, depth);
    }
}
