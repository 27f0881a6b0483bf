// Call-site precision and recall of the blast-radius graph in component files (Vue,
// Svelte, Astro) against TypeScript's checker, as vue-tsc, svelte-check and astro check
// run it.
//
//   npm ci --prefix benches/precision
//   blast-radius graph --repo REPO --format json > graph.json
//   node benches/precision/components.mjs REPO graph.json [--show N] [--sites]
//                                        [--expect recall=R,precision=P]
//
// Each `.vue` file is turned into TypeScript by @vue/language-core (what vue-tsc checks),
// each `.svelte` file by svelte2tsx (what svelte-check checks) and each `.astro` file by
// @astrojs/compiler's convertToTSX (what `astro check` checks). The generated code is put
// in the program as `X.vue.ts` / `X.svelte.ts` / `X.astro.tsx` next to the component (so
// that `import C from './X.vue'`, with or without `paths`, resolves to it), beside the
// repository's own script files, one program per nearest tsconfig/jsconfig as in
// eval.mjs. The generators record where each piece of generated code comes from;
// a site counts only if the callee's name maps back to the same name at its place in
// the component file (Vue's `<child-item>` maps to the `ChildItem` it is bound as),
// generated helper calls do not.
//
// Sites: every call, `new` and tagged template in script blocks and template expressions
// (keyed, as in eval.mjs, by the callee's last name), every component tag Vue's or
// Svelte's own parser sees as one (keyed by the tag name's start, as the indexer keys
// its `jsx` edges), and Astro's capitalised tags (JSX in its generated code). A tag's definitions are those of the names the generated code binds
// it to. A definition in a component's generated code is mapped back by its name's
// place; the component's default export (which has no name in the source) is our
// `component` node of that file. Scored are our call-like edges whose site is in a
// component file, as eval.mjs scores script files (sites the checker has no symbol for
// counted apart).
//
// `vue` and `svelte` are resolved from this directory when a repository does not have
// them installed (it never has here): the generated code types templates through them
// (`this`, Options API members, props), as a project's own installation would.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { decode } from "@jridgewell/sourcemap-codec";
import { svelte2tsx } from "svelte2tsx";
import { parse as parseSvelte } from "svelte/compiler";
import { convertToTSX } from "@astrojs/compiler/sync";
import {
  SCRIPT_EXT, listFiles, showArg, loadGraph, groupByConfig, optionsFor, targets, nodeOf, calleeName,
  calledDecls, report, expectArg,
} from "./common.mjs";

const require = createRequire(import.meta.url);
const vue = require("@vue/language-core");
const HERE = path.dirname(fileURLToPath(import.meta.url));

const [repoArg, graphArg, ...rest] = process.argv.slice(2);
if (!repoArg || !graphArg) {
  console.error("usage: node components.mjs REPO GRAPH.json [--show N]");
  process.exit(2);
}
const SHOW = showArg(rest);
const repo = path.resolve(repoArg);
const g = loadGraph(JSON.parse(fs.readFileSync(graphArg, "utf8")), repo);
const COMPONENT_EXT = /\.(vue|svelte|astro)$/;
const scriptFiles = listFiles(repo, SCRIPT_EXT);
const componentFiles = listFiles(repo, COMPONENT_EXT);

// ---------------------------------------------------------------------------------------
// Component files as generated TypeScript, with a way back to the component's offsets.

/** Offsets in a text -> 1-based line and UTF-16 column (JS strings count UTF-16). */
function lineIndex(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const at = (off) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= off) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: off - starts[lo] + 1 };
  };
  return { starts, at };
}

/**
 * Segments [generatedStart, sourceStart, length] -> generated offset to source offset.
 * Only offsets inside a segment map (a segment copies its text, or renames it in place).
 */
function segmentMap(segments) {
  segments.sort((a, b) => a[0] - b[0]);
  return (off) => {
    let lo = 0;
    let hi = segments.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (segments[mid][0] <= off) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    // Segments of equal start may differ in length: look back over those before `off`.
    for (let i = found; i >= 0 && i > found - 64; i--) {
      const [gen, src, len] = segments[i];
      if (off >= gen && off < gen + len) return src + (off - gen);
    }
    return undefined;
  };
}

// Vue compiler options per tsconfig (`vueCompilerOptions`: target, plugins), defaults
// when the config cannot be read or names plugins that are not installed here.
const vueOptionsOf = new Map();
function vueOptions(config) {
  if (!vueOptionsOf.has(config)) {
    let opts = vue.getDefaultCompilerOptions();
    if (config) {
      try {
        opts = vue.createParsedCommandLine(ts, ts.sys, config).vueOptions;
      } catch {}
    }
    vueOptionsOf.set(config, opts);
  }
  return vueOptionsOf.get(config);
}

/** A `.vue` file as @vue/language-core generates it for the checker. */
function vueVirtual(abs, text, config) {
  const plugin = vue.createVueLanguagePlugin(ts, BASE, vueOptions(config), (id) => id);
  const root = plugin.createVirtualCode(abs, "vue", ts.ScriptSnapshot.fromString(text));
  const service = root && plugin.typescript.getServiceScript(root);
  if (!service) return undefined;
  const code = service.code;
  const segments = [];
  for (const m of code.mappings) {
    for (let i = 0; i < m.sourceOffsets.length; i++) {
      const len = m.lengths[i];
      const genLen = m.generatedLengths?.[i] ?? len;
      // A renamed piece (`child` -> `Child`) keeps its length; one that does not is not a
      // copy, and only its start can be trusted.
      segments.push([m.generatedOffsets[i], m.sourceOffsets[i], genLen === len ? len : Math.min(1, len)]);
    }
  }
  // The component tags, as Vue's template parser classes them (offsets are the
  // template content's).
  const tags = [];
  const template = root.ir?.template;
  const walk = (n) => {
    if (n.type === 1 && n.tagType === 1) tags.push({ start: template.startTagEnd + n.loc.start.offset + 1, name: n.tag });
    for (const c of n.children ?? []) walk(c);
  };
  if (template?.ast) walk(template.ast);
  return { text: code.snapshot.getText(0, code.snapshot.getLength()), ext: service.extension, toSource: segmentMap(segments), tags };
}

/** Segments of a v3 source map (svelte2tsx's, Astro's): each runs to the next on its line. */
function sourceMapSegments(source, code, map) {
  const src = lineIndex(source);
  const gen = lineIndex(code);
  const segments = [];
  decode(map.mappings).forEach((line, l) => {
    const lineLength = (l + 1 < gen.starts.length ? gen.starts[l + 1] : code.length) - gen.starts[l];
    for (let i = 0; i < line.length; i++) {
      const [col, , srcLine, srcCol] = line[i];
      if (srcLine === undefined || srcLine >= src.starts.length) continue;
      const next = i + 1 < line.length ? line[i + 1][0] : lineLength;
      segments.push([gen.starts[l] + col, src.starts[srcLine] + srcCol, next - col]);
    }
  });
  return segmentMap(segments);
}

/** A `.svelte` file as svelte2tsx generates it for svelte-check. */
function svelteVirtual(abs, text) {
  const out = svelte2tsx(text, {
    filename: abs, isTsFile: /<script[^>]*lang=["']ts["']/.test(text), mode: "ts", emitOnTemplateError: true,
  });
  // The component tags, as Svelte's parser classes them.
  const tags = [];
  const walk = (n) => {
    if (!n || typeof n !== "object") return;
    if (Array.isArray(n)) return n.forEach(walk);
    if (n.type === "Component") tags.push({ start: n.start + 1, name: n.name });
    for (const [k, v] of Object.entries(n)) if (k !== "parent" && v && typeof v === "object") walk(v);
  };
  try {
    walk(parseSvelte(text, { modern: true }).fragment);
  } catch {}
  return { text: out.code, ext: ".ts", toSource: sourceMapSegments(text, out.code, out.map), tags };
}

/**
 * An `.astro` file as @astrojs/compiler's convertToTSX generates it for `astro check`:
 * its markup is TSX, so its component tags are JSX elements and need no table.
 */
function astroVirtual(abs, text) {
  const out = convertToTSX(text, { filename: abs, sourcemap: "external" });
  const map = typeof out.map === "string" ? JSON.parse(out.map) : out.map;
  return { text: out.code, ext: ".tsx", toSource: sourceMapSegments(text, out.code, map), tags: [] };
}

const BASE = optionsFor(null);
const groups = groupByConfig(repo, [...scriptFiles, ...componentFiles]);
// virtual file name -> { file (the component's, repository-relative), text, toSource, tags, ... }
const virtual = new Map();
const failed = [];
for (const [config, files] of groups) {
  for (const f of files.filter((x) => COMPONENT_EXT.test(x))) {
    const abs = path.join(repo, f);
    const text = fs.readFileSync(abs, "utf8");
    let v;
    try {
      v = f.endsWith(".vue") ? vueVirtual(abs, text, config)
        : f.endsWith(".svelte") ? svelteVirtual(abs, text)
        : astroVirtual(abs, text);
    } catch {}
    if (!v) {
      failed.push(f);
      continue;
    }
    // Beside a real `X.svelte.ts` (a Svelte 5 module, imported as `./X.svelte.js`) the
    // component is `X.svelte.component.ts`, which `./X.svelte` resolves to first.
    const name = fs.existsSync(abs + v.ext) ? `${abs}.component${v.ext}` : abs + v.ext;
    virtual.set(name, { file: f, source: text, lines: lineIndex(text), ...v });
  }
}

// ---------------------------------------------------------------------------------------
// The program: the repository's files, the generated ones beside their components.

const FRAMEWORK = /^(vue|@vue\/[^/]+|svelte)(\/|$)/;
function hostFor(options) {
  const host = ts.createCompilerHost(options, true);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (f) => virtual.has(f) || fileExists.call(host, f);
  host.readFile = (f) => virtual.get(f)?.text ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, onError, create) => {
    const v = virtual.get(f);
    if (!v) return getSourceFile.call(host, f, lang, onError, create);
    const kind = v.ext === ".js" ? ts.ScriptKind.JS : v.ext === ".jsx" ? ts.ScriptKind.JSX : v.ext === ".tsx" ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    return ts.createSourceFile(f, v.text, lang, true, kind);
  };
  // The framework as this directory has it installed, where the repository has not.
  const here = path.join(HERE, "index.ts");
  const resolve = (n, from, opts, redirected) =>
    ts.resolveModuleName(n, from, opts, host, undefined, redirected).resolvedModule;
  host.resolveModuleNames = (names, containing, _reused, redirected, opts) =>
    names.map((n) => (COMPONENT_EXT.test(n) ? resolve(`${n}.component`, containing, opts, redirected) : undefined)
      ?? resolve(n, containing, opts, redirected)
      ?? (FRAMEWORK.test(n) ? resolve(n, here, opts) : undefined)
      // `import Chart from './Chart'` and `'./Chart'` for `./Chart/index.vue`, as Vue CLI's
      // webpack resolves them (`.vue` among its extensions); TypeScript alone does not.
      ?? (/\.\w+$/.test(n) || FRAMEWORK.test(n) ? undefined
        : resolve(`${n}.vue`, containing, opts, redirected) ?? resolve(`${n}/index.vue`, containing, opts, redirected)));
  host.resolveTypeReferenceDirectives = (names, containing, redirected, opts) =>
    names.map((n) => {
      const name = typeof n === "string" ? n : n.fileName;
      const r = ts.resolveTypeReferenceDirective(name, containing, opts, host, redirected).resolvedTypeReferenceDirective;
      return r?.resolvedFileName ? r : ts.resolveTypeReferenceDirective(name, here, opts, host).resolvedTypeReferenceDirective;
    });
  return host;
}
// A SvelteKit project's tsconfig extends `.svelte-kit/tsconfig.json`, which `svelte-kit
// sync` writes (svelte-check runs after it) and git never holds: its `$lib` alias is
// added here as sync would write it.
function svelteKitPaths(config, options) {
  if (!config || !/\.svelte-kit\/tsconfig\.json/.test(fs.readFileSync(config, "utf8"))) return options;
  const dir = path.dirname(config);
  if (fs.existsSync(path.join(dir, ".svelte-kit/tsconfig.json"))) return options;
  const lib = path.join(dir, "src/lib");
  return {
    ...options,
    paths: { ...options.paths, $lib: [lib], "$lib/*": [`${lib}/*`] },
    pathsBasePath: options.pathsBasePath ?? dir,
  };
}

// What svelte2tsx's code calls (`svelteHTML`, `__sveltets_2_*`), as svelte-check adds them.
const SVELTE_SHIMS = ["svelte-shims-v4.d.ts", "svelte-jsx-v4.d.ts"].map((f) => require.resolve(`svelte2tsx/${f}`));

// ---------------------------------------------------------------------------------------
// The truth: per component call site, the definitions the checker resolves.

const truth = new Map();
let sites = 0;
let unmapped = 0;
for (const [config, files] of groups) {
  const comps = files.filter((f) => COMPONENT_EXT.test(f) && !failed.includes(f));
  if (!comps.length) continue;
  const options = svelteKitPaths(config, optionsFor(config));
  const roots = files.map((f) => {
    const abs = path.join(repo, f);
    return COMPONENT_EXT.test(f) ? [...virtual.keys()].find((k) => virtual.get(k).file === f) : abs;
  }).filter(Boolean);
  if (comps.some((f) => f.endsWith(".svelte"))) roots.push(...SVELTE_SHIMS);
  const program = ts.createProgram(roots, options, hostFor(options));
  const checker = program.getTypeChecker();
  const rel = (sf) => {
    const v = virtual.get(sf.fileName);
    return v ? v.file : path.relative(repo, sf.fileName).split(path.sep).join("/");
  };

  // What the generated code declares only as a name for another: a template's table of
  // components (`Card: typeof Card`), and ambient globals that stand for a module's
  // export (`const useUser: typeof import('./user')['useUser']`, as unplugin-auto-import
  // and unplugin-vue-components write them).
  const follow = (d) => {
    if (!(ts.isPropertySignature(d) || ts.isVariableDeclaration(d)) || !d.type) return undefined;
    const sf = d.getSourceFile();
    const ambient = sf.isDeclarationFile || virtual.has(sf.fileName);
    if (!ambient) return undefined;
    const t = d.type;
    if (ts.isTypeQueryNode(t)) {
      const name = ts.isQualifiedName(t.exprName) ? t.exprName.right : t.exprName;
      return checker.getSymbolAtLocation(name);
    }
    if (ts.isIndexedAccessTypeNode(t) && ts.isImportTypeNode(t.objectType) && t.objectType.isTypeOf &&
        ts.isLiteralTypeNode(t.indexType) && ts.isStringLiteral(t.indexType.literal) &&
        ts.isLiteralTypeNode(t.objectType.argument)) {
      const mod = checker.getSymbolAtLocation(t.objectType.argument.literal);
      return mod && checker.tryGetMemberInModuleExports(t.indexType.literal.text, mod);
    }
    return undefined;
  };

  // A generated file's default export (`export default {} as typeof __VLS_export`,
  // `export default Card__SvelteComponent_`): the component itself.
  const defaults = new Map();
  const isDefault = (decl) => {
    const sf = decl.getSourceFile();
    if (!defaults.has(sf)) {
      const mod = checker.getSymbolAtLocation(sf);
      const def = mod && checker.tryGetMemberInModuleExports("default", mod);
      defaults.set(sf, new Set([...(def?.declarations ?? []), ...targets(checker, def)]));
    }
    return defaults.get(sf).has(decl);
  };
  const componentNode = (file) => g.nodesByFile.get(file)?.find((n) => n.kind === "component");

  // A declaration's place in the repository: a generated one's is where its name maps.
  const locate = (decl, at) => {
    const sf = decl.getSourceFile();
    const v = virtual.get(sf.fileName);
    if (!v) {
      const file = rel(sf);
      return file.startsWith("..") ? undefined : { file, line: sf.getLineAndCharacterOfPosition(at.getStart(sf)).line + 1 };
    }
    const off = v.toSource(at.getStart(sf));
    return off === undefined ? undefined : { file: v.file, line: v.lines.at(off).line };
  };

  const record = (key, name, syms, sf) => {
    const decls = calledDecls(syms.flatMap((s) => targets(checker, s, follow)), sf);
    const t = truth.get(key) ?? { targets: new Set(), decls: [], name };
    for (const d of decls) {
      const v = virtual.get(d.getSourceFile().fileName);
      const id = v && isDefault(d) ? componentNode(v.file)?.id : nodeOf(g, d, locate);
      if (id !== undefined) t.targets.add(id);
      if (!t.decls.includes(d)) t.decls.push(d);
    }
    const inRepo = t.decls.some((d) => !rel(d.getSourceFile()).startsWith(".."));
    t.status = t.targets.size ? "repo" : t.decls.length === 0 ? "unknown" : inRepo ? "other" : "external";
    const lineOf = (d) => {
      const dsf = d.getSourceFile();
      const off = virtual.get(dsf.fileName)?.toSource(d.getStart());
      return off !== undefined ? virtual.get(dsf.fileName).lines.at(off).line
        : `${dsf.getLineAndCharacterOfPosition(d.getStart()).line + 1}${virtual.has(dsf.fileName) ? " (generated)" : ""}`;
    };
    t.about = t.decls.map((d) => `${ts.SyntaxKind[d.kind]} ${rel(d.getSourceFile())}:${lineOf(d)}`).join(", ");
    truth.set(key, t);
  };
  const symbolAt = (node) => {
    try {
      return checker.getSymbolAtLocation(node);
    } catch {
      return undefined;
    }
  };

  for (const f of comps) {
    const name = [...virtual.keys()].find((k) => virtual.get(k).file === f);
    const v = virtual.get(name);
    const sf = program.getSourceFile(name);
    if (!sf) continue;
    const keyAt = (off) => {
      const { line, column } = v.lines.at(off);
      return `${f}:${line}:${column}`;
    };
    // Component tags: where the tag's (last) name starts -> the tag.
    const tagAt = new Map();
    for (const tag of v.tags) {
      if (v.source.slice(tag.start, tag.start + tag.name.length) !== tag.name) continue;
      tagAt.set(tag.start + tag.name.lastIndexOf(".") + 1, { ...tag, syms: [], seen: false });
    }
    const visit = (node) => {
      let callee;
      if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isDecorator(node)) callee = node.expression;
      else if (ts.isTaggedTemplateExpression(node)) callee = node.tag;
      else if ((ts.isJsxOpeningElement(node) || ts.isJsxSelfClosingElement(node)) &&
               (/^[A-Z]/.test(node.tagName.getText(sf)) || ts.isPropertyAccessExpression(node.tagName))) callee = node.tagName;
      if (ts.isDecorator(node) && ts.isCallExpression(node.expression)) callee = undefined;
      // Vue reads a template's refs through a helper: `__VLS_unwrap(helper, ...)(n)`.
      if (callee && ts.isCallExpression(callee) && callee.expression.getText(sf) === "__VLS_unwrap" && callee.arguments.length) {
        callee = callee.arguments[0];
      }
      const name = callee && calleeName(callee);
      if (name) {
        const text = name.text ?? "super";
        const off = v.toSource(name.getStart(sf));
        if (off !== undefined && v.source.slice(off, off + text.length) === text && !tagAt.has(off)) {
          sites++;
          record(keyAt(off), text, [symbolAt(name)].filter(Boolean), sf);
        } else if (off === undefined || v.source.slice(off, off + text.length) !== text) {
          unmapped++;
        }
      }
      // The names a component tag is bound to (`const __VLS_0 = Card`,
      // `__VLS_components.ChildItem`, `__sveltets_2_ensureComponent(Card)`).
      if (ts.isIdentifier(node) && tagAt.size) {
        const off = v.toSource(node.getStart(sf));
        const tag = off !== undefined && tagAt.get(off);
        const last = tag && tag.name.slice(tag.name.lastIndexOf(".") + 1);
        if (tag && node.text.toLowerCase() === last.replace(/-/g, "").toLowerCase()) {
          tag.seen = true;
          const sym = symbolAt(node);
          if (sym) tag.syms.push(sym);
        }
      }
      for (const doc of node.jsDoc ?? []) ts.forEachChild(doc, visit);
      ts.forEachChild(node, visit);
    };
    visit(sf);
    for (const tag of tagAt.values()) {
      if (!tag.seen) continue;
      sites++;
      record(keyAt(tag.start), tag.name.slice(tag.name.lastIndexOf(".") + 1), tag.syms, sf);
    }
  }
}

// `--sites`: every site and what the checker says of it, to read the truth itself.
if (rest.includes("--sites")) {
  for (const [key, t] of truth) console.log(`site ${key} ${t.name} ${t.status} ${t.about}`);
}
report(g, truth, {
  header: [
    `repository   ${path.basename(repo)}: ${componentFiles.length} component files ` +
      `(${failed.length} not generated), ${sites} call sites in them seen by tsc (${unmapped} generated calls not mapped back)`,
  ],
  inScope: (file) => COMPONENT_EXT.test(file),
  show: SHOW,
  expect: expectArg(rest),
});
