//! The HTTP side: a gate (request log, injected failures, credentials) and one handler per
//! GitHub route, each answering from the model and the repository's git directory.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use base64::Engine;
use chrono::{SecondsFormat, Utc};
use serde_json::{json, Value};

use super::auth::{bearer, new_token, verify_jwt};
use super::faults::{self, Fault};
use super::git;
use super::model::{Author, IssuedToken, Lookup, Recorded, Repo, Shared};

pub(super) type St = State<Arc<Shared>>;
pub(super) type Params = Query<HashMap<String, String>>;

/// Who the gate let in.
#[derive(Clone, Copy, Debug)]
pub(super) enum Caller {
    /// A valid App JWT (`/app/...`).
    App,
    /// A valid installation token.
    Installation(i64),
    /// A download URL's own token (`/_codeload/...`).
    Download,
    /// Nobody: the web pages of the manifest flow and its conversion.
    Anonymous,
}

pub(crate) fn router(shared: Arc<Shared>) -> Router {
    let api = Router::new()
        .route("/app", get(get_app))
        .route("/app/installations", get(list_installations))
        .route("/app/installations/{id}", get(get_installation))
        .route("/app/installations/{id}/access_tokens", post(mint_token))
        .route("/installation/repositories", get(installation_repositories))
        .route("/repositories/{id}", get(repository_by_id))
        .route("/repos/{owner}/{name}", get(repository))
        .route("/repos/{owner}/{name}/branches/{*branch}", get(branch))
        .route("/repos/{owner}/{name}/tarball/{*reference}", get(tarball))
        .route("/repos/{owner}/{name}/compare/{basehead}", get(compare))
        .route("/repos/{owner}/{name}/git/trees/{sha}", get(tree))
        .route("/repos/{owner}/{name}/git/blobs/{sha}", get(blob))
        .route("/repos/{owner}/{name}/contents/{*path}", get(contents));
    let api = super::pulls::routes(api);
    let api = super::issues::routes(api);
    let api = super::checks::routes(api);
    let api = super::manifest::api_routes(api);
    let api = super::hooks::api_routes(api);
    let app = if shared.prefix.is_empty() {
        api
    } else {
        Router::new().nest(&shared.prefix, api)
    };
    let app = super::manifest::web_routes(app);
    app.route(
        "/_codeload/{owner}/{name}/legacy.tar.gz/{sha}",
        get(codeload),
    )
    .fallback(|| async { not_found() })
    .layer(middleware::from_fn_with_state(shared.clone(), gate))
    .with_state(shared)
}

/// Records the request, answers an injected failure, checks the credential, and adds the
/// rate-limit headers GitHub sends to installations.
async fn gate(State(st): St, req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, 64 << 20)
        .await
        .unwrap_or_default();
    let req = Request::from_parts(parts, Body::from(bytes.clone()));
    let method = req.method().to_string();
    let path = req.uri().path().to_string();
    let rel = match path.strip_prefix(st.prefix.as_str()) {
        Some(rest) if !st.prefix.is_empty() && rest.starts_with('/') => rest.to_string(),
        _ => path.clone(),
    };
    let query = req.uri().query().map(str::to_string);
    let accept = header_text(&req, header::ACCEPT);
    let authorization = header_text(&req, header::AUTHORIZATION);
    let recorded_body = (!bytes.is_empty()).then(|| {
        serde_json::from_slice::<Value>(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
    });
    let (seq, fault) = {
        let mut m = st.model.lock().unwrap();
        let seq = m.next_seq;
        m.next_seq += 1;
        m.requests.push(Recorded {
            seq,
            method: method.clone(),
            path: rel.clone(),
            query: query.clone(),
            accept,
            body: recorded_body,
            status: None,
            response: None,
        });
        (seq, m.take_fault(&method, &rel))
    };
    let response = answer(&st, req, next, &rel, query, authorization, fault).await;
    let (response, kept) = if RESPONSES_CHECKED.iter().any(|p| rel.starts_with(p)) {
        let (parts, body) = response.into_parts();
        let bytes = axum::body::to_bytes(body, 64 << 20)
            .await
            .unwrap_or_default();
        let kept = serde_json::from_slice::<Value>(&bytes).ok();
        (Response::from_parts(parts, Body::from(bytes)), kept)
    } else {
        (response, None)
    };
    let mut m = st.model.lock().unwrap();
    if let Some(r) = m.requests.iter_mut().rev().find(|r| r.seq == seq) {
        r.status = Some(response.status().as_u16());
        r.response = kept;
    }
    response
}

/// Routes whose answers are recorded and checked against GitHub's response schemas too
/// (the fake's own model of a GitHub resource: the webhook delivery log).
pub(super) const RESPONSES_CHECKED: &[&str] = &["/app/hook/deliveries"];

async fn answer(
    st: &Shared,
    mut req: Request,
    next: Next,
    rel: &str,
    query: Option<String>,
    authorization: Option<String>,
    fault: Option<Fault>,
) -> Response {
    let mut replace_with = None;
    match fault {
        Some(Fault::Delay(d)) => tokio::time::sleep(d).await,
        Some(f @ Fault::AppliedThenStatus(_)) => replace_with = Some(f),
        Some(f) => return faults::respond(&f),
        None => {}
    }

    let credential = bearer(authorization.as_deref());
    let caller = {
        let mut m = st.model.lock().unwrap();
        if rel.starts_with("/_codeload/") {
            let token = query
                .as_deref()
                .unwrap_or_default()
                .split('&')
                .find_map(|kv| kv.strip_prefix("token="));
            match token {
                Some(t) if m.download_tokens.contains(t) => Caller::Download,
                _ => return not_found(),
            }
        } else if super::manifest::is_public(rel) {
            Caller::Anonymous
        } else if rel == "/app" || rel.starts_with("/app/") {
            match credential.map(|jwt| verify_jwt(jwt, st.app_id)) {
                Some(Ok(claims)) => {
                    m.last_jwt_claims = Some(claims);
                    Caller::App
                }
                Some(Err(why)) => return message(StatusCode::UNAUTHORIZED, &why),
                None => return requires_authentication(),
            }
        } else {
            let Some(token) = credential else {
                return requires_authentication();
            };
            match m.tokens.get(token) {
                Some(t) if t.expires_at > Utc::now() => Caller::Installation(t.installation),
                _ => return message(StatusCode::UNAUTHORIZED, "Bad credentials"),
            }
        }
    };
    req.extensions_mut().insert(caller);
    let mut response = next.run(req).await;
    if let Some(f) = replace_with {
        response = faults::respond(&f);
    }
    if let Caller::Installation(id) = caller {
        let left = st.model.lock().unwrap().spend(id);
        let h = response.headers_mut();
        h.insert("x-ratelimit-limit", HeaderValue::from(5000u32));
        h.insert("x-ratelimit-remaining", HeaderValue::from(left));
        h.insert("x-ratelimit-used", HeaderValue::from(5000 - left));
        h.insert("x-ratelimit-reset", HeaderValue::from(st.rate_reset));
        h.insert("x-ratelimit-resource", HeaderValue::from_static("core"));
    }
    response
}

pub(super) fn header_text(req: &Request, name: header::HeaderName) -> Option<String> {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

pub(super) fn message(status: StatusCode, text: &str) -> Response {
    (
        status,
        Json(json!({"message": text, "documentation_url": "https://docs.github.com/rest"})),
    )
        .into_response()
}

pub(super) fn not_found() -> Response {
    message(StatusCode::NOT_FOUND, "Not Found")
}

pub(super) fn requires_authentication() -> Response {
    message(StatusCode::UNAUTHORIZED, "Requires authentication")
}

pub(super) async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

/// One page of `items` and its `Link` header, as GitHub pages (`per_page` up to 100,
/// default 30; `page` from 1).
pub(super) fn paginate<T: Clone>(
    st: &Shared,
    items: &[T],
    params: &HashMap<String, String>,
    path: &str,
) -> (Vec<T>, Option<HeaderValue>) {
    let per_page = params
        .get("per_page")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(30)
        .clamp(1, 100);
    let page = params
        .get("page")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let last = items.len().div_ceil(per_page).max(1);
    let slice = items
        .iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .cloned()
        .collect();
    let mut others: Vec<String> = params
        .iter()
        .filter(|(k, _)| *k != "page" && *k != "per_page")
        .map(|(k, v)| format!("{k}={v}&"))
        .collect();
    others.sort();
    let others = others.concat();
    let url = |n: usize| {
        format!(
            "<{}{path}?{others}per_page={per_page}&page={n}>",
            st.api_root()
        )
    };
    let mut links = Vec::new();
    if page < last {
        links.push(format!("{}; rel=\"next\"", url(page + 1)));
        links.push(format!("{}; rel=\"last\"", url(last)));
    }
    if page > 1 {
        links.push(format!("{}; rel=\"first\"", url(1)));
        links.push(format!("{}; rel=\"prev\"", url(page - 1)));
    }
    let link = (!links.is_empty()).then(|| HeaderValue::from_str(&links.join(", ")).unwrap());
    (slice, link)
}

pub(super) fn with_link(body: Value, link: Option<HeaderValue>) -> Response {
    let mut response = Json(body).into_response();
    if let Some(link) = link {
        response.headers_mut().insert(header::LINK, link);
    }
    response
}

/// GitHub's 422 for a request it understood and refused: `errors` says why.
pub(super) fn unprocessable(errors: &[&str]) -> Response {
    (
        StatusCode::UNPROCESSABLE_ENTITY,
        Json(json!({
            "message": "Unprocessable Entity",
            "errors": errors,
            "documentation_url": "https://docs.github.com/rest",
            "status": "422",
        })),
    )
        .into_response()
}

/// GitHub's 422 "Validation Failed" for one field.
pub(super) fn validation_failed(resource: &str, field: &str, text: &str) -> Response {
    (
        StatusCode::UNPROCESSABLE_ENTITY,
        Json(json!({
            "message": "Validation Failed",
            "errors": [{"resource": resource, "code": "custom", "field": field, "message": text}],
            "documentation_url": "https://docs.github.com/rest",
            "status": "422",
        })),
    )
        .into_response()
}

/// A request body as JSON, or GitHub's 400.
#[allow(clippy::result_large_err)]
pub(super) fn parse_json(bytes: &[u8]) -> Result<Value, Response> {
    if bytes.is_empty() {
        return Ok(json!({}));
    }
    serde_json::from_slice(bytes)
        .map_err(|_| message(StatusCode::BAD_REQUEST, "Problems parsing JSON"))
}

/// The longest body GitHub takes for a comment or a review.
pub(super) const MAX_BODY_CHARS: usize = 65_536;

/// The author of what a caller writes: the App's bot user for an installation token.
pub(super) fn author_of(st: &Shared) -> Author {
    Author {
        login: format!("{}[bot]", st.app_slug),
        kind: "Bot".into(),
    }
}

pub(super) fn user_json(a: &Author) -> Value {
    let id = a
        .login
        .bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64))
        % 100_000_000;
    json!({"login": a.login, "id": id, "node_id": format!("U_{id}"), "type": a.kind, "site_admin": false})
}

pub(super) fn app_json(st: &Shared) -> Value {
    json!({
        "id": st.app_id,
        "slug": st.app_slug,
        "node_id": format!("A_{}", st.app_id),
        "name": "Blast Radius (test)",
        "owner": {"login": "acme-apps", "type": "Organization"},
        "description": "The fake's App",
        "external_url": "https://example.com",
        "html_url": format!("https://github.com/apps/{}", st.app_slug),
        "created_at": "2024-01-01T00:00:00Z",
        "updated_at": "2024-01-01T00:00:00Z",
        "permissions": {"contents": "read", "metadata": "read", "pull_requests": "write", "issues": "write", "checks": "write"},
        "events": ["push", "pull_request", "issue_comment"],
    })
}

async fn get_app(State(st): St) -> Response {
    Json(app_json(&st)).into_response()
}

pub(super) fn time(t: chrono::DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn installation_json(id: i64, account: &str, suspended: bool, app_id: u64) -> Value {
    json!({
        "id": id,
        "app_id": app_id,
        "account": {"login": account, "type": "Organization"},
        "target_type": "Organization",
        "suspended_at": if suspended { Some("2024-01-01T00:00:00Z") } else { None },
    })
}

async fn list_installations(State(st): St, Query(params): Params) -> Response {
    let all: Vec<Value> = {
        let m = st.model.lock().unwrap();
        m.installations
            .iter()
            .map(|(id, i)| installation_json(*id, &i.account, i.suspended, st.app_id))
            .collect()
    };
    let (page, link) = paginate(&st, &all, &params, "/app/installations");
    with_link(Value::Array(page), link)
}

async fn get_installation(State(st): St, Path(id): Path<i64>) -> Response {
    let m = st.model.lock().unwrap();
    match m.installations.get(&id) {
        Some(i) => Json(installation_json(id, &i.account, i.suspended, st.app_id)).into_response(),
        None => not_found(),
    }
}

async fn mint_token(State(st): St, Path(id): Path<i64>) -> Response {
    let mut m = st.model.lock().unwrap();
    match m.installations.get(&id) {
        None => return not_found(),
        Some(i) if i.suspended => {
            return message(
                StatusCode::FORBIDDEN,
                "This installation has been suspended",
            )
        }
        Some(_) => {}
    }
    let token = new_token();
    let expires_at = Utc::now() + m.token_ttl;
    m.tokens.insert(
        token.clone(),
        IssuedToken {
            installation: id,
            expires_at,
        },
    );
    m.issued.push(token.clone());
    *m.mints.entry(id).or_default() += 1;
    (
        StatusCode::CREATED,
        Json(json!({
            "token": token,
            "expires_at": expires_at.to_rfc3339_opts(SecondsFormat::Secs, true),
            "permissions": {"contents": "read", "metadata": "read"},
            "repository_selection": "all",
        })),
    )
        .into_response()
}

pub(super) fn repo_json(st: &Shared, repo: &Repo, default_branch: Option<&str>) -> Value {
    json!({
        "id": repo.id,
        "node_id": format!("R_{}", repo.id),
        "name": repo.name,
        "full_name": repo.full_name(),
        "owner": {"login": repo.owner, "type": "Organization"},
        "private": repo.private,
        "fork": false,
        "archived": false,
        "disabled": false,
        "default_branch": default_branch,
        "url": format!("{}/repos/{}", st.api_root(), repo.full_name()),
    })
}

async fn repo_json_with_branch(st: &Arc<Shared>, repo: Repo) -> Value {
    let dir = repo.dir.clone();
    let branch = blocking(move || git::default_branch(&dir)).await;
    repo_json(st, &repo, branch.as_deref())
}

/// The repository `owner/name` if this installation sees it; else the answer: 404, or a
/// 301 to its new name (`rest` is the route's remainder after the name, query included).
#[allow(clippy::result_large_err)] // the answer itself: no cost worth boxing in a test server
pub(super) fn visible_repo(
    st: &Shared,
    caller: Caller,
    owner: &str,
    name: &str,
    rest: &str,
) -> Result<Repo, Response> {
    let Caller::Installation(installation) = caller else {
        return Err(not_found());
    };
    let m = st.model.lock().unwrap();
    match m.lookup(owner, name) {
        Lookup::Found(repo) if repo.installation == installation => Ok(repo),
        Lookup::Moved(repo) if repo.installation == installation => {
            let location = if rest.is_empty() {
                format!("{}/repositories/{}", st.api_root(), repo.id)
            } else {
                format!("{}/repos/{}{rest}", st.api_root(), repo.full_name())
            };
            let mut response = message(StatusCode::MOVED_PERMANENTLY, "Moved Permanently");
            response
                .headers_mut()
                .insert(header::LOCATION, HeaderValue::from_str(&location).unwrap());
            Err(response)
        }
        _ => Err(not_found()),
    }
}

async fn installation_repositories(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Query(params): Params,
) -> Response {
    let Caller::Installation(installation) = caller else {
        return not_found();
    };
    let repos: Vec<Repo> = {
        let m = st.model.lock().unwrap();
        m.repos
            .values()
            .filter(|r| r.installation == installation)
            .cloned()
            .collect()
    };
    let total = repos.len();
    let (page, link) = paginate(&st, &repos, &params, "/installation/repositories");
    let mut out = Vec::new();
    for repo in page {
        out.push(repo_json_with_branch(&st, repo).await);
    }
    with_link(
        json!({"total_count": total, "repository_selection": "all", "repositories": out}),
        link,
    )
}

async fn repository_by_id(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path(id): Path<i64>,
) -> Response {
    let repo = {
        let m = st.model.lock().unwrap();
        m.repos.get(&id).cloned()
    };
    // An installation's token reads its own repositories and every public one.
    match (repo, caller) {
        (Some(repo), Caller::Installation(i)) if repo.installation == i || !repo.private => {
            Json(repo_json_with_branch(&st, repo).await).into_response()
        }
        _ => not_found(),
    }
}

async fn repository(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name)): Path<(String, String)>,
) -> Response {
    match visible_repo(&st, caller, &owner, &name, "") {
        Ok(repo) => Json(repo_json_with_branch(&st, repo).await).into_response(),
        Err(answer) => answer,
    }
}

async fn branch(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, branch)): Path<(String, String, String)>,
) -> Response {
    let repo = match visible_repo(&st, caller, &owner, &name, &format!("/branches/{branch}")) {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    let dir = repo.dir.clone();
    let reference = format!("refs/heads/{branch}");
    match blocking(move || git::resolve_commit(&dir, &reference)).await {
        Some(sha) => Json(json!({
            "name": branch,
            "commit": {"sha": sha, "url": format!("{}/repos/{}/commits/{sha}", st.api_root(), repo.full_name())},
            "protected": false,
        }))
        .into_response(),
        None => message(StatusCode::NOT_FOUND, "Branch not found"),
    }
}

async fn tarball(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, reference)): Path<(String, String, String)>,
) -> Response {
    let repo = match visible_repo(&st, caller, &owner, &name, &format!("/tarball/{reference}")) {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    let dir = repo.dir.clone();
    let Some(sha) = blocking(move || git::resolve_commit(&dir, &reference)).await else {
        return not_found();
    };
    let token = new_token();
    st.model
        .lock()
        .unwrap()
        .download_tokens
        .insert(token.clone());
    // Like codeload.github.com: another path, its own short-lived token in the URL.
    let location = format!(
        "{}/_codeload/{}/{}/legacy.tar.gz/{sha}?token={token}",
        st.origin, repo.owner, repo.name
    );
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}

async fn codeload(
    State(st): St,
    Path((owner, name, sha)): Path<(String, String, String)>,
) -> Response {
    let repo = match st.model.lock().unwrap().lookup(&owner, &name) {
        Lookup::Found(repo) => repo,
        _ => return not_found(),
    };
    let prefix = format!("{}-{}-{}", repo.owner, repo.name, &sha[..sha.len().min(7)]);
    let dir = repo.dir.clone();
    match blocking(move || git::archive(&dir, &sha, &prefix)).await {
        Ok(bytes) => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "application/x-gzip".to_string()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename={}-{}.tar.gz", repo.owner, repo.name),
                ),
            ],
            bytes,
        )
            .into_response(),
        Err(_) => not_found(),
    }
}

async fn compare(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, basehead)): Path<(String, String, String)>,
) -> Response {
    let repo = match visible_repo(&st, caller, &owner, &name, &format!("/compare/{basehead}")) {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    let Some((base, head)) = basehead.split_once("...") else {
        return not_found();
    };
    let (base, head) = (base.to_string(), head.to_string());
    let dir = repo.dir.clone();
    let answer = blocking(move || -> Option<Value> {
        let base = git::resolve_commit(&dir, &base)?;
        let head = git::resolve_commit(&dir, &head)?;
        let merge_base = git::merge_base(&dir, &base, &head)?;
        let ahead_by = git::count_commits(&dir, &format!("{merge_base}..{head}"));
        let behind_by = git::count_commits(&dir, &format!("{merge_base}..{base}"));
        let status = match (ahead_by, behind_by) {
            (0, 0) => "identical",
            (_, 0) => "ahead",
            (0, _) => "behind",
            _ => "diverged",
        };
        let changes = git::diff_raw(&dir, &merge_base, &head).ok()?;
        // GitHub lists at most 300 files, and cannot page them.
        let files: Vec<Value> = changes
            .iter()
            .take(300)
            .map(|c| {
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
                    "additions": 0, "deletions": 0, "changes": 0,
                });
                if let Some(old) = &c.old_path {
                    file["previous_filename"] = json!(old);
                }
                file
            })
            .collect();
        Some(json!({
            "status": status,
            "ahead_by": ahead_by,
            "behind_by": behind_by,
            "total_commits": ahead_by,
            "base_commit": {"sha": base},
            "merge_base_commit": {"sha": merge_base},
            "commits": [],
            "files": files,
        }))
    })
    .await;
    match answer {
        Some(body) => Json(body).into_response(),
        None => not_found(),
    }
}

async fn tree(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, sha)): Path<(String, String, String)>,
    Query(params): Params,
) -> Response {
    let recursive = params.contains_key("recursive");
    let rest = format!(
        "/git/trees/{sha}{}",
        if recursive { "?recursive=1" } else { "" }
    );
    let repo = match visible_repo(&st, caller, &owner, &name, &rest) {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    let limit = st.model.lock().unwrap().tree_limit;
    let dir = repo.dir.clone();
    let answer = blocking(move || -> Option<Value> {
        let tree = git::resolve_tree(&dir, &sha)?;
        let mut entries = git::ls_tree(&dir, &tree, recursive).ok()?;
        let truncated = recursive && limit.is_some_and(|l| entries.len() > l);
        if truncated {
            entries.truncate(limit.unwrap_or_default());
        }
        let tree_json: Vec<Value> = entries
            .iter()
            .map(|e| {
                let mut entry =
                    json!({"path": e.path, "mode": e.mode, "type": e.kind, "sha": e.sha});
                if let Some(size) = e.size {
                    entry["size"] = json!(size);
                }
                entry
            })
            .collect();
        Some(json!({"sha": tree, "tree": tree_json, "truncated": truncated}))
    })
    .await;
    match answer {
        Some(body) => Json(body).into_response(),
        None => not_found(),
    }
}

async fn blob(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, sha)): Path<(String, String, String)>,
    headers: axum::http::HeaderMap,
) -> Response {
    let repo = match visible_repo(&st, caller, &owner, &name, &format!("/git/blobs/{sha}")) {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    let wants_raw = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("raw"));
    let as_json = st.model.lock().unwrap().blobs_as_json;
    let dir = repo.dir.clone();
    let sha_owned = sha.clone();
    let Some(bytes) = blocking(move || git::cat_blob(&dir, &sha_owned)).await else {
        return not_found();
    };
    if wants_raw && !as_json {
        return (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/vnd.github.raw")],
            bytes,
        )
            .into_response();
    }
    Json(json!({
        "sha": sha,
        "node_id": format!("B_{sha}"),
        "size": bytes.len(),
        "encoding": "base64",
        "content": wrapped_base64(&bytes),
    }))
    .into_response()
}

/// `GET /repos/{owner}/{repo}/contents/{path}[?ref=]`: a file at a commit (the default
/// branch without `ref`), raw when asked for, else base64 JSON as GitHub sends it; a
/// directory is its list; anything else a 404.
async fn contents(
    State(st): St,
    Extension(caller): Extension<Caller>,
    Path((owner, name, path)): Path<(String, String, String)>,
    Query(params): Params,
    headers: axum::http::HeaderMap,
) -> Response {
    let repo = match visible_repo(&st, caller, &owner, &name, &format!("/contents/{path}")) {
        Ok(repo) => repo,
        Err(answer) => return answer,
    };
    let wants_raw = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("raw"));
    let as_json = st.model.lock().unwrap().blobs_as_json;
    let dir = repo.dir.clone();
    let reference = params
        .get("ref")
        .cloned()
        .unwrap_or_else(|| "HEAD".to_string());
    let path = path.trim_matches('/').to_string();
    let object = format!("{reference}:{path}");
    let found = blocking(move || {
        let kind = git::run(&dir, &["cat-file", "-t", &object]).ok()?;
        match String::from_utf8_lossy(&kind).trim() {
            "blob" => {
                let sha = git::run(&dir, &["rev-parse", &object]).ok()?;
                let sha = String::from_utf8_lossy(&sha).trim().to_string();
                Some(Ok((sha.clone(), git::cat_blob(&dir, &sha)?)))
            }
            "tree" => {
                let entries = git::ls_tree(&dir, &object, false).ok()?;
                Some(Err(entries
                    .into_iter()
                    .map(|e| {
                        let kind = if e.kind == "tree" { "dir" } else { "file" };
                        json!({"type": kind, "name": e.path, "sha": e.sha})
                    })
                    .collect::<Vec<Value>>()))
            }
            _ => None,
        }
    })
    .await;
    let (sha, bytes) = match found {
        None => return not_found(),
        Some(Err(listing)) => return Json(Value::Array(listing)).into_response(),
        Some(Ok(file)) => file,
    };
    if wants_raw && !as_json {
        return (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/vnd.github.raw")],
            bytes,
        )
            .into_response();
    }
    let name = path.rsplit('/').next().unwrap_or_default().to_string();
    Json(json!({
        "type": "file",
        "encoding": "base64",
        "size": bytes.len(),
        "name": name,
        "path": path,
        "sha": sha,
        "content": wrapped_base64(&bytes),
    }))
    .into_response()
}

/// `bytes` in base64 as GitHub's JSON answers hold it: wrapped at 60 characters.
fn wrapped_base64(bytes: &[u8]) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    let lines: Vec<&str> = encoded
        .as_bytes()
        .chunks(60)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    lines.join("\n") + "\n"
}
