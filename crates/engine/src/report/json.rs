//! The machine-readable report, and the query answers as JSON: one rendering that the
//! CLI's `--format json` prints and the MCP server's tools return.

use serde::Serialize;
use serde_json::{json, Value};

use crate::blast::report::BlastReport;
use crate::query::{
    CalleeEntry, CallersAnswer, Definition, GraphSummary, SearchAnswer, TargetError,
};

/// The report as pretty-printed JSON (no trailing newline).
pub fn render_json(report: &BlastReport) -> String {
    // Plain structs, string keys, no floats: serialisation cannot fail.
    serde_json::to_string_pretty(report).expect("a BlastReport always serialises")
}

/// The blast report as a JSON value (the fields of [`render_json`]).
pub fn blast(report: &BlastReport) -> Value {
    value(report)
}

/// Callers of a definition, and whether the list is all there is: `complete` is false
/// when same-named call sites stayed unresolved or files were skipped (`completeness`
/// says how many), and the list is then a lower bound.
pub fn callers(answer: &CallersAnswer) -> Value {
    json!({
        "target": answer.target,
        "callers": answer.callers,
        "complete": answer.completeness.complete(),
        "completeness": answer.completeness,
    })
}

/// The calls other repositories make that reach a definition (`reached`: index into
/// `calls`, confidence), as the `elsewhere` list of a callers answer.
pub fn calls_elsewhere(
    calls: &[crate::org::CallElsewhere],
    reached: &[(usize, crate::graph::Confidence)],
) -> Value {
    reached
        .iter()
        .map(|&(i, confidence)| {
            let c = &calls[i];
            json!({
                "repository": c.repo,
                "private": c.private,
                "commit": c.commit,
                "file": c.path,
                "line": c.call.line,
                "column": c.call.column,
                "caller": c.call.caller,
                "package": c.call.package,
                "specifier": c.call.specifier,
                "range": c.call.range,
                "confidence": confidence.as_str(),
            })
        })
        .collect()
}

/// The clients and producers `found` reach the routes and topics `served`: each with
/// its repository (and whether it is private, or the one asked about), place, role,
/// what it calls, what it reaches and how surely.
pub fn links_across(
    served: &[crate::links::across::Served],
    callers: &[crate::links::across::LinkCaller],
    found: &[crate::links::across::FoundLink],
) -> Value {
    found
        .iter()
        .filter_map(|f| {
            let c = callers.get(f.caller)?;
            let reaches = served.get(f.served)?;
            Some(json!({
                "repository": c.repo,
                "private": c.private,
                "own": c.own,
                "commit": c.commit,
                "file": c.path,
                "line": c.line,
                "role": c.role,
                "calls": c.endpoint.to_string(),
                "reaches": reaches.endpoint.to_string(),
                "confidence": f.confidence.as_str(),
            }))
        })
        .collect()
}

pub fn callees(target: &Definition, callees: &[CalleeEntry]) -> Value {
    json!({ "target": target, "callees": callees })
}

/// A call path from `from` to `to`, each step a definition; `path` is null when none.
pub fn path(from: &Definition, to: &Definition, path: Option<&[Definition]>) -> Value {
    json!({ "from": from, "to": to, "path": path })
}

pub fn search(answer: &SearchAnswer) -> Value {
    value(answer)
}

pub fn summary(summary: &GraphSummary) -> Value {
    value(summary)
}

/// A name that did not name one definition: `unknown_target` with the closest names, or
/// `ambiguous_target` with the choices, and the message the CLI prints.
pub fn target_error(e: &TargetError) -> Value {
    let (error, target, candidates) = match e {
        TargetError::NotFound {
            target,
            suggestions,
        } => ("unknown_target", target, suggestions),
        TargetError::Ambiguous { target, candidates } => ("ambiguous_target", target, candidates),
    };
    json!({
        "error": error,
        "target": target,
        "message": e.to_string(),
        "candidates": candidates,
    })
}

/// JSON as the CLI prints it: pretty, no trailing newline.
pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("a JSON value always serialises")
}

fn value(v: &impl Serialize) -> Value {
    // Plain structs, string keys, no floats: serialisation cannot fail.
    serde_json::to_value(v).expect("answers always serialise")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blast::diff::Change;
    use crate::blast::report::{CallerFinding, ChangedFunction};
    use crate::graph::Confidence;
    use crate::indexer::facts::{CallKind, DefKind};

    #[test]
    fn json_spells_the_public_format() {
        let report = BlastReport {
            base: "main".into(),
            head: "HEAD".into(),
            changed: vec![ChangedFunction {
                file: "src/a.ts".into(),
                name: "f".into(),
                qualified_name: "f".into(),
                kind: DefKind::Function,
                line: 3,
                end_line: 9,
                change: Change::SignatureAndBody,
                renamed_from: None,
            }],
            callers: vec![CallerFinding {
                judged: None,
                callee: "f".into(),
                changed_index: 0,
                file: "src/b.ts".into(),
                line: 7,
                column: 2,
                caller: "<module>".into(),
                kind: CallKind::New,
                confidence: Confidence::Likely,
                touched: false,
                depth: 1,
                via: None,
            }],
            depth: 1,
            unresolved_same_name: 0,
            skipped_files: 0,
            skipped: Vec::new(),
        };
        let json = render_json(&report);
        let value: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
        // No verdict (a caller of callers): neither field.
        assert!(value["callers"][0].get("verdict").is_none());
        assert!(value["callers"][0].get("reason").is_none());
        assert_eq!(value["changed"][0]["change"], "signature_and_body");
        assert_eq!(value["changed"][0]["kind"], "function");
        assert_eq!(value["callers"][0]["kind"], "new");
        assert_eq!(value["callers"][0]["confidence"], "likely");
        // Absent options are left out, not null.
        assert!(value["changed"][0].get("renamed_from").is_none());
        assert!(value["callers"][0].get("via").is_none());
        // And it reads back.
        let back: BlastReport = serde_json::from_str(&json).expect("round trip");
        assert_eq!(back, report);
    }

    /// Issue 44: each judged caller carries its `verdict` (`breaks`, `check`, `fine`)
    /// and `reason` beside its other fields, in the CLI's JSON and the MCP tool's.
    #[test]
    fn each_judged_caller_has_its_verdict_and_reason() {
        use crate::blast::report::{Judged, Verdict};
        let caller = |line: u32, verdict: Verdict, reason: &str| CallerFinding {
            judged: Some(Judged {
                verdict,
                reason: reason.into(),
                reported: Default::default(),
            }),
            callee: "charge".into(),
            changed_index: 0,
            file: "src/cart.ts".into(),
            line,
            column: 3,
            caller: "cartTotal".into(),
            kind: CallKind::Call,
            confidence: Confidence::Exact,
            touched: false,
            depth: 1,
            via: None,
        };
        let report = BlastReport {
            base: "main".into(),
            head: "HEAD".into(),
            changed: vec![ChangedFunction {
                file: "src/billing.ts".into(),
                name: "charge".into(),
                qualified_name: "charge".into(),
                kind: DefKind::Function,
                line: 1,
                end_line: 3,
                change: Change::Signature,
                renamed_from: None,
            }],
            callers: vec![
                caller(
                    4,
                    Verdict::Breaks,
                    "passes 2 arguments; `charge` now requires 3 (`card` not passed)",
                ),
                caller(5, Verdict::Check, "passes a spread"),
                caller(6, Verdict::Fine, "passes 3 arguments"),
            ],
            depth: 1,
            unresolved_same_name: 0,
            skipped_files: 0,
            skipped: Vec::new(),
        };
        let value = blast(&report);
        let got: Vec<(&str, &str)> = value["callers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["verdict"].as_str().unwrap(),
                    c["reason"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "breaks",
                    "passes 2 arguments; `charge` now requires 3 (`card` not passed)"
                ),
                ("check", "passes a spread"),
                ("fine", "passes 3 arguments"),
            ]
        );
        assert!(value["callers"][0].get("judged").is_none(), "flattened");
        let back: BlastReport = serde_json::from_str(&render_json(&report)).unwrap();
        assert_eq!(back, report);
    }
}
