//! Shared by the benchmarks: a heap counter and timing helpers.

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};

/// The allocator the binary uses, so figures match the CLI's.
static INNER: System = System;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Counts live heap bytes, so a structure's own size can be measured exactly; only
/// between [`start_counting`] and [`stop_counting`]. Elsewhere it is the plain system allocator, as in the CLI: a
/// shared counter updated on every allocation from every core costs the timed code
/// contended atomics that the product never pays.
pub struct Counting;
pub static LIVE: AtomicUsize = AtomicUsize::new(0);
static ON: AtomicBool = AtomicBool::new(false);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        unsafe { INNER.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if ON.load(Ordering::Relaxed) {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        unsafe { INNER.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        unsafe { INNER.realloc(ptr, layout, new_size) }
    }
}

/// Starts counting heap bytes, from zero.
pub fn start_counting() {
    LIVE.store(0, Ordering::SeqCst);
    ON.store(true, Ordering::SeqCst);
}

/// Stops counting: the bytes allocated and not freed since [`start_counting`]. Memory
/// freed meanwhile that was allocated before counts negative, as it should when a
/// structure is built from another it consumes.
pub fn stop_counting() -> isize {
    ON.store(false, Ordering::SeqCst);
    LIVE.load(Ordering::SeqCst) as isize
}

pub fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        let out = f();
        best = best.min(start.elapsed());
        last = Some(out);
    }
    (best, last.expect("runs > 0"))
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

pub fn corpus() -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(
        std::env::var("BLAST_CORPUS").unwrap_or_else(|_| "../corpus".into()),
    );
    assert!(
        dir.is_dir(),
        "no corpus at {}: build one with shared/scripts/make-corpus.sh DIR full, then BLAST_CORPUS=DIR",
        dir.display()
    );
    dir
}

/// CPU time this process has used so far, all threads, user and system.
pub fn cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// `DATABASE_URL`, or the local server's `postgres` database.
pub fn server_url() -> String {
    std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// Drops and creates database `name` on the server; its URL.
pub async fn fresh_database(name: &str) -> String {
    use sqlx::{ConnectOptions, Executor};
    let admin: sqlx::postgres::PgConnectOptions = server_url().parse().expect("DATABASE_URL");
    let mut conn = admin.connect().await.expect("connect");
    conn.execute(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)").as_str())
        .await
        .unwrap();
    conn.execute(format!("CREATE DATABASE {name}").as_str())
        .await
        .unwrap();
    admin.database(name).to_url_lossy().to_string()
}

/// The release binary beside the bench's own (`target/release/blast-radius`).
pub fn binary() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().join("blast-radius")
}

/// A loopback port nobody listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
