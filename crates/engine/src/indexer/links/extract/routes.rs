//! Routes: Express and Koa routers, Fastify, Hono, NestJS controllers.

use tree_sitter::Node;

use super::scope::{object_member, Origin, Step};
use super::{arguments, handler_of, mounted_of, owner_of, root_identifier, site, Cx};
use crate::indexer::links::path::{Base, PathPattern};
use crate::indexer::links::{Endpoint, Method, Role};

/// What a receiver is, as a router.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Router {
    /// An app served at the root (`express()`, `Fastify()`, `new Hono()`, a koa-router
    /// `new Router()`: Koa's routers sit at the root with their `prefix`).
    Root,
    /// A router mounted elsewhere (`express.Router()`), or a parameter or import that
    /// only its name and the call's shape say is one: its base is unknown until a
    /// mount composes it.
    Mounted,
}

/// Parameter and import names a route's receiver may have without an import of the
/// framework (with a route's shape).
const ROUTER_NAMES: [&str; 6] = ["app", "router", "server", "fastify", "routes", "instance"];

/// Whether a receiver's name is one a router may have without an import of its
/// framework.
pub(super) fn may_be_router_name(name: &str) -> bool {
    ROUTER_NAMES.contains(&name)
}

/// What the receiver `object` is, from where it comes (None: not a router).
fn router_of<'s>(cx: &Cx<'s>, object: Node<'s>) -> Option<(Router, bool)> {
    let origin = cx.scope.origin(object);
    // (router, whether evidence is only by name)
    match &origin {
        Origin::Lib {
            module,
            imported,
            steps,
        } => {
            let steps = registrations_stripped(steps);
            let whole = matches!(*imported, "default" | "=" | "*");
            match *module {
                "express" => match (whole, *imported, steps) {
                    (true, _, [Step::Call]) => Some((Router::Root, false)),
                    (true, _, [Step::Member("Router"), Step::Call]) => {
                        Some((Router::Mounted, false))
                    }
                    (false, "Router", [Step::Call]) => Some((Router::Mounted, false)),
                    _ => None,
                },
                "koa-router" | "@koa/router" => match steps {
                    [Step::New] | [Step::Call] => Some((Router::Root, false)),
                    _ => None,
                },
                "fastify" => match steps {
                    [Step::Call] => Some((Router::Root, false)),
                    _ => None,
                },
                m if m == "hono" || m.starts_with("hono/") => match (*imported, steps) {
                    ("Hono", [Step::New]) => Some((Router::Root, false)),
                    ("Hono", [Step::New, Step::Member("basePath"), Step::Call]) => {
                        Some((Router::Root, false))
                    }
                    _ => None,
                },
                // `import app from './app'`: by its name and the call's shape only.
                m if m.starts_with('.') => {
                    let local = root_identifier(object).map(|r| cx.scope.text(r))?;
                    if !steps.is_empty() || !ROUTER_NAMES.contains(&local) {
                        return None;
                    }
                    let router = if matches!(local, "app" | "server" | "fastify") {
                        Router::Root
                    } else {
                        Router::Mounted
                    };
                    Some((router, true))
                }
                _ => None,
            }
        }
        Origin::Param(name, steps) if steps.is_empty() && ROUTER_NAMES.contains(name) => {
            Some((Router::Mounted, true))
        }
        _ => None,
    }
}

/// The steps that make a router, without the registrations chained after it
/// (`Router().use(a).get('/x', h)`: each returns the router).
fn registrations_stripped<'a, 's>(mut steps: &'a [Step<'s>]) -> &'a [Step<'s>] {
    while let [rest @ .., Step::Member(m), Step::Call] = steps {
        let registers = *m == "use" || *m == "all" || Method::from_name(m).is_some();
        if !registers || rest.is_empty() {
            break;
        }
        steps = rest;
    }
    steps
}

/// Koa's `new Router({ prefix: '/users' })`: the prefix.
fn koa_prefix<'s>(cx: &Cx<'s>, object: Node<'s>) -> Option<String> {
    let root = root_identifier(object)?;
    let value = cx.scope.value_of(root, cx.scope.text(root))?;
    if value.kind() != "new_expression" {
        return None;
    }
    let options = *arguments(value).first()?;
    if options.kind() != "object" {
        return None;
    }
    cx.scope
        .string_value(object_member(options, "prefix", cx.scope.src)?)
}

/// `x.get(path, ...handlers)`, `x.use(path, router)`, `x.route(...)`, `x.register(...)`.
pub(super) fn member_call<'s>(cx: &mut Cx<'s>, call: Node<'s>, object: Node<'s>, name: &str) {
    // `app.route('/x').get(h).post(h)`: the path is the `route` call's.
    let (receiver, chained_path) = match route_chain(cx, object) {
        Some((receiver, path)) => (receiver, Some(path)),
        None => (object, None),
    };
    let Some((router, by_name)) = router_of(cx, receiver) else {
        return;
    };
    let args = arguments(call);
    let prefix = koa_prefix(cx, receiver);
    let pattern = |path: &str| {
        let full = match &prefix {
            Some(p) => format!("{p}/{path}"),
            None => path.to_string(),
        };
        let p = PathPattern::route(&full);
        match router {
            Router::Root => p,
            Router::Mounted => p.with_unknown_base(),
        }
    };
    let (owner, exported_as) = owner_of(cx, receiver);
    let at = super::call_at(cx, call);
    match name {
        "use" | "register" | "route" if chained_path.is_none() => {
            mount_or_route(
                cx,
                call,
                &args,
                name,
                router,
                by_name,
                pattern,
                owner,
                exported_as,
            );
        }
        _ => {
            let method = match name {
                "all" => None,
                n => match Method::from_name(n) {
                    Some(m) => Some(m),
                    None => return,
                },
            };
            // `app.get('/x', h)`; in a chain, `.get(h)`.
            let (path, handlers) = match &chained_path {
                Some(p) => (p.clone(), &args[..]),
                None => {
                    if args.len() < 2 {
                        // `app.get('env')` reads a setting.
                        return;
                    }
                    let Some(path) = cx.scope.string_value(args[0]) else {
                        return;
                    };
                    (path, &args[1..])
                }
            };
            if by_name && !route_shaped(&path, handlers) {
                return;
            }
            let handler = handlers.last().and_then(|h| handler_of(cx, *h));
            let mut s = site(
                Role::Route,
                Endpoint::Http {
                    method,
                    path: pattern(&path),
                },
                at,
            );
            s.handler = handler;
            s.owner = owner;
            s.exported_as = exported_as;
            cx.push(s);
        }
    }
}

/// A path and handlers as a route has them: a path from the root and a function (or a
/// name of one) after it.
fn route_shaped(path: &str, handlers: &[Node]) -> bool {
    (path.starts_with('/') || path == "*")
        && handlers.last().is_some_and(|h| {
            matches!(
                h.kind(),
                "identifier"
                    | "member_expression"
                    | "arrow_function"
                    | "function_expression"
                    | "function"
                    | "call_expression"
            )
        })
}

/// `x.route('/p')` at the bottom of a chain of verb calls: its receiver and path.
fn route_chain<'s>(cx: &Cx<'s>, mut object: Node<'s>) -> Option<(Node<'s>, String)> {
    for _ in 0..16 {
        if object.kind() != "call_expression" {
            return None;
        }
        let f = object.child_by_field_name("function")?;
        if f.kind() != "member_expression" {
            return None;
        }
        let property = cx.scope.text(f.child_by_field_name("property")?);
        let inner = f.child_by_field_name("object")?;
        if property == "route" {
            let args = arguments(object);
            if args.len() != 1 {
                return None;
            }
            return Some((inner, cx.scope.string_value(args[0])?));
        }
        if Method::from_name(property).is_none() && property != "all" {
            return None;
        }
        object = inner;
    }
    None
}

#[allow(clippy::too_many_arguments)]
fn mount_or_route<'s>(
    cx: &mut Cx<'s>,
    call: Node<'s>,
    args: &[Node<'s>],
    name: &str,
    router: Router,
    by_name: bool,
    pattern: impl Fn(&str) -> PathPattern,
    owner: Option<String>,
    exported_as: Vec<String>,
) {
    let at = super::call_at(cx, call);
    // Fastify's `route({ method, url, handler })`.
    if name == "route" && args.len() == 1 && args[0].kind() == "object" {
        let options = args[0];
        let src = cx.scope.src;
        let Some(url) = object_member(options, "url", src)
            .or_else(|| object_member(options, "path", src))
            .and_then(|u| cx.scope.string_value(u))
        else {
            return;
        };
        let handler = object_member(options, "handler", src).and_then(|h| handler_of(cx, h));
        let methods: Vec<Option<Method>> = match object_member(options, "method", src) {
            Some(m) if m.kind() == "array" => {
                let mut cursor = m.walk();
                let list: Vec<Node> = m.named_children(&mut cursor).collect();
                list.into_iter()
                    .filter_map(|e| cx.scope.string_value(e))
                    .filter_map(|s| Method::from_name(&s).map(Some))
                    .collect()
            }
            Some(m) => match cx.scope.string_value(m) {
                Some(s) if s == "*" || s.eq_ignore_ascii_case("all") => vec![None],
                Some(s) => Method::from_name(&s).map(Some).into_iter().collect(),
                None => vec![None],
            },
            None => return,
        };
        for method in methods {
            let mut s = site(
                Role::Route,
                Endpoint::Http {
                    method,
                    path: pattern(&url),
                },
                at,
            );
            s.handler = handler.clone();
            s.owner = owner.clone();
            s.exported_as = exported_as.clone();
            cx.push(s);
        }
        return;
    }
    // Mounts: `use(path?, ...routers)`, Hono's `route(path, sub)`, Fastify's
    // `register(plugin, { prefix })`.
    let (prefix, mounted) = match name {
        "register" => {
            let Some(&plugin) = args.first() else {
                return;
            };
            let prefix = args
                .get(1)
                .filter(|o| o.kind() == "object")
                .and_then(|o| object_member(*o, "prefix", cx.scope.src))
                .and_then(|p| cx.scope.string_value(p))
                .unwrap_or_default();
            (prefix, plugin)
        }
        _ => {
            let (prefix, rest) = match args.first().and_then(|a| cx.scope.string_value(*a)) {
                Some(p) => (p, &args[1..]),
                None => (String::new(), args),
            };
            let Some(&last) = rest.last() else {
                return;
            };
            (prefix, last)
        }
    };
    if by_name && !prefix.is_empty() && !prefix.starts_with('/') {
        return;
    }
    let Some(mounted) = mounted_of(cx, mounted) else {
        return;
    };
    let path = pattern(&prefix);
    let path = if router == Router::Root {
        PathPattern {
            base: Base::Root,
            ..path
        }
    } else {
        path
    };
    let mut s = site(Role::Mount, Endpoint::Http { method: None, path }, at);
    s.owner = owner;
    s.exported_as = exported_as;
    s.mounted = Some(mounted);
    cx.push(s);
}

/// NestJS: `@Get(':id')` on a method of a `@Controller('users')` class.
pub(super) fn nest<'s>(cx: &mut Cx<'s>, call: Node<'s>, decorator: &str) {
    let Some(f) = call.child_by_field_name("function") else {
        return;
    };
    let from_nest = cx
        .scope
        .import_of(cx.scope.text(f))
        .is_some_and(|(m, _)| m == "@nestjs/common");
    let Some(deco) = call.parent().filter(|p| p.kind() == "decorator") else {
        return;
    };
    if !from_nest {
        return;
    }
    let method = match decorator {
        "All" => None,
        d => match Method::from_name(d) {
            Some(m) => Some(m),
            None => return,
        },
    };
    let Some(function) = decorated_method(deco) else {
        return;
    };
    let path = arguments(call)
        .first()
        .and_then(|a| cx.scope.string_value(*a))
        .unwrap_or_default();
    let class = {
        let mut n = function;
        let mut found = None;
        for _ in 0..8 {
            let Some(p) = n.parent() else { break };
            if matches!(
                p.kind(),
                "class_declaration" | "class" | "abstract_class_declaration"
            ) {
                found = Some(p);
                break;
            }
            n = p;
        }
        found
    };
    let controller = class
        .and_then(|c| controller_path(cx, c))
        .unwrap_or_default();
    let mut s = site(
        Role::Route,
        Endpoint::Http {
            method,
            path: PathPattern::route(&format!("{controller}/{path}")),
        },
        super::call_at(cx, call),
    );
    s.handler = handler_of(cx, function);
    s.owner = class
        .and_then(|c| c.child_by_field_name("name"))
        .map(|n| cx.scope.text(n).to_string());
    // The application's global prefix, wherever it is set, applies to it.
    s.mounted = Some(crate::indexer::links::Mounted::NestControllers);
    cx.push(s);
}

/// NestJS: `app.setGlobalPrefix('api')` in a file that imports `@nestjs/core`: a mount
/// of every controller of the application under the prefix. Each route its `exclude`
/// option names (`'health'`, `{ path: 'users/:id', method: RequestMethod.GET }`) is a
/// mount of its own, which `resolve` keeps from the prefix.
pub(super) fn nest_global_prefix<'s>(cx: &mut Cx<'s>, call: Node<'s>) {
    let args = arguments(call);
    let Some(prefix) = args.first().and_then(|a| cx.scope.string_value(*a)) else {
        return;
    };
    let exclude = args
        .get(1)
        .filter(|o| o.kind() == "object")
        .and_then(|o| object_member(*o, "exclude", cx.scope.src))
        .filter(|l| l.kind() == "array");
    if let Some(list) = exclude {
        let mut cursor = list.walk();
        let items: Vec<Node> = list.named_children(&mut cursor).collect();
        for item in items {
            let Some((method, path)) = nest_excluded(cx, item) else {
                continue;
            };
            let mut s = site(
                Role::Mount,
                Endpoint::Http {
                    method,
                    // Nest reads `(.*)` as path-to-regexp's catch-all.
                    path: PathPattern::route(&path.replace("(.*)", "*")),
                },
                cx.scope.at(item),
            );
            s.mounted = Some(crate::indexer::links::Mounted::NestExcluded);
            cx.push(s);
        }
    }
    let path = PathPattern::route(&prefix);
    let mut s = site(
        Role::Mount,
        Endpoint::Http { method: None, path },
        super::call_at(cx, call),
    );
    s.mounted = Some(crate::indexer::links::Mounted::NestControllers);
    cx.push(s);
}

/// An excluded route: `'health'` (every method) or `{ path, method:
/// RequestMethod.GET }` (`RequestMethod.ALL`: every method).
fn nest_excluded<'s>(cx: &Cx<'s>, item: Node<'s>) -> Option<(Option<Method>, String)> {
    if item.kind() != "object" {
        return Some((None, cx.scope.string_value(item)?));
    }
    let src = cx.scope.src;
    let path = cx.scope.string_value(object_member(item, "path", src)?)?;
    let method = match object_member(item, "method", src) {
        None => None,
        Some(m) => {
            let name = match m.kind() {
                "member_expression" => cx.scope.text(m.child_by_field_name("property")?),
                _ => return None,
            };
            if name == "ALL" {
                None
            } else {
                // A method not read excludes nothing surely: left out.
                Some(Method::from_name(name)?)
            }
        }
    };
    Some((method, path))
}

/// The method the decorator call `call` (`@Get()`'s `Get()`) stands on.
pub(super) fn decorated_by_call(call: Node) -> Option<Node> {
    call.parent()
        .filter(|p| p.kind() == "decorator")
        .and_then(decorated_method)
}

/// The method a decorator stands on: the TypeScript grammar puts a method's decorators
/// before it in the class body, JavaScript's inside it.
pub(super) fn decorated_method(deco: Node) -> Option<Node> {
    let parent = deco.parent()?;
    if parent.kind() == "method_definition" {
        return Some(parent);
    }
    let mut n = deco.next_named_sibling();
    while let Some(s) = n {
        match s.kind() {
            "decorator" | "comment" => n = s.next_named_sibling(),
            "method_definition" => return Some(s),
            _ => return None,
        }
    }
    None
}

/// `@Controller('users')`, `@Controller({ path: 'users' })` on a class: its path.
fn controller_path<'s>(cx: &Cx<'s>, class: Node<'s>) -> Option<String> {
    let mut decorators = Vec::new();
    let mut cursor = class.walk();
    for c in class.children(&mut cursor) {
        if c.kind() == "decorator" {
            decorators.push(c);
        }
    }
    // `export @Controller() class` / decorators before `export`: on the statement.
    if let Some(p) = class.parent().filter(|p| p.kind() == "export_statement") {
        let mut cursor = p.walk();
        for c in p.children(&mut cursor) {
            if c.kind() == "decorator" {
                decorators.push(c);
            }
        }
    }
    for d in decorators {
        let Some(call) = d.named_child(0).filter(|c| c.kind() == "call_expression") else {
            continue;
        };
        let Some(f) = call.child_by_field_name("function") else {
            continue;
        };
        if cx.scope.text(f) != "Controller" {
            continue;
        }
        let arg = arguments(call).first().copied();
        return Some(match arg {
            Some(a) if a.kind() == "object" => object_member(a, "path", cx.scope.src)
                .and_then(|p| cx.scope.string_value(p))
                .unwrap_or_default(),
            Some(a) => cx.scope.string_value(a).unwrap_or_default(),
            None => String::new(),
        });
    }
    None
}
