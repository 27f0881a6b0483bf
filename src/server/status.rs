//! The operators' status page at `/`: the App, installations and each repository's
//! graph, the queue, recent deliveries. Server-rendered HTML readable on a phone, behind a
//! token (`BLAST_STATUS_TOKEN`): sent as `Authorization: Bearer TOKEN`, or typed once into
//! the page's form, which leaves a session cookie ([`super::auth`]). Without a token
//! configured the page is off. `/setup` and `/metrics` are behind the same token.

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Form, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use chrono::{DateTime, Utc};
use maud::{html, Markup};

use super::auth::{self, Access, Guard, Peer};
use crate::queue::{DeliveryRecord, JobFailure, Queue, QueueStatus};
use crate::store::{InstallationOverview, RepoOverview, Store};

/// The largest sign-in form read.
const LOGIN_FORM_BYTES: usize = 4096;

#[derive(Clone)]
struct StatusState {
    store: Store,
    queue: Queue,
    app: Option<Arc<str>>,
    guard: Option<Arc<Guard>>,
}

/// `/` and `/login`. `app` describes the App this server runs as; None while it waits
/// for `/setup`.
pub fn router(
    store: Store,
    queue: Queue,
    app: Option<String>,
    guard: Option<Arc<Guard>>,
) -> Router {
    Router::new()
        .route("/", get(page))
        // A token and a page's path: a form any larger is no sign-in (and each wrong
        // one is held for seconds, so its size is bounded here).
        .route(
            "/login",
            post(login).layer(DefaultBodyLimit::max(LOGIN_FORM_BYTES)),
        )
        .with_state(StatusState {
            store,
            queue,
            app: app.map(Arc::from),
            guard,
        })
}

/// Everything the page shows.
pub struct StatusPage {
    /// The App this server runs as; None while it waits for `/setup`.
    pub app: Option<String>,
    pub installations: Vec<InstallationOverview>,
    pub repositories: Vec<RepoOverview>,
    pub queue: QueueStatus,
    pub failures: Vec<JobFailure>,
    pub deliveries: Vec<DeliveryRecord>,
    pub now: DateTime<Utc>,
}

async fn page(State(st): State<StatusState>, Peer(peer): Peer, headers: HeaderMap) -> Response {
    let Some(guard) = &st.guard else {
        return (
            StatusCode::NOT_FOUND,
            "The status page is off: set BLAST_STATUS_TOKEN to turn it on.\n",
        )
            .into_response();
    };
    if let Some(refused) = refusal(guard.check(&headers, peer).await, "/") {
        return refused;
    }
    let gathered = async {
        anyhow::Ok(StatusPage {
            app: st.app.as_deref().map(str::to_string),
            installations: st.store.installations().await?,
            repositories: st.store.overview().await?,
            queue: st.queue.status().await?,
            failures: st.queue.recent_failures(10).await?,
            deliveries: st.queue.recent_deliveries(20).await?,
            now: Utc::now(),
        })
    };
    match gathered.await {
        Ok(page) => html(&render(&page)).into_response(),
        Err(e) => {
            // The cause goes to the log: a database error can name hosts and users.
            tracing::warn!(error = %e, "status page: the database did not answer");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "The database did not answer: see the server's log.\n",
            )
                .into_response()
        }
    }
}

#[derive(serde::Deserialize)]
struct LoginForm {
    token: String,
    #[serde(default)]
    next: String,
}

async fn login(
    State(st): State<StatusState>,
    Peer(peer): Peer,
    Form(form): Form<LoginForm>,
) -> Response {
    let Some(guard) = &st.guard else {
        return StatusCode::NOT_FOUND.into_response();
    };
    // Back to the page that asked, if it is one of ours (never an address elsewhere).
    let next = match form.next.as_str() {
        "/setup" => "/setup",
        _ => "/",
    };
    let cookie = match guard.sign_in(&form.token, peer).await {
        Ok(cookie) => cookie,
        Err(access) => return refusal(access, next).unwrap_or_else(|| login_refused(next)),
    };
    (
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, cookie),
            (header::LOCATION, next.into()),
        ],
    )
        .into_response()
}

/// The answer to a request the guard did not let through: the sign-in form (back to
/// `next` after), or 429; None when it did.
pub(super) fn refusal(access: Access, next: &str) -> Option<Response> {
    match access {
        Access::Granted => None,
        Access::Denied => Some(login_refused(next)),
        Access::Limited(wait) => Some(auth::limited(wait)),
    }
}

fn login_refused(next: &str) -> Response {
    (StatusCode::UNAUTHORIZED, html(&login_form(next))).into_response()
}

pub(super) fn html(body: &str) -> ([(header::HeaderName, &'static str); 2], String) {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body.to_string(),
    )
}

pub(super) const HEAD: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Blast Radius: status</title>
<style>
body{font:15px/1.4 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#1f2328}
h1{font-size:1.3rem}h2{font-size:1.1rem;margin-top:1.6rem}
table{border-collapse:collapse;width:100%;display:block;overflow-x:auto}
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #d0d7de;vertical-align:top;white-space:nowrap}
td.wrap{white-space:normal;word-break:break-word}
.bad{color:#cf222e}.muted{color:#656d76}code{font-size:.9em}
.counts span{display:inline-block;margin-right:1rem}
input{font-size:1rem;padding:.3rem;width:100%;max-width:24rem;box-sizing:border-box}
@media (max-width:600px){table,tbody,tr,td{display:block;width:auto}thead{display:none}
tr{border:1px solid #d0d7de;border-radius:6px;margin:.5rem 0;padding:.3rem 0}
td{border:0;white-space:normal;word-break:break-word;padding:.15rem .6rem}
td:empty{display:none}
td::before{content:attr(data-label);color:#656d76;display:inline-block;min-width:6.5rem}}
button,a.button{font-size:1rem;padding:.4rem .9rem;background:#1f883d;color:#fff;border:0;border-radius:6px;text-decoration:none;display:inline-block}
</style></head><body>"#;

/// The token form; `next` is the page it returns to (`/` or `/setup`).
pub(super) fn login_form(next: &str) -> String {
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Blast Radius: sign in</title></head>
<body style="font:15px system-ui,sans-serif;max-width:24rem;margin:3rem auto;padding:1rem">
<h1 style="font-size:1.3rem">Blast Radius</h1>
<form method="post" action="/login"><label>Status token (<code>BLAST_STATUS_TOKEN</code>)<br>
<input name="token" type="password" autocomplete="current-password" style="width:100%;font-size:1rem"></label>
<input type="hidden" name="next" value="{}">
<p><button type="submit">Sign in</button></p></form></body></html>"#,
        esc(next)
    )
}

/// The page's HTML. Everything from the database is escaped (maud escapes every value a
/// template splices in).
pub fn render(page: &StatusPage) -> String {
    let body = html! {
        h1 { "Blast Radius status" }
        @match &page.app {
            Some(app) => p { "Running as " (app) "." },
            None => p.bad {
                "No GitHub App yet: webhooks are refused until one is set up. "
                a href="/setup" { "Set up the App" } "."
            },
        }
        (queue(page))
        (installations(page))
        (repositories(page))
        (deliveries(page))
    };
    format!("{HEAD}{}</body></html>\n", body.into_string())
}

/// The queue's counts, and the jobs that failed last.
fn queue(page: &StatusPage) -> Markup {
    let q = &page.queue;
    let failures = page.failures.iter().map(|f| {
        vec![
            cell(html! { (f.kind) " " span.muted { "#" (f.id.0) } }),
            cell(html! { (f.state.as_str()) }),
            cell(html! { (f.attempts) }),
            cell(html! { (since(page.now, f.at)) }),
            wide(html! { (f.error) }, "wrap"),
        ]
    });
    html! {
        h2 { "Queue" }
        p.counts {
            span { "waiting " b { (q.waiting) } " (" (q.due) " due)" }
            span { "running " b { (q.running) } }
            span { "done " b { (q.done) } }
            span class=[(q.dead > 0).then_some("bad")] { "dead " b { (q.dead) } }
            @if let Some(age) = q.oldest_due {
                span { "oldest due " (ago(age.as_secs())) }
            }
        }
        @if !page.failures.is_empty() {
            (table(&["job", "state", "attempts", "when", "last error"], failures))
        }
    }
}

fn installations(page: &StatusPage) -> Markup {
    let n = page.installations.len();
    let rows = page.installations.iter().map(|i| {
        vec![
            cell(html! {
                (i.account)
                @if i.suspended { " " span.bad { "suspended" } }
            }),
            cell(html! { (i.id) }),
            cell(html! { (i.repositories) }),
            cell(html! { (since(page.now, i.since)) }),
        ]
    });
    html! {
        h2 { "Installations" }
        p.muted { (n) " installation" @if n != 1 { "s" } }
        @if n > 0 {
            (table(&["account", "installation", "repositories", "since"], rows))
        }
    }
}

fn repositories(page: &StatusPage) -> Markup {
    let n = page.repositories.len();
    let rows = page.repositories.iter().map(|r| {
        let account = match (r.installation, r.suspended) {
            (None, _) => html! { span.muted { "CLI" } },
            (Some(_), true) => html! { (r.account) " " span.bad { "suspended" } },
            (Some(_), false) => html! { (r.account) },
        };
        let commit = match r.commit.as_deref() {
            Some(c) => html! { code { (&c[..c.len().min(12)]) } },
            None => html! { span.muted { "not indexed" } },
        };
        vec![
            cell(html! { (r.full_name) }),
            cell(account),
            cell(commit),
            cell(html! { (r.files) }),
            cell(html! { (r.edges) }),
            cell(html! { (since(page.now, r.updated_at)) }),
            wide(
                html! { (r.last_error.as_deref().unwrap_or("")) },
                "wrap bad",
            ),
        ]
    });
    let headers = [
        "repository",
        "account",
        "commit",
        "files",
        "edges",
        "updated",
        "error",
    ];
    html! {
        h2 { "Repositories" }
        p.muted { (n) " repositor" @if n == 1 { "y" } @else { "ies" } }
        (table(&headers, rows))
    }
}

fn deliveries(page: &StatusPage) -> Markup {
    let rows = page.deliveries.iter().map(|d| {
        let event = match &d.action {
            Some(a) => format!("{}.{}", d.event, a),
            None => d.event.clone(),
        };
        vec![
            cell(html! { (event) }),
            cell(html! { (d.outcome) }),
            cell(html! { (d.jobs) }),
            cell(html! { (since(page.now, d.at)) }),
            cell(html! { code { (d.delivery) } }),
        ]
    });
    html! {
        h2 { "Recent deliveries" }
        (table(&["event", "outcome", "jobs", "when", "delivery"], rows))
    }
}

/// A table cell: its class and its content.
struct Cell {
    class: &'static str,
    html: Markup,
}

fn cell(html: Markup) -> Cell {
    Cell { class: "", html }
}

fn wide(html: Markup, class: &'static str) -> Cell {
    Cell { class, html }
}

/// A table whose every cell carries its column's name: on a phone's width the rows
/// become cards, each cell a line led by that name (the page's CSS).
fn table(headers: &[&str], rows: impl Iterator<Item = Vec<Cell>>) -> Markup {
    html! {
        table {
            thead { tr { @for h in headers { th { (h) } } } }
            tbody {
                @for row in rows {
                    tr {
                        @for (h, c) in headers.iter().zip(row) {
                            td data-label=(h) class=[(!c.class.is_empty()).then_some(c.class)] {
                                (c.html)
                            }
                        }
                    }
                }
            }
        }
    }
}

fn since(now: DateTime<Utc>, at: DateTime<Utc>) -> String {
    ago((now - at).num_seconds().max(0) as u64)
}

fn ago(seconds: u64) -> String {
    match seconds {
        0..=59 => format!("{seconds} s ago"),
        60..=3599 => format!("{} min ago", seconds / 60),
        3600..=86_399 => format!("{} h ago", seconds / 3600),
        _ => format!("{} d ago", seconds / 86_400),
    }
}

pub(super) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{JobId, JobState};

    #[test]
    fn the_page_escapes_what_it_shows_and_counts() {
        let now = Utc::now();
        let page = StatusPage {
            app: None,
            installations: vec![InstallationOverview {
                id: 7,
                account: "acme".into(),
                suspended: true,
                repositories: 1,
                since: now,
            }],
            repositories: vec![RepoOverview {
                full_name: "acme/<script>".into(),
                installation: Some(7),
                account: "acme".into(),
                suspended: true,
                commit: Some("0123456789abcdef".into()),
                updated_at: now - chrono::Duration::minutes(5),
                last_error: Some("tarball: 502".into()),
                files: 12,
                edges: 34,
            }],
            queue: QueueStatus {
                waiting: 3,
                due: 1,
                running: 1,
                done: 9,
                dead: 2,
                oldest_due: None,
                last_error: None,
            },
            failures: vec![JobFailure {
                id: JobId(5),
                kind: "index_repository".into(),
                state: JobState::Dead,
                attempts: 8,
                error: "<b>boom</b>".into(),
                at: now,
            }],
            deliveries: Vec::new(),
            now,
        };
        let html = render(&page);
        assert!(html.contains("acme/&lt;script&gt;"));
        assert!(!html.contains("<script>"));
        assert!(html.contains("&lt;b&gt;boom"));
        assert!(html.contains("<code>0123456789ab</code>"));
        assert!(html.contains("suspended"));
        assert!(html.contains("5 min ago"));
        assert!(html.contains("dead <b>2</b>"));
        assert!(
            html.contains("<a href=\"/setup\">"),
            "no App: the page says so"
        );
    }
}
