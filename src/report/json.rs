//! The machine-readable report.

use crate::blast::report::BlastReport;

/// The report as pretty-printed JSON (no trailing newline).
pub fn render_json(report: &BlastReport) -> String {
    // Plain structs, string keys, no floats: serialisation cannot fail.
    serde_json::to_string_pretty(report).expect("a BlastReport always serialises")
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
        };
        let json = render_json(&report);
        let value: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
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
}
