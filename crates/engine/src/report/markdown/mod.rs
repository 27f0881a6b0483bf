//! The report as a pull-request comment.
//!
//! What breaks comes first: one sentence counting the untouched call sites the change
//! breaks (issue 44's verdicts) and where they are, then one counting those that need a
//! look, then one counting those it cannot affect. The removed or renamed functions still
//! called follow, then a section per changed function with callers to look at: the
//! breaking ones, then the others, then (folded) the calls that already match its new
//! signature. Functions whose untouched callers the change cannot break (only a body
//! changed, or every call matches) share one folded summary, counted per function and
//! per file and never listed line by line; functions whose callers need no look (added
//! ones that only the change calls, ones nobody calls) share another; the Mermaid
//! overview of what needs a look comes last.
//!
//! Everything taken from the analysed code (names, paths) is hostile input: it goes into
//! code spans (which nothing but a longer backtick run can close, and which GitHub never
//! turns into mentions, issue links, emoji or HTML), into link targets percent-encoded,
//! or, in the Mermaid diagram, through entity codes. The comment has a hard size limit,
//! so output is built line by line against a budget and cut at whole lines with every
//! opened block closed.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::LineLink;
use crate::blast::diff::Change;
use crate::blast::report::{BlastReport, CallerFinding, ChangedFunction, Verdict};
use crate::graph::Confidence;
use crate::repo_config::ConfigProblem;
use crate::report::weight::{weights, Weight};

/// The first line: the bot finds (and updates) its own comment by it.
pub const MARKER: &str = "<!-- blast-radius -->";

/// The comment's size: GitHub's limit is 65,536 characters; the rest is room for what
/// wraps the body (the hidden markers, a configuration note).
pub const COMMENT_BUDGET: usize = 60_000;

/// Diagram caps: beyond these a flowchart stops being readable.
const DIAGRAM_MAX_FUNCTIONS: usize = 15;
const DIAGRAM_MAX_EDGES: usize = 40;
/// Sites listed inline in the touched-callers line.
const INLINE_SITES: usize = 5;
/// Functions named in the headline.
const HEADLINE_FUNCTIONS: usize = 5;
/// Breaking sites named in the first sentence.
const HEADLINE_BREAKS: usize = 3;
/// Longest Mermaid label, in characters.
const MAX_LABEL_CHARS: usize = 60;

/// The comment for `report`, at most `max_chars` bytes long (bytes, so it is within the
/// limit however GitHub counts characters). When the full comment is longer, it is cut at
/// whole lines and sections and ends with a note of how much was left out.
///
/// With `link`, each `file:line` is a link to it (a permalink at the PR's head): the
/// call sites, and the changed functions but the removed ones (their line is on the
/// base side). Links count against the budget like any other text.
pub fn render_markdown(report: &BlastReport, max_chars: usize, link: Option<LineLink>) -> String {
    render_markdown_listing(report, max_chars, link, None)
}

/// [`render_markdown`] listing at most `listed` callers (untouched, and possible) per
/// changed function when given (a repository's `max_callers`), the rest counted.
pub fn render_markdown_listing(
    report: &BlastReport,
    max_chars: usize,
    link: Option<LineLink>,
    listed: Option<usize>,
) -> String {
    render_markdown_elsewhere(report, max_chars, link, listed, Elsewhere::default())
}

/// Call sites in the installation's other repositories that reach the changed
/// functions, for the headline (their section is the pull request's own).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Elsewhere {
    pub sites: usize,
    pub repositories: usize,
    /// Of those, the ones the change breaks (named or not).
    pub breaks: usize,
}

/// [`render_markdown_listing`] whose headline also counts the call sites elsewhere.
pub fn render_markdown_elsewhere(
    report: &BlastReport,
    max_chars: usize,
    link: Option<LineLink>,
    listed: Option<usize>,
    elsewhere: Elsewhere,
) -> String {
    let render = |limit, reserve, per_function| {
        render(report, limit, reserve, per_function, link, elsewhere)
    };
    let full = render(usize::MAX, 0, listed.unwrap_or(usize::MAX));
    if full.len() <= max_chars {
        return full;
    }
    // Too long: first list at most a few callers per function, so every changed
    // function gets its section; only then cut what still does not fit.
    let few = listed.map_or(LISTED_PER_FUNCTION, |n| n.min(LISTED_PER_FUNCTION));
    let capped = render(usize::MAX, 0, few);
    if capped.len() <= max_chars {
        return capped;
    }
    // Keep room for the truncation note, sized for the largest counts it can hold.
    let reserve = truncation_note(report.callers.len(), report.changed.len()).len() + 2;
    render(max_chars, reserve, few)
}

/// What is wrong in a repository's configuration file, as a section: the file, each
/// problem (the file's own text only in code spans), and that defaults stood in.
pub fn config_problems(path: &str, problems: &[ConfigProblem]) -> String {
    const LISTED: usize = 20;
    let mut out = format!(
        "### Configuration\n\n{} has {} {}; the defaults were used in {} place:\n\n",
        code(path),
        problems.len(),
        plural(problems.len(), "problem", "problems"),
        plural(problems.len(), "its", "their"),
    );
    for p in problems.iter().take(LISTED) {
        out.push_str("- ");
        if !p.key.is_empty() {
            let _ = write!(out, "{}: ", code(&p.key));
        }
        out.push_str(&sanitize(&p.message, 300));
        if let Some(found) = &p.found {
            let _ = write!(out, " (found {})", code(found));
        }
        out.push('\n');
    }
    if problems.len() > LISTED {
        let _ = writeln!(out, "- … and {} more", problems.len() - LISTED);
    }
    out
}

/// Callers listed per changed function (untouched, and possible) when the whole report
/// would not fit in one comment; the rest are counted, and the JSON report has them.
const LISTED_PER_FUNCTION: usize = 20;

fn render(
    report: &BlastReport,
    limit: usize,
    note_reserve: usize,
    per_function: usize,
    link: Option<LineLink>,
    elsewhere: Elsewhere,
) -> String {
    let mut out = Out {
        buf: String::new(),
        limit,
        reserved: 0,
        full: false,
        omitted_callers: 0,
        omitted_functions: 0,
    };
    // The marker goes first even when the note would then not fit: without it the bot
    // would post a new comment instead of updating this one.
    out.line(MARKER, 0, 0);
    out.reserved = note_reserve;
    out.line("## Blast radius", 0, 0);
    out.blank();

    if report.changed.is_empty() {
        out.line(
            &format!(
                "No changed functions between {} and {}.",
                code(&report.base),
                code(&report.head)
            ),
            0,
            0,
        );
        lower_bound_warning(&mut out, report);
        return out.finish();
    }

    let groups = groups(report);
    headline(&mut out, &groups, elsewhere);
    counts(&mut out, report, &groups);
    lower_bound_warning(&mut out, report);
    still_called(&mut out, &groups);
    for group in groups.iter().filter(|g| g.has_section()) {
        section(&mut out, group, per_function, link);
    }
    unaffected(&mut out, &groups, link);
    no_look(&mut out, &groups, link);
    diagram(&mut out, &groups);
    out.finish()
}

/// The findings about one changed function, split the way the comment shows them.
struct Group<'a> {
    func: &'a ChangedFunction,
    /// Exact or likely, not touched by the change: what the reader must check.
    untouched: Vec<&'a CallerFinding>,
    /// The untouched callers by what they ask of the reader (each in `untouched`'s
    /// order): the ones the change breaks, the ones to look at, the ones it cannot
    /// affect (see [`Weight`]).
    breaks: Vec<&'a CallerFinding>,
    look: Vec<&'a CallerFinding>,
    fine: Vec<&'a CallerFinding>,
    /// Exact or likely, touched by the change.
    touched: Vec<&'a CallerFinding>,
    /// Name-only guesses, touched or not.
    possible: Vec<&'a CallerFinding>,
}

impl<'a> Group<'a> {
    fn has_callers(&self) -> bool {
        !(self.untouched.is_empty() && self.touched.is_empty() && self.possible.is_empty())
    }

    /// Untouched callers, and none the change can break: the function is listed in the
    /// folded summary of unaffected callers instead of a section of its own.
    fn settled(&self) -> bool {
        !self.untouched.is_empty() && self.breaks.is_empty() && self.look.is_empty()
    }

    /// A function gets a section when it has callers to show, but an added function
    /// only for callers the change did not touch: its other callers are the change's own
    /// code (and the engine lists no more for it). A function whose untouched callers the
    /// change cannot break is summarized with the others like it.
    fn has_section(&self) -> bool {
        match self.func.change {
            Change::Added => !self.untouched.is_empty(),
            _ => self.has_callers() && !self.settled(),
        }
    }

    fn callers(&self) -> usize {
        self.untouched.len() + self.touched.len() + self.possible.len()
    }

    fn direct_untouched(&self) -> impl Iterator<Item = &'a CallerFinding> + '_ {
        self.untouched.iter().copied().filter(|f| f.depth <= 1)
    }

    /// The untouched callers to list at the top: what breaks, then what needs a look.
    fn listed(&self) -> impl Iterator<Item = &'a CallerFinding> + '_ {
        self.breaks.iter().chain(&self.look).copied()
    }

    /// Removed or renamed, and still called by code the change did not touch.
    fn gone_but_called(&self) -> bool {
        matches!(self.func.change, Change::Removed | Change::Renamed)
            && self.direct_untouched().next().is_some()
    }
}

/// One group per changed function: removed or renamed functions still called first,
/// then the most breaking callers, the most to look at, the most untouched (ties:
/// report order).
fn groups(report: &BlastReport) -> Vec<Group<'_>> {
    let mut groups: Vec<Group> = report
        .changed
        .iter()
        .map(|func| Group {
            func,
            untouched: Vec::new(),
            breaks: Vec::new(),
            look: Vec::new(),
            fine: Vec::new(),
            touched: Vec::new(),
            possible: Vec::new(),
        })
        .collect();
    for (finding, weight) in report.callers.iter().zip(weights(report)) {
        // A finding pointing nowhere is a bug upstream; dropping it beats panicking in
        // the last step of a CI run.
        let Some(group) = groups.get_mut(finding.changed_index) else {
            continue;
        };
        let list = match (finding.confidence, finding.touched) {
            (Confidence::Possible, _) => &mut group.possible,
            (_, true) => &mut group.touched,
            (_, false) => {
                match weight {
                    Weight::Breaks => group.breaks.push(finding),
                    Weight::Look => group.look.push(finding),
                    Weight::Fine => group.fine.push(finding),
                }
                &mut group.untouched
            }
        };
        list.push(finding);
    }
    for group in &mut groups {
        for list in [
            &mut group.untouched,
            &mut group.breaks,
            &mut group.look,
            &mut group.fine,
            &mut group.touched,
            &mut group.possible,
        ] {
            list.sort_by(|a, b| {
                (a.depth, a.confidence, &a.file, a.line, a.column, &a.caller).cmp(&(
                    b.depth,
                    b.confidence,
                    &b.file,
                    b.line,
                    b.column,
                    &b.caller,
                ))
            });
        }
    }
    // Stable: equal keys keep the report's order.
    groups.sort_by_key(|g| {
        (
            !g.gone_but_called(),
            std::cmp::Reverse(g.breaks.len()),
            std::cmp::Reverse(g.look.len()),
            std::cmp::Reverse(g.untouched.len()),
        )
    });
    groups
}

/// Distinct call sites among `findings`, in file and line order.
fn distinct_sites<'a>(findings: impl Iterator<Item = &'a CallerFinding>) -> Vec<&'a CallerFinding> {
    let mut sites: Vec<&CallerFinding> = findings.collect();
    sites.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
    sites.dedup_by(|a, b| (&a.file, a.line, a.column) == (&b.file, b.line, b.column));
    sites
}

/// The lines under the heading, one paragraph each: the call sites the change breaks
/// and where, then how many need a look and at which functions, then how many it cannot
/// affect; or that no caller, or only touched ones, were found.
fn headline(out: &mut Out, groups: &[Group], elsewhere: Elsewhere) {
    // Where other repositories call the changed functions, "no caller" is only this
    // repository's story.
    let here = if elsewhere.sites > 0 {
        " in this repository"
    } else {
        ""
    };
    let mut paragraphs: Vec<String> = Vec::new();
    let breaking = distinct_sites(groups.iter().flat_map(|g| g.breaks.iter().copied()));
    if !breaking.is_empty() {
        let listed: Vec<String> = breaking
            .iter()
            .take(HEADLINE_BREAKS)
            .map(|f| code(&format!("{}:{}", f.file, f.line)))
            .collect();
        let mut first = format!(
            "**{}** untouched call {} **{}** with this change: {}",
            breaking.len(),
            plural(breaking.len(), "site", "sites"),
            plural(breaking.len(), "breaks", "break"),
            listed.join(", ")
        );
        if breaking.len() > HEADLINE_BREAKS {
            let _ = write!(first, ", and {} more", breaking.len() - HEADLINE_BREAKS);
        }
        first.push('.');
        if elsewhere.breaks > 0 {
            let _ = write!(
                first,
                " **{}** call {} in other repositories of this installation {} too.",
                elsewhere.breaks,
                plural(elsewhere.breaks, "site", "sites"),
                plural(elsewhere.breaks, "breaks", "break"),
            );
        }
        paragraphs.push(first);
    } else if elsewhere.breaks > 0 {
        paragraphs.push(format!(
            "**{}** call {} in other repositories of this installation **{}** with this change (\"In other repositories\", below).",
            elsewhere.breaks,
            plural(elsewhere.breaks, "site", "sites"),
            plural(elsewhere.breaks, "breaks", "break"),
        ));
    }
    let look = distinct_sites(groups.iter().flat_map(|g| g.look.iter().copied()));
    if !look.is_empty() {
        let called: Vec<&Group> = groups.iter().filter(|g| !g.look.is_empty()).collect();
        let named: Vec<String> = called
            .iter()
            .take(HEADLINE_FUNCTIONS)
            .map(|g| format!("{} ({})", code(&g.func.qualified_name), g.look.len()))
            .collect();
        let mut line = if breaking.is_empty() {
            format!(
                "**{}** call {} this change did not touch {} a look: {}",
                look.len(),
                plural(look.len(), "site", "sites"),
                plural(look.len(), "needs", "need"),
                named.join(", ")
            )
        } else {
            format!(
                "**{}** other untouched call {} {} a look: {}",
                look.len(),
                plural(look.len(), "site", "sites"),
                plural(look.len(), "needs", "need"),
                named.join(", ")
            )
        };
        if called.len() > HEADLINE_FUNCTIONS {
            let _ = write!(line, ", and {} more", called.len() - HEADLINE_FUNCTIONS);
        }
        line.push('.');
        paragraphs.push(line);
    }
    let fine = distinct_sites(groups.iter().flat_map(|g| g.fine.iter().copied()));
    if !fine.is_empty() {
        let files: BTreeSet<&str> = fine.iter().map(|f| f.file.as_str()).collect();
        let body_only = groups
            .iter()
            .filter(|g| !g.fine.is_empty())
            .all(|g| g.func.change == Change::Body);
        let why = if body_only {
            "only the bodies of the functions they call changed"
        } else {
            "only bodies changed, or the calls already match the new signatures"
        };
        let opening = if breaking.is_empty() && look.is_empty() {
            format!(
                "**{}** call {} this change did not touch, in {} {}, {} the changed functions",
                fine.len(),
                plural(fine.len(), "site", "sites"),
                files.len(),
                plural(files.len(), "file", "files"),
                plural(fine.len(), "calls", "call"),
            )
        } else {
            format!(
                "**{}** more untouched call {} in {} {}",
                fine.len(),
                plural(fine.len(), "site", "sites"),
                files.len(),
                plural(files.len(), "file", "files"),
            )
        };
        paragraphs.push(format!(
            "{opening}, none affected by the contract: {why} (folded below)."
        ));
    }
    if breaking.len() + look.len() + fine.len() == 0 {
        let line = if groups.iter().any(|g| !g.touched.is_empty()) {
            format!("Every caller{here} of the changed functions was touched by this change.")
        } else {
            format!("No caller{here} of the changed functions was found.")
        };
        paragraphs.push(line);
    }
    if elsewhere.sites > 0 {
        let last = paragraphs.last_mut().expect("a paragraph");
        let _ = write!(
            last,
            " **{}** call {} in {} other {} of this installation {} them too (\"In other repositories\", below).",
            elsewhere.sites,
            plural(elsewhere.sites, "site", "sites"),
            elsewhere.repositories,
            plural(elsewhere.repositories, "repository", "repositories"),
            plural(elsewhere.sites, "calls", "call"),
        );
    }
    for paragraph in paragraphs {
        out.line(&paragraph, 0, 0);
        out.blank();
    }
}

/// The small print: what was compared, how deep, and the other counts.
fn counts(out: &mut Out, report: &BlastReport, groups: &[Group]) {
    let changed_files: BTreeSet<&str> = report.changed.iter().map(|c| c.file.as_str()).collect();
    let touched: usize = groups.iter().map(|g| g.touched.len()).sum();
    let possible: usize = groups.iter().map(|g| g.possible.len()).sum();
    let mut line = format!(
        "<sub>{} {} in {} {}",
        report.changed.len(),
        plural(
            report.changed.len(),
            "changed function",
            "changed functions"
        ),
        changed_files.len(),
        plural(changed_files.len(), "file", "files"),
    );
    if touched > 0 {
        let _ = write!(
            line,
            " · {touched} touched {}",
            plural(touched, "caller", "callers")
        );
    }
    if possible > 0 {
        let _ = write!(
            line,
            " · {possible} possible {}",
            plural(possible, "match", "matches")
        );
    }
    let depth = match report.depth {
        0 | 1 => "direct callers only".to_string(),
        d => format!("callers of callers up to depth {d}"),
    };
    let _ = write!(
        line,
        " · {} → {} · {depth}</sub>",
        code(&report.base),
        code(&report.head)
    );
    out.line(&line, 0, 0);
    out.blank();
}

/// Skipped changed files a comment names, at most.
pub const SKIPPED_NAMED: usize = 20;

/// Unresolved same-name calls and skipped files mean the counts are lower bounds.
fn lower_bound_warning(out: &mut Out, report: &BlastReport) {
    let mut reasons = Vec::new();
    if report.unresolved_same_name > 0 {
        let n = report.unresolved_same_name as usize;
        reasons.push(format!(
            "{n} call {} the name of a changed function but could not be resolved",
            plural(n, "site uses", "sites use")
        ));
    }
    if report.skipped_files > 0 {
        let n = report.skipped_files as usize;
        reasons.push(format!(
            "{n} {} skipped",
            plural(n, "file was", "files were")
        ));
    }
    if reasons.is_empty() {
        return;
    }
    let mut lines = vec![
        "> [!WARNING]".to_string(),
        format!("> The counts are lower bounds: {}.", reasons.join(", and ")),
    ];
    // The changed files that could not be read are named, with why: a reviewer can
    // look at them by hand (and an attacker's file does not hide behind a count).
    for skipped in report.skipped.iter().take(SKIPPED_NAMED) {
        lines.push(format!(
            "> - {} skipped: {} ({})",
            code(&skipped.file),
            skipped.reason.describe(),
            skipped.reason.as_str()
        ));
    }
    if report.skipped.len() > SKIPPED_NAMED {
        lines.push(format!(
            "> - and {} more skipped",
            report.skipped.len() - SKIPPED_NAMED
        ));
    }
    lines.push(String::new());
    out.block(&lines, 0, 0);
}

/// The loud part: removed or renamed functions that code outside the change still calls.
/// Their sections come first, right below, with the call sites.
fn still_called(out: &mut Out, groups: &[Group]) {
    let gone: Vec<&Group> = groups.iter().filter(|g| g.gone_but_called()).collect();
    if gone.is_empty() {
        return;
    }
    out.line("### ⚠️ Removed or renamed, but still called", 0, 0);
    out.blank();
    for group in gone {
        let func = group.func;
        let what = match (&func.change, &func.renamed_from) {
            (Change::Renamed, Some(from)) => {
                format!("{} renamed to {}", code(from), code(&func.qualified_name))
            }
            (Change::Renamed, None) => format!("{} (renamed)", code(&func.qualified_name)),
            _ => format!("{} (removed)", code(&func.qualified_name)),
        };
        let n = group.direct_untouched().count();
        out.line(
            &format!(
                "- {what}: still called by **{n}** call {} this change did not touch",
                plural(n, "site", "sites")
            ),
            0,
            0,
        );
    }
    out.blank();
}

/// Changed functions and their untouched direct callers as a Mermaid flowchart, folded
/// (an overview: the sections say what needs a look). Node ids are generated (`f0`,
/// `c0`), never taken from names; labels are entity-escaped.
fn diagram(out: &mut Out, groups: &[Group]) {
    let candidates: Vec<(&Group, Vec<(&str, &str)>)> = groups
        .iter()
        .map(|g| (g, distinct_callers(g)))
        .filter(|(_, callers)| !callers.is_empty())
        .collect();
    if candidates.is_empty() {
        return;
    }
    let total_edges: usize = candidates.iter().map(|(_, c)| c.len()).sum();

    // Hand out edges round-robin so the busiest function cannot take the whole diagram.
    let shown = &candidates[..candidates.len().min(DIAGRAM_MAX_FUNCTIONS)];
    let mut quota = vec![0; shown.len()];
    let mut edge_count = 0;
    'deal: loop {
        let before = edge_count;
        for (q, (_, callers)) in quota.iter_mut().zip(shown) {
            if edge_count == DIAGRAM_MAX_EDGES {
                break 'deal;
            }
            if *q < callers.len() {
                *q += 1;
                edge_count += 1;
            }
        }
        if edge_count == before {
            break;
        }
    }

    let mut lines = vec![
        "<details><summary>Diagram: the changed functions and the untouched direct callers to look at</summary>".to_string(),
        String::new(),
        "```mermaid".to_string(),
        "flowchart LR".to_string(),
    ];
    let mut caller_ids: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut edges = Vec::new();
    for (f, ((group, callers), &q)) in shown.iter().zip(&quota).enumerate() {
        let func = group.func;
        let label = format!("{} ({})", func.qualified_name, change_word(func.change));
        lines.push(format!("  f{f}[\"{}\"]:::changed", mermaid_label(&label)));
        for &(file, caller) in &callers[..q] {
            let next = caller_ids.len();
            let c = *caller_ids.entry((file, caller)).or_insert_with(|| {
                let label = format!("{caller} · {file}");
                lines.push(format!("  c{next}[\"{}\"]", mermaid_label(&label)));
                next
            });
            edges.push(format!("  c{c} --> f{f}"));
        }
    }
    lines.extend(edges);
    lines.push("  classDef changed stroke-width:3px".to_string());
    lines.push("```".to_string());
    let more_functions = candidates.len() - shown.len();
    let more_edges = total_edges - edge_count;
    if more_functions > 0 || more_edges > 0 {
        lines.push(String::new());
        lines.push(format!(
            "_Diagram capped: {more_functions} more changed {} and {more_edges} more caller {} are not drawn; the sections above list them._",
            plural(more_functions, "function", "functions"),
            plural(more_edges, "edge", "edges"),
        ));
    }
    // The fence and the fold go in whole or not at all.
    lines.extend(DETAILS_CLOSER.lines().map(str::to_string));
    out.block(&lines, 0, 0);
}

/// (file, caller) pairs calling the group's function directly that break or need a
/// look, once each.
fn distinct_callers<'a>(group: &Group<'a>) -> Vec<(&'a str, &'a str)> {
    let mut seen = BTreeSet::new();
    group
        .listed()
        .filter(|f| f.depth <= 1)
        .map(|f| (f.file.as_str(), f.caller.as_str()))
        .filter(|pair| seen.insert(*pair))
        .collect()
}

fn section(out: &mut Out, group: &Group, per_function: usize, link: Option<LineLink>) {
    let func = group.func;
    let callers = group.callers();
    if !out.line(&format!("### {}", code(&func.qualified_name)), callers, 1) {
        return;
    }
    out.line(&about_line(group, link), 0, 0);
    out.blank();
    untouched_lines(out, group, per_function, link);
    touched_line(out, group, link);
    possible_fold(out, group, per_function, link);
}

/// The line under a section's heading: what the function is, where, how it changed,
/// and its callers counted.
fn about_line(group: &Group, link: Option<LineLink>) -> String {
    let func = group.func;
    let mut about = format!(
        "{} at {} · {}",
        func.kind.as_str(),
        definition_place(func, link),
        describe_change(func)
    );
    if func.change == Change::Added && !group.untouched.is_empty() {
        // Calls written before it existed now reach it (a new definition shadowing a
        // global, or taking a name over): the surprise to look at.
        about.push_str(", yet code this change did not touch calls it");
    }
    let _ = write!(
        about,
        " · **{}** untouched {}",
        group.untouched.len(),
        plural(group.untouched.len(), "caller", "callers")
    );
    // How they split, when a verdict sets some apart.
    if !group.breaks.is_empty() || !group.fine.is_empty() {
        let mut split = Vec::new();
        if !group.breaks.is_empty() {
            split.push(format!(
                "{} {}",
                group.breaks.len(),
                plural(group.breaks.len(), "breaks", "break")
            ));
        }
        if !group.look.is_empty() {
            split.push(format!("{} to check", group.look.len()));
        }
        if !group.fine.is_empty() {
            split.push(format!("{} fine", group.fine.len()));
        }
        let _ = write!(about, " ({})", split.join(", "));
    }
    if !group.touched.is_empty() {
        let _ = write!(about, " · {} touched", group.touched.len());
    }
    if !group.possible.is_empty() {
        let _ = write!(about, " · {} possible", group.possible.len());
    }
    about
}

/// The untouched callers that break, then those that need a look, one a line up to
/// `per_function`, the rest counted; then those the change cannot break, folded.
fn untouched_lines(out: &mut Out, group: &Group, per_function: usize, link: Option<LineLink>) {
    let listed = group.breaks.len() + group.look.len();
    for finding in group.listed().take(per_function) {
        out.line(&caller_line(finding, link), 1, 0);
    }
    if listed > per_function {
        let rest: Vec<&CallerFinding> = group.listed().skip(per_function).collect();
        let files: BTreeSet<&str> = rest.iter().map(|f| f.file.as_str()).collect();
        out.line(
            &format!(
                "- … and **{}** more untouched {} in {} {} (the JSON report lists them all)",
                rest.len(),
                plural(rest.len(), "caller", "callers"),
                files.len(),
                plural(files.len(), "file", "files")
            ),
            rest.len(),
            0,
        );
    }
    if listed > 0 {
        out.blank();
    }
    fine_fold(out, group, per_function, link);
}

/// One untouched caller as a list item: where, in what, how sure, and its verdict.
fn caller_line(finding: &CallerFinding, link: Option<LineLink>) -> String {
    format!(
        "- {} — {} — {}{}",
        site(finding, link),
        code(&finding.caller),
        finding.confidence.as_str(),
        call_details(finding)
    )
}

/// The untouched callers of a function with others to look at that its change cannot
/// break (they already match its new signature), folded.
fn fine_fold(out: &mut Out, group: &Group, per_function: usize, link: Option<LineLink>) {
    if group.fine.is_empty() {
        return;
    }
    let n = group.fine.len();
    let head = [
        format!(
            "<details><summary>{n} more untouched {} the new signature does not break</summary>",
            plural(n, "caller", "callers")
        ),
        String::new(),
    ];
    let lines = group.fine.iter().map(|f| caller_line(f, link));
    folded_list(out, &head, n, lines, per_function);
}

/// A folded block: `head` (its summary and what precedes the list), then at most
/// `per_function` of the `n` lines, the rest counted.
fn folded_list(
    out: &mut Out,
    head: &[String],
    n: usize,
    lines: impl Iterator<Item = String>,
    per_function: usize,
) {
    if !out.open(head, n) {
        return;
    }
    for line in lines.take(per_function) {
        out.line(&line, 1, 0);
    }
    if n > per_function {
        let rest = n - per_function;
        out.line(&format!("- … and {rest} more"), rest, 0);
    }
    out.close();
}

/// The callers the change touched, in one line.
fn touched_line(out: &mut Out, group: &Group, link: Option<LineLink>) {
    if group.touched.is_empty() {
        return;
    }
    let mut line = String::from("Touched by this change: ");
    let listed: Vec<String> = group
        .touched
        .iter()
        .take(INLINE_SITES)
        .map(|f| format!("{} in {}", site(f, link), code(&f.caller)))
        .collect();
    line.push_str(&listed.join(", "));
    if group.touched.len() > INLINE_SITES {
        let _ = write!(line, ", and {} more", group.touched.len() - INLINE_SITES);
    }
    out.line(&line, group.touched.len(), 0);
    out.blank();
}

/// The name-only matches, folded.
fn possible_fold(out: &mut Out, group: &Group, per_function: usize, link: Option<LineLink>) {
    if group.possible.is_empty() {
        return;
    }
    let n = group.possible.len();
    let head = [
        format!(
            "<details><summary>{n} possible {} (name-only guesses)</summary>",
            plural(n, "match", "matches")
        ),
        String::new(),
        format!(
            "These call sites call a function named {}, but several definitions share that name, so the graph cannot tell which one they mean.",
            code(&group.func.name)
        ),
        String::new(),
    ];
    let lines = group.possible.iter().map(|finding| {
        let touched = if finding.touched { " · touched" } else { "" };
        format!(
            "- {} — {}{}{touched}",
            site(finding, link),
            code(&finding.caller),
            call_details(finding)
        )
    });
    folded_list(out, &head, n, lines, per_function);
}

/// Files named per function in the summary of unaffected callers, at most.
const FILES_NAMED: usize = 8;

/// The functions whose untouched callers the change cannot break, folded in one list:
/// for each, why (only its body changed, or every call matches its new signature) and
/// its callers counted per file, never listed line by line.
fn unaffected(out: &mut Out, groups: &[Group], link: Option<LineLink>) {
    let settled: Vec<&Group> = groups.iter().filter(|g| g.settled()).collect();
    if settled.is_empty() {
        return;
    }
    let sites = distinct_sites(settled.iter().flat_map(|g| g.fine.iter().copied()));
    let files: BTreeSet<&str> = sites.iter().map(|f| f.file.as_str()).collect();
    let callers: usize = settled.iter().map(|g| g.untouched.len()).sum();
    let opened = out.open(
        &[
            format!(
                "<details><summary>{} untouched call {} in {} {}, none affected by the contract ({} changed {})</summary>",
                sites.len(),
                plural(sites.len(), "site", "sites"),
                files.len(),
                plural(files.len(), "file", "files"),
                settled.len(),
                plural(settled.len(), "function", "functions"),
            ),
            String::new(),
        ],
        callers,
    );
    if !opened {
        out.omitted_functions += settled.len();
        return;
    }
    for group in settled {
        let func = group.func;
        let why = match func.change {
            Change::Body => "the contract is the same",
            _ => "every call matches the new signature",
        };
        let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
        for f in &group.fine {
            *per_file.entry(f.file.as_str()).or_default() += 1;
        }
        // The files with most calls first (ties: by name).
        let mut per_file: Vec<(&str, usize)> = per_file.into_iter().collect();
        per_file.sort_by_key(|&(file, n)| (std::cmp::Reverse(n), file));
        let named: Vec<String> = per_file
            .iter()
            .take(FILES_NAMED)
            .map(|&(file, n)| format!("{} ({n})", code(file)))
            .collect();
        let n = group.fine.len();
        let mut line = format!(
            "- {} — {} at {} · {}: {} · **{n}** untouched {} in {} {}: {}",
            code(&func.qualified_name),
            func.kind.as_str(),
            definition_place(func, link),
            describe_change(func),
            why,
            plural(n, "caller", "callers"),
            per_file.len(),
            plural(per_file.len(), "file", "files"),
            named.join(", "),
        );
        if per_file.len() > FILES_NAMED {
            let more = per_file.len() - FILES_NAMED;
            let _ = write!(line, ", and {more} more {}", plural(more, "file", "files"));
        }
        if !group.touched.is_empty() {
            let _ = write!(line, " · {} touched", group.touched.len());
        }
        if !group.possible.is_empty() {
            let n = group.possible.len();
            let _ = write!(
                line,
                " · {n} possible {} (name-only)",
                plural(n, "match", "matches")
            );
        }
        out.line(&line, group.callers(), 1);
    }
    out.close();
}

/// Changed functions without a section, folded in one list: added functions that only
/// the change calls, and functions nobody calls. Their callers need no look.
fn no_look(out: &mut Out, groups: &[Group], link: Option<LineLink>) {
    let quiet: Vec<&Group> = groups
        .iter()
        .filter(|g| !g.has_section() && !g.settled())
        .collect();
    if quiet.is_empty() {
        return;
    }
    let n = quiet.len();
    let added = quiet
        .iter()
        .filter(|g| g.func.change == Change::Added)
        .count();
    let mut kinds = Vec::new();
    if added > 0 {
        kinds.push(format!("{added} added"));
    }
    if n > added {
        kinds.push(format!("{} with no callers", n - added));
    }
    let opened = out.open(
        &[
            format!(
                "<details><summary>{n} changed {} no look at callers ({})</summary>",
                plural(n, "function needs", "functions need"),
                kinds.join(", ")
            ),
            String::new(),
        ],
        0,
    );
    if !opened {
        out.omitted_functions += n;
        return;
    }
    // Added functions first, then the others, each in the report's order.
    let mut quiet = quiet;
    quiet.sort_by_key(|g| g.func.change != Change::Added);
    for group in quiet {
        let func = group.func;
        let mut line = format!(
            "- {} — {} at {} · ",
            code(&func.qualified_name),
            func.kind.as_str(),
            definition_place(func, link),
        );
        if func.change == Change::Added {
            line.push_str("added, no caller outside this change");
        } else {
            let _ = write!(line, "{}, no callers found", describe_change(func));
        }
        if !group.possible.is_empty() {
            let n = group.possible.len();
            let _ = write!(
                line,
                " · {n} possible {} (name-only)",
                plural(n, "match", "matches")
            );
        }
        out.line(&line, 0, 1);
    }
    out.close();
}

/// `src/a.ts:12` as code, linked when there is a link.
pub(crate) fn place(file: &str, line: u32, link: Option<LineLink>) -> String {
    let text = code(&format!("{file}:{line}"));
    match link {
        Some(link) => format!("[{text}]({})", link_target(&link(file, line))),
        None => text,
    }
}

/// Where a changed function is defined; a removed one's line is on the base side, where
/// a link at head would not point, so it is never linked.
fn definition_place(func: &ChangedFunction, link: Option<LineLink>) -> String {
    let link = link.filter(|_| func.change != Change::Removed);
    place(&func.file, func.line, link)
}

fn site(finding: &CallerFinding, link: Option<LineLink>) -> String {
    place(&finding.file, finding.line, link)
}

/// A URL as a markdown link destination: the paths in it come from the analysed code,
/// so whatever could end the destination or the line (spaces, controls, parentheses,
/// angle brackets, quotes, backslashes) and anything past ASCII is percent-encoded.
fn link_target(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        let plain = c.is_ascii_graphic() && !matches!(c, '(' | ')' | '<' | '>' | '"' | '\\' | '`');
        if plain {
            out.push(c);
        } else {
            let mut bytes = [0; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// How the site calls, when not a plain call, the path for transitive callers, and what
/// the change's new contract means for it when it is not fine.
fn call_details(finding: &CallerFinding) -> String {
    let mut s = String::new();
    if let Some(judged) = finding
        .judged
        .as_ref()
        .filter(|j| j.verdict != Verdict::Fine)
    {
        let _ = write!(
            s,
            " · **{}**: {}",
            judged.verdict.as_str(),
            code(&judged.reason)
        );
    }
    let kind = finding.kind.as_str();
    if kind != "call" {
        let _ = write!(s, " · {kind}");
    }
    if finding.depth > 1 {
        let _ = write!(s, " · depth {}", finding.depth);
        if let Some(via) = &finding.via {
            let _ = write!(s, " via {}", code(via));
        }
    }
    s
}

/// The change in words: "body changed", "renamed from `old`".
pub fn describe_change(func: &ChangedFunction) -> String {
    match (&func.change, &func.renamed_from) {
        (Change::Renamed, Some(from)) => format!("renamed from {}", code(from)),
        (change, _) => change_word(*change).to_string(),
    }
}

fn change_word(change: Change) -> &'static str {
    match change {
        Change::Added => "added",
        Change::Removed => "removed",
        Change::Renamed => "renamed",
        Change::Signature => "signature changed",
        Change::Body => "body changed",
        Change::SignatureAndBody => "signature and body changed",
        Change::Unexported => "no longer exported",
    }
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

fn truncation_note(callers: usize, functions: usize) -> String {
    format!(
        "_Truncated to fit the comment size limit: {callers} more {} and {functions} more changed {} are not shown. The JSON report has the full list._",
        plural(callers, "caller", "callers"),
        plural(functions, "function", "functions"),
    )
}

pub use crate::escape::code;
use crate::escape::sanitize;

/// A Mermaid node label (to sit inside `["…"]`): anything but letters, digits and a few
/// harmless marks becomes a `#code;` entity, so quotes, brackets, `<>`, `#` and `;`
/// cannot end the label or the statement.
fn mermaid_label(s: &str) -> String {
    let mut out = String::new();
    for c in sanitize(s, MAX_LABEL_CHARS).chars() {
        if c.is_alphanumeric()
            || matches!(c, ' ' | '.' | '_' | '-' | '/' | ':' | ',' | '$' | '·' | '…')
        {
            out.push(c);
        } else {
            let _ = write!(out, "#{};", u32::from(c));
        }
    }
    out
}

/// The comment under construction, within its byte budget.
struct Out {
    buf: String,
    limit: usize,
    /// Bytes kept free: the closers of open blocks and the truncation note.
    reserved: usize,
    /// A line did not fit: nothing more is added (only closers), so the cut is clean.
    full: bool,
    omitted_callers: usize,
    omitted_functions: usize,
}

impl Out {
    fn fits(&self, bytes: usize) -> bool {
        !self.full
            && self
                .buf
                .len()
                .saturating_add(bytes)
                .saturating_add(self.reserved)
                <= self.limit
    }

    /// Appends one line that stands for `callers` findings and `functions` changed
    /// functions, which count as left out when it does not fit.
    fn line(&mut self, text: &str, callers: usize, functions: usize) -> bool {
        self.block(std::slice::from_ref(&text.to_string()), callers, functions)
    }

    fn blank(&mut self) -> bool {
        self.line("", 0, 0)
    }

    /// Appends all of `lines` or none.
    fn block(&mut self, lines: &[String], callers: usize, functions: usize) -> bool {
        let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
        if !self.fits(bytes) {
            self.full = true;
            self.omitted_callers += callers;
            self.omitted_functions += functions;
            return false;
        }
        for line in lines {
            self.buf.push_str(line);
            self.buf.push('\n');
        }
        true
    }

    /// Appends the opening `lines` of a `<details>` block, keeping room for its closer;
    /// `callers` count as left out when it does not fit.
    fn open(&mut self, lines: &[String], callers: usize) -> bool {
        self.reserved += DETAILS_CLOSER.len();
        if self.block(lines, callers, 0) {
            return true;
        }
        self.reserved -= DETAILS_CLOSER.len();
        false
    }

    /// Ends the block [`Out::open`] started; its room was kept, so it always fits.
    fn close(&mut self) {
        self.reserved -= DETAILS_CLOSER.len();
        self.buf.push_str(DETAILS_CLOSER);
    }

    fn finish(mut self) -> String {
        // One final newline, however the last block ended (every line ends with one, so
        // this never grows the text).
        let end = self.buf.trim_end_matches('\n').len();
        if end < self.buf.len() {
            self.buf.truncate(end);
            self.buf.push('\n');
        }
        if self.full {
            let note = truncation_note(self.omitted_callers, self.omitted_functions);
            // The reserve covers the note; the check guards budgets too small for it.
            if self.buf.len() + note.len() + 2 <= self.limit {
                self.buf.push('\n');
                self.buf.push_str(&note);
                self.buf.push('\n');
            }
        }
        self.buf
    }
}

/// Closes a `<details>` block. The blank line before ends any list inside it; the one
/// after ends the HTML block, which would otherwise swallow the next heading as raw text.
const DETAILS_CLOSER: &str = "\n</details>\n\n";

#[cfg(test)]
mod tests;
