//! Call sites and the symbolic values of expressions.

use tree_sitter::Node;

use super::fields::{Field, FieldExt};
use super::{Extractor, ThisCtx};
use crate::indexer::facts::*;

/// Beyond this nesting an expression's value is unknown (and recursion stays bounded).
const MAX_EXPR_DEPTH: usize = 48;

/// The text of a string literal (or of a template string without substitutions) inside
/// its quotes.
pub(crate) fn string_literal(node: Node, src: &str) -> Option<String> {
    match node.kind_str() {
        "string" => {
            let text = &src[node.byte_range()];
            Some(text.get(1..text.len().saturating_sub(1))?.to_string())
        }
        "template_string" if node.named_child_count() == 0 => {
            let text = &src[node.byte_range()];
            Some(text.get(1..text.len().saturating_sub(1))?.to_string())
        }
        _ => None,
    }
}

/// `0` to `99` written plainly: a tuple's index (not `01`, `1.0`, `0x1`).
fn is_small_index(text: &str) -> bool {
    matches!(text.len(), 1 | 2)
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'))
}

impl<'s> Extractor<'s> {
    /// What an expression denotes, without walking it (no call sites are recorded).
    pub(crate) fn expr_sym(&mut self, node: Node<'s>) -> SymId {
        self.expr_sym_depth(node, 0)
    }

    fn expr_sym_depth(&mut self, node: Node<'s>, depth: usize) -> SymId {
        if depth > MAX_EXPR_DEPTH {
            return self.unknown();
        }
        match node.kind_str() {
            "identifier" => self.identifier_sym(node),
            "this" => self.this_sym(),
            "function_expression"
            | "arrow_function"
            | "generator_function"
            | "function"
            | "class"
            | "object" => match self.def_of_node.get(&node.id()) {
                Some(&d) => self.sym(Sym::Def(d)),
                None => self.unknown(),
            },
            "super" => self.super_sym(),
            "member_expression" => self.member_sym(node, depth),
            "subscript_expression" => self.subscript_sym(node, depth),
            "new_expression" => self.new_sym(node, depth),
            "call_expression" => self.call_sym(node, depth),
            "as_expression" => self.as_sym(node, depth),
            "type_assertion" => self.type_assertion_sym(node, depth),
            "satisfies_expression" => self.satisfies_sym(node, depth),
            "parenthesized_expression" | "non_null_expression" => self.first_child_sym(node, depth),
            "await_expression" => {
                let inner = self.first_child_sym(node, depth);
                self.awaited_sym(inner)
            }
            "sequence_expression" => {
                let count = node.named_child_count();
                match count.checked_sub(1).and_then(|last| node.named_child(last)) {
                    Some(last) => self.expr_sym_depth(last, depth + 1),
                    None => self.unknown(),
                }
            }
            "assignment_expression" => match node.field(Field::Right) {
                Some(right) => self.expr_sym_depth(right, depth + 1),
                None => self.unknown(),
            },
            "binary_expression" => self.binary_sym(node, depth),
            "array" => self.array_sym(node, depth),
            "ternary_expression" => {
                match (
                    node.field(Field::Consequence),
                    node.field(Field::Alternative),
                ) {
                    (Some(a), Some(b)) => self.either(a, b, depth),
                    _ => self.unknown(),
                }
            }
            _ => self.unknown(),
        }
    }

    /// A name read: what it refers to (`undefined` is no value).
    #[inline]
    fn identifier_sym(&mut self, node: Node<'s>) -> SymId {
        if self.text(node) == "undefined" {
            return self.unknown();
        }
        let name = self.intern_node(node);
        self.reference(name)
    }

    /// `this`, where it is read.
    #[inline]
    fn this_sym(&mut self) -> SymId {
        match self.current_this() {
            ThisCtx::Of(c) => self.sym(Sym::This(Some(c))),
            ThisCtx::Static(c) => self.sym(Sym::Def(c)),
            ThisCtx::Stated(value) => value,
            ThisCtx::Unknown => self.sym(Sym::This(None)),
        }
    }

    /// `a.b`: member `b` of `a` (`import.meta` is no value).
    #[inline]
    fn member_sym(&mut self, node: Node<'s>, depth: usize) -> SymId {
        let (Some(object), Some(property)) =
            (node.field(Field::Object), node.field(Field::Property))
        else {
            return self.unknown();
        };
        if object.kind_str() == "import" {
            return self.unknown();
        }
        let base = self.expr_sym_depth(object, depth + 1);
        let name = self.intern_node(property);
        self.sym(Sym::Member(base, name))
    }

    /// `(x)`, `await x`, `x!`: what `x` is.
    #[inline]
    fn first_child_sym(&mut self, node: Node<'s>, depth: usize) -> SymId {
        match node.named_child(0) {
            Some(inner) => self.expr_sym_depth(inner, depth + 1),
            None => self.unknown(),
        }
    }

    /// What awaiting the value `inner` gives (see [`Sym::Awaited`]).
    pub(crate) fn awaited_sym(&mut self, inner: SymId) -> SymId {
        match self.facts.sym(inner) {
            // Nothing a thenable's `then` could change (a module's namespace, from
            // `await import('./x')`, included).
            Sym::Unknown
            | Sym::Def(_)
            | Sym::Import(_)
            | Sym::Signature(_)
            | Sym::Array(_)
            | Sym::Awaited(_) => inner,
            _ => self.sym(Sym::Awaited(inner)),
        }
    }

    /// `x as T`: the stated type's value, else what `x` is.
    #[inline]
    fn as_sym(&mut self, node: Node<'s>, depth: usize) -> SymId {
        if let Some(t) = node.named_child(1).and_then(|t| self.value_of_type(t, 0)) {
            return t;
        }
        self.first_child_sym(node, depth)
    }

    /// `<Builder<string>>make()`, the older spelling of `as` (`.ts` files only): the
    /// stated type, else the expression's value.
    #[inline(never)]
    fn type_assertion_sym(&mut self, node: Node<'s>, depth: usize) -> SymId {
        let stated = node
            .named_child(0)
            .filter(|t| t.kind_str() == "type_arguments")
            .and_then(|t| t.named_child(0))
            .and_then(|t| self.value_of_type(t, 0));
        if let Some(t) = stated {
            return t;
        }
        match node.named_child(1) {
            Some(inner) => self.expr_sym_depth(inner, depth + 1),
            None => self.unknown(),
        }
    }

    /// `config satisfies Config` keeps the type of `config` (TypeScript 4.9): the
    /// stated type only when the expression says nothing.
    #[inline]
    fn satisfies_sym(&mut self, node: Node<'s>, depth: usize) -> SymId {
        let inner = self.first_child_sym(node, depth);
        if !matches!(self.facts.sym(inner), Sym::Unknown) {
            return inner;
        }
        node.named_child(1)
            .and_then(|t| self.value_of_type(t, 0))
            .unwrap_or(inner)
    }

    /// `this.runner ?? this.createRunner()`, `cached || load()`: either side;
    /// `ready && make()`: the right one (the left is what a test read).
    #[inline]
    fn binary_sym(&mut self, node: Node<'s>, depth: usize) -> SymId {
        let (Some(left), Some(op), Some(right)) = (
            node.field(Field::Left),
            node.field(Field::Operator),
            node.field(Field::Right),
        ) else {
            return self.unknown();
        };
        match op.kind_str() {
            "??" | "||" => self.either(left, right, depth),
            "&&" => self.expr_sym_depth(right, depth + 1),
            _ => self.unknown(),
        }
    }

    /// `items['key']` (a member) or `items[i]` (an element).
    #[inline]
    fn subscript_sym(&mut self, node: Node<'s>, depth: usize) -> SymId {
        let object = node.field(Field::Object);
        let key = node
            .field(Field::Index)
            .and_then(|i| string_literal(i, self.src));
        match (object, key) {
            (Some(object), Some(key)) => {
                let base = self.expr_sym_depth(object, depth + 1);
                let name = self.intern(&key);
                self.sym(Sym::Member(base, name))
            }
            // `items[i]`: an element, if `items` is an array. `pair[1]`: also member
            // `1`, which a tuple type has.
            (Some(object), None) => {
                let base = self.expr_sym_depth(object, depth + 1);
                let element = self.sym(Sym::Element(base));
                match node.field(Field::Index) {
                    Some(i) if i.kind_str() == "number" && is_small_index(self.text(i)) => {
                        let key = self.intern_node(i);
                        let member = self.sym(Sym::Member(base, key));
                        self.sym(Sym::Either(member, element))
                    }
                    _ => element,
                }
            }
            _ => self.unknown(),
        }
    }

    /// `new C()`: an instance of C.
    #[inline]
    fn new_sym(&mut self, node: Node<'s>, depth: usize) -> SymId {
        match node.field(Field::Constructor) {
            Some(c) => {
                // `new Map<string, Connection>()`: what `get` gives is known.
                let class = self.text(c);
                let keyed = matches!(class, "Map" | "WeakMap")
                    .then(|| node.field(Field::TypeArguments))
                    .flatten()
                    .and_then(|args| self.keyed_collection(class, args, 0));
                if let Some(keyed) = keyed {
                    return keyed;
                }
                let class = self.expr_sym_depth(c, depth + 1);
                self.sym(Sym::Instance(class))
            }
            None => self.unknown(),
        }
    }

    /// A call's value: a module it imports, what a wrapper wraps, else what the callee
    /// returns.
    #[inline]
    fn call_sym(&mut self, node: Node<'s>, depth: usize) -> SymId {
        if let Some(import) = self.module_call(node) {
            return self.sym(Sym::Import(import));
        }
        if is_module_loader(node.field(Field::Function), self.src) {
            // `require(name)`: a module nobody can name here.
            return self.unknown();
        }
        if let Some(wrapped) = self.wrapped_value(node) {
            // `memo(Profile)` stands for `Profile`.
            return self.expr_sym_depth(wrapped, depth + 1);
        }
        match node.field(Field::Function) {
            Some(f) if self.text(f) == "Object.assign" => self.assigned_sym(node, depth),
            Some(f) => {
                let callee = self.expr_sym_depth(f, depth + 1);
                self.sym(Sym::Return(callee))
            }
            None => self.unknown(),
        }
    }

    /// `Object.assign(Root, { Item, Trigger })`: its target, which holds the members
    /// of the objects after it (a component and its parts, as libraries export them:
    /// `<Accordion>` renders `Root`, `<Accordion.Item>` renders `Item`). An object
    /// literal among them is read as its properties' values, by name.
    fn assigned_sym(&mut self, call: Node<'s>, depth: usize) -> SymId {
        let Some(args) = call.field(Field::Arguments) else {
            return self.unknown();
        };
        let mut value = None;
        for arg in self.named_kids(args) {
            let part = match arg.kind_str() {
                "comment" => continue,
                "object" => self.literal_shape(arg, depth),
                _ => Some(self.expr_sym_depth(arg, depth + 1)),
            };
            if let Some(part) = part.filter(|&p| self.facts.sym(p) != Sym::Unknown) {
                value = Some(self.one_more(value, part));
            }
        }
        value.unwrap_or_else(|| self.unknown())
    }

    /// An object literal's named values (`{ Item, Root: AccordionRoot }`) as a shape.
    fn literal_shape(&mut self, object: Node<'s>, depth: usize) -> Option<SymId> {
        let mut members = Vec::new();
        for item in self.named_kids(object) {
            match item.kind_str() {
                "shorthand_property_identifier" => {
                    let key = self.intern_node(item);
                    let value = self.reference(key);
                    members.push((key, value));
                }
                "pair" => {
                    let key = item.field(Field::Key).and_then(|k| self.key_name(k));
                    if let (Some(key), Some(value)) = (key, item.field(Field::Value)) {
                        let value = self.expr_sym_depth(value, depth + 1);
                        if self.facts.sym(value) != Sym::Unknown {
                            members.push((key, value));
                        }
                    }
                }
                _ => {}
            }
        }
        if members.is_empty() {
            return None;
        }
        self.new_shape(members)
    }

    /// The value of an expression that is one of two: both, or the one that is known.
    fn either(&mut self, a: Node<'s>, b: Node<'s>, depth: usize) -> SymId {
        let a = self.expr_sym_depth(a, depth + 1);
        let b = self.expr_sym_depth(b, depth + 1);
        match (self.facts.sym(a), self.facts.sym(b)) {
            (_, Sym::Unknown) => a,
            (Sym::Unknown, _) => b,
            _ => self.sym(Sym::Either(a, b)),
        }
    }

    /// `[Extension, Node, Mark]`: an array whose element is any of its elements
    /// (`for (const K of [A, B])`, `[A, B].forEach((K) => K.create())`). Its first
    /// elements only: a long literal is data, and its members are the platform's.
    fn array_sym(&mut self, node: Node<'s>, depth: usize) -> SymId {
        const MAX_ELEMENTS: usize = 16;
        let mut element: Option<SymId> = None;
        let items = self.named_kids(node);
        for item in items.into_iter().take(MAX_ELEMENTS) {
            let sym = match item.kind_str() {
                "comment" => continue,
                "spread_element" => match item.named_child(0) {
                    Some(inner) => {
                        let array = self.expr_sym_depth(inner, depth + 1);
                        self.sym(Sym::Element(array))
                    }
                    None => continue,
                },
                _ => self.expr_sym_depth(item, depth + 1),
            };
            if matches!(self.facts.sym(sym), Sym::Unknown) {
                continue;
            }
            element = Some(self.one_more(element, sym));
        }
        let element = element.unwrap_or_else(|| self.unknown());
        self.sym(Sym::Array(element))
    }

    fn super_sym(&mut self) -> SymId {
        match self.current_this() {
            ThisCtx::Of(c) if self.facts.def(c).kind == DefKind::Class => self.sym(Sym::Super(c)),
            _ => self.unknown(),
        }
    }

    /// `require('x')` and `import('x')`: the import they make, if the specifier is a
    /// literal. A computed specifier is not resolvable and is not guessed at.
    pub(crate) fn module_call(&mut self, call: Node<'s>) -> Option<ImportIdx> {
        let function = call.field(Field::Function)?;
        let kind = match function.kind_str() {
            "import" if self.in_type_query > 0 => ImportKind::TypeNamespace,
            "import" => ImportKind::Namespace,
            "identifier" if self.text(function) == "require" => ImportKind::Require,
            _ => return None,
        };
        let args = call.field(Field::Arguments)?;
        let first = args.named_child(0)?;
        let spec = string_literal(first, self.src)?;
        let line = call.start_position().row as u32;
        Some(self.add_import(&spec, kind, line))
    }

    pub(crate) fn add_import(&mut self, specifier: &str, kind: ImportKind, line: u32) -> ImportIdx {
        let specifier = self.intern(specifier);
        if !self.module_block && kind != ImportKind::TypeNamespace {
            self.facts.top_level_import = true;
        }
        if let Some(&idx) = self.imports.get(&(specifier, kind)) {
            return idx;
        }
        let idx = self.facts.imports.len() as ImportIdx;
        self.facts.imports.push(Import {
            specifier,
            kind,
            line,
        });
        self.imports.insert((specifier, kind), idx);
        idx
    }

    /// Records a call site of `kind` at `site` whose callee expression is `callee`.
    /// Returns false when the callee names nothing (an IIFE, `f()()`).
    pub(crate) fn record_call_of(
        &mut self,
        site: Node<'s>,
        kind: CallKind,
        callee: Node<'s>,
        _depth: usize,
    ) -> bool {
        if self.declaration_only {
            return false;
        }
        let (sym, name, at) = match callee.kind_str() {
            "identifier" => {
                let name = self.intern_node(callee);
                (self.reference(name), name, callee)
            }
            "member_expression" => {
                let Some(property) = callee.field(Field::Property) else {
                    return false;
                };
                (self.expr_sym(callee), self.intern_node(property), property)
            }
            "subscript_expression" => {
                let sym = self.expr_sym(callee);
                let Sym::Member(_, name) = self.facts.sym(sym) else {
                    return false;
                };
                let at = callee.field(Field::Index).unwrap_or(callee);
                (sym, name, at)
            }
            "super" => {
                let sym = self.super_sym();
                (sym, self.intern("constructor"), callee)
            }
            "parenthesized_expression" | "non_null_expression" | "sequence_expression" => {
                // `(f)()`, `f!()`, and `(0, obj.f)()` as compilers emit it: the callee is
                // the (last) expression inside, however deeply wrapped.
                return match unwrap_callee(callee) {
                    Some(inner) => self.record_call_of(site, kind, inner, _depth),
                    None => false,
                };
            }
            _ => return false,
        };
        let pos = self.pos(at);
        self.note_suppressed_call(site, pos);
        let mut call = CallSite::new(self.current_caller(), kind, sym, name, pos);
        if let Some(args) = self.call_args(site, kind) {
            call.set_args(args);
        }
        self.facts.calls.push(call);
        true
    }

    /// A call with an argument that starts on a line a `@ts-expect-error` or
    /// `@ts-ignore` comment governs (a type test's wrong argument, on a line of its
    /// own), or whose result's member is read on such a line (`match(x)` then `//
    /// @ts-expect-error` and `.with(...)`): the compiler reports no error at that
    /// argument or read. Noted by the call's position.
    fn note_suppressed_call(&mut self, site: Node<'s>, pos: Pos) {
        if self.facts.suppressed_lines.is_empty() {
            return;
        }
        let governed = |row: usize| {
            u32::try_from(row).is_ok_and(|row| row > pos.line && self.facts.suppressed(row))
        };
        if matches!(self.result_reads.last(), Some(&(id, _, row)) if id == site.id() && governed(row as usize))
        {
            self.suppressed_reads.push(pos);
        }
        if let Some(args) = site.field(Field::Arguments) {
            let mut cursor = args.walk();
            let found = args
                .named_children(&mut cursor)
                .any(|a| a.kind_str() != "comment" && governed(a.start_position().row));
            if found {
                self.suppressed_arguments.push(pos);
            }
        }
    }

    /// Keeps the call just recorded at `site` for the link sites when its called name
    /// may be one (see `crate::indexer::links::extract`): one lookup of the name. Apart from
    /// `call_with_kind`, whose frame each level of a call chain pays.
    #[inline(never)]
    fn link_candidate(&mut self, site: Node<'s>) {
        if let Some(call) = self.facts.calls.last() {
            if crate::indexer::links::extract::is_candidate(self.facts.str(call.name)) {
                self.link_candidates.push(site);
            }
        }
    }

    /// What a call, a `new` or a decorator's call (`@Length(1, 9)`) passes (tagged
    /// templates and the rest: None).
    #[inline(never)]
    fn call_args(&mut self, site: Node<'s>, kind: CallKind) -> Option<CallArgs> {
        if !matches!(kind, CallKind::Call | CallKind::New | CallKind::Decorator) {
            return None;
        }
        let args = site.field(Field::Arguments)?;
        if args.kind_str() != "arguments" {
            return None;
        }
        // The count and spreads are filled in when the arguments are walked
        // (`counted`): a second walk of them here cost the index a few percent.
        Some(CallArgs {
            count: 0,
            spread: false,
            awaited: self.awaited == Some(site.id()),
            discarded: self.discarded == Some(site.id()),
        })
    }

    /// Sets what the call at `index` of the facts passes, as its arguments' walk found.
    fn counted(&mut self, index: Option<usize>, (count, spread): (u16, bool)) {
        let Some(call) = index.and_then(|i| self.facts.calls.get_mut(i)) else {
            return;
        };
        if let Some(mut args) = call.args() {
            args.count = u8::try_from(count)
                .unwrap_or(u8::MAX)
                .min(CallArgs::MAX_COUNT);
            args.spread = spread;
            call.set_args(args);
        }
    }

    /// `f();`: the call (past parentheses) is a statement of its own, its result unused.
    pub(crate) fn expression_statement(&mut self, node: Node<'s>, depth: usize) {
        let inner = node.named_child(0).map(unwrap_parens);
        let outer = std::mem::replace(&mut self.discarded, inner.map(|n| n.id()));
        self.visit_children(node, depth);
        self.discarded = outer;
    }

    /// `f().then`, `f().catch`, `f().finally`: the node id of the call `f()`. Apart from
    /// `call_with_kind`, whose frame each level of a call chain pays.
    #[inline(never)]
    fn chained_promise(&self, function: Node<'s>) -> Option<usize> {
        if function.kind_str() != "member_expression" {
            return None;
        }
        let property = function.field(Field::Property)?;
        if !matches!(self.text(property), "then" | "catch" | "finally") {
            return None;
        }
        let object = unwrap_parens(function.field(Field::Object)?);
        (object.kind_str() == "call_expression").then(|| object.id())
    }

    /// `f() && x`, `f() > 0`: what a binary operator does with a call's result that a
    /// promise does not allow (see `begin_tested_left`, `begin_operands`).
    pub(crate) fn binary_expression(&mut self, node: Node<'s>, depth: usize) {
        let begun = match node.field(Field::Operator).map(|o| o.kind_str()) {
            Some("&&") => self.begin_tested_left(node),
            Some(operator) => self.begin_operands(node, operator),
            None => 0,
        };
        self.visit_children(node, depth);
        self.end_typed_uses(begun);
    }

    /// `f() ? a : b`: the condition's calls are tested (see
    /// [`Self::begin_tested_by_ternary`]).
    pub(crate) fn ternary_expression(&mut self, node: Node<'s>, depth: usize) {
        let begun = node
            .field(Field::Condition)
            .map_or(0, |c| self.begin_tested_by_ternary(c));
        self.visit_children(node, depth);
        self.end_typed_uses(begun);
    }

    /// `await f()`: the call (past parentheses) is awaited.
    pub(crate) fn await_expression(&mut self, node: Node<'s>, depth: usize) {
        let inner = node.named_child(0).map(unwrap_parens);
        let outer = std::mem::replace(&mut self.awaited, inner.map(|n| n.id()));
        self.visit_children(node, depth);
        self.awaited = outer;
    }

    /// Walks a callee expression without counting it as a property read (also inside
    /// `(0, obj.f)()`).
    fn visit_callee(&mut self, callee: Node<'s>, depth: usize) {
        match callee.kind_str() {
            "member_expression" => self.visit_children(callee, depth),
            "parenthesized_expression" | "non_null_expression" | "sequence_expression"
                if depth < super::MAX_DEPTH =>
            {
                let inner = wrapped_callee(callee);
                let children = self.kids(callee);
                for child in children {
                    if Some(child) == inner {
                        self.visit_callee(child, depth + 1);
                    } else {
                        self.visit(child, depth + 1);
                    }
                }
            }
            _ => self.visit(callee, depth + 1),
        }
    }

    /// `util.inherits(Dog, Animal)`: Node's inheritance between constructor functions.
    /// Dog's instances get Animal's methods, as a class gets those of what it extends.
    fn inherits(&mut self, callee: Node<'s>, args: Node<'s>) {
        if !matches!(self.text(callee), "util.inherits" | "inherits") {
            return;
        }
        let (Some(child), Some(parent)) = (args.named_child(0), args.named_child(1)) else {
            return;
        };
        if child.kind_str() != "identifier" {
            return;
        }
        let Some(d) = self.local_def(self.text(child)) else {
            return;
        };
        let def = self.facts.def(d);
        if def.extends().is_none() && matches!(def.kind, DefKind::Function | DefKind::Class) {
            let base = self.expr_sym(parent);
            self.def_mut(d).set_extends(Some(base));
        }
    }

    pub(crate) fn call_expression(&mut self, node: Node<'s>, depth: usize) {
        self.call_with_kind(node, CallKind::Call, depth)
    }

    fn call_with_kind(&mut self, node: Node<'s>, kind: CallKind, depth: usize) {
        let raw_function = node.field(Field::Function);
        let misparsed = raw_function.and_then(|f| misparsed_operand(node, f));
        let function = misparsed.or(raw_function);
        let arguments = node.field(Field::Arguments);
        if self.module_call(node).is_some() || is_module_loader(function, self.src) {
            // `require('x')` is an import, not a call; `require(expr)` names nothing.
            return self.visit_children(node, depth);
        }
        if let (Some(f), Some(args)) = (function, arguments) {
            if self.object_assign_exports(f, args, depth) {
                return;
            }
            self.inherits(f, args);
            self.global_registration(node, f, args);
        }
        // `f().then(...)`: the call of `f` is taken as a promise.
        let outer_awaited = self.awaited;
        if let Some(object) = function.and_then(|f| self.chained_promise(f)) {
            self.awaited = Some(object);
        }
        let children = self.kids_with_fields(node);
        let mut recorded = None;
        let callee = match function {
            Some(f) if self.record_call_of(node, kind, f, depth) => {
                recorded = self.facts.calls.len().checked_sub(1);
                self.link_candidate(node);
                if !self.result_reads.is_empty() || !self.typed_uses.is_empty() {
                    self.result_read_by(node, recorded);
                }
                if !self.argument_calls.is_empty() || !self.property_calls.is_empty() {
                    self.argument_call_recorded(node, recorded);
                }
                if let (true, Some(call)) = (self.states_types, recorded) {
                    self.note_any_receiver(f, call);
                }
                self.facts.calls.last().map(|c| c.callee)
            }
            _ => None,
        };
        // `load().save()`: a member of `load`'s result is read.
        let reads = self.begin_callee_read(function);
        // `getFetch()(url)`: `getFetch`'s result is called.
        let called = function.is_some_and(|f| self.begin_result_use(f, CallShape::CALLED));
        let element = function.and_then(|f| self.iteration_element(f));
        for (field, child) in children {
            match field {
                Some("function") => match misparsed {
                    Some(operand) => {
                        // The operator applies to the call's result: hashed first.
                        let operator = &self.src[child.start_byte()..operand.start_byte()];
                        self.tokens.synthetic(operator.trim());
                        self.visit_callee(operand, depth + 1)
                    }
                    None => self.visit_callee(child, depth + 1),
                },
                Some("arguments") if child.kind_str() == "arguments" => {
                    let passed = self.arguments_with(child, depth + 1, element, callee, recorded);
                    self.counted(recorded, passed);
                }
                _ => self.visit(child, depth + 1),
            }
        }
        self.awaited = outer_awaited;
        if reads {
            self.end_result_read();
        }
        if called {
            self.end_typed_use();
        }
    }

    /// Arguments: a function passed by name is a use of it (`items.map(normalize)`).
    fn arguments(&mut self, args: Node<'s>, depth: usize, recorded: Option<usize>) -> (u16, bool) {
        self.arguments_with(args, depth, None, None, recorded)
    }

    /// Arguments, where the first function literal's parameter at `element.0` is an
    /// element of the array `element.1` (the callback of an iteration method), and any
    /// other function literal's parameters are what `callee` says it passes them.
    fn arguments_with(
        &mut self,
        args: Node<'s>,
        depth: usize,
        element: Option<(usize, SymId)>,
        callee: Option<SymId>,
        recorded: Option<usize>,
    ) -> (u16, bool) {
        let children = self.kids(args);
        let mut element = element;
        let mut index: u16 = 0;
        let mut spread = false;
        for child in children {
            spread |= child.kind_str() == "spread_element";
            if let Some(call) = recorded {
                match child.kind_str() {
                    "object" => self.object_argument(call, index, child),
                    "comment" | "spread_element" => {}
                    _ if child.is_named() => self.argument_kinds(call, index, child),
                    _ => {}
                }
            }
            // `g(f())`: which call `f`'s is, once it is recorded (TypeScript: the types
            // stated for `f`'s result and `g`'s parameter say what is passed where).
            let pending_properties = self.property_calls.len();
            let passed_calls = match recorded {
                Some(outer) if self.states_types => self.begin_argument_call(outer, index, child),
                _ => 0,
            };
            // `g(...f())`: `f`'s result is iterated.
            let iterated = child.kind_str() == "spread_element"
                && child
                    .named_child(0)
                    .is_some_and(|inner| self.begin_result_use(inner, CallShape::ITERATED));
            let is_function = super::syntax::is_function_node(child.kind_str());
            // The callback is the first argument (`then`'s second is for a rejection).
            if element.is_some() && is_function && index == 0 {
                self.param_hint = element.take();
                self.value_use(child, depth + 1);
                self.param_hint = None;
            } else if let (Some(callee), true) = (callee, is_function) {
                self.callback_of = Some((callee, index));
                self.value_use(child, depth + 1);
                self.callback_of = None;
            } else if let (Some(callee), "object" | "array") = (callee, child.kind_str()) {
                let ty = self.sym(Sym::ParamType(callee, u32::from(index)));
                self.stated_literal(child, ty, depth + 1);
            } else {
                self.value_use(child, depth + 1);
            }
            if iterated {
                self.end_typed_use();
            }
            for _ in 0..passed_calls {
                self.argument_calls.pop();
            }
            self.property_calls.truncate(pending_properties);
            if child.is_named() && child.kind_str() != "comment" {
                index = index.saturating_add(1);
            }
        }
        (index, spread)
    }

    /// `items.map(item => ...)`: which parameter of the callback is an element of which
    /// array, for the iteration methods of arrays; `promise.then(value => ...)`: the
    /// value the promise gives.
    fn iteration_element(&mut self, callee: Node<'s>) -> Option<(usize, SymId)> {
        if callee.kind_str() != "member_expression" {
            return None;
        }
        let index = match self.text(callee.field(Field::Property)?) {
            "forEach" | "map" | "filter" | "find" | "findIndex" | "findLast" | "findLastIndex"
            | "some" | "every" | "flatMap" => 0,
            "reduce" | "reduceRight" => 1,
            // A promise's value is what the graph reads the promise as (`await` and
            // `Promise<T>` are transparent to it): `import('./x')` is the module's
            // namespace, an async function's call what it returns. So `.then`'s
            // callback receives what `await` of the receiver gives.
            "then" => {
                let promise = self.expr_sym(callee.field(Field::Object)?);
                return Some((0, self.awaited_sym(promise)));
            }
            _ => return None,
        };
        let array = self.expr_sym(callee.field(Field::Object)?);
        Some((index, self.sym(Sym::Element(array))))
    }

    /// An expression used as a value where a function may be expected: identifiers and
    /// member chains are recorded as references; everything is walked.
    fn value_use(&mut self, node: Node<'s>, depth: usize) {
        match node.kind_str() {
            "identifier" if self.text(node) != "undefined" => {
                self.record_call_of(node, CallKind::Reference, node, depth);
                self.visit(node, depth);
            }
            "member_expression" => {
                self.record_call_of(node, CallKind::Reference, node, depth);
                // `t.is(load().id, 1)`: a member of `load`'s result is read.
                let reads = self.begin_member_read(node);
                self.visit_callee(node, depth);
                if reads {
                    self.end_result_read();
                }
            }
            _ => self.visit(node, depth),
        }
    }

    pub(crate) fn new_expression(&mut self, node: Node<'s>, depth: usize) {
        let constructor = node.field(Field::Constructor);
        let mut recorded = None;
        if let Some(c) = constructor {
            if self.record_call_of(node, CallKind::New, c, depth) {
                recorded = self.facts.calls.len().checked_sub(1);
                self.link_candidate(node);
            }
        }
        let children = self.kids_with_fields(node);
        for (field, child) in children {
            match field {
                Some("constructor") => self.visit_callee(child, depth + 1),
                Some("arguments") => {
                    let passed = self.arguments(child, depth + 1, recorded);
                    self.counted(recorded, passed);
                }
                _ => self.visit(child, depth + 1),
            }
        }
    }

    pub(crate) fn decorator(&mut self, node: Node<'s>, depth: usize) {
        // `@x(Returns(200).Of(String))`: a chain the repair wrapped in a call; the
        // decorator is the chain.
        let wrapped = self
            .wrapped_decorators
            .binary_search(&node.start_byte())
            .is_ok();
        let children = self.kids(node);
        for child in children {
            let target = match child.kind_str() {
                "parenthesized_expression" => child.named_child(0).unwrap_or(child),
                "call_expression" if wrapped => child
                    .field(Field::Arguments)
                    .and_then(|a| a.named_child(0))
                    .unwrap_or(child),
                _ => child,
            };
            match target.kind_str() {
                "call_expression" => self.call_with_kind(target, CallKind::Decorator, depth + 1),
                "identifier" | "member_expression" => {
                    self.record_call_of(target, CallKind::Decorator, target, depth);
                    self.tokens_only(child);
                }
                _ => self.visit(child, depth + 1),
            }
        }
    }

    /// Hashes a subtree's tokens without recording anything in it. Iterative: this is
    /// also what walks subtrees too deep for the recursive walk, so it keeps one cursor
    /// position per level (tree-sitter's cursor, a few words each) rather than each
    /// level's children: a chain of 250,000 calls held 140 MB of those.
    pub(crate) fn tokens_only(&mut self, node: Node<'s>) {
        if self.token_unit(node) {
            return;
        }
        let mut cursor = node.walk();
        let mut descend = true;
        loop {
            if descend && cursor.goto_first_child() {
                descend = !self.token_unit(cursor.node());
                continue;
            }
            // Done below here: on to the next sibling, climbing as far as needed.
            loop {
                if cursor.goto_next_sibling() {
                    descend = !self.token_unit(cursor.node());
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
            }
        }
    }

    /// Hashes `node` if it is one token (a leaf, or a string literal); false when its
    /// children hold its tokens.
    fn token_unit(&mut self, node: Node<'s>) -> bool {
        if node.kind_str() == "string" {
            self.tokens.string(node, self.src);
        } else if node.child_count() == 0 {
            self.tokens.leaf(node, self.src);
        } else {
            return false;
        }
        true
    }

    /// `<Button/>`, `<ui.Card>`: uses of components. Lower-case names are host
    /// elements. Attribute values that name functions are references.
    pub(crate) fn jsx_element(&mut self, node: Node<'s>, depth: usize) {
        if let Some(name) = node.field(Field::Name) {
            let is_component = match name.kind_str() {
                "identifier" => self
                    .text(name)
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_uppercase()),
                "member_expression" | "nested_identifier" => true,
                _ => false,
            };
            if is_component {
                self.record_call_of(node, CallKind::Jsx, name, depth);
            }
        }
        let children = self.kids_with_fields(node);
        for (field, child) in children {
            match (field, child.kind_str()) {
                (Some("name"), _) => self.tokens_only(child),
                (_, "jsx_attribute") => self.jsx_attribute(child, depth + 1),
                _ => self.visit(child, depth + 1),
            }
        }
    }

    fn jsx_attribute(&mut self, attribute: Node<'s>, depth: usize) {
        let children = self.kids(attribute);
        for child in children {
            if child.kind_str() == "jsx_expression" {
                let inner = self.kids(child);
                for i in inner {
                    self.value_use(i, depth + 1);
                }
            } else {
                self.visit(child, depth + 1);
            }
        }
    }

    /// `{expr}` in JSX; `{/* comment */}` alone is a comment, not code.
    pub(crate) fn jsx_expression(&mut self, node: Node<'s>, depth: usize) {
        let only_comments = self
            .named_kids(node)
            .iter()
            .all(|c| c.kind_str() == "comment");
        if !only_comments {
            self.visit_children(node, depth);
        }
    }

    /// `(expr)`. Around JSX the parentheses are layout (prettier adds them when the
    /// element spans lines): they are left out of the hashes.
    pub(crate) fn parenthesized(&mut self, node: Node<'s>, depth: usize) {
        let around_jsx = node.named_child(0).is_some_and(|inner| {
            matches!(inner.kind_str(), "jsx_element" | "jsx_self_closing_element")
        }) && node.named_child_count() == 1;
        if !around_jsx {
            return self.visit_children(node, depth);
        }
        let children = self.kids(node);
        for child in children {
            if !matches!(child.kind_str(), "(" | ")") {
                self.visit(child, depth + 1);
            }
        }
    }

    /// A property read: `cart.total` calls a getter when `total` is one. Only reads
    /// off `this` or a name (up to two levels) are kept: those are the ones a stated
    /// type or class can resolve; other reads could only be guessed by name.
    pub(crate) fn member_read(&mut self, node: Node<'s>, depth: usize) {
        let reads = self.begin_member_read(node);
        if !self.declaration_only && resolvable_receiver(node, 0) && !never_a_getter(node, self.src)
        {
            if let Some(property) = node.field(Field::Property) {
                let sym = self.expr_sym(node);
                let name = self.intern_node(property);
                let pos = self.pos(property);
                self.facts.calls.push(CallSite::new(
                    self.current_caller(),
                    CallKind::Get,
                    sym,
                    name,
                    pos,
                ));
            }
        }
        self.visit_children(node, depth);
        if reads {
            self.end_result_read();
        }
    }
}

/// `X.prototype` and `module.exports` are read on every CommonJS assignment target; they
/// are never getters.
fn never_a_getter(member: Node, src: &str) -> bool {
    let Some(property) = member.field(Field::Property) else {
        return true;
    };
    match &src[property.byte_range()] {
        "prototype" => true,
        "exports" => member
            .field(Field::Object)
            .is_some_and(|o| &src[o.byte_range()] == "module"),
        _ => false,
    }
}

/// tree-sitter-typescript parses `await f<T>(x)` and `!isFoo<T>(x)` (also `typeof`,
/// `-`, ...) as a call *of* `await f` / `!isFoo` with the type arguments: what is
/// called is the operand.
fn misparsed_operand<'s>(call: Node<'s>, function: Node<'s>) -> Option<Node<'s>> {
    call.field(Field::TypeArguments)?;
    match function.kind_str() {
        "await_expression" => function.named_child(0),
        "unary_expression" => function.field(Field::Argument),
        _ => None,
    }
}

/// `require` or `import` as a callee.
fn is_module_loader(function: Option<Node>, src: &str) -> bool {
    function.is_some_and(|f| {
        f.kind_str() == "import"
            || (f.kind_str() == "identifier" && &src[f.byte_range()] == "require")
    })
}

/// The expression a wrapped callee stands for: inside parentheses and `!`, the last
/// expression of a sequence. Iterative: wrappers can nest arbitrarily deep.
fn unwrap_callee(mut callee: Node) -> Option<Node> {
    while matches!(
        callee.kind_str(),
        "parenthesized_expression" | "non_null_expression" | "sequence_expression"
    ) {
        callee = wrapped_callee(callee)?;
    }
    Some(callee)
}

/// One level of [`unwrap_callee`].
fn wrapped_callee(wrapper: Node) -> Option<Node> {
    match wrapper.kind_str() {
        "sequence_expression" => wrapper.named_child(wrapper.named_child_count().checked_sub(1)?),
        _ => wrapper.named_child(0),
    }
}

fn resolvable_receiver(member: Node, level: usize) -> bool {
    let Some(object) = member.field(Field::Object) else {
        return false;
    };
    match object.kind_str() {
        "this" | "identifier" => true,
        "member_expression" if level < 1 => resolvable_receiver(object, level + 1),
        _ => false,
    }
}

/// The expression inside any parentheses around it (`(f())` is `f()`).
pub(super) fn unwrap_parens(mut node: Node) -> Node {
    while node.kind_str() == "parenthesized_expression" {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}
