//! What a class says of its members: the class around a node, its decorators, and
//! what `this.x` is declared as (a field or a constructor's parameter property, with
//! its type and decorators, or the value the class assigns it). NestJS and Angular
//! inject by type and decorator: that is the evidence their clients and queues are
//! read by.

use tree_sitter::Node;

use super::Cx;

/// `this.x` as the class declares it.
pub(super) struct Member<'s> {
    /// Its type's name (`ClientProxy` of `ClientProxy`, `Queue` of `Queue<Job>`).
    pub(super) ty: Option<&'s str>,
    /// The calls of its decorators (`InjectQueue('emails')`).
    pub(super) decorators: Vec<Node<'s>>,
    /// What the class gives it: a field's initial value, or `this.x = ...` in the
    /// constructor.
    pub(super) value: Option<Node<'s>>,
}

/// The class a node is in.
pub(super) fn enclosing_class(node: Node) -> Option<Node> {
    let mut n = node;
    for _ in 0..64 {
        let p = n.parent()?;
        if matches!(
            p.kind(),
            "class_declaration" | "class" | "abstract_class_declaration"
        ) {
            return Some(p);
        }
        n = p;
    }
    None
}

/// The calls of a class's decorators (on the class, or before its `export`).
pub(super) fn class_decorators(class: Node) -> Vec<Node> {
    let mut out = decorator_calls(class);
    if let Some(p) = class.parent().filter(|p| p.kind() == "export_statement") {
        out.extend(decorator_calls(p));
    }
    out
}

fn decorator_calls(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    let calls = node
        .children(&mut cursor)
        .filter(|c| c.kind() == "decorator")
        .filter_map(|d| d.named_child(0))
        .filter(|c| c.kind() == "call_expression")
        .collect();
    calls
}

/// The name a decorator call calls (`InjectQueue` of `@InjectQueue('x')`).
pub(super) fn decorator_name<'s>(cx: &Cx<'s>, call: Node<'s>) -> Option<&'s str> {
    let f = call.child_by_field_name("function")?;
    (f.kind() == "identifier").then(|| cx.scope.text(f))
}

/// What `this.name` (the member expression `expr`) is declared as in its class.
pub(super) fn this_member<'s>(cx: &Cx<'s>, expr: Node<'s>) -> Option<Member<'s>> {
    if expr.kind() != "member_expression" || expr.child_by_field_name("object")?.kind() != "this" {
        return None;
    }
    let name = cx.scope.text(expr.child_by_field_name("property")?);
    let body = enclosing_class(expr)?.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let members: Vec<Node> = body.named_children(&mut cursor).collect();
    let named = |m: Node, n: &str| {
        m.child_by_field_name("name")
            .is_some_and(|x| cx.scope.text(x) == n)
    };
    for m in members {
        match m.kind() {
            "public_field_definition" if named(m, name) => {
                return Some(Member {
                    ty: type_name(cx, m),
                    decorators: decorator_calls(m),
                    value: m.child_by_field_name("value"),
                });
            }
            "method_definition" if named(m, "constructor") => {
                if let Some(found) = constructor_member(cx, m, name) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

/// A constructor's parameter property `name` (`private readonly client: ClientProxy`),
/// or what its body assigns to `this.name`.
fn constructor_member<'s>(cx: &Cx<'s>, ctor: Node<'s>, name: &str) -> Option<Member<'s>> {
    if let Some(params) = ctor.child_by_field_name("parameters") {
        let mut cursor = params.walk();
        let list: Vec<Node> = params.named_children(&mut cursor).collect();
        for p in list {
            if !matches!(p.kind(), "required_parameter" | "optional_parameter") {
                continue;
            }
            let named = p
                .child_by_field_name("pattern")
                .is_some_and(|n| cx.scope.text(n) == name);
            // Only a parameter property (`private x`, `readonly x`) is `this.x`.
            let mut c = p.walk();
            let property = p
                .children(&mut c)
                .any(|k| matches!(k.kind(), "accessibility_modifier" | "readonly"));
            if named && property {
                return Some(Member {
                    ty: type_name(cx, p),
                    decorators: decorator_calls(p),
                    value: None,
                });
            }
        }
    }
    let body = ctor.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let statements: Vec<Node> = body.named_children(&mut cursor).collect();
    for s in statements {
        let Some(e) = s
            .named_child(0)
            .filter(|e| s.kind() == "expression_statement" && e.kind() == "assignment_expression")
        else {
            continue;
        };
        let Some(left) = e.child_by_field_name("left") else {
            continue;
        };
        let assigns = left.kind() == "member_expression"
            && left
                .child_by_field_name("object")
                .is_some_and(|o| o.kind() == "this")
            && left
                .child_by_field_name("property")
                .is_some_and(|p| cx.scope.text(p) == name);
        if assigns {
            return Some(Member {
                ty: None,
                decorators: Vec::new(),
                value: e.child_by_field_name("right"),
            });
        }
    }
    None
}

/// The name of the type a field or parameter is annotated with.
fn type_name<'s>(cx: &Cx<'s>, decl: Node<'s>) -> Option<&'s str> {
    let t = decl.child_by_field_name("type")?.named_child(0)?;
    let t = match t.kind() {
        "generic_type" => t.child_by_field_name("name")?,
        _ => t,
    };
    (t.kind() == "type_identifier").then(|| cx.scope.text(t))
}
