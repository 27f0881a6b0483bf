//! A second parse around misreadings of tree-sitter-typescript.
//!
//! Each misreading is a syntax TypeScript accepts and the grammar does not; each has a
//! patch of the same length that the grammar reads as what TypeScript means, so every
//! byte offset, line and column of the file stays. When a TypeScript file has errors,
//! every spot of a misreading that lies inside an error node is patched and the file is
//! parsed again; the second tree is kept only if it has fewer errors. The file's facts
//! say which repairs were made ([`Repair`]).
//!
//! **Generic call signatures on their own line.** TypeScript never reads a `<` that
//! begins a line as the type arguments of the type that ends the line before (its
//! parser asks for no line break in between). The grammar does, so an interface or
//! object type with a generic call signature after another member fails to parse:
//!
//! ```ts
//! interface HandlerInterface {
//!   (handler: H): Hono
//!   <P extends string>(path: P, handler: H): Hono   // read as `Hono<P extends ...`
//! }
//! ```
//!
//! hono's `types.ts` takes 460 error nodes from this, and every call through its
//! routing methods goes unresolved. Each such `<` gets a `;` in the blank just before
//! it. The `;` is a member separator the walk ignores (no token of any hash), so the
//! facts are what a correct parse of the original gives. Only the TypeScript grammar:
//! in TSX a `<` at the start of a line is as often JSX.
//!
//! **`export type * from './x'`** (and `export type * as ns from './x'`, TypeScript
//! 5.0): the grammar knows `export type { a } from` but not the star, and the whole
//! statement is lost (date-fns re-exports its types this way). The `type` is blanked
//! (four spaces): a type-only re-export is a re-export for the graph, as `export type
//! { a }` already is. Both grammars.
//!
//! **`static accessor count = 0`** (auto-accessors, TypeScript 4.9): the grammar takes
//! `accessor` only as a class member's sole modifier, and `static`, `override` or
//! `readonly` before it loses the member. The `accessor` is blanked: the member reads as
//! the field it is backed by, which is what the graph knows of an accessor anyway.
//!
//! **Chained decorators** (`@Returns(200, String).Description("ok")`): TypeScript
//! reads any call chain after `@`; the grammar reads a name, a member or one call, and
//! the rest of the class body is lost (tsed's schema decorators chain this way on
//! every route). The grammar reads any expression as an argument, so the two blanks
//! before the `@` and the `@` become `@x(`, and the first blank after the chain (on its
//! line, or the next line's indentation) becomes `)`: the chain keeps its offsets, as
//! the argument of a call the walk sees through (it is told where these decorators
//! start: [`Reparsed::wrapped`]).
//!
//! **`import('./types.js').FPFn2<Date, D>`**: the grammar reads an import type's
//! members but not type arguments after them, and the declaration is lost (each of
//! date-fns' ~800 `fp/*.d.ts` files is one such declaration). The type arguments are
//! blanked, line breaks kept: the graph reads a generic type by its name (only
//! `Promise`, arrays and the like look inside, never an import type), so what is lost
//! is the import types written inside the arguments.

use tree_sitter::{Node, Parser, Tree};

use crate::indexer::facts::Repair;
use crate::indexer::Language;

/// A second parse that has fewer errors than the first.
pub(crate) struct Reparsed {
    pub(crate) source: String,
    pub(crate) tree: Tree,
    /// The repairs made, sorted.
    pub(crate) repairs: Vec<Repair>,
    /// Where the decorators wrapped in a call by the repair start (the `@`), sorted.
    pub(crate) wrapped: Vec<usize>,
}

/// The repaired source and its tree, when patching helps.
pub(crate) fn reparse(
    parser: &mut Parser,
    language: Language,
    source: &str,
    tree: &Tree,
    meter: &mut super::budget::ParseMeter,
) -> Option<Reparsed> {
    let root = tree.root_node();
    let errors = ErrorSpans::of(root);
    // (offset, replacement of the same length, repair)
    let mut patches: Vec<(usize, &'static [u8], Repair)> = Vec::new();
    if language == Language::TypeScript {
        // The blank before the `<`: a space or a tab, never a line break.
        patches.extend(
            candidates(source)
                .filter(|&at| errors.contain(at))
                .map(|at| (at - 1, b";".as_slice(), Repair::GenericCallSignature)),
        );
    }
    patches.extend(
        type_stars(source)
            .filter(|&at| errors.contain(at))
            .map(|at| (at, b"    ".as_slice(), Repair::ExportTypeStar)),
    );
    // The grammar reads `static` as the member's name; the error is at the real name.
    patches.extend(
        modified_accessors(source)
            .filter(|&(_, name)| errors.contain(name))
            .map(|(at, _)| (at, b"        ".as_slice(), Repair::ModifiedAccessor)),
    );
    // Each decorator's two patches go in together or not at all, and never over the
    // close of the one before (a one-blank indentation has room for only one).
    let mut closed = 0;
    let mut wrapped = Vec::new();
    for (open, chained_at, close) in chained_decorators(source) {
        // (The grammar reads up to the first call; the error is at the `.` after it.)
        if open >= closed && errors.contain(chained_at) {
            patches.push((open, b"@x(".as_slice(), Repair::ChainedDecorator));
            patches.push((close, b")".as_slice(), Repair::ChainedDecorator));
            wrapped.push(open);
            closed = close + 1;
        }
    }
    // No rule of the grammar reads these type arguments: it ends the declaration before
    // them (a missing `;`, no error node) and reads them as an expression. Where they
    // did parse (an instantiation expression), blanking them changes no fact the graph
    // reads, and the second parse is kept only if it has fewer errors.
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    for (at, end) in import_type_arguments(source) {
        if blanks.last().is_none_or(|&(_, e)| e <= at) {
            blanks.push((at, end));
        }
    }
    if patches.is_empty() && blanks.is_empty() {
        return None;
    }
    let mut patched = source.as_bytes().to_vec();
    for &(at, with, _) in &patches {
        patched[at..at + with.len()].copy_from_slice(with);
    }
    for &(at, end) in &blanks {
        // Whole characters: everything but line breaks becomes one blank per byte.
        for b in &mut patched[at..end] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    // ASCII bytes and whole characters were replaced by ASCII bytes: still UTF-8.
    let patched = String::from_utf8(patched).ok()?;
    let errors_before = super::count_errors(root);
    // The first tree, told where the text changed: the second parse reuses the rest of
    // it instead of reading the file again from its start (every edit keeps its
    // length and its line breaks, so positions after it do not move).
    let mut old = tree.clone();
    let mut edits: Vec<(usize, usize)> = patches
        .iter()
        .map(|&(at, with, _)| (at, at + with.len()))
        .chain(blanks.iter().copied())
        .collect();
    edits.sort_unstable();
    // Ranges that overlap or touch are one edit (tree-sitter's edits do not overlap).
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(edits.len());
    for (start, end) in edits {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    let mut points = Points::new(source);
    for (start, end) in merged {
        let (from, to) = (points.at(start), points.at(end));
        old.edit(&tree_sitter::InputEdit {
            start_byte: start,
            old_end_byte: end,
            new_end_byte: end,
            start_position: from,
            old_end_position: to,
            new_end_position: to,
        });
    }
    // Within the same allowance as the first parse: a file pays for its repair.
    let second = super::parse(parser, &patched, Some(&old), meter);
    crate::indexer::arena::discard(old);
    let second = second?;
    if super::count_errors(second.root_node()) >= errors_before {
        return None;
    }
    let mut repairs: Vec<Repair> = patches.iter().map(|&(_, _, r)| r).collect();
    if !blanks.is_empty() {
        repairs.push(Repair::ImportTypeArguments);
    }
    repairs.sort();
    repairs.dedup();
    Some(Reparsed {
        source: patched,
        tree: second,
        repairs,
        wrapped,
    })
}

/// Byte offsets of the `type` of each `export type *` (blanks, line breaks included,
/// between the words; a comment between them is not looked through).
fn type_stars(source: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = source.as_bytes();
    let skip_blanks = move |mut at: usize| {
        while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace()) {
            at += 1;
        }
        at
    };
    source.match_indices("export").filter_map(move |(at, _)| {
        if at > 0 && is_word(bytes[at - 1]) {
            return None;
        }
        let after = at + "export".len();
        let ty = skip_blanks(after);
        if ty == after || !bytes[ty..].starts_with(b"type") {
            return None;
        }
        let star = skip_blanks(ty + "type".len());
        (star > ty + "type".len() && bytes.get(star) == Some(&b'*')).then_some(ty)
    })
}

/// The byte ranges `<...>` of the type arguments after each import type's member
/// (`import("./x").A.B<...>`), to their matching `>` (`=>` inside is an arrow; a string
/// is skipped whole). Nothing when the brackets do not match within a few kilobytes.
/// The scans together read at most a few times the file: a file of unclosed `<`s after
/// import types (each scan reading its few kilobytes) would otherwise cost its size
/// times the span; past that, the remaining candidates are left unrepaired.
fn import_type_arguments(source: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    const MAX_SPAN: usize = 8_192;
    let bytes = source.as_bytes();
    let mut budget = bytes.len().saturating_mul(4).saturating_add(MAX_SPAN);
    source
        .match_indices("import(")
        .filter_map(move |(at, word)| {
            if budget == 0 {
                return None;
            }
            if at > 0 && is_word(bytes[at - 1]) {
                return None;
            }
            // The specifier: one string literal.
            let mut i = at + word.len();
            let quote = *bytes.get(i)?;
            if quote != b'"' && quote != b'\'' {
                return None;
            }
            let limit = (i + 1 + MAX_SPAN).min(bytes.len());
            let close = bytes
                .get(i + 1..limit)?
                .iter()
                .position(|&b| b == quote || b == b'\n')?;
            budget = budget.saturating_sub(close);
            i += 1 + close;
            if bytes[i] != quote || bytes.get(i + 1) != Some(&b')') {
                return None;
            }
            i += 2;
            // `.Name` once or more.
            let mut members = 0;
            while bytes.get(i) == Some(&b'.') {
                let name = bytes[i + 1..].iter().take_while(|&&b| is_word(b)).count();
                if name == 0 {
                    return None;
                }
                i += 1 + name;
                members += 1;
            }
            if members == 0 || bytes.get(i) != Some(&b'<') {
                return None;
            }
            let start = i;
            let mut depth = 0usize;
            while i < bytes.len() && i - start < MAX_SPAN {
                budget = budget.saturating_sub(1);
                if budget == 0 {
                    return None;
                }
                match bytes[i] {
                    b'<' => depth += 1,
                    b'>' if i > 0 && bytes[i - 1] == b'=' => {}
                    b'>' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some((start, i + 1));
                        }
                    }
                    q @ (b'"' | b'\'' | b'`') => {
                        let limit = (start + MAX_SPAN).clamp(i + 1, bytes.len());
                        let close = bytes[i + 1..limit].iter().position(|&b| b == q)?;
                        budget = budget.saturating_sub(close);
                        i += 1 + close;
                    }
                    b';' | b'{' | b'}' => return None,
                    _ => {}
                }
                i += 1;
            }
            None
        })
}

/// For each decorator whose expression calls a member of a call's result (`@a(1).b(2)`,
/// after two blanks): the offset of those blanks, of the first `.` after a call, and of
/// the first blank after the chain (on its line, or the next line's indentation).
/// Arguments are skipped with their strings and comments; a chain longer than a few
/// kilobytes, or unbalanced, is left. Linear: an `@` inside what an earlier one's scan
/// read is not scanned again.
fn chained_decorators(source: &str) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let bytes = source.as_bytes();
    let blank = |b: u8| matches!(b, b' ' | b'\t');
    let mut scanned = 0;
    source.match_indices('@').filter_map(move |(at, _)| {
        if at < 2 || at < scanned || !blank(bytes[at - 1]) || !blank(bytes[at - 2]) {
            return None;
        }
        let (chain, reached) = decorator_chain(bytes, at + 1);
        scanned = reached;
        let (chained_at, end) = chain?;
        let close = match bytes.get(end)? {
            b' ' | b'\t' => end,
            b'\n' => end + 1,
            b'\r' if bytes.get(end + 1) == Some(&b'\n') => end + 2,
            _ => return None,
        };
        bytes
            .get(close)
            .is_some_and(|&b| blank(b))
            .then_some((at - 2, chained_at, close))
    })
}

/// Where the first member after a call is, and where the expression ends, of a decorator
/// starting at `start` (after the `@`) that is such a call chain: `a.b(x)<T>.c(y)!.d`;
/// with how far the scan read.
fn decorator_chain(bytes: &[u8], start: usize) -> (Option<(usize, usize)>, usize) {
    const MAX_SPAN: usize = 8_192;
    let limit = bytes.len().min(start + MAX_SPAN);
    let name = |at: usize| -> usize {
        match bytes.get(at) {
            Some(b) if is_word(*b) && !b.is_ascii_digit() => {
                bytes[at..].iter().take_while(|&&b| is_word(b)).count()
            }
            _ => 0,
        }
    };
    let mut i = start + name(start);
    if i == start {
        return (None, i);
    }
    let (mut calls, mut chained) = (0, None);
    while i < limit {
        match bytes[i] {
            b'.' => {
                let n = name(i + 1);
                if n == 0 {
                    return (None, i);
                }
                if calls > 0 && chained.is_none() {
                    chained = Some(i);
                }
                i += 1 + n;
            }
            b'(' => match balanced_end(bytes, i, limit) {
                Ok(end) => {
                    i = end;
                    calls += 1;
                }
                Err(reached) => return (None, reached),
            },
            b'<' => {
                // Type arguments: to the matching `>` (`=>` inside is an arrow).
                let mut depth = 0usize;
                loop {
                    if i >= limit {
                        return (None, i);
                    }
                    match bytes[i] {
                        b'<' => depth += 1,
                        b'>' if bytes[i - 1] != b'=' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        b';' | b'{' | b'}' | b'\n' => return (None, i),
                        _ => {}
                    }
                    i += 1;
                }
                i += 1;
            }
            b'!' => i += 1,
            _ => return (chained.map(|at| (at, i)), i),
        }
    }
    (None, i)
}

/// The offset after the bracket that closes the one at `open`, skipping strings,
/// template literals and comments; else how far it read (to `limit` at most).
fn balanced_end(bytes: &[u8], open: usize, limit: usize) -> Result<usize, usize> {
    /// What the scan is inside of.
    enum In {
        Code,
        Quote(u8),
        LineComment,
        BlockComment,
    }
    let mut state = In::Code;
    let mut depth = 0usize;
    let mut i = open;
    while i < limit {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        match state {
            In::Code => match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(i + 1);
                    }
                }
                b'"' | b'\'' | b'`' => state = In::Quote(b),
                b'/' if next == Some(b'/') => state = In::LineComment,
                b'/' if next == Some(b'*') => {
                    state = In::BlockComment;
                    i += 1;
                }
                _ => {}
            },
            // An escaped character is skipped; a line break ends an unclosed quote.
            In::Quote(_) if b == b'\\' => i += 1,
            In::Quote(q) if b == q => state = In::Code,
            In::Quote(q) if b == b'\n' && q != b'`' => return Err(i),
            In::Quote(_) => {}
            In::LineComment if b == b'\n' => state = In::Code,
            In::LineComment => {}
            In::BlockComment if b == b'*' && next == Some(b'/') => {
                state = In::Code;
                i += 1;
            }
            In::BlockComment => {}
        }
        i += 1;
    }
    Err(i)
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Byte offsets of each `accessor` keyword after `static`, `override` or `readonly` and
/// before a member's name (`accessor:` or `accessor(` is a member named so), and of the
/// name.
fn modified_accessors(source: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = source.as_bytes();
    source
        .match_indices("accessor")
        .filter_map(move |(at, word)| {
            let end = at + word.len();
            if (at > 0 && is_word(bytes[at - 1])) || bytes.get(end).is_none_or(|&b| is_word(b)) {
                return None;
            }
            let before = source[..at].trim_end();
            let modifier = ["static", "override", "readonly"].iter().any(|m| {
                before
                    .strip_suffix(m)
                    .is_some_and(|rest| rest.bytes().last().is_none_or(|b| !is_word(b)))
            });
            let rest = source[end..].trim_start();
            let names_a_member = rest.bytes().next().is_some_and(|b| {
                b.is_ascii_alphabetic() || matches!(b, b'_' | b'$' | b'#' | b'[' | b'\'' | b'"')
            });
            let name = source.len() - rest.len();
            (modifier && names_a_member && before.len() < at && name > end).then_some((at, name))
        })
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
/// The byte spans of a tree's outermost error nodes, sorted and disjoint: whether a
/// candidate lies in an error is a binary search, not a walk down from the root (which,
/// on a tree as deep as the file is long, made the pass quadratic).
struct ErrorSpans(Vec<(usize, usize)>);

impl ErrorSpans {
    /// One walk of the tree, entering only the nodes that hold an error.
    fn of(root: Node) -> ErrorSpans {
        let mut spans = Vec::new();
        let mut cursor = root.walk();
        'walk: loop {
            let node = cursor.node();
            if node.is_error() {
                spans.push((node.start_byte(), node.end_byte()));
            } else if node.has_error() && cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
        ErrorSpans(spans)
    }

    /// Whether the token at byte `at` lies inside an error node. (The candidates are
    /// tokens, never blanks, so the node holding `at` and its ancestors are what the
    /// grammar made of it.)
    fn contain(&self, at: usize) -> bool {
        let after = self.0.partition_point(|&(start, _)| start <= at);
        after > 0 && at < self.0[after - 1].1
    }
}

/// Rows and columns (in bytes) of offsets of a text, asked in increasing order: one
/// pass over the text, however many are asked.
struct Points<'s> {
    bytes: &'s [u8],
    at: usize,
    row: usize,
    line_start: usize,
}

impl<'s> Points<'s> {
    fn new(source: &'s str) -> Points<'s> {
        Points {
            bytes: source.as_bytes(),
            at: 0,
            row: 0,
            line_start: 0,
        }
    }

    /// The point of byte `offset` (at or after the last one asked).
    fn at(&mut self, offset: usize) -> tree_sitter::Point {
        let offset = offset.min(self.bytes.len());
        while self.at < offset {
            if self.bytes[self.at] == b'\n' {
                self.row += 1;
                self.line_start = self.at + 1;
            }
            self.at += 1;
        }
        tree_sitter::Point {
            row: self.row,
            column: offset.saturating_sub(self.line_start),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexer::Language;

    /// A repair with a whole megabyte's parse allowance.
    fn reparse_unmetered(
        parser: &mut Parser,
        language: Language,
        source: &str,
        tree: &Tree,
    ) -> Option<Reparsed> {
        let mut meter = crate::indexer::extract::budget::ParseMeter::for_source(1 << 20);
        reparse(parser, language, source, tree, &mut meter)
    }

    fn parse(source: &str) -> (Parser, Tree) {
        parse_as(Language::TypeScript, source)
    }

    fn parse_as(language: Language, source: &str) -> (Parser, Tree) {
        let mut parser = Parser::new();
        parser.set_language(&language.grammar()).unwrap();
        let tree = parser.parse(source, None).unwrap();
        (parser, tree)
    }

    /// `source`, which does not parse as `language`, after the one repair it needs:
    /// parsed without errors, and as long as it was.
    fn repaired_as(language: Language, source: &str, repair: Repair) -> Reparsed {
        let (mut parser, tree) = parse_as(language, source);
        assert!(tree.root_node().has_error(), "fixed upstream?");
        let second = reparse_unmetered(&mut parser, language, source, &tree).expect("a repair");
        assert_eq!(second.repairs, [repair]);
        assert!(!second.tree.root_node().has_error(), "{}", second.source);
        assert_eq!(second.source.len(), source.len());
        // The second parse reuses the first tree: it must be the tree a parse of the
        // repaired text from nothing gives, node for node and byte for byte.
        let (_, fresh) = parse_as(language, &second.source);
        assert_eq!(nodes(&second.tree), nodes(&fresh), "{}", second.source);
        second
    }

    /// Every node of `tree`, in order: its kind and its bytes.
    fn nodes(tree: &Tree) -> Vec<(&'static str, usize, usize)> {
        let mut out = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            out.push((n.kind(), n.start_byte(), n.end_byte()));
            let mut cursor = n.walk();
            let children: Vec<_> = n.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
        out
    }

    #[test]
    fn a_generic_call_signature_after_a_member_parses_after_the_repair() {
        let source = "interface HandlerInterface {\n  (handler: H): Hono\n  <P extends string>(path: P, handler: H): Hono\n  m(): Promise<X>\n  <const T>(x: T): T\n  <\n    P extends string,\n    R = any,\n  >(path: P): R\n}\ntype B = {\n  a: string\n\t<T>(x: T): T\n}\n";
        let Reparsed {
            source: patched,
            tree: repaired,
            ..
        } = repaired_as(Language::TypeScript, source, Repair::GenericCallSignature);
        assert_eq!(patched.lines().count(), source.lines().count());
        assert_eq!(patched.matches(';').count(), 4);
        let body = repaired.root_node().child(0).unwrap().child(2).unwrap();
        let signatures = (0..body.named_child_count())
            .filter(|&i| body.named_child(i).unwrap().kind() == "call_signature")
            .count();
        assert_eq!(signatures, 4);
    }

    #[test]
    fn a_chained_decorator_reads_as_one_call_chain_after_the_repair() {
        let source = "class C {\n  @OperationPath(\"POST\", \"/\")\n  @Returns(200, String).Description(\"a (b) 'c'\").Of<T>([1])   @In(\"x\").Name(`n`)\n  method() {}\n\n  @Returns(201).Of(String)\n  other() {}\n}\n";
        let Reparsed {
            source: patched,
            tree: repaired,
            wrapped,
            ..
        } = repaired_as(Language::TypeScript, source, Repair::ChainedDecorator);
        assert_eq!(patched.lines().count(), source.lines().count());
        // The chains are where they were, each the argument of a call after its `@`.
        let mut starts = Vec::new();
        for chain in ["Returns(200", "In(", "Returns(201"] {
            let at = source.find(chain).unwrap();
            assert_eq!(&patched[at - 3..at + chain.len()], format!("@x({chain}"));
            starts.push(at - 3);
        }
        assert_eq!(wrapped, starts);
        assert!(
            patched.contains("@OperationPath("),
            "a decorator that parsed is kept"
        );
        let body = repaired
            .root_node()
            .child(0)
            .unwrap()
            .child_by_field_name("body");
        let methods = body.map_or(0, |b| {
            (0..b.named_child_count())
                .filter(|&i| b.named_child(i).unwrap().kind() == "method_definition")
                .count()
        });
        assert_eq!(methods, 2);
    }

    #[test]
    fn decorator_chains_that_cannot_be_patched_are_left() {
        // No blank before the `@`, no blank after the chain, no call before a member,
        // an unclosed argument list, a JSDoc tag.
        for source in [
            "class C {\n@a().b()\n m() {}\n}",
            "class C {\n  @a().b()\nm() {}\n}",
            "class C {\n  @a.b.c()\n  m() {}\n}",
            "class C {\n  @a(\"x\".b()\n  m() {}\n}",
            "/**\n * @param x the thing\n */",
        ] {
            assert_eq!(chained_decorators(source).count(), 0, "{source}");
        }
        let long = format!(
            "class C {{\n  @a({}).b()\n  m() {{}}\n}}",
            "1,".repeat(5_000)
        );
        assert_eq!(chained_decorators(&long).count(), 0);
        // Unclosed strings, comments and brackets end the scan; many of them are read
        // once, not once per `@` (each `@` here is inside the previous one's reach).
        for opener in ["(", "(`", "(/*", "(//"] {
            let hostile = format!("  @a{opener}").repeat(200_000);
            assert_eq!(chained_decorators(&hostile).count(), 0, "{opener}");
        }
        let after = "class C {\n  @a(\"unclosed\n  @b().c()\n  m() {}\n}";
        assert_eq!(chained_decorators(after).count(), 1);
    }

    #[test]
    fn code_that_parses_is_left_alone() {
        // A comparison continued on the next line, and a generic arrow function.
        let source = "const a = b\n  < c;\nconst f =\n  <T>(x: T) => x;\n";
        let (mut parser, tree) = parse(source);
        assert!(!tree.root_node().has_error());
        assert!(reparse_unmetered(&mut parser, Language::TypeScript, source, &tree).is_none());
        // Errors elsewhere do not patch what parsed: the `<` here is in no error node.
        let broken = "const a = b\n  < c;\nfunction (\n";
        let (mut parser, tree) = parse(broken);
        assert!(tree.root_node().has_error());
        assert!(reparse_unmetered(&mut parser, Language::TypeScript, broken, &tree).is_none());
    }

    #[test]
    fn export_type_star_reads_as_a_re_export_after_the_repair() {
        let source = "export type * from \"./types.js\";\nexport type *\n  as ns from './ns.js';\nexport type { A } from './a.js';\nexport function after(): void {}\n";
        for language in [Language::TypeScript, Language::Tsx] {
            let Reparsed {
                source: patched,
                tree: repaired,
                ..
            } = repaired_as(language, source, Repair::ExportTypeStar);
            assert_eq!(patched.matches("export type").count(), 1, "{patched}");
            let root = repaired.root_node();
            let kinds: Vec<&str> = (0..root.named_child_count())
                .map(|i| root.named_child(i).unwrap().kind())
                .collect();
            assert_eq!(kinds, ["export_statement"; 4]);
            // Everything after the patches is where it was.
            let after = root.named_child(3).unwrap();
            assert_eq!(after.start_byte(), source.find("export function").unwrap());
        }
    }

    #[test]
    fn words_that_only_look_like_export_type_star_are_left_alone() {
        // Inside a string and a comment (no error there), and a name ending in `export`.
        // An error elsewhere does not patch what parsed.
        let source = "const s = 'export type * from x';\n// export type * from './y.js'\nconst reexport = 1;\nfunction (\n";
        assert_eq!(type_stars(source).count(), 2);
        let (mut parser, tree) = parse(source);
        assert!(tree.root_node().has_error());
        assert!(reparse_unmetered(&mut parser, Language::TypeScript, source, &tree).is_none());
        assert_eq!(type_stars("reexport type * from './z.js'").count(), 0);
        assert_eq!(type_stars("export typeof * from").count(), 0);
    }

    #[test]
    fn an_accessor_after_a_modifier_reads_as_a_field_after_the_repair() {
        let source = "class C {\n  static accessor count = 0;\n  override accessor #n: number;\n  accessor plain = 1;\n  static accessor(): void {}\n  m() { f(); }\n}\n";
        let patched = repaired_as(Language::TypeScript, source, Repair::ModifiedAccessor).source;
        // The plain one parsed, and a method named `accessor` is a name.
        assert_eq!(patched.matches("accessor").count(), 2, "{patched}");
        assert_eq!(modified_accessors("staticaccessor x").count(), 0);
        assert_eq!(modified_accessors("static accessors x").count(), 0);
    }

    #[test]
    fn type_arguments_after_an_import_type_are_blanked() {
        let source = "export declare const add: import(\"./types.js\").FPFn2<\n  Date,\n  import(\"../fp.js\").Duration,\n  import(\"../fp.js\").DateArg<Date>,\n  (x: A) => B\n>;\nexport declare const sub: import('./t.js').A.B<C> | null;\nexport declare function after(): void;\n";
        let patched = repaired_as(Language::TypeScript, source, Repair::ImportTypeArguments).source;
        assert_eq!(patched.lines().count(), source.lines().count());
        assert!(
            patched.contains("import(\"./types.js\").FPFn2 "),
            "{patched}"
        );
        assert!(
            patched.contains("import('./t.js').A.B    | null"),
            "{patched}"
        );
        assert!(!patched.contains("Duration"));
        // An import type without arguments, and one whose brackets never close.
        assert_eq!(import_type_arguments("let a: import('./x').A;").count(), 0);
        assert_eq!(
            import_type_arguments("let a: import('./x').A<B;\n").count(),
            0
        );
        assert_eq!(import_type_arguments("reimport('./x').A<B>").count(), 0);
    }

    #[test]
    fn the_import_type_scans_read_a_bounded_multiple_of_the_file() {
        // Every line an import type whose `<` never closes: each scan would read its
        // 8 KB span, 480 times the file in all. Past four times the file the scans
        // stop, and a closed one after them is left (unrepaired, not a cost).
        let unclosed = "import('./x').A<\n".repeat(20_000);
        let source = format!("{unclosed}let b: import('./y').B<C>;\n");
        assert_eq!(import_type_arguments(&source).count(), 0);
        // Within the budget a closed one is found after unclosed ones.
        let few = "import('./x').A<\n".repeat(5);
        let source = format!("{few};\nlet b: import('./y').B<C>;\n");
        assert_eq!(import_type_arguments(&source).count(), 1);
        // A string that never ends is read within the span, not to the end of the file.
        let strings = "import('./x').A<\"\n".repeat(20_000);
        assert_eq!(import_type_arguments(&strings).count(), 0);
    }
}
