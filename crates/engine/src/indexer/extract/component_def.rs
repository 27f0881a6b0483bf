//! A component file is a definition: the thing `import Card from './Card.vue'` names
//! and `<Card/>` calls. It is the file's default export (what a script exports as
//! default, Vue's Options API object, is its options), named after the file as the
//! frameworks name it,
//! and the module-level code of its scripts is its body: a call made in `<script setup>`
//! is the component's. Its body hash is the whole file's, blanks aside, so a change to
//! its template or its props is a change to it.

use xxhash_rust::xxh3::Xxh3;

use crate::indexer::facts::*;

/// The component's name: the file's name without its extension (`PostCard.vue` is
/// `PostCard`).
pub fn component_name(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.rsplit_once('.').map_or(file, |(stem, _)| stem)
}

pub(super) fn add_component(facts: &mut FileFacts, path: &str, source: &str) {
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
fn blank_blind_hash(source: &str) -> u64 {
    let mut hasher = Xxh3::new();
    for word in source.split_ascii_whitespace() {
        hasher.update(word.as_bytes());
        hasher.update(b" ");
    }
    hasher.digest()
}
