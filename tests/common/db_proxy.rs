//! A TCP proxy in front of Postgres that a test takes down and brings back: down, it cuts
//! every connection through it and drops new ones at once (as a database that went away),
//! so a server pointed at it sees the database unreachable while the test's own pool, on
//! the real port, still reads it.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct DbProxy {
    pub port: u16,
    up: Arc<watch::Sender<bool>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for DbProxy {
    fn drop(&mut self) {
        self.task.abort();
        self.up.send_replace(false);
    }
}

impl DbProxy {
    /// Forwards a loopback port to `target`, up.
    pub async fn start(target: SocketAddr) -> DbProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let up = Arc::new(watch::channel(true).0);
        let task = tokio::spawn(accept(listener, target, up.clone()));
        DbProxy { port, up, task }
    }

    /// `url` (a Postgres URL) through the proxy.
    pub fn url(&self, url: &str) -> String {
        let mut parsed = url::Url::parse(url).unwrap();
        parsed.set_host(Some("127.0.0.1")).unwrap();
        parsed.set_port(Some(self.port)).unwrap();
        parsed.to_string()
    }

    /// The database goes away: every connection through the proxy is cut, new ones too.
    pub fn down(&self) {
        self.up.send_replace(false);
    }

    /// The database is back.
    pub fn up(&self) {
        self.up.send_replace(true);
    }
}

async fn accept(listener: TcpListener, target: SocketAddr, up: Arc<watch::Sender<bool>>) {
    loop {
        let Ok((client, _)) = listener.accept().await else {
            continue;
        };
        if !*up.borrow() {
            drop(client);
            continue;
        }
        let mut down = up.subscribe();
        tokio::spawn(async move {
            let Ok(server) = TcpStream::connect(target).await else {
                return;
            };
            let (mut client, mut server) = (client, server);
            tokio::select! {
                _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                _ = down.wait_for(|up| !*up) => {}
            }
        });
    }
}
