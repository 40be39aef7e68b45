import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importScreen } from "../../src/core/app/results.js";
import {
  renderReportMarkdown,
  renderReportText,
  toReportJson,
} from "../../src/core/report/index.js";
import { loadScreenAnalysis } from "../../src/core/screening/results/analysis.js";
import type { Contrast } from "../../src/core/stats/contrast.js";
import { fireIn } from "../helpers/cli.js";
import { fixture, REPO_ROOT } from "../helpers/paths.js";

const screens = join(REPO_ROOT, "test/fixtures/screens");
const ws = (): string => mkdtempSync(join(tmpdir(), "fire-screen-"));

interface Json {
  contrasts: Pick<Contrast, "arm" | "comparator" | "cohort" | "nTasks" | "delta" | "ci" | "p">[];
  arms: Record<
    string,
    Record<string, { passAt1: number; passAtK: number; passHatK: number; tasks: number }>
  >;
  transitions: Record<string, { counts: number[][] }>;
  funnel: Record<string, { attempts: number }>;
}

/** What `fire report NAME --json` prints (core/report toReportJson of the analysis). */
async function reportJson(dir: string, name: string): Promise<Json> {
  const { analysis, errors } = await loadScreenAnalysis(dir, name);
  expect(errors).toEqual([]);
  return JSON.parse(JSON.stringify(toReportJson(name, analysis))) as Json;
}

/**
 * `fire screen import` and `fire report` call core/app importScreen and the analysis; the
 * statistics are checked through those, the commands' own output and exit codes via the CLI.
 */
describe("fire screen import + fire report (Table 9 acceptance)", () => {
  it("reproduces p = 0.0625 (Sol) and p = 0.125 (Luna) from CSV", async () => {
    const dir = ws();
    for (const [name, file] of [
      ["sol", "table9-sol.csv"],
      ["luna", "table9-luna.csv"],
    ] as const) {
      const r = await importScreen(dir, name, join(screens, file));
      expect(r.errors).toEqual([]);
      expect(r.added).toBe(42);
    }
    const sol = (await reportJson(dir, "sol")).contrasts.find((c) => c.cohort === "all");
    expect(sol).toMatchObject({ arm: "policy", comparator: "baseline", nTasks: 7 });
    expect(sol?.p).toBeCloseTo(0.0625, 12);
    expect(sol?.delta).toBeCloseTo(4 / 7, 12);
    expect(sol?.ci[0]).toBeGreaterThan(0);
    const luna = await reportJson(dir, "luna");
    const c = luna.contrasts.find((x) => x.cohort === "all");
    expect(c?.p).toBeCloseTo(0.125, 12);
    expect(c?.nTasks).toBe(7);
    expect(luna.arms.baseline?.all?.passAt1).toBeCloseTo(11 / 21, 12); // (0+3+2+0+0+3+3) / 21
    expect(luna.arms.policy?.all?.passHatK).toBeCloseTo(5 / 7, 12);
    expect(luna.transitions.policy?.counts).toEqual([
      [0, 0, 2, 1],
      [0, 0, 0, 0],
      [0, 0, 0, 1],
      [0, 0, 0, 3],
    ]);
    expect(luna.funnel.policy?.attempts).toBe(21);
  });

  it("reports bad rows as file:line: reason and still loads the good ones", async () => {
    const dir = ws();
    const file = join(screens, "with-bad-rows.csv");
    const r = await fireIn(["screen", "import", "mixed", file, "--workspace", dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("with-bad-rows.csv:4: pass: expected true/false");
    expect(r.stderr).toContain("with-bad-rows.csv:5: attempt: expected a number");
    expect(r.stderr).toContain("with-bad-rows.csv:7: task:");
    expect(r.stdout).toContain("imported 4 row(s)");
    const stored = readFileSync(join(dir, "screens/mixed/results.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(stored).toHaveLength(4);
    expect(JSON.parse(stored[1] as string)).toMatchObject({
      task: "a",
      arm: "policy",
      attempt: 1,
      pass: true,
      cost: 0.12,
      durationS: 31,
      fired: true,
      behavior: true,
    });
    // a re-import replaces the same cells instead of duplicating them
    const again = await fireIn(["screen", "import", "mixed", file, "--workspace", dir]);
    expect(again.stdout).toContain("0 new, 4 replaced, 4 stored");
  });

  it("renders Markdown and an HTML file with an SVG forest plot", async () => {
    const dir = ws();
    await importScreen(dir, "sol", join(screens, "table9-sol.csv"));
    const { analysis } = await loadScreenAnalysis(dir, "sol");
    const md = renderReportMarkdown("sol", analysis);
    expect(md).toContain("| policy | baseline | all | 7 | +0.571 |");
    expect(md).toContain("0.0625");
    const html = await fireIn(["report", "sol", "--html", "--workspace", dir]);
    expect(html.status).toBe(0);
    const page = readFileSync(join(dir, "screens/sol/report.html"), "utf8");
    expect(page).toContain("<svg");
    expect(page).toContain("p=0.0625 n=7");
    const text = renderReportText("sol", analysis);
    expect(text).toContain("●");
    expect(text).toContain("Δ +0.571 [+0.238, +0.857] p=0.0625 n=7");
  });

  it("imports a real Harbor job folder tagged with arm and replicate, with integrity flags", async () => {
    const dir = ws();
    const job = fixture("harbor-openclaw/clawbench-19-kimi2.6");
    const asPolicy = await fireIn([
      "screen",
      "import",
      "oc",
      job,
      "--arm",
      "policy",
      "--replicate",
      "1",
      "--workspace",
      dir,
    ]);
    expect(asPolicy.status).toBe(0);
    expect(asPolicy.stdout).toContain("imported 4 row(s)");
    expect(asPolicy.stdout).toContain("4 unscorable");
    const asBaseline = await importScreen(dir, "oc", job, { arm: "baseline", replicate: 1 });
    expect(asBaseline).toMatchObject({ added: 4, replaced: 0, total: 8 });
    const rows = readFileSync(join(dir, "screens/oc/results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const t3 = rows.filter((r) => r.task === "clawbench/t3-data-pipeline-report");
    expect(t3.map((r) => [r.arm, r.replicate, r.pass, r.unscorable ?? null])).toEqual([
      ["policy", 1, false, "no hook log: the policy hook never ran"],
      ["baseline", 1, false, null],
    ]);
    expect(t3[0].attemptId).toBe("t3-data-pipeline-report__25HCHpE-1a97255f");
    const report = JSON.parse(
      (await fireIn(["report", "oc", "--json", "--workspace", dir])).stdout,
    );
    expect(report).toEqual(await reportJson(dir, "oc"));
    expect(report.unscorable).toHaveLength(4);
    expect(report.arms.policy.all).toMatchObject({ tasks: 0, attempts: 0, unscorable: 4 });
    expect(report.contrasts).toEqual([]);
  });

  it("refuses unsafe screen names (exit 2) and explains a missing screen (exit 1)", async () => {
    const dir = ws();
    const bad = await fireIn([
      "screen",
      "import",
      "../x",
      join(screens, "table9-sol.csv"),
      "--workspace",
      dir,
    ]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("screen name");
    const missing = await fireIn(["report", "nope", "--workspace", dir]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("fire screen import nope");
  });
});
