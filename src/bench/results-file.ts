import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";

/**
 * docs/benchmarks.md is written by `npm run bench`, never by hand: one section per benchmark,
 * between `<!-- bench: NAME -->` and `<!-- /bench: NAME -->`, replaced by each run of that
 * benchmark (a run of some benchmarks leaves the others' sections as they were).
 */
export function withSection(doc: string, name: string, body: string): string {
  const start = `<!-- bench: ${name} -->`;
  const end = `<!-- /bench: ${name} -->`;
  const section = `${start}\n${body.trimEnd()}\n${end}`;
  const a = doc.indexOf(start);
  const b = doc.indexOf(end);
  if (a >= 0 && b > a) return doc.slice(0, a) + section + doc.slice(b + end.length);
  return `${doc.trimEnd()}\n\n## ${name}\n\n${section}\n`;
}

/** The section of one benchmark's run: when, where, and its rows of the printed table. */
export function sectionBody(description: string, table: string, now = new Date()): string {
  const when = now.toISOString().slice(0, 16).replace("T", " ");
  const load = loadavg()[0]!.toFixed(1);
  return [
    `${description}. Run ${when} UTC, Node ${process.versions.node}, ${cpus().length} cores, load average ${load}:`,
    "",
    "```text",
    table,
    "```",
  ].join("\n");
}

export const RESULTS_HEADER = `# Benchmark results

<!-- Written by \`npm run bench\` (src/bench/results-file.ts); do not edit by hand. -->

The latest run of each benchmark, as \`npm run bench [-- name…]\` printed it. What the targets
mean and what was learnt reaching them: [performance.md](performance.md).
`;

/** Replaces the sections of the benchmarks that ran in `file` (created when missing). */
export function writeResults(file: string, sections: { name: string; body: string }[]): void {
  let doc = RESULTS_HEADER;
  try {
    doc = readFileSync(file, "utf8");
  } catch {}
  for (const s of sections) doc = withSection(doc, s.name, s.body);
  writeFileSync(file, doc.endsWith("\n") ? doc : `${doc}\n`);
}
