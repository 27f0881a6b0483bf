//! Comparing two commits: the files that changed between them.

use serde::Deserialize;

use super::error::Result;
use super::installation::Installation;
use super::repos::RepoName;
use super::transport::encode_path;
use crate::model::{BlobSha, CommitSha, RepoPath};

/// GitHub lists at most this many files in a comparison, and cannot page them.
pub const COMPARE_FILE_LIMIT: usize = 300;

/// How a file changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    Added,
    Removed,
    Modified,
    Renamed,
    Copied,
    /// The type changed (a file became a symlink).
    Changed,
    Unchanged,
    #[serde(other)]
    Unknown,
}

/// One changed file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedFile {
    pub path: RepoPath,
    /// The path before a rename (or the source of a copy).
    pub previous_path: Option<RepoPath>,
    pub status: FileStatus,
    /// The file's blob: the new version, except for a removed file (whose sha GitHub gives
    /// is not to be fetched at head).
    pub sha: Option<BlobSha>,
}

/// `base...head`: what head changed since its merge base with base.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// `ahead`, `behind`, `identical` or `diverged`.
    pub status: String,
    pub ahead_by: u64,
    pub behind_by: u64,
    pub merge_base: Option<CommitSha>,
    pub files: Vec<ChangedFile>,
    /// True when GitHub listed [`COMPARE_FILE_LIMIT`] files: there may be more that it did
    /// not list. Then diff the two trees ([`Installation::get_full_tree`]) or take a tarball.
    pub files_may_be_incomplete: bool,
}

#[derive(Deserialize)]
struct ComparisonJson {
    status: String,
    #[serde(default)]
    ahead_by: u64,
    #[serde(default)]
    behind_by: u64,
    merge_base_commit: Option<ShaJson>,
    #[serde(default)]
    files: Vec<FileJson>,
}

#[derive(Deserialize)]
struct ShaJson {
    sha: String,
}

#[derive(Deserialize)]
struct FileJson {
    filename: String,
    previous_filename: Option<String>,
    status: FileStatus,
    sha: Option<String>,
}

impl Installation {
    /// `GET /repos/{owner}/{repo}/compare/{base}...{head}`.
    ///
    /// Asked with `per_page=1`: the commits are not needed, and "the list of changed files
    /// is only shown on the first page ... for the entire comparison" (GitHub's docs), so
    /// this keeps the answer small without losing files.
    pub async fn compare(
        &self,
        repo: &RepoName,
        base: &CommitSha,
        head: &CommitSha,
    ) -> Result<Comparison> {
        let route = format!(
            "{}/compare/{}...{}?per_page=1",
            repo.route(),
            encode_path(base.as_str(), false),
            encode_path(head.as_str(), false)
        );
        let json: ComparisonJson = self.sender().get_json(route).await?;
        let files: Vec<ChangedFile> = json
            .files
            .into_iter()
            .map(|f| ChangedFile {
                path: RepoPath(f.filename),
                previous_path: f.previous_filename.map(RepoPath),
                status: f.status,
                sha: f.sha.filter(|s| !s.is_empty()).map(BlobSha),
            })
            .collect();
        Ok(Comparison {
            status: json.status,
            ahead_by: json.ahead_by,
            behind_by: json.behind_by,
            merge_base: json.merge_base_commit.map(|c| CommitSha(c.sha)),
            files_may_be_incomplete: files.len() >= COMPARE_FILE_LIMIT,
            files,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_statuses_do_not_fail_the_parse() {
        let f: FileJson = serde_json::from_str(
            r#"{"filename":"a","status":"something-new","sha":"ab","additions":1}"#,
        )
        .unwrap();
        assert_eq!(f.status, FileStatus::Unknown);
    }
}
