//! Field and node-kind lookups by id. `child_by_field_name` compares strings on every
//! call and `Node::kind` measures and validates a C string on every call; both showed
//! up as several percent of indexing time. Ids are resolved once per grammar here.

use std::cell::Cell;
use std::sync::OnceLock;

use tree_sitter::Node;

use super::{children, HANDLED_KINDS};

use crate::indexer::Language;

macro_rules! fields {
    ($($variant:ident = $name:literal),* $(,)?) => {
        #[derive(Clone, Copy, Debug)]
        pub(crate) enum Field { $($variant),* }
        const NAMES: &[&str] = &[$($name),*];
    };
}

fields! {
    Alias = "alias",
    Alternative = "alternative",
    Argument = "argument",
    Arguments = "arguments",
    Body = "body",
    Condition = "condition",
    Consequence = "consequence",
    Constraint = "constraint",
    Constructor = "constructor",
    Declaration = "declaration",
    Function = "function",
    Index = "index",
    Key = "key",
    Kind = "kind",
    Left = "left",
    Module = "module",
    Name = "name",
    Object = "object",
    Operator = "operator",
    Parameter = "parameter",
    Parameters = "parameters",
    Pattern = "pattern",
    Property = "property",
    ReturnType = "return_type",
    Right = "right",
    Source = "source",
    Type = "type",
    TypeArguments = "type_arguments",
    TypeParameters = "type_parameters",
    Value = "value",
}

/// What the walk does with a leaf token, by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LeafClass {
    /// Hashed as written.
    Token,
    /// Not part of any hash: comments, semicolons, quote marks.
    Ignored,
    /// Hashed unless it is a trailing comma.
    Comma,
    /// JSX text: hashed with whitespace collapsed.
    JsxText,
}

struct Table {
    /// Compared by address: what identifies a grammar cheaply.
    grammar: tree_sitter::Language,
    ids: Vec<u16>,
    /// Per node kind id: the index in `HANDLED_KINDS` + 1, or 0.
    handlers: Vec<u8>,
    leaves: Vec<LeafClass>,
    /// Per node kind id: its name.
    kinds: Vec<&'static str>,
    /// Per field id: its name.
    field_names: Vec<&'static str>,
}

fn leaf_class_of_kind(kind: &str) -> LeafClass {
    match kind {
        "comment" | "html_comment" | "hash_bang_line" | ";" | "\"" | "'" => LeafClass::Ignored,
        "," => LeafClass::Comma,
        "jsx_text" => LeafClass::JsxText,
        _ => LeafClass::Token,
    }
}

fn tables() -> &'static [Table] {
    static TABLES: OnceLock<Vec<Table>> = OnceLock::new();
    TABLES.get_or_init(|| {
        Language::ALL
            .iter()
            .map(|l| {
                let grammar = l.grammar();
                let ids = NAMES
                    .iter()
                    .map(|n| grammar.field_id_for_name(n).map_or(0, |id| id.get()))
                    .collect();
                let kinds: Vec<&'static str> = (0..grammar.node_kind_count() as u16)
                    .map(|id| grammar.node_kind_for_id(id).unwrap_or(""))
                    .collect();
                let handlers = kinds
                    .iter()
                    .map(|k| {
                        HANDLED_KINDS
                            .iter()
                            .position(|h| h == k)
                            .map_or(0, |i| i as u8 + 1)
                    })
                    .collect();
                let leaves = kinds.iter().map(|k| leaf_class_of_kind(k)).collect();
                let field_names = (0..=grammar.field_count() as u16)
                    .map(|id| grammar.field_name_for_id(id).unwrap_or(""))
                    .collect();
                Table {
                    grammar,
                    ids,
                    handlers,
                    leaves,
                    kinds,
                    field_names,
                }
            })
            .collect()
    })
}

thread_local! {
    /// The grammar of the tree this thread is extracting (see [`GrammarScope`]).
    static CURRENT: Cell<Option<&'static Table>> = const { Cell::new(None) };
}

/// While alive, every node looked up on this thread is of `language`'s grammar: the
/// tree being extracted. Saves asking each node for its language (a call into C) and
/// searching the tables, several times per node.
pub(crate) struct GrammarScope(Option<&'static Table>);

impl GrammarScope {
    pub(crate) fn enter(language: Language) -> GrammarScope {
        let grammar = language.grammar();
        let table = tables().iter().find(|t| t.grammar == grammar);
        children::recent_open();
        GrammarScope(CURRENT.replace(table))
    }
}

impl Drop for GrammarScope {
    fn drop(&mut self) {
        children::recent_close();
        CURRENT.set(self.0);
    }
}

fn table_of(node: &Node) -> Option<&'static Table> {
    if let Some(table) = CURRENT.get() {
        debug_assert!(
            table.grammar == *node.language(),
            "a node of another grammar"
        );
        return Some(table);
    }
    let language = node.language();
    tables().iter().find(|t| t.grammar == *language)
}

/// The name of field `id` in `node`'s grammar (what `TreeCursor::field_name` gives,
/// without measuring and validating a C string).
pub(crate) fn field_name(node: &Node, id: u16) -> Option<&'static str> {
    let name = *table_of(node)?.field_names.get(id as usize)?;
    (!name.is_empty()).then_some(name)
}

pub(crate) trait FieldExt<'t> {
    fn field(&self, field: Field) -> Option<Node<'t>>;
    /// `Node::kind` from a table: that one measures and validates a C string per call.
    fn kind_str(&self) -> &'static str;
}

impl<'t> FieldExt<'t> for Node<'t> {
    #[inline]
    fn field(&self, field: Field) -> Option<Node<'t>> {
        match table_of(self)?.ids[field as usize] {
            0 => None,
            id => children::with_recent(*self, |c| c.by_field(id)),
        }
    }

    #[inline]
    fn kind_str(&self) -> &'static str {
        match table_of(self).and_then(|t| t.kinds.get(self.kind_id() as usize)) {
            Some(kind) => kind,
            // The error symbol lies outside the grammar's kind table.
            None if self.is_error() => "ERROR",
            None => "",
        }
    }
}

/// The handler code of `node`, whose kind id is `symbol`: its index in `HANDLED_KINDS`
/// + 1, or 0.
#[inline]
pub(crate) fn handler_code(node: &Node, symbol: u16) -> u8 {
    match table_of(node).and_then(|t| t.handlers.get(symbol as usize)) {
        Some(&code) => code,
        // The error symbol lies outside the grammar's kind table.
        None if symbol == u16::MAX => HANDLED_KINDS
            .iter()
            .position(|k| *k == "ERROR")
            .map_or(0, |i| i as u8 + 1),
        None => 0,
    }
}

/// What the walk does with leaf `node`, whose kind id is `symbol`.
#[inline]
pub(crate) fn leaf_class(node: &Node, symbol: u16) -> LeafClass {
    table_of(node).map_or(LeafClass::Token, |t| {
        t.leaves
            .get(symbol as usize)
            .copied()
            .unwrap_or(LeafClass::Token)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_ids_find_the_same_children_as_names() {
        for lang in Language::ALL {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&lang.grammar()).unwrap();
            let tree = parser.parse("function f(a) { return a.b; }", None).unwrap();
            let f = tree.root_node().child(0).unwrap();
            assert_eq!(f.field(Field::Name), f.child_by_field_name("name"));
            assert_eq!(f.field(Field::Body), f.child_by_field_name("body"));
            assert_eq!(f.field(Field::Left), None);
            let code = handler_code(&f, f.kind_id()) as usize;
            assert_eq!(HANDLED_KINDS[code - 1], "function_declaration");
            assert_eq!(f.kind_str(), f.kind());
            // Every node of a broken file, the error nodes included.
            let broken = parser.parse("function (a, { x = `${", None).unwrap();
            let mut cursor = broken.walk();
            let mut errors = 0;
            'walk: loop {
                let node = cursor.node();
                assert_eq!(node.kind_str(), node.kind());
                errors += usize::from(node.is_error());
                if cursor.goto_first_child() {
                    continue;
                }
                while !cursor.goto_next_sibling() {
                    if !cursor.goto_parent() {
                        break 'walk;
                    }
                }
            }
            assert!(errors > 0, "{lang:?}");
        }
    }
}
