//! A file's link sites, from the calls the extractor's one walk already visits.
//!
//! The walk hands over the calls (and `new`s, and decorator calls) whose called name is
//! one of the few a site can have ([`is_candidate`], one `match` on the name). Once the
//! walk is done, each candidate is read here, with the file's top level read once
//! (`scope`), and kept only with evidence of what its receiver is.
//!
//! The rule for which receivers count:
//! - **Routes** (`x.get(path, handler)`, `x.use`, `x.route`, `x.register`): `x` comes
//!   from the framework (an import or require of express, koa-router / @koa/router,
//!   fastify or hono, then the calls that make an app or router: `express()`,
//!   `express.Router()`, `new Router()`, `Fastify()`, `new Hono()`). Or, without an
//!   import, `x` is a parameter or a relative import named `app`, `router`, `server`,
//!   `fastify`, `routes` or `instance` and the call has a route's shape: a path literal (or
//!   constant) starting with `/` and at least one handler after it. That catches
//!   `module.exports = (app) => { app.get('/x', h) }` and Fastify plugins
//!   (`async function (fastify) { fastify.get(...) }`), and never `map.get('/x')` (one
//!   argument) or `cache.get(key)` (no path). NestJS: `@Get()` and the others imported
//!   from `@nestjs/common`. Next.js: the file's path and its exports.
//! - **Clients**: the global `fetch` (not declared in the file), Nuxt's `$fetch` and
//!   `useFetch`, or a receiver that comes from axios, ky, got, ofetch, superagent,
//!   request, node-fetch, cross-fetch or undici: the import itself or an instance made
//!   from it in the file (`axios.create()`, `ky.create()`/`extend()`, `got.extend()`,
//!   `ofetch.create()`). An object imported from a module of the project (`api.get(url)`
//!   with `api` from `./api`) is kept waiting: it is a client only if the graph finds
//!   that module exports an instance made from one of those libraries (a site of role
//!   `instance` there), and `resolve` drops it otherwise. Typed clients: a receiver
//!   made by openapi-fetch's `createClient` (`GET`, `POST`...) or hono/client's `hc`
//!   (`$get`...), or `this.x` its class declares typed `HttpClient` of
//!   `@angular/common/http` or gives `inject(HttpClient)`. Nothing else counts.
//! - **Topics**: the receiver comes from kafkajs, bullmq / bull, amqplib, nats, redis /
//!   ioredis (the import, or what is made from it in the file), or the file imports
//!   that library and the receiver cannot be traced (`this.producer`, a parameter) while
//!   the call has the library's distinctive shape (`send({ topic, messages })`,
//!   `sendToQueue(q, ...)`). A receiver traced to something else never counts. SQS and
//!   SNS: `new SendMessageCommand(...)` and the others imported from the AWS SDK.
//!   amqplib's `bindQueue(queue, exchange, pattern)` on such a receiver binds a queue
//!   (named, or held by the same expression a `consume` in the file reads) to an
//!   exchange, of the type an `assertExchange` in the file declares. Redis:
//!   `on('message', fn)` on a receiver that subscribes in the file is its handler.
//! - **NestJS messages and queues**: decorators imported from `@nestjs/microservices`
//!   (`@EventPattern`, `@MessagePattern`) or `@nestjs/bull(mq)` (`@Processor`,
//!   `@Process`). A producer's receiver is what its class declares it to be: `this.x`
//!   typed with a `Client*` class of `@nestjs/microservices` or given
//!   `ClientProxyFactory.create(...)` (`emit`, `send`); `this.q` injected with
//!   `@InjectQueue(name)` (`add`). An `emit` or `add` on anything else is no site.
//! - **tRPC**: `router({ ... })` / `createTRPCRouter({ ... })` / `t.router({ ... })`
//!   whose object holds procedures (`.query(`, `.mutation(`) or routers; clients
//!   `x.a.b.query()` and the others where `x` is made by a `createTRPC*` call in the
//!   file, or imported and named `trpc` or `api`.

mod amqp;
mod class_members;
mod clients;
mod nest_messages;
mod nest_queues;
mod nextjs;
mod redis;
mod routes;
pub(crate) mod scope;
mod topics;
mod trpc;
mod typed_clients;

use thin_vec::ThinVec;
use tree_sitter::Node;

use super::{At, Handler, LinkSite, Mounted};
use scope::{FileScope, Libraries, Origin};

/// Whether a call of `name` (its callee's last name) may be a site: the walk keeps such
/// calls for [`sites`]. One `match`: the walk asks it of every call.
#[inline]
pub(crate) fn is_candidate(name: &str) -> bool {
    matches!(
        name,
        // HTTP verbs: routes and clients
        "get" | "post" | "put" | "patch" | "delete" | "del" | "head" | "options" | "all"
        // mounts
        | "use" | "route" | "register"
        // clients called directly
        | "fetch" | "$fetch" | "ofetch" | "useFetch" | "useLazyFetch" | "axios" | "ky"
        | "got" | "request"
        // client instances
        | "create" | "extend"
        // typed clients: openapi-fetch, Hono's RPC client
        | "createClient" | "hc"
        | "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS"
        | "$get" | "$post" | "$put" | "$patch" | "$delete"
        // tRPC
        | "router" | "createTRPCRouter" | "query" | "mutation" | "subscription" | "mutate"
        | "useQuery" | "useMutation"
        | "useSuspenseQuery" | "useInfiniteQuery"
        // topics
        | "send" | "subscribe" | "run" | "add" | "addBulk" | "sendToQueue" | "publish"
        | "consume" | "bindQueue" | "assertExchange" | "on" | "Worker" | "SendMessageCommand"
        | "SendMessageBatchCommand" | "PublishCommand" | "ReceiveMessageCommand"
        // NestJS's decorators, and its application's prefix
        | "Get" | "Post" | "Put" | "Patch" | "Delete" | "Head" | "Options" | "All"
        | "setGlobalPrefix"
        // NestJS microservices and queues
        | "emit" | "EventPattern" | "MessagePattern" | "Processor" | "Process"
    )
}

/// The link sites of a file: its candidate calls read with `root` (the program) and
/// `src`, and the Next.js routes its path and exports make. Sorted by position.
pub(crate) fn sites<'s>(
    path: &str,
    src: &'s str,
    root: Node<'s>,
    candidates: &[Node<'s>],
    imports: impl Iterator<Item = &'s str>,
) -> ThinVec<LinkSite> {
    let next = nextjs::route_file(path);
    if candidates.is_empty() && next.is_none() {
        return ThinVec::new();
    }
    // What the file imports (anywhere: the extractor's imports), and the candidates
    // that can be sites with such imports: most files stop here, their top level
    // unread.
    let mut libs = Libraries::default();
    for m in imports {
        libs.note(m);
    }
    let kept: Vec<Node<'s>> = candidates
        .iter()
        .copied()
        .filter(|&n| may_be_site(n, src, libs))
        .collect();
    if kept.is_empty() && next.is_none() {
        return ThinVec::new();
    }
    let scope = FileScope::read(root, src);
    let mut cx = Cx {
        scope,
        libs,
        sites: Vec::new(),
        kafka: topics::KafkaConsumers::default(),
        amqp: amqp::Bindings::default(),
        redis: redis::Subscribers::default(),
    };
    for node in kept {
        cx.candidate(node);
    }
    if let Some(kind) = next {
        nextjs::routes(&mut cx, root, kind);
    }
    let Cx {
        mut sites,
        kafka,
        amqp,
        redis,
        ..
    } = cx;
    kafka.into_sites(&mut sites);
    amqp.into_sites(&mut sites);
    redis.into_sites(&mut sites);
    sites.sort_by_key(|s| (s.at.start_byte, s.role));
    sites.dedup();
    sites.into_iter().collect()
}

/// Whether a candidate call can be a site in a file that imports `libs`, from its
/// syntax alone: the called name, the receiver's name, the first argument's kind.
fn may_be_site(node: Node, src: &str, libs: Libraries) -> bool {
    let text = |n: Node| &src[n.byte_range()];
    if node.kind() == "new_expression" {
        return libs.topics || libs.aws;
    }
    let Some(f) = node.child_by_field_name("function") else {
        return false;
    };
    let (name, object) = match f.kind() {
        "identifier" => (text(f), None),
        "member_expression" => match f.child_by_field_name("property") {
            Some(p) => (text(p), f.child_by_field_name("object")),
            None => return false,
        },
        _ => return false,
    };
    let Some(object) = object else {
        return match name {
            "Get" | "Post" | "Put" | "Patch" | "Delete" | "Head" | "Options" | "All" => libs.nest,
            "EventPattern" | "MessagePattern" => libs.nest_messages,
            "Processor" | "Process" => libs.nest_queues,
            "createClient" | "hc" => libs.typed,
            // `fetch`, `axios(...)`, `router({ ... })`: rare names, read.
            _ => true,
        };
    };
    let root = root_identifier(object).map(text);
    match name {
        "query" | "mutation" | "subscription" | "mutate" | "useQuery" | "useMutation"
        | "useSuspenseQuery" | "useInfiniteQuery" => {
            libs.trpc || matches!(root, Some("trpc" | "api"))
        }
        "router" => true,
        "setGlobalPrefix" => libs.nest_core,
        "emit" => libs.nest_messages,
        "send" => libs.topics || libs.nest_messages,
        "add" | "addBulk" => libs.topics || libs.nest_queues,
        "subscribe" | "run" | "sendToQueue" | "publish" | "consume" | "bindQueue"
        | "assertExchange" | "on" => libs.topics,
        "create" | "extend" => libs.http,
        // Hono's RPC client, on an `hc` instance another file may export: rare names.
        "$get" | "$post" | "$put" | "$patch" | "$delete" => true,
        // A verb or a mount: with a library, on a receiver named like an app, or with a
        // string first (a call on an imported client instance).
        _ => {
            libs.http
                || libs.typed
                || root.is_some_and(routes::may_be_router_name)
                || arguments(node).first().is_some_and(|a| {
                    matches!(a.kind(), "string" | "template_string" | "binary_expression")
                })
        }
    }
}

/// What reading a file's candidates needs and makes.
struct Cx<'s> {
    scope: FileScope<'s>,
    libs: Libraries,
    sites: Vec<LinkSite>,
    kafka: topics::KafkaConsumers<'s>,
    amqp: amqp::Bindings<'s>,
    redis: redis::Subscribers<'s>,
}

impl<'s> Cx<'s> {
    fn candidate(&mut self, node: Node<'s>) {
        match node.kind() {
            "new_expression" => topics::new_expression(self, node),
            "call_expression" => {
                let Some(f) = node.child_by_field_name("function") else {
                    return;
                };
                match f.kind() {
                    "identifier" => self.plain_call(node, f),
                    "member_expression" => self.member_call(node, f),
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn plain_call(&mut self, call: Node<'s>, f: Node<'s>) {
        let name = self.scope.text(f);
        match name {
            "Get" | "Post" | "Put" | "Patch" | "Delete" | "Head" | "Options" | "All" => {
                routes::nest(self, call, name)
            }
            "router" | "createTRPCRouter" => trpc::router(self, call),
            "EventPattern" | "MessagePattern" => nest_messages::handler_decorator(self, call),
            "Processor" => nest_queues::processor(self, call),
            "createClient" => typed_clients::create_client(self, call, f),
            "hc" => typed_clients::hc_instance(self, call, f),
            "Process" => nest_queues::process(self, call),
            _ => clients::plain_call(self, call, f, name),
        }
    }

    fn member_call(&mut self, call: Node<'s>, f: Node<'s>) {
        let (Some(object), Some(property)) = (
            f.child_by_field_name("object"),
            f.child_by_field_name("property"),
        ) else {
            return;
        };
        let name = self.scope.text(property);
        // Where the receiver comes from is looked up only in a file that imports a
        // library of the kind, or for a receiver named as the rule allows: `map.get`
        // in a file without one costs a comparison.
        let root = root_identifier(object).map(|r| self.scope.text(r));
        let libs = self.libs;
        match name {
            "query" | "mutation" | "subscription" | "mutate" | "useQuery" | "useMutation"
            | "useSuspenseQuery" | "useInfiniteQuery" => {
                if (libs.trpc || matches!(root, Some("trpc" | "api")))
                    && !trpc::procedure(self, call, name)
                {
                    trpc::client(self, call, object, name)
                }
            }
            "router" => trpc::router(self, call),
            "setGlobalPrefix" => {
                if libs.nest_core {
                    routes::nest_global_prefix(self, call)
                }
            }
            "emit" => {
                if libs.nest_messages {
                    nest_messages::client_call(self, call, object);
                }
            }
            "send" | "subscribe" | "run" | "add" | "addBulk" | "sendToQueue" | "publish"
            | "consume" | "bindQueue" | "assertExchange" | "on" => {
                // A Nest client's `send`, a Nest queue's `add`: by what the class
                // declares; else the message systems' own.
                let nest = match name {
                    "send" => libs.nest_messages && nest_messages::client_call(self, call, object),
                    "add" | "addBulk" => libs.nest_queues && nest_queues::add(self, call, object),
                    _ => false,
                };
                if !nest && libs.topics {
                    topics::member_call(self, call, object, name)
                }
            }
            "create" | "extend" => {
                if libs.http {
                    clients::instance(self, call, object)
                }
            }
            _ => {
                let imported_locally = root
                    .and_then(|r| self.scope.import_of(r))
                    .is_some_and(|(m, _)| !scope::is_package(m));
                if !libs.http
                    && !libs.typed
                    && !root.is_some_and(routes::may_be_router_name)
                    && !imported_locally
                {
                    return;
                }
                if (libs.typed || imported_locally)
                    && typed_clients::member_call(self, call, object, name)
                {
                    return;
                }
                // An HTTP verb or a mount: a route or a client, by what the receiver is.
                if !clients::member_call(self, call, object, name) {
                    routes::member_call(self, call, object, name);
                }
            }
        }
    }

    fn push(&mut self, site: LinkSite) {
        self.sites.push(site);
    }
}

/// A call's arguments (comments left out).
fn arguments<'s>(call: Node<'s>) -> Vec<Node<'s>> {
    let Some(args) = call.child_by_field_name("arguments") else {
        return Vec::new();
    };
    let mut cursor = args.walk();
    let out = args
        .named_children(&mut cursor)
        .filter(|a| a.kind() != "comment")
        .collect();
    out
}

/// The function that handles a route or messages, as the argument `node` passes it.
fn handler_of(cx: &Cx, node: Node) -> Option<Handler> {
    handler_depth(cx, node, 0)
}

fn handler_depth(cx: &Cx, node: Node, depth: usize) -> Option<Handler> {
    if depth > 4 {
        return None;
    }
    match node.kind() {
        "identifier" => Some(Handler::Named {
            name: cx.scope.text(node).to_string(),
            at: cx.scope.at(node),
        }),
        "member_expression" => {
            let property = node.child_by_field_name("property")?;
            Some(Handler::Named {
                name: cx.scope.text(node).to_string(),
                at: cx.scope.at(property),
            })
        }
        "arrow_function" | "function_expression" | "function" | "generator_function" => {
            Some(Handler::Inline {
                at: cx.scope.at(node),
            })
        }
        "method_definition" => {
            let name = node.child_by_field_name("name")?;
            Some(Handler::Named {
                name: cx.scope.text(name).to_string(),
                at: cx.scope.at(name),
            })
        }
        "call_expression" => {
            // `ctrl.get.bind(ctrl)`: the function bound.
            let f = node.child_by_field_name("function")?;
            if f.kind() == "member_expression"
                && f.child_by_field_name("property")
                    .is_some_and(|p| cx.scope.text(p) == "bind")
            {
                return handler_depth(cx, f.child_by_field_name("object")?, depth + 1);
            }
            // `asyncHandler(async (req, res) => ...)`: the wrapped function.
            let first = *arguments(node).first()?;
            handler_depth(cx, first, depth + 1)
        }
        "parenthesized_expression" | "as_expression" => {
            handler_depth(cx, node.named_child(0)?, depth + 1)
        }
        _ => None,
    }
}

/// What a mount's argument mounts: a router of this file or an imported one.
fn mounted_of<'s>(cx: &Cx<'s>, node: Node<'s>) -> Option<Mounted> {
    match node.kind() {
        "identifier" => {
            let name = cx.scope.text(node);
            if let Some((module, imported)) = cx.scope.import_of(name) {
                if !module.starts_with('.')
                    && !module.starts_with('/')
                    && !module.starts_with('~')
                    && !module.starts_with('@')
                {
                    return None;
                }
                return Some(mounted_import(module, imported));
            }
            cx.scope
                .top_level(name)
                .map(|_| Mounted::Local(name.to_string()))
        }
        // `require('./users')`, `import('./users')`.
        "call_expression" => {
            if let Some(m) = scope::require_of(node, cx.scope.src) {
                return Some(Mounted::Import {
                    specifier: m.to_string(),
                    export: "default".into(),
                });
            }
            let f = node.child_by_field_name("function")?;
            if f.kind() == "import" {
                let arg = *arguments(node).first()?;
                let spec = cx.scope.string_value(arg)?;
                return Some(Mounted::Import {
                    specifier: spec,
                    export: "default".into(),
                });
            }
            // `sub.routes()`, `sub.middleware()` (koa-router): the router.
            if f.kind() == "member_expression" {
                let property = cx.scope.text(f.child_by_field_name("property")?);
                if matches!(property, "routes" | "middleware" | "allowedMethods") {
                    return mounted_of(cx, f.child_by_field_name("object")?);
                }
            }
            None
        }
        // `require('./users').default`, `(await import('./x')).default`.
        "member_expression" => {
            let object = node.child_by_field_name("object")?;
            let property = cx.scope.text(node.child_by_field_name("property")?);
            match mounted_of(cx, object)? {
                Mounted::Import { specifier, .. } => Some(Mounted::Import {
                    specifier,
                    export: property.to_string(),
                }),
                _ => None,
            }
        }
        "await_expression" | "parenthesized_expression" => mounted_of(cx, node.named_child(0)?),
        _ => None,
    }
}

/// The top-level name a receiver belongs to, with the names it is exported as: the
/// variable it is bound to, or, for a parameter, the top-level function that takes it
/// (`default` for an anonymous default export).
fn owner_of<'s>(cx: &Cx<'s>, receiver: Node<'s>) -> (Option<String>, Vec<String>) {
    let root = root_identifier(receiver);
    let Some(root) = root else {
        return (None, Vec::new());
    };
    let name = cx.scope.text(root);
    match cx.scope.origin(root) {
        Origin::Param(..) => {
            let owner = enclosing_top_function(cx, receiver);
            match owner {
                Some(o) => {
                    let exported = if o == "default" {
                        vec!["default".to_string()]
                    } else {
                        cx.scope.exported_as(&o)
                    };
                    (Some(o), exported)
                }
                None => (None, Vec::new()),
            }
        }
        _ if cx.scope.top_level(name).is_some() => {
            (Some(name.to_string()), cx.scope.exported_as(name))
        }
        // `const api = Router().use(a).use(b)`, `export default Router().use('/x', r)`:
        // the name (or default export) the whole chain is.
        Origin::Lib { .. } => match chain_owner(cx, receiver) {
            Some(o) if o == "default" => (Some(o), vec!["default".to_string()]),
            Some(o) => {
                let exported = cx.scope.exported_as(&o);
                (Some(o), exported)
            }
            None => (None, Vec::new()),
        },
        _ => (None, Vec::new()),
    }
}

/// The top-level name a call chain is bound to, or `default` when the chain is the
/// default export.
fn chain_owner(cx: &Cx, node: Node) -> Option<String> {
    let mut top = node;
    for _ in 0..64 {
        let parent = top.parent()?;
        let continues = match parent.kind() {
            "member_expression" => parent.child_by_field_name("object") == Some(top),
            "call_expression" => parent.child_by_field_name("function") == Some(top),
            _ => false,
        };
        if !continues {
            break;
        }
        top = parent;
    }
    let parent = top.parent()?;
    match parent.kind() {
        "variable_declarator" => {
            let name = cx.scope.text(parent.child_by_field_name("name")?);
            cx.scope.top_level(name).map(|_| name.to_string())
        }
        "export_statement" => Some("default".into()),
        _ => None,
    }
}

/// The identifier a member chain or call chain starts from (`app` in
/// `app.route('/x').get`, `Hono` in `new Hono().get`).
fn root_identifier(mut node: Node) -> Option<Node> {
    for _ in 0..32 {
        match node.kind() {
            "identifier" => return Some(node),
            "member_expression" | "subscript_expression" => {
                node = node.child_by_field_name("object")?
            }
            "call_expression" => node = node.child_by_field_name("function")?,
            // `new Hono().get(...)`: the chain starts at the constructor.
            "new_expression" => node = node.child_by_field_name("constructor")?,
            "parenthesized_expression" | "await_expression" | "non_null_expression" => {
                node = node.named_child(0)?
            }
            _ => return None,
        }
    }
    None
}

/// The name of the outermost function around `node` that is declared at the top level.
fn enclosing_top_function(cx: &Cx, node: Node) -> Option<String> {
    let mut outermost = None;
    let mut n = node;
    for _ in 0..128 {
        let Some(p) = n.parent() else {
            break;
        };
        if matches!(
            p.kind(),
            "function_declaration" | "function_expression" | "arrow_function" | "function"
        ) {
            outermost = Some(p);
        }
        n = p;
    }
    let f = outermost?;
    if Some(f.start_byte()) == cx.scope.default_function {
        return Some("default".into());
    }
    if let Some(name) = f.child_by_field_name("name") {
        return Some(cx.scope.text(name).to_string());
    }
    let parent = f.parent()?;
    if parent.kind() == "variable_declarator" {
        return Some(
            cx.scope
                .text(parent.child_by_field_name("name")?)
                .to_string(),
        );
    }
    None
}

/// Where a call is, as a site: from its called name when it is a member
/// (`.get(` of `app.get(...)`; in a chain `new Hono().get(...).post(...)` every call
/// starts where the chain does), to its end.
fn call_at(cx: &Cx, call: Node) -> At {
    let mut at = cx.scope.at(call);
    let property = call
        .child_by_field_name("function")
        .filter(|f| f.kind() == "member_expression")
        .and_then(|f| f.child_by_field_name("property"));
    if let Some(p) = property {
        let start = cx.scope.at(p);
        at.line = start.line;
        at.column = start.column;
        at.start_byte = start.start_byte;
    }
    at
}

/// A site at `node` with nothing else set.
fn site(role: super::Role, endpoint: super::Endpoint, at: At) -> LinkSite {
    LinkSite {
        role,
        endpoint,
        at,
        handler: None,
        owner: None,
        exported_as: Vec::new(),
        mounted: None,
    }
}

/// What a site made on a name imported from `module` waits on: that module's export
/// (`default` for a default, `export =` or namespace import).
pub(super) fn mounted_import(module: &str, imported: &str) -> Mounted {
    let export = match imported {
        "default" | "=" | "*" => "default",
        other => other,
    };
    Mounted::Import {
        specifier: module.to_string(),
        export: export.to_string(),
    }
}
