//! Redis pub/sub consumers: `sub.subscribe('a', 'b')` (or an array of channels), with
//! the function that receives the messages: node-redis's listener passed to
//! `subscribe`, or what the same receiver's `on('message', fn)` registers (ioredis, and
//! node-redis before v4). ioredis's callback after the channels only acknowledges the
//! subscription: it is no handler.

use rustc_hash::FxHashMap;
use tree_sitter::Node;

use super::scope::Origin;
use super::{arguments, handler_of, site, Cx};
use crate::indexer::links::{At, Endpoint, Handler, LinkSite, Role, TopicSystem};

/// A file's Redis subscriptions and `on('message')` listeners, by the receiver's text
/// (`sub`, `this.subscriber`), read once every call is.
#[derive(Default)]
pub(super) struct Subscribers<'s> {
    subscriptions: Vec<(&'s str, String, At, Option<Handler>)>,
    listeners: FxHashMap<&'s str, Handler>,
}

impl Subscribers<'_> {
    /// One consumer site per channel, its handler the subscription's own or else its
    /// receiver's listener.
    pub(super) fn into_sites(self, out: &mut Vec<LinkSite>) {
        for (receiver, channel, at, handler) in self.subscriptions {
            let mut s = site(
                Role::Consumer,
                Endpoint::Topic {
                    system: TopicSystem::Redis,
                    name: channel,
                },
                at,
            );
            s.handler = handler.or_else(|| self.listeners.get(receiver).cloned());
            out.push(s);
        }
    }
}

/// Whether the receiver is an ioredis client (traced to it, or, untraced, in a file
/// that imports it).
fn is_ioredis<'s>(cx: &Cx<'s>, object: Node<'s>) -> bool {
    match cx.scope.origin(object) {
        Origin::Lib { module, .. } => module == "ioredis",
        _ => cx.scope.imports_any(|m| m == "ioredis"),
    }
}

/// `subscribe(...)` on a Redis receiver (the caller has checked it is one).
pub(super) fn subscribe<'s>(cx: &mut Cx<'s>, call: Node<'s>, object: Node<'s>) {
    let args = arguments(call);
    let mut channels = Vec::new();
    let mut rest = None;
    for (i, a) in args.iter().enumerate() {
        if a.kind() == "array" {
            let mut cursor = a.walk();
            let items: Vec<Node> = a.named_children(&mut cursor).collect();
            channels.extend(items.into_iter().filter_map(|x| cx.scope.string_value(x)));
        } else if let Some(c) = cx.scope.string_value(*a) {
            channels.push(c);
        } else {
            rest = Some(i);
            break;
        }
    }
    let handler = match rest {
        Some(i) if !is_ioredis(cx, object) => handler_of(cx, args[i]),
        _ => None,
    };
    let at = super::call_at(cx, call);
    let receiver = cx.scope.text(object);
    for c in channels {
        cx.redis
            .subscriptions
            .push((receiver, c, at, handler.clone()));
    }
}

/// `on('message', fn)` on a Redis receiver: the function its subscriptions' messages
/// go to.
pub(super) fn on<'s>(cx: &mut Cx<'s>, call: Node<'s>, object: Node<'s>) {
    let args = arguments(call);
    let event = args.first().and_then(|e| cx.scope.string_value(*e));
    if !matches!(event.as_deref(), Some("message" | "messageBuffer")) {
        return;
    }
    if let Some(h) = args.get(1).and_then(|h| handler_of(cx, *h)) {
        cx.redis.listeners.insert(cx.scope.text(object), h);
    }
}
