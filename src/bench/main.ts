#!/usr/bin/env node
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { renderTable } from "../cli/util/table.js";
import { benchmarks } from "./index.js";
import { sectionBody, writeResults } from "./results-file.js";
import { type BenchResult, passes } from "./types.js";

/** The generated results file (`FIRE_BENCH_RESULTS` names another, `off` writes none). */
const RESULTS =
  process.env.FIRE_BENCH_RESULTS ??
  join(dirname(fileURLToPath(import.meta.url)), "../../docs/benchmarks.md");

/** `npm run bench [-- name…]`: runs the named benchmarks (all by default), prints one table. */
async function main(names: string[]): Promise<number> {
  const unknown = names.filter((n) => !benchmarks.some((b) => b.name === n));
  if (unknown.length > 0) {
    process.stderr.write(
      `bench: unknown benchmark ${unknown.join(", ")}; known: ${benchmarks.map((b) => b.name).join(", ")}\n`,
    );
    return 2;
  }
  const chosen = names.length ? benchmarks.filter((b) => names.includes(b.name)) : benchmarks;
  const rows: Array<{ bench: string; result: BenchResult }> = [];
  for (const b of chosen) {
    process.stderr.write(`== ${b.name}: ${b.description}\n`);
    try {
      for (const result of await b.run((line) => process.stderr.write(`   ${line}\n`))) {
        rows.push({ bench: b.name, result });
      }
    } catch (err) {
      process.stderr.write(`bench ${b.name} failed: ${err instanceof Error ? err.message : err}\n`);
      rows.push({
        bench: b.name,
        result: { target: "run", measured: Number.NaN, limit: 0, kind: "min", note: "failed" },
      });
    }
  }
  const render = (some: typeof rows) =>
    renderTable(
      ["benchmark", "target", "measured", "limit", "result", "note"],
      some.map(({ bench, result: r }) => [
        bench,
        r.target,
        Number.isFinite(r.measured) ? r.measured.toFixed(2) : "n/a",
        `${r.kind === "min" ? "≥" : "≤"} ${r.limit}`,
        passes(r) ? "pass" : "MISS",
        r.note ?? "",
      ]),
    );
  process.stdout.write(`${render(rows)}\n`);
  if (RESULTS !== "off") {
    writeResults(
      RESULTS,
      chosen.map((b) => ({
        name: b.name,
        body: sectionBody(b.description, render(rows.filter((r) => r.bench === b.name))),
      })),
    );
    process.stderr.write(`bench: results written to ${RESULTS}\n`);
  }
  return rows.every((r) => passes(r.result)) ? 0 : 1;
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
