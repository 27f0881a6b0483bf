//! TypeScript's declarations: interfaces, namespaces, type aliases, enums; and the
//! declarations an error node broke.

use tree_sitter::Node;

use crate::indexer::extract::fields::{Field, FieldExt};
use crate::indexer::extract::{Extractor, ScopeKind};
use crate::indexer::facts::*;

impl<'s> Extractor<'s> {
    /// A generic interface (`interface PersistStorage<S> { getItem(..): S }`): what a
    /// value of it is, whatever its type arguments, is what its own members say
    /// (whether it can be called, which members of a primitive or an array it names);
    /// the type arguments type the members only. One that extends another is not
    /// read.
    fn note_generic_interface(&mut self, binding: BindingIdx, node: Node<'s>) {
        let mut cursor = node.walk();
        if node
            .children(&mut cursor)
            .any(|c| c.kind_str() == "extends_type_clause")
        {
            return;
        }
        let Some(body) = node.field(Field::Body) else {
            return;
        };
        let kinds = crate::indexer::type_kinds::object_type(body, &self.type_scope());
        if !kinds.is_any() {
            self.generic_alias_kinds.insert(binding, kinds);
        }
    }

    pub(crate) fn interface_declaration(&mut self, node: Node<'s>, depth: usize) {
        let Some(name_node) = node.field(Field::Name) else {
            return self.visit_children(node, depth);
        };
        let name = self.intern_node(name_node);
        let def = self.new_def(
            DefKind::Interface,
            name,
            self.namespace,
            node,
            Some(name_node),
        );
        if self.in_declare > 0 && in_declare_global(node) {
            self.def_mut(def).reach = Reach::Global;
        }
        let value = self.sym(Sym::Def(def));
        let b = self.declare(name, value, false);
        if self.states_types && node.field(Field::TypeParameters).is_none() {
            self.local_types.insert(b, node);
        } else if self.states_types {
            self.note_generic_interface(b, node);
        }
        self.names.push(def);
        // For its type parameters.
        self.push_scope(ScopeKind::Block);
        let children = self.kids(node);
        for child in children {
            match child.kind_str() {
                "type_parameters" => {
                    self.declare_type_parameters(child);
                    self.visit(child, depth + 1);
                }
                // `interface Adapter extends StateAdapter, StateFactory`: members of
                // every one of them.
                "extends_type_clause" => {
                    let bases = self.named_kids(child);
                    let mut extends = None;
                    for base in bases {
                        if let Some(sym) = self.type_sym(base) {
                            extends = Some(self.one_more(extends, sym));
                        }
                    }
                    self.def_mut(def).set_extends(extends);
                    self.visit(child, depth + 1);
                }
                "interface_body" | "object_type" => {
                    // (Generic or not: its members' names are what is read.)
                    let mut c = node.walk();
                    let extends = node
                        .children(&mut c)
                        .any(|x| x.kind_str() == "extends_type_clause");
                    self.note_interface_kinds(def, child, extends);
                    let start = self.tokens.mark();
                    self.interface_members(child, def, depth + 1);
                    let body_hash = self.tokens.hash_since(start);
                    self.def_mut(def).body_hash = body_hash;
                }
                _ => self.visit(child, depth + 1),
            }
        }
        self.pop_scope();
        self.names.pop();
    }

    /// The members of an interface body or object type: method signatures are
    /// definitions, typed properties are recorded values (`user: User`, for
    /// `props.user.save()`).
    fn interface_members(&mut self, body: Node<'s>, def: DefIdx, depth: usize) {
        let members = self.kids(body);
        for m in members {
            if matches!(m.kind_str(), "property_signature" | "method_signature") {
                self.note_type_member(def, m);
            }
            match m.kind_str() {
                "method_signature" => self.method_signature(m, def, depth + 1),
                // `{ (options: Options): Api }`: what calling an instance does.
                "call_signature" => {
                    if let Some(value) = self.signature(m) {
                        let name = self.intern(CALL);
                        self.add_prop(def, name, value);
                    }
                    self.visit(m, depth + 1);
                }
                // `{ new (doc?: D): Doc }`: what `new` on an instance gives.
                "construct_signature" => {
                    if let Some(value) = self.signature(m) {
                        let name = self.intern(NEW);
                        self.add_prop(def, name, value);
                    }
                    self.visit(m, depth + 1);
                }
                "property_signature" => {
                    let name = m.field(Field::Name).and_then(|n| self.key_name(n));
                    let typed = m.field(Field::Type).and_then(|t| self.type_annotation(t));
                    if let (Some(name), Some(value)) = (name, typed) {
                        self.add_prop(def, name, value);
                    }
                    self.visit(m, depth + 1);
                }
                _ => self.visit(m, depth + 1),
            }
        }
    }

    /// `namespace X { export function f() {} }`: X is an object whose members are the
    /// declarations it exports (in an ambient `declare namespace`, all of them).
    pub(crate) fn namespace_declaration(&mut self, node: Node<'s>, depth: usize) {
        let name_node = node.field(Field::Name);
        let body = node.field(Field::Body);
        let (Some(name_node), Some(body)) = (name_node, body) else {
            return self.visit_children(node, depth);
        };
        if name_node.kind_str() == "string" {
            // `declare module 'x' {}`: an ambient module, not a value of this file; what
            // it declares (all of it, `export` or not) is module x's: the members of an
            // object named `x` that imports of `x` read from whichever files declare it.
            let Some(specifier) = super::super::calls::string_literal(name_node, self.src)
                .filter(|s| !s.is_empty() && !s.contains('*'))
            else {
                // `declare module '*.svg'`: a pattern, not one module.
                let outer = std::mem::replace(&mut self.module_block, true);
                self.visit_children(node, depth);
                self.module_block = outer;
                return;
            };
            let name = self.intern(&specifier);
            let def = self.new_def(DefKind::Object, name, self.namespace, node, Some(name_node));
            self.def_mut(def).reach = Reach::AmbientModule;
            return self.member_block(def, body, true, depth);
        }
        let ambient = self.ambient
            || self.declaration_only
            || self.in_declare > 0
                && node
                    .parent()
                    .is_some_and(|p| p.kind_str() == "ambient_declaration");
        let name = self.intern_node(name_node);
        let def = self.new_def(DefKind::Object, name, self.namespace, node, Some(name_node));
        let value = self.sym(Sym::Def(def));
        self.declare(name, value, false);
        self.tokens.leaf(name_node, self.src);
        self.member_block(def, body, ambient, depth);
    }

    /// Walks the statements of a namespace's or a declared module's `body` in a scope
    /// of their own: what they export (in an ambient block, all they declare) becomes a
    /// member of `def`.
    fn member_block(&mut self, def: DefIdx, body: Node<'s>, ambient: bool, depth: usize) {
        self.names.push(def);
        let outer = self.namespace.take();
        let outer_block = std::mem::replace(&mut self.module_block, true);
        let outer_ambient = std::mem::replace(&mut self.ambient, ambient);
        self.push_scope(ScopeKind::Function);
        for statement in self.kids(body) {
            let exported = ambient || statement.kind_str() == "export_statement";
            self.namespace = exported.then_some(def);
            self.visit(statement, depth + 1);
        }
        self.pop_scope();
        self.ambient = outer_ambient;
        self.module_block = outer_block;
        self.namespace = outer;
        self.names.pop();
    }

    /// `type A = B`: a name for what the type denotes (`x: A` is an instance of B).
    pub(crate) fn type_alias(&mut self, node: Node<'s>, depth: usize) {
        if let Some(name_node) = node.field(Field::Name) {
            let name = self.intern_node(name_node);
            self.push_scope(ScopeKind::Block);
            let shape = node
                .field(Field::Value)
                .filter(|v| v.kind_str() == "object_type");
            let params = node.field(Field::TypeParameters);
            // `type Hydrated<T> = IfAny<T, any, Document & T>`: its parameters take the
            // arguments it is given. (An object type is an interface by another name:
            // its members are looked up later, where no arguments are at hand.)
            let generic = match (params, shape) {
                (Some(_), None) if self.generic_aliases < 1 << 24 => {
                    self.generic_aliases += 1;
                    Some(self.generic_aliases - 1)
                }
                _ => None,
            };
            if let Some(params) = params {
                // (Taken by the first list of parameters declared: these.)
                self.generic_alias = generic;
                self.declare_type_parameters(params);
            }
            let value = match shape {
                // `type Props = { user: User }` is an interface by another name.
                Some(shape) => {
                    let def = self.new_def(
                        DefKind::Interface,
                        name,
                        self.namespace,
                        node,
                        Some(name_node),
                    );
                    // `type Api = { [K in keyof typeof import('./handlers')]: ... }`: the
                    // members of what it maps.
                    if let Some(source) = self.mapped_type_source(shape) {
                        self.def_mut(def).set_extends(Some(source));
                    }
                    // (Generic or not: its members' names say what kinds of value
                    // it takes, whatever types its arguments give them.)
                    self.note_interface_kinds(def, shape, false);
                    self.names.push(def);
                    self.walk_around(node, shape, depth, |ex, v| {
                        ex.interface_members(v, def, depth + 1)
                    });
                    self.names.pop();
                    Some(self.sym(Sym::Def(def)))
                }
                None => {
                    let value = node.field(Field::Value).and_then(|v| self.type_sym(v));
                    let value = match (value, generic) {
                        (Some(body), Some(key)) => Some(self.sym(Sym::Generic(body, key))),
                        _ => value,
                    };
                    self.visit_children(node, depth);
                    // `namespace pino { export type Logger = Base & Extras }`: a member
                    // of the namespace, as its interfaces are (`pino.Logger`).
                    if let (Some(ns), Some(value)) = (self.namespace, value) {
                        self.add_prop(ns, name, value);
                    }
                    value
                }
            };
            // What a value of it may be, read with its type parameters in scope (where
            // one decides, the kinds are not known).
            let kinds = match (shape, node.field(Field::Value)) {
                (None, Some(v)) if self.states_types => {
                    crate::indexer::type_kinds::accepted(v, &self.type_scope())
                }
                _ => ValueKinds::ANY,
            };
            self.pop_scope();
            let value = value.unwrap_or_else(|| self.unknown());
            let b = if shape.is_none() {
                let b = self.declare_type_alias(name, value);
                self.type_alias_bindings.insert(b);
                b
            } else {
                self.declare(name, value, false)
            };
            if self.states_types && params.is_none() {
                self.local_types.insert(b, node);
            }
            if !kinds.is_any() {
                if params.is_some() {
                    self.generic_alias_kinds.insert(b, kinds);
                }
                if self.namespace.is_none() && self.at_module_level() {
                    self.facts
                        .alias_kinds
                        .push(AliasKinds { binding: b, kinds });
                }
            }
        } else {
            self.visit_children(node, depth);
        }
    }

    /// `enum E {}`: a name in scope (its members are values, not functions).
    pub(crate) fn enum_declaration(&mut self, node: Node<'s>, depth: usize) {
        if let Some(name_node) = node.field(Field::Name) {
            let name = self.intern_node(name_node);
            let value = self.unknown();
            self.declare(name, value, false);
        }
        self.visit_children(node, depth);
    }

    /// What tree-sitter could not parse. A named function expression directly inside is
    /// most often a declaration whose surroundings broke: it is read as one.
    pub(crate) fn error_node(&mut self, node: Node<'s>, depth: usize) {
        let children = self.kids(node);
        for child in children {
            let named_function = matches!(
                child.kind_str(),
                "function_expression" | "generator_function"
            ) && child.field(Field::Name).is_some();
            if named_function {
                self.function_declaration(child, depth + 1);
            } else {
                self.visit(child, depth + 1);
            }
        }
    }
}

/// Whether a declaration stands in a `declare global { ... }` block.
pub(crate) fn in_declare_global(node: Node<'_>) -> bool {
    let Some(block) = node.parent().filter(|p| p.kind_str() == "statement_block") else {
        return false;
    };
    block.parent().is_some_and(|ambient| {
        ambient.kind_str() == "ambient_declaration"
            && ambient.child(1).is_some_and(|k| k.kind_str() == "global")
    })
}
