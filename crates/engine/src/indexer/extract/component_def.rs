//! A component file is a definition: the thing `import Card from './Card.vue'` names
//! and `<Card/>` calls. It is named after the file, as the frameworks name it, and it
//! is the file's default export (what a script exports as default, Vue's Options API
//! object, is its options). The module-level code of its scripts and its template
//! expressions are its body: a call made in `<script setup>` or in `{{ }}` is the
//! component's. Its body hash is the whole file's, blanks aside, so a change to its
//! template or its props is a change to it.

use xxhash_rust::xxh3::Xxh3;

use crate::indexer::facts::*;

/// The component's name: the file's name without its extension (`PostCard.vue` is
/// `PostCard`).
fn component_name(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.rsplit_once('.').map_or(file, |(stem, _)| stem)
}

/// Adds the component's definition, and a call of each component its template uses
/// (`<PostCard>`: a `jsx` call of what the script binds `PostCard` to), made by it.
pub(super) fn add_component(
    facts: &mut FileFacts,
    path: &str,
    source: &str,
    tags: &[(usize, String)],
) {
    let name = facts.strings.push(component_name(path));
    let end_line = source.bytes().filter(|&b| b == b'\n').count() as u32;
    let span = Span {
        start_byte: 0,
        end_byte: u32::try_from(source.len()).unwrap_or(u32::MAX),
        start_line: 0,
        end_line,
    };
    let mut def = Definition::new(
        name,
        name,
        DefKind::Component,
        None,
        span,
        Pos { line: 0, column: 0 },
    );
    def.body_hash = blank_blind_hash(source);
    def.exported = true;
    let idx = facts.defs.len() as DefIdx;
    facts.defs.push(def);
    for call in facts.calls.iter_mut() {
        call.adopt(idx);
    }
    add_tag_calls(facts, idx, source, tags);
    // What a script exports as default (Vue's Options API: the component's options
    // object) is the component's options: importing the file gives the component.
    let strings = &facts.strings;
    facts.exports.retain(|e| {
        matches!(e.value, ExportValue::Star { .. }) || strings.get(e.name) != "default"
    });
    let default = facts.strings.push("default");
    let value = facts.syms.push(Sym::Def(idx));
    facts.exports.push(Export {
        name: default,
        value: ExportValue::Local(value),
    });
}

/// A hash of the file's text without its blanks: reformatting is no change.
pub(super) fn blank_blind_hash(source: &str) -> u64 {
    let mut hasher = Xxh3::new();
    for word in source.split_ascii_whitespace() {
        hasher.update(word.as_bytes());
        hasher.update(b" ");
    }
    hasher.digest()
}

/// A call site per template tag of a component, resolved as the script's names are: the
/// module's binding of that name (an import first, else a declaration), else a global.
/// The names are looked up in one table built once: a template may hold many tags.
fn add_tag_calls(facts: &mut FileFacts, component: DefIdx, source: &str, tags: &[(usize, String)]) {
    if tags.is_empty() {
        return;
    }
    let bound = bindings_by_name(facts);
    let mut lines = LineIndex::new(source);
    for (offset, name) in tags {
        let mut parts = name.split('.');
        let Some(head) = parts.next() else { continue };
        let base = bound.get(head).copied().unwrap_or_else(|| {
            let name = facts.strings.push(head);
            Sym::Global(name)
        });
        let mut callee = facts.syms.push(base);
        let mut last = head;
        for member in parts {
            let name = facts.strings.push(member);
            callee = facts.syms.push(Sym::Member(callee, name));
            last = member;
        }
        let name = facts.strings.push(last);
        let pos = lines.pos(*offset);
        facts.calls.push(CallSite::new(
            Some(component),
            CallKind::Jsx,
            callee,
            name,
            pos,
        ));
    }
}

/// What each module-level name is bound to: a binding (an import's first, as an import
/// is what a template names), else a top-level definition of that name.
fn bindings_by_name(facts: &FileFacts) -> rustc_hash::FxHashMap<String, Sym> {
    let mut bound: rustc_hash::FxHashMap<String, Sym> = rustc_hash::FxHashMap::default();
    for (d, def) in facts.defs.iter().enumerate() {
        if def.container().is_none() {
            bound
                .entry(facts.strings.get(def.name).to_string())
                .or_insert(Sym::Def(d as DefIdx));
        }
    }
    // A binding wins over a definition; among bindings of one name, the first import,
    // else the first binding.
    let mut chosen: rustc_hash::FxHashMap<&str, (bool, BindingIdx)> =
        rustc_hash::FxHashMap::default();
    for (b, binding) in facts.bindings.iter().enumerate() {
        let import = matches!(facts.syms.get(binding.value), Some(Sym::Import(_)));
        let entry = chosen
            .entry(facts.strings.get(binding.name))
            .or_insert((import, b as BindingIdx));
        if import && !entry.0 {
            *entry = (true, b as BindingIdx);
        }
    }
    for (name, (_, b)) in chosen {
        bound.insert(name.to_string(), Sym::Binding(b));
    }
    bound
}

/// Offsets to lines and columns (bytes), for offsets asked in increasing order.
struct LineIndex<'s> {
    source: &'s [u8],
    line: u32,
    line_start: usize,
    seen: usize,
}

impl<'s> LineIndex<'s> {
    fn new(source: &'s str) -> Self {
        LineIndex {
            source: source.as_bytes(),
            line: 0,
            line_start: 0,
            seen: 0,
        }
    }

    fn pos(&mut self, offset: usize) -> Pos {
        if offset < self.seen {
            *self = LineIndex::new(std::str::from_utf8(self.source).unwrap_or_default());
        }
        for (i, &b) in self.source[self.seen..offset].iter().enumerate() {
            if b == b'\n' {
                self.line += 1;
                self.line_start = self.seen + i + 1;
            }
        }
        self.seen = offset;
        Pos {
            line: self.line,
            column: (offset - self.line_start) as u32,
        }
    }
}
