//! From what someone typed to one definition: a name, `Class.method` or `FILE:LINE`.
//! A name that matches nothing gets the closest names; one that matches several lists
//! them, never silently picking one.

use serde::Serialize;

use crate::graph::{DefId, Found, Graph};
use crate::indexer::facts::DefKind;

/// A definition as people read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Definition {
    pub name: String,
    pub qualified_name: String,
    pub kind: &'static str,
    pub file: String,
    /// 1-based.
    pub line: u32,
}

impl Definition {
    /// `FILE:LINE  Qualified.name (kind)`, as the CLI prints it.
    pub fn label(&self) -> String {
        format!(
            "{}:{}  {} ({})",
            self.file, self.line, self.qualified_name, self.kind
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetError {
    /// Nothing has that name; the closest names, best first (maybe none).
    NotFound {
        target: String,
        suggestions: Vec<Definition>,
    },
    /// Several definitions have it: the user picks one (by `FILE:LINE` or a qualified
    /// name).
    Ambiguous {
        target: String,
        candidates: Vec<Definition>,
    },
}

/// How many near names a "did you mean" lists.
const SUGGESTIONS: usize = 5;

impl std::fmt::Display for TargetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TargetError::NotFound {
                target,
                suggestions,
            } => {
                write!(f, "no definition named '{target}'")?;
                match suggestions.as_slice() {
                    [] => write!(f, " (try a qualified name like Class.method, or FILE:LINE)"),
                    [one] => write!(f, "; did you mean {}?", one.label()),
                    many => {
                        write!(f, "; did you mean one of these?")?;
                        for d in many {
                            write!(f, "\n  {}", d.label())?;
                        }
                        Ok(())
                    }
                }
            }
            TargetError::Ambiguous { target, candidates } => {
                write!(
                    f,
                    "'{target}' names {} definitions; pick one:",
                    candidates.len()
                )?;
                for d in candidates.iter().take(30) {
                    write!(f, "\n  {}", d.label())?;
                }
                if candidates.len() > 30 {
                    write!(f, "\n  ... and {} more", candidates.len() - 30)?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for TargetError {}

/// The definition `target` names.
pub fn lookup(g: &Graph, target: &str) -> Result<DefId, TargetError> {
    chosen(g, target, g.find(target))
}

/// Where a definition lies, for a context that ranks candidates (a pull request prefers
/// the definitions it changed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefSite<'a> {
    pub file: &'a str,
    /// 1-based, inclusive: the definition's whole span.
    pub start_line: u32,
    pub end_line: u32,
}

/// What a target names once a context has weighed in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// One definition: the only one, or the one the context ranked above the others
    /// (`passed_over` then lists those others, for a line naming them).
    One {
        def: DefId,
        passed_over: Vec<Definition>,
    },
    /// Several, none ranked above the rest, and few enough to answer for each.
    Each(Vec<DefId>),
}

/// Candidates answered for each when nothing decides between them; more are listed.
pub const ANSWER_EACH_UP_TO: usize = 3;

/// The definition `target` names, letting `rank` decide between several: the one
/// candidate ranked strictly highest (above 0) is chosen. When none is, up to
/// [`ANSWER_EACH_UP_TO`] candidates are all answered for; more are the usual
/// [`TargetError::Ambiguous`]. Never a silent pick: what was passed over is returned.
pub fn lookup_preferring(
    g: &Graph,
    target: &str,
    rank: &dyn Fn(DefSite<'_>) -> u8,
) -> Result<Resolved, TargetError> {
    let candidates = match g.find(target) {
        Found::One(d) => {
            return Ok(Resolved::One {
                def: d,
                passed_over: Vec::new(),
            })
        }
        Found::Ambiguous(c) => c,
        Found::None => return chosen(g, target, Found::None).map(|_| unreachable!()),
    };
    let ranks: Vec<u8> = candidates
        .iter()
        .map(|&d| {
            let (file, start_line, end_line) = site(g, d);
            rank(DefSite {
                file: &file,
                start_line,
                end_line,
            })
        })
        .collect();
    let best = ranks.iter().copied().max().unwrap_or(0);
    let top: Vec<usize> = (0..candidates.len())
        .filter(|&i| ranks[i] == best)
        .collect();
    if best > 0 && top.len() == 1 {
        let def = candidates[top[0]];
        let passed_over = candidates
            .iter()
            .filter(|&&d| d != def)
            .map(|&d| describe(g, d))
            .collect();
        return Ok(Resolved::One { def, passed_over });
    }
    if candidates.len() <= ANSWER_EACH_UP_TO {
        return Ok(Resolved::Each(candidates));
    }
    chosen(g, target, Found::Ambiguous(candidates)).map(|_| unreachable!())
}

/// A definition's file and 1-based lines.
fn site(g: &Graph, d: DefId) -> (String, u32, u32) {
    let facts = g.facts(d.file);
    let span = facts.def(d.def).span;
    (
        facts.path.to_string(),
        span.start_line + 1,
        span.end_line + 1,
    )
}

/// What a lookup of `target` found, as one definition or the error that lists the
/// choices (several) or the nearest names (none).
pub(crate) fn chosen(g: &Graph, target: &str, found: Found) -> Result<DefId, TargetError> {
    match found {
        Found::One(d) => Ok(d),
        Found::Ambiguous(candidates) => Err(TargetError::Ambiguous {
            target: target.to_string(),
            candidates: candidates.iter().map(|&d| describe(g, d)).collect(),
        }),
        Found::None => Err(TargetError::NotFound {
            target: target.to_string(),
            suggestions: suggest(g, target),
        }),
    }
}

pub fn describe(g: &Graph, d: DefId) -> Definition {
    let facts = g.facts(d.file);
    let def = facts.def(d.def);
    Definition {
        name: facts.str(def.name).to_string(),
        qualified_name: facts.str(def.qualified).to_string(),
        kind: def.kind.as_str(),
        file: facts.path.clone(),
        line: def.name_pos.line + 1,
    }
}

/// The definitions whose name or qualified name is nearest `target`: by edit distance
/// (case-insensitive, at most a third of the name's length) or containing it.
pub(super) fn suggest(g: &Graph, target: &str) -> Vec<Definition> {
    let wanted = target.to_lowercase();
    if wanted.len() < 2 {
        return Vec::new();
    }
    let limit = (wanted.chars().count() / 3).max(1);
    let mut scored: Vec<(usize, usize, DefId)> = Vec::new();
    for f in g.file_ids() {
        let facts = g.facts(f);
        for (i, def) in facts.defs.iter().enumerate() {
            if !def.kind.is_callable() && def.kind != DefKind::Interface {
                continue;
            }
            let name = facts.str(def.name).to_lowercase();
            let qualified = facts.str(def.qualified).to_lowercase();
            let distance = strsim::damerau_levenshtein(&wanted, &name)
                .min(strsim::damerau_levenshtein(&wanted, &qualified));
            // Containing the typed text counts as close, after true near misses.
            let score = if distance <= limit {
                distance
            } else if name.contains(&wanted) || qualified.contains(&wanted) {
                limit + 1
            } else {
                continue;
            };
            let d = DefId::new(f, i as crate::indexer::facts::DefIdx);
            scored.push((score, qualified.len(), d));
        }
    }
    scored.sort();
    let mut out: Vec<Definition> = Vec::new();
    for (_, _, d) in scored {
        let def = describe(g, d);
        // One entry per qualified name and file: overloads are one suggestion.
        if out
            .iter()
            .any(|o| o.qualified_name == def.qualified_name && o.file == def.file)
        {
            continue;
        }
        out.push(def);
        if out.len() == SUGGESTIONS {
            break;
        }
    }
    out
}
