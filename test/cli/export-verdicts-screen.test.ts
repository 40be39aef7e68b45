import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fireIn } from "../helpers/cli.js";
import { SCREEN_FIXTURES } from "../helpers/screens.js";

/**
 * `fire export verdicts` and `fire export screen NAME` on a workspace with two candidates:
 * one with a run screen (Table 9 Sol results imported), one never screened.
 */
let ws: string;
const fire = (args: string[]) => fireIn([...args, "-w", ws]);
const jsonl = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  ws = await mkdtemp(join(tmpdir(), "fire-export-verdicts-"));
  await mkdir(join(ws, "candidates"));
  const text = await readFile(join(SCREEN_FIXTURES, "candidates/report-check.yaml"), "utf8");
  await writeFile(join(ws, "candidates/report-check.yaml"), text);
  await writeFile(
    join(ws, "candidates/other-check.yaml"),
    text.replace("id: report-check", "id: other-check"),
  );
  const plan = await fire([
    "screen",
    "plan",
    "--candidate",
    join(ws, "candidates/report-check.yaml"),
    "--tasks",
    join(SCREEN_FIXTURES, "standin-tasks-small.txt"),
    "--name",
    "sol",
  ]);
  expect(plan.status).toBe(0);
  const imp = await fire(["screen", "import", "sol", join(SCREEN_FIXTURES, "table9-sol.csv")]);
  expect(imp.status).toBe(0);
}, 60_000);
afterAll(() => rm(ws, { recursive: true, force: true }));

describe("fire export verdicts", () => {
  it("one row per candidate, the verdict and evidence of `fire candidate verdict`", async () => {
    const r = await fire(["export", "verdicts"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const rows = jsonl(r.stdout);
    expect(rows.map((x) => x.policy).sort()).toEqual(["other-check@1", "report-check@1"]);
    expect(Object.keys(rows[0]!)).toEqual([
      "policy",
      "id",
      "version",
      "status",
      "family",
      "file",
      "verdict",
      "replayVerdict",
      "replayStale",
      "runScreens",
      "runVerdicts",
      "evidence",
    ]);
    for (const row of rows) {
      const v = await fire(["candidate", "verdict", String(row.id), "--json"]);
      expect(v.status).toBe(0);
      const cli = JSON.parse(v.stdout) as {
        suggested: { verdict: string; evidence: string[] };
        runs: string[];
        status: string;
      };
      expect(row.verdict).toBe(cli.suggested.verdict);
      expect(row.evidence).toEqual(cli.suggested.evidence);
      expect(row.runScreens).toEqual(cli.runs);
      expect(row.status).toBe(cli.status);
    }
    const screened = rows.find((x) => x.id === "report-check")!;
    expect(screened).toMatchObject({
      verdict: "promising",
      file: "candidates/report-check.yaml",
      family: "stop-without-check",
      replayVerdict: null,
      replayStale: null,
      runScreens: ["sol"],
      runVerdicts: ["sol:promising"],
    });
    expect(rows.find((x) => x.id === "other-check")).toMatchObject({
      verdict: "inconclusive",
      runScreens: [],
      evidence: ["not screened yet"],
    });
  });

  it("as CSV: evidence (free text with `;`) is joined by newlines and survives quoting", async () => {
    const r = await fire(["export", "verdicts", "--format", "csv"]);
    expect(r.status).toBe(0);
    const records = parse(r.stdout, { columns: true }) as Record<string, string>[];
    const byId = new Map(records.map((x) => [x.id, x]));
    const json = jsonl((await fire(["export", "verdicts"])).stdout);
    for (const row of json) {
      const rec = byId.get(String(row.id))!;
      expect(rec.evidence!.split("\n")).toEqual(row.evidence);
      expect(rec.version).toBe(String(row.version));
      expect(rec.replayVerdict).toBe("");
    }
  });
});

describe("fire export screen NAME", () => {
  it("exports the stored results the report analyses, in column order", async () => {
    const stored = jsonl(await readFile(join(ws, "screens/sol/results.jsonl"), "utf8"));
    const r = await fire(["export", "screen", "sol"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const rows = jsonl(r.stdout);
    expect(rows).toHaveLength(42);
    const report = JSON.parse((await fire(["report", "sol", "--json"])).stdout) as {
      funnel: Record<string, { attempts: number }>;
    };
    expect(rows.filter((x) => x.arm === "policy")).toHaveLength(report.funnel.policy!.attempts);
    expect(Object.keys(rows[0]!)).toEqual([
      "task",
      "arm",
      "replicate",
      "attempt",
      "pass",
      "cohort",
      "cost",
      "durationS",
      "fired",
      "behavior",
      "risky",
      "unscorable",
      "attemptId",
      "source",
      "lineage",
    ]);
    for (const [i, s] of stored.entries()) {
      expect(rows[i]).toMatchObject({
        task: s.task,
        arm: s.arm,
        attempt: s.attempt,
        pass: s.pass,
        cohort: s.cohort,
        replicate: null,
        lineage: [],
      });
    }
  });

  it("as CSV to a file; a bad stored line is named and the good rows still export", async () => {
    const csv = await fire(["export", "screen", "sol", "--format", "csv"]);
    const records = parse(csv.stdout, { columns: true }) as Record<string, string>[];
    expect(records).toHaveLength(42);
    expect(records.filter((x) => x.pass === "true").length).toBe(
      jsonl((await fire(["export", "screen", "sol"])).stdout).filter((x) => x.pass === true).length,
    );
    await appendFile(join(ws, "screens/sol/results.jsonl"), '{"task": "t", "arm": 3}\n');
    const out = join(ws, "sol.csv");
    const r = await fire(["export", "screen", "sol", "--format", "csv", "--out", out]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/results\.jsonl:43: /);
    expect(r.stderr).toContain(`exported 42 sol rows to ${out}`);
    expect(parse(await readFile(out, "utf8"), { columns: true })).toHaveLength(42);
  });

  it("needs a name, refuses one elsewhere, and names a screen without results", async () => {
    const none = await fire(["export", "screen"]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("give the screen's name");
    const extra = await fire(["export", "labels", "sol"]);
    expect(extra.status).toBe(2);
    expect(extra.stderr).toContain("takes no name");
    const missing = await fire(["export", "screen", "nope"]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('no results for screen "nope"');
  });
});
