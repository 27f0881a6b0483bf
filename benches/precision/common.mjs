// What eval.mjs (script files) and components.mjs (Vue and Svelte files) share: which
// files the indexer reads, our graph's nodes by file, the compiler options and per-config
// groups the checker runs with, how a checker symbol becomes definitions and definitions
// become our nodes, and the scoring and its report.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import ts from "typescript";

// The same files the indexer reads (crates/engine/src/indexer/select.rs): vendored code
// (vendor/, third_party/) is read, installed packages and build output are not.
const SKIPPED_DIRS = new Set([
  "node_modules", "bower_components", "jspm_packages",
  "dist", "build", ".git", ".next", ".nuxt", ".svelte-kit", "coverage", ".cache", ".turbo",
]);
export const SCRIPT_EXT = /\.(js|jsx|mjs|cjs|ts|tsx|mts|cts)$/;

/** The repository's tracked files whose names match `ext`, as the indexer selects them. */
export function listFiles(repo, ext) {
  return execFileSync("git", ["ls-files"], { cwd: repo, maxBuffer: 1 << 28 })
    .toString()
    .split("\n")
    .filter((f) => ext.test(f) && !f.split("/").slice(0, -1).some((p) => SKIPPED_DIRS.has(p)))
    .filter((f) => fs.existsSync(path.join(repo, f)));
}

/** `--show N` from the arguments after REPO and GRAPH. */
export function showArg(rest) {
  const i = rest.indexOf("--show");
  return i >= 0 ? Number(rest[i + 1]) : 0;
}

/** Our graph's nodes, by file and by id, and the lookups the scoring needs. */
export function loadGraph(graph, root) {
  const nodesByFile = new Map();
  for (const n of graph.nodes) {
    if (!nodesByFile.has(n.file)) nodesByFile.set(n.file, []);
    nodesByFile.get(n.file).push(n);
  }
  const nodeById = new Map(graph.nodes.map((n) => [n.id, n]));
  // The narrowest node of `file` around `line` that `pred` accepts.
  function enclosing(file, line, pred) {
    let best;
    for (const m of nodesByFile.get(file) ?? []) {
      if (m.line <= line && line <= m.end_line && pred(m)) {
        if (!best || m.end_line - m.line < best.end_line - best.line) best = m;
      }
    }
    return best;
  }
  // A constructor stands for its class: `new C()` is scored the same whichever of the two
  // a graph points at. A declaration beside its code stands for the code (see
  // `sourceDefinition`), on both sides.
  function normalise(id) {
    let n = nodeById.get(id);
    const source = n && sourceDefinition(nodesByFile, n, root);
    if (source) {
      n = source;
      id = source.id;
    }
    if (n && n.name === "constructor") {
      const cls = enclosing(n.file, n.line, (m) => m.kind === "class" && m.id !== n.id);
      if (cls) return cls.id;
    }
    return id;
  }
  return { graph, root, nodesByFile, nodeById, enclosing, normalise };
}

export const BASE_OPTIONS = {
  allowJs: true,
  checkJs: false,
  noEmit: true,
  skipLibCheck: true,
  jsx: ts.JsxEmit.Preserve,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  target: ts.ScriptTarget.ESNext,
  experimentalDecorators: true,
  types: [],
};

/**
 * The files grouped by their nearest tsconfig.json or jsconfig.json: each group is
 * checked with that config's baseUrl/paths, as an editor opening the file would (a
 * monorepo's packages map their own names to their sources there).
 */
export function groupByConfig(repo, files) {
  const configOf = new Map();
  function nearestConfig(file) {
    let dir = path.dirname(path.join(repo, file));
    for (;;) {
      if (configOf.has(dir)) return configOf.get(dir);
      const found = ["tsconfig.json", "jsconfig.json"].map((f) => path.join(dir, f)).find(fs.existsSync);
      if (found || dir === repo || !dir.startsWith(repo)) {
        configOf.set(dir, found ?? null);
        return found ?? null;
      }
      dir = path.dirname(dir);
    }
  }
  const groups = new Map();
  for (const f of files) {
    const config = nearestConfig(f);
    if (!groups.has(config)) groups.set(config, []);
    groups.get(config).push(f);
  }
  return groups;
}

/**
 * Link the workspace's packages into `repo/node_modules` by name, as `pnpm install` or a
 * workspaces-aware `npm install` would (the clone has no `node_modules`): without it the
 * checker resolves neither `import "pkg"` of a sibling package (`workspace:*`) nor a
 * tsconfig that `extends` one (`"extends": "config/tsconfig.base.json"`), and reads no
 * diagnostic where a workspace's build would. Only the members the workspace lists
 * (`pnpm-workspace.yaml` or `package.json` `workspaces`) are linked: a folder outside it
 * (an example that installs the published package) is left to resolve as it does.
 * Returns the names linked.
 */
export function linkWorkspaces(repo) {
  const patterns = [];
  const yaml = path.join(repo, "pnpm-workspace.yaml");
  if (fs.existsSync(yaml)) {
    let inPackages = false;
    for (const line of fs.readFileSync(yaml, "utf8").split("\n")) {
      if (/^packages:/.test(line)) { inPackages = true; continue; }
      if (inPackages && /^\S/.test(line)) break;
      const m = inPackages && line.match(/^\s*-\s*["']?([^"'#]+?)["']?\s*(#.*)?$/);
      if (m) patterns.push(m[1]);
    }
  }
  try {
    const ws = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")).workspaces;
    patterns.push(...(Array.isArray(ws) ? ws : ws?.packages ?? []));
  } catch { /* no package.json */ }
  const excluded = patterns.filter((p) => p.startsWith("!")).map((p) => p.slice(1).replace(/\*\*\/?/g, ""));
  const dirs = new Set();
  const walk = (dir, depth) => {
    if (depth < 0 || !fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name === "node_modules" || e.name.startsWith(".")) continue;
      const sub = path.join(dir, e.name);
      dirs.add(sub);
      walk(sub, depth - 1);
    }
  };
  for (const p of patterns.filter((p) => !p.startsWith("!"))) {
    // `packages/**/*` is `packages/**`: every directory below.
    const clean = p.replace(/^\.\//, "").replace(/\/$/, "").replace(/\/\*\*\/\*$/, "/**");
    if (clean.endsWith("/**")) walk(path.join(repo, clean.slice(0, -3)), 6);
    else if (clean.endsWith("/*")) walk(path.join(repo, clean.slice(0, -2)), 0);
    else dirs.add(path.join(repo, clean));
  }
  const linked = [];
  for (const dir of dirs) {
    const rel = path.relative(repo, dir);
    if (excluded.some((x) => x && rel.split(path.sep).includes(x.replace(/\//g, "")))) continue;
    let name;
    try { name = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).name; } catch { continue; }
    if (typeof name !== "string" || !name) continue;
    const link = path.join(repo, "node_modules", name);
    if (fs.existsSync(link)) continue;
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(dir, link, "dir");
    linked.push(name);
  }
  return linked;
}

/**
 * The source file a linked workspace package's unbuilt entry is compiled from, for an
 * import the checker cannot resolve (`import { add } from 'dinero.js'`, whose `types`
 * name `dist/esm/index.d.ts`, absent in a clone nobody built): what a build would have
 * declared there. The `source` field for the package itself, else the `exports` (or
 * `types`) target with its build directory read as `src` (`./dist/esm/x.d.ts` ->
 * `src/x.ts`), else `src/index.ts` (a subpath: that path in the package or its `src`),
 * as the graph reads an unbuilt package. Undefined when there is none.
 */
export function unbuiltEntry(repo, specifier) {
  if (specifier.startsWith(".") || specifier.startsWith("/")) return undefined;
  const parts = specifier.split("/");
  const nameLen = specifier.startsWith("@") ? 2 : 1;
  const name = parts.slice(0, nameLen).join("/");
  const sub = parts.slice(nameLen).join("/");
  const link = path.join(repo, "node_modules", name);
  const read = (dir) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    } catch {
      return undefined;
    }
  };
  // A linked member, or the repository's own package (imported by its name from its
  // tests: TypeScript's self-reference through `exports`).
  let dir, pkg;
  try {
    if (fs.lstatSync(link).isSymbolicLink()) dir = fs.realpathSync(link);
  } catch { /* not linked */ }
  if (dir) pkg = read(dir);
  else if (read(repo)?.name === name) [dir, pkg] = [repo, read(repo)];
  if (!pkg) return undefined;
  const exists = (f) => f && fs.existsSync(f) && fs.statSync(f).isFile() ? f : undefined;
  if (!sub && typeof pkg.source === "string") {
    const found = exists(path.join(dir, pkg.source));
    if (found) return found;
  }
  const first = (v) => {
    if (typeof v === "string") return v;
    if (Array.isArray(v)) return v.map(first).find(Boolean);
    if (v && typeof v === "object") {
      for (const k of ["types", "import", "default", "require", ...Object.keys(v)]) {
        const got = first(v[k]);
        if (got) return got;
      }
    }
    return undefined;
  };
  const key = sub ? `./${sub}` : ".";
  const exp = pkg.exports;
  let target = typeof exp === "string" || Array.isArray(exp) ? (key === "." ? first(exp) : undefined)
    : exp && typeof exp === "object" && Object.keys(exp).some((k) => k.startsWith(".")) ? first(exp[key])
    : key === "." ? first(exp) : undefined;
  if (!target && key === ".") target = pkg.types ?? pkg.typings ?? pkg.main;
  if (!target && sub) target = `./${sub}`;
  if (typeof target !== "string") return undefined;
  const stem = target.replace(/^\.\//, "")
    .replace(/^(dist|lib|build|out)\/((esm|cjs|es|mjs|types|src)\/)?/, "src/")
    .replace(/\.d\.[mc]?ts$|\.[mc]?js$|\.ts$/, "");
  // Else, as the graph reads a package whose entries name no file: its `src/index`
  // (or its own index), and a subpath inside it or inside its `src`.
  const stems = [stem, ...(sub ? [sub, `src/${sub}`] : ["src/index", "index"])];
  for (const base of stems) {
    for (const ext of [".ts", ".tsx", "/index.ts", "/index.tsx"]) {
      const found = exists(path.join(dir, base + ext));
      if (found) return found;
    }
  }
  return undefined;
}

/** BASE_OPTIONS with the module-resolution settings of `config`. */
export function optionsFor(config) {
  const own = { ...BASE_OPTIONS };
  if (!config) return own;
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic() {} };
  const parsed = ts.getParsedCommandLineOfConfigFile(config, {}, host);
  for (const key of ["paths", "baseUrl", "pathsBasePath"]) {
    if (parsed?.options[key] !== undefined) own[key] = parsed.options[key];
  }
  return own;
}

/**
 * The definitions a symbol stands for, following what is only a name for another.
 * `follow(decl)` may return the symbol a declaration stands for (components.mjs: the
 * generated `Card: typeof Card` of a template's component table), or undefined.
 */
export function targets(checker, symbol, follow, depth = 0) {
  if (!symbol || depth > 8) return [];
  if (symbol.flags & ts.SymbolFlags.Alias) {
    try {
      return targets(checker, checker.getAliasedSymbol(symbol), follow, depth + 1);
    } catch {
      return [];
    }
  }
  const out = [];
  for (const d of symbol.declarations ?? []) {
    const via = follow?.(d);
    if (via) {
      out.push(...targets(checker, via, follow, depth + 1));
      continue;
    }
    if (ts.isShorthandPropertyAssignment(d)) {
      out.push(...targets(checker, checker.getShorthandAssignmentValueSymbol(d), follow, depth + 1));
      continue;
    }
    // `const { contains } = useFilter()`: the property of what the initializer gives,
    // as `const contains = useFilter().contains` would name it.
    if (ts.isBindingElement(d) && ts.isObjectBindingPattern(d.parent)
        && ts.isVariableDeclaration(d.parent.parent) && d.parent.parent.initializer) {
      const key = d.propertyName ?? d.name;
      if (ts.isIdentifier(key)) {
        const type = checker.getTypeAtLocation(d.parent.parent.initializer);
        const prop = type.getProperty(key.text);
        if (prop) {
          out.push(...targets(checker, prop, follow, depth + 1));
          continue;
        }
      }
    }
    // `const Accordion = Object.assign(Root, { Item })`: calling it calls `Root`.
    if (ts.isVariableDeclaration(d) && d.initializer && ts.isCallExpression(d.initializer)
        && d.initializer.expression.getText() === "Object.assign" && d.initializer.arguments.length) {
      const first = d.initializer.arguments[0];
      if (ts.isIdentifier(first) || ts.isPropertyAccessExpression(first)) {
        out.push(...targets(checker, checker.getSymbolAtLocation(ts.isIdentifier(first) ? first : first.name), follow, depth + 1));
        continue;
      }
    }
    const init = ts.isBinaryExpression(d) ? d.right
      : d.parent && ts.isBinaryExpression(d.parent) && d.parent.left === d ? d.parent.right
      : (ts.isVariableDeclaration(d) || ts.isPropertyAssignment(d) || ts.isPropertyDeclaration(d)) && d.initializer;
    if (init && (ts.isIdentifier(init) || ts.isPropertyAccessExpression(init))) {
      out.push(...targets(checker, checker.getSymbolAtLocation(ts.isIdentifier(init) ? init : init.name), follow, depth + 1));
      continue;
    }
    if (init && ts.isCallExpression(init) && init.expression.getText() === "require") {
      // `module.exports = require('./lib/x')`: what that module exports.
      const sym = checker.getTypeAtLocation(init).getSymbol();
      const decls = sym?.declarations?.filter((x) => ts.isFunctionLike(x) || ts.isClassLike(x)) ?? [];
      if (decls.length) {
        out.push(...decls);
        continue;
      }
    }
    out.push(d);
  }
  return out;
}

/**
 * The name the graph gives a declaration, and the node that bears it where
 * `locate(decl, nameNode)` ({ file, line } of the name, or undefined) puts it.
 */
export function nodeOf(g, decl, locate) {
  const sf = decl.getSourceFile();
  // `module.exports = function () {}` reached through a `require`: the checker gives the
  // function expression itself (named `exports` by its assignment); the graph names it
  // after the assignment.
  const assigned = decl.parent && ts.isBinaryExpression(decl.parent) && decl.parent.right === decl
    && (ts.isFunctionExpression(decl) || ts.isArrowFunction(decl) || ts.isClassExpression(decl))
    && !decl.name && decl.parent.left.getText(sf) === "module.exports";
  if (assigned) decl = decl.parent;
  const nameNode = assigned ? undefined : ts.getNameOfDeclaration(decl);
  const name = nameNode && ts.isIdentifier(nameNode) ? nameNode.text
    : nameNode && ts.isPrivateIdentifier(nameNode) ? nameNode.text
    : nameNode && ts.isStringLiteral(nameNode) ? nameNode.text
    : ts.isConstructorDeclaration(decl) ? "constructor"
    // `export default (value) => ...`: the graph names the anonymous function `default`.
    : ts.isExportAssignment(decl) && !decl.isExportEquals ? "default"
    // `export default function (doc) {..}`: a declaration with no name, which the graph
    // names `default` too.
    : (ts.isFunctionDeclaration(decl) || ts.isClassDeclaration(decl)) && !decl.name
      && decl.modifiers?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword) ? "default"
    // `module.exports = function () {}` and `exports.x = ...`: the checker's declaration
    // is the assignment; the graph names the function after its target.
    // `module.exports = function warnOnce() {}`: the graph names it by its own name.
    : ts.isBinaryExpression(decl) && decl.left.getText(sf) === "module.exports"
      && (ts.isFunctionExpression(decl.right) || ts.isClassExpression(decl.right)) && decl.right.name
      ? decl.right.name.text
    : ts.isBinaryExpression(decl) && decl.left.getText(sf) === "module.exports" ? "module.exports"
    : ts.isBinaryExpression(decl) && ts.isPropertyAccessExpression(decl.left) ? decl.left.name.text
    : undefined;
  if (!name) return undefined;
  const at = nameNode ?? (ts.isBinaryExpression(decl) ? decl.left : decl);
  const where = locate(decl, at);
  if (!where || !g.nodesByFile.has(where.file)) return undefined;
  const n = g.enclosing(where.file, where.line, (m) => m.name === name || m.name === name.replace(/^#/, ""));
  if (n) return g.normalise(n.id);
  // `then: Promise<Result>['then']` in `x.d.ts`: a property the graph makes no node of,
  // which stands for the code's definition beside it all the same.
  const owner = decl.parent && (ts.isClassDeclaration(decl.parent) || ts.isInterfaceDeclaration(decl.parent))
    ? decl.parent.name?.text : undefined;
  const source = owner && sourceDefinition(g.nodesByFile, { file: where.file, name, qualified_name: `${owner}.${name}` }, g.root);
  return source ? g.normalise(source.id) : undefined;
}

/**
 * A declaration in `x.d.ts` written beside its JavaScript `x.js` stands for the one
 * definition of its name there, as the editor's "Go to Source Definition" (tsserver's
 * `findSourceDefinition`) takes it: the checker stops at the declaration, the call runs
 * the code. Undefined when the code file has no definition of that name, or several.
 */
function sourceDefinition(nodesByFile, node, root) {
  const { file, name } = node;
  const m = /^(.*)\.d\.(m|c)?ts$/.exec(file);
  if (!m) return undefined;
  for (const ext of [`${m[2] ?? ""}js`, "js", "mjs", "cjs"]) {
    const code = `${m[1]}.${ext}`;
    const nodes = nodesByFile.get(code);
    if (!nodes) continue;
    let named = nodes.filter((n) => n.name === name);
    // `declare class Rule_ {..}` that the declaration file's namespace exports as
    // `default` (postcss' shape) is the code's default: what its `module.exports =` or
    // `export default` names. Source Definition follows the import, not the name.
    if (!named.length && root && declaredDefault(path.join(root, file)) === name) {
      const exported = codeDefault(path.join(root, code));
      named = exported ? nodes.filter((n) => n.name === exported) : [];
    }
    // `Declaration_.cloneBefore(): this`, declared again on the subclass for its type
    // only: the code's class has no such method, and the call runs the one it inherits.
    const dot = node.qualified_name?.lastIndexOf(".") ?? -1;
    if (!named.length && root && dot > 0) {
      const owner = node.qualified_name.slice(0, dot);
      const codeClass = nodes.some((n) => n.kind === "class" && n.name === owner)
        ? owner
        : declaredDefault(path.join(root, file)) === owner
          ? codeDefault(path.join(root, code))
          : undefined;
      const inherited = codeClass && inheritedMember(nodesByFile, root, code, codeClass, name, 0);
      if (inherited) return inherited;
    }
    return named.length === 1 ? named[0] : undefined;
  }
  return undefined;
}

/**
 * Member `member` that code class `cls` of `file` inherits: its `extends` followed
 * through the file's `require()` or `import` of the base, to the one definition of
 * `Base.member` there. Undefined where any step is not plain.
 */
function inheritedMember(nodesByFile, root, file, cls, member, depth) {
  if (depth > 8) return undefined;
  const sf = parsed(path.join(root, file));
  if (!sf) return undefined;
  let base;
  const bindings = new Map();
  const visit = (node) => {
    if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && node.name?.text === cls) {
      const clause = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword);
      const e = clause?.types[0]?.expression;
      if (e && ts.isIdentifier(e)) base ??= e.text;
    }
    // `let Node = require('./node')`, `const Node = require('./node.js')`
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer
      && ts.isCallExpression(node.initializer) && node.initializer.expression.getText(sf) === "require"
      && node.initializer.arguments[0] && ts.isStringLiteral(node.initializer.arguments[0])) {
      bindings.set(node.name.text, node.initializer.arguments[0].text);
    }
    // `import Node from './node.js'`
    if (ts.isImportDeclaration(node) && node.importClause?.name && ts.isStringLiteral(node.moduleSpecifier)) {
      bindings.set(node.importClause.name.text, node.moduleSpecifier.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  const specifier = base && bindings.get(base);
  if (!specifier?.startsWith(".")) return undefined;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  const candidates = [target, `${target}.js`, `${target}.cjs`, `${target}.mjs`, `${target}/index.js`];
  const baseFile = candidates.find((c) => nodesByFile.has(c));
  if (!baseFile) return undefined;
  const baseClass = codeDefault(path.join(root, baseFile)) ?? base;
  const own = nodesByFile.get(baseFile).filter((n) => n.qualified_name === `${baseClass}.${member}`);
  if (own.length === 1) return own[0];
  if (own.length > 1) return undefined;
  return inheritedMember(nodesByFile, root, baseFile, baseClass, member, depth + 1);
}

const parsedCache = new Map();
function parsed(file) {
  if (!parsedCache.has(file)) {
    let sf;
    try {
      sf = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
    } catch {
      sf = undefined;
    }
    parsedCache.set(file, sf);
  }
  return parsedCache.get(file);
}

/** The name a declaration file exports as `default` (`export { X as default }`, at any depth). */
function declaredDefault(file) {
  const sf = parsed(file);
  let found;
  const visit = (node) => {
    if (ts.isExportSpecifier(node) && node.name.text === "default" && node.propertyName) {
      found ??= node.propertyName.text;
    }
    ts.forEachChild(node, visit);
  };
  if (sf) visit(sf);
  return found;
}

/** The name a code file exports whole: `module.exports = X`, `export default X`. */
function codeDefault(file) {
  const sf = parsed(file);
  let found;
  for (const st of sf?.statements ?? []) {
    if (ts.isExportAssignment(st) && ts.isIdentifier(st.expression)) found ??= st.expression.text;
    if (ts.isExpressionStatement(st) && ts.isBinaryExpression(st.expression)
      && st.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken
      && st.expression.left.getText(sf) === "module.exports" && ts.isIdentifier(st.expression.right)) {
      found ??= st.expression.right.text;
    }
  }
  return found;
}

/**
 * `module.exports = require('./x')(exports)`, `exports.x = make()`, `const log =
 * debug('x'); log()`: the checker's declaration is a name given a value it does not
 * follow (a call's result, without a stated type), no definition. A site it names only
 * such declarations for is one it has no symbol for.
 */
export function opaqueAssignment(decl) {
  let right = ts.isBinaryExpression(decl) ? decl.right
    : ts.isVariableDeclaration(decl) && !decl.type ? decl.initializer
    : undefined;
  if (!right) return false;
  while (ts.isParenthesizedExpression(right)) right = right.expression;
  return ts.isCallExpression(right) || ts.isConditionalExpression(right);
}

/** The name node a call site is keyed by: the callee's last name, as the indexer keys it. */
export function calleeName(expr) {
  while (expr && (ts.isParenthesizedExpression(expr) || ts.isNonNullExpression(expr) || ts.isAsExpression(expr))) {
    expr = expr.expression;
  }
  if (!expr) return undefined;
  if (ts.isIdentifier(expr) || expr.kind === ts.SyntaxKind.SuperKeyword) return expr;
  if (ts.isPropertyAccessExpression(expr)) return expr.name;
  if (ts.isElementAccessExpression(expr) && ts.isStringLiteralLike(expr.argumentExpression)) return expr.argumentExpression;
  if (ts.isBinaryExpression(expr) && expr.operatorToken.kind === ts.SyntaxKind.CommaToken) return calleeName(expr.right);
  return undefined;
}

/**
 * The checker's definitions at a site, reduced as a reader means them: a name that is
 * both a type and a value (`interface C {} function C() {}`) is called as the value; in
 * a script (no import or export) the script's own definition is the one it calls (a
 * program merges every script's globals; a browser runs each script alone).
 */
export function calledDecls(all, sf) {
  const isType = (d) => ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d);
  let decls = all.some((d) => !isType(d)) ? all.filter((d) => !isType(d)) : all;
  const own = decls.filter((d) => d.getSourceFile() === sf);
  if (own.length && own.length < decls.length && !ts.isExternalModule(sf)) decls = own;
  return decls;
}

// Our call-like edges (not `reference`).
const CALLISH = new Set(["call", "new", "jsx", "decorator"]);

/**
 * Scores our call-like edges against `truth` (site key `file:line:column` -> { status:
 * repo|other|external|unknown, targets: Set of node ids, name, about }) and prints the
 * report. `inScope(file)` limits our edges to the call sites the truth covers.
 */
/** `--expect recall=0.97,precision=0.95` as { recall: 0.97, precision: 0.95 }, or null. */
export function expectArg(args) {
  const i = args.indexOf("--expect");
  if (i < 0) return null;
  return Object.fromEntries(
    (args[i + 1] ?? "").split(",").filter(Boolean).map((kv) => {
      const [k, v] = kv.split("=");
      return [k, Number(v)];
    }),
  );
}

export function report(g, truth, { header, inScope = () => true, show = 0, expect = null }) {
  const { graph, nodeById, normalise } = g;
  const ours = new Map();
  for (const e of graph.edges) {
    if (!CALLISH.has(e.kind) || !inScope(e.file)) continue;
    const key = `${e.file}:${e.line}:${e.column}`;
    if (!ours.has(key)) ours.set(key, []);
    ours.get(key).push({ to: normalise(e.to), confidence: e.confidence });
  }

  const byConf = {};
  const stat = (c) => (byConf[c] ??= { edges: 0, correct: 0, unknown: 0 });
  const wrong = { other: [], external: [], unknown: [], missing: [] };
  let truthPairs = 0;
  let found = 0;
  for (const [, t] of truth) truthPairs += t.targets.size;
  const guesses = new Map(); // candidates at a site -> [edges, correct]
  for (const [key, es] of ours) {
    const t = truth.get(key);
    if (es[0].confidence !== "exact") {
      const gs = guesses.get(es.length) ?? [0, 0];
      gs[0] += es.length;
      gs[1] += es.filter((e) => t?.targets.has(e.to)).length;
      guesses.set(es.length, gs);
    }
    for (const { to, confidence } of es) {
      const s = stat(confidence);
      const all = stat("all");
      s.edges++;
      all.edges++;
      if (t?.targets.has(to)) {
        s.correct++;
        all.correct++;
      } else if (!t || t.status === "unknown") {
        s.unknown++;
        all.unknown++;
        wrong.unknown.push([key, to, confidence]);
      } else {
        wrong[t.status === "repo" ? "other" : t.status].push([key, to, confidence]);
      }
    }
  }
  // Pairs from the repository's own code into vendored code (vendor/, third_party/):
  // before vendored code was read, not one of them could be found.
  const VENDORED_DIRS = new Set(["vendor", "vendors", "third_party"]);
  const vendored = (file) => file.split("/").slice(0, -1).some((p) => VENDORED_DIRS.has(p));
  const intoVendored = { pairs: 0, found: 0 };
  // Caller files: (file, definition) pairs, the unit a reviewer reads a blast radius in.
  const callerFiles = { truth: new Set(), found: new Set() };
  for (const [key, t] of truth) {
    const got = new Set((ours.get(key) ?? []).map((e) => e.to));
    const file = key.slice(0, key.lastIndexOf(":", key.lastIndexOf(":") - 1));
    const own = !vendored(file);
    for (const id of t.targets) {
      const into = own && vendored(nodeById.get(id)?.file ?? "");
      if (into) intoVendored.pairs++;
      callerFiles.truth.add(`${file}\0${id}`);
      if (got.has(id)) {
        found++;
        callerFiles.found.add(`${file}\0${id}`);
        if (into) intoVendored.found++;
      } else wrong.missing.push([key, id, ""]);
    }
  }

  // The baseline the issue names: every definition of the same name.
  const byName = new Map();
  for (const n of graph.nodes) {
    if (n.kind === "module") continue;
    byName.set(n.name, (byName.get(n.name) ?? 0) + 1);
  }
  let nameEdges = 0;
  let nameCorrect = 0;
  for (const t of truth.values()) {
    if (t.status === "unknown") continue;
    nameEdges += byName.get(t.name) ?? 0;
    // Only what a search for the name finds: a target of another name (`super()` calling
    // the base class, `module.exports` called as `context`) is not among its matches.
    for (const id of t.targets) if (nodeById.get(id)?.name === t.name) nameCorrect++;
  }

  const pct = (a, b) => (b ? (a / b).toFixed(3) : "n/a");
  for (const line of header) console.log(line);
  console.log(`truth        ${truthPairs} (site, definition) pairs that tsc resolves into the graph's nodes`);
  for (const c of ["all", "exact", "likely", "possible"]) {
    const s = byConf[c];
    if (!s) continue;
    console.log(
      `${c.padEnd(12)} ${String(s.edges).padStart(6)} edges  precision ${pct(s.correct, s.edges)}` +
        `  (${pct(s.correct, s.edges - s.unknown)} leaving out ${s.unknown} tsc has no symbol for)`,
    );
  }
  console.log(`recall       ${pct(found, truthPairs)} (${found} of ${truthPairs})`);
  // `--expect recall=R,precision=P`: a check (CI's), not a measurement: fails the process
  // when recall, or precision leaving out what tsc has no symbol for, is below.
  if (expect) {
    const all = byConf.all ?? { edges: 0, correct: 0, unknown: 0 };
    const got = {
      recall: truthPairs ? found / truthPairs : 1,
      precision: all.edges - all.unknown ? all.correct / (all.edges - all.unknown) : 1,
    };
    for (const [what, min] of Object.entries(expect)) {
      if (!(what in got)) throw new Error(`--expect: unknown figure ${what}`);
      if (got[what] < min) {
        console.log(`EXPECTED    ${what} >= ${min}, got ${got[what].toFixed(3)}`);
        process.exitCode = 1;
      }
    }
  }
  console.log(
    `caller files recall ${pct(callerFiles.found.size, callerFiles.truth.size)} ` +
      `(${callerFiles.found.size} of ${callerFiles.truth.size} (caller file, definition) pairs)`,
  );
  if (intoVendored.pairs) {
    console.log(
      `into vendor  recall ${pct(intoVendored.found, intoVendored.pairs)} (${intoVendored.found} of ` +
        `${intoVendored.pairs} pairs from the repository's own code into vendored code)`,
    );
  }
  console.log(`by name      precision ${pct(nameCorrect, nameEdges)} (every same-named definition, the grep baseline)`);
  console.log(
    `guesses      by candidates per site: ` +
      [...guesses.entries()].sort((a, b) => a[0] - b[0]).map(([n, [e, c]]) => `${n}: ${e} edges ${pct(c, e)}`).join(", "),
  );
  if (show) {
    const describe = (id) => {
      const n = nodeById.get(id);
      return n ? `${n.qualified_name} (${n.file}:${n.line})` : `#${id}`;
    };
    for (const [kind, list] of Object.entries(wrong)) {
      console.log(`\n${kind}: ${list.length}`);
      for (const [key, to, conf] of list.slice(0, show)) {
        const t = truth.get(key);
        const tsSays = t ? [...t.targets].map(describe).join(", ") || `${t.status} ${t.about}` : "no site";
        console.log(`  ${key} ${conf ? `-> ${describe(to)} [${conf}]` : `missing ${describe(to)}`}  tsc: ${tsSays}`);
      }
    }
  }
}
