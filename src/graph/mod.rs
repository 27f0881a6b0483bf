//! The in-memory call graph of one repository: per-file facts, their resolution into
//! edges, and the reverse index that answers "who calls X" in one lookup.
//!
//! Each file's facts are replaceable on their own. Resolving a file records what it
//! read (other files' facts, name-only matches), so replacing one file re-resolves
//! exactly the files whose edges could change; the result equals a full rebuild.

pub mod confidence;
mod file_index;
mod ids;
pub mod interner;
pub mod modules;
mod query;
mod resolve;
pub mod stored;

use std::collections::BTreeMap;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

pub use confidence::Confidence;
use file_index::FileIndex;
pub use ids::{Caller, DefId, Edge, FileId};
use interner::{Interner, NameId};
use modules::{ModuleResolver, ModuleTarget};
pub use query::{CallerNode, EdgeKey, Found, TransitiveCaller};
pub use resolve::Resolution;
use resolve::{FallbackScope, Resolver};

use crate::indexer::facts::*;

/// Where an import specifier of a file leads, with the file set as it is now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    File(FileId),
    /// A JavaScript file with a declaration file beside it (`index.js` and `index.d.ts`):
    /// the code, and the types TypeScript reads for it instead.
    Typed(FileId, FileId),
    External,
    Unresolved,
}

#[derive(Clone)]
pub(crate) struct FileSlot {
    pub(crate) facts: FileFacts,
    pub(crate) index: FileIndex,
    /// Specifier (local string id) -> target.
    targets: FxHashMap<StrId, Target>,
    pub(crate) resolution: Resolution,
}

impl FileSlot {
    pub(crate) fn target(&self, specifier: StrId) -> Target {
        self.targets
            .get(&specifier)
            .copied()
            .unwrap_or(Target::Unresolved)
    }
}

#[derive(Default, Clone)]
pub struct Graph {
    pub(crate) names: Interner,
    slots: Vec<Option<FileSlot>>,
    by_path: FxHashMap<Box<str>, FileId>,
    configs: BTreeMap<String, String>,
    resolver: std::sync::Arc<ModuleResolver>,
    /// Callable definitions by simple name, for name-only matches.
    by_name: FxHashMap<NameId, Vec<DefId>>,
    /// Callee -> call sites.
    reverse: FxHashMap<DefId, Vec<Caller>>,
    /// File -> files whose resolution read it.
    dependents: FxHashMap<FileId, FxHashSet<FileId>>,
    /// Name -> files with a site matched by that name only.
    fallback_users: FxHashMap<NameId, FxHashSet<FileId>>,
}

impl Graph {
    /// A graph of `files`, with `configs` the repository's tsconfig/jsconfig/package.json
    /// files (path, contents) that decide how imports resolve.
    pub fn build(files: Vec<FileFacts>, configs: Vec<(String, String)>) -> Graph {
        let mut g = Graph {
            resolver: std::sync::Arc::new(ModuleResolver::new(&configs)),
            configs: configs.into_iter().collect(),
            ..Graph::default()
        };
        for facts in files {
            g.insert_slot(facts);
        }
        g.retarget_all();
        let all: Vec<FileId> = g.file_ids().collect();
        let _ = g.resolve_and_install(&all);
        g.shrink();
        g
    }

    /// Returns the slack of growing vectors after a bulk build.
    pub(crate) fn shrink(&mut self) {
        for callers in self.reverse.values_mut() {
            callers.shrink_to_fit();
        }
        for defs in self.by_name.values_mut() {
            defs.shrink_to_fit();
        }
    }

    // ---- access ----

    pub(crate) fn slot(&self, f: FileId) -> &FileSlot {
        self.slots[f.0 as usize]
            .as_ref()
            .expect("file ids in use point at live slots")
    }

    pub fn file_ids(&self) -> impl Iterator<Item = FileId> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some())
            .map(|(i, _)| FileId(i as u32))
    }

    pub fn file_count(&self) -> usize {
        self.by_path.len()
    }

    pub fn file_id(&self, path: &str) -> Option<FileId> {
        self.by_path.get(path).copied()
    }

    pub fn facts(&self, f: FileId) -> &FileFacts {
        &self.slot(f).facts
    }

    pub fn resolution(&self, f: FileId) -> &Resolution {
        &self.slot(f).resolution
    }

    pub fn name(&self, id: NameId) -> &str {
        self.names.resolve(id)
    }

    /// Every call site that resolved to `d` (exactly, or by name with its confidence),
    /// sorted by file and site.
    pub fn callers(&self, d: DefId) -> &[Caller] {
        self.reverse.get(&d).map_or(&[], Vec::as_slice)
    }

    /// The edges of `f`'s call sites, sorted by site and target. Each edge is held once,
    /// in the reverse index; this gathers `f`'s from the runs of its callees.
    pub fn edges(&self, f: FileId) -> Vec<Edge> {
        let mut edges = Vec::new();
        for t in &self.resolution(f).callees {
            if let Some(list) = self.reverse.get(t) {
                edges.extend(
                    list[file_run(list, f)]
                        .iter()
                        .map(|c| Edge::new(c.site(), *t, c.confidence())),
                );
            }
        }
        edges.sort_unstable_by_key(|e| (e.site(), e.target));
        edges
    }

    // ---- updates ----

    /// Replaces (or adds) one file's facts and re-resolves what that can affect.
    /// Returns the files whose resolution changed (this one included).
    pub fn update_facts(&mut self, facts: FileFacts) -> Vec<FileId> {
        let existing = self.file_id(&facts.path);
        let mut dirty: FxHashSet<FileId> = FxHashSet::default();
        let old_candidates = existing.map(|fid| self.candidate_signature(fid));
        // Other files read this one's surface; when an edit leaves it as it was (a call
        // added, a body rewritten), they need not be resolved again.
        let dependents: Vec<FileId> = existing
            .and_then(|fid| self.dependents.get(&fid))
            .map(|set| set.iter().copied().collect())
            .unwrap_or_default();
        let old_surface = match existing {
            Some(fid) if !dependents.is_empty() => Some(Resolver::new(self, fid).surface()),
            _ => None,
        };
        let fid = match existing {
            Some(fid) => {
                self.remove_from_name_index(fid);
                let index = FileIndex::build(&facts, &mut self.names);
                let slot = self.slots[fid.0 as usize].as_mut().expect("live slot");
                slot.facts = facts;
                slot.index = index;
                self.add_to_name_index(fid);
                let targets = self.targets_of(fid);
                self.slots[fid.0 as usize]
                    .as_mut()
                    .expect("live slot")
                    .targets = targets;
                fid
            }
            None => {
                let fid = self.insert_slot(facts);
                let targets = self.targets_of(fid);
                self.slots[fid.0 as usize]
                    .as_mut()
                    .expect("live slot")
                    .targets = targets;
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
        // Name-only matches change only where this file's candidates for a name did.
        let old = old_candidates.unwrap_or_default();
        let new = self.candidate_signature(fid);
        for (name, sig) in old.iter().chain(new.iter()) {
            if old.get(name) != Some(sig) || new.get(name) != Some(sig) {
                dirty.extend(self.fallback_users.get(name).into_iter().flatten().copied());
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
            Some(facts) => self.update_facts(facts),
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
        let mut dirty: FxHashSet<FileId> = self
            .dependents
            .get(&fid)
            .into_iter()
            .flatten()
            .copied()
            .collect();
        for n in &names {
            dirty.extend(self.fallback_users.get(n).into_iter().flatten().copied());
        }
        let _ = self.uninstall(fid);
        self.remove_from_name_index(fid);
        self.dependents.remove(&fid);
        self.by_path.remove(path);
        self.slots[fid.0 as usize] = None;
        dirty.extend(self.retarget_all());
        dirty.remove(&fid);
        let dirty: Vec<FileId> = dirty.into_iter().collect();
        self.resolve_and_install(&dirty)
    }

    /// A tsconfig/jsconfig/package.json changed: every import may lead elsewhere now.
    /// Returns the files whose resolution changed.
    pub fn update_config(&mut self, path: &str, contents: Option<&str>) -> Vec<FileId> {
        match contents {
            Some(c) => self.configs.insert(path.to_string(), c.to_string()),
            None => self.configs.remove(path),
        };
        let configs: Vec<(String, String)> = self
            .configs
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self.resolver = std::sync::Arc::new(ModuleResolver::new(&configs));
        self.retarget_all();
        let all: Vec<FileId> = self.file_ids().collect();
        self.resolve_and_install(&all)
    }

    /// An estimate of the graph's heap size, for memory budgets.
    pub fn approx_heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let mut total = self.slots.capacity() * size_of::<Option<FileSlot>>();
        for slot in self.slots.iter().flatten() {
            let f = &slot.facts;
            total += f.path.len()
                + f.strings.heap_bytes()
                + f.defs.capacity() * size_of::<Definition>()
                + f.defs
                    .iter()
                    .map(|d| d.params.capacity() * 4)
                    .sum::<usize>()
                + f.calls.capacity() * size_of::<CallSite>()
                + f.imports.capacity() * size_of::<Import>()
                + f.exports.capacity() * size_of::<Export>()
                + f.bindings.capacity() * size_of::<Binding>()
                + f.props.capacity() * size_of::<Prop>()
                + f.callback_params.capacity() * size_of::<CallbackParam>()
                + f.param_types.capacity() * size_of::<ParamType>()
                + f.syms.capacity() * size_of::<Sym>()
                + f.signatures.capacity() * size_of::<Signature>()
                + f.signatures
                    .iter()
                    .map(|s| s.params.capacity() * size_of::<Option<SymId>>())
                    .sum::<usize>()
                + f.shapes.capacity() * size_of::<Vec<(StrId, SymId)>>()
                + f.shapes
                    .iter()
                    .map(|m| m.capacity() * size_of::<(StrId, SymId)>())
                    .sum::<usize>();
            total += slot.index.names.capacity() * 4
                + (slot.index.members.capacity() + slot.index.props.capacity()) * 32
                + slot.index.exports.capacity() * 24
                + slot.targets.capacity() * 16;
            let r = &slot.resolution;
            total += r.callees.capacity() * size_of::<DefId>()
                + (r.deps.capacity() + r.fallback_names.capacity()) * 4
                + (r.external_sites.capacity() + r.unresolved_sites.capacity()) * 4;
        }
        total += self.names.heap_bytes();
        total += self.by_path.capacity() * 40;
        total += self.by_name.capacity() * 40
            + self
                .by_name
                .values()
                .map(|v| v.capacity() * size_of::<DefId>())
                .sum::<usize>();
        total += self.reverse.capacity() * 40
            + self
                .reverse
                .values()
                .map(|v| v.capacity() * size_of::<Caller>())
                .sum::<usize>();
        total += self
            .dependents
            .values()
            .map(|s| s.capacity() * 8 + 48)
            .sum::<usize>();
        total += self
            .fallback_users
            .values()
            .map(|s| s.capacity() * 8 + 48)
            .sum::<usize>();
        total
    }

    /// The repository's config files (path, contents).
    pub fn configs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.configs.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    fn insert_slot(&mut self, facts: FileFacts) -> FileId {
        let fid = FileId(self.slots.len() as u32);
        let index = FileIndex::build(&facts, &mut self.names);
        self.by_path.insert(facts.path.as_str().into(), fid);
        self.slots.push(Some(FileSlot {
            facts,
            index,
            targets: FxHashMap::default(),
            resolution: Resolution::default(),
        }));
        self.add_to_name_index(fid);
        fid
    }

    /// Where each specifier of `f` leads with the current file set.
    fn targets_of(&self, f: FileId) -> FxHashMap<StrId, Target> {
        let facts = &self.slot(f).facts;
        let exists = |p: &str| self.by_path.contains_key(p);
        let specifiers =
            facts
                .imports
                .iter()
                .map(|i| i.specifier)
                .chain(facts.exports.iter().filter_map(|e| match e.value {
                    ExportValue::From { specifier, .. } | ExportValue::Star { specifier } => {
                        Some(specifier)
                    }
                    ExportValue::Local(_) => None,
                }));
        let mut targets = FxHashMap::default();
        for spec in specifiers {
            targets.entry(spec).or_insert_with(|| {
                match self.resolver.resolve(&facts.path, facts.str(spec), &exists) {
                    ModuleTarget::File(p) => match self.by_path.get(p.as_str()) {
                        Some(&t) => match self.declarations_beside(&p) {
                            Some(d) => Target::Typed(t, d),
                            None => Target::File(t),
                        },
                        None => Target::Unresolved,
                    },
                    ModuleTarget::External(_) => Target::External,
                    ModuleTarget::Unresolved => Target::Unresolved,
                }
            });
        }
        targets
    }

    /// The declaration file TypeScript reads for a JavaScript file, if there is one
    /// (`x.js` → `x.d.ts`, `x.mjs` → `x.d.mts`, `x.cjs` → `x.d.cts`).
    pub(crate) fn declarations_beside(&self, path: &str) -> Option<FileId> {
        let (base, ext) = path.rsplit_once('.')?;
        let declarations = match ext {
            "js" | "jsx" => "d.ts",
            "mjs" => "d.mts",
            "cjs" => "d.cts",
            _ => return None,
        };
        self.by_path
            .get(format!("{base}.{declarations}").as_str())
            .copied()
    }

    /// Recomputes every file's import targets; returns the files whose resolution may
    /// change as a result (those whose targets changed, and their dependents).
    fn retarget_all(&mut self) -> FxHashSet<FileId> {
        let ids: Vec<FileId> = self.file_ids().collect();
        let new: Vec<(FileId, FxHashMap<StrId, Target>)> =
            ids.par_iter().map(|&f| (f, self.targets_of(f))).collect();
        let mut changed = FxHashSet::default();
        for (f, targets) in new {
            let slot = self.slots[f.0 as usize].as_mut().expect("live slot");
            if slot.targets != targets {
                slot.targets = targets;
                changed.insert(f);
            }
        }
        let mut dirty = changed.clone();
        for f in changed {
            dirty.extend(self.dependents.get(&f).into_iter().flatten().copied());
        }
        dirty
    }

    /// What a name-only match can see of a file's definitions, by name: which of its
    /// definitions bear the name and what decides whether they are candidates.
    fn candidate_signature(&self, f: FileId) -> FxHashMap<NameId, Vec<(DefIdx, u32)>> {
        let slot = self.slot(f);
        let mut out: FxHashMap<NameId, Vec<(DefIdx, u32)>> = FxHashMap::default();
        if slot.facts.declaration_only {
            return out;
        }
        for (i, d) in slot.facts.defs.iter().enumerate() {
            if !d.kind.is_callable() || d.kind == DefKind::Constructor {
                continue;
            }
            let container = d.container.map(|c| slot.facts.def(c).kind);
            let flags = d.kind as u32
                | u32::from(container.is_some()) << 8
                | u32::from(container == Some(DefKind::Interface)) << 9
                | u32::from(d.qualified == d.name) << 10
                | u32::from(slot.index.is_module) << 11
                | u32::from(d.loose_member) << 12;
            out.entry(slot.index.name(d.name))
                .or_default()
                .push((i as DefIdx, flags));
        }
        out
    }

    fn add_to_name_index(&mut self, f: FileId) {
        let slot = self.slot(f);
        if slot.facts.declaration_only {
            return;
        }
        let entries: Vec<(NameId, DefId)> = slot
            .facts
            .defs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.kind.is_callable() && d.kind != DefKind::Constructor)
            .map(|(i, d)| (slot.index.name(d.name), DefId::new(f, i as DefIdx)))
            .collect();
        for (name, def) in entries {
            self.by_name.entry(name).or_default().push(def);
        }
    }

    fn remove_from_name_index(&mut self, f: FileId) {
        let slot = self.slot(f);
        let names: FxHashSet<NameId> = slot
            .facts
            .defs
            .iter()
            .map(|d| slot.index.name(d.name))
            .collect();
        for name in names {
            if let Some(list) = self.by_name.get_mut(&name) {
                list.retain(|d| d.file != f);
                if list.is_empty() {
                    self.by_name.remove(&name);
                }
            }
        }
    }

    /// Definitions a name-only match may pick, in a stable order.
    pub(crate) fn candidates(
        &self,
        name: NameId,
        scope: FallbackScope,
        from: FileId,
    ) -> Vec<DefId> {
        let Some(list) = self.by_name.get(&name) else {
            return Vec::new();
        };
        let mut out: Vec<DefId> = list
            .iter()
            .copied()
            .filter(|d| {
                let slot = self.slot(d.file);
                let def = slot.facts.def(d.def);
                let container_kind = def.container.map(|c| slot.facts.def(c).kind);
                match scope {
                    FallbackScope::Globals => {
                        d.file != from
                            && !slot.index.is_module
                            && def.container.is_none()
                            && def.qualified == def.name
                            && matches!(def.kind, DefKind::Function | DefKind::Class)
                    }
                    FallbackScope::Members => {
                        (def.loose_member
                            || def.container.is_some()
                                && container_kind != Some(DefKind::Interface))
                            && matches!(def.kind, DefKind::Method | DefKind::Function)
                    }
                }
            })
            .collect();
        out.sort();
        out
    }

    // ---- resolution bookkeeping ----

    /// Re-resolves `files`; returns those whose resolution changed, sorted.
    fn resolve_and_install(&mut self, files: &[FileId]) -> Vec<FileId> {
        let mut old: FxHashMap<FileId, Resolution> = FxHashMap::default();
        for &f in files {
            old.insert(f, self.uninstall(f));
        }
        let results: Vec<(FileId, Resolution)> = if files.len() > 8 {
            files
                .par_iter()
                .map(|&f| (f, Resolver::new(self, f).resolve_file()))
                .collect()
        } else {
            files
                .iter()
                .map(|&f| (f, Resolver::new(self, f).resolve_file()))
                .collect()
        };
        let mut changed = Vec::new();
        for (f, r) in results {
            if old.get(&f) != Some(&r) {
                changed.push(f);
            }
            self.install(f, r);
        }
        changed.sort();
        changed
    }

    /// Moves `r`'s edges into the reverse index, which keeps each callee's callers
    /// sorted by (file, site): a file's callers of one callee are one contiguous run.
    fn install(&mut self, f: FileId, mut r: Resolution) {
        let mut edges = std::mem::take(&mut r.edges);
        edges.sort_unstable_by_key(|e| (e.target, e.site()));
        let mut callees: Vec<DefId> = Vec::new();
        for run in edges.chunk_by(|a, b| a.target == b.target) {
            let target = run[0].target;
            callees.push(target);
            let list = self.reverse.entry(target).or_default();
            let callers = run.iter().map(|e| Caller::new(f, e.site(), e.confidence()));
            let at = list.partition_point(|c| c.file < f);
            if at == list.len() {
                list.extend(callers);
            } else {
                list.splice(at..at, callers);
            }
        }
        r.callees = callees;
        r.unresolved_sites.shrink_to_fit();
        r.external_sites.shrink_to_fit();
        for &d in &r.deps {
            self.dependents.entry(d).or_default().insert(f);
        }
        for &n in &r.fallback_names {
            self.fallback_users.entry(n).or_default().insert(f);
        }
        self.slots[f.0 as usize]
            .as_mut()
            .expect("live slot")
            .resolution = r;
    }

    fn uninstall(&mut self, f: FileId) -> Resolution {
        let mut r = std::mem::take(
            &mut self.slots[f.0 as usize]
                .as_mut()
                .expect("live slot")
                .resolution,
        );
        let mut edges = Vec::new();
        for t in std::mem::take(&mut r.callees) {
            if let Some(list) = self.reverse.get_mut(&t) {
                let run = file_run(list, f);
                edges.extend(
                    list.drain(run)
                        .map(|c| Edge::new(c.site(), t, c.confidence())),
                );
                if list.is_empty() {
                    self.reverse.remove(&t);
                }
            }
        }
        edges.sort_unstable_by_key(|e| (e.site(), e.target));
        r.edges = edges;
        for d in &r.deps {
            if let Some(set) = self.dependents.get_mut(d) {
                set.remove(&f);
            }
        }
        for n in &r.fallback_names {
            if let Some(set) = self.fallback_users.get_mut(n) {
                set.remove(&f);
            }
        }
        r
    }
}

/// Where `f`'s callers are in a callee's caller list (sorted by file).
fn file_run(list: &[Caller], f: FileId) -> std::ops::Range<usize> {
    list.partition_point(|c| c.file < f)..list.partition_point(|c| c.file <= f)
}
