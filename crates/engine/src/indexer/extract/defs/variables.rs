//! Variables: `const`, `let` and `var` declarations, and the bindings of `for (.. of ..)`.

use tree_sitter::Node;

use crate::indexer::extract::fields::{Field, FieldExt};
use crate::indexer::extract::syntax::{is_function_node, is_literal_wrapper};
use crate::indexer::extract::Extractor;
use crate::indexer::facts::*;

impl<'s> Extractor<'s> {
    pub(crate) fn variable_declaration(&mut self, node: Node<'s>, depth: usize) {
        let hoist = node.kind_str() == "variable_declaration";
        let children = self.kids(node);
        for child in children {
            if child.kind_str() == "variable_declarator" {
                self.variable_declarator(child, hoist, depth + 1);
            } else {
                self.visit(child, depth + 1);
            }
        }
    }

    fn variable_declarator(&mut self, node: Node<'s>, hoist: bool, depth: usize) {
        // `const { id } = load()`: members of `load`'s result are read.
        let reads = self.begin_destructured_read(node);
        // `const x: T = f()`: `f`'s result goes where a type is stated.
        let typed = self.begin_typed_binding(node);
        // `const [a, b] = f()`: `f`'s result is iterated.
        let iterated = node
            .field(Field::Name)
            .is_some_and(|n| n.kind_str() == "array_pattern")
            && node
                .field(Field::Value)
                .is_some_and(|v| self.begin_result_use(v, CallShape::ITERATED));
        self.declarator(node, hoist, depth);
        if iterated {
            self.end_typed_use();
        }
        if typed {
            self.end_typed_use();
        }
        if reads {
            self.end_result_read();
        }
    }

    fn declarator(&mut self, node: Node<'s>, hoist: bool, depth: usize) {
        let Some(target) = node.field(Field::Name) else {
            return self.visit_children(node, depth);
        };
        let value = node.field(Field::Value);
        let annotation = node.field(Field::Type);
        if target.kind_str() == "identifier" {
            // `export const f = ...` in a namespace: a member of it.
            let namespace = self.namespace;
            let name = self.intern_node(target);
            self.tokens.leaf(target, self.src);
            let mut typed = None;
            let mut doc_typed = false;
            if let Some(t) = annotation {
                typed = self.type_annotation(t);
                self.visit(t, depth + 1);
                if let Some(typed) = typed {
                    self.declare(name, typed, hoist);
                }
            } else if self.reads_jsdoc {
                // `/** @type {Knex} */ let db = ...`
                typed = self.doc_type_at(node.start_byte());
                doc_typed = typed.is_some();
                if let Some(typed) = typed {
                    self.declare(name, typed, hoist);
                }
            }
            let mut member_value = typed;
            if let Some(value) = value {
                // Declare first: the literal may refer to itself.
                let placeholder = self.unknown();
                let binding = self.declare(name, placeholder, hoist);
                // `const parse: Parse = (schema, value) => ...`: the literal's parameters
                // are what the stated function type says.
                // (`= function computed() {..} as any` too: the cast changes its type,
                // not what calling the name runs.)
                let inner = unwrap_wrappers(value);
                let literal = is_function_node(inner.kind_str());
                if literal {
                    self.function_is = typed;
                } else if inner.kind_str() == "object" {
                    self.object_is = typed.or_else(|| self.satisfied_type(value));
                }
                let def = self.bound_value(value, name, None, Some(target), depth + 1);
                self.function_is = None;
                self.object_is = None;
                if let Some(def) = def {
                    // Cast, the function's own type is gone: a call gives what the
                    // stated type says it returns, as TypeScript types it.
                    if let (Some(typed), true) = (typed, literal && inner != value) {
                        let returns = self.sym(Sym::Return(typed));
                        self.def_mut(def).set_returns(Some(returns));
                    }
                    let sym = self.sym(Sym::Def(def));
                    let current = self.facts.bindings[binding as usize].value;
                    let shared = matches!(self.facts.syms.at(current), Sym::Either(..));
                    if literal && !shared {
                        // The literal is the value: calling the name runs its code,
                        // whatever type it was given. (A name that is also a type keeps
                        // both meanings: `rebind` fills in the value's.)
                        self.facts.bindings[binding as usize].value = sym;
                    } else if let (Some(typed), true) = (typed, doc_typed) {
                        // A JSDoc type adds to what the code says: nothing checks it.
                        let both = self.sym(Sym::Either(typed, sym));
                        self.facts.bindings[binding as usize].value = both;
                    } else if let (Some(typed), "call_expression", false) =
                        (typed, value.kind_str(), shared)
                    {
                        // `const Dialog: React.FC<P> = observer((p: P) => ...)`: the
                        // wrapped function is what rendering or calling the name runs;
                        // the stated type says what it receives and returns.
                        let both = self.sym(Sym::Either(typed, sym));
                        self.facts.bindings[binding as usize].value = both;
                    } else {
                        self.rebind(binding, sym);
                    }
                    if namespace.is_some() && self.facts.def(def).container().is_none() {
                        self.def_mut(def).set_container(namespace);
                        member_value = None;
                    }
                } else if value.kind_str() == "assignment_expression" {
                    // `var proto = module.exports = function () {}`: the assignment
                    // defines the literal; the name stands for it.
                    self.visit(value, depth + 1);
                    let sym = self.expr_sym(value);
                    self.rebind(binding, sym);
                    member_value = Some(self.facts.bindings[binding as usize].value);
                } else {
                    let sym = self.expr_sym(value);
                    match typed {
                        // `export const right: <A>(a: A) => Either<never, A> = _.right`:
                        // a function type only describes the function it is given;
                        // calling the name runs that function (fp-ts' style throughout).
                        // `export const produce: IProduce = immer.produce`: the same
                        // with a named type (an interface of call signatures, say).
                        Some(typed)
                            if annotation
                                .is_some_and(|a| states_a_function(a) || names_a_type(a))
                                && is_alias(value.kind_str()) =>
                        {
                            let both = self.sym(Sym::Either(typed, sym));
                            self.facts.bindings[binding as usize].value = both;
                        }
                        // A JSDoc type adds to what the code says: nothing checks it.
                        Some(typed) if doc_typed => {
                            let both = self.sym(Sym::Either(typed, sym));
                            self.facts.bindings[binding as usize].value = both;
                        }
                        _ => self.rebind(binding, sym),
                    }
                    self.visit(value, depth + 1);
                    member_value = Some(self.facts.bindings[binding as usize].value);
                }
            } else {
                let unknown = self.unknown();
                self.declare(name, unknown, hoist);
            }
            if let (Some(ns), Some(value)) = (namespace, member_value) {
                self.add_prop(ns, name, value);
            }
            // `const` (a `lexical_declaration` whose first word is `const`) keeps a
            // literal's type; `let` and `var` widen it.
            let mutable = node
                .parent()
                .and_then(|d| d.child(0))
                .is_none_or(|word| word.kind_str() != "const");
            self.note_declared_kinds(name, annotation, value, mutable);
            if mutable && annotation.is_none() {
                self.note_type_from_value(name, value);
                if value.is_none() {
                    self.note_auto_typed(name);
                }
            }
            if let (None, Some(value)) = (annotation, value) {
                self.note_any_value(name, value);
            }
            // `declare global { var registry: Registry }`, or a script's top-level
            // `declare var registry: Registry`: a member of the global object.
            // Only inside a `declare` statement can it be (and `parent` walks from
            // the root).
            let declaration = match typed {
                Some(_) if self.in_declare > 0 => node.parent(),
                _ => None,
            };
            if let (Some(value), Some(declaration)) = (typed, declaration) {
                let reach = if super::declarations::in_declare_global(declaration) {
                    Some(Reach::Global)
                } else if is_top_level_declare(declaration) {
                    Some(Reach::ScriptGlobal)
                } else {
                    None
                };
                if let Some(reach) = reach {
                    let object = self.global_object(declaration, reach);
                    self.add_prop(object, name, value);
                }
            }
        } else {
            let sym = value.map(|v| self.expr_sym(v));
            self.declare_pattern(target, sym, hoist);
            self.visit(target, depth + 1);
            self.visit_opt(annotation, depth + 1);
            self.visit_opt(value, depth + 1);
        }
    }

    /// Sets a binding's value unless a stated type already gave it one.
    fn rebind(&mut self, binding: BindingIdx, value: SymId) {
        let current = self.facts.bindings[binding as usize].value;
        match self.facts.syms.at(current) {
            Sym::Unknown => self.facts.bindings[binding as usize].value = value,
            // The value beside a type of the same name, declared before it was known.
            Sym::Either(ty, placeholder)
                if matches!(self.facts.syms.at(placeholder), Sym::Unknown) =>
            {
                self.facts.syms.set(current, Sym::Either(ty, value))
            }
            _ => {}
        }
    }

    pub(crate) fn for_in_bindings(&mut self, node: Node<'s>) {
        if node.field(Field::Kind).is_none() {
            return;
        }
        let hoist = node
            .field(Field::Kind)
            .is_some_and(|k| k.kind_str() == "var");
        // `for (const item of items)`: item is an element of items.
        let element = match (
            node.child_by_field_name("operator"),
            node.field(Field::Right),
        ) {
            (Some(op), Some(right)) if op.kind_str() == "of" => {
                let array = self.expr_sym(right);
                Some(self.sym(Sym::Element(array)))
            }
            _ => None,
        };
        if let Some(left) = node.field(Field::Left) {
            self.declare_pattern(left, element, hoist);
        }
    }
}

/// Whether a type annotation states a function: a function type, or a type literal of
/// call signatures only (an overload list).
fn states_a_function(annotation: Node<'_>) -> bool {
    let Some(ty) = annotation.named_child(0) else {
        return false;
    };
    match ty.kind_str() {
        "function_type" => true,
        "object_type" => {
            let mut cursor = ty.walk();
            let mut members = ty
                .named_children(&mut cursor)
                .filter(|m| m.kind_str() != "comment")
                .peekable();
            members.peek().is_some() && members.all(|m| m.kind_str() == "call_signature")
        }
        _ => false,
    }
}

/// `declare var x: T` at the top of a file.
fn is_top_level_declare(declaration: Node<'_>) -> bool {
    declaration
        .parent()
        .filter(|p| p.kind_str() == "ambient_declaration")
        .and_then(|p| p.parent())
        .is_some_and(|p| p.kind_str() == "program")
}

/// `: IProduce`, `: Factory<T>`, `: api.Handler`, `: Immer["produce"]`: a type named,
/// not written out.
fn names_a_type(annotation: Node<'_>) -> bool {
    annotation.named_child(0).is_some_and(|ty| {
        matches!(
            ty.kind_str(),
            "type_identifier" | "generic_type" | "nested_type_identifier" | "lookup_type"
        )
    })
}

/// A name or a path of names (`impl`, `_.right`, `RA.lookup`): another name for a value.
fn is_alias(kind: &str) -> bool {
    matches!(kind, "identifier" | "member_expression")
}

impl<'s> Extractor<'s> {
    /// The object that holds this file's `declare global` variables (`reach`
    /// Global) or its top-level `declare var` ones (ScriptGlobal), named `globalThis`,
    /// made at the first of them.
    fn global_object(&mut self, at: Node<'s>, reach: Reach) -> DefIdx {
        let slot = match reach {
            Reach::ScriptGlobal => 1,
            _ => 0,
        };
        if let Some(object) = self.global_objects[slot] {
            return object;
        }
        let name = self.intern("globalThis");
        let object = self.new_def(DefKind::Object, name, None, at, None);
        self.def_mut(object).reach = reach;
        self.global_objects[slot] = Some(object);
        object
    }
}

/// `value` inside any `( )`, `as T` and `satisfies T` around it.
pub(super) fn unwrap_wrappers(mut value: Node) -> Node {
    for _ in 0..8 {
        match value.named_child(0) {
            Some(inner) if is_literal_wrapper(value.kind_str()) => value = inner,
            _ => break,
        }
    }
    value
}
