//! Attacker-shaped sources (issue 41), shared by `tests/engine/hostile.rs` and
//! `benches/hostile.rs`: each generator takes a count of units and gives a file (or a
//! repository of files) about that many units long.
//!
//! Units end in a newline where the syntax allows it, so that the skip rules' minified
//! check (long lines) lets the file through to the engine, which is what is under test;
//! the few shapes that are one long line on purpose say so.

#![allow(dead_code)]

/// A generator of one file of `n` units.
pub type FileShape = fn(usize) -> String;
/// A generator of a repository of `n` units: (path, source) pairs.
pub type RepoShape = fn(usize) -> Vec<(String, String)>;

fn rep(s: &str, n: usize) -> String {
    s.repeat(n)
}

fn lines(n: usize, line: impl Fn(usize) -> String) -> String {
    (0..n).map(line).collect()
}

/// One file each: (file name, generator). The extension picks the grammar.
pub const FILE_SHAPES: &[(&str, FileShape)] = &[
    // Deep nesting of every construct.
    ("nested_arrows.js", |n| {
        format!("x = {}1;\n", rep("()=>\n", n))
    }),
    ("parens.js", |n| {
        format!("x = {}1{};\n", rep("(\n", n), rep(")\n", n))
    }),
    ("arrays.js", |n| {
        format!("x = {}{};\n", rep("[\n", n), rep("]\n", n))
    }),
    ("objects.js", |n| {
        format!("x = {}1{};\n", rep("{a:\n", n), rep("}\n", n))
    }),
    ("calls.js", |n| {
        format!("x = {}1{};\n", rep("f(\n", n), rep(")\n", n))
    }),
    ("ternaries.js", |n| {
        format!("x = {}0;\n", rep("a ? b :\n", n))
    }),
    ("assign_chain.js", |n| format!("{}1;\n", rep("a =\n", n))),
    ("templates.js", |n| {
        format!("x = {}1{};\n", rep("`${\n", n), rep("}`\n", n))
    }),
    ("jsx.jsx", |n| {
        format!("x = {}{};\n", rep("<a>\n", n), rep("</a>\n", n))
    }),
    ("jsx_attrs.jsx", |n| {
        format!("x = {}{};\n", rep("<a b={\n", n), rep("} />\n", n))
    }),
    ("functions.js", |n| {
        format!("{}{}\n", rep("function a(){\n", n), rep("}\n", n))
    }),
    ("classes.js", |n| {
        format!("{}{}\n", rep("class A { m() {\n", n), rep("}}\n", n))
    }),
    ("class_exprs.js", |n| {
        format!(
            "x = {}1{};\n",
            rep("class extends (\n", n),
            rep(") {}\n", n)
        )
    }),
    ("blocks.js", |n| {
        format!("{}{}\n", rep("if (a) {\n", n), rep("}\n", n))
    }),
    ("new_chain.js", |n| format!("x = {}A;\n", rep("new\n", n))),
    ("generics.ts", |n| {
        format!("let x: {}T{};\n", rep("A<\n", n), rep(">\n", n))
    }),
    ("type_objects.ts", |n| {
        format!("let x: {}T{};\n", rep("{ a:\n", n), rep("}\n", n))
    }),
    ("function_types.ts", |n| {
        format!("let x: {}T{};\n", rep("(a:\n", n), rep(") => T\n", n))
    }),
    ("conditional_types.ts", |n| {
        format!("type C = {}never;\n", rep("A extends B ? C :\n", n))
    }),
    ("unions.ts", |n| {
        format!("type U = {}never;\n", rep("A |\n", n))
    }),
    ("decorators.ts", |n| {
        format!("class A {{\n{}}}\n", rep("  @a(\n", n))
    }),
    ("unclosed.ts", |n| rep("import('./x').A<\n", n)),
    ("jsdoc.js", |n| {
        format!(
            "/** @param {{{}}} a */\nfunction f(a) {{}}\n",
            rep("{a:\n", n)
        )
    }),
    ("lt_lines.ts", |n| {
        format!("const x = a\n{};\n)\n", rep(" <b\n", n))
    }),
    // Long chains.
    ("member_chain.js", |n| format!("x = a{};\n", rep("\n.b", n))),
    ("call_chain.js", |n| {
        format!("x = a(){};\n", rep("\n.b()", n))
    }),
    ("optional_chain.js", |n| {
        format!("x = a{};\n", rep("\n?.b?.()", n))
    }),
    ("computed_chain.js", |n| {
        format!("x = a{};\n", rep("\n[b]", n))
    }),
    ("this_chain.js", |n| {
        format!("class A {{ m() {{ return this{}; }} }}\n", rep("\n.m()", n))
    }),
    ("binary_chain.js", |n| {
        format!("x = a{};\n", rep("\n+ a", n))
    }),
    // Many of one thing.
    ("returned_arrows.js", |n| {
        lines(n, |i| format!("function f{i}(){{return ()=>1}}\n"))
    }),
    ("overloads.ts", |n| {
        format!(
            "{}export function f(a) {{}}\n",
            rep("export function f(a: number): void;\n", n)
        )
    }),
    ("overloads_typed.ts", |n| {
        let decls = lines(n, |i| format!("function f(a: T{i}): R{i};\n"));
        format!("{decls}function f(a) {{}}\nf(1);\n")
    }),
    ("method_overloads.ts", |n| {
        format!(
            "class A {{\n{}  m(a) {{}}\n}}\nnew A().m(1);\n",
            lines(n, |i| format!("  m(a: T{i}): R;\n"))
        )
    }),
    ("same_names.js", |n| rep("function f(){ f() }\n", n)),
    ("same_methods.js", |n| {
        format!("class A {{\n{}}}\n", rep("  m() { this.m() }\n", n))
    }),
    ("same_vars.js", |n| {
        rep("var handle = function(){ handle() };\n", n)
    }),
    ("imports.ts", |n| {
        lines(n, |i| {
            format!("import {{ x{i} as y }} from './m{i}';\ny();\n")
        })
    }),
    // Odd bytes. A NUL in the first 8 KB makes the file binary; later ones reach the
    // engine.
    ("nul_bytes.js", |n| {
        format!(
            "{}{}",
            rep("// padding past the binary check's window\n", 200),
            rep("f(\"\0\");\0\n", n)
        )
    }),
    ("lone_surrogates.js", |n| {
        rep("f(\"\\uD800\", '\\uDFFF', `\\uD83D`);\n", n)
    }),
    ("boms.js", |n| {
        format!("\u{FEFF}{}", rep("f();\u{FEFF}\n", n))
    }),
    // CR-only line breaks, in lines the minified check counts as short.
    ("cr_lines.js", |n| {
        lines(n, |_| format!("{}\n", rep("f()\r", 300)))
    }),
    // Lines just under the minified check's 2,000 bytes.
    ("long_lines.js", |n| {
        lines(n, |i| format!("x{i} = {};\n", rep("a.b(c) + ", 220)))
    }),
    // Components: as many template tags as imports they might name, unclosed tags,
    // braces that never close.
    ("tags.vue", |n| {
        format!(
            "<template>\n{}</template>\n<script setup>\n{}</script>\n",
            lines(n, |i| format!("<C{i} :a=\"f({i})\" />\n")),
            lines(n, |i| format!("import C{i} from './c{i}.vue';\n"))
        )
    }),
    ("unclosed_tags.svelte", |n| {
        format!("<script>\n  let a = 1;\n</script>\n{}", rep("<b x={a\n", n))
    }),
    ("braces.astro", |n| {
        format!("---\nconst a = 1;\n---\n{}", rep("<p>{a}{[{\n", n))
    }),
    // Angular templates: a template file of nested structural scopes, bindings that
    // never close and blocks that never end; an inline template of as many bindings.
    ("template.component.html", |n| {
        format!(
            "{}{}{}",
            rep("<div *ngFor=\"let x of xs(); trackBy: t\" #r>\n", n),
            rep("@if (a(x)) { {{ x.y(r) | p:{a: b(\n", n),
            rep("<a (click)=\"f(\n", n)
        )
    }),
    ("inline_template.ts", |n| {
        format!(
            "@Component({{ template: `\n{}` }})\nexport class A {{ f() {{}} }}\n",
            lines(n, |i| format!("<b (click)=\"f({i})\">{{{{ f() }}}}</b>\n"))
        )
    }),
    // One long line on purpose: skipped as minified before the engine sees it.
    ("one_line.js", |n| format!("x = a{};\n", rep(" + a", n))),
    ("long_string.js", |n| format!("x = \"{}\";\n", rep("a", n))),
];

fn file(path: impl Into<String>, source: impl Into<String>) -> (String, String) {
    (path.into(), source.into())
}

/// Repositories whose cost is in resolution across files: (name, generator).
pub const REPO_SHAPES: &[(&str, RepoShape)] = &[
    // `n` files define `handle` as a script's top-level function, `n` call it by name.
    ("same_name_fanout", |n| {
        let mut files: Vec<_> = (0..n)
            .map(|i| file(format!("def{i}.js"), "function handle() {}\n"))
            .collect();
        files.extend((0..n).map(|i| file(format!("use{i}.js"), "handle();\n")));
        files
    }),
    // As above, with methods of that name on objects of unknown type.
    ("same_method_fanout", |n| {
        let mut files: Vec<_> = (0..n)
            .map(|i| {
                file(
                    format!("def{i}.js"),
                    format!("export class C{i} {{ handle() {{}} }}\n"),
                )
            })
            .collect();
        files.extend((0..n).map(|i| {
            file(
                format!("use{i}.js"),
                "export const u = (x) => x.handle();\n",
            )
        }));
        files
    }),
    // Two modules that star-export each other, and a caller asking both for names
    // neither has.
    ("reexport_cycle", |n| {
        let names: String = lines(n, |i| format!("import {{ n{i} }} from './a';\nn{i}();\n"));
        vec![
            file("a.ts", "export * from './b';\nexport function fa() {}\n"),
            file("b.ts", "export * from './a';\nexport function fb() {}\n"),
            file("use.ts", names),
        ]
    }),
    // A ring of `n` modules, each star-exporting the next and defining its own name;
    // a caller imports every name from the first.
    ("reexport_ring", |n| {
        let mut files: Vec<_> = (0..n)
            .map(|i| {
                file(
                    format!("r{i}.ts"),
                    format!(
                        "export * from './r{}';\nexport function f{i}() {{}}\n",
                        (i + 1) % n
                    ),
                )
            })
            .collect();
        files.push(file(
            "use.ts",
            lines(n, |i| format!("import {{ f{i} }} from './r0';\nf{i}();\n")),
        ));
        files
    }),
    // a0 re-exports a1 ... re-exports a(n-1), which defines `deep`.
    ("reexport_chain", |n| {
        let mut files: Vec<_> = (0..n - 1)
            .map(|i| {
                file(
                    format!("a{i}.ts"),
                    format!("export * from './a{}';\n", i + 1),
                )
            })
            .collect();
        files.push(file(
            format!("a{}.ts", n - 1),
            "export function deep() {}\n",
        ));
        files.push(file("use.ts", "import { deep } from './a0';\ndeep();\n"));
        files
    }),
    // A barrel star-exporting `n` modules, and `n` callers each importing one name.
    ("barrel_fanout", |n| {
        let mut files: Vec<_> = (0..n)
            .map(|i| file(format!("m{i}.ts"), format!("export function f{i}() {{}}\n")))
            .collect();
        files.push(file(
            "index.ts",
            lines(n, |i| format!("export * from './m{i}';\n")),
        ));
        files.extend((0..n).map(|i| {
            file(
                format!("use{i}.ts"),
                format!("import {{ f{i} }} from './index';\nf{i}();\n"),
            )
        }));
        files
    }),
];

/// The number of units that makes `shape` just under `bytes` long.
pub fn units_for(shape: FileShape, bytes: usize) -> usize {
    let base = shape(1).len();
    let per = (shape(101).len() - base) as f64 / 100.0;
    let mut n = ((bytes.saturating_sub(base)) as f64 / per) as usize;
    while n > 1 && shape(n).len() > bytes {
        n = n * 99 / 100;
    }
    n.max(1)
}
