//! A function's contract with its callers, read from its source: its parameters (how many
//! a call must pass, which it may, whether it takes the rest), the keys an object
//! parameter must hold (destructured, or stated by its type: an object type, or an
//! interface or type alias of the same file), whether it is async, and the members of
//! what it returns (its stated return type's, or the keys of the object literals it
//! returns). In JavaScript, JSDoc's `[name]` and `name.key` tags count as TypeScript's
//! checker counts them. What a call site is checked against when a pull request changes
//! a function (see `verdict`).
//!
//! Read by parsing the file again and finding the function at the definition's bytes:
//! only changed files are read, once per side, and only those the extraction read
//! within its budgets (a file it skipped has no definitions to ask about).

use std::cell::OnceCell;
use std::ops::Range;

use rustc_hash::FxHashMap;
use tree_sitter::{Node, Parser, Tree};

use crate::indexer::facts::ValueKinds;
use crate::indexer::type_kinds::{self, TypeScope};
use crate::indexer::Language;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contract {
    pub params: Vec<Param>,
    pub is_async: bool,
    /// `function*` (or a `*method`): a call runs none of its body until its result is
    /// iterated.
    pub is_generator: bool,
    /// The members of what it returns (of what its promise gives, for an async
    /// function), when they are known: its stated return type's, or else the keys of
    /// the object literals its `return`s give. None where a return gives anything
    /// else, or a literal has keys not written out (a spread).
    pub returns: Option<Vec<String>>,
    /// Callers do not see this function's own signature, when they do not: it is
    /// an argument of a call (`defineDriver((opts) => ...)`), reached through what that
    /// call returns, or the value of a name with a stated type (`const driver:
    /// DriverFactory = () => ...`), which is what calls are checked against.
    pub seen_through: Option<SeenThrough>,
    /// Its stated return type as written: what callers see, whatever the body does.
    /// (A function made async with a stated type that is not a promise is what the
    /// compiler rejects, TS1064; its callers still see the stated type.)
    pub stated_return: Option<String>,
}

/// A stated return type longer than this is not kept (nor compared).
const MAX_STATED_RETURN: usize = 1024;

/// How callers reach a function whose own signature they do not see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeenThrough {
    /// What the call it is passed to returns.
    Call,
    /// The type stated for the name it is the value of.
    StatedType,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// As written (`{ amount, currency }` for a destructured one).
    pub name: String,
    pub kind: ParamKind,
    /// The keys of the object it takes, each with whether a call must pass it: its
    /// stated type's members (those not marked `?`), or else a destructured pattern's
    /// keys (those without a default), or JSDoc's `name.key` tags.
    pub keys: Vec<(String, bool)>,
    /// The keys are all the object may hold: its type is stated (and TypeScript flags
    /// an object literal passed with any other).
    pub closed: bool,
    /// The kinds of value its stated type accepts (one element's, for a rest
    /// parameter); ANY where no type is stated or it is not known here. With
    /// [`ValueKinds::UNDEFINED`] and [`ValueKinds::NULL`] where it admits them under
    /// strict null checks (an optional or defaulted one admits `undefined`).
    pub accepts: ValueKinds,
    /// Its stated type as written (`string | number`), when there is one.
    pub stated: Option<String>,
    /// The stated type, when it is a plain name this file does not declare (`options:
    /// SignOptions`, imported) or a namespace's member (`types.SignOptions`): what it
    /// accepts is read from the graph, where the name leads (see
    /// `blast::radius::judge`). For a union, its members of that sort, joined by `|`
    /// (`EventHandler|H3`), and `also` what its other members accept.
    pub named: Option<String>,
    /// What the members of a union stated type that `named` does not list accept
    /// (NONE where there are none).
    pub also: ValueKinds,
    /// The strings its stated type admits, where they are a finite set of literals
    /// (`usage: 'sign' | 'verify'`); None where any string may do or none is stated.
    pub literals: Option<Vec<String>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Required,
    /// `x?: T`
    Optional,
    /// `x = 1`
    Defaulted,
    /// `...rest`
    Rest,
}

impl Contract {
    /// How many arguments a call must pass: up to the last required parameter.
    pub fn min_args(&self) -> usize {
        self.params
            .iter()
            .rposition(|p| p.kind == ParamKind::Required)
            .map_or(0, |i| i + 1)
    }

    /// How many it may pass; None with a rest parameter.
    pub fn max_args(&self) -> Option<usize> {
        match self.params.last() {
            Some(p) if p.kind == ParamKind::Rest => None,
            _ => Some(self.params.len()),
        }
    }
}

/// The contract of the function whose definition spans `start..end` in `source`; None
/// when no function is there (a class, an object) or the file cannot be read.
pub fn contract_at(language: Language, source: &str, start: usize, end: usize) -> Option<Contract> {
    Reader::new(language, source).at(start, end)
}

/// One file parsed once, for the contracts of any number of its functions.
pub struct Reader<'s> {
    source: &'s str,
    tree: Option<Tree>,
    /// JavaScript: JSDoc counts (TypeScript's checker ignores it in `.ts` files).
    reads_jsdoc: bool,
    /// The file's top-level interfaces and type aliases by name (their byte ranges),
    /// and (with no range) the names it binds otherwise, found once for every
    /// function asked about.
    types: OnceCell<TypesByName>,
}

/// A name bound by an import or a class (no range) names no type read here, nor a
/// global.
type TypesByName = FxHashMap<String, Option<Range<usize>>>;

impl<'s> Reader<'s> {
    pub fn new(language: Language, source: &'s str) -> Reader<'s> {
        let tree = (language.component().is_none())
            .then(|| {
                let mut parser = Parser::new();
                parser.set_language(&language.grammar()).ok()?;
                parser.parse(source, None)
            })
            .flatten();
        Reader {
            source,
            tree,
            reads_jsdoc: language == Language::JavaScript,
            types: OnceCell::new(),
        }
    }

    /// The contract of the function at `start..end` (see [`contract_at`]).
    pub fn at(&self, start: usize, end: usize) -> Option<Contract> {
        if end > self.source.len() || start >= end {
            return None;
        }
        let node = self
            .tree
            .as_ref()?
            .root_node()
            .descendant_for_byte_range(start, end)?;
        let function = function_within(node)?;
        let root = self.tree.as_ref()?.root_node();
        let file = File {
            source: self.source,
            root,
            types: self
                .types
                .get_or_init(|| top_level_types(root, self.source)),
        };
        let mut contract = read(function, &file);
        if self.reads_jsdoc {
            if let Some(doc) = doc_comment(function, self.source) {
                apply_jsdoc(&mut contract, doc);
            }
        }
        Some(contract)
    }
}

/// A parsed file, for the names its types refer to.
struct File<'s, 't> {
    source: &'s str,
    root: Node<'t>,
    types: &'s TypesByName,
}

impl File<'_, '_> {
    fn text(&self, n: Node) -> String {
        self.source
            .get(n.byte_range())
            .unwrap_or_default()
            .to_string()
    }
}

/// A file with the type parameters in scope where a type is read.
struct Scoped<'a, 's, 't> {
    file: &'a File<'s, 't>,
    generics: &'a [String],
}

impl Scoped<'_, '_, '_> {
    fn is_type_parameter(&self, name: &str) -> bool {
        self.generics.iter().any(|g| g == name)
    }
}

impl<'t> TypeScope<'t> for Scoped<'_, '_, 't> {
    fn text(&self, node: Node<'t>) -> &str {
        self.file.source.get(node.byte_range()).unwrap_or_default()
    }
    fn declared(&self, name: &str) -> Option<Node<'t>> {
        declared_type(self.file, name)
    }
    /// A type parameter, or a name the file imports or binds to a class: not a
    /// global's, whatever it is called.
    fn is_generic(&self, name: &str) -> bool {
        self.is_type_parameter(name) || otherwise_bound(self.file, name)
    }
}

/// Nodes a function's body is searched through for its `return`s, at most: a body
/// beyond it has returns not known.
const MAX_RETURN_SEARCH: usize = 50_000;

/// How many levels above a function its type parameters are looked for.
const MAX_SCOPE_LEVELS: usize = 8;

/// How deep a type is followed through the aliases that name it.
const MAX_TYPE_LEVEL: usize = 4;

const FUNCTIONS: [&str; 9] = [
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
    "function_signature",
    "method_signature",
];

/// The function `node` is, or the first one it holds (`const f = () => {}` spans the
/// declarator), a few levels down at most.
fn function_within(node: Node) -> Option<Node> {
    let mut level = vec![node];
    for _ in 0..4 {
        let mut next = Vec::new();
        for n in level {
            if FUNCTIONS.contains(&n.kind()) {
                return Some(n);
            }
            let mut cursor = n.walk();
            next.extend(n.named_children(&mut cursor).take(16));
        }
        level = next;
    }
    None
}

fn read(function: Node, file: &File) -> Contract {
    let text = |n: Node| file.text(n);
    let mut cursor = function.walk();
    let is_generator = function.kind().starts_with("generator_function") || {
        let mut cursor = function.walk();
        let star = function
            .children(&mut cursor)
            .take_while(|c| c.kind() != "formal_parameters")
            .any(|c| c.kind() == "*");
        star
    };
    let is_async = function
        .children(&mut cursor)
        .take_while(|c| c.kind() != "formal_parameters")
        .any(|c| c.kind() == "async");
    let mut params = Vec::new();
    if let Some(list) = function.child_by_field_name("parameters") {
        let generics = type_parameters(function, file);
        let mut cursor = list.walk();
        for p in list.named_children(&mut cursor) {
            if let Some(param) = param(p, file, &generics) {
                params.push(param);
            }
        }
    } else if let Some(single) = function.child_by_field_name("parameter") {
        // `x => ...`
        params.push(Param {
            name: short(text(single)),
            kind: ParamKind::Required,
            keys: Vec::new(),
            closed: false,
            accepts: ValueKinds::ANY,
            stated: None,
            named: None,
            also: ValueKinds::NONE,
            literals: None,
        });
    }
    let returns =
        returned_members(function, file).map(|keys| keys.into_iter().map(short).collect());
    let stated_return = function
        .child_by_field_name("return_type")
        .and_then(|t| t.named_child(0))
        .map(|ty| {
            file.text(ty)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|t| t.len() <= MAX_STATED_RETURN);
    let mut outer = function.parent();
    while let Some(p) = outer.filter(|p| p.kind() == "parenthesized_expression") {
        outer = p.parent();
    }
    let seen_through = outer.and_then(|p| match p.kind() {
        "arguments" => Some(SeenThrough::Call),
        "variable_declarator" | "public_field_definition" | "property_signature"
            if p.child_by_field_name("type").is_some() =>
        {
            Some(SeenThrough::StatedType)
        }
        _ => None,
    });
    Contract {
        params,
        is_async,
        is_generator,
        returns,
        seen_through,
        stated_return,
    }
}

/// The names of the type parameters in scope at `function`: its own and those of the
/// functions, classes and interfaces a few levels around it (a method's class, an outer
/// generic function). Each step up is a walk from the root, so the steps are few.
///
/// With each, its `extends` constraint where it states one (`T extends Schema`),
/// innermost first.
fn type_parameters<'t>(function: Node<'t>, file: &File) -> TypeParameters<'t> {
    let mut found = TypeParameters::default();
    let mut node = Some(function);
    for _ in 0..MAX_SCOPE_LEVELS {
        let Some(n) = node else {
            break;
        };
        if let Some(list) = n.child_by_field_name("type_parameters") {
            let mut cursor = list.walk();
            for t in list.named_children(&mut cursor) {
                if let Some(name) = t.child_by_field_name("name") {
                    let name = file.text(name);
                    let bound = t
                        .child_by_field_name("constraint")
                        .and_then(|c| c.named_child(0));
                    found.bounds.push((name.clone(), bound));
                    found.names.push(name);
                }
            }
        }
        node = n.parent();
    }
    found
}

/// The type parameters in scope at a function (see [`type_parameters`]).
#[derive(Default)]
struct TypeParameters<'t> {
    names: Vec<String>,
    bounds: Vec<(String, Option<Node<'t>>)>,
}

impl<'t> TypeParameters<'t> {
    /// The stated type `ty` (a `type_annotation`), or where it is a type parameter with
    /// a constraint, that constraint (through those of others, `U extends T`): the
    /// compiler infers `T` from the argument, then requires it to be a `Schema`.
    fn through_bounds(&self, ty: Node<'t>, file: &File) -> Node<'t> {
        let mut at = ty;
        for _ in 0..MAX_SCOPE_LEVELS {
            let named = match at.kind() {
                "type_annotation" => at.named_child(0),
                _ => Some(at),
            };
            let Some(named) = named.filter(|n| n.kind() == "type_identifier") else {
                break;
            };
            let name = file.text(named);
            // The innermost parameter of that name is the one in scope.
            match self.bounds.iter().find(|(n, _)| *n == name) {
                Some((_, Some(bound))) => at = *bound,
                _ => break,
            }
        }
        at
    }
}

fn param<'t>(p: Node<'t>, file: &File, generics: &TypeParameters<'t>) -> Option<Param> {
    let text = |n: Node| file.text(n);
    let (pattern, kind) = match p.kind() {
        "comment" => return None,
        // TypeScript: `x: T`, `x: T = 1`, `...xs: T[]`, `this: T` (no argument).
        "required_parameter" => {
            let pattern = p.child_by_field_name("pattern")?;
            if pattern.kind() == "this" {
                return None;
            }
            let kind = if pattern.kind() == "rest_pattern" {
                ParamKind::Rest
            } else if p.child_by_field_name("value").is_some() {
                ParamKind::Defaulted
            } else {
                ParamKind::Required
            };
            (pattern, kind)
        }
        "optional_parameter" => (p.child_by_field_name("pattern")?, ParamKind::Optional),
        // JavaScript.
        "assignment_pattern" => (p.child_by_field_name("left")?, ParamKind::Defaulted),
        "rest_pattern" => (p, ParamKind::Rest),
        _ => (p, ParamKind::Required),
    };
    // The stated type is what the compiler checks a call against; a destructuring
    // pattern is what a JavaScript call must fill (and what TypeScript infers the
    // parameter's type from when none is stated).
    let written_type = p.child_by_field_name("type");
    let stated_type = match kind {
        ParamKind::Rest => written_type,
        _ => written_type.map(|t| generics.through_bounds(t, file)),
    };
    let scope = Scoped {
        file,
        generics: &generics.names,
    };
    let accepts = match (stated_type, kind) {
        (Some(t), ParamKind::Rest) => type_kinds::accepted_element(t, &scope),
        (Some(t), _) => type_kinds::accepted(t, &scope),
        // `base = ""`: the compiler takes the type from the default, widened (a string).
        (None, ParamKind::Defaulted) => p
            .child_by_field_name("value")
            .or_else(|| p.child_by_field_name("right"))
            .map_or(ValueKinds::ANY, |v| {
                type_kinds::widened(crate::indexer::extract::value_kinds(v, file.source))
            }),
        (None, _) => ValueKinds::ANY,
    };
    // Which of `undefined` and `null` it admits, where the checker's strict null checks
    // are on (an argument of either is judged by them only there; see `blast::radius`):
    // what the stated type admits (one element's, for a rest parameter), and
    // `undefined` for an optional or defaulted one.
    let nullish = match (stated_type, kind) {
        _ if accepts.is_any() => ValueKinds::NULLISH,
        (Some(t), ParamKind::Rest) => type_kinds::nullish_element(t, &scope),
        (Some(t), _) => type_kinds::nullish(t, &scope),
        (None, _) => ValueKinds::NONE,
    };
    let optional = match kind {
        ParamKind::Optional | ParamKind::Defaulted => ValueKinds::UNDEFINED,
        _ => ValueKinds::NONE,
    };
    let accepts = accepts | nullish | optional;
    let named = stated_type
        .and_then(|t| match t.kind() {
            "type_annotation" => t.named_child(0),
            _ => Some(t),
        })
        // A rest parameter's arguments are each one element (`...middleware:
        // Middleware[]`, `Array<Middleware>`).
        .and_then(|t| match kind {
            ParamKind::Rest => type_kinds::element(t, &scope),
            _ => Some(t),
        })
        .filter(|_| accepts.is_any())
        .and_then(|t| named_elsewhere(t, &scope));
    let stated = stated_type.and_then(|t| members_of_type(t, file, 0));
    let (keys, closed) = match (stated, pattern.kind()) {
        // A type parameter's constraint requires its members but closes nothing: `T`
        // is inferred from the object literal, whatever else it holds.
        (Some(members), _) if kind != ParamKind::Rest => (members, stated_type == written_type),
        (_, "object_pattern") => (object_keys(pattern, &text), false),
        _ => (Vec::new(), false),
    };
    Some(Param {
        name: short(text(pattern)),
        kind,
        keys: keys.into_iter().map(|(k, r)| (short(k), r)).collect(),
        closed,
        accepts,
        named: named.as_ref().map(|(names, _)| names.join("|")),
        also: named.map_or(ValueKinds::NONE, |(_, also)| also | optional),
        literals: stated_type
            .filter(|_| kind != ParamKind::Rest && accepts.meets(ValueKinds::LITERAL_STRING))
            .and_then(|t| type_kinds::string_literals(t, &scope)),
        // One line, however the type was laid out: it is quoted in a reason.
        stated: written_type
            .and_then(|t| t.named_child(0))
            .map(|t| short(text(t).split_whitespace().collect::<Vec<_>>().join(" "))),
    })
}

/// The names of types another file declares that the stated type `ty` is, or is a
/// union of (`SignOptions`, `types.SignOptions`, `EventHandler | H3`), with what its
/// other members accept; None where it is anything else or a member is not known.
fn named_elsewhere<'t>(
    ty: Node<'t>,
    scope: &Scoped<'_, '_, 't>,
) -> Option<(Vec<String>, ValueKinds)> {
    let one = |t: Node<'t>| -> Option<String> {
        // `Partial<Options>`: what a type's members say of the kinds of value it takes
        // does not depend on whether they are optional or read-only.
        let t = type_kinds::same_kinds_as_argument(t, scope).unwrap_or(t);
        // `Peer<Adapter>`: the kinds of value a class, an interface or an alias of a
        // function type takes do not depend on its type arguments (an alias whose
        // arguments decide is not read as one: its kinds are not known).
        let t = match t.kind() {
            "generic_type" => t.child_by_field_name("name")?,
            _ => t,
        };
        let name = scope.text(t);
        let elsewhere = match t.kind() {
            "type_identifier" => !scope.is_type_parameter(name) && scope.declared(name).is_none(),
            "nested_type_identifier" => true,
            _ => false,
        };
        elsewhere.then(|| name.to_string())
    };
    if ty.kind() != "union_type" {
        return Some((vec![one(ty)?], ValueKinds::NONE));
    }
    let mut names = Vec::new();
    let mut also = ValueKinds::NONE;
    let mut members = vec![ty];
    while let Some(t) = members.pop() {
        if t.kind() == "union_type" {
            let mut cursor = t.walk();
            members.extend(t.named_children(&mut cursor));
            continue;
        }
        let kinds = type_kinds::accepted(t, scope);
        if !kinds.is_any() {
            also = also | kinds | type_kinds::nullish(t, scope);
        } else {
            names.push(one(t)?);
        }
    }
    (!names.is_empty()).then_some((names, also))
}

/// The members of the object type `ty` states, each with whether it is required: an
/// object type written out, or an interface or type alias of this file that is one.
/// None for anything else, or where members may come from elsewhere (`extends`, an
/// index signature, an intersection).
fn members_of_type(ty: Node, file: &File, level: usize) -> Option<Vec<(String, bool)>> {
    if level > MAX_TYPE_LEVEL {
        return None;
    }
    match ty.kind() {
        "type_annotation" | "parenthesized_type" => {
            members_of_type(ty.named_child(0)?, file, level + 1)
        }
        "object_type" | "interface_body" => {
            let mut out = Vec::new();
            let mut cursor = ty.walk();
            for member in ty.named_children(&mut cursor) {
                match member.kind() {
                    "property_signature" | "method_signature" => {
                        let name = member.child_by_field_name("name")?;
                        let key = literal_key(name, file)?;
                        let mut c = member.walk();
                        let optional = member.children(&mut c).any(|x| x.kind() == "?");
                        out.push((key, !optional));
                    }
                    "comment" | "call_signature" | "construct_signature" => {}
                    _ => return None,
                }
            }
            Some(out)
        }
        "type_identifier" => {
            let declared = declared_type(file, &file.text(ty))?;
            match declared.kind() {
                "interface_declaration" => {
                    let mut c = declared.walk();
                    if declared
                        .children(&mut c)
                        .any(|x| x.kind() == "extends_type_clause")
                        || declared.child_by_field_name("type_parameters").is_some()
                    {
                        return None;
                    }
                    members_of_type(declared.child_by_field_name("body")?, file, level + 1)
                }
                _ => {
                    if declared.child_by_field_name("type_parameters").is_some() {
                        return None;
                    }
                    members_of_type(declared.child_by_field_name("value")?, file, level + 1)
                }
            }
        }
        _ => None,
    }
}

/// The interfaces and type aliases declared at the top of the file (exported or not),
/// by name; the first of a name wins.
fn top_level_types(root: Node, source: &str) -> TypesByName {
    let mut types = TypesByName::default();
    let mut cursor = root.walk();
    for top in root.named_children(&mut cursor) {
        if top.kind() == "import_statement" {
            imported_names(top, source, &mut types);
            continue;
        }
        let declaration = match top.kind() {
            "export_statement" => match top.child_by_field_name("declaration") {
                Some(d) => d,
                None => continue,
            },
            _ => top,
        };
        let Some(name) = declaration
            .child_by_field_name("name")
            .and_then(|n| source.get(n.byte_range()))
        else {
            continue;
        };
        match declaration.kind() {
            "interface_declaration" | "type_alias_declaration" => {
                let kept = types.entry(name.to_string()).or_default();
                if kept.is_none() {
                    *kept = Some(declaration.byte_range());
                }
            }
            // A class or an enum of the file may bear a global's name (`class Request`).
            "class_declaration" | "abstract_class_declaration" | "enum_declaration" => {
                types.entry(name.to_string()).or_default();
            }
            _ => {}
        }
    }
    types
}

/// The names an import statement binds (`import type { Response } from './r'`): a
/// type of another file, though a global bears the name too.
fn imported_names(import: Node, source: &str, types: &mut TypesByName) {
    let Some(clause) = import
        .named_children(&mut import.walk())
        .find(|c| c.kind() == "import_clause")
    else {
        return;
    };
    let mut bind = |n: Node| {
        if let Some(name) = source.get(n.byte_range()) {
            types.entry(name.to_string()).or_default();
        }
    };
    for part in clause.named_children(&mut clause.walk()) {
        match part.kind() {
            "identifier" => bind(part),
            "namespace_import" => {
                if let Some(n) = part.named_child(0) {
                    bind(n);
                }
            }
            "named_imports" => {
                for spec in part.named_children(&mut part.walk()) {
                    let local = spec
                        .child_by_field_name("alias")
                        .or_else(|| spec.child_by_field_name("name"));
                    if let Some(n) = local.filter(|_| spec.kind() == "import_specifier") {
                        bind(n);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether the file binds `name` otherwise than by an interface or a type alias.
fn otherwise_bound(file: &File, name: &str) -> bool {
    file.types.get(name).is_some_and(Option::is_none)
}

/// The interface or type alias `name` declared at the top of the file.
fn declared_type<'t>(file: &File<'_, 't>, name: &str) -> Option<Node<'t>> {
    let range = file.types.get(name)?.as_ref()?;
    let mut node = file
        .root
        .descendant_for_byte_range(range.start, range.end)?;
    // The smallest node over the range may be one inside the declaration.
    while !matches!(
        node.kind(),
        "interface_declaration" | "type_alias_declaration"
    ) {
        node = node.parent()?;
    }
    Some(node)
}

/// A key as written: `a`, `'a'`, `1`; None for a computed one.
fn literal_key(key: Node, file: &File) -> Option<String> {
    let text = file.text(key);
    match key.kind() {
        "property_identifier" | "number" | "shorthand_property_identifier" => Some(text),
        "string" if text.len() >= 2 => Some(text[1..text.len() - 1].to_string()),
        _ => None,
    }
}

/// The members of what `function` returns (see [`Contract::returns`]).
fn returned_members(function: Node, file: &File) -> Option<Vec<String>> {
    let mut cursor = function.walk();
    if function.children(&mut cursor).any(|c| c.kind() == "*") {
        return None; // a generator returns an iterator
    }
    if let Some(stated) = function.child_by_field_name("return_type") {
        let mut ty = stated.named_child(0)?;
        // `Promise<T>`: what an async function's promise gives.
        if ty.kind() == "generic_type"
            && ty
                .child_by_field_name("name")
                .is_some_and(|n| file.text(n) == "Promise")
        {
            ty = ty.child_by_field_name("type_arguments")?.named_child(0)?;
        }
        return members_of_type(ty, file, 0).map(|m| m.into_iter().map(|(k, _)| k).collect());
    }
    let body = function.child_by_field_name("body")?;
    if body.kind() != "statement_block" {
        return literal_keys(body, file);
    }
    // The `return`s of this function (not of the functions or classes inside it).
    let mut keys: Vec<String> = Vec::new();
    let mut any = false;
    let mut stack = vec![body];
    let mut seen = 0usize;
    while let Some(node) = stack.pop() {
        seen += 1;
        if seen > MAX_RETURN_SEARCH {
            return None;
        }
        match node.kind() {
            "return_statement" => {
                if let Some(value) = node.named_child(0).filter(|v| v.kind() != "comment") {
                    for k in literal_keys(value, file)? {
                        if !keys.contains(&k) {
                            keys.push(k);
                        }
                    }
                    any = true;
                }
                continue;
            }
            kind if FUNCTIONS.contains(&kind) || kind == "class_body" => continue,
            _ => {}
        }
        let mut c = node.walk();
        stack.extend(node.named_children(&mut c));
    }
    any.then_some(keys)
}

/// The keys of the object literal `value` is (past parentheses, `await`, `as` and
/// `satisfies`); None for anything else, or a literal with keys not written out.
fn literal_keys(value: Node, file: &File) -> Option<Vec<String>> {
    let mut value = value;
    for _ in 0..8 {
        match value.kind() {
            "parenthesized_expression"
            | "await_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression" => value = value.named_child(0)?,
            _ => break,
        }
    }
    if value.kind() != "object" {
        return None;
    }
    let mut keys = Vec::new();
    let mut cursor = value.walk();
    for item in value.named_children(&mut cursor) {
        let key = match item.kind() {
            "pair" => literal_key(item.child_by_field_name("key")?, file)?,
            "shorthand_property_identifier" => file.text(item),
            "method_definition" => literal_key(item.child_by_field_name("name")?, file)?,
            "comment" => continue,
            _ => return None,
        };
        keys.push(key);
    }
    Some(keys)
}

/// The JSDoc block right before the declaration `function` is the value of (`/** */
/// export const f = () => {}`, a method, an object's property).
fn doc_comment<'s>(function: Node, source: &'s str) -> Option<&'s str> {
    let mut node = function;
    while let Some(parent) = node.parent() {
        if !matches!(
            parent.kind(),
            "variable_declarator"
                | "lexical_declaration"
                | "variable_declaration"
                | "export_statement"
                | "assignment_expression"
                | "expression_statement"
                | "pair"
                | "parenthesized_expression"
        ) {
            break;
        }
        node = parent;
    }
    let comment = node.prev_sibling().filter(|c| c.kind() == "comment")?;
    let gap = source.get(comment.end_byte()..node.start_byte())?;
    let text = source.get(comment.byte_range())?;
    (gap.trim().is_empty() && text.starts_with("/**") && text.len() <= 16 * 1024).then_some(text)
}

/// JSDoc's `@param` tags, as TypeScript's checker reads them in JavaScript: `[name]` and
/// `{T=}` make a parameter optional, `name.key` (or `[name.key]`) is a key of the object
/// it takes. A destructured parameter is documented by position, under any name.
fn apply_jsdoc(contract: &mut Contract, doc: &str) {
    use crate::indexer::extract::{doc_tags, DocTagKind};
    let tags = doc_tags(doc);
    let mut position = 0usize;
    let mut names: Vec<(&str, usize)> = Vec::new();
    for tag in tags.iter().filter(|t| t.kind == DocTagKind::Param) {
        match tag.name.split_once('.') {
            None => {
                let at = contract
                    .params
                    .iter()
                    .position(|p| p.name == tag.name)
                    .or_else(|| {
                        contract
                            .params
                            .get(position)
                            .filter(|p| p.name.starts_with('{'))
                            .map(|_| position)
                    });
                if let Some(i) = at {
                    names.push((tag.name, i));
                    let p = &mut contract.params[i];
                    if tag.optional && p.kind == ParamKind::Required {
                        p.kind = ParamKind::Optional;
                    }
                    position = i + 1;
                }
            }
            Some((owner, key)) => {
                let Some(&(_, i)) = names.iter().find(|(n, _)| *n == owner) else {
                    continue;
                };
                if key.contains('.') || key.is_empty() {
                    continue; // a key of a key
                }
                let keys = &mut contract.params[i].keys;
                match keys.iter_mut().find(|(k, _)| k == key) {
                    Some(k) => k.1 &= !tag.optional,
                    None => keys.push((short(key.to_string()), !tag.optional)),
                }
            }
        }
    }
}

/// A name as a reason quotes it: a destructuring pattern can be any length.
pub(crate) fn short(mut name: String) -> String {
    const MAX: usize = 60;
    if name.len() > MAX {
        let mut end = MAX;
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name.truncate(end);
        name.push('…');
    }
    name
}

/// A destructured object's keys, each with whether it lacks a default.
fn object_keys(pattern: Node, text: &dyn Fn(Node) -> String) -> Vec<(String, bool)> {
    let mut keys = Vec::new();
    let mut cursor = pattern.walk();
    for item in pattern.named_children(&mut cursor) {
        match item.kind() {
            "shorthand_property_identifier_pattern" => keys.push((text(item), true)),
            "pair_pattern" => {
                if let Some(key) = item.child_by_field_name("key") {
                    let defaulted = item
                        .child_by_field_name("value")
                        .is_some_and(|v| v.kind() == "assignment_pattern");
                    keys.push((text(key), !defaulted));
                }
            }
            "object_assignment_pattern" => {
                if let Some(left) = item.child_by_field_name("left") {
                    keys.push((text(left), false));
                }
            }
            _ => {}
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The contract of the function that starts at `name`, on the rest of its line.
    fn contract(language: Language, source: &str, name: &str) -> Contract {
        let start = source.find(name).expect("the function is there");
        let end = source[start..]
            .find('\n')
            .map_or(source.len(), |e| start + e);
        contract_at(language, source, start, end).expect("a function")
    }

    /// A parameter stated as a union of string literals (through the file's aliases)
    /// lists them; aliases of unions of aliases, 4^20 paths deep, are read within a
    /// bound and list nothing.
    #[test]
    fn string_literals_are_read_through_aliases_within_a_bound() {
        let mut source = String::from("type Mode = 'a' | ('b' | 1);\ntype A0 = 'x' | 'y';\n");
        for i in 1..=20 {
            let p = i - 1;
            source.push_str(&format!("type A{i} = A{p} | A{p} | A{p} | A{p};\n"));
        }
        source.push_str("function set(mode: Mode, deep: A20, any: string | Mode): void {}\n");
        let c = contract(Language::TypeScript, &source, "function set");
        let literals: Vec<Option<Vec<String>>> =
            c.params.iter().map(|p| p.literals.clone()).collect();
        assert_eq!(
            literals,
            [Some(vec!["b".to_string(), "a".to_string()]), None, None]
        );
    }

    #[test]
    fn parameters_of_every_kind_in_javascript_and_typescript() {
        let js = "async function charge(amount, currency = 'EUR', { id, note = '' }, ...rest) {}";
        let c = contract(Language::JavaScript, js, "async function");
        assert!(c.is_async);
        let kinds: Vec<ParamKind> = c.params.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [
                ParamKind::Required,
                ParamKind::Defaulted,
                ParamKind::Required,
                ParamKind::Rest
            ]
        );
        assert_eq!(
            c.params[2].keys,
            [("id".to_string(), true), ("note".to_string(), false)]
        );
        assert_eq!((c.min_args(), c.max_args()), (3, None));

        let ts = "export const pay = (amount: number, opts?: Opts, { a, b }: { a: string; b?: number } = x): void => {}";
        let c = contract(Language::TypeScript, ts, "(amount");
        assert!(!c.is_async);
        let kinds: Vec<ParamKind> = c.params.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [
                ParamKind::Required,
                ParamKind::Optional,
                ParamKind::Defaulted
            ]
        );
        assert_eq!(
            c.params[2].keys,
            [("a".to_string(), true), ("b".to_string(), false)]
        );
        assert_eq!((c.min_args(), c.max_args()), (1, Some(3)));

        let method = "class A { save(this: A, x: number) {} }";
        let c = contract(Language::TypeScript, method, "save");
        assert_eq!(c.params.len(), 1, "`this` is no argument");
        let arrow = "const f = async x => x;";
        let c = contract(Language::JavaScript, arrow, "async x");
        assert!(c.is_async);
        assert_eq!(c.min_args(), 1);
    }

    /// Which of `undefined` and `null` each parameter admits under strict null checks:
    /// what its stated type says (through the file's aliases), `undefined` where it is
    /// optional or defaulted, both where its type is not known here.
    #[test]
    fn stated_types_say_whether_they_admit_undefined_and_null() {
        let ts = "\
type Maybe = string | null;
interface Box { width: number }
export function f<T>(a: string | undefined, b: Maybe, c: Box, d?: Box, e = 1, g: T, h: Other, i: unknown, j: void, k: Array<Box>, l: Box | null | undefined) {}
";
        let c = contract(Language::TypeScript, ts, "export function");
        let nullish: Vec<ValueKinds> = c
            .params
            .iter()
            .map(|p| p.accepts & ValueKinds::NULLISH)
            .collect();
        let (u, n) = (ValueKinds::UNDEFINED, ValueKinds::NULL);
        assert_eq!(
            nullish,
            [
                u,
                n,
                ValueKinds::NONE,
                u,
                u,
                u | n, // a type parameter
                u | n, // declared elsewhere
                u | n,
                u,
                ValueKinds::NONE,
                u | n,
            ]
        );
    }

    /// What each stated parameter type accepts, as far as this file says.
    #[test]
    fn the_kinds_of_value_stated_types_accept() {
        let ts = "\
type Mode = 'a' | 'b';
interface Box { width: number }
interface Sized { length: number }
export function f<T>(a: string, b: number | boolean, c: Mode, d: Box, e: Sized, g: T, h: Other, i: Uint8Array, j: (x: number) => void, k: string[], l?: `x${string}`, ...m: number[]) {}
";
        let c = contract(Language::TypeScript, ts, "export function");
        let accepts: Vec<ValueKinds> = c.params.iter().map(|p| p.accepts).collect();
        assert_eq!(
            accepts,
            [
                ValueKinds::STRINGS,
                ValueKinds::NUMBER | ValueKinds::BOOLEAN,
                ValueKinds::LITERAL_STRING, // not every string
                ValueKinds::OBJECT | ValueKinds::INSTANCE, // not an array nor a function
                ValueKinds::ANY,            // a string has a `length`
                ValueKinds::ANY,            // a type parameter
                ValueKinds::ANY,            // declared elsewhere
                ValueKinds::GLOBAL,         // not a promise
                ValueKinds::FUNCTION | ValueKinds::INSTANCE | ValueKinds::BUILTIN,
                ValueKinds::ARRAY | ValueKinds::INSTANCE | ValueKinds::BUILTIN,
                ValueKinds::LITERAL_STRING | ValueKinds::UNDEFINED, // optional
                ValueKinds::NUMBER,                                 // one element of the rest
            ]
        );
        assert_eq!(c.params[1].stated.as_deref(), Some("number | boolean"));
        // All optional: an object may fit, a primitive, an array or a function not
        // (TS2559), unless the type names a member it has (a function has none of its
        // own: an optional `bind` is none in common); an empty type takes anything.
        // Likewise a well-known global's instance (a `Uint8Array`) and a promise, unless
        // it names one of their members.
        let weak = "export function w(a?: { border?: number }, b: { search?: string }, c: {}, d: { map?: 1, bind?: 2 }, e: { then?: 1 }, f: { getTime(): number }) {}";
        let c = contract(Language::TypeScript, weak, "export function");
        let accepts: Vec<ValueKinds> = c.params.iter().map(|p| p.accepts).collect();
        assert_eq!(
            accepts,
            [
                ValueKinds::OBJECT | ValueKinds::INSTANCE | ValueKinds::UNDEFINED,
                ValueKinds::ANY,
                ValueKinds::ANY,
                ValueKinds(
                    ValueKinds::OBJECTS.0 & !ValueKinds::PROMISE.0 & !ValueKinds::FUNCTION.0
                ),
                ValueKinds::OBJECT | ValueKinds::INSTANCE | ValueKinds::PROMISE,
                ValueKinds::GLOBAL,
            ]
        );
        // Names of other files, alone or in a union, are left to the graph, with what
        // the union's other members accept; a type with a call signature takes only
        // what can be called, whatever members it names.
        let unions = "interface Fn { (x: number): void; length: number }\nexport function u<T>(a: Handler | H3, b?: types.Options | undefined, c: Other | string, d: Fn, e: Other | T) {}";
        let c = contract(Language::TypeScript, unions, "export function");
        let named: Vec<(Option<&str>, ValueKinds)> = c
            .params
            .iter()
            .map(|p| (p.named.as_deref(), p.also))
            .collect();
        assert_eq!(
            named,
            [
                (Some("H3|Handler"), ValueKinds::NONE),
                (Some("types.Options"), ValueKinds::UNDEFINED),
                (Some("Other"), ValueKinds::STRINGS),
                (None, ValueKinds::NONE),
                (None, ValueKinds::NONE),
            ]
        );
        assert_eq!(c.params[3].accepts, ValueKinds::CALLABLE);
        let laid_out = "export function h(box: {\n  width: number;\n  height: number\n}) {}";
        let c = contract(Language::TypeScript, laid_out, "export function");
        assert_eq!(
            c.params[0].stated.as_deref(),
            Some("{ width: number; height: number }")
        );
        // No stated type: the default's, widened, where it is a primitive.
        let defaults = "export function g(a = '', b = 0, c = x, d = {}) {}";
        let c = contract(Language::TypeScript, defaults, "export function");
        let accepts: Vec<ValueKinds> = c.params.iter().map(|p| p.accepts).collect();
        assert_eq!(
            accepts,
            [
                ValueKinds::STRINGS | ValueKinds::UNDEFINED,
                ValueKinds::NUMBER | ValueKinds::UNDEFINED,
                ValueKinds::ANY,
                ValueKinds::ANY
            ]
        );
        let js = "function f(a) {}";
        let c = contract(Language::JavaScript, js, "function");
        assert_eq!(
            (c.params[0].accepts, c.params[0].stated.as_ref()),
            (ValueKinds::ANY, None)
        );
    }

    #[test]
    fn keys_of_stated_types_and_of_what_is_returned() {
        let ts = "\
interface PayOptions { amount: number; currency?: string; card: Card }
type Receipt = { id: string; total: number };
export function pay(opts: PayOptions, when: { at: Date }): Promise<Receipt> { return x; }
export const load = async (id: string) => { if (id) { return { id, name: 'a' }; } return { id, size: 1 }; };
function open(o: Other, e: Extended) { return make(); }
interface Extended extends Base { a: string }
";
        let c = contract(Language::TypeScript, ts, "function pay");
        assert_eq!(
            c.params[0].keys,
            [
                ("amount".to_string(), true),
                ("currency".to_string(), false),
                ("card".to_string(), true)
            ]
        );
        assert_eq!(c.params[1].keys, [("at".to_string(), true)]);
        assert_eq!(c.returns, Some(vec!["id".to_string(), "total".to_string()]));
        let c = contract(Language::TypeScript, ts, "async (id");
        assert!(c.is_async);
        let mut returns = c.returns.expect("two literals");
        returns.sort();
        assert_eq!(returns, ["id", "name", "size"]);
        // A type from elsewhere, one that extends another, a call returned: not known.
        let c = contract(Language::TypeScript, ts, "function open");
        assert!(c.params.iter().all(|p| p.keys.is_empty()));
        assert_eq!(c.returns, None);
        // Nested functions' returns are theirs; a spread is keys not written out.
        let js = "function f() { const g = () => { return 1; }; return { a: g }; }\nfunction h(o) { return { ...o, b: 1 }; }";
        assert_eq!(
            contract(Language::JavaScript, js, "function f").returns,
            Some(vec!["a".to_string()])
        );
        assert_eq!(
            contract(Language::JavaScript, js, "function h").returns,
            None
        );
    }

    #[test]
    fn jsdoc_states_optional_parameters_and_keys_in_javascript_only() {
        let source = "\
/**
 * @param {number} amount
 * @param {string} [currency]
 * @param {Object} opts
 * @param {string} opts.card
 * @param {string} [opts.note]
 * @param {{ id: string }} arg3
 * @param {string} arg3.id
 */
export function pay(amount, currency, opts, { id }) {}
";
        let c = contract(Language::JavaScript, source, "function pay");
        let kinds: Vec<ParamKind> = c.params.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [
                ParamKind::Required,
                ParamKind::Optional,
                ParamKind::Required,
                ParamKind::Required
            ]
        );
        assert_eq!(
            c.params[2].keys,
            [("card".to_string(), true), ("note".to_string(), false)]
        );
        assert_eq!(c.params[3].keys, [("id".to_string(), true)]);
        assert_eq!(c.min_args(), 4);
        // The TypeScript checker ignores JSDoc in TypeScript files.
        let c = contract(Language::TypeScript, source, "function pay");
        assert_eq!(c.params[1].kind, ParamKind::Required);
        assert!(c.params[2].keys.is_empty());
    }

    #[test]
    fn no_contract_where_no_function_is() {
        let source = "class A {}\nconst o = { a: 1 };\n";
        assert_eq!(contract_at(Language::JavaScript, source, 0, 10), None);
        assert_eq!(contract_at(Language::JavaScript, source, 5, 500), None);
    }
}
