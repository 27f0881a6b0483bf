//! Literals bound to names: a function, class or object literal (maybe wrapped in
//! parentheses, `as`, a known wrapper call or `Object.create`) is the definition the name
//! stands for.

use tree_sitter::Node;

use crate::indexer::extract::fields::{Field, FieldExt};
use crate::indexer::extract::syntax::{
    is_class_node, is_function_node, is_literal_wrapper, wraps_literal,
};
use crate::indexer::extract::{Extractor, MAX_DEPTH};
use crate::indexer::facts::*;

/// Calls that wrap a function and return something used in its place: the binding
/// names the wrapped function (`const Button = forwardRef((props, ref) => ...)`).
const WRAPPERS: &[&str] = &[
    "memo",
    "forwardRef",
    "useCallback",
    "observer",
    "debounce",
    "throttle",
    "once",
    "defineComponent",
];

/// Calls that take a Vue component's options object and return the component: the
/// binding (or `export default`) names the options, whose functions are definitions.
const OBJECT_WRAPPERS: &[&str] = &["defineComponent", "defineNuxtComponent", "Vue.extend"];

impl<'s> Extractor<'s> {
    /// Binds whatever literal `value` is to `name`: a function, a class, an object,
    /// or a wrapped function. Returns None when `value` is not such a literal.
    pub(crate) fn bound_value(
        &mut self,
        value: Node<'s>,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> Option<DefIdx> {
        if depth >= MAX_DEPTH {
            // Too deep to walk as a definition: the caller walks it (and cuts it) as a
            // plain value.
            return None;
        }
        let kind = value.kind_str();
        if is_function_node(kind) {
            let def_kind = if container.is_some() {
                DefKind::Method
            } else {
                DefKind::Function
            };
            return Some(self.bound_function(value, def_kind, name, container, name_node, depth));
        }
        if is_class_node(kind) {
            return Some(self.class(value, name, container, name_node, depth));
        }
        if kind == "object" {
            // Objects nest objects without passing through `visit`: charge the frames.
            return Some(self.object_literal(value, name, container, name_node, depth + 2));
        }
        if is_literal_wrapper(kind) {
            let inner = value.named_child(0)?;
            if wraps_literal(inner) {
                return self.tokens_of_wrapping(value, inner, name, container, name_node, depth);
            }
            return None;
        }
        if kind == "call_expression" {
            if value
                .field(Field::Function)
                .is_some_and(|callee| self.text(callee) == "Object.create")
            {
                return Some(self.created_object(value, name, container, name_node, depth));
            }
            return self.wrapped_function(value, name, container, name_node, depth);
        }
        None
    }

    /// `var res = Object.create(http.ServerResponse.prototype)`: an object, whose members
    /// are what the file assigns to it next (`res.send = function () {}`, Express's
    /// pattern), whose methods have it as `this`, and which inherits the rest from its
    /// prototype, as a class from what it extends (Koa's `Object.create(this.context)`).
    fn created_object(
        &mut self,
        call: Node<'s>,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> DefIdx {
        let proto = call
            .field(Field::Arguments)
            .and_then(|args| args.named_child(0))
            .map(|proto| self.expr_sym(proto));
        let def = self.new_def(DefKind::Object, name, container, call, name_node);
        self.def_mut(def).set_extends(proto);
        self.names.push(def);
        self.visit(call, depth + 1);
        self.names.pop();
        def
    }

    /// `(function () {})`, `{...} as const` or `((...args) => {..}) as CreateAppFunction`:
    /// bind the inner literal, walk the rest.
    fn tokens_of_wrapping(
        &mut self,
        outer: Node<'s>,
        inner: Node<'s>,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> Option<DefIdx> {
        let children = self.kids(outer);
        let mut def = None;
        for child in children {
            if child == inner {
                def = self.bound_value(inner, name, container, name_node, depth + 1);
            } else {
                self.visit(child, depth + 1);
            }
        }
        // `(..) as CreateAppFunction`: callers see what the type says a call returns,
        // as TypeScript does, not what the body returns (zustand's `create` returns one
        // of two things by a condition its type resolves).
        if let (Some(d), "as_expression") = (def, outer.kind_str()) {
            if matches!(self.facts.def(d).kind, DefKind::Function | DefKind::Method) {
                let stated = outer.named_child(1).and_then(|t| self.value_of_type(t, 0));
                if let Some(t) = stated {
                    let returns = self.sym(Sym::Return(t));
                    self.def_mut(d).set_returns(Some(returns));
                }
            }
        }
        def
    }

    /// Whether `callee` is one of the known wrappers (`memo`, `React.memo`, ...).
    fn is_wrapper(&self, callee: Node<'s>) -> bool {
        let name = match callee.kind_str() {
            "identifier" => Some(callee),
            "member_expression" => callee.field(Field::Property),
            _ => None,
        };
        name.is_some_and(|n| WRAPPERS.contains(&self.text(n)))
    }

    /// `memo(Profile)`, `debounce(save, 100)`: a wrapper called on a named function
    /// stands for that function.
    pub(crate) fn wrapped_value(&self, call: Node<'s>) -> Option<Node<'s>> {
        let callee = call.field(Field::Function)?;
        if !self.is_wrapper(callee) {
            return None;
        }
        let first = call.field(Field::Arguments)?.named_child(0)?;
        matches!(first.kind_str(), "identifier" | "member_expression").then_some(first)
    }

    /// `const Button = forwardRef((props, ref) => ...)`: the function literal passed to
    /// a known wrapper is the definition the name stands for.
    fn wrapped_function(
        &mut self,
        call: Node<'s>,
        name: StrId,
        container: Option<DefIdx>,
        name_node: Option<Node<'s>>,
        depth: usize,
    ) -> Option<DefIdx> {
        let callee = call.field(Field::Function)?;
        let args = call.field(Field::Arguments)?;
        let first = args.named_child(0)?;
        if first.kind_str() == "object" && OBJECT_WRAPPERS.contains(&self.text(callee)) {
            self.record_call_of(call, CallKind::Call, callee, depth);
            let children = self.kids(args);
            let mut def = None;
            for child in children {
                if child == first {
                    def = Some(self.object_literal(child, name, container, name_node, depth + 2));
                } else {
                    self.visit(child, depth + 1);
                }
            }
            return def;
        }
        if !self.is_wrapper(callee) || !is_function_node(first.kind_str()) {
            return None;
        }
        // Record the wrapper call itself, then bind the literal.
        self.record_call_of(call, CallKind::Call, callee, depth);
        let children = self.kids(args);
        let mut def = None;
        for child in children {
            if child == first {
                def = Some(self.bound_function(
                    child,
                    DefKind::Function,
                    name,
                    container,
                    name_node,
                    depth + 1,
                ));
            } else {
                self.visit(child, depth + 1);
            }
        }
        def
    }
}
