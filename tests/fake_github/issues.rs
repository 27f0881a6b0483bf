//! Issue comments on pull requests (create, edit, list, get) and reactions.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use chrono::Utc;
use serde_json::{json, Value};

use super::model::{FakeComment, FakeReaction, Repo, Shared};
use super::routes::{
    app_json, author_of, not_found, paginate, parse_json, time, unprocessable, user_json,
    validation_failed, visible_repo, with_link, Caller, Params, St, MAX_BODY_CHARS,
};

const REACTIONS: [&str; 8] = [
    "+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes",
];

pub(super) fn routes(r: Router<Arc<Shared>>) -> Router<Arc<Shared>> {
    r.route(
        "/repos/{owner}/{name}/issues/{number}/comments",
        get(list_comments).post(create_comment),
    )
    .route(
        "/repos/{owner}/{name}/issues/comments/{id}",
        get(get_comment).patch(edit_comment),
    )
    .route(
        "/repos/{owner}/{name}/issues/comments/{id}/reactions",
        post(react_to_comment),
    )
}

pub(super) fn comment_json(st: &Shared, repo: &Repo, c: &FakeComment) -> Value {
    let reactions: Vec<String> = {
        let m = st.model.lock().unwrap();
        m.reactions
            .iter()
            .filter(|r| r.subject == "issue_comment" && r.comment_id == c.id)
            .map(|r| r.content.clone())
            .collect()
    };
    let count = |name: &str| reactions.iter().filter(|r| *r == name).count();
    json!({
        "id": c.id,
        "node_id": format!("IC_{}", c.id),
        "url": format!("{}/repos/{}/issues/comments/{}", st.api_root(), repo.full_name(), c.id),
        "html_url": format!("https://github.com/{}/pull/{}#issuecomment-{}", repo.full_name(), c.number, c.id),
        "issue_url": format!("{}/repos/{}/issues/{}", st.api_root(), repo.full_name(), c.number),
        "body": c.body,
        "user": user_json(&c.author),
        "created_at": time(c.created_at),
        "updated_at": time(c.updated_at),
        "author_association": if c.by_app { "NONE" } else { "MEMBER" },
        "performed_via_github_app": if c.by_app { app_json(st) } else { Value::Null },
        "reactions": {
            "total_count": reactions.len(),
            "+1": count("+1"), "-1": count("-1"), "laugh": count("laugh"),
            "confused": count("confused"), "heart": count("heart"), "hooray": count("hooray"),
            "rocket": count("rocket"), "eyes": count("eyes"),
        },
    })
}

/// The repository, if issue (pull request) `number` exists in it.
#[allow(clippy::result_large_err)]
fn issue_repo(
    st: &Shared,
    caller: Caller,
    owner: &str,
    name: &str,
    number: u64,
) -> Result<Repo, Response> {
    let repo = visible_repo(
        st,
        caller,
        owner,
        name,
        &format!("/issues/{number}/comments"),
    )?;
    if st
        .model
        .lock()
        .unwrap()
        .pulls
        .contains_key(&(repo.id, number))
    {
        Ok(repo)
    } else {
        Err(not_found())
    }
}

/// The comment's new body, or GitHub's refusal.
#[allow(clippy::result_large_err)]
fn body_of(bytes: &[u8]) -> Result<String, Response> {
    let body = parse_json(bytes)?;
    let Some(text) = body.get("body").and_then(Value::as_str) else {
        return Err(unprocessable(&["Body can't be blank"]));
    };
    if text.chars().count() > MAX_BODY_CHARS {
        return Err(validation_failed(
            "IssueComment",
            "body",
            "body is too long (maximum is 65536 characters)",
        ));
    }
    Ok(text.to_string())
}

async fn create_comment(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, number)): Path<(String, String, u64)>,
    bytes: Bytes,
) -> Response {
    let repo = match issue_repo(&st, caller, &owner, &name, number) {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    let text = match body_of(&bytes) {
        Ok(t) => t,
        Err(answer) => return answer,
    };
    let comment = {
        let mut m = st.model.lock().unwrap();
        let id = m.new_id();
        let now = Utc::now();
        let comment = FakeComment {
            id,
            repo_id: repo.id,
            number,
            body: text,
            author: author_of(&st),
            by_app: true,
            created_at: now,
            updated_at: now,
            edits: 0,
        };
        m.comments.insert(id, comment.clone());
        comment
    };
    (
        StatusCode::CREATED,
        Json(comment_json(&st, &repo, &comment)),
    )
        .into_response()
}

async fn list_comments(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, number)): Path<(String, String, u64)>,
    Query(params): Params,
) -> Response {
    let repo = match issue_repo(&st, caller, &owner, &name, number) {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    // `since`: only comments updated at or after it, as GitHub does.
    let since = params
        .get("since")
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc));
    let all: Vec<FakeComment> = {
        let m = st.model.lock().unwrap();
        m.comments
            .values()
            .filter(|c| c.repo_id == repo.id && c.number == number)
            .filter(|c| since.is_none_or(|t| c.updated_at >= t))
            .cloned()
            .collect()
    };
    let path = format!("/repos/{}/issues/{number}/comments", repo.full_name());
    let (page, link) = paginate(&st, &all, &params, &path);
    let body: Vec<Value> = page.iter().map(|c| comment_json(&st, &repo, c)).collect();
    with_link(Value::Array(body), link)
}

/// The repository and comment `id` in it.
#[allow(clippy::result_large_err)]
fn comment_in(
    st: &Shared,
    caller: Caller,
    owner: &str,
    name: &str,
    id: u64,
) -> Result<(Repo, FakeComment), Response> {
    let repo = visible_repo(st, caller, owner, name, &format!("/issues/comments/{id}"))?;
    let comment = st.model.lock().unwrap().comments.get(&id).cloned();
    match comment {
        Some(c) if c.repo_id == repo.id => Ok((repo, c)),
        _ => Err(not_found()),
    }
}

async fn get_comment(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, id)): Path<(String, String, u64)>,
) -> Response {
    match comment_in(&st, caller, &owner, &name, id) {
        Ok((repo, c)) => Json(comment_json(&st, &repo, &c)).into_response(),
        Err(answer) => answer,
    }
}

async fn edit_comment(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, id)): Path<(String, String, u64)>,
    bytes: Bytes,
) -> Response {
    let (repo, _) = match comment_in(&st, caller, &owner, &name, id) {
        Ok(found) => found,
        Err(answer) => return answer,
    };
    let text = match body_of(&bytes) {
        Ok(t) => t,
        Err(answer) => return answer,
    };
    let comment = {
        let mut m = st.model.lock().unwrap();
        let c = m.comments.get_mut(&id).unwrap();
        c.body = text;
        c.updated_at = Utc::now();
        c.edits += 1;
        c.clone()
    };
    Json(comment_json(&st, &repo, &comment)).into_response()
}

async fn react_to_comment(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, id)): Path<(String, String, u64)>,
    bytes: Bytes,
) -> Response {
    if let Err(answer) = comment_in(&st, caller, &owner, &name, id) {
        return answer;
    }
    react(&st, "issue_comment", id, &bytes)
}

/// Adds the bot's reaction to a comment: 201 when new, 200 with the existing one when the
/// bot had already reacted so.
pub(super) fn react(st: &Shared, subject: &str, comment_id: u64, bytes: &[u8]) -> Response {
    let body = match parse_json(bytes) {
        Ok(b) => b,
        Err(answer) => return answer,
    };
    let content = body["content"].as_str().unwrap_or_default();
    if !REACTIONS.contains(&content) {
        return validation_failed("Reaction", "content", "content is not included in the list");
    }
    let user = author_of(st);
    let mut m = st.model.lock().unwrap();
    let existing = m.reactions.iter().find(|r| {
        r.subject == subject
            && r.comment_id == comment_id
            && r.content == content
            && r.user == user.login
    });
    let (status, reaction) = match existing {
        Some(r) => (StatusCode::OK, r.clone()),
        None => {
            let reaction = FakeReaction {
                id: m.new_id(),
                subject: subject.to_string(),
                comment_id,
                content: content.to_string(),
                user: user.login.clone(),
            };
            m.reactions.push(reaction.clone());
            (StatusCode::CREATED, reaction)
        }
    };
    (
        status,
        Json(json!({
            "id": reaction.id,
            "node_id": format!("REA_{}", reaction.id),
            "user": user_json(&user),
            "content": reaction.content,
            "created_at": time(Utc::now()),
        })),
    )
        .into_response()
}
