//! TypeScript annotations as symbolic values: `x: Redis` makes `x` an instance of
//! whatever `Redis` names, so `x.quit()` resolves to `Redis.quit`.

use tree_sitter::Node;

use super::fields::{Field, FieldExt};
use super::Extractor;
use crate::indexer::facts::*;

/// Types nested deeper than this denote nothing.
const MAX_TYPE_DEPTH: usize = 32;

/// A union of more types than this (not counting literals, `null` and the like) is
/// not followed: its members would be guesses among many.
const MAX_UNION_PARTS: usize = 4;

/// A tuple's elements past this many are not told apart (nor an array pattern's items).
pub(crate) const MAX_TUPLE_ITEMS: usize = 16;

/// Type arguments past this many are not read (a generic's parameters are counted in a
/// byte: see [`Sym::TypeArg`]).
const MAX_TYPE_ARGUMENTS: usize = 32;

/// Generic wrappers whose first type argument is the value that matters. `Omit` and
/// `Pick` keep some of its members: all of them are looked up, and an interface that
/// extends `Omit<Base, 'm'>` to redeclare `m` finds its own `m` first.
pub(super) const TRANSPARENT_GENERICS: &[&str] = &[
    "Promise",
    "PromiseLike",
    "Awaited",
    "Readonly",
    "Partial",
    "Required",
    "NonNullable",
    "Omit",
    "Pick",
];

impl<'s> Extractor<'s> {
    /// `: T` as the value it describes: an instance of T.
    pub(crate) fn type_annotation(&mut self, annotation: Node<'s>) -> Option<SymId> {
        let ty = if annotation.kind_str() == "type_annotation" {
            annotation.named_child(0)?
        } else {
            annotation
        };
        self.value_of_type(ty, 0)
    }

    /// The value a type describes: an instance of a class or interface, or an array of
    /// such values (`Item[]`, `Array<Item>`, `readonly Item[]`, `Promise<Item[]>`).
    pub(crate) fn value_of_type(&mut self, ty: Node<'s>, level: usize) -> Option<SymId> {
        if level > MAX_TYPE_DEPTH {
            return None;
        }
        let element = match ty.kind_str() {
            // `where(): this`: the receiver, whatever subclass it is (see the resolver's
            // `Sym::Return`); outside a class, nothing.
            "this_type" => {
                return match self.current_this() {
                    super::ThisCtx::Of(c) => Some(self.sym(Sym::This(Some(c)))),
                    _ => None,
                }
            }
            // `(builder: Builder) => void`: a function of that type.
            "function_type" => return self.signature_at(ty, level),
            // `typeof BaseEntity`: the class itself, not an instance of it.
            "type_query" => return self.type_sym_at(ty.named_child(0)?, level + 1),
            "array_type" => ty.named_child(0),
            "readonly_type" | "parenthesized_type" => {
                return self.value_of_type(ty.named_child(0)?, level + 1)
            }
            "generic_type" => {
                let name = self.text(ty.field(Field::Name)?);
                let first = ty
                    .field(Field::TypeArguments)
                    .and_then(|a| a.named_child(0));
                match name {
                    "Array" | "ReadonlyArray" => first,
                    _ if TRANSPARENT_GENERICS.contains(&name) => {
                        return self.value_of_type(first?, level + 1)
                    }
                    "ReturnType" | "InstanceType" => {
                        return self.derived_type(name, first?, level + 1)
                    }
                    "Map" | "ReadonlyMap" | "WeakMap" => {
                        let args = ty.field(Field::TypeArguments)?;
                        return self.keyed_collection(name, args, level + 1);
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(element) = element {
            let value = self.value_of_type(element, level + 1)?;
            return Some(self.sym(Sym::Array(value)));
        }
        let t = self.type_sym_at(ty, level)?;
        Some(self.sym(Sym::Instance(t)))
    }

    /// A function's stated return type, as an instance (type predicates say nothing).
    pub(crate) fn return_type(&mut self, node: Node<'s>) -> Option<SymId> {
        if node.kind_str() != "type_annotation" {
            return None;
        }
        self.type_annotation(node)
    }

    /// `[Store, History]`, `[store: Store, history?: History]`: an object whose members
    /// `0`, `1`, ... are its elements' values, up to a rest element (`...T[]`), after
    /// which an element's index is not known.
    fn tuple_shape(&mut self, ty: Node<'s>, level: usize) -> Option<SymId> {
        let level = level + 1;
        let mut members = Vec::new();
        let elements = self.named_kids(ty);
        let elements = elements.iter().filter(|e| e.kind_str() != "comment");
        for (index, &element) in elements.enumerate().take(MAX_TUPLE_ITEMS) {
            let stated = match element.kind_str() {
                "rest_type" => break,
                "required_parameter" | "optional_parameter" => element
                    .field(Field::Type)
                    .and_then(|annotation| annotation.named_child(0)),
                "optional_type" => element.named_child(0),
                _ => Some(element),
            };
            if let Some(value) = stated.and_then(|t| self.value_of_type(t, level)) {
                members.push((self.intern(&index.to_string()), value));
            }
        }
        if members.is_empty() {
            return None;
        }
        self.new_shape(members)
    }

    /// An inline object type as a value: its properties', methods' and call
    /// signatures' stated types, by name.
    fn shape(&mut self, ty: Node<'s>, level: usize) -> Option<SymId> {
        let level = level + 1;
        let mut members = Vec::new();
        for m in self.named_kids(ty) {
            let member = match m.kind_str() {
                "property_signature" => {
                    let name = m.field(Field::Name).and_then(|n| self.key_name(n));
                    let value = m
                        .field(Field::Type)
                        .and_then(|t| t.named_child(0))
                        .and_then(|t| self.value_of_type(t, level));
                    name.zip(value)
                }
                "method_signature" => {
                    let name = m.field(Field::Name).and_then(|n| self.key_name(n));
                    let value = self.signature_at(m, level);
                    name.zip(value)
                }
                "call_signature" => {
                    let value = self.signature_at(m, level);
                    value.map(|v| (self.intern(CALL), v))
                }
                _ => None,
            };
            members.extend(member);
        }
        if members.is_empty() {
            return None;
        }
        self.new_shape(members)
    }

    pub(super) fn new_shape(&mut self, members: Vec<(StrId, SymId)>) -> Option<SymId> {
        let index = u32::try_from(self.facts.shapes.len()).ok()?;
        self.facts.shapes.push(members);
        Some(self.sym(Sym::Shape(index)))
    }

    pub(super) fn new_signature(
        &mut self,
        params: Vec<Option<SymId>>,
        returns: Option<SymId>,
    ) -> Option<SymId> {
        let index = self.new_signature_entry(params, returns)?;
        Some(self.sym(Sym::Signature(index)))
    }

    /// A new entry of the signatures' table (also the lists of type arguments).
    fn new_signature_entry(
        &mut self,
        params: Vec<Option<SymId>>,
        returns: Option<SymId>,
    ) -> Option<u32> {
        let index = u32::try_from(self.facts.signatures.len()).ok()?;
        self.facts.signatures.push(Signature {
            params: params.into(),
            returns,
            rest: false,
        });
        Some(index)
    }

    /// `Map<K, V>` (`new Map<K, V>()`, `cache: Map<string, Connection>`): `get` gives a
    /// V (`cache.get(id)?.close()`); its other members are the platform's.
    pub(crate) fn keyed_collection(
        &mut self,
        class: &str,
        args: Node<'s>,
        level: usize,
    ) -> Option<SymId> {
        let value = args.named_child(1)?;
        let value = self.value_of_type(value, level + 1)?;
        let get = self.new_signature(vec![None], Some(value))?;
        let class = self.intern(class);
        let platform = self.sym(Sym::Global(class));
        let members = vec![(self.intern("get"), get), (self.intern(SPREAD), platform)];
        self.new_shape(members)
    }

    /// `ReturnType<typeof f>` (what calling f returns) and `InstanceType<typeof C>` (an
    /// instance of C), also of a function type named otherwise (`ReturnType<Factory>`).
    fn derived_type(&mut self, generic: &str, arg: Node<'s>, level: usize) -> Option<SymId> {
        let operand = match arg.kind_str() {
            "type_query" => self.type_sym_at(arg.named_child(0)?, level + 1)?,
            // `ReturnType<this['createCommand']>`: what the receiver's `createCommand`
            // returns. Only here: a value typed `T['k']` and called is, to TypeScript,
            // a call of that value (a parameter, say), not of `T`'s member `k`.
            "lookup_type" => {
                let (object, index) = (arg.named_child(0)?, arg.named_child(1)?);
                let key = match index.kind_str() {
                    "literal_type" => self.key_name(index.named_child(0)?)?,
                    _ => return None,
                };
                let base = self.value_of_type(object, level + 1)?;
                self.sym(Sym::Member(base, key))
            }
            _ => self.value_of_type(arg, level + 1)?,
        };
        Some(self.sym(match generic {
            "ReturnType" => Sym::Return(operand),
            _ => Sym::Instance(operand),
        }))
    }

    /// A function type or call signature as a value: a function that receives and
    /// returns what its types say.
    pub(crate) fn signature(&mut self, ty: Node<'s>) -> Option<SymId> {
        self.signature_at(ty, 0)
    }

    fn signature_at(&mut self, ty: Node<'s>, level: usize) -> Option<SymId> {
        if level > MAX_TYPE_DEPTH {
            return None;
        }
        let level = level + 1;
        // `: T` around a type (call signatures, parameters) or the type itself (`=> T`).
        let stated = |ex: &mut Self, t: Node<'s>| match t.kind_str() {
            "type_annotation" => ex.value_of_type(t.named_child(0)?, level),
            _ => ex.value_of_type(t, level),
        };
        let params = ty.field(Field::Parameters)?;
        // `<T extends Schema>(schema: T) => ...`: its own type parameters, in a scope of
        // their own.
        let generic = ty.field(Field::TypeParameters);
        if let Some(tp) = generic {
            self.push_scope(super::ScopeKind::Block);
            self.declare_type_parameters(tp);
        }
        // `new (doc?: D): Doc` states what it gives in field `type`.
        let returns = ty
            .field(Field::ReturnType)
            .or_else(|| {
                (ty.kind_str() == "construct_signature")
                    .then(|| ty.field(Field::Type))
                    .flatten()
            })
            .and_then(|r| stated(self, r));
        let list = self.named_kids(params);
        let mut types = Vec::with_capacity(list.len());
        let mut rest = false;
        for p in list {
            if p.kind_str() == "comment" || super::syntax::is_this_parameter(p) {
                continue;
            }
            let ty = p.field(Field::Type).and_then(|t| t.named_child(0));
            let spread = match ty {
                Some(t) if super::syntax::is_rest_parameter(p) => self.rest_elements(t),
                _ => None,
            };
            match spread {
                // `...handlers: H[]`: every argument from here on is an H.
                Some(RestType::Each(element)) => {
                    types.push(self.value_of_type(element, level));
                    rest = true;
                }
                // `...handlers: [A, B]`: one argument each.
                Some(RestType::Tuple(elements)) => {
                    for element in elements {
                        types.push(self.value_of_type(element, level));
                    }
                }
                None => types.push(p.field(Field::Type).and_then(|t| stated(self, t))),
            }
        }
        if generic.is_some() {
            self.pop_scope();
        }
        let signature = self.new_signature(types, returns)?;
        if rest {
            if let Some(last) = self.facts.signatures.last_mut() {
                last.rest = true;
            }
        }
        Some(signature)
    }

    /// The value a type names (a class, an interface, an imported type).
    pub(crate) fn type_sym(&mut self, ty: Node<'s>) -> Option<SymId> {
        self.type_sym_at(ty, 0)
    }

    fn type_sym_at(&mut self, ty: Node<'s>, level: usize) -> Option<SymId> {
        if level > MAX_TYPE_DEPTH {
            return None;
        }
        let level = level + 1;
        match ty.kind_str() {
            "type_identifier" | "identifier" => {
                let name = self.intern_node(ty);
                Some(self.reference(name))
            }
            "nested_type_identifier" | "nested_identifier" | "member_expression" => {
                self.nested_type_sym(ty, level)
            }
            "generic_type" => self.generic_type_sym(ty, level),
            // `Fn extends AsyncFunction ? AsyncHook : Hook`: a value of it is one of the
            // two branches (which one depends on the type arguments, not followed).
            "conditional_type" => {
                let consequence = ty.field(Field::Consequence);
                let alternative = ty.field(Field::Alternative);
                let mut value = None;
                for branch in [consequence, alternative].into_iter().flatten() {
                    if let Some(sym) = self.type_sym_at(branch, level) {
                        value = Some(self.one_more(value, sym));
                    }
                }
                value
            }
            "union_type" => self.union_type_sym(ty, level),
            // `Options & { effect: Effect }`: a value of it has the members of each part.
            "intersection_type" => {
                let parts = self.named_kids(ty);
                let mut value = None;
                for part in parts {
                    if let Some(sym) = self.type_sym_at(part, level) {
                        value = Some(self.one_more(value, sym));
                    }
                }
                value
            }
            // `{ onDone: (r: Result) => void; user: User }` written where it is used.
            "object_type" => self.shape(ty, level),
            "tuple_type" => self.tuple_shape(ty, level),
            // `type Effect = (action: A, api: Api) => void`: the alias names a function
            // type; an instance of it is a function of that type.
            "function_type" => self.signature_at(ty, level),
            "parenthesized_type" | "readonly_type" => self.type_sym_at(ty.named_child(0)?, level),
            "lookup_type" => self.lookup_type_sym(ty, level),
            // `type Postcss = typeof postcss`, `{ result: Result } & typeof api`: a value
            // of it is the value itself, not an instance of it. As an object that
            // spreads the value, so that a value of the alias has its members
            // (`helpers.comment()`), statics of a class included.
            "type_query" => {
                let value = self.type_sym_at(ty.named_child(0)?, level)?;
                let spread = self.intern(SPREAD);
                self.new_shape(vec![(spread, value)])
            }
            // `typeof createBuilder<Ctx, Meta>`: the function, given type arguments
            // (what it returns is read from its stated return type).
            "instantiation_expression" => self.type_sym_at(ty.named_child(0)?, level),
            // `typeof import('./handlers')`: the module's namespace.
            "call_expression" => {
                self.in_type_query += 1;
                let import = self.module_call(ty);
                self.in_type_query -= 1;
                Some(self.sym(Sym::Import(import?)))
            }
            _ => None,
        }
    }

    /// `{ [K in keyof X]: ... }` (a homomorphic mapped type: `Partial`, `Readonly`, a
    /// bridge typed after the functions it forwards to): its members are X's, each
    /// declared where X declares it, as TypeScript links them. What the type extends,
    /// as an interface's base: X (a class, an interface), or the value `typeof X`
    /// names (an object, a module's namespace).
    pub(crate) fn mapped_type_source(&mut self, object_type: Node<'s>) -> Option<SymId> {
        let mut members = self.named_kids(object_type).into_iter();
        let signature = members
            .next()
            .filter(|m| m.kind_str() == "index_signature")?;
        if members.next().is_some() {
            return None;
        }
        let clause = self
            .named_kids(signature)
            .into_iter()
            .find(|c| c.kind_str() == "mapped_type_clause")?;
        let keys = clause.field(Field::Type)?;
        if keys.kind_str() != "index_type_query" {
            return None;
        }
        let source = keys.named_child(0)?;
        match source.kind_str() {
            "type_query" => self.value_of_type(source, 0),
            _ => self.type_sym(source),
        }
    }

    /// `Editor['store']`: what an `Editor`'s member `store` holds; `Config['a']['b']`
    /// one member after another; `Items[number]`: an element of `Items`. A value of it
    /// is an instance of that (see the resolver's `Sym::Instance`): the instance a typed
    /// property holds, the function a method is. So a value typed `Editor['save']` and
    /// called is a call of that value, not of `Editor.save`, as TypeScript reads it.
    fn lookup_type_sym(&mut self, ty: Node<'s>, level: usize) -> Option<SymId> {
        let (object, index) = (ty.named_child(0)?, ty.named_child(1)?);
        let base = self.value_of_type(object, level)?;
        match index.kind_str() {
            "literal_type" => {
                let key = self.key_name(index.named_child(0)?)?;
                Some(self.sym(Sym::Member(base, key)))
            }
            "predefined_type" if self.text(index) == "number" => Some(self.sym(Sym::Element(base))),
            _ => None,
        }
    }

    /// `ns.Type`, `import('./x').T`: member `Type` of what `ns` is.
    #[inline]
    fn nested_type_sym(&mut self, ty: Node<'s>, level: usize) -> Option<SymId> {
        let module = ty
            .field(Field::Module)
            .or_else(|| ty.field(Field::Object))
            .or_else(|| ty.named_child(0))?;
        let name = ty
            .field(Field::Name)
            .or_else(|| ty.field(Field::Property))
            .or_else(|| ty.named_child(ty.named_child_count().checked_sub(1)?))?;
        let base = self.type_sym_at(module, level)?;
        let name = self.intern_node(name);
        Some(self.sym(Sym::Member(base, name)))
    }

    /// `Type<A>`: what `Type` names, except for the generics that are their argument's
    /// type ([`TRANSPARENT_GENERICS`]) or derive a value from it.
    #[inline]
    fn generic_type_sym(&mut self, ty: Node<'s>, level: usize) -> Option<SymId> {
        let name = ty.field(Field::Name)?;
        let text = self.text(name);
        if TRANSPARENT_GENERICS.contains(&text) {
            let args = ty.field(Field::TypeArguments)?;
            return self.type_sym_at(args.named_child(0)?, level);
        }
        if matches!(text, "ReturnType" | "InstanceType") {
            // `type Fixture = ReturnType<typeof createFixture>`: a value, which
            // an instance of the alias is (see the resolver's `Sym::Instance`).
            let args = ty.field(Field::TypeArguments)?;
            return self.derived_type(text, args.named_child(0)?, level);
        }
        let generic = self.type_sym_at(name, level)?;
        // `Hydrated<User>`: an alias's parameters take these (see [`Sym::Apply`]); a
        // class or interface given arguments is itself.
        let Some(args) = ty.field(Field::TypeArguments) else {
            return Some(generic);
        };
        let list = self.named_kids(args);
        if list.len() > MAX_TYPE_ARGUMENTS {
            return Some(generic);
        }
        let mut types = Vec::with_capacity(list.len());
        for arg in list {
            if arg.kind_str() != "comment" {
                types.push(self.type_sym_at(arg, level));
            }
        }
        if types.iter().all(Option::is_none) {
            return Some(generic);
        }
        let list = self.new_signature_entry(types, None)?;
        Some(self.sym(Sym::Apply(generic, list)))
    }

    /// `A | B | null`: a value of it is one of them, and has the members of either
    /// (TypeScript reads a member of a union from each side). The function member of
    /// `M | ((gDM: GetDefaultMiddleware) => M)` types a function literal given there.
    /// Unions of more than a few types say too little to follow.
    fn union_type_sym(&mut self, ty: Node<'s>, level: usize) -> Option<SymId> {
        // `A | B | C` nests to the left, one union per `|`: flattened here, without
        // recursion (a generated union can have thousands of members).
        let mut members = Vec::new();
        let mut rest = Some(ty);
        while let Some(union) = rest.take() {
            for m in self.named_kids(union).into_iter().rev() {
                if m.kind_str() == "union_type" && rest.is_none() {
                    rest = Some(m);
                } else {
                    members.push(m);
                }
            }
            if members.len() > 2 * MAX_UNION_PARTS + 8 {
                return None;
            }
        }
        members.reverse();
        let mut value = None;
        let mut parts = 0;
        for m in members {
            if matches!(m.kind_str(), "literal_type" | "predefined_type") {
                continue;
            }
            parts += 1;
            if parts > MAX_UNION_PARTS {
                return None;
            }
            if let Some(sym) = self.type_sym_at(m, level) {
                value = Some(self.one_more(value, sym));
            }
        }
        value
    }

    /// The element types of a rest parameter's type (`ty`, inside its annotation).
    pub(crate) fn rest_elements(&self, ty: Node<'s>) -> Option<RestType<'s>> {
        match ty.kind_str() {
            "array_type" => ty.named_child(0).map(RestType::Each),
            "readonly_type" | "parenthesized_type" => self.rest_elements(ty.named_child(0)?),
            "generic_type" => {
                let name = self.text(ty.field(Field::Name)?);
                let first = ty
                    .field(Field::TypeArguments)
                    .and_then(|a| a.named_child(0))?;
                matches!(name, "Array" | "ReadonlyArray").then_some(RestType::Each(first))
            }
            "tuple_type" => Some(RestType::Tuple(
                self.named_kids(ty)
                    .into_iter()
                    .filter(|e| e.kind_str() != "comment")
                    .map(|e| {
                        e.field(Field::Type)
                            .and_then(|t| t.named_child(0).or(Some(t)))
                            .unwrap_or(e)
                    })
                    .collect(),
            )),
            _ => None,
        }
    }
}

/// What a rest parameter's type says of the arguments it gathers.
pub(crate) enum RestType<'t> {
    /// `H[]`, `Array<H>`, `readonly H[]`: each is an H.
    Each(Node<'t>),
    /// `[A, B]`: one of each, in order (a named member, `[path: P]`, by its type).
    Tuple(Vec<Node<'t>>),
}
