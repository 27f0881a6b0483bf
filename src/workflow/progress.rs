//! How a long workflow reports progress: a callback, so the terminal's progress bar stays
//! in `cli` and a server logs instead.

/// Told how many files a step will handle, then once per file.
pub trait Progress: Sync {
    fn start(&self, _files: usize) {}
    fn advance(&self) {}
    fn finish(&self) {}
}

/// Reports nothing.
pub struct Silent;

impl Progress for Silent {}
