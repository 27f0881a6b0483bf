//! Cross-file resolution checked against annotated fixture repositories, in the style of
//! stack-graphs' tests: the expected resolution of a call is written next to it.
//!
//! Each directory `fixtures/resolve/<case>/` is a small repository (sources plus any
//! package.json / tsconfig.json). A line holding calls may carry an annotation in a
//! trailing comment, `// -> SPEC` (or `/* -> SPEC */`, which also works inside JSX as
//! `{/* -> SPEC */}`):
//!
//! ```text
//! // -> services/classify.js:classifyFields       exactly this target, confidence exact
//! // -> likely lib/a.js:helper                     a name-only match to one definition
//! // -> possible a.js:A.render, b.js:B.render       all of these, and only these
//! // -> external                                   a call into a package, no edge
//! // -> none                                       no edge to anything in the repository
//! // -> fmt@utils/date.js:format; now@external      one clause per called name
//! ```
//!
//! A target is `path:qualified` with `path` relative to the case directory and
//! `qualified` the definition's qualified name (`UserService.getUser`). The confidence
//! word (`exact`, `likely`, `possible`) applies to every target of its clause; `exact` is
//! the default. Clauses are separated by `;`; a clause prefixed `name@` is about the
//! call sites whose called name (the last segment: `fmt` in `a.fmt()`) is `name`, a
//! clause without one about every call site on the line. For the selected sites:
//!
//! - targets: the union of their edges is exactly the listed targets at that confidence;
//! - `external`: at least one of them calls into a package and none has an edge;
//! - `none`: none has an edge (external or unresolved are both fine; so is no site).
//!
//! A target list may end in `=> CODE, ...`: where the targets are declarations that live
//! apart from the code they declare (`lib/x.d.ts` beside `lib/x.js`, a package's
//! `types/` tree), the code definitions they stand for, each with its own confidence
//! word (`exact` by default). The sites must then be among the callers of each, at that
//! confidence, and the targets stand for nothing else; a target list without `=>`
//! stands for no code at all.
//!
//! Call sites on lines (or of names) no clause selects may have exact edges freely, but
//! a `likely`/`possible` edge must be annotated: a name-only guess can only appear
//! where a fixture says it should, so phantom edges cannot creep in unnoticed.
//!
//! An annotation followed by `TODO-EXTRACTOR <reason>` documents a known gap in the
//! extractor (outside the resolver): its mismatch is printed and counted, not failed.
//!
//! `RESOLVE_CASE=<case>` runs one case only.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};

use blast_radius::graph::{Confidence, DefId, Graph};
use blast_radius::indexer::facts::{CallKind, FileFacts};
use blast_radius::indexer::pipeline::extract_all;
use blast_radius::indexer::skip::SkipRules;
use blast_radius::workspace::walk;

fn cases_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/resolve")
}

fn case_dirs() -> Vec<(String, PathBuf)> {
    let only = std::env::var("RESOLVE_CASE").ok();
    let mut dirs: Vec<(String, PathBuf)> = std::fs::read_dir(cases_root())
        .expect("fixtures/resolve exists")
        .map(|e| e.expect("readable fixtures directory").path())
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .filter(|(name, _)| only.as_deref().is_none_or(|o| o == name))
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no resolve fixture cases found");
    dirs
}

/// A case's sources as extracted facts, and its config files.
fn extract_case(dir: &Path) -> (Vec<FileFacts>, Vec<(String, String)>) {
    let paths = walk::list(dir).expect("listing the case");
    let files = walk::read(dir, paths).expect("reading the case");
    let extracted = extract_all(files, &SkipRules::default(), &|| {});
    assert!(
        extracted.skipped.is_empty(),
        "{}: skipped {:?}",
        dir.display(),
        extracted.skipped
    );
    (extracted.facts, extracted.configs)
}

fn load_case(dir: &Path) -> Graph {
    let (facts, configs) = extract_case(dir);
    Graph::build(facts, configs)
}

// ---- annotations ----

#[derive(Clone, Debug, PartialEq, Eq)]
enum Expect {
    /// Edges to these targets, which declare this code (confidence, `path:qualified`).
    Targets(Confidence, BTreeSet<String>, BTreeSet<(Confidence, String)>),
    External,
    None,
}

#[derive(Clone, Debug)]
struct Clause {
    /// The called name this clause is about; None: every site on the line.
    name: Option<String>,
    expect: Expect,
}

#[derive(Clone, Debug)]
struct Annotation {
    clauses: Vec<Clause>,
    /// `TODO-EXTRACTOR <reason>`: a known extractor gap.
    todo: Option<String>,
}

/// The annotation text of a line: what follows `// ->` or `/* ->`, if anything.
fn annotation_text(line: &str) -> Option<(&str, Option<String>)> {
    let (start, block) = [("// ->", false), ("/* ->", true)]
        .iter()
        .filter_map(|(marker, block)| line.find(marker).map(|i| (i + marker.len(), *block)))
        .min()?;
    let mut rest = &line[start..];
    if block {
        rest = rest.split("*/").next().unwrap_or(rest);
    }
    let todo = line.find("TODO-EXTRACTOR").map(|i| {
        let reason = &line[i + "TODO-EXTRACTOR".len()..];
        let reason = if block {
            reason.split("*/").next().unwrap_or(reason)
        } else {
            reason
        };
        reason.trim().to_string()
    });
    // A second comment after the spec (`// TODO-EXTRACTOR ...`) is not part of it.
    let spec = rest.split("//").next().unwrap_or(rest);
    let spec = spec.split("TODO-EXTRACTOR").next().unwrap_or(spec);
    Some((spec.trim(), todo))
}

fn parse_clause(text: &str) -> Result<Clause, String> {
    let text = text.trim();
    let (name, body) = match text.split_once('@') {
        // `name@...`: a selector is one identifier before the first `@`.
        Some((n, b))
            if !n.is_empty()
                && n.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$') =>
        {
            (Some(n.to_string()), b.trim())
        }
        _ => (None, text),
    };
    let expect = match body {
        "external" => Expect::External,
        "none" => Expect::None,
        _ => {
            let (body, declared) = match body.split_once("=>") {
                Some((targets, code)) => (targets.trim(), Some(code)),
                None => (body, None),
            };
            let (confidence, list) = with_confidence(body);
            let targets: BTreeSet<String> = list
                .split(',')
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .collect();
            let code: BTreeSet<(Confidence, String)> = declared
                .into_iter()
                .flat_map(|list| list.split(','))
                .map(|t| with_confidence(t.trim()))
                .map(|(c, t)| (c, t.trim().to_string()))
                .collect();
            if targets.is_empty()
                || targets.iter().any(|t| !t.contains(':'))
                || code.iter().any(|(_, t)| !t.contains(':'))
            {
                return Err(format!(
                    "bad annotation clause {text:?}: targets are path:qualified"
                ));
            }
            Expect::Targets(confidence, targets, code)
        }
    };
    Ok(Clause { name, expect })
}

/// A leading confidence word, `exact` if there is none.
fn with_confidence(text: &str) -> (Confidence, &str) {
    text.split_once(char::is_whitespace)
        .and_then(|(word, rest)| Some((Confidence::from_name(word)?, rest)))
        .unwrap_or((Confidence::Exact, text))
}

fn parse_annotation(line: &str) -> Option<Result<Annotation, String>> {
    let (spec, todo) = annotation_text(line)?;
    let clauses: Result<Vec<Clause>, String> = spec
        .split(';')
        .filter(|c| !c.trim().is_empty())
        .map(parse_clause)
        .collect();
    Some(clauses.and_then(|clauses| {
        if clauses.is_empty() {
            Err(format!("empty annotation in {line:?}"))
        } else {
            Ok(Annotation { clauses, todo })
        }
    }))
}

// ---- what the graph says ----

/// One call site as the graph resolved it.
struct SiteView {
    name: String,
    kind: CallKind,
    /// (confidence, `path:qualified`)
    edges: BTreeSet<(Confidence, String)>,
    /// The code the edges' targets declare, apart from them: (confidence of the
    /// code's caller at this site, `path:qualified`), marked `(not a caller)` where the
    /// code's callers leave the site out.
    declared: BTreeSet<(Confidence, String)>,
    external: bool,
}

impl SiteView {
    fn describe(&self) -> String {
        let kind = match self.kind {
            CallKind::Get => "get",
            k => k.as_str(),
        };
        let what = if !self.edges.is_empty() {
            self.edges
                .iter()
                .map(|(c, t)| format!("{} {t}", c.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        } else if self.external {
            "external".to_string()
        } else {
            "nothing".to_string()
        };
        let declared = if self.declared.is_empty() {
            String::new()
        } else {
            let code: Vec<String> = self
                .declared
                .iter()
                .map(|(c, t)| format!("{} {t}", c.as_str()))
                .collect();
            format!(" => {}", code.join(", "))
        };
        format!("{}({kind}) -> {what}{declared}", self.name)
    }
}

fn target_name(g: &Graph, d: DefId) -> String {
    let facts = g.facts(d.file);
    format!("{}:{}", facts.path, facts.def_qualified(d.def))
}

/// Every call site of every file, by (path, 1-based line).
fn sites_by_line(g: &Graph) -> BTreeMap<(String, u32), Vec<SiteView>> {
    let mut out: BTreeMap<(String, u32), Vec<SiteView>> = BTreeMap::new();
    for f in g.file_ids() {
        let facts = g.facts(f);
        let resolution = g.resolution(f);
        let mut views: Vec<SiteView> = facts
            .calls
            .iter()
            .enumerate()
            .map(|(i, site)| SiteView {
                name: facts.str(site.name).to_string(),
                kind: site.kind,
                edges: BTreeSet::new(),
                declared: BTreeSet::new(),
                external: resolution.external_sites.contains(&(i as u32)),
            })
            .collect();
        for e in g.edges(f) {
            let view = &mut views[e.site() as usize];
            view.edges
                .insert((e.confidence(), target_name(g, e.target)));
            for &(code, confidence) in g.implementations_of(e.target) {
                // As `callers` shows it: the code's caller at this site, if it has one.
                let caller = g
                    .callers_of(code)
                    .into_iter()
                    .find(|c| c.file == f && c.site() == e.site());
                let mut name = target_name(g, code);
                let confidence = match caller {
                    Some(c) => c.confidence(),
                    None => {
                        name.push_str(" (not a caller)");
                        confidence.max(e.confidence())
                    }
                };
                view.declared.insert((confidence, name));
            }
        }
        for (site, view) in facts.calls.iter().zip(views) {
            out.entry((facts.path.clone(), site.pos().line + 1))
                .or_default()
                .push(view);
        }
    }
    out
}

// ---- checking ----

#[derive(Default)]
struct Outcome {
    checked: usize,
    failures: Vec<String>,
    /// Mismatches of `TODO-EXTRACTOR` annotations.
    known_gaps: Vec<String>,
    /// `TODO-EXTRACTOR` annotations that pass now.
    fixed_gaps: Vec<String>,
}

fn expected_text(e: &Expect) -> String {
    match e {
        Expect::Targets(c, ts, code) => {
            let mut text = format!(
                "{} {}",
                c.as_str(),
                ts.iter().cloned().collect::<Vec<_>>().join(", ")
            );
            if !code.is_empty() {
                let code: Vec<String> = code
                    .iter()
                    .map(|(c, t)| format!("{} {t}", c.as_str()))
                    .collect();
                text.push_str(&format!(" => {}", code.join(", ")));
            }
            text
        }
        Expect::External => "external".into(),
        Expect::None => "none".into(),
    }
}

/// Whether the selected sites satisfy `expect`.
fn satisfies(expect: &Expect, sites: &[&SiteView]) -> bool {
    let edges: BTreeSet<(Confidence, String)> =
        sites.iter().flat_map(|s| s.edges.iter().cloned()).collect();
    match expect {
        Expect::Targets(c, targets, code) => {
            let want: BTreeSet<(Confidence, String)> =
                targets.iter().map(|t| (*c, t.clone())).collect();
            let declared: BTreeSet<(Confidence, String)> = sites
                .iter()
                .flat_map(|s| s.declared.iter().cloned())
                .collect();
            edges == want && declared == *code
        }
        Expect::External => edges.is_empty() && sites.iter().any(|s| s.external),
        Expect::None => edges.is_empty(),
    }
}

fn check_case(case: &str, dir: &Path, out: &mut Outcome) {
    let g = load_case(dir);
    let sites = sites_by_line(&g);
    let mut annotated: BTreeMap<(String, u32), Annotation> = BTreeMap::new();
    for f in g.file_ids() {
        let path = g.facts(f).path.clone();
        let text = std::fs::read_to_string(dir.join(&path)).expect("readable fixture source");
        for (i, line) in text.lines().enumerate() {
            match parse_annotation(line) {
                Some(Ok(a)) => {
                    annotated.insert((path.clone(), i as u32 + 1), a);
                }
                Some(Err(e)) => out.failures.push(format!("{case}/{path}:{}: {e}", i + 1)),
                None => {}
            }
        }
    }

    let empty = Vec::new();
    for ((path, line), a) in &annotated {
        let on_line = sites.get(&(path.clone(), *line)).unwrap_or(&empty);
        let mut problems = Vec::new();
        for clause in &a.clauses {
            let selected: Vec<&SiteView> = on_line
                .iter()
                .filter(|s| clause.name.as_ref().is_none_or(|n| *n == s.name))
                .collect();
            let ok = if selected.is_empty() {
                clause.expect == Expect::None
            } else {
                satisfies(&clause.expect, &selected)
            };
            out.checked += 1;
            if !ok {
                let got = if selected.is_empty() {
                    "no call site".to_string()
                } else {
                    selected
                        .iter()
                        .map(|s| s.describe())
                        .collect::<Vec<_>>()
                        .join(" | ")
                };
                let who = clause
                    .name
                    .as_ref()
                    .map_or(String::new(), |n| format!("{n}@"));
                problems.push(format!(
                    "expected {who}{}\n      got {got}",
                    expected_text(&clause.expect)
                ));
            }
        }
        // Sites of names no clause selects: like an unannotated line.
        if !a.clauses.iter().any(|c| c.name.is_none()) {
            for s in on_line {
                if a.clauses.iter().any(|c| c.name.as_deref() == Some(&s.name)) {
                    continue;
                }
                if s.edges.iter().any(|(c, _)| *c != Confidence::Exact) {
                    problems.push(format!("unannotated name-only guess: {}", s.describe()));
                }
            }
        }
        let at = format!("{case}/{path}:{line}");
        match (&a.todo, problems.is_empty()) {
            (None, true) => {}
            (None, false) => {
                for p in problems {
                    out.failures.push(format!("{at}: {p}"));
                }
            }
            (Some(reason), false) => out.known_gaps.push(format!("{at}: {reason}")),
            (Some(reason), true) => out.fixed_gaps.push(format!("{at}: {reason}")),
        }
    }

    for ((path, line), on_line) in &sites {
        if annotated.contains_key(&(path.clone(), *line)) {
            continue;
        }
        for s in on_line {
            if s.edges.iter().any(|(c, _)| *c != Confidence::Exact) {
                out.failures.push(format!(
                    "{case}/{path}:{line}: unannotated name-only guess: {}",
                    s.describe()
                ));
            }
        }
    }
}

#[test]
fn annotated_fixtures_resolve_as_written() {
    let mut out = Outcome::default();
    let cases = case_dirs();
    for (case, dir) in &cases {
        check_case(case, dir, &mut out);
    }
    let mut report = String::new();
    let _ = writeln!(
        report,
        "{} cases, {} annotation clauses checked, {} failures, {} known extractor gaps",
        cases.len(),
        out.checked,
        out.failures.len(),
        out.known_gaps.len()
    );
    for g in &out.known_gaps {
        let _ = writeln!(report, "  TODO-EXTRACTOR {g}");
    }
    for g in &out.fixed_gaps {
        let _ = writeln!(
            report,
            "  passes now, remove its TODO-EXTRACTOR marker: {g}"
        );
    }
    eprintln!("{report}");
    assert!(
        out.failures.is_empty(),
        "resolution mismatches:\n  {}",
        out.failures.join("\n  ")
    );
}

// ---- incremental updates ----

/// Every resolved fact of a graph in file-id-independent form.
fn snapshot(g: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    for f in g.file_ids() {
        let facts = g.facts(f);
        let r = g.resolution(f);
        let at = |site: u32| {
            let s = &facts.calls[site as usize];
            format!(
                "{}:{}:{} {}",
                facts.path,
                s.pos().line + 1,
                s.pos().column + 1,
                facts.str(s.name)
            )
        };
        for e in g.edges(f) {
            out.push(format!(
                "{} -> {} {}",
                at(e.site()),
                e.confidence().as_str(),
                target_name(g, e.target)
            ));
        }
        for &s in &r.external_sites {
            out.push(format!("{} -> external", at(s)));
        }
        // Declarations paired with their code, worked out on the graph as it is.
        for d in 0..facts.defs.len() as u32 {
            let d = DefId::new(f, d);
            for &(code, confidence) in g.implementations_of(d) {
                out.push(format!(
                    "{} declares {} {}",
                    target_name(g, d),
                    confidence.as_str(),
                    target_name(g, code)
                ));
            }
        }
        for &s in &r.unresolved_sites {
            out.push(format!("{} -> unresolved", at(s)));
        }
        // The reverse index must agree with the edges.
        for e in g.edges(f) {
            assert!(
                g.callers(e.target).iter().any(|c| c.file == f
                    && c.site() == e.site()
                    && c.confidence() == e.confidence()),
                "reverse index misses {}",
                at(e.site())
            );
        }
    }
    out.sort();
    out
}

/// Adding the files one by one (in reverse order, so importers come before what they
/// import), and removing and re-adding each, ends where a full build does.
/// A call of an overloaded declaration means every overload (TypeScript's checker names
/// them all as what the call refers to); the annotations name a qualified name once.
#[test]
fn a_call_of_an_overloaded_declaration_reaches_every_overload() {
    let g = load_case(&cases_root().join("declarations_merged"));
    let f = g.file_id("test/hooks.test.js").expect("the case has it");
    let counts = targets_by_call_name(&g, f);
    let counts: BTreeMap<&str, usize> = counts.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    assert_eq!(
        counts,
        BTreeMap::from([("Server", 2), ("addHook", 2), ("ready", 1)])
    );
}

/// How many definitions the calls of file `f` reach, by the called name.
fn targets_by_call_name(g: &Graph, f: blast_radius::graph::FileId) -> BTreeMap<String, usize> {
    let facts = g.facts(f);
    let mut targets: BTreeMap<String, BTreeSet<DefId>> = BTreeMap::new();
    for e in g.edges(f) {
        let name = facts.str(facts.calls[e.site() as usize].name).to_string();
        targets.entry(name).or_default().insert(e.target);
    }
    targets.into_iter().map(|(n, t)| (n, t.len())).collect()
}

/// A call of a large overload set reaches every declaration of it, not only as many as
/// a lookup keeps (mongoose's `Schema.post` has 27 overloads); a static member of the
/// same name is another function.
#[test]
fn a_call_of_a_large_overload_set_reaches_all_of_it() {
    let mut declared = String::from("export declare class Emitter {\n");
    for i in 0..40 {
        declared.push_str(&format!("  on(event: 'e{i}', fn: () => void): this;\n"));
    }
    declared.push_str("  static on(): void;\n  off(): void;\n}\n");
    let wire = "import { Emitter } from './emitter';\n\
                export function wire(e: Emitter) {\n  e.on('e7', () => {}).off();\n}\n";
    let facts = vec![
        blast_radius::indexer::extract_source("emitter.d.ts", &declared)
            .unwrap()
            .unwrap(),
        blast_radius::indexer::extract_source("wire.ts", wire)
            .unwrap()
            .unwrap(),
    ];
    let g = Graph::build(facts, Vec::new());
    let f = g.file_id("wire.ts").unwrap();
    let counts = targets_by_call_name(&g, f);
    let counts: BTreeMap<&str, usize> = counts.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    assert_eq!(counts, BTreeMap::from([("off", 1), ("on", 40)]));
}

/// Calls that resolve to the declarations beside a JavaScript file still break when its
/// code changes: the code's callers include them (what `blast` and `callers` report).
#[test]
fn callers_of_code_include_the_calls_of_its_declarations() {
    let g = load_case(&cases_root().join("declarations_beside"));
    let code = g.file_id("lib/client.js").expect("the case has it");
    let facts = g.facts(code);
    let version = (0..facts.defs.len() as u32)
        .find(|&i| facts.def_qualified(i) == "version")
        .map(|i| DefId::new(code, i))
        .expect("client.js defines version");
    assert!(
        g.callers(version).is_empty(),
        "calls resolve to the declaration"
    );
    let callers: Vec<String> = g
        .callers_of(version)
        .into_iter()
        .map(|c| format!("{}:{}", g.facts(c.file).path, g.site(c).pos().line + 1))
        .collect();
    assert_eq!(callers, ["app.js:10"]);
}

#[test]
fn incremental_updates_equal_a_full_build() {
    let mut failures = Vec::new();
    for (case, dir) in case_dirs() {
        let (facts, configs) = extract_case(&dir);
        let full = snapshot(&Graph::build(facts.clone(), configs.clone()));

        let mut g = Graph::build(Vec::new(), configs.clone());
        for f in facts.iter().rev() {
            g.update_facts(f.clone());
        }
        let grown = snapshot(&g);
        if grown != full {
            failures.push(format!(
                "{case}: adding files one by one\n{}",
                diff(&full, &grown)
            ));
            continue;
        }
        for f in &facts {
            g.remove_file(&f.path);
            let mut without = facts.clone();
            without.retain(|x| x.path != f.path);
            let expected = snapshot(&Graph::build(without, configs.clone()));
            let got = snapshot(&g);
            if got != expected {
                failures.push(format!(
                    "{case}: removing {}\n{}",
                    f.path,
                    diff(&expected, &got)
                ));
            }
            g.update_facts(f.clone());
        }
        let readded = snapshot(&g);
        if readded != full {
            failures.push(format!(
                "{case}: re-adding every file\n{}",
                diff(&full, &readded)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn diff(want: &[String], got: &[String]) -> String {
    let want_set: BTreeSet<&String> = want.iter().collect();
    let got_set: BTreeSet<&String> = got.iter().collect();
    let mut out = String::new();
    for w in want_set.difference(&got_set) {
        let _ = writeln!(out, "    missing: {w}");
    }
    for g in got_set.difference(&want_set) {
        let _ = writeln!(out, "    extra:   {g}");
    }
    out
}

#[test]
fn annotation_syntax() {
    let a = parse_annotation("  f(); // -> possible a.js:A.render, b.js:B.render")
        .unwrap()
        .unwrap();
    assert_eq!(a.clauses.len(), 1);
    assert_eq!(
        a.clauses[0].expect,
        Expect::Targets(
            Confidence::Possible,
            ["a.js:A.render".to_string(), "b.js:B.render".to_string()].into(),
            BTreeSet::new()
        )
    );
    let a = parse_annotation("f(); // -> t/x.d.ts:parse => lib/x.js:parse, likely lib/y.js:parse")
        .unwrap()
        .unwrap();
    assert_eq!(
        a.clauses[0].expect,
        Expect::Targets(
            Confidence::Exact,
            ["t/x.d.ts:parse".to_string()].into(),
            [
                (Confidence::Exact, "lib/x.js:parse".to_string()),
                (Confidence::Likely, "lib/y.js:parse".to_string())
            ]
            .into()
        )
    );
    let a = parse_annotation("x <Card/> {/* -> card@ui/Card.tsx:Card; none */}")
        .unwrap()
        .unwrap();
    assert_eq!(a.clauses[0].name.as_deref(), Some("card"));
    assert_eq!(a.clauses[1].expect, Expect::None);
    let a = parse_annotation("g(); // -> external // TODO-EXTRACTOR why")
        .unwrap()
        .unwrap();
    assert_eq!(a.clauses[0].expect, Expect::External);
    assert_eq!(a.todo.as_deref(), Some("why"));
    assert!(parse_annotation("g(); // a comment -> not one").is_none());
    assert!(parse_annotation("g(); // -> likely").unwrap().is_err());
}
