//! The App's webhook delivery log, as the App (JWT) reads it: `GET /app/hook/deliveries`
//! (newest first, cursor pagination) and `POST /app/hook/deliveries/{id}/attempts` (ask
//! GitHub to deliver one again, with the same `X-GitHub-Delivery` GUID). octocrab has no
//! typed call for either.

use chrono::{DateTime, Utc};
use http::HeaderMap;
use serde::Deserialize;

use super::app::GithubApp;
use super::error::Result;
use super::retry::RetryMode;
use super::transport::{Call, Sender};

/// One attempt GitHub made at delivering an event to the App's webhook URL. A redelivery
/// is an attempt of its own (a new `id`, the same `guid`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct HookDelivery {
    /// The attempt's id: what a redelivery is asked for by.
    pub id: u64,
    /// `X-GitHub-Delivery`: the same for every attempt at one event.
    pub guid: String,
    pub delivered_at: DateTime<Utc>,
    #[serde(default)]
    pub redelivery: bool,
    /// `OK` when the App answered 2xx; else what went wrong (`Invalid HTTP Response:
    /// 503`, a refused connection, a time-out).
    pub status: String,
    /// The App's HTTP status; 0 when it gave none (no connection, no answer in time).
    #[serde(default)]
    pub status_code: u16,
    pub event: String,
    #[serde(default)]
    pub action: Option<String>,
    #[serde(default)]
    pub installation_id: Option<i64>,
    #[serde(default)]
    pub repository_id: Option<i64>,
}

impl HookDelivery {
    pub fn succeeded(&self) -> bool {
        self.status == "OK"
    }
}

/// The log read back to a point in time, newest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeliveryLog {
    /// Attempts at or after the point asked for.
    pub attempts: Vec<HookDelivery>,
    /// The log was read back to that point (or to its end); false when the page budget
    /// ran out first, and older attempts went unread.
    pub complete: bool,
    /// Pages read.
    pub pages: u32,
}

/// GitHub's largest page.
const PER_PAGE: u32 = 100;

impl GithubApp {
    /// The App's delivery attempts since `since`, newest first, reading at most
    /// `max_pages` pages of 100.
    pub async fn hook_deliveries(
        &self,
        since: DateTime<Utc>,
        max_pages: u32,
    ) -> Result<DeliveryLog> {
        let sender = Sender::App(self.core_ref());
        let mut log = DeliveryLog::default();
        let mut cursor: Option<String> = None;
        while log.pages < max_pages {
            let route = match &cursor {
                None => format!("/app/hook/deliveries?per_page={PER_PAGE}"),
                Some(c) => format!("/app/hook/deliveries?per_page={PER_PAGE}&cursor={c}"),
            };
            let call = Call::get(route);
            let got = sender.send_buffered(&call).await?;
            log.pages += 1;
            let page: Vec<HookDelivery> = got.json(&call.what())?;
            let reached = page.iter().any(|d| d.delivered_at < since);
            log.attempts
                .extend(page.into_iter().filter(|d| d.delivered_at >= since));
            cursor = next_cursor(&got.headers);
            if reached || cursor.is_none() {
                log.complete = true;
                return Ok(log);
            }
        }
        Ok(log)
    }

    /// Asks GitHub to deliver attempt `id`'s event again. Asking twice does no harm (the
    /// GUID is the same, and intake takes a GUID once).
    pub async fn redeliver(&self, id: u64) -> Result<()> {
        let call = Call::post_empty(
            format!("/app/hook/deliveries/{id}/attempts"),
            RetryMode::Idempotent,
        );
        Sender::App(self.core_ref()).send_buffered(&call).await?;
        Ok(())
    }
}

/// The `cursor` of the `Link` header's `rel="next"` URL: the next page is asked for by a
/// relative route (see `transport`), never by GitHub's absolute URL. Only a plain token
/// is taken.
fn next_cursor(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(http::header::LINK)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .find(|part| {
            part.split(';')
                .skip(1)
                .any(|p| matches!(p.trim(), "rel=\"next\"" | "rel=next"))
        })
        .and_then(|part| {
            let url = part.split(';').next()?.trim();
            let url = url.strip_prefix('<')?.strip_suffix('>')?;
            let query = url.split_once('?')?.1;
            query
                .split('&')
                .find_map(|kv| kv.strip_prefix("cursor="))
                .map(str::to_string)
        })
        .filter(|c| {
            !c.is_empty()
                && c.len() <= 200
                && c.bytes().all(|b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'%' | b'=')
                })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn the_next_cursor_is_read_from_the_link_header() {
        let mut h = HeaderMap::new();
        assert_eq!(next_cursor(&h), None);
        h.insert(
            http::header::LINK,
            HeaderValue::from_static(
                "<https://api.github.com/app/hook/deliveries?per_page=100&cursor=v1_12077215967>; rel=\"next\"",
            ),
        );
        assert_eq!(next_cursor(&h).as_deref(), Some("v1_12077215967"));
        h.insert(
            http::header::LINK,
            HeaderValue::from_static(
                "<https://api.github.com/app/hook/deliveries?cursor=a&b=c>; rel=\"prev\"",
            ),
        );
        assert_eq!(next_cursor(&h), None);
        // Anything but a plain token is not sent on.
        h.insert(
            http::header::LINK,
            HeaderValue::from_static(
                "<https://api.github.com/app/hook/deliveries?cursor=x/../../evil>; rel=\"next\"",
            ),
        );
        assert_eq!(next_cursor(&h), None);
    }

    #[test]
    fn github_s_delivery_item_is_read() {
        // The example of GitHub's REST description (apps/list-webhook-deliveries).
        let item = serde_json::json!([{
            "id": 12345678,
            "guid": "0b989ba4-242f-11e5-81e1-c7b6966d2516",
            "delivered_at": "2019-06-03T00:57:16Z",
            "redelivery": false,
            "duration": 0.27,
            "status": "OK",
            "status_code": 200,
            "event": "issues",
            "action": "opened",
            "installation_id": 123,
            "repository_id": 456,
            "throttled_at": "2019-06-03T00:57:16Z"
        }]);
        let page: Vec<HookDelivery> = serde_json::from_value(item).unwrap();
        assert!(page[0].succeeded());
        assert_eq!(page[0].installation_id, Some(123));
        let failed: HookDelivery = serde_json::from_value(serde_json::json!({
            "id": 1, "guid": "g", "delivered_at": "2019-06-03T00:57:16Z", "redelivery": true,
            "duration": 10.0, "status": "timed out", "status_code": 0, "event": "push",
            "action": null, "installation_id": null, "repository_id": null
        }))
        .unwrap();
        assert!(!failed.succeeded());
    }
}
