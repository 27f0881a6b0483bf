//! One pass over a tree-sitter tree that produces a file's [`FileFacts`].
//!
//! The walk keeps three stacks: lexical scopes (to bind identifiers to declarations in
//! this file), the enclosing definitions (to attribute each call site to the innermost
//! one), and the `this` context. Identifiers are bound lazily: a reference waits in its
//! scope until the scope closes, when every declaration of the scope (hoisted or not) is
//! known; what a scope cannot bind moves to its parent, and what the program cannot bind
//! is a global. This gives hoisting and shadowing in one pass.
//!
//! The work is split by concern: `defs` (functions, classes, objects, declarations, one
//! file each), `assign` (assignments that define things), `calls` (call sites and
//! expression values), `modules` (imports and exports), `types` (TypeScript annotations),
//! `scopes` (declaring and binding names), `tokens` (formatting-blind hashes), `finish`
//! (the passes once the walk is done); `syntax` holds the small predicates on nodes they
//! share, and `fields` and `children` the fast lookups every handler goes through.

mod angular_def;
mod assign;
mod budget;
mod calls;
mod children;
mod component_def;
mod declared_kinds;
mod defs;
mod directives;
mod doc_comments;
mod fields;
mod finish;
mod jsdoc;
/// JSDoc's tags, for what reads a function's contract in JavaScript (`blast::contract`).
pub(crate) use jsdoc::{tags as doc_tags, TagKind as DocTagKind};
mod line_index;
mod modules;
mod repair;
mod scopes;
mod shapes;
pub(crate) use shapes::value_kinds;
mod syntax;
mod tokens;
mod types;
mod vue_globals;
mod vue_options;

use std::hash::BuildHasher;

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use tree_sitter::{Node, Parser, Tree};

use super::arena;
use super::component;
use super::facts::*;
use super::language::{is_declaration_file, Language};
use super::skip::SkipReason;
pub use budget::{last_spent, Spent};
use children::Children;
use directives::ts_nocheck;
use fields::{Field, FieldExt};
use scopes::Scope;
pub(crate) use scopes::ScopeKind;

/// Deeper trees than this are not descended (their tokens are still hashed; their calls
/// are lost and the cuts counted): recursion must not overflow on generated code. Depth
/// is counted in units of stack (see [`handler`]); at this limit an unoptimized build uses
/// about 1 MiB, so extraction is safe on a 2 MiB thread (rayon's and the test harness's
/// default). `tests/engine/extract.rs` checks it on every recursive shape.
pub(crate) const MAX_DEPTH: usize = 1_500;

/// Parses `source` as `language` and extracts its facts. A file with syntax errors
/// gives what tree-sitter recovered, with `parse_errors` counting the error nodes; a
/// file that would cost more than its size allows ([`budget`]) is skipped as
/// `too_costly`. Unwinds with [`crate::cancel::Cancelled`] if the work is cancelled.
pub fn extract(path: &str, language: Language, source: &str) -> Result<FileFacts, SkipReason> {
    // An earlier attempt of this work stalled on it: a retry goes past it.
    if crate::cancel::left_out(path) {
        return Err(SkipReason::TimedOut);
    }
    // Named if a deadline stops the work while this file is read.
    let _reading = crate::cancel::reading(path);
    // An Angular template is no program: its bindings are read without a parser.
    if language == Language::Angular {
        return angular_def::template_file(path, source);
    }
    // A component: its script blocks, found once, give the program to parse (the
    // file's own offsets) and, after, its template's component tags.
    let component = language.component().map(|kind| {
        let blocks = component::script_blocks(kind, source);
        let template = component::template_spans(kind, source, &blocks);
        (kind, blocks, template)
    });
    // SAFETY: the parser and its trees are made and dropped inside the scope; the facts
    // own their data.
    let facts = unsafe {
        arena::scope(|| match &component {
            None => parse_and_extract(path, language, source),
            Some((kind, blocks, template)) => {
                let program = component::program_text_in(*kind, source, blocks, template);
                parse_and_extract(path, component::grammar_for(*kind, blocks), &program)
            }
        })
    };
    crate::cancel::checkpoint();
    let mut facts = facts?;
    if let Some((kind, _, template)) = &component {
        let uses = component::template_uses_in(*kind, source, template);
        let layout = component_def::Layout {
            kind: *kind,
            template,
            uses: &uses,
            sources: &component::script_sources(*kind, source),
        };
        component_def::add_component(&mut facts, path, source, &layout);
    }
    facts.path = path.to_string();
    facts.language = Some(language);
    Ok(facts)
}

fn parse_and_extract(
    path: &str,
    language: Language,
    source: &str,
) -> Result<FileFacts, SkipReason> {
    let mut parser = Parser::new();
    parser
        .set_language(&language.grammar())
        .expect("grammar version matches tree-sitter");
    budget::reset_spent();
    let mut meter = budget::ParseMeter::for_source(source.len());
    let Some(tree) = parse(&mut parser, source, None, &mut meter) else {
        return Err(SkipReason::TooCostly);
    };
    if language != Language::JavaScript && tree.root_node().has_error() {
        if let Some(second) = repair::reparse(&mut parser, language, source, &tree, &mut meter) {
            arena::discard(tree);
            let facts =
                extract_repaired(path, language, &second.source, &second.tree, second.wrapped);
            arena::discard(second.tree);
            let mut facts = facts?;
            facts.repaired = second.repairs.into();
            return Ok(facts);
        }
        if meter.exceeded() {
            arena::discard(tree);
            return Err(SkipReason::TooCostly);
        }
    }
    let facts = extract_repaired(path, language, source, &tree, Vec::new());
    arena::discard(tree);
    facts
}

/// Parses `source` within what `meter` allows; None once it is spent (or the work was
/// cancelled: the caller's checkpoint then unwinds). With `old`, the tree of an earlier
/// text edited into this one (`Tree::edit`): tree-sitter reuses what the edits left.
pub(crate) fn parse(
    parser: &mut Parser,
    source: &str,
    old: Option<&Tree>,
    meter: &mut budget::ParseMeter,
) -> Option<Tree> {
    let bytes = source.as_bytes();
    let mut progress = |_: &tree_sitter::ParseState| meter.report();
    let tree = parser.parse_with_options(
        &mut |at, _| bytes.get(at..).unwrap_or_default(),
        old,
        Some(tree_sitter::ParseOptions::new().progress_callback(&mut progress)),
    );
    meter.observe();
    match tree {
        Some(tree) if meter.exceeded() => {
            arena::discard(tree);
            None
        }
        tree => tree,
    }
}

/// Extracts from an already parsed tree.
pub fn extract_tree(
    path: &str,
    language: Language,
    source: &str,
    tree: &Tree,
) -> Result<FileFacts, SkipReason> {
    extract_repaired(path, language, source, tree, Vec::new())
}

/// Extracts from a tree, seeing through the calls a repair wrapped the decorators
/// starting at `wrapped` in (see [`repair`]).
fn extract_repaired(
    path: &str,
    language: Language,
    source: &str,
    tree: &Tree,
    wrapped: Vec<usize>,
) -> Result<FileFacts, SkipReason> {
    let _grammar = fields::GrammarScope::enter(language);
    let root = tree.root_node();
    let mut ex = Extractor::new(path, language, source);
    let max_fact_bytes = ex.meter.max_fact_bytes;
    ex.wrapped_decorators = wrapped;
    ex.facts.parse_errors = if root.has_error() {
        count_errors(root)
    } else {
        0
    };
    if matches!(language, Language::TypeScript | Language::Tsx) {
        ex.facts.unchecked = ts_nocheck(source);
        ex.facts.suppressed_lines = directives::suppressed_lines(source);
    }
    ex.push_scope(ScopeKind::Function);
    ex.visit_children(root, 0);
    if ex.meter.spent {
        return Err(SkipReason::TooCostly);
    }
    ex.pop_scope();
    let sorted = |mut calls: Vec<Pos>| {
        calls.sort_unstable();
        calls.dedup();
        calls.into_iter().collect()
    };
    ex.facts.suppressed_arguments = sorted(std::mem::take(&mut ex.suppressed_arguments));
    ex.facts.suppressed_reads = sorted(std::mem::take(&mut ex.suppressed_reads));
    if !ex.declaration_only {
        let facts = &ex.facts;
        let imports = facts.imports.iter().map(|i| facts.str(i.specifier));
        let links =
            crate::indexer::links::extract::sites(path, source, root, &ex.link_candidates, imports);
        ex.facts.links = links;
    }
    let facts = ex.finish();
    if facts.weight() > max_fact_bytes {
        return Err(SkipReason::TooCostly);
    }
    Ok(facts)
}

fn count_errors(root: Node) -> u32 {
    let mut count = 0;
    let mut cursor = root.walk();
    let mut done = false;
    while !done {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                done = true;
                break;
            }
        }
    }
    count
}

/// A node's children: few, so on the stack.
pub(crate) type Kids<'s> = SmallVec<[Node<'s>; 4]>;

/// The `this` of the code being walked.
#[derive(Clone, Copy)]
pub(crate) enum ThisCtx {
    /// Inside a class (or a named object literal's methods).
    Of(DefIdx),
    /// Inside a static method: `this` is the class itself.
    Static(DefIdx),
    /// Inside a function that states it (`function (this: Window) {}`): this value.
    Stated(SymId),
    /// Inside a plain function: `this` is whatever the caller says.
    Unknown,
}

pub(crate) struct Extractor<'s> {
    src: &'s str,
    declaration_only: bool,
    facts: FileFacts,
    /// The ids of `facts.strings`, found by comparing with the stored strings (no
    /// second copy of each: one allocation fewer per name).
    strings: hashbrown::HashTable<StrId>,
    imports: FxHashMap<(StrId, ImportKind), ImportIdx>,
    scopes: Vec<Scope>,
    /// Enclosing callable definitions: the innermost is the caller of a call site.
    callers: Vec<DefIdx>,
    /// Enclosing definitions of any kind, for qualified names.
    names: Vec<DefIdx>,
    this: Vec<ThisCtx>,
    /// The value of the next function literal's parameter at this index: the element
    /// of the array an iteration method walks (`items.map(item => ...)`).
    pub(crate) param_hint: Option<(usize, SymId)>,
    /// The callee and argument index of the next function literal, when it is an
    /// argument of a call: its parameters are what the callee says it passes.
    pub(crate) callback_of: Option<(SymId, u16)>,
    /// An object literal whose type something states (the node ids of its children,
    /// sorted, and a value of that type): passed as an argument (the callee's stated
    /// parameter type), nested in such an object (that type's member), or an element of
    /// such an array. Its function-valued properties take their parameters from it.
    pub(crate) object_arg: Option<(Vec<usize>, SymId)>,
    /// What the next function literal is, when something states it (a property of
    /// an object passed to a typed parameter): its parameters are that one's.
    pub(crate) function_is: Option<SymId>,
    /// What the next object literal bound to a name is, when a type states it (`const
    /// plugin: Plugin = { Rule(rule) {} }`): its functions take their parameters from
    /// that type's members of their names.
    pub(crate) object_is: Option<SymId>,
    /// A name the next block declares narrowed: `if (x instanceof C) { ... }`.
    narrowed: Option<(StrId, SymId)>,
    /// The expression an enclosing `await` (or `.then`) takes: a call there is awaited.
    pub(crate) awaited: Option<usize>,
    /// The expression an enclosing expression statement holds: a call there is discarded.
    pub(crate) discarded: Option<usize>,
    /// The calls (their node ids) whose results enclosing expressions read members
    /// of, innermost last, the members' names (`load().id`, `const { id } =
    /// load()`) and the line (from 0) a member read by name ends on (0 for a
    /// pattern's): see `shapes`. A stack, so a frame of the recursive walk holds a
    /// flag, not the names.
    pub(crate) result_reads: Vec<(usize, Vec<StrId>, u32)>,
    /// The calls (node ids) whose results enclosing expressions use in a way a promise
    /// cannot be used, innermost last, each with its use (a [`CallShape`] slot: a
    /// stated type, an assignment, an iteration, a condition): see `shapes`.
    pub(crate) typed_uses: Vec<(usize, u8)>,
    /// Per enclosing function: whether it states a return type a promise is not (and
    /// is not async, whose `return` would take a promise as its value).
    pub(crate) plain_returns: Vec<bool>,
    /// Per enclosing function that is neither async nor a generator: the return type
    /// it states (TypeScript), which types the properties of an object it returns.
    pub(crate) return_types: Vec<Option<Node<'s>>>,
    /// The `GlobalComponents` interface this file's Vue registrations declare, once one
    /// does (see `vue_globals`).
    vue_global_components: Option<DefIdx>,
    /// Per enclosing function: the definition its `return` statements describe (None for
    /// anonymous functions and for definitions with a stated return type).
    returns_to: Vec<Option<DefIdx>>,
    /// Per enclosing function: its stated return type, which a function literal it
    /// returns is (`cors = (): MiddlewareHandler => async (c, next) => ...`).
    stated_returns: Vec<Option<SymId>>,
    /// JavaScript only: JSDoc comments state types (see `doc_comments`).
    reads_jsdoc: bool,
    /// TypeScript: what the types stated for names say their values are, by binding
    /// (see `declared_kinds`).
    pub(crate) states_types: bool,
    pub(crate) binding_kinds: FxHashMap<BindingIdx, ValueKinds>,
    /// The same for the instance fields of the file's classes (`#key: Uint8Array`).
    pub(crate) field_kinds: FxHashMap<(DefIdx, StrId), ValueKinds>,
    /// `let` and `var` names declared without a stated type from a call or from
    /// nothing: their type is what the call returns (see `note_type_from_value`); and
    /// names stated `any` or `unknown`. A promise assigned to one later fits.
    pub(crate) typed_by_value: FxHashSet<BindingIdx>,
    /// `let` and `var` names declared with neither a stated type nor a value: `any`
    /// to the compiler inside other functions than their own (see
    /// `CallShape::ANY_RECEIVER`).
    pub(crate) auto_typed: FxHashSet<BindingIdx>,
    /// Names declared with no stated type from a value the compiler types `any`
    /// (`{ x: null } as any`, `Object.create(null)`, `JSON.parse(text)`), whatever the
    /// graph makes of the value (an object, where members are assigned to it).
    pub(crate) any_values: FxHashSet<BindingIdx>,
    /// The same as `typed_by_value` for the instance fields of the file's classes
    /// declared without a stated type from a call (`_debug = makeDebug()`).
    pub(crate) fields_typed_by_value: FxHashSet<(DefIdx, StrId)>,
    /// Bindings and fields stated to be of a type named by another binding (`key:
    /// KeyLike`, with `KeyLike` imported): that binding, for the graph to read.
    pub(crate) binding_types: FxHashMap<BindingIdx, (BindingIdx, Option<StrId>)>,
    pub(crate) field_types: FxHashMap<(DefIdx, StrId), (BindingIdx, Option<StrId>)>,
    /// TypeScript: the interfaces and type aliases without type parameters the file
    /// has declared so far, by their name's binding: what a type naming one admits is
    /// read from it (see `declared_kinds::Declared`).
    pub(crate) local_types: FxHashMap<BindingIdx, Node<'s>>,
    /// Calls passed as arguments whose own call is not yet recorded, innermost last:
    /// the node's id, the outer call (its index in the facts), the argument's place,
    /// and whether the call is the argument, a branch of a conditional that is, or an
    /// element of an array literal that is.
    pub(crate) argument_calls: Vec<(usize, u32, u8, declared_kinds::Passed)>,
    /// Calls that are properties of object literals passed as arguments, whose own
    /// call is not yet recorded: the node's id, the outer call, the argument's place
    /// and the key (see [`PropertyCall`]).
    pub(crate) property_calls: Vec<(usize, u32, u8, StrId, Option<StrId>)>,
    /// Names passed as arguments before anything in scope declared them (call, slot,
    /// the name's reference): a function declared further down is a function there
    /// too (hoisted), known once the walk is done.
    pub(crate) later_named_arguments: Vec<(usize, u8, SymId)>,
    /// The last typed JSDoc comment walked past.
    doc: Option<Node<'s>>,
    /// What the JSDoc of the function being entered states for its parameters, by name.
    doc_params: Vec<doc_comments::DocParam<'s>>,
    /// A seed of the contract the JSDoc of the function being entered states (its
    /// `@param` and `@returns` tags), taken into its signature's hash.
    pub(crate) doc_seed: u64,
    /// Definitions by the node that defines them, so an expression that is a literal
    /// already bound (`var proto = module.exports = function () {}`) denotes it.
    def_of_node: FxHashMap<usize, DefIdx>,
    /// Set while walking the top level of a TypeScript namespace: its declarations are
    /// members of it.
    namespace: Option<DefIdx>,
    /// Set while walking a namespace or an ambient module (`declare module 'x'`): what is
    /// exported there is not an export of this file.
    module_block: bool,
    /// Set while walking an ambient namespace, whose declarations are all exported.
    ambient: bool,
    /// How many members were kept waiting for their owner's declaration (see
    /// `scopes::late_member`): at most `scopes::MAX_LATE_MEMBERS` a file.
    late_members: u32,
    /// How many `declare ...` statements (`ambient_declaration`) enclose the node
    /// walked: only inside one can a declaration belong to the global scope, so only
    /// there is its parent asked for (`Node::parent` walks down from the root).
    in_declare: u32,
    /// How many type queries (`typeof x` in a type) enclose the node walked: an
    /// `import('./x')` there is a type's, which does not make the file a module.
    in_type_query: u32,
    /// Where the decorators a repair wrapped in a call start (see [`repair`]), sorted.
    wrapped_decorators: Vec<usize>,
    /// Generic type aliases numbered so far: the key of the next (see [`Sym::Generic`]).
    generic_aliases: u32,
    /// The key of the generic alias whose type parameters are being declared.
    generic_alias: Option<u32>,
    /// Token ranges of decorators walked before the definition they decorate: the next
    /// function definition takes them into its signature.
    decorators: Vec<(usize, usize)>,
    /// Pool of children buffers, one per recursion level in use (boxed: the walk's
    /// frames stay small, see [`MAX_DEPTH`]).
    #[allow(clippy::vec_box)] // a buffer is moved out of the pool onto the walk's frame
    children: Vec<Box<Children<'s>>>,
    tokens: tokens::TokenHasher,
    /// Subtrees cut at MAX_DEPTH.
    pub(crate) truncated: u32,
    /// Class fields with a stated type (`namingStrategy: NamingStrategy`): the type is
    /// what the field holds, whatever `this.namingStrategy = ...` assigns. With where
    /// the field's name is: a function assigned to it later is declared there.
    pub(crate) typed_fields: FxHashMap<(DefIdx, StrId), Pos>,
    /// What the walk may still spend on this file (see [`budget`]).
    meter: budget::Meter,
    /// The qualified name of the next definition made, when its maker names it (see
    /// `name_next_after_call_of`).
    pub(crate) next_qualified: Option<StrId>,
    /// The stated return types of the overload signatures just walked outside a
    /// declaration file, and their name: what calls of the implementation that
    /// follows return (callers see the overloads, never the implementation's own).
    pub(crate) overload_returns: Option<(StrId, SymId)>,
    /// Bindings a type alias made (`type Option = Item | Heading`): a value declared
    /// under the same name later (`function Option() {}`) is a second meaning.
    pub(crate) type_alias_bindings: FxHashSet<BindingIdx>,
    /// What values of the file's generic type aliases may be, where that does not
    /// depend on their type arguments (see `TypeScope::generic_alias`).
    pub(crate) generic_alias_kinds: FxHashMap<BindingIdx, ValueKinds>,
    /// The objects whose members are this file's `declare global { var x: T }`
    /// variables and its top-level `declare var x: T` ones, made at the first.
    pub(crate) global_objects: [Option<DefIdx>; 2],
    /// Calls whose called name a link site can have (see `crate::indexer::links::extract`),
    /// read once the walk is done.
    pub(crate) link_candidates: Vec<Node<'s>>,
    /// The positions of calls with an argument, or a read of their result, on a line a
    /// `@ts-expect-error` comment governs, in the order found (see
    /// `FileFacts::suppressed_arguments` and `suppressed_reads`).
    suppressed_arguments: Vec<Pos>,
    suppressed_reads: Vec<Pos>,
}

impl<'s> Extractor<'s> {
    fn new(path: &str, language: Language, src: &'s str) -> Self {
        let mut ex = Extractor {
            src,
            declaration_only: is_declaration_file(path),
            facts: FileFacts {
                path: path.to_string(),
                language: Some(language),
                declaration_only: is_declaration_file(path),
                ..FileFacts::default()
            },
            strings: hashbrown::HashTable::new(),
            imports: FxHashMap::default(),
            scopes: Vec::new(),
            callers: Vec::new(),
            names: Vec::new(),
            this: vec![ThisCtx::Unknown],
            namespace: None,
            returns_to: Vec::new(),
            stated_returns: Vec::new(),
            reads_jsdoc: language == Language::JavaScript,
            states_types: matches!(language, Language::TypeScript | Language::Tsx),
            binding_kinds: FxHashMap::default(),
            typed_by_value: FxHashSet::default(),
            auto_typed: FxHashSet::default(),
            any_values: FxHashSet::default(),
            fields_typed_by_value: FxHashSet::default(),
            field_kinds: FxHashMap::default(),
            binding_types: FxHashMap::default(),
            field_types: FxHashMap::default(),
            argument_calls: Vec::new(),
            property_calls: Vec::new(),
            later_named_arguments: Vec::new(),
            local_types: FxHashMap::default(),
            doc: None,
            doc_params: Vec::new(),
            doc_seed: 0,
            param_hint: None,
            callback_of: None,
            narrowed: None,
            vue_global_components: None,
            awaited: None,
            discarded: None,
            result_reads: Vec::new(),
            typed_uses: Vec::new(),
            plain_returns: Vec::new(),
            return_types: Vec::new(),
            object_arg: None,
            function_is: None,
            object_is: None,
            def_of_node: FxHashMap::default(),
            module_block: false,
            ambient: false,
            late_members: 0,
            in_declare: 0,
            in_type_query: 0,
            wrapped_decorators: Vec::new(),
            generic_aliases: 0,
            generic_alias: None,
            decorators: Vec::new(),
            children: Vec::new(),
            tokens: tokens::TokenHasher::reused(),
            truncated: 0,
            typed_fields: Default::default(),
            global_objects: [None, None],
            overload_returns: None,
            type_alias_bindings: FxHashSet::default(),
            generic_alias_kinds: FxHashMap::default(),
            next_qualified: None,
            link_candidates: Vec::new(),
            suppressed_arguments: Vec::new(),
            suppressed_reads: Vec::new(),
            meter: budget::Meter::for_source(src.len()),
        };
        // StrId 0 is the empty string, so "no name" needs no Option.
        ex.intern("");
        ex
    }

    // ---- strings and syms ----

    pub(crate) fn intern(&mut self, s: &str) -> StrId {
        let hash = |s: &str| rustc_hash::FxBuildHasher.hash_one(s);
        let table = &self.facts.strings;
        if let Some(&id) = self.strings.find(hash(s), |&i| table.get(i) == s) {
            return id;
        }
        let id = self.facts.strings.push(s);
        if self.facts.strings.byte_len() > self.meter.max_fact_bytes {
            self.meter.spent = true;
        }
        let table = &self.facts.strings;
        self.strings
            .insert_unique(hash(s), id, |&i| hash(table.get(i)));
        id
    }

    /// `s`'s id when the file has it already (nothing is added).
    pub(crate) fn interned(&self, s: &str) -> Option<StrId> {
        let hash = rustc_hash::FxBuildHasher.hash_one(s);
        let table = &self.facts.strings;
        self.strings.find(hash, |&i| table.get(i) == s).copied()
    }

    pub(crate) fn text(&self, node: Node) -> &'s str {
        &self.src[node.byte_range()]
    }

    /// Where `node` starts, its column counted in UTF-16 code units as editors, the
    /// language server protocol and the TypeScript compiler count it (tree-sitter
    /// counts bytes: the two differ on a line with non-ASCII text before the node).
    pub(crate) fn pos(&self, node: Node) -> Pos {
        let at = node.start_position();
        let start = node.start_byte();
        let prefix = self.src.get(start - at.column..start).unwrap_or_default();
        let column = if prefix.is_ascii() {
            at.column
        } else {
            prefix.encode_utf16().count()
        };
        Pos {
            line: at.row as u32,
            column: column as u32,
        }
    }

    pub(crate) fn intern_node(&mut self, node: Node) -> StrId {
        let text = self.text(node);
        self.intern(text)
    }

    pub(crate) fn sym(&mut self, sym: Sym) -> SymId {
        let id = self.facts.syms.len() as SymId;
        self.facts.syms.push(sym);
        id
    }

    /// Records that `object` has a member `name` holding `value`.
    pub(crate) fn add_prop(&mut self, object: DefIdx, name: StrId, value: SymId) {
        self.facts.props.push(Prop {
            object,
            name,
            value,
        });
    }

    /// `sym` as one more possibility beside `earlier`, if there is one: the several
    /// bases of an interface, a union's parts, what a function returns in each branch.
    pub(crate) fn one_more(&mut self, earlier: Option<SymId>, sym: SymId) -> SymId {
        match earlier {
            Some(e) => self.sym(Sym::Either(e, sym)),
            None => sym,
        }
    }

    pub(crate) fn unknown(&mut self) -> SymId {
        self.sym(Sym::Unknown)
    }

    // ---- the walk ----

    pub(crate) fn current_caller(&self) -> Option<DefIdx> {
        self.callers.last().copied()
    }

    pub(crate) fn current_this(&self) -> ThisCtx {
        *self.this.last().expect("this stack is never empty")
    }

    /// The children of `node`, through a pooled cursor (`Node::walk` allocates one).
    pub(crate) fn kids(&self, node: Node<'s>) -> Kids<'s> {
        self.collect_kids(node, false)
    }

    /// The named children of `node`.
    pub(crate) fn named_kids(&self, node: Node<'s>) -> Kids<'s> {
        self.collect_kids(node, true)
    }

    fn collect_kids(&self, node: Node<'s>, named: bool) -> Kids<'s> {
        children::with_recent(node, |children| {
            // Sized once: a node with thousands of children (a long array, a generated
            // module's top level) would otherwise grow the vector a dozen times.
            let mut out = Kids::with_capacity(children.len());
            if named {
                out.extend(children.named());
            } else {
                out.extend(children.iter());
            }
            out
        })
    }

    /// The children of `node` with the names of the fields they fill.
    pub(crate) fn kids_with_fields(
        &self,
        node: Node<'s>,
    ) -> SmallVec<[(Option<&'static str>, Node<'s>); 4]> {
        let mut out = SmallVec::new();
        self.each_child(node, |child, id| {
            out.push((fields::field_name(&node, id), child));
        });
        out
    }

    /// Calls `f` with each child of `node` in turn, with the field id it fills.
    /// Through the cache of recent children: handlers read the fields of a node whose
    /// children they list.
    fn each_child(&self, node: Node<'s>, mut f: impl FnMut(Node<'s>, u16)) {
        children::with_recent(node, |children| {
            for i in 0..children.len() {
                f(children.node(i), children.field_id(i));
            }
        })
    }

    /// Visits every child of `node`, feeding leaves to the token hasher.
    pub(crate) fn visit_children(&mut self, node: Node<'s>, depth: usize) {
        if depth >= MAX_DEPTH {
            return self.cut(node);
        }
        // Pooled: one buffer per level of the walk in use, and none on its stack.
        let mut children = self.children.pop().unwrap_or_default();
        children::fill_recent(node, &mut children);
        for i in 0..children.len() {
            self.visit(children.node(i), depth + 1);
        }
        self.children.push(children);
    }

    /// A subtree too deep to walk: its tokens still count in the hashes (iteratively), its
    /// calls and declarations are lost.
    #[cold]
    #[inline(never)]
    fn cut(&mut self, node: Node<'s>) {
        self.truncated += 1;
        self.tokens_only(node);
    }

    pub(crate) fn visit_opt(&mut self, node: Option<Node<'s>>, depth: usize) {
        if let Some(node) = node {
            self.visit(node, depth);
        }
    }

    /// Walks `node`'s children in order, handing `special` to `handle` instead.
    pub(crate) fn walk_around(
        &mut self,
        node: Node<'s>,
        special: Node<'s>,
        depth: usize,
        handle: impl FnOnce(&mut Self, Node<'s>),
    ) {
        let children = self.kids(node);
        let mut handle = Some(handle);
        for child in children {
            match (child == special, handle.take()) {
                (true, Some(h)) => h(self, child),
                (_, h) => {
                    handle = h;
                    self.visit(child, depth + 1);
                }
            }
        }
    }

    /// The dispatcher: nodes that carry facts have handlers, the rest are walked through.
    /// Every recursion of the walk passes through here, `visit_children` or (for objects
    /// nested in objects) `bound_value`, which is where depth is bounded. Kept small: its
    /// frame is paid once per tree level.
    pub(crate) fn visit(&mut self, node: Node<'s>, depth: usize) {
        if self.meter.spent {
            return;
        }
        if self.meter.step() {
            self.meter.weigh(self.facts.weight());
        }
        let info = children::Info::of(node);
        if info.is_leaf() {
            // Leaves carry no facts of their own (their parents read them), only tokens;
            // but a JSDoc comment states types for what follows it.
            self.tokens.leaf_with(node, info, self.src);
            if self.reads_jsdoc && self.src.as_bytes().get(info.start_byte as usize) == Some(&b'/')
            {
                self.note_comment(node);
            }
            return;
        }
        if depth >= MAX_DEPTH {
            return self.cut(node);
        }
        match handler(fields::handler_code(&node, info.symbol)) {
            None => self.visit_children(node, depth),
            Some((handle, weight)) => handle(self, node, depth + weight),
        }
    }

    /// `declare ...`: walked as its children are, counted (see `in_declare`).
    fn ambient_declaration(&mut self, node: Node<'s>, depth: usize) {
        self.in_declare += 1;
        self.visit_children(node, depth);
        self.in_declare -= 1;
    }

    /// `typeof x` in a type: walked as its children are, counted (see `in_type_query`).
    fn type_query(&mut self, node: Node<'s>, depth: usize) {
        self.in_type_query += 1;
        self.visit_children(node, depth);
        self.in_type_query -= 1;
    }

    fn block(&mut self, node: Node<'s>, depth: usize) {
        self.push_scope(ScopeKind::Block);
        if let Some((name, value)) = self.narrowed.take() {
            self.declare(name, value, false);
        }
        let mut iterated = false;
        if node.kind_str() == "for_in_statement" {
            self.for_in_bindings(node);
            // `for (const x of f())`: `f`'s result is iterated.
            let mut cursor = node.walk();
            if node.children(&mut cursor).any(|c| c.kind_str() == "of") {
                iterated = node
                    .field(Field::Right)
                    .is_some_and(|r| self.begin_result_use(r, CallShape::ITERATED));
            }
        }
        self.visit_children(node, depth);
        if iterated {
            self.end_typed_use();
        }
        self.pop_scope();
    }

    /// `if (x instanceof C) { ... }`: inside the block, `x` is a `C` (as TypeScript
    /// narrows it), so `x.m()` resolves to `C.m`.
    fn if_statement(&mut self, node: Node<'s>, depth: usize) {
        // `if (f())`: `f`'s result is tested (a promise always passes).
        let tested = node
            .field(Field::Condition)
            .map_or(0, |c| self.begin_tested(c));
        self.if_statement_narrowing(node, depth);
        self.end_typed_uses(tested);
    }

    fn if_statement_narrowing(&mut self, node: Node<'s>, depth: usize) {
        let consequence = node
            .field(Field::Consequence)
            .filter(|c| c.kind_str() == "statement_block");
        let test = node
            .field(Field::Condition)
            .and_then(|c| c.named_child(0))
            .filter(|t| t.kind_str() == "binary_expression")
            .and_then(|t| {
                let (left, op, right) = (
                    t.field(Field::Left)?,
                    t.field(Field::Operator)?,
                    t.field(Field::Right)?,
                );
                (op.kind_str() == "instanceof" && left.kind_str() == "identifier")
                    .then_some((left, right))
            });
        let (Some(block), Some((subject, class))) = (consequence, test) else {
            return self.visit_children(node, depth);
        };
        self.walk_around(node, block, depth, |ex, block| {
            let name = ex.intern_node(subject);
            let class = ex.expr_sym(class);
            let value = ex.sym(Sym::Instance(class));
            ex.narrowed = Some((name, value));
            ex.visit(block, depth + 1);
            ex.narrowed = None;
        });
    }

    fn catch_clause(&mut self, node: Node<'s>, depth: usize) {
        self.push_scope(ScopeKind::Block);
        if let Some(param) = node.field(Field::Parameter) {
            self.declare_pattern(param, None, false);
        }
        self.visit_children(node, depth);
        self.pop_scope();
    }

    fn tokens_of(&mut self, node: Node<'s>, _depth: usize) {
        self.tokens_only(node)
    }

    fn string(&mut self, node: Node<'s>, _depth: usize) {
        self.tokens.string(node, self.src)
    }
}

/// A node handler. Dispatch through a pointer keeps `visit`'s frame small: it is paid
/// once per tree level.
type Handler<'s> = fn(&mut Extractor<'s>, Node<'s>, usize);

/// How many node kinds have a handler: the length of [`Extractor::HANDLERS`].
const HANDLED: usize = 46;

impl<'s> Extractor<'s> {
    /// The node kinds that carry facts (the rest are walked through), each with its handler
    /// and the depth it costs beyond the level itself: depth is counted in units of stack,
    /// and handlers with large frames (functions, classes, calls) cost a few.
    ///
    /// The one list of handled kinds: a kind's handler code (`fields::handler_code`, per
    /// grammar) is its index here + 1, and `visit` dispatches by indexing this table with
    /// it, so no kind can be listed without a handler or handled without being listed.
    const HANDLERS: [(&'static str, Handler<'s>, usize); HANDLED] = [
        // definitions
        ("function_declaration", Self::function_declaration, 3),
        (
            "generator_function_declaration",
            Self::function_declaration,
            3,
        ),
        ("function_signature", Self::function_signature, 3),
        ("class_declaration", Self::class_declaration, 4),
        ("abstract_class_declaration", Self::class_declaration, 4),
        ("interface_declaration", Self::interface_declaration, 3),
        ("function_expression", Self::anonymous_function, 3),
        ("generator_function", Self::anonymous_function, 3),
        ("arrow_function", Self::anonymous_function, 3),
        ("class", Self::anonymous_class, 4),
        ("lexical_declaration", Self::variable_declaration, 3),
        ("variable_declaration", Self::variable_declaration, 3),
        ("assignment_expression", Self::assignment, 4),
        ("internal_module", Self::namespace_declaration, 2),
        ("module", Self::namespace_declaration, 2),
        ("type_alias_declaration", Self::type_alias, 1),
        ("enum_declaration", Self::enum_declaration, 1),
        ("ambient_declaration", Self::ambient_declaration, 0),
        ("type_query", Self::type_query, 0),
        // scopes
        ("statement_block", Self::block, 0),
        ("for_statement", Self::block, 0),
        ("for_in_statement", Self::block, 0),
        ("switch_body", Self::block, 0),
        ("catch_clause", Self::catch_clause, 0),
        ("if_statement", Self::if_statement, 2),
        // calls and uses
        ("call_expression", Self::call_expression, 2),
        ("new_expression", Self::new_expression, 1),
        ("decorator", Self::decorator, 2),
        ("jsx_opening_element", Self::jsx_element, 2),
        ("jsx_self_closing_element", Self::jsx_element, 2),
        ("jsx_closing_element", Self::tokens_of, 0),
        ("jsx_expression", Self::jsx_expression, 0),
        ("pair", Self::pair, 1),
        ("method_definition", Self::object_method, 3),
        ("parenthesized_expression", Self::parenthesized, 1),
        ("await_expression", Self::await_expression, 1),
        ("binary_expression", Self::binary_expression, 0),
        ("ternary_expression", Self::ternary_expression, 0),
        ("expression_statement", Self::expression_statement, 1),
        ("string", Self::string, 0),
        ("member_expression", Self::member_read, 1),
        // modules
        ("import_statement", Self::import_statement, 1),
        ("import_alias", Self::import_alias, 1),
        ("export_statement", Self::export_statement, 3),
        ("return_statement", Self::return_statement, 2),
        ("ERROR", Self::error_node, 1),
    ];
}

/// The kinds of [`Extractor::HANDLERS`], in its order: what `fields` makes each grammar's
/// table of handler codes from.
pub(crate) const HANDLED_KINDS: [&str; HANDLED] = {
    let handlers = Extractor::<'static>::HANDLERS;
    let mut kinds = [""; HANDLED];
    let mut i = 0;
    while i < HANDLED {
        kinds[i] = handlers[i].0;
        i += 1;
    }
    kinds
};

/// The handler of the node kind whose handler code is `code`, and the depth it costs
/// (see [`Extractor::HANDLERS`]); None for code 0, a kind walked through.
fn handler<'s>(code: u8) -> Option<(Handler<'s>, usize)> {
    // Code 0 wraps around to an index past the end: one comparison for both cases.
    let handlers: &[(&str, Handler<'s>, usize); HANDLED] = &Extractor::<'s>::HANDLERS;
    let &(_, handle, weight) = handlers.get(usize::from(code).wrapping_sub(1))?;
    Some((handle, weight))
}

#[cfg(test)]
mod tests;
