//! Classes: declarations and expressions, their heritage, methods and fields.

use tree_sitter::Node;

use super::FnCtx;
use crate::indexer::extract::fields::{Field, FieldExt};
use crate::indexer::extract::syntax::{heritage_value, implemented_types, is_function_node};
use crate::indexer::extract::{Extractor, ScopeKind, ThisCtx};
use crate::indexer::facts::*;

impl<'s> Extractor<'s> {
    pub(crate) fn class_declaration(&mut self, node: Node<'s>, depth: usize) {
        let name_node = node.field(Field::Name);
        let name = match name_node {
            Some(n) => self.intern_node(n),
            None => self.intern("default"),
        };
        let container = self.namespace;
        let def = self.class(node, name, container, name_node, depth);
        let value = self.sym(Sym::Def(def));
        self.declare(name, value, false);
    }

    pub(crate) fn anonymous_class(&mut self, node: Node<'s>, depth: usize) {
        let name_node = node.field(Field::Name);
        let name = match name_node {
            Some(n) => self.intern_node(n),
            None => self.intern("<class>"),
        };
        self.class(node, name, None, name_node, depth);
    }

    /// A class (declaration or expression) named `name`.
    pub(crate) fn class(
        &mut self,
        node: Node<'s>,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> DefIdx {
        let def = self.new_def(DefKind::Class, name, container, node, name_node);
        // A class expression's own name is visible inside it.
        self.push_scope(ScopeKind::Block);
        if let Some(n) = node.field(Field::Name) {
            let own = self.intern_node(n);
            let value = self.sym(Sym::Def(def));
            self.declare(own, value, false);
        }
        self.callers.push(def);
        self.names.push(def);
        self.this.push(ThisCtx::Of(def));
        let namespace = self.namespace.take();

        let mut signature = Vec::new();
        let mut body_hash = 0;
        for child in self.class_children(node) {
            match child.kind_str() {
                "decorator" => {
                    let start = self.tokens.mark();
                    self.visit(child, depth + 1);
                    signature.push((start, self.tokens.mark()));
                    self.angular_component(child, def);
                }
                "class_heritage" => {
                    let start = self.tokens.mark();
                    self.class_heritage(child, def);
                    self.visit(child, depth + 1);
                    signature.push((start, self.tokens.mark()));
                }
                "type_parameters" => {
                    self.declare_type_parameters(child);
                    let start = self.tokens.mark();
                    self.visit(child, depth + 1);
                    signature.push((start, self.tokens.mark()));
                }
                "class_body" => {
                    let start = self.tokens.mark();
                    self.class_body(child, def, depth + 1);
                    body_hash = self.tokens.hash_since(start);
                }
                _ => self.visit(child, depth + 1),
            }
        }
        let signature_hash = self.tokens.hash_ranges(&signature, 0);
        let d = self.def_mut(def);
        d.signature_hash = signature_hash;
        d.body_hash = body_hash;

        self.namespace = namespace;
        self.this.pop();
        self.names.pop();
        self.callers.pop();
        self.pop_scope();
        def
    }

    /// A class's children, after the decorators of `@Component(...) export class X`,
    /// which belong to the export statement.
    fn class_children(&self, node: Node<'s>) -> Vec<Node<'s>> {
        let mut children: Vec<Node<'s>> = match node.parent() {
            Some(p) if p.kind_str() == "export_statement" => {
                let mut decorators = self.kids(p).into_vec();
                decorators.retain(|c| c.kind_str() == "decorator");
                decorators
            }
            _ => Vec::new(),
        };
        children.extend(self.kids(node));
        children
    }

    /// The names passed to a call in an `extends` clause (`Mixin(Base)`,
    /// `Mixin(Base<T>)`), as one value; None when it is no call or passes none.
    fn classes_passed(&mut self, e: Node<'s>) -> Option<SymId> {
        if e.kind_str() != "call_expression" {
            return None;
        }
        let arguments = e.field(Field::Arguments)?;
        let mut given = None;
        for a in self.named_kids(arguments) {
            let a = match a.kind_str() {
                "instantiation_expression" => a.named_child(0)?,
                _ => a,
            };
            if !matches!(a.kind_str(), "identifier" | "member_expression") {
                continue;
            }
            let sym = self.expr_sym(a);
            given = Some(self.one_more(given, sym));
        }
        given
    }

    /// What the class `def` extends and implements.
    fn class_heritage(&mut self, heritage: Node<'s>, def: DefIdx) {
        if let Some(e) = heritage_value(heritage) {
            let mut sym = self.expr_sym(e);
            // `extends createCollectionMixin(CommonMethods)`: a mixin, whose class
            // extends the class it is given. The classes passed follow what the call
            // returns (see `inherited_member`).
            if let Some(given) = self.classes_passed(e) {
                sym = self.sym(Sym::Either(sym, given));
            }
            self.def_mut(def).set_extends(Some(sym));
        }
        for ty in implemented_types(heritage) {
            // `implements PromiseLike<Result<T, E>>`: a thenable, whose members are
            // `then`'s, not those of what it resolves to (which a value of that type
            // is read as elsewhere, see `TRANSPARENT_GENERICS`).
            let thenable = ty.kind_str() == "generic_type"
                && ty
                    .field(Field::Name)
                    .is_some_and(|n| matches!(self.text(n), "Promise" | "PromiseLike" | "Awaited"));
            if thenable {
                continue;
            }
            if let Some(sym) = self.type_sym(ty) {
                self.facts.implements.push((def, sym));
            }
        }
    }

    fn class_body(&mut self, body: Node<'s>, class: DefIdx, depth: usize) {
        self.note_class_kinds(class, body);
        let members = self.kids(body);
        // TypeScript puts a method's decorators beside it: they wait here for it.
        let mut decorators = Vec::new();
        for member in members {
            match member.kind_str() {
                "decorator" => {
                    let start = self.tokens.mark();
                    self.visit(member, depth + 1);
                    decorators.push((start, self.tokens.mark()));
                    continue;
                }
                "comment" => {
                    self.visit(member, depth + 1);
                    continue;
                }
                _ => {}
            }
            if matches!(
                member.kind_str(),
                "method_definition" | "abstract_method_signature" | "method_signature"
            ) {
                self.decorators = std::mem::take(&mut decorators);
            }
            decorators.clear();
            match member.kind_str() {
                "method_definition" => {
                    self.method(member, class, depth + 1);
                }
                "abstract_method_signature" => self.method_signature(member, class, depth + 1),
                "method_signature" if self.declaration_only => {
                    self.method_signature(member, class, depth + 1)
                }
                "method_signature" => {
                    self.note_overload_return(member);
                    self.visit(member, depth + 1)
                }
                "public_field_definition" | "field_definition" => {
                    self.field(member, class, depth + 1)
                }
                _ => self.visit(member, depth + 1),
            }
            self.decorators.clear();
        }
    }

    /// What a method's modifiers make it: its kind and whether it is static.
    fn member_kind(&self, node: Node<'s>, name: StrId) -> (DefKind, bool) {
        let mut kind = DefKind::Method;
        let mut is_static = false;
        for c in self.kids(node) {
            match c.kind_str() {
                "get" => kind = DefKind::Getter,
                "set" => kind = DefKind::Setter,
                "static" => is_static = true,
                _ => {}
            }
        }
        if kind == DefKind::Method && self.facts.str(name) == "constructor" {
            kind = DefKind::Constructor;
        }
        (kind, is_static)
    }

    /// A method of a class or an object literal.
    pub(crate) fn method(
        &mut self,
        node: Node<'s>,
        container: DefIdx,
        depth: usize,
    ) -> Option<DefIdx> {
        let Some(name_node) = node.field(Field::Name) else {
            self.visit_children(node, depth);
            return None;
        };
        let Some(name) = self.key_name(name_node) else {
            // Computed names (`[Symbol.iterator]()`) name nothing we can resolve: its calls
            // belong to the class, its `this` is still the class's.
            self.function_like(
                node,
                FnCtx {
                    def: None,
                    this: Some(ThisCtx::Of(container)),
                },
                depth,
            );
            return None;
        };
        Some(self.member_function(node, container, name, name_node, depth))
    }

    /// A named method (with a body or not) of `container`: its definition, walked.
    fn member_function(
        &mut self,
        node: Node<'s>,
        container: DefIdx,
        name: StrId,
        name_node: Node<'s>,
        depth: usize,
    ) -> DefIdx {
        let (kind, is_static) = self.member_kind(node, name);
        let def = self.new_def(kind, name, Some(container), node, Some(name_node));
        self.def_mut(def).is_static = is_static;
        let overloads = self.take_overload_returns(name);
        // In a static method, `this` is the class itself.
        let this = if is_static && self.facts.def(container).kind == DefKind::Class {
            ThisCtx::Static(container)
        } else {
            ThisCtx::Of(container)
        };
        self.function_like(
            node,
            FnCtx {
                def: Some(def),
                this: Some(this),
            },
            depth,
        );
        self.return_as_overloads(def, overloads);
        def
    }

    /// A method without a body: abstract, in an interface, or in a declaration file.
    pub(crate) fn method_signature(&mut self, node: Node<'s>, container: DefIdx, depth: usize) {
        let Some(name_node) = node.field(Field::Name) else {
            return self.visit_children(node, depth);
        };
        let Some(name) = self.key_name(name_node) else {
            return self.visit_children(node, depth);
        };
        self.member_function(node, container, name, name_node, depth);
    }

    fn field(&mut self, node: Node<'s>, class: DefIdx, depth: usize) {
        let name_node = node
            .field(Field::Name)
            .or_else(|| node.field(Field::Property));
        let name = name_node.and_then(|n| self.key_name(n));
        let value = node.field(Field::Value);
        let (Some(name), Some(name_node)) = (name, name_node) else {
            return self.visit_children(node, depth);
        };
        let children = self.kids(node);
        let is_static = children.iter().any(|c| c.kind_str() == "static");
        if !is_static {
            let ty = children
                .iter()
                .copied()
                .find(|c| c.kind_str() == "type_annotation");
            let readonly = children.iter().any(|c| c.kind_str() == "readonly");
            self.note_field_kinds(class, name, ty, value, !readonly);
        }
        let mut decorators = Vec::new();
        for child in children {
            if child.kind_str() == "decorator" {
                let start = self.tokens.mark();
                self.visit(child, depth + 1);
                decorators.push((start, self.tokens.mark()));
            } else if Some(child) == value {
                if is_function_node(child.kind_str()) {
                    self.decorators = std::mem::take(&mut decorators);
                    let def = self.bound_function(
                        child,
                        DefKind::Method,
                        name,
                        Some(class),
                        Some(name_node),
                        depth + 1,
                    );
                    self.def_mut(def).is_static = is_static;
                } else {
                    if !self.typed_fields.contains_key(&(class, name)) {
                        let sym = self.expr_sym(child);
                        self.add_prop(class, name, sym);
                    }
                    self.visit(child, depth + 1);
                }
            } else if child.kind_str() == "type_annotation" {
                // The stated type describes the field whatever its initial value
                // (`columns: Column[] = []`) or later assignments.
                if let Some(typed) = self.type_annotation(child) {
                    self.add_prop(class, name, typed);
                    let at = self.pos(name_node);
                    self.typed_fields.insert((class, name), at);
                }
                self.visit(child, depth + 1);
            } else {
                self.visit(child, depth + 1);
            }
        }
    }
}
