//! A second parse around one misparse of tree-sitter-typescript.
//!
//! TypeScript never reads a `<` that begins a line as the type arguments of the type
//! that ends the line before (its parser asks for no line break in between). The
//! grammar does, so an interface or object type with a generic call signature after
//! another member fails to parse:
//!
//! ```ts
//! interface HandlerInterface {
//!   (handler: H): Hono
//!   <P extends string>(path: P, handler: H): Hono   // read as `Hono<P extends ...`
//! }
//! ```
//!
//! hono's `types.ts` takes 460 error nodes from this, and every call through its
//! routing methods goes unresolved. When a TypeScript file has errors, each such `<`
//! inside an error gets a `;` in the blank just before it (same length: every byte
//! offset, line and column stays) and the file is parsed again; the second tree is kept
//! only if it has fewer errors. The `;` is a member separator the walk ignores (no
//! token of any hash), so the facts are what a correct parse of the original gives.
//!
//! Only the TypeScript grammar: in TSX a `<` at the start of a line is as often JSX.

use tree_sitter::{Node, Parser, Tree};

/// The repaired source and its tree, when patching helps.
pub(crate) fn reparse(parser: &mut Parser, source: &str, tree: &Tree) -> Option<(String, Tree)> {
    let root = tree.root_node();
    let spots: Vec<usize> = candidates(source)
        .filter(|&at| inside_error(root, at))
        .collect();
    if spots.is_empty() {
        return None;
    }
    let mut patched = source.as_bytes().to_vec();
    for &at in &spots {
        // The blank before the `<`: a space or a tab, never a line break.
        patched[at - 1] = b';';
    }
    // Only ASCII blanks were replaced by an ASCII byte: still UTF-8.
    let patched = String::from_utf8(patched).ok()?;
    let second = parser.parse(&patched, None)?;
    (super::count_errors(second.root_node()) < super::count_errors(root))
        .then_some((patched, second))
}

/// Byte offsets of each `<` that begins a line (after a blank), starts a type parameter
/// list (a name follows, maybe on the next line), and follows what can end a type on an
/// earlier line.
fn candidates(source: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = source.as_bytes();
    let mut next_line = 0;
    source.split_inclusive('\n').filter_map(move |line| {
        let start = next_line;
        next_line += line.len();
        let indent = line
            .bytes()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let at = start + indent;
        // `<P`, `<const T`, or a list that opens on its own line (`<\n    P extends`).
        let opens_type_parameters = indent > 0
            && bytes.get(at) == Some(&b'<')
            && bytes[at + 1..]
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_' || *b == b'$');
        (opens_type_parameters && ends_a_type(previous_significant(bytes, start))).then_some(at)
    })
}

/// The last byte before `at` that is not whitespace.
fn previous_significant(bytes: &[u8], at: usize) -> Option<u8> {
    bytes[..at]
        .iter()
        .rev()
        .copied()
        .find(|b| !b.is_ascii_whitespace())
}

/// What a type (the member before the signature) can end with: a name, `)`, `]`, `>`,
/// `}`, a literal's quote or digit.
fn ends_a_type(b: Option<u8>) -> bool {
    b.is_some_and(|b| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'_' | b'$' | b')' | b']' | b'>' | b'}' | b'\'' | b'"' | b'`'
            )
    })
}

/// Whether the byte at `at` lies in an error node (what parsed fine is left alone).
/// Down from the root, one step per level (`Node::parent` searches from the root at
/// every call).
fn inside_error(root: Node, at: usize) -> bool {
    let mut cursor = root.walk();
    loop {
        if cursor.node().is_error() {
            return true;
        }
        if cursor.goto_first_child_for_byte(at).is_none() {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexer::Language;

    fn parse(source: &str) -> (Parser, Tree) {
        let mut parser = Parser::new();
        parser
            .set_language(&Language::TypeScript.grammar())
            .unwrap();
        let tree = parser.parse(source, None).unwrap();
        (parser, tree)
    }

    #[test]
    fn a_generic_call_signature_after_a_member_parses_after_the_repair() {
        let source = "interface HandlerInterface {\n  (handler: H): Hono\n  <P extends string>(path: P, handler: H): Hono\n  m(): Promise<X>\n  <const T>(x: T): T\n  <\n    P extends string,\n    R = any,\n  >(path: P): R\n}\ntype B = {\n  a: string\n\t<T>(x: T): T\n}\n";
        let (mut parser, tree) = parse(source);
        assert!(tree.root_node().has_error(), "fixed upstream?");
        let (patched, repaired) = reparse(&mut parser, source, &tree).expect("a repair");
        assert!(!repaired.root_node().has_error());
        assert_eq!(patched.len(), source.len());
        assert_eq!(patched.lines().count(), source.lines().count());
        assert_eq!(patched.matches(';').count(), 4);
        let body = repaired.root_node().child(0).unwrap().child(2).unwrap();
        let signatures = (0..body.named_child_count())
            .filter(|&i| body.named_child(i).unwrap().kind() == "call_signature")
            .count();
        assert_eq!(signatures, 4);
    }

    #[test]
    fn code_that_parses_is_left_alone() {
        // A comparison continued on the next line, and a generic arrow function.
        let source = "const a = b\n  < c;\nconst f =\n  <T>(x: T) => x;\n";
        let (mut parser, tree) = parse(source);
        assert!(!tree.root_node().has_error());
        assert!(reparse(&mut parser, source, &tree).is_none());
        // Errors elsewhere do not patch what parsed: the `<` here is in no error node.
        let broken = "const a = b\n  < c;\nfunction (\n";
        let (mut parser, tree) = parse(broken);
        assert!(tree.root_node().has_error());
        assert!(reparse(&mut parser, broken, &tree).is_none());
    }
}
