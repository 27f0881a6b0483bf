//! The kinds of value a stated type admits (`string | number`, `Uint8Array`, `(e: Event)
//! => void`), as far as the type's own text and the file's declarations say. Read two
//! ways: what a parameter of that type accepts (what a call's argument, now landing on
//! another parameter, is checked against), and what a name declared with that type may
//! hold (`secret: CryptoKey` passed as an argument). Everything not known here (a type
//! of another file, a generic, a mapped type) admits anything, so a call is only said
//! to break where the compiler must reject it.

use std::cell::Cell;

use tree_sitter::Node;

use crate::indexer::facts::ValueKinds;

/// How deep a type is followed through the aliases that name it.
const MAX_TYPE_LEVEL: usize = 16;

/// How many type nodes are read for one stated type, however its aliases nest.
const MAX_TYPE_NODES: u32 = 512;

/// The names a type refers to, where it is read.
pub trait TypeScope<'t> {
    /// The source text of `node`.
    fn text(&self, node: Node<'t>) -> &str;
    /// The interface or type alias `name` declared in the file, where it is known.
    fn declared(&self, name: &str) -> Option<Node<'t>>;
    /// Whether `name` is a type parameter in scope (a `T` may be anything).
    fn is_generic(&self, name: &str) -> bool;
    /// What a value of the generic type alias `name` declared in the file may be,
    /// whatever its type arguments, where that is known (`type Handler<E> = (c:
    /// Context<E>) => Response`: a function).
    fn generic_alias(&self, _name: &str) -> Option<ValueKinds> {
        None
    }
}

/// A scope that knows no declaration and no type parameter: a type read where the
/// file's other declarations are not at hand (while the file is being extracted), so
/// a name that is no well-known global admits anything.
pub struct TextOnly<'s>(pub &'s str);

impl<'t> TypeScope<'t> for TextOnly<'_> {
    fn text(&self, node: Node<'t>) -> &str {
        self.0.get(node.byte_range()).unwrap_or_default()
    }
    fn declared(&self, _: &str) -> Option<Node<'t>> {
        None
    }
    fn is_generic(&self, _: &str) -> bool {
        false
    }
}

/// What a parameter stated to be of type `ty` (a `type_annotation` or a type) accepts;
/// equally, what a value declared with that type may be.
pub fn accepted<'t>(ty: Node<'t>, file: &impl TypeScope<'t>) -> ValueKinds {
    accepted_within(ty, file, 0, false, &Cell::new(MAX_TYPE_NODES))
}

/// What a value declared with the stated type `ty` may be, as the compiler sees it: as
/// [`accepted`], except that a well-known global class's instance is one
/// ([`ValueKinds::BUILTIN`], `x: Uint8Array`) and a `Promise<T>` a promise, not any
/// object of their shape.
pub fn held<'t>(ty: Node<'t>, file: &impl TypeScope<'t>) -> ValueKinds {
    accepted_within(ty, file, 0, true, &Cell::new(MAX_TYPE_NODES)).held()
}

/// What one element of a rest parameter stated as `ty` accepts (`...xs: T[]`).
pub fn accepted_element<'t>(ty: Node<'t>, file: &impl TypeScope<'t>) -> ValueKinds {
    element(ty, file).map_or(ValueKinds::ANY, |t| accepted(t, file))
}

/// Which of `undefined` and `null` one element of a rest parameter stated as `ty`
/// admits (see [`nullish`]).
pub fn nullish_element<'t>(ty: Node<'t>, file: &impl TypeScope<'t>) -> ValueKinds {
    element(ty, file).map_or(ValueKinds::NULLISH, |t| nullish(t, file))
}

/// The element type of an array type: `T[]` (through parentheses and `readonly`),
/// `Array<T>` or `ReadonlyArray<T>`.
pub fn element<'t>(ty: Node<'t>, file: &impl TypeScope<'t>) -> Option<Node<'t>> {
    let mut ty = ty;
    while matches!(
        ty.kind(),
        "type_annotation" | "parenthesized_type" | "readonly_type"
    ) {
        ty = ty.named_child(0)?;
    }
    match ty.kind() {
        "array_type" => ty.named_child(0),
        "generic_type" => global_generic_argument(ty, file, &["Array", "ReadonlyArray"]),
        _ => None,
    }
}

/// The type of the value a promise type holds: `T` of `Promise<T>` (or `PromiseLike<T>`),
/// through parentheses.
pub fn promised<'t>(ty: Node<'t>, file: &impl TypeScope<'t>) -> Option<Node<'t>> {
    let mut ty = ty;
    while matches!(ty.kind(), "type_annotation" | "parenthesized_type") {
        ty = ty.named_child(0)?;
    }
    match ty.kind() {
        "generic_type" => global_generic_argument(ty, file, &["Promise", "PromiseLike"]),
        _ => None,
    }
}

/// The type the compiler gives a parameter from its default value: a primitive's, where
/// the default is one; anything else is not read here.
pub fn widened(default: ValueKinds) -> ValueKinds {
    match default {
        _ if !default.is_any() && default.within(ValueKinds::STRINGS) => ValueKinds::STRINGS,
        ValueKinds::NUMBER | ValueKinds::BOOLEAN | ValueKinds::BIGINT => default,
        _ if default == ValueKinds::NUMBER | ValueKinds::BIGINT => default,
        _ => ValueKinds::ANY,
    }
}

/// `budget`: the type nodes still to be read for this one type (aliases of unions of
/// aliases would otherwise be read once per path through them).
fn accepted_within<'t>(
    ty: Node<'t>,
    file: &impl TypeScope<'t>,
    level: usize,
    held: bool,
    budget: &Cell<u32>,
) -> ValueKinds {
    if level > MAX_TYPE_LEVEL || budget.get() == 0 {
        return ValueKinds::ANY;
    }
    budget.set(budget.get() - 1);
    let inner = |n: Option<Node<'t>>| {
        n.map_or(ValueKinds::ANY, |n| {
            accepted_within(n, file, level + 1, held, budget)
        })
    };
    match ty.kind() {
        "type_annotation" | "parenthesized_type" | "readonly_type" => inner(ty.named_child(0)),
        "predefined_type" => match file.text(ty) {
            "string" => ValueKinds::STRINGS,
            "number" => ValueKinds::NUMBER,
            "boolean" => ValueKinds::BOOLEAN,
            "bigint" => ValueKinds::BIGINT,
            "object" => ValueKinds::OBJECTS,
            "symbol" | "void" | "undefined" | "null" => ValueKinds::NONE,
            // any, unknown, never (a call passing anything to `never` is rare enough
            // not to guess at)
            _ => ValueKinds::ANY,
        },
        "literal_type" => match ty.named_child(0).map(|n| n.kind()) {
            Some("string") => ValueKinds::LITERAL_STRING,
            Some("number" | "unary_expression") => ValueKinds::NUMBER | ValueKinds::BIGINT,
            Some("true" | "false") => ValueKinds::BOOLEAN,
            Some("null" | "undefined") => ValueKinds::NONE,
            _ => ValueKinds::ANY,
        },
        // Only strings of its pattern: a `string` does not fit.
        "template_literal_type" => ValueKinds::LITERAL_STRING,
        "union_type" => {
            let mut all = ValueKinds::NONE;
            let mut cursor = ty.walk();
            for member in ty.named_children(&mut cursor) {
                all = all | accepted_within(member, file, level + 1, held, budget);
                if all.is_any() {
                    break;
                }
            }
            all
        }
        // A value of `A & B` is one of `A` and one of `B`: only what both take (a part
        // not known here takes anything). Parts that share no kind (`Uint8Array & {
        // brand: 'x' }` read as a global's instance and an object) say nothing here.
        "intersection_type" => {
            let mut all = ValueKinds::ANY;
            let mut cursor = ty.walk();
            for member in ty.named_children(&mut cursor) {
                all = all & accepted_within(member, file, level + 1, held, budget);
            }
            if all == ValueKinds::NONE {
                ValueKinds::ANY
            } else {
                all
            }
        }
        // An instance of a class that extends Array is an object, not a literal. (A
        // well-known global's instance is no array, but it is not told apart here.)
        "array_type" | "tuple_type" => {
            ValueKinds::ARRAY | ValueKinds::INSTANCE | ValueKinds::BUILTIN
        }
        "function_type" | "constructor_type" => ValueKinds::CALLABLE,
        "object_type" | "interface_body" => object_type(ty, file),
        "generic_type" => {
            if let Some(argument) = same_kinds_as_argument(ty, file) {
                return inner(Some(argument));
            }
            match generic_name(ty, file) {
                (name, true) => file
                    .generic_alias(name)
                    .or_else(|| {
                        let declared = file.declared(name)?;
                        match declared.kind() {
                            "interface_declaration" => Some(interface(declared, file)),
                            "type_alias_declaration" => {
                                let value = declared.child_by_field_name("value")?;
                                match value.kind() {
                                    // `type Dinero<T> = { ... }`: an interface by
                                    // another name.
                                    "object_type" => Some(object_type(value, file)),
                                    // `type MiddlewareFn<C> = (ctx: C) => unknown`: a
                                    // function, whatever its type arguments.
                                    "function_type" | "constructor_type" => {
                                        Some(ValueKinds::CALLABLE)
                                    }
                                    // `type Middleware<C> = MiddlewareFn<C> |
                                    // MiddlewareObj<C>`, and an alias of one: read as
                                    // its parts are, none of them a type parameter of
                                    // its own (`T | string` takes what `T` is).
                                    "union_type" | "generic_type"
                                        if !names_own_parameter(declared, value, file) =>
                                    {
                                        Some(inner(Some(value)))
                                    }
                                    _ => None,
                                }
                            }
                            _ => None,
                        }
                    })
                    .unwrap_or(ValueKinds::ANY),
                ("Array" | "ReadonlyArray", _) => {
                    ValueKinds::ARRAY | ValueKinds::INSTANCE | ValueKinds::BUILTIN
                }
                ("Promise", _) if held => ValueKinds::PROMISE,
                ("Promise", _) => ValueKinds::OBJECT | ValueKinds::INSTANCE | ValueKinds::PROMISE,
                ("Map" | "Set" | "WeakMap" | "WeakSet" | "ReadonlyMap" | "ReadonlySet", _)
                    if held =>
                {
                    ValueKinds::BUILTIN
                }
                ("Map" | "Set" | "WeakMap" | "WeakSet" | "ReadonlyMap" | "ReadonlySet", _) => {
                    ValueKinds::GLOBAL
                }
                _ => ValueKinds::ANY,
            }
        }
        "type_identifier" => {
            let name = file.text(ty);
            if let Some(kinds) = file.generic_alias(name) {
                return kinds;
            }
            if file.is_generic(name) {
                return ValueKinds::ANY;
            }
            if let Some(declared) = file.declared(name) {
                return match declared.kind() {
                    "type_alias_declaration"
                        if declared.child_by_field_name("type_parameters").is_none() =>
                    {
                        inner(declared.child_by_field_name("value"))
                    }
                    "interface_declaration" => interface(declared, file),
                    _ => ValueKinds::ANY,
                };
            }
            match global(name) {
                ValueKinds::GLOBAL if held => ValueKinds::BUILTIN,
                kinds => kinds,
            }
        }
        // `keyof`, `typeof`, lookups, conditional and mapped types, a type of a
        // namespace: not read here.
        _ => ValueKinds::ANY,
    }
}

/// Which of `undefined` and `null` ([`ValueKinds::NULLISH`]) a value of the stated type
/// `ty` may be where the checker's strict null checks are on (where they are off, every
/// type admits both): `string | undefined` admits `undefined`, an interface neither. A
/// type not known here (a name of another file, a generic, a conditional type) may
/// admit either.
pub fn nullish<'t>(ty: Node<'t>, file: &impl TypeScope<'t>) -> ValueKinds {
    nullish_within(ty, file, 0, &Cell::new(MAX_TYPE_NODES))
}

fn nullish_within<'t>(
    ty: Node<'t>,
    file: &impl TypeScope<'t>,
    level: usize,
    budget: &Cell<u32>,
) -> ValueKinds {
    if level > MAX_TYPE_LEVEL || budget.get() == 0 {
        return ValueKinds::NULLISH;
    }
    budget.set(budget.get() - 1);
    let inner = |n: Option<Node<'t>>| {
        n.map_or(ValueKinds::NULLISH, |n| {
            nullish_within(n, file, level + 1, budget)
        })
    };
    let parts = |all: ValueKinds, join: fn(ValueKinds, ValueKinds) -> ValueKinds| {
        let mut all = all;
        let mut cursor = ty.walk();
        for member in ty.named_children(&mut cursor) {
            all = join(all, nullish_within(member, file, level + 1, budget));
        }
        all
    };
    match ty.kind() {
        "type_annotation" | "parenthesized_type" | "readonly_type" => inner(ty.named_child(0)),
        "predefined_type" => match file.text(ty) {
            "undefined" | "void" => ValueKinds::UNDEFINED,
            "null" => ValueKinds::NULL,
            "any" | "unknown" => ValueKinds::NULLISH,
            _ => ValueKinds::NONE,
        },
        "literal_type" => match ty.named_child(0).map(|n| n.kind()) {
            Some("null") => ValueKinds::NULL,
            Some("undefined") => ValueKinds::UNDEFINED,
            _ => ValueKinds::NONE,
        },
        "template_literal_type"
        | "array_type"
        | "tuple_type"
        | "function_type"
        | "constructor_type"
        | "object_type" => ValueKinds::NONE,
        "union_type" => parts(ValueKinds::NONE, |a, b| a | b),
        "intersection_type" => parts(ValueKinds::NULLISH, |a, b| a & b),
        "generic_type" => {
            if let Some(argument) = same_kinds_as_argument(ty, file) {
                return inner(Some(argument));
            }
            match generic_name(ty, file) {
                (_, true) => ValueKinds::NULLISH,
                (
                    "Array" | "ReadonlyArray" | "Promise" | "Map" | "Set" | "WeakMap" | "WeakSet"
                    | "ReadonlyMap" | "ReadonlySet" | "Record" | "NonNullable",
                    _,
                ) => ValueKinds::NONE,
                _ => ValueKinds::NULLISH,
            }
        }
        "type_identifier" => {
            let name = file.text(ty);
            if file.is_generic(name) {
                return ValueKinds::NULLISH;
            }
            match file.declared(name) {
                Some(declared) => match declared.kind() {
                    "type_alias_declaration"
                        if declared.child_by_field_name("type_parameters").is_none() =>
                    {
                        inner(declared.child_by_field_name("value"))
                    }
                    "interface_declaration" => ValueKinds::NONE,
                    _ => ValueKinds::NULLISH,
                },
                None if !global(name).is_any() => ValueKinds::NONE,
                None => ValueKinds::NULLISH,
            }
        }
        // `keyof`, `typeof`, lookups, conditional and mapped types, a type of a
        // namespace: not read here.
        _ => ValueKinds::NULLISH,
    }
}

/// A generic type's name (`Promise` in `Promise<T>`), and whether the file binds it
/// (a type parameter, or an interface or alias of its own): then it is no global's.
fn generic_name<'a, 't>(ty: Node<'t>, file: &'a impl TypeScope<'t>) -> (&'a str, bool) {
    let name = ty
        .child_by_field_name("name")
        .map(|n| file.text(n))
        .unwrap_or_default();
    (name, file.is_generic(name) || file.declared(name).is_some())
}

/// Global functions and constructors a name may stand for as a value where the file
/// does not bind it (`items.filter(Boolean)`, `map(String)`).
pub fn is_global_function(name: &str) -> bool {
    matches!(
        name,
        "Boolean"
            | "String"
            | "Number"
            | "BigInt"
            | "Symbol"
            | "Object"
            | "Array"
            | "Date"
            | "RegExp"
            | "Error"
            | "TypeError"
            | "RangeError"
            | "Promise"
            | "Map"
            | "Set"
            | "WeakMap"
            | "WeakSet"
            | "Function"
            | "parseInt"
            | "parseFloat"
            | "isNaN"
            | "isFinite"
            | "encodeURIComponent"
            | "decodeURIComponent"
            | "encodeURI"
            | "decodeURI"
    )
}

/// The property and method signatures of the object type `ty` states: written out, or
/// an interface (without `extends`) or type alias of the file that is one. None for
/// anything else.
pub fn object_members<'t>(ty: Node<'t>, file: &impl TypeScope<'t>) -> Option<Vec<Node<'t>>> {
    let mut ty = ty;
    for _ in 0..MAX_TYPE_LEVEL {
        match ty.kind() {
            "type_annotation" | "parenthesized_type" => ty = ty.named_child(0)?,
            "type_identifier" if !file.is_generic(file.text(ty)) => {
                let declared = file.declared(file.text(ty))?;
                ty = match declared.kind() {
                    "interface_declaration" => {
                        let mut cursor = declared.walk();
                        if declared
                            .children(&mut cursor)
                            .any(|c| c.kind() == "extends_type_clause")
                        {
                            return None;
                        }
                        declared.child_by_field_name("body")?
                    }
                    "type_alias_declaration" => declared.child_by_field_name("value")?,
                    _ => return None,
                };
            }
            "object_type" | "interface_body" => {
                let mut cursor = ty.walk();
                return Some(
                    ty.named_children(&mut cursor)
                        .filter(|m| matches!(m.kind(), "property_signature" | "method_signature"))
                        .collect(),
                );
            }
            _ => return None,
        }
    }
    None
}

/// The most string literals a stated type is read for (see [`string_literals`]).
pub const MAX_LITERALS: usize = 256;

/// The strings a stated type admits, where its strings are a finite set of literals
/// (`'sign' | 'verify'`, through parentheses and the file's type aliases): a string
/// literal argument not among them is rejected. None where the type admits any string
/// (`string`, a template literal type, a name not known here) or lists too many.
/// Members that admit no string (`number`, `null`, an object type) add nothing.
pub fn string_literals<'t>(ty: Node<'t>, file: &impl TypeScope<'t>) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![(ty, 0usize)];
    let mut steps = 0;
    while let Some((t, level)) = stack.pop() {
        steps += 1;
        if level > MAX_TYPE_LEVEL || out.len() > MAX_LITERALS || steps > MAX_TYPE_NODES {
            return None;
        }
        match t.kind() {
            "type_annotation" | "parenthesized_type" | "readonly_type" => {
                stack.push((t.named_child(0)?, level + 1));
            }
            "union_type" => {
                let mut cursor = t.walk();
                stack.extend(t.named_children(&mut cursor).map(|m| (m, level + 1)));
            }
            "literal_type" if t.named_child(0)?.kind() == "string" => {
                let quoted = file.text(t.named_child(0)?);
                // An escape's text is not its value: such a type is not read.
                let value = quoted.get(1..quoted.len().checked_sub(1)?)?;
                if value.contains('\\') {
                    return None;
                }
                out.push(value.to_string());
            }
            "type_identifier" if !file.is_generic(file.text(t)) => {
                let declared = file.declared(file.text(t))?;
                if declared.kind() != "type_alias_declaration"
                    || declared.child_by_field_name("type_parameters").is_some()
                {
                    return None;
                }
                stack.push((declared.child_by_field_name("value")?, level + 1));
            }
            _ if !accepted(t, file).meets(ValueKinds::STRINGS) => {}
            _ => return None,
        }
    }
    Some(out)
}

/// `Partial<T>`, `Required<T>`, `Readonly<T>` (the global ones, not a name the file
/// declares): its one type argument, which takes the same kinds of value. Every member
/// optional, an object type is a weak type, which rejects what any object type of
/// those members rejects (TS2559 instead of TS2345).
pub fn same_kinds_as_argument<'t>(ty: Node<'t>, file: &impl TypeScope<'t>) -> Option<Node<'t>> {
    if ty.kind() != "generic_type" {
        return None;
    }
    global_generic_argument(ty, file, &["Partial", "Required", "Readonly"])
}

/// The one type argument of the generic type `ty` where it names one of the global
/// `generics` (not a name the file declares): `Array<T>`, `Partial<T>`.
fn global_generic_argument<'t>(
    ty: Node<'t>,
    file: &impl TypeScope<'t>,
    generics: &[&str],
) -> Option<Node<'t>> {
    let name = file.text(ty.child_by_field_name("name")?);
    if !generics.contains(&name) || file.declared(name).is_some() {
        return None;
    }
    let arguments = ty.child_by_field_name("type_arguments")?;
    let mut cursor = arguments.walk();
    let mut types = arguments
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment");
    let only = types.next()?;
    types.next().is_none().then_some(only)
}

/// An object type written out: a primitive is rejected unless the type is empty or
/// names a member a primitive has (`{ length: number }` accepts a string); likewise an
/// array, a well-known global's instance or a promise, unless it names one of theirs;
/// a function written in place, unless it requires one of a function's. All optional
/// (a "weak type", such as an options bag), it rejects the same: the compiler wants a
/// property in common (TS2559).
pub(crate) fn object_type<'t>(ty: Node<'t>, file: &impl TypeScope<'t>) -> ValueKinds {
    let mut any_member = false;
    let mut callable = false;
    let mut unknown = false;
    let mut accepts = ValueKinds::OBJECT | ValueKinds::INSTANCE;
    let mut cursor = ty.walk();
    for member in ty.named_children(&mut cursor) {
        match member.kind() {
            "property_signature" | "method_signature" => {
                any_member = true;
                let name = member
                    .child_by_field_name("name")
                    .map(|n| file.text(n))
                    .unwrap_or_default();
                let name = name.trim_matches(|c| c == '\'' || c == '"');
                if PRIMITIVE_MEMBERS.contains(&name) {
                    unknown = true;
                }
                if ARRAY_MEMBERS.contains(&name) {
                    accepts = accepts | ValueKinds::ARRAY;
                }
                // A function written in place has no properties of its own: it meets
                // a member of `Function`'s only where one is required (`{ name:
                // string }`); against an optional one it has none in common (TS2559).
                if FUNCTION_MEMBERS.contains(&name) && !optional_member(member) {
                    accepts = accepts | ValueKinds::FUNCTION;
                }
                if builtin_member(name) {
                    accepts = accepts | ValueKinds::BUILTIN;
                }
                if PROMISE_MEMBERS.contains(&name) {
                    accepts = accepts | ValueKinds::PROMISE;
                }
            }
            "comment" => {}
            // `{ (event: Event): void }`: only what can be called fits, whatever else
            // the type says (no primitive, literal, promise or array can be).
            "call_signature" => callable = true,
            // Index and construct signatures: anything may fit.
            _ => unknown = true,
        }
    }
    if callable {
        return ValueKinds::CALLABLE;
    }
    if unknown || !any_member {
        return ValueKinds::ANY;
    }
    accepts
}

/// `name?: string`, `run?(): void`: a member an object of the type may lack.
fn optional_member(member: Node) -> bool {
    let mut cursor = member.walk();
    let optional = member.children(&mut cursor).any(|c| c.kind() == "?");
    optional
}

/// What a value of a class's type may be, from its body: an object (an instance, or a
/// literal of its shape), unless it declares nothing, or nothing a primitive or an
/// array lacks (its shape may then be met by one): a required member no primitive
/// or array has (`getValue()` beside `toString()`), or only members of that kind.
pub fn class_instance<'t>(body: Node<'t>, file: &impl TypeScope<'t>) -> ValueKinds {
    let (mut any_member, mut shared, mut own_required) = (false, false, false);
    let mut note = |name: &str, optional: bool| {
        any_member = true;
        if PRIMITIVE_MEMBERS.contains(&name) || ARRAY_MEMBERS.contains(&name) {
            shared = true;
        } else if !optional {
            own_required = true;
        }
    };
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        let Some(name) = member
            .child_by_field_name("name")
            .or_else(|| member.child_by_field_name("property"))
        else {
            continue;
        };
        let name = file.text(name);
        // Its constructor and its static members are no instance's (the
        // constructor's parameter properties are).
        let mut c = member.walk();
        let is_static = member.children(&mut c).any(|x| x.kind() == "static");
        if is_static {
            continue;
        }
        if name == "constructor" {
            let Some(params) = member.child_by_field_name("parameters") else {
                continue;
            };
            let mut c = params.walk();
            for p in params.named_children(&mut c) {
                let mut m = p.walk();
                let property = p
                    .children(&mut m)
                    .any(|x| matches!(x.kind(), "accessibility_modifier" | "readonly"));
                let field = p.child_by_field_name("pattern").map(|n| file.text(n));
                if let (true, Some(field)) = (property, field) {
                    note(field, p.kind() == "optional_parameter");
                }
            }
            continue;
        }
        note(name, optional_member(member));
    }
    if own_required || (any_member && !shared) {
        // (Not a promise: a class of its shape is rare, and one is not told apart.)
        ValueKinds::GLOBAL
    } else {
        ValueKinds::ANY
    }
}

/// An interface of this file: as an object type, unless it extends another (its
/// members are not all here). A generic one alike: what kinds of value it takes
/// depends on its members' names, not on the types its arguments give them.
fn interface<'t>(declared: Node<'t>, file: &impl TypeScope<'t>) -> ValueKinds {
    let mut c = declared.walk();
    if declared
        .children(&mut c)
        .any(|x| x.kind() == "extends_type_clause")
    {
        return ValueKinds::ANY;
    }
    declared
        .child_by_field_name("body")
        .map_or(ValueKinds::ANY, |body| object_type(body, file))
}

/// A global type no primitive or literal of another kind is assignable to, by name;
/// ANY for the rest (declared in another file, or not known here).
fn global(name: &str) -> ValueKinds {
    match name {
        "String" => ValueKinds::STRINGS,
        "Number" => ValueKinds::NUMBER,
        "Boolean" => ValueKinds::BOOLEAN,
        "Function" | "CallableFunction" => ValueKinds::FUNCTION | ValueKinds::INSTANCE,
        "RegExp" | "Date" | "URL" | "URLSearchParams" | "Error" | "TypeError" | "ArrayBuffer"
        | "SharedArrayBuffer" | "DataView" | "Uint8Array" | "Int8Array" | "Uint8ClampedArray"
        | "Uint16Array" | "Int16Array" | "Uint32Array" | "Int32Array" | "Float32Array"
        | "Float64Array" | "BigInt64Array" | "BigUint64Array" | "Buffer" | "Blob" | "File"
        | "FormData" | "Headers" | "Request" | "Response" | "ReadableStream" | "WritableStream"
        | "AbortSignal" | "AbortController" | "CryptoKey" | "KeyObject" => ValueKinds::GLOBAL,
        _ => ValueKinds::ANY,
    }
}

/// Whether `name` is a global class of [`global`]'s (what `new name()` makes is a
/// [`ValueKinds::BUILTIN`], where the file does not bind the name).
pub fn is_global_class(name: &str) -> bool {
    global(name) == ValueKinds::GLOBAL
}

/// Whether a member `name` (of an object type) may be one that an instance of a
/// well-known global class has: its names, and any named as their getters and
/// converters are (`getTime`, `readUInt8`, `toISOString`); a computed name may be any.
fn builtin_member(name: &str) -> bool {
    if name.starts_with('[') || BUILTIN_MEMBERS.contains(&name) || ARRAY_MEMBERS.contains(&name) {
        return true;
    }
    ["get", "set", "read", "write", "to", "is", "has", "on"]
        .iter()
        .any(|prefix| {
            name.strip_prefix(prefix)
                .and_then(|rest| rest.chars().next())
                .is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
}

/// The members of a promise.
const PROMISE_MEMBERS: &[&str] = &["then", "catch", "finally"];

/// Members of the instances of [`global`]'s classes, past those of every primitive and
/// array (typed arrays, buffers, dates, regular expressions, URLs, errors, maps and
/// sets, the fetch API's classes, streams, abort signals, keys).
const BUILTIN_MEMBERS: &[&str] = &[
    "buffer",
    "byteLength",
    "byteOffset",
    "BYTES_PER_ELEMENT",
    "set",
    "subarray",
    "resize",
    "resizable",
    "maxByteLength",
    "transfer",
    "transferToFixedLength",
    "detached",
    "exec",
    "test",
    "source",
    "flags",
    "global",
    "ignoreCase",
    "multiline",
    "sticky",
    "unicode",
    "lastIndex",
    "dotAll",
    "hasIndices",
    "unicodeSets",
    "href",
    "origin",
    "protocol",
    "username",
    "password",
    "host",
    "hostname",
    "port",
    "pathname",
    "search",
    "searchParams",
    "hash",
    "append",
    "delete",
    "get",
    "getAll",
    "has",
    "size",
    "add",
    "clear",
    "name",
    "message",
    "stack",
    "cause",
    "code",
    "errors",
    "body",
    "bodyUsed",
    "arrayBuffer",
    "blob",
    "formData",
    "json",
    "text",
    "bytes",
    "clone",
    "headers",
    "method",
    "url",
    "signal",
    "cache",
    "credentials",
    "destination",
    "integrity",
    "keepalive",
    "mode",
    "redirect",
    "referrer",
    "referrerPolicy",
    "status",
    "statusText",
    "ok",
    "redirected",
    "type",
    "duplex",
    "stream",
    "lastModified",
    "webkitRelativePath",
    "aborted",
    "reason",
    "onabort",
    "throwIfAborted",
    "addEventListener",
    "removeEventListener",
    "dispatchEvent",
    "abort",
    "algorithm",
    "extractable",
    "usages",
    "asymmetricKeyType",
    "asymmetricKeyDetails",
    "symmetricKeySize",
    "export",
    "equals",
    "locked",
    "cancel",
    "pipeThrough",
    "pipeTo",
    "tee",
    "close",
    "compare",
    "copy",
    "write",
    "swap16",
    "swap32",
    "swap64",
    "parent",
    "offset",
    "prototype",
    "constructor",
];

/// Members a string, number, boolean or bigint has (through its wrapper): an object type
/// that names one may be met by a primitive.
const PRIMITIVE_MEMBERS: &[&str] = &[
    "length",
    "toString",
    "valueOf",
    "toLocaleString",
    "constructor",
    "charAt",
    "charCodeAt",
    "codePointAt",
    "at",
    "concat",
    "endsWith",
    "startsWith",
    "includes",
    "indexOf",
    "lastIndexOf",
    "localeCompare",
    "match",
    "matchAll",
    "normalize",
    "padEnd",
    "padStart",
    "repeat",
    "replace",
    "replaceAll",
    "search",
    "slice",
    "split",
    "substr",
    "substring",
    "toLowerCase",
    "toUpperCase",
    "toLocaleLowerCase",
    "toLocaleUpperCase",
    "trim",
    "trimStart",
    "trimEnd",
    "trimLeft",
    "trimRight",
    "isWellFormed",
    "toWellFormed",
    "anchor",
    "big",
    "blink",
    "bold",
    "fixed",
    "fontcolor",
    "fontsize",
    "italics",
    "link",
    "small",
    "strike",
    "sub",
    "sup",
    "toFixed",
    "toExponential",
    "toPrecision",
];

/// Members an array has, past those of every object: an object type naming one may be
/// met by an array.
const ARRAY_MEMBERS: &[&str] = &[
    "push",
    "pop",
    "shift",
    "unshift",
    "splice",
    "sort",
    "reverse",
    "fill",
    "copyWithin",
    "join",
    "every",
    "some",
    "forEach",
    "map",
    "filter",
    "reduce",
    "reduceRight",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "flat",
    "flatMap",
    "entries",
    "keys",
    "values",
    "toReversed",
    "toSorted",
    "toSpliced",
    "with",
];

/// Members a function has: an object type naming one may be met by a function.
const FUNCTION_MEMBERS: &[&str] = &[
    "name",
    "apply",
    "call",
    "bind",
    "prototype",
    "arguments",
    "caller",
    "displayName",
];

/// Whether the value `value` of the generic type alias `alias` is, or has as a member
/// of its union, one of the alias's own type parameters (read without its argument,
/// it says nothing).
fn names_own_parameter<'t>(alias: Node<'t>, value: Node<'t>, file: &impl TypeScope<'t>) -> bool {
    let Some(params) = alias.child_by_field_name("type_parameters") else {
        return false;
    };
    let mut cursor = params.walk();
    let names: Vec<&str> = params
        .named_children(&mut cursor)
        .filter_map(|p| p.child_by_field_name("name"))
        .map(|n| file.text(n))
        .collect();
    let own = |t: Node<'t>| t.kind() == "type_identifier" && names.contains(&file.text(t));
    if own(value) {
        return true;
    }
    let mut cursor = value.walk();
    let found = value.kind() == "union_type" && value.named_children(&mut cursor).any(own);
    found
}
