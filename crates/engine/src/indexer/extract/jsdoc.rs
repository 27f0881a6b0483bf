//! JSDoc types, as TypeScript's checker reads them in JavaScript files: the tags of a
//! `/** ... */` comment (`@param {T} name`, `@returns {T}`, `@type {T}`, `@typedef {T}
//! Name`, `@property {T} name`) and the type expressions inside their braces. Pure text
//! in, small values out; the extractor turns them into symbols.

use smallvec::SmallVec;

/// A type written longer than this is not read (generated or hostile comments).
const MAX_TYPE_LEN: usize = 512;

/// Type expressions nested deeper than this denote nothing.
const MAX_DEPTH: usize = 16;

/// A union of more parts than this is not followed (as for TypeScript's unions).
const MAX_PARTS: usize = 8;

/// An object type's properties past this many are not read.
const MAX_MEMBERS: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TagKind {
    Param,
    Returns,
    Type,
    Typedef,
    Property,
}

/// One tag with a type: `@param {Knex} db` is `(Param, "Knex", "db")`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tag<'a> {
    pub kind: TagKind,
    pub ty: &'a str,
    /// The parameter, property or type name; empty for `@returns` and `@type`.
    pub name: &'a str,
    /// `[name]`, `[name=x]` or `{T=}`: a parameter or property that may be left out.
    pub optional: bool,
}

/// Whether `text` (a comment) is a JSDoc block that could hold a typed tag.
pub(crate) fn is_typed_doc(text: &str) -> bool {
    text.starts_with("/**") && text.contains('{') && text.contains('@')
}

/// The typed tags of a JSDoc comment, in order. Tags without a `{type}` are left out.
pub(crate) fn tags(comment: &str) -> SmallVec<[Tag<'_>; 4]> {
    let mut out = SmallVec::new();
    let bytes = comment.as_bytes();
    let mut i = 0;
    while let Some(at) = comment[i..].find('@').map(|k| k + i) {
        i = at + 1;
        // A tag starts a line's text (after `*`), or follows whitespace.
        if at > 0 && !matches!(bytes[at - 1], b' ' | b'\t' | b'*' | b'\n' | b'\r') {
            continue;
        }
        let word_end = comment[i..]
            .find(|c: char| !c.is_ascii_alphabetic())
            .map_or(comment.len(), |k| k + i);
        let kind = match &comment[i..word_end] {
            "param" | "arg" | "argument" => TagKind::Param,
            "returns" | "return" => TagKind::Returns,
            "type" => TagKind::Type,
            "typedef" => TagKind::Typedef,
            "property" | "prop" => TagKind::Property,
            _ => continue,
        };
        let rest = &comment[word_end..];
        let trimmed = rest.trim_start_matches([' ', '\t']);
        if !trimmed.starts_with('{') {
            continue;
        }
        let open = comment.len() - trimmed.len();
        let Some(close) = balanced_end(&comment[open..]).map(|k| k + open) else {
            continue;
        };
        let ty = comment[open + 1..close].trim();
        i = close + 1;
        let name = match kind {
            TagKind::Returns | TagKind::Type => "",
            _ => tag_name(&comment[i..]),
        };
        let optional = ty.ends_with('=')
            || comment[i..]
                .trim_start_matches([' ', '\t'])
                .starts_with('[');
        if ty.len() <= MAX_TYPE_LEN {
            out.push(Tag {
                kind,
                ty,
                name,
                optional,
            });
        }
    }
    out
}

/// The index of the `}` closing the `{` that `s` starts with, if it is near enough to
/// be read (each tag looks no further, so a comment of unclosed braces is read in
/// linear time).
fn balanced_end(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (k, c) in s.char_indices() {
        if k > MAX_TYPE_LEN + 1 {
            return None;
        }
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The name after a tag's type: `db`, `[db]`, `[db=knex()]`; `opts.x` stays whole (a
/// property of a parameter, which names no parameter).
fn tag_name(s: &str) -> &str {
    let s = s.trim_start_matches([' ', '\t']);
    let s = s.strip_prefix('[').unwrap_or(s);
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '.')))
        .unwrap_or(s.len());
    &s[..end]
}

/// A JSDoc type expression, as far as it says what a value is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DocType<'a> {
    /// `Knex`, `Knex.QueryBuilder`, `import('./x').Y`, `Promise<T>`, `Array.<T>`.
    Named {
        import: Option<&'a str>,
        path: SmallVec<[&'a str; 2]>,
        args: Vec<DocType<'a>>,
    },
    /// `typeof x`, `typeof import('./x')`: the value itself, not an instance of it.
    TypeOf {
        import: Option<&'a str>,
        path: SmallVec<[&'a str; 2]>,
    },
    /// `T[]`
    Array(Box<DocType<'a>>),
    /// `A|B`, and `A & B` (whose values have the members of each part too).
    Union(Vec<DocType<'a>>),
    /// `{ a: A, b?: B }`: its properties' types.
    Object(Vec<(&'a str, DocType<'a>)>),
    /// `(a: A, b: B) => R`, Closure's `function(A, B): R`.
    Function {
        params: Vec<DocType<'a>>,
        returns: Box<DocType<'a>>,
    },
    /// Anything else: `*`, `?`, literals, object and function types.
    Unknown,
}

/// Parses a type expression (the text between a tag's braces).
pub(crate) fn parse(text: &str) -> DocType<'_> {
    let mut p = Parser { s: text, at: 0 };
    let ty = p.union(0);
    p.skip_ws();
    if p.at < p.s.len() {
        // Trailing text we do not read (`T extends U ? ...`, a misplaced brace).
        return DocType::Unknown;
    }
    ty
}

struct Parser<'a> {
    s: &'a str,
    at: usize,
}

impl<'a> Parser<'a> {
    fn skip_ws(&mut self) {
        let rest = &self.s[self.at..];
        self.at += rest.len() - rest.trim_start().len();
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.as_bytes().get(self.at).copied()
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.s[self.at..].starts_with(token) {
            self.at += token.len();
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = &self.s[self.at..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(rest.len());
        if end == 0 || rest.as_bytes()[0].is_ascii_digit() {
            return None;
        }
        self.at += end;
        Some(&rest[..end])
    }

    fn string(&mut self) -> Option<&'a str> {
        let quote = self.peek()?;
        if !matches!(quote, b'\'' | b'"' | b'`') {
            return None;
        }
        let rest = &self.s[self.at + 1..];
        let end = rest.find(quote as char)?;
        self.at += end + 2;
        Some(&rest[..end])
    }

    /// Skips a bracketed group that starts here (`{...}`, `(...)`, `<...>`).
    fn skip_group(&mut self, open: u8, close: u8) -> bool {
        let mut depth = 0usize;
        for (k, b) in self.s.as_bytes()[self.at..].iter().enumerate() {
            if *b == open {
                depth += 1;
            } else if *b == close {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    self.at += k + 1;
                    return true;
                }
            }
        }
        self.at = self.s.len();
        false
    }

    fn union(&mut self, depth: usize) -> DocType<'a> {
        if depth > MAX_DEPTH {
            self.at = self.s.len();
            return DocType::Unknown;
        }
        self.eat("|");
        let mut parts = vec![self.postfix(depth)];
        // `A & B` is read as `A | B` is: a value of it has the members of each part.
        while self.eat("|") || self.eat("&") {
            parts.push(self.postfix(depth));
        }
        if parts.len() == 1 {
            return parts.pop().unwrap_or(DocType::Unknown);
        }
        if parts.len() > MAX_PARTS {
            return DocType::Unknown;
        }
        DocType::Union(parts)
    }

    fn postfix(&mut self, depth: usize) -> DocType<'a> {
        // `?T`, `!T` (nullable, non-null), `...T` (a rest parameter's element).
        while self.eat("?") || self.eat("!") || self.eat("...") {}
        let mut ty = self.primary(depth);
        loop {
            if self.eat("[]") {
                ty = DocType::Array(Box::new(ty));
            } else if self.eat("=") || self.eat("?") || self.eat("!") {
                // `T=` (optional), `T?`, `T!`
            } else {
                return ty;
            }
        }
    }

    fn primary(&mut self, depth: usize) -> DocType<'a> {
        match self.peek() {
            Some(b'(') => {
                let save = self.at;
                if let Some(function) = self.arrow_function(depth) {
                    return function;
                }
                self.at = save + 1;
                let inner = self.union(depth + 1);
                if !self.eat(")") {
                    // `(a: T) => U`: a function type.
                    self.at = self.s.len();
                    return DocType::Unknown;
                }
                inner
            }
            Some(b'{') => {
                let save = self.at;
                if let Some(object) = self.object_type(depth) {
                    return object;
                }
                self.at = save;
                self.skip_group(b'{', b'}');
                DocType::Unknown
            }
            Some(b'\'' | b'"' | b'`') => {
                self.string();
                DocType::Unknown
            }
            Some(b'*') => {
                self.at += 1;
                DocType::Unknown
            }
            Some(_) => self.named(depth),
            None => DocType::Unknown,
        }
    }

    fn named(&mut self, depth: usize) -> DocType<'a> {
        let Some(first) = self.ident() else {
            // A number, `?` alone: nothing we read.
            self.at = self.s.len();
            return DocType::Unknown;
        };
        match first {
            "typeof" => {
                let (import, path) = self.path(None);
                return if import.is_some() || !path.is_empty() {
                    DocType::TypeOf { import, path }
                } else {
                    DocType::Unknown
                };
            }
            "function" if self.peek() == Some(b'(') => return self.closure_function(depth),
            _ => {}
        }
        let (import, path) = self.path(Some(first));
        let mut args = Vec::new();
        // `Promise<T>`, Closure's `Array.<T>`.
        if self.eat(".<") || self.eat("<") {
            loop {
                args.push(self.union(depth + 1));
                if !self.eat(",") {
                    break;
                }
            }
            if !self.eat(">") {
                self.at = self.s.len();
                return DocType::Unknown;
            }
        }
        if path.is_empty() && import.is_none() {
            return DocType::Unknown;
        }
        DocType::Named { import, path, args }
    }

    /// `{ up: Migrate, down?: Migrate; name: string }` from its `{`: its properties'
    /// types by name. None (to skip it whole) for what is not read: methods, index
    /// signatures, quoted keys.
    fn object_type(&mut self, depth: usize) -> Option<DocType<'a>> {
        self.at += 1;
        let mut members = Vec::new();
        loop {
            // A multi-line type inside a comment: each line starts with `*`.
            while self.eat("*") {}
            if self.eat("}") {
                break;
            }
            let name = self.ident()?;
            self.eat("?");
            if !self.eat(":") {
                return None;
            }
            let ty = self.union(depth + 1);
            if members.len() < MAX_MEMBERS {
                members.push((name, ty));
            }
            while self.eat("*") {}
            if self.eat("}") {
                break;
            }
            // A separator, or none for properties on lines of their own (the next
            // one's name must follow, or the type is not read).
            if !self.eat(",") {
                self.eat(";");
            }
        }
        Some(DocType::Object(members))
    }

    /// `(a: A, b?: B, ...c: C[]) => R` from its `(`; None (to read it again as a
    /// parenthesized type) if it is not one.
    fn arrow_function(&mut self, depth: usize) -> Option<DocType<'a>> {
        self.at += 1;
        let mut params = Vec::new();
        if !self.eat(")") {
            loop {
                self.eat("...");
                let name = self.ident()?;
                self.eat("?");
                let ty = match self.eat(":") {
                    true => self.union(depth + 1),
                    false => DocType::Unknown,
                };
                if name != "this" {
                    params.push(ty);
                }
                if self.eat(")") {
                    break;
                }
                if !self.eat(",") {
                    return None;
                }
            }
        }
        if !self.eat("=>") {
            return None;
        }
        let returns = Box::new(self.postfix(depth + 1));
        Some(DocType::Function { params, returns })
    }

    /// Closure's `function(A, B): R`, from its `(`; `this:` and `new:` entries are not
    /// parameters.
    fn closure_function(&mut self, depth: usize) -> DocType<'a> {
        self.at += 1;
        let mut params = Vec::new();
        if !self.eat(")") {
            loop {
                let receiver = self.eat("this:") || self.eat("new:");
                let ty = self.union(depth + 1);
                if !receiver {
                    params.push(ty);
                }
                if self.eat(")") {
                    break;
                }
                if !self.eat(",") {
                    self.at = self.s.len();
                    return DocType::Unknown;
                }
            }
        }
        let returns = match self.eat(":") {
            true => self.postfix(depth + 1),
            false => DocType::Unknown,
        };
        DocType::Function {
            params,
            returns: Box::new(returns),
        }
    }

    /// `a.b.c` or `import('x').b.c`, after `first` (already read) or from here.
    fn path(&mut self, first: Option<&'a str>) -> (Option<&'a str>, SmallVec<[&'a str; 2]>) {
        let mut path = SmallVec::new();
        let mut import = None;
        let head = first.or_else(|| self.ident());
        match head {
            Some("import") if self.peek() == Some(b'(') => {
                self.at += 1;
                import = self.string();
                if !self.eat(")") || import.is_none() {
                    self.at = self.s.len();
                    return (None, SmallVec::new());
                }
            }
            Some(name) => path.push(name),
            None => return (None, path),
        }
        loop {
            let save = self.at;
            if !self.eat(".") || self.peek() == Some(b'<') {
                self.at = save;
                break;
            }
            match self.ident() {
                Some(seg) => path.push(seg),
                None => {
                    self.at = save;
                    break;
                }
            }
        }
        (import, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named<'a>(import: Option<&'a str>, path: &[&'a str]) -> DocType<'a> {
        DocType::Named {
            import,
            path: path.iter().copied().collect(),
            args: Vec::new(),
        }
    }

    #[test]
    fn reads_the_typed_tags_of_a_comment() {
        let doc = "/**\n * Connects.\n * @param {Knex} db the handle\n * @param {string} [name=x]\n * @param opts untyped\n * @returns {Promise<Knex.Client>} the client\n * @see {@link other}\n */";
        let tags = tags(doc);
        let got: Vec<_> = tags.iter().map(|t| (t.kind, t.ty, t.name)).collect();
        assert_eq!(
            got,
            [
                (TagKind::Param, "Knex", "db"),
                (TagKind::Param, "string", "name"),
                (TagKind::Returns, "Promise<Knex.Client>", ""),
            ]
        );
        let typedef = tags_of("/** @typedef {import('../types').Knex} Knex */");
        assert_eq!(
            typedef,
            [(TagKind::Typedef, "import('../types').Knex", "Knex")]
        );
        assert_eq!(
            tags_of("/** @type {{ a: { b: C } }} */"),
            [(TagKind::Type, "{ a: { b: C } }", "")]
        );
        // Which may be left out: `[name]`, `[name=x]`, `{T=}`.
        let optional: Vec<bool> = super::tags(
            "/** @param {A} a\n * @param {B} [b]\n * @param {C=} c\n * @param {D} [o.d=1] */",
        )
        .iter()
        .map(|t| t.optional)
        .collect();
        assert_eq!(optional, [false, true, true, true]);
        // An email address is not a tag; an unclosed brace ends the reading.
        assert!(tags_of("/** mail me@type.org {x} */").is_empty());
        assert!(tags_of("/** @type {Foo */").is_empty());
    }

    fn tags_of(doc: &str) -> Vec<(TagKind, &str, &str)> {
        tags(doc).iter().map(|t| (t.kind, t.ty, t.name)).collect()
    }

    #[test]
    fn parses_the_type_expressions_that_name_values() {
        assert_eq!(parse("Knex"), named(None, &["Knex"]));
        assert_eq!(
            parse(" Knex.QueryBuilder "),
            named(None, &["Knex", "QueryBuilder"])
        );
        assert_eq!(
            parse("import('../../types/index').Knex"),
            named(Some("../../types/index"), &["Knex"])
        );
        assert_eq!(parse("?Foo="), named(None, &["Foo"]));
        assert_eq!(
            parse("Foo[]"),
            DocType::Array(Box::new(named(None, &["Foo"])))
        );
        assert_eq!(
            parse("Array.<Foo>"),
            DocType::Named {
                import: None,
                path: ["Array"].into_iter().collect(),
                args: vec![named(None, &["Foo"])],
            }
        );
        assert_eq!(
            parse("(Foo|null)"),
            DocType::Union(vec![named(None, &["Foo"]), named(None, &["null"])])
        );
        assert_eq!(
            parse("typeof import('./x')"),
            DocType::TypeOf {
                import: Some("./x"),
                path: SmallVec::new()
            }
        );
        let function = |params: Vec<DocType<'static>>, returns| DocType::Function {
            params,
            returns: Box::new(returns),
        };
        assert_eq!(
            parse("(knex: Knex, name?: string) => void"),
            function(
                vec![named(None, &["Knex"]), named(None, &["string"])],
                named(None, &["void"])
            )
        );
        assert_eq!(
            parse("function(this:Foo, Bar, ...Baz): Qux"),
            function(
                vec![named(None, &["Bar"]), named(None, &["Baz"])],
                named(None, &["Qux"])
            )
        );
        assert_eq!(parse("() => Foo"), function(vec![], named(None, &["Foo"])));
        assert_eq!(
            parse("typeof import ('./context') & {\n *  app: Application\n }"),
            DocType::Union(vec![
                DocType::TypeOf {
                    import: Some("./context"),
                    path: SmallVec::new()
                },
                DocType::Object(vec![("app", named(None, &["Application"]))])
            ])
        );
        assert_eq!(
            parse("{up: Migrate, down?: Migrate; config?: {transaction?: boolean}}"),
            DocType::Object(vec![
                ("up", named(None, &["Migrate"])),
                ("down", named(None, &["Migrate"])),
                (
                    "config",
                    DocType::Object(vec![("transaction", named(None, &["boolean"]))])
                ),
            ])
        );
        for unknown in [
            "*",
            "?",
            "{m(): Foo}",
            "{[k: string]: Foo}",
            "({ a }) => B",
            "'a'",
            "1",
            "Foo<",
            "(a: A",
        ] {
            assert_eq!(parse(unknown), DocType::Unknown, "{unknown}");
        }
    }

    #[test]
    fn hostile_types_end_quickly() {
        let deep = format!("{}Foo{}", "(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(parse(&deep), DocType::Unknown);
        let wide = vec!["A"; 10_000].join("|");
        assert_eq!(parse(&wide), DocType::Unknown);
        let doc = format!("/** @type {{{}}} */", "x".repeat(100_000));
        assert!(tags(&doc).is_empty());
        // Unclosed braces, each after a tag: each tag reads at most a type's length.
        let doc = format!("/** {} */", "@type {".repeat(50_000));
        assert!(tags(&doc).is_empty());
    }
}
