use std::process::ExitCode;

fn main() -> ExitCode {
    // Like other Unix tools, end quietly when the reader of our output goes away
    // (`blast-radius graph | head`) instead of failing on every write after it.
    #[cfg(unix)]
    // SAFETY: restoring a signal's default disposition before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    blast_radius::cli::logs::init();
    // Secrets read from their `_FILE`s, a warning for each given as a flag.
    let cli = blast_radius::cli::parse();
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
