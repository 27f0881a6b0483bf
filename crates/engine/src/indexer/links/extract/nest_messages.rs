//! NestJS microservices: `@EventPattern('x')` / `@MessagePattern({ cmd: 'x' })`
//! methods consume a pattern; `client.emit(pattern, data)` / `client.send(pattern,
//! data)` on a `ClientProxy` produce to it. Which transport carries them the file does
//! not say: they are topics of their own system (`nest`).
//!
//! A client counts only when Nest's evidence says it is one: `this.x` declared (a field
//! or a constructor's parameter property) with a `Client*` type imported from
//! `@nestjs/microservices`, or given `ClientProxyFactory.create(...)`; a name bound to
//! that call. An `emit` on anything else (an `EventEmitter2`) is no site.

use tree_sitter::Node;

use super::class_members::{this_member, Member};
use super::scope::{Origin, Step};
use super::{arguments, handler_of, routes, site, Cx};
use crate::indexer::links::{Endpoint, Role, TopicSystem};

const MODULE: &str = "@nestjs/microservices";

/// A message pattern as one stable string: a string as written; an object as JSON with
/// its keys sorted (`{"cmd":"sum"}`), as Nest turns it into a route.
fn pattern<'s>(cx: &Cx<'s>, arg: Node<'s>) -> Option<String> {
    if arg.kind() != "object" {
        return cx.scope.string_value(arg);
    }
    let mut members = std::collections::BTreeMap::new();
    let mut cursor = arg.walk();
    let pairs: Vec<Node> = arg.named_children(&mut cursor).collect();
    for p in pairs {
        if p.kind() == "comment" {
            continue;
        }
        if p.kind() != "pair" {
            return None;
        }
        let key = p.child_by_field_name("key")?;
        let key = match key.kind() {
            "property_identifier" => cx.scope.text(key).to_string(),
            _ => cx.scope.string_value(key)?,
        };
        let value = p.child_by_field_name("value")?;
        let value = match value.kind() {
            "number" => serde_json::from_str(cx.scope.text(value)).ok()?,
            "true" => serde_json::Value::Bool(true),
            "false" => serde_json::Value::Bool(false),
            "object" => serde_json::from_str::<serde_json::Value>(&pattern(cx, value)?).ok()?,
            _ => serde_json::Value::String(cx.scope.string_value(value)?),
        };
        members.insert(key, value);
    }
    serde_json::to_string(&members).ok()
}

fn topic(name: String) -> Endpoint {
    Endpoint::Topic {
        system: TopicSystem::Nest,
        name,
    }
}

/// `@EventPattern(p)` / `@MessagePattern(p)` on a method: a consumer of `p`.
pub(super) fn handler_decorator<'s>(cx: &mut Cx<'s>, call: Node<'s>) {
    let Some(f) = call.child_by_field_name("function") else {
        return;
    };
    if cx.scope.import_of(cx.scope.text(f)).map(|(m, _)| m) != Some(MODULE) {
        return;
    }
    let Some(method) = routes::decorated_by_call(call) else {
        return;
    };
    let Some(name) = arguments(call).first().and_then(|a| pattern(cx, *a)) else {
        return;
    };
    let mut s = site(Role::Consumer, topic(name), super::call_at(cx, call));
    s.handler = handler_of(cx, method);
    cx.push(s);
}

/// `client.emit(p, data)` / `client.send(p, data)`: a producer of `p` when the
/// receiver is a Nest client. Whether it was one.
pub(super) fn client_call<'s>(cx: &mut Cx<'s>, call: Node<'s>, object: Node<'s>) -> bool {
    if !is_client(cx, object) {
        return false;
    }
    let Some(name) = arguments(call).first().and_then(|a| pattern(cx, *a)) else {
        return false;
    };
    cx.push(site(Role::Producer, topic(name), super::call_at(cx, call)));
    true
}

fn is_client<'s>(cx: &Cx<'s>, object: Node<'s>) -> bool {
    if let Some(Member { ty, value, .. }) = this_member(cx, object) {
        let typed = ty.is_some_and(|t| {
            t.starts_with("Client")
                && cx
                    .scope
                    .import_of(t)
                    .is_some_and(|(m, imported)| m == MODULE && imported.starts_with("Client"))
        });
        return typed || value.is_some_and(|v| made_by_factory(cx, v));
    }
    object.kind() == "identifier" && made_by_factory(cx, object)
}

/// `ClientProxyFactory.create(...)`, or a name bound to it.
fn made_by_factory<'s>(cx: &Cx<'s>, value: Node<'s>) -> bool {
    matches!(
        cx.scope.origin(value),
        Origin::Lib { module: MODULE, imported: "ClientProxyFactory", steps }
            if steps.as_slice() == [Step::Member("create"), Step::Call]
    )
}
