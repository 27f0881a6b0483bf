//! Small predicates and lookups on syntax nodes, shared by the handlers: which kinds are
//! function literals, what a class heritage names, which parameters are `this` or rest.

use tree_sitter::Node;

use super::children::Children;
use super::fields::{Field, FieldExt};

pub(crate) fn is_function_node(kind: &str) -> bool {
    matches!(
        kind,
        "function_expression" | "arrow_function" | "generator_function" | "function"
    )
}

/// Syntax around a value that leaves it the same value: `(x)`, `x as T`, `x satisfies T`.
pub(crate) fn is_literal_wrapper(kind: &str) -> bool {
    matches!(
        kind,
        "parenthesized_expression" | "as_expression" | "satisfies_expression"
    )
}

/// A function, class or object literal, maybe inside such wrappers (nested ones too).
pub(crate) fn wraps_literal(mut node: Node) -> bool {
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

pub(crate) fn is_class_node(kind: &str) -> bool {
    kind == "class"
}

/// The types after `implements` in a class heritage.
pub(crate) fn implemented_types(heritage: Node) -> Vec<Node> {
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
pub(crate) fn heritage_value(heritage: Node) -> Option<Node> {
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
pub(crate) fn function_type_in(ty: Node<'_>) -> Option<Node<'_>> {
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
