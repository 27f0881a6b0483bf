// Call-site precision and recall of the blast-radius graph against TypeScript's own
// checker, on any local repository.
//
//   npm ci --prefix benches/precision
//   blast-radius graph --repo REPO --format json > graph.json
//   node benches/precision/eval.mjs REPO graph.json [--show N]
//
// TypeScript is the reference: for every call, `new`, tagged template, decorator and
// capitalised JSX element in the repository, the checker's symbol for the callee name
// (aliases, shorthand properties, `const f = g` and `module.exports = require(...)`
// followed; each file checked with the `paths` of its nearest tsconfig/jsconfig) gives
// the definitions it calls. Those that are definitions in our graph (same file, same
// name, the name inside the node's lines) form the truth; the graph's call-like edges
// (not `reference`) are scored against it, per call site position (file, line, UTF-16
// column of the callee's name, as both sides count it).
//
// The checker is not perfect either: without installed dependencies it cannot follow a
// workspace package by name, and in plain JavaScript it types much as `any`. Edges the
// checker had no symbol for are therefore counted apart ("unknown to tsc") and shown in a
// second precision figure; `--show N` prints N disagreements of each kind to read by hand.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import {
  SCRIPT_EXT, listFiles, showArg, loadGraph, groupByConfig, optionsFor, targets, nodeOf, calleeName,
  calledDecls, report, opaqueAssignment,
} from "./common.mjs";

const [repoArg, graphArg, ...rest] = process.argv.slice(2);
if (!repoArg || !graphArg) {
  console.error("usage: node eval.mjs REPO GRAPH.json [--show N]");
  process.exit(2);
}
const SHOW = showArg(rest);
const repo = path.resolve(repoArg);
const g = loadGraph(JSON.parse(fs.readFileSync(graphArg, "utf8")), repo);
const files = listFiles(repo, SCRIPT_EXT);

const rel = (sf) => path.relative(repo, sf.fileName).split(path.sep).join("/");
// A declaration's place: its file in the repository, the line of its name.
const locate = (decl, at) => {
  const sf = decl.getSourceFile();
  const file = rel(sf);
  if (file.startsWith("..")) return undefined;
  return { file, line: sf.getLineAndCharacterOfPosition(at.getStart(sf)).line + 1 };
};

// site key -> { status, targets:Set<id>, name }
const truth = new Map();
let sites = 0;
for (const [config, groupFiles] of groupByConfig(repo, files)) {
  const program = ts.createProgram(groupFiles.map((f) => path.join(repo, f)), optionsFor(config));
  const checker = program.getTypeChecker();
  for (const f of groupFiles) {
    const sf = program.getSourceFile(path.join(repo, f));
    if (!sf || sf.isDeclarationFile) continue;
    const visit = (node) => {
      let name;
      let jsx = false;
      if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isDecorator(node)) {
        name = calleeName(node.expression);
      } else if (ts.isTaggedTemplateExpression(node)) {
        name = calleeName(node.tag);
      } else if (ts.isJsxOpeningElement(node) || ts.isJsxSelfClosingElement(node)) {
        name = calleeName(node.tagName);
        jsx = true;
      }
      if (ts.isDecorator(node) && ts.isCallExpression(node.expression)) name = undefined; // the call inside is the site
      if (name && (!jsx || /^[A-Z]/.test(name.text ?? "") || ts.isPropertyAccessExpression(node.tagName))) {
        sites++;
        const pos = sf.getLineAndCharacterOfPosition(name.getStart(sf));
        const key = `${f}:${pos.line + 1}:${pos.character + 1}`;
        let sym;
        try {
          sym = checker.getSymbolAtLocation(name);
        } catch {}
        const decls = calledDecls(targets(checker, sym), sf);
        const ids = new Set();
        for (const d of decls) {
          const id = nodeOf(g, d, locate);
          if (id !== undefined) ids.add(id);
        }
        const inRepo = decls.some((d) => !rel(d.getSourceFile()).startsWith(".."));
        const opaque = decls.length > 0 && decls.every(opaqueAssignment);
        const status = ids.size ? "repo" : decls.length === 0 || opaque ? "unknown" : inRepo ? "other" : "external";
        const about = decls.map((d) => `${ts.SyntaxKind[d.kind]} ${rel(d.getSourceFile())}:${d.getSourceFile().getLineAndCharacterOfPosition(d.getStart()).line + 1}`).join(", ");
        truth.set(key, { status, targets: ids, name: name.text ?? "super", about });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
}

// Only script files' call sites are scored here (components.mjs scores the others).
report(g, truth, {
  header: [`repository   ${path.basename(repo)}: ${files.length} files, ${sites} call sites seen by tsc`],
  inScope: (file) => SCRIPT_EXT.test(file),
  show: SHOW,
});
