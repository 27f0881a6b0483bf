// Differential test of the blast report's verdicts (issue 44, "How it is checked"):
// functions of a TypeScript repository are changed one way at a time (a required
// parameter added, an optional one added, the first or the last removed, the first two
// swapped, made async, a required key added to or a key removed from an object parameter's inline type or
// pattern, a key removed from the one object literal the function returns, the body
// alone edited), each change committed on top of the repository's HEAD, and the
// verdicts `blast-radius blast` gives the function's direct callers are compared with
// what TypeScript's checker says of the same call sites: a semantic diagnostic at a call
// site in head that was not there in base is the truth of "breaks". A member missing
// from a site's result is that site's, also where the checker reports it at the next
// call of a chain; a call after such a failure in its chain (or passed along it), of
// which the checker then judges nothing, is not scored; and what the checker reports
// only because it lost types to an earlier error (an implicitly `any` parameter) is no
// site's own break.
//
//   node verdicts.mjs REPO BINARY [--max 40] [--seconds 900] [--seed 44] [--show 12]
//                                 [--kinds add-required,remove-last] [--out results.json]
//                                 [--truth earlier-results.json]
//
// REPO is a git work tree (left untouched: the mutations are made in a clone of it in a
// temporary directory); BINARY the blast-radius executable. Every edit keeps each line
// where it was (nothing is inserted or deleted across a line break), so a call site has
// the same line in base and in head and the two sides' diagnostics compare line by line.
//
// With --truth, the new diagnostics at a site come from an earlier run's --out file of the
// same repository, commit and seed where it has the site (the checker's answer does not
// depend on the binary), so a new build is scored in minutes instead of hours; a site
// the earlier run did not list is checked as usual.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import ts from "typescript";
import { listFiles, groupByConfig, optionsFor, targets, calleeName, showArg, linkWorkspaces, unbuiltEntry } from "./common.mjs";

const KINDS = ["add-required", "add-optional", "remove-first", "remove-last", "swap-first-two", "make-async",
  "add-required-key", "remove-key", "remove-returned-key", "body-only"];

const args = process.argv.slice(2);
const [repoArg, binaryArg] = args;
if (!repoArg || !binaryArg) {
  console.error("usage: node verdicts.mjs REPO BINARY [--max N] [--seconds S] [--seed N] [--show N] [--kinds a,b] [--out F]");
  process.exit(2);
}
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const MAX = Number(opt("--max", 40));
const SECONDS = Number(opt("--seconds", 900));
const SEED = Number(opt("--seed", 44));
const SHOW = showArg(args) || 12;
const ONLY = opt("--kinds", KINDS.join(",")).split(",");
const OUT = opt("--out", null);
const TRUTH = opt("--truth", null);
const BINARY = path.resolve(binaryArg);
const SOURCE = path.resolve(repoArg);
const started = Date.now();

const git = (cwd, ...a) => execFileSync("git", a, { cwd, maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] }).toString();

// The clone the mutations are made in.
const REPO = fs.mkdtempSync(path.join(os.tmpdir(), "verdicts-"));
git(os.tmpdir(), "clone", "-q", "--no-hardlinks", SOURCE, REPO);
git(REPO, "config", "user.email", "verdicts@example.invalid");
git(REPO, "config", "user.name", "verdicts");
git(REPO, "config", "commit.gpgsign", "false");
const BASE_COMMIT = git(REPO, "rev-parse", "HEAD").trim();
const LINKED = linkWorkspaces(REPO);

// ---------------------------------------------------------------------------------------
// The checker, one program per config group, over files whose SourceFiles are kept while
// their text is unchanged (lib files and untouched modules are parsed once).

const TS_EXT = /\.(ts|tsx|mts|cts)$/;
const files = listFiles(REPO, TS_EXT);
const groups = [...groupByConfig(REPO, files)].map(([config, fs_]) => ({
  config,
  files: fs_.map((f) => path.join(REPO, f)),
  options: strictOptions(config),
}));

/** common.mjs' options for `config`, with the config's strictness (arity errors do not
 * depend on it, but what an async function's callers may do with its result does). */
function strictOptions(config) {
  const own = optionsFor(config);
  if (!config) return own;
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic() {} };
  const parsed = ts.getParsedCommandLineOfConfigFile(config, {}, host);
  for (const key of ["strict", "strictNullChecks", "noImplicitAny", "exactOptionalPropertyTypes", "lib"]) {
    if (parsed?.options[key] !== undefined) own[key] = parsed.options[key];
  }
  // A `lib` of DOM or WebWorker alone (h3's) leaves the checker without `Array` and
  // `Promise` (TS2318 for the whole program): every promise is then an error type,
  // assignable anywhere, and nothing about async results can be told. Such a config is
  // not what its project checks with (its build brings the ES libs by other means).
  if (own.lib && !own.lib.some((l) => /^lib\.es/i.test(l))) own.lib = [...own.lib, "lib.esnext.d.ts"];
  return own;
}

const sfCache = new Map(); // fileName -> { text, sf }
function makeHost(options) {
  const host = ts.createCompilerHost(options, true);
  // A workspace package nobody built: its source, as the graph reads it.
  const cache = ts.createModuleResolutionCache(REPO, (f) => f, options);
  host.resolveModuleNames = (names, containing, _reused, redirected, opts) => names.map((n) => {
    const found = ts.resolveModuleName(n, containing, opts, host, cache, redirected).resolvedModule;
    if (found) return found;
    const src = unbuiltEntry(REPO, n);
    if (!src) return undefined;
    return { resolvedFileName: src, extension: src.endsWith(".tsx") ? ts.Extension.Tsx : ts.Extension.Ts, isExternalLibraryImport: false };
  });
  host.getSourceFile = (fileName, languageVersion) => {
    const text = ts.sys.readFile(fileName);
    if (text === undefined) return undefined;
    const hit = sfCache.get(fileName);
    if (hit && hit.text === text) return hit.sf;
    const sf = ts.createSourceFile(fileName, text, languageVersion, true);
    sfCache.set(fileName, { text, sf });
    return sf;
  };
  return host;
}
function buildPrograms() {
  return groups.map((g) => ts.createProgram(g.files, g.options, makeHost(g.options)));
}

const rel = (f) => path.relative(REPO, f).split(path.sep).join("/");
const lineOf = (sf, pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
const inRepo = (sf) => !sf.isDeclarationFile && sf.fileName.startsWith(REPO + "/") && !sf.fileName.includes("/node_modules/");

/** Each repository file's semantic diagnostics as `line\0code\0message` keys, by line. */
function diagnosticsOf(program, sf) {
  // `// @ts-nocheck`: the checker checks nothing in the file, so it says nothing of
  // its call sites (they are left out, as JavaScript's are).
  if (sf.checkJsDirective && !sf.checkJsDirective.enabled) return null;
  const out = new Map();
  let list;
  try {
    list = program.getSemanticDiagnostics(sf);
  } catch {
    return null;
  }
  for (const d of list) {
    if (d.start === undefined) continue;
    const line = lineOf(sf, d.start);
    const msg = ts.flattenDiagnosticMessageText(d.messageText, " ");
    // By code: a call that already failed with an error of this code (`Expected 3
    // arguments, but got 2` before, `... 4 ...` after; a test's deliberate misuse whose
    // message names the parameter's new type) was not broken by the change. (Compared
    // by message with numbers aside instead, 42 calls already failing in jose's tests
    // read as new breaks of an optional parameter added, and 8 as breaks of a body
    // change.)
    const key = `${d.code}`;
    if (!out.has(line)) out.set(line, []);
    out.get(line).push({ key, code: d.code, msg, start: d.start, end: d.start + (d.length ?? 0) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Candidates: functions and methods a module exports (directly or as its exported class's
// methods), declared in a .ts file with a body, one declaration, and at least one call
// outside themselves that the checker resolves to them.

const declKey = (d) => `${rel(d.getSourceFile().fileName)}:${d.getStart()}`;

/** The function node behind a checker declaration, or undefined. */
function functionOf(d) {
  if (ts.isFunctionDeclaration(d) || ts.isMethodDeclaration(d)) return d.body ? d : undefined;
  if (ts.isVariableDeclaration(d) && d.initializer
      && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))) return d.initializer;
  if (ts.isArrowFunction(d) || ts.isFunctionExpression(d)) return d;
  return undefined;
}

function indexBase(programs) {
  const candidates = new Map(); // declKey -> { file, name, fn, decl }
  const sites = new Map(); // declKey -> Map(siteKey -> site)
  for (const program of programs) {
    const checker = program.getTypeChecker();
    for (const sf of program.getSourceFiles()) {
      if (!inRepo(sf)) continue;
      const f = rel(sf.fileName);
      if (/\.[mc]?ts$/.test(f) && !/\.d\.[mc]?ts$/.test(f)) {
        const moduleSym = checker.getSymbolAtLocation(sf);
        for (const exp of moduleSym ? checker.getExportsOfModule(moduleSym) : []) {
          let sym = exp;
          if (sym.flags & ts.SymbolFlags.Alias) {
            try { sym = checker.getAliasedSymbol(sym); } catch { continue; }
          }
          const decls = sym.declarations ?? [];
          if (decls.length !== 1 || decls[0].getSourceFile() !== sf) continue;
          const d = decls[0];
          const add = (decl, fn, name) => {
            if (fn.asteriskToken || !fn.body) return;
            candidates.set(declKey(decl), { file: f, name, decl, line: lineOf(sf, fn.getStart()) });
          };
          const fn = functionOf(d);
          const own = (ts.isFunctionDeclaration(d) || ts.isVariableDeclaration(d)) && d.name && ts.isIdentifier(d.name) ? d.name.text : sym.name;
          if (fn && (ts.isFunctionDeclaration(d) || ts.isVariableStatement(d.parent?.parent) || ts.isVariableDeclarationList(d.parent))) {
            add(d, fn, own);
          } else if (ts.isClassDeclaration(d)) {
            for (const m of d.members) {
              if (!ts.isMethodDeclaration(m) || !m.body || !ts.isIdentifier(m.name)) continue;
              const same = d.members.filter((x) => ts.isMethodDeclaration(x) && x.name.getText() === m.name.text);
              if (same.length !== 1) continue; // overloads
              add(m, m, `${d.name?.text ?? "default"}.${m.name.text}`);
            }
          }
        }
      }
      const visit = (node) => {
        if (ts.isCallExpression(node)) {
          const name = calleeName(node.expression);
          const sym = name && checker.getSymbolAtLocation(name);
          for (const d of sym ? targets(checker, sym) : []) {
            if (!d.getSourceFile || !inRepo(d.getSourceFile())) continue;
            const k = declKey(d);
            const fn = functionOf(d);
            // A call within the function itself (recursion) is no caller elsewhere: it
            // is scored only where the report lists it (its diagnostics are then read
            // over the call's whole span, as any site's).
            const recursive = fn && fn.getSourceFile() === sf && fn.pos <= node.pos && node.end <= fn.end;
            if (!sites.has(k)) sites.set(k, new Map());
            const line = lineOf(sf, name.getStart());
            // What reads the call's result is part of the site: the checker reports a
            // member read off a promise (or off a result that lost the member) at the
            // member's name, which may sit on a later line of a chain, and a pattern's
            // missing key at the pattern, before the call.
            let start = node.getStart();
            let end = node.end;
            let outer = node.parent;
            while (outer && (ts.isParenthesizedExpression(outer) || ts.isNonNullExpression(outer) || ts.isAwaitExpression(outer))) outer = outer.parent;
            // The member read off the result is this call's to answer for, not the
            // chained call whose callee it is (`app.get(a)\n.get(b)`: a promise's
            // missing `get` is reported at the second line's name, and is the first
            // call's doing; of the second call, whose receiver is then an error, the
            // checker says nothing).
            let claim = null;
            let claimEnd = null;
            if (outer && ts.isPropertyAccessExpression(outer)) {
              end = Math.max(end, outer.name.end);
              claim = outer.name.getStart();
              // The rest of the chain from that member on, which the checker no longer
              // types (nor the callbacks passed along it) where the member is missing.
              let top = outer;
              while (top.parent && (((ts.isCallExpression(top.parent) || ts.isPropertyAccessExpression(top.parent)
                || ts.isElementAccessExpression(top.parent)) && top.parent.expression === top)
                || ts.isNonNullExpression(top.parent) || ts.isParenthesizedExpression(top.parent))) top = top.parent;
              claimEnd = top.end;
            }
            if (outer && ts.isVariableDeclaration(outer) && ts.isObjectBindingPattern(outer.name)) start = Math.min(start, outer.name.getStart());
            // A result that does not fit a declaration's stated type is reported at the
            // declared name, which may sit lines before the call (`const t: T<{\n..}> =`).
            if (outer && ts.isVariableDeclaration(outer) && outer.type) start = Math.min(start, outer.name.getStart());
            sites.get(k).set(`${f}:${line}`, {
              file: f, line, start, end, claim, claimEnd, callee: name.getStart(), text: node.getText().split("\n")[0].slice(0, 100), recursive,
            });
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
  }
  return { candidates, sites };
}

// ---------------------------------------------------------------------------------------
// The mutations, as text edits on the function's file that keep every line in place.

/** `[start, end, replacement]`, or null where the kind does not apply. */
function mutation(kind, cand, text) {
  const fn = functionOf(cand.decl);
  const sf = fn.getSourceFile();
  const params = fn.parameters.filter((p) => !(ts.isIdentifier(p.name) && p.name.text === "this"));
  const parens = fn.getChildren(sf).some((c) => c.kind === ts.SyntaxKind.OpenParenToken);
  const last = params[params.length - 1];
  const keepLines = (a, b) => text.slice(a, b).replace(/[^\n]/g, "");
  const isRest = last?.dotDotDotToken;
  const addParam = (p) => {
    if (isRest) return null;
    if (!params.length) {
      if (!parens) return null;
      const at = fn.parameters.length ? fn.parameters.end : fn.parameters.pos;
      return [at, at, fn.parameters.length ? `, ${p}` : p];
    }
    if (!parens) return [last.getStart(sf), last.end, `(${last.getText(sf)}, ${p})`];
    const after = text.slice(last.end).match(/^\s*,/);
    return after ? [last.end + after[0].length, last.end + after[0].length, ` ${p}`] : [last.end, last.end, `, ${p}`];
  };
  switch (kind) {
    case "add-required":
      // A required parameter after an optional one is an error at the declaration.
      if (last && (last.questionToken || last.initializer)) return null;
      return addParam("brExtra: number");
    case "add-optional":
      return addParam("brOptional?: number");
    case "remove-first": {
      if (params.length < 2) return null;
      return [params[0].getStart(sf), params[1].getStart(sf), keepLines(params[0].getStart(sf), params[1].getStart(sf))];
    }
    case "remove-last": {
      if (!params.length) return null;
      if (!parens) return [last.getStart(sf), last.end, "()"];
      if (params.length === 1) {
        const trailing = text.slice(last.end).match(/^\s*,/);
        const end = trailing ? last.end + trailing[0].length : last.end;
        return [last.getStart(sf), end, keepLines(last.getStart(sf), end)];
      }
      const prev = params[params.length - 2];
      return [prev.end, last.end, keepLines(prev.end, last.end)];
    }
    case "make-async": {
      if (fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword) || fn.asteriskToken) return null;
      const edits = [];
      if (ts.isMethodDeclaration(fn)) edits.push([fn.name.getStart(sf), "async "]);
      else if (ts.isArrowFunction(fn)) {
        const first = fn.typeParameters ? fn.typeParameters.pos - 1 : parens ? fn.parameters.pos - 1 : fn.parameters[0].getStart(sf);
        edits.push([first, "async "]);
      } else {
        const kw = fn.getChildren(sf).find((c) => c.kind === ts.SyntaxKind.FunctionKeyword);
        if (!kw) return null;
        edits.push([kw.getStart(sf), "async "]);
      }
      // A stated return type T becomes Promise<T> (an async function must say Promise).
      if (fn.type) {
        const t = fn.type.getText(sf);
        if (fn.type.kind === ts.SyntaxKind.TypePredicate) return null;
        if (!/^Promise</.test(t)) {
          const start = fn.type.getStart(sf);
          return [edits[0][0], fn.type.end, text.slice(edits[0][0], start).replace(/^/, edits[0][1]) + `Promise<${t}>`];
        }
      }
      return [edits[0][0], edits[0][0], edits[0][1]];
    }
    case "swap-first-two": {
      // The first two parameters trade places (both required, on one line).
      if (params.length < 2 || !parens) return null;
      const [p0, p1] = params;
      if (p0.questionToken || p0.initializer || p1.questionToken || p1.initializer || p1.dotDotDotToken) return null;
      const a = p0.getStart(sf), b = p1.end;
      const between = text.slice(p0.end, p1.getStart(sf));
      if (text.slice(a, b).includes("\n")) return null;
      return [a, b, p1.getText(sf) + between + p0.getText(sf)];
    }
    case "add-required-key": {
      // The first parameter whose object type is written inline, or (with no type) a
      // destructuring pattern, which TypeScript infers the parameter's type from.
      for (const p of params) {
        if (p.questionToken || p.initializer || p.dotDotDotToken) continue;
        if (p.type && ts.isTypeLiteralNode(p.type)) {
          const at = p.type.getStart(sf) + 1;
          return [at, at, " brKey: number;"];
        }
        if (!p.type && ts.isObjectBindingPattern(p.name)) {
          const at = p.name.getStart(sf) + 1;
          return [at, at, " brKey,"];
        }
      }
      return null;
    }
    case "remove-key": {
      // The last member of the first inline object type of two or more members.
      for (const p of params) {
        if (!p.type || !ts.isTypeLiteralNode(p.type) || p.type.members.length < 2) continue;
        const ms = p.type.members;
        const lastMember = ms[ms.length - 1];
        if (!lastMember.name || !ts.isIdentifier(lastMember.name)) continue;
        const from = ms[ms.length - 2].end;
        // Past the previous member's separator, if it ends the member's text.
        return [from, lastMember.end, keepLines(from, lastMember.end)];
      }
      return null;
    }
    case "remove-returned-key": {
      // The function returns one object literal (one `return`, no stated type): its last
      // named property goes.
      if (fn.type || !fn.body) return null;
      let literal = null;
      let returns = 0;
      const strip = (e) => {
        while (e && (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression?.(e))) e = e.expression;
        return e;
      };
      if (!ts.isBlock(fn.body)) {
        literal = strip(fn.body);
        returns = 1;
      } else {
        const walk = (n) => {
          if (n !== fn.body && (ts.isFunctionLike(n) || ts.isClassLike(n))) return;
          if (ts.isReturnStatement(n)) {
            returns++;
            literal = strip(n.expression);
          }
          ts.forEachChild(n, walk);
        };
        walk(fn.body);
      }
      if (returns !== 1 || !literal || !ts.isObjectLiteralExpression(literal)) return null;
      const props = literal.properties;
      if (props.length < 2 || props.some((x) => ts.isSpreadAssignment(x))) return null;
      const lastProp = props[props.length - 1];
      if (!lastProp.name || !ts.isIdentifier(lastProp.name)) return null;
      const from = props[props.length - 2].end;
      return [from, lastProp.end, keepLines(from, lastProp.end)];
    }
    case "body-only": {
      if (ts.isBlock(fn.body)) {
        const at = fn.body.getStart(sf) + 1;
        return [at, at, " void 0;"];
      }
      return [fn.body.getStart(sf), fn.body.end, `(${fn.body.getText(sf)})`];
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------
// One run: mutate, commit, ask the binary, check head, compare, reset.

function blast() {
  const out = execFileSync(BINARY, ["blast", "--repo", REPO, "--base", "HEAD~1", "--head", "HEAD", "--format", "json"], {
    maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"], timeout: 300_000,
  });
  return JSON.parse(out.toString());
}

/** Seeded shuffle (mulberry32), so the choice is the same on every run. */
function shuffled(list, seed) {
  let a = seed >>> 0;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// A config whose `lib` has no DOM, in a project whose code uses the web platform's
// classes (`new Response(...)`, `: Request`): the project brings them by a package the
// clone has not installed (elysia's bun-types), and without them every such type is an
// error type, which takes a promise or anything else. The checker is given the DOM's
// declarations instead, as it is given an ES lib above.
const WEB_USE = /\bnew (Response|Request|Headers|Blob|File|FormData|ReadableStream)\(|:\s*(Response|Request|Headers|Blob|File|FormData|ReadableStream)\b/;
function withWebPlatform(programs) {
  const added = [];
  for (const [i, g] of groups.entries()) {
    const lib = g.options.lib ?? [];
    if (lib.some((l) => /dom/i.test(l))) continue;
    const checker = programs[i].getTypeChecker();
    if (checker.resolveName?.("Response", undefined, ts.SymbolFlags.Value, false)) continue;
    if (!g.files.some((f) => WEB_USE.test(ts.sys.readFile(f) ?? ""))) continue;
    g.options = { ...g.options, lib: [...(lib.length ? lib : ["lib.esnext.d.ts"]), "lib.dom.d.ts", "lib.dom.iterable.d.ts"] };
    programs[i] = ts.createProgram(g.files, g.options, makeHost(g.options));
    added.push(g.config ? rel(g.config) : "(no config)");
  }
  return added;
}

const basePrograms = buildPrograms();
const WEB_ADDED = withWebPlatform(basePrograms);
const { candidates, sites } = indexBase(basePrograms);
const eligible = [...candidates.entries()]
  .filter(([k]) => [...(sites.get(k)?.values() ?? [])].some((s) => !s.recursive))
  .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
const chosen = shuffled(eligible, SEED).slice(0, MAX);
const baseDiagCache = new Map();
function baseDiags(file) {
  if (!baseDiagCache.has(file)) {
    let got = null;
    for (const p of basePrograms) {
      const sf = p.getSourceFile(path.join(REPO, file));
      if (sf && groups[basePrograms.indexOf(p)].files.includes(sf.fileName)) got = diagnosticsOf(p, sf);
    }
    baseDiagCache.set(file, got);
  }
  return baseDiagCache.get(file);
}

// kind, function, file -> site -> the earlier run's new diagnostics there.
const truth = new Map();
if (TRUTH) {
  const earlier = JSON.parse(fs.readFileSync(TRUTH, "utf8"));
  if (earlier.commit !== BASE_COMMIT) throw new Error(`--truth is of ${earlier.commit}, not ${BASE_COMMIT}`);
  for (const r of earlier.results) {
    const bySite = new Map();
    for (const s of r.sites) if (s.checked) bySite.set(s.site, s.diags);
    truth.set(`${r.kind}\0${r.fn}\0${r.file}`, bySite);
  }
}

console.log(`repo         ${SOURCE} at ${BASE_COMMIT}`);
console.log(`candidates   ${eligible.length} exported functions and methods with calls the checker resolves; ${chosen.length} chosen (seed ${SEED})`);
console.log(`platform     ${WEB_ADDED.length ? "the DOM's declarations added to " + WEB_ADDED.join(", ") : "as configured"}`);
console.log(`workspace    ${LINKED.length ? LINKED.length + " packages linked into node_modules (" + LINKED.slice(0, 6).join(", ") + (LINKED.length > 6 ? ", ..." : "") + ")" : "no packages linked"}`);

const results = [];
let timedOut = false;
outer: for (const [key, cand] of chosen) {
  const abs = path.join(REPO, cand.file);
  const text = fs.readFileSync(abs, "utf8");
  if (baseDiags(cand.file) === null) continue; // the checker cannot load it
  const tsSites = [...sites.get(key).values()];
  for (const kind of KINDS) {
    if (!ONLY.includes(kind)) continue;
    if ((Date.now() - started) / 1000 > SECONDS) {
      timedOut = true;
      break outer;
    }
    const edit = mutation(kind, cand, text);
    if (!edit) continue;
    const [a, b, r] = edit;
    const mutated = text.slice(0, a) + r + text.slice(b);
    if (mutated.split("\n").length !== text.split("\n").length) throw new Error(`${kind} moved lines in ${cand.file}`);
    fs.writeFileSync(abs, mutated);
    const rec = { kind, fn: cand.name, file: cand.file, line: cand.line, edit: r.trim() || "(removed)", sites: [], blastError: null };
    try {
      git(REPO, "commit", "-q", "-am", `${kind} ${cand.name}`);
      let report;
      try {
        report = blast();
      } catch (e) {
        rec.blastError = String(e.stderr ?? e).slice(0, 300);
      }
      // The changed function the report names at the function's line.
      const short = cand.name.split(".").pop();
      const around = (c) => c.file === cand.file && c.line <= cand.line && cand.line <= (c.end_line || c.line);
      let idx = report?.changed.findIndex((c) => around(c) && c.name === short) ?? -1;
      if (idx < 0) idx = report?.changed.findIndex((c) => around(c) && c.line === cand.line) ?? -1;
      rec.changed = idx >= 0 ? report.changed[idx].change : null;
      const ours = new Map(); // file:line -> { verdict, reason }
      const rank = { breaks: 0, check: 1, fine: 2 };
      for (const c of report?.callers ?? []) {
        if (c.changed_index !== idx || c.depth !== 1) continue;
        const k = `${c.file}:${c.line}`;
        const prev = ours.get(k);
        if (!prev || rank[c.verdict] < rank[prev.verdict]) ours.set(k, { verdict: c.verdict, reason: c.reason, caller: c.caller, confidence: c.confidence });
      }
      // Head's diagnostics in the files of every call site either side names (the
      // programs built on first need: with --truth, most runs need none).
      let headPrograms = null;
      const headDiagCache = new Map();
      const headDiags = (file) => {
        if (!headDiagCache.has(file)) {
          let got = null;
          headPrograms ??= groups.map((g) => ts.createProgram(g.files, g.options, makeHost(g.options)));
          for (const [i, p] of headPrograms.entries()) {
            const sf = p.getSourceFile(path.join(REPO, file));
            if (sf && groups[i].files.includes(sf.fileName)) got = diagnosticsOf(p, sf);
          }
          headDiagCache.set(file, got);
        }
        return headDiagCache.get(file);
      };
      // Head offsets of the members read off the sites' results (see `claim`): a
      // missing member reported there is the site's whose result it is.
      const delta = r.length - (b - a);
      const shifted = (file, pos) => (file === cand.file && pos >= b ? pos + delta : pos);
      const claims = new Map(tsSites.filter((s) => s.claim !== null && s.claim !== undefined)
        .map((s) => [`${s.file}:${shifted(s.file, s.claim)}`, shifted(s.file, s.claimEnd)]));
      const MISSING_MEMBER = new Set([2339, 2551]);
      // What the checker reports where it lost a call's types to an error before it
      // (`(app) => app.get(...)`, the callback of a call made on a promise: TS7006 at
      // `app`; TS2347 where the callee became `any`): consequences of that error,
      // credited to the call that made it, never a call's own break.
      const CASCADE = new Set([7006, 7019, 7031, 2347]);
      const newAt = (file, line, span, own = null) => {
        const base = baseDiags(file);
        const head = headDiags(file);
        if (!head) return [];
        const claimedElsewhere = (d) => MISSING_MEMBER.has(d.code) && d.start !== own && claims.has(`${file}:${d.start}`);
        const out = [];
        const lines = new Set([line]);
        if (span) {
          for (const [l, ds] of head) for (const d of ds) if (d.start < span.end && d.end >= span.start) lines.add(l);
        }
        for (const l of lines) {
          const before = (base?.get(l) ?? []).map((d) => d.key);
          for (const d of head.get(l) ?? []) {
            if (l !== line && !(span && d.start < span.end && d.end >= span.start)) continue;
            const i = before.indexOf(d.key);
            if (i >= 0) before.splice(i, 1);
            else if (!claimedElsewhere(d) && !CASCADE.has(d.code)) out.push(`TS${d.code}: ${d.msg}`.slice(0, 160));
          }
        }
        return [...new Set(out)];
      };
      const known = truth.get(`${kind}\0${cand.name}\0${cand.file}`);
      const diagsAt = (k, file, line, span) => known?.get(k) ?? newAt(file, line, span);
      const checkedAt = (k, file) => baseDiags(file) !== null && (known?.has(k) || headDiags(file) !== null);
      const seen = new Set();
      for (const s of tsSites) {
        const k = `${s.file}:${s.line}`;
        seen.add(k);
        const v = ours.get(k);
        if (s.recursive && !v) continue;
        // A site's span is in base's offsets: in the mutated file, past the edit, head's
        // are shifted by what the edit added.
        const span = s.file === cand.file && s.start >= b ? { start: s.start + delta, end: s.end + delta } : s;
        // An earlier run read a recursive call's diagnostics on its first line only.
        const fresh = s.recursive ? undefined : known;
        const checked = baseDiags(s.file) !== null && (fresh?.has(k) || headDiags(s.file) !== null);
        const own = s.claim === null || s.claim === undefined ? null : shifted(s.file, s.claim);
        const diags = fresh?.get(k) ?? newAt(s.file, s.line, span, own);
        // A call made on the result of another site that now lacks the member read
        // off it, there or further up the chain (`a.get(x)\n.get(y)\n.get(z)`: the
        // second `get` is missing from a promise, and the third is called on what the
        // checker then takes for `any`): the checker reports the first failure and
        // judges nothing of this call.
        const callee = shifted(s.file, s.callee);
        // So is a call inside the arguments of a call that failed so (`.group('/g',
        // (app) => app.get(...))` made on a promise: `app` is untyped).
        const upstreamFailed = () => {
          for (const [l, ds] of headDiags(s.file) ?? []) {
            for (const d of ds) {
              if (!MISSING_MEMBER.has(d.code)) continue;
              const failedEnd = claims.get(`${s.file}:${d.start}`);
              if (failedEnd === undefined) continue;
              const inChain = d.start >= span.start && d.start <= callee;
              const inArguments = d.start < span.start && span.end <= failedEnd;
              if (!inChain && !inArguments) continue;
              if (!(baseDiags(s.file)?.get(l) ?? []).some((x) => x.code === d.code)) return true;
            }
          }
          return false;
        };
        const shadowed = !fresh?.has(k) && upstreamFailed();
        rec.sites.push({ site: k, tsSite: true, checked: checked && !shadowed, shadowed, diags, verdict: v?.verdict ?? null, reason: v?.reason, confidence: v?.confidence, text: s.text });
      }
      for (const [k, v] of ours) {
        if (seen.has(k)) continue;
        const file = k.slice(0, k.lastIndexOf(":"));
        const line = Number(k.slice(k.lastIndexOf(":") + 1));
        const srcLine = (fs.readFileSync(path.join(REPO, file), "utf8").split("\n")[line - 1] ?? "").trim().slice(0, 100);
        rec.sites.push({ site: k, tsSite: false, checked: checkedAt(k, file), diags: diagsAt(k, file, line, null), verdict: v.verdict, reason: v.reason, confidence: v.confidence, text: srcLine });
      }
    } finally {
      git(REPO, "reset", "-q", "--hard", BASE_COMMIT);
    }
    results.push(rec);
  }
}

// ---------------------------------------------------------------------------------------
// The scores, per mutation kind.

const pct = (a, b) => (b ? (a / b).toFixed(3) : "n/a");
console.log(`elapsed      ${((Date.now() - started) / 1000).toFixed(0)} s${timedOut ? ` (time limit ${SECONDS} s reached)` : ""}`);
console.log("");
console.log("| mutation | tried | call sites (tsc) | new diagnostics at call sites | breaks | breaks precision | breaks recall | check | fine | fine with a new diagnostic | not listed | outside the checked files |");
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
const disagreements = [];
for (const kind of KINDS) {
  const rs = results.filter((r) => r.kind === kind);
  if (!rs.length) continue;
  let sitesN = 0, truth = 0, breaks = 0, breaksRight = 0, found = 0, check = 0, fine = 0, missing = 0, silent = 0;
  const outside = { breaks: 0, check: 0, fine: 0 };
  for (const r of rs) {
    for (const s of r.sites) {
      // A site in a file no program checks (a .js example): no truth to score it by.
      if (!s.checked) {
        if (s.verdict) outside[s.verdict]++;
        continue;
      }
      const diag = s.diags.length > 0;
      if (s.tsSite) {
        sitesN++;
        if (diag) truth++;
        if (diag && s.verdict === "breaks") found++;
        if (!s.verdict) missing++;
      }
      if (s.verdict === "breaks") {
        breaks++;
        if (diag) breaksRight++;
      }
      if (s.verdict === "check") check++;
      if (s.verdict === "fine") fine++;
      if (s.verdict === "fine" && diag) silent++;
      const wrong = (s.verdict === "breaks" && !diag) || (diag && s.verdict !== "breaks") || (!s.verdict && s.tsSite);
      if (wrong) disagreements.push({ kind, fn: r.fn, file: r.file, changed: r.changed, ...s });
    }
  }
  console.log(`| ${kind} | ${rs.length} | ${sitesN} | ${truth} | ${breaks} | ${pct(breaksRight, breaks)} (${breaksRight}/${breaks}) | ${pct(found, truth)} (${found}/${truth}) | ${check} | ${fine} | ${silent} | ${missing} | ${Object.entries(outside).filter(([, n]) => n).map(([v, n]) => `${n} ${v}`).join(", ") || 0} |`);
}
const bodyBreaks = results.filter((r) => r.kind === "body-only").flatMap((r) => r.sites).filter((s) => s.verdict === "breaks").length;
console.log("");
console.log(`body-only mutations with a "breaks": ${bodyBreaks ? `${bodyBreaks} sites` : "none"}`);
const errors = results.filter((r) => r.blastError);
if (errors.length) console.log(`blast failed on ${errors.length} mutations, e.g. ${errors[0].blastError}`);
const unnamed = results.filter((r) => !r.blastError && r.changed === null);
if (unnamed.length) console.log(`changed function not found in the report: ${unnamed.length} mutations, e.g. ${unnamed[0].kind} ${unnamed[0].fn} (${unnamed[0].file}:${unnamed[0].line})`);

console.log("\ndisagreements (verdict vs new diagnostics at the site):");
for (const kind of KINDS) {
  const ds = disagreements.filter((d) => d.kind === kind);
  if (!ds.length) continue;
  console.log(`\n${kind}: ${ds.length}`);
  for (const d of ds.slice(0, SHOW)) {
    console.log(`  ${d.fn} (${d.changed ?? "not in report"}) at ${d.site}${d.confidence ? ` [${d.confidence}]` : ""}${d.tsSite ? "" : " [not a tsc call site]"}: ${d.verdict ?? "not listed"}` +
      `${d.reason ? ` (${d.reason})` : ""}; tsc: ${d.diags.join(" | ") || "nothing new"}\n      ${d.text}`);
  }
}
if (OUT) fs.writeFileSync(OUT, JSON.stringify({ repo: SOURCE, commit: BASE_COMMIT, results }, null, 1));
fs.rmSync(REPO, { recursive: true, force: true });
