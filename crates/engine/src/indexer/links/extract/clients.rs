//! HTTP clients: fetch, axios, ky, got, ofetch / `$fetch` / `useFetch`, superagent,
//! request.

use tree_sitter::Node;

use super::scope::{object_member, Origin, Step};
use super::{arguments, root_identifier, routes, site, Cx};
use crate::indexer::links::path::{client_path, UrlPart};
use crate::indexer::links::{Endpoint, Method, Role};

/// A client library, as the import its receiver comes from says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lib {
    Axios,
    Ky,
    Got,
    Ofetch,
    Superagent,
    Request,
    /// node-fetch, cross-fetch, undici's `fetch`: fetch's own shape.
    Fetch,
}

fn lib_of(module: &str, imported: &str) -> Option<Lib> {
    let whole = matches!(imported, "default" | "=" | "*");
    Some(match module {
        "axios" if whole || imported == "axios" => Lib::Axios,
        "ky" | "ky-universal" if whole => Lib::Ky,
        "got" if whole || imported == "got" => Lib::Got,
        "ofetch" | "ohmyfetch" if matches!(imported, "ofetch" | "$fetch") || whole => Lib::Ofetch,
        "superagent" if whole => Lib::Superagent,
        "request" | "request-promise" | "request-promise-native" if whole => Lib::Request,
        "node-fetch" | "cross-fetch" | "isomorphic-fetch" if whole || imported == "fetch" => {
            Lib::Fetch
        }
        "undici" if imported == "fetch" => Lib::Fetch,
        _ => return None,
    })
}

/// What a receiver is, as a client: the library, and whether it is an instance made
/// from it (`axios.create(...)`), whose base the creating call may say.
fn client_of<'s>(cx: &Cx<'s>, node: Node<'s>) -> Option<(Lib, bool)> {
    let Origin::Lib {
        module,
        imported,
        steps,
    } = cx.scope.origin(node)
    else {
        return None;
    };
    let lib = lib_of(module, imported)?;
    let made = match steps.as_slice() {
        [] => false,
        // `axios.default` (CommonJS interop).
        [Step::Member("default")] => false,
        [Step::Member("create" | "extend"), Step::Call]
        | [Step::Member("default"), Step::Member("create" | "extend"), Step::Call] => true,
        _ => return None,
    };
    Some((lib, made))
}

/// The base URL an instance was made with (`axios.create({ baseURL })`, ky's and got's
/// `prefixUrl`, ofetch's `baseURL`): its pieces; None when it was made without one.
pub(super) fn instance_base<'s>(cx: &Cx<'s>, receiver: Node<'s>) -> Option<Vec<UrlPart>> {
    let root = root_identifier(receiver)?;
    let mut value = cx.scope.value_of(root, cx.scope.text(root))?;
    while value.kind() == "await_expression" {
        value = value.named_child(0)?;
    }
    if value.kind() != "call_expression" {
        return None;
    }
    let options = *arguments(value).first()?;
    if options.kind() != "object" {
        // Options the file does not spell out: the base is unknown.
        return Some(vec![UrlPart::Value(cx.scope.text(options).to_string())]);
    }
    let src = cx.scope.src;
    let base = object_member(options, "baseURL", src)
        .or_else(|| object_member(options, "prefixUrl", src))
        .or_else(|| object_member(options, "baseUrl", src))?;
    Some(cx.scope.url_parts(base))
}

/// `fetch(url, init)`, `$fetch(url)`, `useFetch(url)`, `axios(url | config)`,
/// `ky(url, options)`, `got(url, options)`, `request(url)`.
pub(super) fn plain_call<'s>(cx: &mut Cx<'s>, call: Node<'s>, f: Node<'s>, name: &str) {
    let args = arguments(call);
    let Some(&first) = args.first() else {
        return;
    };
    let lib = match name {
        // Globals: browsers' and Node's `fetch`, Nuxt's auto-imported `$fetch` and
        // `useFetch`; unless the file declares the name as something else.
        "fetch" | "$fetch" | "useFetch" | "useLazyFetch" | "ofetch" => {
            match cx.scope.origin(f) {
                Origin::Global(_, steps) if steps.is_empty() && name != "ofetch" => Lib::Fetch,
                Origin::Lib {
                    module, imported, ..
                } => match lib_of(module, imported) {
                    Some(l) => l,
                    // Nuxt's explicit imports, VueUse's `useFetch`.
                    None if matches!(module, "#app" | "#imports" | "nuxt/app" | "@vueuse/core") => {
                        Lib::Ofetch
                    }
                    None => return,
                },
                _ => return,
            }
        }
        _ => match client_of(cx, f) {
            Some((lib, _)) => lib,
            None => return,
        },
    };
    // `axios({ url, method })`: the config alone.
    let (url_node, options) = if first.kind() == "object" && lib == Lib::Axios {
        match object_member(first, "url", cx.scope.src) {
            Some(u) => (u, Some(first)),
            None => return,
        }
    } else {
        (first, args.get(1).copied())
    };
    let base = match client_of(cx, f) {
        Some((_, true)) => instance_base(cx, f),
        _ => None,
    };
    let method = method_from_options(cx, options);
    push_client(cx, call, method, base, url_node);
}

/// The method an options object says; its default (GET) when it says none; None when
/// the options are not written out or the method is computed.
fn method_from_options<'s>(cx: &Cx<'s>, options: Option<Node<'s>>) -> Option<Method> {
    let Some(options) = options else {
        return Some(Method::Get);
    };
    if options.kind() != "object" {
        return None;
    }
    match object_member(options, "method", cx.scope.src) {
        None => {
            // A spread may carry the method.
            let mut cursor = options.walk();
            let spread = options
                .named_children(&mut cursor)
                .any(|c| c.kind() == "spread_element");
            (!spread).then_some(Method::Get)
        }
        Some(m) => cx.scope.string_value(m).and_then(|s| Method::from_name(&s)),
    }
}

/// `axios.get(url)`, `api.post(url, body)` (an instance), `ky.put(url)`,
/// `got.delete(url)`, `superagent.get(url)`, `axios.request(config)`. True when the
/// receiver is a client (whether a site was made or not): it is then no route.
pub(super) fn member_call<'s>(
    cx: &mut Cx<'s>,
    call: Node<'s>,
    object: Node<'s>,
    name: &str,
) -> bool {
    if !matches!(
        name,
        "get" | "post" | "put" | "patch" | "delete" | "del" | "head" | "options" | "request"
    ) {
        return false;
    }
    let Some((lib, made)) = client_of(cx, object) else {
        return imported_client(cx, call, object, name);
    };
    let args = arguments(call);
    let Some(&first) = args.first() else {
        return true;
    };
    let base = if made {
        instance_base(cx, object)
    } else {
        None
    };
    if name == "request" {
        // `axios.request({ url, method })`, `got.request(url, options)`.
        let (url, options) = if first.kind() == "object" {
            match object_member(first, "url", cx.scope.src) {
                Some(u) => (u, Some(first)),
                None => return true,
            }
        } else {
            (first, args.get(1).copied())
        };
        let method = method_from_options(cx, options);
        push_client(cx, call, method, base, url);
        return true;
    }
    let _ = lib;
    push_client(cx, call, Method::from_name(name), base, first);
    true
}

/// `api.get(url)` with `api` imported as it is from a module of the project: a client
/// if that module's export is a client instance, which only the graph can say; kept
/// with the import (see [`crate::indexer::links::LinkSite::mounted`]). Its path is from the
/// instance's base: a relative URL (`users/1`) starts at it too. True when kept.
pub(super) fn imported_client<'s>(
    cx: &mut Cx<'s>,
    call: Node<'s>,
    object: Node<'s>,
    name: &str,
) -> bool {
    let Some(method) = Method::from_name(name) else {
        return false;
    };
    if object.kind() != "identifier" {
        return false;
    }
    let local = cx.scope.text(object);
    let Some((module, imported)) = cx.scope.import_of(local) else {
        return false;
    };
    if super::scope::is_package(module) || routes::may_be_router_name(local) {
        return false;
    }
    // Declared again around the call: not the import.
    if !matches!(cx.scope.origin(object), Origin::Lib { .. }) {
        return false;
    }
    let Some(&first) = arguments(call).first() else {
        return false;
    };
    let mut parts = cx.scope.url_parts(first);
    match parts.first_mut() {
        Some(UrlPart::Text(t)) if !t.starts_with('/') && !t.contains("://") => t.insert(0, '/'),
        Some(UrlPart::Text(_)) => {}
        _ => return false,
    }
    waiting_client(cx, call, Some(method), &parts, module, imported)
}

/// A client call on an object imported from `module` of the project, its URL `parts`:
/// kept with the import, waiting for the graph to put the instance's base before it.
pub(super) fn waiting_client<'s>(
    cx: &mut Cx<'s>,
    call: Node<'s>,
    method: Option<Method>,
    parts: &[UrlPart],
    module: &str,
    imported: &str,
) -> bool {
    let Some(path) = client_path(parts) else {
        return false;
    };
    let mut s = site(
        Role::Client,
        Endpoint::Http { method, path },
        super::call_at(cx, call),
    );
    s.mounted = Some(super::mounted_import(module, imported));
    cx.push(s);
    true
}

/// `const api = axios.create({ baseURL })` at the top level, exported (`ky.create`,
/// `got.extend`, `ofetch.create`): an instance, its base as its endpoint, for the
/// files that import it.
pub(super) fn instance<'s>(cx: &mut Cx<'s>, call: Node<'s>, object: Node<'s>) {
    let Some((_, false)) = client_of(cx, object) else {
        return;
    };
    instance_site(cx, call, instance_base);
}

/// The base an instance bound to a name was made with, as a library's call says it.
pub(super) type BaseOf = for<'s> fn(&Cx<'s>, Node<'s>) -> Option<Vec<UrlPart>>;

/// The instance a call makes, when it is bound to an exported top-level name: its
/// base, as `base_of` reads it from the name.
pub(super) fn instance_site<'s>(cx: &mut Cx<'s>, call: Node<'s>, base_of: BaseOf) {
    let mut value = call;
    while let Some(p) = value
        .parent()
        .filter(|p| matches!(p.kind(), "await_expression" | "parenthesized_expression"))
    {
        value = p;
    }
    let Some(declarator) = value.parent().filter(|p| p.kind() == "variable_declarator") else {
        return;
    };
    let Some(name) = declarator.child_by_field_name("name") else {
        return;
    };
    let owner = cx.scope.text(name);
    if cx.scope.top_level(owner).is_none() {
        return;
    }
    let exported_as = cx.scope.exported_as(owner);
    if exported_as.is_empty() {
        return;
    }
    // The base as a path (an instance without one: the root); `'/'` is the root too,
    // not a `//` host.
    let mut parts = base_of(cx, name).unwrap_or_default();
    if let Some(UrlPart::Text(t)) = parts.last_mut() {
        while t.ends_with('/') && !t.ends_with("//") {
            t.pop();
        }
    }
    parts.push(UrlPart::Text("/".into()));
    let Some(path) = client_path(&parts) else {
        return;
    };
    let mut s = site(
        Role::Instance,
        Endpoint::Http { method: None, path },
        super::call_at(cx, call),
    );
    s.owner = Some(owner.to_string());
    s.exported_as = exported_as;
    cx.push(s);
}

pub(super) fn push_client<'s>(
    cx: &mut Cx<'s>,
    call: Node<'s>,
    method: Option<Method>,
    base: Option<Vec<UrlPart>>,
    url: Node<'s>,
) {
    let mut parts = base.unwrap_or_default();
    let path = cx.scope.url_parts(url);
    // `new URL('/x', base)` and other computed URLs say nothing.
    if !path.iter().any(|p| matches!(p, UrlPart::Text(_))) {
        return;
    }
    // A base and a path are joined by a slash, however they are written.
    if let (Some(UrlPart::Text(last)), Some(UrlPart::Text(first))) =
        (parts.last_mut(), path.first())
    {
        if last.ends_with('/') && first.starts_with('/') {
            last.pop();
        } else if !last.ends_with('/') && !first.starts_with('/') {
            last.push('/');
        }
    } else if matches!(parts.last(), Some(UrlPart::Value(_)))
        && matches!(path.first(), Some(UrlPart::Text(t)) if !t.starts_with('/'))
    {
        parts.push(UrlPart::Text("/".into()));
    }
    parts.extend(path);
    let Some(pattern) = client_path(&parts) else {
        return;
    };
    let at = super::call_at(cx, call);
    cx.push(site(
        Role::Client,
        Endpoint::Http {
            method,
            path: pattern,
        },
        at,
    ));
}
