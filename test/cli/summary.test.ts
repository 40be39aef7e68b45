import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fireIn } from "../helpers/cli.js";
import { fixture, REPO_ROOT } from "../helpers/paths.js";

let ws: string;
beforeEach(async () => {
  ws = await mkdtemp(join(tmpdir(), "fire-cli-summary-"));
});
afterEach(async () => {
  await rm(ws, { recursive: true, force: true });
});

describe("fire (no command)", () => {
  it("summarises an empty workspace and says how to start", async () => {
    const r = await fireIn(["--workspace", ws]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`fire workspace ${ws}\n`);
    expect(r.stdout).toContain("  attempts   0\n");
    expect(r.stdout).toContain("  errors     0\n");
    expect(r.stdout).toContain(
      "No attempts yet: put traces under traces/ or run `fire import <path>`.",
    );
    expect(r.stdout).toContain("How to use the CLI:");
  });

  it("counts attempts by format, outcomes, tasks by k/n and errors after an import", async () => {
    await fireIn(["import", fixture("harbor-openclaw"), "--workspace", ws]);
    const r = await fireIn(["--workspace", ws]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("  attempts   15 (harbor-trial 15)\n");
    expect(r.stdout).toMatch(
      / {2}outcomes {3}pass 0, fail \d+, error \d+, timeout \d+, unknown 0\n/,
    );
    const tasks = / {2}tasks {6}(\d+) \(passed k\/n → tasks: (.*)\)\n/.exec(r.stdout);
    expect(tasks).not.toBeNull();
    const byKn = tasks![2]!.split(", ").map((p) => p.split(": "));
    expect(byKn.every(([kn]) => kn!.startsWith("0/"))).toBe(true);
    expect(byKn.reduce((n, [, c]) => n + Number(c), 0)).toBe(Number(tasks![1]));
    expect(r.stdout).toContain("Tasks (k/n = passing attempts / attempts):");
  });

  it("--json gives the same counts as the text, as one object", async () => {
    await fireIn(["import", fixture("harbor-openclaw"), "--workspace", ws]);
    const r = await fireIn(["--json", "--workspace", ws]);
    expect(r.status).toBe(0);
    const s = JSON.parse(r.stdout) as {
      dir: string;
      attempts: number;
      byFormat: Record<string, number>;
      outcomes: Record<string, number>;
      tasks: { taskId: string; passed: number; total: number }[];
      tasksByKn: Record<string, number>;
      errors: unknown[];
    };
    expect(s.dir).toBe(ws);
    expect(s.attempts).toBe(15);
    expect(s.byFormat).toEqual({ "harbor-trial": 15 });
    expect(Object.values(s.outcomes).reduce((a, b) => a + b, 0)).toBe(15);
    expect(s.tasks.reduce((n, t) => n + t.total, 0)).toBe(15);
    expect(Object.values(s.tasksByKn).reduce((a, b) => a + b, 0)).toBe(s.tasks.length);
    expect(s.errors).toEqual([]);
    const text = (await fireIn(["--workspace", ws])).stdout;
    expect(text).toContain(`  tasks      ${s.tasks.length} (`);
    const kn = Object.entries(s.tasksByKn)
      .map(([k, n]) => `${k}: ${n}`)
      .join(", ");
    expect(text).toContain(`(passed k/n → tasks: ${kn})`);
  });

  it("`npm start` (the repo root) shows the demo workspace summary", async () => {
    const r = await fireIn([], { cwd: REPO_ROOT });
    expect(r.status).toBe(0);
    expect(r.stdout.startsWith(`fire workspace ${REPO_ROOT}\n`)).toBe(true);
    const harbor = /attempts {3}\d+ \(.*harbor-trial (\d+)/.exec(r.stdout);
    expect(Number(harbor?.[1])).toBeGreaterThanOrEqual(15);
    expect(r.stdout).toContain("How to use the CLI:");
  });
});
