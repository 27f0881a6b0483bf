//! Hashes of code that ignore comments and formatting.
//!
//! Every leaf token of the walk is hashed into one list; a definition remembers the
//! index range of its tokens, and its hash is the hash of that slice. Comments,
//! whitespace (which never reaches a leaf), semicolons, string quote style, trailing
//! commas and JSX text indentation are left out, so what a formatter such as prettier
//! changes does not count as a change.

use tree_sitter::Node;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

#[derive(Default)]
pub(crate) struct TokenHasher {
    hashes: Vec<u64>,
    /// A `,` waits here until the next token shows it is not a trailing comma.
    comma: bool,
}

const COMMA: u64 = 0x2c2c_2c2c;

impl TokenHasher {
    pub(crate) fn leaf(&mut self, node: Node, src: &str) {
        let kind = node.kind();
        match kind {
            "comment" | "html_comment" | "hash_bang_line" | ";" | "\"" | "'" => return,
            "," => {
                self.flush_comma();
                self.comma = true;
                return;
            }
            _ => {}
        }
        if node.is_missing() {
            return;
        }
        let text = &src[node.byte_range()];
        let closing = matches!(text, ")" | "]" | "}" | ">");
        if !closing {
            self.flush_comma();
        }
        self.comma = false;
        let hash = if kind == "jsx_text" {
            let collapsed: Vec<&str> = text.split_whitespace().collect();
            if collapsed.is_empty() {
                return;
            }
            xxh3_64(collapsed.join(" ").as_bytes())
        } else {
            xxh3_64(text.as_bytes())
        };
        self.hashes.push(hash);
    }

    fn flush_comma(&mut self) {
        if self.comma {
            self.hashes.push(COMMA);
            self.comma = false;
        }
    }

    /// The position to remember before a definition's part is walked.
    pub(crate) fn mark(&self) -> usize {
        self.hashes.len()
    }

    /// Hash of the tokens seen between two marks (a trailing comma pending at `end`
    /// belongs to what follows).
    pub(crate) fn hash_since(&self, start: usize) -> u64 {
        self.hash_ranges(&[(start, self.hashes.len())], 0)
    }

    /// Hash of several token ranges plus a seed of non-token facts (modifiers).
    pub(crate) fn hash_ranges(&self, ranges: &[(usize, usize)], seed: u64) -> u64 {
        let mut h = Xxh3::with_seed(seed);
        for &(start, end) in ranges {
            for v in &self.hashes[start.min(end)..end] {
                h.update(&v.to_le_bytes());
            }
            h.update(b"|");
        }
        h.digest()
    }
}
