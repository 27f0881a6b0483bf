// Helper for tests/app/webhooks.rs, run from the directory the test installs the
// packages into.
//
//   node fixtures.mjs examples OUT EVENT...   every example payload of those events
//   node fixtures.mjs sign IN OUT             @octokit/webhooks-methods' signatures
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { sign, verify } from "@octokit/webhooks-methods";

const [command, ...args] = process.argv.slice(2);

if (command === "examples") {
  const [out, ...events] = args;
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve("@octokit/webhooks-examples/package.json"));
  const found = [];
  // api.github.com and each GHES version's examples.
  for (const source of readdirSync(root, { withFileTypes: true })) {
    if (!source.isDirectory()) continue;
    const index = JSON.parse(readFileSync(join(root, source.name, "index.json"), "utf8"));
    for (const event of index) {
      if (!events.includes(event.name)) continue;
      event.examples.forEach((payload, i) => {
        found.push({ source: source.name, event: event.name, index: i, payload });
      });
    }
  }
  writeFileSync(out, JSON.stringify(found));
} else if (command === "sign") {
  const [input, out] = args;
  const cases = JSON.parse(readFileSync(input, "utf8"));
  const results = [];
  for (const c of cases) {
    results.push({
      theirs: await sign(c.secret, c.payload),
      accepts_ours: await verify(c.secret, c.payload, c.ours),
      accepts_tampered: await verify(c.secret, c.payload + " ", c.ours),
    });
  }
  writeFileSync(out, JSON.stringify(results));
} else {
  console.error(`unknown command ${command}`);
  process.exit(2);
}
