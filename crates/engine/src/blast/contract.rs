//! A function's contract with its callers, read from its source: its parameters (how many
//! a call must pass, which it may, whether it takes the rest), the keys of a destructured
//! object parameter, and whether it is async. What a call site is checked against when a
//! pull request changes a function's signature (see `verdict`).
//!
//! Read by parsing the file again and finding the function at the definition's bytes:
//! only changed files are read, once per side, and only those the extraction read
//! within its budgets (a file it skipped has no definitions to ask about).

use tree_sitter::{Node, Parser, Tree};

use crate::indexer::Language;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contract {
    pub params: Vec<Param>,
    pub is_async: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// As written (`{ amount, currency }` for a destructured one).
    pub name: String,
    pub kind: ParamKind,
    /// A destructured object's keys, each with whether a call must pass it (no default,
    /// not optional in its stated type).
    pub keys: Vec<(String, bool)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Required,
    /// `x?: T`
    Optional,
    /// `x = 1`
    Defaulted,
    /// `...rest`
    Rest,
}

impl Contract {
    /// How many arguments a call must pass: up to the last required parameter.
    pub fn min_args(&self) -> usize {
        self.params
            .iter()
            .rposition(|p| p.kind == ParamKind::Required)
            .map_or(0, |i| i + 1)
    }

    /// How many it may pass; None with a rest parameter.
    pub fn max_args(&self) -> Option<usize> {
        match self.params.last() {
            Some(p) if p.kind == ParamKind::Rest => None,
            _ => Some(self.params.len()),
        }
    }
}

/// The contract of the function whose definition spans `start..end` in `source`; None
/// when no function is there (a class, an object) or the file cannot be read.
pub fn contract_at(language: Language, source: &str, start: usize, end: usize) -> Option<Contract> {
    Reader::new(language, source).at(start, end)
}

/// One file parsed once, for the contracts of any number of its functions.
pub struct Reader<'s> {
    source: &'s str,
    tree: Option<Tree>,
}

impl<'s> Reader<'s> {
    pub fn new(language: Language, source: &'s str) -> Reader<'s> {
        let tree = (language.component().is_none())
            .then(|| {
                let mut parser = Parser::new();
                parser.set_language(&language.grammar()).ok()?;
                parser.parse(source, None)
            })
            .flatten();
        Reader { source, tree }
    }

    /// The contract of the function at `start..end` (see [`contract_at`]).
    pub fn at(&self, start: usize, end: usize) -> Option<Contract> {
        if end > self.source.len() || start >= end {
            return None;
        }
        let node = self
            .tree
            .as_ref()?
            .root_node()
            .descendant_for_byte_range(start, end)?;
        let function = function_within(node)?;
        Some(read(function, self.source))
    }
}

const FUNCTIONS: [&str; 9] = [
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
    "function_signature",
    "method_signature",
];

/// The function `node` is, or the first one it holds (`const f = () => {}` spans the
/// declarator), a few levels down at most.
fn function_within(node: Node) -> Option<Node> {
    let mut level = vec![node];
    for _ in 0..4 {
        let mut next = Vec::new();
        for n in level {
            if FUNCTIONS.contains(&n.kind()) {
                return Some(n);
            }
            let mut cursor = n.walk();
            next.extend(n.named_children(&mut cursor).take(16));
        }
        level = next;
    }
    None
}

fn read(function: Node, source: &str) -> Contract {
    let text = |n: Node| source.get(n.byte_range()).unwrap_or_default().to_string();
    let mut cursor = function.walk();
    let is_async = function
        .children(&mut cursor)
        .take_while(|c| c.kind() != "formal_parameters")
        .any(|c| c.kind() == "async");
    let mut params = Vec::new();
    if let Some(list) = function.child_by_field_name("parameters") {
        let mut cursor = list.walk();
        for p in list.named_children(&mut cursor) {
            if let Some(param) = param(p, &text) {
                params.push(param);
            }
        }
    } else if let Some(single) = function.child_by_field_name("parameter") {
        // `x => ...`
        params.push(Param {
            name: short(text(single)),
            kind: ParamKind::Required,
            keys: Vec::new(),
        });
    }
    Contract { params, is_async }
}

fn param(p: Node, text: &dyn Fn(Node) -> String) -> Option<Param> {
    let (pattern, kind) = match p.kind() {
        "comment" => return None,
        // TypeScript: `x: T`, `x: T = 1`, `...xs: T[]`, `this: T` (no argument).
        "required_parameter" => {
            let pattern = p.child_by_field_name("pattern")?;
            if pattern.kind() == "this" {
                return None;
            }
            let kind = if pattern.kind() == "rest_pattern" {
                ParamKind::Rest
            } else if p.child_by_field_name("value").is_some() {
                ParamKind::Defaulted
            } else {
                ParamKind::Required
            };
            (pattern, kind)
        }
        "optional_parameter" => (p.child_by_field_name("pattern")?, ParamKind::Optional),
        // JavaScript.
        "assignment_pattern" => (p.child_by_field_name("left")?, ParamKind::Defaulted),
        "rest_pattern" => (p, ParamKind::Rest),
        _ => (p, ParamKind::Required),
    };
    let optional_in_type = stated_optional_keys(p, text);
    let keys = match pattern.kind() {
        "object_pattern" => object_keys(pattern, text)
            .into_iter()
            .map(|(k, required)| {
                let required = required && !optional_in_type.contains(&k);
                (k, required)
            })
            .collect(),
        _ => Vec::new(),
    };
    Some(Param {
        name: short(text(pattern)),
        kind,
        keys: keys.into_iter().map(|(k, r)| (short(k), r)).collect(),
    })
}

/// A name as a reason quotes it: a destructuring pattern can be any length.
fn short(mut name: String) -> String {
    const MAX: usize = 60;
    if name.len() > MAX {
        let mut end = MAX;
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name.truncate(end);
        name.push('…');
    }
    name
}

/// A destructured object's keys, each with whether it lacks a default.
fn object_keys(pattern: Node, text: &dyn Fn(Node) -> String) -> Vec<(String, bool)> {
    let mut keys = Vec::new();
    let mut cursor = pattern.walk();
    for item in pattern.named_children(&mut cursor) {
        match item.kind() {
            "shorthand_property_identifier_pattern" => keys.push((text(item), true)),
            "pair_pattern" => {
                if let Some(key) = item.child_by_field_name("key") {
                    let defaulted = item
                        .child_by_field_name("value")
                        .is_some_and(|v| v.kind() == "assignment_pattern");
                    keys.push((text(key), !defaulted));
                }
            }
            "object_assignment_pattern" => {
                if let Some(left) = item.child_by_field_name("left") {
                    keys.push((text(left), false));
                }
            }
            _ => {}
        }
    }
    keys
}

/// `{ a, b }: { a: string; b?: number }`: the keys the stated type marks optional.
fn stated_optional_keys(p: Node, text: &dyn Fn(Node) -> String) -> Vec<String> {
    let Some(object) = p
        .child_by_field_name("type")
        .and_then(|t| t.named_child(0))
        .filter(|t| t.kind() == "object_type")
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut cursor = object.walk();
    for member in object.named_children(&mut cursor) {
        if member.kind() != "property_signature" {
            continue;
        }
        let mut c = member.walk();
        let optional = member.children(&mut c).any(|x| x.kind() == "?");
        if let (true, Some(name)) = (optional, member.child_by_field_name("name")) {
            out.push(text(name));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contract(language: Language, source: &str, name: &str) -> Contract {
        let start = source.find(name).expect("the function is there");
        contract_at(language, source, start, source.len()).expect("a function")
    }

    #[test]
    fn parameters_of_every_kind_in_javascript_and_typescript() {
        let js = "async function charge(amount, currency = 'EUR', { id, note = '' }, ...rest) {}";
        let c = contract(Language::JavaScript, js, "async function");
        assert!(c.is_async);
        let kinds: Vec<ParamKind> = c.params.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [
                ParamKind::Required,
                ParamKind::Defaulted,
                ParamKind::Required,
                ParamKind::Rest
            ]
        );
        assert_eq!(
            c.params[2].keys,
            [("id".to_string(), true), ("note".to_string(), false)]
        );
        assert_eq!((c.min_args(), c.max_args()), (3, None));

        let ts = "export const pay = (amount: number, opts?: Opts, { a, b }: { a: string; b?: number } = x): void => {}";
        let c = contract(Language::TypeScript, ts, "(amount");
        assert!(!c.is_async);
        let kinds: Vec<ParamKind> = c.params.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [
                ParamKind::Required,
                ParamKind::Optional,
                ParamKind::Defaulted
            ]
        );
        assert_eq!(
            c.params[2].keys,
            [("a".to_string(), true), ("b".to_string(), false)]
        );
        assert_eq!((c.min_args(), c.max_args()), (1, Some(3)));

        let method = "class A { save(this: A, x: number) {} }";
        let c = contract(Language::TypeScript, method, "save");
        assert_eq!(c.params.len(), 1, "`this` is no argument");
        let arrow = "const f = async x => x;";
        let c = contract(Language::JavaScript, arrow, "async x");
        assert!(c.is_async);
        assert_eq!(c.min_args(), 1);
    }

    #[test]
    fn no_contract_where_no_function_is() {
        let source = "class A {}\nconst o = { a: 1 };\n";
        assert_eq!(contract_at(Language::JavaScript, source, 0, 10), None);
        assert_eq!(contract_at(Language::JavaScript, source, 5, 500), None);
    }
}
