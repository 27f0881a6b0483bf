//! Check runs: create, update (annotations appended, at most 50 per request as GitHub
//! allows), get, list for a commit, list annotations.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use chrono::Utc;
use serde_json::{json, Value};

use super::git;
use super::model::{FakeCheckRun, Repo, Shared};
use super::routes::{
    app_json, blocking, message, not_found, paginate, parse_json, time, unprocessable,
    validation_failed, visible_repo, with_link, Caller, Params, St,
};

const MAX_ANNOTATIONS: usize = 50;
const MAX_TEXT_CHARS: usize = 65_535;
const STATUSES: [&str; 3] = ["queued", "in_progress", "completed"];
const CONCLUSIONS: [&str; 7] = [
    "action_required",
    "cancelled",
    "failure",
    "neutral",
    "success",
    "skipped",
    "timed_out",
];

pub(super) fn routes(r: Router<Arc<Shared>>) -> Router<Arc<Shared>> {
    r.route("/repos/{owner}/{name}/check-runs", post(create_run))
        .route(
            "/repos/{owner}/{name}/check-runs/{id}",
            get(get_run).patch(update_run),
        )
        .route(
            "/repos/{owner}/{name}/check-runs/{id}/annotations",
            get(list_annotations),
        )
        .route(
            "/repos/{owner}/{name}/commits/{reference}/check-runs",
            get(runs_for_ref),
        )
}

fn run_json(st: &Shared, repo: &Repo, r: &FakeCheckRun) -> Value {
    let url = format!(
        "{}/repos/{}/check-runs/{}",
        st.api_root(),
        repo.full_name(),
        r.id
    );
    let mut app = app_json(st);
    app["id"] = json!(r.app_id);
    json!({
        "id": r.id,
        "node_id": format!("CR_{}", r.id),
        "head_sha": r.head_sha,
        "external_id": r.external_id.clone().unwrap_or_default(),
        "url": url,
        "html_url": format!("https://github.com/{}/runs/{}", repo.full_name(), r.id),
        "details_url": r.details_url,
        "status": r.status,
        "conclusion": r.conclusion,
        "started_at": time(r.started_at),
        "completed_at": r.completed_at.map(time),
        "output": {
            "title": r.title,
            "summary": r.summary,
            "text": r.text,
            "annotations_count": r.annotations.len(),
            "annotations_url": format!("{url}/annotations"),
        },
        "name": r.name,
        "check_suite": {"id": 1},
        "app": app,
        "pull_requests": [],
    })
}

/// Checks one request's `output` (`need_title`: on create, or when the run has none yet)
/// and returns its annotations.
#[allow(clippy::result_large_err)]
fn check_output(output: &Value, need_title: bool) -> Result<Vec<Value>, Response> {
    if output.is_null() {
        return Ok(Vec::new());
    }
    if output["summary"].as_str().is_none() || (need_title && output["title"].as_str().is_none()) {
        return Err(unprocessable(&[
            "Invalid request: output requires a title and a summary",
        ]));
    }
    for field in ["summary", "text"] {
        if output[field]
            .as_str()
            .is_some_and(|t| t.chars().count() > MAX_TEXT_CHARS)
        {
            return Err(validation_failed(
                "CheckRun",
                field,
                &format!("{field} is too long (maximum is 65535 characters)"),
            ));
        }
    }
    let annotations = output["annotations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if annotations.len() > MAX_ANNOTATIONS {
        return Err(validation_failed(
            "CheckRun",
            "annotations",
            "Only 50 annotations are allowed per request",
        ));
    }
    for a in &annotations {
        let level = a["annotation_level"].as_str().unwrap_or_default();
        let ok = a["path"].is_string()
            && a["start_line"].as_u64().is_some_and(|l| l >= 1)
            && a["end_line"].as_u64() >= a["start_line"].as_u64()
            && a["message"].is_string()
            && ["notice", "warning", "failure"].contains(&level);
        if !ok {
            return Err(unprocessable(&[
                "Invalid request: an annotation needs path, start_line, end_line, annotation_level (notice, warning, failure) and message",
            ]));
        }
    }
    Ok(annotations)
}

/// Applies `status`, `conclusion` and `output` of a request to `run`.
#[allow(clippy::result_large_err)]
fn apply(run: &mut FakeCheckRun, body: &Value, annotations: Vec<Value>) -> Result<(), Response> {
    if let Some(status) = body.get("status").and_then(Value::as_str) {
        if !STATUSES.contains(&status) {
            return Err(unprocessable(&["Invalid status"]));
        }
        run.status = status.to_string();
    }
    if let Some(conclusion) = body.get("conclusion").and_then(Value::as_str) {
        if !CONCLUSIONS.contains(&conclusion) {
            return Err(unprocessable(&["Invalid conclusion"]));
        }
        run.conclusion = Some(conclusion.to_string());
        run.status = "completed".into();
    }
    if run.status == "completed" {
        if run.conclusion.is_none() {
            return Err(unprocessable(&[
                "Invalid request: conclusion is required when status is completed",
            ]));
        }
        run.completed_at.get_or_insert_with(Utc::now);
    }
    for (field, slot) in [
        ("external_id", &mut run.external_id),
        ("details_url", &mut run.details_url),
    ] {
        if let Some(v) = body.get(field).and_then(Value::as_str) {
            *slot = Some(v.to_string());
        }
    }
    let output = &body["output"];
    if !output.is_null() {
        if let Some(t) = output["title"].as_str() {
            run.title = Some(t.to_string());
        }
        if let Some(s) = output["summary"].as_str() {
            run.summary = Some(s.to_string());
        }
        if let Some(t) = output["text"].as_str() {
            run.text = Some(t.to_string());
        }
    }
    run.annotation_batches.push(annotations.len());
    run.annotations.extend(annotations);
    Ok(())
}

async fn create_run(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name)): Path<(String, String)>,
    bytes: Bytes,
) -> Response {
    let repo = match visible_repo(&st, caller, &owner, &name, "/check-runs") {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    let body = match parse_json(&bytes) {
        Ok(b) => b,
        Err(answer) => return answer,
    };
    let (Some(run_name), Some(head)) = (body["name"].as_str(), body["head_sha"].as_str()) else {
        return unprocessable(&["Invalid request: name and head_sha are required"]);
    };
    let annotations = match check_output(&body["output"], true) {
        Ok(a) => a,
        Err(answer) => return answer,
    };
    let dir = repo.dir.clone();
    let wanted = head.to_string();
    let Some(head_sha) = blocking(move || git::resolve_commit(&dir, &wanted)).await else {
        return unprocessable(&[&format!("No commit found for SHA: {head}")]);
    };
    if head_sha != head {
        return unprocessable(&[&format!("No commit found for SHA: {head}")]);
    }
    let mut run = FakeCheckRun {
        id: 0,
        repo_id: repo.id,
        app_id: st.app_id,
        name: run_name.to_string(),
        head_sha,
        status: "queued".into(),
        conclusion: None,
        external_id: None,
        details_url: None,
        title: None,
        summary: None,
        text: None,
        annotations: Vec::new(),
        annotation_batches: Vec::new(),
        started_at: Utc::now(),
        completed_at: None,
    };
    if let Err(answer) = apply(&mut run, &body, annotations) {
        return answer;
    }
    {
        let mut m = st.model.lock().unwrap();
        run.id = m.new_id();
        m.check_runs.insert(run.id, run.clone());
    }
    (StatusCode::CREATED, Json(run_json(&st, &repo, &run))).into_response()
}

/// The repository and run `id` in it.
#[allow(clippy::result_large_err)]
fn run_in(
    st: &Shared,
    caller: Caller,
    owner: &str,
    name: &str,
    id: u64,
) -> Result<(Repo, FakeCheckRun), Response> {
    let repo = visible_repo(st, caller, owner, name, &format!("/check-runs/{id}"))?;
    let run = st.model.lock().unwrap().check_runs.get(&id).cloned();
    match run {
        Some(r) if r.repo_id == repo.id => Ok((repo, r)),
        _ => Err(not_found()),
    }
}

async fn get_run(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, id)): Path<(String, String, u64)>,
) -> Response {
    match run_in(&st, caller, &owner, &name, id) {
        Ok((repo, run)) => Json(run_json(&st, &repo, &run)).into_response(),
        Err(answer) => answer,
    }
}

async fn update_run(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, id)): Path<(String, String, u64)>,
    bytes: Bytes,
) -> Response {
    let (repo, mut run) = match run_in(&st, caller, &owner, &name, id) {
        Ok(found) => found,
        Err(answer) => return answer,
    };
    if run.app_id != st.app_id {
        let text = format!(
            "Invalid app_id `{}` - check run can only be modified by the GitHub App that created it.",
            st.app_id
        );
        return message(StatusCode::FORBIDDEN, &text);
    }
    let body = match parse_json(&bytes) {
        Ok(b) => b,
        Err(answer) => return answer,
    };
    let annotations = match check_output(&body["output"], run.title.is_none()) {
        Ok(a) => a,
        Err(answer) => return answer,
    };
    if let Some(n) = body.get("name").and_then(Value::as_str) {
        run.name = n.to_string();
    }
    if let Err(answer) = apply(&mut run, &body, annotations) {
        return answer;
    }
    st.model
        .lock()
        .unwrap()
        .check_runs
        .insert(run.id, run.clone());
    Json(run_json(&st, &repo, &run)).into_response()
}

async fn list_annotations(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, id)): Path<(String, String, u64)>,
    Query(params): Params,
) -> Response {
    let (repo, run) = match run_in(&st, caller, &owner, &name, id) {
        Ok(found) => found,
        Err(answer) => return answer,
    };
    let listed: Vec<Value> = run
        .annotations
        .iter()
        .map(|a| {
            json!({
                "path": a["path"],
                "blob_href": format!("https://github.com/{}/blob/{}/{}", repo.full_name(), run.head_sha, a["path"].as_str().unwrap_or_default()),
                "start_line": a["start_line"],
                "end_line": a["end_line"],
                "start_column": a.get("start_column").cloned().unwrap_or(Value::Null),
                "end_column": a.get("end_column").cloned().unwrap_or(Value::Null),
                "annotation_level": a["annotation_level"],
                // GitHub gives an absent title as "" and absent details as null.
                "title": a.get("title").cloned().unwrap_or(json!("")),
                "message": a["message"],
                "raw_details": a.get("raw_details").cloned().unwrap_or(Value::Null),
            })
        })
        .collect();
    let path = format!("/repos/{}/check-runs/{id}/annotations", repo.full_name());
    let (page, link) = paginate(&st, &listed, &params, &path);
    with_link(Value::Array(page), link)
}

async fn runs_for_ref(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, reference)): Path<(String, String, String)>,
    Query(params): Params,
) -> Response {
    let repo = match visible_repo(
        &st,
        caller,
        &owner,
        &name,
        &format!("/commits/{reference}/check-runs"),
    ) {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    let dir = repo.dir.clone();
    let r = reference.clone();
    let Some(sha) = blocking(move || git::resolve_commit(&dir, &r)).await else {
        return unprocessable(&[&format!("No commit found for SHA: {reference}")]);
    };
    let latest = params.get("filter").is_none_or(|f| f == "latest");
    let app_id = params.get("app_id").and_then(|a| a.parse::<u64>().ok());
    let mut runs: Vec<FakeCheckRun> = {
        let m = st.model.lock().unwrap();
        m.check_runs
            .values()
            .filter(|r| r.repo_id == repo.id && r.head_sha == sha)
            .filter(|r| params.get("check_name").is_none_or(|n| *n == r.name))
            .filter(|r| app_id.is_none_or(|a| a == r.app_id))
            .filter(|r| params.get("status").is_none_or(|s| *s == r.status))
            .cloned()
            .collect()
    };
    runs.sort_by_key(|r| std::cmp::Reverse(r.id));
    if latest {
        let mut seen = std::collections::HashSet::new();
        runs.retain(|r| seen.insert((r.name.clone(), r.app_id)));
    }
    let total = runs.len();
    let path = format!("/repos/{}/commits/{reference}/check-runs", repo.full_name());
    let (page, link) = paginate(&st, &runs, &params, &path);
    let body: Vec<Value> = page.iter().map(|r| run_json(&st, &repo, r)).collect();
    with_link(json!({"total_count": total, "check_runs": body}), link)
}
