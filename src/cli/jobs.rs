//! `blast-radius jobs`: the operator's view of the App's job queue (list jobs, retry dead
//! ones), straight on its database.

use anyhow::{bail, Context, Result};
use clap::{Subcommand, ValueEnum};

use crate::queue::{JobId, JobState, JobSummary, Queue, QueueConfig};

#[derive(Subcommand)]
pub enum JobsCommand {
    /// Jobs, newest first (by their last change): id, state, kind, attempts, age, error.
    List {
        /// Only jobs in this state.
        #[arg(long, value_enum)]
        state: Option<StateArg>,
        /// At most this many.
        #[arg(long, default_value_t = 20)]
        limit: i64,
    },
    /// Make dead jobs wait again, with fresh attempts (after fixing what killed them).
    RetryDead {
        /// The jobs' ids (as `jobs list` shows them).
        #[arg(required_unless_present = "all")]
        ids: Vec<i64>,
        /// Every dead job.
        #[arg(long, conflicts_with = "ids")]
        all: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum StateArg {
    Waiting,
    Running,
    Done,
    Dead,
}

impl From<StateArg> for JobState {
    fn from(s: StateArg) -> JobState {
        match s {
            StateArg::Waiting => JobState::Waiting,
            StateArg::Running => JobState::Running,
            StateArg::Done => JobState::Done,
            StateArg::Dead => JobState::Dead,
        }
    }
}

pub fn run(url: &str, command: JobsCommand) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let config = QueueConfig {
            listen: false,
            ..QueueConfig::default()
        };
        let target = crate::store::describe_url(url)?;
        let queue = Queue::connect(url, 2, config)
            .await
            .with_context(|| format!("connecting to the database at {target}"))?;
        queue.check_ready().await?;
        match command {
            JobsCommand::List { state, limit } => {
                for job in queue.list(state.map(JobState::from), limit).await? {
                    println!("{}", line(&job, chrono::Utc::now()));
                }
            }
            JobsCommand::RetryDead { all: true, .. } => {
                let n = queue.retry_all_dead().await?;
                println!("{n} dead job(s) waiting again");
            }
            JobsCommand::RetryDead { ids, .. } => {
                let mut not_dead = Vec::new();
                for id in ids {
                    if queue.retry_dead(JobId(id)).await? {
                        println!("job {id} waiting again");
                    } else {
                        not_dead.push(id.to_string());
                    }
                }
                if !not_dead.is_empty() {
                    bail!(
                        "not dead (or no such job): {}; `blast-radius jobs list --state dead` lists the dead ones",
                        not_dead.join(", ")
                    );
                }
            }
        }
        Ok(())
    })
}

/// One job on one line: the error's first line, cut at 120 characters.
fn line(job: &JobSummary, now: chrono::DateTime<chrono::Utc>) -> String {
    let age = (now - job.at).num_seconds().max(0);
    let age = match age {
        s if s < 120 => format!("{s}s ago"),
        s if s < 7200 => format!("{}m ago", s / 60),
        s if s < 172_800 => format!("{}h ago", s / 3600),
        s => format!("{}d ago", s / 86_400),
    };
    let error = job
        .error
        .as_deref()
        .and_then(|e| e.lines().next())
        .map(|e| {
            let cut: String = e.chars().take(120).collect();
            if cut.len() < e.len() {
                format!("  {cut}…")
            } else {
                format!("  {cut}")
            }
        })
        .unwrap_or_default();
    format!(
        "{:>8}  {:<7}  {:<18}  attempt {}/{}  {age}{error}",
        job.id.0, job.state, job.kind, job.attempts, job.max_attempts
    )
}
