//! Hashes of code that ignore comments and formatting.
//!
//! Every leaf token of the walk is hashed into one list; a definition remembers the
//! index range of its tokens, and its hash is the hash of that slice. Comments,
//! whitespace (which never reaches a leaf), semicolons, string quote style (and the quote
//! escapes it implies), trailing commas, JSX text indentation and the parentheses around
//! JSX are left out, so what a formatter such as prettier changes does not count as a
//! change.

use tree_sitter::Node;

use super::children::Info;
use super::fields::{self, LeafClass};
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

#[derive(Default)]
pub(crate) struct TokenHasher {
    /// The tokens' hashes, 8 little-endian bytes each: a definition's range is hashed in
    /// one call (nested definitions hash the same tokens again, once per level).
    bytes: Vec<u8>,
    /// A `,` waits here until the next token shows it is not a trailing comma.
    comma: bool,
}

const COMMA: u64 = 0x2c2c_2c2c;

thread_local! {
    /// The token buffer of the last file, kept for the next one: files follow each other
    /// on a thread, and a fresh large buffer per file costs page faults.
    static SPARE: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

impl TokenHasher {
    /// A hasher with this thread's spare buffer.
    pub(crate) fn reused() -> Self {
        let mut bytes = SPARE.with(|s| s.take());
        bytes.clear();
        TokenHasher {
            bytes,
            ..TokenHasher::default()
        }
    }

    /// Gives the buffer back for the next file (capped: one huge file must not pin memory).
    pub(crate) fn recycle(self) {
        if self.bytes.capacity() <= 8 << 20 {
            SPARE.with(|s| s.set(self.bytes));
        }
    }

    pub(crate) fn leaf(&mut self, node: Node, src: &str) {
        self.leaf_with(node, Info::of(node), src)
    }

    /// [`leaf`](Self::leaf) with what the walk already read of the node.
    pub(crate) fn leaf_with(&mut self, node: Node, info: Info, src: &str) {
        let class = fields::leaf_class(&node, info.symbol);
        match class {
            LeafClass::Ignored => return,
            LeafClass::Comma => {
                self.flush_comma();
                self.comma = true;
                return;
            }
            LeafClass::Token | LeafClass::JsxText => {}
        }
        if info.is_missing() {
            return;
        }
        let text = &src[info.start_byte as usize..info.end_byte as usize];
        let closing = matches!(text, ")" | "]" | "}" | ">");
        if !closing {
            self.flush_comma();
        }
        self.comma = false;
        let hash = if class == LeafClass::JsxText {
            let collapsed: Vec<&str> = text.split_whitespace().collect();
            if collapsed.is_empty() {
                return;
            }
            xxh3_64(collapsed.join(" ").as_bytes())
        } else {
            xxh3_64(text.as_bytes())
        };
        self.bytes.extend_from_slice(&hash.to_le_bytes());
    }

    /// A string literal as one token: its content, whichever quotes delimit it (`'it\'s'`
    /// and `"it's"` are the same string).
    pub(crate) fn string(&mut self, node: Node, src: &str) {
        let text = &src[node.byte_range()];
        let inner = text.get(1..text.len().saturating_sub(1)).unwrap_or("");
        // The opening quote marks it as a string (`'a'` is not `a`), always the same one.
        let mut content = String::with_capacity(inner.len() + 1);
        content.push('"');
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                content.push(c);
                continue;
            }
            match chars.next() {
                Some(q @ ('\'' | '"')) => content.push(q),
                Some(other) => {
                    content.push('\\');
                    content.push(other);
                }
                None => content.push('\\'),
            }
        }
        self.push(xxh3_64(content.as_bytes()), false);
    }

    /// A token that is not (exactly) a leaf of the tree.
    pub(crate) fn synthetic(&mut self, text: &str) {
        let closing = matches!(text, ")" | "]" | "}" | ">");
        self.push(xxh3_64(text.as_bytes()), closing);
    }

    fn push(&mut self, hash: u64, closing: bool) {
        if !closing {
            self.flush_comma();
        }
        self.comma = false;
        self.bytes.extend_from_slice(&hash.to_le_bytes());
    }

    fn flush_comma(&mut self) {
        if self.comma {
            self.bytes.extend_from_slice(&COMMA.to_le_bytes());
            self.comma = false;
        }
    }

    /// The position to remember before a definition's part is walked.
    pub(crate) fn mark(&self) -> usize {
        self.bytes.len() / 8
    }

    /// Hash of the tokens seen between two marks (a trailing comma pending at `end`
    /// belongs to what follows).
    pub(crate) fn hash_since(&self, start: usize) -> u64 {
        self.hash_ranges(&[(start, self.mark())], 0)
    }

    /// Hash of several token ranges plus a seed of non-token facts (modifiers).
    pub(crate) fn hash_ranges(&self, ranges: &[(usize, usize)], seed: u64) -> u64 {
        let mut h = Xxh3::with_seed(seed);
        for &(start, end) in ranges {
            h.update(&self.bytes[start.min(end) * 8..end * 8]);
            h.update(b"|");
        }
        h.digest()
    }
}
