//! Per-file extraction on `fixtures/extract`: a snapshot of every fixture's facts (one
//! fact per line, as `blast-radius facts` prints them), targeted checks of the cases that
//! matter most, and inputs that must not crash the extractor.

use std::path::Path;

use blast_radius::indexer::dump;
use blast_radius::indexer::extract;
use blast_radius::indexer::facts::*;
use blast_radius::indexer::Language;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/extract");

/// Extracts `source` as if it were the repository file `path`.
fn extract_source(path: &str, source: &str) -> FileFacts {
    let language = Language::from_path(path).unwrap_or_else(|| panic!("{path}: no language"));
    extract(path, language, source).expect("read")
}

/// The facts of `fixtures/extract/<rel>`.
fn fixture(rel: &str) -> FileFacts {
    extract_source(rel, &fixture_source(rel))
}

fn fixture_source(rel: &str) -> String {
    let path = Path::new(FIXTURES).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every fixture file, as a path relative to `fixtures/extract` with `/` separators.
fn fixture_files() -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("directory entry"))
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if entry.file_type().expect("file type").is_dir() {
                walk(&entry.path(), &rel, out);
            } else {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new(FIXTURES), "", &mut out);
    out
}

/// Snapshots the rendered facts of one fixture, under a name made from its path.
fn snapshot(rel: &str) {
    let facts = fixture(rel);
    let name = rel.replace('/', "__");
    insta::with_settings!({ description => format!("fixtures/extract/{rel}"), omit_expression => true }, {
        insta::assert_snapshot!(name, dump::render(&facts));
    });
}

macro_rules! snapshots {
    ($($test:ident => $path:literal,)*) => {
        $(
            #[test]
            fn $test() {
                snapshot($path);
            }
        )*
        /// The fixtures the snapshot tests cover.
        const SNAPSHOTTED: &[&str] = &[$($path),*];
    };
}

snapshots! {
    snapshot_calls_attribution => "calls/attribution.js",
    snapshot_calls_forms => "calls/forms.js",
    snapshot_calls_getters => "calls/getters.ts",
    snapshot_calls_jsx => "calls/jsx.tsx",
    snapshot_calls_references => "calls/references.js",
    snapshot_calls_super_decorators => "calls/super_decorators.ts",
    snapshot_defs_bindings => "defs/bindings.js",
    snapshot_defs_classes_js => "defs/classes.js",
    snapshot_defs_classes_ts => "defs/classes.ts",
    snapshot_defs_commonjs => "defs/commonjs.cjs",
    snapshot_defs_components => "defs/components.jsx",
    snapshot_defs_default_anonymous => "defs/default_anonymous.mjs",
    snapshot_defs_default_class => "defs/default_class.mjs",
    snapshot_defs_functions => "defs/functions.js",
    snapshot_defs_interfaces => "defs/interfaces.ts",
    snapshot_errors_broken => "errors/broken.js",
    snapshot_errors_garbled => "errors/garbled.js",
    snapshot_errors_unterminated => "errors/unterminated.ts",
    snapshot_format_a => "format/a.js",
    snapshot_format_b => "format/b.js",
    snapshot_format_c => "format/c.js",
    snapshot_modules_commonjs => "modules/commonjs.cjs",
    snapshot_modules_dynamic => "modules/dynamic.js",
    snapshot_modules_esm => "modules/esm.mjs",
    snapshot_modules_export_namespace => "modules/export_namespace.ts",
    snapshot_modules_reexports => "modules/reexports.ts",
    snapshot_modules_ts_require => "modules/ts_require.ts",
    snapshot_modules_types_d_ts => "modules/types.d.ts",
}

#[test]
fn every_fixture_has_a_snapshot_test() {
    let files = fixture_files();
    let missing: Vec<&String> = files
        .iter()
        .filter(|f| !SNAPSHOTTED.contains(&f.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "fixtures without a snapshot test: {missing:?}"
    );
    for listed in SNAPSHOTTED {
        assert!(
            files.iter().any(|f| f == listed),
            "{listed}: no such fixture"
        );
    }
}

/// Every string the facts hold, each where it is: the rendering plus what it leaves out
/// (definitions' own names, every binding, every symbolic value, signatures and shapes
/// included).
fn render_all(facts: &FileFacts) -> String {
    let mut out = dump::render(facts);
    for d in &facts.defs {
        out += &format!("name {}\n", facts.str(d.name));
    }
    for b in &facts.bindings {
        out += &format!(
            "binding {} = {}\n",
            facts.str(b.name),
            facts.describe(b.value)
        );
    }
    for i in 0..facts.syms.len() as SymId {
        out += &format!("sym {i} = {}\n", facts.describe(i));
    }
    out
}

#[test]
fn a_graph_gives_back_the_facts_it_took() {
    // A graph keeps a file's strings as its own names, not in the file's table; the
    // facts it gives back (to store, to print) must say what extraction said.
    let files = fixture_files();
    let facts: Vec<FileFacts> = files.iter().map(|rel| fixture(rel)).collect();
    let graph = blast_radius::graph::Graph::build(facts.clone(), Vec::new());
    for original in &facts {
        let f = graph
            .file_id(&original.path)
            .expect("every file is in the graph");
        let held = graph.facts(f);
        let back = held.to_file_facts();
        assert_eq!(render_all(&back), render_all(original), "{}", original.path);
        assert!(
            back.strings.len() <= original.strings.len(),
            "{}",
            original.path
        );
        // Read in place, through the graph's names, they say the same.
        for (d, o) in held.defs.iter().zip(&original.defs) {
            assert_eq!(held.str(d.qualified), original.str(o.qualified));
        }
        for (c, o) in held.calls.iter().zip(&original.calls) {
            assert_eq!(held.describe(c.callee), original.describe(o.callee));
        }
    }
}

// ---- targeted checks ----

/// The qualified name of the caller of every call site named `name` of `kind`.
fn callers_of(facts: &FileFacts, kind: CallKind, name: &str) -> Vec<String> {
    facts
        .calls
        .iter()
        .filter(|c| c.kind == kind && facts.str(c.name) == name)
        .map(|c| {
            c.caller().map_or("<module>".to_string(), |d| {
                facts.def_qualified(d).to_string()
            })
        })
        .collect()
}

fn def<'f>(facts: &'f FileFacts, qualified: &str) -> &'f Definition {
    facts
        .defs
        .iter()
        .find(|d| facts.str(d.qualified) == qualified)
        .unwrap_or_else(|| panic!("{}: no definition {qualified}", facts.path))
}

#[test]
fn a_call_belongs_to_the_innermost_definition_that_encloses_it() {
    let facts = fixture("calls/attribution.js");
    // `inner()` comes after `inner` ends: it is outer's call, not inner's.
    assert_eq!(callers_of(&facts, CallKind::Call, "inner"), ["outer"]);
    // Inside inner, inner's.
    assert_eq!(
        callers_of(&facts, CallKind::Call, "fmt"),
        ["outer.inner", "outer", "Widget.render"]
    );
    // Callbacks are not definitions: their calls belong to the enclosing function.
    assert_eq!(
        callers_of(&facts, CallKind::Call, "report"),
        ["outer", "lazy.deeper"]
    );
    // Functions in an object literal bound to a name are definitions.
    assert_eq!(
        callers_of(&facts, CallKind::Call, "save"),
        ["outer.handlers.onSave"]
    );
    assert_eq!(
        callers_of(&facts, CallKind::Call, "track"),
        ["outer.handlers.onLoad", "<module>"]
    );
    assert_eq!(callers_of(&facts, CallKind::Call, "deeper"), ["lazy"]);
    assert_eq!(callers_of(&facts, CallKind::Call, "boot"), ["<module>"]);

    // The same trap with declarations inside a method and a class expression.
    let facts = extract_source(
        "trap.ts",
        "class A {\n  m() {\n    function h() { a(); }\n    const C = class { n() { b(); } };\n    h(); c();\n  }\n}\n",
    );
    assert_eq!(callers_of(&facts, CallKind::Call, "a"), ["A.m.h"]);
    assert_eq!(callers_of(&facts, CallKind::Call, "b"), ["A.m.C.n"]);
    assert_eq!(callers_of(&facts, CallKind::Call, "h"), ["A.m"]);
    assert_eq!(callers_of(&facts, CallKind::Call, "c"), ["A.m"]);
}

#[test]
fn jsx_records_components_not_host_elements() {
    let facts = fixture("calls/jsx.tsx");
    let mut jsx: Vec<&str> = facts
        .calls
        .iter()
        .filter(|c| c.kind == CallKind::Jsx)
        .map(|c| facts.str(c.name))
        .collect();
    jsx.sort();
    assert_eq!(jsx, ["Button", "Card", "Field", "Layout", "Page", "Route"]);
    // A closing tag is not a second use, nor a property read.
    assert!(
        !facts
            .calls
            .iter()
            .any(|c| facts.str(c.name) == "Card" && c.kind != CallKind::Jsx),
        "{}",
        dump::render(&facts)
    );
    // Functions passed as props are references.
    assert_eq!(callers_of(&facts, CallKind::Reference, "Page"), ["App"]);
    assert_eq!(callers_of(&facts, CallKind::Reference, "handle"), ["App"]);
}

#[test]
fn a_declaration_file_has_definitions_and_no_call_sites() {
    let facts = fixture("modules/types.d.ts");
    assert!(facts.declaration_only);
    assert!(facts.calls.is_empty(), "{}", dump::render(&facts));
    for qualified in [
        "handle",
        "Router",
        "Router.get",
        "Router.create",
        "Middleware.run",
    ] {
        def(&facts, qualified);
    }
    assert_eq!(def(&facts, "Router.constructor").kind, DefKind::Constructor);
    assert!(def(&facts, "Router.create").is_static);
    // `export declare ...` exports; `declare module 'x' { export ... }` is module x's.
    let exported: Vec<&str> = facts.exports.iter().map(|e| facts.str(e.name)).collect();
    assert!(exported.contains(&"Router") && exported.contains(&"handle"));
    assert!(!exported.contains(&"helper"), "{exported:?}");
    // The same declarations in a .ts file are not definitions (the implementation is).
    let source = fixture_source("modules/types.d.ts");
    let facts = extract_source("types.ts", &source);
    assert!(!facts.declaration_only);
    assert!(facts.defs.iter().all(|d| facts.str(d.name) != "handle"));
}

#[test]
fn a_namespace_exports_its_members_not_the_file() {
    let facts = fixture("modules/export_namespace.ts");
    assert!(facts.exports.is_empty(), "{}", dump::render(&facts));
    let store = facts
        .defs
        .iter()
        .position(|d| facts.str(d.qualified) == "store")
        .expect("namespace store") as DefIdx;
    assert_eq!(
        facts.module_exports.map(|m| facts.describe(m)),
        Some("store=def store".to_string())
    );
    // Exported declarations are members; the rest are private to the namespace.
    let members: Vec<&str> = facts
        .defs
        .iter()
        .filter(|d| d.container() == Some(store))
        .map(|d| facts.str(d.name))
        .collect();
    assert_eq!(members, ["make", "reset"]);
    assert!(def(&facts, "store.reducer").container().is_none());
    let props: Vec<&str> = facts
        .props
        .iter()
        .filter(|p| p.object == store)
        .map(|p| facts.str(p.name))
        .collect();
    assert_eq!(props, ["version"]);
    assert_eq!(callers_of(&facts, CallKind::Call, "create"), ["store.make"]);
}

#[test]
fn syntax_errors_are_counted_and_the_rest_is_read() {
    let facts = fixture("errors/broken.js");
    assert!(facts.parse_errors > 0);
    for qualified in ["before", "broken", "Half.method", "after"] {
        def(&facts, qualified);
    }
    assert_eq!(
        callers_of(&facts, CallKind::Call, "before"),
        ["broken", "Half.method", "after"]
    );
    let exported: Vec<&str> = facts.exports.iter().map(|e| facts.str(e.name)).collect();
    assert_eq!(exported, ["before", "after"]);

    let facts = fixture("errors/garbled.js");
    assert!(facts.parse_errors > 0);
    def(&facts, "before");
    def(&facts, "after");

    let facts = fixture("errors/unterminated.ts");
    assert!(facts.parse_errors > 0);
    def(&facts, "complete");
    def(&facts, "twice");

    let clean = fixture("defs/functions.js");
    assert_eq!(clean.parse_errors, 0);
}

#[test]
fn misreadings_of_the_grammar_are_repaired_and_recorded() {
    // As date-fns ships them: `export type *`, and import types with type arguments
    // (every `fp/*.d.ts`), which tree-sitter-typescript reads as syntax errors.
    let source = "export type * from \"./types.js\";\nexport type * as fp from './fp.js'\nexport declare const add: import(\"./types.js\").FPFn2<\n  Date,\n  import(\"./fp.js\").Duration\n>;\nexport declare function parse(text: string): Date;\n";
    let facts = extract_source("index.d.ts", source);
    assert_eq!(facts.parse_errors, 0);
    assert_eq!(
        facts.repaired,
        [Repair::ExportTypeStar, Repair::ImportTypeArguments]
    );
    let exported: Vec<&str> = facts.exports.iter().map(|e| facts.str(e.name)).collect();
    assert_eq!(exported, ["", "fp", "add", "parse"]);
    assert!(matches!(facts.exports[0].value, ExportValue::Star { .. }));
    // Positions are the file's own.
    assert_eq!(def(&facts, "parse").name_pos.line, 6);

    // TypeScript 5.2's `using` declares its name; `static accessor` (4.9) is a field.
    let source = "import { open } from './res.js';\nexport class C {\n  static accessor count = 0;\n  m() {\n    using h = open();\n    h.read();\n  }\n}\n";
    let facts = extract_source("c.ts", source);
    assert_eq!(facts.parse_errors, 0);
    assert_eq!(facts.repaired, [Repair::ModifiedAccessor]);
    let read = facts
        .calls
        .iter()
        .find(|c| facts.str(c.name) == "read")
        .expect("h.read()");
    assert_eq!(
        facts.describe(read.callee),
        "h=ret(open=import {open} './res.js').read"
    );

    let clean = extract_source("d.ts", "export type { A } from './a.js';\n");
    assert_eq!((clean.parse_errors, clean.repaired.len()), (0, 0));
}

/// Every definition's qualified name with its signature and body hashes.
fn hashes(facts: &FileFacts) -> Vec<(String, u64, u64)> {
    facts
        .defs
        .iter()
        .map(|d| {
            (
                facts.str(d.qualified).to_string(),
                d.signature_hash,
                d.body_hash,
            )
        })
        .collect()
}

#[test]
fn formatting_and_comments_do_not_change_hashes() {
    let a = hashes(&fixture("format/a.js"));
    let b = hashes(&fixture("format/b.js"));
    let names = |v: &[(String, u64, u64)]| v.iter().map(|d| d.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b));
    assert!(a.len() >= 10, "{a:?}");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.1, y.1, "signature of {}", x.0);
        assert_eq!(x.2, y.2, "body of {}", x.0);
    }
}

#[test]
fn real_changes_change_hashes() {
    let a = hashes(&fixture("format/a.js"));
    let c = hashes(&fixture("format/c.js"));
    assert_eq!(a.len(), c.len());
    let mut changed = Vec::new();
    for (x, y) in a.iter().zip(&c) {
        assert_eq!(x.0, y.0);
        let what = match (x.1 != y.1, x.2 != y.2) {
            (false, false) => continue,
            (true, false) => "signature",
            (false, true) => "body",
            (true, true) => "both",
        };
        changed.push(format!("{} {what}", x.0));
    }
    assert_eq!(
        changed,
        [
            "loadUser signature",
            "double signature",
            "greet body",
            // A class's body hash covers its members (a diff looks at its signature).
            "Repo body",
            "Repo.find body",
            "api.remove signature",
            "Card body",
        ]
    );
}

#[test]
fn more_formatting_that_does_not_count() {
    // Whether the last definitions of two sources (as `path`) have the same
    // (signature, body) hashes.
    let same_in = |path: &str, a: &str, b: &str| {
        let (ha, hb) = (
            hashes(&extract_source(path, a)),
            hashes(&extract_source(path, b)),
        );
        let (ha, hb) = (ha.last().expect(a), hb.last().expect(b));
        assert_eq!(ha.0, hb.0);
        (ha.1 == hb.1, ha.2 == hb.2)
    };
    let same = |a: &str, b: &str| same_in("a.tsx", a, b);
    // Quotes and the escapes they need.
    assert_eq!(
        same("f = () => 'it\\'s';", "f = () => \"it's\";"),
        (true, true)
    );
    // Arrow parameter parentheses.
    assert_eq!(same("f = x => x;", "f = (x) => x;"), (true, true));
    // Parentheses around JSX, comments inside it.
    assert_eq!(
        same(
            "f = () => <div><b/></div>;",
            "f = () => (\n  <div>\n    {/* b */}\n    <b/>\n  </div>\n);"
        ),
        (true, true)
    );
    // Quotes around a property key.
    assert_eq!(
        same(
            "f = () => ({ 'a': 1, $b: 2 });",
            "f = () => ({ a: 1, '$b': 2 });"
        ),
        (true, true)
    );
    assert_eq!(
        same(
            "const o = { 'a'() {}, f() { return { 'x': 1 }; } };",
            "const o = { 'a'() {}, f() { return { x: 1 }; } };"
        ),
        (true, true)
    );
    // A string is not an identifier.
    assert_eq!(same("f = () => a;", "f = () => 'a';"), (true, false));
    // Parentheses that group are not layout.
    assert_eq!(
        same("f = () => (a + b) * c;", "f = () => a + b * c;"),
        (true, false)
    );
    // Decorators and modifiers are part of a method's signature, in both grammars.
    let (a, b) = (
        "class A { @Get('a') m() {} }",
        "class A { @Get('b') m() {} }",
    );
    assert_eq!(same(a, b), (false, true));
    assert_eq!(same_in("a.js", a, b), (false, true));
    let (a, b) = ("class A { m() {} }", "class A { private m() {} }");
    assert_eq!(same(a, b), (false, true));
    let (a, b) = ("class A { m() {} }", "class A { async m() {} }");
    assert_eq!(same(a, b), (false, true));
    // A class's decorators are part of its signature, also before `export`.
    let (a, b) = ("@C('a') export class A {}", "@C('b') export class A {}");
    assert_eq!(same(a, b), (false, true));
}

// ---- inputs that must not crash the extractor ----

/// Runs `f` on a thread with the stack a test thread gets by default (2 MiB), so that a
/// larger `RUST_MIN_STACK` cannot hide a stack overflow.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the extractor panicked or overflowed");
}

/// Deeply nested and very long inputs of every shape the extractor recurses on.
fn pathological_sources() -> Vec<(&'static str, String)> {
    let n = 5_000;
    let rep = |s: &str, k: usize| s.repeat(k);
    vec![
        ("parens.js", format!("f({}1{});", rep("(", n), rep(")", n))),
        (
            "arrays.js",
            format!("const a = {}1{};", rep("[", n), rep("]", n)),
        ),
        (
            "objects.js",
            format!("const o = {}1{};", rep("{a:", n), rep("}", n)),
        ),
        ("then.js", format!("p{};", rep(".then(f)", 10_000))),
        ("members.js", format!("a{}();", rep(".b", 10_000))),
        (
            "assign_target.js",
            format!("a{} = function () {{}};", rep(".b", 10_000)),
        ),
        ("binary.js", format!("x = {}1;", rep("a + ", 10_000))),
        (
            "callee_parens.js",
            format!("{}f{}();", rep("(", n), rep(")", n)),
        ),
        ("calls.js", format!("{}x{};", rep("f(", n), rep(")", n))),
        (
            "functions.js",
            format!("{}{}", rep("function f(){", n), rep("}", n)),
        ),
        ("arrows.js", format!("const g = {}0;", rep("x => ", n))),
        ("blocks.js", format!("{}g();{}", rep("{", n), rep("}", n))),
        ("ifs.js", format!("{}g();", rep("if (a) ", n))),
        (
            "classes.js",
            format!("{}{}", rep("class A { m() {", n), rep("}}", n)),
        ),
        (
            "patterns.js",
            format!("const {}a{} = x;", rep("[", n), rep("]", n)),
        ),
        (
            "object_patterns.js",
            format!("const {}{} = x;", rep("{a:", n), rep("}", n)),
        ),
        (
            "templates.js",
            format!("t = {}{};", rep("`${", n), rep("}`", n)),
        ),
        (
            "jsx.jsx",
            format!("x = {}{};", rep("<A>", n), rep("</A>", n)),
        ),
        ("jsx_member.jsx", format!("x = <a{} />;", rep(".b", 10_000))),
        (
            "decorator.ts",
            format!("@a{}\nclass C {{}}", rep(".b", 10_000)),
        ),
        (
            "import_parens.ts",
            format!("import x = require({}'m'{});", rep("(", n), rep(")", n)),
        ),
        (
            "types.ts",
            format!("let v: {}T{};", rep("(", n), rep(")", n)),
        ),
        (
            "generics.ts",
            format!("let v: {}T{};", rep("Promise<", n), rep(">", n)),
        ),
        ("unions.ts", format!("let v: T{};", rep(" | T", 10_000))),
        // A type's value is read through its members' types: each level must count
        // (a member's type once restarted the count, and overflowed).
        (
            "object_types.ts",
            format!("let v: {}T{};", rep("{ a: ", n), rep("}", n)),
        ),
        (
            "function_types.ts",
            format!("let v: {}T{};", rep("(a: ", n), rep(") => T", n)),
        ),
        (
            "object_type_arrays.ts",
            format!("let v: {}T{};", rep("{ a: ", n), rep("}[]", n)),
        ),
        (
            "namespaces.ts",
            format!("{}{}", rep("namespace N { ", n), rep("}", n)),
        ),
        (
            "exports.js",
            format!("export const {}a{} = x;", rep("{a:", n), rep("}", n)),
        ),
        (
            "const_arrows.js",
            format!("{}0{}", rep("const f = () => { ", n), rep("};", n)),
        ),
        (
            "callbacks.js",
            format!("{}{}", rep("f(function () { ", n), rep("});", n)),
        ),
        (
            "object_methods.js",
            format!("const o = {}{};", rep("{ m() { return ", n), rep("} }", n)),
        ),
        (
            "object_args.js",
            format!("{}1{};", rep("f({ a: ", n), rep("})", n)),
        ),
        ("new.js", format!("{}1{};", rep("new A(", n), rep(")", n))),
        ("ternaries.js", format!("x = {}0;", rep("a ? b : ", n))),
        ("assign_chain.js", format!("{}0;", rep("a = ", n))),
        (
            "exports_object.js",
            format!("module.exports = {}1{};", rep("{ a: ", n), rep("}", n)),
        ),
        (
            "prototype_object.js",
            format!(
                "function A() {{}}\nA.prototype = {}1{};",
                rep("{ a: ", n),
                rep("}", n)
            ),
        ),
        (
            "class_fields.js",
            format!("{}{}", rep("class A { f = () => { ", n), rep("} }", n)),
        ),
        (
            "jsx_attributes.jsx",
            format!("x = {}{};", rep("<A f={() => ", n), rep("} />", n)),
        ),
        (
            "awaits.js",
            format!("async function f() {{ {}g(); }}", rep("await ", n)),
        ),
        (
            "wrapped.js",
            format!("const C = {}() => 1{};", rep("memo(", n), rep(")", n)),
        ),
        (
            "decorator_calls.ts",
            format!("@a({}1{})\nclass C {{}}", rep("b(", n), rep(")", n)),
        ),
        ("unclosed.js", rep("function f(a, { (", n)),
        ("garbage.js", rep("}{)(][<>/*'\"`", 2_000)),
    ]
}

#[test]
fn pathological_inputs_do_not_crash() {
    for (path, source) in pathological_sources() {
        on_small_stack(move || {
            let facts = extract_source(path, &source);
            // Rendering walks the symbolic values too.
            let _ = dump::render(&facts);
        });
    }
}

#[test]
fn realistic_depth_is_not_cut() {
    on_small_stack(|| {
        // A 300-link promise chain: every link is a call site.
        let source = format!("p{};", ".then(f)".repeat(300));
        let facts = extract_source("chain.js", &source);
        assert_eq!(callers_of(&facts, CallKind::Call, "then").len(), 300);
        // 300 `else if`s, each with a call.
        let mut source = String::from("function route(x) {\n");
        for i in 0..300 {
            source.push_str(&format!("  if (x === {i}) {{ handle{i}(); }} else\n"));
        }
        source.push_str("  fallback();\n}\n");
        let facts = extract_source("elseif.js", &source);
        assert_eq!(facts.calls.len(), 301);
        assert!(facts.calls.iter().all(|c| c.caller().is_some()));
        // A 1,000-term concatenation whose innermost term is a call.
        let source = format!("const s = f(){};", " + 'x'".repeat(1_000));
        let facts = extract_source("concat.js", &source);
        assert_eq!(callers_of(&facts, CallKind::Call, "f"), ["<module>"]);
        // 40 nested callbacks.
        let source = format!(
            "{}g();{}",
            "f(function () {\n".repeat(40),
            "});\n".repeat(40)
        );
        let facts = extract_source("pyramid.js", &source);
        assert_eq!(callers_of(&facts, CallKind::Call, "g"), ["<module>"]);
    });
}

/// A tiny deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn truncated_fixtures_do_not_crash() {
    for rel in fixture_files() {
        let source = fixture_source(&rel);
        let cuts = (0..source.len())
            .step_by(5)
            .filter(|&i| source.is_char_boundary(i));
        for cut in cuts {
            extract_source(&rel, &source[..cut]);
        }
    }
}

#[test]
fn token_soup_does_not_crash() {
    const TOKENS: &[&str] = &[
        "function",
        "class",
        "extends",
        "=>",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "<",
        ">",
        "/>",
        "</",
        "@",
        "#",
        ".",
        "?.",
        ",",
        ";",
        ":",
        "=",
        "+",
        "`",
        "${",
        "'",
        "\"",
        "/*",
        "*/",
        "//",
        "\n",
        "import",
        "export",
        "default",
        "from",
        "require",
        "module.exports",
        "exports.x",
        "this",
        "super",
        "new",
        "async",
        "await",
        "yield",
        "*",
        "get",
        "set",
        "static",
        "namespace",
        "declare",
        "interface",
        "type",
        "enum",
        "abstract",
        "private",
        "a",
        "B",
        "x.y",
        "f()",
        "1",
        "'s'",
        "as",
        "satisfies",
        "!",
        "?",
        "...",
        "<div>",
        "</div>",
        "<A",
        "prototype",
        "\u{1F600}",
        "é",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..300 {
        let len = 1 + rng.below(200);
        let source: Vec<&str> = (0..len).map(|_| TOKENS[rng.below(TOKENS.len())]).collect();
        let source = source.join(" ");
        let path = ["a.js", "a.jsx", "a.ts", "a.tsx", "a.d.ts"][i % 5];
        let facts = extract_source(path, &source);
        let _ = dump::render(&facts);
    }
}

#[test]
fn a_definition_bound_below_its_name_starts_at_the_name() {
    let source = "export const Link = forwardRef(\n  function LinkWithRef(props, ref) {\n    return render(props, ref);\n  }\n);\n";
    let facts = extract_source("link.jsx", source);
    let link = def(&facts, "Link");
    // Editors and the TypeScript checker place `Link` on the first line, where its name
    // is; the function it is bound to starts on the second.
    assert_eq!((link.first_line(), link.span.start_line), (0, 1));
    // The wrapper call runs at module level, outside the function; the call inside
    // belongs to it.
    assert_eq!(
        callers_of(&facts, CallKind::Call, "forwardRef"),
        ["<module>"]
    );
    assert_eq!(callers_of(&facts, CallKind::Call, "render"), ["Link"]);
}
