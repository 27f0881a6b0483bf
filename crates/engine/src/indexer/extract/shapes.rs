//! The keys a call is seen with (see [`CallShape`]): those of an object literal it is
//! passed (`pay({ amount, currency })`), and the members read from what it returns
//! (`load().id`, `(await load()).id`, `const { id, name } = load()`). What a changed
//! contract is checked against: a key now required that the literal lacks, a member
//! read that the result no longer has, a promise read as if it were the value.

use smallvec::SmallVec;
use tree_sitter::Node;

use super::fields::{Field, FieldExt};
use super::Extractor;
use crate::indexer::facts::*;
use crate::indexer::type_kinds;

impl<'s> Extractor<'s> {
    /// The object literal `object` passed as argument `slot` of the call at `call` in
    /// the facts: its keys.
    #[inline(never)]
    pub(super) fn object_argument(&mut self, call: usize, slot: u16, object: Node<'s>) {
        // The last slots are the result's, not arguments'.
        let Some(slot) = u8::try_from(slot)
            .ok()
            .filter(|&s| s < CallShape::FIRST_USE)
        else {
            return;
        };
        let mut keys = Vec::new();
        let mut open = false;
        let mut cursor = object.walk();
        for item in object.named_children(&mut cursor) {
            let key = match item.kind_str() {
                "pair" => item.field(Field::Key).and_then(|k| key_text(k, self.src)),
                "shorthand_property_identifier" => Some(self.text(item)),
                "method_definition" => item.field(Field::Name).and_then(|k| key_text(k, self.src)),
                "comment" => continue,
                // A spread, or something the grammar misread: the keys are not all here.
                _ => None,
            };
            match key {
                Some(key) => keys.push(self.intern(key)),
                None => open = true,
            }
            if keys.len() > CallShape::MAX_KEYS {
                break;
            }
        }
        self.facts.add_call_shape(call, slot, &keys, open);
    }

    /// Argument `slot` of the call at `call` in the facts, when its syntax says what
    /// kind of value it is (`"a"`, `1`, `[x]`, `() => {}`, `a < b`): what a parameter's
    /// stated type is checked against when the parameters change.
    #[inline(never)]
    pub(super) fn argument_kinds(&mut self, call: usize, slot: u16, argument: Node<'s>) {
        let Some(slot) = u8::try_from(slot)
            .ok()
            .filter(|&s| s < CallShape::FIRST_USE)
        else {
            return;
        };
        let kinds = match argument.kind_str() {
            // Rejected where the checker's strict null checks are on and the parameter
            // does not admit it (whether they are on is the caller file's config's).
            _ if self.states_types && self.is_nullish(argument) => {
                if argument.kind_str() == "null" {
                    ValueKinds::NULL
                } else {
                    ValueKinds::UNDEFINED
                }
            }
            "identifier" => self.identifier_kinds(argument),
            "member_expression" => self.field_read_kinds(argument),
            _ => self.syntax_kinds(argument),
        };
        if kinds == ValueKinds::LITERAL_STRING && argument.kind_str() == "string" {
            // Its value, for a parameter that takes only some strings.
            match literal_value(self.text(argument)) {
                Some(value) => {
                    let value = self.intern(value);
                    self.facts.add_argument_literal(call, slot, value);
                }
                None => self.facts.add_argument_kinds(call, slot, kinds),
            }
        } else if !kinds.is_any() {
            self.facts.add_argument_kinds(call, slot, kinds);
            // `const c = new Client()`: an instance of what the graph may know is a
            // class that extends nothing, which no function type takes.
            if self.states_types
                && kinds == ValueKinds::INSTANCE
                && argument.kind_str() == "identifier"
            {
                self.note_named_argument(call, slot, argument);
            }
        } else if self.states_types
            && matches!(argument.kind_str(), "identifier" | "member_expression")
        {
            self.note_named_argument(call, slot, argument);
            self.note_later_named_argument(call, slot, argument);
        }
    }

    /// An identifier argument that nothing in scope declares yet: kept, with a
    /// reference of its own, to be read once every scope has bound its names (see
    /// [`Self::settle_later_named_arguments`]).
    fn note_later_named_argument(&mut self, call: usize, slot: u8, argument: Node<'s>) {
        if argument.kind_str() != "identifier" {
            return;
        }
        let name = self.intern(self.text(argument));
        if self.binding_now(name).is_none() {
            let reference = self.reference(name);
            self.later_named_arguments.push((call, slot, reference));
        }
    }

    /// The names passed before their declaration that are bound to a function or a
    /// class of the file (`purry(addImplementation, args)` above `function
    /// addImplementation`): functions, as the compiler sees them.
    pub(super) fn settle_later_named_arguments(&mut self) {
        for (call, slot, reference) in std::mem::take(&mut self.later_named_arguments) {
            let Sym::Binding(b) = self.facts.syms.at(reference) else {
                continue;
            };
            let value = self.facts.bindings[b as usize].value;
            if let Sym::Def(d) = self.facts.syms.at(value) {
                if matches!(self.facts.def(d).kind, DefKind::Function | DefKind::Class) {
                    self.facts
                        .add_argument_kinds(call, slot, ValueKinds::FUNCTION);
                }
            }
        }
    }

    /// `null`, `undefined` (where the file does not bind the name) or `void 0`.
    fn is_nullish(&self, value: Node<'s>) -> bool {
        match value.kind_str() {
            "null" => true,
            // The grammar gives `undefined` its own kind where it is an expression.
            "identifier" | "undefined" => {
                self.text(value) == "undefined"
                    && self
                        .interned("undefined")
                        .and_then(|name| self.binding_now(name))
                        .is_none()
            }
            "unary_expression" => {
                value.field(Field::Operator).map(|o| o.kind_str()) == Some("void")
                    && value
                        .field(Field::Argument)
                        .is_some_and(|a| a.kind_str() == "number")
            }
            _ => false,
        }
    }

    /// `member` reads a member of a call's result (`f().x`, `(await f()).x`, `f()!.x`,
    /// `f()?.x`): noted for that call, until [`Self::end_result_read`]. `.then` and its
    /// kin are not reads of the value (they are how a promise is awaited).
    #[inline(never)]
    pub(super) fn begin_member_read(&mut self, member: Node<'s>) -> bool {
        let Some(call) = member.field(Field::Object).and_then(called_through) else {
            return false;
        };
        let Some(property) = member
            .field(Field::Property)
            .filter(|p| p.kind_str() == "property_identifier")
        else {
            return false;
        };
        let name = self.text(property);
        if matches!(name, "then" | "catch" | "finally") {
            return false;
        }
        let name = self.intern(name);
        let row = u32::try_from(property.end_position().row).unwrap_or(u32::MAX);
        self.result_reads.push((call.id(), vec![name], row));
        true
    }

    /// A call's callee that reads a member of another call's result (`load().save()`):
    /// see [`Self::begin_member_read`]. Apart from `call_with_kind`, whose frame each
    /// level of a call chain pays.
    #[inline(never)]
    pub(super) fn begin_callee_read(&mut self, callee: Option<Node<'s>>) -> bool {
        match callee {
            Some(f) if f.kind_str() == "member_expression" => self.begin_member_read(f),
            _ => false,
        }
    }

    /// `const { id, name } = load()` (or `= await load()`): the keys the pattern reads
    /// from the call's result, noted until [`Self::end_result_read`].
    #[inline(never)]
    pub(super) fn begin_destructured_read(&mut self, declarator: Node<'s>) -> bool {
        let (Some(pattern), Some(value)) = (
            declarator.field(Field::Name),
            declarator.field(Field::Value),
        ) else {
            return false;
        };
        if pattern.kind_str() != "object_pattern" {
            return false;
        }
        let Some(call) = called_through(value) else {
            return false;
        };
        let mut keys = Vec::new();
        let mut cursor = pattern.walk();
        for item in pattern.named_children(&mut cursor) {
            let key = match item.kind_str() {
                "shorthand_property_identifier_pattern" => Some(self.text(item)),
                "pair_pattern" => item.field(Field::Key).and_then(|k| key_text(k, self.src)),
                "object_assignment_pattern" => item.field(Field::Left).map(|k| self.text(k)),
                _ => None,
            };
            if let Some(key) = key {
                keys.push(self.intern(key));
            }
            if keys.len() > CallShape::MAX_KEYS {
                break;
            }
        }
        if keys.is_empty() {
            return false;
        }
        self.result_reads.push((call.id(), keys, 0));
        true
    }

    /// `return f()` in a function stated to return a `T` that a promise is not: the
    /// call's result goes where a type is stated, until [`Self::end_typed_use`]; so do
    /// the calls either branch of a conditional returns (`return a ? f() : g()`). How
    /// many were begun.
    #[inline(never)]
    pub(crate) fn begin_typed_return(&mut self, statement: Node<'s>) -> usize {
        self.begin_typed_result(statement.named_child(0))
    }

    /// As [`Self::begin_typed_return`], for the value `value` the function returns (a
    /// `return`'s, or an arrow function's expression body: `(v): boolean => check(v)`).
    pub(crate) fn begin_typed_result(&mut self, value: Option<Node<'s>>) -> usize {
        // `return { .. }`, `return [..]`: each member by what the stated type says of it.
        if let Some(literal) = value
            .map(super::calls::unwrap_parens)
            .filter(|v| matches!(v.kind_str(), "object" | "array"))
        {
            return match self.return_types.last().copied().flatten() {
                Some(ty) if literal.kind_str() == "object" => {
                    self.begin_typed_properties(literal, ty)
                }
                Some(ty) => self.begin_typed_elements(literal, ty),
                None => 0,
            };
        }
        if self.plain_returns.last() != Some(&true) {
            return 0;
        }
        let mut begun = 0;
        let mut stack: SmallVec<[Node<'s>; 4]> = SmallVec::new();
        stack.extend(value);
        while let Some(value) = stack.pop() {
            let value = super::calls::unwrap_parens(value);
            match value.kind_str() {
                "call_expression" if begun < 4 => {
                    self.typed_uses.push((value.id(), CallShape::TYPED_USE));
                    begun += 1;
                }
                "ternary_expression" if stack.len() < 3 => {
                    stack.extend(value.field(Field::Consequence));
                    stack.extend(value.field(Field::Alternative));
                }
                _ => {}
            }
        }
        begun
    }

    /// `return [a, load()]` in a function stated to return an array (`Placement[]`,
    /// `Array<Placement>`) or a tuple (`[Side, Side]`) whose element at that place is
    /// of a type a promise is not: each such element's call is a typed use, until
    /// [`Self::end_typed_use`]; how many were begun.
    fn begin_typed_elements(&mut self, array: Node<'s>, ty: Node<'s>) -> usize {
        // Uses are matched among the last few (see `result_read_by`).
        const MAX_ELEMENTS: usize = 4;
        let element = type_kinds::element(ty, &self.type_scope());
        let mut places: SmallVec<[Node<'s>; 4]> = SmallVec::new();
        if element.is_none() {
            let mut tuple = ty;
            while matches!(tuple.kind_str(), "type_annotation" | "parenthesized_type") {
                match tuple.named_child(0) {
                    Some(inner) => tuple = inner,
                    None => return 0,
                }
            }
            if tuple.kind_str() != "tuple_type" {
                return 0;
            }
            let mut cursor = tuple.walk();
            places.extend(
                tuple
                    .named_children(&mut cursor)
                    .filter(|t| t.kind_str() != "comment")
                    .take(8),
            );
        }
        let mut begun = 0;
        let mut cursor = array.walk();
        let elements: SmallVec<[Node<'s>; 8]> = array
            .named_children(&mut cursor)
            .filter(|e| e.kind_str() != "comment")
            .take(8)
            .collect();
        for (i, value) in elements.into_iter().enumerate() {
            if begun == MAX_ELEMENTS {
                break;
            }
            let Some(stated) = element.or_else(|| places.get(i).copied()) else {
                break;
            };
            // A named member of a tuple (`[first: string]`) by its type; an optional or
            // a rest one is not read.
            let stated = match stated.kind_str() {
                "required_parameter" => stated.field(Field::Type),
                "optional_parameter" | "optional_type" | "rest_type" => None,
                _ => Some(stated),
            };
            let plain = stated.is_some_and(|t| plain_type(self.text(t)));
            let value = super::calls::unwrap_parens(value);
            if plain && value.kind_str() == "call_expression" {
                self.typed_uses.push((value.id(), CallShape::TYPED_USE));
                begun += 1;
            }
        }
        begun
    }

    /// `return { user: load() }` in a function stated to return a `T` whose `user`
    /// member's type a promise is not (an object type, or an interface or alias the
    /// file declared before): each such property's call is a typed use, until
    /// [`Self::end_typed_use`]; how many were begun.
    fn begin_typed_properties(&mut self, object: Node<'s>, ty: Node<'s>) -> usize {
        // Uses are matched among the last few (see `result_read_by`).
        const MAX_PROPERTIES: usize = 4;
        let Some(members) = type_kinds::object_members(ty, &self.type_scope()) else {
            return 0;
        };
        let mut begun = 0;
        let mut cursor = object.walk();
        for pair in object.named_children(&mut cursor) {
            if begun == MAX_PROPERTIES {
                break;
            }
            let (Some(key), Some(value)) = (pair.field(Field::Key), pair.field(Field::Value))
            else {
                continue;
            };
            let value = super::calls::unwrap_parens(value);
            let Some(key) =
                key_text(key, self.src).filter(|_| value.kind_str() == "call_expression")
            else {
                continue;
            };
            let member = members.iter().find(|m| {
                m.child_by_field_name("name")
                    .is_some_and(|n| key_text(n, self.src) == Some(key))
            });
            let Some(member_type) = member.and_then(|m| m.child_by_field_name("type")) else {
                continue;
            };
            let kinds = type_kinds::accepted(member_type, &self.type_scope());
            if !kinds.is_any() && !kinds.meets(ValueKinds::PROMISE) {
                self.typed_uses.push((value.id(), CallShape::TYPED_USE));
                begun += 1;
            }
        }
        begun
    }

    /// The return type `function` states, when it is neither async nor a generator
    /// (whose `return` gives a promise's or an iterator's value).
    pub(crate) fn stated_sync_return(&self, function: Node<'s>) -> Option<Node<'s>> {
        if !self.states_types {
            return None;
        }
        let ty = function.field(Field::ReturnType)?;
        let mut cursor = function.walk();
        let async_or_generator = function
            .children(&mut cursor)
            .take_while(|c| c.kind_str() != "formal_parameters")
            .any(|c| matches!(c.kind_str(), "async" | "*"));
        (!async_or_generator).then_some(ty)
    }

    /// `const x: T = f()` with a `T` a promise is not: as [`Self::begin_typed_return`].
    #[inline(never)]
    pub(super) fn begin_typed_binding(&mut self, declarator: Node<'s>) -> bool {
        let (Some(ty), Some(value)) = (
            declarator.field(Field::Type),
            declarator.field(Field::Value),
        ) else {
            return false;
        };
        let value = super::calls::unwrap_parens(value);
        if value.kind_str() != "call_expression" || !plain_type(self.text(ty)) {
            return false;
        }
        self.typed_uses.push((value.id(), CallShape::TYPED_USE));
        true
    }

    /// `value`, when it is a call (past parentheses and `!`), has its result used as
    /// `slot` says (assigned, iterated, tested), until [`Self::end_typed_use`].
    #[inline(never)]
    pub(crate) fn begin_result_use(&mut self, value: Node<'s>, slot: u8) -> bool {
        let mut value = value;
        for _ in 0..8 {
            match value.kind_str() {
                "parenthesized_expression" | "non_null_expression" => match value.named_child(0) {
                    Some(inner) => value = inner,
                    None => return false,
                },
                "call_expression" => {
                    self.typed_uses.push((value.id(), slot));
                    return true;
                }
                _ => return false,
            }
        }
        false
    }

    /// `if (f())`, `if (ready && f())`, `if (ready && (f() || x))`: the calls an `if`'s
    /// condition tests, through `&&`, `||` and `??` (the compiler flags a promise at
    /// each of them), each until [`Self::end_typed_use`]; how many were begun.
    #[inline(never)]
    pub(crate) fn begin_tested(&mut self, condition: Node<'s>) -> usize {
        self.begin_tested_within(condition, Tested::If)
    }

    /// `f() ? a : b`, `ready && f() ? a : b`: the calls a conditional expression's
    /// condition tests, as the compiler reads it there (narrower than an `if`'s; see
    /// [`Tested::Ternary`]). How many were begun.
    #[inline(never)]
    pub(crate) fn begin_tested_by_ternary(&mut self, condition: Node<'s>) -> usize {
        self.begin_tested_within(condition, Tested::Ternary)
    }

    /// `f() && x`, `(f() || g()) && x`: the calls the left operand of a `&&` tests, in any
    /// expression (the compiler flags a promise there too). A `&&` within that operand
    /// adds its right side only: its own left is begun when the walk reaches it, so
    /// however long a chain, each operand is looked at once.
    #[inline(never)]
    pub(crate) fn begin_tested_left(&mut self, and: Node<'s>) -> usize {
        and.field(Field::Left)
            .map_or(0, |left| self.begin_tested_within(left, Tested::AndLeft))
    }

    fn begin_tested_within(&mut self, root: Node<'s>, how: Tested) -> usize {
        let mut begun = 0;
        // Every `if` passes here: no allocation for the usual few operands. With each
        // operand, whether it is at the top of the condition (past parentheses and
        // the left operands of `||` and `??`).
        let mut stack: SmallVec<[(Node<'s>, bool); 8]> = SmallVec::new();
        stack.push((root, true));
        // A bounded look: a hostile condition of thousands of operands costs no more
        // than a few dozen steps here.
        let mut steps = 0;
        while let Some((node, top)) = stack.pop() {
            steps += 1;
            if begun >= 8 || steps > 32 {
                break;
            }
            match node.kind_str() {
                "parenthesized_expression" => stack.extend(node.named_child(0).map(|n| (n, top))),
                "binary_expression" => match node.field(Field::Operator).map(|o| o.kind_str()) {
                    Some("&&") => {
                        stack.extend(node.field(Field::Right).map(|n| (n, false)));
                        if how == Tested::If {
                            stack.extend(node.field(Field::Left).map(|n| (n, false)));
                        }
                    }
                    Some("||" | "??") => {
                        stack.extend(node.field(Field::Right).map(|n| (n, false)));
                        if how != Tested::Ternary || top {
                            stack.extend(node.field(Field::Left).map(|n| (n, top)));
                        }
                    }
                    _ => {}
                },
                _ => begun += usize::from(self.begin_result_use(node, CallShape::TESTED)),
            }
        }
        begun
    }

    /// `f() > 0`, `f() === "ok"`, `f() - 1`: a call's result as an operand of an
    /// arithmetic operator, or compared with a value of a primitive kind, where a promise
    /// is rejected (TS2362, TS2365, TS2367). A comparison with what may be an object, a
    /// `+` with what may be a string, and `null` or `undefined` say nothing.
    #[inline(never)]
    pub(crate) fn begin_operands(&mut self, binary: Node<'s>, operator: &str) -> usize {
        let numeric = ValueKinds::NUMBER | ValueKinds::BIGINT | ValueKinds::BOOLEAN;
        let primitive = numeric | ValueKinds::STRINGS;
        let (Some(left), Some(right)) = (binary.field(Field::Left), binary.field(Field::Right))
        else {
            return 0;
        };
        let mut begun = 0;
        for (operand, other) in [(left, right), (right, left)] {
            // Most operands are no call: nothing to read of the other side.
            if !matches!(
                super::calls::unwrap_parens(operand).kind_str(),
                "call_expression" | "non_null_expression"
            ) {
                continue;
            }
            let rejected = match operator {
                "-" | "*" | "/" | "%" | "**" | "<<" | ">>" | ">>>" | "&" | "|" | "^" => true,
                "+" | "<" | ">" | "<=" | ">=" | "===" | "!==" | "==" | "!=" => {
                    let within = if operator == "+" { numeric } else { primitive };
                    let kinds = value_kinds(other, self.src);
                    !kinds.is_any() && kinds != ValueKinds::NONE && kinds.within(within)
                }
                _ => false,
            };
            if rejected {
                begun += usize::from(self.begin_result_use(operand, CallShape::OPERAND));
            }
        }
        begun
    }

    pub(crate) fn end_typed_use(&mut self) {
        self.typed_uses.pop();
    }

    /// Ends the `begun` uses the last `begin_` calls began.
    pub(crate) fn end_typed_uses(&mut self, begun: usize) {
        let kept = self.typed_uses.len().saturating_sub(begun);
        self.typed_uses.truncate(kept);
    }

    /// Whether `function` states a return type a promise is not (see `plain_returns`).
    #[inline(never)]
    pub(crate) fn states_plain_return(&self, function: Node<'s>) -> bool {
        let Some(ty) = function.field(Field::ReturnType) else {
            return false;
        };
        let mut cursor = function.walk();
        let async_or_generator = function
            .children(&mut cursor)
            .take_while(|c| c.kind_str() != "formal_parameters")
            .any(|c| matches!(c.kind_str(), "async" | "*"));
        !async_or_generator && plain_type(self.text(ty))
    }

    /// Ends what a `begin_` call that returned true began.
    pub(super) fn end_result_read(&mut self) {
        self.result_reads.pop();
    }

    /// The call at `call` in the facts is the one whose result the innermost enclosing
    /// read reads, when it is: the read is recorded as its result's shape.
    #[inline(never)]
    pub(super) fn result_read_by(&mut self, node: Node<'s>, call: Option<usize>) {
        let Some(call) = call else {
            return;
        };
        // Uses begun together (an `if` testing two calls) are the last few.
        let id = node.id();
        let mut slots = [0u8; 2];
        let mut found = 0;
        for &(use_of, slot) in self.typed_uses.iter().rev().take(8) {
            if use_of == id && found < slots.len() && !slots[..found].contains(&slot) {
                slots[found] = slot;
                found += 1;
            }
        }
        for &slot in &slots[..found] {
            self.facts.add_call_shape(call, slot, &[], false);
        }
        if let Some((id, keys, _)) = self.result_reads.last_mut() {
            if *id == node.id() && !keys.is_empty() {
                let keys = std::mem::take(keys);
                // A result's reads are never all of its members: closed says nothing.
                self.facts
                    .add_call_shape(call, CallShape::RESULT, &keys, false);
            }
        }
    }
}

/// The call `node` is, past parentheses, `await` and `!`.
fn called_through(mut node: Node) -> Option<Node> {
    for _ in 0..8 {
        match node.kind_str() {
            "call_expression" => return Some(node),
            "parenthesized_expression" | "await_expression" | "non_null_expression" => {
                node = node.named_child(0)?;
            }
            _ => return None,
        }
    }
    None
}

/// The value of the string literal `quoted` (quotes included), when its text is its
/// value (no escape) and it is short: what a parameter taking some strings is checked
/// against.
fn literal_value(quoted: &str) -> Option<&str> {
    const MAX_LITERAL_BYTES: usize = 64;
    let value = quoted.get(1..quoted.len().checked_sub(1)?)?;
    (value.len() <= MAX_LITERAL_BYTES && !value.contains('\\')).then_some(value)
}

/// A literal key as the object holds it: `a`, `'a'`, `1`; None for a computed one.
fn key_text<'s>(key: Node, src: &'s str) -> Option<&'s str> {
    let text = &src[key.byte_range()];
    match key.kind_str() {
        "property_identifier" | "number" | "private_property_identifier" => Some(text),
        "string" if text.len() >= 2 => Some(&text[1..text.len() - 1]),
        _ => None,
    }
}

/// A stated type (`: T`, as written) that a promise is not assignable to: not `any`,
/// `unknown`, `void`, an object type with nothing in it, a promise, a union, a type
/// parameter-like single capital, or anything spelt with a `Promise` in it.
fn plain_type(annotation: &str) -> bool {
    let ty = annotation.trim_start_matches(':').trim();
    !(ty.is_empty()
        || ty.contains("Promise")
        || ty.contains("Thenable")
        || ty.contains('|')
        // `Required<Hooks>[K]`, `keyof T`, `T extends U ? A : B`: types the compiler
        // may not resolve before it checks what is returned.
        || ty.match_indices('[').any(|(i, _)| !ty[i + 1..].starts_with(']'))
        || ty.contains("keyof")
        || ty.contains("typeof")
        || ty.contains(" extends ")
        || matches!(
            ty,
            "any" | "unknown" | "void" | "object" | "Object" | "{}" | "never"
        )
        || (ty.len() == 1 && ty.chars().all(|c| c.is_ascii_uppercase())))
}

/// The kinds of value the expression `node` may be, from its syntax alone; ANY where
/// it does not say (a name, a call, a member, `a || b`).
pub(crate) fn value_kinds(node: Node, src: &str) -> ValueKinds {
    value_kinds_within(node, src, 0)
}

fn value_kinds_within(node: Node, src: &str, level: usize) -> ValueKinds {
    if level > 8 {
        return ValueKinds::ANY;
    }
    let text = || src.get(node.byte_range()).unwrap_or_default();
    let operand = |field: Field| {
        node.field(field)
            .map_or(ValueKinds::ANY, |n| value_kinds_within(n, src, level + 1))
    };
    match node.kind_str() {
        "string" => ValueKinds::LITERAL_STRING,
        // `${x}`: a `string`; without substitutions, a literal.
        "template_string" if node.named_child_count() > 0 => ValueKinds::STRING,
        "template_string" => ValueKinds::LITERAL_STRING,
        "number" if text().ends_with('n') => ValueKinds::BIGINT,
        "number" => ValueKinds::NUMBER,
        "true" | "false" => ValueKinds::BOOLEAN,
        "object" => ValueKinds::OBJECT,
        "array" => ValueKinds::ARRAY,
        "arrow_function" | "function_expression" | "function" | "generator_function" | "class" => {
            ValueKinds::FUNCTION
        }
        "regex" | "new_expression" => ValueKinds::INSTANCE,
        "parenthesized_expression" => node
            .named_child(0)
            .map_or(ValueKinds::ANY, |n| value_kinds_within(n, src, level + 1)),
        "unary_expression" => match node.field(Field::Operator).map(|o| o.kind_str()) {
            Some("!" | "delete") => ValueKinds::BOOLEAN,
            // One of a few literals: it fits a `string` and maybe a union of them.
            Some("typeof") => ValueKinds::STRINGS,
            Some("+") => ValueKinds::NUMBER,
            Some("-" | "~") => ValueKinds::NUMBER | ValueKinds::BIGINT,
            _ => ValueKinds::ANY,
        },
        "binary_expression" => match node.field(Field::Operator).map(|o| o.kind_str()) {
            Some("==" | "===" | "!=" | "!==" | "<" | ">" | "<=" | ">=" | "instanceof" | "in") => {
                ValueKinds::BOOLEAN
            }
            Some("-" | "*" | "/" | "%" | "**" | "&" | "|" | "^" | "<<" | ">>" | ">>>") => {
                ValueKinds::NUMBER | ValueKinds::BIGINT
            }
            // A string on either side makes a string; anything else says nothing.
            Some("+")
                if [operand(Field::Left), operand(Field::Right)]
                    .iter()
                    .any(|k| !k.is_any() && k.within(ValueKinds::STRINGS)) =>
            {
                ValueKinds::STRING
            }
            _ => ValueKinds::ANY,
        },
        _ => ValueKinds::ANY,
    }
}

/// Which condition [`Extractor::begin_tested_within`] reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tested {
    /// An `if`'s: every operand through `&&`, `||` and `??`.
    If,
    /// A `?:`'s: the condition itself, the right operand of each `&&`, `||` and `??`
    /// down from it, and the left operands of a `||` or `??` chain at its top (the left
    /// of any `&&` is begun where the walk reaches it). Not the left operand of a `||`
    /// inside a `&&`'s right one (`x && (f() || y) ? a : b`, which TypeScript does not
    /// flag).
    Ternary,
    /// The left operand of a `&&`: its operands through `||` and `??`, and the right
    /// ones of the `&&`s within it.
    AndLeft,
}
