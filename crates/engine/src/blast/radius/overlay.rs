//! The head revision: the changed files laid over a fork of the base graph. The fork
//! shares the base graph's files and indexes and copies only what the updates write
//! to; the base graph stays as it was.

use super::FileChange;
use crate::graph::Graph;
use crate::indexer::facts::FileFacts;

/// The head graph: `base` forked, each change applied in order. `facts` holds the
/// head facts the plan extracted for each change (None where there are none: a
/// removed file, a config file, a file in no language we read).
pub(super) fn head(base: &Graph, changes: &[FileChange], facts: Vec<Option<FileFacts>>) -> Graph {
    let mut head = base.clone();
    for (change, facts) in changes.iter().zip(facts) {
        let _ = match (&change.new, facts) {
            // What `update_file` would extract again: the plan's facts of the same text.
            (Some(_), Some(facts)) => head.update_facts(facts),
            (Some(src), None) => head.update_file(&change.path, src),
            (None, _) => head.remove_file(&change.path),
        };
    }
    head
}
