//! Which callers a change breaks (issue 44): each direct call site of a changed function,
//! checked against the function's new contract and what changed in it, gets a verdict
//! and its reason. `breaks` is said only where the call, as written, cannot match the
//! new contract; `check` where the contract changed in a way the call may depend on and
//! the facts cannot decide; `fine` where the contract is unchanged (a body-only change)
//! or the call already matches it.

use serde::{Deserialize, Serialize};

use super::contract::{Contract, Param, ParamKind, SeenThrough};
use super::diff::Change;
use crate::indexer::facts::{CallArgs, ValueKinds};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Breaks,
    Check,
    Fine,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Breaks => "breaks",
            Verdict::Check => "check",
            Verdict::Fine => "fine",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judged {
    pub verdict: Verdict,
    pub reason: String,
    /// Where the compiler would report the error this verdict foresees.
    #[serde(skip)]
    pub reported: Reported,
}

/// Where the compiler reports a call's error: what a `@ts-expect-error` comment
/// silences depends on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reported {
    /// At the call itself (a missing argument), or where its result goes.
    #[default]
    AtCall,
    /// At one of its arguments (one too many, one of the wrong kind, an object's
    /// keys).
    AtArgument,
    /// At a member read from its result.
    AtRead,
}

impl Judged {
    /// The same finding, for the reviewer to confirm: `why` says what keeps it from
    /// being sure.
    pub fn checked(self, why: impl std::fmt::Display) -> Judged {
        judged(Verdict::Check, format!("{}; {why}", self.reason))
    }
}

fn judged(verdict: Verdict, reason: String) -> Judged {
    Judged {
        verdict,
        reason,
        reported: Reported::AtCall,
    }
}

/// A verdict whose error the compiler reports at an argument or at a read.
fn judged_at(reported: Reported, verdict: Verdict, reason: String) -> Judged {
    Judged {
        reported,
        ..judged(verdict, reason)
    }
}

/// Names in a reason, at most a few: a function can have any number of parameters, and
/// each caller's reason repeats them.
fn listed(names: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut out = names
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        out.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    out
}

fn arguments(n: u8) -> String {
    match n {
        1 => "1 argument".to_string(),
        n if n >= CallArgs::MAX_COUNT => format!("{n} or more arguments"),
        n => format!("{n} arguments"),
    }
}

/// The reason for a call of a function renamed from `old` (its qualified name) to `new`.
pub fn renamed(old: &str, new: &str) -> Judged {
    let old = old.rsplit('.').next().unwrap_or(old);
    judged(Verdict::Breaks, format!("`{old}` was renamed to `{new}`"))
}

/// A now-async function's result, not awaited, used where a promise does not do: a
/// stated type, an assignment (in TypeScript: the place has a type), an iteration (a
/// promise is not iterable), a condition (a promise always passes).
fn promise_used(name: &str, site: &Site, typed: bool) -> Option<Judged> {
    let (verdict, what) = site.uses.iter().find_map(|u| match u {
        ResultUse::Typed => Some((Verdict::Breaks, "goes where a type is stated")),
        ResultUse::Iterated => Some((Verdict::Breaks, "is iterated")),
        ResultUse::Tested => Some((Verdict::Breaks, "is tested as a condition")),
        ResultUse::Called => Some((Verdict::Breaks, "is called")),
        ResultUse::Decorates => Some((Verdict::Breaks, "is applied as a decorator")),
        ResultUse::Operand => Some((
            Verdict::Breaks,
            "is an operand of arithmetic or of a comparison with a primitive",
        )),
        ResultUse::Returned if typed => Some((
            Verdict::Breaks,
            "is returned by a callback whose stated result a promise does not fit",
        )),
        ResultUse::Returned => None,
        ResultUse::Assigned if typed => Some((Verdict::Breaks, "is assigned where a type holds")),
        ResultUse::Assigned => None,
        ResultUse::Passed if typed => Some((
            Verdict::Breaks,
            "is passed to a parameter whose stated type a promise does not fit",
        )),
        ResultUse::Passed => None,
        ResultUse::Member if typed => Some((
            Verdict::Breaks,
            "is a property of an object passed where the property's stated type a promise does not fit",
        )),
        ResultUse::Member => None,
    })?;
    Some(judged(
        verdict,
        format!("its result {what}, and `{name}` now returns a promise (not awaited)"),
    ))
}

/// The first argument of the `n` a call passes whose kind of value the parameter it
/// now lands on does not accept, where the parameter at its place before did: the
/// compiler rejects the call. The reason, or None.
fn mistyped(name: &str, old: &Contract, new: &Contract, site: &Site, n: usize) -> Option<String> {
    // A call that passes too few or too many arguments for the new contract is judged
    // by its count: the compiler reports that, not its arguments' types (and a call
    // already short before the change is no newer break for a type).
    if n < new.min_args() || new.max_args().is_some_and(|max| n > max) {
        return None;
    }
    let literal = site.literals.iter().find_map(|(slot, value)| {
        let at = usize::from(*slot);
        let (now, before) = (param_at(new, at)?, param_at(old, at)?);
        let takes = |p: &Param| match &p.literals {
            Some(values) => values.contains(value),
            None => p.accepts.meets(ValueKinds::LITERAL_STRING),
        };
        (at < n && now.literals.is_some() && !takes(now) && takes(before)).then(|| {
            format!(
                "passes '{value}' as argument {}, where `{name}` now takes `{}`, whose stated type does not list that string",
                at + 1,
                now.name
            )
        })
    });
    if literal.is_some() {
        return literal;
    }
    // An object literal now landing on another parameter, whose type requires keys it
    // lacks (and the parameter at its place before did not). (A parameter that stayed
    // in place and requires more is judged with the other changes of keys.)
    let object = site.objects.iter().find_map(|(slot, keys, open)| {
        let at = usize::from(*slot);
        let (now, before) = (param_at(new, at)?, param_at(old, at)?);
        if at >= n || *open || now.kind == ParamKind::Rest || now.name == before.name {
            return None;
        }
        let missing: Vec<&str> = now
            .keys
            .iter()
            .filter(|(k, required)| {
                *required && !keys.contains(k) && !before.keys.iter().any(|(was, r)| was == k && *r)
            })
            .map(|(k, _)| k.as_str())
            .collect();
        if !missing.is_empty() {
            return Some(format!(
                "the object passed as argument {} lacks {}, which `{name}` now requires (`{}`)",
                at + 1,
                listed(&quoted(&missing)),
                now.name
            ));
        }
        // A stated object type is all an object literal may hold (an empty one, `{}`,
        // takes anything).
        let extra: Vec<&str> = keys
            .iter()
            .map(String::as_str)
            .filter(|k| !now.keys.iter().any(|(nk, _)| nk == k))
            .collect();
        (now.closed && !now.keys.is_empty() && !extra.is_empty()).then(|| {
            format!(
                "the object passed as argument {} holds {}, which `{name}` does not take there (`{}`)",
                at + 1,
                listed(&quoted(&extra)),
                now.name
            )
        })
    });
    if object.is_some() {
        return object;
    }
    site.kinds.iter().find_map(|&(slot, kinds)| {
        let at = usize::from(slot);
        if at >= n || kinds.is_any() {
            return None;
        }
        let now = param_at(new, at)?;
        let before = param_at(old, at)?;
        (!kinds.meets(now.accepts) && fitted(kinds, before)).then(|| {
            format!(
                "passes {} as argument {}, where `{name}` now takes `{}`, whose stated type does not accept one",
                kinds.describe(),
                at + 1,
                now.name
            )
        })
    })
}

/// The members every object has, a promise as well (from `Object.prototype`).
const OBJECT_MEMBERS: [&str; 7] = [
    "toString",
    "toLocaleString",
    "valueOf",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "constructor",
];

/// Whether an argument of `kinds` fitted the parameter `before` (so that not fitting
/// the one it lands on now is the change's doing). `null` or `undefined` fitted a
/// parameter of a type not known here only where it takes anything (no stated type,
/// `any`, `unknown`) or it is `undefined` on an optional one: a type of another file
/// may as well not have admitted it (the call failed already).
fn fitted(kinds: ValueKinds, before: &Param) -> bool {
    if kinds.within(ValueKinds::NULLISH) && before.accepts.is_any() {
        let anything = before
            .stated
            .as_deref()
            .is_none_or(|t| matches!(t, "any" | "unknown"));
        anything
            || (kinds == ValueKinds::UNDEFINED
                && matches!(before.kind, ParamKind::Optional | ParamKind::Defaulted))
    } else {
        kinds.meets(before.accepts)
    }
}

/// The parameter an argument at `at` lands on: the rest parameter's, past its place.
fn param_at(contract: &Contract, at: usize) -> Option<&Param> {
    match contract.params.get(at) {
        Some(p) => Some(p),
        None => contract.params.last().filter(|p| p.kind == ParamKind::Rest),
    }
}

/// A use of a call's result that a promise in its place changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultUse {
    /// It goes where a type a promise is not is stated: `const x: T = f()`, `return
    /// f()` in a function stated to return a `T`.
    Typed,
    /// It is assigned to a variable or a property, which has a type in TypeScript.
    Assigned,
    /// It is iterated: `for (const x of f())`, `const [a, b] = f()`, `g(...f())`.
    Iterated,
    /// It is tested as a condition: `if (f())`, `if (ready || f())`, `f() ? a : b`,
    /// `f() && x`.
    Tested,
    /// It is called: `getFetch()(url)` (a promise is not a function).
    Called,
    /// It is applied as a decorator: `@Length(1, 9)` (a promise is not a function).
    Decorates,
    /// It is an operand of arithmetic, or compared with a primitive: `f() > 0`,
    /// `f() === "ok"` (a promise is neither a number nor comparable with one).
    Operand,
    /// It is passed to a parameter whose stated type a promise does not fit
    /// (`digest(concat(a, b))`, where `digest` takes a `string`).
    Passed,
    /// It is what an arrow function passed as an argument returns, where the
    /// parameter's stated function type says it returns what a promise is not
    /// (`group('/a', (app) => app.get(...))`, `run: (app: App) => App`).
    Returned,
    /// It is a property of an object literal passed where the parameter's stated type
    /// says what that property is, and a promise is not that (`persist(init, {
    /// storage: createStorage() })`, `storage?: PersistStorage`).
    Member,
}

/// What one call site passes and reads, as the facts record it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Site {
    /// None: not a call that passes arguments here, such as a function passed by name.
    pub args: Option<CallArgs>,
    /// The object literals passed: the argument (from 0), its keys, and whether they
    /// are not all it has (a spread).
    pub objects: Vec<(u8, Vec<String>, bool)>,
    /// The members read from its result (`f().x`, `const { x } = await f()`).
    pub reads: Vec<String>,
    /// What is done with its result that a promise does not allow (`return f()` in a
    /// function stated to return a `T`, `parsed.search = f()`, `if (f())`).
    pub uses: Vec<ResultUse>,
    /// The arguments whose syntax says what kind of value they are (`"a"`, `[x]`), by
    /// their place (from 0).
    pub kinds: Vec<(u8, ValueKinds)>,
    /// The string literals passed, by their place, where their value is known.
    pub literals: Vec<(u8, String)>,
    /// The call surely reaches other definitions too (`result.isErr()`, `result` an
    /// `Ok | Err`): TypeScript checks it against one signature made of all of theirs,
    /// which takes as many arguments as the longest.
    pub reaches_others: bool,
    /// The compiler reads the callee, or the object it is a member of, as `any` here
    /// (see `CallShape::ANY_RECEIVER`): it checks nothing of the call.
    pub any_receiver: bool,
}

impl Site {
    pub fn of(args: Option<CallArgs>) -> Site {
        Site {
            args,
            ..Site::default()
        }
    }

    /// Forgets that an argument is `null` or `undefined`, where the caller's checker
    /// does not check them (its strict null checks are off or not known): every type
    /// admits both there.
    pub fn without_nulls(&mut self) {
        self.kinds
            .retain(|&(_, kinds)| kinds.is_any() || !kinds.within(ValueKinds::NULLISH));
    }

    /// The call as its callee receives it when it is `f.call(self, ...)` (with
    /// `apply`, `f.apply(self, args)`): the first argument is `this`, not a parameter's;
    /// an array's elements are the arguments, as a spread's are.
    pub fn unbind(&mut self, apply: bool) {
        if let Some(args) = &mut self.args {
            if apply {
                args.spread = true;
            } else if args.count < CallArgs::MAX_COUNT {
                args.count = args.count.saturating_sub(1);
            }
        }
        let shift = |slot: u8| if apply { None } else { slot.checked_sub(1) };
        self.kinds = self
            .kinds
            .iter()
            .filter_map(|&(s, k)| Some((shift(s)?, k)))
            .collect();
        self.objects = std::mem::take(&mut self.objects)
            .into_iter()
            .filter_map(|(s, keys, open)| Some((shift(s)?, keys, open)))
            .collect();
        self.literals = std::mem::take(&mut self.literals)
            .into_iter()
            .filter_map(|(s, v)| Some((shift(s)?, v)))
            .collect();
    }

    fn object_at(&self, slot: usize) -> Option<(&[String], bool)> {
        self.objects
            .iter()
            .find(|(s, _, _)| usize::from(*s) == slot)
            .map(|(_, keys, open)| (keys.as_slice(), *open))
    }
}

fn quoted(names: impl IntoIterator<Item = impl AsRef<str>>) -> Vec<String> {
    names
        .into_iter()
        .map(|n| format!("`{}`", n.as_ref()))
        .collect()
}

/// The members `old` returned that `new` no longer does, when both are known.
fn removed_members<'c>(old: Option<&'c Contract>, new: Option<&Contract>) -> Vec<&'c str> {
    let (Some(Some(before)), Some(Some(after))) = (
        old.map(|c| c.returns.as_ref()),
        new.map(|c| c.returns.as_ref()),
    ) else {
        return Vec::new();
    };
    before
        .iter()
        .filter(|k| !after.contains(k))
        .map(String::as_str)
        .collect()
}

/// The members of the result this call reads that `new` no longer returns: a break.
fn reads_removed(
    name: &str,
    old: Option<&Contract>,
    new: Option<&Contract>,
    site: &Site,
) -> Option<Judged> {
    let removed = removed_members(old, new);
    let read: Vec<&str> = site
        .reads
        .iter()
        .map(String::as_str)
        .filter(|r| removed.contains(r))
        .collect();
    (!read.is_empty()).then(|| {
        judged(
            Verdict::Breaks,
            format!(
                "reads {} from the result of `{name}`, which no longer returns {}",
                listed(&quoted(read.iter().map(|r| format!(".{r}")))),
                if read.len() == 1 { "it" } else { "them" }
            ),
        )
    })
}

/// The verdict on one call of `name`, changed as `change` from `old` to `new` (None:
/// not read), made with `args` (None: not a call that passes arguments here, such as a
/// function passed by name).
pub fn judge(
    name: &str,
    change: Change,
    old: Option<&Contract>,
    new: Option<&Contract>,
    args: Option<CallArgs>,
) -> Judged {
    judge_in(name, change, old, new, args, false)
}

/// [`judge`], for a call in a TypeScript file when `typed`: there more arguments than
/// parameters is a compile error, not arguments ignored.
pub fn judge_in(
    name: &str,
    change: Change,
    old: Option<&Contract>,
    new: Option<&Contract>,
    args: Option<CallArgs>,
    typed: bool,
) -> Judged {
    judge_site(name, change, old, new, &Site::of(args), typed)
}

/// [`judge_in`], with what the call site passes in object literals and reads from the
/// result.
pub fn judge_site(
    name: &str,
    change: Change,
    old: Option<&Contract>,
    new: Option<&Contract>,
    site: &Site,
    typed: bool,
) -> Judged {
    let judged = judge_contract(name, change, old, new, site, typed);
    // A function passed to another call (`export default defineDriver((opts) => ...)`)
    // is called through what that call returns, and one bound to a name with a stated
    // type through that type: not the literal's signature, but that one, is what a
    // call is checked against, and it is not read here.
    let seen_through = new.or(old).and_then(|c| c.seen_through);
    if let (Verdict::Breaks, Some(how), true) = (
        judged.verdict,
        seen_through,
        matches!(
            change,
            Change::Signature | Change::SignatureAndBody | Change::Body
        ),
    ) {
        let how = match how {
            SeenThrough::Call => {
                "is passed to another call, and callers reach it through what that call returns"
            }
            SeenThrough::StatedType => {
                "has a stated type, and callers are checked against that type"
            }
        };
        return judged.checked(format_args!("but `{name}` {how}"));
    }
    judged
}

fn judge_contract(
    name: &str,
    change: Change,
    old: Option<&Contract>,
    new: Option<&Contract>,
    site: &Site,
    typed: bool,
) -> Judged {
    let args = site.args;
    match change {
        Change::Removed => {
            return judged(Verdict::Breaks, format!("`{name}` was removed"));
        }
        Change::Renamed => {
            return judged(Verdict::Breaks, format!("`{name}` was renamed"));
        }
        Change::Unexported => {
            return judged(
                Verdict::Breaks,
                format!("`{name}` is no longer exported under the name this module imports"),
            );
        }
        Change::Added => {
            // A call written before the function existed now reaches it (it shadows
            // what the name meant): nothing to match against, everything to look at.
            return judged(
                Verdict::Check,
                format!("`{name}` is new, and this call, which the change did not touch, now reaches it"),
            );
        }
        Change::Body => {
            // What it returns is part of the contract, and a body's `return`s say it.
            if let Some(broken) = reads_removed(name, old, new, site) {
                return broken;
            }
            // A key no longer in the object it returns, where this call passes the
            // result on or keeps it (reading no member here): what reads it is
            // elsewhere (`dispatch(action())`).
            let removed = removed_members(old, new);
            let kept = site.args.is_some_and(|a| !a.discarded) && site.reads.is_empty();
            if !removed.is_empty() && kept {
                return judged(
                    Verdict::Check,
                    format!(
                        "`{name}` no longer returns {}, and this call uses its result",
                        listed(&quoted(&removed))
                    ),
                );
            }
            return judged(
                Verdict::Fine,
                "only the body changed: the contract is the same".to_string(),
            );
        }
        Change::Signature | Change::SignatureAndBody => {}
    }
    if let Some(broken) = reads_removed(name, old, new, site) {
        return broken;
    }
    let Some(new) = new else {
        return judged(
            Verdict::Check,
            format!("the signature of `{name}` changed in a way not read here"),
        );
    };
    let Some(args) = args else {
        return judged(
            Verdict::Check,
            format!("the signature of `{name}` changed; this use passes no arguments here"),
        );
    };
    if args.spread {
        return judged(
            Verdict::Check,
            format!("passes a spread: its arguments cannot be counted against `{name}`"),
        );
    }
    let n = usize::from(args.count);
    let min = new.min_args();
    // A call that already passed fewer than the old contract required relied on
    // `undefined` before (or was already wrong): not this change's doing.
    let short_before = old.is_some_and(|o| n < o.min_args());
    if n < min && args.count < CallArgs::MAX_COUNT && !short_before {
        let missing: Vec<String> = new.params[n..min]
            .iter()
            .filter(|p| p.kind == ParamKind::Required)
            .map(|p| format!("`{}`", p.name))
            .collect();
        return judged(
            Verdict::Breaks,
            format!(
                "passes {}; `{name}` now requires {min} ({} not passed)",
                arguments(args.count),
                listed(&missing)
            ),
        );
    }
    // More arguments than the new contract takes: a compile error in TypeScript,
    // ignored in JavaScript.
    let too_many = new.max_args().filter(|&max| n > max).map(|max| {
        format!(
            "passes {}; `{name}` now takes at most {max}",
            arguments(args.count)
        )
    });
    if let (Some(reason), true) = (&too_many, site.reaches_others) {
        return judged(
            Verdict::Check,
            format!("{reason}, but the call reaches other definitions of the name too (the members of a union), which may take them"),
        );
    }
    // A parameter removed before the last argument passed: those after it shift. In
    // JavaScript the call now means something else; in TypeScript the compiler decides
    // by the arguments' types, which are not known here (an `any` argument, or one of
    // the type the next parameter takes, still compiles).
    let shifted = old.and_then(|old| {
        let (i, p) = old
            .params
            .iter()
            .enumerate()
            .find(|(i, p)| new.params.get(*i).is_none_or(|q| q.name != p.name))?;
        let gone = !new.params.iter().any(|q| q.name == p.name);
        // The argument passed at its place now lands on the parameter after it (the new
        // contract still has one there); where it was the last one, the call only
        // passes one too many.
        (gone && old.params.len() > new.params.len() && i < n && i < new.params.len()).then(|| {
            format!(
                "passes {}; `{}` (parameter {}) was removed, so the arguments after it shift",
                arguments(args.count),
                p.name,
                i + 1
            )
        })
    });
    // Parameters that traded places among those this call passes: each argument now
    // lands on another's parameter.
    let reordered = old.and_then(|old| {
        let moved: Vec<String> = old
            .params
            .iter()
            .enumerate()
            .take(n)
            .filter(|(i, p)| {
                new.params.get(*i).is_some_and(|q| q.name != p.name)
                    && new.params.iter().any(|q| q.name == p.name)
                    && new
                        .params
                        .get(*i)
                        .is_some_and(|q| old.params.iter().any(|o| o.name == q.name))
            })
            .map(|(_, p)| format!("`{}`", p.name))
            .collect();
        (!moved.is_empty()).then(|| {
            let (what, place) = match moved.len() {
                1 => ("parameter", "place"),
                _ => ("parameters", "places"),
            };
            format!(
                "passes {}; the {what} {} of `{name}` changed {place}",
                arguments(args.count),
                listed(&moved)
            )
        })
    });
    let shifted = shifted.or(reordered);
    if typed && too_many.is_none() {
        if let Some(reason) = old.and_then(|old| mistyped(name, old, new, site, n)) {
            let reason = match &shifted {
                Some(why) => format!("{reason} ({})", why.split("; ").last().unwrap_or(why)),
                None => reason,
            };
            return judged_at(Reported::AtArgument, Verdict::Breaks, reason);
        }
    }
    match (typed, too_many, shifted) {
        (true, Some(reason), _) => return judged_at(Reported::AtArgument, Verdict::Breaks, reason),
        (true, None, Some(reason)) => return judged(Verdict::Check, reason),
        (false, _, Some(reason)) => return judged(Verdict::Breaks, reason),
        (false, Some(reason), None) => return judged(Verdict::Check, reason),
        (_, None, None) => {}
    }
    if let Some(old) = old {
        // A promise where a value was: the compiler flags only some uses (a member read
        // on it), and the facts do not say which use this is. Measured against the
        // compiler, calling these `breaks` was wrong 2 times in 3 (BENCHMARKS.md).
        // A promise has `Object.prototype`'s members too (`.toString()` reads fine).
        let reads: Vec<&String> = site
            .reads
            .iter()
            .filter(|r| !OBJECT_MEMBERS.contains(&r.as_str()))
            .collect();
        // Made async with the same stated return type: the compiler rejects the
        // definition (TS1064, unless the type was a promise already) and types every
        // call by the stated type, so no call of typed code breaks on its own.
        if let (true, Some(stated)) = (
            new.is_async && !old.is_async && !args.awaited && typed,
            new.stated_return
                .as_deref()
                .filter(|&s| Some(s) == old.stated_return.as_deref()),
        ) {
            return judged(
                Verdict::Check,
                format!(
                    "`{name}` is now async, but still states it returns `{}`: the compiler \
                     reports the definition, and this call sees the stated type",
                    crate::blast::contract::short(stated.to_string())
                ),
            );
        }
        if new.is_async && !old.is_async && !args.awaited && !reads.is_empty() {
            return judged_at(
                Reported::AtRead,
                Verdict::Breaks,
                format!(
                    "reads {} from the result of `{name}`, which is now a promise (not awaited)",
                    listed(&quoted(reads.iter().map(|r| format!(".{r}"))))
                ),
            );
        }
        if new.is_async && !old.is_async && !args.awaited {
            if let Some(broken) = promise_used(name, site, typed) {
                return broken;
            }
        }
        if new.is_async && !old.is_async && !args.awaited {
            let how = if args.discarded {
                "does not await it (it now runs in the background)"
            } else {
                "uses its result without `await` or `.then`"
            };
            return judged(
                Verdict::Check,
                format!("`{name}` is now async, and this call {how}"),
            );
        }
        // A generator's call runs none of its body until the result is iterated: a call
        // made for its effect, or one that reads the result's members, no longer works.
        if new.is_generator && !old.is_generator {
            if args.discarded || !site.reads.is_empty() {
                let what = if args.discarded {
                    "this call, a statement of its own, now runs none of its body".to_string()
                } else {
                    format!(
                        "this call reads {} from what is now an iterator",
                        listed(&quoted(site.reads.iter().map(|r| format!(".{r}"))))
                    )
                };
                return judged(
                    Verdict::Breaks,
                    format!("`{name}` is now a generator: {what}"),
                );
            }
            return judged(
                Verdict::Check,
                format!("`{name}` is now a generator, and this call uses what it returns"),
            );
        }
        if old.is_generator && !new.is_generator {
            return judged(
                Verdict::Check,
                format!("`{name}` is no longer a generator, and this call uses what it returns"),
            );
        }
        if old.is_async && !new.is_async && args.awaited {
            return judged(
                Verdict::Check,
                format!("`{name}` is no longer async, and this call awaits or chains it"),
            );
        }
        // An object that must now hold a key it did not have to (the parameter at the
        // same place before), or may no longer hold one.
        for (i, p) in new.params.iter().enumerate().take(n) {
            let Some(before) = old.params.get(i) else {
                continue;
            };
            let added: Vec<&str> = p
                .keys
                .iter()
                .filter(|(k, required)| {
                    *required && !before.keys.iter().any(|(ok, r)| ok == k && *r)
                })
                .map(|(k, _)| k.as_str())
                .collect();
            let literal = site.object_at(i);
            if let Some((keys, open)) = literal {
                let missing: Vec<&str> = added
                    .iter()
                    .copied()
                    .filter(|k| !keys.iter().any(|have| have == k))
                    .collect();
                if !missing.is_empty() && !open {
                    return judged_at(
                        Reported::AtArgument,
                        Verdict::Breaks,
                        format!(
                            "the object passed as argument {} lacks {}, which `{name}` now requires",
                            i + 1,
                            listed(&quoted(&missing))
                        ),
                    );
                }
                // A stated type is all an object literal may hold, in TypeScript.
                let dropped: Vec<&str> = keys
                    .iter()
                    .map(String::as_str)
                    .filter(|k| {
                        before.keys.iter().any(|(ok, _)| ok == k)
                            && !p.keys.iter().any(|(nk, _)| nk == k)
                    })
                    .collect();
                if typed && p.closed && !dropped.is_empty() {
                    return judged_at(
                        Reported::AtArgument,
                        Verdict::Breaks,
                        format!(
                            "the object passed as argument {} holds {}, which `{name}` no longer takes",
                            i + 1,
                            listed(&quoted(&dropped))
                        ),
                    );
                }
                if missing.is_empty() {
                    continue;
                }
            }
            if !added.is_empty() {
                return judged(
                    Verdict::Check,
                    format!(
                        "the object passed as argument {} must now hold {}",
                        i + 1,
                        listed(&quoted(&added))
                    ),
                );
            }
        }
        // A stated type changed where this call passes an argument that is not known to
        // fit the new one: the compiler decides by the argument's type.
        if typed {
            for at in 0..n {
                let (Some(now), Some(before)) = (param_at(new, at), param_at(old, at)) else {
                    continue;
                };
                let fits = !now.accepts.is_any()
                    && site.kinds.iter().any(|&(slot, kinds)| {
                        usize::from(slot) == at && !kinds.is_any() && kinds.within(now.accepts)
                    });
                if now.name == before.name && now.stated != before.stated && !fits {
                    let (Some(was), Some(is)) = (&before.stated, &now.stated) else {
                        continue;
                    };
                    return judged(
                        Verdict::Check,
                        format!(
                            "the stated type of `{}` (parameter {}) changed from `{was}` to `{is}`, and argument {} is not known to fit it",
                            now.name,
                            at + 1,
                            at + 1
                        ),
                    );
                }
            }
        }
        let removed = removed_members(Some(old), Some(new));
        if !removed.is_empty() && !args.discarded && site.reads.is_empty() {
            return judged(
                Verdict::Check,
                format!(
                    "`{name}` no longer returns {}, and this call uses its result",
                    listed(&quoted(&removed))
                ),
            );
        }
        if old == new {
            return judged(
                Verdict::Check,
                format!(
                    "the parameters of `{name}` read the same; their types or its return type changed"
                ),
            );
        }
    }
    if n < min && short_before {
        return judged(
            Verdict::Fine,
            format!(
                "passes {}, fewer than `{name}` requires, as it did before this change",
                arguments(args.count)
            ),
        );
    }
    judged(
        Verdict::Fine,
        format!(
            "passes {}, as the new signature of `{name}` takes",
            arguments(args.count)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blast::contract::contract_at;
    use crate::indexer::Language;

    fn c(source: &str) -> Contract {
        contract_at(Language::TypeScript, source, 0, source.len()).expect("a function")
    }

    fn call(count: u8) -> Option<CallArgs> {
        Some(CallArgs {
            count,
            spread: false,
            awaited: false,
            discarded: false,
        })
    }

    fn statement(count: u8) -> Option<CallArgs> {
        Some(CallArgs {
            discarded: true,
            ..call(count).unwrap()
        })
    }

    #[test]
    fn a_required_parameter_added_breaks_the_calls_that_do_not_pass_it() {
        let old = c("function charge(amount, currency) {}");
        let new = c("function charge(amount, currency, card) {}");
        let j = judge("charge", Change::Signature, Some(&old), Some(&new), call(2));
        assert_eq!(j.verdict, Verdict::Breaks);
        assert_eq!(
            j.reason,
            "passes 2 arguments; `charge` now requires 3 (`card` not passed)"
        );
        // Already updated, or a defaulted parameter: fine.
        assert_eq!(
            judge("charge", Change::Signature, Some(&old), Some(&new), call(3)).verdict,
            Verdict::Fine
        );
        let defaulted = c("function charge(amount, currency, card = null) {}");
        assert_eq!(
            judge(
                "charge",
                Change::Signature,
                Some(&old),
                Some(&defaulted),
                call(2)
            )
            .verdict,
            Verdict::Fine
        );
        // A spread cannot be counted.
        let spread = Some(CallArgs {
            spread: true,
            ..call(0).unwrap()
        });
        assert_eq!(
            judge("charge", Change::Signature, Some(&old), Some(&new), spread).verdict,
            Verdict::Check
        );
        // A body-only change never breaks.
        assert_eq!(
            judge("charge", Change::Body, Some(&old), Some(&old), call(0)).verdict,
            Verdict::Fine
        );
    }

    #[test]
    fn a_parameter_removed_before_later_arguments_shifts_them() {
        let old = c("function move(from, by, to) {}");
        let new = c("function move(from, to) {}");
        let j = judge("move", Change::Signature, Some(&old), Some(&new), call(3));
        assert_eq!(j.verdict, Verdict::Breaks);
        assert!(
            j.reason.contains("`by` (parameter 2) was removed"),
            "{}",
            j.reason
        );
        // The first removed, one argument passed: it now lands on the second parameter.
        let (before, after) = (
            c("function f(a: string, b?: boolean) {}"),
            c("function f(b?: boolean) {}"),
        );
        assert_eq!(
            judge("f", Change::Signature, Some(&before), Some(&after), call(1)).verdict,
            Verdict::Breaks
        );
        // Removed last, and still passed: the extra argument is ignored in JavaScript
        // (check), a compile error in TypeScript (breaks).
        let old = c("function move(from, to, by) {}");
        assert_eq!(
            judge("move", Change::Signature, Some(&old), Some(&new), call(3)).verdict,
            Verdict::Check
        );
        let typed = judge_in(
            "move",
            Change::Signature,
            Some(&old),
            Some(&new),
            call(3),
            true,
        );
        assert_eq!(typed.verdict, Verdict::Breaks);
        assert_eq!(
            typed.reason,
            "passes 3 arguments; `move` now takes at most 2"
        );
    }

    #[test]
    fn parameters_that_changed_places_break_javascript_calls() {
        let old = c("function send(to, from, body) {}");
        let new = c("function send(from, to, body) {}");
        let j = judge("send", Change::Signature, Some(&old), Some(&new), call(3));
        assert_eq!(j.verdict, Verdict::Breaks);
        assert_eq!(
            j.reason,
            "passes 3 arguments; the parameters `to`, `from` of `send` changed places"
        );
        // TypeScript's compiler decides by the types; a call that passes neither is fine.
        let typed = judge_in(
            "send",
            Change::Signature,
            Some(&old),
            Some(&new),
            call(3),
            true,
        );
        assert_eq!(typed.verdict, Verdict::Check);
        let one = judge("send", Change::Signature, Some(&old), Some(&new), call(1));
        assert_eq!(one.verdict, Verdict::Breaks);
        assert_eq!(
            one.reason,
            "passes 1 argument; the parameter `to` of `send` changed place"
        );
        // A parameter renamed is no change to a call.
        let renamed = c("function send(recipient, from, body) {}");
        assert_eq!(
            judge(
                "send",
                Change::Signature,
                Some(&old),
                Some(&renamed),
                call(3)
            )
            .verdict,
            Verdict::Fine
        );
    }

    #[test]
    fn a_function_passed_to_another_call_is_checked_not_broken() {
        let at = |src: &str| {
            let start = src.find("(opts").expect("the literal");
            contract_at(Language::TypeScript, src, start, src.len() - 2).expect("a function")
        };
        let old = at("export default defineDriver((opts) => ({ opts }));");
        let new = at("export default defineDriver((opts, extra) => ({ opts }));");
        assert_eq!(new.seen_through, Some(SeenThrough::Call));
        let j = judge("driver", Change::Signature, Some(&old), Some(&new), call(1));
        assert_eq!(j.verdict, Verdict::Check);
        assert!(
            j.reason.contains("is passed to another call"),
            "{}",
            j.reason
        );
        // Bound directly, the same change breaks.
        let direct = c("const driver = (opts, extra) => ({ opts });");
        assert_eq!(direct.seen_through, None);
        // A name with a stated type: its type is what calls are checked against.
        let typed = c("const driver: DriverFactory = (opts, extra) => ({ opts });");
        assert_eq!(typed.seen_through, Some(SeenThrough::StatedType));
        let before = c("const driver: DriverFactory = (opts) => ({ opts });");
        let j = judge(
            "driver",
            Change::Signature,
            Some(&before),
            Some(&typed),
            call(1),
        );
        assert_eq!(j.verdict, Verdict::Check);
        assert!(j.reason.contains("has a stated type"), "{}", j.reason);
    }

    #[test]
    fn a_promise_where_a_type_is_stated_breaks() {
        let old = c("function load(id) {}");
        let new = c("async function load(id) {}");
        let site = Site {
            uses: vec![ResultUse::Typed],
            ..Site::of(call(1))
        };
        let j = judge_site(
            "load",
            Change::Signature,
            Some(&old),
            Some(&new),
            &site,
            true,
        );
        assert_eq!(j.verdict, Verdict::Breaks);
        assert!(j.reason.contains("now returns a promise"), "{}", j.reason);
    }

    /// A body change that drops a key of the object returned: a call that reads it
    /// breaks, one that passes the result on is a check, one that discards it fine.
    #[test]
    fn a_key_dropped_from_the_result_is_a_check_where_the_result_is_used() {
        let old = c("function action(f) { return { type: 'A', f } as const; }");
        let new = c("function action(f) { return { type: 'A' } as const; }");
        let passed = judge("action", Change::Body, Some(&old), Some(&new), call(1));
        assert_eq!(passed.verdict, Verdict::Check, "{}", passed.reason);
        assert!(
            passed.reason.contains("no longer returns `f`"),
            "{}",
            passed.reason
        );
        let alone = judge("action", Change::Body, Some(&old), Some(&new), statement(1));
        assert_eq!(alone.verdict, Verdict::Fine, "{}", alone.reason);
        let read = Site {
            reads: vec!["f".to_string()],
            ..Site::of(call(1))
        };
        let j = judge_site("action", Change::Body, Some(&old), Some(&new), &read, true);
        assert_eq!(j.verdict, Verdict::Breaks, "{}", j.reason);
    }

    /// Made async with its stated return type kept (`async function load(): User`):
    /// the compiler rejects the definition and types each call by `User`, so no typed
    /// call breaks; stated as a promise now, the calls that use the result do.
    #[test]
    fn made_async_with_the_same_stated_return_type_is_a_check() {
        let old = c("function load(id: string): User {}");
        let same = c("async function load(id: string): User {}");
        let promised = c("async function load(id: string): Promise<User> {}");
        let site = Site {
            uses: vec![ResultUse::Typed],
            reads: vec!["name".to_string()],
            ..Site::of(call(1))
        };
        let j = judge_site(
            "load",
            Change::Signature,
            Some(&old),
            Some(&same),
            &site,
            true,
        );
        assert_eq!(j.verdict, Verdict::Check, "{}", j.reason);
        assert!(
            j.reason.contains("still states it returns `User`"),
            "{}",
            j.reason
        );
        let j = judge_site(
            "load",
            Change::Signature,
            Some(&old),
            Some(&promised),
            &site,
            true,
        );
        assert_eq!(j.verdict, Verdict::Breaks, "{}", j.reason);
        // In JavaScript the call gets a promise, whatever a type says.
        let j = judge_site(
            "load",
            Change::Signature,
            Some(&old),
            Some(&same),
            &site,
            false,
        );
        assert_eq!(j.verdict, Verdict::Breaks, "{}", j.reason);
    }

    /// A swap moves a number onto a parameter stated as an object: the call breaks,
    /// unless it passes too few arguments for the new contract (as it did for the old:
    /// the compiler reports the count, before and after).
    #[test]
    fn an_argument_on_a_parameter_that_rejects_it_breaks_a_call_that_fit_before() {
        let old = c("function check(entry: { alg: string }, key: unknown, usage: string) {}");
        let new = c("function check(key: unknown, entry: { alg: string }, usage: string) {}");
        let site = |count: u8| Site {
            kinds: vec![(1, ValueKinds::NUMBER)],
            ..Site::of(call(count))
        };
        let j = judge_site(
            "check",
            Change::Signature,
            Some(&old),
            Some(&new),
            &site(3),
            true,
        );
        assert_eq!(j.verdict, Verdict::Breaks, "{}", j.reason);
        assert!(
            j.reason.starts_with("passes a number as argument 2"),
            "{}",
            j.reason
        );
        let short = judge_site(
            "check",
            Change::Signature,
            Some(&old),
            Some(&new),
            &site(2),
            true,
        );
        assert_eq!(short.verdict, Verdict::Check, "{}", short.reason);
    }

    #[test]
    fn a_function_made_a_generator_breaks_the_calls_made_for_their_effect() {
        let old = c("function sync(items) {}");
        let new = c("function* sync(items) {}");
        assert!(new.is_generator && !old.is_generator);
        let j = judge(
            "sync",
            Change::Signature,
            Some(&old),
            Some(&new),
            statement(1),
        );
        assert_eq!(j.verdict, Verdict::Breaks);
        assert!(j.reason.contains("runs none of its body"), "{}", j.reason);
        let read = Site {
            reads: vec!["length".to_string()],
            ..Site::of(call(1))
        };
        let j = judge_site(
            "sync",
            Change::Signature,
            Some(&old),
            Some(&new),
            &read,
            true,
        );
        assert_eq!(j.verdict, Verdict::Breaks);
        assert!(j.reason.contains("`.length`"), "{}", j.reason);
        assert_eq!(
            judge("sync", Change::Signature, Some(&old), Some(&new), call(1)).verdict,
            Verdict::Check
        );
        assert_eq!(
            judge("sync", Change::Signature, Some(&new), Some(&old), call(1)).verdict,
            Verdict::Check
        );
        let method = c("class A { *items() {} }");
        assert!(method.is_generator);
    }

    #[test]
    fn async_and_object_keys_are_checks() {
        let old = c("function load(id) {}");
        let new = c("async function load(id) {}");
        // Its result used (a promise now), or run unawaited as a statement: both checks,
        // each saying which.
        let used = judge("load", Change::Signature, Some(&old), Some(&new), call(1));
        assert_eq!(used.verdict, Verdict::Check);
        assert!(
            used.reason.contains("uses its result without `await`"),
            "{}",
            used.reason
        );
        let alone = judge(
            "load",
            Change::Signature,
            Some(&old),
            Some(&new),
            statement(1),
        );
        assert_eq!(alone.verdict, Verdict::Check);
        assert!(
            alone.reason.contains("runs in the background"),
            "{}",
            alone.reason
        );
        let awaited = Some(CallArgs {
            awaited: true,
            ..call(1).unwrap()
        });
        assert_eq!(
            judge("load", Change::Signature, Some(&old), Some(&new), awaited).verdict,
            Verdict::Fine
        );
        let old = c("function pay({ amount }: Opts) {}");
        let new = c("function pay({ amount, currency }: Opts) {}");
        let j = judge("pay", Change::Signature, Some(&old), Some(&new), call(1));
        assert_eq!(j.verdict, Verdict::Check);
        assert!(j.reason.contains("`currency`"), "{}", j.reason);
    }
}
