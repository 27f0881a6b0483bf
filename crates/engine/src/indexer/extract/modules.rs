//! Imports and exports, ESM and CommonJS.

use tree_sitter::Node;

use super::calls::string_literal;
use super::children::Children;
use super::fields::{Field, FieldExt};
use super::Extractor;
use crate::indexer::facts::*;

impl<'s> Extractor<'s> {
    pub(crate) fn import_statement(&mut self, node: Node<'s>, depth: usize) {
        let line = node.start_position().row as u32;
        let source = node
            .field(Field::Source)
            .and_then(|s| string_literal(s, self.src));
        let children = self.named_kids(node);
        let mut bound = false;
        for child in children {
            match child.kind_str() {
                "import_clause" => {
                    if let Some(spec) = &source {
                        self.import_clause(child, spec, line);
                        bound = true;
                    }
                }
                // TypeScript: `import x = require('y')`
                "import_require_clause" => {
                    let spec = child
                        .field(Field::Source)
                        .and_then(|s| string_literal(s, self.src));
                    let name = child
                        .named_child(0)
                        .filter(|n| n.kind_str() == "identifier");
                    if let (Some(spec), Some(name)) = (spec, name) {
                        let import = self.add_import(&spec, ImportKind::Require, line);
                        let value = self.sym(Sym::Import(import));
                        let name = self.intern_node(name);
                        self.declare(name, value, false);
                        bound = true;
                    }
                }
                _ => {}
            }
        }
        if let (false, Some(spec)) = (bound, &source) {
            // `import './polyfill'`: a dependency without a binding.
            self.add_import(spec, ImportKind::Namespace, line);
        }
        self.tokens_only(node);
        let _ = depth;
    }

    /// TypeScript `import X = A.B.C`: a local name for a qualified one.
    pub(crate) fn import_alias(&mut self, node: Node<'s>, _depth: usize) {
        let namespace = self.namespace;
        let name = node.named_child(0).filter(|n| n.kind_str() == "identifier");
        let value = node.named_child(1).and_then(|v| self.type_sym(v));
        if let (Some(name), Some(value)) = (name, value) {
            let name = self.intern_node(name);
            self.declare(name, value, false);
            if let Some(ns) = namespace {
                // `export import X = ...` in a namespace.
                self.add_prop(ns, name, value);
            }
        }
        self.tokens_only(node);
    }

    fn import_clause(&mut self, clause: Node<'s>, spec: &str, line: u32) {
        let parts = self.named_kids(clause);
        for part in parts {
            match part.kind_str() {
                "identifier" => {
                    let import = self.add_import(spec, ImportKind::Default, line);
                    self.bind_import(part, import);
                }
                "namespace_import" => {
                    if let Some(name) = part.named_child(0) {
                        let import = self.add_import(spec, ImportKind::Namespace, line);
                        self.bind_import(name, import);
                    }
                }
                "named_imports" => {
                    let specifiers: Vec<Node<'s>> = self
                        .named_kids(part)
                        .into_iter()
                        .filter(|n| n.kind_str() == "import_specifier")
                        .collect();
                    for s in specifiers {
                        let Some(name) = s.field(Field::Name) else {
                            continue;
                        };
                        let local = s.field(Field::Alias).unwrap_or(name);
                        let kind = self.imported_kind(name);
                        let import = self.add_import(spec, kind, line);
                        self.bind_import(local, import);
                    }
                }
                _ => {}
            }
        }
    }

    /// `default` names the default export; any other name a named one.
    fn imported_kind(&mut self, name: Node<'s>) -> ImportKind {
        let text = string_literal(name, self.src).unwrap_or_else(|| self.text(name).to_string());
        if text == "default" {
            ImportKind::Default
        } else {
            ImportKind::Named(self.intern(&text))
        }
    }

    fn bind_import(&mut self, local: Node<'s>, import: ImportIdx) {
        let name = self.intern_node(local);
        let value = self.sym(Sym::Import(import));
        self.declare(name, value, false);
    }

    pub(crate) fn export_statement(&mut self, node: Node<'s>, depth: usize) {
        let source = node
            .field(Field::Source)
            .and_then(|s| string_literal(s, self.src));
        let children = self.kids(node);
        let is_default = children.iter().any(|c| c.kind_str() == "default");
        let is_assignment = children.iter().any(|c| c.kind_str() == "=");
        let declaration = node.field(Field::Declaration);
        let value = node.field(Field::Value);

        for child in children {
            if Some(child) == declaration {
                self.exported_declaration(child, is_default, depth + 1);
            } else if Some(child) == value
                || (is_assignment && child.is_named() && child.kind_str() != "comment")
            {
                let name = if is_assignment {
                    "module.exports"
                } else {
                    "default"
                };
                let name = self.intern(name);
                let sym = match self.bound_value(child, name, None, None, depth + 1) {
                    Some(def) => self.sym(Sym::Def(def)),
                    None => {
                        let sym = self.expr_sym(child);
                        self.visit(child, depth + 1);
                        sym
                    }
                };
                if is_assignment {
                    // TypeScript `export = X`
                    if !self.module_block {
                        self.facts.module_exports = Some(sym);
                    } else if let Some(module) = self.namespace {
                        // In `declare module 'x'`: what x is, whole.
                        if self.facts.def(module).reach == Reach::AmbientModule {
                            let whole = self.intern(EXPORT_ASSIGNED);
                            self.add_prop(module, whole, sym);
                        }
                    }
                } else {
                    self.export(name, ExportValue::Local(sym));
                }
            } else {
                match child.kind_str() {
                    // `@Component(...) export class X`: walked with the class.
                    "decorator" if declaration.is_some_and(is_class) => {}
                    "export_clause" => self.export_clause(child, source.as_deref()),
                    "namespace_export" => {
                        if let (Some(alias), Some(spec)) = (child.named_child(0), &source) {
                            let name = self.intern_node(alias);
                            let specifier = self.intern(spec);
                            self.export(
                                name,
                                ExportValue::From {
                                    specifier,
                                    kind: ImportKind::Namespace,
                                },
                            );
                        }
                        self.tokens_only(child);
                    }
                    "*" if source.is_some() && !has_namespace_export(node) => {
                        let specifier = self.intern(source.as_deref().unwrap_or_default());
                        self.export(0, ExportValue::Star { specifier });
                        self.tokens_only(child);
                    }
                    _ => self.visit(child, depth + 1),
                }
            }
        }
    }

    fn export(&mut self, name: StrId, value: ExportValue) {
        // In a namespace or an ambient module, `export` is not about this file.
        if !self.module_block {
            self.facts.exports.push(Export { name, value });
            return;
        }
        // `declare module 'x' { ... export default mongoose; }`: what importing x's
        // default gives, a member of the module's object.
        // (Its declarations are its members already.)
        if let (Some(module), ExportValue::Local(sym)) = (self.namespace, value) {
            if self.facts.def(module).reach == Reach::AmbientModule
                && self.facts.str(name) == "default"
            {
                self.add_prop(module, name, sym);
            }
        }
    }

    /// `export function f`, `export const a = ..., b = ...`, `export default class {}`.
    fn exported_declaration(&mut self, decl: Node<'s>, is_default: bool, depth: usize) {
        // `export declare function f(): T;`: what is declared is what is exported.
        let declared = match decl.kind_str() {
            "ambient_declaration" => decl.named_child(0).unwrap_or(decl),
            _ => decl,
        };
        let names: Vec<Node<'s>> = match declared.kind_str() {
            "lexical_declaration" | "variable_declaration" => {
                let declarators: Vec<Node<'s>> = self
                    .named_kids(declared)
                    .into_iter()
                    .filter(|n| n.kind_str() == "variable_declarator")
                    .collect();
                let mut names = Vec::new();
                for d in declarators {
                    if let Some(target) = d.field(Field::Name) {
                        collect_pattern_names(target, &mut names, 0);
                    }
                }
                names
            }
            // Not `declare module 'x'` or `declare global`: those export nothing here.
            _ => declared
                .field(Field::Name)
                .filter(|n| matches!(n.kind_str(), "identifier" | "type_identifier"))
                .into_iter()
                .collect(),
        };
        if is_default && names.is_empty() {
            // An anonymous default function or class is named `default`.
            let name = self.intern("default");
            let def = match decl.kind_str() {
                "function_declaration" | "generator_function_declaration" => {
                    Some(self.bound_function(decl, DefKind::Function, name, None, None, depth))
                }
                "class_declaration" | "class" | "abstract_class_declaration" => {
                    Some(self.class(decl, name, None, None, depth))
                }
                _ => {
                    self.visit(decl, depth);
                    None
                }
            };
            if let Some(def) = def {
                let sym = self.sym(Sym::Def(def));
                self.export(name, ExportValue::Local(sym));
            }
            return;
        }
        self.visit(decl, depth);
        for n in names {
            let local = self.intern_node(n);
            let exported = if is_default {
                self.intern("default")
            } else {
                local
            };
            let sym = self.reference(local);
            self.export(exported, ExportValue::Local(sym));
        }
    }

    fn export_clause(&mut self, clause: Node<'s>, source: Option<&str>) {
        let specifiers: Vec<Node<'s>> = self
            .named_kids(clause)
            .into_iter()
            .filter(|n| n.kind_str() == "export_specifier")
            .collect();
        for s in specifiers {
            let Some(name) = s.field(Field::Name) else {
                continue;
            };
            let alias = s.field(Field::Alias).unwrap_or(name);
            let exported =
                string_literal(alias, self.src).unwrap_or_else(|| self.text(alias).to_string());
            let exported = self.intern(&exported);
            let value = match source {
                Some(spec) => {
                    let kind = self.imported_kind(name);
                    let specifier = self.intern(spec);
                    ExportValue::From { specifier, kind }
                }
                None => {
                    let local = self.intern_node(name);
                    ExportValue::Local(self.reference(local))
                }
            };
            // `declare namespace knex { export { knex, knex as default, Knex }; }`: in a
            // namespace or a declared module, the clause names members (what
            // `import { Knex } from` a module with `export = knex` reads). A declared
            // module's `default` is made a member by `export` below.
            match (self.module_block, self.namespace, value) {
                (true, Some(ns), ExportValue::Local(sym))
                    if self.facts.str(exported) != "default" =>
                {
                    self.add_prop(ns, exported, sym)
                }
                _ => {}
            }
            self.export(exported, value);
        }
        self.tokens_only(clause);
    }

    /// `Object.assign(module.exports, { a, b })` exports each property.
    pub(crate) fn object_assign_exports(
        &mut self,
        function: Node<'s>,
        args: Node<'s>,
        depth: usize,
    ) -> bool {
        if self.text(function) != "Object.assign" {
            return false;
        }
        let (Some(target), Some(object)) = (args.named_child(0), args.named_child(1)) else {
            return false;
        };
        if !matches!(self.text(target), "module.exports" | "exports")
            || object.kind_str() != "object"
        {
            return false;
        }
        let name = self.intern("module.exports");
        let def = self.object_literal(object, name, None, None, depth + 1);
        // Every property, methods (`{ size() {} }`) included.
        let mut props: Vec<StrId> = self
            .facts
            .props
            .iter()
            .filter(|p| p.object == def)
            .map(|p| p.name)
            .chain(
                self.facts
                    .defs
                    .iter()
                    .filter(|d| d.container() == Some(def))
                    .map(|d| d.name),
            )
            .collect();
        props.sort_unstable();
        props.dedup();
        let object_sym = self.sym(Sym::Def(def));
        for prop in props {
            let sym = self.sym(Sym::Member(object_sym, prop));
            self.export(prop, ExportValue::Local(sym));
        }
        true
    }
}

fn has_namespace_export(node: Node) -> bool {
    let found = Children::of(node)
        .named()
        .any(|c| c.kind_str() == "namespace_export");
    found
}

fn is_class(declaration: Node) -> bool {
    matches!(
        declaration.kind_str(),
        "class_declaration" | "abstract_class_declaration" | "class"
    )
}

/// The names a binding pattern declares (up to a sane nesting depth).
fn collect_pattern_names<'t>(pattern: Node<'t>, out: &mut Vec<Node<'t>>, level: usize) {
    if level > 64 {
        return;
    }
    let level = level + 1;
    match pattern.kind_str() {
        "identifier" | "shorthand_property_identifier_pattern" => out.push(pattern),
        _ => {
            let children: Vec<Node<'t>> = Children::of(pattern).named().collect();
            for c in children {
                match c.kind_str() {
                    "pair_pattern" => {
                        if let Some(v) = c.field(Field::Value) {
                            collect_pattern_names(v, out, level);
                        }
                    }
                    "assignment_pattern" | "object_assignment_pattern" => {
                        if let Some(l) = c.field(Field::Left) {
                            collect_pattern_names(l, out, level);
                        }
                    }
                    _ => collect_pattern_names(c, out, level),
                }
            }
        }
    }
}
