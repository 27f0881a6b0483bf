//! Byte offsets of a file to the graph's positions: lines, and columns in UTF-16 units.

use crate::indexer::facts::Pos;

/// Offsets to lines and columns (UTF-16 units), for offsets asked in increasing order
/// (an earlier one starts the count again).
pub(super) struct LineIndex<'s> {
    source: &'s [u8],
    line: u32,
    line_start: usize,
    seen: usize,
}

impl<'s> LineIndex<'s> {
    pub(super) fn new(source: &'s str) -> Self {
        LineIndex {
            source: source.as_bytes(),
            line: 0,
            line_start: 0,
            seen: 0,
        }
    }

    pub(super) fn pos(&mut self, offset: usize) -> Pos {
        if offset < self.seen {
            *self = LineIndex::new(std::str::from_utf8(self.source).unwrap_or_default());
        }
        for (i, &b) in self.source[self.seen..offset].iter().enumerate() {
            if b == b'\n' {
                self.line += 1;
                self.line_start = self.seen + i + 1;
            }
        }
        self.seen = offset;
        // Columns count UTF-16 units, as every position of the graph does: a character
        // is one unit (its lead byte), two beyond the Basic Multilingual Plane.
        let column = self.source[self.line_start..offset]
            .iter()
            .map(|&b| match b {
                0x80..=0xBF => 0,
                0xF0..=0xFF => 2,
                _ => 1,
            })
            .sum::<u32>();
        Pos {
            line: self.line,
            column,
        }
    }
}
