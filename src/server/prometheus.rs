//! `/metrics` in Prometheus' text format, behind the status token (as a Bearer header:
//! Prometheus' `authorization` setting). What is counted where it happens (deliveries in
//! intake, GitHub calls and the rate limit left in github, job latency in queue, index
//! durations in jobs) is recorded through the `metrics` facade; what is a state (the
//! queue's depth, the graphs held in memory) is read when scraped.

use std::sync::{Arc, OnceLock};

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

use super::auth::{self, Access, Guard, Peer};
use crate::jobs::GraphCache;
use crate::queue::Queue;

/// Seconds: from a fast GitHub call to a large repository's first index.
const BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0,
];

/// The process's recorder, installed on first use; what is recorded before it is lost.
pub fn recorder() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets(BUCKETS)
                .expect("buckets are not empty")
                .build_recorder();
            let handle = recorder.handle();
            if metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!(
                    "a metrics recorder was installed already: /metrics shows only states"
                );
            }
            handle
        })
        .clone()
}

#[derive(Clone)]
struct MetricsState {
    handle: PrometheusHandle,
    queue: Queue,
    /// None until the App runs (no graphs are held before).
    cache: Option<Arc<GraphCache>>,
    guard: Option<Arc<Guard>>,
}

/// `GET /metrics`.
pub fn router(queue: Queue, cache: Option<Arc<GraphCache>>, guard: Option<Arc<Guard>>) -> Router {
    Router::new()
        .route("/metrics", get(scrape))
        .with_state(MetricsState {
            handle: recorder(),
            queue,
            cache,
            guard,
        })
}

async fn scrape(State(st): State<MetricsState>, Peer(peer): Peer, headers: HeaderMap) -> Response {
    let Some(guard) = &st.guard else {
        return (
            StatusCode::NOT_FOUND,
            "Metrics are off: set BLAST_STATUS_TOKEN and send it as a Bearer token.\n",
        )
            .into_response();
    };
    match guard.check(&headers, peer).await {
        Access::Granted => {}
        Access::Denied => {
            return (
                StatusCode::UNAUTHORIZED,
                "send BLAST_STATUS_TOKEN as a Bearer token\n",
            )
                .into_response()
        }
        Access::Limited(wait) => return auth::limited(wait),
    }
    // The depth only: no count of the whole jobs table on every scrape.
    match st.queue.depth().await {
        Ok(q) => {
            for (state, n) in [
                ("waiting", q.waiting),
                ("due", q.due),
                ("running", q.running),
                ("dead", q.dead),
            ] {
                metrics::gauge!("blast_queue_jobs", "state" => state).set(n as f64);
            }
            metrics::gauge!("blast_queue_oldest_due_seconds")
                .set(q.oldest_due.map_or(0.0, |d| d.as_secs_f64()));
        }
        Err(e) => {
            // The cause goes to the log: a database error can name hosts and users.
            tracing::warn!(error = %e, "/metrics: the queue's depth could not be read");
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                "the database did not answer\n",
            )
                .into_response();
        }
    }
    if let Some(cache) = &st.cache {
        metrics::gauge!("blast_graph_memory_bytes").set(cache.held_bytes() as f64);
        metrics::gauge!("blast_graph_memory_budget_bytes").set(cache.budget_bytes() as f64);
    }
    st.handle.run_upkeep();
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        st.handle.render(),
    )
        .into_response()
}
