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
                let open = if shape.open { " open" } else { "" };
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
        let got: Vec<(u8, &str)> = facts
            .shapes_of(call)
            .map(|(s, _)| (s.slot, s.kinds.describe()))
            .collect();
        assert_eq!(
            got,
            [
                (0, "a string"),
                (1, "a string"),
                (2, "a number"),
                (3, "a bigint"),
                (4, "a number"),
                (5, "a boolean"),
                (6, "an array"),
                (7, "a function"),
                (8, "an object"),
                (9, "an object"),
                (10, "a boolean"),
                (11, "a string"),
                (15, "an object literal"),
            ],
            "{path}: a name, a call and `x || 'a'` say nothing"
        );
    }
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
";
    let facts = extract("a.ts", Language::TypeScript, source).expect("read");
    let lines: Vec<u32> = facts
        .calls
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            facts
                .shapes_of(*i)
                .any(|(s, _)| s.slot == CallShape::TYPED_USE)
        })
        .map(|(_, c)| c.pos().line)
        .collect();
    assert_eq!(lines, [0, 3, 6]);
}
