//! Where a receiver comes from, and what a constant holds: read from the file's own
//! syntax, only where a candidate site asks (no walk of the whole tree).
//!
//! The top level is read once per file with a candidate: imports and requires, the
//! declarations, and what is exported under which name. A name not declared there is
//! looked up in the blocks and parameters that enclose the site.

use std::cell::RefCell;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use tree_sitter::Node;

use crate::indexer::links::path::UrlPart;
use crate::indexer::links::At;

/// Beyond this many steps an expression's origin or value is unknown.
const MAX_DEPTH: usize = 24;

/// One step from an import to a value: a member read, a call, a `new`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step<'s> {
    Member(&'s str),
    Call,
    New,
}

/// Where a value comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Origin<'s> {
    /// An import of `module` (`imported`: `default`, `*`, `=` for a whole `require`, or
    /// the exported name), then `steps`.
    Lib {
        module: &'s str,
        imported: &'s str,
        steps: SmallVec<[Step<'s>; 4]>,
    },
    /// A parameter of an enclosing function, by name; then `steps`.
    Param(&'s str, SmallVec<[Step<'s>; 4]>),
    /// A name nothing in the file declares (a global: `fetch`), then `steps`.
    Global(&'s str, SmallVec<[Step<'s>; 4]>),
    /// Anything else: a local value made otherwise (`new Map()`), `this.x`, a literal.
    Other,
}

impl<'s> Origin<'s> {
    fn then(self, step: Step<'s>) -> Origin<'s> {
        match self {
            Origin::Lib {
                module,
                imported,
                mut steps,
            } => {
                steps.push(step);
                Origin::Lib {
                    module,
                    imported,
                    steps,
                }
            }
            Origin::Param(n, mut steps) => {
                steps.push(step);
                Origin::Param(n, steps)
            }
            Origin::Global(n, mut steps) => {
                steps.push(step);
                Origin::Global(n, steps)
            }
            Origin::Other => Origin::Other,
        }
    }

    /// The module it comes from, if an import.
    pub(crate) fn module(&self) -> Option<&'s str> {
        match self {
            Origin::Lib { module, .. } => Some(module),
            _ => None,
        }
    }
}

/// A file's top level, as candidate sites need it.
pub(crate) struct FileScope<'s> {
    pub(crate) src: &'s str,
    /// Local name -> (module specifier, imported name: `default`, `*`, `=`, or a name).
    imports: FxHashMap<&'s str, (&'s str, &'s str)>,
    /// Top-level declarations: name -> its value (or the declaration itself, for a
    /// function or a class).
    decls: FxHashMap<&'s str, Node<'s>>,
    /// Local name -> the names it is exported as.
    exports: FxHashMap<&'s str, Vec<String>>,
    /// The function that is the default export (or `module.exports`) without a name.
    pub(crate) default_function: Option<usize>,
    /// Every module the file imports or requires at its top level.
    pub(crate) modules: Vec<&'s str>,
    /// The names each block declares and each function's parameters bind, by the
    /// node's id, read once each: a lookup climbs through them, and a block of many
    /// calls must not be rescanned for each.
    scopes: RefCell<FxHashMap<usize, Scoped<'s>>>,
}

/// The names a block or a function's parameters bind (the first declaration of each).
type Scoped<'s> = FxHashMap<&'s str, Found<'s>>;

/// The kinds of library a file imports or requires (anywhere in it).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Libraries {
    /// An HTTP framework or client.
    pub(crate) http: bool,
    /// A message system.
    pub(crate) topics: bool,
    pub(crate) trpc: bool,
    /// NestJS's decorators.
    pub(crate) nest: bool,
    /// NestJS's application factory (`@nestjs/core`): where `setGlobalPrefix` is.
    pub(crate) nest_core: bool,
    /// The AWS SDK's clients.
    pub(crate) aws: bool,
    /// NestJS microservices' clients and patterns.
    pub(crate) nest_messages: bool,
    /// NestJS's Bull queues (`@nestjs/bull`, `@nestjs/bullmq`).
    pub(crate) nest_queues: bool,
    /// A typed HTTP client: openapi-fetch, Hono's RPC client, Angular's `HttpClient`.
    pub(crate) typed: bool,
}

impl Libraries {
    pub(crate) fn note(&mut self, module: &str) {
        if matches!(
            module,
            "openapi-fetch" | "hono/client" | "@angular/common/http"
        ) {
            self.typed = true;
        }
        match module {
            "express"
            | "koa-router"
            | "@koa/router"
            | "fastify"
            | "axios"
            | "ky"
            | "ky-universal"
            | "got"
            | "ofetch"
            | "ohmyfetch"
            | "superagent"
            | "request"
            | "request-promise"
            | "request-promise-native"
            | "node-fetch"
            | "cross-fetch"
            | "isomorphic-fetch"
            | "undici" => self.http = true,
            m if m == "hono" || m.starts_with("hono/") => self.http = true,
            "kafkajs"
            | "bullmq"
            | "bull"
            | "amqplib"
            | "amqplib/callback_api"
            | "amqp-connection-manager"
            | "nats"
            | "nats.ws"
            | "redis"
            | "ioredis" => self.topics = true,
            // `@trpc/client`, or a workspace package or alias that says it is tRPC.
            m if m.contains("trpc") => self.trpc = true,
            "@nestjs/common" => self.nest = true,
            "@nestjs/core" => self.nest_core = true,
            "@nestjs/microservices" => self.nest_messages = true,
            "@nestjs/bull" | "@nestjs/bullmq" => self.nest_queues = true,
            m if m.starts_with("@aws-sdk/") => self.aws = true,
            _ => {}
        }
    }
}

impl<'s> FileScope<'s> {
    pub(crate) fn read(root: Node<'s>, src: &'s str) -> FileScope<'s> {
        let mut s = FileScope {
            src,
            imports: FxHashMap::default(),
            decls: FxHashMap::default(),
            exports: FxHashMap::default(),
            default_function: None,
            modules: Vec::new(),
            scopes: RefCell::new(FxHashMap::default()),
        };
        let mut cursor = root.walk();
        for stmt in root.named_children(&mut cursor) {
            s.statement(stmt);
        }
        s
    }

    pub(crate) fn text(&self, node: Node) -> &'s str {
        &self.src[node.byte_range()]
    }

    /// Whether the file imports a module `wanted` says is one.
    pub(crate) fn imports_any(&self, wanted: impl Fn(&str) -> bool) -> bool {
        self.modules.iter().any(|m| wanted(m))
    }

    /// The module and imported name of a name imported at the top level.
    pub(crate) fn import_of(&self, name: &str) -> Option<(&'s str, &'s str)> {
        self.imports.get(name).copied()
    }

    pub(crate) fn top_level(&self, name: &str) -> Option<Node<'s>> {
        self.decls.get(name).copied()
    }

    pub(crate) fn exported_as(&self, name: &str) -> Vec<String> {
        self.exports.get(name).cloned().unwrap_or_default()
    }

    fn statement(&mut self, stmt: Node<'s>) {
        match stmt.kind() {
            "import_statement" => self.import(stmt),
            "lexical_declaration" | "variable_declaration" => self.declaration(stmt, None),
            "function_declaration" | "generator_function_declaration" | "class_declaration" => {
                if let Some(name) = stmt.child_by_field_name("name") {
                    self.decls.insert(self.text(name), stmt);
                }
            }
            "export_statement" => self.export(stmt),
            "expression_statement" => {
                if let Some(e) = stmt.named_child(0) {
                    match e.kind() {
                        "assignment_expression" => self.assignment(e),
                        // `require('dotenv').config()` and the like: the module counts.
                        "call_expression" => {
                            if let Some(m) = require_of(e, self.src) {
                                self.modules.push(m);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    fn import(&mut self, stmt: Node<'s>) {
        let Some(source) = stmt.child_by_field_name("source") else {
            return;
        };
        let module = unquote(self.text(source));
        self.modules.push(module);
        let mut cursor = stmt.walk();
        for child in stmt.named_children(&mut cursor) {
            if child.kind() != "import_clause" {
                continue;
            }
            let mut c2 = child.walk();
            for part in child.named_children(&mut c2) {
                match part.kind() {
                    "identifier" => {
                        self.imports.insert(self.text(part), (module, "default"));
                    }
                    "namespace_import" => {
                        if let Some(id) = last_identifier(part) {
                            self.imports.insert(self.text(id), (module, "*"));
                        }
                    }
                    "named_imports" => {
                        let mut c3 = part.walk();
                        for spec in part.named_children(&mut c3) {
                            if spec.kind() != "import_specifier" {
                                continue;
                            }
                            let Some(name) = spec.child_by_field_name("name") else {
                                continue;
                            };
                            let local = spec.child_by_field_name("alias").unwrap_or(name);
                            let imported = unquote(self.text(name));
                            self.imports.insert(self.text(local), (module, imported));
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// `const a = ...`, `const { Router } = require('express')`; `exported` names the
    /// declaration as exported (`export const a`).
    fn declaration(&mut self, stmt: Node<'s>, exported: Option<()>) {
        let mut cursor = stmt.walk();
        for d in stmt.named_children(&mut cursor) {
            if d.kind() != "variable_declarator" {
                continue;
            }
            let (Some(name), value) = (
                d.child_by_field_name("name"),
                d.child_by_field_name("value"),
            ) else {
                continue;
            };
            let required = value.and_then(|v| required_module(v, self.src));
            match name.kind() {
                "identifier" => {
                    let local = self.text(name);
                    if let Some((module, member)) = required {
                        self.modules.push(module);
                        self.imports.insert(local, (module, member.unwrap_or("=")));
                    } else if let Some(v) = value {
                        self.decls.insert(local, v);
                    }
                    if exported.is_some() {
                        self.exports
                            .entry(local)
                            .or_default()
                            .push(local.to_string());
                    }
                }
                "object_pattern" => {
                    let Some((module, _)) = required else {
                        continue;
                    };
                    self.modules.push(module);
                    let mut c2 = name.walk();
                    for p in name.named_children(&mut c2) {
                        match p.kind() {
                            "shorthand_property_identifier_pattern" => {
                                let n = self.text(p);
                                self.imports.insert(n, (module, n));
                            }
                            "pair_pattern" => {
                                let (Some(k), Some(v)) =
                                    (p.child_by_field_name("key"), p.child_by_field_name("value"))
                                else {
                                    continue;
                                };
                                if v.kind() == "identifier" {
                                    self.imports.insert(self.text(v), (module, self.text(k)));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn export(&mut self, stmt: Node<'s>) {
        let is_default = {
            let mut cursor = stmt.walk();
            let found = stmt.children(&mut cursor).any(|c| c.kind() == "default");
            found
        };
        if let Some(decl) = stmt.child_by_field_name("declaration") {
            match decl.kind() {
                "lexical_declaration" | "variable_declaration" => {
                    self.declaration(decl, Some(()));
                }
                _ => {
                    if let Some(name) = decl.child_by_field_name("name") {
                        let n = self.text(name);
                        self.decls.insert(n, decl);
                        let as_name = if is_default { "default" } else { n };
                        self.exports.entry(n).or_default().push(as_name.to_string());
                    } else if is_default {
                        self.default_function = Some(decl.start_byte());
                    }
                }
            }
            return;
        }
        if let Some(value) = stmt.child_by_field_name("value") {
            match value.kind() {
                "identifier" => {
                    let n = self.text(value);
                    self.exports.entry(n).or_default().push("default".into());
                }
                _ => {
                    if let Some(name) = value.child_by_field_name("name") {
                        let n = self.text(name);
                        self.decls.insert(n, value);
                        self.exports.entry(n).or_default().push("default".into());
                    } else {
                        self.default_function = Some(value.start_byte());
                    }
                }
            }
            return;
        }
        // `export { a, b as c }` (without `from`).
        if stmt.child_by_field_name("source").is_some() {
            return;
        }
        for (name, alias) in export_specifiers(stmt) {
            let (local, as_name) = (self.text(name), unquote(self.text(alias)).to_string());
            self.exports.entry(local).or_default().push(as_name);
        }
    }

    /// `module.exports = x`, `module.exports = { a, b }`, `exports.a = a`.
    fn assignment(&mut self, e: Node<'s>) {
        let (Some(left), Some(right)) = (
            e.child_by_field_name("left"),
            e.child_by_field_name("right"),
        ) else {
            return;
        };
        let target = self.text(left);
        let exported_name = if target == "module.exports" {
            Some("default")
        } else {
            target
                .strip_prefix("module.exports.")
                .or_else(|| target.strip_prefix("exports."))
        };
        let Some(as_name) = exported_name else {
            return;
        };
        match right.kind() {
            "identifier" => {
                let n = self.text(right);
                self.exports.entry(n).or_default().push(as_name.to_string());
            }
            "object" if as_name == "default" => {
                let mut cursor = right.walk();
                for p in right.named_children(&mut cursor) {
                    match p.kind() {
                        "shorthand_property_identifier" => {
                            let n = self.text(p);
                            self.exports.entry(n).or_default().push(n.to_string());
                        }
                        "pair" => {
                            if let (Some(k), Some(v)) =
                                (p.child_by_field_name("key"), p.child_by_field_name("value"))
                            {
                                if v.kind() == "identifier" {
                                    let k = unquote(self.text(k)).to_string();
                                    self.exports.entry(self.text(v)).or_default().push(k);
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            "function_expression" | "arrow_function" | "function" if as_name == "default" => {
                self.default_function = Some(right.start_byte());
            }
            _ => {
                if let Some(module) = require_of(right, self.src) {
                    self.modules.push(module);
                }
            }
        }
    }

    // ---- origins ----

    /// Where the value of `expr` (at its place in the file) comes from.
    pub(crate) fn origin(&self, expr: Node<'s>) -> Origin<'s> {
        self.origin_depth(expr, 0)
    }

    fn origin_depth(&self, expr: Node<'s>, depth: usize) -> Origin<'s> {
        if depth > MAX_DEPTH {
            return Origin::Other;
        }
        match expr.kind() {
            "identifier" => {
                let name = self.text(expr);
                match self.lookup(expr, name) {
                    Some(Found::Value(v)) => self.origin_depth(v, depth + 1),
                    Some(Found::Param) => Origin::Param(name, SmallVec::new()),
                    Some(Found::Import(module, imported)) => Origin::Lib {
                        module,
                        imported,
                        steps: SmallVec::new(),
                    },
                    Some(Found::Opaque) => Origin::Other,
                    None => Origin::Global(name, SmallVec::new()),
                }
            }
            "member_expression" => {
                let (Some(object), Some(property)) = (
                    expr.child_by_field_name("object"),
                    expr.child_by_field_name("property"),
                ) else {
                    return Origin::Other;
                };
                self.origin_depth(object, depth + 1)
                    .then(Step::Member(self.text(property)))
            }
            "call_expression" => {
                if let Some(module) = require_of(expr, self.src) {
                    return Origin::Lib {
                        module,
                        imported: "=",
                        steps: SmallVec::new(),
                    };
                }
                match expr.child_by_field_name("function") {
                    Some(f) => self.origin_depth(f, depth + 1).then(Step::Call),
                    None => Origin::Other,
                }
            }
            "new_expression" => match expr.child_by_field_name("constructor") {
                Some(c) => self.origin_depth(c, depth + 1).then(Step::New),
                None => Origin::Other,
            },
            "await_expression"
            | "parenthesized_expression"
            | "non_null_expression"
            | "as_expression"
            | "satisfies_expression" => match expr.named_child(0) {
                Some(inner) => self.origin_depth(inner, depth + 1),
                None => Origin::Other,
            },
            _ => Origin::Other,
        }
    }

    /// What `name`, read at `at`, is declared as: the nearest declaration in the blocks
    /// and functions around it, else the top level's.
    fn lookup(&self, at: Node<'s>, name: &str) -> Option<Found<'s>> {
        let mut node = at;
        for _ in 0..64 {
            let Some(parent) = node.parent() else {
                break;
            };
            node = parent;
            let read: fn(Node<'s>, &'s str) -> Scoped<'s> = match node.kind() {
                "program" => break,
                "statement_block" | "switch_case" | "class_static_block" => {
                    |n, src| declared_in_block(n, src)
                }
                "function_declaration"
                | "function_expression"
                | "arrow_function"
                | "method_definition"
                | "generator_function"
                | "generator_function_declaration"
                | "function" => |n, src| parameters_of(n, src),
                _ => continue,
            };
            let found = self
                .scopes
                .borrow_mut()
                .entry(node.id())
                .or_insert_with(|| read(node, self.src))
                .get(name)
                .copied();
            if found.is_some() {
                return found;
            }
        }
        if let Some(&(module, imported)) = self.imports.get(name) {
            return Some(Found::Import(module, imported));
        }
        match self.decls.get(name) {
            Some(v) if matches!(v.kind(), "function_declaration" | "class_declaration") => {
                Some(Found::Opaque)
            }
            Some(&v) => Some(Found::Value(v)),
            None => None,
        }
    }

    /// The value a declared name holds, if declared (locally or at the top level).
    pub(crate) fn value_of(&self, at: Node<'s>, name: &str) -> Option<Node<'s>> {
        match self.lookup(at, name)? {
            Found::Value(v) => Some(v),
            _ => None,
        }
    }

    // ---- values ----

    /// The string an expression holds, when the file says it: a literal, a template or
    /// a concatenation of known strings, a constant holding one, a constant object's
    /// member (`ROUTES.users`).
    pub(crate) fn string_value(&self, expr: Node<'s>) -> Option<String> {
        let parts = self.url_parts(expr);
        let mut out = String::new();
        for p in parts {
            match p {
                UrlPart::Text(t) => out.push_str(&t),
                UrlPart::Value(_) => return None,
            }
        }
        Some(out)
    }

    /// The pieces a URL (or any string) expression is built of.
    pub(crate) fn url_parts(&self, expr: Node<'s>) -> Vec<UrlPart> {
        let mut out = Vec::new();
        self.parts_into(expr, &mut out, 0);
        out
    }

    fn parts_into(&self, expr: Node<'s>, out: &mut Vec<UrlPart>, depth: usize) {
        let value = |out: &mut Vec<UrlPart>| out.push(UrlPart::Value(self.text(expr).to_string()));
        if depth > MAX_DEPTH {
            return value(out);
        }
        match expr.kind() {
            "string" => out.push(UrlPart::Text(unquote(self.text(expr)).to_string())),
            "template_string" => {
                let mut cursor = expr.walk();
                for part in expr.named_children(&mut cursor) {
                    match part.kind() {
                        "string_fragment" | "escape_sequence" => {
                            out.push(UrlPart::Text(self.text(part).to_string()))
                        }
                        "template_substitution" => match part.named_child(0) {
                            Some(inner) => self.parts_into(inner, out, depth + 1),
                            None => out.push(UrlPart::Value(String::new())),
                        },
                        _ => {}
                    }
                }
                // A template with no text node at all: the grammar gives no fragment for
                // `` `` ``.
            }
            "binary_expression" => {
                let op = expr.child_by_field_name("operator").map(|o| self.text(o));
                match (
                    op,
                    expr.child_by_field_name("left"),
                    expr.child_by_field_name("right"),
                ) {
                    (Some("+"), Some(l), Some(r)) => {
                        self.parts_into(l, out, depth + 1);
                        self.parts_into(r, out, depth + 1);
                    }
                    _ => value(out),
                }
            }
            "parenthesized_expression" | "as_expression" | "satisfies_expression" => {
                match expr.named_child(0) {
                    Some(inner) => self.parts_into(inner, out, depth + 1),
                    None => value(out),
                }
            }
            "identifier" => match self.value_of(expr, self.text(expr)) {
                Some(v) if is_stringish(v) => self.parts_into(v, out, depth + 1),
                _ => value(out),
            },
            "member_expression" => match self.constant_member(expr, depth) {
                Some(v) => self.parts_into(v, out, depth + 1),
                None => value(out),
            },
            _ => value(out),
        }
    }

    /// `ROUTES.users` where `ROUTES` is a constant object literal: the member's value.
    fn constant_member(&self, expr: Node<'s>, depth: usize) -> Option<Node<'s>> {
        let object = expr.child_by_field_name("object")?;
        let property = self.text(expr.child_by_field_name("property")?);
        let holder = match object.kind() {
            "identifier" => self.value_of(object, self.text(object))?,
            "member_expression" if depth < MAX_DEPTH => self.constant_member(object, depth + 1)?,
            _ => return None,
        };
        let holder = strip_as(holder);
        if holder.kind() != "object" {
            return None;
        }
        let value = object_member(holder, property, self.src)?;
        is_stringish(value).then_some(value)
    }

    /// Where `node` starts and ends.
    pub(crate) fn at(&self, node: Node) -> At {
        let p = node.start_position();
        let start = node.start_byte();
        let prefix = self.src.get(start - p.column..start).unwrap_or_default();
        let column = if prefix.is_ascii() {
            p.column
        } else {
            prefix.encode_utf16().count()
        };
        At {
            line: p.row as u32,
            column: column as u32,
            start_byte: start as u32,
            end_byte: node.end_byte() as u32,
        }
    }
}

/// `x as const`, `x satisfies T`: `x`.
fn strip_as(mut node: Node) -> Node {
    while matches!(
        node.kind(),
        "as_expression" | "satisfies_expression" | "parenthesized_expression"
    ) {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// Whether an expression can be a string the file spells out.
fn is_stringish(v: Node) -> bool {
    matches!(
        v.kind(),
        "string"
            | "template_string"
            | "binary_expression"
            | "identifier"
            | "member_expression"
            | "parenthesized_expression"
            | "as_expression"
            | "satisfies_expression"
    )
}

/// The value of the property `name` of an object literal.
pub(crate) fn object_member<'s>(object: Node<'s>, name: &str, src: &'s str) -> Option<Node<'s>> {
    let mut cursor = object.walk();
    for p in object.named_children(&mut cursor) {
        match p.kind() {
            "pair" => {
                let key = p.child_by_field_name("key")?;
                if unquote(&src[key.byte_range()]) == name {
                    return p.child_by_field_name("value");
                }
            }
            "shorthand_property_identifier" if &src[p.byte_range()] == name => return Some(p),
            "method_definition"
                if p.child_by_field_name("name")
                    .is_some_and(|n| &src[n.byte_range()] == name) =>
            {
                return Some(p);
            }
            _ => {}
        }
    }
    None
}

#[derive(Clone, Copy)]
enum Found<'s> {
    Value(Node<'s>),
    Param,
    Import(&'s str, &'s str),
    /// Declared, as something that is no value to follow (a function, a class, a
    /// destructured name).
    Opaque,
}

/// The names a block's statements declare, each with what it is declared as.
fn declared_in_block<'s>(block: Node<'s>, src: &'s str) -> Scoped<'s> {
    let mut out = Scoped::default();
    let mut cursor = block.walk();
    for stmt in block.named_children(&mut cursor) {
        match stmt.kind() {
            "lexical_declaration" | "variable_declaration" => {
                let mut c2 = stmt.walk();
                for d in stmt.named_children(&mut c2) {
                    let Some(n) = d.child_by_field_name("name") else {
                        continue;
                    };
                    if n.kind() == "identifier" {
                        let value = d.child_by_field_name("value");
                        let found = match value.and_then(|v| required_module(v, src)) {
                            Some((module, member)) => Found::Import(module, member.unwrap_or("=")),
                            None => value.map_or(Found::Opaque, Found::Value),
                        };
                        out.entry(&src[n.byte_range()]).or_insert(found);
                    } else {
                        for bound in pattern_names(n, src) {
                            out.entry(bound).or_insert(Found::Opaque);
                        }
                    }
                }
            }
            "function_declaration" | "class_declaration" => {
                if let Some(n) = stmt.child_by_field_name("name") {
                    out.entry(&src[n.byte_range()]).or_insert(Found::Opaque);
                }
            }
            _ => {}
        }
    }
    out
}

/// The names a function's parameters bind (plain, typed, defaulted, destructured).
fn parameters_of<'s>(function: Node<'s>, src: &'s str) -> Scoped<'s> {
    let mut out = Scoped::default();
    if let Some(p) = function.child_by_field_name("parameter") {
        out.insert(&src[p.byte_range()], Found::Param);
        return out;
    }
    let Some(params) = function.child_by_field_name("parameters") else {
        return out;
    };
    let mut cursor = params.walk();
    for p in params.named_children(&mut cursor) {
        let target = match p.kind() {
            "identifier" => Some(p),
            "required_parameter" | "optional_parameter" => p.child_by_field_name("pattern"),
            "assignment_pattern" => p.child_by_field_name("left"),
            _ => None,
        };
        let target = target.map(|t| {
            if t.kind() == "assignment_pattern" {
                t.child_by_field_name("left").unwrap_or(t)
            } else {
                t
            }
        });
        match target {
            Some(t) if t.kind() == "identifier" => {
                out.insert(&src[t.byte_range()], Found::Param);
            }
            Some(t) => {
                for bound in pattern_names(t, src) {
                    out.insert(bound, Found::Param);
                }
            }
            None => {}
        }
    }
    out
}

/// The names a destructuring pattern (`{ a, b: c, ...d }`, `[a, b]`) binds, eight
/// levels deep at most.
fn pattern_names<'s>(pattern: Node<'s>, src: &'s str) -> Vec<&'s str> {
    let mut out = Vec::new();
    let mut stack = vec![(pattern, 0)];
    while let Some((node, depth)) = stack.pop() {
        if depth > 8 {
            continue;
        }
        match node.kind() {
            "identifier" | "shorthand_property_identifier_pattern" => {
                out.push(&src[node.byte_range()])
            }
            // `{ key: value }`: the value binds, not the key.
            "pair_pattern" => {
                stack.extend(node.child_by_field_name("value").map(|v| (v, depth + 1)))
            }
            "assignment_pattern" | "object_assignment_pattern" => {
                stack.extend(node.child_by_field_name("left").map(|l| (l, depth + 1)))
            }
            _ => {
                let mut cursor = node.walk();
                stack.extend(node.named_children(&mut cursor).map(|c| (c, depth + 1)));
            }
        }
    }
    out
}

/// `require('m')`: `m`.
pub(crate) fn require_of<'s>(call: Node<'s>, src: &'s str) -> Option<&'s str> {
    if call.kind() != "call_expression" {
        return None;
    }
    let f = call.child_by_field_name("function")?;
    if &src[f.byte_range()] != "require" {
        return None;
    }
    let arg = call.child_by_field_name("arguments")?.named_child(0)?;
    (arg.kind() == "string").then(|| unquote(&src[arg.byte_range()]))
}

/// `require('m')` (None) or `require('m').x` (`x`), under an `await` or not.
fn required_module<'s>(value: Node<'s>, src: &'s str) -> Option<(&'s str, Option<&'s str>)> {
    let value = if value.kind() == "await_expression" {
        value.named_child(0)?
    } else {
        value
    };
    if let Some(m) = require_of(value, src) {
        return Some((m, None));
    }
    if value.kind() == "member_expression" {
        let object = value.child_by_field_name("object")?;
        let property = value.child_by_field_name("property")?;
        let m = require_of(object, src)?;
        return Some((m, Some(&src[property.byte_range()])));
    }
    None
}

fn last_identifier(node: Node) -> Option<Node> {
    let mut cursor = node.walk();
    let found = node
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "identifier")
        .last();
    found
}

/// A string literal's text without its quotes (anything else as it is).
pub(crate) fn unquote(s: &str) -> &str {
    let b = s.as_bytes();
    if b.len() >= 2 && matches!(b[0], b'"' | b'\'' | b'`') && b[b.len() - 1] == b[0] {
        &s[1..s.len() - 1]
    } else {
        s
    }
}

/// Whether a specifier names a package (not a path or an alias of one: `./x`, `~/x`,
/// `@/x`, `#x`).
pub(crate) fn is_package(spec: &str) -> bool {
    !(spec.starts_with('.')
        || spec.starts_with('/')
        || spec.starts_with("~/")
        || spec.starts_with("@/")
        || spec.starts_with('#'))
}

/// `export { a, b as c }`: each local name and the name it is exported as (itself
/// when not renamed).
pub(super) fn export_specifiers(stmt: Node<'_>) -> Vec<(Node<'_>, Node<'_>)> {
    let mut out = Vec::new();
    let mut cursor = stmt.walk();
    for clause in stmt.named_children(&mut cursor) {
        if clause.kind() != "export_clause" {
            continue;
        }
        let mut c2 = clause.walk();
        for spec in clause.named_children(&mut c2) {
            if let Some(name) = spec.child_by_field_name("name") {
                out.push((name, spec.child_by_field_name("alias").unwrap_or(name)));
            }
        }
    }
    out
}
