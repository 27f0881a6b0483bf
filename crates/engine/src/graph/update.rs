//! Updates: a file's facts replaced, added or removed, a config file changed; each
//! re-resolves exactly the files whose edges could change.

use std::sync::Arc;

use rustc_hash::FxHashSet;

use super::file_index::FileIndex;
use super::install::NO_RESOLUTION;
use super::interner::NameId;
use super::modules::ModuleResolver;
use super::resolve::Resolver;
use super::targets::NO_TARGETS;
use super::{FileId, FileSlot, FileSource, Graph};
use crate::indexer::facts::FileFacts;

impl Graph {
    /// Replaces (or adds) one file's facts and re-resolves what that can affect.
    /// Returns the files whose resolution changed (this one included).
    pub fn update_facts(&mut self, facts: FileFacts) -> Vec<FileId> {
        let existing = self.file_id(&facts.path);
        let mut dirty: FxHashSet<FileId> = FxHashSet::default();
        let old_candidates = existing.map(|fid| self.candidate_signature(fid));
        // Other files read this one's surface; when an edit leaves it as it was (a call
        // added, a body rewritten), they need not be resolved again.
        let dependents: Vec<FileId> = existing
            .map(|fid| self.dependents_of(fid).collect())
            .unwrap_or_default();
        let old_surface = match existing {
            Some(fid) if !dependents.is_empty() => Some(Resolver::new(self, fid).surface()),
            _ => None,
        };
        let fid = match existing {
            Some(fid) => {
                self.replace_source(fid, facts);
                dirty.extend(self.set_targets(fid, self.targets_of(fid)));
                fid
            }
            None => {
                let fid = self.insert_slot(facts);
                dirty.extend(self.set_targets(fid, self.targets_of(fid)));
                // A new file can change where other files' imports lead.
                dirty.extend(self.retarget_all());
                fid
            }
        };
        if let Some(old_surface) = old_surface {
            if Resolver::new(self, fid).surface() != old_surface {
                dirty.extend(dependents);
            }
        }
        dirty.insert(fid);
        if existing.is_none() && super::nuxt::is_config(&self.slot(fid).facts().path) {
            // A Nuxt app begins: what its files' unbound names are changes.
            dirty.extend(self.file_ids());
        }
        // Name-only matches change only where this file's candidates for a name did.
        let old = old_candidates.unwrap_or_default();
        let new = self.candidate_signature(fid);
        for (name, sig) in old.iter().chain(new.iter()) {
            if old.get(name) != Some(sig) || new.get(name) != Some(sig) {
                dirty.extend(self.fallback_users_of(*name));
            }
        }
        let dirty: Vec<FileId> = dirty.into_iter().collect();
        let mut changed = self.resolve_and_install(&dirty);
        if !changed.contains(&fid) {
            changed.push(fid);
            changed.sort();
        }
        changed
    }

    /// Parses `source` as the new content of `path` and updates the graph with it.
    /// Paths that are not JavaScript/TypeScript are ignored; config files rebuild.
    /// Returns the files whose resolution changed.
    pub fn update_file(&mut self, path: &str, source: &str) -> Vec<FileId> {
        if ModuleResolver::is_config_file(path) {
            return self.update_config(path, Some(source));
        }
        match crate::indexer::extract_source(path, source) {
            Some(Ok(facts)) => self.update_facts(facts),
            // Skipped (too costly to read): gone from the graph, as a full index of the
            // same file leaves it out.
            Some(Err(_)) => self.remove_file(path),
            None => Vec::new(),
        }
    }

    /// Removes one file and re-resolves what depended on it. Returns the other files
    /// whose resolution changed.
    pub fn remove_file(&mut self, path: &str) -> Vec<FileId> {
        if ModuleResolver::is_config_file(path) {
            return self.update_config(path, None);
        }
        let Some(fid) = self.file_id(path) else {
            return Vec::new();
        };
        let names: Vec<NameId> = self.candidate_signature(fid).into_keys().collect();
        let mut dirty: FxHashSet<FileId> = self.dependents_of(fid).collect();
        if super::nuxt::is_config(path) {
            dirty.extend(self.file_ids());
        }
        for n in &names {
            dirty.extend(self.fallback_users_of(*n));
        }
        dirty.extend(self.drop_slot(fid));
        dirty.extend(self.retarget_all());
        dirty.remove(&fid);
        let dirty: Vec<FileId> = dirty.into_iter().collect();
        self.resolve_and_install(&dirty)
    }

    /// A tsconfig/jsconfig/package.json changed: every import may lead elsewhere now.
    /// Returns the files whose resolution changed.
    pub fn update_config(&mut self, path: &str, contents: Option<&str>) -> Vec<FileId> {
        let configs = Arc::make_mut(&mut self.configs);
        match contents {
            Some(c) => configs.insert(path.to_string(), c.to_string()),
            None => configs.remove(path),
        };
        let configs: Vec<(String, String)> = self
            .configs
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self.resolver = Arc::new(ModuleResolver::new(&configs));
        self.forget_declared();
        self.retarget_all();
        let all: Vec<FileId> = self.file_ids().collect();
        self.resolve_and_install(&all)
    }

    /// Adds a file without resolving anything: its targets and resolution are empty.
    pub(crate) fn insert_slot(&mut self, mut facts: FileFacts) -> FileId {
        let fid = FileId(self.files.len() as u32);
        let index = FileIndex::build(&mut facts, &mut self.names);
        self.by_path.insert(&facts.path, fid.0);
        self.files.push(Some(FileSlot {
            source: Arc::new(FileSource { facts, index }),
            targets: NO_TARGETS.clone(),
            resolution: NO_RESOLUTION.clone(),
        }));
        self.add_to_name_index(fid);
        // No pairing read it; one that read the global scope may read it now. Imports
        // that lead to it now are retargeted, which forgets the pairings that read them.
        self.forget_declared_if_read(fid);
        fid
    }

    /// Replaces the facts of a file in the graph, leaving its targets and resolution
    /// (and the files that read it) for the caller to bring up to date.
    pub(crate) fn replace_source(&mut self, f: FileId, mut facts: FileFacts) {
        self.forget_declared_if_read(f);
        self.remove_from_name_index(f);
        let index = FileIndex::build(&mut facts, &mut self.names);
        self.slot_mut(f).source = Arc::new(FileSource { facts, index });
        self.add_to_name_index(f);
        // The new facts may declare the global scope where the old did not.
        self.forget_declared_if_read(f);
    }

    /// Takes a file out of the graph: its edges, its names, its path. The files that
    /// read it are the caller's to re-resolve, and so are the templates its classes
    /// named, which it returns.
    pub(crate) fn drop_slot(&mut self, f: FileId) -> smallvec::SmallVec<[FileId; 2]> {
        let templates = self.refresh_hosts(f, false);
        self.forget_declared_if_read(f);
        let _ = self.uninstall(f);
        self.remove_from_name_index(f);
        *self.dependents.get_mut(f.0 as usize) = None;
        let path = self.facts(f).path.clone();
        self.by_path.remove(&path);
        *self.files.get_mut(f.0 as usize) = None;
        templates
    }

    pub(crate) fn slot_mut(&mut self, f: FileId) -> &mut FileSlot {
        self.files
            .get_mut(f.0 as usize)
            .as_mut()
            .expect("file ids in use point at live slots")
    }
}
