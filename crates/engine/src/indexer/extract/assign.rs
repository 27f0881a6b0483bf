//! Assignments that define or describe things: CommonJS exports, prototype methods,
//! `this.x = ...` fields, `X.helper = function`, and later values of `let` bindings.

use tree_sitter::Node;

use super::fields::{Field, FieldExt};
use super::{Extractor, ThisCtx};
use crate::indexer::facts::*;

impl<'s> Extractor<'s> {
    pub(crate) fn assignment(&mut self, node: Node<'s>, depth: usize) {
        let (Some(left), Some(right)) = (node.field(Field::Left), node.field(Field::Right)) else {
            return self.visit_children(node, depth);
        };
        // `parsed.search = f()`: `f`'s result goes to a place that has a type (in
        // TypeScript); `[a, b] = f()` iterates it. A name has such a type unless its
        // declaration took it from a call (`let qs = getQuery(a)` takes whatever
        // `getQuery` returns, `qs = getQuery(b)` too) or from nothing. An element
        // (`out[key] = f()`) is left alone: records and arrays of `unknown` or `any`,
        // or a value narrowed to one (`if (isArray(value))`), take anything; so is a
        // member of a `this` that no class or named object gives a type (a method of
        // an object literal cast `as any`: `this` is `any` there).
        let slot = match left.kind_str() {
            "member_expression" if self.member_of_untyped_this(left) => 0,
            "member_expression" if self.field_typed_by_value(left) => 0,
            "member_expression" => CallShape::ASSIGNED,
            "identifier" if self.holds_a_fixed_type(left) => CallShape::ASSIGNED,
            "array_pattern" => CallShape::ITERATED,
            _ => 0,
        };
        let used = slot != 0 && self.begin_result_use(right, slot);
        self.assignment_of(node, left, right, depth);
        if used {
            self.end_typed_use();
        }
    }

    /// `this.x`, where the class declares `x` with no stated type from a call.
    fn field_typed_by_value(&self, member: Node<'s>) -> bool {
        !self.fields_typed_by_value.is_empty()
            && self
                .field_key(member)
                .is_some_and(|key| self.fields_typed_by_value.contains(&key))
    }

    /// `this.x`, where `this` is not known to be a class's or a named object's.
    fn member_of_untyped_this(&self, member: Node<'s>) -> bool {
        member
            .field(Field::Object)
            .is_some_and(|o| o.kind_str() == "this")
            && matches!(self.current_this(), ThisCtx::Unknown)
    }

    /// Whether the name `name` has a type that its declaration fixed (a name not
    /// declared in the file, a parameter, one declared with a stated type or a value
    /// that is no call), and that is not known to take a promise.
    fn holds_a_fixed_type(&self, name: Node<'s>) -> bool {
        let Some(binding) = self
            .interned(self.text(name))
            .and_then(|name| self.binding_now(name))
        else {
            return true;
        };
        !self.typed_by_value.contains(&binding)
            && !self
                .binding_kinds
                .get(&binding)
                .is_some_and(|kinds| !kinds.is_any() && kinds.meets(ValueKinds::PROMISE))
    }

    fn assignment_of(&mut self, node: Node<'s>, left: Node<'s>, right: Node<'s>, depth: usize) {
        if self.using_declaration(node, left, right, depth) {
            return;
        }
        let handled = match left.kind_str() {
            "member_expression" => self.member_assignment(node, left, right, depth),
            "identifier" => self.identifier_assignment(node, left, right, depth),
            _ => false,
        };
        if handled {
            return;
        }
        self.assignment_target(left, depth);
        self.visit_kids_but(node, left, left, depth);
    }

    /// `using handle = open()` and `await using handle = open()` (TypeScript 5.2): the
    /// TypeScript grammar reads the declaration as an assignment after a `using`
    /// keyword. It declares `handle` in the block, as `const` would.
    fn using_declaration(
        &mut self,
        node: Node<'s>,
        left: Node<'s>,
        right: Node<'s>,
        depth: usize,
    ) -> bool {
        if left.kind_str() != "identifier" || node.child(0).is_none_or(|c| c.kind_str() != "using")
        {
            return false;
        }
        let name = self.intern_node(left);
        let value = self.expr_sym(right);
        self.declare(name, value, false);
        self.tokens.leaf(left, self.src);
        self.visit_kids_but(node, left, left, depth);
        true
    }

    /// Walks the left side: `a.b.c = ...` reads `a.b`, writes `c`.
    fn assignment_target(&mut self, left: Node<'s>, depth: usize) {
        if left.kind_str() == "member_expression" {
            self.visit_children(left, depth + 1);
        } else {
            self.visit(left, depth + 1);
        }
    }

    /// Walks `left = right` (the assignment `node`) where the right side became a
    /// definition. (The node is handed down: `left.parent()` walks from the root of the
    /// tree, across every statement before it in a file of prototype assignments.)
    fn finish_defining_assignment(
        &mut self,
        node: Node<'s>,
        left: Node<'s>,
        right: Node<'s>,
        depth: usize,
    ) {
        self.assignment_target(left, depth);
        self.visit_kids_but(node, left, right, depth);
    }

    /// Walks the children of `node` other than `a` and `b` (the sides of an
    /// assignment that were walked already).
    fn visit_kids_but(&mut self, node: Node<'s>, a: Node<'s>, b: Node<'s>, depth: usize) {
        for child in self.kids(node) {
            if child != a && child != b {
                self.visit(child, depth + 1);
            }
        }
    }

    fn identifier_assignment(
        &mut self,
        node: Node<'s>,
        left: Node<'s>,
        right: Node<'s>,
        depth: usize,
    ) -> bool {
        let name = self.intern_node(left);
        if super::syntax::is_function_node(right.kind_str()) || right.kind_str() == "class" {
            let Some(def) = self.bound_value(right, name, None, Some(left), depth + 1) else {
                return false;
            };
            let sym = self.sym(Sym::Def(def));
            self.set_if_unknown(name, sym);
            self.finish_defining_assignment(node, left, right, depth);
            return true;
        }
        // `let x; x = new Foo()`: the first known value is the binding's.
        let sym = self.expr_sym(right);
        self.set_if_unknown(name, sym);
        false
    }

    fn set_if_unknown(&mut self, name: StrId, value: SymId) {
        for scope in (0..self.scope_count()).rev() {
            if let Some(b) = self.binding_in(scope, name) {
                let current = self.facts.bindings[b as usize].value;
                if matches!(self.facts.syms.at(current), Sym::Unknown) {
                    self.facts.bindings[b as usize].value = value;
                }
                return;
            }
        }
    }

    fn member_assignment(
        &mut self,
        node: Node<'s>,
        left: Node<'s>,
        right: Node<'s>,
        depth: usize,
    ) -> bool {
        let Some(path) = member_path(left, self.src) else {
            return false;
        };
        let property = left.field(Field::Property);
        let mut segments: Vec<&str> = path.iter().map(|s| s.as_str()).collect();
        // `var helpers = exports; helpers.f = function () {}`: an export, as
        // `exports.f = ...` would be.
        if segments.len() > 1 && self.names_exports(segments[0]) {
            segments[0] = "exports";
        }
        match segments.as_slice() {
            ["module", "exports"] => {
                // `module.exports = function connect() {}` defines `connect`.
                let own = right
                    .field(Field::Name)
                    .filter(|_| is_function_like(right) || right.kind_str() == "class");
                let name = match own {
                    Some(n) => self.intern_node(n),
                    None => self.intern("module.exports"),
                };
                let sym = self.define_or_value(right, name, None, own, depth);
                self.facts.module_exports = Some(sym);
            }
            ["exports", x] | ["module", "exports", x] => {
                let name = self.intern(x);
                let sym = self.define_or_value(right, name, None, property, depth);
                self.facts.exports.push(Export {
                    name,
                    value: ExportValue::Local(sym),
                });
            }
            ["this", x] => {
                if !self.this_member_assignment(node, x, right, property, depth) {
                    return false;
                }
            }
            [owner, "prototype", m] => {
                let name = self.intern(m);
                let container = self.local_def(owner);
                let sym = match container {
                    Some(c) => self.define_or_value(right, name, Some(c), property, depth),
                    None => {
                        let qualified = format!("{owner}.{m}");
                        self.define_named(right, name, &qualified, property, depth)
                    }
                };
                if let Some(c) = container {
                    self.add_prop(c, name, sym);
                }
            }
            [owner, "prototype"] => {
                let Some(c) = self.local_def(owner) else {
                    return false;
                };
                let name = self.intern("prototype");
                let sym = self.define_or_value(right, name, Some(c), None, depth);
                self.add_prop(c, name, sym);
            }
            [owner, m] => {
                if !self.owner_member_assignment(owner, m, right, property, depth) {
                    return false;
                }
            }
            // `exports.array = {}; exports.array.flatten = function flatten() {}`: a
            // member of the object a path of this file's names leads to.
            [owner @ .., m] => match self.path_def(owner) {
                Some(c) => self.member_of_def(c, m, right, property, depth),
                None if is_function_like(right) => {
                    let name = self.intern(m);
                    let qualified = segments.join(".");
                    self.define_named(right, name, &qualified, property, depth);
                }
                None => return false,
            },
            [] => return false,
        }
        self.finish_defining_assignment(node, left, right, depth);
        true
    }

    /// `this.x = ...` in a class: a member of the class, or the implementation of a
    /// field declared with a type. False outside a class.
    fn this_member_assignment(
        &mut self,
        node: Node<'s>,
        x: &str,
        right: Node<'s>,
        property: Option<Node<'s>>,
        depth: usize,
    ) -> bool {
        let ThisCtx::Of(class) = self.current_this() else {
            return false;
        };
        let name = self.intern(x);
        // `/** @type {Client} */ this.client = client;`: the field holds a Client.
        let stated = match self.reads_jsdoc && !is_function_like(right) {
            true => self.doc_type_at(node.start_byte()),
            false => None,
        };
        let sym = self.define_or_value(right, name, Some(class), property, depth);
        // (A JSDoc type adds to what the code says: nothing checks it.)
        let sym = match stated {
            Some(stated) => self.sym(Sym::Either(stated, sym)),
            None => sym,
        };
        match self.typed_fields.get(&(class, name)) {
            // `use: MiddlewareHandler` declared, `this.use = (...) => {..}` in the
            // constructor: the function is the field's implementation, named
            // where the field is (TypeScript's declaration of `app.use`).
            Some(&at) => {
                if let Sym::Def(d) = self.facts.sym(sym) {
                    if self.facts.def(d).container() == Some(class) {
                        self.def_mut(d).name_pos = at;
                    }
                }
            }
            None => self.add_prop(class, name, sym),
        }
        true
    }

    /// `Owner.m = ...`: a static member of a local class or function (or a member of a
    /// local object), else a function named `Owner.m`. False for any other value on an
    /// owner not defined here.
    fn owner_member_assignment(
        &mut self,
        owner: &str,
        m: &str,
        right: Node<'s>,
        property: Option<Node<'s>>,
        depth: usize,
    ) -> bool {
        let name = self.intern(m);
        let owner_id = self.intern(owner);
        match self.local_def(owner) {
            Some(c) => self.member_of_def(c, m, right, property, depth),
            // `f.enable = enable` above `function f` (hoisted): a member of `f` once
            // its scope is read to the end.
            None if self.lookup_now(owner_id).is_none() => {
                let function = is_function_like(right);
                let value = match function {
                    true => {
                        let qualified = format!("{owner}.{m}");
                        self.define_named(right, name, &qualified, property, depth)
                    }
                    // A plain value (`f.enable = enable`): what it is, and the
                    // assignment is walked as any other.
                    false => self.expr_sym(right),
                };
                self.late_member(super::scopes::LateMember {
                    owner: owner_id,
                    name,
                    value,
                });
                return function;
            }
            None if is_function_like(right) => {
                let qualified = format!("{owner}.{m}");
                self.define_named(right, name, &qualified, property, depth);
            }
            None => return false,
        }
        true
    }

    /// `C.m = right` with C this file's definition `c`: a static member of a class or
    /// function, a member of an object.
    fn member_of_def(
        &mut self,
        c: DefIdx,
        m: &str,
        right: Node<'s>,
        property: Option<Node<'s>>,
        depth: usize,
    ) {
        let name = self.intern(m);
        let sym = self.define_or_value(right, name, Some(c), property, depth);
        // `Model.create = ...` is static; an object has only one side.
        let has_sides = self.facts.def(c).kind != DefKind::Object;
        if let (Sym::Def(d), true) = (self.facts.sym(sym), has_sides) {
            self.facts.defs[d as usize].is_static = true;
        }
        self.add_prop(c, name, sym);
    }

    /// The object definition a path of two or more names leads to in this file, each
    /// step a property assigned an object: `exports.array` (an export of this module),
    /// `utils.array`, `module.exports.array`.
    fn path_def(&mut self, path: &[&str]) -> Option<DefIdx> {
        let (mut def, rest) = match path {
            ["module", "exports", first, rest @ ..] | ["exports", first, rest @ ..] => {
                let name = self.intern(first);
                let value = self
                    .facts
                    .exports
                    .iter()
                    .rev()
                    .find_map(|e| match e.value {
                        ExportValue::Local(v) if e.name == name => Some(v),
                        _ => None,
                    })?;
                (self.object_def(value)?, rest)
            }
            [first, second, rest @ ..] if *first != "this" => {
                let owner = self.local_def(first)?;
                (self.prop_object(owner, second)?, rest)
            }
            _ => return None,
        };
        for step in rest {
            def = self.prop_object(def, step)?;
        }
        Some(def)
    }

    /// The object definition property `name` of `owner` was last assigned, if any
    /// (among the last few hundred properties: a path is set up right after its
    /// objects).
    fn prop_object(&mut self, owner: DefIdx, name: &str) -> Option<DefIdx> {
        let name = self.intern(name);
        let value = self
            .facts
            .props
            .iter()
            .rev()
            .take(512)
            .find(|p| p.object == owner && p.name == name)?
            .value;
        self.object_def(value)
    }

    /// `value` if it is an object literal's definition.
    fn object_def(&self, value: SymId) -> Option<DefIdx> {
        match self.facts.sym(value) {
            Sym::Def(d) if self.facts.def(d).kind == DefKind::Object => Some(d),
            _ => None,
        }
    }

    /// Binds a literal to `name` (as a member of `container`), or walks a plain value.
    fn define_or_value(
        &mut self,
        right: Node<'s>,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> SymId {
        match self.bound_value(right, name, container, name_node, depth + 1) {
            Some(def) => self.sym(Sym::Def(def)),
            None => {
                let sym = self.expr_sym(right);
                self.visit(right, depth + 1);
                sym
            }
        }
    }

    /// Like `define_or_value` with no container, under an explicit qualified name.
    fn define_named(
        &mut self,
        right: Node<'s>,
        name: StrId,
        qualified: &str,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> SymId {
        let sym = self.define_or_value(right, name, None, name_node, depth);
        if let Sym::Def(d) = self.facts.sym(sym) {
            let q = self.intern(qualified);
            // Only what a module sets up as it loads: an assignment inside a function
            // patches a value at run time (a test's stub of `response.text`), and a
            // guess at every `.text()` of unknown receivers would be a phantom edge.
            let top_level = self.at_module_level();
            let def = &mut self.facts.defs[d as usize];
            def.qualified = q;
            def.reach = if top_level {
                Reach::LooseMember
            } else {
                Reach::Scoped
            };
        }
        sym
    }

    /// The definition a name is bound to right now (a function, class or object). A
    /// name that is both a definition and something stated of it (`/** @type {Context}
    /// */ const context = Object.create(proto)`) is that definition.
    /// Whether `name` is bound to the module's exports object (`var helpers = exports`,
    /// `const self = module.exports`), with neither name shadowed where it was bound.
    fn names_exports(&mut self, name: &str) -> bool {
        if matches!(name, "exports" | "module" | "this") {
            return false;
        }
        let id = self.intern(name);
        let Some(sym) = self.lookup_now(id) else {
            return false;
        };
        match self.facts.sym(sym) {
            Sym::Global(g) => self.facts.str(g) == "exports",
            Sym::Member(base, n) => {
                self.facts.str(n) == "exports"
                    && matches!(self.facts.sym(base), Sym::Global(m) if self.facts.str(m) == "module")
            }
            _ => false,
        }
    }

    pub(crate) fn local_def(&mut self, name: &str) -> Option<DefIdx> {
        let id = self.intern(name);
        let mut sym = self.lookup_now(id)?;
        for _ in 0..4 {
            match self.facts.sym(sym) {
                Sym::Def(d) => return Some(d),
                Sym::Binding(b) => sym = self.facts.bindings[b as usize].value,
                Sym::Either(stated, value) => match self.facts.sym(value) {
                    Sym::Def(d) if !matches!(self.facts.sym(stated), Sym::Def(_)) => {
                        return Some(d)
                    }
                    _ => return None,
                },
                _ => return None,
            }
        }
        None
    }
}

fn is_function_like(node: Node) -> bool {
    super::syntax::is_function_node(node.kind_str())
}

/// `a.b.c` as ["a", "b", "c"] when it is a plain chain off a name or `this` (of a sane
/// length: longer chains name nothing this file defines).
fn member_path(node: Node, src: &str) -> Option<Vec<String>> {
    let mut path = Vec::new();
    let mut node = node;
    while node.kind_str() == "member_expression" {
        if path.len() >= 16 {
            return None;
        }
        path.push(src[node.field(Field::Property)?.byte_range()].to_string());
        node = node.field(Field::Object)?;
    }
    if !matches!(node.kind_str(), "identifier" | "this") {
        return None;
    }
    path.push(src[node.byte_range()].to_string());
    path.reverse();
    Some(path)
}
