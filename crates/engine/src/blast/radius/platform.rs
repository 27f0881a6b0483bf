//! What the platform's own functions and classes take, where a promise is not it:
//! `fetch(bypass(request))` passes a promise where `RequestInfo | URL` is stated, and
//! the compiler rejects it. The graph has no definition behind a global, so a call of
//! one has no stated parameter to read; these few are read here by name.

use crate::graph::Facts;
use crate::indexer::facts::{CallKind, Sym, ValueKinds};

/// What argument `slot` of call `call` of `facts` accepts, where the callee is one of
/// the platform's functions or classes below, called by its global name (not one the
/// file declares); ANY otherwise.
pub(super) fn accepted(facts: &Facts, call: usize, slot: u8) -> ValueKinds {
    let Some(site) = facts.calls.get(call) else {
        return ValueKinds::ANY;
    };
    let (object, name) = match facts.sym(site.callee) {
        Sym::Global(name) => (None, facts.str(name)),
        Sym::Member(base, name) => match facts.sym(base) {
            Sym::Global(object) => (Some(facts.str(object)), facts.str(name)),
            _ => return ValueKinds::ANY,
        },
        _ => return ValueKinds::ANY,
    };
    let new = site.kind == CallKind::New;
    let strings = ValueKinds::STRINGS;
    // A `Request`, a `URL` or a `Date` is a global class's instance.
    let instances = ValueKinds::INSTANCE | ValueKinds::BUILTIN;
    // (Not `new URL(x)`: Node's types take any `{ toString(): string }`, a promise too.)
    match (object, name, new, slot) {
        // `RequestInfo | URL`.
        (None, "fetch", false, 0) => strings | instances,
        (None, "Date", true, 0) => strings | ValueKinds::NUMBER | instances,
        (
            None,
            "parseInt" | "parseFloat" | "atob" | "btoa" | "decodeURI" | "decodeURIComponent",
            false,
            0,
        ) => strings,
        (None, "encodeURI" | "encodeURIComponent", false, 0) => {
            strings | ValueKinds::NUMBER | ValueKinds::BOOLEAN
        }
        (Some("JSON"), "parse", false, 0) => strings,
        (
            Some("Math"),
            "abs" | "ceil" | "floor" | "round" | "trunc" | "sign" | "sqrt" | "cbrt" | "max" | "min"
            | "pow" | "log" | "exp",
            false,
            _,
        ) => ValueKinds::NUMBER,
        // `TimerHandler`: a string or a function.
        (None, "setTimeout" | "setInterval", false, 0) => strings | ValueKinds::CALLABLE,
        _ => ValueKinds::ANY,
    }
}
