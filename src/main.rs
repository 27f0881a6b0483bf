use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Like other Unix tools, end quietly when the reader of our output goes away
    // (`blast-radius graph | head`) instead of failing on every write after it.
    #[cfg(unix)]
    // SAFETY: restoring a signal's default disposition before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // BLAST_LOG_FORMAT=json: one JSON object per line, with the spans' fields (a job's
    // delivery, repository and PR), for a log collector; text otherwise, coloured only on
    // a terminal (`mcp` clients keep the server's stderr as text).
    let logs = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    match std::env::var("BLAST_LOG_FORMAT").as_deref() {
        Ok("json") => logs.json().init(),
        _ => logs.init(),
    }
    let cli = blast_radius::cli::Cli::parse();
    // Deep syntax trees recurse deeply: run on a thread with room for them.
    let result = std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(move || blast_radius::cli::run(cli))
        .expect("spawn main thread")
        .join();
    match result {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!("error: internal failure (a bug: please report it)");
            ExitCode::FAILURE
        }
    }
}
