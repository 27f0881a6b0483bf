//! Across the repositories of an installation: which functions of the repository that
//! owns a package the calls other repositories make into it reach.
//!
//! Each call (an [`ExternalCall`], kept by the calling repository) is written out as
//! the code that makes it, in a file laid over a fork of the owning repository's graph:
//! `import { formatPrice as c0 } from "@acme/money"; c0();`. The owner's own resolver
//! then follows it as it follows its own code (workspace packages, `exports` maps,
//! barrels and re-exports, classes, declarations paired with their code), so a call
//! from elsewhere reaches exactly what the same call made inside the repository would.

use rustc_hash::FxHashMap;

use crate::blast::diff::Change;
use crate::blast::report::{ChangedFunction, Judged};
use crate::graph::external::{ExternalCall, Imported, Step};
use crate::graph::modules::ModuleResolver;
use crate::graph::{Confidence, DefId, Graph};

/// A call another repository of the installation makes into a package, where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallElsewhere {
    /// The calling repository, `owner/name`.
    pub repo: String,
    pub private: bool,
    /// The commit the calling repository's graph reflects (its default branch's).
    pub commit: Option<String>,
    pub path: String,
    pub call: ExternalCall,
}

/// A call in another repository that reaches a function a change touched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundElsewhere {
    /// Its index among the changed functions.
    pub changed: usize,
    /// Its index among the calls.
    pub call: usize,
    pub confidence: Confidence,
    /// Whether the change breaks it, and why (see `blast::radius::judge_elsewhere`);
    /// None until judged.
    pub judged: Option<Judged>,
}

/// The version of each package `owner` holds, where its package.json says one.
pub fn package_versions(owner: &Graph) -> Vec<(String, String)> {
    let resolver = owner.resolver();
    resolver
        .packages()
        .into_iter()
        .filter_map(|(name, _)| {
            Some((
                name.to_string(),
                resolver.package_version(name)?.to_string(),
            ))
        })
        .collect()
}

/// Which of `calls` reach the functions of `changed` (a change to `base`): each as
/// `base` had it (the others call the default branch's version), so a removed or
/// renamed function is found by its old name. Added functions have no callers yet.
pub fn reached_by_changes(
    base: &Graph,
    changed: &[ChangedFunction],
    calls: &[CallElsewhere],
) -> Vec<FoundElsewhere> {
    let mut targets: Vec<(DefId, usize)> = Vec::new();
    for (i, c) in changed.iter().enumerate() {
        if c.change == Change::Added {
            continue;
        }
        let Some(file) = base.file_id(&c.file) else {
            continue;
        };
        let name = c.renamed_from.as_deref().unwrap_or(&c.qualified_name);
        let facts = base.facts(file);
        for def in 0..facts.defs.len() as u32 {
            if facts.def_qualified(def) == name {
                targets.push((DefId { file, def }, i));
            }
        }
    }
    let defs: Vec<DefId> = targets.iter().map(|&(d, _)| d).collect();
    let refs: Vec<&ExternalCall> = calls.iter().map(|c| &c.call).collect();
    let mut found: Vec<FoundElsewhere> = link(base, &refs, &defs)
        .into_iter()
        .flat_map(|r| {
            targets
                .iter()
                .filter(move |&&(d, _)| d == r.target)
                .map(move |&(_, changed)| FoundElsewhere {
                    changed,
                    call: r.call,
                    confidence: r.confidence,
                    judged: None,
                })
        })
        .collect();
    found.sort_by_key(|f| (f.changed, f.call));
    found.dedup_by_key(|f| (f.changed, f.call));
    found
}

/// Which of `calls` reach `def` (a function of `owner`), as (index into `calls`,
/// confidence), in the order of `calls`: the answer to "who else calls it".
pub fn reaching(owner: &Graph, def: DefId, calls: &[CallElsewhere]) -> Vec<(usize, Confidence)> {
    let refs: Vec<&ExternalCall> = calls.iter().map(|c| &c.call).collect();
    link(owner, &refs, &[def])
        .into_iter()
        .map(|r| (r.call, r.confidence))
        .collect()
}

/// Where the calls are laid over the owner's graph: a path no repository holds.
const LAID_PATH: &str = "__blast_radius__/calls-from-other-repositories.ts";
/// Calls linked at once, at most: the rest are not looked at (the caller says so).
pub const MAX_LINKED_CALLS: usize = 50_000;
/// Specifiers and names longer than this are not code anyone imports by.
const MAX_NAME: usize = 512;

/// A call from another repository that reaches one of the functions asked about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reached {
    /// The call's index in the list given.
    pub call: usize,
    /// The function of the owner's graph it reaches.
    pub target: DefId,
    pub confidence: Confidence,
}

/// The packages of `owner` that other repositories import, by name.
pub fn owned_packages(owner: &Graph) -> Vec<String> {
    owner
        .resolver()
        .packages()
        .into_iter()
        .map(|(name, _)| name.to_string())
        .collect()
}

/// The package a package.json text names, read as the repository's own resolution
/// reads it; None when it names none.
pub fn package_name(package_json: &str) -> Option<String> {
    let resolver = ModuleResolver::new(&[("package.json".to_string(), package_json.to_string())]);
    let name = resolver.packages().first()?.0.to_string();
    Some(name)
}

/// Which of `calls` (made by other repositories) reach which of `targets` (functions of
/// `owner`), best confidence first for each call. Calls into packages `owner` does not
/// hold reach nothing; so do calls past the first [`MAX_LINKED_CALLS`].
pub fn link(owner: &Graph, calls: &[&ExternalCall], targets: &[DefId]) -> Vec<Reached> {
    if calls.is_empty() || targets.is_empty() {
        return Vec::new();
    }
    let owned = owned_packages(owner);
    // Calls of one shape (the same specifier, name, path and `new`) reach the same
    // functions wherever they are: each shape is written and resolved once. Across an
    // org most calls into a package are a few shapes (`formatPrice(...)` in 50 places).
    type Shape<'a> = (&'a str, &'a Imported, &'a [Step], bool);
    let mut shapes: FxHashMap<Shape<'_>, usize> = FxHashMap::default();
    let mut members: Vec<Vec<usize>> = Vec::new();
    let mut code = String::new();
    // Line (0-based) of each shape's last statement -> the shape's index.
    let mut final_lines: FxHashMap<u32, usize> = FxHashMap::default();
    let mut line = 0u32;
    for (i, call) in calls.iter().enumerate().take(MAX_LINKED_CALLS) {
        if !owned.contains(&call.package) {
            continue;
        }
        let key = (
            call.specifier.as_str(),
            &call.imported,
            call.steps.as_slice(),
            call.construct,
        );
        if let Some(&shape) = shapes.get(&key) {
            members[shape].push(i);
            continue;
        }
        let shape = members.len();
        let Some(lines) = write_call(call, shape) else {
            continue;
        };
        shapes.insert(key, shape);
        members.push(vec![i]);
        line += lines.len() as u32;
        final_lines.insert(line - 1, shape);
        for l in lines {
            code.push_str(&l);
            code.push('\n');
        }
    }
    if final_lines.is_empty() {
        return Vec::new();
    }
    let mut fork = owner.clone();
    fork.update_file(LAID_PATH, &code);
    let Some(laid) = fork.file_id(LAID_PATH) else {
        return Vec::new();
    };
    let facts = fork.facts(laid);
    let mut out = Vec::new();
    for &target in targets {
        for caller in fork.callers_of(target) {
            if caller.file != laid {
                continue;
            }
            let Some(site) = facts.calls.get(caller.site() as usize) else {
                continue;
            };
            if let Some(&shape) = final_lines.get(&site.pos().line) {
                out.extend(members[shape].iter().map(|&call| Reached {
                    call,
                    target,
                    confidence: caller.confidence(),
                }));
            }
        }
    }
    surest_first(&mut out);
    out
}

/// One of `reached` per call and target, the surest (a call reaches a target by two
/// roads, say exactly and by name); each call's targets best confidence first.
fn surest_first(reached: &mut Vec<Reached>) {
    // `Exact` sorts first.
    reached.sort_by_key(|r| (r.call, r.target, r.confidence));
    reached.dedup_by_key(|r| (r.call, r.target));
    reached.sort_by_key(|r| (r.call, r.confidence, r.target));
}

/// The statements that make `call` (the last one is the call itself), its names
/// suffixed with `i`; None when a name cannot be written as code.
fn write_call(call: &ExternalCall, i: usize) -> Option<Vec<String>> {
    if call.specifier.len() > MAX_NAME {
        return None;
    }
    // JSON string literals are JavaScript string literals: whatever the other
    // repository's text holds stays inside the quotes.
    let specifier = serde_json::to_string(&call.specifier).ok()?;
    let base = format!("c{i}");
    let mut lines = vec![match &call.imported {
        Imported::Named(name) if is_identifier(name) => {
            format!("import {{ {name} as {base} }} from {specifier};")
        }
        Imported::Named(_) => return None,
        Imported::Default => format!("import {base} from {specifier};"),
        Imported::Namespace => format!("import * as {base} from {specifier};"),
        Imported::Require => format!("const {base} = require({specifier});"),
    }];
    let mut expr = base.clone();
    let mut temps = 0;
    let mut temp = |lines: &mut Vec<String>, value: String| {
        temps += 1;
        let name = format!("{base}_{temps}");
        lines.push(format!("const {name} = {value};"));
        name
    };
    for step in &call.steps {
        match step {
            Step::Member(name) if name.len() > MAX_NAME => return None,
            Step::Member(name) if is_identifier(name) => {
                expr.push('.');
                expr.push_str(name);
            }
            Step::Member(name) => {
                expr.push('[');
                expr.push_str(&serde_json::to_string(name).ok()?);
                expr.push(']');
            }
            Step::Call => expr.push_str("()"),
            Step::New => {
                let class = temp(&mut lines, expr);
                expr = temp(&mut lines, format!("new {class}()"));
            }
        }
    }
    if call.construct {
        let class = temp(&mut lines, expr);
        lines.push(format!("new {class}();"));
    } else {
        lines.push(format!("{expr}();"));
    }
    Some(lines)
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::FileId;

    #[test]
    fn a_call_reaching_a_target_twice_keeps_the_surest_and_the_best_come_first() {
        let target = |def| DefId {
            file: FileId(0),
            def,
        };
        let r = |call, def, confidence| Reached {
            call,
            target: target(def),
            confidence,
        };
        let mut reached = vec![
            r(0, 1, Confidence::Possible),
            r(0, 2, Confidence::Likely),
            r(0, 1, Confidence::Exact),
            r(1, 3, Confidence::Likely),
        ];
        surest_first(&mut reached);
        assert_eq!(
            reached,
            [
                r(0, 1, Confidence::Exact),
                r(0, 2, Confidence::Likely),
                r(1, 3, Confidence::Likely),
            ]
        );
    }
}
