//! Queue topics: kafkajs, BullMQ, amqplib (its calls read in `amqp`), AWS SQS / SNS,
//! NATS, Redis pub/sub.

use rustc_hash::FxHashMap;
use tree_sitter::Node;

use super::scope::{object_member, Origin, Step};
use super::{arguments, handler_of, site, Cx};
use crate::indexer::links::{At, Endpoint, Handler, LinkSite, Role, TopicSystem};

fn system_of_module(module: &str) -> Option<TopicSystem> {
    Some(match module {
        "kafkajs" => TopicSystem::Kafka,
        "bullmq" | "bull" => TopicSystem::Bullmq,
        "amqplib" | "amqplib/callback_api" | "amqp-connection-manager" => TopicSystem::Amqp,
        "nats" | "nats.ws" => TopicSystem::Nats,
        "redis" | "ioredis" => TopicSystem::Redis,
        _ => return None,
    })
}

/// The system a receiver belongs to: the library it comes from; or, when it cannot be
/// traced (`this.producer`, a parameter), the one library among `candidates` that the
/// file imports. A receiver traced to anything else belongs to none.
pub(super) fn system_of<'s>(
    cx: &Cx<'s>,
    object: Node<'s>,
    candidates: &[TopicSystem],
) -> Option<TopicSystem> {
    match cx.scope.origin(object) {
        Origin::Lib { module, .. } => system_of_module(module).filter(|s| candidates.contains(s)),
        Origin::Other | Origin::Param(..) => {
            let imported: Vec<TopicSystem> = candidates
                .iter()
                .copied()
                .filter(|s| cx.scope.imports_any(|m| system_of_module(m) == Some(*s)))
                .collect();
            match imported.as_slice() {
                [one] => Some(*one),
                _ => None,
            }
        }
        Origin::Global(..) => None,
    }
}

/// kafkajs consumers in a file: the topics each subscribes to and the function its
/// `run` hands messages to, by the receiver's text (`consumer`, `this.consumer`).
#[derive(Default)]
pub(super) struct KafkaConsumers<'s> {
    subscriptions: Vec<(&'s str, String, At)>,
    handlers: FxHashMap<&'s str, Handler>,
}

impl KafkaConsumers<'_> {
    /// One consumer site per topic subscribed to, with its receiver's handler.
    pub(super) fn into_sites(self, out: &mut Vec<LinkSite>) {
        for (receiver, topic, at) in self.subscriptions {
            let mut s = site(
                Role::Consumer,
                Endpoint::Topic {
                    system: TopicSystem::Kafka,
                    name: topic,
                },
                at,
            );
            s.handler = self.handlers.get(receiver).cloned();
            out.push(s);
        }
    }
}

pub(super) fn member_call<'s>(cx: &mut Cx<'s>, call: Node<'s>, object: Node<'s>, name: &str) {
    let args = arguments(call);
    let Some(&first) = args.first() else {
        return;
    };
    let src = cx.scope.src;
    let at = super::call_at(cx, call);
    let topic = |system, name: String| Endpoint::Topic { system, name };
    match (name, first.kind()) {
        // kafkajs
        ("send", "object") => {
            if system_of(cx, object, &[TopicSystem::Kafka]).is_none() {
                return;
            }
            if object_member(first, "messages", src).is_none() {
                return;
            }
            let Some(t) = object_member(first, "topic", src).and_then(|t| cx.scope.string_value(t))
            else {
                return;
            };
            cx.push(site(Role::Producer, topic(TopicSystem::Kafka, t), at));
        }
        ("subscribe", "object") => {
            if system_of(cx, object, &[TopicSystem::Kafka]).is_none() {
                return;
            }
            let receiver = cx.scope.text(object);
            let mut names = Vec::new();
            if let Some(t) = object_member(first, "topic", src) {
                names.extend(cx.scope.string_value(t));
            }
            if let Some(list) = object_member(first, "topics", src).filter(|l| l.kind() == "array")
            {
                let mut cursor = list.walk();
                let items: Vec<Node> = list.named_children(&mut cursor).collect();
                names.extend(items.into_iter().filter_map(|i| cx.scope.string_value(i)));
            }
            for n in names {
                cx.kafka.subscriptions.push((receiver, n, at));
            }
        }
        ("run", "object") => {
            if system_of(cx, object, &[TopicSystem::Kafka]).is_none() {
                return;
            }
            let handler = object_member(first, "eachMessage", src)
                .or_else(|| object_member(first, "eachBatch", src))
                .and_then(|h| handler_of(cx, h));
            if let Some(h) = handler {
                cx.kafka.handlers.insert(cx.scope.text(object), h);
            }
        }
        // BullMQ: `queue.add(jobName, data)` on `new Queue(name)`.
        ("add" | "addBulk", _) => {
            let Some(queue) = bull_queue_name(cx, object) else {
                return;
            };
            cx.push(site(Role::Producer, topic(TopicSystem::Bullmq, queue), at));
        }
        // amqplib
        ("sendToQueue" | "consume" | "bindQueue" | "assertExchange", _)
            if system_of(cx, object, &[TopicSystem::Amqp]).is_some() =>
        {
            super::amqp::channel_call(cx, call, name);
        }
        // amqplib's `publish(exchange, routingKey, content)`, NATS's and Redis's
        // `publish(subject, data)`.
        ("publish", _) => {
            let Some(system) = system_of(
                cx,
                object,
                &[TopicSystem::Amqp, TopicSystem::Nats, TopicSystem::Redis],
            ) else {
                return;
            };
            if system == TopicSystem::Amqp {
                super::amqp::channel_call(cx, call, name);
                return;
            }
            let Some(name) = cx.scope.string_value(first) else {
                return;
            };
            cx.push(site(Role::Producer, topic(system, name), at));
        }
        // NATS's `subscribe(subject, { callback })`; Redis's (read in `redis`).
        ("subscribe", _) => {
            let Some(system) = system_of(cx, object, &[TopicSystem::Nats, TopicSystem::Redis])
            else {
                return;
            };
            if system == TopicSystem::Redis {
                super::redis::subscribe(cx, call, object);
                return;
            }
            let Some(name) = cx.scope.string_value(first) else {
                return;
            };
            let handler = match args.get(1) {
                Some(o) if o.kind() == "object" => {
                    object_member(*o, "callback", src).and_then(|h| handler_of(cx, h))
                }
                Some(h) => handler_of(cx, *h),
                None => None,
            };
            let mut s = site(Role::Consumer, topic(system, name), at);
            s.handler = handler;
            cx.push(s);
        }
        ("on", _) if system_of(cx, object, &[TopicSystem::Redis]).is_some() => {
            super::redis::on(cx, call, object);
        }
        _ => {}
    }
}

/// The name of the BullMQ queue a receiver is: `new Queue('emails')` itself or a name
/// bound to it.
fn bull_queue_name<'s>(cx: &Cx<'s>, object: Node<'s>) -> Option<String> {
    let origin = cx.scope.origin(object);
    let Origin::Lib {
        module,
        imported: "Queue" | "default" | "=",
        steps,
    } = origin
    else {
        return None;
    };
    if !matches!(module, "bullmq" | "bull") || steps.as_slice() != [Step::New] {
        return None;
    }
    let mut value = object;
    for _ in 0..8 {
        match value.kind() {
            "new_expression" => break,
            "identifier" => value = cx.scope.value_of(value, cx.scope.text(value))?,
            "await_expression" | "parenthesized_expression" => value = value.named_child(0)?,
            _ => return None,
        }
    }
    if value.kind() != "new_expression" {
        return None;
    }
    let name = *arguments(value).first()?;
    cx.scope.string_value(name)
}

/// `new Worker(name, processor)` (BullMQ), `new SendMessageCommand({ QueueUrl })` and
/// the other AWS SDK commands.
pub(super) fn new_expression<'s>(cx: &mut Cx<'s>, node: Node<'s>) {
    let Some(c) = node.child_by_field_name("constructor") else {
        return;
    };
    let Origin::Lib {
        module,
        imported,
        steps,
    } = cx.scope.origin(c)
    else {
        return;
    };
    if !steps.is_empty() {
        return;
    }
    let args = arguments(node);
    let at = cx.scope.at(node);
    let src = cx.scope.src;
    match (module, imported) {
        ("bullmq" | "bull", "Worker") => {
            let Some(name) = args.first().and_then(|a| cx.scope.string_value(*a)) else {
                return;
            };
            let mut s = site(
                Role::Consumer,
                Endpoint::Topic {
                    system: TopicSystem::Bullmq,
                    name,
                },
                at,
            );
            s.handler = args.get(1).and_then(|h| handler_of(cx, *h));
            cx.push(s);
        }
        ("@aws-sdk/client-sqs", command) | ("@aws-sdk/client-sns", command) => {
            let Some(options) = args.first().filter(|o| o.kind() == "object") else {
                return;
            };
            let (system, key, role) = match command {
                "SendMessageCommand" | "SendMessageBatchCommand" => {
                    (TopicSystem::Sqs, "QueueUrl", Role::Producer)
                }
                "ReceiveMessageCommand" => (TopicSystem::Sqs, "QueueUrl", Role::Consumer),
                "PublishCommand" => (TopicSystem::Sns, "TopicArn", Role::Producer),
                _ => return,
            };
            let Some(value) =
                object_member(*options, key, src).and_then(|v| cx.scope.string_value(v))
            else {
                return;
            };
            // A queue by the last segment of its URL, a topic by the last part of its ARN.
            let name = match system {
                TopicSystem::Sqs => value.rsplit('/').next().unwrap_or(&value),
                _ => value.rsplit(':').next().unwrap_or(&value),
            }
            .to_string();
            if name.is_empty() {
                return;
            }
            cx.push(site(role, Endpoint::Topic { system, name }, at));
        }
        _ => {}
    }
}
