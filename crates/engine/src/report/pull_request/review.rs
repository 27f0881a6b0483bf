//! The inline review: on each changed function that call sites the PR did not touch still
//! call, one comment anchored on a line of the PR's diff inside that function. Callers
//! in files the PR did not touch cannot carry a comment; this one names them where the
//! author is looking. Planned from the report and the PR's files; the job sends it.
//!
//! A comment is not posted again on a later push unless what it says changed: each
//! carries a hash of its content (the function, the change, its untouched callers by
//! file and name; not line numbers, which any edit above them shifts, nor links, which
//! name the head commit), and comments whose hash one of ours already carries are left
//! out.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::blast::diff::Change;
use crate::blast::patch::DiffLines;
use crate::blast::report::{CallerFinding, ChangedFunction};
use crate::escape::code;
use crate::graph::Confidence;
use crate::model::CommitSha;
use crate::report::markdown::describe_change;

use super::{PatchedFile, PrAnalysis};

/// Where an inline comment's content hash goes: `<!-- blast-radius:inline:HASH -->`.
const INLINE_MARKER: &str = "<!-- blast-radius:inline:";
/// Callers listed in one inline comment, at most; the summary comment has the rest.
pub const LISTED: usize = 10;

/// A review to post (always as a plain comment), and the marker that finds it again
/// after a crash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewPlan {
    pub marker: String,
    /// The commit the comments' lines refer to: the head the analysis ran on, so a newer
    /// push cannot shift them.
    pub commit: CommitSha,
    pub body: String,
    pub comments: Vec<InlineComment>,
}

/// A comment on one line of the head side of a file's diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlineComment {
    pub path: String,
    pub line: u32,
    pub body: String,
}

/// The review, or None when no comment is new. A comment goes only on a file whose
/// version at the head is the one the analysis read, and not again where one of ours
/// already says the same. Each comment lists at most `listed` callers.
pub(super) fn plan(analysis: &PrAnalysis, listed: usize) -> Option<ReviewPlan> {
    let PrAnalysis {
        report,
        files,
        analysed,
        head,
        posted,
        link,
        ..
    } = *analysis;
    let said: BTreeSet<&str> = posted.iter().filter_map(|b| inline_hash(b)).collect();
    let by_path: BTreeMap<&str, &PatchedFile> = files.iter().map(|f| (f.path, f)).collect();
    let mut comments = Vec::new();
    let mut hashes = Vec::new();
    for (index, func) in report.changed.iter().enumerate() {
        if func.change == Change::Removed {
            continue;
        }
        let callers: Vec<&CallerFinding> = report
            .callers
            .iter()
            .filter(|c| c.changed_index == index && !c.touched)
            .filter(|c| c.confidence != Confidence::Possible)
            .collect();
        if callers.is_empty() {
            continue;
        }
        let Some(file) = by_path.get(func.file.as_str()) else {
            continue;
        };
        if file.blob.is_none() || file.blob != analysed.get(&func.file) {
            continue;
        }
        let Some(line) = anchor(file, func) else {
            continue;
        };
        let hash = content_hash(func, &callers);
        if said.contains(hash.as_str()) {
            continue;
        }
        comments.push(InlineComment {
            path: func.file.clone(),
            line,
            body: body(func, &callers, &hash, listed.max(1), link),
        });
        hashes.push(hash);
    }
    if comments.is_empty() {
        return None;
    }
    hashes.sort();
    let marker = format!(
        "<!-- blast-radius:review:{:016x} -->",
        xxhash_rust::xxh3::xxh3_64(hashes.join(",").as_bytes())
    );
    let n = comments.len();
    Some(ReviewPlan {
        marker,
        commit: head.clone(),
        body: format!(
            "**Blast radius:** {n} changed {} still called from code this pull request does not touch. The summary comment lists every caller.",
            if n == 1 { "function is" } else { "functions are" }
        ),
        comments,
    })
}

/// The line of the function's diff a comment can sit on: its name's line when the diff
/// shows it, else the first changed (then context) line within the function.
fn anchor(file: &PatchedFile, func: &ChangedFunction) -> Option<u32> {
    let lines = file.patch.map(DiffLines::parse).unwrap_or_default();
    if lines.is_commentable(func.line) {
        return Some(func.line);
    }
    lines.first_commentable_in(func.line..=func.end_line.max(func.line))
}

fn body(
    func: &ChangedFunction,
    callers: &[&CallerFinding],
    hash: &str,
    listed: usize,
    link: &dyn Fn(&str, u32) -> String,
) -> String {
    let n = callers.len();
    let files: BTreeSet<&str> = callers.iter().map(|c| c.file.as_str()).collect();
    let mut out = format!(
        "{} ({}) is still called from **{n}** {} in {} {} this pull request does not touch:\n\n",
        code(&func.qualified_name),
        describe_change(func),
        if n == 1 { "place" } else { "places" },
        files.len(),
        if files.len() == 1 { "file" } else { "files" },
    );
    for c in callers.iter().take(listed) {
        let _ = write!(
            out,
            "- [{}]({}) in {}",
            code(&format!("{}:{}", c.file, c.line)),
            link(&c.file, c.line),
            code(&c.caller)
        );
        if c.confidence != Confidence::Exact {
            let _ = write!(out, " · {}", c.confidence.as_str());
        }
        if c.depth > 1 {
            let _ = write!(out, " · depth {}", c.depth);
            if let Some(via) = &c.via {
                let _ = write!(out, " via {}", code(via));
            }
        }
        out.push('\n');
    }
    if n > listed {
        let _ = writeln!(
            out,
            "- … and {} more (the summary comment lists them)",
            n - listed
        );
    }
    let _ = write!(out, "\n{INLINE_MARKER}{hash} -->");
    out
}

/// What a comment says, as a hash: the function, its change, and its untouched callers
/// by file, name, confidence and depth.
fn content_hash(func: &ChangedFunction, callers: &[&CallerFinding]) -> String {
    let mut text = format!(
        "{}\u{0}{}\u{0}{}\u{0}{:?}",
        func.file,
        func.qualified_name,
        func.change.as_str(),
        func.renamed_from
    );
    let mut sites: Vec<String> = callers
        .iter()
        .map(|c| {
            format!(
                "{}\u{0}{}\u{0}{}\u{0}{}",
                c.file,
                c.caller,
                c.confidence.as_str(),
                c.depth
            )
        })
        .collect();
    sites.sort();
    for s in sites {
        text.push('\u{1}');
        text.push_str(&s);
    }
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
}

/// The content hash an inline comment of ours carries.
fn inline_hash(body: &str) -> Option<&str> {
    let start = body.find(INLINE_MARKER)? + INLINE_MARKER.len();
    let rest = &body[start..];
    Some(rest[..rest.find(" -->")?].trim())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blast::report::BlastReport;
    use crate::indexer::facts::{CallKind, DefKind};
    use crate::model::BlobSha;
    use crate::repo_config::RepoConfig;

    /// A file of the pull request as GitHub lists it.
    struct PrFile {
        path: String,
        sha: Option<BlobSha>,
        patch: Option<String>,
    }

    /// The review planned from these alone (the rest of the analysis at its defaults).
    fn plan_review(
        report: &BlastReport,
        files: &[PrFile],
        analysed: &BTreeMap<String, BlobSha>,
        head: &CommitSha,
        posted: &[String],
        listed: usize,
        link: &dyn Fn(&str, u32) -> String,
    ) -> Option<ReviewPlan> {
        let files: Vec<PatchedFile> = files
            .iter()
            .map(|f| PatchedFile {
                path: &f.path,
                blob: f.sha.as_ref(),
                patch: f.patch.as_deref(),
            })
            .collect();
        let analysis = PrAnalysis {
            report,
            config: &RepoConfig::default(),
            problems: &[],
            link,
            listed_files_cap: None,
            files: &files,
            analysed,
            head,
            posted,
            elsewhere: None,
            across: None,
        };
        plan(&analysis, listed)
    }

    fn func(file: &str, name: &str, line: u32, end_line: u32, change: Change) -> ChangedFunction {
        ChangedFunction {
            file: file.into(),
            name: name.into(),
            qualified_name: name.into(),
            kind: DefKind::Function,
            line,
            end_line,
            change,
            renamed_from: None,
        }
    }

    fn caller(index: usize, file: &str, line: u32, touched: bool) -> CallerFinding {
        CallerFinding {
            judged: None,
            callee: "classifyFields".into(),
            changed_index: index,
            file: file.into(),
            line,
            column: 5,
            caller: format!("caller_{line}"),
            kind: CallKind::Call,
            confidence: Confidence::Exact,
            touched,
            depth: 1,
            via: None,
        }
    }

    fn pr_file(path: &str, sha: &str, patch: &str) -> PrFile {
        PrFile {
            path: path.into(),
            sha: Some(BlobSha(sha.into())),
            patch: Some(patch.into()),
        }
    }

    fn link(file: &str, line: u32) -> String {
        format!("https://example.test/{file}#L{line}")
    }

    /// classifyFields (lines 3-9 of services/classify.js) changed on line 4; its callers
    /// in video.js and posts.js untouched, image.js touched.
    fn classify() -> (BlastReport, Vec<PrFile>, BTreeMap<String, BlobSha>) {
        let report = BlastReport {
            base: "main".into(),
            head: "#1".into(),
            changed: vec![func(
                "services/classify.js",
                "classifyFields",
                3,
                9,
                Change::Signature,
            )],
            callers: vec![
                caller(0, "routes/services/video.js", 12, false),
                caller(0, "routes/posts.js", 40, false),
                caller(0, "routes/services/image.js", 7, true),
            ],
            depth: 2,
            unresolved_same_name: 0,
            skipped_files: 0,
            skipped: Vec::new(),
        };
        let files = vec![
            pr_file(
                "services/classify.js",
                "b1",
                "@@ -2,4 +2,4 @@ x\n ctx\n-function classifyFields(a) {\n+function classifyFields(a, opts) {\n ctx\n ctx",
            ),
            pr_file("routes/services/image.js", "b2", "@@ -7,1 +7,1 @@\n-a\n+b"),
        ];
        let analysed = BTreeMap::from([
            ("services/classify.js".to_string(), BlobSha("b1".into())),
            ("routes/services/image.js".to_string(), BlobSha("b2".into())),
        ]);
        (report, files, analysed)
    }

    #[test]
    fn one_comment_on_the_function_naming_its_untouched_callers() {
        let (report, files, analysed) = classify();
        let head = CommitSha("h".repeat(40));
        let plan = plan_review(&report, &files, &analysed, &head, &[], LISTED, &link).unwrap();
        assert_eq!(plan.commit, head);
        assert_eq!(plan.comments.len(), 1);
        let c = &plan.comments[0];
        assert_eq!((c.path.as_str(), c.line), ("services/classify.js", 3));
        assert!(c.body.contains("routes/services/video.js:12"), "{}", c.body);
        assert!(c.body.contains("routes/posts.js:40"), "{}", c.body);
        assert!(!c.body.contains("image.js"), "touched: {}", c.body);
        assert!(c.body.contains("https://example.test/routes/posts.js#L40"));
        assert!(plan.marker.starts_with("<!-- blast-radius:review:"));
    }

    #[test]
    fn the_anchor_moves_into_the_diff_when_the_name_s_line_is_not_in_it() {
        let (mut report, mut files, analysed) = classify();
        report.changed[0].line = 1;
        report.changed[0].end_line = 20;
        files[0].patch = Some("@@ -10,2 +10,2 @@\n ctx\n-old\n+new".into());
        let head = CommitSha("h".repeat(40));
        let plan = plan_review(&report, &files, &analysed, &head, &[], LISTED, &link).unwrap();
        assert_eq!(plan.comments[0].line, 11, "the added line");
        // A function wholly outside the diff gets no comment.
        report.changed[0].end_line = 5;
        assert_eq!(
            plan_review(&report, &files, &analysed, &head, &[], LISTED, &link),
            None
        );
    }

    #[test]
    fn no_comment_where_the_head_is_not_the_version_analysed() {
        let (report, files, mut analysed) = classify();
        analysed.insert("services/classify.js".into(), BlobSha("merged".into()));
        let head = CommitSha("h".repeat(40));
        assert_eq!(
            plan_review(&report, &files, &analysed, &head, &[], LISTED, &link),
            None
        );
    }

    #[test]
    fn a_comment_already_posted_is_not_repeated_unless_it_changed() {
        let (mut report, files, analysed) = classify();
        let head = CommitSha("h".repeat(40));
        let first = plan_review(&report, &files, &analysed, &head, &[], LISTED, &link).unwrap();
        let posted = vec![first.comments[0].body.clone()];
        // A later push: lines moved and the head is another, but the same is said.
        for c in &mut report.callers {
            c.line += 3;
        }
        let head2 = CommitSha("k".repeat(40));
        assert_eq!(
            plan_review(&report, &files, &analysed, &head2, &posted, LISTED, &link),
            None
        );
        // Another untouched caller: the comment says something new.
        report.callers.push(caller(0, "routes/admin.js", 8, false));
        let again =
            plan_review(&report, &files, &analysed, &head2, &posted, LISTED, &link).unwrap();
        assert!(again.comments[0].body.contains("routes/admin.js:8"));
        assert_ne!(again.marker, first.marker);
    }

    #[test]
    fn a_comment_lists_at_most_the_callers_asked_for() {
        let (report, files, analysed) = classify();
        let head = CommitSha("h".repeat(40));
        let plan = plan_review(&report, &files, &analysed, &head, &[], 1, &link).unwrap();
        let body = &plan.comments[0].body;
        assert!(body.contains("routes/services/video.js:12"), "{body}");
        assert!(!body.contains("routes/posts.js:40"), "{body}");
        assert!(
            body.contains("… and 1 more (the summary comment lists them)"),
            "{body}"
        );
    }

    #[test]
    fn removed_functions_and_possible_callers_get_no_inline_comment() {
        let (mut report, files, analysed) = classify();
        let head = CommitSha("h".repeat(40));
        for c in &mut report.callers {
            c.confidence = Confidence::Possible;
        }
        assert_eq!(
            plan_review(&report, &files, &analysed, &head, &[], LISTED, &link),
            None
        );
        let (mut report, ..) = classify();
        report.changed[0].change = Change::Removed;
        assert_eq!(
            plan_review(&report, &files, &analysed, &head, &[], LISTED, &link),
            None
        );
    }
}
