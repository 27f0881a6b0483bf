//! Typed HTTP clients whose calls name the route:
//! - openapi-fetch: `const api = createClient<paths>({ baseUrl })`, then
//!   `api.GET('/users/{id}', ...)` (`{id}` a parameter); an exported `api` is an
//!   instance other files' calls are made on.
//! - Hono's RPC client: `const client = hc<AppType>(base)`, then
//!   `client.users[':id'].$get(...)`: the property chain is the path (`index` is `/`),
//!   `$get` the method; an exported `client` is an instance other files' calls are
//!   made on.
//! - Angular's `HttpClient`: `this.http.get<T>(url)` where the class declares `http`
//!   typed `HttpClient` from `@angular/common/http`, or given `inject(HttpClient)`.

use tree_sitter::Node;

use super::class_members::this_member;
use super::scope::{Origin, Step};
use super::{arguments, clients, site, Cx};
use crate::indexer::links::path::{client_path, UrlPart};
use crate::indexer::links::{Endpoint, Method, Role};

const ANGULAR: &str = "@angular/common/http";

/// `createClient(...)` of openapi-fetch bound to an exported top-level name: an
/// instance for the files that import it.
pub(super) fn create_client<'s>(cx: &mut Cx<'s>, call: Node<'s>, f: Node<'s>) {
    if matches!(cx.scope.origin(f), Origin::Lib { module: "openapi-fetch", steps, .. } if steps.is_empty())
    {
        clients::instance_site(cx, call, clients::instance_base);
    }
}

/// `hc(base)` of hono/client bound to an exported top-level name: an instance for the
/// files that import it.
pub(super) fn hc_instance<'s>(cx: &mut Cx<'s>, call: Node<'s>, f: Node<'s>) {
    if matches!(cx.scope.origin(f), Origin::Lib { module: "hono/client", imported: "hc", steps } if steps.is_empty())
    {
        clients::instance_site(cx, call, hc_base);
    }
}

/// A call of a typed client's method `name` on `object`. Whether the receiver was
/// one (a site made or not): it is then nothing else.
pub(super) fn member_call<'s>(
    cx: &mut Cx<'s>,
    call: Node<'s>,
    object: Node<'s>,
    name: &str,
) -> bool {
    match name {
        "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS" => {
            openapi(cx, call, object, name)
        }
        "$get" | "$post" | "$put" | "$patch" | "$delete" => hono(cx, call, object, &name[1..]),
        _ => angular(cx, call, object, name),
    }
}

fn openapi<'s>(cx: &mut Cx<'s>, call: Node<'s>, object: Node<'s>, name: &str) -> bool {
    let made = matches!(
        cx.scope.origin(object),
        Origin::Lib { module: "openapi-fetch", steps, .. } if steps.as_slice() == [Step::Call]
    );
    if !made {
        // `api.GET(...)` on an instance exported by a module of the project.
        return clients::imported_client(cx, call, object, name);
    }
    let Some(&url) = arguments(call).first() else {
        return true;
    };
    let base = clients::instance_base(cx, object);
    clients::push_client(cx, call, Method::from_name(name), base, url);
    true
}

fn hono<'s>(cx: &mut Cx<'s>, call: Node<'s>, object: Node<'s>, method: &str) -> bool {
    // The chain from the receiver's root: `client.users[':id']` is `users`, `:id`.
    let mut chain = Vec::new();
    let mut node = object;
    let root = loop {
        match node.kind() {
            "identifier" => break node,
            "member_expression" => {
                let Some(p) = node.child_by_field_name("property") else {
                    return false;
                };
                chain.push(cx.scope.text(p).to_string());
                let Some(o) = node.child_by_field_name("object") else {
                    return false;
                };
                node = o;
            }
            "subscript_expression" => {
                let Some(key) = node
                    .child_by_field_name("index")
                    .and_then(|i| cx.scope.string_value(i))
                else {
                    return false;
                };
                chain.push(key);
                let Some(o) = node.child_by_field_name("object") else {
                    return false;
                };
                node = o;
            }
            "non_null_expression" | "parenthesized_expression" => {
                let Some(inner) = node.named_child(0) else {
                    return false;
                };
                node = inner;
            }
            _ => return false,
        }
    };
    chain.reverse();
    // `const users = client.api.users`: the members the root's value already read.
    let Origin::Lib {
        module,
        imported,
        steps,
    } = cx.scope.origin(root)
    else {
        return false;
    };
    if module != "hono/client" || imported != "hc" {
        // `client.users.$get()` on a `client` imported from a module of the project:
        // a client if that module exports an `hc` instance (the graph says).
        return steps.is_empty() && imported_hono(cx, call, module, imported, &chain, method);
    }
    let Some((Step::Call, read)) = steps.split_first() else {
        return false;
    };
    let mut segments = Vec::new();
    for s in read {
        match s {
            Step::Member(m) => segments.push(m.to_string()),
            _ => return false,
        }
    }
    segments.extend(chain);
    let mut parts =
        hc_base(cx, root).unwrap_or_else(|| vec![UrlPart::Value(cx.scope.text(root).to_string())]);
    if let Some(UrlPart::Text(t)) = parts.last_mut() {
        while t.ends_with('/') {
            t.pop();
        }
    }
    for s in segments.iter().filter(|s| *s != "index") {
        parts.push(UrlPart::Text("/".into()));
        match s.strip_prefix(':') {
            Some(param) => parts.push(UrlPart::Value(param.to_string())),
            None => parts.push(UrlPart::Text(s.clone())),
        }
    }
    if segments.iter().all(|s| s == "index") {
        parts.push(UrlPart::Text("/".into()));
    }
    let Some(path) = client_path(&parts) else {
        return true;
    };
    let at = super::call_at(cx, call);
    cx.push(site(
        Role::Client,
        Endpoint::Http {
            method: Method::from_name(method),
            path,
        },
        at,
    ));
    true
}

/// A Hono RPC call on an object imported from a module of the project: kept with the
/// import, its path the chain's, waiting for the graph to put the instance's base
/// before it (see `clients::imported_client`).
fn imported_hono<'s>(
    cx: &mut Cx<'s>,
    call: Node<'s>,
    module: &str,
    imported: &str,
    chain: &[String],
    method: &str,
) -> bool {
    if super::scope::is_package(module) {
        return false;
    }
    let mut parts = Vec::new();
    for s in chain.iter().filter(|s| *s != "index") {
        parts.push(UrlPart::Text("/".into()));
        match s.strip_prefix(':') {
            Some(param) => parts.push(UrlPart::Value(param.to_string())),
            None => parts.push(UrlPart::Text(s.clone())),
        }
    }
    if parts.is_empty() {
        parts.push(UrlPart::Text("/".into()));
    }
    clients::waiting_client(
        cx,
        call,
        Method::from_name(method),
        &parts,
        module,
        imported,
    )
}

/// The base the `hc(base)` call a name holds (or holds a member of) was given.
fn hc_base<'s>(cx: &Cx<'s>, root: Node<'s>) -> Option<Vec<UrlPart>> {
    let mut name = root;
    for _ in 0..8 {
        let mut v = cx.scope.value_of(name, cx.scope.text(name))?;
        while matches!(v.kind(), "member_expression" | "subscript_expression") {
            v = v.child_by_field_name("object")?;
        }
        match v.kind() {
            "call_expression" => {
                return Some(cx.scope.url_parts(*arguments(v).first()?));
            }
            "identifier" => name = v,
            _ => return None,
        }
    }
    None
}

fn angular<'s>(cx: &mut Cx<'s>, call: Node<'s>, object: Node<'s>, name: &str) -> bool {
    let Some(member) = this_member(cx, object) else {
        return false;
    };
    let from_angular = |t: &str| {
        cx.scope
            .import_of(t)
            .is_some_and(|(m, imported)| m == ANGULAR && imported == "HttpClient")
    };
    let typed = member.ty.is_some_and(from_angular);
    // `inject(HttpClient)`.
    let injected = member.value.is_some_and(|v| {
        v.kind() == "call_expression"
            && v.child_by_field_name("function")
                .is_some_and(|f| cx.scope.text(f) == "inject")
            && arguments(v)
                .first()
                .is_some_and(|a| from_angular(cx.scope.text(*a)))
    });
    if !typed && !injected {
        return false;
    }
    let args = arguments(call);
    // `request(method, url)`.
    let (method, url) = if name == "request" {
        let method = args
            .first()
            .and_then(|m| cx.scope.string_value(*m))
            .and_then(|m| Method::from_name(&m));
        (method, args.get(1).copied())
    } else {
        match Method::from_name(name) {
            Some(m) => (Some(m), args.first().copied()),
            None => return true,
        }
    };
    if let Some(url) = url {
        clients::push_client(cx, call, method, None, url);
    }
    true
}
