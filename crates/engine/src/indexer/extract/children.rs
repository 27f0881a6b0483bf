//! A node's children and their fields in one call (see `children.c`): what the walk
//! reads instead of stepping a `TreeCursor` through them.

use std::cell::{Cell, RefCell};

use smallvec::SmallVec;
use tree_sitter::ffi::TSNode;
use tree_sitter::Node;

extern "C" {
    fn blast_children(
        node: *const TSNode,
        nodes: *mut TSNode,
        fields: *mut u16,
        cap: u32,
        declared: *mut u64,
    ) -> u32;
    fn blast_info(node: *const TSNode) -> Info;
}

/// What the walk asks of every node it visits, read in one call (`blast_info` in
/// `children.c`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Info {
    /// `Node::start_byte`.
    pub(crate) start_byte: u32,
    /// `Node::end_byte`.
    pub(crate) end_byte: u32,
    /// `Node::kind_id`.
    pub(crate) symbol: u16,
    flags: u16,
}

impl Info {
    const LEAF: u16 = 1;
    const MISSING: u16 = 2;

    pub(crate) fn of(node: Node) -> Info {
        // SAFETY: reads the subtree of a live node (the node borrows its tree).
        unsafe { blast_info(&node.into_raw()) }
    }

    /// No visible children (`Node::child_count() == 0`).
    pub(crate) fn is_leaf(self) -> bool {
        self.flags & Info::LEAF != 0
    }

    /// `Node::is_missing`.
    pub(crate) fn is_missing(self) -> bool {
        self.flags & Info::MISSING != 0
    }
}

/// Room for the children of most nodes without allocating.
const INLINE: usize = 8;

/// The visible children of one node, in order, each with the id of the field it fills
/// (0 for none): what a `TreeCursor` visits from `goto_first_child` on, and what its
/// `field_id` says at each step.
#[derive(Default)]
pub(crate) struct Children<'t> {
    nodes: SmallVec<[Node<'t>; INLINE]>,
    fields: SmallVec<[u16; INLINE]>,
    /// Bit `id`: the parent's production declares field `id` (ids below 64).
    declared: u64,
    parent: Option<Node<'t>>,
}

impl<'t> Children<'t> {
    pub(crate) fn of(node: Node<'t>) -> Self {
        let mut children = Children::default();
        children.fill(node);
        children
    }

    /// Replaces the contents with `node`'s children (the buffers are reused).
    pub(crate) fn fill(&mut self, node: Node<'t>) {
        let raw = node.into_raw();
        self.parent = Some(node);
        loop {
            self.nodes.clear();
            self.fields.clear();
            let cap = self.nodes.capacity().min(self.fields.capacity());
            // SAFETY: `Node` is a transparent wrapper of `TSNode`; the routine writes at
            // most `cap` entries into each buffer and only reads the tree `node`
            // borrows, which outlives the children ('t).
            let count = unsafe {
                blast_children(
                    &raw,
                    self.nodes.as_mut_ptr().cast::<TSNode>(),
                    self.fields.as_mut_ptr(),
                    cap as u32,
                    &mut self.declared,
                )
            } as usize;
            if count <= cap {
                // SAFETY: the first `count` entries were written just now.
                unsafe {
                    self.nodes.set_len(count);
                    self.fields.set_len(count);
                }
                return;
            }
            self.nodes.reserve_exact(count);
            self.fields.reserve_exact(count);
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    pub(crate) fn node(&self, i: usize) -> Node<'t> {
        self.nodes[i]
    }

    pub(crate) fn field_id(&self, i: usize) -> u16 {
        self.fields[i]
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = Node<'t>> + '_ {
        self.nodes.iter().copied()
    }

    /// The named children (what `Node::named_children` gives).
    pub(crate) fn named(&self) -> impl Iterator<Item = Node<'t>> + '_ {
        self.iter().filter(|n| n.is_named())
    }

    /// The first child that fills field `id`, as `Node::child_by_field_id` finds it,
    /// except where that one is wrong: a hidden node that fills a field and whose own
    /// children fill fields of their own (`typeof A.prototype.m`, see the tests).
    pub(crate) fn by_field(&self, id: u16) -> Option<Node<'t>> {
        if id >= 64 {
            return self.parent?.child_by_field_id(id);
        }
        if self.declared & (1 << id) == 0 {
            return None;
        }
        self.fields
            .iter()
            .position(|&f| f == id)
            .map(|i| self.nodes[i])
    }

    /// Makes this a copy of `other` (the buffers are reused).
    pub(crate) fn copy_from(&mut self, other: &Children<'t>) {
        self.nodes.clear();
        self.nodes.extend_from_slice(&other.nodes);
        self.fields.clear();
        self.fields.extend_from_slice(&other.fields);
        self.declared = other.declared;
        self.parent = other.parent;
    }
}

// The children of the few nodes asked about last, by node id and tree, while a tree is
// being extracted: handlers read several fields of a node and then its children, and
// one pass over them answers all. Only between `recent_open` and `recent_close` (what
// `GrammarScope` does around one tree's extraction), so no entry outlives its tree:
// the `'static` is a lie told to the thread-local, and the nodes get their lifetime
// back on the way out.
thread_local! {
    static RECENT: RefCell<(Recent, usize)> = RefCell::default();
    static RECENT_OPEN: Cell<bool> = const { Cell::new(false) };
}

/// How many nodes' children the cache holds: a handler reading a member chain
/// (`a.b.c()`) asks about each link before the walk comes back to the first.
const RECENT_ENTRIES: usize = 4;

/// The entries and the index of the latest.
type Recent = [((usize, usize), Children<'static>); RECENT_ENTRIES];

pub(crate) fn recent_open() {
    recent_forget();
    RECENT_OPEN.set(true);
}

pub(crate) fn recent_close() {
    recent_forget();
    RECENT_OPEN.set(false);
}

fn recent_forget() {
    RECENT.with(|r| {
        for entry in r.borrow_mut().0.iter_mut() {
            entry.0 = (0, 0);
        }
    });
}

fn key(node: Node) -> (usize, usize) {
    (node.id(), node.into_raw().tree as usize)
}

/// An entry's nodes with their lifetime back.
fn shorten<'a, 't>(entry: &'a Children<'static>) -> &'a Children<'t> {
    // SAFETY: entries are filled from nodes of the tree being extracted, all alive
    // ('t) until the cache is forgotten; only the lifetime changes.
    unsafe { &*(entry as *const Children<'static>).cast::<Children<'t>>() }
}

/// `f` of `node`'s children, read through the cache (`f` must not ask it again).
pub(crate) fn with_recent<'t, R>(node: Node<'t>, f: impl FnOnce(&Children<'t>) -> R) -> R {
    if !RECENT_OPEN.get() {
        return f(&Children::of(node));
    }
    let key = key(node);
    RECENT.with(|r| {
        let (entries, latest) = &mut *r.borrow_mut();
        if entries[*latest].0 != key {
            match entries.iter().position(|e| e.0 == key) {
                Some(i) => *latest = i,
                None => {
                    // The oldest entry goes (they are filled in turn).
                    *latest = (*latest + 1) % RECENT_ENTRIES;
                    let entry = &mut entries[*latest];
                    entry.0 = key;
                    // SAFETY: the entry is forgotten when the extraction of this tree
                    // ends.
                    entry.1.fill(unsafe { Node::from_raw(node.into_raw()) });
                }
            }
        }
        f(shorten(&entries[*latest].1))
    })
}

/// Fills `out` with `node`'s children, from the cache when it holds them (it is not
/// filled: a walk reads a node's children last).
pub(crate) fn fill_recent<'t>(node: Node<'t>, out: &mut Children<'t>) {
    if RECENT_OPEN.get() {
        let key = key(node);
        let hit = RECENT.with(|r| {
            let (entries, _) = &*r.borrow();
            match entries.iter().find(|e| e.0 == key) {
                Some(entry) => {
                    out.copy_from(shorten(&entry.1));
                    true
                }
                None => false,
            }
        });
        if hit {
            return;
        }
    }
    out.fill(node);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexer::Language;

    /// Every node of `source`: its children and fields through the cursor and through
    /// `Children`, and every field through `child_by_field_id`.
    /// Returns the nodes seen, the missing nodes and the error nodes among them.
    fn check(language: Language, source: &str) -> (usize, usize, usize) {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language.grammar()).unwrap();
        let tree = parser.parse(source, None).unwrap();
        let grammar = language.grammar();
        let mut nodes = vec![tree.root_node()];
        let (mut seen, mut missing, mut errors) = (0, 0, 0);
        while let Some(node) = nodes.pop() {
            seen += 1;
            let children = Children::of(node);
            let mut cursor = node.walk();
            let mut expected = Vec::new();
            if cursor.goto_first_child() {
                loop {
                    let id = cursor.field_id().map_or(0, |f| f.get());
                    expected.push((cursor.node(), id));
                    if !cursor.goto_next_sibling() {
                        break;
                    }
                }
            }
            let got: Vec<_> = (0..children.len())
                .map(|i| (children.node(i), children.field_id(i)))
                .collect();
            assert_eq!(got, expected, "children of {node:?} in {source:?}");
            for (a, b) in got.iter().zip(&expected) {
                assert_eq!(a.0.start_position(), b.0.start_position());
                assert_eq!(a.0.byte_range(), b.0.byte_range());
                assert_eq!(a.0.kind_id(), b.0.kind_id());
            }
            let info = Info::of(node);
            assert_eq!(info.start_byte as usize, node.start_byte(), "{node:?}");
            assert_eq!(info.end_byte as usize, node.end_byte(), "{node:?}");
            assert_eq!(info.symbol, node.kind_id(), "{node:?}");
            assert_eq!(info.is_leaf(), node.child_count() == 0, "{node:?}");
            assert_eq!(info.is_missing(), node.is_missing(), "{node:?}");
            missing += usize::from(node.is_missing());
            errors += usize::from(node.is_error());
            for id in 1..=grammar.field_count() as u16 {
                let theirs = node.child_by_field_id(id);
                // For an aliased hidden node under a type query (`(typeof
                // import('./x'))[K]`), tree-sitter answers a field of that child's own
                // children, which is no child of this node: the cursor and `Children`
                // see no such field here.
                if node.kind() == "type_query"
                    && theirs.is_some_and(|t| !children.iter().any(|c| c == t))
                    && children.by_field(id).is_none()
                {
                    continue;
                }
                assert_eq!(
                    children.by_field(id),
                    theirs,
                    "field {:?} of {node:?} in {source:?}",
                    grammar.field_name_for_id(id)
                );
            }
            nodes.extend(children.iter());
        }
        (seen, missing, errors)
    }

    #[test]
    fn children_are_what_the_cursor_visits() {
        let sources = [
            "function f(a, b = 1, ...c) { return a?.b?.(c)[0] + `x${y}` }",
            "class A extends B { #p = 1; static s() {} get g() { return this.#p } }",
            "export default async function* g() { yield* h(); } /* c */ // d\n",
            "const { a, b: [c, d] } = require('x'); import x, { y as z } from 'y';",
            "if (a) b(); else { c() } for (const k in o) {} switch (x) { case 1: break }",
            "function (a, { x = `${", // broken
            "if (a) {",               // broken: a missing `}`
            "let x = <Foo a={1} {...b}><ui.Bar/>text{/* c */}</Foo>;",
            "a = b ? c : d; new X(1); x = function () {}; label: for (;;) {}",
        ];
        let typed = [
            "abstract class A<T> implements B { private x: Map<string, T>; abstract m(): void; }",
            "declare module 'x' { export function f(a: number): string; }",
            "namespace N { export const x = 1 } enum E { A = 1, B } type T = { a: (x: number) => void };",
            "function f<T extends keyof U, U>(this: Window, x?: T): asserts x is T {}",
            "@Dec() class C { constructor(private readonly a: A) {} @m() f() {} }",
            "import fs = require('fs'); export = f; let x = <T,>(y: T) => y satisfies T;",
        ];
        let mut seen = (0, 0, 0);
        let mut add = |(n, m, e)| seen = (seen.0 + n, seen.1 + m, seen.2 + e);
        for source in sources {
            for lang in Language::ALL {
                add(check(lang, source));
            }
        }
        for source in typed {
            add(check(Language::TypeScript, source));
            add(check(Language::Tsx, source));
        }
        assert!(seen.0 > 1000, "{} nodes", seen.0);
        // The broken source exercises what a missing or an error node says of itself.
        assert!(seen.1 > 0 && seen.2 > 0, "{seen:?}");
    }

    /// `typeof A.prototype.m` in a type: tree-sitter-typescript parses the object as a
    /// hidden node that fills `object` and has a `property` of its own, and
    /// `child_by_field_id` answers `prototype` for the outer `property`; the cursor, the
    /// printed tree and `Children` answer `m`.
    #[test]
    fn the_property_of_a_member_in_a_type_query_is_its_last_name() {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&Language::TypeScript.grammar())
            .unwrap();
        let source = "let cold: typeof A.prototype.m;";
        let tree = parser.parse(source, None).unwrap();
        let mut nodes = vec![tree.root_node()];
        let mut member = None;
        while let Some(node) = nodes.pop() {
            if node.kind() == "member_expression" && member.is_none() {
                member = Some(node);
            }
            nodes.extend(Children::of(node).iter());
        }
        let member = member.expect("a member expression");
        assert_eq!(&source[member.byte_range()], "A.prototype.m");
        let property = member
            .language()
            .field_id_for_name("property")
            .unwrap()
            .get();
        let found = Children::of(member).by_field(property).unwrap();
        assert_eq!(&source[found.byte_range()], "m");
        let theirs = member.child_by_field_id(property).unwrap();
        assert_eq!(&source[theirs.byte_range()], "prototype", "fixed upstream?");
    }

    /// The same on every source file of the fixtures: code written to cover every form.
    #[test]
    fn children_are_what_the_cursor_visits_in_every_fixture() {
        let mut dirs =
            vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")];
        let mut files = 0;
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let Some(language) = Language::from_path(&path.to_string_lossy()) else {
                    continue;
                };
                let Ok(source) = std::fs::read_to_string(&path) else {
                    continue;
                };
                check(language, &source);
                files += 1;
            }
        }
        assert!(files > 50, "{files} fixture files");
    }
}
