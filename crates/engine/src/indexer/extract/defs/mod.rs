//! Definitions: functions in every binding form, classes and their members, object
//! literals bound to names, interfaces and namespaces. One file per kind of definition;
//! here, what they share: creating a definition and naming it.

mod bound;
mod classes;
mod declarations;
mod functions;
mod objects;
mod params;
mod returns;
mod variables;

use tree_sitter::Node;

use crate::indexer::extract::fields::FieldExt;
use crate::indexer::extract::{Extractor, ThisCtx};
use crate::indexer::facts::*;

/// How a function's parts are walked.
#[derive(Clone, Copy)]
pub(crate) struct FnCtx {
    def: Option<DefIdx>,
    /// `this` inside: None keeps the outer one (arrow functions).
    this: Option<ThisCtx>,
}

impl<'s> Extractor<'s> {
    // ---- creating definitions ----

    pub(crate) fn new_def(
        &mut self,
        kind: DefKind,
        name: StrId,
        container: Option<DefIdx>,
        node: Node<'s>,
        name_node: Option<Node<'s>>,
    ) -> DefIdx {
        let parent = container.or_else(|| self.names.last().copied());
        let qualified = match (self.next_qualified.take(), parent) {
            (Some(qualified), _) => qualified,
            (None, Some(p)) => {
                let q = format!("{}.{}", self.facts.def_qualified(p), self.facts.str(name));
                self.intern(&q)
            }
            (None, None) => name,
        };
        let name_pos = self.pos(name_node.unwrap_or(node));
        let (start, end) = (node.start_position(), node.end_position());
        let idx = self.facts.defs.len() as DefIdx;
        self.def_of_node.insert(node.id(), idx);
        self.facts.defs.push(Definition::new(
            name,
            qualified,
            kind,
            container,
            Span {
                start_byte: node.start_byte() as u32,
                end_byte: node.end_byte() as u32,
                start_line: start.row as u32,
                end_line: end.row as u32,
            },
            name_pos,
        ));
        idx
    }

    pub(crate) fn def_mut(&mut self, idx: DefIdx) -> &mut Definition {
        &mut self.facts.defs[idx as usize]
    }

    /// The name a property key gives: `a`, `'a'`, `#a`, `1`. Computed keys have none.
    pub(crate) fn key_name(&mut self, key: Node<'s>) -> Option<StrId> {
        match key.kind_str() {
            "property_identifier"
            | "private_property_identifier"
            | "identifier"
            | "number"
            | "type_identifier" => Some(self.intern_node(key)),
            "string" => {
                let text = self.text(key);
                let inner = text.get(1..text.len().saturating_sub(1)).unwrap_or("");
                Some(self.intern(inner))
            }
            _ => None,
        }
    }
}
