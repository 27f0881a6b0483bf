//! Lexical scopes: declarations, and the identifiers read in a scope, bound when it closes
//! (see the `extract` module's documentation).

use rustc_hash::FxHashMap;

use super::Extractor;
use crate::indexer::facts::*;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScopeKind {
    Function,
    Block,
}

pub(super) struct Scope {
    kind: ScopeKind,
    /// Small scopes are the rule: a linear scan beats hashing. One binding per name.
    bindings: Vec<(StrId, BindingIdx)>,
    /// The same, hashed, once the scope is large (generated code declares thousands of
    /// names in one scope, and a scan per lookup would be quadratic).
    index: FxHashMap<StrId, BindingIdx>,
    /// `Sym::Global` placeholders of identifiers read in this scope, not yet bound.
    pending: Vec<SymId>,
    /// `owner.name = value` read before `owner` was declared (a function declared
    /// further down, hoisted): a member of `owner`'s definition once the scope that
    /// declares it closes.
    late_members: Vec<LateMember>,
}

#[derive(Clone, Copy)]
pub(crate) struct LateMember {
    pub(crate) owner: StrId,
    pub(crate) name: StrId,
    pub(crate) value: SymId,
}

/// Members assigned before their owner is declared, kept per file at most.
pub(crate) const MAX_LATE_MEMBERS: u32 = 1024;

/// Scopes with more bindings than this are looked up through a hash map.
const SMALL_SCOPE: usize = 32;

impl Scope {
    fn find(&self, name: StrId) -> Option<BindingIdx> {
        if self.bindings.len() > SMALL_SCOPE {
            return self.index.get(&name).copied();
        }
        self.bindings
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, b)| b)
    }

    fn insert(&mut self, name: StrId, binding: BindingIdx) {
        self.bindings.push((name, binding));
        if self.bindings.len() > SMALL_SCOPE {
            if self.index.is_empty() {
                self.index.extend(self.bindings.iter().copied());
            } else {
                self.index.insert(name, binding);
            }
        }
    }
}

impl<'s> Extractor<'s> {
    /// An identifier read here: bound when its scope closes.
    pub(crate) fn reference(&mut self, name: StrId) -> SymId {
        let id = self.sym(Sym::Global(name));
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .pending
            .push(id);
        id
    }

    /// Outside every function (named or not): code that runs as the module loads.
    pub(crate) fn at_module_level(&self) -> bool {
        self.scopes
            .iter()
            .filter(|s| matches!(s.kind, ScopeKind::Function))
            .count()
            <= 1
    }

    pub(crate) fn push_scope(&mut self, kind: ScopeKind) {
        self.scopes.push(Scope {
            kind,
            bindings: Vec::new(),
            index: FxHashMap::default(),
            pending: Vec::new(),
            late_members: Vec::new(),
        });
    }

    pub(crate) fn pop_scope(&mut self) {
        let mut scope = self.scopes.pop().expect("balanced scopes");
        let mut pending = std::mem::take(&mut scope.pending);
        if !scope.bindings.is_empty() {
            pending.retain(|&id| {
                let Sym::Global(name) = self.facts.syms.at(id) else {
                    return false;
                };
                match scope.find(name) {
                    Some(binding) => {
                        self.facts.syms.set(id, Sym::Binding(binding));
                        false
                    }
                    None => true,
                }
            });
        }
        let mut late = std::mem::take(&mut scope.late_members);
        if !late.is_empty() {
            late.retain(|m| {
                let Some(binding) = scope.find(m.owner) else {
                    return true;
                };
                // Declared here: a member of the function or class the name holds, or
                // of nothing (the name is some other value, shadowing any outer one).
                let value = self.facts.bindings[binding as usize].value;
                if let Some(owner) = self.hoisted_def(value) {
                    self.add_prop(owner, m.name, m.value);
                }
                false
            });
        }
        if let Some(parent) = self.scopes.last_mut() {
            if parent.pending.is_empty() {
                parent.pending = pending;
            } else {
                parent.pending.extend(pending);
            }
            parent.late_members.extend(late);
        }
    }

    /// `owner.name = value` where `owner` is declared nowhere yet: kept until the scope
    /// declaring `owner` closes (never, for a global: then it is dropped).
    pub(crate) fn late_member(&mut self, member: LateMember) {
        // Each waits in every scope up to its owner's (a global's: to the file's end):
        // a file of many assignments to globals (`window.x = ...`) keeps a bounded few.
        if self.late_members >= MAX_LATE_MEMBERS {
            return;
        }
        self.late_members += 1;
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .late_members
            .push(member);
    }

    /// The function or class a name's value is (through the bindings it was copied
    /// from): what a member can be attached to before its declaration is reached.
    fn hoisted_def(&self, mut sym: SymId) -> Option<DefIdx> {
        for _ in 0..4 {
            match self.facts.sym(sym) {
                Sym::Def(d) => {
                    let kind = self.facts.def(d).kind;
                    return matches!(kind, DefKind::Function | DefKind::Class).then_some(d);
                }
                Sym::Binding(b) => sym = self.facts.bindings[b as usize].value,
                _ => return None,
            }
        }
        None
    }

    /// Declares `name` in the current scope (`hoist`: in the nearest function scope, as
    /// `var` does). The first declaration of a name in a scope wins.
    pub(crate) fn declare(&mut self, name: StrId, value: SymId, hoist: bool) -> BindingIdx {
        let index = if hoist {
            self.scopes
                .iter()
                .rposition(|s| s.kind == ScopeKind::Function)
                .unwrap_or(0)
        } else {
            self.scopes.len() - 1
        };
        if let Some(b) = self.scopes[index].find(name) {
            let existing = self.facts.bindings[b as usize].value;
            let old = self.facts.sym(existing);
            if matches!(old, Sym::Unknown) {
                self.facts.bindings[b as usize].value = value;
            } else if self.is_type_only(old) != self.is_type_only(self.facts.sym(value))
                || self.declarations_merge(old, self.facts.sym(value))
                || self.type_alias_bindings.contains(&b)
            {
                // Types and values are separate namespaces in TypeScript (`type OK<T> =
                // ...; const OK = ...`, `interface C {..} class C {..}`): the name
                // means both, and each use takes the meaning that fits it.
                self.facts.bindings[b as usize].value = self.sym(Sym::Either(existing, value));
            }
            return b;
        }
        let b = self.facts.bindings.len() as BindingIdx;
        self.facts.bindings.push(Binding { name, value });
        self.scopes[index].insert(name, b);
        b
    }

    /// `type name = ...` in the innermost scope: where the scope binds the name to a
    /// value already (`namespace Result {..}` then `type Result<T, E> = Ok<T, E> |
    /// Err<T, E>`), the name means both, as TypeScript's separate namespaces for types
    /// and values have it.
    pub(crate) fn declare_type_alias(&mut self, name: StrId, value: SymId) -> BindingIdx {
        let index = self.scopes.len() - 1;
        if let Some(b) = self.scopes[index].find(name) {
            let existing = self.facts.bindings[b as usize].value;
            let value = match (self.facts.sym(existing), self.facts.sym(value)) {
                (Sym::Unknown, _) => value,
                (_, Sym::Unknown) => existing,
                _ => self.sym(Sym::Either(existing, value)),
            };
            self.facts.bindings[b as usize].value = value;
            return b;
        }
        self.declare(name, value, false)
    }

    /// Whether two declarations of one name in a declaration file are one merged
    /// declaration, as TypeScript merges them: a function's overloads, and a namespace
    /// with the function or class of its name (`declare namespace fastify {..}` beside
    /// `declare function fastify(..)`). A call means every one of them.
    fn declarations_merge(&self, old: Sym, new: Sym) -> bool {
        let (a, Sym::Def(b)) = (old, new) else {
            return false;
        };
        let a = match a {
            Sym::Def(a) => a,
            // Already merged: the newest declaration stands for the rest.
            Sym::Either(_, last) => match self.facts.sym(last) {
                Sym::Def(a) => a,
                _ => return false,
            },
            _ => return false,
        };
        let kinds = [self.facts.def(a).kind, self.facts.def(b).kind];
        // (A namespace may come first: postcss' `declare namespace Rule {..}` then
        // `declare class Rule extends Rule_ {}`, `export = Rule`.)
        self.declaration_only
            && (kinds.contains(&DefKind::Function) || kinds.contains(&DefKind::Class))
            && kinds
                .iter()
                .all(|k| matches!(k, DefKind::Function | DefKind::Object | DefKind::Class))
    }

    fn is_type_only(&self, sym: Sym) -> bool {
        matches!(sym, Sym::Def(d) if self.facts.def(d).kind == DefKind::Interface)
    }

    /// What `name` is bound to among the declarations seen so far (for code that needs
    /// an answer now, like `X.prototype.m = ...` naming its container).
    pub(crate) fn lookup_now(&self, name: StrId) -> Option<SymId> {
        for scope in self.scopes.iter().rev() {
            if let Some(b) = scope.find(name) {
                return Some(self.facts.bindings[b as usize].value);
            }
        }
        None
    }

    /// The binding of `name` here, where a scope outside the innermost function
    /// declares it (none where the function itself, or no scope, does).
    pub(crate) fn binding_outside_function(&self, name: StrId) -> Option<BindingIdx> {
        let mut crossed = false;
        for scope in self.scopes.iter().rev() {
            if let Some(b) = scope.find(name) {
                return crossed.then_some(b);
            }
            crossed |= scope.kind == ScopeKind::Function;
        }
        None
    }

    pub(crate) fn scope_count(&self) -> usize {
        self.scopes.len()
    }

    pub(crate) fn binding_in(&self, scope: usize, name: StrId) -> Option<BindingIdx> {
        self.scopes[scope].find(name)
    }
}
