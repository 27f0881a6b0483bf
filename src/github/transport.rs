//! One request to GitHub through octocrab, under our retry policy, with a timeout on each
//! attempt and the rate-limit headers recorded. Every typed call goes through here.
//!
//! Routes are always relative (`/repos/o/r?page=2`): octocrab joins them to the base URL
//! (keeping a GHES `/api/v3` prefix) and attaches the credential only to relative URIs or
//! api.github.com, so absolute `Link` URLs would go out unauthenticated against GHES.

use bytes::Bytes;
use chrono::Utc;
use http::{HeaderMap, Method, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::BodyExt;
use octocrab::Octocrab;
use serde::de::DeserializeOwned;

use super::core::{AccessTokenJson, AppCore, InstallationCore, TokenClient};
use super::error::{GithubError, Result};
use super::rate_limit::RateLimitCell;
use super::retry::{decide, Decision, Failure, RetryMode};
use secrecy::SecretString;

/// GitHub's JSON media type.
pub(crate) const JSON: &str = "application/vnd.github+json";

/// A response body as octocrab hands it over.
pub(crate) type Body = BoxBody<Bytes, octocrab::Error>;

/// One request, ready to be sent as many times as the policy allows.
#[derive(Clone, Debug)]
pub(crate) struct Call {
    pub method: Method,
    /// Relative to the API root, starting with `/`; may carry a query.
    pub route: String,
    pub accept: &'static str,
    pub body: Option<serde_json::Value>,
    pub mode: RetryMode,
    /// Creates or edits content that notifies people (comments, reviews): such writes of
    /// one installation are spaced out (see [`GithubConfig::notify_spacing`]).
    pub notifies: bool,
}

impl Call {
    pub(crate) fn get(route: impl Into<String>) -> Call {
        Call {
            method: Method::GET,
            route: route.into(),
            accept: JSON,
            body: None,
            mode: RetryMode::Idempotent,
            notifies: false,
        }
    }

    pub(crate) fn post(route: impl Into<String>, body: serde_json::Value, mode: RetryMode) -> Call {
        Call::write(Method::POST, route, body, mode)
    }

    /// A POST without a body (GitHub's "redeliver" takes none).
    pub(crate) fn post_empty(route: impl Into<String>, mode: RetryMode) -> Call {
        Call {
            method: Method::POST,
            route: route.into(),
            accept: JSON,
            body: None,
            mode,
            notifies: false,
        }
    }

    pub(crate) fn patch(
        route: impl Into<String>,
        body: serde_json::Value,
        mode: RetryMode,
    ) -> Call {
        Call::write(Method::PATCH, route, body, mode)
    }

    fn write(
        method: Method,
        route: impl Into<String>,
        body: serde_json::Value,
        mode: RetryMode,
    ) -> Call {
        Call {
            method,
            route: route.into(),
            accept: JSON,
            body: Some(body),
            mode,
            notifies: false,
        }
    }

    /// Marks a write that notifies people: GitHub's secondary rate limits bite on those
    /// first ("creating content too quickly ... may result in secondary rate limiting").
    pub(crate) fn notifying(mut self) -> Call {
        self.notifies = true;
        self
    }

    pub(crate) fn accept(mut self, accept: &'static str) -> Call {
        self.accept = accept;
        self
    }

    /// "GET /repos/o/r/compare/a...b": for errors and logs (no query: it never holds
    /// secrets either, but it is noise).
    pub(crate) fn what(&self) -> String {
        let path = self.route.split('?').next().unwrap_or_default();
        format!("{} {}", self.method, path)
    }
}

/// A success with its body read whole.
pub(crate) struct Buffered {
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Buffered {
    pub(crate) fn json<T: DeserializeOwned>(&self, what: &str) -> Result<T> {
        serde_json::from_slice(&self.body).map_err(|e| GithubError::Decode {
            what: what.to_string(),
            message: e.to_string(),
        })
    }
}

/// A success whose body is still to be read (downloads).
pub(crate) struct Streaming {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Body,
}

/// Who a request is sent as.
#[derive(Clone, Copy)]
pub(crate) enum Sender<'a> {
    /// The App itself (JWT): `/app/...` routes.
    App(&'a AppCore),
    /// An installation (installation access token): everything else.
    Installation(&'a InstallationCore),
}

enum Got {
    Buffered(Bytes),
    Streaming(Body),
}

enum AttemptError {
    /// Worth another attempt.
    Transport(String),
    /// The request cannot be built or signed: no attempt will do better.
    Fatal(GithubError),
}

impl Sender<'_> {
    fn app(&self) -> &AppCore {
        match self {
            Sender::App(app) => app,
            Sender::Installation(inst) => inst.app(),
        }
    }

    fn rate(&self) -> &super::rate_limit::RateLimitCell {
        match self {
            Sender::App(app) => &app.rate,
            Sender::Installation(inst) => inst.rate(),
        }
    }

    async fn client(&self) -> Result<Octocrab> {
        match self {
            Sender::App(app) => Ok(app.crab.clone()),
            Sender::Installation(inst) => inst.client().await,
        }
    }

    /// Sends `call`, reading the whole body, and decodes it as JSON.
    pub(crate) async fn get_json<T: DeserializeOwned>(
        &self,
        route: impl Into<String>,
    ) -> Result<T> {
        let call = Call::get(route);
        self.send_buffered(&call).await?.json(&call.what())
    }

    /// Sends `call` and reads the whole body within each attempt's timeout.
    pub(crate) async fn send_buffered(&self, call: &Call) -> Result<Buffered> {
        let (headers, _, got) = self.send_loop(call, true).await?;
        match got {
            Got::Buffered(body) => Ok(Buffered { headers, body }),
            Got::Streaming(_) => unreachable!("a buffered call returns a buffered body"),
        }
    }

    /// Sends `call` and returns once the headers are in: the body is the caller's to read.
    pub(crate) async fn send_streaming(&self, call: &Call) -> Result<Streaming> {
        let (headers, status, got) = self.send_loop(call, false).await?;
        match got {
            Got::Streaming(body) => Ok(Streaming {
                status,
                headers,
                body,
            }),
            Got::Buffered(bytes) => Ok(Streaming {
                status,
                headers,
                body: http_body_util::Full::new(bytes)
                    .map_err(|never| match never {})
                    .boxed(),
            }),
        }
    }

    async fn send_loop(&self, call: &Call, buffered: bool) -> Result<(HeaderMap, StatusCode, Got)> {
        let app = self.app();
        let policy = &app.settings.policy;
        let timeout = app.settings.request_timeout;
        let what = call.what();
        let mut attempt = 0u32;
        let mut fresh_token_tried = false;
        loop {
            attempt += 1;
            self.await_rate_reset(&what, policy.max_wait).await?;
            if call.notifies {
                if let Sender::Installation(inst) = self {
                    inst.pace_notifying_write(app.settings.notify_spacing).await;
                }
            }
            let crab = self.client().await?;
            let sent = std::time::Instant::now();
            let outcome = tokio::time::timeout(timeout, attempt_once(&crab, call, buffered)).await;
            tracing::debug!(%what, attempt, ms = sent.elapsed().as_millis() as u64, "github call");
            let status = outcome
                .as_ref()
                .ok()
                .and_then(|o| o.as_ref().ok())
                .map(|o| o.0);
            count_request(call, status, sent);
            let failure = match outcome {
                Err(_) => Failure::Transport(format!("no answer within {timeout:?}")),
                Ok(Err(AttemptError::Fatal(e))) => return Err(e),
                Ok(Err(AttemptError::Transport(message))) => Failure::Transport(message),
                Ok(Ok((status, headers, got))) => {
                    self.record_rate(&headers);
                    if status.is_success() || status.is_redirection() {
                        return Ok((headers, status, got));
                    }
                    if status == StatusCode::UNAUTHORIZED && !fresh_token_tried {
                        if let Sender::Installation(inst) = self {
                            // The cached token may have been revoked or expired early: one
                            // more try with a fresh one (a 401 means nothing was done).
                            fresh_token_tried = true;
                            inst.forget_token().await;
                            attempt -= 1;
                            continue;
                        }
                    }
                    let message = match got {
                        Got::Buffered(bytes) => error_message(&bytes),
                        Got::Streaming(_) => String::new(),
                    };
                    Failure::Status {
                        status,
                        headers,
                        message,
                    }
                }
            };
            match decide(policy, call.mode, attempt, &what, failure, Utc::now()) {
                Decision::RetryAfter(wait) => {
                    tracing::warn!(%what, attempt, ?wait, "GitHub call failed: retrying");
                    tokio::time::sleep(wait).await;
                }
                Decision::Fail(e) => return Err(e),
            }
        }
    }

    /// Waits for the rate limit's reset when it is spent, unless that is longer than
    /// `max_wait`.
    async fn await_rate_reset(&self, what: &str, max_wait: std::time::Duration) -> Result<()> {
        if let Some((wait, until)) = self.rate().exhausted_for(Utc::now()) {
            if wait > max_wait {
                return Err(GithubError::RateLimited {
                    what: what.to_string(),
                    until,
                });
            }
            tracing::warn!(%what, ?wait, "GitHub rate limit spent: waiting for its reset");
            tokio::time::sleep(wait).await;
        }
        Ok(())
    }

    /// Learns the rate limit from an answer's headers, and shows what remains.
    fn record_rate(&self, headers: &HeaderMap) {
        self.rate().record(headers);
        if let Some(rate) = self.rate().get() {
            // One series per credential: the App's JWT and each installation.
            let credential = match self {
                Sender::App(_) => "app".to_string(),
                Sender::Installation(inst) => format!("installation:{}", inst.id.0),
            };
            metrics::gauge!("blast_github_rate_limit_remaining", "credential" => credential)
                .set(rate.remaining as f64);
        }
    }

    /// GETs every page of a list: `per_page=100`, `page=1, 2, ...` as relative routes, until
    /// the `Link` header has no `rel="next"`. `items` takes a page's body apart.
    pub(crate) async fn get_all_pages<P, T>(
        &self,
        route: &str,
        items: impl Fn(P) -> Vec<T>,
    ) -> Result<Vec<T>>
    where
        P: DeserializeOwned,
    {
        const PER_PAGE: u32 = 100;
        // A safety stop against a server that always says "next": 10 million items.
        const MAX_PAGES: u32 = 100_000;
        let mut all = Vec::new();
        for page in 1..=MAX_PAGES {
            let call = Call::get(with_query(
                route,
                &format!("per_page={PER_PAGE}&page={page}"),
            ));
            let got = self.send_buffered(&call).await?;
            let batch = items(got.json(&call.what())?);
            let empty = batch.is_empty();
            all.extend(batch);
            if empty || !has_next_page(&got.headers) {
                return Ok(all);
            }
        }
        Err(GithubError::Decode {
            what: format!("GET {route}"),
            message: format!("more than {MAX_PAGES} pages"),
        })
    }

    /// The items of a list, at most `max_pages` pages of it (as
    /// [`get_all_pages`](Self::get_all_pages) reads them), that `keep` keeps; and whether
    /// the list ended within them. Each page is filtered as it arrives: what `keep` drops
    /// is never held past its page.
    pub(crate) async fn get_pages_kept<J, T>(
        &self,
        route: &str,
        max_pages: u32,
        keep: impl Fn(J) -> Option<T>,
    ) -> Result<(Vec<T>, bool)>
    where
        J: DeserializeOwned,
    {
        const PER_PAGE: u32 = 100;
        let mut kept = Vec::new();
        for page in 1..=max_pages {
            let call = Call::get(with_query(
                route,
                &format!("per_page={PER_PAGE}&page={page}"),
            ));
            let got = self.send_buffered(&call).await?;
            let items: Vec<J> = got.json(&call.what())?;
            let empty = items.is_empty();
            kept.extend(items.into_iter().filter_map(&keep));
            if empty || !has_next_page(&got.headers) {
                return Ok((kept, true));
            }
        }
        Ok((kept, false))
    }
}

/// Counts a request by method and class of status (`no_answer` without one), and times it.
fn count_request(call: &Call, status: Option<StatusCode>, sent: std::time::Instant) {
    let status_class = match status.map(|s| s.as_u16()) {
        Some(200..=299) => "2xx",
        Some(300..=399) => "3xx",
        Some(400..=499) => "4xx",
        Some(_) => "5xx",
        None => "no_answer",
    };
    metrics::counter!("blast_github_requests_total", "method" => call.method.to_string(), "status" => status_class)
        .increment(1);
    metrics::histogram!("blast_github_request_seconds").record(sent.elapsed().as_secs_f64());
}

async fn attempt_once(
    crab: &Octocrab,
    call: &Call,
    buffered: bool,
) -> std::result::Result<(StatusCode, HeaderMap, Got), AttemptError> {
    let builder = http::Request::builder()
        .method(call.method.clone())
        .uri(call.route.as_str())
        .header(http::header::ACCEPT, call.accept);
    let request = crab
        .build_request(builder, call.body.as_ref())
        .map_err(|e| AttemptError::Fatal(fatal(call, &e)))?;
    let response = crab.execute(request).await.map_err(|e| match e {
        octocrab::Error::JWT { .. }
        | octocrab::Error::Http { .. }
        | octocrab::Error::Uri { .. }
        | octocrab::Error::UriParse { .. }
        | octocrab::Error::InvalidHeaderValue { .. } => AttemptError::Fatal(fatal(call, &e)),
        other => AttemptError::Transport(describe(&other)),
    })?;
    let (parts, body) = response.into_parts();
    if buffered || !parts.status.is_success() {
        let bytes = body
            .collect()
            .await
            .map_err(|e| AttemptError::Transport(format!("reading the body: {}", describe(&e))))?
            .to_bytes();
        Ok((parts.status, parts.headers, Got::Buffered(bytes)))
    } else {
        Ok((parts.status, parts.headers, Got::Streaming(body)))
    }
}

fn fatal(call: &Call, e: &octocrab::Error) -> GithubError {
    GithubError::Config(format!(
        "{}: cannot build the request: {}",
        call.what(),
        describe(e)
    ))
}

/// An error and its causes on one line.
pub(crate) fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    // octocrab's Display of some variants includes a backtrace: keep the first line.
    text.lines().next().unwrap_or_default().to_string()
}

/// GitHub's `{"message": ..., "errors": [...]}` on one line, or the start of whatever else
/// the body holds. A 422's `message` alone is often just "Unprocessable Entity" or
/// "Validation Failed": the reason is in `errors`, as strings ("Pull request review thread
/// line must be part of the diff") or objects (`{"resource", "field", "code", "message"}`).
fn error_message(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct GithubMessage {
        message: String,
        #[serde(default)]
        errors: Vec<serde_json::Value>,
    }
    if let Ok(m) = serde_json::from_slice::<GithubMessage>(body) {
        let reasons: Vec<String> = m.errors.iter().filter_map(error_reason).collect();
        if reasons.is_empty() {
            return m.message;
        }
        return format!("{}: {}", m.message, reasons.join("; "));
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return "(no message)".to_string();
    }
    text.chars().take(300).collect()
}

/// One entry of a GitHub `errors` array, as text.
fn error_reason(e: &serde_json::Value) -> Option<String> {
    match e {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Object(o) => {
            if let Some(m) = o.get("message").and_then(|m| m.as_str()) {
                return Some(m.to_string());
            }
            let part = |k: &str| o.get(k).and_then(|v| v.as_str()).unwrap_or_default();
            let text = format!("{} {} {}", part("resource"), part("field"), part("code"));
            let text = text.trim();
            (!text.is_empty()).then(|| text.to_string())
        }
        _ => None,
    }
}

/// Appends `query` to `route`.
pub(crate) fn with_query(route: &str, query: &str) -> String {
    let sep = if route.contains('?') { '&' } else { '?' };
    format!("{route}{sep}{query}")
}

/// Whether a `Link` header has a `rel="next"` part.
pub(crate) fn has_next_page(headers: &HeaderMap) -> bool {
    headers
        .get_all(http::header::LINK)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|part| {
            part.split(';')
                .skip(1)
                .any(|p| matches!(p.trim(), "rel=\"next\"" | "rel=next"))
        })
}

/// Percent-encodes a path segment; with `keep_slash`, `/` stays (branch names, file paths).
pub(crate) fn encode_path(s: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            b'/' if keep_slash => out.push('/'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

// Minting an installation token is a request as the App: it lives with the sending.
impl InstallationCore {
    pub(crate) fn app(&self) -> &AppCore {
        &self.app
    }

    pub(crate) fn rate(&self) -> &RateLimitCell {
        &self.rate
    }

    /// A client with a token good for at least `token_refresh_margin` more.
    pub(crate) async fn client(&self) -> Result<Octocrab> {
        let mut slot = self.token.lock().await;
        let margin = chrono::Duration::from_std(self.app.token_refresh_margin)
            .unwrap_or_else(|_| chrono::Duration::minutes(5));
        if let Some(cached) = slot.as_ref() {
            if cached.expires_at - Utc::now() > margin {
                return Ok(cached.crab.clone());
            }
        }
        let fresh = self.mint().await?;
        let crab = fresh.crab.clone();
        *slot = Some(fresh);
        Ok(crab)
    }

    /// Drops the cached token (GitHub refused it).
    pub(crate) async fn forget_token(&self) {
        *self.token.lock().await = None;
    }

    async fn mint(&self) -> Result<TokenClient> {
        let route = format!("/app/installations/{}/access_tokens", self.id.0);
        // Minting twice does no harm: safe to retry.
        let call = Call::post(route, serde_json::json!({}), RetryMode::Idempotent);
        // Boxed: sending as the App is the same async fn that called us.
        let answer = Box::pin(Sender::App(&self.app).send_buffered(&call)).await?;
        let token: AccessTokenJson = answer.json(&call.what())?;
        let crab = self
            .app
            .crab
            .user_access_token(SecretString::from(token.token))
            .map_err(|e| GithubError::Config(format!("building the installation client: {e}")))?;
        tracing::debug!(installation = self.id.0, expires_at = %token.expires_at, "minted an installation token");
        Ok(TokenClient {
            crab,
            expires_at: token.expires_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn next_links() {
        let mut h = HeaderMap::new();
        assert!(!has_next_page(&h));
        h.insert(
            http::header::LINK,
            HeaderValue::from_static(
                "<https://api.github.com/x?page=2>; rel=\"next\", \
                 <https://api.github.com/x?page=5>; rel=\"last\"",
            ),
        );
        assert!(has_next_page(&h));
        h.insert(
            http::header::LINK,
            HeaderValue::from_static(
                "<https://api.github.com/x?page=1>; rel=\"first\", \
                 <https://api.github.com/x?page=4>; rel=\"prev\"",
            ),
        );
        assert!(!has_next_page(&h));
    }

    #[test]
    fn error_messages_carry_github_s_reasons() {
        let review = br#"{"message":"Unprocessable Entity","errors":["Pull request review thread line must be part of the diff"],"documentation_url":"https://docs.github.com/rest","status":"422"}"#;
        assert_eq!(
            error_message(review),
            "Unprocessable Entity: Pull request review thread line must be part of the diff"
        );
        let validation = br#"{"message":"Validation Failed","errors":[{"resource":"IssueComment","code":"custom","field":"body","message":"body is too long (maximum is 65536 characters)"},{"resource":"Issue","field":"title","code":"missing_field"}]}"#;
        assert_eq!(
            error_message(validation),
            "Validation Failed: body is too long (maximum is 65536 characters); Issue title missing_field"
        );
        assert_eq!(error_message(br#"{"message":"Not Found"}"#), "Not Found");
        assert_eq!(error_message(b""), "(no message)");
    }

    #[test]
    fn paths_and_queries() {
        assert_eq!(encode_path("feature/x y#1", true), "feature/x%20y%231");
        assert_eq!(encode_path("a/b", false), "a%2Fb");
        assert_eq!(encode_path("ünï", true), "%C3%BCn%C3%AF");
        assert_eq!(with_query("/a", "page=2"), "/a?page=2");
        assert_eq!(with_query("/a?x=1", "page=2"), "/a?x=1&page=2");
        assert_eq!(Call::get("/a/b?page=3").what(), "GET /a/b");
    }

    mod against_a_server {
        use std::time::Duration;

        use wiremock::matchers::{method, path};
        use wiremock::{Mock, MockServer, ResponseTemplate};

        use super::super::*;
        use crate::github::{AppPrivateKey, GithubApp, GithubConfig, GithubError, RetryPolicy};

        const KEY: &str = include_str!("../../fixtures/github/test-app-key.pkcs1.pem");
        const ROUTE: &str = "/app/hook/deliveries/1/attempts";

        async fn app(server: &MockServer) -> GithubApp {
            let mut config = GithubConfig::new(1, AppPrivateKey::from_pem(KEY).unwrap())
                .with_api_url(server.uri());
            config.retry = RetryPolicy {
                max_attempts: 4,
                base_delay: Duration::from_millis(1),
                max_delay: Duration::from_millis(5),
                max_wait: Duration::from_secs(5),
                secondary_wait: Duration::from_millis(10),
            };
            GithubApp::new(&config).unwrap()
        }

        fn redeliver() -> Call {
            Call::post(ROUTE, serde_json::json!({}), RetryMode::NotIdempotent)
        }

        #[tokio::test]
        async fn a_write_that_may_have_been_applied_is_sent_once() {
            let server = MockServer::start().await;
            Mock::given(method("POST"))
                .and(path(ROUTE))
                .respond_with(ResponseTemplate::new(502))
                .expect(1)
                .mount(&server)
                .await;
            let app = app(&server).await;
            let err = Sender::App(app.core())
                .send_buffered(&redeliver())
                .await
                .err()
                .unwrap();
            assert!(
                matches!(err, GithubError::WriteOutcomeUnknown { .. }),
                "{err}"
            );
            assert!(
                err.to_string().contains("check before sending it again"),
                "{err}"
            );
        }

        #[tokio::test]
        async fn a_write_refused_by_a_rate_limit_is_sent_again() {
            let server = MockServer::start().await;
            Mock::given(method("POST"))
                .and(path(ROUTE))
                .respond_with(ResponseTemplate::new(403).insert_header("retry-after", "0").set_body_json(
                    serde_json::json!({"message": "You have exceeded a secondary rate limit"}),
                ))
                .up_to_n_times(1)
                .expect(1)
                .mount(&server)
                .await;
            Mock::given(method("POST"))
                .and(path(ROUTE))
                .respond_with(ResponseTemplate::new(202).set_body_json(serde_json::json!({})))
                .expect(1)
                .mount(&server)
                .await;
            let app = app(&server).await;
            Sender::App(app.core())
                .send_buffered(&redeliver())
                .await
                .ok()
                .unwrap();
        }

        #[tokio::test]
        async fn the_app_jwt_goes_with_every_app_request() {
            let server = MockServer::start().await;
            Mock::given(method("GET"))
                .and(path("/app/installations/5"))
                .and(wiremock::matchers::header_exists("authorization"))
                .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
                    "id": 5, "account": {"login": "acme", "type": "Organization"},
                    "suspended_at": null
                })))
                .expect(1)
                .mount(&server)
                .await;
            let app = app(&server).await;
            let info = app
                .get_installation(crate::model::InstallationId(5))
                .await
                .unwrap();
            assert_eq!(info.account_login, "acme");
            assert!(!info.suspended);
        }
    }

    #[test]
    fn error_messages() {
        assert_eq!(
            error_message(br#"{"message":"Not Found","documentation_url":"x"}"#),
            "Not Found"
        );
        assert_eq!(
            error_message(b"<html>bad gateway</html>"),
            "<html>bad gateway</html>"
        );
        assert_eq!(error_message(b""), "(no message)");
    }
}
