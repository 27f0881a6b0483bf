//! The HTTP listener: HTTP/1.1 (what GitHub's deliveries, Fly's proxy and browsers speak
//! to us), with a time limit on each request's headers, and each request told its
//! client's address ([`ClientAddr`]).
//!
//! `axum::serve` sets no header timeout: a caller that sends half its headers held its
//! connection (and a task) for as long as it liked. Here a request whose headers are not
//! whole within [`HEADER_TIMEOUT`] (counted from when the server waits for them, idle
//! keep-alive time included) has its connection closed. What follows the headers is the
//! routes' to bound (`/webhook`'s body timeout).

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::pin;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tower::ServiceExt as _;

use crate::intake::client::{ClientAddr, ClientAddrSource};

/// GitHub sends a delivery's headers at once; a browser too.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How the listener treats connections.
#[derive(Clone, Debug)]
pub struct Listening {
    pub header_timeout: Duration,
    pub clients: ClientAddrSource,
}

impl Default for Listening {
    fn default() -> Self {
        Listening {
            header_timeout: HEADER_TIMEOUT,
            clients: ClientAddrSource::Peer,
        }
    }
}

/// Serves `router` on `listener` until `stop` resolves; then stops accepting, lets the
/// requests under way finish, and returns.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    listening: Listening,
    stop: impl Future<Output = ()> + Send + 'static,
) {
    let mut stop = pin!(stop);
    // Every connection's task holds a receiver: closing tells them to finish, and the
    // sender learns when the last one has.
    let (closing_tx, closing_rx) = watch::channel(false);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, most likely: wait for some to close.
                    tracing::warn!("accepting a connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        tokio::spawn(connection(
            stream,
            peer,
            router.clone(),
            listening.clone(),
            closing_rx.clone(),
        ));
    }
    drop(listener);
    let _ = closing_tx.send(true);
    drop(closing_rx);
    closing_tx.closed().await;
}

async fn connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    router: Router,
    listening: Listening,
    mut closing: watch::Receiver<bool>,
) {
    let clients = listening.clients;
    let service = tower::service_fn(move |mut request: Request<Incoming>| {
        let client = clients.resolve(request.headers(), Some(peer.ip()));
        request.extensions_mut().insert(ConnectInfo(peer));
        request.extensions_mut().insert(ClientAddr(client));
        let response = router.clone().oneshot(request.map(Body::new));
        async move { Ok::<_, Infallible>(response.await.unwrap_or_else(|e| match e {})) }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(listening.header_timeout);
    let mut conn =
        pin!(builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service)));
    let mut told = false;
    loop {
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(%peer, "connection ended: {e}");
                }
                return;
            }
            _ = closing.wait_for(|c| *c), if !told => {
                told = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}
