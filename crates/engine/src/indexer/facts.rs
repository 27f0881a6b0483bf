//! What one file says about itself: definitions, call sites, imports, exports and the
//! symbolic values that connect them. Facts are computed from a single file without
//! looking at any other (the stack-graphs idea), so a changed file is re-extracted alone
//! and its facts replace the old ones; cross-file resolution happens in `graph`.
//!
//! Every name is an index into the file's own string table, which keeps the facts
//! self-contained (storable per file) and small.

use serde::{Deserialize, Serialize};
use thin_vec::ThinVec;

use super::language::Language;

/// Index into [`FileFacts::strings`].
pub type StrId = u32;
/// Index into [`FileFacts::defs`].
pub type DefIdx = u32;
/// Index into [`FileFacts::syms`].
pub type SymId = u32;
/// Index into [`FileFacts::bindings`].
pub type BindingIdx = u32;
/// Index into [`FileFacts::imports`].
pub type ImportIdx = u32;

/// The property name under which an object literal records what it spreads
/// (`{ ...base }`): its members are the object's too.
pub const SPREAD: &str = "...";

/// The property name under which an interface or object type records its call
/// signatures (`type CreateApi = { (options: Options): Api }`): calling an instance of
/// it is calling one of them.
pub const CALL: &str = "()";

/// The property name under which an interface or object type records its construct
/// signatures (`interface ModelCtor { new (doc?: D): Doc }`): `new` on an instance of it
/// gives what one of them returns.
pub const NEW: &str = "new()";

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    /// Repository-relative path with `/` separators. Not serialised: stored facts are
    /// content-addressed (one blob's facts serve every path that holds it).
    #[serde(skip)]
    pub path: String,
    pub language: Option<Language>,
    /// A `.d.ts` file: declarations only, no call sites.
    pub declaration_only: bool,
    /// A TypeScript file the compiler does not check (`// @ts-nocheck` at its top):
    /// its calls are judged as JavaScript's are.
    pub unchecked: bool,
    /// TypeScript: the lines (from 0, ascending) a `// @ts-expect-error` or `//
    /// @ts-ignore` comment governs, where the compiler reports no error.
    pub suppressed_lines: ThinVec<u32>,
    /// TypeScript: the positions (ascending) of calls with an argument that starts on
    /// a line such a comment governs (a type test's wrong argument on a line of its
    /// own): an error at that argument is not reported.
    pub suppressed_arguments: ThinVec<Pos>,
    /// TypeScript: the positions (ascending) of calls whose result's member is read on
    /// a line such a comment governs (`match(x)`, then `// @ts-expect-error` above
    /// `.with(...)`): an error at the read is not reported.
    pub suppressed_reads: ThinVec<Pos>,
    /// Syntax errors tree-sitter recovered from; facts are what it could still read.
    /// Counted after the repairs in `repaired`.
    pub parse_errors: u32,
    /// Misreadings of the grammar worked around before extraction (sorted, each once):
    /// the file had syntax errors that a correct parser would not have.
    pub repaired: ThinVec<Repair>,
    pub strings: StringTable,
    pub defs: ThinVec<Definition>,
    pub calls: ThinVec<CallSite>,
    pub imports: ThinVec<Import>,
    pub exports: ThinVec<Export>,
    /// `module.exports = <value>`: what `require()` of this file returns.
    pub module_exports: Option<SymId>,
    pub bindings: ThinVec<Binding>,
    /// Object-literal properties whose value is not a function: `{ a, b: require('x') }`.
    pub props: ThinVec<Prop>,
    /// `class C implements I, J`: (C, the type I names), one entry per interface.
    pub implements: ThinVec<(DefIdx, SymId)>,
    /// What functions passed to a definition receive, from its parameters' stated
    /// function types; sorted by (def, arg, param).
    pub callback_params: ThinVec<CallbackParam>,
    /// Definitions' parameters with a stated type, sorted by (def, index): what an
    /// object literal's function-valued property receives when the object is passed
    /// where such a parameter's type says what the property is.
    pub param_types: ThinVec<ParamType>,
    pub syms: SymTable,
    /// Function types and call signatures (`(builder: Builder) => void`), by
    /// [`Sym::Signature`].
    pub signatures: ThinVec<Signature>,
    /// Object types written inline (`opts: { onDone: (r: Result) => void }`), by
    /// [`Sym::Shape`]: each member's name and the value it is stated to be.
    pub shapes: ThinVec<Vec<(StrId, SymId)>>,
    /// The object literals calls pass and the members read from calls' results, sorted
    /// by (call, slot): what a changed contract's keys are checked against.
    pub call_shapes: ThinVec<CallShape>,
    /// The keys of `call_shapes`, each shape's a run of them.
    pub shape_keys: ThinVec<StrId>,
    /// TypeScript: calls passed as arguments of other calls (`digest(concat(a, b))`),
    /// sorted by (outer call, slot): what the inner call's callee returns is the
    /// argument's kind of value; what the outer callee's parameter accepts is where a
    /// now-async result goes.
    pub argument_calls: ThinVec<ArgumentCall>,
    /// TypeScript: calls whose result is a property of an object literal passed as an
    /// argument (`persist(init, { storage: createStorage() })`), sorted by inner call:
    /// the outer callee's parameter type says what the property must be.
    pub property_calls: ThinVec<PropertyCall>,
    /// TypeScript: what definitions' parameters accept and their results are, by their
    /// stated types, where those say (see [`DefKinds`]).
    pub def_kinds: ThinVec<DefKinds>,
    /// TypeScript: arguments that are names (or `this` fields) stated to be of a type
    /// named elsewhere (`key: KeyLike`), sorted by (call, slot): the graph reads what
    /// that type's definition admits (see [`DefKinds`]).
    pub named_arguments: ThinVec<NamedArgument>,
    /// TypeScript: arguments that are names of no stated type, sorted by (call, slot)
    /// (see [`ArgumentName`]).
    pub argument_names: ThinVec<ArgumentName>,
    /// TypeScript: parameters stated to be of a type named elsewhere (`options:
    /// Options`, imported), sorted by (def, slot): what a call's result passed to
    /// them must fit is read where the name leads (see [`NamedParam`]).
    pub named_params: ThinVec<NamedParam>,
    /// TypeScript: the members interfaces (and object type aliases) state, by
    /// definition in the order written (see [`TypeMember`]): the keys an object of
    /// such a type passed from another file must hold.
    pub type_members: ThinVec<TypeMember>,
    /// TypeScript: what values of the module's type aliases may be, sorted by binding
    /// (see [`AliasKinds`]).
    pub alias_kinds: ThinVec<AliasKinds>,
    /// HTTP routes, HTTP clients, queue producers and consumers, and mounts (issue 47),
    /// sorted by position. Their strings are their own (a file has few): the graph's
    /// string mapping leaves them alone.
    pub links: ThinVec<crate::indexer::links::LinkSite>,
    /// An import outside any `declare module 'x' { }` block (a type's `import('./x')`
    /// aside): with an export, what makes the file a module, not a script. Imports
    /// inside such a block are the declared module's (mongoose's `declare module
    /// 'mongoose' { import events = require('events') }` in a script of declarations).
    pub top_level_import: bool,
}

/// What a call's argument or result is seen as: an object literal passed with its keys
/// (`pay({ amount, currency })`), another argument whose kind of value its syntax says
/// (`pad("x", 2)`: a string, a number), or the members read from what it returns
/// (`load().id`, `const { id, name } = await load()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallShape {
    /// The call's index in [`FileFacts::calls`].
    pub call: u32,
    /// The argument (from 0) this is, or [`CallShape::RESULT`].
    pub slot: u8,
    /// What the argument may be ([`ValueKinds::ANY`] for a result's shape).
    pub kinds: ValueKinds,
    /// How many keys (at most [`CallShape::MAX_KEYS`]), and in the top bit whether
    /// they are not all there are (see [`CallShape::open`]): one byte, so a shape
    /// stays 12.
    len_open: u8,
    start: u32,
}

/// `outer(..., inner(...), ...)`: call `inner` (an index in [`FileFacts::calls`]) is
/// argument `slot` (from 0) of call `outer`; with `branch`, one branch of a
/// conditional that is (`outer(c ? inner() : other)`): its result is passed there, but
/// the argument may be something else; with `element`, an element of an array literal
/// that is (`outer([inner()])`); with `returned`, what the arrow function that is the
/// argument returns (`outer(() => inner())`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgumentCall {
    pub outer: u32,
    pub inner: u32,
    pub slot: u8,
    pub branch: bool,
    pub element: bool,
    pub returned: bool,
}

/// `outer(..., { key: inner(...) }, ...)`: call `inner`'s result is property `key` of
/// the object literal passed as argument `slot` (from 0) of call `outer` (indices in
/// [`FileFacts::calls`]); with `nested`, it is that property of the object literal
/// that is property `key` (`outer({ key: { nested: inner() } })`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PropertyCall {
    pub outer: u32,
    pub inner: u32,
    pub key: StrId,
    pub nested: Option<StrId>,
    pub slot: u8,
}

impl PropertyCall {
    /// Properties noted per object literal: past them, not read.
    pub const MAX_PER_OBJECT: usize = 8;
}

/// Argument `slot` of call `call` holds a value stated to be of the type whose name is
/// bound by binding `ty` (an import, an interface or a class of the file), or with
/// `member`, of that member of the namespace `ty` binds (`types.JWK`, after `import
/// type * as types from './types'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedArgument {
    pub call: u32,
    pub ty: BindingIdx,
    pub slot: u8,
    pub member: Option<StrId>,
}

/// Argument `slot` of call `call` is the name bound by `binding`, of no type stated
/// here (a callback's parameter, `const c = new Client()`, `const r = load()`): what
/// the graph evaluates the name to says what kind of value it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgumentName {
    pub call: u32,
    pub slot: u8,
    pub binding: BindingIdx,
}

/// Parameter `slot` (from 0) of definition `def` is stated to be of the type whose
/// name binding `ty` binds, or with `member`, of that member of the namespace `ty`
/// binds: as [`NamedArgument`], for a parameter whose own kinds are not known here.
/// `also`: what the other members of a union it is part of accept (`string |
/// Handler`). A slot of [`DefKinds::REST`] and more is a rest parameter's element
/// type (`...handlers: Handler[]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedParam {
    pub def: DefIdx,
    pub ty: BindingIdx,
    pub slot: u8,
    pub member: Option<StrId>,
    pub also: ValueKinds,
}

/// A type alias declared at a module's top level (`type Handler<E> = (c: Context<E>)
/// => Response`), other than an object type (an interface by another name), and what
/// a value of it may be, where its stated type says (generic or not: a type
/// parameter where it decides the kinds makes them unknown): what a parameter of
/// another file stated by the alias's name accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AliasKinds {
    pub binding: BindingIdx,
    pub kinds: ValueKinds,
}

/// Member `name` of the interface (or object type alias) `def`: whether an object of
/// the type must hold it (no `?`), and what a value of its stated type may be (ANY
/// where that is not known; a method's is a function).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeMember {
    pub def: DefIdx,
    pub name: StrId,
    pub required: bool,
    pub kinds: ValueKinds,
}

impl TypeMember {
    /// Members kept per type: past them, the keys are not all known.
    pub const MAX_PER_TYPE: usize = 64;
}

/// What parameter `slot` (from 0) of definition `def` accepts by its stated type
/// (`digest(data: Uint8Array)`), or with [`DefKinds::RESULT`] what calling it gives
/// (`encode(): Uint8Array`); only kinds narrower than anything are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefKinds {
    pub def: DefIdx,
    pub slot: u8,
    pub kinds: ValueKinds,
}

impl DefKinds {
    /// The slot of the definition's result.
    pub const RESULT: u8 = u8::MAX;
    /// Parameters from this place on are not kept.
    pub const MAX_PARAMS: u16 = 64;
    /// A rest parameter at place `i` is kept again at `REST + i`: what every argument
    /// from `i` on lands on.
    pub const REST: u8 = 128;
    /// A parameter at place `i` stated as an array (`items: Item[]`) is kept again at
    /// `ELEMENT + i` (below [`Self::MAX_ELEMENT`]): what each element of an array
    /// literal passed there must be.
    pub const ELEMENT: u8 = 192;
    /// Places of parameters whose elements are kept.
    pub const MAX_ELEMENT: u8 = 63;
    /// What awaiting the definition's result gives, where it states a promise
    /// (`Promise<CryptoKey | Uint8Array>`): the slot past the parameters kept.
    pub const AWAITED: u8 = 64;
}

/// The kinds of value something may be, as a set: an argument's, from its syntax (`"a"`
/// is a string, `a < b` a boolean), or those a parameter's stated type accepts
/// (`string | number`). Two sets that do not meet are a value the compiler rejects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ValueKinds(pub u16);

impl ValueKinds {
    /// A string of type `string` (`'a' + x`, a template with substitutions, a name
    /// stated to be a `string`): no parameter that takes only some strings takes it.
    pub const STRING: ValueKinds = ValueKinds(1);
    pub const NUMBER: ValueKinds = ValueKinds(2);
    pub const BOOLEAN: ValueKinds = ValueKinds(4);
    pub const BIGINT: ValueKinds = ValueKinds(8);
    /// An object literal; also, where the graph finds one (see
    /// `Graph::binding_value_kinds`), an instance of a class that extends nothing: an
    /// object that is no function, array or global's instance.
    pub const OBJECT: ValueKinds = ValueKinds(16);
    /// An array literal.
    pub const ARRAY: ValueKinds = ValueKinds(32);
    /// A function (or class) written in place.
    pub const FUNCTION: ValueKinds = ValueKinds(64);
    /// Any other object: `new X()`, a regular expression.
    pub const INSTANCE: ValueKinds = ValueKinds(128);
    /// A string of a literal type (`'bold'`, a `const` holding one, a name stated to be
    /// `'a' | 'b'`): what a parameter taking only some strings may take.
    pub const LITERAL_STRING: ValueKinds = ValueKinds(256);
    /// Every string: what a parameter stated as `string` takes.
    pub const STRINGS: ValueKinds = ValueKinds(1 | 256);
    /// An instance of a well-known global class whose members are known (`new
    /// Uint8Array(32)`, a name stated to be a `URL`): an object type that names none of
    /// their members does not take one (TS2345, or TS2559 for a weak type).
    pub const BUILTIN: ValueKinds = ValueKinds(512);
    /// A promise (what an async function's call gives): it has `then`, `catch` and
    /// `finally` and nothing else, so only a type that takes promises or names one of
    /// those takes it.
    pub const PROMISE: ValueKinds = ValueKinds(1024);
    /// `undefined` (or `void 0`) written as an argument; and, in a parameter's
    /// contract, that its stated type admits it (see `type_kinds::nullish`).
    pub const UNDEFINED: ValueKinds = ValueKinds(2048);
    /// `null` written as an argument, or admitted by a stated type.
    pub const NULL: ValueKinds = ValueKinds(4096);
    /// What every type admits where the checker's strict null checks are off.
    pub const NULLISH: ValueKinds = ValueKinds(2048 | 4096);
    pub const NONE: ValueKinds = ValueKinds(0);
    pub const ANY: ValueKinds = ValueKinds(u16::MAX);
    /// What a value of a type that is an object (not a primitive) may be.
    pub const OBJECTS: ValueKinds = ValueKinds(16 | 32 | 64 | 128 | 512 | 1024);
    /// What a parameter stated as a function type or a type with a call signature
    /// takes: a function (or an instance of a class that may extend `Function`).
    pub const CALLABLE: ValueKinds = ValueKinds(64 | 128 | 512);
    /// What a parameter stated as a well-known global class (`Uint8Array`) takes: an
    /// object of its shape, which a promise is not.
    pub const GLOBAL: ValueKinds = ValueKinds(16 | 128 | 512);

    pub fn meets(self, other: ValueKinds) -> bool {
        self.0 & other.0 != 0
    }

    pub fn is_any(self) -> bool {
        self == Self::ANY
    }

    /// Whether every kind here is one of `other`'s (a value of these kinds fits where
    /// `other` is accepted).
    pub fn within(self, other: ValueKinds) -> bool {
        self.0 & !other.0 == 0
    }

    /// The type the compiler gives a mutable name initialised with a value of these
    /// kinds (`let mode = 'a'` is a `string`).
    pub fn widened(self) -> ValueKinds {
        if self.meets(Self::LITERAL_STRING) && !self.is_any() {
            ValueKinds((self.0 & !Self::LITERAL_STRING.0) | Self::STRING.0)
        } else {
            self
        }
    }

    /// What a value of a type that accepts these kinds may be: a name stated to be a
    /// `string` holds a `string`, which a union of literals does not take.
    pub fn held(self) -> ValueKinds {
        if self.meets(Self::STRING) && !self.is_any() {
            ValueKinds(self.0 & !Self::LITERAL_STRING.0)
        } else {
            self
        }
    }

    /// What one value of these kinds is called, in a reason: the kind's name, either of
    /// two, "an object" for objects of any sort, "a value" for more.
    pub fn describe(self) -> String {
        let mut names: Vec<&str> = Vec::new();
        for bit in (0..16).filter(|bit| self.0 & (1 << bit) != 0) {
            let name = Self::name_of(bit);
            if !names.contains(&name) {
                names.push(name);
            }
        }
        match names.as_slice() {
            _ if self.is_any() => "a value".to_string(),
            [one] => (*one).to_string(),
            // `Uint8Array`: an object, which only an object literal of its shape fits.
            _ if self.within(Self::OBJECTS) && self.meets(Self::INSTANCE | Self::BUILTIN) => {
                "an object".to_string()
            }
            [a, b] => format!("{a} or {b}"),
            _ => "a value".to_string(),
        }
    }

    fn name_of(bit: u32) -> &'static str {
        const NAMES: [&str; 13] = [
            "a string",
            "a number",
            "a boolean",
            "a bigint",
            // An object literal, or an instance of a class that extends nothing (see
            // `Graph::binding_value_kinds`).
            "an object",
            "an array",
            "a function",
            "an object",
            "a string",
            "an object",
            "a promise",
            "undefined",
            "null",
        ];
        NAMES.get(bit as usize).copied().unwrap_or("a value")
    }
}

impl std::ops::BitAnd for ValueKinds {
    type Output = ValueKinds;
    fn bitand(self, other: ValueKinds) -> ValueKinds {
        ValueKinds(self.0 & other.0)
    }
}

impl std::ops::BitOr for ValueKinds {
    type Output = ValueKinds;
    fn bitor(self, other: ValueKinds) -> ValueKinds {
        ValueKinds(self.0 | other.0)
    }
}

impl CallShape {
    /// The slot of the members read from the call's result.
    pub const RESULT: u8 = u8::MAX;
    /// The slot that says the call's result goes where a type is stated (`return f()`
    /// in a function stated to return a `T`, `const x: T = f()`); no keys.
    pub const TYPED_USE: u8 = u8::MAX - 1;
    /// The result is assigned to a variable or a property (`parsed.search = f()`).
    pub const ASSIGNED: u8 = u8::MAX - 2;
    /// The result is iterated (`for (const x of f())`, `[a, b] = f()`, `g(...f())`).
    pub const ITERATED: u8 = u8::MAX - 3;
    /// The result is tested as a condition (`if (f())`, `if (ok && f())`).
    pub const TESTED: u8 = u8::MAX - 4;
    /// The result is called (`getFetch()(url)`).
    pub const CALLED: u8 = u8::MAX - 5;
    /// The result is an operand of an arithmetic operator, or compared with a
    /// primitive (`f() > 0`, `f() === "ok"`).
    pub const OPERAND: u8 = u8::MAX - 6;
    /// The call's callee is, or is a member of, a value the compiler reads as `any`
    /// there: a `let` declared with neither a type nor a value, read inside another
    /// function than its own (`let store; beforeEach(() => { store = new Store() })`,
    /// then `store.resolve(...)` in a test), or a cast to `any` (`(group as
    /// any).run()`). Nothing about the call is checked.
    pub const ANY_RECEIVER: u8 = u8::MAX - 7;
    /// The first slot that is no argument's: arguments from it on are not recorded.
    pub const FIRST_USE: u8 = Self::ANY_RECEIVER;
    /// Keys kept per shape; a literal with more is open.
    pub const MAX_KEYS: usize = 32;

    const OPEN: u8 = 0x80;

    /// The keys listed are not all the literal has (a spread, a computed key, more than
    /// [`CallShape::MAX_KEYS`]): none can be said to be missing.
    pub fn open(&self) -> bool {
        self.len_open & Self::OPEN != 0
    }

    fn len(&self) -> usize {
        usize::from(self.len_open & !Self::OPEN)
    }
}

/// A stated function type: what a function of that type receives and returns. A
/// parameter without a type (or with one that names nothing) is `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    pub params: ThinVec<Option<SymId>>,
    pub returns: Option<SymId>,
    /// The last parameter is a rest parameter (`...handlers: H[]`): its entry is the
    /// element's value, and it stands for every argument from its index on.
    pub rest: bool,
}

/// Parameter `index` of `def` is stated to be `value` (an instance of its type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamType {
    pub def: DefIdx,
    pub index: u16,
    pub value: SymId,
    /// A rest parameter (`...items: Item[]`): `value` is one element's, and it stands
    /// for every argument from `index` on.
    pub rest: bool,
}

/// `createReducer(state, cb: (builder: Builder) => void)`: parameter `param` of the
/// function passed as argument `arg` of `def` is `value` (an instance of `Builder`), so
/// `createReducer(s, (b) => b.addCase())` resolves `addCase` as TypeScript does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallbackParam {
    pub def: DefIdx,
    pub arg: u16,
    pub param: u16,
    pub value: SymId,
    /// Argument `arg` is a rest parameter (`...handlers: Handler[]`): this holds for
    /// every argument from `arg` on.
    pub rest: bool,
}

/// Bytes of a `ThinVec`'s heap block: a header of two `usize` and the elements, none
/// for an empty one.
pub fn thin_heap_bytes<T>(v: &ThinVec<T>) -> usize {
    match v.capacity() {
        0 => 0,
        n => 2 * std::mem::size_of::<usize>() + n * std::mem::size_of::<T>(),
    }
}

/// A file's strings in one buffer: 4 bytes of bookkeeping per string instead of a
/// pointer, a length and an allocation each. The two lists are thin (a pointer each):
/// the facts a graph holds keep an empty table (see [`FileFacts::map_strings`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "StoredStrings", into = "StoredStrings")]
pub struct StringTable {
    /// The strings, one after another: UTF-8, as only `&str`s are pushed.
    buf: ThinVec<u8>,
    /// End offset of each string in `buf`.
    ends: ThinVec<u32>,
}

/// A [`StringTable`] as stored: the buffer as a string, so that reading one back checks
/// that it is UTF-8.
#[derive(Serialize, Deserialize)]
struct StoredStrings {
    buf: String,
    ends: Vec<u32>,
}

impl From<StringTable> for StoredStrings {
    fn from(t: StringTable) -> StoredStrings {
        StoredStrings {
            // SAFETY: the table's buffer is UTF-8 (see `StringTable::buf`).
            buf: unsafe { String::from_utf8_unchecked(t.buf.into_iter().collect()) },
            ends: t.ends.into_iter().collect(),
        }
    }
}

impl TryFrom<StoredStrings> for StringTable {
    type Error = String;

    /// A table whose every string is whole UTF-8, or an error (stored bytes can be
    /// corrupt).
    fn try_from(s: StoredStrings) -> Result<StringTable, String> {
        let mut start = 0;
        for &end in &s.ends {
            let end = end as usize;
            if end < start || end > s.buf.len() || !s.buf.is_char_boundary(end) {
                return Err(format!("a string table's end {end} is not a string's end"));
            }
            start = end;
        }
        Ok(StringTable {
            buf: s.buf.into_bytes().into(),
            ends: s.ends.into(),
        })
    }
}

impl StringTable {
    /// Appends a string; returns its id.
    pub fn push(&mut self, s: &str) -> StrId {
        self.buf.extend_from_slice(s.as_bytes());
        // Extraction's budget keeps a file's strings far below 4 GiB (see
        // `extract::budget`): an end that does not fit is a bug, not a wrap.
        let end = u32::try_from(self.buf.len()).expect("a string table under 4 GiB");
        self.ends.push(end);
        (self.ends.len() - 1) as StrId
    }

    /// Bytes of all the strings together.
    pub fn byte_len(&self) -> usize {
        self.buf.len()
    }

    pub fn get(&self, id: StrId) -> &str {
        let i = id as usize;
        assert!(
            i < self.ends.len(),
            "string {id} of a table of {}: a graph's facts read their strings through `Graph::facts`",
            self.ends.len()
        );
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        let bytes = &self.buf[start..self.ends[i] as usize];
        // SAFETY: `buf` holds whole `&str`s one after another (`push`), and `start` and
        // the end are where one began and one ended.
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len() as StrId).map(|i| self.get(i))
    }

    pub fn heap_bytes(&self) -> usize {
        thin_heap_bytes(&self.buf) + thin_heap_bytes(&self.ends)
    }

    pub fn shrink_to_fit(&mut self) {
        self.buf.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

/// A syntax the TypeScript grammar misreads and the indexer repairs (a closed set: each
/// is recognised in the source text, see `extract::repair`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Repair {
    /// A generic call signature on a line of its own after another member of an
    /// interface or object type (`<P extends string>(path: P): R`).
    GenericCallSignature,
    /// `export type * from './x'` and `export type * as ns from './x'` (TypeScript 5.0).
    ExportTypeStar,
    /// An auto-accessor after another modifier: `static accessor count = 0` (TypeScript
    /// 4.9; the grammar takes `accessor` alone only).
    ModifiedAccessor,
    /// Type arguments after an import type: `import('./types.js').FPFn2<Date, D>`
    /// (TypeScript 2.9; what declaration emit writes, as in date-fns' `fp/*.d.ts`).
    ImportTypeArguments,
    /// A decorator that calls a member of what a call returns: `@Returns(200,
    /// String).Description("ok")` (TypeScript reads any call chain after `@`; the
    /// grammar only names, members and one call).
    ChainedDecorator,
}

impl Repair {
    pub const ALL: [Repair; 5] = [
        Repair::GenericCallSignature,
        Repair::ExportTypeStar,
        Repair::ModifiedAccessor,
        Repair::ImportTypeArguments,
        Repair::ChainedDecorator,
    ];

    /// What a person reads in a summary.
    pub fn describe(self) -> &'static str {
        match self {
            Repair::GenericCallSignature => "generic call signature on its own line",
            Repair::ExportTypeStar => "export type * (TS 5.0)",
            Repair::ModifiedAccessor => "static/override accessor (TS 4.9)",
            Repair::ImportTypeArguments => "import('./x').T<A> type arguments",
            Repair::ChainedDecorator => "@a().b() chained decorator",
        }
    }

    /// A stable identifier for machine-readable output.
    pub fn as_str(self) -> &'static str {
        match self {
            Repair::GenericCallSignature => "generic_call_signature",
            Repair::ExportTypeStar => "export_type_star",
            Repair::ModifiedAccessor => "modified_accessor",
            Repair::ImportTypeArguments => "import_type_arguments",
            Repair::ChainedDecorator => "chained_decorator",
        }
    }
}

/// Where a definition is seen from beyond the scopes that hold it (one byte: a
/// definition's two cases never meet).
/// The member of a `declare module 'x'` object that holds its `export = X`: what
/// requiring x (or importing its default or namespace) gives.
pub const EXPORT_ASSIGNED: &str = "export =";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reach {
    /// Through its scopes, exports and containers only.
    Scoped,
    /// Assigned, at the top level, to a property of a value that is no definition of
    /// this file (`res.send = function () {}` with `res = Object.create(...)`,
    /// `Router.prototype.x = ...` with `Router` imported): a member, though of nothing
    /// the graph knows, so a method call on a receiver of unknown type may be it.
    LooseMember,
    /// Of the global scope, written in a module: an interface of a `declare global`
    /// block (it merges with the global one of that name), or the object whose
    /// members are the block's variables.
    Global,
    /// The object whose members are a file's top-level `declare var x: T` variables:
    /// of the global scope when the file is a script, not a module.
    ScriptGlobal,
    /// The object whose members are the declarations of a `declare module 'x' { ... }`
    /// block, named by its specifier: what importing `x` gives, whatever file declares it.
    AmbientModule,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DefKind {
    Function,
    Method,
    Getter,
    Setter,
    Constructor,
    Class,
    /// An interface or a `declare`d shape: member lookups land on its method signatures.
    Interface,
    /// An object literal bound to a name; its function-valued properties are its members.
    Object,
    /// A component file (`.vue`, `.svelte`, `.astro`) as a whole: its default export,
    /// named after the file; the module-level code of its scripts is its body.
    Component,
    /// An Angular component's template file (its `templateUrl`) as a whole, named after
    /// the file: its bindings are its body, and the component class refers to it.
    Template,
}

impl DefKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DefKind::Function => "function",
            DefKind::Method => "method",
            DefKind::Getter => "getter",
            DefKind::Setter => "setter",
            DefKind::Constructor => "constructor",
            DefKind::Class => "class",
            DefKind::Interface => "interface",
            DefKind::Object => "object",
            DefKind::Component => "component",
            DefKind::Template => "template",
        }
    }

    /// Kinds whose code runs when called: these are the functions a change is about.
    pub fn is_callable(self) -> bool {
        !matches!(self, DefKind::Object | DefKind::Interface)
    }
}

/// A zero-based position: row, and column in UTF-16 code units (as editors count).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start_byte: u32,
    pub end_byte: u32,
    /// Zero-based, inclusive.
    pub start_line: u32,
    /// Zero-based, inclusive.
    pub end_line: u32,
}

/// An optional index in four bytes where `Option<u32>` takes eight: a graph holds a
/// definition for every function of a repository. `u32::MAX` is none; no index reaches
/// it (see [`inline_sym`]).
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OptIdx(u32);

impl OptIdx {
    pub const NONE: OptIdx = OptIdx(u32::MAX);

    #[inline]
    pub fn get(self) -> Option<u32> {
        (self.0 != u32::MAX).then_some(self.0)
    }
}

impl From<Option<u32>> for OptIdx {
    #[inline]
    fn from(v: Option<u32>) -> OptIdx {
        match v {
            Some(i) => {
                assert_ne!(i, u32::MAX, "an index of u32::MAX");
                OptIdx(i)
            }
            None => OptIdx::NONE,
        }
    }
}

impl std::fmt::Debug for OptIdx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    pub name: StrId,
    /// `UserService.getUser`, `api.fetchUser`, `outer.inner`.
    pub qualified: StrId,
    pub kind: DefKind,
    /// Where it is seen from beyond the scopes that hold it.
    pub reach: Reach,
    pub is_static: bool,
    pub exported: bool,
    /// See [`Definition::container`].
    container: OptIdx,
    pub span: Span,
    pub name_pos: Pos,
    /// Hash of name-independent signature tokens (parameters, return type, modifiers),
    /// ignoring comments and formatting.
    pub signature_hash: u64,
    /// Hash of the body tokens, ignoring comments and formatting.
    pub body_hash: u64,
    /// See [`Definition::extends`].
    extends: OptIdx,
    /// See [`Definition::returns`].
    returns: OptIdx,
}

// Graphs hold a definition per function of a repository, a call site per call: keep
// them this small.
const _: () = assert!(std::mem::size_of::<Definition>() == 64);
const _: () = assert!(std::mem::size_of::<CallSite>() == 20);

impl Definition {
    /// A definition at `span`, its name at `name_pos`; the rest unset.
    pub fn new(
        name: StrId,
        qualified: StrId,
        kind: DefKind,
        container: Option<DefIdx>,
        span: Span,
        name_pos: Pos,
    ) -> Definition {
        Definition {
            name,
            qualified,
            kind,
            reach: Reach::Scoped,
            is_static: false,
            exported: false,
            container: container.into(),
            span,
            name_pos,
            signature_hash: 0,
            body_hash: 0,
            extends: OptIdx::NONE,
            returns: OptIdx::NONE,
        }
    }

    /// The class or object this is a member of (methods, properties, `X.prototype.m`,
    /// `X.m = function`). Nested functions have none: they are not reachable as members.
    #[inline]
    pub fn container(&self) -> Option<DefIdx> {
        self.container.get()
    }

    pub fn set_container(&mut self, c: Option<DefIdx>) {
        self.container = c.into();
    }

    /// Classes: the `extends` expression.
    #[inline]
    pub fn extends(&self) -> Option<SymId> {
        self.extends.get()
    }

    pub fn set_extends(&mut self, e: Option<SymId>) {
        self.extends = e.into();
    }

    /// Functions: the stated return type, as an instance of that type (or, without
    /// one, what the function returns).
    #[inline]
    pub fn returns(&self) -> Option<SymId> {
        self.returns.get()
    }

    pub fn set_returns(&mut self, r: Option<SymId>) {
        self.returns = r.into();
    }

    /// The first line of the definition with its name (zero-based): a function bound to
    /// a name can start below it (`export const Link = forwardRef(\n function () {..})`),
    /// and editors and the TypeScript checker place it where the name is. The span stays
    /// the function's own: the wrapper call between the two runs outside it.
    pub fn first_line(&self) -> u32 {
        self.span.start_line.min(self.name_pos.line)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CallKind {
    Call,
    New,
    Jsx,
    /// A function passed or stored by name (`items.map(normalize)`, `component={Page}`).
    Reference,
    Decorator,
    /// A property read (`cart.total`): a call only when it resolves to a getter.
    Get,
}

impl CallKind {
    /// The kind as the graph output names it; a getter read is a call.
    pub fn as_str(self) -> &'static str {
        match self {
            CallKind::Call | CallKind::Get => "call",
            CallKind::New => "new",
            CallKind::Jsx => "jsx",
            CallKind::Reference => "reference",
            CallKind::Decorator => "decorator",
        }
    }
}

/// One call site. Graphs hold millions: it is packed into 20 bytes (the caller as an
/// index plus one, the column in 16 bits: longer lines are minified and skipped).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallSite {
    /// The innermost enclosing definition + 1; 0 for top-level code (see `caller`).
    caller: u32,
    /// What is called, as a symbolic value.
    pub callee: SymId,
    /// The called name (last segment): what a name-only match uses.
    pub name: StrId,
    line: u32,
    column: u16,
    pub kind: CallKind,
    /// What the call passes and how its result is taken, packed (see [`CallArgs`]).
    args: u8,
}

/// How a call passes its arguments and takes its result: what a contract change is
/// checked against (`charge(a, b)` after `charge` gained a required third parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallArgs {
    /// How many arguments are written, up to [`CallArgs::MAX_COUNT`] (which means "at
    /// least that many").
    pub count: u8,
    /// One of them is a spread (`f(...args)`): the count says nothing.
    pub spread: bool,
    /// The result is awaited (`await f()`) or chained (`f().then(...)`).
    pub awaited: bool,
    /// The call is a statement of its own (`save(x);`): its result goes unused.
    pub discarded: bool,
}

impl CallArgs {
    pub const MAX_COUNT: u8 = 15;
    const KNOWN: u8 = 0x80;
    const SPREAD: u8 = 0x40;
    const AWAITED: u8 = 0x20;
    const DISCARDED: u8 = 0x10;

    fn pack(self) -> u8 {
        Self::KNOWN
            | self.count.min(Self::MAX_COUNT)
            | if self.spread { Self::SPREAD } else { 0 }
            | if self.awaited { Self::AWAITED } else { 0 }
            | if self.discarded { Self::DISCARDED } else { 0 }
    }

    fn unpack(b: u8) -> Option<CallArgs> {
        (b & Self::KNOWN != 0).then_some(CallArgs {
            count: b & 0x0f,
            spread: b & Self::SPREAD != 0,
            awaited: b & Self::AWAITED != 0,
            discarded: b & Self::DISCARDED != 0,
        })
    }
}

impl CallSite {
    pub fn new(
        caller: Option<DefIdx>,
        kind: CallKind,
        callee: SymId,
        name: StrId,
        pos: Pos,
    ) -> CallSite {
        CallSite {
            caller: caller.map_or(0, |c| c + 1),
            callee,
            name,
            line: pos.line,
            column: u16::try_from(pos.column).unwrap_or(u16::MAX),
            kind,
            args: 0,
        }
    }

    /// The call's arguments, as written (calls and `new` only; None for the rest).
    pub fn args(&self) -> Option<CallArgs> {
        CallArgs::unpack(self.args)
    }

    pub fn set_args(&mut self, args: CallArgs) {
        self.args = args.pack();
    }

    /// The innermost enclosing definition; None for top-level code (the module node).
    pub fn caller(&self) -> Option<DefIdx> {
        self.caller.checked_sub(1)
    }

    /// Gives a top-level call site to `def` (a component, whose body is the module).
    pub fn adopt(&mut self, def: DefIdx) {
        if self.caller == 0 {
            self.caller = def + 1;
        }
    }

    pub fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: u32::from(self.column),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ImportKind {
    /// `import { x } from` / `import { x as y } from`: the exported name.
    Named(StrId),
    /// `import x from`
    Default,
    /// `import * as ns from`, `import('x')`: the module namespace.
    Namespace,
    /// `require('x')`, `import x = require('x')`: whatever `module.exports` is.
    Require,
    /// `typeof import('x')` in a type: the module namespace, as `Namespace`; a file
    /// whose only imports are these is still a script (TypeScript's rule), whose
    /// top-level declarations are global. Last, so stored facts keep their encoding.
    TypeNamespace,
    /// `@Component({ templateUrl: './x.html' })` on the class of this index: the
    /// template file's definition (its default export), which the class refers to; the
    /// template's bindings are the class's (see [`Sym::Host`]).
    Template(DefIdx),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    pub specifier: StrId,
    pub kind: ImportKind,
    pub line: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExportValue {
    /// `export function f`, `export { a as b }`, `exports.x = ...`, `export default expr`.
    Local(SymId),
    /// `export { x as y } from 'm'` (Named), `export * as ns from 'm'` (Namespace),
    /// `export { default } from 'm'` (Default).
    From { specifier: StrId, kind: ImportKind },
    /// `export * from 'm'`: every name of `m` except `default`.
    Star { specifier: StrId },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Export {
    /// The exported name; `default` for default exports; unused (0) for `Star`.
    pub name: StrId,
    pub value: ExportValue,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    pub name: StrId,
    pub value: SymId,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prop {
    pub object: DefIdx,
    pub name: StrId,
    pub value: SymId,
}

const TAG_MASK: u32 = 0b11 << 30;
const TAG_GLOBAL: u32 = 0b01 << 30;
const TAG_BINDING: u32 = 0b10 << 30;
const TAG_DEF: u32 = 0b11 << 30;
const INDEX_MASK: u32 = !TAG_MASK;
/// `Sym::Unknown` written into an id: the one payload no string id reaches.
const UNKNOWN: u32 = TAG_GLOBAL | INDEX_MASK;

/// The id that denotes `sym` without an entry in `syms`, when there is one: a binding,
/// a definition, a global name or the unknown value. Saves 12 bytes for most values of
/// a file (a call `f()` is one; a quarter of the rest were unknown values).
pub fn inline_sym(sym: Sym) -> Option<SymId> {
    match sym {
        Sym::Binding(b) if b <= INDEX_MASK => Some(TAG_BINDING | b),
        // Below INDEX_MASK: the id `u32::MAX` stays free (see [`OptIdx`]).
        Sym::Def(d) if d < INDEX_MASK => Some(TAG_DEF | d),
        Sym::Global(n) if n < INDEX_MASK => Some(TAG_GLOBAL | n),
        Sym::Unknown => Some(UNKNOWN),
        _ => None,
    }
}

/// A file's symbolic values, packed: a tag byte and two operands each, 9 bytes where a
/// [`Sym`] takes 12 (a graph holds hundreds of thousands). Stored as the list of values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Vec<Sym>", into = "Vec<Sym>")]
pub struct SymTable {
    tags: ThinVec<u8>,
    operands: ThinVec<[u32; 2]>,
}

impl SymTable {
    pub fn len(&self) -> usize {
        self.tags.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }

    /// Appends a value; returns its index.
    pub fn push(&mut self, sym: Sym) -> SymId {
        let (tag, operands) = pack(sym);
        self.tags.push(tag);
        self.operands.push(operands);
        (self.tags.len() - 1) as SymId
    }

    /// The value at `i` (an index, not an id with a value written into it: see
    /// [`FileFacts::sym`]); panics beyond the end.
    #[inline]
    pub fn at(&self, i: SymId) -> Sym {
        let i = i as usize;
        unpack(self.tags[i], self.operands[i])
    }

    pub fn get(&self, i: SymId) -> Option<Sym> {
        ((i as usize) < self.len()).then(|| self.at(i))
    }

    pub fn set(&mut self, i: SymId, sym: Sym) {
        let (tag, operands) = pack(sym);
        self.tags[i as usize] = tag;
        self.operands[i as usize] = operands;
    }

    pub fn iter(&self) -> impl Iterator<Item = Sym> + '_ {
        self.tags
            .iter()
            .zip(&self.operands)
            .map(|(&t, &o)| unpack(t, o))
    }

    pub fn shrink_to_fit(&mut self) {
        self.tags.shrink_to_fit();
        self.operands.shrink_to_fit();
    }

    pub fn heap_bytes(&self) -> usize {
        thin_heap_bytes(&self.tags) + thin_heap_bytes(&self.operands)
    }
}

impl FromIterator<Sym> for SymTable {
    fn from_iter<I: IntoIterator<Item = Sym>>(iter: I) -> SymTable {
        let mut t = SymTable::default();
        for s in iter {
            t.push(s);
        }
        t
    }
}

impl From<Vec<Sym>> for SymTable {
    fn from(v: Vec<Sym>) -> SymTable {
        v.into_iter().collect()
    }
}

impl From<SymTable> for Vec<Sym> {
    fn from(t: SymTable) -> Vec<Sym> {
        t.iter().collect()
    }
}

fn pack(sym: Sym) -> (u8, [u32; 2]) {
    match sym {
        Sym::Binding(b) => (0, [b, 0]),
        Sym::Global(n) => (1, [n, 0]),
        Sym::Def(d) => (2, [d, 0]),
        Sym::Import(i) => (3, [i, 0]),
        Sym::Member(o, n) => (4, [o, n]),
        Sym::Instance(x) => (5, [x, 0]),
        Sym::Return(x) => (6, [x, 0]),
        Sym::This(Some(c)) => (7, [c, 0]),
        Sym::This(None) => (8, [0, 0]),
        Sym::Super(c) => (9, [c, 0]),
        Sym::Array(x) => (10, [x, 0]),
        Sym::Element(x) => (11, [x, 0]),
        Sym::CallbackParam(c, slot) => (12, [c, slot]),
        Sym::ParamType(c, i) => (13, [c, i]),
        Sym::Either(a, b) => (14, [a, b]),
        Sym::Unknown => (15, [0, 0]),
        Sym::Signature(i) => (16, [i, 0]),
        Sym::Shape(i) => (17, [i, 0]),
        Sym::Apply(g, list) => (18, [g, list]),
        Sym::Generic(body, key) => (19, [body, key]),
        Sym::TypeArg(bound, slot) => (20, [bound, slot]),
        Sym::Host => (21, [0, 0]),
        Sym::Awaited(x) => (22, [x, 0]),
    }
}

#[inline]
fn unpack(tag: u8, [a, b]: [u32; 2]) -> Sym {
    match tag {
        0 => Sym::Binding(a),
        1 => Sym::Global(a),
        2 => Sym::Def(a),
        3 => Sym::Import(a),
        4 => Sym::Member(a, b),
        5 => Sym::Instance(a),
        6 => Sym::Return(a),
        7 => Sym::This(Some(a)),
        8 => Sym::This(None),
        9 => Sym::Super(a),
        10 => Sym::Array(a),
        11 => Sym::Element(a),
        12 => Sym::CallbackParam(a, b),
        13 => Sym::ParamType(a, b),
        14 => Sym::Either(a, b),
        16 => Sym::Signature(a),
        17 => Sym::Shape(a),
        18 => Sym::Apply(a, b),
        19 => Sym::Generic(a, b),
        20 => Sym::TypeArg(a, b),
        21 => Sym::Host,
        22 => Sym::Awaited(a),
        // Only `pack` writes tags: 15 is the unknown value.
        _ => Sym::Unknown,
    }
}

/// A symbolic value: what an expression denotes, as far as one file can say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sym {
    /// A name declared in this file.
    Binding(BindingIdx),
    /// A name declared nowhere in this file: a global, or a typo.
    Global(StrId),
    Def(DefIdx),
    Import(ImportIdx),
    /// `operand.name`
    Member(SymId, StrId),
    /// An instance of the class (or interface) the operand denotes: `new C()`, `x: C`.
    Instance(SymId),
    /// What calling the operand returns.
    Return(SymId),
    /// `this` inside the given class or object (None: a plain function's `this`).
    This(Option<DefIdx>),
    /// `super` inside the given class.
    Super(DefIdx),
    /// An array whose elements are the operand (`x: Item[]`).
    Array(SymId),
    /// An element of the array the operand denotes (`items.forEach(item => ...)`,
    /// `for (const item of items)`).
    Element(SymId),
    /// A parameter of a function literal passed to a call: what the callee's stated
    /// parameter type says it receives. The operand is the callee; the number packs
    /// the argument's index (high 16 bits) and the parameter's (low 16).
    CallbackParam(SymId, u32),
    /// The stated type of parameter `.1` of the function the operand denotes (as a
    /// callee): `createApi({ endpoints: (build) => ... })` makes `build` the stated
    /// type of `endpoints`' first parameter in the type of `createApi`'s first.
    ParamType(SymId, u32),
    /// One of two: `a ?? b`, `c ? a : b`, or a name that is both a type and a value
    /// (`type OK<T> = ...; const OK = ...`).
    Either(SymId, SymId),
    Unknown,
    /// A function of a stated type, with no code known behind it (a callback
    /// parameter typed `(b: Builder) => void`): an index into [`FileFacts::signatures`].
    Signature(u32),
    /// A value of an object type written inline: an index into [`FileFacts::shapes`].
    Shape(u32),
    /// A generic type given type arguments (`HydratedDocument<User>`): the operand is
    /// the generic; the arguments are the parameter list of signature `.1` (the table
    /// of lists of types), `None` where one names nothing.
    Apply(SymId, u32),
    /// What a generic type alias denotes (`type IfAny<T, Y, N> = ...`): its body, whose
    /// type parameters are [`Sym::TypeArg`]s of key `.1` (a number per file).
    Generic(SymId, u32),
    /// Type parameter `.1 & 0xff` of the generic alias of key `.1 >> 8`: the argument
    /// it was given where the alias is applied, or else `.0`, its default or
    /// constraint.
    TypeArg(SymId, u32),
    /// In an Angular template file: the instance of the component class whose
    /// `templateUrl` names this file. Which class that is, only the graph knows (the
    /// class's file names the template, not the other way round): it is resolved
    /// there, and is nothing while no class names the file.
    Host,
    /// `await x`: what `x` is, or where it is an instance of a thenable class of the
    /// repository (`class ResultAsync implements PromiseLike<Result>`), what its
    /// `then` hands its callback. A promise is transparent to the graph already.
    Awaited(SymId),
}

impl FileFacts {
    /// Bytes the facts take, near enough to bound them (each list's length times its
    /// element's size, and the strings' bytes; a signature or shape counted by its
    /// header, its members being bounded by the tokens that wrote them): what
    /// extraction's budget counts, in constant time.
    pub fn weight(&self) -> usize {
        use std::mem::size_of;
        fn bytes<T>(v: &ThinVec<T>) -> usize {
            v.len() * size_of::<T>()
        }
        self.strings.byte_len()
            + 4 * self.strings.len()
            + bytes(&self.defs)
            + bytes(&self.calls)
            + bytes(&self.imports)
            + bytes(&self.exports)
            + bytes(&self.bindings)
            + bytes(&self.props)
            + bytes(&self.implements)
            + bytes(&self.callback_params)
            + bytes(&self.param_types)
            + bytes(&self.signatures)
            + bytes(&self.shapes)
            + bytes(&self.call_shapes)
            + bytes(&self.shape_keys)
            + bytes(&self.links)
            + 9 * self.syms.len()
    }

    pub fn str(&self, id: StrId) -> &str {
        self.strings.get(id)
    }

    pub fn def(&self, idx: DefIdx) -> &Definition {
        &self.defs[idx as usize]
    }

    /// The value `id` denotes. Names and definitions (most values) are written into the
    /// id itself (see [`inline_sym`]); the rest are entries of `syms`.
    pub fn sym(&self, id: SymId) -> Sym {
        match id & TAG_MASK {
            TAG_BINDING => Sym::Binding(id & INDEX_MASK),
            TAG_DEF => Sym::Def(id & INDEX_MASK),
            TAG_GLOBAL if id == UNKNOWN => Sym::Unknown,
            TAG_GLOBAL => Sym::Global(id & INDEX_MASK),
            _ => self.syms.at(id),
        }
    }

    pub fn def_name(&self, idx: DefIdx) -> &str {
        self.str(self.def(idx).name)
    }

    pub fn def_qualified(&self, idx: DefIdx) -> &str {
        self.str(self.def(idx).qualified)
    }

    /// Renders a symbolic value for humans and snapshots: `import('./x').a.b`, `new C`.
    pub fn describe(&self, id: SymId) -> String {
        self.describe_with(id, &|n| self.str(n))
    }

    /// The same, with the file's strings read by `name`: a graph holds facts whose
    /// strings are its own names (see [`FileFacts::map_strings`]).
    pub fn describe_with<'a>(&'a self, id: SymId, name: &dyn Fn(StrId) -> &'a str) -> String {
        self.describe_depth(id, name, 0)
    }

    fn describe_depth<'a>(
        &'a self,
        id: SymId,
        str: &dyn Fn(StrId) -> &'a str,
        depth: usize,
    ) -> String {
        if depth > 16 {
            return "…".into();
        }
        let d = |s| self.describe_depth(s, str, depth + 1);
        let qualified = |x: DefIdx| str(self.def(x).qualified);
        match self.sym(id) {
            Sym::Binding(b) => {
                let b = self.bindings[b as usize];
                format!("{}={}", str(b.name), d(b.value))
            }
            Sym::Global(n) => format!("global {}", str(n)),
            Sym::Def(x) => format!("def {}", qualified(x)),
            Sym::Import(i) => {
                let imp = self.imports[i as usize];
                let spec = str(imp.specifier);
                match imp.kind {
                    ImportKind::Named(n) => format!("import {{{}}} '{spec}'", str(n)),
                    ImportKind::Default => format!("import default '{spec}'"),
                    ImportKind::Namespace => format!("import * '{spec}'"),
                    ImportKind::TypeNamespace => format!("typeof import '{spec}'"),
                    ImportKind::Require => format!("require '{spec}'"),
                    ImportKind::Template(c) => format!("template@{} '{spec}'", qualified(c)),
                }
            }
            Sym::Member(o, n) => format!("{}.{}", d(o), str(n)),
            Sym::Instance(c) => format!("new({})", d(c)),
            Sym::Return(f) => format!("ret({})", d(f)),
            Sym::Awaited(x) => format!("await({})", d(x)),
            Sym::This(Some(c)) => format!("this@{}", qualified(c)),
            Sym::This(None) => "this".into(),
            Sym::Super(c) => format!("super@{}", qualified(c)),
            Sym::Array(e) => format!("[{}]", d(e)),
            Sym::Element(a) => format!("elem({})", d(a)),
            Sym::Either(a, b) => format!("{} | {}", d(a), d(b)),
            Sym::ParamType(f, i) => format!("paramtype{i}({})", d(f)),
            Sym::CallbackParam(c, slot) => {
                format!("param{}(arg{} of {})", slot & 0xffff, slot >> 16, d(c))
            }
            Sym::Unknown => "?".into(),
            Sym::Shape(i) => {
                let members: Vec<String> = self.shapes[i as usize]
                    .iter()
                    .map(|&(n, v)| format!("{}: {}", str(n), d(v)))
                    .collect();
                format!("{{ {} }}", members.join("; "))
            }
            Sym::Signature(i) => {
                let sig = &self.signatures[i as usize];
                let part = |s: Option<SymId>| s.map_or_else(|| "?".into(), d);
                let params: Vec<String> = sig.params.iter().map(|&p| part(p)).collect();
                format!("fn({}) -> {}", params.join(", "), part(sig.returns))
            }
            Sym::Apply(g, list) => {
                let part = |s: Option<SymId>| s.map_or_else(|| "?".into(), d);
                let args: Vec<String> = self.signatures[list as usize]
                    .params
                    .iter()
                    .map(|&p| part(p))
                    .collect();
                format!("{}<{}>", d(g), args.join(", "))
            }
            Sym::Generic(body, key) => format!("generic{key}({})", d(body)),
            Sym::TypeArg(bound, slot) => {
                format!("typearg{}.{}({})", slot >> 8, slot & 0xff, d(bound))
            }
            Sym::Host => "host".into(),
        }
    }

    /// Records that `call` passes, at `slot`, an object with `keys` (or reads them from
    /// its result): see [`CallShape`].
    pub fn add_call_shape(&mut self, call: usize, slot: u8, keys: &[StrId], open: bool) {
        let kinds = if slot < CallShape::FIRST_USE {
            ValueKinds::OBJECT
        } else {
            ValueKinds::ANY
        };
        self.add_shape(call, slot, kinds, keys, open);
    }

    /// Records that `call` passes, at `slot`, a value its syntax says is of `kinds`
    /// (not an object literal: see [`Self::add_call_shape`]).
    pub fn add_argument_kinds(&mut self, call: usize, slot: u8, kinds: ValueKinds) {
        // No keys are listed: open, so none is said to be missing.
        self.add_shape(call, slot, kinds, &[], true);
    }

    /// Records that `call` passes, at `slot`, the string literal `value`: a shape of
    /// [`ValueKinds::LITERAL_STRING`] whose one key is the value.
    pub fn add_argument_literal(&mut self, call: usize, slot: u8, value: StrId) {
        self.add_shape(call, slot, ValueKinds::LITERAL_STRING, &[value], false);
    }

    fn add_shape(&mut self, call: usize, slot: u8, kinds: ValueKinds, keys: &[StrId], open: bool) {
        let (Ok(call), Ok(start)) = (u32::try_from(call), u32::try_from(self.shape_keys.len()))
        else {
            return;
        };
        let kept = &keys[..keys.len().min(CallShape::MAX_KEYS)];
        self.shape_keys.extend_from_slice(kept);
        let open = open || kept.len() < keys.len();
        self.call_shapes.push(CallShape {
            call,
            slot,
            kinds,
            len_open: kept.len() as u8 | if open { CallShape::OPEN } else { 0 },
            start,
        });
    }

    /// The shapes of call `call`: each with its keys.
    pub fn shapes_of(&self, call: usize) -> impl Iterator<Item = (&CallShape, &[StrId])> {
        let from = self
            .call_shapes
            .partition_point(|s| (s.call as usize) < call);
        self.call_shapes[from..]
            .iter()
            .take_while(move |s| s.call as usize == call)
            .map(|s| {
                let start = s.start as usize;
                let keys = self
                    .shape_keys
                    .get(start..start + s.len())
                    .unwrap_or_default();
                (s, keys)
            })
    }

    /// Sorts the shapes by call and slot (they are found in walk order) and renumbers
    /// their calls after calls were dropped: `kept[i]` says whether call `i` stayed.
    pub(crate) fn settle_call_shapes(&mut self, kept: Option<&[bool]>) {
        if let Some(kept) = kept {
            let mut new_index = Vec::with_capacity(kept.len());
            let mut next = 0u32;
            for &k in kept {
                new_index.push(k.then_some(next));
                next += u32::from(k);
            }
            let at = |call: u32| new_index.get(call as usize).copied().flatten();
            self.call_shapes.retain_mut(|s| match at(s.call) {
                Some(i) => {
                    s.call = i;
                    true
                }
                None => false,
            });
            self.named_arguments.retain_mut(|n| match at(n.call) {
                Some(i) => {
                    n.call = i;
                    true
                }
                None => false,
            });
            self.argument_names.retain_mut(|n| match at(n.call) {
                Some(i) => {
                    n.call = i;
                    true
                }
                None => false,
            });
            // A pair of calls stays where both did, renumbered.
            let both = |outer: &mut u32, inner: &mut u32| match (at(*outer), at(*inner)) {
                (Some(o), Some(i)) => {
                    (*outer, *inner) = (o, i);
                    true
                }
                _ => false,
            };
            self.argument_calls
                .retain_mut(|a| both(&mut a.outer, &mut a.inner));
            self.property_calls
                .retain_mut(|a| both(&mut a.outer, &mut a.inner));
        }
        self.call_shapes.sort_by_key(|s| (s.call, s.slot));
        self.argument_calls.sort_by_key(|a| (a.outer, a.slot));
        self.property_calls.sort_by_key(|a| a.inner);
        self.def_kinds.sort_by_key(|k| (k.def, k.slot));
        self.named_arguments.sort_by_key(|n| (n.call, n.slot));
        self.argument_names.sort_by_key(|n| (n.call, n.slot));
        self.named_params.sort_by_key(|n| (n.def, n.slot));
        self.alias_kinds.sort_by_key(|a| a.binding);
        // Stable: a type's members stay in the order written.
        self.type_members.sort_by_key(|m| m.def);
    }

    /// The members type `def` states (none where it is no interface of this file).
    pub fn type_members_of(&self, def: DefIdx) -> &[TypeMember] {
        let start = self.type_members.partition_point(|m| m.def < def);
        let end = self.type_members.partition_point(|m| m.def <= def);
        &self.type_members[start..end]
    }

    /// The type named elsewhere that parameter `slot` of `def` is stated to be of: its
    /// own, or the element type of a rest parameter at or before it.
    pub fn named_param(&self, def: DefIdx, slot: u8) -> Option<&NamedParam> {
        if let Ok(i) = self
            .named_params
            .binary_search_by_key(&(def, slot), |n| (n.def, n.slot))
        {
            return Some(&self.named_params[i]);
        }
        if slot >= DefKinds::REST {
            return None;
        }
        let start = self
            .named_params
            .partition_point(|n| (n.def, n.slot) < (def, DefKinds::REST));
        self.named_params[start..]
            .iter()
            .take_while(|n| n.def == def && n.slot < DefKinds::ELEMENT)
            .find(|n| n.slot - DefKinds::REST <= slot)
    }

    /// Whether a `@ts-expect-error` or `@ts-ignore` comment governs line `line` (from 0).
    pub fn suppressed(&self, line: u32) -> bool {
        self.suppressed_lines.binary_search(&line).is_ok()
    }

    /// Whether the call at `pos` has an argument on a line a `@ts-expect-error` or
    /// `@ts-ignore` comment governs.
    pub fn argument_suppressed(&self, pos: Pos) -> bool {
        self.suppressed_arguments.binary_search(&pos).is_ok()
    }

    /// Whether the call at `pos` has its result's member read on a line a
    /// `@ts-expect-error` or `@ts-ignore` comment governs.
    pub fn read_suppressed(&self, pos: Pos) -> bool {
        self.suppressed_reads.binary_search(&pos).is_ok()
    }

    /// What a value of the module-level type alias bound by `binding` may be (ANY where
    /// that is not known).
    pub fn alias_kinds(&self, binding: BindingIdx) -> ValueKinds {
        self.alias_kinds
            .binary_search_by_key(&binding, |a| a.binding)
            .map_or(ValueKinds::ANY, |i| self.alias_kinds[i].kinds)
    }

    /// The arguments of call `call` stated to be of a type named elsewhere.
    pub fn named_arguments_of(&self, call: usize) -> &[NamedArgument] {
        let Ok(call) = u32::try_from(call) else {
            return &[];
        };
        let start = self.named_arguments.partition_point(|n| n.call < call);
        let end = self.named_arguments.partition_point(|n| n.call <= call);
        &self.named_arguments[start..end]
    }

    /// The arguments of call `call` that are names of no stated type.
    pub fn argument_names_of(&self, call: usize) -> &[ArgumentName] {
        let Ok(call) = u32::try_from(call) else {
            return &[];
        };
        let start = self.argument_names.partition_point(|n| n.call < call);
        let end = self.argument_names.partition_point(|n| n.call <= call);
        &self.argument_names[start..end]
    }

    /// The call passed as argument `slot` of call `call`, if one is.
    pub fn argument_call(&self, call: usize, slot: u8) -> Option<usize> {
        let call = u32::try_from(call).ok()?;
        let start = self
            .argument_calls
            .partition_point(|a| (a.outer, a.slot) < (call, slot));
        let a = self.argument_calls.get(start)?;
        ((a.outer, a.slot) == (call, slot) && !a.branch && !a.element && !a.returned)
            .then_some(a.inner as usize)
    }

    /// Where call `inner`'s result is a property of an object literal passed to another
    /// call (see [`PropertyCall`]).
    pub fn property_call(&self, inner: usize) -> Option<&PropertyCall> {
        let inner = u32::try_from(inner).ok()?;
        let at = self.property_calls.partition_point(|p| p.inner < inner);
        self.property_calls.get(at).filter(|p| p.inner == inner)
    }

    /// Each call passed as an argument, by its index: the call and the argument of it
    /// it is passed as, or for an element of an array literal passed,
    /// [`DefKinds::ELEMENT`] plus the argument's place (one pass, for a reader that
    /// asks of many calls).
    pub fn passed_to(&self) -> rustc_hash::FxHashMap<u32, (u32, u8)> {
        self.argument_calls
            .iter()
            .filter(|a| !a.returned)
            .filter_map(|a| match a.element {
                false => Some((a.inner, (a.outer, a.slot))),
                true => (a.slot < DefKinds::MAX_ELEMENT)
                    .then(|| (a.inner, (a.outer, DefKinds::ELEMENT + a.slot))),
            })
            .collect()
    }

    /// Each call an arrow function passed as an argument returns, by its index: the
    /// call and the argument of it the function is (see [`ArgumentCall`]).
    pub fn returned_to(&self) -> rustc_hash::FxHashMap<u32, (u32, u8)> {
        self.argument_calls
            .iter()
            .filter(|a| a.returned)
            .map(|a| (a.inner, (a.outer, a.slot)))
            .collect()
    }

    /// What definition `def`'s parameter `slot` accepts, or (with [`DefKinds::RESULT`])
    /// what it returns, by its stated type; ANY where that says nothing.
    pub fn def_kinds(&self, def: DefIdx, slot: u8) -> ValueKinds {
        self.def_kinds
            .binary_search_by_key(&(def, slot), |k| (k.def, k.slot))
            .map_or(ValueKinds::ANY, |i| self.def_kinds[i].kinds)
    }

    /// What an argument at `slot` (from 0) of a call of `def` lands on accepts: its
    /// parameter's stated type, or past the parameters kept one by one, a rest
    /// parameter's element type; ANY where they say nothing.
    pub fn param_kinds(&self, def: DefIdx, slot: u8) -> ValueKinds {
        // Past the parameters kept, a slot holds no parameter's (see `AWAITED`).
        let own = match u16::from(slot) < DefKinds::MAX_PARAMS || slot >= DefKinds::REST {
            true => self.def_kinds(def, slot),
            false => ValueKinds::ANY,
        };
        if !own.is_any() || slot >= DefKinds::REST {
            return own;
        }
        let start = self
            .def_kinds
            .partition_point(|k| (k.def, k.slot) < (def, DefKinds::REST));
        self.def_kinds[start..]
            .iter()
            .take_while(|k| k.def == def && k.slot < DefKinds::ELEMENT)
            .find(|k| k.slot - DefKinds::REST <= slot)
            .map_or(ValueKinds::ANY, |k| k.kinds)
    }

    /// Gives back the lists' spare capacity: a graph keeps facts for as long as it
    /// lives.
    pub fn shrink_to_fit(&mut self) {
        self.strings.shrink_to_fit();
        self.repaired.shrink_to_fit();
        self.defs.shrink_to_fit();
        self.calls.shrink_to_fit();
        self.imports.shrink_to_fit();
        self.exports.shrink_to_fit();
        self.bindings.shrink_to_fit();
        self.props.shrink_to_fit();
        self.implements.shrink_to_fit();
        self.callback_params.shrink_to_fit();
        self.param_types.shrink_to_fit();
        self.syms.shrink_to_fit();
        self.signatures.shrink_to_fit();
        for s in &mut self.signatures {
            s.params.shrink_to_fit();
        }
        self.shapes.shrink_to_fit();
        self.argument_calls.shrink_to_fit();
        self.def_kinds.shrink_to_fit();
        self.named_arguments.shrink_to_fit();
        self.named_params.shrink_to_fit();
        self.alias_kinds.shrink_to_fit();
        self.suppressed_lines.shrink_to_fit();
        self.suppressed_arguments.shrink_to_fit();
        self.suppressed_reads.shrink_to_fit();
        self.argument_names.shrink_to_fit();
        self.property_calls.shrink_to_fit();
        self.type_members.shrink_to_fit();
        for s in &mut self.shapes {
            s.shrink_to_fit();
        }
        self.call_shapes.shrink_to_fit();
        self.shape_keys.shrink_to_fit();
        self.links.shrink_to_fit();
    }

    /// Rewrites every string id the facts hold by `f`, those written into symbolic
    /// values' ids included (see [`inline_sym`]); `strings` is left as it is. A graph
    /// turns a file's ids into its own names with it, so that a file's strings are
    /// kept once per graph, and turns them back into a table of the file's own to
    /// store them.
    pub fn map_strings(&mut self, mut f: impl FnMut(StrId) -> StrId) {
        let f = &mut f as &mut dyn FnMut(StrId) -> StrId;
        for d in &mut self.defs {
            d.name = f(d.name);
            d.qualified = f(d.qualified);
            d.extends = d.extends.get().map(|e| map_sym(e, f)).into();
            d.returns = d.returns.get().map(|r| map_sym(r, f)).into();
        }
        for c in &mut self.calls {
            c.name = f(c.name);
            c.callee = map_sym(c.callee, f);
        }
        for i in &mut self.imports {
            i.specifier = f(i.specifier);
            map_import_kind(&mut i.kind, f);
        }
        for e in &mut self.exports {
            match &mut e.value {
                ExportValue::Local(s) => {
                    e.name = f(e.name);
                    *s = map_sym(*s, f);
                }
                ExportValue::From { specifier, kind } => {
                    e.name = f(e.name);
                    *specifier = f(*specifier);
                    map_import_kind(kind, f);
                }
                // Its name is unused (0), not a string.
                ExportValue::Star { specifier } => *specifier = f(*specifier),
            }
        }
        self.module_exports = self.module_exports.map(|s| map_sym(s, f));
        for b in &mut self.bindings {
            b.name = f(b.name);
            b.value = map_sym(b.value, f);
        }
        for p in &mut self.props {
            p.name = f(p.name);
            p.value = map_sym(p.value, f);
        }
        for i in &mut self.implements {
            i.1 = map_sym(i.1, f);
        }
        for c in &mut self.callback_params {
            c.value = map_sym(c.value, f);
        }
        for p in &mut self.param_types {
            p.value = map_sym(p.value, f);
        }
        self.map_sym_table(f);
        for sig in &mut self.signatures {
            for p in sig.params.iter_mut().flatten() {
                *p = map_sym(*p, f);
            }
            sig.returns = sig.returns.map(|r| map_sym(r, f));
        }
        for members in &mut self.shapes {
            for (n, v) in members {
                *n = f(*n);
                *v = map_sym(*v, f);
            }
        }
        for n in &mut self.named_arguments {
            n.member = n.member.map(&mut *f);
        }
        for n in &mut self.named_params {
            n.member = n.member.map(&mut *f);
        }
        for p in &mut self.property_calls {
            p.key = f(p.key);
            p.nested = p.nested.map(&mut *f);
        }
        for m in &mut self.type_members {
            m.name = f(m.name);
        }
        for k in &mut self.shape_keys {
            *k = f(*k);
        }
    }

    /// The value table's strings, and the string ids written into its values' ids.
    fn map_sym_table(&mut self, f: &mut dyn FnMut(StrId) -> StrId) {
        for i in 0..self.syms.len() as SymId {
            let s = self.syms.at(i);
            let mapped = match s {
                Sym::Global(n) => Sym::Global(f(n)),
                Sym::Member(base, n) => Sym::Member(map_sym(base, f), f(n)),
                Sym::Instance(x) => Sym::Instance(map_sym(x, f)),
                Sym::Return(x) => Sym::Return(map_sym(x, f)),
                Sym::Awaited(x) => Sym::Awaited(map_sym(x, f)),
                Sym::Array(x) => Sym::Array(map_sym(x, f)),
                Sym::Element(x) => Sym::Element(map_sym(x, f)),
                Sym::Either(a, b) => Sym::Either(map_sym(a, f), map_sym(b, f)),
                Sym::CallbackParam(c, slot) => Sym::CallbackParam(map_sym(c, f), slot),
                Sym::ParamType(c, i) => Sym::ParamType(map_sym(c, f), i),
                Sym::Apply(g, list) => Sym::Apply(map_sym(g, f), list),
                Sym::Generic(body, key) => Sym::Generic(map_sym(body, f), key),
                Sym::TypeArg(bound, slot) => Sym::TypeArg(map_sym(bound, f), slot),
                other @ (Sym::Binding(_)
                | Sym::Def(_)
                | Sym::Import(_)
                | Sym::This(_)
                | Sym::Super(_)
                | Sym::Unknown
                | Sym::Signature(_)
                | Sym::Shape(_)
                | Sym::Host) => other,
            };
            self.syms.set(i, mapped);
        }
    }
}

/// `id` with the string id written into it (a global's name) rewritten by `f`.
fn map_sym(id: SymId, f: &mut dyn FnMut(StrId) -> StrId) -> SymId {
    match id & TAG_MASK {
        TAG_GLOBAL if id != UNKNOWN => {
            let n = f(id & INDEX_MASK);
            assert!(
                n < INDEX_MASK,
                "a string id beyond what a value's id can hold"
            );
            TAG_GLOBAL | n
        }
        _ => id,
    }
}

fn map_import_kind(k: &mut ImportKind, f: &mut dyn FnMut(StrId) -> StrId) {
    if let ImportKind::Named(n) = k {
        *n = f(*n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_table_reads_back_only_whole_strings() {
        let mut t = StringTable::default();
        let (a, b) = (t.push("héllo"), t.push("wörld"));
        let bytes = postcard::to_stdvec(&t).unwrap();
        let back: StringTable = postcard::from_bytes(&bytes).unwrap();
        assert_eq!((back.get(a), back.get(b)), ("héllo", "wörld"));
        // An end inside `é` (bytes 1..3), as a corrupt row could hold.
        let bad = StoredStrings {
            buf: "héllo".into(),
            ends: vec![2],
        };
        let bytes = postcard::to_stdvec(&bad).unwrap();
        assert!(postcard::from_bytes::<StringTable>(&bytes).is_err());
        let beyond = StoredStrings {
            buf: "a".into(),
            ends: vec![1, 5],
        };
        let bytes = postcard::to_stdvec(&beyond).unwrap();
        assert!(postcard::from_bytes::<StringTable>(&bytes).is_err());
    }
}
