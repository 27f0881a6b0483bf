//! Many `work` processes on one database (issue 27 §5), with GitHub faked on loopback and
//! the release binary as the processes:
//!   BLAST_CORPUS=DIR DATABASE_URL=postgres://... cargo bench --bench workers
//! Uses (and drops) the database `blast_bench_workers`. For each count of `work`
//! processes (BLAST_BENCH_PROCESSES, default `1,2,4`; each runs BLAST_BENCH_JOBS_PER_PROCESS
//! jobs at once, default 1) on a fresh database: 200 repositories in 10 installations,
//! each a copy of the same 40 real files, are installed (200 index jobs), then pushed to
//! four times (800 push jobs, each round delivered once the last has drained, so none
//! coalesces): 1,000 jobs. A `serve` with `BLAST_WORKERS=0` takes the deliveries and runs
//! nothing. Prints the time and throughput, how the jobs spread over the processes, the
//! CPU seconds of the workers, Postgres and this process (the fake), and checks that every
//! job ran once to done and every repository's graph is at its head, equal to the others.

mod common;
#[path = "../tests/fake_github/mod.rs"]
mod fake_github;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use blast_radius::intake::sign;
use common::{binary, free_port, fresh_database};
use fake_github::{FakeGithub, APP_ID, PRIVATE_KEY_PKCS1};
use serde_json::json;
use sqlx::PgPool;

const SECRET: &str = "bench secret";
const INSTALLATIONS: i64 = 10;
const REPOS_PER_INSTALLATION: usize = 20;
/// At least this many files (whole modules with their imports).
const FILES: usize = 40;
const PUSH_ROUNDS: usize = 4;

struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Process {
    /// User + system CPU seconds so far (Linux `/proc`).
    fn cpu_seconds(&self) -> f64 {
        cpu_of(self.0.id())
    }
}

fn cpu_of(pid: u32) -> f64 {
    cpu_fields(pid, 2)
}

/// This process's CPU seconds and its waited-for children's (the fake's `git` runs).
fn own_cpu() -> f64 {
    cpu_fields(std::process::id(), 4)
}

/// The sum of `n` CPU fields from utime on (utime, stime, cutime, cstime), in seconds.
fn cpu_fields(pid: u32, n: usize) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // Fields after the command's closing parenthesis; utime and stime are 14th and 15th.
    let rest = &stat[stat.rfind(')').map_or(0, |i| i + 2)..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields[11..11 + n]
        .iter()
        .map(|f| f.parse::<f64>().unwrap_or(0.0))
        .sum();
    ticks / 100.0
}

/// The machine's CPU time so far from `/proc/stat`: (busy, all), in ticks. Busy counts
/// system time too: the fake's `git` runs spend much of theirs in the kernel.
fn machine_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let line = stat.lines().next().unwrap_or_default();
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    let all: u64 = fields.iter().take(8).sum();
    // idle and iowait are the 4th and 5th.
    let idle = fields.get(3).copied().unwrap_or(0) + fields.get(4).copied().unwrap_or(0);
    (all - idle, all)
}

/// CPU seconds of every process named `postgres` on the machine.
fn postgres_cpu() -> f64 {
    let mut total = 0.0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if comm.trim() == "postgres" {
            total += cpu_of(pid);
        }
    }
    total
}

fn launch(command: &str, db: &str, fake: &FakeGithub, port: u16, workers: usize) -> Process {
    let child = Command::new(binary())
        .arg(command)
        .env("GITHUB_APP_ID", APP_ID.to_string())
        .env("GITHUB_PRIVATE_KEY", PRIVATE_KEY_PKCS1)
        .env("GITHUB_WEBHOOK_SECRET", SECRET)
        .env("DATABASE_URL", db)
        .env("GITHUB_API_URL", fake.api_url())
        .env("PORT", port.to_string())
        .env("BLAST_WORKERS", workers.to_string())
        .env("BLAST_CATCH_UP_MINUTES", "0")
        .stdout(Stdio::null())
        // BLAST_BENCH_LOG=DIR keeps each process's log there, to see where the time goes.
        .stderr(match std::env::var_os("BLAST_BENCH_LOG") {
            Some(dir) => Stdio::from(
                std::fs::File::create(Path::new(&dir).join(format!("{command}-{port}.log")))
                    .unwrap(),
            ),
            None => Stdio::null(),
        })
        .spawn()
        .expect("build the release binary first: cargo build --release");
    Process(child)
}

async fn ready(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while reqwest::get(format!("http://127.0.0.1:{port}/readyz"))
        .await
        .map_or(true, |r| !r.status().is_success())
    {
        assert!(Instant::now() < deadline, "server not ready");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn deliver(client: &reqwest::Client, port: u16, event: &str, id: &str, body: Vec<u8>) {
    let status = client
        .post(format!("http://127.0.0.1:{port}/webhook"))
        .header("X-GitHub-Event", event)
        .header("X-GitHub-Delivery", id)
        .header("X-Hub-Signature-256", sign(SECRET, &body))
        .header("Content-Type", "application/json")
        .body(body)
        .send()
        .await
        .map(|r| r.status().as_u16())
        .unwrap_or(0);
    assert_eq!(status, 202, "delivery {id}");
}

/// One repository of the fleet: a bare clone of the template, its commits in order.
struct FleetRepo {
    dir: tempfile::TempDir,
    id: i64,
    name: String,
    installation: i64,
}

fn git(dir: &Path, args: &[&str]) -> String {
    fake_github::git::run_text(dir, args).unwrap()
}

/// The template: FILES real files from the corpus, then PUSH_ROUNDS commits each adding a
/// function to one file and a call of it to another.
fn template(corpus: &Path) -> (fake_github::TestRepo, Vec<String>, usize) {
    let source = corpus.join("lodash-es");
    let mut all: Vec<String> = std::fs::read_dir(&source)
        .expect("BLAST_CORPUS holds lodash-es")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".js"))
        .collect();
    all.sort();
    // Whole modules with what they import, so the calls between them resolve.
    let mut names: Vec<String> = Vec::new();
    for seed in &all {
        let mut stack = vec![seed.clone()];
        while let Some(n) = stack.pop() {
            if names.contains(&n) || !all.contains(&n) {
                continue;
            }
            let text = std::fs::read_to_string(source.join(&n)).unwrap();
            for part in text.split("from './").skip(1) {
                stack.extend(part.split('\'').next().map(str::to_string));
            }
            names.push(n);
        }
        if names.len() >= FILES {
            break;
        }
    }
    let repo = fake_github::TestRepo::new();
    for n in &names {
        repo.write(&format!("src/{n}"), std::fs::read(source.join(n)).unwrap());
    }
    let mut commits = vec![repo.commit("the files")];
    for k in 0..PUSH_ROUNDS {
        let callee = format!("src/{}", names[k * 7 % names.len()]);
        let caller = format!("src/{}", names[(k * 7 + 3) % names.len()]);
        let mut text = std::fs::read_to_string(repo.path().join(&callee)).unwrap();
        text.push_str(&format!(
            "\nexport function pushed{k}(x) {{ return x + {k}; }}\n"
        ));
        repo.write(&callee, text);
        let mut text = std::fs::read_to_string(repo.path().join(&caller)).unwrap();
        let module = callee.trim_start_matches("src/");
        text = format!("import {{ pushed{k} }} from './{module}';\n{text}\nexport function calls{k}() {{ return pushed{k}({k}); }}\n");
        repo.write(&caller, text);
        commits.push(repo.commit(&format!("push {k}")));
    }
    (repo, commits, names.len())
}

fn main() {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run());
}

async fn run() {
    let processes: Vec<usize> = std::env::var("BLAST_BENCH_PROCESSES")
        .unwrap_or_else(|_| "1,2,4".into())
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .expect("BLAST_BENCH_PROCESSES: counts, comma-separated")
        })
        .collect();
    let per_process: usize = std::env::var("BLAST_BENCH_JOBS_PER_PROCESS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let fake = FakeGithub::start().await;
    let (template, commits, files) = template(&common::corpus());
    let mut fleet = Vec::new();
    for i in 0..INSTALLATIONS {
        let installation = 100 + i;
        fake.add_installation(installation, &format!("org{i}"));
        for r in 0..REPOS_PER_INSTALLATION {
            let dir = tempfile::tempdir().unwrap();
            fake_github::git::run(
                Path::new("."),
                &[
                    "clone",
                    "-q",
                    "--bare",
                    &template.path().to_string_lossy(),
                    &dir.path().to_string_lossy(),
                ],
            )
            .unwrap();
            let name = format!("org{i}/service{r}");
            let id = fake.add_repo(installation, &name, dir.path());
            // The archives GitHub would serve, made before any clock starts.
            fake_github::git::archive(
                dir.path(),
                &commits[0],
                &format!("org{i}-service{r}-{}", &commits[0][..7]),
            )
            .unwrap();
            fleet.push(FleetRepo {
                dir,
                id,
                name,
                installation,
            });
        }
    }
    println!(
        "{} repositories in {INSTALLATIONS} installations, {files} files each; {per_process} job(s) at once per work process; load average {}",
        fleet.len(),
        loadavg()
    );
    for &n in &processes {
        run_once(&fake, &fleet, &commits, n, per_process).await;
    }
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

async fn run_once(
    fake: &FakeGithub,
    fleet: &[FleetRepo],
    commits: &[String],
    processes: usize,
    per_process: usize,
) {
    for repo in fleet {
        git(
            repo.dir.path(),
            &["update-ref", "refs/heads/main", &commits[0]],
        );
    }
    fake.reset_rate_limits();
    let db = fresh_database("blast_bench_workers").await;
    let pool = PgPool::connect(&db).await.unwrap();
    let port = free_port();
    let serve = launch("serve", &db, fake, port, 0);
    ready(port).await;
    let workers: Vec<Process> = (0..processes)
        .map(|_| launch("work", &db, fake, free_port(), per_process))
        .collect();
    // The workers connect and listen before the clock starts.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let client = reqwest::Client::new();
    let cpu_before = (postgres_cpu(), own_cpu(), machine_ticks());
    let load_before = loadavg();
    let start = Instant::now();

    // ---- round 0: every installation created, with its repositories ----
    let mut deliveries = Vec::new();
    for i in 0..INSTALLATIONS {
        let installation = 100 + i;
        let repos: Vec<_> = fleet
            .iter()
            .filter(|r| r.installation == installation)
            .map(|r| json!({ "id": r.id, "full_name": r.name }))
            .collect();
        let body = serde_json::to_vec(&json!({
            "action": "created",
            "installation": { "id": installation, "account": { "login": format!("org{i}") } },
            "repositories": repos,
        }))
        .unwrap();
        deliveries.push(("installation", format!("install-{installation}"), body));
    }
    send_all(&client, port, deliveries).await;
    wait_for(&pool, fleet, &commits[0]).await;
    let mut rounds = vec![start.elapsed().as_secs_f64()];

    // ---- rounds 1..: a push to every repository ----
    for k in 1..=PUSH_ROUNDS {
        let t = Instant::now();
        let mut deliveries = Vec::new();
        for repo in fleet {
            git(
                repo.dir.path(),
                &["update-ref", "refs/heads/main", &commits[k]],
            );
            let body = serde_json::to_vec(&json!({
                "ref": "refs/heads/main", "before": commits[k - 1], "after": commits[k],
                "created": false, "deleted": false, "forced": false,
                "repository": { "id": repo.id, "full_name": repo.name, "default_branch": "main" },
                "installation": { "id": repo.installation },
            }))
            .unwrap();
            deliveries.push(("push", format!("push-{}-{k}", repo.id), body));
        }
        send_all(&client, port, deliveries).await;
        wait_for(&pool, fleet, &commits[k]).await;
        rounds.push(t.elapsed().as_secs_f64());
    }
    let total = start.elapsed().as_secs_f64();
    let worker_cpu: f64 = workers.iter().map(Process::cpu_seconds).sum();
    let postgres = postgres_cpu() - cpu_before.0;
    let own = own_cpu() - cpu_before.1;
    let machine = machine_ticks();
    let busy = (machine.0 - cpu_before.2 .0) as f64 / (machine.1 - cpu_before.2 .1).max(1) as f64;
    let load_after = loadavg();
    drop(workers);
    drop(serve);

    // ---- what ran ----
    let (jobs, done, retried, dead): (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT count(*), count(*) FILTER (WHERE state = 'done'),
                count(*) FILTER (WHERE attempts > 1), count(*) FILTER (WHERE state = 'dead')
         FROM jobs WHERE kind IN ('index_repository', 'apply_push')",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let expected = fleet.len() * (1 + PUSH_ROUNDS);
    // An installation's sync also enqueues an index of each repository not indexed yet;
    // it coalesces with a waiting one, and one that arrives while that index runs finds
    // the repository at its head and does nothing.
    assert!(
        jobs as usize >= expected,
        "one job per install and per push at least"
    );
    assert_eq!(done, jobs, "every job done");
    assert_eq!(dead, 0);
    let spread: Vec<i64> = sqlx::query_scalar(
        "SELECT count(*) FROM jobs WHERE kind IN ('index_repository', 'apply_push')
         GROUP BY split_part(claimed_by, ':', 2) ORDER BY 1 DESC",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    // Every repository's graph is the same as the first one's (the same files).
    let edges: Vec<i64> = sqlx::query_scalar(
        "SELECT count(e.*) FROM repositories r LEFT JOIN edges e ON e.repo_id = r.id
         GROUP BY r.id",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(edges.len(), fleet.len());
    assert!(edges.iter().all(|&e| e == edges[0] && e > 0), "{edges:?}");
    println!(
        "{processes} work process(es): {jobs} jobs ({} more than the 1,000: syncs' index jobs) in {total:.1} s ({:.1} jobs/s); install round {:.1} s, push rounds {}; \
         jobs per process {spread:?}; {retried} ran more than once; CPU s: workers {worker_cpu:.1}, postgres {postgres:.1}, fake with its git runs and bench {own:.1}; the machine's cores {:.0}% busy; \
         load average {load_before} -> {load_after}; {} edges per repository",
        jobs as usize - expected,
        jobs as f64 / total,
        rounds[0],
        rounds[1..]
            .iter()
            .map(|t| format!("{t:.1} s"))
            .collect::<Vec<_>>()
            .join(", "),
        busy * 100.0,
        edges[0],
    );
    pool.close().await;
}

async fn send_all(client: &reqwest::Client, port: u16, deliveries: Vec<(&str, String, Vec<u8>)>) {
    let tasks: Vec<_> = deliveries
        .into_iter()
        .map(|(event, id, body)| {
            let client = client.clone();
            let event = event.to_string();
            tokio::spawn(async move { deliver(&client, port, &event, &id, body).await })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
}

/// Until every repository's stored graph is at `commit` and no job waits or runs.
async fn wait_for(pool: &PgPool, fleet: &[FleetRepo], commit: &str) {
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let (at, busy): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT count(*) FROM repositories WHERE commit_sha = $1),
                    (SELECT count(*) FROM jobs WHERE state IN ('waiting', 'running'))",
        )
        .bind(commit)
        .fetch_one(pool)
        .await
        .unwrap();
        if at as usize == fleet.len() && busy == 0 {
            return;
        }
        let dead: i64 = sqlx::query_scalar("SELECT count(*) FROM jobs WHERE state = 'dead'")
            .fetch_one(pool)
            .await
            .unwrap();
        assert_eq!(dead, 0, "a job died");
        assert!(
            Instant::now() < deadline,
            "not drained: {at} repositories at {commit}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
