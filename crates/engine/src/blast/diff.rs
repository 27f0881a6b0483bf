//! Which functions changed between two versions of one file, and which lines of the new
//! version an edit touched.
//!
//! Both work on what the indexer already computed: definitions carry hashes of their
//! signature and body tokens that ignore comments and formatting, so a re-indented or
//! re-commented function is not "changed" here even though its lines are.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::ops::Range;

use serde::{Deserialize, Serialize};
use similar::{capture_diff_slices, Algorithm, DiffOp};

use crate::indexer::facts::{DefIdx, DefKind, Definition, ExportValue, FileFacts, Sym, SymId};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Added,
    Removed,
    /// Same kind and body under a different qualified name (the signature may differ too).
    Renamed,
    Signature,
    Body,
    SignatureAndBody,
    /// Still defined, but no longer exported under a name it had (`export` dropped, or
    /// exported under another name): other modules' imports of it fail.
    Unexported,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Renamed => "renamed",
            Change::Signature => "signature",
            Change::Body => "body",
            Change::SignatureAndBody => "signature_and_body",
            Change::Unexported => "unexported",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionChange {
    /// The definition in the old facts; None for `Added`.
    pub old: Option<DefIdx>,
    /// The definition in the new facts; None for `Removed`.
    pub new: Option<DefIdx>,
    pub change: Change,
}

/// Below this many bytes a definition's body is too generic (`{}`, `return null`) for an
/// equal body hash to mean "the same function under a new name".
const TINY_SPAN_BYTES: u32 = 40;

/// The callable definitions that changed between `old` and `new` (None: the file did not
/// exist on that side), sorted by position (new side when present, else old side).
pub fn diff_functions(old: Option<&FileFacts>, new: Option<&FileFacts>) -> Vec<FunctionChange> {
    // A missing file is a file without definitions.
    let empty = FileFacts::default();
    let old = old.unwrap_or(&empty);
    let new = new.unwrap_or(&empty);

    // Pair by (qualified name, kind); duplicates (overloads, redefinitions) pair in order
    // of appearance.
    let mut by_key: HashMap<(&str, DefKind), VecDeque<DefIdx>> = HashMap::new();
    for (idx, def) in callable_defs(new) {
        let key = (new.str(def.qualified), def.kind);
        by_key.entry(key).or_default().push_back(idx);
    }

    let (old_exports, new_exports) = (exported_names(old), exported_names(new));
    let mut changes = Vec::new();
    let mut unmatched_old = Vec::new();
    let mut matched_new = vec![false; new.defs.len()];
    for (old_idx, old_def) in callable_defs(old) {
        let key = (old.str(old_def.qualified), old_def.kind);
        let Some(new_idx) = by_key.get_mut(&key).and_then(VecDeque::pop_front) else {
            unmatched_old.push((old_idx, old_def));
            continue;
        };
        matched_new[new_idx as usize] = true;
        let none = BTreeSet::new();
        let unexported = old_def.exported
            && !old_exports
                .get(&old_idx)
                .unwrap_or(&none)
                .is_subset(new_exports.get(&new_idx).unwrap_or(&none));
        let change = match unexported {
            true => Some(Change::Unexported),
            false => compare(old_def, new.def(new_idx)),
        };
        if let Some(change) = change {
            changes.push(FunctionChange {
                old: Some(old_idx),
                new: Some(new_idx),
                change,
            });
        }
    }
    let mut unmatched_new: Vec<(DefIdx, &Definition)> = callable_defs(new)
        .filter(|(idx, _)| !matched_new[*idx as usize])
        .collect();

    // What is left on both sides: a moved or renamed function keeps its body.
    for (old_idx, old_def) in unmatched_old {
        let new_idx = take_rename_partner(old_def, &mut unmatched_new);
        changes.push(FunctionChange {
            old: Some(old_idx),
            new: new_idx,
            change: if new_idx.is_some() {
                Change::Renamed
            } else {
                Change::Removed
            },
        });
    }
    changes.extend(unmatched_new.into_iter().map(|(idx, _)| FunctionChange {
        old: None,
        new: Some(idx),
        change: Change::Added,
    }));

    changes.sort_by_key(|c| {
        let span = match (c.new, c.old) {
            (Some(n), _) => new.def(n).span,
            (None, Some(o)) => old.def(o).span,
            (None, None) => unreachable!("a change has at least one side"),
        };
        // At one position a removal reads before what replaced it.
        (
            span.start_line,
            span.start_byte,
            c.new.is_some(),
            c.old,
            c.new,
        )
    });
    changes
}

/// The names a module exports each definition under (`export function f`, `export {
/// f as g }`, `export default f`), by definition: a name gone from a definition's set
/// is an import that no longer resolves. (What an exported class or object holds is
/// reached through it, not by a name of its own.) One pass over the exports, so a
/// file of many exported functions costs what its exports do.
fn exported_names(facts: &FileFacts) -> HashMap<DefIdx, BTreeSet<&str>> {
    let def_of = |mut sym: SymId| {
        for _ in 0..8 {
            match facts.sym(sym) {
                Sym::Def(d) => return Some(d),
                Sym::Binding(b) => sym = facts.bindings.get(b as usize)?.value,
                _ => return None,
            }
        }
        None
    };
    let mut names: HashMap<DefIdx, BTreeSet<&str>> = HashMap::new();
    for e in &facts.exports {
        if let ExportValue::Local(sym) = e.value {
            if let Some(d) = def_of(sym) {
                names.entry(d).or_default().insert(facts.str(e.name));
            }
        }
    }
    names
}

fn callable_defs(facts: &FileFacts) -> impl Iterator<Item = (DefIdx, &Definition)> {
    facts
        .defs
        .iter()
        .enumerate()
        .filter(|(_, d)| d.kind.is_callable())
        .map(|(i, d)| (i as DefIdx, d))
}

/// How a definition present on both sides changed, if it did.
fn compare(old: &Definition, new: &Definition) -> Option<Change> {
    let signature = old.signature_hash != new.signature_hash;
    if old.kind == DefKind::Class {
        // A class's body hash covers its methods, which report their own changes; only
        // its own signature (extends, implements, modifiers) is news.
        return signature.then_some(Change::Signature);
    }
    match (signature, old.body_hash != new.body_hash) {
        (true, true) => Some(Change::SignatureAndBody),
        (true, false) => Some(Change::Signature),
        (false, true) => Some(Change::Body),
        (false, false) => None,
    }
}

/// Removes and returns the first unmatched new definition that is `old` under another
/// name: same kind and body (and same signature when the body is too small to tell).
/// Candidates with the same signature win over ones without.
fn take_rename_partner(
    old: &Definition,
    candidates: &mut Vec<(DefIdx, &Definition)>,
) -> Option<DefIdx> {
    let fits = |new: &Definition| {
        new.kind == old.kind
            && new.body_hash == old.body_hash
            && (!(is_tiny(old) || is_tiny(new)) || new.signature_hash == old.signature_hash)
    };
    let pos = candidates
        .iter()
        .position(|(_, new)| fits(new) && new.signature_hash == old.signature_hash)
        .or_else(|| candidates.iter().position(|(_, new)| fits(new)))?;
    Some(candidates.remove(pos).0)
}

fn is_tiny(def: &Definition) -> bool {
    def.span.end_byte.saturating_sub(def.span.start_byte) < TINY_SPAN_BYTES
}

/// Zero-based line ranges `[start, end)` of `new_src` that the edit inserted or modified,
/// sorted and merged. A pure deletion marks the new line where it happened (the line that
/// now follows it, or the last line at the end of the file), so a call site right there
/// counts as touched. Line endings are ignored: `\r\n` and `\n` compare equal, so
/// converting a file's line endings touches nothing.
pub fn changed_lines(old_src: &str, new_src: &str) -> Vec<Range<u32>> {
    let old_lines: Vec<&str> = old_src.lines().collect();
    let new_lines: Vec<&str> = new_src.lines().collect();
    let new_count = new_lines.len();

    let mut ranges: Vec<Range<u32>> = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &old_lines, &new_lines) {
        let range = match op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Insert {
                new_index, new_len, ..
            }
            | DiffOp::Replace {
                new_index, new_len, ..
            } => new_index..new_index + new_len,
            DiffOp::Delete { new_index, .. } => {
                if new_count == 0 {
                    continue;
                }
                let line = new_index.min(new_count - 1);
                line..line + 1
            }
        };
        let range = to_u32(range.start)..to_u32(range.end);
        match ranges.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => ranges.push(range),
        }
    }
    ranges
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexer::facts::Span;

    /// One definition for [`facts`]: qualified name (the last `.` segment is the name),
    /// kind, signature hash, body hash, span length in bytes.
    type D = (&'static str, DefKind, u64, u64, u32);

    /// File facts holding the given definitions one after another, one line each.
    fn facts(defs: &[D]) -> FileFacts {
        let mut f = FileFacts {
            path: "a.ts".into(),
            ..FileFacts::default()
        };
        let mut byte = 0;
        for (line, &(qualified, kind, sig, body, len)) in defs.iter().enumerate() {
            let name = qualified.rsplit('.').next().unwrap_or(qualified);
            let name_id = f.strings.push(name);
            f.strings.push(qualified);
            let mut def = Definition::new(
                name_id,
                name_id + 1,
                kind,
                None,
                Span {
                    start_byte: byte,
                    end_byte: byte + len,
                    start_line: line as u32,
                    end_line: line as u32,
                },
                Default::default(),
            );
            def.signature_hash = sig;
            def.body_hash = body;
            f.defs.push(def);
            byte += len + 1;
        }
        f
    }

    const F: DefKind = DefKind::Function;
    const BIG: u32 = 100;

    fn fc(old: Option<DefIdx>, new: Option<DefIdx>, change: Change) -> FunctionChange {
        FunctionChange { old, new, change }
    }

    fn diff(old: &[D], new: &[D]) -> Vec<FunctionChange> {
        diff_functions(Some(&facts(old)), Some(&facts(new)))
    }

    #[test]
    fn unchanged_file_has_no_changes() {
        let defs = [("a", F, 1, 2, BIG), ("b", F, 3, 4, BIG)];
        assert_eq!(diff(&defs, &defs), vec![]);
    }

    /// A function that stays but loses a name it was exported under is `Unexported`;
    /// one still exported under every name it had (more names, another form) is not.
    #[test]
    fn an_export_dropped_or_renamed_is_a_change() {
        let read = |src: &str| {
            crate::indexer::extract_source("lib.js", src)
                .unwrap()
                .unwrap()
        };
        let old = read("export function f() {}\nexport function g() {}\nexport function h() {}\nfunction k() {}\nexport default k;\nexport const m = () => 1;\n");
        let new = read("function f() {}\nfunction g() {}\nexport { g as gg };\nexport function h() {}\nexport { h as hh };\nexport function k() {}\nconst m = () => 1;\nexport { m };\n");
        let changes: Vec<(String, Change)> = diff_functions(Some(&old), Some(&new))
            .into_iter()
            .map(|c| (old.def_name(c.old.unwrap()).to_string(), c.change))
            .collect();
        assert_eq!(
            changes,
            [
                ("f".to_string(), Change::Unexported),
                ("g".to_string(), Change::Unexported),
                ("k".to_string(), Change::Unexported),
            ]
        );
    }

    #[test]
    fn signature_body_and_both() {
        let old = [
            ("a", F, 1, 1, BIG),
            ("b", F, 2, 2, BIG),
            ("c", F, 3, 3, BIG),
        ];
        let new = [
            ("a", F, 9, 1, BIG),
            ("b", F, 2, 9, BIG),
            ("c", F, 9, 9, BIG),
        ];
        assert_eq!(
            diff(&old, &new),
            vec![
                fc(Some(0), Some(0), Change::Signature),
                fc(Some(1), Some(1), Change::Body),
                fc(Some(2), Some(2), Change::SignatureAndBody),
            ]
        );
    }

    #[test]
    fn added_and_removed_sorted_by_position() {
        let old = [("gone", F, 1, 1, BIG), ("kept", F, 2, 2, BIG)];
        let new = [("kept", F, 2, 2, BIG), ("fresh", F, 3, 3, BIG)];
        assert_eq!(
            diff(&old, &new),
            vec![
                // `gone` sits at old line 0, `fresh` at new line 1.
                fc(Some(0), None, Change::Removed),
                fc(None, Some(1), Change::Added),
            ]
        );
    }

    #[test]
    fn same_body_under_new_name_is_a_rename() {
        let old = [("Svc.getUser", DefKind::Method, 1, 42, BIG)];
        let new = [("Svc.fetchUser", DefKind::Method, 7, 42, BIG)];
        assert_eq!(
            diff(&old, &new),
            vec![fc(Some(0), Some(0), Change::Renamed)]
        );
    }

    #[test]
    fn rename_requires_same_kind() {
        let old = [("Svc.total", DefKind::Method, 1, 42, BIG)];
        let new = [("Svc.total", DefKind::Getter, 1, 42, BIG)];
        assert_eq!(
            diff(&old, &new),
            vec![
                fc(Some(0), None, Change::Removed),
                fc(None, Some(0), Change::Added)
            ]
        );
    }

    #[test]
    fn different_body_under_new_name_is_removed_and_added() {
        let old = [("a", F, 1, 42, BIG)];
        let new = [("b", F, 1, 43, BIG)];
        assert_eq!(
            diff(&old, &new),
            vec![
                fc(Some(0), None, Change::Removed),
                fc(None, Some(0), Change::Added)
            ]
        );
    }

    #[test]
    fn tiny_bodies_pair_only_with_equal_signatures() {
        // Two empty functions: same body hash, but nothing says one became the other.
        let old = [("noop", F, 1, 0, 20)];
        let new = [("other", F, 2, 0, 20)];
        assert_eq!(
            diff(&old, &new),
            vec![
                fc(Some(0), None, Change::Removed),
                fc(None, Some(0), Change::Added)
            ]
        );
        // With the same signature too, they are the same function renamed.
        let new = [("other", F, 1, 0, 20)];
        assert_eq!(
            diff(&old, &new),
            vec![fc(Some(0), Some(0), Change::Renamed)]
        );
    }

    #[test]
    fn rename_prefers_the_candidate_with_the_same_signature() {
        let old = [("a", F, 5, 42, BIG)];
        let new = [("x", F, 6, 42, BIG), ("y", F, 5, 42, BIG)];
        assert_eq!(
            diff(&old, &new),
            vec![
                fc(None, Some(0), Change::Added),
                fc(Some(0), Some(1), Change::Renamed),
            ]
        );
    }

    #[test]
    fn duplicates_match_in_order_of_appearance() {
        // Two overloads of `f`: the second one's body changed, and a third appears.
        let old = [("f", F, 1, 10, BIG), ("f", F, 2, 20, BIG)];
        let new = [
            ("f", F, 1, 10, BIG),
            ("f", F, 2, 21, BIG),
            ("f", F, 3, 30, BIG),
        ];
        assert_eq!(
            diff(&old, &new),
            vec![
                fc(Some(1), Some(1), Change::Body),
                fc(None, Some(2), Change::Added)
            ]
        );
    }

    #[test]
    fn class_counts_only_when_its_signature_changes() {
        let m = DefKind::Method;
        let c = DefKind::Class;
        // A method's body changed, so the class body hash changed too: only the method.
        let old = [("C", c, 1, 100, BIG), ("C.m", m, 2, 200, BIG)];
        let new = [("C", c, 1, 101, BIG), ("C.m", m, 2, 201, BIG)];
        assert_eq!(diff(&old, &new), vec![fc(Some(1), Some(1), Change::Body)]);
        // `extends` changed: the class signature.
        let new = [("C", c, 9, 101, BIG), ("C.m", m, 2, 200, BIG)];
        assert_eq!(
            diff(&old, &new),
            vec![fc(Some(0), Some(0), Change::Signature)]
        );
    }

    #[test]
    fn non_callable_definitions_are_ignored() {
        let old = [
            ("I", DefKind::Interface, 1, 1, BIG),
            ("o", DefKind::Object, 1, 1, BIG),
        ];
        let new = [("I", DefKind::Interface, 2, 2, BIG)];
        assert_eq!(diff(&old, &new), vec![]);
    }

    #[test]
    fn whole_file_added_or_removed() {
        let defs = facts(&[
            ("a", F, 1, 1, BIG),
            ("I", DefKind::Interface, 1, 1, BIG),
            ("C", DefKind::Class, 1, 1, BIG),
        ]);
        assert_eq!(
            diff_functions(None, Some(&defs)),
            vec![
                fc(None, Some(0), Change::Added),
                fc(None, Some(2), Change::Added)
            ]
        );
        assert_eq!(
            diff_functions(Some(&defs), None),
            vec![
                fc(Some(0), None, Change::Removed),
                fc(Some(2), None, Change::Removed)
            ]
        );
        assert_eq!(diff_functions(None, None), vec![]);
    }

    #[test]
    fn changed_lines_insert() {
        let old = "a\nb\nc\n";
        let new = "a\nx\ny\nb\nc\n";
        assert_eq!(changed_lines(old, new), vec![1..3]);
        assert_eq!(changed_lines("", "a\nb\n"), vec![0..2]);
    }

    #[test]
    fn changed_lines_modify() {
        let old = "a\nb\nc\nd\n";
        let new = "a\nB\nc\nD\n";
        assert_eq!(changed_lines(old, new), vec![1..2, 3..4]);
        // Adjacent edits merge.
        assert_eq!(changed_lines("a\nb\nc\n", "A\nB\nc\n"), vec![0..2]);
    }

    #[test]
    fn changed_lines_delete_marks_where_it_happened() {
        // Deleting `b` marks `c`, the line now where `b` was.
        assert_eq!(changed_lines("a\nb\nc\n", "a\nc\n"), vec![1..2]);
        // Deleting the last line marks the new last line.
        assert_eq!(changed_lines("a\nb\nc\n", "a\nb\n"), vec![1..2]);
        // Deleting everything leaves no line to mark.
        assert_eq!(changed_lines("a\nb\n", ""), vec![]);
    }

    #[test]
    fn changed_lines_crlf() {
        let old = "a\r\nb\r\nc\r\n";
        assert_eq!(changed_lines(old, "a\r\nB\r\nc\r\n"), vec![1..2]);
        // Line endings alone are not an edit.
        assert_eq!(changed_lines(old, "a\nb\nc\n"), vec![]);
        // A missing final newline is not an edit either.
        assert_eq!(changed_lines("a\nb\n", "a\nb"), vec![]);
    }
}
