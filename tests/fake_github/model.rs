//! What the fake knows: installations, repositories (backed by real git directories),
//! tokens, the request log and the failures still to inject. Routes read and change it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Mutex;

use chrono::{DateTime, Utc};

use super::faults::{Fault, FaultRule};

/// One request as the fake received it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    pub method: String,
    /// Relative to the API root (a GHES `/api/v3` prefix removed).
    pub path: String,
    pub query: Option<String>,
    /// The `Accept` header.
    pub accept: Option<String>,
}

impl Recorded {
    /// `GET /repos/o/r/git/blobs/abc`: handy for assertions.
    pub fn line(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

pub(crate) struct Installation {
    pub account: String,
    pub suspended: bool,
}

#[derive(Clone)]
pub(crate) struct Repo {
    pub id: i64,
    pub owner: String,
    pub name: String,
    pub dir: PathBuf,
    pub installation: i64,
    pub private: bool,
}

impl Repo {
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }
}

pub(crate) struct IssuedToken {
    pub installation: i64,
    pub expires_at: DateTime<Utc>,
}

/// Where a repository name leads.
pub(crate) enum Lookup {
    Found(Repo),
    /// An old name: the repository's current one.
    Moved(Repo),
    Missing,
}

pub(crate) struct Model {
    pub installations: BTreeMap<i64, Installation>,
    pub repos: BTreeMap<i64, Repo>,
    /// Lower-cased old `owner/name` → repository id.
    pub old_names: HashMap<String, i64>,
    pub next_repo_id: i64,
    pub tokens: HashMap<String, IssuedToken>,
    /// Every token ever minted, revoked ones included.
    pub issued: Vec<String>,
    pub download_tokens: HashSet<String>,
    pub mints: HashMap<i64, usize>,
    pub token_ttl: chrono::Duration,
    pub requests: Vec<Recorded>,
    pub faults: Vec<FaultRule>,
    /// Recursive trees with more entries than this answer `truncated`.
    pub tree_limit: Option<usize>,
    /// Answer blobs as base64 JSON whatever the `Accept` header asks.
    pub blobs_as_json: bool,
    pub last_jwt_claims: Option<serde_json::Value>,
    pub rate_remaining: HashMap<i64, u32>,
}

impl Model {
    pub fn new() -> Model {
        Model {
            installations: BTreeMap::new(),
            repos: BTreeMap::new(),
            old_names: HashMap::new(),
            next_repo_id: 1000,
            tokens: HashMap::new(),
            issued: Vec::new(),
            download_tokens: HashSet::new(),
            mints: HashMap::new(),
            token_ttl: chrono::Duration::hours(1),
            requests: Vec::new(),
            faults: Vec::new(),
            tree_limit: None,
            blobs_as_json: false,
            last_jwt_claims: None,
            rate_remaining: HashMap::new(),
        }
    }

    pub fn lookup(&self, owner: &str, name: &str) -> Lookup {
        let wanted = format!("{owner}/{name}").to_lowercase();
        if let Some(repo) = self
            .repos
            .values()
            .find(|r| r.full_name().to_lowercase() == wanted)
        {
            return Lookup::Found(repo.clone());
        }
        match self
            .old_names
            .get(&wanted)
            .and_then(|id| self.repos.get(id))
        {
            Some(repo) => Lookup::Moved(repo.clone()),
            None => Lookup::Missing,
        }
    }

    /// The first injected failure for `path`, used up by one.
    pub fn take_fault(&mut self, path: &str) -> Option<Fault> {
        let rule = self
            .faults
            .iter_mut()
            .find(|r| r.remaining > 0 && path.contains(&r.path_contains))?;
        rule.remaining -= 1;
        let fault = rule.fault.clone();
        self.faults.retain(|r| r.remaining > 0);
        Some(fault)
    }

    /// One request's worth of this installation's rate limit; what is left.
    pub fn spend(&mut self, installation: i64) -> u32 {
        let left = self.rate_remaining.entry(installation).or_insert(5000);
        *left = left.saturating_sub(1);
        *left
    }
}

/// The model behind a lock, plus what never changes.
pub(crate) struct Shared {
    pub app_id: u64,
    /// `http://127.0.0.1:PORT`.
    pub origin: String,
    /// `""` or a GHES-style `/api/v3`.
    pub prefix: String,
    /// When every installation's rate-limit window resets.
    pub rate_reset: i64,
    pub model: Mutex<Model>,
}

impl Shared {
    pub fn api_root(&self) -> String {
        format!("{}{}", self.origin, self.prefix)
    }
}
