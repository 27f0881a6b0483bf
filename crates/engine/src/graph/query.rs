//! Questions the graph answers: find a definition, its callers (direct and transitive),
//! its callees, and a call path between two definitions.

use std::collections::VecDeque;

use petgraph::algo::astar;
use petgraph::graphmap::DiGraphMap;
use rustc_hash::{FxHashMap, FxHashSet};

use super::{Caller, Confidence, DefId, FileId, Graph};
use crate::indexer::facts::*;

/// What a TARGET argument found.
#[derive(Debug, PartialEq, Eq)]
pub enum Found {
    One(DefId),
    /// Several definitions match: the user must pick one.
    Ambiguous(Vec<DefId>),
    None,
}

/// The function (or module top level) a call site sits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CallerNode {
    Def(DefId),
    Module(FileId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransitiveCaller {
    pub caller: Caller,
    /// 1: calls the target itself.
    pub depth: u32,
    /// What this site calls: the target, or a caller at depth - 1.
    pub via: DefId,
}

impl Graph {
    /// Finds definitions by `FILE:LINE`, qualified name, or simple name (in that order).
    pub fn find(&self, target: &str) -> Found {
        if let Some((file, line)) = target.rsplit_once(':') {
            if let (Ok(line), Some(f)) = (line.parse::<u32>(), self.file_id(file)) {
                return self.find_at(f, line);
            }
        }
        let mut by_qualified = Vec::new();
        let mut by_name = Vec::new();
        for f in self.file_ids() {
            let facts = self.facts(f);
            for (i, d) in facts.defs.iter().enumerate() {
                if !d.kind.is_callable() && d.kind != DefKind::Interface {
                    continue;
                }
                let id = DefId::new(f, i as DefIdx);
                if facts.str(d.qualified) == target {
                    by_qualified.push(id);
                } else if facts.str(d.name) == target {
                    by_name.push(id);
                }
            }
        }
        let found = if by_qualified.is_empty() {
            by_name
        } else {
            by_qualified
        };
        match found.len() {
            0 => Found::None,
            1 => Found::One(found[0]),
            _ => Found::Ambiguous(found),
        }
    }

    /// The innermost definition whose name is on `line` (1-based), else the innermost
    /// one spanning it.
    fn find_at(&self, f: FileId, line: u32) -> Found {
        let row = line.saturating_sub(1);
        let facts = self.facts(f);
        let named = facts
            .defs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.name_pos.line == row && d.kind != DefKind::Object)
            .map(|(i, _)| i)
            .next_back();
        let spanning = || {
            facts
                .defs
                .iter()
                .enumerate()
                .filter(|(_, d)| {
                    d.first_line() <= row && row <= d.span.end_line && d.kind.is_callable()
                })
                .min_by_key(|(_, d)| d.span.end_byte - d.span.start_byte)
                .map(|(i, _)| i)
        };
        match named.or_else(spanning) {
            Some(i) => Found::One(DefId::new(f, i as DefIdx)),
            None => Found::None,
        }
    }

    /// Callers of `d` as a user means it: a constructor is called by `new C()` and
    /// `super()` sites, which resolve to its class; a method implementing an interface
    /// is called by calls through that interface; code is called by the calls that
    /// TypeScript resolves to its declarations (`x.d.ts` beside `x.js`, a package's
    /// `types` tree), as surely as the pairing of the two is.
    pub fn callers_of(&self, d: DefId) -> Vec<Caller> {
        let mut out: Vec<Caller> = self.callers(d).to_vec();
        let mut through: Vec<(DefId, Confidence)> = self
            .implemented_methods(d)
            .into_iter()
            .chain(self.declarations_of(d))
            .map(|m| (m, Confidence::Exact))
            .collect();
        through.extend_from_slice(self.declared_as(d));
        let def = self.facts(d.file).held().def(d.def);
        let class = match (def.kind, def.container()) {
            (DefKind::Constructor, Some(class)) => Some(DefId::new(d.file, class)),
            _ => None,
        };
        for (m, confidence) in through {
            out.extend(self.callers(m).iter().map(|c| at_most(*c, confidence)));
        }
        // `new C()` of the class, or of what declares it.
        if let Some(class) = class {
            let declared = self.declared_as(class).iter().copied();
            for (c, confidence) in std::iter::once((class, Confidence::Exact)).chain(declared) {
                out.extend(
                    self.callers(c)
                        .iter()
                        .filter(|c| matches!(self.site(**c).kind, CallKind::New | CallKind::Call))
                        .map(|c| at_most(*c, confidence)),
                );
            }
        }
        out.sort();
        // One caller per site, at its surest (the sort puts `exact` first).
        out.dedup_by_key(|c| (c.file, c.site()));
        out
    }

    /// What the declaration file beside `d`'s JavaScript file declares under `d`'s
    /// qualified name (every overload). Calls resolve to the declarations, as
    /// TypeScript's do; they are calls of this code all the same.
    pub fn declarations_of(&self, d: DefId) -> Vec<DefId> {
        let facts = self.facts(d.file);
        let Some(declared) = self.declarations_beside(&facts.path) else {
            return Vec::new();
        };
        let qualified = facts.def_qualified(d.def);
        let decls = self.facts(declared);
        (0..decls.defs.len() as DefIdx)
            .filter(|&i| decls.def_qualified(i) == qualified && decls.def(i).kind.is_callable())
            .map(|i| DefId::new(declared, i))
            .collect()
    }

    pub fn site(&self, c: Caller) -> &CallSite {
        &self.facts(c.file).held().calls[c.site() as usize]
    }

    /// The function a call site is in.
    pub fn caller_node(&self, c: Caller) -> CallerNode {
        match self.site(c).caller() {
            Some(d) => CallerNode::Def(DefId::new(c.file, d)),
            None => CallerNode::Module(c.file),
        }
    }

    /// Outgoing edges of a definition: (site, edge) pairs of the calls inside it.
    pub fn callees(&self, d: DefId) -> Vec<super::Edge> {
        let facts = self.facts(d.file);
        self.edges(d.file)
            .into_iter()
            .filter(|e| facts.calls[e.site() as usize].caller() == Some(d.def))
            .collect()
    }

    /// Callers up to `depth` levels away, breadth first, each caller function once.
    pub fn transitive_callers(&self, d: DefId, depth: u32) -> Vec<TransitiveCaller> {
        let mut out = Vec::new();
        let mut seen: FxHashSet<DefId> = FxHashSet::default();
        seen.insert(d);
        let mut queue = VecDeque::from([(d, 1u32)]);
        while let Some((target, level)) = queue.pop_front() {
            if level > depth {
                continue;
            }
            for c in self.callers_of(target) {
                out.push(TransitiveCaller {
                    caller: c,
                    depth: level,
                    via: target,
                });
                if let CallerNode::Def(next) = self.caller_node(c) {
                    if seen.insert(next) {
                        queue.push_back((next, level + 1));
                    }
                }
            }
        }
        out
    }

    /// The shortest call path from `from` to `to`, through definitions.
    pub fn path(&self, from: DefId, to: DefId) -> Option<Vec<DefId>> {
        let mut ids: FxHashMap<DefId, u32> = FxHashMap::default();
        let mut defs: Vec<DefId> = Vec::new();
        let mut id = |d: DefId, defs: &mut Vec<DefId>| {
            *ids.entry(d).or_insert_with(|| {
                defs.push(d);
                (defs.len() - 1) as u32
            })
        };
        let mut graph: DiGraphMap<u32, ()> = DiGraphMap::new();
        for f in self.file_ids() {
            let facts = self.facts(f);
            for e in self.edges(f) {
                if let Some(caller) = facts.calls[e.site() as usize].caller() {
                    let a = id(DefId::new(f, caller), &mut defs);
                    let b = id(e.target, &mut defs);
                    graph.add_edge(a, b, ());
                }
            }
        }
        let (start, goal) = (*ids.get(&from)?, *ids.get(&to)?);
        let (_, path) = astar(&graph, start, |n| n == goal, |_| 1u32, |_| 0)?;
        Some(path.into_iter().map(|n| defs[n as usize]).collect())
    }
}

/// One edge with file paths instead of ids: comparable across graphs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct EdgeKey {
    pub from_file: String,
    pub site: u32,
    pub to_file: String,
    pub to_qualified: String,
    pub to_def: u32,
    pub confidence: super::Confidence,
}

impl Graph {
    /// Every edge, sorted: two graphs of the same files have equal lists.
    pub fn edge_keys(&self) -> Vec<EdgeKey> {
        let mut out = Vec::new();
        for f in self.file_ids() {
            for e in self.edges(f) {
                let target = self.facts(e.target.file);
                out.push(EdgeKey {
                    from_file: self.facts(f).path.clone(),
                    site: e.site(),
                    to_file: target.path.clone(),
                    to_qualified: target.def_qualified(e.target.def).to_string(),
                    to_def: e.target.def,
                    confidence: e.confidence(),
                });
            }
        }
        out.sort();
        out
    }

    /// Every reverse-index entry as (callee, caller file, site): must mirror the edges.
    pub fn reverse_keys(&self) -> Vec<(String, u32, String, u32)> {
        let mut out = Vec::new();
        for f in self.file_ids() {
            let facts = self.facts(f);
            for d in 0..facts.defs.len() as u32 {
                for c in self.callers(DefId::new(f, d)) {
                    out.push((
                        facts.path.clone(),
                        d,
                        self.facts(c.file).path.clone(),
                        c.site(),
                    ));
                }
            }
        }
        out.sort();
        out
    }
}

/// A caller reached through a link as sure as `confidence`: no surer than either.
fn at_most(c: Caller, confidence: Confidence) -> Caller {
    Caller::new(c.file, c.site(), c.confidence().max(confidence))
}
