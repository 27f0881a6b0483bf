//! Angular component templates: which members of the component class their bindings
//! use.
//!
//! A template is HTML whose bindings hold expressions evaluated against the component
//! instance: `(click)="save()"`, `{{ format(x) }}`, `[title]="t()"`,
//! `*ngFor="let item of items(); trackBy: trackFn"`, `@if (ready()) {`, `@for (x of
//! xs(); track x.id)`. A bare name in one is a member of the component (`save` is
//! `this.save`) unless a template variable of the scope shadows it (`let item`, `#ref`,
//! `let-x`, `@let x = ...`, `$event`, `@for`'s `$index`). [`scan`] reads a template and
//! gives each use of a name with its value, built from [`Node::Host`] (the component
//! instance): the caller turns that into the file's symbolic values (`this` of the
//! class for an inline `template:`, [`crate::indexer::facts::Sym::Host`] for a
//! `templateUrl` file, whose class is known only across files).
//!
//! Angular's expression syntax is JavaScript's, less some and plus a few: a pipe
//! (`x | date:'short'`) names a pipe, not a member, and is not a call; `a?.b()` and
//! `a!.b()` are calls of `b`; a microsyntax (`let x of xs; index as i`) declares names
//! and passes keyed expressions; `trackBy: fn` passes a member by name (a reference).
//! Anything read in doubt is left out, never guessed: a value the scan cannot follow
//! is [`Node::Unknown`], which resolves to nothing but a labelled name match.
//!
//! One pass, linear in the template's bytes: every byte is looked at a bounded number
//! of times (a tag's attributes twice, a block's parameters twice), scopes keep their
//! names in a map (a lookup does not walk the scopes), and an unclosed tag, quote or
//! block ends what it holds at the end of the template. Template reference variables
//! (`#ref`) are visible from where they are declared to the end of the template (Angular
//! sees them in the whole template: a use above the declaration reads as a member).

use rustc_hash::{FxHashMap, FxHashSet};

/// A value in a template, an index into [`Scan::nodes`].
pub type Val = u32;

/// What a value of a template is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    /// The component instance.
    Host,
    /// A value the scan does not follow (`$event`, a `#ref`, a pipe's result).
    Unknown,
    /// Member `name` (a byte range of the source) of a value.
    Member(Val, usize, usize),
    /// What calling a value returns.
    Return(Val),
    /// An element of the array a value is (`let item of items`).
    Element(Val),
}

/// How a name is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UseKind {
    Call,
    /// Read: a call only when it is a getter.
    Get,
    /// Passed by name (`trackBy: trackFn`).
    Reference,
}

/// One use of a member: what is used, the byte range of the name that says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Use {
    pub kind: UseKind,
    pub callee: Val,
    pub name: (usize, usize),
}

/// What a template's bindings use.
#[derive(Debug, Default)]
pub struct Scan {
    pub nodes: Vec<Node>,
    /// In order of their names' offsets.
    pub uses: Vec<Use>,
}

/// Whether a `.html` file's text is an Angular template: it holds Angular's own
/// binding syntax (an attribute named `(event)`, `[prop]`, `*directive` or `#ref`, or a
/// control-flow block `@if (`, `@for (`, `@switch (`, `@defer`, `@let`), or it is named
/// as Angular's CLI names templates (`x.component.html`) and holds `{{`. Other HTML
/// (pages, other template languages: `{{ }}` alone is Handlebars' and Jinja's too) is
/// not read.
pub fn is_template(path: &str, text: &str) -> bool {
    if !(path.ends_with(".html") || path.ends_with(".htm")) {
        return false;
    }
    if path.ends_with(".component.html") && text.contains("{{") {
        return true;
    }
    let bytes = text.as_bytes();
    for block in ["@if", "@for", "@switch", "@defer", "@let "] {
        let mut from = 0;
        while let Some(i) = find(bytes, block.as_bytes(), from) {
            from = i + block.len();
            let after = &bytes[from..];
            let next = after.iter().find(|b| !b.is_ascii_whitespace());
            if block == "@let " || block == "@defer" || next == Some(&b'(') {
                return true;
            }
        }
    }
    // An attribute name: after whitespace inside a tag, `(x)=`, `[x]=`, `*x=`, `#x`.
    let mut in_tag = false;
    let mut quote = 0u8;
    for (i, &b) in bytes.iter().enumerate() {
        if quote != 0 {
            if b == quote {
                quote = 0;
            }
            continue;
        }
        match b {
            b'<' => in_tag = bytes.get(i + 1).is_some_and(u8::is_ascii_alphabetic),
            b'>' => in_tag = false,
            b'"' | b'\'' if in_tag => quote = b,
            b'(' | b'[' | b'*' | b'#' if in_tag && i > 0 && bytes[i - 1].is_ascii_whitespace() => {
                let rest = &bytes[i + 1..];
                let name = rest
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_'))
                    .count();
                if name == 0 {
                    continue;
                }
                let close = rest.get(name).copied();
                let ok = match b {
                    b'(' => close == Some(b')') && rest.get(name + 1) == Some(&b'='),
                    b'[' => matches!(close, Some(b']')) || rest.first() == Some(&b'('),
                    _ => true,
                };
                if ok {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// Reads the template `src[from..to]` (offsets stay `src`'s).
pub fn scan(src: &str, from: usize, to: usize) -> Scan {
    let mut s = Scanner {
        src,
        b: src.as_bytes(),
        out: Scan::default(),
        frames: Vec::new(),
        open: FxHashMap::default(),
        vars: FxHashMap::default(),
        braces: 0,
        refs: FxHashSet::default(),
    };
    s.out.nodes.push(Node::Host);
    s.out.nodes.push(Node::Unknown);
    s.template(from, to.min(src.len()));
    s.out.uses.sort_by_key(|u| u.name.0);
    s.out
}

const HOST: Val = 0;
const UNKNOWN: Val = 1;

#[derive(Clone, Copy, PartialEq, Eq)]
enum FrameKind {
    /// An element, by its name's byte range.
    Element(usize, usize),
    /// A `@block { ... }`.
    Block,
    /// An ICU message's braces (`{n, plural, =1 {one} other {many}}`).
    Icu,
}

struct Frame<'s> {
    kind: FrameKind,
    /// The names this frame declares, to forget when it ends.
    declared: Vec<&'s str>,
}

struct Scanner<'s> {
    src: &'s str,
    b: &'s [u8],
    out: Scan,
    frames: Vec<Frame<'s>>,
    /// How many frames are braces (blocks, ICU): a `}` with none closes nothing.
    braces: usize,
    /// Open elements by name: a closing tag with none open closes nothing.
    open: FxHashMap<&'s str, u32>,
    /// The template variables in scope, by name: the innermost value last.
    vars: FxHashMap<&'s str, Vec<Val>>,
    /// Template reference variables (`#ref`): values not followed, seen to the end.
    refs: FxHashSet<&'s str>,
}

/// Names Angular gives every template, and words that are no member.
const KEYWORDS: &[&str] = &[
    "true",
    "false",
    "null",
    "undefined",
    "typeof",
    "void",
    "in",
    "instanceof",
    "$any",
];

impl<'s> Scanner<'s> {
    fn node(&mut self, n: Node) -> Val {
        self.out.nodes.push(n);
        (self.out.nodes.len() - 1) as Val
    }

    /// The value of a template variable in scope.
    fn var(&self, name: &str) -> Option<Val> {
        match self.vars.get(name).and_then(|v| v.last()) {
            Some(&v) => Some(v),
            None => self.refs.contains(name).then_some(UNKNOWN),
        }
    }

    fn text_of(&self, (a, b): (usize, usize)) -> &'s str {
        &self.src[a..b]
    }

    /// Declares `name` in the innermost frame.
    fn declare(&mut self, name: (usize, usize), value: Val) {
        let text = self.text_of(name);
        self.declare_name(text, value);
    }

    fn declare_name(&mut self, name: &'s str, value: Val) {
        if name.is_empty() {
            return;
        }
        self.vars.entry(name).or_default().push(value);
        if let Some(f) = self.frames.last_mut() {
            f.declared.push(name);
        }
    }

    /// Declares `name` to the end of the template (a `#ref`).
    fn declare_global(&mut self, name: (usize, usize)) {
        let text = self.text_of(name);
        if !text.is_empty() {
            self.refs.insert(text);
        }
    }

    fn push_frame(&mut self, kind: FrameKind) {
        match kind {
            FrameKind::Element(a, b) => *self.open.entry(&self.src[a..b]).or_default() += 1,
            FrameKind::Block | FrameKind::Icu => self.braces += 1,
        }
        self.frames.push(Frame {
            kind,
            declared: Vec::new(),
        });
    }

    fn pop_frame(&mut self) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        match frame.kind {
            FrameKind::Element(a, b) => {
                if let Some(n) = self.open.get_mut(&self.src[a..b]) {
                    *n -= 1;
                }
            }
            FrameKind::Block | FrameKind::Icu => self.braces -= 1,
        }
        for name in frame.declared {
            if let Some(values) = self.vars.get_mut(name) {
                values.pop();
            }
        }
    }

    /// `</name>`: ends the element and what is open inside it; nothing when no element
    /// of that name is open. Each frame is popped once: linear over the template.
    fn close_element(&mut self, name: &str) {
        if self.open.get(name).copied().unwrap_or(0) == 0 {
            return;
        }
        while let Some(frame) = self.frames.last() {
            let done = matches!(frame.kind, FrameKind::Element(a, b) if &self.src[a..b] == name);
            self.pop_frame();
            if done {
                break;
            }
        }
    }

    /// `}` in text: ends the innermost block or ICU brace (and what is open inside).
    fn close_brace(&mut self) {
        if self.braces == 0 {
            return;
        }
        while let Some(frame) = self.frames.last() {
            let done = matches!(frame.kind, FrameKind::Block | FrameKind::Icu);
            self.pop_frame();
            if done {
                break;
            }
        }
    }

    fn template(&mut self, from: usize, to: usize) {
        let b = self.b;
        let mut i = from;
        while i < to {
            match b[i] {
                b'<' if b[i..to].starts_with(b"<!--") => {
                    i = find(&b[..to], b"-->", i + 4).map_or(to, |e| e + 3);
                }
                b'<' if b.get(i + 1) == Some(&b'/') => {
                    let name_end = name_end(b, i + 2, to);
                    let name = &self.src[i + 2..name_end];
                    i = find_byte(&b[..to], b'>', name_end).map_or(to, |gt| gt + 1);
                    self.close_element(name);
                }
                b'<' if b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) => {
                    i = self.element(i, to);
                }
                b'{' if b[i..to].starts_with(b"{{") => {
                    // `{{{n}}`: an ICU case's brace, then an interpolation.
                    let run = b[i..to].iter().take_while(|&&c| c == b'{').count();
                    for _ in 0..run - 2 {
                        self.push_frame(FrameKind::Icu);
                    }
                    i = self.interpolation(i + run - 2, to);
                }
                b'{' => {
                    i = self.icu(i, to);
                }
                b'}' => {
                    self.close_brace();
                    i += 1;
                }
                b'@' if b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) => {
                    i = self.block(i, to);
                }
                _ => i += 1,
            }
        }
        while !self.frames.is_empty() {
            self.pop_frame();
        }
    }

    /// `{{ expr }}` at `at`: returns the offset after it.
    fn interpolation(&mut self, at: usize, to: usize) -> usize {
        let start = at + 2;
        let end = interpolation_end(self.b, start, to);
        self.expression(start, end);
        (end + 2).min(to)
    }

    /// A `{` in text: an ICU message (`{count, plural, =0 {none} other {...}}`), whose
    /// switch value is an expression, or one of its cases' braces.
    fn icu(&mut self, at: usize, to: usize) -> usize {
        self.push_frame(FrameKind::Icu);
        let b = self.b;
        // The switch value runs to the first comma, unless a brace or tag comes first.
        let mut i = at + 1;
        while i < to && !matches!(b[i], b',' | b'{' | b'}' | b'<' | b'"' | b'\'') {
            i += 1;
        }
        if i < to && b[i] == b',' {
            let kind_start = i + 1;
            let mut k = kind_start;
            while k < to && b[k] != b',' && !matches!(b[k], b'{' | b'}' | b'<') {
                k += 1;
            }
            let kind = self.src[kind_start..k].trim();
            if k < to && b[k] == b',' && matches!(kind, "plural" | "select" | "selectordinal") {
                self.expression(at + 1, i);
                return k + 1;
            }
        }
        at + 1
    }

    /// An element's opening tag at `lt`: its bindings, and a frame for its content.
    /// Returns the offset after the tag (after the raw text of a `<script>`/`<style>`).
    fn element(&mut self, lt: usize, to: usize) -> usize {
        let b = self.b;
        let name_start = lt + 1;
        let name_end = name_end(b, name_start, to);
        let mut attrs: Vec<Attr> = Vec::new();
        let mut i = name_end;
        let mut self_closing = false;
        let mut closed = false;
        while i < to {
            match b[i] {
                b'>' => {
                    closed = true;
                    i += 1;
                    break;
                }
                b'/' if b.get(i + 1) == Some(&b'>') => {
                    self_closing = true;
                    closed = true;
                    i += 2;
                    break;
                }
                c if c.is_ascii_whitespace() || c == b'/' => i += 1,
                _ => {
                    let key_start = i;
                    // Attribute names may hold brackets and dots: `[attr.x]`, `(a.b)`.
                    while i < to && !ends_attribute_name(b, i) {
                        i += 1;
                    }
                    let key = (key_start, i.max(key_start + 1).min(to));
                    if i == key_start {
                        i += 1;
                    }
                    let mut j = i;
                    while j < to && b[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    let mut value = None;
                    if j < to && b[j] == b'=' {
                        j += 1;
                        while j < to && b[j].is_ascii_whitespace() {
                            j += 1;
                        }
                        match b.get(j) {
                            Some(&q @ (b'"' | b'\'')) if j < to => {
                                let end = find_byte(&b[..to], q, j + 1).unwrap_or(to);
                                value = Some((j + 1, end));
                                i = (end + 1).min(to);
                            }
                            _ => {
                                let start = j;
                                while j < to && !b[j].is_ascii_whitespace() && b[j] != b'>' {
                                    j += 1;
                                }
                                value = Some((start, j));
                                i = j;
                            }
                        }
                    }
                    attrs.push(Attr { key, value });
                }
            }
        }
        let name = &self.src[name_start..name_end];
        let void = is_void(name);
        self.push_frame(FrameKind::Element(name_start, name_end));
        // What declares names first: the element's own bindings see them.
        for a in &attrs {
            let key = self.text_of(a.key);
            if key.starts_with("let-") {
                self.declare((a.key.0 + 4, a.key.1), UNKNOWN);
            } else if let Some(var) = key.strip_prefix('#').or_else(|| key.strip_prefix("ref-")) {
                let start = a.key.1 - var.len();
                self.declare_global((start, a.key.1));
            } else if key.starts_with('*') {
                if let Some(v) = a.value {
                    self.microsyntax(v.0, v.1);
                }
            }
        }
        for a in &attrs {
            let Some((vs, ve)) = a.value else { continue };
            let key = self.text_of(a.key);
            if key.starts_with('*') || key.starts_with("let-") || key.starts_with('#') {
                continue;
            }
            let event = (key.starts_with('(') && key.ends_with(')')) || key.starts_with("on-");
            let binding =
                key.starts_with('[') || key.starts_with("bind-") || key.starts_with("bindon-");
            if event {
                self.event(vs, ve);
            } else if binding {
                self.expression(vs, ve);
            } else {
                // A plain attribute: its interpolations (`title="Hi {{ name() }}"`).
                let mut k = vs;
                while let Some(open) = find(&self.b[..ve], b"{{", k) {
                    let end = interpolation_end(self.b, open + 2, ve);
                    self.expression(open + 2, end);
                    k = end + 2;
                }
            }
        }
        if !closed {
            // A tag the template ends in: nothing after it.
            self.pop_frame();
            return to;
        }
        if self_closing || void {
            self.pop_frame();
        }
        if name.eq_ignore_ascii_case("script") || name.eq_ignore_ascii_case("style") {
            let close = find_ci(&b[..to], format!("</{name}").as_bytes(), i).unwrap_or(to);
            return close;
        }
        i
    }

    /// An event binding's statements, with `$event` in scope.
    fn event(&mut self, from: usize, to: usize) {
        self.vars.entry("$event").or_default().push(UNKNOWN);
        self.expression(from, to);
        if let Some(v) = self.vars.get_mut("$event") {
            v.pop();
        }
    }

    /// A structural directive's microsyntax (`let item of items(); let i = index;
    /// trackBy: trackFn`, `cond; else other`, `obs | async as value`): its keyed
    /// expressions are read, its names declared in the element's frame.
    fn microsyntax(&mut self, from: usize, to: usize) {
        let b = self.b;
        let mut i = from;
        let mut first = true;
        let mut implicit: Vec<(usize, usize)> = Vec::new();
        let mut iterated: Option<Val> = None;
        let mut declared: Vec<((usize, usize), Val)> = Vec::new();
        while i < to {
            while i < to && (b[i].is_ascii_whitespace() || matches!(b[i], b';' | b',')) {
                i += 1;
            }
            if i >= to {
                break;
            }
            let word = ident_at(b, i, to);
            if self.src[i..word] == *"let" && word < to && b[word].is_ascii_whitespace() {
                // `let name` (the directive's value) or `let name = key` (a context's).
                let name_start = skip_ws(b, word, to);
                let name_end = ident_at(b, name_start, to);
                let mut j = skip_ws(b, name_end, to);
                if j < to && b[j] == b'=' {
                    j = skip_ws(b, j + 1, to);
                    j = ident_at(b, j, to);
                    declared.push(((name_start, name_end), UNKNOWN));
                } else {
                    implicit.push((name_start, name_end));
                }
                i = j.max(name_end).max(i + 3);
                first = false;
                continue;
            }
            let mut key: Option<(usize, usize)> = None;
            if !first && word > i {
                key = Some((i, word));
                let mut j = skip_ws(b, word, to);
                // `index as i`: a context value's alias.
                let after = ident_at(b, j, to);
                if &self.src[j..after] == "as" {
                    let name_start = skip_ws(b, after, to);
                    let name_end = ident_at(b, name_start, to);
                    declared.push(((name_start, name_end), UNKNOWN));
                    i = name_end.max(after);
                    continue;
                }
                if j < to && b[j] == b':' {
                    j += 1;
                }
                i = j;
            }
            first = false;
            // The expression runs to a top-level `;` or `,`; a trailing `as name`
            // names its value.
            let end = expression_end(b, i, to);
            let (expr_end, alias) = trailing_alias(self.src, i, end);
            let key_text = key.map(|k| self.text_of(k));
            match key_text {
                Some("trackBy") => self.reference(i, expr_end),
                _ => {
                    let value = self.expression(i, expr_end);
                    if key_text == Some("of") || key_text == Some("ngForOf") {
                        iterated = value;
                    }
                }
            }
            if let Some(alias) = alias {
                declared.push((alias, UNKNOWN));
            }
            i = end.max(i + 1);
        }
        let item = match iterated {
            Some(v) => self.node(Node::Element(v)),
            None => UNKNOWN,
        };
        for name in implicit {
            self.declare(name, item);
        }
        for (name, value) in declared {
            self.declare(name, value);
        }
    }

    /// A member passed by name: its value when it is one name or chain, else an
    /// expression like any other.
    fn reference(&mut self, from: usize, to: usize) {
        let start = skip_ws(self.b, from, to);
        let mut end = to;
        while end > start && self.b[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        let end_of_name = ident_at(self.b, start, end);
        let name = self.text_of((start, end_of_name));
        if end_of_name == end && end > start && self.var(name).is_none() {
            let callee = self.node(Node::Member(HOST, start, end));
            self.out.uses.push(Use {
                kind: UseKind::Reference,
                callee,
                name: (start, end),
            });
            return;
        }
        self.expression(from, to);
    }

    /// `@name (params) {` at `at`: a control-flow block; `@let name = expr;`.
    fn block(&mut self, at: usize, to: usize) -> usize {
        let b = self.b;
        let name_end = ident_at(b, at + 1, to);
        let mut name = &self.src[at + 1..name_end];
        let mut i = skip_ws(b, name_end, to);
        if name == "let" {
            let var_start = i;
            let var_end = ident_at(b, var_start, to);
            let mut j = skip_ws(b, var_end, to);
            if var_end == var_start || j >= to || b[j] != b'=' {
                return name_end;
            }
            j += 1;
            let end = statement_end(b, j, to);
            let value = self.expression(j, end).unwrap_or(UNKNOWN);
            self.declare((var_start, var_end), value);
            return (end + 1).min(to);
        }
        if name == "else" {
            let if_end = ident_at(b, i, to);
            if &self.src[i..if_end] == "if" {
                name = "if";
                i = skip_ws(b, if_end, to);
            }
        }
        let mut params = None;
        if i < to && b[i] == b'(' {
            let close = matching_paren(b, i, to);
            params = Some((i + 1, close));
            i = skip_ws(b, (close + 1).min(to), to);
        }
        if i >= to || b[i] != b'{' {
            // Not a block (an `@` in text): read on after the name.
            return name_end;
        }
        self.push_frame(FrameKind::Block);
        if let Some((from, close)) = params {
            self.block_params(name, from, close);
        }
        i + 1
    }

    /// The parameters of a block, split at top-level `;`.
    fn block_params(&mut self, name: &str, from: usize, to: usize) {
        let b = self.b;
        let mut parts = Vec::new();
        let mut i = from;
        while i < to {
            let end = statement_end(b, i, to);
            parts.push((i, end));
            i = end + 1;
        }
        match name {
            "if" | "switch" | "case" => {
                for (n, &(s, e)) in parts.iter().enumerate() {
                    let s = skip_ws(b, s, e);
                    let word = ident_at(b, s, e);
                    if n > 0 && &self.src[s..word] == "as" {
                        let name_start = skip_ws(b, word, e);
                        let name_end = ident_at(b, name_start, e);
                        self.declare((name_start, name_end), UNKNOWN);
                    } else if n == 0 {
                        self.expression(s, e);
                    }
                }
            }
            "for" => {
                for &(s, e) in &parts {
                    let s = skip_ws(b, s, e);
                    let word = ident_at(b, s, e);
                    match &self.src[s..word] {
                        "track" => {
                            self.expression(word, e);
                        }
                        "let" => {
                            // `let i = $index, odd = $odd`
                            let mut k = word;
                            while k < e {
                                let name_start = skip_ws(b, k, e);
                                let name_end = ident_at(b, name_start, e);
                                if name_end == name_start {
                                    break;
                                }
                                self.declare((name_start, name_end), UNKNOWN);
                                k = find_byte(&b[..e], b',', name_end).map_or(e, |c| c + 1);
                            }
                        }
                        _ if word > s => {
                            // `item of items()`
                            let of_start = skip_ws(b, word, e);
                            let of_end = ident_at(b, of_start, e);
                            if &self.src[of_start..of_end] == "of" {
                                let iterated = self.expression(of_end, e);
                                let item = match iterated {
                                    Some(v) => self.node(Node::Element(v)),
                                    None => UNKNOWN,
                                };
                                // Every `@for` has these.
                                for implicit in
                                    ["$index", "$first", "$last", "$even", "$odd", "$count"]
                                {
                                    self.declare_name(implicit, UNKNOWN);
                                }
                                self.declare((s, word), item);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "defer" => {
                // Triggers: `when cond()` (and `prefetch when`, `hydrate when`) are
                // expressions; `on idle`, `on viewport(ref)` are not.
                for &(s, e) in &parts {
                    let text = &self.src[s..e];
                    if let Some(w) = text.find("when ") {
                        let before = text[..w].trim();
                        if matches!(before, "" | "prefetch" | "hydrate") {
                            self.expression(s + w + 5, e);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Reads an expression (or an event's statements) in `from..to`, recording its
    /// uses. Returns the value of the whole when it is one operand (`a.b()`, `items`).
    fn expression(&mut self, from: usize, to: usize) -> Option<Val> {
        let b = self.b;
        let mut i = from;
        // The operand before the cursor, when the last token ended one.
        let mut prev = Prev::Start;
        // A chain being read: its value, its last name, its depth in members off the
        // host (reads deeper than two are not kept, as for script code).
        let mut chain: Option<Chain> = None;
        // Open brackets: their kind, and for a call's parentheses what it returns.
        let mut brackets: Vec<(u8, Option<Val>)> = Vec::new();
        // Whether the text is one operand so far, and its value.
        let mut simple = true;
        let mut whole: Option<Val> = None;
        while i < to {
            let c = b[i];
            if c.is_ascii_whitespace() {
                i += 1;
                continue;
            }
            // `.name`, `?.name`: a member of the value before.
            let member_dot = if c == b'.' && !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                Some(i + 1)
            } else if c == b'?'
                && b.get(i + 1) == Some(&b'.')
                && !b.get(i + 2).is_some_and(u8::is_ascii_digit)
            {
                Some(i + 2)
            } else {
                None
            };
            if let Some(after) = member_dot {
                let base = match chain.take() {
                    Some(ch) => {
                        let v = ch.value;
                        self.flush_get(ch);
                        Some(v)
                    }
                    None => match prev {
                        Prev::Value(v) => v,
                        _ => None,
                    },
                };
                let name_start = skip_ws(b, after, to);
                let name_end = ident_at(b, name_start, to);
                if name_end == name_start {
                    // `?.(`, `?.[`: a call or index of the value before.
                    prev = Prev::Value(None);
                    i = name_start.max(i + 1);
                    continue;
                }
                let depth = depth_below(base, &self.out.nodes);
                let value = self.node(Node::Member(base.unwrap_or(UNKNOWN), name_start, name_end));
                chain = Some(Chain {
                    value,
                    name: (name_start, name_end),
                    depth,
                });
                i = name_end;
                continue;
            }
            if c == b'!'
                && b.get(i + 1) != Some(&b'=')
                && (chain.is_some() || matches!(prev, Prev::Value(_)))
            {
                // A non-null assertion: the value stands.
                i += 1;
                continue;
            }
            if c == b'(' {
                match chain.take() {
                    Some(ch) => {
                        self.out.uses.push(Use {
                            kind: UseKind::Call,
                            callee: ch.value,
                            name: ch.name,
                        });
                        let ret = self.node(Node::Return(ch.value));
                        brackets.push((b'(', Some(ret)));
                    }
                    None => {
                        if matches!(prev, Prev::Value(_)) && brackets.is_empty() {
                            // `f()()`, `(a)(b)`: a call of something not followed.
                            simple = false;
                        }
                        brackets.push((b'(', None));
                    }
                }
                prev = Prev::Start;
                i += 1;
                continue;
            }
            // Anything else ends the chain being read.
            if let Some(ch) = chain.take() {
                if brackets.is_empty() {
                    whole = Some(ch.value);
                }
                prev = Prev::Value(Some(ch.value));
                self.flush_get(ch);
            }
            match c {
                b'"' | b'\'' => {
                    i = find_quote_end(b, i, to);
                    prev = Prev::Value(None);
                    if brackets.is_empty() {
                        simple = false;
                    }
                }
                b'`' => {
                    i = self.template_literal(i, to);
                    prev = Prev::Value(None);
                    if brackets.is_empty() {
                        simple = false;
                    }
                }
                b')' | b']' | b'}' => {
                    let (_, ret) = brackets.pop().unwrap_or((c, None));
                    if brackets.is_empty() {
                        whole = ret;
                    }
                    prev = Prev::Value(ret);
                    i += 1;
                }
                b'[' | b'{' => {
                    if brackets.is_empty() {
                        // An index, or an array or object literal: not followed.
                        simple = false;
                    }
                    brackets.push((c, None));
                    prev = if c == b'{' {
                        Prev::OpenBrace
                    } else {
                        Prev::Start
                    };
                    i += 1;
                }
                b',' => {
                    prev = if brackets.last().is_some_and(|(k, _)| *k == b'{') {
                        Prev::OpenBrace
                    } else {
                        Prev::Start
                    };
                    if brackets.is_empty() {
                        simple = false;
                    }
                    i += 1;
                }
                b'|' if b.get(i + 1) != Some(&b'|') && (i == 0 || b[i - 1] != b'|') => {
                    // A pipe: the name after it is the pipe's, not a member.
                    let name_start = skip_ws(b, i + 1, to);
                    let name_end = ident_at(b, name_start, to);
                    if brackets.is_empty() {
                        simple = false;
                    }
                    prev = Prev::Value(None);
                    i = name_end.max(i + 1);
                }
                c if is_ident_start(c) => {
                    let end = ident_at(b, i, to);
                    let word = &self.src[i..end];
                    let next = skip_ws(b, end, to);
                    let is_key = prev == Prev::OpenBrace && next < to && b[next] == b':';
                    if is_key || KEYWORDS.contains(&word) {
                        prev = Prev::Start;
                        if brackets.is_empty() && !is_key {
                            simple = false;
                        }
                        i = end;
                        continue;
                    }
                    if word == "this" {
                        prev = Prev::Value(Some(HOST));
                        i = end;
                        continue;
                    }
                    let (value, depth) = match self.var(word) {
                        // A template variable: its members are no reads of the host.
                        Some(v) => (v, FAR),
                        None => (self.node(Node::Member(HOST, i, end)), 1),
                    };
                    chain = Some(Chain {
                        value,
                        name: (i, end),
                        depth,
                    });
                    i = end;
                }
                c if c.is_ascii_digit() => {
                    while i < to && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                        i += 1;
                    }
                    prev = Prev::Value(None);
                    if brackets.is_empty() {
                        simple = false;
                    }
                }
                _ => {
                    // Operators, `;`, `:`, `?`: what follows is a new operand.
                    prev = Prev::Start;
                    if brackets.is_empty() {
                        simple = false;
                    }
                    i += 1;
                }
            }
        }
        if let Some(ch) = chain.take() {
            if brackets.is_empty() {
                whole = Some(ch.value);
            }
            self.flush_get(ch);
        }
        if simple {
            whole
        } else {
            None
        }
    }

    /// A template literal at `at` (Angular 19.2): its `${...}` parts are expressions.
    /// Returns the offset after its closing backtick.
    fn template_literal(&mut self, at: usize, to: usize) -> usize {
        let b = self.b;
        let mut i = at + 1;
        while i < to {
            match b[i] {
                b'\\' => i += 2,
                b'`' => return i + 1,
                b'$' if b.get(i + 1) == Some(&b'{') => {
                    let close = matching_brace(b, i + 1, to);
                    self.expression(i + 2, close);
                    i = close + 1;
                }
                _ => i += 1,
            }
        }
        to
    }

    /// A chain read but not called: a property read (a getter's call), when it is a
    /// member of the host at most two deep.
    fn flush_get(&mut self, ch: Chain) {
        if ch.depth > 2 {
            return;
        }
        if matches!(self.out.nodes[ch.value as usize], Node::Member(..)) {
            self.out.uses.push(Use {
                kind: UseKind::Get,
                callee: ch.value,
                name: ch.name,
            });
        }
    }
}

/// A depth no read is kept at.
const FAR: usize = usize::MAX / 2;

/// How far a member of `base` is from the host: 1 for `host.x`, 2 for `host.x.y`.
fn depth_below(base: Option<Val>, nodes: &[Node]) -> usize {
    let mut depth = 1;
    let Some(mut v) = base else {
        return FAR;
    };
    // Bounded: a read deeper than two is not kept anyway.
    for _ in 0..3 {
        match nodes[v as usize] {
            Node::Host => return depth,
            Node::Member(o, _, _) => {
                depth += 1;
                v = o;
            }
            _ => return FAR,
        }
    }
    FAR
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prev {
    /// Nothing, or an operator: what follows starts an operand.
    Start,
    /// `{` or `,` in an object literal: a name followed by `:` is a key.
    OpenBrace,
    /// An operand ended, of this value when known.
    Value(Option<Val>),
}

struct Chain {
    value: Val,
    name: (usize, usize),
    depth: usize,
}

struct Attr {
    key: (usize, usize),
    value: Option<(usize, usize)>,
}

/// Whether the byte at `i` ends an attribute's name: a blank, `=`, `>`, a quote, `/>`.
fn ends_attribute_name(b: &[u8], i: usize) -> bool {
    b[i].is_ascii_whitespace()
        || matches!(b[i], b'=' | b'>' | b'"' | b'\'')
        || (b[i] == b'/' && b.get(i + 1) == Some(&b'>'))
}

/// Elements without content or closing tag.
fn is_void(name: &str) -> bool {
    const VOID: &[&str] = &[
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr",
    ];
    VOID.iter().any(|v| v.eq_ignore_ascii_case(name))
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

/// The end of the identifier at `at` (`at` itself when there is none).
fn ident_at(b: &[u8], at: usize, to: usize) -> usize {
    if at >= to || !is_ident_start(b[at]) {
        return at.min(to);
    }
    let mut i = at + 1;
    while i < to && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
        i += 1;
    }
    i
}

fn skip_ws(b: &[u8], mut at: usize, to: usize) -> usize {
    while at < to && b[at].is_ascii_whitespace() {
        at += 1;
    }
    at.min(to)
}

/// The end of a tag name at `at`.
fn name_end(b: &[u8], at: usize, to: usize) -> usize {
    let mut i = at;
    while i < to && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'-' | b':' | b'.' | b'_')) {
        i += 1;
    }
    i
}

/// The offset of the closing quote of the string at `at` (after it), or `to`.
fn find_quote_end(b: &[u8], at: usize, to: usize) -> usize {
    let q = b[at];
    let mut i = at + 1;
    while i < to {
        match b[i] {
            b'\\' => i += 2,
            c if c == q => return i + 1,
            _ => i += 1,
        }
    }
    to
}

/// The offset of the `}}` that ends an interpolation whose expression starts at
/// `from` (strings may hold `}}`), or `to`.
fn interpolation_end(b: &[u8], from: usize, to: usize) -> usize {
    let mut i = from;
    while i < to {
        match b[i] {
            b'"' | b'\'' => i = find_quote_end(b, i, to),
            b'}' if b.get(i + 1) == Some(&b'}') && i + 1 < to => return i,
            _ => i += 1,
        }
    }
    to
}

/// Where the expression starting at `from` ends: a `;` or `,` outside brackets and
/// strings, or `to`.
fn expression_end(b: &[u8], from: usize, to: usize) -> usize {
    scan_to(b, from, to, |c| matches!(c, b';' | b','))
}

/// Where the statement starting at `from` ends: a `;` outside brackets and strings.
fn statement_end(b: &[u8], from: usize, to: usize) -> usize {
    scan_to(b, from, to, |c| c == b';')
}

fn scan_to(b: &[u8], from: usize, to: usize, stop: impl Fn(u8) -> bool) -> usize {
    let mut depth = 0usize;
    let mut i = from;
    while i < to {
        match b[i] {
            b'"' | b'\'' | b'`' => {
                i = find_quote_end(b, i, to);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            c if depth == 0 && stop(c) => return i,
            _ => {}
        }
        i += 1;
    }
    to
}

/// The `)` matching the `(` at `open` (strings and nested brackets skipped), or `to`.
fn matching_paren(b: &[u8], open: usize, to: usize) -> usize {
    matching(b, open, to, b'(', b')')
}

fn matching_brace(b: &[u8], open: usize, to: usize) -> usize {
    matching(b, open, to, b'{', b'}')
}

fn matching(b: &[u8], open: usize, to: usize, o: u8, c: u8) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < to {
        match b[i] {
            b'"' | b'\'' | b'`' => {
                i = find_quote_end(b, i, to);
                continue;
            }
            x if x == o => depth += 1,
            x if x == c => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    to
}

/// `expr as name` in `from..to`: the expression's end and the name, when the text
/// ends in one.
fn trailing_alias(src: &str, from: usize, to: usize) -> (usize, Option<(usize, usize)>) {
    let text = &src[from..to];
    let trimmed = text.trim_end();
    let Some(space) = trimmed.rfind(|c: char| c.is_ascii_whitespace()) else {
        return (to, None);
    };
    let name = &trimmed[space + 1..];
    let before = trimmed[..space].trim_end();
    if !before.ends_with(" as") && before != "as" {
        return (to, None);
    }
    if name.is_empty()
        || !name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$')
    {
        return (to, None);
    }
    let name_start = from + space + 1;
    let expr_end = from + before.len() - 2;
    (expr_end, Some((name_start, name_start + name.len())))
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

    /// Each use as `kind name <- value`, the value written out from the host.
    fn uses(template: &str) -> Vec<String> {
        let scan = scan(template, 0, template.len());
        let describe = |mut v: Val| {
            let mut parts = Vec::new();
            loop {
                match scan.nodes[v as usize] {
                    Node::Host => break format!("host{}", parts.concat()),
                    Node::Unknown => break format!("?{}", parts.concat()),
                    Node::Member(o, a, b) => {
                        parts.insert(0, format!(".{}", &template[a..b]));
                        v = o;
                    }
                    Node::Return(o) => {
                        parts.insert(0, "()".to_string());
                        v = o;
                    }
                    Node::Element(o) => {
                        parts.insert(0, "[]".to_string());
                        v = o;
                    }
                }
            }
        };
        scan.uses
            .iter()
            .map(|u| {
                let kind = match u.kind {
                    UseKind::Call => "call",
                    UseKind::Get => "get",
                    UseKind::Reference => "ref",
                };
                format!("{kind} {}", describe(u.callee))
            })
            .collect()
    }

    #[test]
    fn bindings_call_members_of_the_host() {
        assert_eq!(
            uses("<p [title]=\"t(a)\" (click)=\"save($event); n = n + 1\">{{ fmt(d) }}</p>"),
            [
                "call host.t",
                "get host.a",
                "call host.save",
                "get host.n",
                "get host.n",
                "call host.fmt",
                "get host.d"
            ]
        );
        // Pipes name pipes; their arguments are expressions.
        assert_eq!(
            uses("{{ when | date:fmt() | uppercase }}"),
            ["get host.when", "call host.fmt"]
        );
        // `?.`, `!`, `this.`, object literal keys, strings.
        assert_eq!(
            uses("<a [ngClass]=\"{ on: isOn(), 'x': y }\">{{ user?.name() }}{{ user!.name() }}{{ this.go('}}') }}</a>"),
            [
                "call host.isOn",
                "get host.y",
                "get host.user",
                "call host.user.name",
                "get host.user",
                "call host.user.name",
                "call host.go"
            ]
        );
    }

    #[test]
    fn template_variables_shadow_members_in_their_scope() {
        let template = "<li *ngFor=\"let item of items(); let i = index; trackBy: byId\" (click)=\"item.open(i)\">{{ item.name }}</li>\n<b (click)=\"item()\"></b>\n<ng-template let-row><i (click)=\"row.x()\"></i></ng-template><i (click)=\"row()\"></i>\n<input #box (keyup)=\"add(box.value)\">";
        assert_eq!(
            uses(template),
            [
                "call host.items",
                "ref host.byId",
                "call host.items()[].open",
                "call host.item",
                "call ?.x",
                "call host.row",
                "call host.add"
            ]
        );
    }

    #[test]
    fn control_flow_blocks_and_messages() {
        let template = "@if (ready(); as r) { {{ r.a() }} } @else if (failed()) { x } @else { y }\n@for (t of todos(); track key($index, t)) { <b (click)=\"t.done()\">{{ $index }}</b> } @empty { none }\n@switch (mode()) { @case (m.a) { {{ a() }} } @default { } }\n@defer (on viewport; prefetch when soon()) { late() } @placeholder (minimum 500ms) { }\n@let total = sum(); {{ total }}\n<span i18n>{count, plural, =0 {none} other {{{ label() }} items}}</span> {{ after() }} mail@example.com";
        assert_eq!(
            uses(template),
            [
                "call host.ready",
                "call ?.a",
                "call host.failed",
                "call host.todos",
                "call host.key",
                "call host.todos()[].done",
                "call host.mode",
                "get host.m",
                "get host.m.a",
                "call host.a",
                "call host.soon",
                "call host.sum",
                "get host.count",
                "call host.label",
                "call host.after"
            ]
        );
    }

    #[test]
    fn use_offsets_are_the_names_in_the_source() {
        let source = "<p>\n  {{ fmt(d) }}\n</p>";
        let scan = scan(source, 0, source.len());
        let (a, b) = scan.uses[0].name;
        assert_eq!(&source[a..b], "fmt");
        // A range of a larger file: offsets stay the file's.
        let file = "const t = `<b (click)=\"go()\"></b>`;";
        let from = file.find('`').unwrap() + 1;
        let to = file.rfind('`').unwrap();
        let scan = super::scan(file, from, to);
        let (a, b) = scan.uses[0].name;
        assert_eq!(&file[a..b], "go");
    }

    #[test]
    fn angular_templates_are_told_from_other_html() {
        assert!(is_template("a/x.html", "<b (click)=\"go()\">"));
        assert!(is_template("a/x.html", "<b [title]=\"t\">"));
        assert!(is_template("a/x.html", "<li *ngFor=\"let x of xs\">"));
        assert!(is_template("a/x.html", "@if (a) { }"));
        assert!(is_template("a/x.component.html", "<p>{{ a }}</p>"));
        assert!(!is_template("a/x.html", "<p>{{ a }}</p>"));
        assert!(!is_template(
            "a/x.html",
            "<!doctype html><a href=\"#top\">x (y) [z]</a>"
        ));
        assert!(!is_template("a/x.html", "<p>mail me @ me@example.com</p>"));
        assert!(!is_template("a/x.vue", "<b (click)=\"go()\">"));
    }

    /// Shapes that would cost the square of their size if a scan looked back or
    /// ahead from each unit: each is read in one pass.
    #[test]
    fn hostile_templates_are_read_in_linear_time() {
        let n = 50_000;
        let shapes = [
            "<a (click)=\"f(".repeat(n),
            "<div *ngFor=\"let x of xs\">".repeat(n) + &"</span>".repeat(n),
            "@if (a) {".repeat(n) + &"}".repeat(n),
            "{a, plural, =0 {".repeat(n),
            "{{ a.b.c.d(".repeat(n),
            "<a #r>{{ r }}".repeat(n),
            "@for (x of y; let i = $index, j = $odd) {".repeat(n),
        ];
        for shape in shapes {
            let start = std::time::Instant::now();
            let scan = scan(&shape, 0, shape.len());
            assert!(scan.uses.len() <= shape.len());
            assert!(
                start.elapsed() < std::time::Duration::from_secs(5),
                "{}",
                &shape[..40]
            );
        }
    }
}
