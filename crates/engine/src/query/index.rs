//! Name lookups for a server that answers many questions of one graph: definitions by
//! qualified and simple name, and unresolved call sites by name, built once per graph
//! version. Each answer equals the one-off scan's ([`super::lookup`],
//! [`super::callers`]), in the same order; a CLI asks once and scans instead.

use rustc_hash::FxHashMap;

use super::calls::{callers_counted, CallersAnswer};
use super::target::{chosen, TargetError};
use crate::graph::{DefId, Found, Graph};
use crate::indexer::facts::{DefIdx, DefKind};

/// The names of one graph (rebuild it when the graph changes), keyed by the graph's
/// interned name ids: building it allocates no string.
#[derive(Clone, Debug, Default)]
pub struct NameIndex {
    by_qualified: FxHashMap<u32, Vec<DefId>>,
    by_name: FxHashMap<u32, Vec<DefId>>,
    unresolved: FxHashMap<u32, usize>,
}

impl NameIndex {
    pub fn build(g: &Graph) -> NameIndex {
        let mut index = NameIndex::default();
        for f in g.file_ids() {
            let slot = g.slot(f);
            let facts = slot.facts();
            for (i, d) in facts.defs.iter().enumerate() {
                if !d.kind.is_callable() && d.kind != DefKind::Interface {
                    continue;
                }
                let id = DefId::new(f, i as DefIdx);
                index.by_qualified.entry(d.qualified).or_default().push(id);
                index.by_name.entry(d.name).or_default().push(id);
            }
            for &s in &g.resolution(f).unresolved_sites {
                *index
                    .unresolved
                    .entry(facts.calls[s as usize].name)
                    .or_default() += 1;
            }
        }
        index
    }

    /// [`super::lookup`] through the index.
    pub fn lookup(&self, g: &Graph, target: &str) -> Result<DefId, TargetError> {
        let found = match target.rsplit_once(':') {
            // FILE:LINE reads one file: the graph answers at once.
            Some((file, line)) if line.parse::<u32>().is_ok() && g.file_id(file).is_some() => {
                g.find(target)
            }
            _ => {
                let found = g
                    .names
                    .get(target)
                    .and_then(|n| {
                        self.by_qualified
                            .get(&n.0)
                            .or_else(|| self.by_name.get(&n.0))
                    })
                    .map_or(&[][..], Vec::as_slice);
                match found {
                    [] => Found::None,
                    [one] => Found::One(*one),
                    many => Found::Ambiguous(many.to_vec()),
                }
            }
        };
        chosen(g, target, found)
    }

    /// [`super::callers`] through the index.
    pub fn callers(&self, g: &Graph, d: DefId, depth: u32, skipped_files: usize) -> CallersAnswer {
        let slot = g.slot(d.file);
        let name = slot.facts().def(d.def).name;
        let unresolved = self.unresolved.get(&name).copied().unwrap_or(0);
        callers_counted(g, d, depth, unresolved, skipped_files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexer::{extract, Language};
    use crate::query::{callers, lookup};

    #[test]
    fn answers_as_the_scans_do() {
        let files = [
            (
                "a.ts",
                "export class A {\n  save() { helper(); missing(); }\n}\nexport function save() { missing(); }\ninterface Saver { save(): void }\n",
            ),
            ("b.js", "import { save } from './a';\nfunction helper() { save(); missing(); }\nconst o = { save() {} };\nhelper();\n"),
        ];
        let facts = files
            .iter()
            .map(|(p, s)| extract(p, Language::from_path(p).unwrap(), s).expect("read"))
            .collect();
        let g = Graph::build(facts, Vec::new());
        let index = NameIndex::build(&g);
        let mut targets: Vec<String> = [
            "save",
            "A.save",
            "helper",
            "nope",
            "Saver.save",
            "o.save",
            "a.ts:2",
            "a.ts:99",
            "b.js:2",
            "c.js:1",
            "sav",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for f in g.file_ids() {
            for d in &g.facts(f).defs {
                targets.push(g.facts(f).str(d.name).to_string());
                targets.push(g.facts(f).str(d.qualified).to_string());
            }
        }
        for t in &targets {
            let (scanned, indexed) = (lookup(&g, t), index.lookup(&g, t));
            assert_eq!(scanned, indexed, "{t}");
            if let Ok(d) = scanned {
                for depth in 1..3 {
                    assert_eq!(
                        callers(&g, d, depth, 2),
                        index.callers(&g, d, depth, 2),
                        "{t}"
                    );
                }
            }
        }
        // The calls that resolve nowhere are counted by name.
        let missing = g.names.get("missing").unwrap().0;
        assert_eq!(index.unresolved.get(&missing), Some(&3));
    }
}
