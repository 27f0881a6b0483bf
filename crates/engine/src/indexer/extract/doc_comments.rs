//! JSDoc comments in JavaScript files, read as TypeScript's checker reads them: the
//! types they state for a function's parameters and return value, for a variable or a
//! `this.x` field, and the names `@typedef` declares. (In TypeScript files the checker
//! ignores them, and so do we.) The parsing is in [`super::jsdoc`].

use smallvec::SmallVec;
use tree_sitter::Node;

use super::fields::FieldExt;
use super::jsdoc::{self, DocType, TagKind};
use super::types::TRANSPARENT_GENERICS;
use super::Extractor;
use crate::indexer::facts::*;

/// A comment documents what follows it only when no more than this lies between.
const MAX_GAP: usize = 256;

/// A comment longer than this is not read as JSDoc (real ones are a few lines; a
/// generated or hostile one is not read once per function after it).
const MAX_DOC_LEN: usize = 16 * 1024;

/// Types nested deeper than this (through aliases' arguments and parts) denote nothing.
const MAX_LEVEL: usize = 8;

/// Names of types that say nothing about which of our definitions a value is.
const PREDEFINED: &[&str] = &[
    "string",
    "number",
    "boolean",
    "bigint",
    "symbol",
    "object",
    "undefined",
    "null",
    "void",
    "any",
    "unknown",
    "never",
    "true",
    "false",
    "this",
    "Object",
    "Function",
    "function",
    "String",
    "Number",
    "Boolean",
    "Symbol",
];

impl<'s> Extractor<'s> {
    /// A comment (or another leaf starting with `/`): remembered if it is a typed
    /// JSDoc block; its `@typedef`s declare their names here.
    pub(crate) fn note_comment(&mut self, node: Node<'s>) {
        let text = &self.src[node.start_byte()..node.end_byte()];
        if text.len() > MAX_DOC_LEN || !jsdoc::is_typed_doc(text) {
            return;
        }
        self.doc = Some(node);
        if text.contains("@typedef") {
            self.typedefs(text);
        }
    }

    /// The JSDoc comment documenting the code that starts at byte `start`: the last
    /// one seen, if only the head of a declaration lies between (`const x =`,
    /// `exports.f =`, `static async`), not a bracket, a statement's end, a comma or an
    /// arrow (`x => y => ...`: only the first function is documented).
    pub(crate) fn doc_before(&self, start: usize) -> Option<&'s str> {
        let doc = self.doc?;
        let end = doc.end_byte();
        if end > start || start - end > MAX_GAP {
            return None;
        }
        let gap = &self.src.as_bytes()[end..start];
        if gap.iter().any(|b| {
            matches!(
                b,
                b'(' | b')' | b'{' | b'}' | b'[' | b']' | b';' | b',' | b'/' | b'>'
            )
        }) {
            return None;
        }
        Some(&self.src[doc.start_byte()..end])
    }

    /// The JSDoc of function `node`: notes its parameters' stated values for
    /// [`Self::doc_param`] and returns its stated return value.
    pub(crate) fn doc_function(&mut self, node: Node<'s>) -> Option<SymId> {
        self.doc_params.clear();
        self.doc_seed = 0;
        let text = self.doc_before(node.start_byte())?;
        let tags = jsdoc::tags(text);
        self.doc_seed = signature_seed(&tags);
        let mut returns = None;
        for tag in tags {
            match tag.kind {
                TagKind::Param if is_identifier(tag.name) => {
                    let ty = jsdoc::parse(tag.ty);
                    let value = self.doc_value(&ty, 0);
                    // `@param {(knex: Knex) => void} cb`: what a function passed as
                    // `cb` receives.
                    let mut callback = SmallVec::new();
                    if let DocType::Function { params, .. } = &ty {
                        for p in params {
                            callback.push(self.doc_value(p, 0));
                        }
                    }
                    if value.is_some() || callback.iter().any(Option::is_some) {
                        self.doc_params.push(DocParam {
                            name: tag.name,
                            value,
                            callback,
                        });
                    }
                }
                TagKind::Returns => returns = self.doc_value(&jsdoc::parse(tag.ty), 0),
                _ => {}
            }
        }
        returns
    }

    /// What `docs` (a function's JSDoc, by parameter) states for parameter `p` (a
    /// name, or a name with a default value).
    pub(crate) fn doc_param<'d>(
        &self,
        docs: &'d [DocParam<'s>],
        p: Node<'s>,
    ) -> Option<&'d DocParam<'s>> {
        if docs.is_empty() {
            return None;
        }
        let name = match p.kind_str() {
            "identifier" => p,
            "assignment_pattern" => p.named_child(0).filter(|l| l.kind_str() == "identifier")?,
            _ => return None,
        };
        let text = &self.src[name.start_byte()..name.end_byte()];
        docs.iter().find(|d| d.name == text)
    }

    /// `@param {(knex: Knex) => void} cb` (`doc`, argument `index` of `def`): records
    /// what a function passed there receives (see [`CallbackParam`]).
    pub(crate) fn doc_callback(&mut self, def: DefIdx, index: usize, doc: &DocParam<'s>) {
        let Ok(arg) = u16::try_from(index) else {
            return;
        };
        for (param, value) in doc.callback.iter().enumerate() {
            if let (Some(value), Ok(param)) = (*value, u16::try_from(param)) {
                self.facts.callback_params.push(CallbackParam {
                    def,
                    arg,
                    param,
                    value,
                    rest: false,
                });
            }
        }
    }

    /// `/** @type {Foo} */` before the code at `start` (a variable, `this.x = ...`):
    /// the value it states.
    pub(crate) fn doc_type_at(&mut self, start: usize) -> Option<SymId> {
        let text = self.doc_before(start)?;
        let tag = jsdoc::tags(text)
            .into_iter()
            .find(|t| t.kind == TagKind::Type)?;
        self.doc_value(&jsdoc::parse(tag.ty), 0)
    }

    /// `@typedef {import('./x').Knex} Knex` declares `Knex` here; `@typedef {Object}
    /// Options` with `@property {Logger} logger` lines declares an object type.
    fn typedefs(&mut self, text: &'s str) {
        let tags = jsdoc::tags(text);
        for (k, tag) in tags.iter().enumerate() {
            if tag.kind != TagKind::Typedef || !is_identifier(tag.name) {
                continue;
            }
            let ty = jsdoc::parse(tag.ty);
            let object = match &ty {
                DocType::Named {
                    import: None,
                    path,
                    args,
                } => args.is_empty() && matches!(path.as_slice(), ["Object" | "object"]),
                _ => false,
            };
            let value = if object {
                let mut members = Vec::new();
                for p in tags[k + 1..]
                    .iter()
                    .take_while(|t| t.kind != TagKind::Typedef)
                {
                    if p.kind == TagKind::Property && is_identifier(p.name) {
                        if let Some(value) = self.doc_value(&jsdoc::parse(p.ty), 0) {
                            members.push((self.intern(p.name), value));
                        }
                    }
                }
                self.new_shape(members)
            } else {
                self.doc_type(&ty, 0)
            };
            if let Some(value) = value {
                let name = self.intern(tag.name);
                self.declare(name, value, true);
            }
        }
    }

    /// The value a type describes: an instance of the class or interface it names, an
    /// array of such values, one of a union's.
    fn doc_value(&mut self, ty: &DocType<'s>, level: usize) -> Option<SymId> {
        if level > MAX_LEVEL {
            return None;
        }
        match ty {
            DocType::Named { import, path, args } => {
                match (import, path.as_slice()) {
                    (None, [name]) if PREDEFINED.contains(name) => return None,
                    (None, ["Array" | "ReadonlyArray"]) => {
                        let element = self.doc_value(args.first()?, level + 1)?;
                        return Some(self.sym(Sym::Array(element)));
                    }
                    (None, [name]) if TRANSPARENT_GENERICS.contains(name) => {
                        return self.doc_value(args.first()?, level + 1)
                    }
                    _ => {}
                }
                let t = self.doc_type(ty, level + 1)?;
                Some(self.sym(Sym::Instance(t)))
            }
            DocType::TypeOf { .. } => self.doc_type(ty, level + 1),
            DocType::Array(element) => {
                let element = self.doc_value(element, level + 1)?;
                Some(self.sym(Sym::Array(element)))
            }
            DocType::Union(parts) => self.doc_union(parts, level, Self::doc_value),
            // `{ up: Migrate }`: an object with those properties.
            DocType::Object(members) => {
                let mut values = Vec::with_capacity(members.len());
                for (name, ty) in members {
                    if let Some(value) = self.doc_value(ty, level + 1) {
                        values.push((self.intern(name), value));
                    }
                }
                self.new_shape(values)
            }
            // A function of that type: calling it gives what it returns.
            DocType::Function { params, returns } => {
                let mut values = Vec::with_capacity(params.len());
                for p in params {
                    values.push(self.doc_value(p, level + 1));
                }
                let returns = self.doc_value(returns, level + 1);
                self.new_signature(values, returns)
            }
            DocType::Unknown => None,
        }
    }

    /// What a type names: `Knex.QueryBuilder` (a member of what `Knex` is),
    /// `import('./x').Y` (an export of that module), `typeof x` (the value `x`).
    fn doc_type(&mut self, ty: &DocType<'s>, level: usize) -> Option<SymId> {
        if level > MAX_LEVEL {
            return None;
        }
        match ty {
            DocType::Named {
                import: None,
                path,
                args,
            } if path.len() == 1 && TRANSPARENT_GENERICS.contains(&path[0]) => {
                self.doc_type(args.first()?, level + 1)
            }
            DocType::Named { import, path, .. } | DocType::TypeOf { import, path } => {
                self.doc_path(*import, path)
            }
            // `@typedef {(knex: Knex) => Promise<void>} Migrate`: an instance of it is a
            // function of that type, as for a TypeScript alias of a function type.
            DocType::Function { .. } | DocType::Object(_) => self.doc_value(ty, level + 1),
            DocType::Union(parts) => self.doc_union(parts, level, Self::doc_type),
            _ => None,
        }
    }

    /// One of `parts`, each read by `read` (as a value or as a type).
    fn doc_union(
        &mut self,
        parts: &[DocType<'s>],
        level: usize,
        read: fn(&mut Self, &DocType<'s>, usize) -> Option<SymId>,
    ) -> Option<SymId> {
        let mut value = None;
        for part in parts {
            if let Some(sym) = read(self, part, level + 1) {
                value = Some(self.one_more(value, sym));
            }
        }
        value
    }

    fn doc_path(&mut self, import: Option<&str>, path: &[&str]) -> Option<SymId> {
        let (mut base, rest) = match import {
            Some(spec) => {
                let line = self.doc.map_or(0, |d| d.start_position().row as u32);
                let import = self.add_import(spec, ImportKind::TypeNamespace, line);
                (self.sym(Sym::Import(import)), path)
            }
            None => {
                let (first, rest) = path.split_first()?;
                if PREDEFINED.contains(first) {
                    return None;
                }
                let name = self.intern(first);
                (self.reference(name), rest)
            }
        };
        for segment in rest {
            let name = self.intern(segment);
            base = self.sym(Sym::Member(base, name));
        }
        Some(base)
    }
}

/// What a function's JSDoc states for one of its parameters.
pub(crate) struct DocParam<'s> {
    pub name: &'s str,
    /// The parameter's value: an instance of its type.
    pub value: Option<SymId>,
    /// For a function type: what each of its parameters receives.
    pub callback: SmallVec<[Option<SymId>; 2]>,
}

/// A plain name: a parameter or property of its own, not `opts.x`.
fn is_identifier(name: &str) -> bool {
    !name.is_empty() && !name.contains('.')
}

/// A seed of what a function's JSDoc states of its contract: its `@param` and `@returns`
/// tags (their names, types and whether they may be left out); 0 for none. A change to
/// them is a change of the function's signature (see `blast::contract`).
fn signature_seed(tags: &[jsdoc::Tag]) -> u64 {
    let mut stated = String::new();
    for tag in tags {
        if matches!(tag.kind, TagKind::Param | TagKind::Returns) {
            stated.push_str(tag.name);
            stated.push(if tag.optional { '?' } else { ':' });
            stated.push_str(tag.ty);
            stated.push('\n');
        }
    }
    if stated.is_empty() {
        0
    } else {
        xxhash_rust::xxh3::xxh3_64(stated.as_bytes())
    }
}
