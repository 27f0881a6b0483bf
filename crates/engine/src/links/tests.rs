//! Link sites on the fixtures of `fixtures/links/`: one directory per framework or
//! client form, each file a small service as it is written, decoys beside them.

use std::path::{Path, PathBuf};

use super::*;
use crate::graph::{Confidence, Graph};
use crate::indexer::facts::FileFacts;

fn fixture_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/links")
        .join(name)
}

/// Every source file of a fixture, by its path inside the fixture.
fn load(name: &str) -> Vec<FileFacts> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let root = fixture_dir(name);
    let mut files = Vec::new();
    walk(&root, &mut files);
    files
        .iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(&root).ok()?.to_str()?.replace('\\', "/");
            let src = std::fs::read_to_string(p).ok()?;
            crate::indexer::extract_source(&rel, &src)?.ok()
        })
        .collect()
}

/// A site on one line: `line role endpoint handler`, the line counted from 1.
fn show(s: &LinkSite) -> String {
    let mut out = format!("{} {} {}", s.at.line + 1, s.role.as_str(), s.endpoint);
    match &s.handler {
        Some(Handler::Named { name, at }) => out.push_str(&format!(" -> {name}@{}", at.line + 1)),
        Some(Handler::Inline { at }) => out.push_str(&format!(" -> inline@{}", at.line + 1)),
        None => {}
    }
    if let Some(m) = &s.mounted {
        match m {
            Mounted::Local(n) => out.push_str(&format!(" mounts {n}")),
            Mounted::Import { specifier, export } => {
                out.push_str(&format!(" mounts {export} of {specifier}"))
            }
            // Said of every NestJS route: shown on the prefix's mount only.
            Mounted::NestControllers if s.role == Role::Mount => {
                out.push_str(" mounts the controllers")
            }
            Mounted::NestControllers => {}
            Mounted::Queue(q) => out.push_str(&format!(" binds queue {q}")),
            Mounted::NestExcluded => out.push_str(" excluded from the prefix"),
        }
    }
    out
}

/// The sites of `file` in fixture `name`, shown.
fn sites(name: &str, file: &str) -> Vec<String> {
    let files = load(name);
    let facts = files
        .iter()
        .find(|f| f.path == file)
        .unwrap_or_else(|| panic!("no {file} in {name}"));
    facts.links.iter().map(show).collect()
}

/// A fixture's graph and its resolved sites, shown with their file.
fn resolved(name: &str) -> (Graph, RepoLinks) {
    let g = Graph::build(load(name), Vec::new());
    let links = resolve(&g);
    (g, links)
}

fn show_resolved(g: &Graph, s: &ResolvedSite) -> String {
    let handler = s
        .handler
        .map(|d| format!(" => {}", g.facts(d.file).def_qualified(d.def)))
        .unwrap_or_default();
    format!("{}:{}{handler}", s.path, show(&s.site))
}

/// The resolved sites of a fixture, one line each.
fn resolved_lines(name: &str) -> Vec<String> {
    let (g, links) = resolved(name);
    links.sites.iter().map(|s| show_resolved(&g, s)).collect()
}

/// Which of fixture `clients`' calling sites reach which of fixture `routes`' serving
/// sites: `client -> route (confidence)`, sorted.
fn matches(clients: &str, routes: &str) -> Vec<String> {
    let (_, from) = resolved(clients);
    let (_, to) = resolved(routes);
    let mut out: Vec<String> = to
        .matches_from(&from)
        .iter()
        .map(|m| {
            let c = &from.sites[m.client];
            let r = &to.sites[m.route];
            format!(
                "{}:{} {} -> {}:{} {} ({})",
                c.path,
                c.site.at.line + 1,
                c.site.endpoint,
                r.path,
                r.site.at.line + 1,
                r.site.endpoint,
                m.confidence.as_str()
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn express_routes_mounts_chains_and_an_app_passed_in() {
    assert_eq!(
        resolved_lines("express"),
        [
            "src/app.js:11 route GET /health -> health@11 => health",
            "src/app.js:12 route * /ping -> inline@12",
            "src/app.js:15 route GET /books/:isbn -> getBook@15 => getBook",
            "src/app.js:16 route PUT /books/:isbn -> updateBook@16 => updateBook",
            // No import of express: `app` is a parameter, and the call has a route's shape;
            // where it is mounted, nothing here says.
            "src/legacy.js:3 route GET */legacy/items/:itemId -> inline@3",
            // The router's routes under the prefix `app.js` mounts it at, from a constant.
            "src/routes/users.js:10 route GET /api/users/:id -> getUser@10 => getUser",
            "src/routes/users.js:11 route POST /api/users -> inline@11",
            "src/routes/users.js:14 route DELETE /api/users/:id -> inline@14",
        ]
    );
    // In its own file, the router's base is unknown; the mount is a site of `app.js`.
    assert_eq!(
        sites("express", "src/routes/users.js"),
        [
            "10 route GET */:id -> getUser@10",
            "11 route POST */ -> inline@11",
            "14 route DELETE */:id -> inline@14",
        ]
    );
    assert!(sites("express", "src/app.js")
        .contains(&"9 mount * /api/users mounts default of ./routes/users".to_string()));
}

#[test]
fn chained_registrations_and_a_router_made_in_an_export_compose() {
    // `Router().use(tags)` bound to `api`, `export default Router().use('/api', api)`,
    // mounted by the app at its root.
    assert_eq!(
        resolved_lines("express-chained"),
        ["src/routes/tags.ts:5 route GET /api/tags -> inline@5"]
    );
}

#[test]
fn koa_router_routes_take_its_prefix() {
    assert_eq!(
        resolved_lines("koa"),
        [
            "server.ts:7 route GET /orders/:orderId -> inline@7",
            "server.ts:10 route DELETE /orders/:orderId -> cancelOrder@10 => cancelOrder",
        ]
    );
}

#[test]
fn fastify_routes_route_options_and_a_registered_plugin_prefix() {
    assert_eq!(
        resolved_lines("fastify"),
        [
            "src/plugins/products.ts:4 route GET /v1/products/:sku -> inline@4",
            "src/plugins/products.ts:7 route POST /v1/products -> createProduct@7 => createProduct",
            "src/server.ts:6 route GET /status -> inline@6",
            "src/server.ts:7 route GET /metrics -> metrics@10 => metrics",
            "src/server.ts:7 route HEAD /metrics -> metrics@10 => metrics",
        ]
    );
}

#[test]
fn hono_routes_and_a_sub_app_mounted_with_route() {
    assert_eq!(
        resolved_lines("hono"),
        [
            "index.ts:6 route GET /books/:id -> inline@6",
            "index.ts:7 route POST /books -> createBook@7 => createBook",
            "index.ts:14 route GET / -> inline@14",
        ]
    );
}

#[test]
fn nest_controller_methods_are_routes_handled_by_the_method() {
    assert_eq!(
        resolved_lines("nest"),
        [
            "src/users/users.controller.ts:8 route GET /users -> findAll@9 => UsersController.findAll",
            "src/users/users.controller.ts:13 route GET /users/:id -> findOne@14 => UsersController.findOne",
            "src/users/users.controller.ts:18 route POST /users -> create@19 => UsersController.create",
            "src/users/users.controller.ts:23 route DELETE /users/:id -> remove@24 => UsersController.remove",
        ]
    );
}

/// `app.setGlobalPrefix('api')` in the application's bootstrap (another file) puts
/// every controller under `/api`.
#[test]
fn a_nest_global_prefix_prefixes_every_controller() {
    assert_eq!(
        resolved_lines("nest-global"),
        [
            "src/users/users.controller.ts:8 route GET /api/users -> findAll@9 => UsersController.findAll",
            "src/users/users.controller.ts:13 route GET /api/users/:id -> findOne@14 => UsersController.findOne",
            "src/users/users.controller.ts:18 route POST /api/users -> create@19 => UsersController.create",
            "src/users/users.controller.ts:23 route DELETE /api/users/:id -> remove@24 => UsersController.remove",
        ]
    );
}

/// `setGlobalPrefix('api', { exclude })`: the routes excluded (a path of every method,
/// or a path and a method) keep no prefix; a longer path or another method keeps it.
#[test]
fn a_nest_global_prefix_leaves_out_the_excluded_routes() {
    assert_eq!(
        resolved_lines("nest-global-exclude"),
        [
            "src/health.controller.ts:5 route GET /health -> check@6 => HealthController.check",
            "src/health.controller.ts:10 route GET /api/health/deep -> deep@11 => HealthController.deep",
            "src/users/users.controller.ts:8 route GET /api/users -> findAll@9 => UsersController.findAll",
            "src/users/users.controller.ts:13 route GET /users/:id -> findOne@14 => UsersController.findOne",
            "src/users/users.controller.ts:18 route POST /api/users -> create@19 => UsersController.create",
            "src/users/users.controller.ts:23 route DELETE /api/users/:id -> remove@24 => UsersController.remove",
        ]
    );
    assert_eq!(
        sites("nest-global-exclude", "src/main.ts"),
        [
            "9 mount * /api mounts the controllers",
            "10 mount * /health excluded from the prefix",
            "10 mount GET /users/:id excluded from the prefix",
        ]
    );
}

#[test]
fn next_routes_from_paths_and_exports() {
    assert_eq!(
        resolved_lines("nextjs"),
        [
            // A route group names no segment; `export { handler as GET }`.
            "app/(admin)/api/reports/route.ts:5 route GET /api/reports -> handler@5 => handler",
            "app/(admin)/api/reports/route.ts:5 route POST /api/reports -> handler@5 => handler",
            // `export const dynamic` is no method.
            "app/api/users/[id]/route.ts:3 route GET /api/users/:id -> GET@3 => GET",
            "app/api/users/[id]/route.ts:7 route DELETE /api/users/:id -> DELETE@7 => DELETE",
            "app/docs/[...slug]/route.ts:1 route GET /docs/** -> GET@1 => GET",
            // The pages API: every method.
            "pages/api/posts/index.ts:3 route * /api/posts -> posts@3 => posts",
        ]
    );
}

#[test]
fn trpc_procedures_nested_and_mounted_routers_and_clients() {
    assert_eq!(
        resolved_lines("trpc"),
        [
            // Imported from a workspace package whose name says tRPC, under another name.
            "src/app/Aliased.tsx:5 client trpc query post.byId",
            "src/app/Post.tsx:4 client trpc query post.byId",
            "src/app/Post.tsx:5 client trpc mutation post.create",
            "src/app/client.ts:9 client trpc query post.byId",
            "src/app/client.ts:10 client trpc mutation post.create",
            "src/app/client.ts:11 client trpc query health.ping",
            "src/app/client.ts:12 client trpc query user.get",
            "src/app/client.ts:13 client trpc query user.member.find",
            "src/server/root.ts:9 route trpc query health.ping -> inline@9",
            "src/server/routers/post.ts:5 route trpc query post.byId -> inline@5",
            "src/server/routers/post.ts:6 route trpc mutation post.create -> createPost@6 => createPost",
            // Procedures made on their own, nested by name (in a plain object, too) in a
            // router that the root router nests.
            "src/server/routers/user/find-members.ts:3 route trpc query user.member.find -> findMembers@3 => findMembers",
            "src/server/routers/user/get-user.ts:6 route trpc query user.get -> inline@6",
        ]
    );
    assert_eq!(
        matches("trpc", "trpc"),
        [
            "src/app/Aliased.tsx:5 trpc query post.byId -> src/server/routers/post.ts:5 trpc query post.byId (exact)",
            "src/app/Post.tsx:4 trpc query post.byId -> src/server/routers/post.ts:5 trpc query post.byId (exact)",
            "src/app/Post.tsx:5 trpc mutation post.create -> src/server/routers/post.ts:6 trpc mutation post.create (exact)",
            "src/app/client.ts:10 trpc mutation post.create -> src/server/routers/post.ts:6 trpc mutation post.create (exact)",
            "src/app/client.ts:11 trpc query health.ping -> src/server/root.ts:9 trpc query health.ping (exact)",
            "src/app/client.ts:12 trpc query user.get -> src/server/routers/user/get-user.ts:6 trpc query user.get (exact)",
            "src/app/client.ts:13 trpc query user.member.find -> src/server/routers/user/find-members.ts:3 trpc query user.member.find (exact)",
            "src/app/client.ts:9 trpc query post.byId -> src/server/routers/post.ts:5 trpc query post.byId (exact)",
        ]
    );
}

#[test]
fn clients_of_every_library_with_their_methods_and_paths() {
    assert_eq!(
        sites("clients", "src/api.ts"),
        [
            // The exported instance, for the files that import it.
            "10 instance * //users.internal/api",
            // fetch: a template of a constant; the init's method; a method not written out.
            "15 client GET /api/users/:id",
            "16 client POST /api/users",
            "17 client * /api/users/:id",
            // axios: a verb, the config form, `request`.
            "18 client GET /api/users/:id/posts",
            "19 client POST /api/users",
            "20 client DELETE /api/users/:id",
            "21 client PUT /api/users",
            // Instances: a literal base URL with a host; a base from the environment.
            "22 client GET //users.internal/api/users/:id",
            "23 client PATCH */users/:id",
            // ky's instance with a `prefixUrl`, ky called, got with a host.
            "24 client GET /api/users/:id",
            "25 client PUT /api/orders/:id",
            "26 client POST //orders.internal/api/orders",
            // ofetch, superagent, a concatenation on an unknown base.
            "27 client POST /api/orders",
            "28 client GET /api/orders/:id",
            "29 client GET */api/orders/:id",
            // axios and got called with a URL and options.
            "30 client PATCH /api/users/:id",
            "31 client DELETE /api/orders/:id",
        ]
    );
    // Nuxt's globals in a component's script.
    assert_eq!(
        sites("clients", "src/nuxt.vue"),
        [
            "3 client GET /api/books/:id",
            "5 client DELETE /api/books/:id"
        ]
    );
}

#[test]
fn a_client_instance_imported_from_another_file_gives_its_base() {
    let (g, links) = resolved("clients");
    let users: Vec<String> = links
        .sites
        .iter()
        .filter(|s| s.path == "src/users.ts")
        .map(|s| show_resolved(&g, s))
        .collect();
    // `cache.get('/users/1')`: the default export is a plain object, no instance.
    assert_eq!(
        users,
        [
            "src/users.ts:6 client GET /api/users/:id mounts http of ./lib/http",
            "src/users.ts:7 client DELETE /api/users/:id mounts http of ./lib/http",
        ]
    );
    // In its own file, the call waits for the graph; the instance is a site of its file.
    assert_eq!(
        sites("clients", "src/users.ts"),
        [
            "6 client GET /users/:id mounts http of ./lib/http",
            "7 client DELETE /users/:id mounts http of ./lib/http",
            "9 client GET /users/1 mounts default of ./lib/http",
        ]
    );
    assert_eq!(sites("clients", "src/lib/http.ts"), ["3 instance * /api"]);
}

#[test]
fn clients_match_routes_by_method_and_segments_with_their_confidence() {
    assert_eq!(
        matches("clients", "express"),
        [
            "src/api.ts:15 GET /api/users/:id -> src/routes/users.js:10 GET /api/users/:id (exact)",
            "src/api.ts:16 POST /api/users -> src/routes/users.js:11 POST /api/users (exact)",
            "src/api.ts:17 * /api/users/:id -> src/routes/users.js:10 GET /api/users/:id (possible)",
            "src/api.ts:17 * /api/users/:id -> src/routes/users.js:14 DELETE /api/users/:id (possible)",
            "src/api.ts:19 POST /api/users -> src/routes/users.js:11 POST /api/users (exact)",
            "src/api.ts:20 DELETE /api/users/:id -> src/routes/users.js:14 DELETE /api/users/:id (exact)",
            "src/api.ts:22 GET //users.internal/api/users/:id -> src/routes/users.js:10 GET /api/users/:id (likely)",
            "src/api.ts:24 GET /api/users/:id -> src/routes/users.js:10 GET /api/users/:id (exact)",
            // On the instance `users.ts` imports.
            "src/users.ts:6 GET /api/users/:id -> src/routes/users.js:10 GET /api/users/:id (exact)",
            "src/users.ts:7 DELETE /api/users/:id -> src/routes/users.js:14 DELETE /api/users/:id (exact)",
        ]
    );
    // Next.js: the same clients, the same rules.
    assert_eq!(
        matches("clients", "nextjs"),
        [
            "src/api.ts:15 GET /api/users/:id -> app/api/users/[id]/route.ts:3 GET /api/users/:id (exact)",
            "src/api.ts:17 * /api/users/:id -> app/api/users/[id]/route.ts:3 GET /api/users/:id (possible)",
            "src/api.ts:17 * /api/users/:id -> app/api/users/[id]/route.ts:7 DELETE /api/users/:id (possible)",
            "src/api.ts:20 DELETE /api/users/:id -> app/api/users/[id]/route.ts:7 DELETE /api/users/:id (exact)",
            "src/api.ts:22 GET //users.internal/api/users/:id -> app/api/users/[id]/route.ts:3 GET /api/users/:id (likely)",
            "src/api.ts:24 GET /api/users/:id -> app/api/users/[id]/route.ts:3 GET /api/users/:id (exact)",
            "src/users.ts:6 GET /api/users/:id -> app/api/users/[id]/route.ts:3 GET /api/users/:id (exact)",
            "src/users.ts:7 DELETE /api/users/:id -> app/api/users/[id]/route.ts:7 DELETE /api/users/:id (exact)",
        ]
    );
    // `/api/orders/...` and `/api/books/...` reach none of Koa's `/orders/:orderId` or
    // Hono's `/books/:id`: the counts differ.
    assert!(matches("clients", "koa").is_empty());
    assert!(matches("clients", "hono").is_empty());
}

#[test]
fn topics_of_every_system_and_their_handlers() {
    assert_eq!(
        resolved_lines("kafka"),
        [
            "orders.ts:10 producer kafka:orders.created",
            "orders.ts:14 consumer kafka:orders.cancelled -> handleOrderMessage@15 => handleOrderMessage",
            "orders.ts:14 consumer kafka:orders.created -> handleOrderMessage@15 => handleOrderMessage",
        ]
    );
    assert_eq!(
        resolved_lines("bullmq"),
        [
            "emails.ts:6 producer bullmq:emails",
            "emails.ts:9 consumer bullmq:emails -> inline@9",
        ]
    );
    assert_eq!(
        resolved_lines("amqp"),
        [
            "tasks.js:6 producer amqp:tasks",
            "tasks.js:7 producer amqp:events/user.created",
            "tasks.js:8 consumer amqp:tasks -> onTask@8 => onTask",
        ]
    );
    assert_eq!(
        resolved_lines("aws"),
        [
            "notify.ts:11 producer sqs:invoices",
            "notify.ts:12 producer sns:invoice-paid",
        ]
    );
    assert_eq!(
        resolved_lines("nats"),
        [
            "events.ts:7 producer nats:inventory.updated",
            "events.ts:8 consumer nats:inventory.updated -> onInventory@8 => onInventory",
        ]
    );
    assert_eq!(
        resolved_lines("redis"),
        [
            "chat.ts:7 producer redis:chat:general",
            "chat.ts:8 consumer redis:chat:general -> inline@8",
        ]
    );
}

#[test]
fn a_producer_reaches_only_the_consumers_of_its_topic() {
    assert_eq!(
        matches("kafka", "kafka"),
        ["orders.ts:10 kafka:orders.created -> orders.ts:14 kafka:orders.created (exact)"]
    );
    // A Redis channel is no NATS subject of the same name.
    assert!(matches("redis", "nats").is_empty());
    assert_eq!(matches("amqp", "amqp").len(), 1);
}

/// amqplib's exchanges: the consumer's repository binds its queues (in another file
/// than the consumers, or a queue the broker names, in the same), and a message
/// published to an exchange reaches the queues whose binding takes its key.
#[test]
fn an_exchange_reaches_the_consumers_of_the_queues_bound_to_it() {
    assert_eq!(
        resolved_lines("amqp-consumer"),
        [
            "src/workers.ts:6 consumer amqp:user-events -> onUserEvent@6 => onUserEvent",
            "src/workers.ts:6 consumer amqp:events/user.* (topic binding) -> onUserEvent@6 => onUserEvent",
            "src/workers.ts:7 consumer amqp:audit-log -> onAudit@7 => onAudit",
            "src/workers.ts:7 consumer amqp:broadcast/ (fanout binding) -> onAudit@7 => onAudit",
            "src/workers.ts:8 consumer amqp:invoices -> onInvoice@8 => onInvoice",
            "src/workers.ts:8 consumer amqp:billing/invoice.paid (direct binding) -> onInvoice@8 => onInvoice",
            // `orders` is declared nowhere here: its type is unknown.
            "src/workers.ts:12 consumer amqp:orders/order.# (binding) -> onOrder@12 => onOrder",
            // Bound by the publisher's repository.
            "src/workers.ts:14 consumer amqp:user-audit -> onUserAudit@14 => onUserAudit",
        ]
    );
    // `pubsub.publish` (graphql-subscriptions) is no site.
    assert_eq!(
        sites("amqp-publisher", "src/publish.ts"),
        [
            "9 producer amqp:events/user.created",
            "10 producer amqp:broadcast/anything",
            "11 producer amqp:billing/invoice.paid",
            "12 producer amqp:orders/order.line.added",
            "14 producer amqp:events/?",
            "17 producer amqp:events/user.created.v2",
            "18 producer amqp:events/order.created",
            "19 producer amqp:billing/invoice.voided",
            "20 producer amqp:audit/user.created",
            "21 producer amqp:events",
        ]
    );
    // Not `user.created.v2` to `user.*` (`*` is one word), `order.created`,
    // `invoice.voided`, the `audit` exchange, or the queue `events`.
    assert_eq!(
        matches("amqp-publisher", "amqp-consumer"),
        [
            "src/publish.ts:10 amqp:broadcast/anything -> src/workers.ts:7 amqp:broadcast/ (fanout binding) (exact)",
            "src/publish.ts:11 amqp:billing/invoice.paid -> src/workers.ts:8 amqp:billing/invoice.paid (direct binding) (exact)",
            "src/publish.ts:12 amqp:orders/order.line.added -> src/workers.ts:12 amqp:orders/order.# (binding) (likely)",
            "src/publish.ts:14 amqp:events/? -> src/workers.ts:6 amqp:events/user.* (topic binding) (possible)",
            // The publisher binds `user-audit` to `events` with `user.#`, which takes
            // `user.created.v2` too; a key not known lands in no queue surely.
            "src/publish.ts:17 amqp:user-audit -> src/workers.ts:14 amqp:user-audit (exact)",
            "src/publish.ts:9 amqp:events/user.created -> src/workers.ts:6 amqp:events/user.* (topic binding) (exact)",
            "src/publish.ts:9 amqp:user-audit -> src/workers.ts:14 amqp:user-audit (exact)",
        ]
    );
    // What a change to the consumer serves: its queue and the exchange bound to it, so
    // the store looks the exchange's producers up by (kind, name).
    let (g, links) = resolved("amqp-consumer");
    let crate::graph::Found::One(d) = g.find("onUserEvent") else {
        panic!("onUserEvent is defined once");
    };
    let served: Vec<String> = across::served_by(&links, d)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        served,
        ["amqp:user-events", "amqp:events/user.* (topic binding)"]
    );
}

/// NestJS microservices: `@EventPattern` / `@MessagePattern` methods consume what a
/// `ClientProxy` (injected by type, or made by `ClientProxyFactory.create`) emits or
/// sends; an object pattern matches whatever the order of its keys.
#[test]
fn nest_message_patterns_link_clients_to_handlers() {
    // `this.events.emit` (an `EventEmitter2`) is no site.
    assert_eq!(
        resolved_lines("nest-messages"),
        [
            "src/gateway/gateway.service.ts:15 producer nest:order.created",
            "src/gateway/gateway.service.ts:17 producer nest:{\"cmd\":\"sum\",\"v\":2}",
            "src/gateway/gateway.service.ts:19 producer nest:order.cancelled",
            "src/gateway/gateway.service.ts:21 producer nest:{\"cmd\":\"max\",\"v\":2}",
            "src/orders/orders.controller.ts:6 consumer nest:order.created -> handleOrderCreated@7 => OrdersController.handleOrderCreated",
            "src/orders/orders.controller.ts:11 consumer nest:{\"cmd\":\"sum\",\"v\":2} -> sum@12 => OrdersController.sum",
        ]
    );
    assert_eq!(
        matches("nest-messages", "nest-messages"),
        [
            "src/gateway/gateway.service.ts:15 nest:order.created -> src/orders/orders.controller.ts:6 nest:order.created (exact)",
            "src/gateway/gateway.service.ts:17 nest:{\"cmd\":\"sum\",\"v\":2} -> src/orders/orders.controller.ts:11 nest:{\"cmd\":\"sum\",\"v\":2} (exact)",
        ]
    );
}

/// NestJS's Bull queues are BullMQ's: a `@Processor` class's `@Process` methods (or
/// its `process`) consume what `@InjectQueue` queues, and a plain `Queue`, add.
#[test]
fn nest_processors_consume_bull_queues() {
    // `this.seen.add` (a `Set`) is no site; nor is the worker's `helper`.
    assert_eq!(
        resolved_lines("nest-queues"),
        [
            "src/audio.processor.ts:6 consumer bullmq:audio -> transcode@7 => AudioProcessor.transcode",
            "src/audio.service.ts:12 producer bullmq:audio",
            "src/email.worker.ts:4 consumer bullmq:emails -> process@6 => EmailWorker.process",
        ]
    );
    assert_eq!(
        matches("nest-queues", "nest-queues"),
        ["src/audio.service.ts:12 bullmq:audio -> src/audio.processor.ts:6 bullmq:audio (exact)"]
    );
    // BullMQ's own `new Queue('emails').add` reaches the Nest worker of `emails`.
    assert_eq!(
        matches("bullmq", "nest-queues"),
        ["emails.ts:6 bullmq:emails -> src/email.worker.ts:4 bullmq:emails (exact)"]
    );
}

/// Redis subscribers whose messages reach the function their receiver's
/// `on('message')` registers (ioredis; node-redis before v4).
#[test]
fn redis_subscriptions_are_handled_by_their_message_listener() {
    // Not the acknowledging callback, `process.on`, or `pub.on`.
    assert_eq!(
        resolved_lines("redis-listeners"),
        [
            "src/ioredis-sub.ts:7 consumer redis:orders -> onMessage@11 => onMessage",
            "src/ioredis-sub.ts:7 consumer redis:payments -> onMessage@11 => onMessage",
            "src/ioredis-sub.ts:18 producer redis:orders",
            "src/ioredis-sub.ts:20 producer redis:shipments",
            "src/legacy-sub.js:8 consumer redis:alerts -> inline@5",
        ]
    );
    assert_eq!(
        matches("redis-listeners", "redis-listeners"),
        ["src/ioredis-sub.ts:18 redis:orders -> src/ioredis-sub.ts:7 redis:orders (exact)"]
    );
}

/// Typed clients whose calls name the route: openapi-fetch (`{id}` a parameter, an
/// exported instance used elsewhere), Hono's RPC client (the property chain is the
/// path), Angular's `HttpClient` (injected by type or by `inject`).
#[test]
fn typed_clients_name_their_routes() {
    // Not `table.GET`, `other.books.$get`, `this.cache.get`, or `store.books.$get`
    // (`store` is no instance).
    assert_eq!(
        resolved_lines("typed-clients"),
        [
            // On the `hc` instance `lib/rpc.ts` exports.
            "src/books.ts:5 client GET /books/:id mounts rpc of ./lib/rpc",
            "src/hono.ts:8 client GET /books/:id",
            "src/hono.ts:9 client POST /books",
            "src/hono.ts:11 client DELETE /books/:id",
            "src/hono.ts:12 client GET /",
            "src/openapi.ts:8 client GET /api/users/:id",
            "src/openapi.ts:9 client POST /api/users",
            "src/openapi.ts:11 client GET /api/users/:id/sessions",
            "src/users.service.ts:14 client GET /api/users/:id",
            "src/users.service.ts:18 client POST /api/users",
            // On the instance `lib/api.ts` exports, under its `baseUrl`.
            "src/users.ts:4 client DELETE /api/users/:id mounts backend of ./lib/api",
        ]
    );
    assert_eq!(
        sites("typed-clients", "src/books.ts"),
        [
            "5 client GET /books/:id mounts rpc of ./lib/rpc",
            "10 client GET /books mounts store of ./lib/store",
        ]
    );
    // `hc('/')`: the root, not a `//` host.
    assert_eq!(sites("typed-clients", "src/lib/rpc.ts"), ["4 instance * /"]);
    // The longer `/sessions` path reaches nothing.
    assert_eq!(
        matches("typed-clients", "express"),
        [
            "src/books.ts:5 GET /books/:id -> src/app.js:15 GET /books/:isbn (exact)",
            "src/hono.ts:8 GET /books/:id -> src/app.js:15 GET /books/:isbn (exact)",
            "src/openapi.ts:8 GET /api/users/:id -> src/routes/users.js:10 GET /api/users/:id (exact)",
            "src/openapi.ts:9 POST /api/users -> src/routes/users.js:11 POST /api/users (exact)",
            "src/users.service.ts:14 GET /api/users/:id -> src/routes/users.js:10 GET /api/users/:id (exact)",
            "src/users.service.ts:18 POST /api/users -> src/routes/users.js:11 POST /api/users (exact)",
            "src/users.ts:4 DELETE /api/users/:id -> src/routes/users.js:14 DELETE /api/users/:id (exact)",
        ]
    );
    // Hono's own routes: `$delete` on `/books/:id` is another method.
    assert_eq!(
        matches("typed-clients", "hono"),
        [
            "src/books.ts:5 GET /books/:id -> index.ts:6 GET /books/:id (exact)",
            "src/hono.ts:12 GET / -> index.ts:14 GET / (exact)",
            "src/hono.ts:8 GET /books/:id -> index.ts:6 GET /books/:id (exact)",
            "src/hono.ts:9 POST /books -> index.ts:7 POST /books (exact)",
        ]
    );
}

/// A Hono sub-app or an Express router made in another file (a default or a named
/// export, an ES import) and mounted with `app.route` / `app.use`.
#[test]
fn sub_apps_and_routers_imported_and_mounted() {
    assert_eq!(
        resolved_lines("mounted-elsewhere"),
        [
            "src/express/orders.ts:5 route GET /api/orders/:orderId -> getOrder@5 => getOrder",
            // `export const authors = new Hono().get(...)`: the chain is the export.
            "src/routes/authors.ts:4 route GET /authors -> inline@4",
            "src/routes/authors.ts:5 route DELETE /authors/:id -> inline@5",
            "src/routes/books.ts:5 route GET /books/:id -> inline@5",
            "src/routes/books.ts:6 route POST /books -> createBook@6 => createBook",
        ]
    );
}

#[test]
fn decoys_are_no_sites() {
    // `map.get('/x')`, `cache.get(key)`, `navigate`, `router.push`, `redirect`,
    // `<Route path>`, `<Link href>`: nothing. `client.get(url)` on an object from a
    // local module waits for the graph, which finds no instance there.
    assert_eq!(
        sites("decoys", "src/decoys.tsx"),
        ["14 client GET /api/users/1 mounts client of ./client"]
    );
    assert_eq!(resolved_lines("decoys"), Vec::<String>::new());
}

#[test]
fn link_sites_survive_the_facts_cache_encoding() {
    // Bindings, exchanges, excluded routes and Nest topics too.
    for name in [
        "express",
        "amqp-consumer",
        "amqp-publisher",
        "nest-messages",
        "nest-global-exclude",
    ] {
        for f in load(name) {
            let bytes = postcard::to_stdvec(&f).unwrap();
            let back: FileFacts = postcard::from_bytes(&bytes).unwrap();
            assert_eq!(back.links, f.links);
        }
    }
    let f = load("express");
    assert!(f.iter().any(|f| !f.links.is_empty()));
}

#[test]
fn a_handler_is_what_a_change_reaches_across_services() {
    let (g, links) = resolved("express");
    let crate::graph::Found::One(d) = g.find("getUser") else {
        panic!("getUser is defined once");
    };
    let routes: Vec<String> = links
        .handled_by(d)
        .map(|s| s.site.endpoint.to_string())
        .collect();
    assert_eq!(routes, ["GET /api/users/:id"]);
}

#[test]
fn matching_is_the_same_with_or_without_a_graph() {
    let client = LinkSite {
        role: Role::Client,
        endpoint: Endpoint::Http {
            method: Some(Method::Get),
            path: path::client_path(&[
                path::UrlPart::Text("/users/".into()),
                path::UrlPart::Value("id".into()),
            ])
            .unwrap(),
        },
        at: At::default(),
        handler: None,
        owner: None,
        exported_as: Vec::new(),
        mounted: None,
    };
    let route = |m, p: &str| LinkSite {
        role: Role::Route,
        endpoint: Endpoint::Http {
            method: Some(m),
            path: PathPattern::route(p),
        },
        ..client.clone()
    };
    let routes = [
        route(Method::Post, "/users/:id"),
        route(Method::Get, "/users/:id/posts"),
        route(Method::Get, "/users/:userId"),
    ];
    assert_eq!(
        match_sites(&[client], &routes),
        [LinkMatch {
            client: 0,
            route: 2,
            confidence: Confidence::Exact
        }]
    );
}

/// Extraction's speed with the link sites, on a corpus (`LINKS_CORPUS=DIR`), one thread:
///   LINKS_CORPUS=DIR cargo test -p blast-radius-engine --release links::tests::speed \
///     -- --ignored --nocapture
/// Prints the best of five rounds and the sites found by role (with `LINKS_PRINT=1`,
/// each site).
#[test]
#[ignore = "a measurement on a corpus outside the repository"]
fn speed() {
    let Ok(root) = std::env::var("LINKS_CORPUS") else {
        return;
    };
    let root = PathBuf::from(root);
    let mut paths = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name();
            if p.is_dir() {
                if name != "node_modules" && name != ".git" {
                    stack.push(p);
                }
            } else {
                paths.push(p);
            }
        }
    }
    paths.sort();
    let files: Vec<(String, String)> = paths
        .iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(&root).ok()?.to_str()?.to_string();
            crate::indexer::Language::from_path(&rel)?;
            Some((rel, std::fs::read_to_string(p).ok()?))
        })
        .collect();
    let mut best = f64::MAX;
    let mut by_role = std::collections::BTreeMap::new();
    for round in 0..5 {
        let start = std::time::Instant::now();
        let mut facts = Vec::with_capacity(files.len());
        for (path, src) in &files {
            if let Some(Ok(f)) = crate::indexer::extract_source(path, src) {
                facts.push(f);
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
        if round == 0 {
            let print = std::env::var_os("LINKS_PRINT").is_some();
            for f in &facts {
                for s in &f.links {
                    *by_role.entry(s.role.as_str()).or_insert(0usize) += 1;
                    if print {
                        println!("{}:{}", f.path, show(s));
                    }
                }
            }
        }
    }
    println!(
        "{} files, {} MB: extraction best of 5 {:.3} s; sites {:?}",
        files.len(),
        files.iter().map(|f| f.1.len()).sum::<usize>() / 1_000_000,
        best,
        by_role
    );
}

/// A corpus's links resolved in one graph, and its clients matched to its own routes
/// (`LINKS_CORPUS=DIR`): what a person reads to judge precision.
///   LINKS_CORPUS=DIR cargo test -p blast-radius-engine --release \
///     links::tests::corpus_matches -- --ignored --nocapture
#[test]
#[ignore = "a reading of a corpus outside the repository"]
fn corpus_matches() {
    let Ok(root) = std::env::var("LINKS_CORPUS") else {
        return;
    };
    let root = PathBuf::from(root);
    let mut stack = vec![root.clone()];
    let mut facts = Vec::new();
    let mut configs = Vec::new();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                if e.file_name() != "node_modules" && e.file_name() != ".git" {
                    stack.push(p);
                }
                continue;
            }
            let Some(rel) = p.strip_prefix(&root).ok().and_then(|r| r.to_str()) else {
                continue;
            };
            let Ok(src) = std::fs::read_to_string(&p) else {
                continue;
            };
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name == "package.json" || name.starts_with("tsconfig") {
                configs.push((rel.to_string(), src));
            } else if let Some(Ok(f)) = crate::indexer::extract_source(rel, &src) {
                facts.push(f);
            }
        }
    }
    let g = Graph::build(facts, configs);
    let links = resolve(&g);
    for s in &links.sites {
        println!("site {}", show_resolved(&g, s));
    }
    let found = links.matches_from(&links);
    let mut matched = vec![false; links.sites.len()];
    for m in &found {
        matched[m.client] = true;
        let c = &links.sites[m.client];
        let r = &links.sites[m.route];
        println!(
            "match {}:{} {} -> {}:{} {} ({})",
            c.path,
            c.site.at.line + 1,
            c.site.endpoint,
            r.path,
            r.site.at.line + 1,
            r.site.endpoint,
            m.confidence.as_str()
        );
    }
    let calling = |s: &&ResolvedSite| matches!(s.site.role, Role::Client | Role::Producer);
    let total = links.sites.iter().filter(calling).count();
    let with = links
        .sites
        .iter()
        .enumerate()
        .filter(|(i, s)| calling(s) && matched[*i])
        .count();
    println!(
        "{} sites; {} clients and producers, {} matched; {} matches",
        links.sites.len(),
        total,
        with,
        found.len()
    );
}
