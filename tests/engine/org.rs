//! Across repositories: a repository's packages, its calls into other packages, and
//! which functions of the owning repository those calls reach (`fixtures/org`).

use crate::common;

use blast_radius::graph::external::{ExternalCall, Imported, Step};
use blast_radius::graph::{DefId, Graph};
use blast_radius::indexer::skip::SkipRules;
use blast_radius::org;
use blast_radius::workflow::save::index_in_memory;
use blast_radius::workspace::walk;

fn graph(name: &str) -> Graph {
    let dir = common::fixture(&format!("org/{name}"));
    let files = walk::read(&dir, walk::list(&dir).unwrap()).unwrap();
    index_in_memory(files, &SkipRules::default()).0.graph
}

fn def(g: &Graph, path: &str, qualified: &str) -> DefId {
    let file = g
        .file_id(path)
        .unwrap_or_else(|| panic!("{path} is indexed"));
    let facts = g.facts(file);
    let def = (0..facts.defs.len() as u32)
        .find(|&d| facts.def_qualified(d) == qualified)
        .unwrap_or_else(|| panic!("{path} defines {qualified}"));
    DefId { file, def }
}

/// Every external call of the repository, with the path of the file making it.
fn calls(g: &Graph) -> Vec<(String, ExternalCall)> {
    let mut out = Vec::new();
    for f in g.file_ids() {
        for call in g.external_calls(f) {
            out.push((g.facts(f).path.clone(), call));
        }
    }
    out.sort_by(|a, b| (&a.0, a.1.line, a.1.column).cmp(&(&b.0, b.1.line, b.1.column)));
    out
}

#[test]
fn a_repository_names_the_packages_it_holds() {
    let library = graph("library");
    assert_eq!(
        org::owned_packages(&library),
        vec!["@acme/money".to_string(), "acme-library".to_string()]
    );
    assert!(org::owned_packages(&graph("service")).contains(&"service".to_string()));
}

/// (path, line, package, specifier, imported, steps, construct, range)
type CallRow = (
    String,
    u32,
    String,
    String,
    Imported,
    Vec<Step>,
    bool,
    Option<String>,
);

#[test]
fn calls_into_packages_keep_their_target_and_range() {
    let service = graph("service");
    let got: Vec<CallRow> = calls(&service)
        .into_iter()
        .map(|(path, c)| {
            (
                path,
                c.line,
                c.package,
                c.specifier,
                c.imported,
                c.steps,
                c.construct,
                c.range,
            )
        })
        .collect();
    let named = |n: &str| Imported::Named(n.to_string());
    let member = |n: &str| Step::Member(n.to_string());
    let money = || "@acme/money".to_string();
    let range = Some("^2.1.0".to_string());
    let expected = vec![
        // `fs` is Node's own: no repository owns it, and it is left out.
        (
            "src/checkout.ts",
            7,
            "left-pad".to_string(),
            "left-pad".to_string(),
            Imported::Default,
            vec![],
            false,
            Some("^1.3.0".to_string()),
        ),
        (
            "src/checkout.ts",
            7,
            money(),
            money(),
            named("formatPrice"),
            vec![],
            false,
            range.clone(),
        ),
        // Destructured from `require` or read from it: the same path of names.
        (
            "src/legacy.js",
            5,
            money(),
            money(),
            Imported::Require,
            vec![member("parsePrice")],
            false,
            range.clone(),
        ),
        (
            "src/legacy.js",
            5,
            money(),
            money(),
            Imported::Require,
            vec![member("parsePrice")],
            false,
            range.clone(),
        ),
        // The local `formatPrice` on line 10 is the service's own.
        (
            "src/receipt.ts",
            10,
            money(),
            "@acme/money/format".to_string(),
            Imported::Namespace,
            vec![member("formatPrice")],
            false,
            range.clone(),
        ),
        (
            "src/receipt.ts",
            14,
            money(),
            money(),
            named("Wallet"),
            vec![Step::New, member("balance")],
            false,
            range.clone(),
        ),
        (
            "src/receipt.ts",
            18,
            money(),
            money(),
            named("Wallet"),
            vec![],
            true,
            range.clone(),
        ),
    ];
    let expected: Vec<_> = expected
        .into_iter()
        .map(|(p, l, pk, s, i, st, c, r)| (p.to_string(), l, pk, s, i, st, c, r))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn calls_from_other_repositories_reach_the_owners_functions() {
    let library = graph("library");
    let service = graph("service");
    let made = calls(&service);
    let refs: Vec<&ExternalCall> = made.iter().map(|(_, c)| c).collect();
    let format = def(&library, "packages/money/src/format.ts", "formatPrice");
    let parse = def(&library, "packages/money/src/format.ts", "parsePrice");
    let balance = def(&library, "packages/money/src/wallet.ts", "Wallet.balance");
    let reached = org::link(&library, &refs, &[format, parse, balance]);
    let mut got: Vec<(&str, u32, DefId)> = reached
        .iter()
        .map(|r| (made[r.call].0.as_str(), made[r.call].1.line, r.target))
        .collect();
    got.sort();
    let mut expected = vec![
        // By name through the barrel, and by subpath: the two calls of formatPrice.
        ("src/checkout.ts", 7, format),
        ("src/receipt.ts", 10, format),
        // A method of a class the package exports, on a value typed by it.
        ("src/receipt.ts", 14, balance),
        // `require` destructured and as a whole.
        ("src/legacy.js", 5, parse),
        ("src/legacy.js", 5, parse),
    ];
    expected.sort();
    assert_eq!(got, expected);

    // Asked about one function, only its callers come back.
    let only = org::link(&library, &refs, &[format]);
    assert_eq!(only.len(), 2);
    assert!(only.iter().all(|r| r.target == format));
}

#[test]
fn calls_in_component_templates_reach_the_owners_functions() {
    let library = graph("library");
    let storefront = graph("storefront");
    let made = calls(&storefront);
    let refs: Vec<&ExternalCall> = made.iter().map(|(_, c)| c).collect();
    let format = def(&library, "packages/money/src/format.ts", "formatPrice");
    let parse = def(&library, "packages/money/src/format.ts", "parsePrice");
    let reached = org::link(&library, &refs, &[format, parse]);
    let mut got: Vec<(&str, u32, DefId)> = reached
        .iter()
        .map(|r| (made[r.call].0.as_str(), made[r.call].1.line, r.target))
        .collect();
    got.sort();
    // A Vue template's expressions (its script setup imports them) and a Svelte one's.
    let mut expected = vec![
        ("src/PriceTag.vue", 2, format),
        ("src/PriceTag.vue", 2, parse),
        ("src/Total.svelte", 6, format),
    ];
    expected.sort();
    assert_eq!(got, expected);
}

#[test]
fn calls_into_packages_the_repository_does_not_hold_reach_nothing() {
    // The service's calls laid over the service itself: it holds no `@acme/money`.
    let service = graph("service");
    let made = calls(&service);
    let refs: Vec<&ExternalCall> = made.iter().map(|(_, c)| c).collect();
    let own = def(&service, "src/receipt.ts", "formatPrice");
    assert!(org::link(&service, &refs, &[own]).is_empty());
}

#[test]
fn names_from_another_repository_stay_names() {
    // A hostile specifier and member: written out as strings, they call nothing else.
    let library = graph("library");
    let format = def(&library, "packages/money/src/format.ts", "formatPrice");
    let hostile = ExternalCall {
        package: "@acme/money".into(),
        specifier: "@acme/money\"; formatPrice(); \"".into(),
        imported: Imported::Namespace,
        steps: vec![Step::Member("x\n}); formatPrice(); ({".into())],
        construct: false,
        line: 1,
        column: 1,
        caller: None,
        range: None,
        args: 0,
    };
    let plain = ExternalCall {
        specifier: "@acme/money".into(),
        steps: vec![Step::Member("formatPrice".into())],
        ..hostile.clone()
    };
    let reached = org::link(&library, &[&hostile, &plain], &[format]);
    assert_eq!(reached.iter().map(|r| r.call).collect::<Vec<_>>(), vec![1]);
}

#[test]
fn calls_of_one_shape_are_resolved_once_and_each_reported() {
    // The service's calls three times over (three repositories making the same calls):
    // every copy reaches what the first does, none is lost to the sharing.
    let library = graph("library");
    let made = calls(&graph("service"));
    let format = def(&library, "packages/money/src/format.ts", "formatPrice");
    let parse = def(&library, "packages/money/src/format.ts", "parsePrice");
    let once: Vec<&ExternalCall> = made.iter().map(|(_, c)| c).collect();
    let thrice: Vec<&ExternalCall> = once.iter().chain(&once).chain(&once).copied().collect();
    let single = org::link(&library, &once, &[format, parse]);
    let tripled = org::link(&library, &thrice, &[format, parse]);
    assert_eq!(tripled.len(), 3 * single.len());
    for (copy, chunk) in tripled
        .iter()
        .map(|r| {
            (
                r.call / once.len(),
                (r.call % once.len(), r.target, r.confidence),
            )
        })
        .collect::<Vec<_>>()
        .chunk_by(|a, b| a.0 == b.0)
        .enumerate()
    {
        let got: Vec<_> = chunk.iter().map(|(_, r)| *r).collect();
        let want: Vec<_> = single
            .iter()
            .map(|r| (r.call, r.target, r.confidence))
            .collect();
        assert_eq!(got, want, "copy {copy}");
    }
}

/// Issue 44 across repositories: a pull request to the library makes `formatPrice`
/// require a third parameter and gives `parsePrice` an optional second one. The
/// service's calls, as its graph records them (with their arguments), are judged
/// against the new contracts as the library's own callers would be.
#[test]
fn calls_from_other_repositories_are_judged_against_the_new_contract() {
    use blast_radius::blast::radius::{
        blast, judge_elsewhere, BlastOptions, CallToJudge, FileChange,
    };
    use blast_radius::graph::external::{pack_args, unpack_args};
    use blast_radius::indexer::facts::CallArgs;
    use blast_radius::org::CallElsewhere;

    let library = graph("library");
    let service = graph("service");
    let calls: Vec<CallElsewhere> = calls(&service)
        .into_iter()
        .map(|(path, call)| CallElsewhere {
            repo: "acme/service".into(),
            private: false,
            commit: None,
            path,
            call,
        })
        .collect();
    assert!(calls.iter().all(|c| c.call.args().is_some()), "{calls:#?}");
    const FORMAT: &str = "packages/money/src/format.ts";
    let old = std::fs::read_to_string(common::fixture("org/library").join(FORMAT)).unwrap();
    let new = old
        .replace(
            "formatPrice(cents: number, currency: string)",
            "formatPrice(cents: number, currency: string, digits: number)",
        )
        .replace(
            "parsePrice(text: string)",
            "parsePrice(text: string, locale?: string)",
        );
    let changes = vec![FileChange {
        path: FORMAT.into(),
        old: Some(old),
        new: Some(new),
    }];
    let options = BlastOptions {
        base: "main".into(),
        head: "#1".into(),
        depth: 1,
        skipped_files: 0,
        skipped: Vec::new(),
    };
    let report = blast(&library, &changes, &options);
    let found = org::reached_by_changes(&library, &report.changed, &calls);
    let asked: Vec<CallToJudge> = found
        .iter()
        .map(|f| CallToJudge {
            changed: f.changed,
            path: &calls[f.call].path,
            args: calls[f.call].call.args(),
        })
        .collect();
    let judged = judge_elsewhere(&library, &changes, &report, &asked);
    let mut got: Vec<(String, &str, &str, &str)> = found
        .iter()
        .zip(&judged)
        .map(|(f, j)| {
            let call = &calls[f.call];
            (
                format!("{}:{}", call.path, call.call.line),
                report.changed[f.changed].name.as_str(),
                j.verdict.as_str(),
                j.reason.as_str(),
            )
        })
        .collect();
    got.sort();
    let breaks = "passes 2 arguments; `formatPrice` now requires 3 (`digits` not passed)";
    let fine = "passes 1 argument, as the new signature of `parsePrice` takes";
    assert_eq!(
        got,
        vec![
            (
                "src/checkout.ts:7".to_string(),
                "formatPrice",
                "breaks",
                breaks
            ),
            ("src/legacy.js:5".to_string(), "parsePrice", "fine", fine),
            ("src/legacy.js:5".to_string(), "parsePrice", "fine", fine),
            (
                "src/receipt.ts:10".to_string(),
                "formatPrice",
                "breaks",
                breaks
            ),
        ]
    );

    // The arguments as the store keeps them: one byte each, 0 for none known.
    assert_eq!(unpack_args(0), None);
    for count in [0, 3, CallArgs::MAX_COUNT] {
        let args = CallArgs {
            count,
            spread: count == 3,
            awaited: count == 0,
            discarded: true,
        };
        assert_eq!(unpack_args(pack_args(Some(args))), Some(args));
    }
}
