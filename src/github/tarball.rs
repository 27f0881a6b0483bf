//! A commit's files in one request: the tarball, streamed through gzip and tar straight
//! into a directory (the archive is never held whole in memory).

use std::fs;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use bytes::{Buf, Bytes};
use http_body_util::BodyExt;

use super::error::{GithubError, Result};
use super::installation::Installation;
use super::repos::RepoName;
use super::transport::{describe, encode_path, Call};
use crate::model::CommitSha;

/// What an extraction wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExtractStats {
    /// Regular files written.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Entries left out: symlinks (they could point anywhere), and anything else that is
    /// neither a file nor a directory.
    pub skipped: usize,
}

impl Installation {
    /// `GET /repos/{owner}/{repo}/tarball/{commit}` (a redirect to a short-lived download
    /// URL, followed), extracted into `dest` (created if missing; it should be empty)
    /// without the archive's top-level folder, so `dest/src/x.ts` is the repository's
    /// `src/x.ts`.
    ///
    /// Getting the answer is retried like any read; if the body breaks off midway the
    /// call fails with a transient error and `dest` holds part of the files: retry into a
    /// fresh directory.
    pub async fn download_tarball(
        &self,
        repo: &RepoName,
        commit: &CommitSha,
        dest: &Path,
    ) -> Result<ExtractStats> {
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
        fs::create_dir_all(dest).map_err(|source| GithubError::Io {
            path: dest.to_path_buf(),
            source,
        })?;

        // The body is pumped here, on the runtime; gzip and tar run on a blocking thread
        // that reads the chunks from a small bounded channel.
        let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(16);
        let dest_owned = dest.to_path_buf();
        let what_owned = what.clone();
        let extractor = tokio::task::spawn_blocking(move || {
            extract_tar_gz(ChannelReader::new(rx), &dest_owned, &what_owned)
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

/// Unpacks a `.tar.gz` into `dest`, dropping each path's first component (GitHub's
/// `owner-repo-sha/` folder). Only regular files and directories are written; a path that
/// would leave `dest` (`..`, absolute) fails the whole extraction.
pub(crate) fn extract_tar_gz(reader: impl Read, dest: &Path, what: &str) -> Result<ExtractStats> {
    let archive_error = |message: String| GithubError::Archive {
        what: what.to_string(),
        message,
    };
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(reader));
    let mut stats = ExtractStats::default();
    let entries = archive
        .entries()
        .map_err(|e| archive_error(e.to_string()))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| archive_error(e.to_string()))?;
        let kind = entry.header().entry_type();
        if matches!(
            kind,
            tar::EntryType::XGlobalHeader | tar::EntryType::XHeader
        ) {
            continue;
        }
        let raw_path = entry
            .path()
            .map_err(|e| archive_error(format!("an entry's path: {e}")))?
            .into_owned();
        let Some(relative) = strip_top_folder(&raw_path)
            .map_err(|()| archive_error(format!("unsafe path {}", raw_path.display())))?
        else {
            continue;
        };
        let target = dest.join(&relative);
        let io_error = |source| GithubError::Io {
            path: target.clone(),
            source,
        };
        match kind {
            tar::EntryType::Directory => fs::create_dir_all(&target).map_err(io_error)?,
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent).map_err(|source| GithubError::Io {
                        path: parent.to_path_buf(),
                        source,
                    })?;
                }
                let mut file = fs::File::create(&target).map_err(io_error)?;
                stats.bytes += io::copy(&mut entry, &mut file).map_err(|e| {
                    if e.kind() == io::ErrorKind::Other || e.kind() == io::ErrorKind::UnexpectedEof
                    {
                        archive_error(format!("{}: {e}", relative.display()))
                    } else {
                        io_error(e)
                    }
                })?;
                stats.files += 1;
            }
            _ => stats.skipped += 1,
        }
    }
    Ok(stats)
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
        let dir = tempfile::tempdir().unwrap();
        let stats = extract_tar_gz(&data[..], dir.path(), "test").unwrap();
        assert_eq!(
            stats,
            ExtractStats {
                files: 2,
                bytes: 10,
                skipped: 1
            }
        );
        assert_eq!(
            fs::read(dir.path().join("src/a.ts")).unwrap(),
            b"export {}\n"
        );
        assert!(dir.path().join("empty").is_file());
        assert!(!dir.path().join("link").exists());
        assert!(!dir.path().join("acme-web-0123456").exists());
    }

    #[test]
    fn a_path_leaving_the_directory_fails() {
        let data = tar_gz(&[("top/../../evil", tar::EntryType::Regular, b"x")]);
        let dir = tempfile::tempdir().unwrap();
        let err = extract_tar_gz(&data[..], &dir.path().join("d"), "test").unwrap_err();
        assert!(matches!(err, GithubError::Archive { .. }), "{err}");
        assert!(!dir.path().join("evil").exists());
    }

    #[test]
    fn a_cut_archive_fails() {
        let data = tar_gz(&[("top/a", tar::EntryType::Regular, &[7u8; 5000])]);
        let dir = tempfile::tempdir().unwrap();
        let err = extract_tar_gz(&data[..data.len() / 2], dir.path(), "test").unwrap_err();
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
