//! Definitions: functions in every binding form, classes and their members, object
//! literals bound to names, CommonJS assignments, interfaces and namespaces.

use rustc_hash::{FxHashMap, FxHashSet};
use tree_sitter::Node;
use xxhash_rust::xxh3::xxh3_64;

use super::children::Children;
use super::fields::{Field, FieldExt};
use super::types::RestType;
use super::{Extractor, ScopeKind, ThisCtx, MAX_DEPTH};
use crate::indexer::facts::*;

/// Destructuring patterns nested deeper than this bind nothing more.
const MAX_PATTERN_DEPTH: usize = 64;

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

/// Syntax around a value that leaves it the same value: `(x)`, `x as T`, `x satisfies T`.
fn is_literal_wrapper(kind: &str) -> bool {
    matches!(
        kind,
        "parenthesized_expression" | "as_expression" | "satisfies_expression"
    )
}

/// A function, class or object literal, maybe inside such wrappers (nested ones too).
fn wraps_literal(mut node: Node) -> bool {
    loop {
        let kind = node.kind_str();
        if is_function_node(kind) || is_class_node(kind) || kind == "object" {
            return true;
        }
        match node.named_child(0) {
            Some(inner) if is_literal_wrapper(kind) => node = inner,
            _ => return false,
        }
    }
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
        let name_pos = self.pos(name_node.unwrap_or(node));
        let (start, end) = (node.start_position(), node.end_position());
        let idx = self.facts.defs.len() as DefIdx;
        self.def_of_node.insert(node.id(), idx);
        self.facts.defs.push(Definition {
            name,
            qualified,
            kind,
            container,
            loose_member: false,
            is_static: false,
            exported: false,
            span: Span {
                start_byte: node.start_byte() as u32,
                end_byte: node.end_byte() as u32,
                start_line: start.row as u32,
                end_line: end.row as u32,
            },
            name_pos,
            params: Vec::new(),
            signature_hash: 0,
            body_hash: 0,
            extends: None,
            returns: None,
        });
        idx
    }

    pub(crate) fn def_mut(&mut self, idx: DefIdx) -> &mut Definition {
        &mut self.facts.defs[idx as usize]
    }

    /// The name a property key gives: `a`, `'a'`, `#a`, `1`. Computed keys have none.
    pub(crate) fn key_name(&mut self, key: Node<'s>) -> Option<StrId> {
        match key.kind_str() {
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
        let pushed_this = match (ctx.this, node.kind_str()) {
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
        self.returns_to.push(ctx.def);
        self.stated_returns.push(None);
        // A named function expression sees its own name (`const f = function g() { g() }`).
        if matches!(
            node.kind_str(),
            "function_expression" | "function" | "generator_function"
        ) {
            if let Some(name) = node.field(Field::Name) {
                let name = self.intern_node(name);
                let value = match ctx.def {
                    Some(def) => self.sym(Sym::Def(def)),
                    None => self.unknown(),
                };
                self.declare(name, value, false);
            }
        }

        // Decorators walked before the definition (TypeScript puts a method's decorators
        // beside it in the class body) are part of its signature.
        let mut signature = match ctx.def {
            Some(_) => std::mem::take(&mut self.decorators),
            None => Vec::new(),
        };
        let mut body_hash = None;
        let mut returns = None;
        let mut seed = 0u64;
        let children = self.kids_with_fields(node);
        for (field, child) in children {
            match field {
                Some(field @ ("parameters" | "parameter")) => {
                    let start = self.tokens.mark();
                    // `x => x` and `(x) => x` are the same function.
                    let bare = field == "parameter";
                    if bare {
                        self.tokens.synthetic("(");
                    }
                    self.parameters(child, ctx.def, depth);
                    if bare {
                        self.tokens.synthetic(")");
                    }
                    signature.push((start, self.tokens.mark()));
                }
                Some("return_type") | Some("type_parameters") | Some("decorator") => {
                    match field {
                        Some("return_type") => returns = self.stated_return_type(child),
                        Some("type_parameters") => self.declare_type_parameters(child),
                        _ => {}
                    }
                    let start = self.tokens.mark();
                    self.visit(child, depth + 1);
                    signature.push((start, self.tokens.mark()));
                }
                Some("body") => {
                    let start = self.tokens.mark();
                    if child.kind_str() == "statement_block" {
                        // The function scope is the body's scope.
                        self.visit_children(child, depth + 1);
                    } else if let (Some(def), true) = (
                        ctx.def,
                        is_function_node(child.kind_str()) || is_class_node(child.kind_str()),
                    ) {
                        // `() => (state) => ...`: the returned function is a definition.
                        self.returned_literal(def, child, depth + 1);
                    } else {
                        self.visit(child, depth + 1);
                        // `() => new Foo()` returns what its body is.
                        if let Some(def) = ctx.def {
                            self.infer_return(def, child);
                        }
                    }
                    body_hash = Some(self.tokens.hash_since(start));
                }
                _ => {
                    match child.kind_str() {
                        "async" => seed |= 1,
                        "*" => seed |= 2,
                        "get" => seed |= 4,
                        "set" => seed |= 8,
                        "static" => seed |= 16,
                        // `private`, `override`, `readonly`, `abstract`, an optional `m?()`.
                        "accessibility_modifier"
                        | "override_modifier"
                        | "readonly"
                        | "abstract"
                        | "?" => seed ^= xxh3_64(self.text(child).as_bytes()).rotate_left(8),
                        _ => {}
                    }
                    self.visit(child, depth + 1);
                }
            }
        }

        self.namespace = namespace;
        self.returns_to.pop();
        self.stated_returns.pop();
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
            // A stated return type wins over what the `return`s say.
            if returns.is_some() {
                d.returns = returns;
            }
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
        // A callback of an iteration method: one parameter is the array's element. A
        // callback of another call: each parameter is what the callee passes it.
        let hint = self.param_hint.take();
        let callback_of = self.callback_of.take();
        let function_is = self.function_is.take();
        let hinted = |ex: &mut Self, i: usize| {
            let at = u32::try_from(i).ok().filter(|&i| i <= 0xffff)?;
            hint.filter(|(h, _)| *h == i)
                .map(|(_, v)| v)
                .or_else(|| {
                    let (callee, arg) = callback_of?;
                    let slot = (u32::from(arg) << 16) | at;
                    Some(ex.sym(Sym::CallbackParam(callee, slot)))
                })
                .or_else(|| Some(ex.sym(Sym::ParamType(function_is?, at))))
        };
        let mut texts = Vec::new();
        if params.kind_str() == "identifier" {
            texts.push(self.intern_node(params));
            let value = hinted(self, 0).unwrap_or_else(|| self.unknown());
            let name = self.intern_node(params);
            self.declare(name, value, false);
        } else {
            let list = self.named_kids(params);
            let mut index = 0;
            for p in list {
                if p.kind_str() == "comment" {
                    continue;
                }
                let collapsed: String = self
                    .text(p)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                texts.push(self.intern(&collapsed));
                if is_this_parameter(p) {
                    // What `this` is in the body: the function is called as a method
                    // of a `T` (`function (this: FastifyInstance, req, reply)`).
                    self.walk_this_parameter(p);
                    continue;
                }
                let hint = hinted(self, index);
                let stated = self.declare_parameter(p, constructor_of, hint);
                if let Some(def) = def {
                    self.parameter_types(p, def, index, stated);
                }
                index += 1;
            }
        }
        if let Some(def) = def {
            self.def_mut(def).params = texts;
        }
        self.visit(params, depth + 1);
    }

    /// Records what parameter `p` (at `index` of `def`, its stated value `stated`) says
    /// of the arguments it receives: their types ([`ParamType`]) and, for a function
    /// type, what a function passed there receives ([`CallbackParam`]). A rest
    /// parameter speaks for every argument from `index` on (`...handlers: H[]`), or
    /// for one each (`...pair: [A, B]`).
    fn parameter_types(&mut self, p: Node<'s>, def: DefIdx, index: usize, stated: Option<SymId>) {
        let ty = p.field(Field::Type).and_then(|t| t.named_child(0));
        let spread = match ty {
            Some(t) if is_rest_parameter(p) => self.rest_elements(t),
            _ => None,
        };
        let record = |ex: &mut Self, at: usize, ty: Option<Node<'s>>, value, rest| {
            let Ok(at) = u16::try_from(at) else { return };
            if let Some(t) = ty {
                ex.callback_types(t, def, at, rest);
            }
            if let Some(value) = value {
                ex.facts.param_types.push(ParamType {
                    def,
                    index: at,
                    value,
                    rest,
                });
            }
        };
        match spread {
            Some(RestType::Each(element)) => {
                let value = self.value_of_type(element, 0);
                record(self, index, Some(element), value, true);
            }
            Some(RestType::Tuple(elements)) => {
                for (k, element) in elements.into_iter().enumerate() {
                    let value = self.value_of_type(element, 0);
                    record(self, index + k, Some(element), value, false);
                }
            }
            None => record(self, index, ty, stated, false),
        }
    }

    /// `cb: (builder: Builder, api: Api) => void` (`ty`, the type of argument `arg` of
    /// `def`): records what a function passed there receives (see [`CallbackParam`]).
    fn callback_types(&mut self, ty: Node<'s>, def: DefIdx, arg: u16, rest: bool) {
        let Some(ty) = function_type_in(ty) else {
            return;
        };
        let Some(list) = self
            .named_kids(ty)
            .into_iter()
            .find(|c| c.kind_str() == "formal_parameters")
        else {
            return;
        };
        let params: Vec<Node<'s>> = self
            .named_kids(list)
            .into_iter()
            .filter(|&c| c.kind_str() != "comment" && !is_this_parameter(c))
            .collect();
        for (param, q) in params.into_iter().enumerate() {
            let Ok(param) = u16::try_from(param) else {
                return;
            };
            let value = q.field(Field::Type).and_then(|t| self.type_annotation(t));
            if let Some(value) = value {
                self.facts.callback_params.push(CallbackParam {
                    def,
                    arg,
                    param,
                    value,
                    rest,
                });
            }
        }
    }

    /// `this: T` as a function's first parameter: inside it, `this` is a `T`.
    fn walk_this_parameter(&mut self, p: Node<'s>) {
        let stated = p.field(Field::Type).and_then(|t| self.type_annotation(t));
        // An arrow function cannot declare `this` (TypeScript rejects it), so the top of
        // the stack is the function's own context.
        if let (Some(value), Some(top)) = (stated, self.this.last_mut()) {
            *top = ThisCtx::Stated(value);
        }
    }

    /// Declares a parameter's names; returns its stated type, if it has one.
    fn declare_parameter(
        &mut self,
        p: Node<'s>,
        constructor_of: Option<DefIdx>,
        hint: Option<SymId>,
    ) -> Option<SymId> {
        match p.kind_str() {
            "required_parameter" | "optional_parameter" => {
                let pattern = p.field(Field::Pattern).or_else(|| p.field(Field::Name));
                let stated = p.field(Field::Type).and_then(|t| self.type_annotation(t));
                let typed = stated.or(hint);
                if let Some(pattern) = pattern {
                    self.declare_pattern(pattern, typed, false);
                    // `constructor(private repo: Repo)` declares a field too.
                    let is_property = self
                        .kids(p)
                        .iter()
                        .any(|c| matches!(c.kind_str(), "accessibility_modifier" | "readonly"));
                    if let (true, Some(class), "identifier") =
                        (is_property, constructor_of, pattern.kind_str())
                    {
                        let name = self.intern_node(pattern);
                        let value = typed.unwrap_or_else(|| self.unknown());
                        self.add_prop(class, name, value);
                    }
                }
                stated
            }
            _ => {
                self.declare_pattern(p, hint, false);
                None
            }
        }
    }

    /// `<T, U extends X>`: type parameters are names in the function's (or class's)
    /// scope, so `x: T` is not mistaken for a global `T`.
    ///
    /// `<T extends Entity = User>`: inside the declaration, `T` stands for its constraint
    /// (every T has the constraint's members, as TypeScript reads them), else for its
    /// default.
    pub(crate) fn declare_type_parameters(&mut self, params: Node<'s>) {
        let list = self.named_kids(params);
        for p in list {
            if p.kind_str() != "type_parameter" {
                continue;
            }
            let Some(n) = p.field(Field::Name) else {
                continue;
            };
            let name = self.intern_node(n);
            let bound = p
                .field(Field::Constraint)
                .or_else(|| p.field(Field::Value))
                .and_then(|b| b.named_child(0));
            let value = bound
                .and_then(|b| self.type_sym(b))
                .unwrap_or_else(|| self.unknown());
            self.declare(name, value, false);
        }
    }

    /// Declares every name a binding pattern introduces; `value` is what the whole
    /// pattern is bound to, so `{ a, b: c }` binds `a` to `value.a` and `c` to `value.b`.
    pub(crate) fn declare_pattern(&mut self, pattern: Node<'s>, value: Option<SymId>, hoist: bool) {
        self.declare_pattern_at(pattern, value, hoist, 0)
    }

    fn declare_pattern_at(
        &mut self,
        pattern: Node<'s>,
        value: Option<SymId>,
        hoist: bool,
        level: usize,
    ) {
        if level > MAX_PATTERN_DEPTH {
            return;
        }
        let level = level + 1;
        match pattern.kind_str() {
            "identifier" | "shorthand_property_identifier_pattern" => {
                let name = self.intern_node(pattern);
                let v = value.unwrap_or_else(|| self.unknown());
                self.declare(name, v, hoist);
            }
            "object_pattern" => {
                let items = self.named_kids(pattern);
                for item in items {
                    match item.kind_str() {
                        "shorthand_property_identifier_pattern" => {
                            let name = self.intern_node(item);
                            let v = value.map(|v| self.sym(Sym::Member(v, name)));
                            self.declare_pattern_at(item, v, hoist, level);
                        }
                        "pair_pattern" => {
                            let key = item.field(Field::Key);
                            let key = key.and_then(|k| self.key_name(k));
                            let v = match (value, key) {
                                (Some(v), Some(k)) => Some(self.sym(Sym::Member(v, k))),
                                _ => None,
                            };
                            if let Some(target) = item.field(Field::Value) {
                                self.declare_pattern_at(target, v, hoist, level);
                            }
                        }
                        "object_assignment_pattern" => {
                            if let Some(left) = item.field(Field::Left) {
                                let v =
                                    if left.kind_str() == "shorthand_property_identifier_pattern" {
                                        let name = self.intern_node(left);
                                        value.map(|v| self.sym(Sym::Member(v, name)))
                                    } else {
                                        None
                                    };
                                self.declare_pattern_at(left, v, hoist, level);
                            }
                        }
                        "rest_pattern" => {
                            if let Some(inner) = item.named_child(0) {
                                self.declare_pattern_at(inner, None, hoist, level);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "array_pattern" => {
                let items = self.named_kids(pattern);
                for item in items {
                    self.declare_pattern_at(item, None, hoist, level);
                }
            }
            "assignment_pattern" => {
                if let Some(left) = pattern.field(Field::Left) {
                    self.declare_pattern_at(left, value, hoist, level);
                }
            }
            "rest_pattern" => {
                if let Some(inner) = pattern.named_child(0) {
                    self.declare_pattern_at(inner, None, hoist, level);
                }
            }
            _ => {}
        }
    }

    pub(crate) fn function_declaration(&mut self, node: Node<'s>, depth: usize) {
        let Some(name_node) = node.field(Field::Name) else {
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
        let this = self.constructor_this(def);
        self.function_like(
            node,
            FnCtx {
                def: Some(def),
                this,
            },
            depth,
        );
    }

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
        let mut returns = self.facts.def(def).returns;
        let mut count = 0;
        while let Some(r) = returns {
            count += 1;
            returns = match self.facts.syms.get(r as usize) {
                Some(Sym::Either(first, _)) => Some(*first),
                _ => None,
            };
        }
        count < 3
    }

    /// Records one more thing `def` returns (see [`Self::may_add_return`]).
    fn add_return(&mut self, def: DefIdx, sym: SymId) {
        let returns = self.one_more(self.facts.def(def).returns, sym);
        self.def_mut(def).returns = Some(returns);
    }

    /// `return <expr>` inside a definition.
    pub(crate) fn return_statement(&mut self, node: Node<'s>, depth: usize) {
        let target = self.returns_to.last().copied().flatten();
        let value = node.named_child(0).filter(|v| v.kind_str() != "comment");
        match (target, value) {
            (Some(def), Some(value))
                if value.kind_str() == "object" && self.may_add_return(def) =>
            {
                self.walk_around(node, value, depth, |ex, value| {
                    let label = format!("{}()", ex.facts.def_name(def));
                    let name = ex.intern(&label);
                    let object = ex.object_literal(value, name, None, None, depth + 1);
                    let qualified = format!("{}()", ex.facts.def_qualified(def));
                    let qualified = ex.intern(&qualified);
                    ex.rename_object(object, qualified);
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
            _ => self.visit_children(node, depth),
        }
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

    /// A function's stated return type, noted for the function literals it returns.
    #[inline(never)]
    fn stated_return_type(&mut self, annotation: Node<'s>) -> Option<SymId> {
        let returns = self.return_type(annotation);
        if let Some(top) = self.stated_returns.last_mut() {
            *top = returns;
        }
        returns
    }

    /// The stated return type of the function being walked, if it states one.
    fn stated_return(&self) -> Option<SymId> {
        self.stated_returns.last().copied().flatten()
    }

    /// A function or class that a definition returns (`return function createSlice() {}`,
    /// `() => (state) => ...`) is a definition too: what the factory's result calls.
    /// It is named by its own name, else after the factory (`makeSelector()`).
    pub(crate) fn returned_literal(&mut self, def: DefIdx, value: Node<'s>, depth: usize) {
        // Each level costs what a function handler's frames cost (see `handler`); past
        // the limit the plain walk cuts the subtree.
        let depth = depth + 4;
        if depth >= super::MAX_DEPTH {
            return self.visit(value, depth);
        }
        let name = match value.field(Field::Name) {
            Some(n) => self.intern_node(n),
            None => {
                let label = format!("{}()", self.facts.def_name(def));
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
        if value.field(Field::Name).is_none() {
            // Named after the call that makes it: `makeSelector()`, not nested in it.
            let qualified = format!("{}()", self.facts.def_qualified(def));
            let qualified = self.intern(&qualified);
            self.rename_object(inner, qualified);
        }
        let sym = self.sym(Sym::Def(inner));
        self.add_return(def, sym);
    }

    /// Walks `node`'s children in order, handing `special` to `handle` instead.
    pub(crate) fn walk_around(
        &mut self,
        node: Node<'s>,
        special: Node<'s>,
        depth: usize,
        handle: impl FnOnce(&mut Self, Node<'s>),
    ) {
        let children = self.kids(node);
        let mut handle = Some(handle);
        for child in children {
            match (child == special, handle.take()) {
                (true, Some(h)) => h(self, child),
                (_, h) => {
                    handle = h;
                    self.visit(child, depth + 1);
                }
            }
        }
    }

    /// Gives an object definition and its members a new qualified name prefix.
    fn rename_object(&mut self, object: DefIdx, qualified: StrId) {
        let old = self.facts.def_qualified(object).to_string();
        let new = self.facts.str(qualified).to_string();
        self.def_mut(object).qualified = qualified;
        let prefix = format!("{old}.");
        for i in 0..self.facts.defs.len() {
            let q = self.facts.str(self.facts.defs[i].qualified).to_string();
            if let Some(rest) = q.strip_prefix(&prefix) {
                let renamed = format!("{new}.{rest}");
                let id = self.intern(&renamed);
                self.facts.defs[i].qualified = id;
            }
        }
    }

    /// A capitalised plain function is an ES5 constructor (`function Emitter() {
    /// this.on = function () {} }`): its `this` is an instance of it.
    fn constructor_this(&self, def: DefIdx) -> Option<ThisCtx> {
        let name = self.facts.def_name(def);
        name.starts_with(|c: char| c.is_ascii_uppercase())
            .then_some(ThisCtx::Of(def))
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
            (DefKind::Function, _) | (_, None) if node.kind_str() != "arrow_function" => {
                self.constructor_this(def)
            }
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
        if depth >= MAX_DEPTH {
            // Too deep to walk as a definition: the caller walks it (and cuts it) as a
            // plain value.
            return None;
        }
        let kind = value.kind_str();
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
            // Objects nest objects without passing through `visit`: charge the frames.
            return Some(self.object_literal(value, name, container, name_node, depth + 2));
        }
        if is_literal_wrapper(kind) {
            let inner = value.named_child(0)?;
            if wraps_literal(inner) {
                return self.tokens_of_wrapping(value, inner, name, container, name_node, depth);
            }
            return None;
        }
        if kind == "call_expression" {
            if value
                .field(Field::Function)
                .is_some_and(|callee| self.text(callee) == "Object.create")
            {
                return Some(self.created_object(value, name, container, name_node, depth));
            }
            return self.wrapped_function(value, name, container, name_node, depth);
        }
        None
    }

    /// `var res = Object.create(http.ServerResponse.prototype)`: an object, whose members
    /// are what the file assigns to it next (`res.send = function () {}`, Express's
    /// pattern), whose methods have it as `this`, and which inherits the rest from its
    /// prototype, as a class from what it extends (Koa's `Object.create(this.context)`).
    fn created_object(
        &mut self,
        call: Node<'s>,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> DefIdx {
        let proto = call
            .field(Field::Arguments)
            .and_then(|args| args.named_child(0))
            .map(|proto| self.expr_sym(proto));
        let def = self.new_def(DefKind::Object, name, container, call, name_node);
        self.def_mut(def).extends = proto;
        self.names.push(def);
        self.visit(call, depth + 1);
        self.names.pop();
        def
    }

    /// `(function () {})`, `{...} as const` or `((...args) => {..}) as CreateAppFunction`:
    /// bind the inner literal, walk the rest.
    fn tokens_of_wrapping(
        &mut self,
        outer: Node<'s>,
        inner: Node<'s>,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> Option<DefIdx> {
        let children = self.kids(outer);
        let mut def = None;
        for child in children {
            if child == inner {
                def = self.bound_value(inner, name, container, name_node, depth + 1);
            } else {
                self.visit(child, depth + 1);
            }
        }
        // `(..) as CreateAppFunction`: callers see what the type says a call returns,
        // as TypeScript does, not what the body returns (zustand's `create` returns one
        // of two things by a condition its type resolves).
        if let (Some(d), "as_expression") = (def, outer.kind_str()) {
            if matches!(self.facts.def(d).kind, DefKind::Function | DefKind::Method) {
                let stated = outer.named_child(1).and_then(|t| self.value_of_type(t, 0));
                if let Some(t) = stated {
                    let returns = self.sym(Sym::Return(t));
                    self.def_mut(d).returns = Some(returns);
                }
            }
        }
        def
    }

    /// Whether `callee` is one of the known wrappers (`memo`, `React.memo`, ...).
    fn is_wrapper(&self, callee: Node<'s>) -> bool {
        let name = match callee.kind_str() {
            "identifier" => Some(callee),
            "member_expression" => callee.field(Field::Property),
            _ => None,
        };
        name.is_some_and(|n| WRAPPERS.contains(&self.text(n)))
    }

    /// `memo(Profile)`, `debounce(save, 100)`: a wrapper called on a named function
    /// stands for that function.
    pub(crate) fn wrapped_value(&self, call: Node<'s>) -> Option<Node<'s>> {
        let callee = call.field(Field::Function)?;
        if !self.is_wrapper(callee) {
            return None;
        }
        let first = call.field(Field::Arguments)?.named_child(0)?;
        matches!(first.kind_str(), "identifier" | "member_expression").then_some(first)
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
        let callee = call.field(Field::Function)?;
        if !self.is_wrapper(callee) {
            return None;
        }
        let args = call.field(Field::Arguments)?;
        let first = args.named_child(0)?;
        if !is_function_node(first.kind_str()) {
            return None;
        }
        // Record the wrapper call itself, then bind the literal.
        self.record_call_of(call, CallKind::Call, callee, depth);
        let children = self.kids(args);
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
        let hoist = node.kind_str() == "variable_declaration";
        let children = self.kids(node);
        for child in children {
            if child.kind_str() == "variable_declarator" {
                self.variable_declarator(child, hoist, depth + 1);
            } else {
                self.visit(child, depth + 1);
            }
        }
    }

    fn variable_declarator(&mut self, node: Node<'s>, hoist: bool, depth: usize) {
        let Some(target) = node.field(Field::Name) else {
            return self.visit_children(node, depth);
        };
        let value = node.field(Field::Value);
        let annotation = node.field(Field::Type);
        if target.kind_str() == "identifier" {
            // `export const f = ...` in a namespace: a member of it.
            let namespace = self.namespace;
            let name = self.intern_node(target);
            self.tokens.leaf(target, self.src);
            let mut typed = None;
            if let Some(t) = annotation {
                typed = self.type_annotation(t);
                self.visit(t, depth + 1);
                if let Some(typed) = typed {
                    self.declare(name, typed, hoist);
                }
            }
            let mut member_value = typed;
            if let Some(value) = value {
                // Declare first: the literal may refer to itself.
                let placeholder = self.unknown();
                let binding = self.declare(name, placeholder, hoist);
                // `const parse: Parse = (schema, value) => ...`: the literal's parameters
                // are what the stated function type says.
                let literal = is_function_node(value.kind_str());
                if literal {
                    self.function_is = typed;
                }
                let def = self.bound_value(value, name, None, Some(target), depth + 1);
                self.function_is = None;
                if let Some(def) = def {
                    let sym = self.sym(Sym::Def(def));
                    let current = self.facts.bindings[binding as usize].value;
                    let shared = matches!(self.facts.syms[current as usize], Sym::Either(..));
                    if literal && !shared {
                        // The literal is the value: calling the name runs its code,
                        // whatever type it was given. (A name that is also a type keeps
                        // both meanings: `rebind` fills in the value's.)
                        self.facts.bindings[binding as usize].value = sym;
                    } else {
                        self.rebind(binding, sym);
                    }
                    if namespace.is_some() && self.facts.def(def).container.is_none() {
                        self.def_mut(def).container = namespace;
                        member_value = None;
                    }
                } else if value.kind_str() == "assignment_expression" {
                    // `var proto = module.exports = function () {}`: the assignment
                    // defines the literal; the name stands for it.
                    self.visit(value, depth + 1);
                    let sym = self.expr_sym(value);
                    self.rebind(binding, sym);
                    member_value = Some(self.facts.bindings[binding as usize].value);
                } else {
                    let sym = self.expr_sym(value);
                    self.rebind(binding, sym);
                    self.visit(value, depth + 1);
                    member_value = Some(self.facts.bindings[binding as usize].value);
                }
            } else {
                let unknown = self.unknown();
                self.declare(name, unknown, hoist);
            }
            if let (Some(ns), Some(value)) = (namespace, member_value) {
                self.add_prop(ns, name, value);
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
        match self.facts.syms[current as usize] {
            Sym::Unknown => self.facts.bindings[binding as usize].value = value,
            // The value beside a type of the same name, declared before it was known.
            Sym::Either(ty, placeholder)
                if matches!(self.facts.syms[placeholder as usize], Sym::Unknown) =>
            {
                self.facts.syms[current as usize] = Sym::Either(ty, value)
            }
            _ => {}
        }
    }

    pub(crate) fn for_in_bindings(&mut self, node: Node<'s>) {
        if node.field(Field::Kind).is_none() {
            return;
        }
        let hoist = node
            .field(Field::Kind)
            .is_some_and(|k| k.kind_str() == "var");
        // `for (const item of items)`: item is an element of items.
        let element = match (
            node.child_by_field_name("operator"),
            node.field(Field::Right),
        ) {
            (Some(op), Some(right)) if op.kind_str() == "of" => {
                let array = self.expr_sym(right);
                Some(self.sym(Sym::Element(array)))
            }
            _ => None,
        };
        if let Some(left) = node.field(Field::Left) {
            self.declare_pattern(left, element, hoist);
        }
    }

    // ---- classes ----

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
        // `@Component(...) export class X`: the decorators belong to the export statement.
        let mut children: Vec<Node<'s>> = match node.parent() {
            Some(p) if p.kind_str() == "export_statement" => {
                let mut decorators = self.kids(p).into_vec();
                decorators.retain(|c| c.kind_str() == "decorator");
                decorators
            }
            _ => Vec::new(),
        };
        children.extend(self.kids(node));
        for child in children {
            match child.kind_str() {
                "decorator" => {
                    let start = self.tokens.mark();
                    self.visit(child, depth + 1);
                    signature.push((start, self.tokens.mark()));
                }
                "class_heritage" => {
                    let start = self.tokens.mark();
                    let extends = heritage_value(child);
                    if let Some(e) = extends {
                        let sym = self.expr_sym(e);
                        self.def_mut(def).extends = Some(sym);
                    }
                    for ty in implemented_types(child) {
                        if let Some(sym) = self.type_sym(ty) {
                            self.facts.implements.push((def, sym));
                        }
                    }
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

    fn class_body(&mut self, body: Node<'s>, class: DefIdx, depth: usize) {
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

    // ---- interfaces and namespaces ----

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
        let value = self.sym(Sym::Def(def));
        self.declare(name, value, false);
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
                    self.def_mut(def).extends = extends;
                    self.visit(child, depth + 1);
                }
                "interface_body" | "object_type" => {
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
            // `declare module 'x' {}`: an ambient module, not a value; what it exports is
            // module x's, not this file's.
            let outer = std::mem::replace(&mut self.module_block, true);
            self.visit_children(node, depth);
            self.module_block = outer;
            return;
        }
        let ambient = self.ambient
            || self.declaration_only
            || node
                .parent()
                .is_some_and(|p| p.kind_str() == "ambient_declaration");
        let name = self.intern_node(name_node);
        let def = self.new_def(DefKind::Object, name, self.namespace, node, Some(name_node));
        let value = self.sym(Sym::Def(def));
        self.declare(name, value, false);
        self.tokens.leaf(name_node, self.src);
        self.names.push(def);
        let outer = self.namespace.take();
        let outer_block = std::mem::replace(&mut self.module_block, true);
        let outer_ambient = std::mem::replace(&mut self.ambient, ambient);
        self.push_scope(ScopeKind::Function);
        let statements = self.kids(body);
        for statement in statements {
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
            if let Some(params) = node.field(Field::TypeParameters) {
                self.declare_type_parameters(params);
            }
            let shape = node
                .field(Field::Value)
                .filter(|v| v.kind_str() == "object_type");
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
                    self.names.push(def);
                    self.walk_around(node, shape, depth, |ex, v| {
                        ex.interface_members(v, def, depth + 1)
                    });
                    self.names.pop();
                    Some(self.sym(Sym::Def(def)))
                }
                None => {
                    let value = node.field(Field::Value).and_then(|v| self.type_sym(v));
                    self.visit_children(node, depth);
                    value
                }
            };
            self.pop_scope();
            let value = value.unwrap_or_else(|| self.unknown());
            self.declare(name, value, false);
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
        let items = self.kids(node);
        for item in items {
            match item.kind_str() {
                "pair" => self.object_pair(item, def, depth + 1),
                "method_definition" => {
                    self.method(item, def, depth + 1);
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

    fn object_pair(&mut self, pair: Node<'s>, object: DefIdx, depth: usize) {
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
            if let Some(def) = self.bound_value(child, key, Some(object), key_node, depth + 1) {
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

    // ---- exported flags ----

    /// Marks the definitions that exports reach within this file: what is exported, and
    /// what an exported object holds (its members and the values of its properties,
    /// nested objects included).
    pub(crate) fn mark_exported(&mut self) {
        let facts = &mut self.facts;
        let mut members: FxHashMap<DefIdx, Vec<DefIdx>> = FxHashMap::default();
        for (i, d) in facts.defs.iter().enumerate() {
            if let Some(c) = d.container {
                members.entry(c).or_default().push(i as DefIdx);
            }
        }
        let mut props: FxHashMap<DefIdx, Vec<(StrId, SymId)>> = FxHashMap::default();
        for p in &facts.props {
            props.entry(p.object).or_default().push((p.name, p.value));
        }

        let mut syms: Vec<SymId> = facts
            .exports
            .iter()
            .filter_map(|e| match e.value {
                ExportValue::Local(s) => Some(s),
                _ => None,
            })
            .collect();
        syms.extend(facts.module_exports);
        let mut defs: Vec<DefIdx> = Vec::new();
        let mut seen_syms = FxHashSet::default();
        let mut seen_defs = vec![false; facts.defs.len()];
        loop {
            if let Some(d) = defs.pop() {
                if std::mem::replace(&mut seen_defs[d as usize], true) {
                    continue;
                }
                let def = &mut facts.defs[d as usize];
                def.exported = true;
                if def.kind == DefKind::Object {
                    defs.extend(members.get(&d).into_iter().flatten());
                    syms.extend(props.get(&d).into_iter().flatten().map(|&(_, v)| v));
                }
                continue;
            }
            let Some(sym) = syms.pop() else { break };
            if !seen_syms.insert(sym) {
                continue;
            }
            match facts.syms[sym as usize] {
                Sym::Binding(b) => syms.push(facts.bindings[b as usize].value),
                Sym::Either(a, b) => syms.extend([a, b]),
                Sym::Def(d) => defs.push(d),
                // `Object.assign(module.exports, { f })` exports `module.exports.f`.
                Sym::Member(base, name) => {
                    let Some(owner) = local_def(facts, base) else {
                        continue;
                    };
                    defs.extend(
                        members
                            .get(&owner)
                            .into_iter()
                            .flatten()
                            .filter(|&&m| facts.defs[m as usize].name == name),
                    );
                    syms.extend(
                        props
                            .get(&owner)
                            .into_iter()
                            .flatten()
                            .filter(|&&(n, _)| n == name)
                            .map(|&(_, v)| v),
                    );
                }
                _ => {}
            }
        }
    }
}

/// The definition `sym` denotes through this file's bindings, if any.
fn local_def(facts: &FileFacts, mut sym: SymId) -> Option<DefIdx> {
    for _ in 0..8 {
        match facts.syms[sym as usize] {
            Sym::Def(d) => return Some(d),
            Sym::Binding(b) => sym = facts.bindings[b as usize].value,
            _ => return None,
        }
    }
    None
}

/// The types after `implements` in a class heritage.
fn implemented_types(heritage: Node) -> Vec<Node> {
    let clauses: Vec<Node> = Children::of(heritage)
        .named()
        .filter(|c| c.kind_str() == "implements_clause")
        .collect();
    let mut types = Vec::new();
    for clause in clauses {
        types.extend(
            Children::of(clause)
                .named()
                .filter(|t| t.kind_str() != "comment"),
        );
    }
    types
}

/// The `extends` expression of a class heritage, in either grammar.
fn heritage_value(heritage: Node) -> Option<Node> {
    for child in Children::of(heritage).named() {
        if child.kind_str() == "extends_clause" {
            return child.field(Field::Value);
        }
        if child.kind_str() != "implements_clause" && child.kind_str() != "comment" {
            return Some(child);
        }
    }
    None
}

/// `this: T` in a parameter list: TypeScript's declaration of what `this` is, not a
/// parameter (callers pass nothing for it, so the parameters after it count from 0).
pub(crate) fn is_this_parameter(p: Node<'_>) -> bool {
    matches!(p.kind_str(), "required_parameter" | "optional_parameter")
        && p.field(Field::Pattern)
            .is_some_and(|n| n.kind_str() == "this")
}

/// `...rest` in a parameter list.
pub(crate) fn is_rest_parameter(p: Node<'_>) -> bool {
    matches!(p.kind_str(), "required_parameter" | "optional_parameter")
        && p.field(Field::Pattern)
            .is_some_and(|n| n.kind_str() == "rest_pattern")
}

/// The function type a parameter's type is or includes: `(x: X) => void`, and the
/// function member of `Level | ((em: Manager) => T)` or `((x: X) => void) | undefined`.
fn function_type_in(ty: Node<'_>) -> Option<Node<'_>> {
    match ty.kind_str() {
        "function_type" => Some(ty),
        "parenthesized_type" => ty.named_child(0).and_then(function_type_in),
        "union_type" => {
            let members: Vec<Node<'_>> = Children::of(ty).named().collect();
            members.into_iter().find_map(function_type_in)
        }
        _ => None,
    }
}
