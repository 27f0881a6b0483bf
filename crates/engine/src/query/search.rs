//! Definitions by what someone half remembers: a name, part of one, a qualified name, a
//! file, or `FILE:LINE`, ranked; and when nothing matches, the closest names.

use serde::Serialize;

use super::target::{describe, suggest, Definition};
use crate::graph::{DefId, Found, Graph};
use crate::indexer::facts::{DefIdx, DefKind};

/// Definitions matching a query, best first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SearchAnswer {
    pub query: String,
    /// How many definitions match; `matches` holds the first `limit` of them.
    pub total: usize,
    pub matches: Vec<Definition>,
    /// When nothing matches: the names nearest the query ("did you mean").
    pub did_you_mean: Vec<Definition>,
}

/// How well a definition matches, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    /// The name or the qualified name is the query.
    Exact,
    /// The same but for case.
    CaseInsensitive,
    /// The name or the qualified name starts with the query (any case).
    Prefix,
    /// The name or the qualified name contains the query (any case).
    Contains,
}

fn rank(query: &str, lower: &str, name: &str, qualified: &str) -> Option<Rank> {
    if name == query || qualified == query {
        return Some(Rank::Exact);
    }
    let (name, qualified) = (name.to_lowercase(), qualified.to_lowercase());
    if name == lower || qualified == lower {
        Some(Rank::CaseInsensitive)
    } else if name.starts_with(lower) || qualified.starts_with(lower) {
        Some(Rank::Prefix)
    } else if name.contains(lower) || qualified.contains(lower) {
        Some(Rank::Contains)
    } else {
        None
    }
}

/// The definitions `query` matches, at most `limit` of them: the one at `FILE:LINE`; a
/// file's definitions in line order; else by name, exact matches first, then the same
/// but for case, then prefixes, then names containing it (shorter qualified names
/// first within each). Object literals are left out, as everywhere names are looked up.
pub fn search(g: &Graph, query: &str, limit: usize) -> SearchAnswer {
    let query = query.trim();
    let mut found: Vec<DefId> = Vec::new();
    if let Some(f) = g.file_id(query) {
        let facts = g.facts(f);
        let mut defs: Vec<(u32, DefIdx)> = facts
            .defs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.kind != DefKind::Object)
            .map(|(i, d)| (d.name_pos.line, i as DefIdx))
            .collect();
        defs.sort();
        found.extend(defs.into_iter().map(|(_, i)| DefId::new(f, i)));
    } else if let (Some((file, _)), Found::One(d)) = (query.rsplit_once(':'), g.find(query)) {
        if g.file_id(file).is_some() {
            found.push(d);
        }
    }
    if found.is_empty() && !query.is_empty() {
        let lower = query.to_lowercase();
        let mut ranked: Vec<(Rank, usize, &str, u32, DefId)> = Vec::new();
        for f in g.file_ids() {
            let facts = g.facts(f);
            for (i, d) in facts.defs.iter().enumerate() {
                if d.kind == DefKind::Object {
                    continue;
                }
                let qualified = facts.str(d.qualified);
                if let Some(r) = rank(query, &lower, facts.str(d.name), qualified) {
                    let id = DefId::new(f, i as DefIdx);
                    ranked.push((r, qualified.len(), &facts.held().path, d.name_pos.line, id));
                }
            }
        }
        ranked.sort();
        found.extend(ranked.into_iter().map(|(.., d)| d));
    }
    let did_you_mean = if found.is_empty() {
        suggest(g, query)
    } else {
        Vec::new()
    };
    SearchAnswer {
        query: query.to_string(),
        total: found.len(),
        matches: found
            .into_iter()
            .take(limit)
            .map(|d| describe(g, d))
            .collect(),
        did_you_mean,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexer::{extract, Language};

    fn graph() -> Graph {
        let files = [
            (
                "src/users.ts",
                "export class UserService {\n  getUser(id) { return id; }\n  getUsers() { return []; }\n}\nexport function getuser() {}\n",
            ),
            ("src/util.js", "export function userName(u) { return u.name; }\nexport const config = { a: 1 };\n"),
        ];
        let facts = files
            .iter()
            .map(|(p, s)| extract(p, Language::from_path(p).unwrap(), s).expect("read"))
            .collect();
        Graph::build(facts, Vec::new())
    }

    fn names(answer: &SearchAnswer) -> Vec<&str> {
        answer
            .matches
            .iter()
            .map(|d| d.qualified_name.as_str())
            .collect()
    }

    #[test]
    fn exact_then_case_then_prefix_then_contains() {
        let g = graph();
        let a = search(&g, "getUser", 10);
        assert_eq!(
            names(&a),
            vec!["UserService.getUser", "getuser", "UserService.getUsers"]
        );
        assert_eq!(a.total, 3);
        let a = search(&g, "user", 10);
        assert_eq!(
            names(&a),
            vec![
                "userName",
                "UserService",
                "UserService.getUser",
                "UserService.getUsers",
                "getuser"
            ]
        );
        let a = search(&g, "user", 2);
        assert_eq!((a.total, a.matches.len()), (5, 2));
    }

    #[test]
    fn files_and_file_lines() {
        let g = graph();
        let a = search(&g, "src/users.ts", 10);
        assert_eq!(
            names(&a),
            vec![
                "UserService",
                "UserService.getUser",
                "UserService.getUsers",
                "getuser"
            ]
        );
        let a = search(&g, "src/users.ts:3", 10);
        assert_eq!(names(&a), vec!["UserService.getUsers"]);
    }

    #[test]
    fn nothing_found_says_what_is_near() {
        let g = graph();
        let a = search(&g, "usrName", 10);
        assert!(a.matches.is_empty());
        assert_eq!(a.did_you_mean[0].qualified_name, "userName");
        // Object literals are not definitions one looks for.
        assert!(search(&g, "config", 10).matches.is_empty());
    }
}
