// The verdicts' scores over several runs of verdicts.mjs (their --out files), per
// mutation kind and in all: what BENCHMARKS.md reports for the targets.
//
//   node verdicts-summary.mjs results-a.json results-b.json ...
import fs from "node:fs";

const runs = process.argv.slice(2).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
if (!runs.length) {
  console.error("usage: node verdicts-summary.mjs RESULTS.json...");
  process.exit(2);
}
const pct = (a, b) => (b ? (a / b).toFixed(3) : "n/a");
const kinds = [...new Set(runs.flatMap((r) => r.results.map((x) => x.kind)))];
const score = (filter) => {
  let truth = 0, breaks = 0, right = 0, found = 0, check = 0, fine = 0, silent = 0, tried = 0;
  for (const run of runs) {
    for (const r of run.results.filter(filter)) {
      tried++;
      for (const s of r.sites) {
        if (!s.checked) continue;
        const diag = s.diags.length > 0;
        if (s.tsSite && diag) truth++;
        if (s.tsSite && diag && s.verdict === "breaks") found++;
        if (s.verdict === "breaks") { breaks++; if (diag) right++; }
        if (s.verdict === "check") check++;
        if (s.verdict === "fine") { fine++; if (diag) silent++; }
      }
    }
  }
  return { tried, truth, breaks, right, found, check, fine, silent };
};
console.log(`${runs.length} repositories: ${runs.map((r) => r.repo.split("/").pop()).join(", ")}\n`);
console.log("| mutation | tried | new diagnostics at call sites | breaks | breaks precision | breaks recall | check | fine | fine with a new diagnostic |");
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
const row = (name, s) =>
  console.log(`| ${name} | ${s.tried} | ${s.truth} | ${s.breaks} | ${pct(s.right, s.breaks)} (${s.right}/${s.breaks}) | ${pct(s.found, s.truth)} (${s.found}/${s.truth}) | ${s.check} | ${s.fine} | ${s.silent} |`);
for (const k of kinds) row(k, score((r) => r.kind === k));
row("**all**", score(() => true));
const bodyBreaks = runs.flatMap((r) => r.results).filter((r) => r.kind === "body-only").flatMap((r) => r.sites).filter((s) => s.verdict === "breaks").length;
console.log(`\nbody-only mutations with a "breaks": ${bodyBreaks || "none"}`);
