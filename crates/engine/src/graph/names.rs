//! The name index: callable definitions by simple name, for name-only matches, and
//! what such a match can see of a file.

use rustc_hash::{FxHashMap, FxHashSet};

use super::interner::NameId;
use super::resolve::FallbackScope;
use super::{DefId, FileId, Graph};
use crate::indexer::facts::*;

impl Graph {
    /// What a name-only match can see of a file's definitions, by name: which of its
    /// definitions bear the name and what decides whether they are candidates.
    pub(crate) fn candidate_signature(&self, f: FileId) -> FxHashMap<NameId, Vec<(DefIdx, u32)>> {
        let slot = self.slot(f);
        let mut out: FxHashMap<NameId, Vec<(DefIdx, u32)>> = FxHashMap::default();
        let declaration_only = slot.facts().declaration_only;
        for (i, d) in slot.facts().defs.iter().enumerate() {
            if !self.named(f, d, declaration_only) {
                continue;
            }
            let container = d.container().map(|c| slot.facts().def(c).kind);
            let flags = d.kind as u32
                | u32::from(container.is_some()) << 8
                | u32::from(container == Some(DefKind::Interface)) << 9
                | u32::from(d.qualified == d.name) << 10
                | u32::from(slot.index().is_module) << 11
                | u32::from(d.reach == Reach::LooseMember) << 12
                | u32::from(d.reach == Reach::Global) << 13
                | u32::from(d.reach == Reach::ScriptGlobal) << 14
                | u32::from(d.reach == Reach::AmbientModule) << 15;
            out.entry(NameId(d.name))
                .or_default()
                .push((i as DefIdx, flags));
        }
        if let Some((d, aliases)) = self.nuxt_aliases(f) {
            for alias in aliases {
                if let Some(name) = self.names.get(&alias) {
                    out.entry(name).or_default().push((d.def, 1 << 16));
                }
            }
        }
        out
    }

    /// Whether the name index holds `d` (of file `f`): the callable definitions of
    /// code, for name-only matches, and what any file declares of the global scope
    /// (its interfaces, the object of its `declare global` variables), which
    /// [`Graph::global_definitions`] gives the resolver.
    fn named(&self, f: FileId, d: &Definition, declaration_only: bool) -> bool {
        if d.kind == DefKind::Interface {
            return d.container().is_none()
                && (d.reach == Reach::Global || !self.slot(f).index().is_module);
        }
        match d.reach {
            // The variables of a `declare global` block, as one object's members.
            Reach::Global => return true,
            Reach::ScriptGlobal => return !self.slot(f).index().is_module,
            // Found by the specifier that imports it.
            Reach::AmbientModule => return true,
            Reach::Scoped | Reach::LooseMember => {}
        }
        // A template is reached through the class that names it, never by name.
        !declaration_only
            && d.kind.is_callable()
            && !matches!(d.kind, DefKind::Constructor | DefKind::Template)
    }

    /// The definitions named `name` that the global scope holds: interfaces (`interface
    /// Window` in a script, or in a module's `declare global` block), which merge into
    /// the platform's one, and the objects of `declare global` blocks' variables.
    pub(crate) fn global_definitions(&self, name: NameId) -> impl Iterator<Item = DefId> + '_ {
        self.by_name
            .get(&name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|d| {
                let def = self.slot(d.file).facts().def(d.def);
                def.kind == DefKind::Interface
                    || matches!(def.reach, Reach::Global | Reach::ScriptGlobal)
            })
    }

    /// The objects of the `declare module 'x'` blocks of every file for specifier
    /// `x`, whose members are what importing `x` gives.
    pub(crate) fn ambient_modules(&self, specifier: NameId) -> impl Iterator<Item = DefId> + '_ {
        self.by_name
            .get(&specifier)
            .into_iter()
            .flatten()
            .copied()
            .filter(|d| self.slot(d.file).facts().def(d.def).reach == Reach::AmbientModule)
    }

    pub(crate) fn add_to_name_index(&mut self, f: FileId) {
        if super::nuxt::is_config(&self.slot(f).facts().path) {
            self.nuxt_configs += 1;
        }
        let slot = self.slot(f);
        let declaration_only = slot.facts().declaration_only;
        let entries: Vec<(NameId, DefId)> = slot
            .facts()
            .defs
            .iter()
            .enumerate()
            .filter(|(_, d)| self.named(f, d, declaration_only))
            .map(|(i, d)| (NameId(d.name), DefId::new(f, i as DefIdx)))
            .collect();
        for (name, def) in entries {
            self.by_name.entry(name).push(def);
        }
        // A component under a `components/` folder, also by the names Nuxt gives it
        // (kind `Component`: no other lookup of the index takes it).
        if let Some((def, names)) = self.nuxt_aliases(f) {
            for name in names {
                let id = self.names.intern(&name);
                self.by_name.entry(id).push(def);
            }
        }
    }

    /// The component of file `f` and its Nuxt names, if it has them (see `nuxt`).
    fn nuxt_aliases(&self, f: FileId) -> Option<(DefId, [String; 2])> {
        let facts = self.slot(f).facts();
        let d = facts
            .defs
            .iter()
            .position(|d| d.kind == DefKind::Component)?;
        let names = super::nuxt::component_names(&facts.path)?;
        Some((DefId::new(f, d as DefIdx), names))
    }

    /// The definitions the name index holds under `name`.
    pub(crate) fn by_name_list(&self, name: NameId) -> Option<&Vec<DefId>> {
        self.by_name.get(&name)
    }

    pub(crate) fn remove_from_name_index(&mut self, f: FileId) {
        if super::nuxt::is_config(&self.slot(f).facts().path) {
            self.nuxt_configs = self.nuxt_configs.saturating_sub(1);
        }
        let slot = self.slot(f);
        let mut names: FxHashSet<NameId> =
            slot.facts().defs.iter().map(|d| NameId(d.name)).collect();
        if let Some((_, aliases)) = self.nuxt_aliases(f) {
            names.extend(aliases.iter().filter_map(|a| self.names.get(a)));
        }
        for name in names {
            // A fork copies a shard only where it holds this file's definitions.
            let holds = |list: &Vec<DefId>| list.iter().any(|d| d.file == f);
            if !self.by_name.get(&name).is_some_and(holds) {
                continue;
            }
            if let Some(list) = self.by_name.get_mut(&name) {
                list.retain(|d| d.file != f);
                if list.is_empty() {
                    self.by_name.remove(&name);
                }
            }
        }
    }

    /// Definitions a name-only match may pick, in a stable order. A guess never crosses
    /// between vendored code and the repository's own: only an import is evidence that
    /// one calls the other.
    pub(crate) fn candidates(
        &self,
        name: NameId,
        scope: FallbackScope,
        from: FileId,
    ) -> Vec<DefId> {
        let Some(list) = self.by_name.get(&name) else {
            return Vec::new();
        };
        let vendored = self.slot(from).index().vendored;
        let mut out: Vec<DefId> = list
            .iter()
            .copied()
            .filter(|d| {
                let slot = self.slot(d.file);
                if slot.index().vendored != vendored {
                    return false;
                }
                let def = slot.facts().def(d.def);
                let container_kind = def.container().map(|c| slot.facts().def(c).kind);
                match scope {
                    FallbackScope::Globals => {
                        d.file != from
                            && !slot.index().is_module
                            && def.container().is_none()
                            && def.qualified == def.name
                            && matches!(def.kind, DefKind::Function | DefKind::Class)
                    }
                    FallbackScope::Members => {
                        (def.reach == Reach::LooseMember
                            || def.container().is_some()
                                && container_kind != Some(DefKind::Interface))
                            && matches!(def.kind, DefKind::Method | DefKind::Function)
                    }
                }
            })
            .collect();
        out.sort();
        out
    }
}
