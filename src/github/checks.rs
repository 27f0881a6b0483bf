//! Check runs: a named result on a commit, with a summary and annotations on lines.
//!
//! GitHub takes at most 50 annotations per request; more go in updates, which *append*. So
//! an update that carries annotations is not idempotent, and neither is creating a run.
//! [`Installation::publish_check_run`] keeps one run of ours per head commit and name, and
//! after an answer that leaves open whether a request was applied it looks at what GitHub
//! has (the run, its annotations) before sending more.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::error::{GithubError, Result};
use super::installation::Installation;
use super::limits::{check_length, MAX_ANNOTATIONS_PER_REQUEST, MAX_CHECK_TEXT_CHARS};
use super::repos::RepoName;
use super::retry::RetryMode;
use super::transport::{encode_path, with_query, Call};
use crate::model::CommitSha;

/// How many times creating a run or sending a batch is tried at most when GitHub's answers
/// leave open whether it was applied.
const MAX_UNKNOWN_OUTCOMES: u32 = 3;

/// The longest annotation title GitHub takes (characters).
const MAX_ANNOTATION_TITLE_CHARS: usize = 255;
/// The largest annotation message or raw details GitHub takes ("64 KB").
const MAX_ANNOTATION_BYTES: usize = 64 * 1024;

/// A check run's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CheckRunId(pub u64);

/// Where a check run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Queued,
    InProgress,
    Completed,
    /// A status GitHub gave that we do not know (`waiting`, `pending`, ...); never sent.
    #[serde(other)]
    Unknown,
}

/// How a completed check run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckConclusion {
    Success,
    Failure,
    Neutral,
    Cancelled,
    Skipped,
    TimedOut,
    ActionRequired,
    /// Set by GitHub only; never sent.
    Stale,
    #[serde(other)]
    Unknown,
}

/// An annotation's severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnnotationLevel {
    Notice,
    Warning,
    Failure,
}

/// A note on lines of a file, shown in the check run and in the PR's changed files.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Annotation {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    #[serde(rename = "annotation_level")]
    pub level: AnnotationLevel,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_details: Option<String>,
}

impl Annotation {
    /// This annotation within GitHub's limits: a title of at most 255 characters, a
    /// message and raw details of at most 64 KB, each cut with `…`. A called function's
    /// name is the analysed code's and can be any length; GitHub refuses the whole
    /// request for one field too long. Each text is first [`cleaned`].
    pub fn fitted(mut self) -> Annotation {
        for text in [
            Some(&mut self.message),
            self.title.as_mut(),
            self.raw_details.as_mut(),
        ]
        .into_iter()
        .flatten()
        {
            if text.chars().any(unwanted) {
                *text = cleaned(text);
            }
        }
        if let Some(title) = &mut self.title {
            if title.chars().count() > MAX_ANNOTATION_TITLE_CHARS {
                *title = cut_chars(title, MAX_ANNOTATION_TITLE_CHARS - 1) + "…";
            }
        }
        for text in [Some(&mut self.message), self.raw_details.as_mut()]
            .into_iter()
            .flatten()
        {
            if text.len() > MAX_ANNOTATION_BYTES {
                let mut end = MAX_ANNOTATION_BYTES - '…'.len_utf8();
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.truncate(end);
                text.push('…');
            }
        }
        self
    }
}

/// `text` without control characters (C0 and C1, but for the newline and the tab, which
/// GitHub shows as such) and without the characters that reorder text as it is shown
/// (bidi embeddings, overrides, isolates and marks): the names in an annotation are the
/// analysed code's, and such characters could make one read as another.
pub fn cleaned(text: &str) -> String {
    text.chars().filter(|&c| !unwanted(c)).collect()
}

fn unwanted(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
        )
}

fn cut_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// Each annotation within GitHub's limits (see [`Annotation::fitted`]), so that what is
/// compared with GitHub's copy is what was sent.
fn fitted(annotations: &[Annotation]) -> Vec<Annotation> {
    annotations
        .iter()
        .cloned()
        .map(Annotation::fitted)
        .collect()
}

/// What a check run shows: required whenever annotations are sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckOutput {
    pub title: String,
    /// Markdown, at most 65,535 characters.
    pub summary: String,
    /// Markdown details, at most 65,535 characters.
    pub text: Option<String>,
}

/// A check run to create.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewCheckRun {
    pub name: String,
    pub head_sha: CommitSha,
    pub status: CheckStatus,
    /// Required with [`CheckStatus::Completed`] (giving one completes the run).
    pub conclusion: Option<CheckConclusion>,
    /// Our reference for the run.
    pub external_id: Option<String>,
    pub details_url: Option<String>,
    pub output: Option<CheckOutput>,
}

/// Changes to a check run; `None` leaves a field as it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckRunUpdate {
    pub status: Option<CheckStatus>,
    pub conclusion: Option<CheckConclusion>,
    pub output: Option<CheckOutput>,
}

/// A check run as GitHub describes it (only the fields we use).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckRun {
    pub id: CheckRunId,
    pub name: String,
    pub head_sha: CommitSha,
    pub status: CheckStatus,
    pub conclusion: Option<CheckConclusion>,
    pub external_id: Option<String>,
    /// The App that made it.
    pub app_id: Option<u64>,
    pub title: Option<String>,
    pub summary: Option<String>,
    pub annotations_count: u64,
    pub html_url: Option<String>,
}

#[derive(Deserialize)]
struct CheckRunJson {
    id: u64,
    name: String,
    head_sha: String,
    status: CheckStatus,
    conclusion: Option<CheckConclusion>,
    external_id: Option<String>,
    app: Option<AppJson>,
    output: Option<OutputJson>,
    html_url: Option<String>,
}

#[derive(Deserialize)]
struct AppJson {
    id: u64,
}

#[derive(Deserialize)]
struct OutputJson {
    title: Option<String>,
    summary: Option<String>,
    #[serde(default)]
    annotations_count: u64,
}

impl From<CheckRunJson> for CheckRun {
    fn from(j: CheckRunJson) -> CheckRun {
        let (title, summary, annotations_count) = match j.output {
            Some(o) => (o.title, o.summary, o.annotations_count),
            None => (None, None, 0),
        };
        CheckRun {
            id: CheckRunId(j.id),
            name: j.name,
            head_sha: CommitSha(j.head_sha),
            status: j.status,
            conclusion: j.conclusion,
            external_id: j.external_id.filter(|e| !e.is_empty()),
            app_id: j.app.map(|a| a.id),
            title,
            summary,
            annotations_count,
            html_url: j.html_url,
        }
    }
}

#[derive(Deserialize)]
struct CheckRunsPage {
    check_runs: Vec<CheckRunJson>,
}

/// An annotation as GitHub lists it back (absent texts may come as `""` or `null`).
#[derive(Deserialize)]
struct AnnotationJson {
    path: String,
    start_line: u32,
    end_line: u32,
    annotation_level: Option<AnnotationLevel>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    raw_details: Option<String>,
}

impl AnnotationJson {
    fn into_annotation(self) -> Option<Annotation> {
        let non_empty = |s: Option<String>| s.filter(|s| !s.is_empty());
        Some(Annotation {
            path: self.path,
            start_line: self.start_line,
            end_line: self.end_line,
            level: self.annotation_level?,
            message: self.message.unwrap_or_default(),
            title: non_empty(self.title),
            raw_details: non_empty(self.raw_details),
        })
    }
}

/// What identifies an annotation when comparing ours with what GitHub has.
fn annotation_key(a: &Annotation) -> (String, u32, u32, AnnotationLevel, String, String) {
    (
        a.path.clone(),
        a.start_line,
        a.end_line,
        a.level,
        a.message.clone(),
        a.title.clone().unwrap_or_default(),
    )
}

/// `wanted` less what `present` already holds (as multisets), in `wanted`'s order.
fn missing_annotations(wanted: &[Annotation], present: &[Annotation]) -> Vec<Annotation> {
    let mut have: HashMap<_, usize> = HashMap::new();
    for a in present {
        *have.entry(annotation_key(a)).or_default() += 1;
    }
    wanted
        .iter()
        .filter(|a| match have.get_mut(&annotation_key(a)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

fn output_json(output: &CheckOutput, annotations: &[Annotation]) -> Value {
    let mut o = json!({ "title": output.title, "summary": output.summary });
    if let Some(text) = &output.text {
        o["text"] = json!(text);
    }
    if !annotations.is_empty() {
        o["annotations"] = json!(annotations);
    }
    o
}

fn check_output(
    what: &str,
    output: Option<&CheckOutput>,
    annotations: &[Annotation],
) -> Result<()> {
    if let Some(output) = output {
        check_length(
            what,
            "check run summary",
            &output.summary,
            MAX_CHECK_TEXT_CHARS,
        )?;
        if let Some(text) = &output.text {
            check_length(what, "check run text", text, MAX_CHECK_TEXT_CHARS)?;
        }
    } else if !annotations.is_empty() {
        return Err(GithubError::Invalid {
            what: what.to_string(),
            message: "annotations are sent in the output: give a title and a summary".into(),
        });
    }
    for a in annotations {
        if let Some(title) = &a.title {
            check_length(what, "annotation title", title, MAX_ANNOTATION_TITLE_CHARS)?;
        }
        for (field, text) in [
            ("annotation message", Some(&a.message)),
            ("annotation raw details", a.raw_details.as_ref()),
        ] {
            if let Some(text) = text.filter(|t| t.len() > MAX_ANNOTATION_BYTES) {
                return Err(GithubError::TooLong {
                    what: what.to_string(),
                    field: format!("{field} (bytes)"),
                    chars: text.len(),
                    limit: MAX_ANNOTATION_BYTES,
                });
            }
        }
        if a.start_line == 0 || a.end_line < a.start_line {
            return Err(GithubError::Invalid {
                what: what.to_string(),
                message: format!(
                    "annotation on {} lines {}-{}: lines start at 1 and end_line may not precede start_line",
                    a.path, a.start_line, a.end_line
                ),
            });
        }
    }
    Ok(())
}

impl Installation {
    /// `POST /repos/{owner}/{repo}/check-runs` with the first 50 annotations, then
    /// `PATCH .../check-runs/{id}` with each further 50 (GitHub appends them). Needs
    /// `run.output` when there are annotations. Not retried after a 5xx or a timeout
    /// ([`GithubError::WriteOutcomeUnknown`]); [`publish_check_run`](Self::publish_check_run)
    /// recovers from that.
    pub async fn create_check_run(
        &self,
        repo: &RepoName,
        run: &NewCheckRun,
        annotations: &[Annotation],
    ) -> Result<CheckRun> {
        let annotations = &fitted(annotations);
        let first = annotations.len().min(MAX_ANNOTATIONS_PER_REQUEST);
        let created = self
            .post_check_run(repo, run, &annotations[..first])
            .await?;
        match &run.output {
            Some(output) if first < annotations.len() => {
                self.append_annotations(repo, created.id, output, &annotations[first..])
                    .await
            }
            _ => Ok(created),
        }
    }

    async fn post_check_run(
        &self,
        repo: &RepoName,
        run: &NewCheckRun,
        annotations: &[Annotation],
    ) -> Result<CheckRun> {
        let route = format!("{}/check-runs", repo.route());
        let mut body = json!({
            "name": run.name,
            "head_sha": run.head_sha.as_str(),
            "status": run.status,
        });
        if let Some(c) = run.conclusion {
            body["conclusion"] = json!(c);
        }
        if let Some(e) = &run.external_id {
            body["external_id"] = json!(e);
        }
        if let Some(u) = &run.details_url {
            body["details_url"] = json!(u);
        }
        if let Some(o) = &run.output {
            body["output"] = output_json(o, annotations);
        }
        let call = Call::post(route, body, RetryMode::NotIdempotent);
        check_output(&call.what(), run.output.as_ref(), annotations)?;
        let got = self.sender().send_buffered(&call).await?;
        Ok(got.json::<CheckRunJson>(&call.what())?.into())
    }

    /// `PATCH /repos/{owner}/{repo}/check-runs/{id}`: the changes in `update` with the first
    /// 50 annotations, then further PATCHes of 50 each (GitHub appends annotations, so a
    /// PATCH that carries some is not retried after a 5xx or a timeout). Needs
    /// `update.output` when there are annotations.
    pub async fn update_check_run(
        &self,
        repo: &RepoName,
        id: CheckRunId,
        update: &CheckRunUpdate,
        annotations: &[Annotation],
    ) -> Result<CheckRun> {
        let annotations = &fitted(annotations);
        let first = annotations.len().min(MAX_ANNOTATIONS_PER_REQUEST);
        let updated = self
            .patch_check_run(repo, id, update, &annotations[..first])
            .await?;
        match &update.output {
            Some(output) if first < annotations.len() => {
                self.append_annotations(repo, id, output, &annotations[first..])
                    .await
            }
            _ => Ok(updated),
        }
    }

    async fn patch_check_run(
        &self,
        repo: &RepoName,
        id: CheckRunId,
        update: &CheckRunUpdate,
        annotations: &[Annotation],
    ) -> Result<CheckRun> {
        let route = format!("{}/check-runs/{}", repo.route(), id.0);
        let mut body = json!({});
        if let Some(s) = update.status {
            body["status"] = json!(s);
        }
        if let Some(c) = update.conclusion {
            body["conclusion"] = json!(c);
        }
        if let Some(o) = &update.output {
            body["output"] = output_json(o, annotations);
        }
        let mode = if annotations.is_empty() {
            RetryMode::Idempotent
        } else {
            RetryMode::NotIdempotent
        };
        let call = Call::patch(route, body, mode);
        check_output(&call.what(), update.output.as_ref(), annotations)?;
        let got = self.sender().send_buffered(&call).await?;
        Ok(got.json::<CheckRunJson>(&call.what())?.into())
    }

    /// Appends `annotations` to run `id`, 50 per PATCH, each with `output` (GitHub wants a
    /// title and summary with them).
    async fn append_annotations(
        &self,
        repo: &RepoName,
        id: CheckRunId,
        output: &CheckOutput,
        annotations: &[Annotation],
    ) -> Result<CheckRun> {
        let update = CheckRunUpdate {
            output: Some(output.clone()),
            ..CheckRunUpdate::default()
        };
        let mut last = None;
        for batch in annotations.chunks(MAX_ANNOTATIONS_PER_REQUEST) {
            last = Some(self.patch_check_run(repo, id, &update, batch).await?);
        }
        last.ok_or_else(|| GithubError::Invalid {
            what: format!("PATCH {}/check-runs/{}", repo.route(), id.0),
            message: "no annotations to append".into(),
        })
    }

    /// `GET /repos/{owner}/{repo}/commits/{ref}/check-runs?filter=all`, every page: the
    /// check runs of every App on a commit (or a branch's head), only those named `name` if
    /// given.
    pub async fn list_check_runs_for_ref(
        &self,
        repo: &RepoName,
        git_ref: &str,
        name: Option<&str>,
    ) -> Result<Vec<CheckRun>> {
        self.check_runs_for_ref(repo, git_ref, name, None).await
    }

    async fn check_runs_for_ref(
        &self,
        repo: &RepoName,
        git_ref: &str,
        name: Option<&str>,
        app_id: Option<u64>,
    ) -> Result<Vec<CheckRun>> {
        let mut route = format!(
            "{}/commits/{}/check-runs?filter=all",
            repo.route(),
            encode_path(git_ref, false)
        );
        if let Some(name) = name {
            route = with_query(&route, &format!("check_name={}", encode_path(name, false)));
        }
        if let Some(app_id) = app_id {
            route = with_query(&route, &format!("app_id={app_id}"));
        }
        self.sender()
            .get_all_pages(&route, |page: CheckRunsPage| {
                page.check_runs.into_iter().map(CheckRun::from).collect()
            })
            .await
    }

    /// Our App's newest check run named `name` on commit `head_sha`, if there is one (after
    /// a crash: so a commit never gets two runs of ours).
    pub async fn find_check_run(
        &self,
        repo: &RepoName,
        head_sha: &CommitSha,
        name: &str,
    ) -> Result<Option<CheckRun>> {
        let ours = self.app_id();
        let runs = self
            .check_runs_for_ref(repo, head_sha.as_str(), Some(name), Some(ours))
            .await?;
        Ok(runs
            .into_iter()
            .filter(|r| r.app_id == Some(ours) && r.name == name && &r.head_sha == head_sha)
            .max_by_key(|r| r.id))
    }

    /// `GET /repos/{owner}/{repo}/check-runs/{id}/annotations`, every page.
    pub async fn list_check_run_annotations(
        &self,
        repo: &RepoName,
        id: CheckRunId,
    ) -> Result<Vec<Annotation>> {
        let route = format!("{}/check-runs/{}/annotations", repo.route(), id.0);
        self.sender()
            .get_all_pages(&route, |page: Vec<AnnotationJson>| {
                page.into_iter()
                    .filter_map(AnnotationJson::into_annotation)
                    .collect()
            })
            .await
    }

    /// The one check run of ours named `run.name` on `run.head_sha`, as `run` says, with
    /// `annotations`: created if there is none (first 50 annotations with it), else updated;
    /// then the annotations it lacks appended, 50 per request. Safe to call again after a
    /// crash or an error: an existing run is reused and annotations GitHub already has are
    /// not sent twice; after a 5xx or a timeout on a write, what GitHub has is read again
    /// before anything is re-sent.
    pub async fn publish_check_run(
        &self,
        repo: &RepoName,
        run: &NewCheckRun,
        annotations: &[Annotation],
    ) -> Result<CheckRun> {
        let annotations = &fitted(annotations);
        let what = format!("POST {}/check-runs", repo.route());
        check_output(&what, run.output.as_ref(), annotations)?;
        let first = annotations.len().min(MAX_ANNOTATIONS_PER_REQUEST);
        let mut unknown = 0;
        let (mut current, fresh) = self
            .find_or_create_check_run(repo, run, &annotations[..first], &mut unknown)
            .await?;
        let Some(output) = &run.output else {
            if fresh {
                return Ok(current);
            }
            let update = CheckRunUpdate {
                status: Some(run.status),
                conclusion: run.conclusion,
                output: None,
            };
            return self.patch_check_run(repo, current.id, &update, &[]).await;
        };
        let missing = if fresh {
            annotations[first..].to_vec()
        } else {
            let update = CheckRunUpdate {
                status: Some(run.status),
                conclusion: run.conclusion,
                output: Some(output.clone()),
            };
            current = self.patch_check_run(repo, current.id, &update, &[]).await?;
            let present = self.list_check_run_annotations(repo, current.id).await?;
            missing_annotations(annotations, &present)
        };
        let update = CheckRunUpdate {
            output: Some(output.clone()),
            ..CheckRunUpdate::default()
        };
        self.append_missing(repo, current, &update, annotations, missing, &mut unknown)
            .await
    }

    /// Our check run named `run.name` on `run.head_sha`, and whether it was made now
    /// (with `annotations`). A creation whose outcome is unknown is looked for before it
    /// is tried again; `unknown` counts them.
    async fn find_or_create_check_run(
        &self,
        repo: &RepoName,
        run: &NewCheckRun,
        annotations: &[Annotation],
        unknown: &mut u32,
    ) -> Result<(CheckRun, bool)> {
        loop {
            if let Some(existing) = self.find_check_run(repo, &run.head_sha, &run.name).await? {
                return Ok((existing, false));
            }
            match self.post_check_run(repo, run, annotations).await {
                Ok(created) => return Ok((created, true)),
                Err(GithubError::WriteOutcomeUnknown { what, message }) => {
                    *unknown += 1;
                    tracing::warn!(%what, %message, "creating a check run may have failed: looking for it");
                    if *unknown >= MAX_UNKNOWN_OUTCOMES {
                        if let Some(r) = self.find_check_run(repo, &run.head_sha, &run.name).await?
                        {
                            return Ok((r, false));
                        }
                        return Err(GithubError::WriteOutcomeUnknown { what, message });
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Appends `missing` (of `annotations`) to `current`, 50 per request; after a write
    /// whose outcome is unknown, what GitHub has is read again first.
    async fn append_missing(
        &self,
        repo: &RepoName,
        mut current: CheckRun,
        update: &CheckRunUpdate,
        annotations: &[Annotation],
        mut missing: Vec<Annotation>,
        unknown: &mut u32,
    ) -> Result<CheckRun> {
        while !missing.is_empty() {
            let n = missing.len().min(MAX_ANNOTATIONS_PER_REQUEST);
            match self
                .patch_check_run(repo, current.id, update, &missing[..n])
                .await
            {
                Ok(updated) => {
                    current = updated;
                    missing.drain(..n);
                }
                Err(GithubError::WriteOutcomeUnknown { what, message }) => {
                    *unknown += 1;
                    tracing::warn!(%what, %message, "appending annotations may have failed: reading them back");
                    if *unknown > MAX_UNKNOWN_OUTCOMES {
                        return Err(GithubError::WriteOutcomeUnknown { what, message });
                    }
                    let present = self.list_check_run_annotations(repo, current.id).await?;
                    missing = missing_annotations(annotations, &present);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(line: u32, message: &str) -> Annotation {
        Annotation {
            path: "src/a.js".into(),
            start_line: line,
            end_line: line,
            level: AnnotationLevel::Warning,
            message: message.into(),
            title: None,
            raw_details: None,
        }
    }

    #[test]
    fn annotation_texts_lose_control_and_bidi_characters() {
        let a = Annotation {
            path: "src/a.ts".into(),
            start_line: 1,
            end_line: 1,
            level: AnnotationLevel::Notice,
            message: "calls\u{202E}nimda\u{202C} from\r\n\tb\u{7}\u{1b}[31m".into(),
            title: Some("f\u{2066}x\u{2069}\u{200F}\u{061C}\u{85}\u{0}".into()),
            raw_details: Some("\u{200E}ok\u{9b}\nline".into()),
        }
        .fitted();
        assert_eq!(a.message, "callsnimda from\n\tb[31m");
        assert_eq!(a.title.as_deref(), Some("fx"));
        assert_eq!(a.raw_details.as_deref(), Some("ok\nline"));
        // Plain text, accents and other scripts stay as they are.
        assert_eq!(cleaned("héllo – 名前 שלום"), "héllo – 名前 שלום");
    }

    #[test]
    fn missing_annotations_are_a_multiset_difference() {
        let wanted = vec![note(1, "a"), note(2, "b"), note(2, "b"), note(3, "c")];
        let present = vec![note(2, "b"), note(1, "a")];
        assert_eq!(
            missing_annotations(&wanted, &present),
            vec![note(2, "b"), note(3, "c")]
        );
        assert!(missing_annotations(&wanted, &wanted).is_empty());
    }

    #[test]
    fn annotations_serialize_as_github_names_them() {
        let mut a = note(4, "called here");
        a.title = Some("caller".into());
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(v["annotation_level"], "warning");
        assert_eq!(v["title"], "caller");
        assert!(v.get("raw_details").is_none());
        assert_eq!(json!(CheckStatus::InProgress), "in_progress");
        assert_eq!(json!(CheckConclusion::ActionRequired), "action_required");
    }

    #[test]
    fn listed_annotations_with_empty_texts_compare_equal() {
        let listed: AnnotationJson = serde_json::from_str(
            r#"{"path":"src/a.js","start_line":4,"end_line":4,"start_column":null,"annotation_level":"warning","title":"","message":"m","raw_details":null,"blob_href":"x"}"#,
        )
        .unwrap();
        assert_eq!(listed.into_annotation(), Some(note(4, "m")));
    }

    #[test]
    fn annotations_need_an_output_and_sane_lines() {
        let err = check_output("POST x", None, &[note(1, "m")]).unwrap_err();
        assert!(err.to_string().contains("title and a summary"), "{err}");
        let output = CheckOutput {
            title: "t".into(),
            summary: "s".into(),
            text: None,
        };
        let err = check_output("POST x", Some(&output), &[note(0, "m")]).unwrap_err();
        assert!(matches!(err, GithubError::Invalid { .. }), "{err}");
        let long = CheckOutput {
            summary: "x".repeat(MAX_CHECK_TEXT_CHARS + 1),
            ..output
        };
        let err = check_output("POST x", Some(&long), &[]).unwrap_err();
        assert!(
            matches!(err, GithubError::TooLong { limit: 65_535, .. }),
            "{err}"
        );
    }
}
