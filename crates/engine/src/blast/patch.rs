//! A file's `patch`, as GitHub gives it for each file of a pull request (the unified-diff
//! hunks, from the first `@@` on, without the `diff --git` header), read for the lines a
//! review comment may be anchored on.
//!
//! GitHub takes an inline comment only on a line inside one of the file's diff hunks, on the
//! side it names; anything else fails the whole review with 422 ("Pull request review
//! thread line must be part of the diff"). On the head side (`side: RIGHT`) those are the
//! added lines and the context lines around them: within a hunk, the head-side lines are
//! consecutive, from the header's `+start` on. A multi-line comment's `start_line` must be in
//! the same hunk as its `line`, and before it. Pure: no IO.

use std::collections::BTreeSet;
use std::ops::RangeInclusive;

/// One hunk: `@@ -old_start,old_lines +new_start,new_lines @@`, with the lines as walked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: u32,
    /// Base-side lines seen (removed and context).
    pub old_lines: u32,
    pub new_start: u32,
    /// Head-side lines seen (added and context).
    pub new_lines: u32,
    /// Head-side numbers of the added (`+`) lines.
    pub added: Vec<u32>,
    /// Base-side numbers of the removed (`-`) lines.
    pub removed: Vec<u32>,
}

impl Hunk {
    /// The head-side (`RIGHT`) lines of the hunk, if it has any (a hunk that only removes
    /// has none).
    pub fn right(&self) -> Option<RangeInclusive<u32>> {
        (self.new_lines > 0).then(|| self.new_start..=self.new_start + self.new_lines - 1)
    }

    /// The base-side (`LEFT`) lines of the hunk, if it has any.
    pub fn left(&self) -> Option<RangeInclusive<u32>> {
        (self.old_lines > 0).then(|| self.old_start..=self.old_start + self.old_lines - 1)
    }
}

/// The hunks of one file's patch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiffLines {
    hunks: Vec<Hunk>,
}

impl DiffLines {
    /// Reads a patch. Lenient: text before the first hunk header (a `diff --git` header) and
    /// lines past a hunk's counts are skipped; `\ No newline at end of file` is not a line;
    /// an empty line inside a hunk is a context line whose leading space was stripped.
    pub fn parse(patch: &str) -> DiffLines {
        let mut hunks = Vec::new();
        let mut current: Option<Walk> = None;
        for line in patch.split('\n') {
            if line.starts_with("@@") {
                if let Some((old_start, old_count, new_start, new_count)) = parse_header(line) {
                    if let Some(walk) = current.take() {
                        hunks.push(walk.hunk);
                    }
                    current = Some(Walk {
                        old_left: old_count,
                        new_left: new_count,
                        old_next: old_start,
                        new_next: new_start,
                        hunk: Hunk {
                            old_start,
                            old_lines: 0,
                            new_start,
                            new_lines: 0,
                            added: Vec::new(),
                            removed: Vec::new(),
                        },
                    });
                    continue;
                }
            }
            let Some(walk) = current.as_mut() else {
                continue;
            };
            if walk.old_left == 0 && walk.new_left == 0 {
                continue;
            }
            match line.as_bytes().first() {
                Some(b'\\') => {}
                Some(b'+') => walk.added(),
                Some(b'-') => walk.removed(),
                _ => walk.context(),
            }
        }
        if let Some(walk) = current {
            hunks.push(walk.hunk);
        }
        DiffLines { hunks }
    }

    pub fn hunks(&self) -> &[Hunk] {
        &self.hunks
    }

    /// No hunk at all (a binary file, a pure rename, a mode change): no line takes a comment.
    pub fn is_empty(&self) -> bool {
        self.hunks
            .iter()
            .all(|h| h.right().is_none() && h.left().is_none())
    }

    /// Whether a comment may be anchored on head-side line `line` (`side: RIGHT`).
    pub fn is_commentable(&self, line: u32) -> bool {
        self.hunk_of(line).is_some()
    }

    /// Whether a comment may be anchored on base-side line `line` (`side: LEFT`).
    pub fn is_commentable_left(&self, line: u32) -> bool {
        self.hunks
            .iter()
            .any(|h| h.left().is_some_and(|r| r.contains(&line)))
    }

    /// Whether a multi-line comment from head-side `start_line` to `line` is acceptable: both
    /// in the same hunk, `start_line` strictly before `line`.
    pub fn is_commentable_range(&self, start_line: u32, line: u32) -> bool {
        start_line < line
            && self
                .hunk_of(line)
                .is_some_and(|i| self.hunk_of(start_line) == Some(i))
    }

    /// Every head-side line a comment may be anchored on, in order.
    pub fn commentable_lines(&self) -> impl Iterator<Item = u32> + '_ {
        self.hunks.iter().filter_map(Hunk::right).flatten()
    }

    /// The head-side numbers of the added lines, in order.
    pub fn added_lines(&self) -> impl Iterator<Item = u32> + '_ {
        self.hunks.iter().flat_map(|h| h.added.iter().copied())
    }

    /// The first head-side line within `lines` that takes a comment: where to anchor a
    /// comment about a function spanning `lines` (preferring an added line, else a context
    /// line).
    pub fn first_commentable_in(&self, lines: RangeInclusive<u32>) -> Option<u32> {
        self.added_lines()
            .find(|l| lines.contains(l))
            .or_else(|| self.commentable_lines().find(|l| lines.contains(l)))
    }

    fn hunk_of(&self, line: u32) -> Option<usize> {
        self.hunks
            .iter()
            .position(|h| h.right().is_some_and(|r| r.contains(&line)))
    }
}

/// The head-side lines of `patch` that a review comment may be anchored on (`side: RIGHT`).
pub fn commentable_lines(patch: &str) -> BTreeSet<u32> {
    DiffLines::parse(patch).commentable_lines().collect()
}

struct Walk {
    old_left: u32,
    new_left: u32,
    old_next: u32,
    new_next: u32,
    hunk: Hunk,
}

impl Walk {
    fn added(&mut self) {
        self.hunk.added.push(self.new_next);
        self.new_next += 1;
        self.hunk.new_lines += 1;
        self.new_left = self.new_left.saturating_sub(1);
    }

    fn removed(&mut self) {
        self.hunk.removed.push(self.old_next);
        self.old_next += 1;
        self.hunk.old_lines += 1;
        self.old_left = self.old_left.saturating_sub(1);
    }

    fn context(&mut self) {
        self.old_next += 1;
        self.new_next += 1;
        self.hunk.old_lines += 1;
        self.hunk.new_lines += 1;
        self.old_left = self.old_left.saturating_sub(1);
        self.new_left = self.new_left.saturating_sub(1);
    }
}

/// `@@ -a[,b] +c[,d] @@ heading` → `(a, b, c, d)`; an omitted count is 1.
fn parse_header(line: &str) -> Option<(u32, u32, u32, u32)> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(u32, u32)> {
        match r.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (a, b) = range(old)?;
    let (c, d) = range(new)?;
    Some((a, b, c, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `git diff` of a JS file with two changes far apart, as GitHub gives it (hunks only,
    /// with the function heading after `@@`).
    const TWO_HUNKS: &str = "@@ -1,5 +1,7 @@
 import { resize } from './image';
+import { log } from './log';
 
 export function classifyFields(fields) {
-  return fields.map(f => f.type);
+  log('classify', fields.length);
+  return fields.map((f) => f.kind);
 }
@@ -40,7 +41,6 @@ export function upload(req, res) {
   const fields = classifyFields(req.body);
   if (!fields.length) {
     return res.status(400).end();
-  }
-  resize(req.file);
+  } else resize(req.file);
   res.status(201).end();
 }";

    #[test]
    fn two_hunks_of_a_modified_file() {
        let d = DiffLines::parse(TWO_HUNKS);
        assert_eq!(d.hunks().len(), 2);
        let right: Vec<u32> = d.commentable_lines().collect();
        let mut expected: Vec<u32> = (1..=7).collect();
        expected.extend(41..=46);
        assert_eq!(right, expected);
        assert_eq!(d.added_lines().collect::<Vec<_>>(), [2, 5, 6, 44]);
        assert_eq!(d.hunks()[0].removed, [4]);
        assert_eq!(d.hunks()[1].removed, [43, 44]);
        assert_eq!(d.hunks()[1].left(), Some(40..=46));
        assert!(d.is_commentable(7) && !d.is_commentable(8) && !d.is_commentable(40));
        assert!(d.is_commentable(41) && d.is_commentable(46) && !d.is_commentable(47));
        assert!(d.is_commentable_left(44) && !d.is_commentable_left(47));
        assert!(d.is_commentable_range(4, 6));
        assert!(!d.is_commentable_range(6, 6), "start must precede the line");
        assert!(!d.is_commentable_range(7, 41), "two hunks");
        assert_eq!(d.first_commentable_in(3..=7), Some(5));
        assert_eq!(d.first_commentable_in(43..=43), Some(43), "a context line");
        assert_eq!(d.first_commentable_in(10..=30), None);
        assert_eq!(commentable_lines(TWO_HUNKS), expected.into_iter().collect());
    }

    #[test]
    fn a_new_file_and_a_deleted_file() {
        let added = "@@ -0,0 +1,3 @@\n+export function a() {}\n+\n+export const b = a;\n";
        let d = DiffLines::parse(added);
        assert_eq!(d.commentable_lines().collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(d.added_lines().count(), 3);
        assert!(!d.is_commentable_left(1));

        let removed = "@@ -1,2 +0,0 @@\n-export function a() {}\n-a();";
        let d = DiffLines::parse(removed);
        assert_eq!(d.commentable_lines().count(), 0);
        assert!(d.is_commentable_left(1) && d.is_commentable_left(2));
        assert!(!d.is_empty());
    }

    #[test]
    fn single_line_counts_and_no_newline_markers() {
        let patch = "@@ -1 +1 @@\n-module.exports = 1\n\\ No newline at end of file\n+module.exports = 2\n\\ No newline at end of file";
        let d = DiffLines::parse(patch);
        assert_eq!(d.commentable_lines().collect::<Vec<_>>(), [1]);
        assert_eq!(d.hunks()[0].removed, [1]);
        assert_eq!(d.hunks()[0].added, [1]);
    }

    #[test]
    fn content_that_looks_like_headers_is_content() {
        // A file whose lines start with "++", "--" and "@@" (inside the hunk they carry
        // their own prefix), and a blank context line whose leading space was stripped.
        let patch =
            "@@ -10,4 +10,5 @@ const x = 1;\n ++i;\n---j;\n+++k;\n+@@ not a header\n\n --l;";
        let d = DiffLines::parse(patch);
        assert_eq!(d.hunks().len(), 1);
        assert_eq!(
            d.commentable_lines().collect::<Vec<_>>(),
            [10, 11, 12, 13, 14]
        );
        assert_eq!(d.added_lines().collect::<Vec<_>>(), [11, 12]);
        assert_eq!(d.hunks()[0].removed, [11]);
    }

    #[test]
    fn a_git_header_before_the_hunks_and_crlf_lines_are_fine() {
        let patch = "diff --git a/a.js b/a.js\nindex 1..2 100644\n--- a/a.js\n+++ b/a.js\n@@ -2,2 +2,3 @@\r\n a();\r\n+b();\r\n c();\r\n";
        let d = DiffLines::parse(patch);
        assert_eq!(d.commentable_lines().collect::<Vec<_>>(), [2, 3, 4]);
        assert_eq!(d.added_lines().collect::<Vec<_>>(), [3]);
    }

    #[test]
    fn nothing_to_anchor_on() {
        for patch in ["", "Binary files differ", "@@ garbage @@"] {
            let d = DiffLines::parse(patch);
            assert!(d.is_empty(), "{patch:?}");
            assert!(!d.is_commentable(1));
        }
    }
}
