//! The MCP server's figures (see BENCHMARKS.md), the server being the binary this bench
//! builds, driven over stdio with raw JSON-RPC lines as an MCP client sends them:
//!   BLAST_CORPUS=DIR cargo bench --bench mcp
//! Prints: start-up (spawn to the `initialize` answer, the index included) on the corpus,
//! best and median of 3; then the round trip of `find_callers` (request written to the
//! answer read, each call waiting for the file watcher's marker as every call does),
//! by FILE:LINE and by name, median and tail over `BLAST_BENCH_CALLS` calls (default
//! 2,000). Then, on a copy of the corpus, an edit followed by a call: one file changed
//! (re-extracted alone), and one file added (a new walk of the tree). The corpus itself
//! is only read. The targets are the first definitions found for a few names of the
//! `full` corpus; `BLAST_BENCH_TARGETS=a,b` names others.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Spawns the server on `repo` and completes the handshake; the time it took.
    fn start(repo: &str) -> (Server, Duration) {
        let start = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_blast-radius"))
            .args(["mcp", "--repo", repo])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn blast-radius mcp");
        let mut server = Server {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
            next_id: 0,
        };
        let init = server.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": "bench", "version": "1" },
            }),
        );
        assert_eq!(
            init["result"]["serverInfo"]["name"], "blast-radius",
            "{init}"
        );
        let took = start.elapsed();
        server.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        (server, took)
    }

    fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).unwrap();
        self.stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let answer = self.request(
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
        );
        answer["result"].clone()
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// Round trips of `find_callers` over `targets`, in turn, `calls` in all.
fn round_trips(server: &mut Server, targets: &[String], calls: usize) -> Vec<Duration> {
    let mut times = Vec::with_capacity(calls);
    for i in 0..calls {
        let target = &targets[i % targets.len()];
        let start = Instant::now();
        let answer = server.call("find_callers", json!({ "target": target }));
        times.push(start.elapsed());
        assert_eq!(answer["isError"], false, "{target}: {answer}");
    }
    times.sort();
    times
}

fn report(what: &str, times: &[Duration]) {
    println!(
        "{what:<34} median {}  p90 {}  p99 {}  max {}  ({} calls)",
        ms(percentile(times, 0.5)),
        ms(percentile(times, 0.9)),
        ms(percentile(times, 0.99)),
        ms(*times.last().unwrap()),
        times.len()
    );
}

fn main() {
    let Ok(corpus) = std::env::var("BLAST_CORPUS") else {
        eprintln!("set BLAST_CORPUS to a corpus directory (../shared/scripts/make-corpus.sh)");
        return;
    };
    let calls: usize = std::env::var("BLAST_BENCH_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000);

    let mut starts = Vec::new();
    for _ in 0..3 {
        let (server, took) = Server::start(&corpus);
        starts.push(took);
        drop(server);
    }
    starts.sort();
    println!(
        "start-up (spawn to initialize answer) best {}  median {}",
        ms(starts[0]),
        ms(starts[1])
    );

    let (mut server, _) = Server::start(&corpus);
    let summary = server.request(
        "resources/read",
        json!({ "uri": "blast-radius://graph/summary" }),
    );
    let summary: Value =
        serde_json::from_str(summary["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    println!(
        "graph: {} files, {} definitions, {} edges exact, {} skipped",
        summary["files"],
        summary["definitions"],
        summary["edges"]["exact"],
        summary["skipped"]["total"]
    );
    // Targets with callers, found the way an agent finds them.
    let mut by_place = Vec::new();
    let mut by_name = Vec::new();
    let mut callers = 0;
    let queries = std::env::var("BLAST_BENCH_TARGETS").unwrap_or_else(|_| {
        "debounce,mergeMap,Vector3.add,addDays,createProgram,useThemeProps,\
         Observable.subscribe,isObject"
            .into()
    });
    for query in queries.split(',') {
        let found = server.call("search_definitions", json!({ "query": query, "limit": 1 }));
        let Some(d) = found["structuredContent"]["matches"].get(0).cloned() else {
            continue;
        };
        let place = format!("{}:{}", d["file"].as_str().unwrap(), d["line"]);
        let answer = server.call("find_callers", json!({ "target": place }));
        callers += answer["structuredContent"]["callers"]
            .as_array()
            .map_or(0, Vec::len);
        by_place.push(place);
        let name = d["qualified_name"].as_str().unwrap().to_string();
        let answer = server.call("find_callers", json!({ "target": name }));
        if answer["isError"] == false {
            by_name.push(name);
        }
    }
    println!(
        "targets: {} by FILE:LINE ({callers} call sites in all), {} by unambiguous name",
        by_place.len(),
        by_name.len()
    );
    assert!(
        !by_place.is_empty(),
        "none of {queries} is defined in the corpus (BLAST_BENCH_TARGETS names others)"
    );
    // Warm up, then measure.
    round_trips(&mut server, &by_place, 100);
    report(
        "find_callers round trip, FILE:LINE",
        &round_trips(&mut server, &by_place, calls),
    );
    if !by_name.is_empty() {
        report(
            "find_callers round trip, by name",
            &round_trips(&mut server, &by_name, calls),
        );
    }
    drop(server);
    edits(&corpus, &by_place[0]);
}

/// Edit-to-answer: the call after an edit, on a copy of the corpus.
fn edits(corpus: &str, target: &str) {
    let copy = tempfile::tempdir().unwrap();
    copy_dir(Path::new(corpus), copy.path());
    let root = copy.path().to_str().unwrap();
    let (mut server, _) = Server::start(root);
    let file = copy.path().join(target.rsplit_once(':').unwrap().0);
    let text = std::fs::read_to_string(&file).unwrap();
    round_trips(&mut server, &[target.to_string()], 20);
    let mut changed = Vec::new();
    for i in 0..40 {
        std::fs::write(&file, format!("{text}\n// edit {i}\n")).unwrap();
        let start = Instant::now();
        let answer = server.call("find_callers", json!({ "target": target }));
        changed.push(start.elapsed());
        assert_eq!(answer["isError"], false, "{answer}");
    }
    changed.sort();
    report("a file changed, then find_callers", &changed);
    let name = target.rsplit_once(':').unwrap().0;
    let mut added = Vec::new();
    for i in 0..10 {
        std::fs::write(
            copy.path().join(format!("bench-added-{i}.js")),
            format!(
                "import {{ x }} from './{name}';\nexport function added{i}() {{ return x(); }}\n"
            ),
        )
        .unwrap();
        let start = Instant::now();
        let answer = server.call("find_callers", json!({ "target": target }));
        added.push(start.elapsed());
        assert_eq!(answer["isError"], false, "{answer}");
    }
    added.sort();
    report("a file added, then find_callers", &added);
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_dir(&entry.path(), &dest);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}
