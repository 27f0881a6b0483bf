#!/usr/bin/env node
// Checks the requests the GitHub fake recorded (tests/fake_github) against GitHub's REST
// description, @octokit/openapi (pinned in package-lock.json):
// - every request is a known endpoint: its method and its path match an operation;
// - its query parameters are the operation's, with valid values (`per_page` an integer ...);
// - its path parameters are valid (`pull_number` an integer ...);
// - its JSON body is valid against the operation's request-body schema, and present when
//   the operation requires one;
// - an answer the fake recorded with it (`response`, kept for a few routes) is valid
//   against the operation's response schema for its status.
// Endpoints GitHub serves but leaves out of the description (UNDOCUMENTED below) are
// counted apart, as "undocumented".
//
// Usage: node check.mjs [--spec api.github.com|ghes-3.19|...] [--json] DUMP.json|DIR...
// A dump is {"requests": [{"method", "path", "query", "body"}, ...]}; a directory stands
// for every .json file in it. Prints the problems (and with --json a report on stdout);
// exits 1 if there is any.

import { readFileSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import Ajv from "ajv";
import addFormats from "ajv-formats";

const require = createRequire(import.meta.url);

let specName = "api.github.com";
let asJson = false;
const inputs = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--spec") specName = argv[++i];
  else if (argv[i] === "--json") asJson = true;
  else inputs.push(argv[i]);
}
if (inputs.length === 0) {
  console.error("usage: node check.mjs [--spec NAME] [--json] DUMP.json|DIR...");
  process.exit(2);
}

const pkgDir = path.dirname(require.resolve("@octokit/openapi/package.json"));
const spec = JSON.parse(
  readFileSync(path.join(pkgDir, "generated", `${specName}.json`), "utf8"),
);

// ---- the requests ----

const files = inputs.flatMap((p) =>
  statSync(p).isDirectory()
    ? readdirSync(p)
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => path.join(p, f))
    : [p],
);
const requests = files.flatMap((f) => JSON.parse(readFileSync(f, "utf8")).requests);

// ---- the description ----

/** `#/components/...` → the object it points at. */
function deref(node) {
  let seen = 0;
  while (node && typeof node.$ref === "string") {
    if (++seen > 20) throw new Error(`$ref loop at ${node.$ref}`);
    node = node.$ref
      .replace(/^#\//, "")
      .split("/")
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((o, k) => o?.[k], spec);
  }
  return node;
}

/** A schema with every `$ref` replaced by what it points at (a cycle becomes `{}`). */
function inline(schema, stack = []) {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, stack));
  if (!schema || typeof schema !== "object") return schema;
  if (typeof schema.$ref === "string") {
    if (stack.includes(schema.$ref)) return {};
    return inline(deref(schema), [...stack, schema.$ref]);
  }
  const out = {};
  for (const [k, v] of Object.entries(schema)) out[k] = inline(v, stack);
  return out;
}

// Endpoints GitHub serves that its REST description leaves out, used knowingly. They are
// reported apart ("undocumented"), never silently accepted.
const UNDOCUMENTED = {
  // A repository by id: follows renames and transfers. Long served by github.com and
  // GHES, absent from the description.
  "/repositories/{repository_id}": { get: { undocumented: true } },
};

const templates = Object.entries({ ...spec.paths, ...UNDOCUMENTED }).map(([template, item]) => {
  const segments = template.split("/");
  const regex = (s, param) =>
    new RegExp("^" + s.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, param) + "$");
  const regexes = segments.map((s) => regex(s, "([^/]+)"));
  const restRegex = regex(segments.at(-1), "(.+)");
  const names = segments.map((s) => [...s.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]));
  const literal = segments.filter((s) => !s.includes("{")).join("/").length;
  return { template, item, segments, regexes, restRegex, names, literal };
});

// Parameters whose value may hold slashes when last in a path (a branch `feature/x`, a ref,
// a file path), as GitHub takes them.
const SLASHED = new Set(["branch", "ref", "path", "basehead"]);

/** The path template `p` is an instance of, with its parameters. */
function matchPath(p) {
  const parts = p.split("/");
  let best = null;
  for (const t of templates) {
    const lastName = /^\{([^}]+)\}$/.exec(t.segments.at(-1))?.[1];
    const lastTakesRest = SLASHED.has(lastName) && parts.length > t.segments.length;
    if (t.segments.length !== parts.length && !lastTakesRest) continue;
    const params = {};
    let ok = true;
    for (let i = 0; i < t.segments.length && ok; i++) {
      const last = i === t.segments.length - 1;
      const part = last && lastTakesRest ? parts.slice(i).join("/") : parts[i];
      const m = (last && lastTakesRest ? t.restRegex : t.regexes[i]).exec(part);
      if (!m || (part === "" && t.segments[i] !== "")) ok = false;
      else t.names[i].forEach((n, j) => (params[n] = decodeURIComponent(m[j + 1])));
    }
    if (!ok) continue;
    const score = t.literal * 2 + (lastTakesRest ? 0 : 1);
    if (!best || score > best.score) best = { ...t, params, score };
  }
  return best;
}

const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
addFormats(ajv);
const ajvParams = new Ajv({ strict: false, coerceTypes: true, logger: false });
addFormats(ajvParams);

const compiled = new Map();
function validator(key, make, instance = ajv) {
  if (!compiled.has(key)) compiled.set(key, instance.compile(make()));
  return compiled.get(key);
}

function describe(errors) {
  return errors
    .map((e) => `${e.instancePath || "(body)"} ${e.message}${e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ""}`)
    .join("; ");
}

// ---- the check ----

const problems = [];
const operations = {};
const undocumented = {};
let checked = 0;
let skipped = 0;

for (const r of requests) {
  const method = r.method.toLowerCase();
  const what = `${r.method} ${r.path}${r.query ? "?" + r.query : ""}`;
  if (r.path.startsWith("/_codeload/")) {
    // The download a tarball redirect leads to: codeload.github.com, not the API.
    skipped++;
    continue;
  }
  checked++;
  const t = matchPath(r.path);
  if (!t) {
    problems.push(`${what}: no such path in GitHub's REST description`);
    continue;
  }
  const op = t.item[method];
  if (!op) {
    const known = Object.keys(t.item).filter((k) => k !== "parameters" && k !== "summary" && k !== "description");
    problems.push(`${what}: ${t.template} takes ${known.map((k) => k.toUpperCase()).join(", ")}, not ${r.method}`);
    continue;
  }
  const opName = `${r.method} ${t.template}`;
  if (op.undocumented) {
    undocumented[opName] = (undocumented[opName] ?? 0) + 1;
    continue;
  }
  operations[opName] = (operations[opName] ?? 0) + 1;

  const params = [...(t.item.parameters ?? []), ...(op.parameters ?? [])].map(deref);
  for (const [name, value] of Object.entries(t.params)) {
    const p = params.find((q) => q.in === "path" && q.name === name);
    if (!p) {
      problems.push(`${what}: path parameter ${name} is not described`);
      continue;
    }
    const v = validator(`${opName} path ${name}`, () => ({ type: "object", properties: { v: inline(p.schema ?? {}) } }), ajvParams);
    if (!v({ v: value })) problems.push(`${what}: path parameter ${name}=${value}: ${describe(v.errors)}`);
  }
  const query = new URLSearchParams(r.query ?? "");
  for (const [name, value] of query) {
    const p = params.find((q) => q.in === "query" && q.name === name);
    if (!p) {
      problems.push(`${what}: unknown query parameter ${name} for ${opName}`);
      continue;
    }
    const v = validator(`${opName} query ${name}`, () => ({ type: "object", properties: { v: inline(p.schema ?? {}) } }), ajvParams);
    if (!v({ v: value })) problems.push(`${what}: query parameter ${name}=${value}: ${describe(v.errors)}`);
  }
  for (const p of params.filter((q) => q.in === "query" && q.required)) {
    if (!query.has(p.name)) problems.push(`${what}: required query parameter ${p.name} missing`);
  }

  // An answer the fake recorded (its own model of a GitHub resource): valid against the
  // operation's response schema for its status.
  if (r.response !== undefined && r.response !== null && r.status) {
    const answer = deref(op.responses?.[String(r.status)]);
    const answerSchema = answer?.content?.["application/json"]?.schema;
    if (!answerSchema) {
      problems.push(`${what}: ${opName} describes no JSON answer for ${r.status}`);
    } else {
      const v = validator(`${opName} answer ${r.status}`, () => inline(answerSchema));
      if (!v(r.response)) {
        problems.push(`${what}: answer ${r.status} does not match ${opName}: ${describe(v.errors)}`);
      }
    }
  }

  const requestBody = deref(op.requestBody);
  const schema = requestBody?.content?.["application/json"]?.schema;
  const hasBody = r.body !== null && r.body !== undefined;
  if (!hasBody) {
    if (requestBody?.required) problems.push(`${what}: ${opName} requires a JSON body`);
    continue;
  }
  if (!requestBody) {
    problems.push(`${what}: ${opName} takes no body, one was sent`);
    continue;
  }
  if (!schema) {
    problems.push(`${what}: ${opName} takes no JSON body`);
    continue;
  }
  const v = validator(`${opName} body`, () => inline(schema));
  if (!v(r.body)) {
    problems.push(`${what}: body does not match ${opName}: ${describe(v.errors)}`);
  }
}

for (const p of problems) console.error(p);
if (asJson) {
  console.log(JSON.stringify({ spec: specName, checked, skipped, operations, undocumented, problems }));
} else {
  console.error(`${checked} requests checked against ${specName} (${skipped} outside the API), ${problems.length} problems`);
}
process.exit(problems.length ? 1 : 0);
