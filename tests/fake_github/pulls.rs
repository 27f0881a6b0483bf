//! Pull requests: the PR (head and base read from the branches at each request, GitHub's
//! test merge made as a real merge commit), its files (real `git diff` patches between the
//! merge base and the head), reviews with inline comments checked against the diff as
//! GitHub checks them, review comments and their reactions.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use chrono::Utc;
use serde_json::{json, Value};

use super::git::{self, FileDiff};
use super::issues::react;
use super::model::{Author, FakeReview, FakeReviewComment, PullRequest, Repo, Shared, TestMerge};
use super::routes::{
    author_of, blocking, not_found, paginate, parse_json, repo_json, time, unprocessable,
    user_json, validation_failed, visible_repo, with_link, Caller, Params, St, MAX_BODY_CHARS,
};

pub(super) fn routes(r: Router<Arc<Shared>>) -> Router<Arc<Shared>> {
    r.route("/repos/{owner}/{name}/pulls", get(list_pulls))
        .route("/repos/{owner}/{name}/pulls/{number}", get(get_pull))
        .route(
            "/repos/{owner}/{name}/pulls/{number}/files",
            get(pull_files),
        )
        .route(
            "/repos/{owner}/{name}/pulls/{number}/reviews",
            get(list_reviews).post(create_review),
        )
        .route(
            "/repos/{owner}/{name}/pulls/{number}/comments",
            get(list_review_comments),
        )
        .route(
            "/repos/{owner}/{name}/pulls/comments/{id}/reactions",
            post(react_to_review_comment),
        )
}

/// A pull request with its repositories and current shas.
pub(super) struct PrCtx {
    pub repo: Repo,
    pub head_repo: Repo,
    pub pr: PullRequest,
    pub base_sha: String,
    pub head_sha: String,
}

/// The pull request `number` of `owner/name` as `caller` sees it, with `refs/pull/N/head`
/// brought up to date (fetched from the fork's directory when the head lives elsewhere).
#[allow(clippy::result_large_err)]
pub(super) async fn pr_context(
    st: &Arc<Shared>,
    caller: Caller,
    owner: &str,
    name: &str,
    number: u64,
) -> Result<PrCtx, Response> {
    let repo = visible_repo(st, caller, owner, name, &format!("/pulls/{number}"))?;
    let (pr, head_repo) = {
        let m = st.model.lock().unwrap();
        let pr = m
            .pulls
            .get(&(repo.id, number))
            .cloned()
            .ok_or_else(not_found)?;
        let head_repo = m
            .repos
            .get(&pr.head_repo_id)
            .cloned()
            .ok_or_else(not_found)?;
        (pr, head_repo)
    };
    let (dir, head_dir) = (repo.dir.clone(), head_repo.dir.clone());
    let (base_ref, head_ref) = (pr.base_ref.clone(), pr.head_ref.clone());
    let pull_ref = format!("refs/pull/{number}/head");
    let shas = blocking(move || -> Option<(String, String)> {
        let base = git::resolve_commit(&dir, &format!("refs/heads/{base_ref}"))?;
        if head_dir == dir {
            if let Some(head) = git::resolve_commit(&dir, &format!("refs/heads/{head_ref}")) {
                git::update_ref(&dir, &pull_ref, &head).ok()?;
            }
        } else {
            let spec = format!("+refs/heads/{head_ref}:{pull_ref}");
            let from = head_dir.to_string_lossy().into_owned();
            let _ = git::run(&dir, &["fetch", "-q", &from, &spec]);
        }
        let head = git::resolve_commit(&dir, &pull_ref)?;
        Some((base, head))
    })
    .await;
    let (base_sha, head_sha) = shas.ok_or_else(not_found)?;
    Ok(PrCtx {
        repo,
        head_repo,
        pr,
        base_sha,
        head_sha,
    })
}

/// The files changed between the merge base of `base` and `head`, and `head` (cached).
pub(super) async fn files_between(
    st: &Arc<Shared>,
    repo: &Repo,
    base: &str,
    head: &str,
) -> Option<Arc<Vec<FileDiff>>> {
    let dir = repo.dir.clone();
    let (b, h) = (base.to_string(), head.to_string());
    let merge_base = blocking(move || git::merge_base(&dir, &b, &h)).await?;
    let key = (repo.dir.clone(), merge_base.clone(), head.to_string());
    if let Some(files) = st.model.lock().unwrap().diffs.get(&key) {
        return Some(files.clone());
    }
    let dir = repo.dir.clone();
    let h = head.to_string();
    let files = blocking(move || git::diff_files(&dir, &merge_base, &h))
        .await
        .ok()?;
    let files = Arc::new(files);
    st.model.lock().unwrap().diffs.insert(key, files.clone());
    Some(files)
}

/// Computes PR `number`'s test merge and file list now, as GitHub does in the background
/// when a pull request opens or its branch moves (same-repository PRs).
pub(super) async fn prepare(st: &Arc<Shared>, repo: &Repo, number: u64) {
    let pr = st
        .model
        .lock()
        .unwrap()
        .pulls
        .get(&(repo.id, number))
        .cloned();
    let Some(pr) = pr else { return };
    let dir = repo.dir.clone();
    let shas = blocking(move || {
        let base = git::resolve_commit(&dir, &format!("refs/heads/{}", pr.base_ref))?;
        let head = git::resolve_commit(&dir, &format!("refs/heads/{}", pr.head_ref))?;
        Some((base, head))
    })
    .await;
    if let Some((base, head)) = shas {
        test_merge(st, repo, number, &base, &head).await;
        files_between(st, repo, &base, &head).await;
    }
}

/// GitHub's test merge of `head` into `base` (cached), also kept as `refs/pull/N/merge`.
async fn test_merge(
    st: &Arc<Shared>,
    repo: &Repo,
    number: u64,
    base: &str,
    head: &str,
) -> TestMerge {
    let key = (repo.dir.clone(), base.to_string(), head.to_string());
    if let Some(done) = st.model.lock().unwrap().merges.get(&key) {
        return done.clone();
    }
    let dir = repo.dir.clone();
    let (b, h) = (base.to_string(), head.to_string());
    let commit = blocking(move || {
        let commit = git::test_merge(&dir, &b, &h).expect("git merge-tree");
        if let Some(c) = &commit {
            git::update_ref(&dir, &format!("refs/pull/{number}/merge"), c).unwrap();
        }
        commit
    })
    .await;
    let merge = TestMerge { commit };
    st.model.lock().unwrap().merges.insert(key, merge.clone());
    merge
}

fn branch_json(st: &Shared, repo: &Repo, reference: &str, sha: &str) -> Value {
    json!({
        "label": format!("{}:{reference}", repo.owner),
        "ref": reference,
        "sha": sha,
        "user": {"login": repo.owner, "type": "Organization"},
        "repo": repo_json(st, repo, None),
    })
}

async fn get_pull(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, number)): Path<(String, String, u64)>,
) -> Response {
    let ctx = match pr_context(&st, caller, &owner, &name, number).await {
        Ok(ctx) => ctx,
        Err(answer) => return answer,
    };
    let open = ctx.pr.state == "open";
    let (mergeable, merge_sha) = if open {
        let merge = test_merge(&st, &ctx.repo, number, &ctx.base_sha, &ctx.head_sha).await;
        (Some(merge.commit.is_some()), merge.commit)
    } else {
        (None, None)
    };
    let mergeable = ctx.pr.mergeable_override.unwrap_or(mergeable);
    let mergeable_state = match mergeable {
        None => "unknown",
        Some(true) => "clean",
        Some(false) => "dirty",
    };
    let mut json = pull_json(&st, &ctx);
    json["mergeable"] = json!(mergeable);
    json["mergeable_state"] = json!(mergeable_state);
    json["merge_commit_sha"] = json!(merge_sha);
    Json(json).into_response()
}

/// A pull request as both the list and the single PR show it (the single one adds
/// `mergeable` and the test merge).
fn pull_json(st: &Shared, ctx: &PrCtx) -> Value {
    let number = ctx.pr.number;
    let user = Author {
        login: ctx.pr.user_login.clone(),
        kind: "User".into(),
    };
    let url = format!(
        "{}/repos/{}/pulls/{number}",
        st.api_root(),
        ctx.repo.full_name()
    );
    json!({
        "id": ctx.pr.id,
        "node_id": format!("PR_{}", ctx.pr.id),
        "number": number,
        "url": url,
        "html_url": format!("https://github.com/{}/pull/{number}", ctx.repo.full_name()),
        "state": ctx.pr.state,
        "locked": false,
        "title": format!("Pull request {number}"),
        "body": null,
        "user": user_json(&user),
        "draft": ctx.pr.draft,
        "merged": ctx.pr.merged,
        "merge_commit_sha": null,
        "head": branch_json(st, &ctx.head_repo, &ctx.pr.head_ref, &ctx.head_sha),
        "base": branch_json(st, &ctx.repo, &ctx.pr.base_ref, &ctx.base_sha),
        "author_association": "MEMBER",
        "created_at": "2024-01-01T00:00:00Z",
        "updated_at": time(ctx.pr.updated_at),
    })
}

/// `GET /repos/{owner}/{name}/pulls`: `state` (open by default), `sort=updated` with
/// `direction`, paged.
async fn list_pulls(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name)): Path<(String, String)>,
    Query(params): Params,
) -> Response {
    let repo = match visible_repo(&st, caller, &owner, &name, "/pulls") {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    let state = params
        .get("state")
        .map_or("open", String::as_str)
        .to_string();
    let mut pulls: Vec<PullRequest> = st
        .model
        .lock()
        .unwrap()
        .pulls
        .values()
        .filter(|p| p.repo_id == repo.id && (state == "all" || p.state == state))
        .cloned()
        .collect();
    pulls.sort_by_key(|p| (p.updated_at, p.number));
    if params.get("direction").map(String::as_str) != Some("asc") {
        pulls.reverse();
    }
    let mut all = Vec::new();
    for pr in pulls {
        if let Ok(ctx) = pr_context(&st, caller, &owner, &name, pr.number).await {
            all.push(pull_json(&st, &ctx));
        }
    }
    let (page, link) = paginate(&st, &all, &params, &format!("/repos/{owner}/{name}/pulls"));
    with_link(Value::Array(page), link)
}

fn file_json(st: &Shared, repo: &Repo, head: &str, f: &FileDiff) -> Value {
    let c = &f.change;
    let status = match c.status {
        'A' => "added",
        'D' => "removed",
        'R' => "renamed",
        'C' => "copied",
        'T' => "changed",
        _ => "modified",
    };
    let sha = if c.status == 'D' {
        &c.old_sha
    } else {
        &c.new_sha
    };
    let mut file = json!({
        "sha": sha,
        "filename": c.path,
        "status": status,
        "additions": f.additions,
        "deletions": f.deletions,
        "changes": f.additions + f.deletions,
        "blob_url": format!("https://github.com/{}/blob/{head}/{}", repo.full_name(), c.path),
        "raw_url": format!("https://github.com/{}/raw/{head}/{}", repo.full_name(), c.path),
        "contents_url": format!("{}/repos/{}/contents/{}?ref={head}", st.api_root(), repo.full_name(), c.path),
    });
    if let Some(patch) = &f.patch {
        file["patch"] = json!(patch);
    }
    if let Some(old) = &c.old_path {
        file["previous_filename"] = json!(old);
    }
    file
}

async fn pull_files(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, number)): Path<(String, String, u64)>,
    Query(params): Params,
) -> Response {
    let ctx = match pr_context(&st, caller, &owner, &name, number).await {
        Ok(ctx) => ctx,
        Err(answer) => return answer,
    };
    let Some(files) = files_between(&st, &ctx.repo, &ctx.base_sha, &ctx.head_sha).await else {
        return not_found();
    };
    let limit = st.model.lock().unwrap().pr_files_limit;
    let shown = &files[..files.len().min(limit)];
    let path = format!("/repos/{}/pulls/{number}/files", ctx.repo.full_name());
    let (page, link) = paginate(&st, shown, &params, &path);
    let body: Vec<Value> = page
        .iter()
        .map(|f| file_json(&st, &ctx.repo, &ctx.head_sha, f))
        .collect();
    with_link(Value::Array(body), link)
}

// ---- Reviews ----

/// One hunk's lines on each side, from its header.
struct HunkRange {
    right: Option<(u64, u64)>,
    left: Option<(u64, u64)>,
    text: String,
}

/// The hunks of a patch from their `@@ -a,b +c,d @@` headers (the fake's own reading,
/// independent of the client's).
fn hunk_ranges(patch: &str) -> Vec<HunkRange> {
    let mut out: Vec<HunkRange> = Vec::new();
    for line in patch.lines() {
        if let Some(rest) = line.strip_prefix("@@ -") {
            let header = rest.split(" @@").next().unwrap_or_default();
            let mut sides = header.split(" +");
            let side = |s: Option<&str>| -> Option<(u64, u64)> {
                let s = s?;
                let (start, count) = match s.split_once(',') {
                    Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
                    None => (s.parse().ok()?, 1),
                };
                (count > 0).then(|| (start, start + count - 1))
            };
            let left = side(sides.next());
            let right = side(sides.next());
            out.push(HunkRange {
                right,
                left,
                text: String::new(),
            });
        }
        if let Some(h) = out.last_mut() {
            h.text.push_str(line);
            h.text.push('\n');
        }
    }
    out
}

/// GitHub's legacy `position`: the n-th line below the file's first `@@` line (later `@@`
/// lines count too), as a (side, line) anchor.
fn position_anchor(patch: &str, position: u64) -> Option<(&'static str, u64)> {
    let (mut old, mut new) = (0u64, 0u64);
    for (i, line) in patch.lines().enumerate() {
        if let Some(rest) = line.strip_prefix("@@ -") {
            let header = rest.split(" @@").next().unwrap_or_default();
            let mut sides = header.split(" +");
            let start = |s: Option<&str>| -> u64 {
                s.and_then(|s| s.split(',').next())
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0)
            };
            old = start(sides.next());
            new = start(sides.next());
            if i as u64 == position {
                return None;
            }
            continue;
        }
        let anchor = match line.as_bytes().first() {
            Some(b'+') => {
                new += 1;
                Some(("RIGHT", new - 1))
            }
            Some(b'-') => {
                old += 1;
                Some(("LEFT", old - 1))
            }
            Some(b'\\') => None,
            _ => {
                old += 1;
                new += 1;
                Some(("RIGHT", new - 1))
            }
        };
        if i as u64 == position {
            return anchor;
        }
    }
    None
}

const NOT_IN_DIFF: &str = "Pull request review thread line must be part of the diff";

/// A review comment as GitHub would store it.
struct Anchored {
    path: String,
    line: u64,
    start_line: Option<u64>,
    side: String,
    start_side: Option<String>,
    body: String,
    diff_hunk: String,
}

/// The review comment `c` as GitHub would store it, or GitHub's 422.
#[allow(clippy::result_large_err)]
fn check_review_comment(c: &Value, files: &[FileDiff]) -> Result<Anchored, Response> {
    let Some(path) = c["path"].as_str() else {
        return Err(unprocessable(&["Path can't be blank"]));
    };
    let Some(body) = c["body"].as_str() else {
        return Err(unprocessable(&["Body can't be blank"]));
    };
    if body.chars().count() > MAX_BODY_CHARS {
        return Err(validation_failed(
            "PullRequestReviewComment",
            "body",
            "body is too long (maximum is 65536 characters)",
        ));
    }
    let Some(file) = files.iter().find(|f| f.change.path == path) else {
        return Err(unprocessable(&["Path could not be resolved"]));
    };
    let patch = file.patch.as_deref().unwrap_or_default();
    let hunks = hunk_ranges(patch);
    let (side, line) = match (c["line"].as_u64(), c["position"].as_u64()) {
        (Some(line), _) => {
            let side = c["side"].as_str().unwrap_or("RIGHT");
            if side != "RIGHT" && side != "LEFT" {
                return Err(unprocessable(&["Side is not included in the list"]));
            }
            (side.to_string(), line)
        }
        (None, Some(position)) => match position_anchor(patch, position) {
            Some((side, line)) => (side.to_string(), line),
            None => return Err(unprocessable(&[NOT_IN_DIFF])),
        },
        (None, None) => {
            return Err(unprocessable(&[
                "Pull request review thread diff hunk can't be blank",
            ]))
        }
    };
    let range_of = |h: &HunkRange, side: &str| if side == "LEFT" { h.left } else { h.right };
    let Some(hunk) = hunks
        .iter()
        .position(|h| range_of(h, &side).is_some_and(|(a, b)| (a..=b).contains(&line)))
    else {
        return Err(unprocessable(&[NOT_IN_DIFF]));
    };
    let mut start_side = None;
    let start_line = c["start_line"].as_u64();
    if let Some(start) = start_line {
        let s_side = c["start_side"].as_str().unwrap_or(&side).to_string();
        if start >= line && s_side == side {
            return Err(unprocessable(&[
                "Pull request review thread start line must precede the end line",
            ]));
        }
        let same_hunk =
            range_of(&hunks[hunk], &s_side).is_some_and(|(a, b)| (a..=b).contains(&start));
        if !same_hunk {
            return Err(unprocessable(&[
                "Pull request review thread start line must be part of the same hunk as the line",
            ]));
        }
        start_side = Some(s_side);
    }
    Ok(Anchored {
        path: path.to_string(),
        line,
        start_line,
        side,
        start_side,
        body: body.to_string(),
        diff_hunk: hunks[hunk].text.trim_end().to_string(),
    })
}

fn review_json(st: &Shared, repo: &Repo, r: &FakeReview) -> Value {
    let mut v = json!({
        "id": r.id,
        "node_id": format!("PRR_{}", r.id),
        "user": user_json(&r.author),
        "body": r.body,
        "state": r.state,
        "html_url": format!("https://github.com/{}/pull/{}#pullrequestreview-{}", repo.full_name(), r.number, r.id),
        "pull_request_url": format!("{}/repos/{}/pulls/{}", st.api_root(), repo.full_name(), r.number),
        "commit_id": r.commit_id,
        "author_association": "NONE",
    });
    if let Some(at) = r.submitted_at {
        v["submitted_at"] = json!(time(at));
    }
    v
}

fn review_comment_json(st: &Shared, repo: &Repo, c: &FakeReviewComment) -> Value {
    json!({
        "id": c.id,
        "node_id": format!("PRRC_{}", c.id),
        "pull_request_review_id": c.review_id,
        "diff_hunk": c.diff_hunk,
        "path": c.path,
        "commit_id": c.commit_id,
        "original_commit_id": c.commit_id,
        "user": user_json(&c.author),
        "body": c.body,
        "line": c.line,
        "original_line": c.line,
        "start_line": c.start_line,
        "original_start_line": c.start_line,
        "side": c.side,
        "start_side": c.start_side,
        "subject_type": "line",
        "author_association": "NONE",
        "created_at": "2024-01-01T00:00:00Z",
        "updated_at": "2024-01-01T00:00:00Z",
        "url": format!("{}/repos/{}/pulls/comments/{}", st.api_root(), repo.full_name(), c.id),
        "html_url": format!("https://github.com/{}/pull/{}#discussion_r{}", repo.full_name(), c.number, c.id),
        "pull_request_url": format!("{}/repos/{}/pulls/{}", st.api_root(), repo.full_name(), c.number),
    })
}

async fn create_review(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, number)): Path<(String, String, u64)>,
    bytes: Bytes,
) -> Response {
    let ctx = match pr_context(&st, caller, &owner, &name, number).await {
        Ok(ctx) => ctx,
        Err(answer) => return answer,
    };
    let body = match parse_json(&bytes) {
        Ok(b) => b,
        Err(answer) => return answer,
    };
    let state = match body.get("event").and_then(Value::as_str) {
        None => "PENDING",
        Some("COMMENT") => "COMMENTED",
        Some("APPROVE") => "APPROVED",
        Some("REQUEST_CHANGES") => "CHANGES_REQUESTED",
        Some(_) => return unprocessable(&["Event is not included in the list"]),
    };
    let text = body["body"].as_str().unwrap_or_default().to_string();
    if text.chars().count() > MAX_BODY_CHARS {
        return validation_failed(
            "PullRequestReview",
            "body",
            "body is too long (maximum is 65536 characters)",
        );
    }
    let commit_id = match body["commit_id"].as_str() {
        Some(c) => {
            let dir = ctx.repo.dir.clone();
            let c = c.to_string();
            match blocking(move || git::resolve_commit(&dir, &c)).await {
                Some(sha) => sha,
                None => return unprocessable(&["No commit found for SHA"]),
            }
        }
        None => ctx.head_sha.clone(),
    };
    let comments: Vec<Value> = body["comments"].as_array().cloned().unwrap_or_default();
    if matches!(state, "COMMENTED" | "CHANGES_REQUESTED") && text.is_empty() && comments.is_empty()
    {
        return unprocessable(&["Review body can't be blank"]);
    }
    let Some(files) = files_between(&st, &ctx.repo, &ctx.base_sha, &commit_id).await else {
        return not_found();
    };
    let mut checked = Vec::new();
    for c in &comments {
        match check_review_comment(c, &files) {
            Ok(ok) => checked.push(ok),
            Err(answer) => return answer,
        }
    }
    let author = author_of(&st);
    let mut m = st.model.lock().unwrap();
    if state == "PENDING"
        && m.reviews.values().any(|r| {
            r.repo_id == ctx.repo.id
                && r.number == number
                && r.state == "PENDING"
                && r.author == author
        })
    {
        return unprocessable(&["User can only have one pending review per pull request"]);
    }
    let id = m.new_id();
    let review = FakeReview {
        id,
        repo_id: ctx.repo.id,
        number,
        author: author.clone(),
        body: text,
        state: state.to_string(),
        commit_id: commit_id.clone(),
        submitted_at: (state != "PENDING").then(Utc::now),
    };
    for a in checked {
        let cid = m.new_id();
        m.review_comments.insert(
            cid,
            FakeReviewComment {
                id: cid,
                review_id: id,
                repo_id: ctx.repo.id,
                number,
                path: a.path,
                line: a.line,
                start_line: a.start_line,
                side: a.side,
                start_side: a.start_side,
                body: a.body,
                author: author.clone(),
                commit_id: commit_id.clone(),
                diff_hunk: a.diff_hunk,
            },
        );
    }
    m.reviews.insert(id, review.clone());
    (StatusCode::OK, Json(review_json(&st, &ctx.repo, &review))).into_response()
}

async fn list_reviews(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, number)): Path<(String, String, u64)>,
    Query(params): Params,
) -> Response {
    let ctx = match pr_context(&st, caller, &owner, &name, number).await {
        Ok(ctx) => ctx,
        Err(answer) => return answer,
    };
    let all: Vec<FakeReview> = {
        let m = st.model.lock().unwrap();
        m.reviews
            .values()
            .filter(|r| r.repo_id == ctx.repo.id && r.number == number)
            .cloned()
            .collect()
    };
    let path = format!("/repos/{}/pulls/{number}/reviews", ctx.repo.full_name());
    let (page, link) = paginate(&st, &all, &params, &path);
    let body: Vec<Value> = page
        .iter()
        .map(|r| review_json(&st, &ctx.repo, r))
        .collect();
    with_link(Value::Array(body), link)
}

async fn list_review_comments(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, number)): Path<(String, String, u64)>,
    Query(params): Params,
) -> Response {
    let ctx = match pr_context(&st, caller, &owner, &name, number).await {
        Ok(ctx) => ctx,
        Err(answer) => return answer,
    };
    let all: Vec<FakeReviewComment> = {
        let m = st.model.lock().unwrap();
        m.review_comments
            .values()
            .filter(|c| c.repo_id == ctx.repo.id && c.number == number)
            .cloned()
            .collect()
    };
    let path = format!("/repos/{}/pulls/{number}/comments", ctx.repo.full_name());
    let (page, link) = paginate(&st, &all, &params, &path);
    let body: Vec<Value> = page
        .iter()
        .map(|c| review_comment_json(&st, &ctx.repo, c))
        .collect();
    with_link(Value::Array(body), link)
}

async fn react_to_review_comment(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, id)): Path<(String, String, u64)>,
    bytes: Bytes,
) -> Response {
    let repo = match visible_repo(&st, caller, &owner, &name, "") {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    let exists = st
        .model
        .lock()
        .unwrap()
        .review_comments
        .get(&id)
        .is_some_and(|c| c.repo_id == repo.id);
    if !exists {
        return not_found();
    }
    react(&st, "review_comment", id, &bytes)
}
