//! The kinds of value a name holds, where its declaration in the file says (`secret:
//! CryptoKey`, `const n = 1`, `function f() {}`): what an identifier passed as an
//! argument is checked against, when the parameter it lands on changes (see
//! `shapes::argument_kinds`). TypeScript only: there a name's declared type is what the
//! compiler checks a call with, whatever the name holds at run time.

use smallvec::SmallVec;
use tree_sitter::Node;

use super::fields::{Field, FieldExt};
use super::syntax::is_rest_parameter;
use super::{Extractor, ThisCtx};
use crate::indexer::facts::*;
use crate::indexer::type_kinds::{self, TypeScope};

impl<'s> Extractor<'s> {
    /// `name`, just declared with the stated type `ty` (a `type_annotation`) or else
    /// the initial value (or default) `value`, holds values of the kinds these say.
    /// `mutable`: the name may be assigned again (`let`, `var`, a parameter), so an
    /// initial literal stands for its type (`let mode = 'a'` is a `string`).
    pub(crate) fn note_declared_kinds(
        &mut self,
        name: StrId,
        ty: Option<Node<'s>>,
        value: Option<Node<'s>>,
        mutable: bool,
    ) {
        let Some(binding) = self.binding_now(name).filter(|_| self.states_types) else {
            return;
        };
        // `let value: any`: whatever is assigned to it later fits, a promise too.
        if ty.is_some_and(states_any) {
            self.typed_by_value.insert(binding);
        }
        // The first declaration of a name in a scope is the binding's.
        match self.declared_kinds(ty, value, mutable) {
            Some(kinds) => {
                self.binding_kinds.entry(binding).or_insert(kinds);
            }
            None => {
                if let Some(named) = ty.and_then(|ty| self.type_named(ty)) {
                    self.binding_types.entry(binding).or_insert(named);
                }
            }
        }
    }

    /// `let name = value` without a stated type: where `value` is a call (or
    /// nothing), the name's type is what the call returns (or anything), so a result
    /// assigned to it later may be a promise too (`let qs = getQuery(a)` then `qs =
    /// getQuery(b)`). The same holds where `value` is another such name.
    pub(crate) fn note_type_from_value(&mut self, name: StrId, value: Option<Node<'s>>) {
        if !self.states_types {
            return;
        }
        let from_value = match value.map(super::calls::unwrap_parens) {
            None => true,
            Some(v) => match v.kind_str() {
                "call_expression" => true,
                "await_expression" => v.named_child(0).is_some_and(|c| {
                    super::calls::unwrap_parens(c).kind_str() == "call_expression"
                }),
                // `let current = base`, `base` stated `any` or itself typed by a call:
                // the new name's type is the other's.
                "identifier" => self
                    .interned(self.text(v))
                    .and_then(|other| self.binding_now(other))
                    .is_some_and(|other| self.typed_by_value.contains(&other)),
                _ => false,
            },
        };
        if let (true, Some(binding)) = (from_value, self.binding_now(name)) {
            self.typed_by_value.insert(binding);
        }
    }

    /// `let name;`: neither a stated type nor a value (see [`Self::auto_typed`]).
    pub(crate) fn note_auto_typed(&mut self, name: StrId) {
        if let (true, Some(binding)) = (self.states_types, self.binding_now(name)) {
            self.auto_typed.insert(binding);
        }
    }

    /// `name`, just declared with no stated type and the value `value`: where the
    /// compiler types that `any` (see [`Self::any_values`]), the name is.
    pub(crate) fn note_any_value(&mut self, name: StrId, value: Node<'s>) {
        if !self.states_types {
            return;
        }
        let value = super::calls::unwrap_parens(value);
        let any = match value.kind_str() {
            "as_expression" => self.cast_to_any(value),
            "call_expression" => value.field(Field::Function).is_some_and(|f| {
                let (Some(object), Some(property)) =
                    (f.field(Field::Object), f.field(Field::Property))
                else {
                    return false;
                };
                let global = self
                    .interned(self.text(object))
                    .is_none_or(|n| self.binding_now(n).is_none());
                global
                    && matches!(
                        (self.text(object), self.text(property)),
                        ("Object", "create") | ("JSON", "parse")
                    )
            }),
            _ => false,
        };
        if let (true, Some(binding)) = (any, self.binding_now(name)) {
            self.any_values.insert(binding);
        }
    }

    /// Call `call`, recorded for the callee expression `callee`: where that is, or is
    /// a member of, a value the compiler reads as `any` (a name declared with neither
    /// a type nor a value in a scope outside the innermost function, or a cast to
    /// `any`: `(group as any).run(...)`), it checks nothing of the call.
    pub(crate) fn note_any_receiver(&mut self, callee: Node<'s>, call: usize) {
        let base = match callee.kind_str() {
            "identifier" => Some(callee),
            "member_expression" => callee.field(Field::Object).map(super::calls::unwrap_parens),
            _ => None,
        };
        let Some(base) = base else {
            return;
        };
        let any = match base.kind_str() {
            "as_expression" => self.cast_to_any(base),
            "identifier" if !self.auto_typed.is_empty() => self
                .interned(self.text(base))
                .and_then(|name| self.binding_outside_function(name))
                .is_some_and(|b| self.auto_typed.contains(&b)),
            _ => false,
        };
        if any {
            self.facts
                .add_call_shape(call, CallShape::ANY_RECEIVER, &[], false);
        }
    }

    /// `x as any`, the `as_expression` `cast`.
    fn cast_to_any(&self, cast: Node<'s>) -> bool {
        let mut cursor = cast.walk();
        let ty = cast.named_children(&mut cursor).nth(1);
        ty.is_some_and(|t| self.text(t) == "any")
    }

    /// A parameter `name` with neither a stated type nor a default: its type is the
    /// one its context gives a callback's (`reduce((prev, x) => ...)`, `prev` of the
    /// initial value's type, `{}` perhaps), or `any`. Not known here, so what is
    /// assigned to it later may be a promise too.
    pub(crate) fn note_untyped_parameter(&mut self, name: StrId) {
        if let (true, Some(binding)) = (self.states_types, self.binding_now(name)) {
            self.typed_by_value.insert(binding);
        }
    }

    /// The binding of the type a `type_annotation` names, when it is a plain name
    /// bound in the file (imported or declared there): `KeyLike` in `key: KeyLike`; or
    /// a namespace's binding and the member named (`types.JWK`). A union of it with
    /// `undefined` or `null` is as good (`#header?: types.Header | undefined`): no
    /// other kind of value comes with them.
    fn type_named(&mut self, annotation: Node<'s>) -> Option<(BindingIdx, Option<StrId>)> {
        let (named, member, also) = self.named_in(annotation.named_child(0)?, false)?;
        (also == ValueKinds::NONE).then_some((named, member))
    }

    /// As [`Self::type_named`], for the type `ty` itself. With `parameter`, the type
    /// of a parameter: the name may be given type arguments (`Handler<Env>`: an alias
    /// of a function type is one whatever they are) and be one member of a union whose
    /// others this file reads (`string | Handler`), what those accept returned with it.
    fn named_in(
        &mut self,
        ty: Node<'s>,
        parameter: bool,
    ) -> Option<(BindingIdx, Option<StrId>, ValueKinds)> {
        let mut ty = ty;
        if let Some(argument) = type_kinds::same_kinds_as_argument(ty, &Declared(self)) {
            ty = argument;
        }
        let mut also = ValueKinds::NONE;
        if ty.kind_str() == "union_type" {
            let mut named = None;
            for member in self.named_kids(ty) {
                let nullish = match member.kind_str() {
                    "predefined_type" => self.text(member) == "undefined",
                    "literal_type" => matches!(self.text(member), "null" | "undefined"),
                    _ => false,
                };
                if nullish {
                    continue;
                }
                if parameter && matches!(member.kind_str(), "predefined_type" | "literal_type") {
                    let kinds = type_kinds::accepted(member, &Declared(self));
                    if kinds.is_any() {
                        return None;
                    }
                    also = also | kinds;
                    continue;
                }
                if named.replace(member).is_some() {
                    return None;
                }
            }
            ty = named?;
        }
        if parameter && ty.kind_str() == "generic_type" {
            ty = ty.field(Field::Name)?;
        }
        match ty.kind_str() {
            "type_identifier" => {
                Some((self.binding_now(self.interned(self.text(ty))?)?, None, also))
            }
            "nested_type_identifier" => {
                let (module, name) = (ty.field(Field::Module)?, ty.field(Field::Name)?);
                if module.kind_str() != "identifier" {
                    return None;
                }
                let binding = self.binding_now(self.interned(self.text(module))?)?;
                Some((binding, Some(self.intern(self.text(name))), also))
            }
            _ => None,
        }
    }

    /// Instance field `name` of `class`, declared with the type `ty` or else the
    /// initial value `value` (or a constructor's parameter property): as
    /// [`Self::note_declared_kinds`], for `this.name` passed as an argument.
    pub(crate) fn note_field_kinds(
        &mut self,
        class: DefIdx,
        name: StrId,
        ty: Option<Node<'s>>,
        value: Option<Node<'s>>,
        mutable: bool,
    ) {
        if !self.states_types {
            return;
        }
        // `protected _debug = makeDebug()`: the field's type is what the call returns,
        // so a result of the same call assigned to it later fits, a promise too.
        let from_call = ty.is_none()
            && value
                .map(super::calls::unwrap_parens)
                .is_some_and(|v| v.kind_str() == "call_expression");
        if from_call {
            self.fields_typed_by_value.insert((class, name));
        }
        match self.declared_kinds(ty, value, mutable) {
            Some(kinds) => {
                self.field_kinds.entry((class, name)).or_insert(kinds);
            }
            None => {
                if let Some(named) = ty.and_then(|ty| self.type_named(ty)) {
                    self.field_types.entry((class, name)).or_insert(named);
                }
            }
        }
    }

    /// A class's instance type, from its body: what a value stated to be of it may
    /// be, kept for names in other files stated to be of it.
    pub(crate) fn note_class_kinds(&mut self, class: DefIdx, body: Node<'s>) {
        if !self.states_types {
            return;
        }
        let kinds = type_kinds::class_instance(body, &Declared(self));
        if !kinds.is_any() {
            self.facts.def_kinds.push(DefKinds {
                def: class,
                slot: DefKinds::RESULT,
                kinds,
            });
        }
    }

    /// An interface's (or an object type alias's) body: what a value stated to be of
    /// it may be, and what a parameter of it accepts, for other files.
    ///
    /// With `extends`, an interface that extends others: its own members are recorded
    /// even when there are none (NONE), for the graph to add those of the others (see
    /// `blast::radius::judge`).
    pub(crate) fn note_interface_kinds(&mut self, def: DefIdx, body: Node<'s>, extends: bool) {
        if !self.states_types {
            return;
        }
        let kinds = type_kinds::accepted(body, &Declared(self));
        let empty = || {
            let mut cursor = body.walk();
            let all_comments = body
                .named_children(&mut cursor)
                .all(|m| m.kind_str() == "comment");
            all_comments
        };
        if extends && kinds.is_any() && empty() {
            self.facts.def_kinds.push(DefKinds {
                def,
                slot: DefKinds::RESULT,
                kinds: ValueKinds::NONE,
            });
        } else if !kinds.is_any() {
            self.facts.def_kinds.push(DefKinds {
                def,
                slot: DefKinds::RESULT,
                kinds,
            });
        }
    }

    /// A property or method signature `member` of the interface (or object type
    /// alias) `def`: its name, whether it is required, and what its stated type holds
    /// (a method's, a function),
    /// for calls in other files that pass an object where the type is stated.
    pub(crate) fn note_type_member(&mut self, def: DefIdx, member: Node<'s>) {
        if !self.states_types {
            return;
        }
        let Some(name) = member.field(Field::Name).and_then(|n| self.key_name(n)) else {
            return;
        };
        let mut cursor = member.walk();
        let required = !member.children(&mut cursor).any(|c| c.kind_str() == "?");
        let kinds = match (member.kind_str(), member.field(Field::Type)) {
            ("property_signature", Some(ty)) => type_kinds::held(ty, &Declared(self)),
            // `defaultMessage?(args): string`: a function, whatever it returns.
            ("method_signature", _) => ValueKinds::FUNCTION,
            _ => ValueKinds::ANY,
        };
        let kept = self
            .facts
            .type_members
            .iter()
            .rev()
            .take_while(|m| m.def == def)
            .count();
        if kept < TypeMember::MAX_PER_TYPE {
            self.facts.type_members.push(TypeMember {
                def,
                name,
                required,
                kinds,
            });
        }
    }

    /// The name or field `argument` of the call at `call`, when its declaration states
    /// a type named elsewhere: recorded for the graph (see [`NamedArgument`]).
    pub(crate) fn note_named_argument(&mut self, call: usize, slot: u8, argument: Node<'s>) {
        let named = match argument.kind_str() {
            "identifier" => self
                .interned(self.text(argument))
                .and_then(|name| self.binding_now(name))
                .and_then(|b| self.binding_types.get(&b)),
            "member_expression" => self
                .field_key(argument)
                .and_then(|k| self.field_types.get(&k)),
            _ => None,
        };
        let Ok(call) = u32::try_from(call) else {
            return;
        };
        if let Some(&(ty, member)) = named {
            self.facts.named_arguments.push(NamedArgument {
                call,
                ty,
                slot,
                member,
            });
        } else if argument.kind_str() == "identifier" {
            // No type stated here: what the name is, the graph may know (a callback's
            // parameter, an instance made in place).
            let binding = self
                .interned(self.text(argument))
                .and_then(|name| self.binding_now(name))
                .filter(|b| !self.any_values.contains(b));
            if let Some(binding) = binding {
                self.facts.argument_names.push(ArgumentName {
                    call,
                    slot,
                    binding,
                });
            }
        }
    }

    /// What a declaration with the stated type `ty` (a `type_annotation`) or else the
    /// initial value `value` holds; None where that says nothing (or in JavaScript).
    fn declared_kinds(
        &self,
        ty: Option<Node<'s>>,
        value: Option<Node<'s>>,
        mutable: bool,
    ) -> Option<ValueKinds> {
        if !self.states_types {
            return None;
        }
        let kinds = match (ty, value) {
            (Some(ty), _) => type_kinds::held(ty, &Declared(self)),
            // `let n = 'a'`: the compiler gives the name the literal's type, widened (a
            // `const` keeps the literal); an object, array or function literal is what
            // its syntax says.
            (None, Some(value)) if mutable => self.syntax_kinds(value).widened(),
            (None, Some(value)) => self.syntax_kinds(value),
            (None, None) => return None,
        };
        if kinds.is_any() {
            return None;
        }
        // An object literal passed in place is one whose keys the call lists (see
        // `shapes::object_argument`); a name holding one is an object like any other.
        Some(if kinds == ValueKinds::OBJECT {
            ValueKinds::OBJECTS
        } else {
            kinds
        })
    }

    /// `this.key` (or `this.#key`) in a method of a class of this file whose instance
    /// field `key` states what it holds; ANY otherwise.
    pub(crate) fn field_read_kinds(&self, member: Node<'s>) -> ValueKinds {
        if !self.states_types || self.field_kinds.is_empty() {
            return ValueKinds::ANY;
        }
        self.field_key(member)
            .and_then(|key| self.field_kinds.get(&key))
            .copied()
            .unwrap_or(ValueKinds::ANY)
    }

    /// `this.key` in a method of a class of this file: (the class, `key`).
    pub(crate) fn field_key(&self, member: Node<'s>) -> Option<(DefIdx, StrId)> {
        let (object, property) = (member.field(Field::Object)?, member.field(Field::Property)?);
        let Some(ThisCtx::Of(class)) = self.this.last() else {
            return None;
        };
        if object.kind_str() != "this" {
            return None;
        }
        Some((*class, self.interned(self.text(property))?))
    }

    /// Parameter `index` of `def`, the node `p`: what its stated type (or else its
    /// default) accepts, kept for calls in other files that pass it a call's result.
    pub(crate) fn note_parameter_kinds(&mut self, def: DefIdx, index: usize, p: Node<'s>) {
        if !self.states_types {
            return;
        }
        let Some(slot) = u8::try_from(index)
            .ok()
            .filter(|&i| u16::from(i) < DefKinds::MAX_PARAMS)
        else {
            return;
        };
        let kinds = match (p.kind_str(), p.field(Field::Type), p.field(Field::Value)) {
            ("required_parameter", Some(ty), _) if is_rest_parameter(p) => {
                let kinds = type_kinds::accepted_element(ty, &Declared(self));
                let slot = DefKinds::REST + slot;
                if !kinds.is_any() {
                    self.facts.def_kinds.push(DefKinds { def, slot, kinds });
                } else if let Some(element) = type_kinds::element(ty, &Declared(self)) {
                    self.note_named_param(def, slot, element);
                }
                kinds
            }
            ("required_parameter" | "optional_parameter", Some(ty), _) => {
                let kinds = type_kinds::accepted(ty, &Declared(self));
                if let (true, Some(ty)) = (kinds.is_any(), ty.named_child(0)) {
                    self.note_named_param(def, slot, ty);
                }
                self.note_element_kinds(def, slot, ty);
                kinds
            }
            ("required_parameter", None, Some(value)) => {
                type_kinds::widened(super::value_kinds(value, self.src))
            }
            _ => return,
        };
        if !kinds.is_any() {
            self.facts.def_kinds.push(DefKinds { def, slot, kinds });
        }
    }

    /// Parameter `slot` of `def` is stated as the array type `ty` (`items: Item[]`):
    /// what each element of an array literal passed there must be, at
    /// [`DefKinds::ELEMENT`] plus its place.
    fn note_element_kinds(&mut self, def: DefIdx, slot: u8, ty: Node<'s>) {
        let Some(element) =
            type_kinds::element(ty, &Declared(self)).filter(|_| slot < DefKinds::MAX_ELEMENT)
        else {
            return;
        };
        let slot = DefKinds::ELEMENT + slot;
        let kinds = type_kinds::accepted(element, &Declared(self));
        if !kinds.is_any() {
            self.facts.def_kinds.push(DefKinds { def, slot, kinds });
            return;
        }
        // `(Props | void)[]`: the type read through its parentheses.
        let mut element = element;
        while element.kind_str() == "parenthesized_type" {
            match element.named_child(0) {
                Some(inner) => element = inner,
                None => return,
            }
        }
        self.note_named_param(def, slot, element);
    }

    /// Parameter `slot` of `def` (or with [`DefKinds::REST`] added, each element of a
    /// rest parameter) is stated as the type `ty`, not known here: where it names a
    /// type (see [`Self::named_in`]), the graph reads what it accepts there.
    fn note_named_param(&mut self, def: DefIdx, slot: u8, ty: Node<'s>) {
        if let Some((named, member, also)) = self.named_in(ty, true) {
            self.facts.named_params.push(NamedParam {
                def,
                ty: named,
                slot,
                member,
                also,
            });
        }
    }

    /// `def` states the return type `ty`: what calling it gives, where the type says.
    pub(crate) fn note_result_kinds(&mut self, def: DefIdx, ty: Node<'s>) {
        if !self.states_types {
            return;
        }
        // And for `Promise<CryptoKey | Uint8Array>`, what `await` of a call of it gives.
        let awaited = type_kinds::promised(ty, &Declared(self));
        let stated = [(DefKinds::RESULT, Some(ty)), (DefKinds::AWAITED, awaited)];
        for (slot, ty) in stated {
            let Some(ty) = ty else {
                continue;
            };
            let kinds = type_kinds::held(ty, &Declared(self));
            if !kinds.is_any() {
                self.facts.def_kinds.push(DefKinds { def, slot, kinds });
            }
        }
    }

    /// Argument `index` of the call at `outer` in the facts is `argument`: when it is
    /// a call (past parentheses), or a conditional either of whose branches is one
    /// (`f(c ? encode(x) : y)`), each such call is noted until it is recorded (see
    /// [`Self::argument_call_recorded`]) or the argument is walked. How many were
    /// noted.
    #[inline(never)]
    pub(crate) fn begin_argument_call(
        &mut self,
        outer: usize,
        index: u16,
        argument: Node<'s>,
    ) -> usize {
        let (Ok(outer), Some(slot)) = (
            u32::try_from(outer),
            u8::try_from(index)
                .ok()
                .filter(|&s| s < CallShape::FIRST_USE),
        ) else {
            return 0;
        };
        let inner = super::calls::unwrap_parens(argument);
        match inner.kind_str() {
            "object" => {
                self.note_property_calls(outer, slot, inner);
                return 0;
            }
            "array" => return self.note_element_calls(outer, slot, inner),
            // `group('/a', (app) => app.get(...))`: what the callback returns.
            "arrow_function" => {
                let body = inner
                    .field(Field::Body)
                    .map(super::calls::unwrap_parens)
                    .filter(|b| b.kind_str() == "call_expression");
                let Some(body) = body else {
                    return 0;
                };
                self.argument_calls
                    .push((body.id(), outer, slot, Passed::Returned));
                return 1;
            }
            _ => {}
        }
        let how = match inner.kind_str() {
            "ternary_expression" => Passed::Branch,
            _ => Passed::Whole,
        };
        let calls: [Option<Node<'s>>; 2] = match inner.kind_str() {
            "call_expression" => [Some(inner), None],
            // The alternative is walked last: noted first, so the consequence is on top.
            "ternary_expression" => [
                inner.field(Field::Alternative),
                inner.field(Field::Consequence),
            ]
            .map(|branch| {
                branch
                    .map(super::calls::unwrap_parens)
                    .filter(|b| b.kind_str() == "call_expression")
            }),
            _ => [None, None],
        };
        let mut noted = 0;
        for call in calls.into_iter().flatten() {
            self.argument_calls.push((call.id(), outer, slot, how));
            noted += 1;
        }
        noted
    }

    /// `outer([inner(), other()])`: the array literal `array` is argument `slot` of the
    /// call at `outer`; each of its first elements that is a call is noted until that
    /// call is recorded or the argument is walked. How many were noted.
    fn note_element_calls(&mut self, outer: u32, slot: u8, array: Node<'s>) -> usize {
        if slot >= DefKinds::MAX_ELEMENT {
            return 0;
        }
        let mut cursor = array.walk();
        let calls: SmallVec<[Node<'s>; 8]> = array
            .named_children(&mut cursor)
            .take(PropertyCall::MAX_PER_OBJECT)
            .map(super::calls::unwrap_parens)
            .filter(|e| e.kind_str() == "call_expression")
            .collect();
        // The first element is walked first: noted last, so it is on top.
        for call in calls.iter().rev() {
            self.argument_calls
                .push((call.id(), outer, slot, Passed::Element));
        }
        calls.len()
    }

    /// `outer(..., { key: inner() }, ...)`: the object literal `object` is argument
    /// `slot` of the call at `outer`; each of its first properties whose value is a
    /// call is noted until that call is recorded (see [`Self::argument_call_recorded`]),
    /// and so is each of the first of an object literal one level down
    /// (`{ validator: { defaultMessage: build() } }`).
    fn note_property_calls(&mut self, outer: u32, slot: u8, object: Node<'s>) {
        for (key, value) in self.object_pairs(object) {
            match value.kind_str() {
                "call_expression" => self
                    .property_calls
                    .push((value.id(), outer, slot, key, None)),
                "object" => {
                    for (nested, inner) in self.object_pairs(value) {
                        if inner.kind_str() == "call_expression" {
                            self.property_calls
                                .push((inner.id(), outer, slot, key, Some(nested)));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The first properties of the object literal `object` that have a plain key, with
    /// their values (parentheses aside).
    fn object_pairs(&mut self, object: Node<'s>) -> SmallVec<[(StrId, Node<'s>); 8]> {
        let mut cursor = object.walk();
        let pairs: SmallVec<[Node<'s>; 8]> = object
            .named_children(&mut cursor)
            .filter(|p| p.kind_str() == "pair")
            .take(PropertyCall::MAX_PER_OBJECT)
            .collect();
        pairs
            .into_iter()
            .filter_map(|pair| {
                let key = self.key_name(pair.field(Field::Key)?)?;
                let value = super::calls::unwrap_parens(pair.field(Field::Value)?);
                Some((key, value))
            })
            .collect()
    }

    /// The call `node`, recorded at `call` in the facts: an argument of another, when
    /// it is one of those noted last (the two branches of a conditional), or a property
    /// of an object literal that is one.
    #[inline(never)]
    pub(crate) fn argument_call_recorded(&mut self, node: Node<'s>, call: Option<usize>) {
        let Some(inner) = call.and_then(|c| u32::try_from(c).ok()) else {
            return;
        };
        let id = node.id();
        let noted = self.property_calls.iter().rev().find(|p| p.0 == id);
        if let Some(&(_, outer, slot, key, nested)) = noted {
            self.facts.property_calls.push(PropertyCall {
                outer,
                inner,
                key,
                nested,
                slot,
            });
            return;
        }
        // The last noted: the two branches of a conditional, or an array's elements.
        let noted = self
            .argument_calls
            .iter()
            .rev()
            .take(PropertyCall::MAX_PER_OBJECT);
        if let Some(&(_, outer, slot, how)) = noted.into_iter().find(|(noted, ..)| *noted == id) {
            self.facts.argument_calls.push(ArgumentCall {
                outer,
                inner,
                slot,
                branch: how == Passed::Branch,
                element: how == Passed::Element,
                returned: how == Passed::Returned,
            });
        }
    }

    /// The kinds of value the identifier `node` holds, where its declaration said (a
    /// stated type, an initial value, a function or class declared in the file); ANY
    /// where it did not.
    pub(crate) fn identifier_kinds(&self, node: Node<'s>) -> ValueKinds {
        if !self.states_types {
            return ValueKinds::ANY;
        }
        let name = self.text(node);
        let Some(binding) = self.interned(name).and_then(|name| self.binding_now(name)) else {
            // `filter(Boolean)`: a global function the file does not bind;
            // `Infinity` and `NaN`: the global numbers.
            return if type_kinds::is_global_function(name) {
                ValueKinds::FUNCTION
            } else if matches!(name, "Infinity" | "NaN") {
                ValueKinds::NUMBER
            } else {
                ValueKinds::ANY
            };
        };
        if let Some(&kinds) = self.binding_kinds.get(&binding) {
            return kinds;
        }
        let value = self.facts.bindings[binding as usize].value;
        match self.facts.syms.at(value) {
            Sym::Def(d) if matches!(self.facts.def(d).kind, DefKind::Function | DefKind::Class) => {
                ValueKinds::FUNCTION
            }
            _ => ValueKinds::ANY,
        }
    }

    /// What the expression `value` is by its syntax (see `shapes::value_kinds`), and a
    /// well-known global class's instance where it is `new` of one the file does not
    /// bind (`new Uint8Array(32)`) or a regular expression.
    pub(crate) fn syntax_kinds(&self, value: Node<'s>) -> ValueKinds {
        let kinds = super::value_kinds(value, self.src);
        if kinds.is_any() && self.states_types {
            let value = super::calls::unwrap_parens(value);
            if value.kind_str() == "call_expression" {
                return self.platform_call_kinds(value);
            }
        }
        if kinds != ValueKinds::INSTANCE || !self.states_types {
            return kinds;
        }
        let value = super::calls::unwrap_parens(value);
        match value.kind_str() {
            "regex" => ValueKinds::BUILTIN,
            "new_expression" => {
                let Some(class) = value
                    .field(Field::Constructor)
                    .filter(|c| c.kind_str() == "identifier")
                else {
                    return kinds;
                };
                let name = self.text(class);
                let bound = self
                    .interned(name)
                    .is_some_and(|n| self.binding_now(n).is_some());
                if type_kinds::is_global_class(name) && !bound {
                    ValueKinds::BUILTIN
                } else {
                    kinds
                }
            }
            _ => kinds,
        }
    }

    /// What a call of the platform's returns, by the platform's own types, where the
    /// call says which function it is: a global the file does not bind (`String(x)`,
    /// `JSON.stringify(x)`, `Object.keys(x)`), a string's or an array's method on a
    /// value known to be one (`` `a b`.split(' ') ``, `argv.slice(2)`, `parts.join()`),
    /// or `x.toString()`. ANY for any other call.
    fn platform_call_kinds(&self, call: Node<'s>) -> ValueKinds {
        self.platform_call_kinds_within(call, 0)
    }

    fn platform_call_kinds_within(&self, call: Node<'s>, level: usize) -> ValueKinds {
        // Receivers are read through a chain of this many calls (`Object.keys(o).join()`).
        const MAX_CHAIN: usize = 4;
        let Some(callee) = call.field(Field::Function) else {
            return ValueKinds::ANY;
        };
        let unbound = |name: &str| {
            self.interned(name)
                .is_none_or(|n| self.binding_now(n).is_none())
        };
        match callee.kind_str() {
            "identifier" => {
                let name = self.text(callee);
                if !unbound(name) {
                    return ValueKinds::ANY;
                }
                match name {
                    "String" => ValueKinds::STRING,
                    "Number" | "parseInt" | "parseFloat" => ValueKinds::NUMBER,
                    "Boolean" | "isNaN" | "isFinite" => ValueKinds::BOOLEAN,
                    _ => ValueKinds::ANY,
                }
            }
            "member_expression" => {
                let (Some(object), Some(property)) =
                    (callee.field(Field::Object), callee.field(Field::Property))
                else {
                    return ValueKinds::ANY;
                };
                let method = self.text(property);
                if matches!(
                    method,
                    "toString" | "toFixed" | "toPrecision" | "toISOString"
                ) {
                    return ValueKinds::STRING;
                }
                if object.kind_str() == "identifier" && unbound(self.text(object)) {
                    match (self.text(object), method) {
                        ("JSON", "stringify") => return ValueKinds::STRING,
                        ("Object", "keys" | "values" | "entries" | "getOwnPropertyNames")
                        | ("Array", "from" | "of") => return ValueKinds::ARRAY,
                        ("Math", _) | ("Date", "now") => return ValueKinds::NUMBER,
                        _ => {}
                    }
                }
                let receiver = match object.kind_str() {
                    "identifier" => self.identifier_kinds(object),
                    "call_expression" if level < MAX_CHAIN => {
                        self.platform_call_kinds_within(object, level + 1)
                    }
                    _ => super::value_kinds(object, self.src),
                };
                if receiver.is_any() {
                    return ValueKinds::ANY;
                }
                let array = ValueKinds::ARRAY | ValueKinds::INSTANCE | ValueKinds::BUILTIN;
                if receiver.within(ValueKinds::STRINGS) {
                    return match method {
                        // `string[]`: an array, never a subclass's instance.
                        "split" => ValueKinds::ARRAY,
                        "toUpperCase" | "toLowerCase" | "trim" | "trimStart" | "trimEnd"
                        | "slice" | "substring" | "replace" | "replaceAll" | "padStart"
                        | "padEnd" | "repeat" | "normalize" | "concat" => ValueKinds::STRING,
                        "startsWith" | "endsWith" | "includes" => ValueKinds::BOOLEAN,
                        "indexOf" | "lastIndexOf" | "charCodeAt" => ValueKinds::NUMBER,
                        _ => ValueKinds::ANY,
                    };
                }
                if receiver.meets(ValueKinds::ARRAY) && receiver.within(array) {
                    return match method {
                        // What the receiver is (a typed array's `map` gives a typed
                        // array, a subclass's its own instance).
                        "map" | "filter" | "slice" | "concat" | "flat" | "flatMap" => receiver,
                        "join" => ValueKinds::STRING,
                        "includes" | "some" | "every" => ValueKinds::BOOLEAN,
                        "indexOf" | "lastIndexOf" | "findIndex" => ValueKinds::NUMBER,
                        _ => ValueKinds::ANY,
                    };
                }
                ValueKinds::ANY
            }
            _ => ValueKinds::ANY,
        }
    }

    /// The binding `name` has here among the declarations seen so far, innermost first.
    pub(super) fn binding_now(&self, name: StrId) -> Option<BindingIdx> {
        (0..self.scope_count())
            .rev()
            .find_map(|scope| self.binding_in(scope, name))
    }
}

impl<'s> Extractor<'s> {
    /// The types the file has declared so far, for reading a stated type.
    pub(crate) fn type_scope(&self) -> impl TypeScope<'s> + '_ {
        Declared(self)
    }
}

/// The types named where a declaration is extracted: a name the file declares or
/// imports (a type parameter, an interface, `import { URL } from 'whatwg-url'`) is not
/// the global of that name; an interface or type alias without type parameters that
/// the file declared before is read, anything else bound is not read further here.
struct Declared<'a, 's>(&'a Extractor<'s>);

impl<'s> TypeScope<'s> for Declared<'_, 's> {
    fn text(&self, node: Node<'s>) -> &str {
        self.0.src.get(node.byte_range()).unwrap_or_default()
    }
    fn declared(&self, name: &str) -> Option<Node<'s>> {
        let binding = self.0.binding_now(self.0.interned(name)?)?;
        self.0.local_types.get(&binding).copied()
    }
    fn is_generic(&self, name: &str) -> bool {
        self.0
            .interned(name)
            .and_then(|name| self.0.binding_now(name))
            .is_some_and(|b| !self.0.local_types.contains_key(&b))
    }
    fn generic_alias(&self, name: &str) -> Option<ValueKinds> {
        let binding = self.0.binding_now(self.0.interned(name)?)?;
        self.0.generic_alias_kinds.get(&binding).copied()
    }
}

/// How a call noted in `argument_calls` is passed to the call around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Passed {
    /// It is the argument: `f(g())`.
    Whole,
    /// It is a branch of a conditional that is the argument: `f(c ? g() : x)`.
    Branch,
    /// It is an element of an array literal that is the argument: `f([g()])`.
    Element,
    /// It is what the arrow function that is the argument returns: `f(() => g())`.
    Returned,
}

/// Whether the type annotation `ty` (`: any`, or the type itself) is `any` or `unknown`,
/// which every value fits.
fn states_any(ty: Node<'_>) -> bool {
    let ty = if ty.kind_str() == "type_annotation" {
        match ty.named_child(0) {
            Some(t) => t,
            None => return false,
        }
    } else {
        ty
    };
    ty.kind_str() == "predefined_type"
        && ty
            .child(0)
            .is_some_and(|word| matches!(word.kind_str(), "any" | "unknown"))
}
