//! The graph's small copyable ids: files, definitions, and the two halves of a call edge
//! (a call site's [`Edge`] to a definition, a definition's [`Caller`]). Both halves pack
//! the edge's confidence into the low bits of the site index.

use serde::{Deserialize, Serialize};

use super::Confidence;
use crate::indexer::facts::DefIdx;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FileId(pub u32);

/// A definition anywhere in the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DefId {
    pub file: FileId,
    pub def: DefIdx,
}

impl DefId {
    pub fn new(file: FileId, def: DefIdx) -> Self {
        DefId { file, def }
    }
}

/// A call site that calls a definition: the other half of an [`Edge`] (8 bytes: the
/// confidence rides in the low bits of the site index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Caller {
    pub file: FileId,
    site_conf: u32,
}

impl Caller {
    pub fn new(file: FileId, site: u32, confidence: Confidence) -> Caller {
        Caller {
            file,
            site_conf: pack_site(site, confidence),
        }
    }

    pub fn site(&self) -> u32 {
        self.site_conf >> 2
    }

    pub fn confidence(&self) -> Confidence {
        unpack_confidence(self.site_conf)
    }
}

/// One resolved call edge out of a file. Graphs hold millions: the confidence rides in
/// the low bits of the site index (12 bytes, not 16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Edge {
    site_conf: u32,
    pub target: DefId,
}

impl Edge {
    pub fn new(site: u32, target: DefId, confidence: Confidence) -> Edge {
        Edge {
            site_conf: pack_site(site, confidence),
            target,
        }
    }

    /// Index into the file's call sites.
    pub fn site(&self) -> u32 {
        self.site_conf >> 2
    }

    pub fn confidence(&self) -> Confidence {
        unpack_confidence(self.site_conf)
    }
}

fn pack_site(site: u32, confidence: Confidence) -> u32 {
    debug_assert!(site < 1 << 30, "call sites per file fit 30 bits");
    site << 2
        | match confidence {
            Confidence::Exact => 0,
            Confidence::Likely => 1,
            Confidence::Possible => 2,
        }
}

fn unpack_confidence(packed: u32) -> Confidence {
    match packed & 0b11 {
        0 => Confidence::Exact,
        1 => Confidence::Likely,
        _ => Confidence::Possible,
    }
}
