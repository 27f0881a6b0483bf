//! Functions: the walk of a function's parts (parameters, signature, body), and the
//! definitions of declared, bound and anonymous functions.

use tree_sitter::Node;
use xxhash_rust::xxh3::xxh3_64;

use super::FnCtx;
use crate::indexer::extract::fields::{Field, FieldExt};
use crate::indexer::extract::syntax::{is_class_node, is_function_node};
use crate::indexer::extract::{Extractor, ScopeKind, ThisCtx};
use crate::indexer::facts::*;

impl<'s> Extractor<'s> {
    /// Walks a function node (declaration, expression, arrow, method) whose definition,
    /// if any, was already created: binds its parameters, hashes its signature and
    /// body, and attributes the calls inside to it.
    pub(crate) fn function_like(&mut self, node: Node<'s>, ctx: FnCtx, depth: usize) {
        // Read in the enclosing scope, where the types it names are.
        let doc_returns = match self.reads_jsdoc {
            true => self.doc_function(node),
            false => None,
        };
        // JSDoc's `@param` and `@returns` are a JavaScript function's stated contract: a
        // change to them is a change of its signature (see `blast::contract`).
        let doc_seed = std::mem::take(&mut self.doc_seed);
        self.push_scope(ScopeKind::Function);
        if let Some(def) = ctx.def {
            self.callers.push(def);
            self.names.push(def);
        }
        let pushed_this = match (ctx.this, node.kind_str()) {
            (_, "arrow_function") => false,
            (Some(this), _) => {
                self.this.push(this);
                true
            }
            (None, _) => {
                self.this.push(ThisCtx::Unknown);
                true
            }
        };
        let namespace = self.namespace.take();
        self.returns_to.push(ctx.def);
        // What it returns, where a type states it: JSDoc's `@returns`, or the result of
        // the function type it is given (`const p: PluginCreator = () => ({ .. })`);
        // its own return type, if it states one, replaces either.
        let contextual = self.function_is.map(|f| self.sym(Sym::Return(f)));
        self.stated_returns.push(doc_returns.or(contextual));
        self.declare_own_name(node, ctx.def);

        let plain = self.states_plain_return(node);
        self.plain_returns.push(plain);
        let stated = self.stated_sync_return(node);
        self.return_types.push(stated);
        let parts = self.function_parts(node, ctx, depth);
        self.plain_returns.pop();
        self.return_types.pop();
        self.doc_params.clear();

        self.namespace = namespace;
        self.returns_to.pop();
        self.stated_returns.pop();
        if pushed_this {
            self.this.pop();
        }
        if let Some(def) = ctx.def {
            self.callers.pop();
            self.names.pop();
            let signature_hash = self
                .tokens
                .hash_ranges(&parts.signature, parts.seed ^ doc_seed);
            let d = self.def_mut(def);
            d.signature_hash = signature_hash;
            d.body_hash = parts.body_hash.unwrap_or(0);
            // A stated return type wins over what the `return`s say; a JSDoc one adds
            // to them (nothing checks that the code does what its comment says).
            if parts.returns.is_some() {
                d.set_returns(parts.returns);
            } else if let Some(doc) = doc_returns {
                let inferred = d.returns();
                let returns = self.one_more(inferred, doc);
                self.def_mut(def).set_returns(Some(returns));
            }
        }
        self.pop_scope();
    }

    /// Walks a function's children: its parameters, signature and body, each in its
    /// token ranges.
    fn function_parts(&mut self, node: Node<'s>, ctx: FnCtx, depth: usize) -> FnParts {
        // Decorators walked before the definition (TypeScript puts a method's decorators
        // beside it in the class body) are part of its signature.
        let mut parts = FnParts {
            signature: match ctx.def {
                Some(_) => std::mem::take(&mut self.decorators),
                None => Vec::new(),
            },
            body_hash: None,
            returns: None,
            seed: 0,
        };
        let children = self.kids_with_fields(node);
        for (field, child) in children {
            match field {
                Some(field @ ("parameters" | "parameter")) => {
                    let start = self.tokens.mark();
                    // `x => x` and `(x) => x` are the same function.
                    let bare = field == "parameter";
                    if bare {
                        self.tokens.synthetic("(");
                    }
                    self.parameters(child, ctx.def, depth);
                    if bare {
                        self.tokens.synthetic(")");
                    }
                    parts.signature.push((start, self.tokens.mark()));
                }
                Some("return_type") | Some("type_parameters") | Some("decorator") => {
                    match field {
                        Some("return_type") => {
                            parts.returns = self.stated_return_type(child);
                            if let Some(def) = ctx.def {
                                self.note_result_kinds(def, child);
                            }
                        }
                        Some("type_parameters") => self.declare_type_parameters(child),
                        _ => {}
                    }
                    let start = self.tokens.mark();
                    self.visit(child, depth + 1);
                    parts.signature.push((start, self.tokens.mark()));
                }
                Some("body") => {
                    let start = self.tokens.mark();
                    self.function_body(child, ctx.def, depth);
                    parts.body_hash = Some(self.tokens.hash_since(start));
                }
                _ => {
                    parts.seed = self.modifier_seed(parts.seed, child);
                    self.visit(child, depth + 1);
                }
            }
        }
        parts
    }

    /// Walks a function's body: a block, or the expression an arrow function returns.
    fn function_body(&mut self, body: Node<'s>, def: Option<DefIdx>, depth: usize) {
        if body.kind_str() == "statement_block" {
            // The function scope is the body's scope.
            self.visit_children(body, depth + 1);
        } else if let (Some(def), true) = (
            def,
            is_function_node(body.kind_str()) || is_class_node(body.kind_str()),
        ) {
            // `() => (state) => ...`: the returned function is a definition.
            self.returned_literal(def, body, depth + 1);
        } else {
            // `(): Plugin => ({ Once(root) {} })`: the object is of the stated type.
            let inner = super::super::calls::unwrap_parens(body);
            if inner.kind_str() == "object" && inner != body && self.stated_return().is_some() {
                self.return_stated_object(body, inner, depth);
            } else {
                // `(v): boolean => check(v)`: what `check` returns goes where the
                // function's stated return type holds.
                let typed = self.begin_typed_result(Some(body));
                self.visit(body, depth + 1);
                self.end_typed_uses(typed);
            }
            // `() => new Foo()` returns what its body is.
            if let Some(def) = def {
                self.infer_return(def, body);
            }
        }
    }

    /// A named function expression sees its own name (`const f = function g() { g() }`):
    /// its definition `def`, if it has one.
    fn declare_own_name(&mut self, node: Node<'s>, def: Option<DefIdx>) {
        if matches!(
            node.kind_str(),
            "function_expression" | "function" | "generator_function"
        ) {
            if let Some(name) = node.field(Field::Name) {
                let name = self.intern_node(name);
                let value = match def {
                    Some(def) => self.sym(Sym::Def(def)),
                    None => self.unknown(),
                };
                self.declare(name, value, false);
            }
        }
    }

    /// `seed`, the signature hash's seed, with the modifier `child` (if it is one) in it.
    #[inline]
    fn modifier_seed(&self, seed: u64, child: Node<'s>) -> u64 {
        match child.kind_str() {
            "async" => seed | 1,
            "*" => seed | 2,
            "get" => seed | 4,
            "set" => seed | 8,
            "static" => seed | 16,
            // `private`, `override`, `readonly`, `abstract`, an optional `m?()`.
            "accessibility_modifier" | "override_modifier" | "readonly" | "abstract" | "?" => {
                seed ^ xxh3_64(self.text(child).as_bytes()).rotate_left(8)
            }
            _ => seed,
        }
    }

    pub(crate) fn function_declaration(&mut self, node: Node<'s>, depth: usize) {
        let Some(name_node) = node.field(Field::Name) else {
            return self.anonymous_function(node, depth);
        };
        let name = self.intern_node(name_node);
        let def = self.new_def(
            DefKind::Function,
            name,
            self.namespace,
            node,
            Some(name_node),
        );
        let value = self.sym(Sym::Def(def));
        self.declare(name, value, false);
        let this = self.constructor_this(def);
        let overloads = self.take_overload_returns(name);
        self.function_like(
            node,
            FnCtx {
                def: Some(def),
                this,
            },
            depth,
        );
        self.return_as_overloads(def, overloads);
    }

    /// A capitalised plain function is an ES5 constructor (`function Emitter() {
    /// this.on = function () {} }`): its `this` is an instance of it.
    fn constructor_this(&self, def: DefIdx) -> Option<ThisCtx> {
        let name = self.facts.def_name(def);
        name.starts_with(|c: char| c.is_ascii_uppercase())
            .then_some(ThisCtx::Of(def))
    }

    /// `declare function f(): T;` and overload signatures. Only declaration files keep
    /// them: elsewhere the implementation that follows is the definition.
    pub(crate) fn function_signature(&mut self, node: Node<'s>, depth: usize) {
        if !self.declaration_only {
            self.note_overload_return(node);
            return self.visit_children(node, depth);
        }
        self.function_declaration(node, depth)
    }

    /// An overload signature outside a declaration file (`function f(a: A): X;` before
    /// `function f(a) { ... }`): its stated return type joins those of the overloads of
    /// its name before it.
    pub(crate) fn note_overload_return(&mut self, node: Node<'s>) {
        let Some(name) = node.field(Field::Name) else {
            return;
        };
        let name = self.intern_node(name);
        let Some(returns) = node
            .field(Field::ReturnType)
            .and_then(|t| self.return_type(t))
        else {
            return;
        };
        let earlier = match self.overload_returns.take() {
            Some((n, r)) if n == name => Some(r),
            _ => None,
        };
        // Overloads that all return `this` keep a fluent chain on its receiver.
        let same = earlier.is_some_and(|e| self.facts.sym(e) == self.facts.sym(returns));
        let all = match same {
            true => returns,
            false => self.one_more(earlier, returns),
        };
        self.overload_returns = Some((name, all));
    }

    /// What the overloads of `name` just walked return, if any were (taken: they
    /// describe only the implementation that follows them).
    pub(crate) fn take_overload_returns(&mut self, name: StrId) -> Option<SymId> {
        match self.overload_returns.take() {
            Some((n, r)) if n == name => Some(r),
            _ => None,
        }
    }

    /// Sets what calls of `def` return to what its overloads state.
    pub(crate) fn return_as_overloads(&mut self, def: DefIdx, overloads: Option<SymId>) {
        if let Some(r) = overloads {
            self.def_mut(def).set_returns(Some(r));
        }
    }

    /// A function literal not bound to a name (a callback): not a definition; its calls
    /// belong to the enclosing one.
    pub(crate) fn anonymous_function(&mut self, node: Node<'s>, depth: usize) {
        self.function_like(
            node,
            FnCtx {
                def: None,
                this: None,
            },
            depth,
        );
    }

    /// Creates the definition for a function literal bound to `name` and walks it.
    pub(crate) fn bound_function(
        &mut self,
        node: Node<'s>,
        kind: DefKind,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> DefIdx {
        let def = self.new_def(kind, name, container, node, name_node);
        let this = match (kind, container) {
            (DefKind::Function, _) | (_, None) if node.kind_str() != "arrow_function" => {
                self.constructor_this(def)
            }
            (DefKind::Function, _) | (_, None) => None,
            (_, Some(c)) => Some(ThisCtx::Of(c)),
        };
        self.function_like(
            node,
            FnCtx {
                def: Some(def),
                this,
            },
            depth,
        );
        def
    }
}

/// What the walk of a function's children found: the token ranges of its signature,
/// its body's hash, its stated return type, and the hash seed of its modifiers.
struct FnParts {
    signature: Vec<(usize, usize)>,
    body_hash: Option<u64>,
    returns: Option<SymId>,
    seed: u64,
}
