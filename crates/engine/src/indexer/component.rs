//! Component files (Vue, Svelte, Astro): where their JavaScript and TypeScript lies.
//!
//! A component file is markup around blocks of script. The blocks are found here, by
//! byte offsets into the file, and the script grammar parses the file as one program
//! ([`program_text`]): the same bytes and lines, the markup blanked but for its
//! template expressions. Every offset, line and column the extraction records is the
//! component file's own, so permalinks and check-run annotations point into it. The
//! blocks of one file are one program (Vue's `<script>` and `<script setup>` share the
//! module's imports), in TypeScript when any block says so, and an Astro file's in TSX
//! (its markup's expressions hold JSX).
//!
//! Which blocks are script, as each framework's compiler reads them:
//! - **Vue**: the top-level `<script>` and `<script setup>` (`lang` = js, ts, jsx, tsx);
//!   `<template>` (with its nested templates), `<style>` and custom blocks are markup.
//! - **Svelte**: the top-level `<script>` blocks, the instance one and the module one
//!   (`context="module"`, or `module`); `lang="ts"` for TypeScript.
//! - **Astro**: the `---` frontmatter at the top (TypeScript), and every `<script>`
//!   (TypeScript too, as Astro compiles them).
//!
//! A `<script src="...">` holds no code here (the file it names is read as itself, and
//! a Vue component takes its options from it: [`script_sources`]), and
//! a `<script type="...">` whose type is not JavaScript (JSON, templates) is not code.
//! HTML comments and the raw text of `<style>` are skipped whole, so a `<script` inside
//! them is not a block.

pub use super::language::ComponentKind as Kind;
use super::language::Language;

/// The component's name: the file's name without its extension (`PostCard.vue` is
/// `PostCard`); an `index` file's, its folder's (`Hamburger/index.vue` is `Hamburger`,
/// what imports of the folder call it). It comes from the path, not the bytes: the
/// facts cache keys a component's facts by it too (see `variant` in the store).
pub fn component_name(path: &str) -> &str {
    let mut parts = path.rsplit('/');
    let file = parts.next().unwrap_or(path);
    let stem = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
    match parts.next() {
        Some(folder) if stem == "index" && !folder.is_empty() => folder,
        _ => stem,
    }
}

/// One block of script: the byte range of its code, and what it is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub start: usize,
    pub end: usize,
    pub language: Language,
}

/// The script blocks of a component file, in order of their offsets.
pub fn script_blocks(kind: Kind, source: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut at = 0;
    if kind == Kind::Astro {
        if let Some((start, end, after)) = frontmatter(source) {
            blocks.push(Block {
                start,
                end,
                language: Language::TypeScript,
            });
            at = after;
        }
    }
    scan_scripts(kind, source, at, |attrs, content| {
        if let (Some(language), Some((start, end))) = (script_language(kind, attrs), content) {
            if end > start {
                blocks.push(Block {
                    start,
                    end,
                    language,
                });
            }
        }
    });
    blocks
}

/// The files a Vue component's `<script src="./Counter.ts">` tags name: the script is that
/// file's code (Vue's compiler reads it in), with the tag's offset.
pub fn script_sources(kind: Kind, source: &str) -> Vec<(usize, String)> {
    let mut sources = Vec::new();
    if kind != Kind::Vue {
        return sources;
    }
    scan_scripts(kind, source, 0, |attrs, _| {
        if let Some(src) = attr(attrs, "src").filter(|s| !s.is_empty()) {
            let at = attrs.as_ptr() as usize - source.as_ptr() as usize;
            sources.push((at, src.to_string()));
        }
    });
    sources
}

/// Calls `on_script` with the attributes of each top-level `<script>` tag from `at` on,
/// and its content's byte range (None for a self-closing tag).
fn scan_scripts<'s>(
    kind: Kind,
    source: &'s str,
    mut at: usize,
    mut on_script: impl FnMut(&'s str, Option<(usize, usize)>),
) {
    let bytes = source.as_bytes();
    while let Some(lt) = find_byte(bytes, b'<', at) {
        at = lt + 1;
        if bytes[lt..].starts_with(b"<!--") {
            at = find(bytes, b"-->", lt + 4).map_or(bytes.len(), |end| end + 3);
            continue;
        }
        let Some((name, tag_end)) = open_tag(bytes, lt) else {
            continue;
        };
        // A tag that never closes: nothing after it can be a tag either (and looking
        // again from each later `<` would read the rest of the file each time).
        let Some(tag_end) = tag_end else {
            break;
        };
        let attrs = &source[lt + 1 + name.len()..tag_end];
        // Past the `>`; a self-closing tag has no content.
        at = tag_end + 1;
        let name = name.to_ascii_lowercase();
        if tag_end > 0 && bytes[tag_end - 1] == b'/' {
            if name == "script" {
                on_script(attrs, None);
            }
            continue;
        }
        match name.as_str() {
            "script" => {
                let close = find_ci(bytes, b"</script", at).unwrap_or(bytes.len());
                on_script(attrs, Some((at, close)));
                at = close;
            }
            // Raw text: nothing inside is markup.
            "style" | "textarea" | "title" => {
                at = find_ci(bytes, format!("</{name}").as_bytes(), at).unwrap_or(bytes.len());
            }
            // Vue's template (and its nested templates) holds no script blocks: skip to
            // the close that balances it.
            "template" if kind == Kind::Vue => {
                at = balanced_close(bytes, b"template", at);
            }
            _ => {}
        }
    }
}

/// The grammar a component's program is parsed in: an Astro file's is TSX (its markup
/// expressions hold JSX, its scripts are TypeScript); else [`grammar_of`] its blocks.
pub fn grammar_for(kind: Kind, blocks: &[Block]) -> Language {
    match kind {
        Kind::Astro => Language::Tsx,
        _ => grammar_of(blocks),
    }
}

/// The grammar for a set of blocks: TSX if any block is, else TypeScript if any is,
/// else JavaScript (whose grammar reads JSX).
pub fn grammar_of(blocks: &[Block]) -> Language {
    if blocks.iter().any(|b| b.language == Language::Tsx) {
        Language::Tsx
    } else if blocks.iter().any(|b| b.language == Language::TypeScript) {
        Language::TypeScript
    } else {
        Language::JavaScript
    }
}

/// The component as one program for the script grammar: the same bytes, lines and
/// offsets as the file, its scripts as written, its markup blanked, and each template
/// expression a block statement where it stands (`{{ f(x) }}` becomes ` { f(x) } `,
/// `@click="save()"` becomes `       {save()}`). Expressions then read the scripts'
/// bindings as module-level code does, and every call in them is a call site at its
/// place in the file. Markup that could be read wrongly is left blank, never guessed.
///
/// Expressions read: Vue's `{{ }}` and the values of directives (`v-*`, `:prop`,
/// `@event`, `#slot`) in `<template>`; Svelte's `{...}` in markup, text and attribute
/// values alike, with its block keywords (`{#if c}`, `{#each xs as x}`, `{@render s()}`,
/// `{:else}`, `{/if}`) reduced to their expressions; Astro's `{...}` in its markup.
pub fn program_text(kind: Kind, source: &str, blocks: &[Block]) -> String {
    program_text_in(kind, source, blocks, &template_spans(kind, source, blocks))
}

/// [`program_text`], given the file's [`template_spans`] (found once per file).
pub fn program_text_in(
    kind: Kind,
    source: &str,
    blocks: &[Block],
    markup: &[(usize, usize)],
) -> String {
    let bytes = source.as_bytes();
    let mut out: Vec<u8> = bytes
        .iter()
        .map(|&b| if b == b'\n' || b == b'\r' { b } else { b' ' })
        .collect();
    for b in blocks {
        out[b.start..b.end].copy_from_slice(&bytes[b.start..b.end]);
    }
    for &(from, to) in markup {
        match kind {
            Kind::Vue => vue_expressions(bytes, from, to, &mut out),
            Kind::Svelte => svelte_expressions(bytes, from, to, &mut out),
            // Astro's `{expr}` as Svelte's (it has no block keywords); the JSX inside is
            // read by the TSX grammar its program is parsed in (see `grammar_for`).
            Kind::Astro => svelte_expressions(bytes, from, to, &mut out),
        }
    }
    // Whole characters were copied, blanks are ASCII: UTF-8 still. Should a copy ever
    // split one, the scripts alone are the program.
    String::from_utf8(out).unwrap_or_else(|_| {
        let mut only: Vec<u8> = bytes
            .iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b } else { b' ' })
            .collect();
        for b in blocks {
            only[b.start..b.end].copy_from_slice(&bytes[b.start..b.end]);
        }
        String::from_utf8(only).unwrap_or_default()
    })
}

/// What a template uses by name, found at a place in it: a component its tags name,
/// a function its attributes pass by name (called later, by the framework or the
/// component given it), or a function a Svelte directive calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateUse {
    /// The offset of the name.
    pub offset: usize,
    /// The name as the script binds it (a dotted path: `Tooltip.Root`, `actions.save`).
    pub name: String,
    pub kind: UseKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UseKind {
    /// `<PostCard>`: the component is rendered (a `jsx` call).
    Tag,
    /// `<hamburger>`: a component if the script binds `hamburger` or `Hamburger`, else an
    /// element.
    BoundTag,
    /// `@click="save"`, `on:click={save}`, `onclick={save}`, `:format="fmt"`: a
    /// function passed by name (a reference, as `onClick={save}` is in JSX).
    Passed,
    /// Svelte's `use:tooltip`, `transition:fade`, `in:`, `out:`, `animate:`: Svelte
    /// calls the function with the element.
    Directive,
}

/// The components a template uses, each `<Name` tag once per place: the offset of its
/// name, and the name as the script binds it. Vue: a PascalCase tag (`<PostCard>`,
/// `<Tooltip.Root>`), or a kebab-case one (`<post-card>`, bound as `PostCard`); Svelte: a
/// capitalized or dotted tag; Astro: a capitalized or dotted tag of its markup (those in
/// its `{...}` expressions are JSX). Closing tags and HTML elements are not uses.
///
/// And what the tags' attributes use by name ([`UseKind::Passed`],
/// [`UseKind::Directive`]): a value that is a name alone is a function passed, where an
/// expression's calls are read with the program ([`program_text`]).
pub fn template_uses(kind: Kind, source: &str, blocks: &[Block]) -> Vec<TemplateUse> {
    template_uses_in(kind, source, &template_spans(kind, source, blocks))
}

/// [`template_uses`], given the file's [`template_spans`] (found once per file).
pub fn template_uses_in(kind: Kind, source: &str, markup: &[(usize, usize)]) -> Vec<TemplateUse> {
    let bytes = source.as_bytes();
    let mut uses = Vec::new();
    for &(from, to) in markup {
        let mut at = from;
        while at < to {
            // Astro's expressions hold JSX, which the TSX grammar reads as calls already:
            // they are skipped whole.
            let next = bytes[at..to]
                .iter()
                .position(|&b| b == b'<' || (b == b'{' && kind == Kind::Astro))
                .map(|i| at + i);
            let Some(lt) = next else { break };
            if bytes[lt] == b'{' {
                match matching_brace(&bytes[..to], lt) {
                    Some(close) => {
                        at = close + 1;
                        continue;
                    }
                    None => break,
                }
            }
            at = lt + 1;
            if bytes[lt..to].starts_with(b"<!--") {
                at = find(&bytes[..to], b"-->", lt + 4).map_or(to, |e| e + 3);
                continue;
            }
            // Svelte's braces may hold `<` (a comparison): not a tag.
            let Some((name, gt)) = open_tag(&bytes[..to], lt) else {
                continue;
            };
            if let Some(bound) = component_binding(kind, name) {
                uses.push(TemplateUse {
                    offset: lt + 1,
                    name: bound,
                    kind: UseKind::Tag,
                });
            } else if let Some(bound) = vue_lowercase_tag(kind, name) {
                uses.push(TemplateUse {
                    offset: lt + 1,
                    name: bound,
                    kind: UseKind::BoundTag,
                });
            }
            match gt {
                Some(gt) => {
                    if kind != Kind::Astro {
                        attribute_uses(kind, bytes, lt + 1 + name.len(), gt, &mut uses);
                    }
                    at = gt + 1;
                }
                None => break,
            }
        }
    }
    uses
}

/// The uses by name in a tag's attributes, from `at` (past its name) to its `>`.
fn attribute_uses(kind: Kind, bytes: &[u8], mut at: usize, gt: usize, out: &mut Vec<TemplateUse>) {
    while at < gt {
        while at < gt && (bytes[at].is_ascii_whitespace() || bytes[at] == b'/') {
            at += 1;
        }
        if at >= gt {
            break;
        }
        // Svelte's `{name}` (shorthand for `name={name}`) and `{...spread}`.
        if bytes[at] == b'{' {
            let Some(close) = matching_brace(&bytes[..gt], at) else {
                return;
            };
            // `{@attach tooltip}`: Svelte calls it with the element.
            let inner = &bytes[at + 1..close];
            let lead = inner.iter().take_while(|b| b.is_ascii_whitespace()).count();
            let (from, kind) = if inner[lead..].starts_with(b"@attach") {
                (at + 1 + lead + b"@attach".len(), UseKind::Directive)
            } else {
                (at + 1, UseKind::Passed)
            };
            if let Some((offset, path)) = plain_path(bytes, from, close) {
                out.push(TemplateUse {
                    offset,
                    name: path,
                    kind,
                });
            }
            at = close + 1;
            continue;
        }
        let name_start = at;
        while at < gt && !bytes[at].is_ascii_whitespace() && !matches!(bytes[at], b'=' | b'>') {
            at += 1;
        }
        let name = &bytes[name_start..at];
        if kind == Kind::Svelte {
            const DIRECTIVES: [&[u8]; 5] = [b"use:", b"transition:", b"in:", b"out:", b"animate:"];
            let directive = DIRECTIVES.iter().find(|d| name.starts_with(d));
            if let Some(d) = directive {
                let fn_start = name_start + d.len();
                // `transition:fade|local`: the modifiers are not the name.
                let fn_end =
                    name_start + name.iter().position(|&b| b == b'|').unwrap_or(name.len());
                if let Some((offset, path)) = plain_path(bytes, fn_start, fn_end) {
                    out.push(TemplateUse {
                        offset,
                        name: path,
                        kind: UseKind::Directive,
                    });
                }
            }
        }
        if bytes.get(at) != Some(&b'=') {
            continue;
        }
        at += 1;
        let (value_start, value_end, next) = match bytes.get(at) {
            Some(&q @ (b'"' | b'\'')) => match find_byte(&bytes[..gt], q, at + 1) {
                Some(close) => (at + 1, close, close + 1),
                None => return,
            },
            Some(b'{') if kind == Kind::Svelte => match matching_brace(&bytes[..gt], at) {
                Some(close) => (at + 1, close, close + 1),
                None => return,
            },
            _ => {
                // Unquoted: up to a blank.
                while at < gt && !bytes[at].is_ascii_whitespace() {
                    at += 1;
                }
                continue;
            }
        };
        at = next;
        let passes = match kind {
            // A handler or a bound value, quoted: `@click="save"`, `:format="fmt"`.
            Kind::Vue => {
                name.starts_with(b"@")
                    || name.starts_with(b":")
                    || name.starts_with(b"v-on:")
                    || name.starts_with(b"v-bind:")
            }
            // `on:click={save}`, `onclick={save}`, `format={fmt}`; `bind:value={x}` binds a
            // variable, it passes nothing.
            Kind::Svelte => bytes[value_start - 1] == b'{' && !name.starts_with(b"bind:"),
            Kind::Astro => false,
        };
        if passes {
            if let Some((offset, path)) = plain_path(bytes, value_start, value_end) {
                out.push(TemplateUse {
                    offset,
                    name: path,
                    kind: UseKind::Passed,
                });
            }
        }
    }
}

/// The dotted name `bytes[from..to]` holds alone, blanks aside (`save`, `actions.save`):
/// its offset and text. None for anything else (a call, a literal, an arrow).
fn plain_path(bytes: &[u8], from: usize, to: usize) -> Option<(usize, String)> {
    let text = std::str::from_utf8(bytes.get(from..to)?).ok()?;
    let trimmed = text.trim();
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    if !trimmed.split('.').all(ident)
        || matches!(trimmed, "true" | "false" | "null" | "undefined" | "this")
    {
        return None;
    }
    let offset = from + (text.len() - text.trim_start().len());
    Some((offset, trimmed.to_string()))
}

/// `<hamburger>`, `<editorImage>`: in Vue, a tag without a dash that starts in lowercase
/// is an HTML element, or a component the script registers under that name or its
/// capitalized one (Vue tries `hamburger`, then `Hamburger`). Which one only the
/// script's bindings say ([`UseKind::BoundTag`]).
fn vue_lowercase_tag(kind: Kind, tag: &str) -> Option<String> {
    if kind != Kind::Vue
        || !tag.starts_with(|c: char| c.is_ascii_lowercase())
        || !tag.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return None;
    }
    Some(tag.to_string())
}

/// The name a script binds a component tag to, if the tag is a component's.
fn component_binding(kind: Kind, tag: &str) -> Option<String> {
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    let first_upper = tag.starts_with(|c: char| c.is_ascii_uppercase());
    if tag.split('.').all(ident) && (first_upper || (tag.contains('.') && kind != Kind::Vue)) {
        return Some(tag.to_string());
    }
    if kind == Kind::Vue && tag.contains('-') {
        return pascal_case(tag);
    }
    None
}

/// A Vue component's name as templates' PascalCase tags name it: `base-button` and
/// `baseButton` are `BaseButton`, and `BaseButton` stays; None for anything else
/// (`my_el`, `-x`).
pub fn pascal_case(name: &str) -> Option<String> {
    let word = |p: &str| {
        !p.is_empty()
            && p.chars().all(|c| c.is_ascii_alphanumeric())
            && !p.starts_with(|c: char| c.is_ascii_digit())
    };
    if name.starts_with(|c: char| c.is_ascii_uppercase()) && word(name) {
        return Some(name.to_string());
    }
    // `editorImage`: camelCase, capitalized.
    if word(name) {
        let mut c = name.chars();
        return c
            .next()
            .map(|f| f.to_ascii_uppercase().to_string() + c.as_str());
    }
    let kebab = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.split('-').all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        });
    if !kebab {
        return None;
    }
    Some(
        name.split('-')
            .map(|p| {
                let mut c = p.chars();
                c.next()
                    .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default()
            })
            .collect(),
    )
}

/// The byte spans of the template: for Vue the content of each top-level `<template>`;
/// for Svelte and Astro all the markup.
pub fn template_spans(kind: Kind, source: &str, blocks: &[Block]) -> Vec<(usize, usize)> {
    markup_spans(kind, source.as_bytes(), blocks)
}

/// The byte spans of markup that may hold expressions: for Vue the content of each
/// top-level `<template>`; for Svelte everything outside scripts, styles and comments.
fn markup_spans(kind: Kind, bytes: &[u8], blocks: &[Block]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut at = 0;
    let in_block = |i: usize| blocks.iter().any(|b| i >= b.start && i < b.end);
    // Astro's markup starts after its frontmatter.
    let mut span_start = match kind {
        Kind::Astro => std::str::from_utf8(bytes)
            .ok()
            .and_then(frontmatter)
            .map_or(0, |(_, _, after)| after),
        _ => 0,
    };
    at = at.max(span_start);
    let markup_is_all = kind != Kind::Vue;
    while let Some(lt) = find_byte(bytes, b'<', at) {
        at = lt + 1;
        if in_block(lt) {
            continue;
        }
        if bytes[lt..].starts_with(b"<!--") {
            let end = find(bytes, b"-->", lt + 4).map_or(bytes.len(), |e| e + 3);
            if markup_is_all {
                spans.push((span_start, lt));
                span_start = end;
            }
            at = end;
            continue;
        }
        let Some((name, gt)) = open_tag(bytes, lt) else {
            continue;
        };
        let Some(gt) = gt else {
            break;
        };
        at = gt + 1;
        let name = name.to_ascii_lowercase();
        match (kind, name.as_str()) {
            (Kind::Vue, "template") => {
                let close = balanced_close(bytes, b"template", gt + 1);
                // The content, up to the `</template` of the close.
                let content_end = bytes[..close]
                    .iter()
                    .rposition(|&b| b == b'<')
                    .filter(|&p| p > gt)
                    .unwrap_or(close);
                spans.push((gt + 1, content_end));
                at = close;
            }
            (Kind::Svelte | Kind::Astro, "script" | "style") => {
                let close =
                    find_ci(bytes, format!("</{name}").as_bytes(), gt + 1).unwrap_or(bytes.len());
                let end = find_byte(bytes, b'>', close).map_or(bytes.len(), |e| e + 1);
                spans.push((span_start, lt));
                span_start = end;
                at = end;
            }
            _ => {}
        }
    }
    if markup_is_all {
        spans.push((span_start, bytes.len()));
    }
    spans.retain(|(a, b)| a < b);
    spans
}

/// Copies `bytes[from..to]` into `out` as it stands.
fn keep(bytes: &[u8], out: &mut [u8], from: usize, to: usize) {
    out[from..to].copy_from_slice(&bytes[from..to]);
}

/// Vue: `{{ expr }}` in text, and directive values in tags.
fn vue_expressions(bytes: &[u8], from: usize, to: usize, out: &mut [u8]) {
    let mut at = from;
    while at < to {
        if bytes[at..to].starts_with(b"{{") {
            let Some(close) = find(&bytes[..to], b"}}", at + 2) else {
                return;
            };
            keep(bytes, out, at + 2, close);
            // `;(expr);`: an expression statement (an object literal stays an object).
            out[at] = b';';
            out[at + 1] = b'(';
            out[close] = b')';
            out[close + 1] = b';';
            at = close + 2;
            continue;
        }
        if bytes[at] == b'<' && !bytes[at..to].starts_with(b"<!--") {
            match open_tag(&bytes[..to], at) {
                Some((_, Some(gt))) => {
                    directive_values(bytes, at, gt, out);
                    at = gt + 1;
                    continue;
                }
                // A tag that never closes: nothing after it is read (see `script_blocks`).
                Some((_, None)) => return,
                None => {}
            }
        }
        if bytes[at..to].starts_with(b"<!--") {
            at = find(&bytes[..to], b"-->", at + 4).map_or(to, |e| e + 3);
            continue;
        }
        at += 1;
    }
}

/// The quoted values of a Vue tag's directives (`v-if`, `:prop`, `@click`, `#slot`),
/// each kept as a block statement: its quotes become braces.
fn directive_values(bytes: &[u8], lt: usize, gt: usize, out: &mut [u8]) {
    let mut i = lt + 1;
    // Past the tag's name.
    while i < gt && !bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    while i < gt {
        while i < gt && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let name_start = i;
        while i < gt && !bytes[i].is_ascii_whitespace() && bytes[i] != b'=' {
            i += 1;
        }
        let name = &bytes[name_start..i];
        if bytes.get(i) != Some(&b'=') {
            i += 1;
            continue;
        }
        i += 1;
        let Some(&quote @ (b'"' | b'\'')) = bytes.get(i) else {
            continue;
        };
        let Some(close) = find_byte(&bytes[..gt], quote, i + 1) else {
            return;
        };
        let directive = name.starts_with(b"v-")
            || name.starts_with(b":")
            || name.starts_with(b"@")
            || name.starts_with(b"#");
        if directive && close > i + 1 {
            keep(bytes, out, i + 1, close);
            // The `=` before the quote ends what came before.
            out[i - 1] = b';';
            if name.starts_with(b"@") || name.starts_with(b"v-on:") {
                // A handler is statements (`count++; save()`): a block.
                out[i] = b'{';
                out[close] = b'}';
            } else {
                // An expression (`{ active: on }` is an object): `;(expr)`.
                out[i] = b'(';
                out[close] = b')';
            }
            if name.starts_with(b"v-for") {
                // `item of items` reads as `item in items` (same length): an expression.
                if let Some(of) = find(&bytes[..close], b" of ", i + 1) {
                    out[of + 1..of + 3].copy_from_slice(b"in");
                }
            }
        }
        i = close + 1;
    }
}

/// Svelte: every `{...}` of the markup, block keywords reduced to their expressions.
fn svelte_expressions(bytes: &[u8], from: usize, to: usize, out: &mut [u8]) {
    let mut at = from;
    while let Some(open) = find_byte(&bytes[..to], b'{', at) {
        let Some(close) = matching_brace(&bytes[..to], open) else {
            return;
        };
        let inner = open + 1;
        keep(bytes, out, open, close + 1);
        let content = &bytes[inner..close];
        let blank = |out: &mut [u8], a: usize, b: usize| {
            for x in &mut out[a..b] {
                if *x != b'\n' && *x != b'\r' {
                    *x = b' ';
                }
            }
        };
        let lead = content
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        let word_end = |from: usize| {
            from + content[from..]
                .iter()
                .take_while(|b| !b.is_ascii_whitespace())
                .count()
        };
        match content.get(lead) {
            Some(b'#' | b':' | b'@' | b'/') => {
                let end = word_end(lead);
                let keyword = &content[lead..end];
                match keyword {
                    b"#if" | b"#key" | b"@html" | b"@render" | b"@debug" | b"@const"
                    | b"@attach" => {
                        blank(out, inner + lead, inner + end);
                    }
                    b":else" => {
                        // `{:else if c}`: the condition stays.
                        let rest = &content[end..];
                        let ws = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
                        if rest[ws..].starts_with(b"if ") {
                            blank(out, inner + lead, inner + end + ws + 2);
                        } else {
                            blank(out, inner, close);
                        }
                    }
                    b"#each" => {
                        blank(out, inner + lead, inner + end);
                        if let Some(as_at) = find(content, b" as ", end) {
                            blank(out, inner + as_at, close);
                        }
                    }
                    b"#await" => {
                        blank(out, inner + lead, inner + end);
                        for word in [&b" then"[..], b" catch"] {
                            if let Some(w) = find(content, word, end) {
                                blank(out, inner + w, close);
                                break;
                            }
                        }
                    }
                    _ => blank(out, inner, close),
                }
            }
            // A spread (`{...props}`): the value.
            Some(b'.') if content[lead..].starts_with(b"...") => {
                blank(out, inner + lead, inner + lead + 3);
            }
            _ => {}
        }
        // What is left is an expression, or nothing. An expression between blanks
        // becomes `;(expr);` (an object literal stays an object, not a block; the
        // blanks take the `;`s); one against another (`{a}{b}`), and nothing, stay
        // blocks, which need no `;` around them.
        let expression = out[inner..close].iter().any(|b| !b.is_ascii_whitespace());
        let blank_before = open > from && out[open - 1] == b' ';
        let after = out.get(close + 1).copied();
        let blank_after = close + 1 >= to || matches!(after, Some(b' ' | b'\n' | b'\r'));
        if expression && blank_before && blank_after {
            out[open - 1] = b';';
            out[open] = b'(';
            out[close] = b')';
            if after == Some(b' ') && close + 1 < to {
                out[close + 1] = b';';
            }
        }
        at = close + 1;
    }
}

/// The `}` that closes the `{` at `open`, past strings and template literals.
fn matching_brace(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            q @ (b'"' | b'\'' | b'`') => i = find_byte(bytes, q, i + 1)?,
            _ => {}
        }
        i += 1;
    }
    None
}

/// Astro's frontmatter: `---` on the file's first line, to the next line that is `---`.
/// (code start, code end, offset after the closing fence).
fn frontmatter(source: &str) -> Option<(usize, usize, usize)> {
    let lead = source.len()
        - source
            .trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n'])
            .len();
    let rest = &source[lead..];
    let first = rest.split_inclusive('\n').next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let start = lead + first.len();
    let mut offset = start;
    for line in source[start..].split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((start, offset, offset + line.len()));
        }
        offset += line.len();
    }
    None
}

/// The script language a `<script>` tag's attributes declare; None when its content is
/// not code to read here (`src=`, a non-JavaScript `type`).
fn script_language(kind: Kind, attrs: &str) -> Option<Language> {
    if attr(attrs, "src").is_some() {
        return None;
    }
    if let Some(ty) = attr(attrs, "type") {
        let ty = ty.to_ascii_lowercase();
        let code = ty.is_empty()
            || ty == "module"
            || ty.ends_with("javascript")
            || ty.ends_with("typescript")
            || ty == "text/babel"
            || ty == "text/jsx";
        if !code {
            return None;
        }
    }
    let lang = attr(attrs, "lang").map(|l| l.to_ascii_lowercase());
    Some(match lang.as_deref() {
        Some("ts" | "typescript") => Language::TypeScript,
        Some("tsx") => Language::Tsx,
        Some(_) => Language::JavaScript,
        // Astro compiles its scripts as TypeScript.
        None if kind == Kind::Astro => Language::TypeScript,
        None => Language::JavaScript,
    })
}

/// An attribute's value (empty for a bare attribute), by case-insensitive name.
fn attr<'a>(attrs: &'a str, name: &str) -> Option<&'a str> {
    let bytes = attrs.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
            i += 1;
        }
        let key_start = i;
        while i < bytes.len()
            && !bytes[i].is_ascii_whitespace()
            && !matches!(bytes[i], b'=' | b'>' | b'/')
        {
            i += 1;
        }
        let key = &attrs[key_start..i];
        let mut value = "";
        if bytes.get(i) == Some(&b'=') {
            i += 1;
            match bytes.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let end = find_byte(bytes, q, i + 1).unwrap_or(bytes.len());
                    value = &attrs[i + 1..end];
                    i = end + 1;
                }
                _ => {
                    let start = i;
                    while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    value = &attrs[start..i];
                }
            }
        }
        if key.is_empty() {
            i += 1;
            continue;
        }
        if key.eq_ignore_ascii_case(name) {
            return Some(value);
        }
    }
    None
}

/// An opening tag at `lt`: its name and the offset of its `>` (quoted attribute values
/// may hold `>`), None for that when the file ends first. None for a closing tag, a
/// declaration, or a `<` that starts no tag.
fn open_tag(bytes: &[u8], lt: usize) -> Option<(&str, Option<usize>)> {
    let name_start = lt + 1;
    let name_len = bytes[name_start..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b':' | b'.' | b'_'))
        .count();
    if name_len == 0 || !bytes[name_start].is_ascii_alphabetic() {
        return None;
    }
    let name = std::str::from_utf8(&bytes[name_start..name_start + name_len]).ok()?;
    let mut i = name_start + name_len;
    match bytes.get(i) {
        Some(b) if b.is_ascii_whitespace() || matches!(b, b'>' | b'/') => {}
        _ => return None,
    }
    while i < bytes.len() {
        match bytes[i] {
            b'>' => return Some((name, Some(i))),
            q @ (b'"' | b'\'') => match find_byte(bytes, q, i + 1) {
                Some(close) => i = close,
                None => break,
            },
            _ => {}
        }
        i += 1;
    }
    Some((name, None))
}

/// The offset after the `</name>` that closes an element whose content starts at `at`,
/// counting the same elements nested inside (the end of the file when none does).
fn balanced_close(bytes: &[u8], name: &[u8], mut at: usize) -> usize {
    let mut depth = 1usize;
    while let Some(lt) = find_byte(bytes, b'<', at) {
        at = lt + 1;
        if bytes[lt..].starts_with(b"<!--") {
            at = find(bytes, b"-->", lt + 4).map_or(bytes.len(), |end| end + 3);
            continue;
        }
        let closing = bytes.get(lt + 1) == Some(&b'/');
        let name_at = lt + 1 + closing as usize;
        let matches = bytes
            .get(name_at..name_at + name.len())
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
            && bytes
                .get(name_at + name.len())
                .is_some_and(|b| b.is_ascii_whitespace() || matches!(b, b'>' | b'/'));
        if !matches {
            continue;
        }
        if closing {
            depth -= 1;
            if depth == 0 {
                return find_byte(bytes, b'>', lt).map_or(bytes.len(), |gt| gt + 1);
            }
        } else if let Some((_, gt)) = open_tag(bytes, lt) {
            let Some(gt) = gt else {
                return bytes.len();
            };
            if bytes[gt - 1] != b'/' {
                depth += 1;
            }
            at = gt + 1;
        }
    }
    bytes.len()
}

fn find_byte(bytes: &[u8], b: u8, from: usize) -> Option<usize> {
    bytes
        .get(from..)?
        .iter()
        .position(|&x| x == b)
        .map(|i| from + i)
}

fn find(bytes: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| from + i)
}

fn find_ci(bytes: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|i| from + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(kind: Kind, source: &str) -> Vec<(&str, Language)> {
        script_blocks(kind, source)
            .into_iter()
            .map(|b| (&source[b.start..b.end], b.language))
            .collect()
    }

    #[test]
    fn vue_reads_its_top_level_scripts_and_nothing_in_its_template() {
        let source = "<template>\n  <div><template v-if=\"a\"><script>no()</script></template></div>\n</template>\n<script>\nexport default { name: 'A' }\n</script>\n<!-- <script>commented()</script> -->\n<script setup lang=\"ts\">\nimport { f } from './f'\nf()\n</script>\n<style>\n.a { content: '<script>'; }\n</style>\n";
        assert_eq!(
            texts(Kind::Vue, source),
            vec![
                ("\nexport default { name: 'A' }\n", Language::JavaScript),
                ("\nimport { f } from './f'\nf()\n", Language::TypeScript),
            ]
        );
        let blocks = script_blocks(Kind::Vue, source);
        assert_eq!(grammar_of(&blocks), Language::TypeScript);
    }

    #[test]
    fn svelte_reads_its_instance_and_module_scripts() {
        let source = "<script context=\"module\" lang=\"ts\">\n  export const prerender = true;\n</script>\n<script lang='ts'>\n  let { items } = $props();\n</script>\n<ul>{#each items as item}<li on:click={() => pick(item)}>{item}</li>{/each}</ul>\n";
        let blocks = texts(Kind::Svelte, source);
        assert_eq!(blocks.len(), 2);
        assert!(blocks.iter().all(|(_, l)| *l == Language::TypeScript));
        assert!(blocks[1].0.contains("$props()"));
    }

    #[test]
    fn astro_reads_its_frontmatter_and_its_scripts() {
        let source = "---\nimport Card from '../components/Card.astro';\nconst posts = await getPosts();\n---\n<html><body>{posts.map((p) => <Card post={p} />)}\n<script>\n  document.querySelector('a')?.addEventListener('click', track);\n</script>\n<script type=\"application/ld+json\">{\"a\": 1}</script>\n<script src=\"/x.js\"></script>\n</body></html>\n";
        let blocks = texts(Kind::Astro, source);
        assert_eq!(blocks.len(), 2, "{blocks:?}");
        assert!(blocks[0].0.starts_with("import Card"));
        assert!(blocks[0].0.ends_with("getPosts();\n"));
        assert!(blocks[1].0.contains("addEventListener"));
        assert!(blocks.iter().all(|(_, l)| *l == Language::TypeScript));
        // No frontmatter: only the scripts.
        assert_eq!(texts(Kind::Astro, "<p>---</p>\n---\n").len(), 0);
    }

    #[test]
    fn odd_markup_ends_the_scan_without_a_block_or_a_panic() {
        for source in [
            "<script",
            "<script lang=\"ts",
            "<script>unclosed()",
            "<template><script>x()</script>",
            "<!-- <script>",
            "<<<>>></script><script/>",
            "<SCRIPT LANG=TS>let a: number = 1</SCRIPT>",
            "---\nno end",
        ] {
            for kind in [Kind::Vue, Kind::Svelte, Kind::Astro] {
                for b in script_blocks(kind, source) {
                    assert!(b.start <= b.end && b.end <= source.len());
                }
            }
        }
        assert_eq!(
            texts(Kind::Svelte, "<SCRIPT LANG=TS>let a: number = 1</SCRIPT>"),
            vec![("let a: number = 1", Language::TypeScript)]
        );
        assert_eq!(
            texts(Kind::Svelte, "<script>unclosed()"),
            vec![("unclosed()", Language::JavaScript)]
        );
    }

    #[test]
    fn vue_template_expressions_become_statements_at_their_offsets() {
        let source = "<template>\n  <p :title=\"t(a)\" @click=\"save(); n++\" class=\"x{y}\">{{ fmt(d) }}</p>\n  <li v-for=\"item of items\" v-if=\"ok(item)\">{{ item }}</li>\n</template>\n<script setup>\nconst a = 1\n</script>\n";
        let blocks = script_blocks(Kind::Vue, source);
        let text = program_text(Kind::Vue, source, &blocks);
        assert_eq!(text.len(), source.len());
        assert_eq!(text.lines().count(), source.lines().count());
        let squeezed: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(
            squeezed,
            vec![
                ";(t(a))",
                ";{save();",
                "n++}",
                ";(",
                "fmt(d)",
                ");",
                ";(item",
                "in",
                "items)",
                ";(ok(item))",
                ";(",
                "item",
                ");",
                "const",
                "a",
                "=",
                "1"
            ]
        );
        // Each expression stands where it stood.
        assert_eq!(text.find("fmt(d)"), source.find("fmt(d)"));
    }

    #[test]
    fn svelte_markup_expressions_and_blocks_become_statements() {
        let source = "<script>\n  let xs = [];\n</script>\n{#each xs as x, i (x.id)}\n  <b on:click={() => pick(x)} title=\"n {label(x)}\">{fmt(x)}</b>\n{:else if empty(xs)}\n  {@render row(x)}\n{:else}\n{/each}\n{#await load() then v}{v}{/await}\n<Comp {...props} />\n<style>\n  .a { color: red; }\n</style>\n";
        let blocks = script_blocks(Kind::Svelte, source);
        let text = program_text(Kind::Svelte, source, &blocks);
        assert_eq!(text.len(), source.len());
        let squeezed: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(
            squeezed,
            vec![
                "let",
                "xs",
                "=",
                "[];",
                "{",
                "xs",
                "}",
                ";(()",
                "=>",
                "pick(x));",
                ";(label(x));;(fmt(x));",
                "{",
                "empty(xs)}",
                ";(",
                "row(x))",
                "{",
                "}",
                "{",
                "}",
                "{",
                "load()",
                "}{v}{",
                "}",
                ";(",
                "props);"
            ]
        );
    }

    /// Templates as real code writes them parse without an error: object literals in
    /// bindings, statements in handlers, every Svelte block.
    #[test]
    fn template_programs_parse_cleanly() {
        let vue = "<template>\n  <div :class=\"{ on: isOn(x), 'text-x': y }\" :style=\"{ color: c }\" @click=\"n++; save({ a: 1 })\">\n    {{ { a: 1 }.a }} {{ fmt(d) }}{{ other() }}\n    <li v-for=\"(item, i) of items\" :key=\"item.id\" #default=\"{ row }\">{{ row }}</li>\n  </div>\n</template>\n<script setup lang=\"ts\">\nconst c: string = 'red';\n</script>\n";
        let svelte = "<script lang=\"ts\">\n  let xs: number[] = [];\n</script>\n<Calendar value={{ start, end: start.add({ days: 8 }) }} class={cn('a', b)} />\n{#each xs as x, i (x)}{x}{i}{:else}none{/each}\n{#await p}{:then v}{v}{:catch e}{e}{/await}\n{#if a}{@html h(a)}{:else if b}{@render s(b)}{/if}\n{#snippet row(r)}<td>{r}</td>{/snippet}\n<b title=\"n {label(x)} m\" {...rest} on:click={() => go(1)}>{@const z = f(1)}{z}</b>\n";
        let astro = "---\nimport Card from './Card.astro';\nconst posts: { t: string }[] = await load({ n: 1 });\n---\n<Layout title={t('a')}>\n  {posts.map((p) => <Card post={p} class=\"x\" />)}\n  <p style={{ color: 'red' }}>{posts.length > 0 ? 'some' : 'none'}</p>\n</Layout>\n<style>\n  p { color: blue; }\n</style>\n";
        for (kind, source) in [
            (Kind::Vue, vue),
            (Kind::Svelte, svelte),
            (Kind::Astro, astro),
        ] {
            let blocks = script_blocks(kind, source);
            let text = program_text(kind, source, &blocks);
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&grammar_for(kind, &blocks).grammar())
                .unwrap();
            let tree = parser.parse(&text, None).unwrap();
            assert!(
                !tree.root_node().has_error(),
                "{kind:?}:\n{text}\n{}",
                tree.root_node().to_sexp()
            );
        }
    }

    #[test]
    fn component_tags_are_the_capitalized_dotted_and_kebab_ones() {
        let vue = "<template>\n  <div><PostCard :a=\"b\"/><post-card></post-card><Tooltip.Root><my-el-2/></Tooltip.Root><svg:rect/></div>\n</template>\n<script setup>\nconst x = '<Fake/>'\n</script>\n";
        let blocks = script_blocks(Kind::Vue, vue);
        let uses: Vec<TemplateUse> = template_uses(Kind::Vue, vue, &blocks);
        let tags: Vec<&TemplateUse> = uses.iter().filter(|u| u.kind == UseKind::Tag).collect();
        let names: Vec<&str> = tags.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(names, vec!["PostCard", "PostCard", "Tooltip.Root", "MyEl2"]);
        // One-word lowercase tags are components only where the script binds them.
        let maybe: Vec<&str> = uses
            .iter()
            .filter(|u| u.kind == UseKind::BoundTag)
            .map(|u| u.name.as_str())
            .collect();
        assert_eq!(maybe, vec!["div"]);
        assert_eq!(&vue[tags[0].offset..tags[0].offset + 8], "PostCard");
        let svelte = "<script>\n  import Card from './Card.svelte';\n</script>\n{#if a < b}<Card x={1} /><ui.Button/><div/><my-el/>{/if}\n";
        let blocks = script_blocks(Kind::Svelte, svelte);
        let names: Vec<String> = template_uses(Kind::Svelte, svelte, &blocks)
            .into_iter()
            .map(|u| u.name)
            .collect();
        assert_eq!(names, vec!["Card", "ui.Button"]);
        // Astro: the markup's tags; those inside an expression are JSX, read as such.
        let astro = "---\nimport Card from './Card.astro';\n---\n<Layout>{xs.map((x) => <Card x={x} />)}<ui.Nav/></Layout>\n";
        let blocks = script_blocks(Kind::Astro, astro);
        let names: Vec<String> = template_uses(Kind::Astro, astro, &blocks)
            .into_iter()
            .map(|u| u.name)
            .collect();
        assert_eq!(names, vec!["Layout", "ui.Nav"]);
    }

    #[test]
    fn a_file_of_unclosed_tags_is_scanned_once() {
        // Each `<a` would otherwise look for its `>` to the end of the file.
        let source = format!("{}<script>late()</script>", "<a x=1 ".repeat(200_000));
        assert!(script_blocks(Kind::Vue, &source).is_empty());
        let quotes = format!("<script>a()</script>{}", "<a x=\"".repeat(200_000));
        assert_eq!(script_blocks(Kind::Svelte, &quotes).len(), 1);
        for kind in [Kind::Vue, Kind::Svelte] {
            let tags = format!(
                "<template>{}</template><script>a()</script>",
                "<a x=1 ".repeat(100_000)
            );
            let unclosed = format!("<template>{}</template>", "<a {{ b ".repeat(100_000));
            for source in [tags, unclosed] {
                let blocks = script_blocks(kind, &source);
                assert_eq!(program_text(kind, &source, &blocks).len(), source.len());
            }
        }
    }
}
