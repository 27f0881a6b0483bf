//! Headers on every answer the server gives, for the HTML pages above all (`/`, `/setup`,
//! the sign-in form): never framed (clickjacking), never sniffed into another type, no
//! address leaked to other sites beyond our origin, and a content policy that allows
//! exactly what the pages use: inline styles (the pages' `<style>` and `style=""`), no
//! script at all, forms to this server and to GitHub (`/setup` posts the App's
//! manifest there). Over https (PUBLIC_URL), browsers are also told to keep to https.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderName, HeaderValue};
use axum::response::Response;
use axum::Router;

/// The headers, built once.
#[derive(Clone)]
pub struct PageHeaders(Arc<Vec<(HeaderName, HeaderValue)>>);

impl PageHeaders {
    /// `https`: whether browsers reach the server over https; `github_web`: GitHub's web
    /// address, where `/setup`'s form goes.
    pub fn new(https: bool, github_web: &str) -> PageHeaders {
        let github = url::Url::parse(github_web)
            .map(|u| u.origin().ascii_serialization())
            .ok()
            .filter(|o| o != "null");
        let csp = format!(
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'{}; \
             frame-ancestors 'none'; base-uri 'none'",
            github.map(|o| format!(" {o}")).unwrap_or_default()
        );
        let mut headers = vec![
            (header::X_FRAME_OPTIONS, "DENY".to_string()),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_string()),
            // Not `no-referrer`: that would send `Origin: null` with the manifest's
            // cross-site POST to GitHub.
            (
                header::REFERRER_POLICY,
                "strict-origin-when-cross-origin".to_string(),
            ),
            (header::CONTENT_SECURITY_POLICY, csp),
        ];
        if https {
            headers.push((
                header::STRICT_TRANSPORT_SECURITY,
                "max-age=31536000".to_string(),
            ));
        }
        PageHeaders(Arc::new(
            headers
                .into_iter()
                .filter_map(|(name, value)| Some((name, HeaderValue::try_from(value).ok()?)))
                .collect(),
        ))
    }

    /// `router` with the headers on each of its answers (a handler's own win).
    pub fn wrap(self, router: Router) -> Router {
        router.layer(axum::middleware::map_response_with_state(self, add))
    }
}

async fn add(State(page): State<PageHeaders>, mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in page.0.iter() {
        headers.entry(name.clone()).or_insert_with(|| value.clone());
    }
    response
}

/// Whether PUBLIC_URL says browsers reach the server over https.
pub fn over_https(public_url: Option<&str>) -> bool {
    public_url.is_some_and(|u| u.trim().to_ascii_lowercase().starts_with("https://"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_may_go_to_github_and_nowhere_else() {
        let h = PageHeaders::new(true, "https://git.example.com/");
        let csp =
            &h.0.iter()
                .find(|(n, _)| n == header::CONTENT_SECURITY_POLICY)
                .unwrap()
                .1;
        assert_eq!(
            csp.to_str().unwrap(),
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' \
             https://git.example.com; frame-ancestors 'none'; base-uri 'none'"
        );
        assert!(h
            .0
            .iter()
            .any(|(n, _)| n == header::STRICT_TRANSPORT_SECURITY));
        let plain = PageHeaders::new(false, "https://github.com");
        assert!(!plain
            .0
            .iter()
            .any(|(n, _)| n == header::STRICT_TRANSPORT_SECURITY));
    }
}
