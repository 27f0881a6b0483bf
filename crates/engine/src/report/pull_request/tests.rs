//! What a pull request gets, whole: each scenario's comment, check run and review as one
//! snapshot, and the rules they follow.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::*;
use crate::blast::diff::Change;
use crate::blast::report::{CallerFinding, ChangedFunction, Judged, Verdict as JudgedVerdict};
use crate::escape::code;
use crate::graph::external::{ExternalCall, Imported};
use crate::graph::Confidence;
use crate::indexer::facts::{CallKind, DefKind};
use crate::links::{Endpoint, FoundLink, LinkCaller, Method, PathPattern, Role, Served};
use crate::org::{CallElsewhere, FoundElsewhere};

fn link(file: &str, line: u32) -> String {
    format!("https://github.test/acme/shop/blob/c0ffee/{file}#L{line}")
}

fn changed(file: &str, name: &str, line: u32, change: Change) -> ChangedFunction {
    ChangedFunction {
        file: file.into(),
        name: name.into(),
        qualified_name: name.into(),
        kind: DefKind::Function,
        line,
        end_line: line + 6,
        change,
        renamed_from: None,
    }
}

fn call(index: usize, file: &str, line: u32, caller: &str, touched: bool) -> CallerFinding {
    CallerFinding {
        judged: None,
        callee: String::new(),
        changed_index: index,
        file: file.into(),
        line,
        column: 3,
        caller: caller.into(),
        kind: CallKind::Call,
        confidence: Confidence::Exact,
        touched,
        depth: 1,
        via: None,
    }
}

/// `formatPrice` changed its signature (called from two untouched places and one
/// touched), `oldTotal` removed but still called.
fn money_report() -> BlastReport {
    let changed = vec![
        changed("src/money.ts", "formatPrice", 3, Change::Signature),
        changed("src/money.ts", "oldTotal", 20, Change::Removed),
    ];
    let mut callers = vec![
        call(0, "src/cart.ts", 14, "renderCart", false),
        call(0, "src/invoice.ts", 8, "printInvoice", false),
        call(0, "src/money.ts", 30, "formatAll", true),
        call(1, "src/checkout.ts", 41, "checkout", false),
    ];
    for c in &mut callers {
        c.callee = changed[c.changed_index].qualified_name.clone();
    }
    BlastReport {
        base: "main@1a2b3c4".into(),
        head: "#7@5d6e7f8".into(),
        changed,
        callers,
        depth: 2,
        unresolved_same_name: 0,
        skipped_files: 0,
        skipped: Vec::new(),
    }
}

const MONEY_PATCH: &str =
    "@@ -1,6 +1,6 @@\n ctx\n ctx\n-export function formatPrice(n) {\n+export function formatPrice(n, currency) {\n ctx\n ctx\n ctx";

/// The files, blobs and head of the PR `money_report` comes from.
struct Pr {
    report: BlastReport,
    config: RepoConfig,
    problems: Vec<ConfigProblem>,
    analysed: BTreeMap<String, BlobSha>,
    head: CommitSha,
    posted: Vec<String>,
    listed_files_cap: Option<usize>,
    /// The packages this repository holds, with their versions.
    versions: Vec<(String, String)>,
    /// Calls from other repositories, the ones that reach a changed function, and
    /// whether this repository is private.
    elsewhere: Option<(Vec<CallElsewhere>, Vec<FoundElsewhere>, bool)>,
    /// Links across service boundaries: what the changed functions serve, who reaches
    /// it, and whether this repository is private.
    across: Option<AcrossParts>,
}

/// What the changed functions serve, who reaches it, what was found, and whether the
/// repository is private.
type AcrossParts = (Vec<Served>, Vec<LinkCaller>, Vec<FoundLink>, bool);

impl Pr {
    fn money() -> Pr {
        Pr {
            report: money_report(),
            config: RepoConfig::default(),
            problems: Vec::new(),
            analysed: BTreeMap::from([("src/money.ts".to_string(), BlobSha("b1".into()))]),
            head: CommitSha("5d6e7f8".repeat(5) + "aaaaa"),
            posted: Vec::new(),
            listed_files_cap: None,
            versions: vec![("@acme/money".into(), "3.0.0-dev".into())],
            elsewhere: None,
            across: None,
        }
    }

    fn plan(&self) -> PrOutputs {
        self.with_analysis(plan)
    }

    /// `f` of the analysis of this pull request.
    fn with_analysis<R>(&self, f: impl FnOnce(&PrAnalysis) -> R) -> R {
        let blob = BlobSha("b1".into());
        let files = [PatchedFile {
            path: "src/money.ts",
            blob: Some(&blob),
            patch: Some(MONEY_PATCH),
        }];
        f(&PrAnalysis {
            report: &self.report,
            config: &self.config,
            problems: &self.problems,
            link: &link,
            listed_files_cap: self.listed_files_cap,
            files: &files,
            analysed: &self.analysed,
            head: &self.head,
            posted: &self.posted,
            elsewhere: self
                .elsewhere
                .as_ref()
                .map(|(calls, found, from_private)| Elsewhere {
                    calls,
                    found,
                    from_private: *from_private,
                    web_url: "https://github.test/",
                    versions: &self.versions,
                    ambiguous: &[],
                }),
            across: self
                .across
                .as_ref()
                .map(|(served, callers, found, from_private)| Across {
                    served,
                    callers,
                    found,
                    from_private: *from_private,
                    web_url: "https://github.test/",
                }),
        })
    }
}

fn problem(key: &str, message: &str, found: &str) -> ConfigProblem {
    ConfigProblem {
        key: key.into(),
        message: message.into(),
        found: Some(found.into()),
    }
}

/// The outputs as one text: what GitHub would show, output by output.
fn shown(outputs: &PrOutputs) -> String {
    let mut out = String::new();
    match &outputs.comment {
        Some(comment) => {
            let _ = writeln!(out, "=== summary comment\n{}", comment.trim_end());
        }
        None => out.push_str("=== no summary comment\n"),
    }
    match &outputs.check_run {
        Some(run) => {
            let _ = writeln!(
                out,
                "=== check run: {:?}: {}\n{}",
                run.verdict,
                run.title,
                run.summary.trim_end()
            );
            for n in &run.notes {
                let _ = writeln!(
                    out,
                    "--- {:?} {}:{} {}\n    {}",
                    n.level, n.path, n.line, n.title, n.message
                );
            }
        }
        None => out.push_str("=== no check run\n"),
    }
    match &outputs.review {
        Some(review) => {
            let _ = writeln!(
                out,
                "=== review at {}: {}\n{}",
                review.commit.short(),
                review.marker,
                review.body
            );
            for c in &review.comments {
                let _ = writeln!(out, "--- {}:{}\n{}", c.path, c.line, c.body);
            }
        }
        None => out.push_str("=== no review\n"),
    }
    out
}

#[test]
fn every_output_of_a_pull_request() {
    insta::assert_snapshot!("money_all_outputs", shown(&Pr::money().plan()));
}

#[test]
fn configuration_problems_go_to_the_check_run_when_it_is_on() {
    let mut pr = Pr::money();
    pr.problems = vec![problem("depth", "must be between 1 and 5", "9")];
    let outputs = pr.plan();
    insta::assert_snapshot!("money_with_config_problems", shown(&outputs));
    let run = outputs.check_run.unwrap();
    assert!(
        run.summary.starts_with("### Configuration"),
        "{}",
        run.summary
    );
    assert!(!outputs.comment.unwrap().contains("### Configuration"));
}

#[test]
fn configuration_problems_go_to_the_comment_when_the_check_run_is_off() {
    let mut pr = Pr::money();
    pr.problems = vec![problem("depth", "must be between 1 and 5", "9")];
    pr.config.outputs.check = false;
    let outputs = pr.plan();
    assert!(outputs.check_run.is_none());
    let comment = outputs.comment.unwrap();
    assert!(comment.contains("`oldTotal`"), "{comment}");
    assert!(comment.trim_end().ends_with("(found `9`)"), "{comment}");
}

#[test]
fn with_the_comment_and_check_run_off_only_the_problems_are_posted() {
    let mut pr = Pr::money();
    pr.config.outputs.check = false;
    pr.config.outputs.summary = false;
    pr.config.outputs.inline = false;
    assert_eq!(
        pr.plan(),
        PrOutputs {
            comment: None,
            check_run: None,
            review: None
        }
    );
    pr.problems = vec![problem("outputs", "unknown key, ignored", "colour")];
    let outputs = pr.plan();
    insta::assert_snapshot!("problems_alone", shown(&outputs));
    let comment = outputs.comment.unwrap();
    assert!(comment.starts_with(MARKER), "{comment}");
    assert!(!comment.contains("formatPrice"), "{comment}");
}

#[test]
fn a_removed_function_still_called_fails_the_check_unless_the_repository_says_not_to() {
    let mut pr = Pr::money();
    let run = pr.plan().check_run.unwrap();
    assert_eq!(run.verdict, Verdict::Failure);
    let broken: Vec<_> = run
        .notes
        .iter()
        .filter(|n| n.path == "src/checkout.ts")
        .collect();
    assert_eq!(broken.len(), 1);
    assert_eq!(broken[0].level, NoteLevel::Failure);
    pr.config.fail_on_removed_called = false;
    let run = pr.plan().check_run.unwrap();
    assert_eq!(run.verdict, Verdict::Neutral);
    assert_eq!(run.title, "A removed or renamed function is still called");
    assert!(run.notes.iter().all(|n| n.level == NoteLevel::Warning));
}

#[test]
fn a_call_the_new_contract_breaks_fails_the_check_with_its_reason() {
    let mut pr = Pr::money();
    // Only the changed function that is not removed, its callers judged.
    pr.report.callers.retain(|c| c.changed_index == 0);
    pr.report.changed[0].change = Change::Signature;
    pr.report.callers[0].judged = Some(Judged {
        verdict: JudgedVerdict::Breaks,
        reason: "passes 1 argument; `formatPrice` now requires 2 (`currency` not passed)".into(),
        reported: Default::default(),
    });
    pr.report.callers[1].judged = Some(Judged {
        verdict: JudgedVerdict::Fine,
        reason: "passes 2 arguments, as the new signature of `formatPrice` takes".into(),
        reported: Default::default(),
    });
    let outputs = pr.plan();
    let run = outputs.check_run.unwrap();
    assert_eq!(
        (run.verdict, run.title.as_str()),
        (
            Verdict::Failure,
            "1 call site the change did not touch breaks"
        )
    );
    let failing: Vec<&Note> = run
        .notes
        .iter()
        .filter(|n| n.level == NoteLevel::Failure)
        .collect();
    assert_eq!(failing.len(), 1);
    assert!(
        failing[0].message.ends_with(
            ": it breaks, passes 1 argument; `formatPrice` now requires 2 (`currency` not passed)"
        ),
        "{}",
        failing[0].message
    );
    let comment = outputs.comment.unwrap();
    assert!(
        comment.contains("**1** untouched call site **breaks** with this change:"),
        "{comment}"
    );
    pr.config.fail_on_breaking = false;
    let run = pr.plan().check_run.unwrap();
    assert_eq!(run.verdict, Verdict::Neutral);
    assert!(run.notes.iter().all(|n| n.level == NoteLevel::Warning));
}

#[test]
fn the_verdict_counts_untouched_callers_and_succeeds_when_all_were_touched() {
    let mut pr = Pr::money();
    pr.report.callers.retain(|c| c.changed_index == 0);
    let run = pr.plan().check_run.unwrap();
    assert_eq!(
        (run.verdict, run.title.as_str()),
        (
            Verdict::Neutral,
            "2 call sites the change did not touch need a look"
        )
    );
    assert_eq!(run.notes.len(), 2);
    for c in &mut pr.report.callers {
        c.touched = true;
    }
    let outputs = pr.plan();
    let run = outputs.check_run.unwrap();
    assert_eq!(run.verdict, Verdict::Success);
    assert!(run.notes.is_empty());
    assert_eq!(outputs.review, None, "nothing untouched to point at");
}

/// Issue 44: a body-only change cannot break its callers. The check run stays neutral
/// (a body can change what callers get), counts them in its title and annotates none; where a signature changed, the calls
/// that break are annotated first, then those to check, and the ones that already
/// match are not annotated.
#[test]
fn callers_the_change_cannot_break_are_counted_not_annotated_and_breaks_come_first() {
    let judged = |verdict, reason: &str| {
        Some(Judged {
            verdict,
            reason: reason.into(),
            reported: Default::default(),
        })
    };
    let mut pr = Pr::money();
    pr.report.callers.retain(|c| c.changed_index == 0);
    pr.report.changed[0].change = Change::Body;
    for c in &mut pr.report.callers {
        c.judged = judged(
            JudgedVerdict::Fine,
            "only the body changed: the contract is the same",
        );
    }
    let outputs = pr.plan();
    let run = outputs.check_run.unwrap();
    assert_eq!(
        (run.verdict, run.title.as_str()),
        (
            Verdict::Neutral,
            "2 call sites the change did not touch, none affected by the contract"
        )
    );
    assert!(run.notes.is_empty(), "{:?}", run.notes);
    assert!(
        run.summary.contains("none affected by the contract"),
        "{}",
        run.summary
    );

    // A signature change: one call matches, one is to check, one breaks (last in the
    // report's order).
    pr.report.changed[0].change = Change::Signature;
    pr.report.callers[0].judged = judged(
        JudgedVerdict::Fine,
        "passes 2 arguments, as the new signature of `formatPrice` takes",
    );
    pr.report.callers[1].judged = judged(
        JudgedVerdict::Check,
        "passes a spread: its arguments cannot be counted against `formatPrice`",
    );
    let mut breaking = call(0, "src/shop.ts", 5, "shop", false);
    breaking.callee = "formatPrice".into();
    breaking.judged = judged(
        JudgedVerdict::Breaks,
        "passes 1 argument; `formatPrice` now requires 2 (`currency` not passed)",
    );
    pr.report.callers.push(breaking);
    let run = pr.plan().check_run.unwrap();
    assert_eq!(run.verdict, Verdict::Failure);
    let notes: Vec<(&str, NoteLevel)> = run
        .notes
        .iter()
        .map(|n| (n.path.as_str(), n.level))
        .collect();
    assert_eq!(
        notes,
        [
            ("src/shop.ts", NoteLevel::Failure),
            ("src/invoice.ts", NoteLevel::Warning)
        ]
    );
    assert!(run.notes[1].message.ends_with(
        ": it needs a check, passes a spread: its arguments cannot be counted against `formatPrice`"
    ));
}

#[test]
fn files_github_did_not_list_are_named_in_the_comment_and_the_check_run() {
    let mut pr = Pr::money();
    pr.listed_files_cap = Some(3000);
    let outputs = pr.plan();
    let said = "changes more files than GitHub lists (3000)";
    assert!(outputs.comment.unwrap().contains(said));
    assert!(outputs.check_run.unwrap().summary.contains(said));
}

#[test]
fn the_check_run_summary_is_refit_when_problems_and_listing_pass_github_s_limit() {
    let mut pr = Pr::money();
    // Enough callers for a listing near the comment's budget.
    for i in 0..3_000 {
        let file = format!("src/features/feature_{i:04}/component_with_a_long_name.tsx");
        let mut c = call(0, &file, 10 + i, &format!("renderFeature{i}"), false);
        c.callee = "formatPrice".into();
        pr.report.callers.push(c);
    }
    let long = "x".repeat(400);
    pr.problems = (0..20)
        .map(|i| problem(&format!("key{i}"), &long, &long))
        .collect();
    let outputs = pr.plan();
    let comment = outputs.comment.unwrap();
    let summary = outputs.check_run.unwrap().summary;
    assert!(
        summary.chars().count() <= CHECK_TEXT_CHARS,
        "{}",
        summary.chars().count()
    );
    assert!(summary.starts_with("### Configuration"));
    assert!(summary.contains("formatPrice"));
    assert!(comment.chars().count() <= COMMENT_BUDGET);
}

#[test]
fn the_review_comments_the_changed_function_and_not_again_once_posted() {
    let mut pr = Pr::money();
    let review = pr.plan().review.unwrap();
    assert_eq!(
        review.comments.len(),
        1,
        "oldTotal was removed: no line to sit on"
    );
    assert_eq!(review.comments[0].line, 3);
    pr.posted = vec![review.comments[0].body.clone()];
    assert_eq!(pr.plan().review, None);
    // `max_callers` caps the review's list too.
    pr.posted.clear();
    pr.config.max_callers = Some(1);
    let body = &pr.plan().review.unwrap().comments[0].body;
    assert!(body.contains("… and 1 more"), "{body}");
}

/// A call from another repository into `formatPrice` (changed 0) or `oldTotal` (1).
fn call_elsewhere(repo: &str, private: bool, path: &str, line: u32, name: &str) -> CallElsewhere {
    CallElsewhere {
        repo: repo.into(),
        private,
        commit: Some("feedface".into()),
        path: path.into(),
        call: ExternalCall {
            package: "@acme/money".into(),
            specifier: "@acme/money".into(),
            imported: Imported::Named(name.into()),
            steps: Vec::new(),
            construct: false,
            line,
            column: 5,
            caller: Some("render".into()),
            range: Some("^2.1.0".into()),
            args: 0,
        },
    }
}

fn money_elsewhere(from_private: bool) -> Pr {
    let mut pr = Pr::money();
    pr.report.callers.retain(|c| c.changed_index == 0);
    let calls = vec![
        call_elsewhere("acme/web", false, "src/cart view.ts", 12, "formatPrice"),
        call_elsewhere("acme/web", false, "src/pay.ts", 3, "formatPrice"),
        call_elsewhere(
            "acme/secret-app",
            true,
            "src/hidden/plan.ts",
            9,
            "formatPrice",
        ),
        call_elsewhere("acme/web", false, "src/legacy.ts", 30, "oldTotal"),
    ];
    let found = [(0, 0), (0, 1), (0, 2)]
        .into_iter()
        .map(|(changed, call)| FoundElsewhere {
            changed,
            call,
            confidence: Confidence::Exact,
            judged: None,
        })
        .collect();
    pr.elsewhere = Some((calls, found, from_private));
    pr
}

#[test]
fn a_public_repository_names_public_callers_elsewhere_and_counts_private_ones() {
    let pr = money_elsewhere(false);
    let outputs = pr.plan();
    let comment = outputs.comment.unwrap();
    insta::assert_snapshot!("money_elsewhere_from_public", comment);
    assert!(comment.contains("### In other repositories"));
    assert!(comment.contains("(https://github.test/acme/web/blob/feedface/src/cart%20view.ts#L12)"));
    assert!(!comment.contains("secret-app") && !comment.contains("hidden/plan.ts"));
    assert!(comment.contains("1 call site in 1 private repository of this installation"));
    assert!(comment.contains("this repository has `3.0.0-dev`"));
    // The headline counts them beside the repository's own.
    assert!(comment
        .contains("**3** call sites in 2 other repositories of this installation call them too"));
    // They count like the repository's own untouched callers.
    let run = outputs.check_run.unwrap();
    assert_eq!(
        (run.verdict, run.title.as_str()),
        (
            Verdict::Neutral,
            "5 call sites the change did not touch need a look"
        )
    );
}

/// Issue 44 across repositories: calls elsewhere carry their verdicts. A public
/// repository's PR names the public call that breaks, with its reason, and counts the
/// private one that breaks as breaking without naming it; the check run fails on them
/// as on the repository's own.
#[test]
fn calls_elsewhere_that_break_are_counted_first_and_private_ones_never_named() {
    let mut pr = money_elsewhere(false);
    let reason = "passes 1 argument; `formatPrice` now requires 2 (`currency` not passed)";
    let (_, found, _) = pr.elsewhere.as_mut().unwrap();
    for (f, verdict) in found.iter_mut().zip([
        JudgedVerdict::Breaks,
        JudgedVerdict::Fine,
        JudgedVerdict::Breaks,
    ]) {
        f.judged = Some(Judged {
            verdict,
            reason: if verdict == JudgedVerdict::Breaks {
                reason.into()
            } else {
                "passes 2 arguments, as the new signature of `formatPrice` takes".into()
            },
            reported: Default::default(),
        });
    }
    let outputs = pr.plan();
    let comment = outputs.comment.unwrap();
    assert_eq!(
        comment.lines().nth(3),
        Some(
            "**2** call sites in other repositories of this installation **break** with this \
             change (\"In other repositories\", below)."
        ),
        "{comment}"
    );
    let section = &comment[comment.find("### In other repositories").unwrap()..];
    assert!(
        section.contains(
            "is called from 3 sites in 2 other repositories; **2** of them break with this change:"
        ),
        "{section}"
    );
    // The breaking public call first, with its reason; the one that matches, plain.
    let listed: Vec<&str> = section.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(listed.len(), 2, "{section}");
    assert!(listed[0].contains("src/cart view.ts:12"), "{section}");
    assert!(
        listed[0].ends_with(&format!(" · **breaks**: {}", code(reason))),
        "{section}"
    );
    assert!(
        listed[1].contains("src/pay.ts:3") && !listed[1].contains("**"),
        "{section}"
    );
    assert!(
        section.contains(
            "1 call site in 1 private repository of this installation is not named here. **1** of them breaks with this change."
        ),
        "{section}"
    );
    assert!(
        !comment.contains("secret") && !comment.contains("hidden"),
        "{comment}"
    );
    let run = outputs.check_run.unwrap();
    assert_eq!(
        (run.verdict, run.title.as_str()),
        (
            Verdict::Failure,
            "2 call sites the change did not touch break"
        )
    );
    assert!(!run.summary.contains("secret"), "{}", run.summary);
    pr.config.fail_on_breaking = false;
    assert_eq!(pr.plan().check_run.unwrap().verdict, Verdict::Neutral);
}

/// A summary past GitHub's limit is rendered again shorter, still counting the calls
/// elsewhere and the ones among them that break.
#[test]
fn a_refit_check_run_summary_still_counts_what_breaks_elsewhere() {
    let mut pr = money_elsewhere(false);
    let (_, found, _) = pr.elsewhere.as_mut().unwrap();
    found[0].judged = Some(Judged {
        verdict: JudgedVerdict::Breaks,
        reason: "passes 1 argument".into(),
        reported: Default::default(),
    });
    let too_long = "x".repeat(CHECK_TEXT_CHARS + 1);
    let run = pr.with_analysis(|a| check_run::plan(a, None, &too_long));
    assert!(run.summary.len() < CHECK_TEXT_CHARS, "refit");
    assert!(
        run.summary.contains(
            "**1** call site in other repositories of this installation **breaks** with this change"
        ),
        "{}",
        run.summary
    );
    assert!(
        run.summary.contains(
            "**3** call sites in 2 other repositories of this installation call them too"
        ),
        "{}",
        run.summary
    );
}

#[test]
fn a_private_repository_names_private_callers_elsewhere_too() {
    let comment = money_elsewhere(true).plan().comment.unwrap();
    assert!(comment.contains("acme/secret-app src/hidden/plan.ts:9"));
    assert!(!comment.contains("not named here"));
}

#[test]
fn a_removed_function_still_called_elsewhere_fails_the_check() {
    let mut pr = money_elsewhere(false);
    pr.report.callers.clear();
    // Only the call into the removed `oldTotal`, from another repository.
    let (_, found, _) = pr.elsewhere.as_mut().unwrap();
    *found = vec![FoundElsewhere {
        changed: 1,
        call: 3,
        confidence: Confidence::Exact,
        judged: None,
    }];
    let outputs = pr.plan();
    let run = outputs.check_run.unwrap();
    assert_eq!(run.verdict, Verdict::Failure);
    assert!(run.summary.contains("src/legacy.ts:30"));
    // No caller here, one elsewhere: the headline does not say "no caller" alone.
    let comment = outputs.comment.unwrap();
    assert!(
        comment.contains(
            "No caller in this repository of the changed functions was found. **1** call site in 1 other repository of this installation calls them too"
        ),
        "{comment}"
    );
}

#[test]
fn calls_elsewhere_take_at_most_a_quarter_of_the_comment() {
    let mut pr = money_elsewhere(false);
    let (calls, found, _) = pr.elsewhere.as_mut().unwrap();
    // 400 changed functions, each called from a public repository with a long path.
    for i in 0..400 {
        pr.report.changed.push(changed(
            "src/money.ts",
            &format!("helper{i}"),
            100 + i,
            Change::Body,
        ));
        let path = format!("src/{}/call{i}.ts", "deep/".repeat(30));
        calls.push(call_elsewhere("acme/web", false, &path, 1, "helper"));
        found.push(FoundElsewhere {
            changed: pr.report.changed.len() - 1,
            call: calls.len() - 1,
            confidence: Confidence::Exact,
            judged: None,
        });
    }
    let comment = pr.plan().comment.unwrap();
    let section = &comment[comment.find("### In other repositories").unwrap()..];
    assert!(section.len() <= COMMENT_BUDGET / 4, "{}", section.len());
    assert!(section
        .contains("more changed functions called from other repositories are not listed here"));
    assert!(comment.len() <= COMMENT_BUDGET);
}

fn link_caller(repo: &str, private: bool, own: bool, path: &str, line: u32) -> LinkCaller {
    LinkCaller {
        repo: repo.into(),
        private,
        own,
        commit: Some("feedface".into()),
        path: path.into(),
        line,
        role: Role::Client,
        endpoint: Endpoint::Http {
            method: Some(Method::Get),
            path: PathPattern::route("/money/:id"),
        },
    }
}

/// Issue 47: a changed function that handles a route lists its clients, here and in
/// the other repositories, after "In other repositories"; a public repository's PR
/// counts the private repository's clients without naming them, and outside text is
/// escaped.
#[test]
fn clients_across_service_boundaries_are_listed_and_private_ones_only_counted() {
    let mut pr = Pr::money();
    pr.report.callers.retain(|c| c.changed_index == 0);
    let served = vec![Served {
        changed: 0,
        endpoint: Endpoint::Http {
            method: Some(Method::Get),
            path: PathPattern::route("/money/:id"),
        },
    }];
    let callers = vec![
        link_caller("acme/web", false, false, "src/a`b.ts", 4),
        link_caller("acme/secret-app", true, false, "src/hidden.ts", 9),
        link_caller("acme/secret-app", true, false, "src/hidden2.ts", 2),
        link_caller("acme/money", false, true, "src/self.ts", 7),
    ];
    let found = (0..4)
        .map(|caller| FoundLink {
            changed: 0,
            served: 0,
            caller,
            confidence: Confidence::Exact,
        })
        .collect();
    pr.across = Some((served, callers, found, false));
    let outputs = pr.plan();
    let comment = outputs.comment.unwrap();
    let section = &comment[comment
        .find("### Across service boundaries")
        .unwrap_or_else(|| panic!("{comment}"))..];
    assert!(
        section.contains(
            "handles `GET /money/:id`: 4 clients in this repository and 2 other repositories"
        ),
        "{section}"
    );
    assert!(
        section.contains("- ``acme/web src/a`b.ts:4`` ([view](https://github.test/acme/web/blob/feedface/src/a%60b.ts#L4)) calls `GET /money/:id` [exact]"),
        "{section}"
    );
    assert!(section.contains("- `src/self.ts:7`"), "{section}");
    assert!(
        !comment.contains("secret-app") && !comment.contains("hidden"),
        "{comment}"
    );
    assert!(
        section.contains(
            "2 call sites in 1 private repository of this installation are not named here."
        ),
        "{section}"
    );
    // Counted like the repository's own untouched callers: 2 of its own and 4 here.
    let run = outputs.check_run.unwrap();
    assert_eq!(
        (run.verdict, run.title.as_str()),
        (
            Verdict::Neutral,
            "6 call sites the change did not touch need a look"
        )
    );
    // A private repository's PR names them.
    let (.., from_private) = pr.across.as_mut().unwrap();
    *from_private = true;
    let comment = pr.plan().comment.unwrap();
    assert!(
        comment.contains("`acme/secret-app src/hidden.ts:9`"),
        "{comment}"
    );
    assert!(!comment.contains("not named here"), "{comment}");
}
