//! Git objects through the REST API: trees (a commit's file list with blob shas), blobs,
//! and one file at a commit by its path (the contents API).

use base64::Engine;
use serde::Deserialize;

use super::error::{GithubError, Result};
use super::installation::Installation;
use super::repos::RepoName;
use super::transport::{encode_path, Call, Streaming};
use crate::model::{BlobSha, CommitSha, RepoPath};

/// The raw media type for blobs: the bytes themselves rather than base64 in JSON.
const RAW: &str = "application/vnd.github.raw+json";

/// What a tree entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    Blob,
    Tree,
    /// A submodule: the sha is a commit of another repository.
    Commit,
    #[serde(other)]
    Unknown,
}

/// One entry of a tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeEntry {
    /// From the root of the repository.
    pub path: RepoPath,
    /// Git's mode: `100644`, `100755`, `120000` (symlink), `040000`, `160000`.
    pub mode: String,
    pub kind: EntryKind,
    pub sha: String,
    /// Blobs only.
    pub size: Option<u64>,
}

impl TreeEntry {
    /// The blob sha of a file entry.
    pub fn blob_sha(&self) -> Option<BlobSha> {
        (self.kind == EntryKind::Blob).then(|| BlobSha(self.sha.clone()))
    }
}

/// One answer of `GET /git/trees/{sha}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    pub sha: String,
    pub entries: Vec<TreeEntry>,
    /// GitHub cut a recursive listing short (over 100,000 entries or 7 MB).
    pub truncated: bool,
}

#[derive(Deserialize)]
struct TreeJson {
    sha: String,
    tree: Vec<TreeEntryJson>,
    #[serde(default)]
    truncated: bool,
}

#[derive(Deserialize)]
struct TreeEntryJson {
    path: String,
    mode: String,
    #[serde(rename = "type")]
    kind: EntryKind,
    sha: String,
    size: Option<u64>,
}

/// A contents answer as JSON: a file's (base64), or a directory's list.
#[derive(Deserialize)]
struct ContentsJson {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    encoding: Option<String>,
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct BlobJson {
    sha: String,
    encoding: String,
    content: String,
}

/// Tree requests one listing of a commit makes at most (a truncated tree is walked one
/// request per directory): past them the archive is read instead, in one request.
pub const MAX_TREE_REQUESTS: usize = 100;

impl Installation {
    /// `GET /repos/{owner}/{repo}/git/trees/{sha}[?recursive=1]`. `sha` is a tree or a
    /// commit.
    pub async fn get_tree(&self, repo: &RepoName, sha: &str, recursive: bool) -> Result<Tree> {
        let mut route = format!("{}/git/trees/{}", repo.route(), encode_path(sha, false));
        if recursive {
            route.push_str("?recursive=1");
        }
        let json: TreeJson = self.sender().get_json(route).await?;
        Ok(Tree {
            sha: json.sha,
            truncated: json.truncated,
            entries: json
                .tree
                .into_iter()
                .map(|e| TreeEntry {
                    path: RepoPath(e.path),
                    mode: e.mode,
                    kind: e.kind,
                    sha: e.sha,
                    size: e.size,
                })
                .collect(),
        })
    }

    /// Every entry (blobs, trees, submodules) of a commit, sorted by path. One recursive
    /// request when GitHub can list it whole; when it answers `truncated`, that tree is
    /// listed one level and each sub-tree is asked for the same way, in at most
    /// [`MAX_TREE_REQUESTS`] requests in all: past them (or for a single directory GitHub
    /// cannot list) [`GithubError::TreeTooLarge`], and the caller reads the archive.
    pub async fn get_full_tree(
        &self,
        repo: &RepoName,
        commit: &CommitSha,
    ) -> Result<Vec<TreeEntry>> {
        let mut out = Vec::new();
        let mut todo = vec![(commit.as_str().to_string(), String::new())];
        let mut requests = 0;
        let too_large = |requests| GithubError::TreeTooLarge {
            what: format!("GET {}/git/trees/{}", repo.route(), commit.as_str()),
            requests,
        };
        while let Some((sha, prefix)) = todo.pop() {
            if requests == MAX_TREE_REQUESTS {
                return Err(too_large(requests));
            }
            requests += 1;
            let whole = self.get_tree(repo, &sha, true).await?;
            if !whole.truncated {
                out.extend(whole.entries.into_iter().map(|e| under(&prefix, e)));
                continue;
            }
            if requests == MAX_TREE_REQUESTS {
                return Err(too_large(requests));
            }
            requests += 1;
            let level = self.get_tree(repo, &sha, false).await?;
            if level.truncated {
                // A single directory GitHub cannot list: only the archive holds it.
                return Err(too_large(requests));
            }
            for entry in level.entries {
                let entry = under(&prefix, entry);
                if entry.kind == EntryKind::Tree {
                    todo.push((entry.sha.clone(), entry.path.0.clone()));
                }
                out.push(entry);
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// `GET /repos/{owner}/{repo}/git/blobs/{sha}`: the blob's bytes (up to 100 MB),
    /// asked for raw; a base64 JSON answer is decoded too.
    pub async fn get_blob(&self, repo: &RepoName, sha: &BlobSha) -> Result<Vec<u8>> {
        match self.get_blob_capped(repo, sha, usize::MAX).await? {
            CappedBlob::Whole(bytes) => Ok(bytes),
            CappedBlob::TooLarge => unreachable!("nothing is longer than usize::MAX"),
        }
    }
}

/// A blob read no further than a cap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CappedBlob {
    /// The whole blob.
    Whole(Vec<u8>),
    /// Longer than the cap: nothing of it is kept.
    TooLarge,
}

impl Installation {
    /// [`get_blob`](Installation::get_blob), but never holding more than `max_bytes` of
    /// it: a blob longer than that (by its `Content-Length`, or as it streams in) is
    /// [`CappedBlob::TooLarge`] and the download stops there. Anyone who can open a pull
    /// request chooses its blobs, up to GitHub's 100 MB each.
    pub async fn get_blob_capped(
        &self,
        repo: &RepoName,
        sha: &BlobSha,
        max_bytes: usize,
    ) -> Result<CappedBlob> {
        let route = format!(
            "{}/git/blobs/{}",
            repo.route(),
            encode_path(sha.as_str(), false)
        );
        let call = Call::get(route).accept(RAW);
        let what = call.what();
        let answer = self.sender().send_streaming(&call).await?;
        let Some((body, is_json)) = self.read_raw(answer, max_bytes, &what).await? else {
            return Ok(CappedBlob::TooLarge);
        };
        let bytes = if is_json {
            match decode_blob_json(&body, sha, &what)? {
                Some(bytes) => bytes,
                None => body,
            }
        } else {
            body
        };
        Ok(if bytes.len() > max_bytes {
            CappedBlob::TooLarge
        } else {
            CappedBlob::Whole(bytes)
        })
    }
}

impl Installation {
    /// The body of an answer asked for raw, with whether GitHub sent JSON instead
    /// (base64 in a document); None when it is longer than `max_bytes` of content can
    /// be, by its `Content-Length` or as it streams in (the rest is never read).
    async fn read_raw(
        &self,
        answer: Streaming,
        max_bytes: usize,
        what: &str,
    ) -> Result<Option<(Vec<u8>, bool)>> {
        let is_json = answer
            .headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        // Base64 in JSON takes 4 bytes for 3, and a few for the fields around it.
        let limit = if is_json {
            (max_bytes / 3).saturating_mul(4).saturating_add(4096)
        } else {
            max_bytes
        };
        let declared = answer
            .headers
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > limit as u64) {
            return Ok(None);
        }
        let stall = self.core.app().settings.request_timeout;
        Ok(read_at_most(answer.body, limit, stall, what)
            .await?
            .map(|body| (body, is_json)))
    }
}

/// A body's bytes, or None as soon as it passes `limit` (the rest is never read). Each
/// frame must come within `stall`.
async fn read_at_most(
    mut body: super::transport::Body,
    limit: usize,
    stall: std::time::Duration,
    what: &str,
) -> Result<Option<Vec<u8>>> {
    use http_body_util::BodyExt;
    let mut out = Vec::new();
    loop {
        match tokio::time::timeout(stall, body.frame()).await {
            Err(_) => {
                return Err(GithubError::Transport {
                    what: what.to_string(),
                    message: format!("the download stalled for {stall:?}"),
                })
            }
            Ok(None) => return Ok(Some(out)),
            Ok(Some(Err(e))) => {
                return Err(GithubError::Transport {
                    what: what.to_string(),
                    message: format!("the download broke off: {}", super::transport::describe(&e)),
                })
            }
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    if out.len() + data.len() > limit {
                        return Ok(None);
                    }
                    out.extend_from_slice(&data);
                }
            }
        }
    }
}

impl Installation {
    /// `GET /repos/{owner}/{repo}/contents/{path}?ref={commit}`: the bytes of the file at
    /// `path` in `commit` (asked for raw; a base64 JSON answer is decoded too), or None
    /// when there is no file there (a 404, or a directory).
    pub async fn get_file_at(
        &self,
        repo: &RepoName,
        path: &str,
        commit: &CommitSha,
    ) -> Result<Option<Vec<u8>>> {
        match self
            .get_file_at_capped(repo, path, commit, usize::MAX)
            .await?
        {
            Some(CappedBlob::Whole(bytes)) => Ok(Some(bytes)),
            _ => Ok(None),
        }
    }

    /// [`get_file_at`](Self::get_file_at), never holding more than `max_bytes` of the
    /// file: a longer one is [`CappedBlob::TooLarge`].
    pub async fn get_file_at_capped(
        &self,
        repo: &RepoName,
        path: &str,
        commit: &CommitSha,
        max_bytes: usize,
    ) -> Result<Option<CappedBlob>> {
        let route = format!(
            "{}/contents/{}?ref={}",
            repo.route(),
            encode_path(path, true),
            encode_path(commit.as_str(), false)
        );
        let call = Call::get(route).accept(RAW);
        let what = call.what();
        let answer = match self.sender().send_streaming(&call).await {
            Ok(answer) => answer,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => return Err(e),
        };
        let Some((body, is_json)) = self.read_raw(answer, max_bytes, &what).await? else {
            return Ok(Some(CappedBlob::TooLarge));
        };
        let bytes = if is_json {
            match decode_contents_json(&body, &what)? {
                Some(bytes) => bytes,
                None => return Ok(None),
            }
        } else {
            body
        };
        Ok(Some(if bytes.len() > max_bytes {
            CappedBlob::TooLarge
        } else {
            CappedBlob::Whole(bytes)
        }))
    }
}

/// A contents answer given as JSON: a file's base64 content, None for a directory's
/// list (or anything that is not a file).
fn decode_contents_json(body: &[u8], what: &str) -> Result<Option<Vec<u8>>> {
    let decode = |message: String| GithubError::Decode {
        what: what.to_string(),
        message,
    };
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| decode(e.to_string()))?;
    if value.is_array() {
        return Ok(None);
    }
    let json: ContentsJson = serde_json::from_value(value).map_err(|e| decode(e.to_string()))?;
    if json.kind != "file" {
        return Ok(None);
    }
    match (json.encoding.as_deref(), json.content) {
        (Some("base64"), Some(content)) => {
            let compact: String = content.split_whitespace().collect();
            base64::engine::general_purpose::STANDARD
                .decode(compact)
                .map(Some)
                .map_err(|e| decode(format!("file content is not base64: {e}")))
        }
        (encoding, _) => Err(decode(format!(
            "file content encoded as {encoding:?} (too large for the contents API?)"
        ))),
    }
}

/// `entry` of the tree at `prefix`, with its path from the root.
fn under(prefix: &str, mut entry: TreeEntry) -> TreeEntry {
    if !prefix.is_empty() {
        entry.path = RepoPath(format!("{prefix}/{}", entry.path.0));
    }
    entry
}

/// The bytes of a `{"sha", "encoding": "base64", "content"}` answer for blob `sha`, or
/// `None` if the body is not that (a raw JSON file labelled as JSON).
fn decode_blob_json(body: &[u8], sha: &BlobSha, what: &str) -> Result<Option<Vec<u8>>> {
    let Ok(json) = serde_json::from_slice::<BlobJson>(body) else {
        return Ok(None);
    };
    if json.sha != sha.as_str() {
        return Ok(None);
    }
    match json.encoding.as_str() {
        "base64" => {
            let compact: String = json.content.split_whitespace().collect();
            base64::engine::general_purpose::STANDARD
                .decode(compact)
                .map(Some)
                .map_err(|e| GithubError::Decode {
                    what: what.to_string(),
                    message: format!("blob content is not base64: {e}"),
                })
        }
        "utf-8" | "utf8" => Ok(Some(json.content.into_bytes())),
        other => Err(GithubError::Decode {
            what: what.to_string(),
            message: format!("blob encoding {other:?}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_blob_answers_are_decoded() {
        let sha = BlobSha::of(b"hello\n");
        let body = format!(
            r#"{{"sha":"{}","size":6,"encoding":"base64","content":"aGVs\nbG8K\n"}}"#,
            sha.as_str()
        );
        let got = decode_blob_json(body.as_bytes(), &sha, "GET x").unwrap();
        assert_eq!(got.as_deref(), Some(&b"hello\n"[..]));
    }

    #[test]
    fn contents_answers_as_json_are_decoded_and_directories_are_no_file() {
        let file =
            br#"{"type":"file","encoding":"base64","content":"ZGVw\ndGg6IDMK\n","name":"x"}"#;
        assert_eq!(
            decode_contents_json(file, "GET x").unwrap().as_deref(),
            Some(&b"depth: 3\n"[..])
        );
        assert_eq!(decode_contents_json(b"[]", "GET x").unwrap(), None);
        assert_eq!(
            decode_contents_json(br#"{"type":"dir"}"#, "GET x").unwrap(),
            None
        );
        assert!(decode_contents_json(
            br#"{"type":"file","encoding":"none","content":""}"#,
            "GET x"
        )
        .is_err());
    }

    #[test]
    fn a_raw_json_file_is_not_mistaken_for_a_base64_answer() {
        let file = br#"{"sha":"x","encoding":"base64","content":"aGk="}"#;
        let sha = BlobSha::of(file);
        assert_eq!(decode_blob_json(file, &sha, "GET x").unwrap(), None);
        assert_eq!(decode_blob_json(b"[1,2]", &sha, "GET x").unwrap(), None);
    }
}
