//! The resolver on small in-memory repositories, one rule per test.

use super::tsconfig::strip_jsonc;
use super::*;
use std::collections::HashSet;

fn resolver(configs: &[(&str, &str)]) -> ModuleResolver {
    let owned: Vec<(String, String)> = configs
        .iter()
        .map(|(path, text)| (path.to_string(), text.to_string()))
        .collect();
    ModuleResolver::new(&owned)
}

fn resolve_in(
    resolver: &ModuleResolver,
    files: &[&str],
    importer: &str,
    spec: &str,
) -> ModuleTarget {
    let files: HashSet<&str> = files.iter().copied().collect();
    resolver.resolve(importer, spec, &|path| files.contains(path))
}

fn file(path: &str) -> ModuleTarget {
    ModuleTarget::File(path.to_string())
}

fn external(name: &str) -> ModuleTarget {
    ModuleTarget::External(name.to_string())
}

#[test]
fn relative_extension_order_and_index() {
    let r = resolver(&[]);
    let files = [
        "src/a.ts",
        "src/a.js",
        "src/b/index.tsx",
        "src/b/index.js",
        "src/c.d.ts",
        "src/c.js",
        "src/d.d.ts",
        "src/e.mjs",
        "src/f.jsx",
    ];
    let go = |spec| resolve_in(&r, &files, "src/main.ts", spec);
    assert_eq!(go("./a"), file("src/a.ts"));
    assert_eq!(go("./b"), file("src/b/index.tsx"));
    assert_eq!(go("./b/index"), file("src/b/index.tsx"));
    assert_eq!(go("./c"), file("src/c.js"), "implementation beats .d.ts");
    assert_eq!(go("./d"), file("src/d.d.ts"), ".d.ts when nothing else");
    assert_eq!(go("./e"), file("src/e.mjs"));
    assert_eq!(go("./f"), file("src/f.jsx"));
    assert_eq!(
        go("./a.js"),
        file("src/a.js"),
        "an existing exact path wins"
    );
    assert_eq!(go("./missing"), ModuleTarget::Unresolved);
    assert_eq!(
        go("./f.jsx?raw"),
        file("src/f.jsx"),
        "bundler query is ignored"
    );
}

#[test]
fn relative_output_extension_means_typescript_source() {
    let r = resolver(&[]);
    let files = [
        "src/x.ts",
        "src/y.tsx",
        "src/m.mts",
        "src/c.cts",
        "src/v.tsx",
        "src/t.ts",
    ];
    let go = |spec| resolve_in(&r, &files, "src/main.ts", spec);
    assert_eq!(go("./x.js"), file("src/x.ts"));
    assert_eq!(go("./y.js"), file("src/y.tsx"));
    assert_eq!(go("./m.mjs"), file("src/m.mts"));
    assert_eq!(go("./c.cjs"), file("src/c.cts"));
    assert_eq!(go("./v.jsx"), file("src/v.tsx"));
    assert_eq!(go("./t.d.ts"), file("src/t.ts"));
    assert_eq!(go("./nope.js"), ModuleTarget::Unresolved);
}

#[test]
fn relative_dots_are_normalised() {
    let r = resolver(&[]);
    let files = [
        "src/c.ts",
        "d.ts",
        "src/a/index.ts",
        "src/index.ts",
        "index.js",
    ];
    let go = |importer, spec| resolve_in(&r, &files, importer, spec);
    assert_eq!(go("src/a/b.ts", "../c"), file("src/c.ts"));
    assert_eq!(go("src/a/b.ts", "./../../d"), file("d.ts"));
    assert_eq!(go("src/a/b.ts", "./.././c"), file("src/c.ts"));
    assert_eq!(go("src/a/b.ts", "."), file("src/a/index.ts"));
    assert_eq!(go("src/a/b.ts", ".."), file("src/index.ts"));
    assert_eq!(
        go("./src/a/b.ts", "../c"),
        file("src/c.ts"),
        "importer with ./"
    );
    assert_eq!(go("src/x.ts", "../index"), file("index.js"));
    assert_eq!(go("main.ts", "."), file("index.js"));
}

#[test]
fn escaping_root_and_absolute_are_unresolved() {
    let r = resolver(&[]);
    let files = ["x.ts", "src/x.ts"];
    assert_eq!(
        resolve_in(&r, &files, "src/a.ts", "../../x"),
        ModuleTarget::Unresolved
    );
    assert_eq!(
        resolve_in(&r, &files, "a.ts", ".."),
        ModuleTarget::Unresolved
    );
    assert_eq!(
        resolve_in(&r, &files, "src/a.ts", "/x"),
        ModuleTarget::Unresolved
    );
    assert_eq!(
        resolve_in(&r, &files, "src/a.ts", "/src/x"),
        ModuleTarget::Unresolved
    );
}

#[test]
fn relative_directory_with_package_json() {
    let r = resolver(&[
        ("src/widget/package.json", r#"{ "main": "./widget.js" }"#),
        (
            "packages/ui/package.json",
            r#"{ "name": "ui", "main": "dist/index.js" }"#,
        ),
        ("src/loop/package.json", r#"{ "main": "." }"#),
    ]);
    let files = [
        "src/widget/widget.ts",
        "src/widget/index.ts",
        "packages/ui/src/index.ts",
        "src/loop/index.ts",
    ];
    let go = |importer, spec| resolve_in(&r, &files, importer, spec);
    assert_eq!(go("src/main.ts", "./widget"), file("src/widget/widget.ts"));
    assert_eq!(
        go("apps/web/main.ts", "../../packages/ui"),
        file("packages/ui/src/index.ts")
    );
    assert_eq!(go("src/main.ts", "./loop"), file("src/loop/index.ts"));
}

#[test]
fn tsconfig_paths_wildcards_and_several_targets() {
    let r = resolver(&[(
        "tsconfig.json",
        r#"{ "compilerOptions": { "paths": {
            "@/*": ["./src/*", "./generated/*"],
            "@/components/*": ["./ui/*"],
            "~config": ["./config/index.ts"],
            "*.svg": ["./assets/*.svg"]
        } } }"#,
    )]);
    let files = [
        "src/util.ts",
        "generated/api.ts",
        "src/api.json",
        "ui/Button.tsx",
        "config/index.ts",
        "assets/logo.svg",
        "src/feature/index.ts",
    ];
    let go = |spec| resolve_in(&r, &files, "src/pages/home.tsx", spec);
    assert_eq!(go("@/util"), file("src/util.ts"));
    assert_eq!(go("@/api"), file("generated/api.ts"), "second target");
    assert_eq!(go("@/feature"), file("src/feature/index.ts"));
    assert_eq!(
        go("@/components/Button"),
        file("ui/Button.tsx"),
        "longest prefix wins"
    );
    assert_eq!(go("~config"), file("config/index.ts"));
    assert_eq!(
        go("logo.svg"),
        file("assets/logo.svg"),
        "pattern with suffix"
    );
    assert_eq!(go("@/nothing"), ModuleTarget::Unresolved);
    assert_eq!(go("react"), external("react"));
}

#[test]
fn tsconfig_paths_relative_to_base_url_and_base_url_alone() {
    let r = resolver(&[(
        "web/tsconfig.json",
        r#"{ "compilerOptions": { "baseUrl": "./src", "paths": { "@app/*": ["app/*"] } } }"#,
    )]);
    let files = [
        "web/src/app/store.ts",
        "web/src/components/Button.tsx",
        "web/src/lib/index.js",
    ];
    let go = |spec| resolve_in(&r, &files, "web/src/app/main.ts", spec);
    assert_eq!(go("@app/store"), file("web/src/app/store.ts"));
    assert_eq!(
        go("components/Button"),
        file("web/src/components/Button.tsx")
    );
    assert_eq!(go("lib"), file("web/src/lib/index.js"));
    assert_eq!(go("react-dom/client"), external("react-dom"));
    // Outside web/ the config does not apply.
    assert_eq!(
        resolve_in(&r, &files, "other/a.ts", "components/Button"),
        external("components")
    );
}

#[test]
fn alias_without_file_is_unresolved_but_catch_all_is_not() {
    let r = resolver(&[(
        "tsconfig.json",
        r#"{ "compilerOptions": { "baseUrl": ".", "paths": {
            "*": ["types/*"],
            "shared": ["src/shared"],
            "react": ["node_modules/@types/react"]
        } } }"#,
    )]);
    let files = ["types/lodash.d.ts"];
    let go = |spec| resolve_in(&r, &files, "src/a.ts", spec);
    assert_eq!(go("shared"), ModuleTarget::Unresolved);
    assert_eq!(go("lodash"), file("types/lodash.d.ts"));
    assert_eq!(go("express"), external("express"));
    assert_eq!(
        go("react"),
        external("react"),
        "redirect into node_modules is not ours"
    );
}

#[test]
fn extends_merges_and_keeps_paths_relative_to_their_config() {
    let r = resolver(&[
        (
            "tsconfig.base.json",
            r#"{ "compilerOptions": { "paths": { "@org/*": ["libs/*/src/index.ts"] } } }"#,
        ),
        (
            "apps/web/tsconfig.json",
            r#"{ "extends": "../../tsconfig.base.json" }"#,
        ),
        (
            "apps/admin/tsconfig.json",
            r#"{ "extends": "../../tsconfig.base", "compilerOptions": { "paths": { "@admin/*": ["./src/*"] } } }"#,
        ),
        (
            "apps/base-url/tsconfig.json",
            r#"{ "extends": "./tsconfig.app.json" }"#,
        ),
        (
            "apps/base-url/tsconfig.app.json",
            r#"{ "extends": "./tsconfig.paths.json", "compilerOptions": { "baseUrl": "src" } }"#,
        ),
        (
            "apps/base-url/tsconfig.paths.json",
            r#"{ "compilerOptions": { "paths": { "~/*": ["*"] } } }"#,
        ),
    ]);
    let files = [
        "libs/auth/src/index.ts",
        "apps/admin/src/users.ts",
        "apps/base-url/src/x.ts",
    ];
    let go = |importer, spec| resolve_in(&r, &files, importer, spec);
    assert_eq!(
        go("apps/web/src/main.ts", "@org/auth"),
        file("libs/auth/src/index.ts")
    );
    assert_eq!(
        go("apps/admin/src/main.ts", "@admin/users"),
        file("apps/admin/src/users.ts")
    );
    // The child's `paths` replaces the parent's wholesale, as in TypeScript.
    assert_eq!(
        go("apps/admin/src/main.ts", "@org/auth"),
        external("@org/auth")
    );
    // `paths` from a grandparent, resolved against the baseUrl set by the parent.
    assert_eq!(
        go("apps/base-url/src/main.ts", "~/x"),
        file("apps/base-url/src/x.ts")
    );
}

#[test]
fn extends_a_workspace_package_and_cycles_terminate() {
    let r = resolver(&[
        (
            "packages/tsconfig/package.json",
            r#"{ "name": "@repo/typescript-config" }"#,
        ),
        (
            "packages/tsconfig/tsconfig.json",
            r#"{ "compilerOptions": { "paths": { "@/*": ["../../apps/web/src/*"] } } }"#,
        ),
        (
            "packages/tsconfig/tsconfig.lib.json",
            r#"{ "compilerOptions": { "baseUrl": "../../libs" } }"#,
        ),
        (
            "apps/web/tsconfig.json",
            r#"{ "extends": "@repo/typescript-config" }"#,
        ),
        (
            "apps/lib/tsconfig.json",
            r#"{ "extends": ["@repo/typescript-config/tsconfig.lib.json", "@tsconfig/node20/tsconfig.json"] }"#,
        ),
        ("a/tsconfig.json", r#"{ "extends": "./tsconfig.b.json" }"#),
        ("a/tsconfig.b.json", r#"{ "extends": "./tsconfig.json" }"#),
    ]);
    let files = ["apps/web/src/lib/db.ts", "libs/math.ts"];
    let go = |importer, spec| resolve_in(&r, &files, importer, spec);
    assert_eq!(
        go("apps/web/src/page.tsx", "@/lib/db"),
        file("apps/web/src/lib/db.ts")
    );
    assert_eq!(go("apps/lib/x.ts", "math"), file("libs/math.ts"));
    assert_eq!(go("a/x.ts", "react"), external("react"));
}

#[test]
fn jsonc_comments_and_trailing_commas() {
    let config = r##"{
  "$schema": "https://json.schemastore.org/tsconfig", // a URL inside a string
  /* block
 comment with "quotes" */
  "compilerOptions": {
"paths": {
  "@/*": ["./src/*",], /* inline */
  "lib/*": ["./vendor/*"],
},
  },
  "include": ["src/**/*", "lib/**/*",],
}"##;
    let r = resolver(&[("tsconfig.json", &format!("\u{feff}{config}"))]);
    let files = ["src/a.ts", "vendor/b.ts"];
    assert_eq!(resolve_in(&r, &files, "src/x.ts", "@/a"), file("src/a.ts"));
    assert_eq!(
        resolve_in(&r, &files, "src/x.ts", "lib/b"),
        file("vendor/b.ts")
    );
    assert_eq!(
        strip_jsonc(r#"{"a": "x\"//y", "b": [1, 2 , ] , }"#),
        r#"{"a": "x\"//y", "b": [1, 2 ] }"#
    );
}

#[test]
fn a_config_holding_a_nul_parses_as_the_store_keeps_it() {
    // A raw NUL in a JSON string is not JSON; the store keeps it as U+FFFD, which is.
    // Read from the file or from the store, the config must mean the same.
    let raw = "{ \"name\": \"pkg\u{0}x\", \"main\": \"src/a.js\" }";
    let stored = raw.replace('\0', "\u{FFFD}");
    assert_eq!(strip_jsonc(raw), strip_jsonc(&stored));
    assert!(serde_json::from_str::<serde_json::Value>(&strip_jsonc(raw)).is_ok());
}

#[test]
fn broken_config_is_ignored() {
    let r = resolver(&[
        (
            "tsconfig.json",
            r#"{ "compilerOptions": { "paths": { "@/*": ["src/*"] } } }"#,
        ),
        (
            "packages/a/tsconfig.json",
            r#"{ "compilerOptions": { "paths": "#,
        ),
        ("packages/b/tsconfig.json", r#"[1, 2]"#),
        ("packages/c/package.json", "not json"),
        (
            "packages/d/tsconfig.json",
            r#"{ "compilerOptions": { "paths": { "x": 5 }, "baseUrl": 3 } }"#,
        ),
    ]);
    let files = ["src/util.ts"];
    assert_eq!(
        resolve_in(&r, &files, "packages/a/x.ts", "@/util"),
        file("src/util.ts")
    );
    assert_eq!(
        resolve_in(&r, &files, "packages/b/x.ts", "@/util"),
        file("src/util.ts")
    );
    assert_eq!(
        resolve_in(&r, &files, "packages/d/x.ts", "x"),
        external("x")
    );
}

#[test]
fn nearest_config_governs_in_a_monorepo() {
    let config = r#"{ "compilerOptions": { "paths": { "@/*": ["./src/*"] } } }"#;
    let r = resolver(&[
        ("packages/a/tsconfig.json", config),
        ("packages/b/jsconfig.json", config),
        ("packages/c/tsconfig.json", "{}"),
        (
            "tsconfig.json",
            r#"{ "compilerOptions": { "paths": { "@/*": ["./root/*"] } } }"#,
        ),
    ]);
    let files = [
        "packages/a/src/util.ts",
        "packages/b/src/util.js",
        "root/util.ts",
        "packages/c/src/util.ts",
    ];
    let go = |importer, spec| resolve_in(&r, &files, importer, spec);
    assert_eq!(
        go("packages/a/src/deep/x.ts", "@/util"),
        file("packages/a/src/util.ts")
    );
    assert_eq!(
        go("packages/b/src/x.js", "@/util"),
        file("packages/b/src/util.js")
    );
    assert_eq!(go("tools/x.ts", "@/util"), file("root/util.ts"));
    // A config without aliases still governs: the root's aliases do not leak into it.
    assert_eq!(
        go("packages/c/src/x.ts", "@/util"),
        ModuleTarget::Unresolved
    );
}

#[test]
fn solution_config_uses_referenced_configs() {
    let r = resolver(&[
        (
            "tsconfig.json",
            r#"{ "files": [], "references": [{ "path": "./tsconfig.node.json" }, { "path": "./tsconfig.app.json" }] }"#,
        ),
        ("tsconfig.node.json", r#"{ "include": ["vite.config.ts"] }"#),
        (
            "tsconfig.app.json",
            r#"{ "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["./src/*"] } } }"#,
        ),
    ]);
    assert_eq!(
        resolve_in(&r, &["src/lib/utils.ts"], "src/App.tsx", "@/lib/utils"),
        file("src/lib/utils.ts")
    );
}

#[test]
fn workspace_package_exports() {
    let r = resolver(&[
        (
            "packages/str/package.json",
            r#"{ "name": "str", "exports": "./src/main.ts" }"#,
        ),
        (
            "packages/cond/package.json",
            r#"{ "name": "cond", "main": "./dist/index.cjs", "exports": { ".": {
                "types": "./dist/index.d.ts",
                "import": { "types": "./dist/index.d.mts", "default": "./dist/index.mjs" },
                "source": "./lib-src/entry.ts"
            } } }"#,
        ),
        (
            "packages/sub/package.json",
            r#"{ "name": "sub", "exports": {
                ".": "./src/index.ts",
                "./utils": { "import": "./src/utils/index.ts" },
                "./icons/*": "./src/icons/*.tsx",
                "./*": { "default": "./dist/*.js" },
                "./package.json": "./package.json"
            } }"#,
        ),
        (
            "packages/bare-cond/package.json",
            r#"{ "name": "bare-cond", "exports": { "require": "./x.cjs", "import": "./x.mjs" } }"#,
        ),
    ]);
    let files = [
        "packages/str/src/main.ts",
        "packages/cond/lib-src/entry.ts",
        "packages/sub/src/index.ts",
        "packages/sub/src/utils/index.ts",
        "packages/sub/src/icons/Arrow.tsx",
        "packages/sub/src/format/date.ts",
        "packages/bare-cond/x.mjs",
        "packages/bare-cond/x.cjs",
    ];
    let go = |spec| resolve_in(&r, &files, "apps/web/main.ts", spec);
    assert_eq!(go("str"), file("packages/str/src/main.ts"));
    assert_eq!(
        go("cond"),
        file("packages/cond/lib-src/entry.ts"),
        "`source` preferred"
    );
    assert_eq!(go("sub"), file("packages/sub/src/index.ts"));
    assert_eq!(go("sub/utils"), file("packages/sub/src/utils/index.ts"));
    assert_eq!(
        go("sub/icons/Arrow"),
        file("packages/sub/src/icons/Arrow.tsx"),
        "longest pattern"
    );
    assert_eq!(
        go("sub/format/date"),
        file("packages/sub/src/format/date.ts"),
        "dist pattern -> src"
    );
    assert_eq!(
        go("sub/missing"),
        ModuleTarget::Unresolved,
        "ours, but no file"
    );
    assert_eq!(
        go("bare-cond"),
        file("packages/bare-cond/x.mjs"),
        "import before require"
    );
}

#[test]
fn main_pointing_at_missing_build_output_falls_back_to_source() {
    let r = resolver(&[
        (
            "packages/a/package.json",
            r#"{ "name": "a", "main": "dist/index.js", "types": "dist/index.d.ts" }"#,
        ),
        (
            "packages/b/package.json",
            r#"{ "name": "b", "module": "./lib/esm/b.mjs" }"#,
        ),
        (
            "packages/c/package.json",
            r#"{ "name": "c", "main": "./build/c.umd.js" }"#,
        ),
        (
            "packages/d/package.json",
            r#"{ "name": "d", "main": "out/main.js" }"#,
        ),
        (
            "packages/e/package.json",
            r#"{ "name": "e", "main": "index.js" }"#,
        ),
        ("packages/f/package.json", r#"{ "name": "f" }"#),
    ]);
    let files = [
        "packages/a/src/index.ts",
        "packages/b/src/b.mts",
        "packages/c/src/index.tsx",
        "packages/d/index.ts",
        "packages/e/index.ts",
        "packages/f/src/index.js",
    ];
    let go = |spec| resolve_in(&r, &files, "app.ts", spec);
    assert_eq!(go("a"), file("packages/a/src/index.ts"));
    assert_eq!(go("b"), file("packages/b/src/b.mts"), "format dir dropped");
    assert_eq!(
        go("c"),
        file("packages/c/src/index.tsx"),
        "src/index fallback"
    );
    assert_eq!(go("d"), file("packages/d/index.ts"), "root index fallback");
    assert_eq!(go("e"), file("packages/e/index.ts"), "extension swap");
    assert_eq!(go("f"), file("packages/f/src/index.js"));
    // The committed build output, when present, is what Node loads.
    assert_eq!(
        resolve_in(
            &r,
            &["packages/a/dist/index.js", "packages/a/src/index.ts"],
            "x.ts",
            "a"
        ),
        file("packages/a/dist/index.js")
    );
}

#[test]
fn scoped_packages_and_subpaths() {
    let r = resolver(&[
        (
            "package.json",
            r#"{ "name": "root", "private": true, "workspaces": ["packages/*"] }"#,
        ),
        (
            "packages/ui/package.json",
            r#"{ "name": "@org/ui", "main": "./dist/index.js" }"#,
        ),
        ("packages/lib/package.json", r#"{ "name": "@org/lib" }"#),
    ]);
    let files = [
        "packages/ui/src/index.ts",
        "packages/ui/src/button.tsx",
        "packages/lib/helpers/math.js",
    ];
    let go = |spec| resolve_in(&r, &files, "apps/web/page.tsx", spec);
    assert_eq!(go("@org/ui"), file("packages/ui/src/index.ts"));
    assert_eq!(go("@org/ui/button"), file("packages/ui/src/button.tsx"));
    assert_eq!(
        go("@org/lib/helpers/math"),
        file("packages/lib/helpers/math.js")
    );
    assert_eq!(go("@org/lib/helpers/nope"), ModuleTarget::Unresolved);
    assert_eq!(go("@org/other"), external("@org/other"));
}

#[test]
fn subpath_imports_from_package_json() {
    let r = resolver(&[(
        "package.json",
        r##"{ "name": "app", "imports": { "#db": "./src/db/index.ts", "#utils/*": { "node": "./src/utils/*.js" }, "#dep": "lodash" } }"##,
    )]);
    let files = ["src/db/index.ts", "src/utils/date.ts"];
    let go = |spec| resolve_in(&r, &files, "src/server/main.ts", spec);
    assert_eq!(go("#db"), file("src/db/index.ts"));
    assert_eq!(go("#utils/date"), file("src/utils/date.ts"));
    assert_eq!(go("#dep"), external("lodash"));
    assert_eq!(go("#nope"), ModuleTarget::Unresolved);
}

#[test]
fn externals() {
    let r = resolver(&[]);
    let go = |spec| resolve_in(&r, &[], "src/a.ts", spec);
    assert_eq!(go("react"), external("react"));
    assert_eq!(go("lodash/fp"), external("lodash"));
    assert_eq!(go("@a/b"), external("@a/b"));
    assert_eq!(go("@a/b/c/d"), external("@a/b"));
    assert_eq!(go("node:fs"), external("fs"));
    assert_eq!(go("node:fs/promises"), external("fs"));
    assert_eq!(go("fs"), external("fs"));
    assert_eq!(go("lodash.debounce"), external("lodash.debounce"));
}

#[test]
fn unresolvable_specifiers() {
    let r = resolver(&[]);
    let go = |spec| resolve_in(&r, &[], "src/a.ts", spec);
    for spec in [
        "",
        "https://esm.sh/react",
        "data:text/javascript,1",
        "virtual:pwa",
        "npm:react",
        "node:",
        "@/x",
        "~/x",
        "$lib/x",
        "@scope",
        "?x",
    ] {
        assert_eq!(go(spec), ModuleTarget::Unresolved, "{spec:?}");
    }
}

#[test]
fn duplicate_package_names_prefer_the_shallowest() {
    let r = resolver(&[
        (
            "test/fixtures/copy/package.json",
            r#"{ "name": "dup", "main": "index.js" }"#,
        ),
        (
            "packages/dup/package.json",
            r#"{ "name": "dup", "main": "index.js" }"#,
        ),
    ]);
    let files = ["test/fixtures/copy/index.js", "packages/dup/index.js"];
    assert_eq!(
        resolve_in(&r, &files, "a.ts", "dup"),
        file("packages/dup/index.js")
    );
}

#[test]
fn config_file_names() {
    for path in [
        "package.json",
        "tsconfig.json",
        "jsconfig.json",
        "a/b/tsconfig.app.json",
        "./tsconfig.base.json",
    ] {
        assert!(ModuleResolver::is_config_file(path), "{path}");
    }
    for path in [
        "node_modules/x/package.json",
        "a/node_modules/tsconfig.json",
        "tsconfig.ts",
        "src/config.json",
        "package-lock.json",
    ] {
        assert!(!ModuleResolver::is_config_file(path), "{path}");
    }
}

#[test]
fn declared_entries_pair_a_packages_types_with_its_code() {
    let r = resolver(&[
        (
            "package.json",
            r#"{ "name": "root", "main": "lib/index.js", "types": "types/index.d.ts" }"#,
        ),
        (
            "packages/cond/package.json",
            r#"{ "name": "cond", "exports": { ".": {
                "import": { "types": "./index.d.mts", "default": "./index.mjs" },
                "require": "./index.cjs"
            } } }"#,
        ),
        // Types beside the code, and a package whose declarations are its sources.
        (
            "packages/beside/package.json",
            r#"{ "main": "index.js", "types": "index.d.ts" }"#,
        ),
        (
            "packages/ts/package.json",
            r#"{ "main": "dist/index.js", "types": "dist/index.d.ts" }"#,
        ),
        (
            "packages/missing/package.json",
            r#"{ "main": "index.js", "typings": "gone.d.ts" }"#,
        ),
    ]);
    let files: HashSet<&str> = [
        "lib/index.js",
        "types/index.d.ts",
        "packages/cond/index.d.mts",
        "packages/cond/index.mjs",
        "packages/cond/index.cjs",
        "packages/beside/index.js",
        "packages/beside/index.d.ts",
        "packages/ts/src/index.ts",
        "packages/missing/index.js",
    ]
    .into_iter()
    .collect();
    let pairs = r.declared_entries(&|p| files.contains(p));
    let pairs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(d, c)| (d.as_str(), c.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("types/index.d.ts", "lib/index.js"),
            ("packages/beside/index.d.ts", "packages/beside/index.js"),
            ("packages/cond/index.d.mts", "packages/cond/index.mjs"),
        ]
    );
}

#[test]
fn a_repository_lists_its_packages_by_name() {
    let r = resolver(&[
        (
            "package.json",
            r#"{ "name": "acme", "private": true, "workspaces": ["packages/*"] }"#,
        ),
        (
            "packages/money/package.json",
            r#"{ "name": "@acme/money" }"#,
        ),
        (
            "packages/ui/package.json",
            r#"{ "name": "@acme/ui", "exports": { ".": "./src/index.ts" } }"#,
        ),
        // No name, or not a package name: nothing imports it by one.
        ("tools/package.json", r#"{ "private": true }"#),
        ("bad/package.json", r#"{ "name": "@acme/ui/deep" }"#),
    ]);
    assert_eq!(
        r.packages(),
        vec![
            ("@acme/money", "packages/money"),
            ("@acme/ui", "packages/ui"),
            ("acme", "")
        ]
    );
}

#[test]
fn a_dependency_range_comes_from_the_nearest_package_that_lists_it() {
    let r = resolver(&[
        (
            "package.json",
            r#"{ "name": "root", "devDependencies": { "@acme/money": "^2.1.0", "jest": "29" } }"#,
        ),
        (
            "apps/web/package.json",
            r#"{ "name": "web", "dependencies": { "@acme/money": "workspace:*" },
                "devDependencies": { "@acme/money": "^1.0.0" } }"#,
        ),
        (
            "apps/api/package.json",
            r#"{ "name": "api", "peerDependencies": { "react": ">=18" } }"#,
        ),
    ]);
    // The package's own list first, and `dependencies` before `devDependencies`.
    assert_eq!(
        r.dependency_range("apps/web/src/a.ts", "@acme/money"),
        Some("workspace:*")
    );
    // A package that does not list it: the root's.
    assert_eq!(
        r.dependency_range("apps/api/src/a.ts", "@acme/money"),
        Some("^2.1.0")
    );
    assert_eq!(
        r.dependency_range("apps/api/src/a.ts", "react"),
        Some(">=18")
    );
    assert_eq!(r.dependency_range("scripts/x.js", "react"), None);
}

#[test]
fn the_package_a_specifier_names() {
    for (specifier, package) in [
        ("@acme/money", Some("@acme/money")),
        ("@acme/money/format", Some("@acme/money")),
        ("lodash/fp/map", Some("lodash")),
        ("node:fs/promises", Some("fs")),
        ("./local", None),
        ("../up", None),
        ("#internal", None),
        ("/abs", None),
        ("https://esm.sh/x", None),
        ("@/alias", None),
    ] {
        assert_eq!(
            ModuleResolver::package_of(specifier),
            package,
            "{specifier}"
        );
    }
}

#[test]
fn a_package_is_reached_by_its_exports_conditions_and_subpaths() {
    // What another repository's import of the package reaches when laid over this one.
    let r = resolver(&[(
        "packages/money/package.json",
        r#"{ "name": "@acme/money",
             "exports": { ".": { "types": "./dist/index.d.ts", "import": "./dist/index.js" },
                          "./format": { "node": { "import": "./src/format.ts" } },
                          "./units/*": "./src/units/*.ts" } }"#,
    )]);
    let files = [
        "packages/money/src/index.ts",
        "packages/money/src/format.ts",
        "packages/money/src/units/cents.ts",
    ];
    let from = "__blast_radius__/calls.ts";
    assert_eq!(
        resolve_in(&r, &files, from, "@acme/money"),
        file("packages/money/src/index.ts")
    );
    assert_eq!(
        resolve_in(&r, &files, from, "@acme/money/format"),
        file("packages/money/src/format.ts")
    );
    assert_eq!(
        resolve_in(&r, &files, from, "@acme/money/units/cents"),
        file("packages/money/src/units/cents.ts")
    );
    assert_eq!(
        resolve_in(&r, &files, from, "@acme/other"),
        external("@acme/other")
    );
}

/// Strict null checks by the nearest tsconfig: `strictNullChecks` over `strict`, each
/// key inherited along `extends` unless the config sets it; a solution config takes
/// what its references agree on; a config that extends one out of reach, or none, is
/// not known to be strict.
#[test]
fn strict_null_checks_follow_extends_and_references() {
    let r = resolver(&[
        (
            "tsconfig.base.json",
            r#"{ "compilerOptions": { "strict": true } }"#,
        ),
        (
            "a/tsconfig.json",
            r#"{ "extends": "../tsconfig.base.json" }"#,
        ),
        (
            "b/tsconfig.json",
            r#"{ "extends": "../tsconfig.base.json", "compilerOptions": { "strictNullChecks": false } }"#,
        ),
        (
            "c/tsconfig.json",
            r#"{ "compilerOptions": { "strict": false, "strictNullChecks": true } }"#,
        ),
        ("d/tsconfig.json", r#"{ "extends": "@tsconfig/strictest" }"#),
        (
            "e/tsconfig.json",
            r#"{ "files": [], "references": [{ "path": "./tsconfig.app.json" }, { "path": "./tsconfig.node.json" }] }"#,
        ),
        (
            "e/tsconfig.app.json",
            r#"{ "extends": "../tsconfig.base.json" }"#,
        ),
        (
            "e/tsconfig.node.json",
            r#"{ "compilerOptions": { "strict": true } }"#,
        ),
        (
            "f/tsconfig.json",
            r#"{ "files": [], "references": [{ "path": "./tsconfig.app.json" }, { "path": "./tsconfig.node.json" }] }"#,
        ),
        (
            "f/tsconfig.app.json",
            r#"{ "extends": "../tsconfig.base.json" }"#,
        ),
        ("f/tsconfig.node.json", r#"{ "compilerOptions": {} }"#),
    ]);
    let strict = |file: &str| r.strict_null_checks(file);
    assert!(strict("a/src/x.ts"));
    assert!(!strict("b/x.ts"));
    assert!(strict("c/deep/er/x.ts"));
    assert!(!strict("d/x.ts"));
    assert!(strict("e/src/x.ts"));
    assert!(!strict("f/src/x.ts"));
    // No config governs the root: the compiler's default, off.
    assert!(!strict("x.ts"));
}
