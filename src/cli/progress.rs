//! The terminal's side of a workflow: a progress bar, and the process's peak memory.

use indicatif::{ProgressBar, ProgressStyle};

use crate::workflow::progress::Progress;

/// A progress bar on stderr, shown only for work long enough to watch on a terminal.
pub struct Bar {
    bar: ProgressBar,
    show: bool,
}

impl Bar {
    pub fn new(show: bool) -> Bar {
        Bar {
            bar: ProgressBar::hidden(),
            show,
        }
    }
}

impl Progress for Bar {
    fn start(&self, files: usize) {
        use std::io::IsTerminal;
        if !self.show || files < 200 || !std::io::stderr().is_terminal() {
            return;
        }
        self.bar.set_length(files as u64);
        self.bar.set_style(
            ProgressStyle::with_template("{spinner} indexing {pos}/{len} files {wide_bar} {eta}")
                .expect("valid template"),
        );
        self.bar
            .set_draw_target(indicatif::ProgressDrawTarget::stderr());
    }

    fn advance(&self) {
        self.bar.inc(1);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Peak resident memory of this process in bytes (Linux), if known.
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
