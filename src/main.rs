use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
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
