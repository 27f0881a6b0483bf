//! The kinds of value a stated parameter type accepts (`string | number`, `Uint8Array`,
//! `(e: Event) => void`), as far as the type's own text and the file's declarations
//! say: what a call's argument, now landing on another parameter, is checked against.
//! Everything not known here (a type of another file, a generic, a mapped type) accepts
//! anything, so a call is only said to break where the compiler must reject it.

use tree_sitter::Node;

use super::{declared_type, File, MAX_TYPE_LEVEL};
use crate::indexer::facts::ValueKinds;

/// What a parameter stated to be of type `ty` (a `type_annotation` or a type) accepts.
/// `generics` are the type parameters in scope (a `T` may be anything).
pub(super) fn accepted(ty: Node, file: &File, generics: &[String]) -> ValueKinds {
    accepted_within(ty, file, generics, 0)
}

/// What one element of a rest parameter stated as `ty` accepts (`...xs: T[]`).
pub(super) fn accepted_element(ty: Node, file: &File, generics: &[String]) -> ValueKinds {
    let mut ty = ty;
    while matches!(
        ty.kind(),
        "type_annotation" | "parenthesized_type" | "readonly_type"
    ) {
        match ty.named_child(0) {
            Some(inner) => ty = inner,
            None => return ValueKinds::ANY,
        }
    }
    match ty.kind() {
        "array_type" => ty
            .named_child(0)
            .map_or(ValueKinds::ANY, |t| accepted(t, file, generics)),
        _ => ValueKinds::ANY,
    }
}

/// The type the compiler gives a parameter from its default value: a primitive's, where
/// the default is one; anything else is not read here.
pub(super) fn widened(default: ValueKinds) -> ValueKinds {
    match default {
        ValueKinds::STRING | ValueKinds::NUMBER | ValueKinds::BOOLEAN | ValueKinds::BIGINT => {
            default
        }
        _ if default == ValueKinds::NUMBER | ValueKinds::BIGINT => default,
        _ => ValueKinds::ANY,
    }
}

fn accepted_within(ty: Node, file: &File, generics: &[String], level: usize) -> ValueKinds {
    if level > MAX_TYPE_LEVEL * 4 {
        return ValueKinds::ANY;
    }
    let inner = |n: Option<Node>| {
        n.map_or(ValueKinds::ANY, |n| {
            accepted_within(n, file, generics, level + 1)
        })
    };
    match ty.kind() {
        "type_annotation" | "parenthesized_type" | "readonly_type" => inner(ty.named_child(0)),
        "predefined_type" => match file.text(ty).as_str() {
            "string" => ValueKinds::STRING,
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
            Some("string") => ValueKinds::STRING,
            Some("number" | "unary_expression") => ValueKinds::NUMBER | ValueKinds::BIGINT,
            Some("true" | "false") => ValueKinds::BOOLEAN,
            Some("null" | "undefined") => ValueKinds::NONE,
            _ => ValueKinds::ANY,
        },
        "template_literal_type" => ValueKinds::STRING,
        "union_type" => {
            let mut all = ValueKinds::NONE;
            let mut cursor = ty.walk();
            for member in ty.named_children(&mut cursor) {
                all = all | accepted_within(member, file, generics, level + 1);
                if all.is_any() {
                    break;
                }
            }
            all
        }
        // An instance of a class that extends Array is an object, not a literal.
        "array_type" | "tuple_type" => ValueKinds::ARRAY | ValueKinds::INSTANCE,
        "function_type" | "constructor_type" => ValueKinds::FUNCTION | ValueKinds::INSTANCE,
        "object_type" => object_type(ty, file),
        "generic_type" => {
            let name = ty
                .child_by_field_name("name")
                .map(|n| file.text(n))
                .unwrap_or_default();
            match name.as_str() {
                _ if generics.contains(&name) || file.types.contains_key(&name) => ValueKinds::ANY,
                "Array" | "ReadonlyArray" => ValueKinds::ARRAY | ValueKinds::INSTANCE,
                "Promise" | "Map" | "Set" | "WeakMap" | "WeakSet" | "ReadonlyMap"
                | "ReadonlySet" => ValueKinds::OBJECT | ValueKinds::INSTANCE,
                _ => ValueKinds::ANY,
            }
        }
        "type_identifier" => {
            let name = file.text(ty);
            if generics.contains(&name) {
                return ValueKinds::ANY;
            }
            if let Some(declared) = declared_type(file, &name) {
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
            global(&name)
        }
        // Intersections, `keyof`, `typeof`, lookups, conditional and mapped types, a
        // type of a namespace: not read here.
        _ => ValueKinds::ANY,
    }
}

/// An object type written out: a primitive is rejected unless the type is empty, all
/// optional (TypeScript's "weak type" rules decide), or names a member a primitive has
/// (`{ length: number }` accepts a string).
fn object_type(ty: Node, file: &File) -> ValueKinds {
    let mut required = 0;
    let mut cursor = ty.walk();
    for member in ty.named_children(&mut cursor) {
        match member.kind() {
            "property_signature" | "method_signature" => {
                let name = member
                    .child_by_field_name("name")
                    .map(|n| file.text(n))
                    .unwrap_or_default();
                if PRIMITIVE_MEMBERS.contains(&name.as_str()) {
                    return ValueKinds::ANY;
                }
                let mut c = member.walk();
                if !member.children(&mut c).any(|x| x.kind() == "?") {
                    required += 1;
                }
            }
            "comment" => {}
            // Call signatures, index signatures: a function or anything may fit.
            _ => return ValueKinds::ANY,
        }
    }
    if required == 0 {
        return ValueKinds::ANY;
    }
    ValueKinds::OBJECTS
}

/// An interface of this file: as an object type, unless it extends another or is
/// generic (its members are not all here).
fn interface(declared: Node, file: &File) -> ValueKinds {
    let mut c = declared.walk();
    if declared
        .children(&mut c)
        .any(|x| x.kind() == "extends_type_clause")
        || declared.child_by_field_name("type_parameters").is_some()
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
        "String" => ValueKinds::STRING,
        "Number" => ValueKinds::NUMBER,
        "Boolean" => ValueKinds::BOOLEAN,
        "Function" | "CallableFunction" => ValueKinds::FUNCTION | ValueKinds::INSTANCE,
        "RegExp" | "Date" | "URL" | "URLSearchParams" | "Error" | "TypeError" | "ArrayBuffer"
        | "SharedArrayBuffer" | "DataView" | "Uint8Array" | "Int8Array" | "Uint8ClampedArray"
        | "Uint16Array" | "Int16Array" | "Uint32Array" | "Int32Array" | "Float32Array"
        | "Float64Array" | "BigInt64Array" | "BigUint64Array" | "Buffer" | "Blob" | "File"
        | "FormData" | "Headers" | "Request" | "Response" | "ReadableStream" | "WritableStream"
        | "AbortSignal" | "AbortController" | "CryptoKey" | "KeyObject" => {
            ValueKinds::OBJECT | ValueKinds::INSTANCE
        }
        _ => ValueKinds::ANY,
    }
}

/// Members a string, number or boolean has (through its wrapper): an object type that
/// names one may be met by a primitive.
const PRIMITIVE_MEMBERS: [&str; 12] = [
    "length",
    "toString",
    "valueOf",
    "toLocaleString",
    "charAt",
    "slice",
    "indexOf",
    "includes",
    "toFixed",
    "at",
    "concat",
    "constructor",
];
