//! A file's links across service boundaries (issue 47): the HTTP routes it serves, the
//! HTTP calls it makes, the queue topics it produces to and consumes from, as sites.
//!
//! Extraction records [`LinkSite`]s in the facts' `FileFacts::links`: one file, no IO, nothing
//! read from any other file. Which receivers count is decided there, from the file
//! alone (see `extract` for the rule). Composing them across files and matching them
//! across repositories is the graph's part (the crate's `links` module).
//!
//! The parts:
//! - `path`: path patterns: written by a framework (`/users/:id`, `[id]`), or built from
//!   a client's URL (`/users/${id}`), normalised to segments.
//! - `extract`: from a file's syntax tree to its sites (`routes`, `clients`,
//!   `typed_clients`, `topics`, `amqp`, `redis`, `nest_messages`, `nest_queues`, `trpc`,
//!   `nextjs`; `scope` finds where a receiver comes from, `class_members` what a class
//!   declares `this.x` to be).

pub(crate) mod extract;
pub mod path;

use serde::{Deserialize, Serialize};

pub use path::{PathPattern, Segment};

/// An HTTP method. A route's `None` takes every method (`app.all`, a Next.js pages API
/// route); a client's `None` is a method that cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
    Head,
    Options,
}

impl Method {
    pub const ALL: [Method; 7] = [
        Method::Get,
        Method::Post,
        Method::Put,
        Method::Patch,
        Method::Delete,
        Method::Head,
        Method::Options,
    ];

    /// The method a name says, in any case (`get`, `POST`, `del` as superagent and
    /// koa-router spell `delete`).
    pub fn from_name(name: &str) -> Option<Method> {
        let m = match name.to_ascii_lowercase().as_str() {
            "get" => Method::Get,
            "post" => Method::Post,
            "put" => Method::Put,
            "patch" => Method::Patch,
            "delete" | "del" => Method::Delete,
            "head" => Method::Head,
            "options" => Method::Options,
            _ => return None,
        };
        Some(m)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
            Method::Head => "HEAD",
            Method::Options => "OPTIONS",
        }
    }
}

/// A message system whose topics link producers to consumers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TopicSystem {
    Kafka,
    /// BullMQ (and Bull): a queue's name.
    Bullmq,
    /// amqplib: a queue's name (exchanges are [`Endpoint::Exchange`] and
    /// [`Endpoint::Binding`]).
    Amqp,
    /// An SQS queue: the last segment of its URL.
    Sqs,
    /// An SNS topic: the last part of its ARN.
    Sns,
    Nats,
    /// Redis pub/sub channels.
    Redis,
    /// NestJS microservices' message and event patterns (a string, or an object's
    /// JSON with sorted keys), whatever transport carries them.
    Nest,
}

impl TopicSystem {
    pub fn as_str(self) -> &'static str {
        match self {
            TopicSystem::Kafka => "kafka",
            TopicSystem::Bullmq => "bullmq",
            TopicSystem::Amqp => "amqp",
            TopicSystem::Sqs => "sqs",
            TopicSystem::Sns => "sns",
            TopicSystem::Nats => "nats",
            TopicSystem::Redis => "redis",
            TopicSystem::Nest => "nest",
        }
    }
}

/// What a tRPC procedure is called as: the client's method says which.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProcedureKind {
    Query,
    Mutation,
    Subscription,
}

/// What a site serves or reaches.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Endpoint {
    /// An HTTP route: a method and a path pattern.
    Http {
        method: Option<Method>,
        path: PathPattern,
    },
    /// A queue topic (or queue, subject, channel) of a message system.
    Topic { system: TopicSystem, name: String },
    /// A tRPC procedure by its dotted path (`user.byId`); `kind` None where a client's
    /// method does not say.
    Procedure {
        path: String,
        kind: Option<ProcedureKind>,
    },
    /// A message published to an AMQP exchange (amqplib's `publish(exchange, key, ...)`
    /// to a named exchange): its routing key, None when it cannot be read.
    Exchange {
        exchange: String,
        key: Option<String>,
    },
    /// A queue bound to an AMQP exchange (`bindQueue(queue, exchange, pattern)`): what
    /// the queue's consumer serves besides the queue. The producers of the exchange
    /// are looked up by its name, and their keys confirmed against `pattern`. `kind`
    /// where the binding's file declares the exchange (`assertExchange`).
    Binding {
        exchange: String,
        pattern: String,
        kind: Option<ExchangeKind>,
    },
}

/// The type of an AMQP exchange: how it routes a message's key to bound queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExchangeKind {
    /// The key equals the binding's.
    Direct,
    /// The binding's pattern takes the key, word by word (`*` one word, `#` any).
    Topic,
    /// Every message, whatever its key.
    Fanout,
    /// By headers, not the key.
    Headers,
}

impl ExchangeKind {
    pub fn from_name(name: &str) -> Option<ExchangeKind> {
        Some(match name {
            "direct" => ExchangeKind::Direct,
            "topic" => ExchangeKind::Topic,
            "fanout" => ExchangeKind::Fanout,
            "headers" => ExchangeKind::Headers,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ExchangeKind::Direct => "direct",
            ExchangeKind::Topic => "topic",
            ExchangeKind::Fanout => "fanout",
            ExchangeKind::Headers => "headers",
        }
    }
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Http { method, path } => {
                write!(f, "{} {path}", method.map_or("*", Method::as_str))
            }
            Endpoint::Topic { system, name } => write!(f, "{}:{name}", system.as_str()),
            Endpoint::Procedure { path, kind } => {
                let kind = match kind {
                    Some(ProcedureKind::Query) => "query",
                    Some(ProcedureKind::Mutation) => "mutation",
                    Some(ProcedureKind::Subscription) => "subscription",
                    None => "procedure",
                };
                write!(f, "trpc {kind} {path}")
            }
            Endpoint::Exchange { exchange, key } => {
                write!(f, "amqp:{exchange}/{}", key.as_deref().unwrap_or("?"))
            }
            Endpoint::Binding {
                exchange,
                pattern,
                kind,
            } => match kind {
                Some(k) => write!(f, "amqp:{exchange}/{pattern} ({} binding)", k.as_str()),
                None => write!(f, "amqp:{exchange}/{pattern} (binding)"),
            },
        }
    }
}

/// The part a site plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Serves an endpoint: an HTTP route, a tRPC procedure.
    Route,
    /// Calls an endpoint: an HTTP request, a tRPC call.
    Client,
    /// Sends to a topic.
    Producer,
    /// Receives from a topic.
    Consumer,
    /// Puts another router's routes under a prefix (`app.use('/api', users)`,
    /// `app.route('/x', sub)`, `register(plugin, { prefix })`, a tRPC router nested under
    /// a key): see [`LinkSite::mounted`]. Its endpoint is the prefix. Or binds an AMQP
    /// queue ([`Mounted::Queue`]) to an exchange ([`Endpoint::Binding`]): the queue's
    /// consumers serve the binding too.
    Mount,
    /// An HTTP client instance made in this file and bound to a top-level name
    /// (`export const api = axios.create({ baseURL: '/api' })`): its endpoint is its
    /// base. What clients in other files that import it are made on.
    Instance,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Route => "route",
            Role::Client => "client",
            Role::Producer => "producer",
            Role::Consumer => "consumer",
            Role::Mount => "mount",
            Role::Instance => "instance",
        }
    }
}

/// Where a site is: zero-based line and UTF-16 column (as the facts' `Pos` counts
/// them) and the byte span of the call or declaration that makes it.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct At {
    pub line: u32,
    pub column: u32,
    pub start_byte: u32,
    pub end_byte: u32,
}

/// The function that handles a route or a topic's messages.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Handler {
    /// Passed or declared by name (`getUser`, `users.getUser`, a Nest controller's
    /// method, a Next.js `export function GET`): `at` is where the name is written,
    /// where the graph's reference or definition sits.
    Named { name: String, at: At },
    /// A function written in place: where it is.
    Inline { at: At },
}

/// The router a mount puts under its prefix.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Mounted {
    /// A router made in this file, by the name it is bound to (see [`LinkSite::owner`]).
    Local(String),
    /// A router imported from another module: its specifier, and the name it is
    /// exported as (`default` for a default export or `module.exports`).
    Import { specifier: String, export: String },
    /// Every NestJS controller of the application: on a mount, its global prefix
    /// (`app.setGlobalPrefix('api')`); on a route, that one is a controller's.
    NestControllers,
    /// An AMQP queue, by its name: a binding's (see [`Endpoint::Binding`]).
    Queue(String),
    /// A route the NestJS global prefix leaves out (`setGlobalPrefix('api', { exclude
    /// })`): the mount's endpoint is the route excluded (its method None for every
    /// method), not a prefix.
    NestExcluded,
}

/// One route, client, producer, consumer or mount in a file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LinkSite {
    pub role: Role,
    pub endpoint: Endpoint,
    pub at: At,
    /// Routes and consumers: the function that handles it, when it can be read.
    pub handler: Option<Handler>,
    /// Routes and mounts: the router or app they are registered on, by the top-level
    /// name it is bound to in this file (`default` for an anonymous default export,
    /// such as a Fastify plugin's function), when there is one. What mounts of that
    /// name elsewhere compose with.
    pub owner: Option<String>,
    /// The names `owner` is exported as (`default` for a default export or
    /// `module.exports`): how other files import it.
    pub exported_as: Vec<String>,
    /// Mounts: what they mount. Clients: the imported object they are called on
    /// (`api.get(url)` with `api` imported from `./api`), when nothing in the file says
    /// it is a client: the site is one only if that object is an [`Role::Instance`]
    /// of the file it comes from ([`resolve`] keeps it then, its base put before its
    /// path, and drops it otherwise).
    pub mounted: Option<Mounted>,
}

impl LinkSite {
    /// The HTTP path a route, client or mount has.
    pub fn path(&self) -> Option<&PathPattern> {
        match &self.endpoint {
            Endpoint::Http { path, .. } => Some(path),
            _ => None,
        }
    }
}
