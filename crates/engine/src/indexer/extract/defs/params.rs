//! Parameters and binding patterns: the names a function's parameters, a destructuring
//! pattern or a type parameter list declare, and what their stated types say.

use tree_sitter::Node;

use crate::indexer::extract::fields::{Field, FieldExt};
use crate::indexer::extract::syntax::{function_type_in, is_rest_parameter, is_this_parameter};
use crate::indexer::extract::types::{RestType, MAX_TUPLE_ITEMS};
use crate::indexer::extract::{Extractor, ThisCtx};
use crate::indexer::facts::*;

/// Destructuring patterns nested deeper than this bind nothing more.
const MAX_PATTERN_DEPTH: usize = 64;

impl<'s> Extractor<'s> {
    /// Declares the parameters in the function's scope and walks them (default values
    /// can call things).
    pub(super) fn parameters(&mut self, params: Node<'s>, def: Option<DefIdx>, depth: usize) {
        let constructor_of = def.and_then(|d| {
            let d = &self.facts.defs[d as usize];
            (d.kind == DefKind::Constructor)
                .then_some(d.container())
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
        // The parameters' JSDoc types, read once: later functions (in default values)
        // have their own.
        let doc_params = std::mem::take(&mut self.doc_params);
        if params.kind_str() == "identifier" {
            let value = self
                .doc_param(&doc_params, params)
                .and_then(|d| d.value)
                .or_else(|| hinted(self, 0))
                .unwrap_or_else(|| self.unknown());
            let name = self.intern_node(params);
            self.declare(name, value, false);
        } else {
            let list = self.named_kids(params);
            let mut index = 0;
            for p in list {
                if p.kind_str() == "comment" {
                    continue;
                }
                if is_this_parameter(p) {
                    // What `this` is in the body: the function is called as a method
                    // of a `T` (`function (this: FastifyInstance, req, reply)`).
                    self.walk_this_parameter(p);
                    continue;
                }
                let hint = hinted(self, index);
                let doc = self.doc_param(&doc_params, p);
                let stated =
                    self.declare_parameter(p, constructor_of, hint, doc.and_then(|d| d.value));
                if let (Some(def), Some(doc)) = (def, doc) {
                    self.doc_callback(def, index, doc);
                }
                if let Some(def) = def {
                    self.parameter_types(p, def, index, stated);
                    self.note_parameter_kinds(def, index, p);
                }
                index += 1;
            }
        }
        self.doc_params = doc_params;
        self.doc_params.clear();
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

    /// Declares a parameter's names; returns its stated type, if it has one (`doc`:
    /// what JSDoc states for it, in JavaScript).
    fn declare_parameter(
        &mut self,
        p: Node<'s>,
        constructor_of: Option<DefIdx>,
        hint: Option<SymId>,
        doc: Option<SymId>,
    ) -> Option<SymId> {
        match p.kind_str() {
            "required_parameter" | "optional_parameter" => {
                let pattern = p.field(Field::Pattern).or_else(|| p.field(Field::Name));
                let stated = p.field(Field::Type).and_then(|t| self.type_annotation(t));
                let typed = stated.or(hint);
                if let Some(pattern) = pattern {
                    self.declare_pattern(pattern, typed, false);
                    if pattern.kind_str() == "identifier" {
                        let name = self.intern_node(pattern);
                        self.note_declared_kinds(
                            name,
                            p.field(Field::Type),
                            p.field(Field::Value),
                            true,
                        );
                        if p.field(Field::Type).is_none() && p.field(Field::Value).is_none() {
                            self.note_untyped_parameter(name);
                        }
                    }
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
                        self.note_field_kinds(class, name, p.field(Field::Type), None, true);
                    }
                }
                stated
            }
            // JavaScript: what the function's JSDoc states for it.
            _ => {
                self.declare_pattern(p, doc.or(hint), false);
                doc
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
        // Only the alias's own parameters take its arguments, not those of a function
        // type in a bound.
        let alias = self.generic_alias.take();
        let list = self.named_kids(params);
        let mut index = 0u32;
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
            let mut value = bound
                .and_then(|b| self.type_sym(b))
                .unwrap_or_else(|| self.unknown());
            // `type IfAny<T, Y, N> = ...`: where the alias is applied, each parameter
            // is the argument given for it.
            if let Some(key) = alias.filter(|_| index <= 0xff) {
                value = self.sym(Sym::TypeArg(value, key << 8 | index));
            }
            index += 1;
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
                // `const [state, setState] = useThing()`: item i is member `i` of the
                // value, which a tuple type has (an array's elements are not told apart,
                // and a hole `[, b]` counts as an item).
                let mut index = 0usize;
                for item in self.kids(pattern) {
                    match item.kind_str() {
                        "," => index += 1,
                        "[" | "]" | "comment" => {}
                        kind => {
                            let v = value
                                .filter(|_| kind != "rest_pattern" && index < MAX_TUPLE_ITEMS)
                                .map(|v| {
                                    let key = self.intern(&index.to_string());
                                    self.sym(Sym::Member(v, key))
                                });
                            self.declare_pattern_at(item, v, hoist, level);
                        }
                    }
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
}
