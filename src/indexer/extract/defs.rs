//! Definitions: functions in every binding form, classes and their members, object
//! literals bound to names, CommonJS assignments, interfaces and namespaces.

use tree_sitter::Node;

use super::{Extractor, ScopeKind, ThisCtx};
use crate::indexer::facts::*;

/// Calls that wrap a function and return something used in its place: the binding
/// names the wrapped function (`const Button = forwardRef((props, ref) => ...)`).
const WRAPPERS: &[&str] = &[
    "memo",
    "forwardRef",
    "useCallback",
    "observer",
    "debounce",
    "throttle",
    "once",
    "defineComponent",
];

pub(crate) fn is_function_node(kind: &str) -> bool {
    matches!(
        kind,
        "function_expression" | "arrow_function" | "generator_function" | "function"
    )
}

fn is_class_node(kind: &str) -> bool {
    kind == "class"
}

/// How a function's parts are walked.
#[derive(Clone, Copy)]
pub(crate) struct FnCtx {
    def: Option<DefIdx>,
    /// `this` inside: None keeps the outer one (arrow functions).
    this: Option<ThisCtx>,
}

impl<'s> Extractor<'s> {
    // ---- creating definitions ----

    pub(crate) fn new_def(
        &mut self,
        kind: DefKind,
        name: StrId,
        container: Option<DefIdx>,
        node: Node<'s>,
        name_node: Option<Node<'s>>,
    ) -> DefIdx {
        let parent = container.or_else(|| self.names.last().copied());
        let qualified = match parent {
            Some(p) => {
                let q = format!("{}.{}", self.facts.def_qualified(p), self.facts.str(name));
                self.intern(&q)
            }
            None => name,
        };
        let at = name_node.unwrap_or(node).start_position();
        let (start, end) = (node.start_position(), node.end_position());
        let idx = self.facts.defs.len() as DefIdx;
        self.facts.defs.push(Definition {
            name,
            qualified,
            kind,
            container,
            is_static: false,
            exported: false,
            span: Span {
                start_byte: node.start_byte() as u32,
                end_byte: node.end_byte() as u32,
                start_line: start.row as u32,
                end_line: end.row as u32,
            },
            name_pos: Pos {
                line: at.row as u32,
                column: at.column as u32,
            },
            params: Vec::new(),
            signature_hash: 0,
            body_hash: 0,
            extends: None,
            returns: None,
        });
        idx
    }

    fn def_mut(&mut self, idx: DefIdx) -> &mut Definition {
        &mut self.facts.defs[idx as usize]
    }

    /// The name a property key gives: `a`, `'a'`, `#a`, `1`. Computed keys have none.
    pub(crate) fn key_name(&mut self, key: Node<'s>) -> Option<StrId> {
        match key.kind() {
            "property_identifier"
            | "private_property_identifier"
            | "identifier"
            | "number"
            | "type_identifier" => Some(self.intern_node(key)),
            "string" => {
                let text = self.text(key);
                let inner = text.get(1..text.len().saturating_sub(1)).unwrap_or("");
                Some(self.intern(inner))
            }
            _ => None,
        }
    }

    // ---- functions ----

    /// Walks a function node (declaration, expression, arrow, method) whose definition,
    /// if any, was already created: binds its parameters, hashes its signature and
    /// body, and attributes the calls inside to it.
    pub(crate) fn function_like(&mut self, node: Node<'s>, ctx: FnCtx, depth: usize) {
        self.push_scope(ScopeKind::Function);
        if let Some(def) = ctx.def {
            self.callers.push(def);
            self.names.push(def);
        }
        let pushed_this = match (ctx.this, node.kind()) {
            (_, "arrow_function") => false,
            (Some(this), _) => {
                self.this.push(this);
                true
            }
            (None, _) => {
                self.this.push(ThisCtx::Unknown);
                true
            }
        };
        let namespace = self.namespace.take();
        // A named function expression sees its own name.
        if ctx.def.is_none() && node.kind() != "arrow_function" {
            if let Some(name) = node.child_by_field_name("name") {
                let name = self.intern_node(name);
                let value = self.unknown();
                self.declare(name, value, false);
            }
        }

        let mut signature = Vec::new();
        let mut body_hash = None;
        let mut returns = None;
        let mut seed = 0u64;
        let children = super::calls::children_with_fields(node);
        for (field, child) in children {
            match field {
                Some("parameters") | Some("parameter") => {
                    let start = self.tokens.mark();
                    self.parameters(child, ctx.def, depth);
                    signature.push((start, self.tokens.mark()));
                }
                Some("return_type") | Some("type_parameters") => {
                    if field == Some("return_type") {
                        returns = self.return_type(child);
                    }
                    let start = self.tokens.mark();
                    self.visit(child, depth + 1);
                    signature.push((start, self.tokens.mark()));
                }
                Some("body") => {
                    let start = self.tokens.mark();
                    if child.kind() == "statement_block" {
                        // The function scope is the body's scope.
                        self.visit_children(child, depth + 1);
                    } else {
                        self.visit(child, depth + 1);
                    }
                    body_hash = Some(self.tokens.hash_since(start));
                }
                _ => {
                    match child.kind() {
                        "async" => seed |= 1,
                        "*" => seed |= 2,
                        "get" => seed |= 4,
                        "set" => seed |= 8,
                        "static" => seed |= 16,
                        _ => {}
                    }
                    self.visit(child, depth + 1);
                }
            }
        }

        self.namespace = namespace;
        if pushed_this {
            self.this.pop();
        }
        if let Some(def) = ctx.def {
            self.callers.pop();
            self.names.pop();
            let signature_hash = self.tokens.hash_ranges(&signature, seed);
            let d = self.def_mut(def);
            d.signature_hash = signature_hash;
            d.body_hash = body_hash.unwrap_or(0);
            d.returns = returns;
        }
        self.pop_scope();
    }

    /// Declares the parameters in the function's scope, records their texts on the
    /// definition, and walks them (default values can call things).
    fn parameters(&mut self, params: Node<'s>, def: Option<DefIdx>, depth: usize) {
        let constructor_of = def.and_then(|d| {
            let d = &self.facts.defs[d as usize];
            (d.kind == DefKind::Constructor)
                .then_some(d.container)
                .flatten()
        });
        let mut texts = Vec::new();
        if params.kind() == "identifier" {
            texts.push(self.intern_node(params));
            let value = self.unknown();
            let name = self.intern_node(params);
            self.declare(name, value, false);
        } else {
            let mut cursor = params.walk();
            let list: Vec<Node<'s>> = params.named_children(&mut cursor).collect();
            for p in list {
                if p.kind() == "comment" {
                    continue;
                }
                let collapsed: String = self
                    .text(p)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                texts.push(self.intern(&collapsed));
                self.declare_parameter(p, constructor_of);
            }
        }
        if let Some(def) = def {
            self.def_mut(def).params = texts;
        }
        self.visit(params, depth + 1);
    }

    fn declare_parameter(&mut self, p: Node<'s>, constructor_of: Option<DefIdx>) {
        match p.kind() {
            "required_parameter" | "optional_parameter" => {
                let pattern = p
                    .child_by_field_name("pattern")
                    .or_else(|| p.child_by_field_name("name"));
                let typed = p
                    .child_by_field_name("type")
                    .and_then(|t| self.type_annotation(t));
                if let Some(pattern) = pattern {
                    self.declare_pattern(pattern, typed, false);
                    // `constructor(private repo: Repo)` declares a field too.
                    let mut cursor = p.walk();
                    let is_property = p
                        .children(&mut cursor)
                        .any(|c| matches!(c.kind(), "accessibility_modifier" | "readonly"));
                    if let (true, Some(class), "identifier") =
                        (is_property, constructor_of, pattern.kind())
                    {
                        let name = self.intern_node(pattern);
                        let value = typed.unwrap_or_else(|| self.unknown());
                        self.facts.props.push(Prop {
                            object: class,
                            name,
                            value,
                        });
                    }
                }
            }
            _ => self.declare_pattern(p, None, false),
        }
    }

    /// Declares every name a binding pattern introduces; `value` is what the whole
    /// pattern is bound to, so `{ a, b: c }` binds `a` to `value.a` and `c` to `value.b`.
    pub(crate) fn declare_pattern(&mut self, pattern: Node<'s>, value: Option<SymId>, hoist: bool) {
        match pattern.kind() {
            "identifier" | "shorthand_property_identifier_pattern" => {
                let name = self.intern_node(pattern);
                let v = value.unwrap_or_else(|| self.unknown());
                self.declare(name, v, hoist);
            }
            "object_pattern" => {
                let mut cursor = pattern.walk();
                let items: Vec<Node<'s>> = pattern.named_children(&mut cursor).collect();
                for item in items {
                    match item.kind() {
                        "shorthand_property_identifier_pattern" => {
                            let name = self.intern_node(item);
                            let v = value.map(|v| self.sym(Sym::Member(v, name)));
                            self.declare_pattern(item, v, hoist);
                        }
                        "pair_pattern" => {
                            let key = item.child_by_field_name("key");
                            let key = key.and_then(|k| self.key_name(k));
                            let v = match (value, key) {
                                (Some(v), Some(k)) => Some(self.sym(Sym::Member(v, k))),
                                _ => None,
                            };
                            if let Some(target) = item.child_by_field_name("value") {
                                self.declare_pattern(target, v, hoist);
                            }
                        }
                        "object_assignment_pattern" => {
                            if let Some(left) = item.child_by_field_name("left") {
                                let v = if left.kind() == "shorthand_property_identifier_pattern" {
                                    let name = self.intern_node(left);
                                    value.map(|v| self.sym(Sym::Member(v, name)))
                                } else {
                                    None
                                };
                                self.declare_pattern(left, v, hoist);
                            }
                        }
                        "rest_pattern" => {
                            if let Some(inner) = item.named_child(0) {
                                self.declare_pattern(inner, None, hoist);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "array_pattern" => {
                let mut cursor = pattern.walk();
                let items: Vec<Node<'s>> = pattern.named_children(&mut cursor).collect();
                for item in items {
                    self.declare_pattern(item, None, hoist);
                }
            }
            "assignment_pattern" => {
                if let Some(left) = pattern.child_by_field_name("left") {
                    self.declare_pattern(left, value, hoist);
                }
            }
            "rest_pattern" => {
                if let Some(inner) = pattern.named_child(0) {
                    self.declare_pattern(inner, None, hoist);
                }
            }
            _ => {}
        }
    }

    pub(crate) fn function_declaration(&mut self, node: Node<'s>, depth: usize) {
        let Some(name_node) = node.child_by_field_name("name") else {
            return self.anonymous_function(node, depth);
        };
        let name = self.intern_node(name_node);
        let def = self.new_def(
            DefKind::Function,
            name,
            self.namespace,
            node,
            Some(name_node),
        );
        let value = self.sym(Sym::Def(def));
        self.declare(name, value, false);
        self.function_like(
            node,
            FnCtx {
                def: Some(def),
                this: None,
            },
            depth,
        );
    }

    /// `declare function f(): T;` and overload signatures. Only declaration files keep
    /// them: elsewhere the implementation that follows is the definition.
    pub(crate) fn function_signature(&mut self, node: Node<'s>, depth: usize) {
        if !self.declaration_only {
            return self.visit_children(node, depth);
        }
        self.function_declaration(node, depth)
    }

    /// A function literal not bound to a name (a callback): not a definition; its calls
    /// belong to the enclosing one.
    pub(crate) fn anonymous_function(&mut self, node: Node<'s>, depth: usize) {
        self.function_like(
            node,
            FnCtx {
                def: None,
                this: None,
            },
            depth,
        );
    }

    /// Creates the definition for a function literal bound to `name` and walks it.
    pub(crate) fn bound_function(
        &mut self,
        node: Node<'s>,
        kind: DefKind,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> DefIdx {
        let def = self.new_def(kind, name, container, node, name_node);
        let this = match (kind, container) {
            (DefKind::Function, _) | (_, None) => None,
            (_, Some(c)) => Some(ThisCtx::Of(c)),
        };
        self.function_like(
            node,
            FnCtx {
                def: Some(def),
                this,
            },
            depth,
        );
        def
    }

    /// Binds whatever literal `value` is to `name`: a function, a class, an object,
    /// or a wrapped function. Returns None when `value` is not such a literal.
    pub(crate) fn bound_value(
        &mut self,
        value: Node<'s>,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> Option<DefIdx> {
        let kind = value.kind();
        if is_function_node(kind) {
            let def_kind = if container.is_some() {
                DefKind::Method
            } else {
                DefKind::Function
            };
            return Some(self.bound_function(value, def_kind, name, container, name_node, depth));
        }
        if is_class_node(kind) {
            return Some(self.class(value, name, container, name_node, depth));
        }
        if kind == "object" {
            return Some(self.object_literal(value, name, container, name_node, depth));
        }
        if matches!(
            kind,
            "parenthesized_expression" | "as_expression" | "satisfies_expression"
        ) {
            let inner = value.named_child(0)?;
            if is_function_node(inner.kind())
                || is_class_node(inner.kind())
                || inner.kind() == "object"
            {
                return self.tokens_of_wrapping(value, inner, name, container, name_node, depth);
            }
            return None;
        }
        if kind == "call_expression" {
            return self.wrapped_function(value, name, container, name_node, depth);
        }
        None
    }

    /// `(function () {})` or `{...} as const`: bind the inner literal, walk the rest.
    fn tokens_of_wrapping(
        &mut self,
        outer: Node<'s>,
        inner: Node<'s>,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> Option<DefIdx> {
        let mut cursor = outer.walk();
        let children: Vec<Node<'s>> = outer.children(&mut cursor).collect();
        let mut def = None;
        for child in children {
            if child == inner {
                def = self.bound_value(inner, name, container, name_node, depth + 1);
            } else {
                self.visit(child, depth + 1);
            }
        }
        def
    }

    /// `const Button = forwardRef((props, ref) => ...)`: the function literal passed to
    /// a known wrapper is the definition the name stands for.
    fn wrapped_function(
        &mut self,
        call: Node<'s>,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> Option<DefIdx> {
        let callee = call.child_by_field_name("function")?;
        let callee_name = match callee.kind() {
            "identifier" => self.text(callee),
            "member_expression" => self.text(callee.child_by_field_name("property")?),
            _ => return None,
        };
        if !WRAPPERS.contains(&callee_name) {
            return None;
        }
        let args = call.child_by_field_name("arguments")?;
        let first = args.named_child(0)?;
        if !is_function_node(first.kind()) {
            return None;
        }
        // Record the wrapper call itself, then bind the literal.
        self.record_call_of(call, CallKind::Call, callee, depth);
        let mut cursor = args.walk();
        let children: Vec<Node<'s>> = args.children(&mut cursor).collect();
        let mut def = None;
        for child in children {
            if child == first {
                def = Some(self.bound_function(
                    child,
                    DefKind::Function,
                    name,
                    container,
                    name_node,
                    depth + 1,
                ));
            } else {
                self.visit(child, depth + 1);
            }
        }
        def
    }

    // ---- variables ----

    pub(crate) fn variable_declaration(&mut self, node: Node<'s>, depth: usize) {
        let hoist = node.kind() == "variable_declaration";
        let mut cursor = node.walk();
        let children: Vec<Node<'s>> = node.children(&mut cursor).collect();
        for child in children {
            if child.kind() == "variable_declarator" {
                self.variable_declarator(child, hoist, depth + 1);
            } else {
                self.visit(child, depth + 1);
            }
        }
    }

    fn variable_declarator(&mut self, node: Node<'s>, hoist: bool, depth: usize) {
        let Some(target) = node.child_by_field_name("name") else {
            return self.visit_children(node, depth);
        };
        let value = node.child_by_field_name("value");
        let annotation = node.child_by_field_name("type");
        if target.kind() == "identifier" {
            let name = self.intern_node(target);
            self.tokens.leaf(target, self.src);
            if let Some(t) = annotation {
                let typed = self.type_annotation(t);
                self.visit(t, depth + 1);
                if let Some(typed) = typed {
                    self.declare(name, typed, hoist);
                }
            }
            if let Some(value) = value {
                // Declare first: the literal may refer to itself.
                let placeholder = self.unknown();
                let binding = self.declare(name, placeholder, hoist);
                if let Some(def) = self.bound_value(value, name, None, Some(target), depth + 1) {
                    let sym = self.sym(Sym::Def(def));
                    self.rebind(binding, sym);
                } else {
                    let sym = self.expr_sym(value);
                    self.rebind(binding, sym);
                    self.visit(value, depth + 1);
                }
            } else {
                let unknown = self.unknown();
                self.declare(name, unknown, hoist);
            }
        } else {
            let sym = value.map(|v| self.expr_sym(v));
            self.declare_pattern(target, sym, hoist);
            self.visit(target, depth + 1);
            self.visit_opt(annotation, depth + 1);
            self.visit_opt(value, depth + 1);
        }
    }

    /// Sets a binding's value unless a stated type already gave it one.
    fn rebind(&mut self, binding: BindingIdx, value: SymId) {
        let current = self.facts.bindings[binding as usize].value;
        if matches!(self.facts.syms[current as usize], Sym::Unknown) {
            self.facts.bindings[binding as usize].value = value;
        }
    }

    pub(crate) fn for_in_bindings(&mut self, node: Node<'s>) {
        if node.child_by_field_name("kind").is_none() {
            return;
        }
        let hoist = node
            .child_by_field_name("kind")
            .is_some_and(|k| k.kind() == "var");
        if let Some(left) = node.child_by_field_name("left") {
            self.declare_pattern(left, None, hoist);
        }
    }

    // ---- classes ----

    pub(crate) fn class_declaration(&mut self, node: Node<'s>, depth: usize) {
        let name_node = node.child_by_field_name("name");
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
        let name_node = node.child_by_field_name("name");
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
        if let Some(n) = node.child_by_field_name("name") {
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
        let mut cursor = node.walk();
        let children: Vec<Node<'s>> = node.children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "class_heritage" => {
                    let start = self.tokens.mark();
                    let extends = heritage_value(child);
                    if let Some(e) = extends {
                        let sym = self.expr_sym(e);
                        self.def_mut(def).extends = Some(sym);
                    }
                    self.visit(child, depth + 1);
                    signature.push((start, self.tokens.mark()));
                }
                "type_parameters" => {
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

    fn class_body(&mut self, body: Node<'s>, class: DefIdx, depth: usize) {
        let mut cursor = body.walk();
        let members: Vec<Node<'s>> = body.children(&mut cursor).collect();
        for member in members {
            match member.kind() {
                "method_definition" => {
                    self.method(member, class, depth + 1);
                }
                "abstract_method_signature" => self.method_signature(member, class, depth + 1),
                "method_signature" if self.declaration_only => {
                    self.method_signature(member, class, depth + 1)
                }
                "public_field_definition" | "field_definition" => {
                    self.field(member, class, depth + 1)
                }
                _ => self.visit(member, depth + 1),
            }
        }
    }

    /// A method of a class or an object literal.
    pub(crate) fn method(
        &mut self,
        node: Node<'s>,
        container: DefIdx,
        depth: usize,
    ) -> Option<DefIdx> {
        let Some(name_node) = node.child_by_field_name("name") else {
            self.visit_children(node, depth);
            return None;
        };
        let Some(name) = self.key_name(name_node) else {
            // Computed names (`[Symbol.iterator]()`) name nothing we can resolve.
            self.anonymous_function(node, depth);
            return None;
        };
        let mut cursor = node.walk();
        let mut kind = DefKind::Method;
        let mut is_static = false;
        for c in node.children(&mut cursor) {
            match c.kind() {
                "get" => kind = DefKind::Getter,
                "set" => kind = DefKind::Setter,
                "static" => is_static = true,
                _ => {}
            }
        }
        if kind == DefKind::Method && self.facts.str(name) == "constructor" {
            kind = DefKind::Constructor;
        }
        let def = self.new_def(kind, name, Some(container), node, Some(name_node));
        self.def_mut(def).is_static = is_static;
        self.function_like(
            node,
            FnCtx {
                def: Some(def),
                this: Some(ThisCtx::Of(container)),
            },
            depth,
        );
        Some(def)
    }

    /// A method without a body: abstract, in an interface, or in a declaration file.
    pub(crate) fn method_signature(&mut self, node: Node<'s>, container: DefIdx, depth: usize) {
        let Some(name_node) = node.child_by_field_name("name") else {
            return self.visit_children(node, depth);
        };
        let Some(name) = self.key_name(name_node) else {
            return self.visit_children(node, depth);
        };
        let def = self.new_def(
            DefKind::Method,
            name,
            Some(container),
            node,
            Some(name_node),
        );
        self.function_like(
            node,
            FnCtx {
                def: Some(def),
                this: Some(ThisCtx::Of(container)),
            },
            depth,
        );
    }

    fn field(&mut self, node: Node<'s>, class: DefIdx, depth: usize) {
        let name_node = node
            .child_by_field_name("name")
            .or_else(|| node.child_by_field_name("property"));
        let name = name_node.and_then(|n| self.key_name(n));
        let value = node.child_by_field_name("value");
        let (Some(name), Some(name_node)) = (name, name_node) else {
            return self.visit_children(node, depth);
        };
        let mut cursor = node.walk();
        let is_static = node.children(&mut cursor).any(|c| c.kind() == "static");
        let mut cursor = node.walk();
        let children: Vec<Node<'s>> = node.children(&mut cursor).collect();
        for child in children {
            if Some(child) == value {
                if is_function_node(child.kind()) {
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
                    let sym = self.expr_sym(child);
                    self.facts.props.push(Prop {
                        object: class,
                        name,
                        value: sym,
                    });
                    self.visit(child, depth + 1);
                }
            } else if child.kind() == "type_annotation" {
                if value.is_none() {
                    if let Some(typed) = self.type_annotation(child) {
                        self.facts.props.push(Prop {
                            object: class,
                            name,
                            value: typed,
                        });
                    }
                }
                self.visit(child, depth + 1);
            } else {
                self.visit(child, depth + 1);
            }
        }
    }

    // ---- interfaces and namespaces ----

    pub(crate) fn interface_declaration(&mut self, node: Node<'s>, depth: usize) {
        let Some(name_node) = node.child_by_field_name("name") else {
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
        let value = self.sym(Sym::Def(def));
        self.declare(name, value, false);
        self.names.push(def);
        let mut cursor = node.walk();
        let children: Vec<Node<'s>> = node.children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "extends_type_clause" => {
                    if let Some(first) = child.named_child(0) {
                        let sym = self.type_sym(first);
                        self.def_mut(def).extends = sym;
                    }
                    self.visit(child, depth + 1);
                }
                "interface_body" | "object_type" => {
                    let start = self.tokens.mark();
                    let mut c2 = child.walk();
                    let members: Vec<Node<'s>> = child.children(&mut c2).collect();
                    for m in members {
                        if m.kind() == "method_signature" {
                            self.method_signature(m, def, depth + 2);
                        } else {
                            self.visit(m, depth + 2);
                        }
                    }
                    let body_hash = self.tokens.hash_since(start);
                    self.def_mut(def).body_hash = body_hash;
                }
                _ => self.visit(child, depth + 1),
            }
        }
        self.names.pop();
    }

    /// `namespace X { export function f() {} }`: X is an object whose members are the
    /// declarations directly inside it.
    pub(crate) fn namespace_declaration(&mut self, node: Node<'s>, depth: usize) {
        let name_node = node.child_by_field_name("name");
        let body = node.child_by_field_name("body");
        let (Some(name_node), Some(body)) = (name_node, body) else {
            return self.visit_children(node, depth);
        };
        if name_node.kind() == "string" {
            // `declare module 'x' {}`: an ambient module, not a value.
            return self.visit_children(node, depth);
        }
        let name = self.intern_node(name_node);
        let def = self.new_def(DefKind::Object, name, self.namespace, node, Some(name_node));
        let value = self.sym(Sym::Def(def));
        self.declare(name, value, false);
        self.tokens.leaf(name_node, self.src);
        self.names.push(def);
        let outer = self.namespace.replace(def);
        self.push_scope(ScopeKind::Function);
        self.visit_children(body, depth + 1);
        self.pop_scope();
        self.namespace = outer;
        self.names.pop();
    }

    // ---- objects ----

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
        let def = self.new_def(DefKind::Object, name, container, node, name_node);
        self.names.push(def);
        let mut cursor = node.walk();
        let items: Vec<Node<'s>> = node.children(&mut cursor).collect();
        for item in items {
            match item.kind() {
                "pair" => self.object_pair(item, def, depth + 1),
                "method_definition" => {
                    self.method(item, def, depth + 1);
                }
                "shorthand_property_identifier" => {
                    let key = self.intern_node(item);
                    let value = self.reference(key);
                    self.facts.props.push(Prop {
                        object: def,
                        name: key,
                        value,
                    });
                    self.tokens.leaf(item, self.src);
                }
                _ => self.visit(item, depth + 1),
            }
        }
        self.names.pop();
        def
    }

    fn object_pair(&mut self, pair: Node<'s>, object: DefIdx, depth: usize) {
        let key_node = pair.child_by_field_name("key");
        let value = pair.child_by_field_name("value");
        let key = key_node.and_then(|k| self.key_name(k));
        let mut cursor = pair.walk();
        let children: Vec<Node<'s>> = pair.children(&mut cursor).collect();
        for child in children {
            if Some(child) != value {
                self.visit(child, depth + 1);
                continue;
            }
            let Some(key) = key else {
                self.visit(child, depth + 1);
                continue;
            };
            if let Some(def) = self.bound_value(child, key, Some(object), key_node, depth + 1) {
                let sym = self.sym(Sym::Def(def));
                self.facts.props.push(Prop {
                    object,
                    name: key,
                    value: sym,
                });
            } else {
                let sym = self.expr_sym(child);
                self.facts.props.push(Prop {
                    object,
                    name: key,
                    value: sym,
                });
                self.visit(child, depth + 1);
            }
        }
    }

    // ---- exported flags ----

    /// Marks the definitions that exports reach within this file.
    pub(crate) fn mark_exported(&mut self) {
        let mut roots: Vec<SymId> = self
            .facts
            .exports
            .iter()
            .filter_map(|e| match e.value {
                ExportValue::Local(s) => Some(s),
                _ => None,
            })
            .collect();
        roots.extend(self.facts.module_exports);
        for root in roots {
            let mut sym = root;
            for _ in 0..8 {
                match self.facts.syms[sym as usize] {
                    Sym::Binding(b) => sym = self.facts.bindings[b as usize].value,
                    Sym::Def(d) => {
                        self.facts.defs[d as usize].exported = true;
                        if self.facts.defs[d as usize].kind == DefKind::Object {
                            for member in self.facts.defs.iter_mut() {
                                if member.container == Some(d) {
                                    member.exported = true;
                                }
                            }
                        }
                        break;
                    }
                    _ => break,
                }
            }
        }
    }
}

/// The `extends` expression of a class heritage, in either grammar.
fn heritage_value(heritage: Node) -> Option<Node> {
    let mut cursor = heritage.walk();
    let children: Vec<Node> = heritage.named_children(&mut cursor).collect();
    for child in children {
        if child.kind() == "extends_clause" {
            return child.child_by_field_name("value");
        }
        if child.kind() != "implements_clause" && child.kind() != "comment" {
            return Some(child);
        }
    }
    None
}
