//! A commit's files in one request: the tarball, streamed through gzip and tar, keeping
//! in memory only the files the caller wants (the archive is never held whole, and
//! nothing is written to disk: creating thousands of files costs more than parsing them
//! on some disks).

use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use bytes::{Buf, Bytes};
use http_body_util::BodyExt;

use super::error::{GithubError, Result};
use super::installation::Installation;
use super::repos::RepoName;
use super::transport::{describe, encode_path, Call};
use crate::model::{BlobSha, CommitSha};

/// Why a file's bytes are let go, given its path and its bytes (none: too long to read).
pub type Drops<R> = Box<dyn Fn(&str, Option<&[u8]>) -> Option<R> + Send>;

/// What a caller keeps of an archive, decided as it streams in: the archive of a
/// repository is anyone's who can push to it, and may hold a gigabyte of generated code.
pub struct Sieve<R> {
    /// Which paths are read at all.
    pub wants: Box<dyn Fn(&str) -> bool + Send>,
    /// Why a wanted file's bytes are not worth keeping (None: kept). Given no bytes when
    /// the file is longer than `max_file` (then they are never read into memory).
    pub drops: Drops<R>,
    /// The longest file whose bytes are read.
    pub max_file: usize,
    /// Bytes kept across all files: past it the reading stops and the archive says so
    /// ([`Archive::over_total`]).
    pub max_total: usize,
    /// Where each kept file goes as soon as it is read, instead of into
    /// [`Archive::files`]: a caller can work on the first files while the rest stream in.
    /// It answers false when it wants no more (the reading then fails).
    pub sink: Option<Sink<R>>,
}

/// Takes each file of an archive as it is read; false stops the reading.
pub type Sink<R> = Box<dyn Fn(ArchivedFile<R>) -> bool + Send>;

/// One regular file of an archive, kept because the caller wanted its path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchivedFile<R = std::convert::Infallible> {
    /// Repository-relative, `/`-separated.
    pub path: String,
    /// The git blob sha of the whole file, computed while reading (the archive has none).
    pub blob: BlobSha,
    /// The file's size.
    pub size: u64,
    /// Its bytes; only the first `max_bytes + 1` of a longer file (enough to know it is
    /// too large to index, without holding it); none when the sieve dropped it.
    pub bytes: Vec<u8>,
    /// Why the sieve dropped its bytes.
    pub dropped: Option<R>,
}

/// What an archive held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Archive<R = std::convert::Infallible> {
    /// The files kept, in archive order (none when the sieve has a sink: they went there).
    pub files: Vec<ArchivedFile<R>>,
    /// Regular files read (kept or not).
    pub regular: usize,
    /// Entries left out: symlinks (they could point anywhere), paths that are not UTF-8,
    /// and anything else that is neither a file nor a directory.
    pub skipped: usize,
    /// The kept bytes reached the sieve's `max_total`: the reading stopped there, and
    /// `files` holds only the start of the archive.
    pub over_total: bool,
}

impl<R> Default for Archive<R> {
    fn default() -> Self {
        Archive {
            files: Vec::new(),
            regular: 0,
            skipped: 0,
            over_total: false,
        }
    }
}

impl Installation {
    /// `GET /repos/{owner}/{repo}/tarball/{commit}` (a redirect to a short-lived download
    /// URL, followed): the regular files whose repository-relative path `keep` accepts,
    /// without the archive's top-level folder (`src/x.ts` is the repository's `src/x.ts`),
    /// each with its blob sha; of a file longer than `max_bytes`, only the start is kept.
    ///
    /// Getting the answer is retried like any read; if the body breaks off midway the
    /// call fails with a transient error.
    pub async fn download_tarball(
        &self,
        repo: &RepoName,
        commit: &CommitSha,
        keep: impl Fn(&str) -> bool + Send + 'static,
        max_bytes: usize,
    ) -> Result<Archive> {
        let keep_start = Sieve {
            wants: Box::new(keep),
            drops: Box::new(|_, _| None),
            max_file: max_bytes,
            max_total: usize::MAX,
            sink: None,
        };
        self.download_tarball_sieved(repo, commit, keep_start).await
    }

    /// [`download_tarball`](Self::download_tarball) keeping what `sieve` says: a file
    /// longer than its `max_file` is hashed as it streams by and never held, one it
    /// drops is let go at once, and the reading stops once `max_total` bytes are kept.
    pub async fn download_tarball_sieved<R: Send + 'static>(
        &self,
        repo: &RepoName,
        commit: &CommitSha,
        sieve: Sieve<R>,
    ) -> Result<Archive<R>> {
        let route = format!(
            "{}/tarball/{}",
            repo.route(),
            encode_path(commit.as_str(), true)
        );
        let call = Call::get(route);
        let what = call.what();
        let mut answer = self.sender().send_streaming(&call).await?;
        if answer.status.is_redirection() {
            // octocrab follows redirects itself; this is for the case it did not. The
            // download URL carries its own short-lived token (octocrab sends ours only to
            // relative routes and api.github.com), and `what` never shows its query.
            let location = answer
                .headers
                .get(http::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
                .ok_or_else(|| GithubError::Decode {
                    what: what.clone(),
                    message: format!("answered {} without a Location", answer.status),
                })?;
            answer = self.sender().send_streaming(&Call::get(location)).await?;
        }
        if answer.status != http::StatusCode::OK {
            return Err(GithubError::Decode {
                what,
                message: format!("answered {} instead of the archive", answer.status),
            });
        }
        // The body is pumped here, on the runtime; gzip and tar run on a blocking thread
        // that reads the chunks from a small bounded channel.
        let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(16);
        let what_owned = what.clone();
        let extractor = tokio::task::spawn_blocking(move || {
            read_tar_gz_sieved(ChannelReader::new(rx), &sieve, &what_owned)
        });
        let stall = self.core.app().settings.request_timeout;
        let mut body = answer.body;
        let pumped: Result<()> = loop {
            match tokio::time::timeout(stall, body.frame()).await {
                Err(_) => {
                    break Err(GithubError::Transport {
                        what: what.clone(),
                        message: format!("the download stalled for {stall:?}"),
                    })
                }
                Ok(None) => break Ok(()),
                Ok(Some(Err(e))) => {
                    break Err(GithubError::Transport {
                        what: what.clone(),
                        message: format!("the download broke off: {}", describe(&e)),
                    })
                }
                Ok(Some(Ok(frame))) => {
                    if let Ok(data) = frame.into_data() {
                        if tx.send(data).await.is_err() {
                            // The extractor stopped: its result says why (or it is done).
                            break Ok(());
                        }
                    }
                }
            }
        };
        drop(tx);
        let extracted = extractor.await.map_err(|e| GithubError::Archive {
            what: what.clone(),
            message: format!("the extracting thread failed: {e}"),
        })?;
        // A broken download explains a broken archive, not the other way round.
        pumped?;
        extracted
    }
}

/// Reads the chunks a channel delivers; the end of the channel is the end of the data.
struct ChannelReader {
    rx: tokio::sync::mpsc::Receiver<Bytes>,
    current: Bytes,
}

impl ChannelReader {
    fn new(rx: tokio::sync::mpsc::Receiver<Bytes>) -> ChannelReader {
        ChannelReader {
            rx,
            current: Bytes::new(),
        }
    }
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.current.is_empty() {
            match self.rx.blocking_recv() {
                Some(chunk) => self.current = chunk,
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len());
        buf[..n].copy_from_slice(&self.current[..n]);
        self.current.advance(n);
        Ok(n)
    }
}

/// Reads a `.tar.gz`, dropping each path's first component (GitHub's `owner-repo-sha/`
/// folder) and keeping the regular files `keep` accepts. A path that would leave the
/// repository (`..`, absolute) fails the whole archive: GitHub never makes one.
#[cfg(test)]
pub(crate) fn read_tar_gz(
    reader: impl Read,
    keep: impl Fn(&str) -> bool + Send + 'static,
    max_bytes: usize,
    what: &str,
) -> Result<Archive> {
    let sieve = Sieve {
        wants: Box::new(keep),
        drops: Box::new(|_, _| None),
        max_file: max_bytes,
        max_total: usize::MAX,
        sink: None,
    };
    read_tar_gz_sieved(reader, &sieve, what)
}

/// [`read_tar_gz`] through a [`Sieve`].
pub(crate) fn read_tar_gz_sieved<R>(
    reader: impl Read,
    sieve: &Sieve<R>,
    what: &str,
) -> Result<Archive<R>> {
    let archive_error = |message: String| GithubError::Archive {
        what: what.to_string(),
        message,
    };
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(reader));
    let mut out = Archive::default();
    let mut kept = 0usize;
    let entries = archive
        .entries()
        .map_err(|e| archive_error(e.to_string()))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| archive_error(e.to_string()))?;
        let Some(path) = file_path(&entry, &mut out).map_err(archive_error)? else {
            continue;
        };
        if !(sieve.wants)(&path) {
            continue;
        }
        let file = sift(&mut entry, path, sieve).map_err(archive_error)?;
        kept = kept.saturating_add(file.bytes.len());
        match &sieve.sink {
            None => out.files.push(file),
            Some(sink) => {
                if !sink(file) {
                    return Err(archive_error(
                        "the reader of its files stopped before the end".to_string(),
                    ));
                }
            }
        }
        if kept > sieve.max_total {
            out.over_total = true;
            return Ok(out);
        }
    }
    Ok(out)
}

/// A regular file's path inside the repository (the archive's top folder taken off),
/// or `None` for an entry that is not one (counted in `out` when it is in the tree).
/// An unsafe path is an error.
fn file_path<R>(
    entry: &tar::Entry<impl Read>,
    out: &mut Archive<R>,
) -> std::result::Result<Option<String>, String> {
    let kind = entry.header().entry_type();
    if matches!(
        kind,
        tar::EntryType::XGlobalHeader | tar::EntryType::XHeader | tar::EntryType::Directory
    ) {
        return Ok(None);
    }
    let raw_path = entry
        .path()
        .map_err(|e| format!("an entry's path: {e}"))?
        .into_owned();
    let Some(relative) =
        strip_top_folder(&raw_path).map_err(|()| format!("unsafe path {}", raw_path.display()))?
    else {
        return Ok(None);
    };
    if !matches!(kind, tar::EntryType::Regular | tar::EntryType::Continuous) {
        out.skipped += 1;
        return Ok(None);
    }
    out.regular += 1;
    let Some(path) = relative.to_str().map(|p| p.replace('\\', "/")) else {
        out.skipped += 1;
        return Ok(None);
    };
    Ok(Some(path))
}

/// Reads a wanted file through the sieve: its blob id always, its bytes unless the
/// sieve drops it (then the reason instead).
fn sift<R>(
    entry: &mut tar::Entry<impl Read>,
    path: String,
    sieve: &Sieve<R>,
) -> std::result::Result<ArchivedFile<R>, String> {
    let size = entry.size();
    // A file too long is hashed as it streams by, none of it kept, unless the
    // caller keeps starts (no dropping sieve: it reads `max_file + 1` bytes).
    let (too_long, dropped) = if size > sieve.max_file as u64 {
        (true, (sieve.drops)(&path, None))
    } else {
        (false, None)
    };
    let keep_bytes = if dropped.is_some() { 0 } else { sieve.max_file };
    let (blob, mut bytes) =
        read_blob(entry, size, keep_bytes).map_err(|e| format!("{path}: {e}"))?;
    if dropped.is_some() {
        bytes = Vec::new();
    }
    let dropped = match dropped {
        Some(reason) => Some(reason),
        None if !too_long => {
            let reason = (sieve.drops)(&path, Some(&bytes));
            if reason.is_some() {
                bytes = Vec::new();
            }
            reason
        }
        None => None,
    };
    Ok(ArchivedFile {
        path,
        blob,
        size,
        bytes,
        dropped,
    })
}

/// A file's blob sha (`sha1("blob <size>\0" + bytes)`, as git computes it) and its first
/// `max_bytes + 1` bytes, in one pass.
fn read_blob(entry: &mut impl Read, size: u64, max_bytes: usize) -> io::Result<(BlobSha, Vec<u8>)> {
    use sha1::{Digest, Sha1};
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {size}\0").as_bytes());
    let limit = max_bytes.saturating_add(1);
    let mut kept = Vec::with_capacity((size as usize).min(limit));
    let mut buf = [0u8; 64 * 1024];
    let mut read = 0u64;
    loop {
        let n = entry.read(&mut buf)?;
        if n == 0 {
            break;
        }
        read += n as u64;
        hasher.update(&buf[..n]);
        let room = limit - kept.len().min(limit);
        kept.extend_from_slice(&buf[..n.min(room)]);
    }
    if read != size {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("{read} of {size} bytes"),
        ));
    }
    Ok((BlobSha(hex::encode(hasher.finalize())), kept))
}

/// The path without its first component; `Ok(None)` for the top folder itself; `Err` for
/// anything but plain names.
fn strip_top_folder(path: &Path) -> std::result::Result<Option<PathBuf>, ()> {
    let mut rest = PathBuf::new();
    for (i, component) in path.components().enumerate() {
        match component {
            Component::Normal(name) if i > 0 => rest.push(name),
            Component::Normal(_) => {}
            Component::CurDir if i == 0 => {}
            _ => return Err(()),
        }
    }
    Ok((!rest.as_os_str().is_empty()).then_some(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tar_gz(entries: &[(&str, tar::EntryType, &[u8])]) -> Vec<u8> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut builder = tar::Builder::new(gz);
        for (path, kind, data) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(*kind);
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            if *kind == tar::EntryType::Symlink {
                header.set_link_name("../../etc/passwd").unwrap();
            }
            // set_path refuses `..`; write the name raw to build hostile archives.
            let name = path.as_bytes();
            header.as_old_mut().name[..name.len()].copy_from_slice(name);
            header.set_cksum();
            builder.append(&header, *data).unwrap();
        }
        builder.into_inner().unwrap().finish().unwrap()
    }

    fn everything(_: &str) -> bool {
        true
    }

    #[test]
    fn strips_the_top_folder_and_skips_symlinks() {
        let data = tar_gz(&[
            ("acme-web-0123456/", tar::EntryType::Directory, b""),
            ("acme-web-0123456/src/", tar::EntryType::Directory, b""),
            (
                "acme-web-0123456/src/a.ts",
                tar::EntryType::Regular,
                b"export {}\n",
            ),
            ("acme-web-0123456/empty", tar::EntryType::Regular, b""),
            ("acme-web-0123456/link", tar::EntryType::Symlink, b""),
        ]);
        let archive = read_tar_gz(&data[..], everything, 100, "test").unwrap();
        let paths: Vec<&str> = archive.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["src/a.ts", "empty"]);
        assert_eq!(archive.files[0].bytes, b"export {}\n");
        assert_eq!(archive.files[0].blob, BlobSha::of(b"export {}\n"));
        assert_eq!(archive.regular, 2);
        assert_eq!(archive.skipped, 1);
    }

    #[test]
    fn keeps_only_wanted_paths_and_the_start_of_a_large_file() {
        let big = vec![b'x'; 10_000];
        let data = tar_gz(&[
            ("top/a.js", tar::EntryType::Regular, b"a()"),
            ("top/README.md", tar::EntryType::Regular, b"# hi"),
            ("top/big.js", tar::EntryType::Regular, &big),
        ]);
        let js = |p: &str| p.ends_with(".js");
        let archive = read_tar_gz(&data[..], js, 100, "test").unwrap();
        assert_eq!(archive.files.len(), 2);
        assert_eq!(archive.regular, 3);
        let large = &archive.files[1];
        assert_eq!(large.path, "big.js");
        assert_eq!(large.size, 10_000);
        assert_eq!(
            large.bytes.len(),
            101,
            "max_bytes + 1: enough to say it is too large"
        );
        assert_eq!(large.blob, BlobSha::of(&big), "the whole file's sha");
    }

    #[test]
    fn a_sieve_drops_files_as_they_stream_and_stops_at_its_total() {
        let big = vec![b'x'; 10_000];
        let data = tar_gz(&[
            ("top/a.js", tar::EntryType::Regular, b"a()"),
            ("top/big.js", tar::EntryType::Regular, &big),
            ("top/app.min.js", tar::EntryType::Regular, b"m()"),
            ("top/b.js", tar::EntryType::Regular, &[b'b'; 60]),
            ("top/c.js", tar::EntryType::Regular, &[b'c'; 60]),
            ("top/d.js", tar::EntryType::Regular, b"d()"),
        ]);
        let sieve = Sieve {
            wants: Box::new(|p: &str| p.ends_with(".js")),
            drops: Box::new(|p: &str, bytes: Option<&[u8]>| match bytes {
                None => Some("too large"),
                Some(_) if p.ends_with(".min.js") => Some("minified"),
                Some(_) => None,
            }),
            max_file: 100,
            max_total: 100,
            sink: None,
        };
        let archive = read_tar_gz_sieved(&data[..], &sieve, "test").unwrap();
        let seen: Vec<(&str, usize, Option<&str>)> = archive
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.bytes.len(), f.dropped))
            .collect();
        assert_eq!(
            seen,
            [
                ("a.js", 3, None),
                ("big.js", 0, Some("too large")),
                ("app.min.js", 0, Some("minified")),
                ("b.js", 60, None),
                ("c.js", 60, None),
            ],
            "nothing kept of what is dropped; the reading stops past 100 bytes kept"
        );
        assert_eq!(
            archive.files[1].blob,
            BlobSha::of(&big),
            "the whole file's sha"
        );
        assert!(archive.over_total);
    }

    #[test]
    fn a_sink_takes_each_file_as_it_is_read_and_can_stop_the_reading() {
        let data = tar_gz(&[
            ("top/a.js", tar::EntryType::Regular, b"a()"),
            ("top/b.js", tar::EntryType::Regular, b"b()"),
            ("top/c.js", tar::EntryType::Regular, b"c()"),
        ]);
        let sieve = |taken: std::sync::Arc<std::sync::Mutex<Vec<String>>>, wanted: usize| Sieve::<
            std::convert::Infallible,
        > {
            wants: Box::new(everything),
            drops: Box::new(|_, _| None),
            max_file: 100,
            max_total: usize::MAX,
            sink: Some(Box::new(move |f: ArchivedFile| {
                let mut taken = taken.lock().unwrap();
                taken.push(format!("{}={}", f.path, String::from_utf8_lossy(&f.bytes)));
                taken.len() < wanted
            })),
        };
        let taken = std::sync::Arc::default();
        let archive =
            read_tar_gz_sieved(&data[..], &sieve(std::sync::Arc::clone(&taken), 10), "t").unwrap();
        assert!(archive.files.is_empty(), "they went to the sink");
        assert_eq!(archive.regular, 3);
        assert_eq!(*taken.lock().unwrap(), ["a.js=a()", "b.js=b()", "c.js=c()"]);

        let taken = std::sync::Arc::default();
        let err = read_tar_gz_sieved(&data[..], &sieve(std::sync::Arc::clone(&taken), 2), "t")
            .unwrap_err();
        assert!(err.to_string().contains("stopped before the end"), "{err}");
        assert_eq!(
            taken.lock().unwrap().len(),
            2,
            "nothing read past the refusal"
        );
    }

    #[test]
    fn a_path_leaving_the_directory_fails() {
        let data = tar_gz(&[("top/../../evil", tar::EntryType::Regular, b"x")]);
        let err = read_tar_gz(&data[..], everything, 100, "test").unwrap_err();
        assert!(matches!(err, GithubError::Archive { .. }), "{err}");
    }

    #[test]
    fn a_cut_archive_fails() {
        let data = tar_gz(&[("top/a", tar::EntryType::Regular, &[7u8; 5000])]);
        let err = read_tar_gz(&data[..data.len() / 2], everything, 100, "test").unwrap_err();
        assert!(matches!(err, GithubError::Archive { .. }), "{err}");
    }

    #[test]
    fn the_channel_reader_reassembles_chunks() {
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let feeder = std::thread::spawn(move || {
            for chunk in [&b"he"[..], b"", b"llo"] {
                tx.blocking_send(Bytes::from_static(chunk)).unwrap();
            }
        });
        let mut text = String::new();
        ChannelReader::new(rx).read_to_string(&mut text).unwrap();
        feeder.join().unwrap();
        assert_eq!(text, "hello");
    }
}
