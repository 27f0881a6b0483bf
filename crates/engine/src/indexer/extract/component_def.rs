//! A component file is a definition: the thing `import Card from './Card.vue'` names
//! and `<Card/>` calls. It is named after the file, as the frameworks name it, and it
//! is the file's default export (what a script exports as default, Vue's Options API
//! object, is its options). The module-level code of its scripts and its template
//! expressions are its body: a call made in `<script setup>` or in `{{ }}` is the
//! component's. Its body hash is the whole file's, blanks aside, so a change to its
//! template or its props is a change to it.

use super::line_index::LineIndex;
use crate::indexer::component::{component_name, pascal_case, TemplateUse, UseKind};
use crate::indexer::facts::*;
use crate::indexer::language::ComponentKind;

/// What the component file holds besides its program: its kind, its template's spans
/// and the names the template uses, and the files its `<script src>` tags name.
pub(super) struct Layout<'a> {
    pub kind: ComponentKind,
    pub template: &'a [(usize, usize)],
    pub uses: &'a [TemplateUse],
    pub sources: &'a [(usize, String)],
}

/// Adds the component's definition, and a call of each component its template uses
/// (`<PostCard>`: a `jsx` call of what the script binds `PostCard` to), made by it.
pub(super) fn add_component(facts: &mut FileFacts, path: &str, source: &str, layout: &Layout) {
    let Layout {
        kind,
        template,
        uses,
        sources,
    } = *layout;
    // Vue's Options API: what `export default` held, an options object.
    let options = default_object(facts).filter(|_| kind == ComponentKind::Vue);
    let name = facts.strings.push(component_name(path));
    let idx = facts.defs.len() as DefIdx;
    facts
        .defs
        .push(whole_file_def(name, DefKind::Component, source));
    for call in facts.calls.iter_mut() {
        call.adopt(idx);
    }
    let registered = options.map_or_else(Default::default, |o| {
        super::vue_options::registered(facts, o)
    });
    add_template_uses(facts, idx, source, uses, &registered);
    if let Some(options) = options {
        super::vue_options::add_instance(facts, options, component_name(path), source, template);
    } else if let (ComponentKind::Vue, Some((at, src))) = (kind, sources.first()) {
        super::vue_options::add_external_instance(
            facts,
            component_name(path),
            source,
            template,
            (*at, src),
        );
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

/// The object literal the file's `export default` held, if it held one: a Vue
/// component's options (`export default {...}`, `export default defineComponent({...})`).
fn default_object(facts: &FileFacts) -> Option<DefIdx> {
    facts.exports.iter().find_map(|e| match e.value {
        ExportValue::Local(sym) if facts.strings.get(e.name) == "default" => match facts.sym(sym) {
            Sym::Def(d) if facts.def(d).kind == DefKind::Object => Some(d),
            _ => None,
        },
        _ => None,
    })
}

/// A definition that is the whole file (a component, an Angular template): exported,
/// its body hash the file's, blanks aside.
pub(super) fn whole_file_def(name: StrId, kind: DefKind, source: &str) -> Definition {
    let span = Span {
        start_byte: 0,
        end_byte: u32::try_from(source.len()).unwrap_or(u32::MAX),
        start_line: 0,
        end_line: source.bytes().filter(|&b| b == b'\n').count() as u32,
    };
    let mut def = Definition::new(name, name, kind, None, span, Pos { line: 0, column: 0 });
    def.body_hash = blank_blind_hash(source);
    def.exported = true;
    def
}

/// A hash of the file's text without its blanks: reformatting is no change. The words
/// are joined by one space and hashed at once (a streaming update per word cost more
/// than reading the rest of a small component).
pub(super) fn blank_blind_hash(source: &str) -> u64 {
    let mut words = Vec::with_capacity(source.len());
    for word in source.split_ascii_whitespace() {
        words.extend_from_slice(word.as_bytes());
        words.push(b' ');
    }
    xxhash_rust::xxh3::xxh3_64(&words)
}

/// A call site per use of a name in the template (a tag, a function passed by name, a
/// directive), resolved as the script's names are: the module's binding of that name (an
/// import first, else a declaration), else a global. The names are looked up in one
/// table built once: a template may hold many tags.
/// `registered`: the names of the Options API's `components` option (Vue).
fn add_template_uses(
    facts: &mut FileFacts,
    component: DefIdx,
    source: &str,
    uses: &[TemplateUse],
    registered: &rustc_hash::FxHashSet<String>,
) {
    if uses.is_empty() {
        return;
    }
    let bound = bindings_by_name(facts);
    let mut lines = LineIndex::new(source);
    for u in uses {
        let mut parts = u.name.split('.');
        let Some(mut head) = parts.next() else {
            continue;
        };
        let capitalized;
        let known = |name: &str| bound.contains_key(name) || registered.contains(name);
        if u.kind == UseKind::BoundTag && !known(head) {
            capitalized = pascal_case(head).unwrap_or_default();
            if !known(capitalized.as_str()) {
                continue;
            }
            head = &capitalized;
        }
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
        let pos = lines.pos(u.offset);
        let kind = match u.kind {
            UseKind::Tag | UseKind::BoundTag => CallKind::Jsx,
            UseKind::Passed => CallKind::Reference,
            UseKind::Directive => CallKind::Call,
        };
        facts
            .calls
            .push(CallSite::new(Some(component), kind, callee, name, pos));
    }
}

/// What each module-level name is bound to: a binding (an import's first, as an import
/// is what a template names), else a top-level definition of that name.
fn bindings_by_name(facts: &FileFacts) -> rustc_hash::FxHashMap<String, Sym> {
    let mut bound: rustc_hash::FxHashMap<String, Sym> = rustc_hash::FxHashMap::default();
    for (d, def) in facts.defs.iter().enumerate() {
        // Not the component itself: `<sticky>` in `sticky.vue` is the `Sticky` it
        // imports (Vue tries a file's own name last).
        if def.container().is_none() && def.kind != DefKind::Component {
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
