//! amqplib's queues and exchanges: `sendToQueue(queue)` and `consume(queue, fn)`;
//! `publish(exchange, key)` to a named exchange; `bindQueue(queue, exchange, pattern)`,
//! which makes the queue's consumers serve what the exchange routes to it.
//!
//! A binding of a named queue is a mount (the graph gives it to that queue's consumers
//! in any file of the repository). A queue the broker names (`assertQueue('')`, read
//! back as `q.queue`) is known by the expression that holds it: bound and consumed by
//! the same text in this file, the consumer serves the binding directly.

use rustc_hash::FxHashMap;
use tree_sitter::Node;

use super::{arguments, handler_of, site, Cx};
use crate::indexer::links::{
    At, Endpoint, ExchangeKind, Handler, LinkSite, Mounted, Role, TopicSystem,
};

/// A file's bindings and the exchange types it declares, read once every call is.
#[derive(Default)]
pub(super) struct Bindings<'s> {
    /// `assertExchange(name, type)`.
    kinds: FxHashMap<String, ExchangeKind>,
    /// `bindQueue`: the queue (its name, or the text of what holds it), the exchange,
    /// the pattern, where.
    bound: Vec<(Queue<'s>, String, String, At)>,
    /// `consume` of a queue the file does not name: the text that holds it.
    unnamed: Vec<(&'s str, Option<Handler>, At)>,
}

#[derive(Clone, PartialEq, Eq)]
enum Queue<'s> {
    Named(String),
    Held(&'s str),
}

impl Bindings<'_> {
    pub(super) fn into_sites(self, out: &mut Vec<LinkSite>) {
        let binding = |exchange: &str, pattern: &str| Endpoint::Binding {
            exchange: exchange.to_string(),
            pattern: pattern.to_string(),
            kind: self.kinds.get(exchange).copied(),
        };
        for (queue, exchange, pattern, at) in &self.bound {
            match queue {
                Queue::Named(name) => {
                    let mut s = site(Role::Mount, binding(exchange, pattern), *at);
                    s.mounted = Some(Mounted::Queue(name.clone()));
                    out.push(s);
                }
                Queue::Held(text) => {
                    for (held, handler, consumed_at) in &self.unnamed {
                        if held == text {
                            let mut s =
                                site(Role::Consumer, binding(exchange, pattern), *consumed_at);
                            s.handler = handler.clone();
                            out.push(s);
                        }
                    }
                }
            }
        }
    }
}

/// The queue an argument names, or the text of the expression that holds one.
fn queue<'s>(cx: &Cx<'s>, arg: Node<'s>) -> Option<Queue<'s>> {
    if let Some(name) = cx.scope.string_value(arg) {
        return Some(Queue::Named(name));
    }
    matches!(arg.kind(), "identifier" | "member_expression")
        .then(|| Queue::Held(cx.scope.text(arg)))
}

/// A call on an amqplib channel (the caller has checked the receiver).
pub(super) fn channel_call<'s>(cx: &mut Cx<'s>, call: Node<'s>, name: &str) {
    let args = arguments(call);
    let Some(&first) = args.first() else {
        return;
    };
    let at = super::call_at(cx, call);
    let topic = |name: String| Endpoint::Topic {
        system: TopicSystem::Amqp,
        name,
    };
    match name {
        "sendToQueue" => {
            if let Some(q) = cx.scope.string_value(first) {
                cx.push(site(Role::Producer, topic(q), at));
            }
        }
        "consume" => {
            let handler = args.get(1).and_then(|h| handler_of(cx, *h));
            match queue(cx, first) {
                Some(Queue::Named(q)) => {
                    let mut s = site(Role::Consumer, topic(q), at);
                    s.handler = handler;
                    cx.push(s);
                }
                Some(Queue::Held(text)) => cx.amqp.unnamed.push((text, handler, at)),
                None => {}
            }
        }
        "publish" => {
            let Some(exchange) = cx.scope.string_value(first) else {
                return;
            };
            let key = args.get(1).and_then(|k| cx.scope.string_value(*k));
            let endpoint = match (exchange.is_empty(), key) {
                // The default exchange routes by the queue's name.
                (true, Some(q)) => topic(q),
                (true, None) => return,
                (false, key) => Endpoint::Exchange { exchange, key },
            };
            cx.push(site(Role::Producer, endpoint, at));
        }
        "bindQueue" => {
            let (Some(q), Some(exchange)) = (
                queue(cx, first),
                args.get(1).and_then(|e| cx.scope.string_value(*e)),
            ) else {
                return;
            };
            // A pattern not read is no binding to confirm a key against.
            let Some(pattern) = args.get(2).and_then(|p| cx.scope.string_value(*p)) else {
                return;
            };
            if exchange.is_empty() {
                return;
            }
            cx.amqp.bound.push((q, exchange, pattern, at));
        }
        "assertExchange" => {
            let (Some(exchange), Some(kind)) = (
                cx.scope.string_value(first),
                args.get(1)
                    .and_then(|k| cx.scope.string_value(*k))
                    .and_then(|k| ExchangeKind::from_name(&k)),
            ) else {
                return;
            };
            cx.amqp.kinds.insert(exchange, kind);
        }
        _ => {}
    }
}
