//! Ids with names: the identifiers every layer passes around, each its own type so a
//! repository id is never taken for an installation id, nor a blob for a commit.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A repository's row in our database.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RepoId(pub i64);

/// A GitHub App installation (GitHub's id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct InstallationId(pub i64);

/// A repository's id on GitHub: stable across renames and transfers, unlike its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GithubRepoId(pub i64);

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            pub fn new(s: impl Into<String>) -> Self {
                $name(s.into())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                $name(s.to_string())
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                $name(s)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

string_id!(
    /// A commit's full sha (hex).
    CommitSha
);
string_id!(
    /// A git blob's sha (hex): what `git hash-object` prints for a file's bytes.
    BlobSha
);
string_id!(
    /// A path inside a repository, `/`-separated, relative to its root.
    RepoPath
);

impl CommitSha {
    /// The first 12 characters, for messages.
    pub fn short(&self) -> &str {
        &self.0[..self.0.len().min(12)]
    }
}

impl BlobSha {
    /// The blob sha of some bytes, so files read from a plain directory or a tarball
    /// are keyed like files read from git.
    pub fn of(bytes: &[u8]) -> BlobSha {
        use sha1::{Digest, Sha1};
        let mut h = Sha1::new();
        h.update(format!("blob {}\0", bytes.len()).as_bytes());
        h.update(bytes);
        BlobSha(hex::encode(h.finalize()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_sha_matches_git() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            BlobSha::of(b"hello\n").as_str(),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
    }

    #[test]
    fn ids_print_as_their_text() {
        let c = CommitSha::from("0123456789abcdef0123");
        assert_eq!(c.to_string(), "0123456789abcdef0123");
        assert_eq!(c.short(), "0123456789ab");
    }
}
