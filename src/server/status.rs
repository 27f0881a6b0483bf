//! The operators' status page at `/`: what the App did (the pull requests' analyses,
//! with their verdicts and how long they took), each repository's graph against its
//! default branch, the jobs that failed or wait for a rate limit, the rate limit left,
//! the queue, installations and recent deliveries. Server-rendered HTML readable on a
//! phone, every list one bounded page at a time (`?analyses=2` and the like), behind a
//! token (`BLAST_STATUS_TOKEN`): sent as `Authorization: Bearer TOKEN`, or typed once
//! into the page's form, which leaves a session cookie ([`super::auth`]). Without a
//! token configured the page is off. `/setup` and `/metrics` are behind the same token.

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Form, RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use chrono::{DateTime, Utc};
use maud::{html, Markup};

use super::auth::{self, Access, Guard, Peer};
use crate::queue::{DeliveryRecord, JobState, Queue, QueueStatus, TroubledJob};
use crate::store::{
    AnalysisOverview, InstallationOverview, Page, Paged, RateSeen, RepoOverview, Store,
};

/// The largest sign-in form read.
const LOGIN_FORM_BYTES: usize = 4096;

/// Rows per page of each list.
const ANALYSES_PER_PAGE: u32 = 20;
const REPOSITORIES_PER_PAGE: u32 = 50;
const JOBS_PER_PAGE: u32 = 20;
const INSTALLATIONS_PER_PAGE: u32 = 50;
const DELIVERIES_SHOWN: i64 = 20;
/// The furthest page asked for: past it, the last.
const MAX_PAGE: u32 = 10_000;

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

/// Which page of each list is shown: `?analyses=N&repositories=N&jobs=N&installations=N`
/// (from 1). Anything else in the query is ignored, and so is a value that is no number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pages {
    pub analyses: u32,
    pub repositories: u32,
    pub jobs: u32,
    pub installations: u32,
}

impl Default for Pages {
    fn default() -> Self {
        Pages {
            analyses: 1,
            repositories: 1,
            jobs: 1,
            installations: 1,
        }
    }
}

impl Pages {
    pub fn parse(query: Option<&str>) -> Pages {
        let mut pages = Pages::default();
        for (key, value) in url::form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
            let Ok(n) = value.parse::<u32>() else {
                continue;
            };
            let n = n.clamp(1, MAX_PAGE);
            match key.as_ref() {
                "analyses" => pages.analyses = n,
                "repositories" => pages.repositories = n,
                "jobs" => pages.jobs = n,
                "installations" => pages.installations = n,
                _ => {}
            }
        }
        pages
    }

    /// The page's address with one list moved to page `n`, the others kept.
    fn with(self, list: List, n: u32) -> String {
        let mut p = self;
        *match list {
            List::Analyses => &mut p.analyses,
            List::Repositories => &mut p.repositories,
            List::Jobs => &mut p.jobs,
            List::Installations => &mut p.installations,
        } = n;
        format!(
            "/?analyses={}&repositories={}&jobs={}&installations={}",
            p.analyses, p.repositories, p.jobs, p.installations
        )
    }
}

#[derive(Clone, Copy)]
enum List {
    Analyses,
    Repositories,
    Jobs,
    Installations,
}

/// Everything the page shows.
pub struct StatusPage {
    /// The App this server runs as; None while it waits for `/setup`.
    pub app: Option<String>,
    pub pages: Pages,
    pub analyses: Paged<AnalysisOverview>,
    pub installations: Paged<InstallationOverview>,
    pub repositories: Paged<RepoOverview>,
    pub queue: QueueStatus,
    pub troubled: Paged<TroubledJob>,
    pub deliveries: Vec<DeliveryRecord>,
    pub now: DateTime<Utc>,
}

async fn page(
    State(st): State<StatusState>,
    Peer(peer): Peer,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
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
    let pages = Pages::parse(query.as_deref());
    let gathered = async {
        let jobs = Page::new(pages.jobs, JOBS_PER_PAGE);
        let troubled = st
            .queue
            .troubled_jobs(
                i64::from(jobs.number - 1) * i64::from(jobs.size),
                i64::from(jobs.size) + 1,
            )
            .await?;
        anyhow::Ok(StatusPage {
            app: st.app.as_deref().map(str::to_string),
            pages,
            analyses: st
                .store
                .analyses(Page::new(pages.analyses, ANALYSES_PER_PAGE))
                .await?,
            installations: st
                .store
                .installations(Page::new(pages.installations, INSTALLATIONS_PER_PAGE))
                .await?,
            repositories: st
                .store
                .overview(Page::new(pages.repositories, REPOSITORIES_PER_PAGE))
                .await?,
            queue: st.queue.status().await?,
            troubled: Paged::from_rows(troubled, jobs),
            deliveries: st.queue.recent_deliveries(DELIVERIES_SHOWN).await?,
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
td::before{content:attr(data-label);color:#656d76;display:inline-block;min-width:6.5rem;padding-right:.5rem}}
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
/// template splices in); a link is made only of an `http(s)` address.
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
        (rate_summary(page))
        (analyses(page))
        (repositories(page))
        (troubled(page))
        (queue(page))
        (installations(page))
        (deliveries(page))
    };
    format!("{HEAD}{}</body></html>\n", body.into_string())
}

/// The lowest rate limit left among the installations on this page, in one line.
fn rate_summary(page: &StatusPage) -> Markup {
    let lowest = page
        .installations
        .items
        .iter()
        .filter_map(|i| Some((i, i.rate.as_ref()?)))
        .min_by_key(|(_, r)| r.remaining);
    html! {
        @if let Some((installation, rate)) = lowest {
            p #rate-limit class=[(low(rate)).then_some("bad")] {
                "GitHub rate limit left: " (rate_text(page.now, rate))
                " (" (installation.account) ", the lowest of the installations shown)."
            }
        }
    }
}

/// Under a tenth of the hour's budget left, and not reset yet.
fn low(rate: &RateSeen) -> bool {
    let limit = rate.limit.unwrap_or(5000).max(1);
    rate.remaining < limit / 10
}

fn rate_text(now: DateTime<Utc>, rate: &RateSeen) -> String {
    let of = rate
        .limit
        .map(|l| format!(" of {}", thousands(l.max(0) as u64)))
        .unwrap_or_default();
    let reset = if rate.reset > now {
        format!(
            "resets in {}",
            duration((rate.reset - now).num_seconds().max(0) as u64)
        )
    } else {
        "reset since".to_string()
    };
    format!(
        "{}{of}, {reset}, seen {}",
        thousands(rate.remaining.max(0) as u64),
        since(now, rate.seen)
    )
}

/// The pull requests' analyses, newest first.
fn analyses(page: &StatusPage) -> Markup {
    let rows = page.analyses.items.iter().map(|a| {
        let x = &a.analysis;
        let pr = html! {
            @if is_web_address(&x.url) {
                a href=(x.url) { "#" (x.number) }
            } @else {
                "#" (x.number)
            }
            @if !x.title.is_empty() { " " (x.title) }
        };
        let verdict = match x.conclusion.as_deref() {
            Some("failure") => html! { span.bad { "failure" } },
            Some(c) => html! { (c) },
            None => html! { span.muted { "no check run" } },
        };
        vec![
            wide(html! { (a.full_name) }, "wrap"),
            wide(pr, "wrap"),
            cell(html! {
                (verdict)
                @if x.breaking > 0 {
                    " · " span.bad { (x.breaking) " breaking" }
                }
            }),
            cell(html! { (x.untouched) }),
            cell(html! { (x.changed) }),
            cell(html! { (since(page.now, a.at)) }),
            cell(html! { (millis(x.took_ms)) }),
        ]
    });
    let headers = [
        "repository",
        "pull request",
        "verdict",
        "untouched callers",
        "changed",
        "when",
        "took",
    ];
    html! {
        h2 #analyses { "Recent analyses" }
        @if page.analyses.items.is_empty() && page.analyses.page.number == 1 {
            p.muted { "No pull request analysed yet." }
        } @else {
            (table(&headers, rows))
        }
        (pager(page, List::Analyses, &page.analyses))
    }
}

fn repositories(page: &StatusPage) -> Markup {
    let rows = page.repositories.items.iter().map(|r| {
        let account = match (r.installation, r.suspended) {
            (None, _) => html! { span.muted { "CLI" } },
            (Some(_), true) => html! { (r.account) " " span.bad { "suspended" } },
            (Some(_), false) => html! { (r.account) },
        };
        let commit = match r.commit.as_deref() {
            Some(c) => html! { code { (short(c)) } },
            None => html! { span.muted { "not indexed" } },
        };
        let head = match &r.pushed {
            Some((sha, at)) => {
                html! { code { (short(sha)) } " " span.muted { (since(page.now, *at)) } }
            }
            None => html! { span.muted { "no push seen" } },
        };
        let fresh = match r.current() {
            Some(true) => html! { "current" },
            Some(false) => html! { span.bad { "behind" } },
            None => html! { span.muted { "unknown" } },
        };
        vec![
            wide(html! { (r.full_name) }, "wrap"),
            cell(account),
            cell(commit),
            cell(head),
            cell(fresh),
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
        "graph at",
        "branch head",
        "freshness",
        "files",
        "edges",
        "updated",
        "error",
    ];
    html! {
        h2 #repositories { "Repositories" }
        p.muted {
            "The commit each graph reflects, against its default branch's head as the last push said."
        }
        (table(&headers, rows))
        (pager(page, List::Repositories, &page.repositories))
    }
}

/// Jobs that failed and wait to run again (after a backoff, or a rate limit's reset),
/// and dead ones, with their last error.
fn troubled(page: &StatusPage) -> Markup {
    let rows = page.troubled.items.iter().map(|j| {
        let state = match (j.state, j.next_run) {
            (JobState::Dead, _) => html! { span.bad { "dead" } },
            (_, Some(next)) if j.deferrals > 0 => html! {
                "deferred " (j.deferrals) "× · runs " (until(page.now, next))
            },
            (_, Some(next)) => html! { "retrying · runs " (until(page.now, next)) },
            (state, None) => html! { (state.as_str()) },
        };
        vec![
            cell(html! { (j.kind) " " span.muted { "#" (j.id.0) } }),
            wide(html! { (j.repository.as_deref().unwrap_or("")) }, "wrap"),
            cell(state),
            cell(html! { (j.attempts) "/" (j.max_attempts) }),
            cell(html! { (since(page.now, j.at)) }),
            wide(html! { (j.error) }, "wrap"),
        ]
    });
    html! {
        h2 #jobs { "Failed and deferred jobs" }
        @if page.troubled.items.is_empty() && page.troubled.page.number == 1 {
            p.muted { "None." }
        } @else {
            (table(&["job", "repository", "state", "attempts", "when", "reason"], rows))
        }
        (pager(page, List::Jobs, &page.troubled))
    }
}

/// The queue's counts.
fn queue(page: &StatusPage) -> Markup {
    let q = &page.queue;
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
    }
}

fn installations(page: &StatusPage) -> Markup {
    let rows = page.installations.items.iter().map(|i| {
        vec![
            cell(html! {
                (i.account)
                @if i.suspended { " " span.bad { "suspended" } }
            }),
            cell(html! { (i.id) }),
            cell(html! { (i.repositories) }),
            wide(
                match &i.rate {
                    Some(rate) => html! { span class=[low(rate).then_some("bad")] { (rate_text(page.now, rate)) } },
                    None => html! { span.muted { "not seen yet" } },
                },
                "wrap",
            ),
            cell(html! { (since(page.now, i.since)) }),
        ]
    });
    let n = page.installations.items.len();
    html! {
        h2 #installations { "Installations" }
        @if n == 0 && page.installations.page.number == 1 {
            p.muted { "No installation yet." }
        } @else {
            (table(&["account", "installation", "repositories", "rate limit left", "since"], rows))
        }
        (pager(page, List::Installations, &page.installations))
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

/// Links to the list's newer and older pages, when there are any.
fn pager<T>(page: &StatusPage, list: List, paged: &Paged<T>) -> Markup {
    let n = paged.page.number;
    html! {
        @if n > 1 || paged.more {
            p.pager {
                @if n > 1 { a href=(page.pages.with(list, n - 1)) { "← newer" } " " }
                span.muted { "page " (n) }
                @if paged.more { " " a href=(page.pages.with(list, n + 1)) { "older →" } }
            }
        }
    }
}

/// Only a web address becomes a link: no `javascript:` or `data:` out of a stored value.
fn is_web_address(url: &str) -> bool {
    url.starts_with("https://") || url.starts_with("http://")
}

fn short(sha: &str) -> &str {
    let end = sha.char_indices().nth(12).map_or(sha.len(), |(i, _)| i);
    &sha[..end]
}

fn millis(ms: u64) -> String {
    match ms {
        0..=999 => format!("{ms} ms"),
        1_000..=59_999 => format!("{:.1} s", ms as f64 / 1000.0),
        _ => duration(ms / 1000),
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn duration(seconds: u64) -> String {
    match seconds {
        0..=59 => format!("{seconds} s"),
        60..=3599 => format!("{} min", seconds / 60),
        3600..=86_399 => format!("{} h", seconds / 3600),
        _ => format!("{} d", seconds / 86_400),
    }
}

fn until(now: DateTime<Utc>, at: DateTime<Utc>) -> String {
    if at <= now {
        "now".to_string()
    } else {
        format!("in {}", duration((at - now).num_seconds().max(0) as u64))
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
    format!("{} ago", duration(seconds))
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
    use crate::queue::JobId;
    use crate::store::NewAnalysis;

    const HOSTILE: &str = "\"><script>alert(1)</script><img src=x onerror=alert(2)>";

    fn paged<T>(items: Vec<T>, number: u32, more: bool) -> Paged<T> {
        Paged {
            items,
            page: Page::new(number, 20),
            more,
        }
    }

    fn sample(now: DateTime<Utc>) -> StatusPage {
        StatusPage {
            app: None,
            pages: Pages {
                analyses: 2,
                ..Pages::default()
            },
            analyses: paged(
                vec![
                    AnalysisOverview {
                        full_name: format!("acme/{HOSTILE}"),
                        analysis: NewAnalysis {
                            number: 42,
                            title: HOSTILE.to_string(),
                            url: "https://github.com/acme/web/pull/42".into(),
                            head: "0123456789abcdef".into(),
                            conclusion: Some("failure".into()),
                            breaking: 2,
                            untouched: 7,
                            changed: 3,
                            took_ms: 1_250,
                        },
                        at: now - chrono::Duration::minutes(3),
                    },
                    AnalysisOverview {
                        full_name: "acme/api".into(),
                        analysis: NewAnalysis {
                            number: 7,
                            title: "a title".into(),
                            url: "javascript:alert(3)".into(),
                            head: "fedcba".into(),
                            conclusion: None,
                            breaking: 0,
                            untouched: 0,
                            changed: 1,
                            took_ms: 80,
                        },
                        at: now,
                    },
                ],
                2,
                true,
            ),
            installations: paged(
                vec![InstallationOverview {
                    id: 7,
                    account: HOSTILE.into(),
                    suspended: true,
                    repositories: 1,
                    since: now,
                    rate: Some(RateSeen {
                        remaining: 312,
                        limit: Some(5000),
                        reset: now + chrono::Duration::minutes(20),
                        seen: now - chrono::Duration::seconds(30),
                    }),
                }],
                1,
                false,
            ),
            repositories: paged(
                vec![RepoOverview {
                    full_name: "acme/<script>".into(),
                    installation: Some(7),
                    account: "acme".into(),
                    suspended: true,
                    commit: Some("0123456789abcdef".into()),
                    updated_at: now - chrono::Duration::minutes(5),
                    last_error: Some("tarball: 502".into()),
                    files: 12,
                    edges: 34,
                    pushed: Some(("fedcba9876543210".into(), now)),
                }],
                1,
                false,
            ),
            queue: QueueStatus {
                waiting: 3,
                due: 1,
                running: 1,
                done: 9,
                dead: 2,
                oldest_due: None,
                last_error: None,
            },
            troubled: paged(
                vec![
                    TroubledJob {
                        id: JobId(5),
                        kind: "index_repository".into(),
                        state: JobState::Dead,
                        repository: Some(HOSTILE.into()),
                        attempts: 8,
                        max_attempts: 8,
                        deferrals: 0,
                        error: "<b>boom</b>".into(),
                        next_run: None,
                        at: now,
                    },
                    TroubledJob {
                        id: JobId(6),
                        kind: "analyze_pr".into(),
                        state: JobState::Waiting,
                        repository: Some("acme/web".into()),
                        attempts: 1,
                        max_attempts: 8,
                        deferrals: 2,
                        error: "GitHub rate limit spent".into(),
                        next_run: Some(now + chrono::Duration::minutes(12)),
                        at: now,
                    },
                ],
                1,
                false,
            ),
            deliveries: Vec::new(),
            now,
        }
    }

    #[test]
    fn the_page_escapes_every_stored_value() {
        let html = render(&sample(Utc::now()));
        let body = &html[HEAD.len()..];
        assert!(!body.contains("<script"), "{body}");
        assert!(!body.contains("<img"), "{body}");
        assert!(!body.contains("<b>boom"), "{body}");
        assert!(body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(body.contains("acme/&lt;script&gt;"));
        assert!(body.contains("&lt;b&gt;boom"));
        // A stored address that is no web address is shown, never linked.
        assert!(!body.contains("href=\"javascript:"), "{body}");
        assert!(body.contains("<a href=\"https://github.com/acme/web/pull/42\">#42</a>"));
        assert!(body.contains("#7 a title"));
    }

    #[test]
    fn the_page_shows_the_work() {
        let html = render(&sample(Utc::now()));
        // The analyses: verdict, breaking call sites, untouched callers, when, how long.
        assert!(html.contains("<span class=\"bad\">failure</span>"));
        assert!(html.contains("2 breaking"));
        assert!(html.contains("no check run"));
        assert!(html.contains("1.2 s"), "{html}");
        assert!(html.contains("80 ms"));
        assert!(html.contains("3 min ago"));
        // Freshness: the graph's commit against the pushed head.
        assert!(html.contains("<code>0123456789ab</code>"));
        assert!(html.contains("<code>fedcba987654</code>"));
        assert!(html.contains("behind"));
        assert!(html.contains("5 min ago"));
        // Failed and deferred jobs with their reasons.
        assert!(html.contains("deferred 2× · runs in 1"), "{html}");
        assert!(html.contains("GitHub rate limit spent"));
        assert!(html.contains("8/8"));
        // The rate limit left, low: marked.
        assert!(html.contains("312 of 5,000, resets in"), "{html}");
        assert!(html.contains("id=\"rate-limit\" class=\"bad\""), "{html}");
        assert!(html.contains("dead <b>2</b>"));
        assert!(
            html.contains("<a href=\"/setup\">"),
            "no App: the page says so"
        );
        // Paging: page 2 of the analyses links back and on, keeping the other lists.
        assert!(html.contains(
            "<a href=\"/?analyses=1&amp;repositories=1&amp;jobs=1&amp;installations=1\">← newer</a>"
        ));
        assert!(html.contains(
            "<a href=\"/?analyses=3&amp;repositories=1&amp;jobs=1&amp;installations=1\">older →</a>"
        ));
    }

    #[test]
    fn pages_come_from_the_query_and_bad_values_are_ignored() {
        assert_eq!(Pages::parse(None), Pages::default());
        let p = Pages::parse(Some(
            "analyses=3&jobs=x&repositories=0&installations=99999999&z=1",
        ));
        assert_eq!(
            p,
            Pages {
                analyses: 3,
                repositories: 1,
                jobs: 1,
                installations: MAX_PAGE,
            }
        );
    }

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(5000), "5,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(millis(999), "999 ms");
        assert_eq!(millis(61_000), "1 min");
        assert_eq!(short("abc"), "abc");
        assert_eq!(short("0123456789abcdef"), "0123456789ab");
    }
}
