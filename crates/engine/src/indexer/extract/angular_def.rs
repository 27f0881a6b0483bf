//! Angular components' templates, as facts (the template itself is read by
//! `indexer::angular`).
//!
//! - An inline `template:` is part of the class's file: its uses are call sites of that
//!   file, at their offsets in it, made by the class (its decorator is the class's
//!   signature, so an edit to the template is a change to the class), of members of
//!   `this` of the class: `(click)="save()"` is `this.save()`.
//! - A `templateUrl` names a file of its own. The class's file records a reference from
//!   the class to that file's template ([`ImportKind::Template`]), and the template file
//!   is a definition of its own ([`DefKind::Template`], named `template`, its default
//!   export, spanning the file), whose uses call members of [`Sym::Host`], the
//!   component whose template it is: which class that is only the graph knows (see
//!   `graph::templates`). So a method used only by its template has the template as
//!   its caller, and an edit to the template is a change to the template whose caller
//!   is the class: a blast radius goes from the template to the component class, then
//!   to what uses the class.
//!
//! The definition is named `template` rather than after its file: facts are stored by
//! content, and one template's bytes at two paths are one entry.

use tree_sitter::Node;

use super::calls::string_literal;
use super::component_def::whole_file_def;
use super::fields::{Field, FieldExt};
use super::Extractor;
use crate::indexer::angular::{self, Node as TNode, Scan, UseKind};
use crate::indexer::facts::*;
use crate::indexer::language::Language;
use crate::indexer::skip::SkipReason;

/// What the uses of a template are recorded into.
trait Sink {
    fn intern(&mut self, s: &str) -> StrId;
    fn sym(&mut self, s: Sym) -> SymId;
    fn call(&mut self, c: CallSite);
}

impl Sink for Extractor<'_> {
    fn intern(&mut self, s: &str) -> StrId {
        Extractor::intern(self, s)
    }
    fn sym(&mut self, s: Sym) -> SymId {
        Extractor::sym(self, s)
    }
    fn call(&mut self, c: CallSite) {
        self.facts.calls.push(c);
    }
}

/// The facts of a template file built without a parser: strings interned once each.
struct FileSink {
    facts: FileFacts,
    strings: rustc_hash::FxHashMap<String, StrId>,
}

impl Sink for FileSink {
    fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.strings.get(s) {
            return id;
        }
        let id = self.facts.strings.push(s);
        self.strings.insert(s.to_string(), id);
        id
    }
    fn sym(&mut self, s: Sym) -> SymId {
        self.facts.syms.push(s)
    }
    fn call(&mut self, c: CallSite) {
        self.facts.calls.push(c);
    }
}

/// The facts of an Angular template file: its definition, exported as the default,
/// and its uses of its component's members, made by it.
pub(super) fn template_file(path: &str, source: &str) -> Result<FileFacts, SkipReason> {
    let mut sink = FileSink {
        facts: FileFacts {
            path: path.to_string(),
            language: Some(Language::Angular),
            ..FileFacts::default()
        },
        strings: Default::default(),
    };
    // StrId 0 is the empty string, as in every file's facts.
    sink.intern("");
    let name = sink.intern("template");
    sink.facts
        .defs
        .push(whole_file_def(name, DefKind::Template, source));
    let default = sink.intern("default");
    let value = sink.sym(Sym::Def(0));
    sink.facts.exports.push(Export {
        name: default,
        value: ExportValue::Local(value),
    });
    let host = sink.sym(Sym::Host);
    let scan = angular::scan(source, 0, source.len());
    let mut lines = Lines::new(source, 0, 0, 0);
    record_uses(&mut sink, source, &scan, host, 0, &mut lines);
    let meter = super::budget::Meter::for_source(source.len());
    if sink.facts.weight() > meter.max_fact_bytes {
        return Err(SkipReason::TooCostly);
    }
    sink.facts.shrink_to_fit();
    Ok(sink.facts)
}

impl<'s> Extractor<'s> {
    /// `@Component({ template: `...`, templateUrl: './x.html' })` on class `class`: the
    /// inline template's uses, and the reference to the template file.
    pub(crate) fn angular_component(&mut self, decorator: Node<'s>, class: DefIdx) {
        if self.declaration_only {
            return;
        }
        let Some(call) = self.named_kids(decorator).into_iter().next() else {
            return;
        };
        if call.kind_str() != "call_expression" {
            return;
        }
        let Some(function) = call.field(Field::Function) else {
            return;
        };
        let name = self.text(function);
        if name != "Component" && !name.ends_with(".Component") {
            return;
        }
        let Some(options) = call
            .field(Field::Arguments)
            .and_then(|a| a.named_child(0))
            .filter(|o| o.kind_str() == "object")
        else {
            return;
        };
        for pair in self.named_kids(options) {
            if pair.kind_str() != "pair" {
                continue;
            }
            let (Some(key), Some(value)) = (pair.field(Field::Key), pair.field(Field::Value))
            else {
                continue;
            };
            let key = self.text(key).trim_matches(|c| c == '"' || c == '\'');
            match key {
                "template" => self.inline_template(value, class),
                "templateUrl" => self.template_url(value, class),
                _ => {}
            }
        }
    }

    /// An inline template: a string, or a template string without substitutions.
    fn inline_template(&mut self, value: Node<'s>, class: DefIdx) {
        let plain = match value.kind_str() {
            "string" => true,
            "template_string" => !self
                .named_kids(value)
                .iter()
                .any(|k| k.kind_str() == "template_substitution"),
            _ => false,
        };
        let range = value.byte_range();
        if !plain || range.len() < 2 {
            return;
        }
        let (from, to) = (range.start + 1, range.end - 1);
        let src = self.src;
        let scan = angular::scan(src, from, to);
        if scan.uses.is_empty() {
            return;
        }
        let host = self.sym(Sym::This(Some(class)));
        let at = value.start_position();
        let line_start = value.start_byte() - at.column;
        let mut lines = Lines::new(src, value.start_byte(), at.row as u32, line_start);
        record_uses(self, src, &scan, host, class, &mut lines);
    }

    /// `templateUrl: './x.html'`: the class refers to the template file's definition.
    /// Angular reads the path relative to the class's file, `./` or not.
    fn template_url(&mut self, value: Node<'s>, class: DefIdx) {
        let Some(url) = string_literal(value, self.src) else {
            return;
        };
        let url = url.trim();
        if url.is_empty() || url.contains("://") || url.starts_with('/') {
            return;
        }
        let specifier = if url.starts_with("./") || url.starts_with("../") {
            url.to_string()
        } else {
            format!("./{url}")
        };
        let line = value.start_position().row as u32;
        let import = self.add_import(&specifier, ImportKind::Template(class), line);
        let callee = self.sym(Sym::Import(import));
        let file = specifier
            .rsplit('/')
            .next()
            .unwrap_or(&specifier)
            .to_string();
        let name = self.intern(&file);
        let pos = self.pos(value);
        self.facts.calls.push(CallSite::new(
            Some(class),
            CallKind::Reference,
            callee,
            name,
            pos,
        ));
    }
}

/// Records the uses of a template: each callee's value built from `host` (the
/// component instance), made by `caller`. A read or reference of a value the template
/// does not follow (`$event.x`, `ref.y`) can never resolve: left out, as script code's
/// are (see `finish`).
fn record_uses(
    sink: &mut impl Sink,
    src: &str,
    scan: &Scan,
    host: SymId,
    caller: DefIdx,
    lines: &mut Lines,
) {
    let mut syms: Vec<Option<SymId>> = vec![None; scan.nodes.len()];
    let mut unknown: Option<SymId> = None;
    for u in &scan.uses {
        if u.kind != UseKind::Call && !rooted_in_host(&scan.nodes, u.callee) {
            continue;
        }
        // Operands are made before the values that use them: filling the table from
        // the lowest unfilled one up makes each once.
        let mut pending = vec![u.callee];
        while let Some(&v) = pending.last() {
            if syms[v as usize].is_some() {
                pending.pop();
                continue;
            }
            let operand = match scan.nodes[v as usize] {
                TNode::Member(o, _, _) | TNode::Return(o) | TNode::Element(o) => Some(o),
                TNode::Host | TNode::Unknown => None,
            };
            if let Some(o) = operand.filter(|o| syms[*o as usize].is_none()) {
                pending.push(o);
                continue;
            }
            let of = |o: u32| syms[o as usize].expect("operands first");
            let sym = match scan.nodes[v as usize] {
                TNode::Host => host,
                TNode::Unknown => *unknown.get_or_insert_with(|| sink.sym(Sym::Unknown)),
                TNode::Member(o, a, b) => {
                    let base = of(o);
                    let name = sink.intern(&src[a..b]);
                    sink.sym(Sym::Member(base, name))
                }
                TNode::Return(o) => {
                    let base = of(o);
                    sink.sym(Sym::Return(base))
                }
                TNode::Element(o) => {
                    let base = of(o);
                    sink.sym(Sym::Element(base))
                }
            };
            syms[v as usize] = Some(sym);
            pending.pop();
        }
        let callee = syms[u.callee as usize].expect("made above");
        let name = sink.intern(&src[u.name.0..u.name.1]);
        let kind = match u.kind {
            UseKind::Call => CallKind::Call,
            UseKind::Get => CallKind::Get,
            UseKind::Reference => CallKind::Reference,
        };
        let pos = lines.pos(u.name.0);
        sink.call(CallSite::new(Some(caller), kind, callee, name, pos));
    }
}

/// Whether a value is the host or reached from it.
fn rooted_in_host(nodes: &[TNode], mut v: u32) -> bool {
    loop {
        match nodes[v as usize] {
            TNode::Host => return true,
            TNode::Unknown => return false,
            TNode::Member(o, _, _) | TNode::Return(o) | TNode::Element(o) => v = o,
        }
    }
}

/// Byte offsets to positions (columns in UTF-16 code units, as [`Extractor::pos`]
/// counts them), for offsets asked in increasing order from a known place.
struct Lines<'s> {
    src: &'s [u8],
    line: u32,
    /// The column of `seen`.
    column: u32,
    seen: usize,
}

impl<'s> Lines<'s> {
    /// Positions from offset `at`, which is on line `line` starting at `line_start`.
    fn new(src: &'s str, at: usize, line: u32, line_start: usize) -> Self {
        let mut lines = Lines {
            src: src.as_bytes(),
            line,
            column: 0,
            seen: line_start,
        };
        lines.pos(at);
        lines
    }

    fn pos(&mut self, offset: usize) -> Pos {
        let offset = offset.clamp(self.seen, self.src.len());
        for &b in &self.src[self.seen..offset] {
            match b {
                b'\n' => {
                    self.line += 1;
                    self.column = 0;
                }
                // A continuation byte: part of the character before.
                0x80..=0xbf => {}
                // A four-byte character: two UTF-16 code units.
                0xf0..=0xff => self.column += 2,
                _ => self.column += 1,
            }
        }
        self.seen = offset;
        Pos {
            line: self.line,
            column: self.column,
        }
    }
}
