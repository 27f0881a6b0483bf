//! The operators' status page at `/`: installations and each repository's graph, the
//! queue, recent deliveries. Server-rendered HTML readable on a phone, behind a token
//! (`BLAST_STATUS_TOKEN`): sent as `Authorization: Bearer TOKEN`, or typed once into
//! the page's form, which keeps it in an HttpOnly cookie. Without a token configured the
//! page is off.

use std::fmt::Write as _;
use std::sync::Arc;

use axum::extract::{Form, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use chrono::{DateTime, Utc};
use secrecy::{ExposeSecret, SecretString};

use crate::jobs::App;
use crate::queue::{DeliveryRecord, JobFailure, QueueStatus};
use crate::store::RepoOverview;

const COOKIE: &str = "blast_status";

#[derive(Clone)]
struct StatusState {
    app: Arc<App>,
    token: Option<Arc<SecretString>>,
}

/// `/` and `/login`.
pub fn router(app: Arc<App>, token: Option<SecretString>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/login", post(login))
        .with_state(StatusState {
            app,
            token: token.map(Arc::new),
        })
}

/// Everything the page shows.
pub struct StatusPage {
    pub repositories: Vec<RepoOverview>,
    pub queue: QueueStatus,
    pub failures: Vec<JobFailure>,
    pub deliveries: Vec<DeliveryRecord>,
    pub now: DateTime<Utc>,
}

async fn page(State(st): State<StatusState>, headers: HeaderMap) -> Response {
    let Some(token) = &st.token else {
        return (
            StatusCode::NOT_FOUND,
            "The status page is off: set BLAST_STATUS_TOKEN to turn it on.\n",
        )
            .into_response();
    };
    if !authorized(&headers, token) {
        return (StatusCode::UNAUTHORIZED, html(LOGIN_FORM)).into_response();
    }
    let gathered = async {
        anyhow::Ok(StatusPage {
            repositories: st.app.store.overview().await?,
            queue: st.app.queue.status().await?,
            failures: st.app.queue.recent_failures(10).await?,
            deliveries: st.app.queue.recent_deliveries(20).await?,
            now: Utc::now(),
        })
    };
    match gathered.await {
        Ok(page) => html(&render(&page)).into_response(),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("The database did not answer: {e}\n"),
        )
            .into_response(),
    }
}

#[derive(serde::Deserialize)]
struct LoginForm {
    token: String,
}

async fn login(State(st): State<StatusState>, Form(form): Form<LoginForm>) -> Response {
    let Some(token) = &st.token else {
        return StatusCode::NOT_FOUND.into_response();
    };
    if !same(form.token.trim(), token.expose_secret()) {
        return (StatusCode::UNAUTHORIZED, html(LOGIN_FORM)).into_response();
    }
    let cookie = format!(
        "{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/; Max-Age=604800",
        form.token.trim()
    );
    (
        StatusCode::SEE_OTHER,
        [(header::SET_COOKIE, cookie), (header::LOCATION, "/".into())],
    )
        .into_response()
}

fn authorized(headers: &HeaderMap, token: &SecretString) -> bool {
    let expected = token.expose_secret();
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| {
            kv.trim()
                .strip_prefix(&format!("{COOKIE}="))
                .map(str::to_string)
        })
        .next();
    bearer.is_some_and(|b| same(b.trim(), expected)) || cookie.is_some_and(|c| same(&c, expected))
}

/// Compares in time independent of where the texts differ.
fn same(given: &str, expected: &str) -> bool {
    use hmac::Mac;
    // Comparing MACs of both: constant-time, whatever the lengths.
    let mac = |text: &str| {
        let mut m =
            hmac::Hmac::<sha2::Sha256>::new_from_slice(b"blast-radius status").expect("any key");
        m.update(text.as_bytes());
        m.finalize().into_bytes()
    };
    mac(given) == mac(expected)
}

fn html(body: &str) -> ([(header::HeaderName, &'static str); 2], String) {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body.to_string(),
    )
}

const HEAD: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
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
</style></head><body>"#;

const LOGIN_FORM: &str = r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Blast Radius: status</title></head>
<body style="font:15px system-ui,sans-serif;max-width:24rem;margin:3rem auto;padding:1rem">
<h1 style="font-size:1.3rem">Blast Radius status</h1>
<form method="post" action="/login"><label>Status token<br>
<input name="token" type="password" autocomplete="current-password" style="width:100%;font-size:1rem"></label>
<p><button type="submit">Show the status</button></p></form></body></html>"#;

/// The page's HTML. Everything from the database is escaped.
pub fn render(page: &StatusPage) -> String {
    let mut out = String::from(HEAD);
    out.push_str("<h1>Blast Radius status</h1>");
    let q = &page.queue;
    let _ = write!(
        out,
        "<h2>Queue</h2><p class=\"counts\"><span>waiting <b>{}</b> ({} due)</span><span>running <b>{}</b></span><span>done <b>{}</b></span><span{}>dead <b>{}</b></span>",
        q.waiting,
        q.due,
        q.running,
        q.done,
        if q.dead > 0 { " class=\"bad\"" } else { "" },
        q.dead
    );
    if let Some(age) = q.oldest_due {
        let _ = write!(out, "<span>oldest due {}</span>", ago(age.as_secs()));
    }
    out.push_str("</p>");
    if !page.failures.is_empty() {
        out.push_str("<table><tr><th>job</th><th>state</th><th>attempts</th><th>when</th><th>last error</th></tr>");
        for f in &page.failures {
            let _ = write!(
                out,
                "<tr><td>{} <span class=\"muted\">#{}</span></td><td>{}</td><td>{}</td><td>{}</td><td class=\"wrap\">{}</td></tr>",
                esc(&f.kind),
                f.id.0,
                esc(f.state.as_str()),
                f.attempts,
                since(page.now, f.at),
                esc(&f.error)
            );
        }
        out.push_str("</table>");
    }

    let installations: std::collections::BTreeSet<(i64, &str)> = page
        .repositories
        .iter()
        .filter_map(|r| Some((r.installation?, r.account.as_str())))
        .collect();
    let _ = write!(
        out,
        "<h2>Repositories</h2><p class=\"muted\">{} installation{}, {} repositor{}</p>",
        installations.len(),
        if installations.len() == 1 { "" } else { "s" },
        page.repositories.len(),
        if page.repositories.len() == 1 {
            "y"
        } else {
            "ies"
        }
    );
    out.push_str("<table><tr><th>repository</th><th>account</th><th>commit</th><th>files</th><th>edges</th><th>updated</th><th>error</th></tr>");
    for r in &page.repositories {
        let account = match (r.installation, r.suspended) {
            (None, _) => "<span class=\"muted\">CLI</span>".to_string(),
            (Some(_), true) => format!("{} <span class=\"bad\">suspended</span>", esc(&r.account)),
            (Some(_), false) => esc(&r.account),
        };
        let commit = r
            .commit
            .as_deref()
            .map(|c| format!("<code>{}</code>", esc(&c[..c.len().min(12)])))
            .unwrap_or_else(|| "<span class=\"muted\">not indexed</span>".into());
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{account}</td><td>{commit}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"wrap bad\">{}</td></tr>",
            esc(&r.full_name),
            r.files,
            r.edges,
            since(page.now, r.updated_at),
            esc(r.last_error.as_deref().unwrap_or(""))
        );
    }
    out.push_str("</table>");

    out.push_str("<h2>Recent deliveries</h2><table><tr><th>event</th><th>outcome</th><th>jobs</th><th>when</th><th>delivery</th></tr>");
    for d in &page.deliveries {
        let event = match &d.action {
            Some(a) => format!("{}.{}", d.event, a),
            None => d.event.clone(),
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            esc(&event),
            esc(&d.outcome),
            d.jobs,
            since(page.now, d.at),
            esc(&d.delivery)
        );
    }
    out.push_str("</table></body></html>\n");
    out
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

fn esc(text: &str) -> String {
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
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same("secret", "secret"));
        assert!(!same("secret", "secre"));
        assert!(!same("", "secret"));
    }
}
