//! tRPC: the procedures of routers, and the clients' `trpc.a.b.query()`.

use tree_sitter::Node;

use super::scope::{unquote, Origin, Step};
use super::{arguments, handler_of, mounted_of, site, Cx};
use crate::indexer::links::{Endpoint, ProcedureKind, Role};

/// Whether a call makes a tRPC router: `router(...)`, `createTRPCRouter(...)`,
/// `t.router(...)`.
fn is_router_call(cx: &Cx, call: Node) -> bool {
    let Some(f) = call.child_by_field_name("function") else {
        return false;
    };
    let name = match f.kind() {
        "identifier" => cx.scope.text(f),
        "member_expression" => match f.child_by_field_name("property") {
            Some(p) => cx.scope.text(p),
            None => return false,
        },
        _ => return false,
    };
    matches!(name, "router" | "createTRPCRouter")
}

/// A router's procedures (routes), and the routers it nests by name (mounts).
pub(super) fn router<'s>(cx: &mut Cx<'s>, call: Node<'s>) {
    if !is_router_call(cx, call) {
        return;
    }
    let Some(object) = arguments(call)
        .first()
        .copied()
        .filter(|o| o.kind() == "object")
    else {
        return;
    };
    // A router nested in another's object is read with the outer one.
    let nested = call
        .parent()
        .filter(|p| p.kind() == "pair")
        .and_then(|p| p.parent())
        .filter(|o| o.kind() == "object")
        .and_then(|o| o.parent())
        .filter(|a| a.kind() == "arguments")
        .and_then(|a| a.parent())
        .is_some_and(|outer| is_router_call(cx, outer));
    if nested {
        return;
    }
    // Evidence: the router function is tRPC's (imported from it, or `t` from
    // `initTRPC`), or the object holds a procedure.
    let from_trpc = call.child_by_field_name("function").is_some_and(|f| {
        cx.scope
            .origin(f)
            .module()
            .is_some_and(|m| m.starts_with("@trpc/"))
    });
    let mut found = Vec::new();
    collect(cx, object, "", &mut found, 0);
    // Or the router function comes from the project's own tRPC module (`./trpc`, as
    // create-t3-app lays it out), or what it nests are named as routers.
    let from_own_trpc = call.child_by_field_name("function").is_some_and(|f| {
        cx.scope
            .origin(f)
            .module()
            .is_some_and(|m| m.contains("trpc"))
    });
    let holds_routers = found.iter().any(|f| match f {
        Found::Mount(_, _, value) => cx.scope.text(*value).ends_with("Router"),
        Found::Procedure(..) => true,
    });
    if !from_trpc && !from_own_trpc && !holds_routers {
        return;
    }
    let owner = call
        .parent()
        .filter(|p| p.kind() == "variable_declarator")
        .and_then(|d| d.child_by_field_name("name"))
        .map(|n| cx.scope.text(n).to_string());
    let exported_as = owner
        .as_deref()
        .map(|o| cx.scope.exported_as(o))
        .unwrap_or_default();
    for f in found {
        let mut s = match f {
            Found::Procedure(path, kind, at_node, handler) => {
                let mut s = site(
                    Role::Route,
                    Endpoint::Procedure {
                        path,
                        kind: Some(kind),
                    },
                    cx.scope.at(at_node),
                );
                s.handler = handler.and_then(|h| handler_of(cx, h));
                s
            }
            Found::Mount(path, at_node, value) => {
                let Some(mounted) = mounted_of(cx, value) else {
                    continue;
                };
                let mut s = site(
                    Role::Mount,
                    Endpoint::Procedure { path, kind: None },
                    cx.scope.at(at_node),
                );
                s.mounted = Some(mounted);
                s
            }
        };
        s.owner = owner.clone();
        s.exported_as = exported_as.clone();
        cx.push(s);
    }
}

enum Found<'s> {
    /// A procedure: its path, kind, the node it is at, its resolver.
    Procedure(String, ProcedureKind, Node<'s>, Option<Node<'s>>),
    /// A router nested by name: its path, the node, the name's node.
    Mount(String, Node<'s>, Node<'s>),
}

fn collect<'s>(
    cx: &Cx<'s>,
    object: Node<'s>,
    prefix: &str,
    out: &mut Vec<Found<'s>>,
    depth: usize,
) {
    if depth > 8 {
        return;
    }
    let mut cursor = object.walk();
    let members: Vec<Node> = object.named_children(&mut cursor).collect();
    for m in members {
        let (key, value) = match m.kind() {
            "pair" => {
                let (Some(k), Some(v)) =
                    (m.child_by_field_name("key"), m.child_by_field_name("value"))
                else {
                    continue;
                };
                (unquote(cx.scope.text(k)), v)
            }
            "shorthand_property_identifier" => (cx.scope.text(m), m),
            _ => continue,
        };
        let path = if prefix.is_empty() {
            key.to_string()
        } else {
            format!("{prefix}.{key}")
        };
        match value.kind() {
            "identifier" | "shorthand_property_identifier" => {
                out.push(Found::Mount(path, m, value));
            }
            // tRPC 11 takes a plain object as a router.
            "object" => collect(cx, value, &path, out, depth + 1),
            "call_expression" if is_router_call(cx, value) => {
                if let Some(inner) = arguments(value).first().filter(|o| o.kind() == "object") {
                    collect(cx, *inner, &path, out, depth + 1);
                }
            }
            "call_expression" => {
                let Some(f) = value.child_by_field_name("function") else {
                    continue;
                };
                let Some(property) = f.child_by_field_name("property") else {
                    continue;
                };
                let kind = match cx.scope.text(property) {
                    "query" => ProcedureKind::Query,
                    "mutation" => ProcedureKind::Mutation,
                    "subscription" => ProcedureKind::Subscription,
                    _ => continue,
                };
                let resolver = arguments(value).last().copied();
                out.push(Found::Procedure(path, kind, m, resolver));
            }
            _ => {}
        }
    }
}

/// A procedure made on its own and nested in a router by name elsewhere
/// (`export const getUserRoute = authenticatedProcedure.input(x).query(fn)`): a route
/// with no path of its own, owned by its name, which a router's mount gives a path.
/// The chain must start from a name that says it is a procedure (`publicProcedure`,
/// `t.procedure`). True when it is one.
pub(super) fn procedure<'s>(cx: &mut Cx<'s>, call: Node<'s>, method: &str) -> bool {
    let kind = match method {
        "query" => ProcedureKind::Query,
        "mutation" => ProcedureKind::Mutation,
        "subscription" => ProcedureKind::Subscription,
        _ => return false,
    };
    let Some(declarator) = call.parent().filter(|p| p.kind() == "variable_declarator") else {
        return false;
    };
    let Some(root) = super::root_identifier(call) else {
        return false;
    };
    let starts = {
        let mut n = call;
        // The chain's first member read off its root (`t.procedure`) or the root itself.
        let mut first_member = None;
        for _ in 0..32 {
            match n.kind() {
                "call_expression" => match n.child_by_field_name("function") {
                    Some(f) => n = f,
                    None => break,
                },
                "member_expression" => {
                    first_member = n.child_by_field_name("property");
                    match n.child_by_field_name("object") {
                        Some(o) => n = o,
                        None => break,
                    }
                }
                _ => break,
            }
        }
        let says = |t: &str| t.ends_with("Procedure") || t == "procedure";
        says(cx.scope.text(root)) || first_member.is_some_and(|m| says(cx.scope.text(m)))
    };
    if !starts {
        return false;
    }
    let Some(name) = declarator.child_by_field_name("name") else {
        return false;
    };
    let name = cx.scope.text(name);
    if cx.scope.top_level(name).is_none() {
        return false;
    }
    let mut s = site(
        Role::Route,
        Endpoint::Procedure {
            path: String::new(),
            kind: Some(kind),
        },
        super::call_at(cx, call),
    );
    s.handler = arguments(call).last().and_then(|h| handler_of(cx, *h));
    s.owner = Some(name.to_string());
    s.exported_as = cx.scope.exported_as(name);
    cx.push(s);
    true
}

/// `trpc.user.byId.query(...)`, `api.post.create.useMutation()`.
pub(super) fn client<'s>(cx: &mut Cx<'s>, call: Node<'s>, object: Node<'s>, method: &str) {
    // The procedure's path: the members read off the client, outermost last.
    let mut path = Vec::new();
    let mut node = object;
    let root = loop {
        match node.kind() {
            "member_expression" => {
                let (Some(o), Some(p)) = (
                    node.child_by_field_name("object"),
                    node.child_by_field_name("property"),
                ) else {
                    return;
                };
                path.push(cx.scope.text(p));
                node = o;
            }
            "identifier" => break node,
            _ => return,
        }
        if path.len() > 16 {
            return;
        }
    };
    if path.is_empty() {
        return;
    }
    path.reverse();
    let made_by_trpc = match cx.scope.origin(root) {
        Origin::Lib {
            module,
            imported,
            steps,
        } => {
            (module.starts_with("@trpc/") && steps.as_slice() == [Step::Call])
                || (!module.starts_with("@trpc/")
                    && (!super::scope::is_package(module) || module.contains("trpc"))
                    && steps.is_empty()
                    && (matches!(imported, "trpc" | "api")
                        || imported == "default" && matches!(cx.scope.text(root), "trpc" | "api")))
        }
        _ => false,
    };
    if !made_by_trpc {
        return;
    }
    let kind = match method {
        "mutate" | "useMutation" => ProcedureKind::Mutation,
        _ => ProcedureKind::Query,
    };
    let at = super::call_at(cx, call);
    cx.push(site(
        Role::Client,
        Endpoint::Procedure {
            path: path.join("."),
            kind: Some(kind),
        },
        at,
    ));
}
