//! The walk's dispatch table against the grammars.

use super::*;

/// A kind in the table that no grammar has (misspelt, or renamed by a grammar update)
/// would never be dispatched; one listed twice would leave its second row unused.
#[test]
fn every_handled_kind_is_a_kind_of_a_grammar_listed_once() {
    for (i, kind) in HANDLED_KINDS.iter().enumerate() {
        assert!(!HANDLED_KINDS[..i].contains(kind), "{kind} is listed twice");
        // The error symbol lies outside the grammars' kind tables.
        let known = *kind == "ERROR"
            || Language::ALL
                .iter()
                .any(|l| l.grammar().id_for_node_kind(kind, true) != 0);
        assert!(known, "{kind} is a kind of no grammar");
    }
}

/// Each grammar's handler code of a kind leads to that kind's row of the table, and the
/// codes of kinds without a handler to none.
#[test]
fn handler_codes_lead_to_their_kinds_rows() {
    for language in Language::ALL {
        let mut parser = Parser::new();
        parser.set_language(&language.grammar()).unwrap();
        let tree = parser.parse("", None).unwrap();
        let root = tree.root_node();
        let grammar = language.grammar();
        let _grammar = fields::GrammarScope::enter(language);
        for id in (0..grammar.node_kind_count() as u16).chain([u16::MAX]) {
            let kind = grammar.node_kind_for_id(id).unwrap_or("ERROR");
            let code = fields::handler_code(&root, id);
            match HANDLED_KINDS.iter().position(|k| *k == kind) {
                Some(row) => {
                    assert_eq!(usize::from(code), row + 1, "{language:?} {kind}");
                    assert!(handler(code).is_some(), "{language:?} {kind}");
                }
                None => {
                    assert_eq!(code, 0, "{language:?} {kind}");
                    assert!(handler(code).is_none(), "{language:?} {kind}");
                }
            }
        }
    }
    assert!(handler(HANDLED as u8 + 1).is_none());
}

/// What each call passes and whether its result is awaited: what a changed contract is
/// checked against.
#[test]
fn calls_record_their_arguments_and_whether_they_are_awaited() {
    let source = "async function main(xs) {\n  charge(1, 2);\n  await charge(1);\n  charge(...xs);\n  charge(1).then(done);\n  await (charge());\n  new Order(1, 2, 3);\n  tag`x${1}`;\n  return charge(1);\n}\n";
    let facts = extract("a.js", Language::JavaScript, source).expect("read");
    type Seen<'a> = (u32, &'a str, Option<(u8, bool, bool, bool)>);
    let got: Vec<Seen> = facts
        .calls
        .iter()
        .map(|c| {
            (
                c.pos().line,
                facts.str(c.name),
                c.args()
                    .map(|a| (a.count, a.spread, a.awaited, a.discarded)),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (1, "charge", Some((2, false, false, true))),
            (2, "charge", Some((1, false, true, false))),
            (3, "charge", Some((1, true, false, true))),
            (4, "then", Some((1, false, false, true))),
            (4, "charge", Some((1, false, true, false))),
            (5, "charge", Some((0, false, true, false))),
            (6, "Order", Some((3, false, false, true))),
            (7, "tag", None),
            (8, "charge", Some((1, false, false, false))),
        ]
    );
}

/// The object literals calls pass and the members read off their results: what a
/// contract's keys are checked against.
#[test]
fn calls_record_the_keys_they_pass_and_read() {
    let source = "\
async function main(opts, x) {
  pay({ amount: 1, 'currency': 'EUR', note() {} }, { ...opts, id });
  pay(x, {});
  const total = load(x).total + load(x)?.count;
  (await load(x)).items.map(f);
  const { id, name: label, size = 1, ...rest } = await load(x);
  load(x)!.save();
  load(x).then(done);
  ghost.prop.read;
  new Order({ id: 1, [key]: 2 });
  check(load(x).ok);
}
";
    for (path, language) in [
        ("a.js", Language::JavaScript),
        ("a.ts", Language::TypeScript),
    ] {
        let facts = extract(path, language, source).expect("read");
        let mut got: Vec<(u32, &str, String)> = Vec::new();
        for (i, c) in facts.calls.iter().enumerate() {
            for (shape, keys) in facts.shapes_of(i) {
                let slot = match shape.slot {
                    CallShape::RESULT => "result".to_string(),
                    n => format!("arg {n}"),
                };
                let keys: Vec<&str> = keys.iter().map(|&k| facts.str(k)).collect();
                let open = if shape.open() { " open" } else { "" };
                got.push((
                    c.pos().line,
                    facts.str(c.name),
                    format!("{slot}{open}: {}", keys.join(",")),
                ));
            }
        }
        assert_eq!(
            got,
            vec![
                (1, "pay", "arg 0: amount,currency,note".to_string()),
                (1, "pay", "arg 1 open: id".to_string()),
                (2, "pay", "arg 1: ".to_string()),
                (3, "load", "result: total".to_string()),
                (3, "load", "result: count".to_string()),
                (4, "load", "result: items".to_string()),
                (5, "load", "result: id,name,size".to_string()),
                (6, "load", "result: save".to_string()),
                (9, "Order", "arg 0 open: id".to_string()),
                (10, "load", "result: ok".to_string()),
            ],
            "{path}"
        );
    }
}

/// The kinds of value arguments are, where their syntax says: what a parameter's stated
/// type is checked against when the parameters move.
#[test]
fn calls_record_what_kind_of_value_each_argument_is() {
    let source = "\
f('a', `b${x}`, 1, 2n, -1, true, [x], () => 1, /r/, new Date(), (a < b), 'a' + x, x, g(), x || 'a', { k });
";
    for (path, language) in [
        ("a.js", Language::JavaScript),
        ("a.ts", Language::TypeScript),
    ] {
        let facts = extract(path, language, source).expect("read");
        let call = facts
            .calls
            .iter()
            .position(|c| facts.str(c.name) == "f")
            .expect("the call");
        let got: Vec<(u8, String)> = facts
            .shapes_of(call)
            .map(|(s, _)| (s.slot, s.kinds.describe()))
            .collect();
        let got: Vec<(u8, &str)> = got.iter().map(|(s, d)| (*s, d.as_str())).collect();
        assert_eq!(
            got,
            [
                (0, "a string"),
                (1, "a string"),
                (2, "a number"),
                (3, "a bigint"),
                (4, "a number or a bigint"),
                (5, "a boolean"),
                (6, "an array"),
                (7, "a function"),
                (8, "an object"),
                (9, "an object"),
                (10, "a boolean"),
                (11, "a string"),
                (15, "an object"),
            ],
            "{path}: a name, a call and `x || 'a'` say nothing"
        );
    }
}

/// In TypeScript a name passed as an argument is what its declaration states (a type,
/// an initial value, a function declared in the file), innermost declaration first;
/// a type the file imports or a type parameter says nothing, nor does JavaScript.
#[test]
fn names_passed_as_arguments_are_what_their_declarations_say() {
    let source = "\
import type { URL as Imported } from 'url';
function helper() {}
class Box {}
export function use<T>(s: string, n?: number, bytes: Uint8Array, t: T, imported: Imported,
    u: string | number, d = 1, loose) {
  const c = 'x';
  let flag = true;
  const list = [1];
  const obj: { a: string } = { a: '' };
  const shadow = 'outer';
  const lit = { a: 1 };
  f(s, n, bytes, t, imported, u, d, loose, c, flag, list, obj, helper, Box, shadow, undeclared, lit);
  const inner = (shadow: number) => f(shadow);
}
";
    let described = |language: Language, path: &str| -> Vec<Vec<(u8, String)>> {
        let facts = extract(path, language, source).expect("read");
        facts
            .calls
            .iter()
            .enumerate()
            .filter(|(_, c)| facts.str(c.name) == "f")
            .map(|(i, _)| {
                facts
                    .shapes_of(i)
                    .map(|(s, _)| (s.slot, s.kinds.describe()))
                    .collect()
            })
            .collect()
    };
    let got = described(Language::TypeScript, "a.ts");
    let want = |pairs: &[(u8, &str)]| -> Vec<(u8, String)> {
        pairs.iter().map(|&(s, d)| (s, d.to_string())).collect()
    };
    assert_eq!(
        got,
        [
            want(&[
                (0, "a string"),
                (1, "a number"),
                (2, "an object"),
                (5, "a string or a number"),
                (6, "a number"),
                (8, "a string"),
                (9, "a boolean"),
                (10, "an array"),
                (11, "an object"),
                (12, "a function"),
                (13, "a function"),
                (14, "a string"),
                (16, "an object"),
            ]),
            want(&[(0, "a number")]),
        ]
    );
    let javascript = "function helper() {}\nconst c = 'x';\nf(c, helper);\n";
    let facts = extract("a.js", Language::JavaScript, javascript).expect("read");
    assert_eq!(facts.call_shapes.len(), 0, "JavaScript states no types");
}

/// `this.key` passed as an argument in a method of a class whose field states its type
/// (a field, a private one, a constructor's parameter property); not in a nested
/// function, where `this` is another's.
#[test]
fn fields_read_through_this_are_what_their_declarations_say() {
    let source = "\
class Sign {
  #cek?: Uint8Array;
  count = 0;
  other: Imported;
  constructor(private label: string) {}
  run() {
    f(this.#cek, this.count, this.other, this.label, this.missing);
    function inner() { f(this.count); }
    const arrow = () => f(this.label);
  }
}
";
    let facts = extract("a.ts", Language::TypeScript, source).expect("read");
    let got: Vec<Vec<(u8, String)>> = facts
        .calls
        .iter()
        .enumerate()
        .filter(|(_, c)| facts.str(c.name) == "f")
        .map(|(i, _)| {
            facts
                .shapes_of(i)
                .map(|(s, _)| (s.slot, s.kinds.describe()))
                .collect()
        })
        .collect();
    let want = |pairs: &[(u8, &str)]| -> Vec<(u8, String)> {
        pairs.iter().map(|&(s, d)| (s, d.to_string())).collect()
    };
    assert_eq!(
        got,
        [
            want(&[(0, "an object"), (1, "a number"), (3, "a string")]),
            want(&[]),
            want(&[(0, "a string")]),
        ]
    );
}

/// TypeScript: what definitions' stated types say their parameters accept and their
/// calls give, and which calls are passed as arguments of which.
#[test]
fn stated_kinds_of_definitions_and_calls_passed_as_arguments() {
    let source = "\
export function digest(algorithm: 'sha256', data: Uint8Array, ...rest: string[]): string { return ''; }
export async function concat(a = 0, b?: Other): Promise<Uint8Array> { return x; }
export const encode = (text: string): Uint8Array => x;
digest('sha256', (concat(1)), encode(concat()));
";
    let facts = extract("a.ts", Language::TypeScript, source).expect("read");
    let def = |name: &str| {
        facts
            .defs
            .iter()
            .position(|d| facts.str(d.name) == name)
            .expect(name) as DefIdx
    };
    let digest = def("digest");
    assert_eq!(facts.def_kinds(digest, 0), ValueKinds::LITERAL_STRING);
    assert_eq!(
        facts.def_kinds(digest, 1),
        ValueKinds::GLOBAL,
        "an object of its shape, not a promise"
    );
    assert_eq!(
        facts.def_kinds(digest, 2),
        ValueKinds::STRINGS,
        "an element of the rest"
    );
    assert_eq!(
        (facts.param_kinds(digest, 3), facts.param_kinds(digest, 9)),
        (ValueKinds::STRINGS, ValueKinds::STRINGS),
        "every argument past it lands on the rest"
    );
    assert_eq!(
        facts.def_kinds(digest, DefKinds::RESULT),
        ValueKinds::STRING
    );
    let concat = def("concat");
    assert_eq!(
        facts.def_kinds(concat, 0),
        ValueKinds::NUMBER,
        "its default's"
    );
    assert_eq!(
        facts.def_kinds(concat, 1),
        ValueKinds::ANY,
        "a type of elsewhere"
    );
    assert_eq!(
        facts.def_kinds(concat, DefKinds::RESULT),
        ValueKinds::PROMISE,
        "a promise"
    );
    assert_eq!(
        facts.def_kinds(def("encode"), DefKinds::RESULT),
        ValueKinds::BUILTIN,
        "a `Uint8Array`, whose members are known"
    );
    let call = |name: &str, nth: usize| {
        facts
            .calls
            .iter()
            .enumerate()
            .filter(|(_, c)| facts.str(c.name) == name)
            .nth(nth)
            .expect(name)
            .0
    };
    let outer = call("digest", 0);
    assert_eq!(facts.argument_call(outer, 0), None, "a literal");
    assert_eq!(facts.argument_call(outer, 1), Some(call("concat", 0)));
    assert_eq!(facts.argument_call(outer, 2), Some(call("encode", 0)));
    assert_eq!(
        facts.passed_to().get(&(call("concat", 1) as u32)),
        Some(&(call("encode", 0) as u32, 0))
    );
    let js = extract("a.js", Language::JavaScript, "f(g());\n").expect("read");
    assert!(js.argument_calls.is_empty() && js.def_kinds.is_empty());
}

/// Calls that are properties of an object literal passed as an argument: the outer
/// call, the argument, the key; the first few properties of each object only, and in
/// `let store;` read in another function is `any` to the compiler; in its own
/// function, after a value is assigned, it is that value's type; one declared with a
/// type or a value is neither.
#[test]
fn calls_through_a_let_of_no_type_or_value_read_elsewhere_are_marked() {
    let source = "let store;\n\
                  let kept = make();\n\
                  function setup() { store = make(); }\n\
                  function read() { store.get(); kept.put(); store(); }\n\
                  function local() { let own; own = make(); own.get(); }\n";
    let facts = extract("a.ts", Language::TypeScript, source).expect("read");
    let marked = |line: u32, name: &str| {
        let i = facts
            .calls
            .iter()
            .position(|c| c.pos().line == line && facts.str(c.name) == name)
            .unwrap_or_else(|| panic!("{name} at {line}"));
        facts
            .shapes_of(i)
            .any(|(s, _)| s.slot == CallShape::ANY_RECEIVER)
    };
    // (Lines from 0.)
    assert!(marked(3, "get"));
    assert!(marked(3, "store"));
    assert!(!marked(3, "put"));
    assert!(!marked(4, "get"));
    let js = extract("a.js", Language::JavaScript, source).expect("read");
    assert!(js
        .call_shapes
        .iter()
        .all(|s| s.slot != CallShape::ANY_RECEIVER));
}

/// TypeScript only.
#[test]
fn calls_in_an_object_argument_record_their_key() {
    let keys: String = (0..12).map(|i| format!("k{i}: make{i}(), ")).collect();
    let source = format!(
        "persist(init, {{ name: 'x', storage: createStorage(), nested: {{ inner: deep() }} }});\n\
         persist(init, {{ a: {{ b: {{ c: deeper() }} }} }});\n\
         configure({{ {keys} }});\n"
    );
    let facts = extract("a.ts", Language::TypeScript, &source).expect("read");
    let call = |name: &str| {
        facts
            .calls
            .iter()
            .position(|c| facts.str(c.name) == name)
            .expect(name)
    };
    let storage = facts.property_call(call("createStorage")).expect("storage");
    assert_eq!(
        (storage.outer as usize, storage.slot, facts.str(storage.key)),
        (call("persist"), 1, "storage")
    );
    assert_eq!(storage.nested, None);
    // A property of an object one level down is noted with both keys; two levels down,
    // it is not.
    let deep = facts.property_call(call("deep")).expect("deep");
    assert_eq!(
        (facts.str(deep.key), deep.nested.map(|n| facts.str(n))),
        ("nested", Some("inner"))
    );
    assert!(facts.property_call(call("deeper")).is_none());
    let kept = (0..12)
        .filter(|i| facts.property_call(call(&format!("make{i}"))).is_some())
        .count();
    assert_eq!(kept, PropertyCall::MAX_PER_OBJECT);
    let js = extract("a.js", Language::JavaScript, &source).expect("read");
    assert!(js.property_calls.is_empty());
}

/// Calls whose results go where a type a promise is not is stated: what a function
/// that turns async breaks without a member read.
#[test]
fn calls_whose_results_go_where_a_type_is_stated() {
    let source = "\
function a(): Item { return load(); }
async function b(): Promise<Item> { return load(); }
function c() { return load(); }
const d: Item = load();
const e: any = load();
function g(): Item | null { return (load()); }
const h = (): Item => { return load(); };
function k(x: boolean): Item { return x ? load() : (other(x)); }
";
    let facts = extract("a.ts", Language::TypeScript, source).expect("read");
    let lines: Vec<u32> = calls_whose_result_is(&facts, CallShape::TYPED_USE)
        .map(|c| c.pos().line)
        .collect();
    assert_eq!(
        lines,
        [0, 3, 6, 7, 7],
        "either branch of a conditional returned"
    );
}

/// What a value of a class's type may be: an object of its shape, from its instance
/// members (its constructor and static members are none; a constructor's parameter
/// properties are).
#[test]
fn a_class_instance_is_read_from_its_instance_members() {
    let source = "\
export class A { constructor(x: number) {} run() {} static length = 1; }
export class B { constructor(public length: number) {} }
";
    let facts = extract("a.ts", Language::TypeScript, source).expect("read");
    let kinds = |name: &str| {
        let def = facts
            .defs
            .iter()
            .position(|d| facts.str(d.name) == name)
            .expect(name) as DefIdx;
        facts.def_kinds(def, DefKinds::RESULT)
    };
    assert_eq!(kinds("A"), ValueKinds::GLOBAL);
    assert_eq!(kinds("B"), ValueKinds::ANY, "a string has a `length`");
}

/// A call whose result is called (`getFetch()(url)`): a promise in its place is not a
/// function, in JavaScript as in TypeScript.
#[test]
fn calls_whose_results_are_called() {
    for (path, language) in [
        ("a.js", Language::JavaScript),
        ("a.ts", Language::TypeScript),
    ] {
        let facts = extract(
            path,
            language,
            "getFetch()(url);\n(make())();\nplain(url);\n",
        )
        .expect("read");
        let called: Vec<&str> = calls_whose_result_is(&facts, CallShape::CALLED)
            .map(|c| facts.str(c.name))
            .collect();
        assert_eq!(called, ["getFetch", "make"], "{path}");
    }
}

/// What the compiler rejects a promise in, as the checker walks it: every operand of an
/// `if`'s or a `?:`'s condition through `&&`, `||` and `??`; the left of a `&&`
/// anywhere, a `&&` within it adding its right; an operand of arithmetic, or of a
/// comparison with a primitive. Not the right of a `||` outside a condition, `!`, a
/// `+` with a string, nor a comparison with `null`. Chains of thousands of operands are
/// looked at in linear time (each `&&` walks only what no other walks).
#[test]
fn calls_tested_or_computed_with_record_their_use() {
    let source = "\
if (a() || (b() && c)) {}
const t = d() ? 1 : 2;
const u = (e() || f()) && (g() && h()) && x;
const v = x || i();
const w = !j();
const y = k() > 1, z = l() - 1, q = m() === 'a', r = n() + 'x', s = o() === null;
";
    let facts = extract("a.ts", Language::TypeScript, source).expect("read");
    let names = |slot: u8| -> Vec<&str> {
        let mut names: Vec<&str> = calls_whose_result_is(&facts, slot)
            .map(|c| facts.str(c.name))
            .collect();
        names.sort_unstable();
        names
    };
    assert_eq!(
        names(CallShape::TESTED),
        ["a", "b", "d", "e", "f", "g", "h"]
    );
    assert_eq!(names(CallShape::OPERAND), ["k", "l", "m"]);
    // Linear however long the chain: 20,000 `&&`s read in one pass.
    let long = format!("const all = {}x;", "p() && ".repeat(20_000));
    let facts = extract("b.ts", Language::TypeScript, &long).expect("read");
    assert!(calls_whose_result_is(&facts, CallShape::TESTED).count() > 0);
}

/// `f.x = x` before `function f` (hoisted) makes `x` a member of `f`, as one after it
/// does; members kept waiting for their owner are bounded per file, so a file of
/// thousands of assignments to globals (`window.x = ...`) does not keep thousands
/// waiting in every scope.
#[test]
fn members_assigned_before_their_owner_is_declared_are_its_own_up_to_a_bound() {
    let members = |source: &str| {
        let facts = extract("a.js", Language::JavaScript, source).expect("read");
        let mut props: Vec<String> = facts
            .props
            .iter()
            .filter(|p| facts.str(facts.def(p.object).name) == "f")
            .map(|p| facts.str(p.name).to_string())
            .collect();
        props.sort();
        props
    };
    let source = "function setup() {\n  f.enable = enable;\n  window.onload = enable;\n  function enable() {}\n  function f() {}\n  f.late = enable;\n}\n";
    assert_eq!(members(source), vec!["enable", "late"]);

    let bound = super::scopes::MAX_LATE_MEMBERS as usize;
    let mut many = String::from("function setup() {\n");
    for i in 0..bound + 10 {
        many.push_str(&format!("  f.m{i} = enable;\n"));
    }
    many.push_str("  function enable() {}\n  function f() {}\n}\n");
    assert_eq!(members(&many).len(), bound);
}

/// The calls whose result is used as `slot` says (`CallShape::TYPED_USE`, `CALLED`).
fn calls_whose_result_is(facts: &FileFacts, slot: u8) -> impl Iterator<Item = &CallSite> {
    facts
        .calls
        .iter()
        .enumerate()
        .filter(move |(i, _)| facts.shapes_of(*i).any(|(s, _)| s.slot == slot))
        .map(|(_, c)| c)
}

/// An alias of the file declared before a parameter is read for what the parameter
/// accepts; aliases of unions of aliases (each read once per path, 4^16 paths here
/// past the depth bound) are read within a bound: the extraction ends, and what was
/// not read admits anything. (The contract's reading: `blast::contract`'s tests.)
#[test]
fn aliases_of_the_file_are_read_within_a_bound() {
    let mut source = String::from("type Mode = 'a' | 'b';\ntype A0 = 'x' | 'y';\n");
    for i in 1..=20 {
        let p = i - 1;
        source.push_str(&format!("type A{i} = A{p} | A{p} | A{p} | A{p};\n"));
    }
    source.push_str("export function set(mode: Mode, deep: A20): void {}\n");
    let facts = extract("a.ts", Language::TypeScript, &source).expect("read");
    let set = facts
        .defs
        .iter()
        .position(|d| facts.str(d.name) == "set")
        .expect("set") as DefIdx;
    assert_eq!(facts.def_kinds(set, 0), ValueKinds::LITERAL_STRING);
    assert_eq!(facts.def_kinds(set, 1), ValueKinds::ANY);
}

/// `// @ts-nocheck` among the comments that open a TypeScript file, and only there,
/// marks it unchecked (after a shebang too); a block comment does not carry it.
#[test]
fn ts_nocheck_at_the_top_marks_a_file_unchecked() {
    let unchecked = |source: &str| super::ts_nocheck(source);
    assert!(unchecked("// @ts-nocheck\nfoo(1);"));
    assert!(unchecked(
        "#!/usr/bin/env node\n/* license */\n// x\n//   @ts-nocheck\nfoo();"
    ));
    assert!(!unchecked("foo();\n// @ts-nocheck\n"));
    assert!(!unchecked("/* @ts-nocheck */\nfoo();"));
    assert!(!unchecked("// @ts-check\nfoo();"));
    assert!(!unchecked("/* unterminated"));
}
