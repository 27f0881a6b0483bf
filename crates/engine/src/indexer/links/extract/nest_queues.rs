//! NestJS's Bull queues (`@nestjs/bull`, `@nestjs/bullmq`): a `@Processor('emails')`
//! class consumes the queue `emails`, by its `@Process()` methods or else its `process`
//! method (BullMQ's `WorkerHost`); `@InjectQueue('emails') q: Queue` then
//! `this.q.add(...)` produces to it. The queue is BullMQ's own: a plain `new
//! Queue('emails').add` reaches a Nest processor, and `this.q.add` a plain `Worker`.

use tree_sitter::Node;

use super::class_members::{class_decorators, decorator_name, enclosing_class, this_member};
use super::scope::object_member;
use super::{arguments, handler_of, routes, site, Cx};
use crate::indexer::links::{Endpoint, Role, TopicSystem};

fn from_nest_bull(cx: &Cx, name: &str) -> bool {
    cx.scope
        .import_of(name)
        .is_some_and(|(m, _)| matches!(m, "@nestjs/bull" | "@nestjs/bullmq"))
}

fn queue(name: String) -> Endpoint {
    Endpoint::Topic {
        system: TopicSystem::Bullmq,
        name,
    }
}

/// The queue a decorator call names: `('emails')` or `({ name: 'emails' })`.
fn named<'s>(cx: &Cx<'s>, call: Node<'s>) -> Option<String> {
    let arg = *arguments(call).first()?;
    match arg.kind() {
        "object" => object_member(arg, "name", cx.scope.src).and_then(|n| cx.scope.string_value(n)),
        _ => cx.scope.string_value(arg),
    }
}

/// The queue of the `@Processor(...)` on a class.
fn processor_queue<'s>(cx: &Cx<'s>, class: Node<'s>) -> Option<String> {
    class_decorators(class)
        .into_iter()
        .find(|d| decorator_name(cx, *d).is_some_and(|n| n == "Processor" && from_nest_bull(cx, n)))
        .and_then(|d| named(cx, d))
}

/// `@Processor(q)` on a class with no `@Process()` method: its `process` method
/// consumes `q`.
pub(super) fn processor<'s>(cx: &mut Cx<'s>, call: Node<'s>) {
    if !decorator_name(cx, call).is_some_and(|n| from_nest_bull(cx, n)) {
        return;
    }
    let Some(deco) = call.parent().filter(|p| p.kind() == "decorator") else {
        return;
    };
    let Some(class) = deco.parent().and_then(|p| match p.kind() {
        "export_statement" => p.child_by_field_name("declaration"),
        _ => Some(p),
    }) else {
        return;
    };
    let Some(body) = class.child_by_field_name("body") else {
        return;
    };
    let Some(name) = named(cx, call) else {
        return;
    };
    let mut cursor = body.walk();
    let members: Vec<Node> = body.named_children(&mut cursor).collect();
    // Method decorators sit in the class body (TypeScript) or in the method (JavaScript).
    let is_process = |d: Node<'s>| {
        d.kind() == "decorator"
            && d.named_child(0).is_some_and(|c| {
                c.kind() == "call_expression" && decorator_name(cx, c) == Some("Process")
            })
    };
    let decorated_process = members.iter().any(|m| {
        is_process(*m)
            || (m.kind() == "method_definition" && {
                let mut c = m.walk();
                let found = m.children(&mut c).any(is_process);
                found
            })
    });
    if decorated_process {
        return;
    }
    let Some(method) = members.into_iter().find(|m| {
        m.kind() == "method_definition"
            && m.child_by_field_name("name")
                .is_some_and(|n| cx.scope.text(n) == "process")
    }) else {
        return;
    };
    let mut s = site(Role::Consumer, queue(name), super::call_at(cx, call));
    s.handler = handler_of(cx, method);
    cx.push(s);
}

/// `@Process()` / `@Process('job')` on a method of a `@Processor(q)` class: it
/// consumes `q`.
pub(super) fn process<'s>(cx: &mut Cx<'s>, call: Node<'s>) {
    if !decorator_name(cx, call).is_some_and(|n| from_nest_bull(cx, n)) {
        return;
    }
    let Some(method) = routes::decorated_by_call(call) else {
        return;
    };
    let Some(name) = enclosing_class(method).and_then(|c| processor_queue(cx, c)) else {
        return;
    };
    let mut s = site(Role::Consumer, queue(name), super::call_at(cx, call));
    s.handler = handler_of(cx, method);
    cx.push(s);
}

/// `this.q.add(...)` / `addBulk` where `q` is injected by `@InjectQueue(name)`: a
/// producer of `name`. Whether it was one.
pub(super) fn add<'s>(cx: &mut Cx<'s>, call: Node<'s>, object: Node<'s>) -> bool {
    let Some(member) = this_member(cx, object) else {
        return false;
    };
    let Some(name) = member
        .decorators
        .iter()
        .find(|d| {
            decorator_name(cx, **d).is_some_and(|n| n == "InjectQueue" && from_nest_bull(cx, n))
        })
        .and_then(|d| named(cx, *d))
    else {
        return false;
    };
    cx.push(site(Role::Producer, queue(name), super::call_at(cx, call)));
    true
}
