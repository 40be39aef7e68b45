import { afterAll, describe, expect, it } from "vitest";
import { decisionsPath } from "../../src/core/mine/decisions.js";
import { loadWorkspaceData } from "../../src/ui/data/workspace.js";
import { DEMO_DIR, removeTempWorkspaces, tempWorkspace } from "../core/mine/demo-workspace.js";
import { fireIn } from "../helpers/cli.js";

afterAll(removeTempWorkspaces);

interface TriageJson {
  tasks: { taskId: string; arm: string; passes: number; n: number; excludedIds: string[] }[];
  exclusions: { attemptId: string; reason: string; evidence: { file?: string; line?: number }[] }[];
  inScope: string[];
}

async function cliTriage(ws: string): Promise<TriageJson> {
  const r = await fireIn(["triage", "--json", "-w", ws]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as TriageJson;
}

async function workbenchTriage(ws: string): Promise<TriageJson> {
  const data = await loadWorkspaceData(ws);
  return JSON.parse(JSON.stringify(data.triage)) as TriageJson;
}

const kn = (t: TriageJson) => t.tasks.map((x) => `${x.taskId}/${x.arm} ${x.passes}/${x.n}`);

describe("fire triage --json and the workbench show the same triage", () => {
  it("on the demo, after mining, and after a user's cluster exclude", {
    timeout: 180_000,
  }, async () => {
    const ws = tempWorkspace(`${DEMO_DIR}/`);
    const fresh = await cliTriage(ws);
    expect(await workbenchTriage(ws)).toEqual(fresh);

    expect((await fireIn(["mine", "--labeler", "heuristic", "-w", ws])).status).toBe(0);
    const mined = await cliTriage(ws);
    expect(await workbenchTriage(ws)).toEqual(mined);
    expect(mined.exclusions.length).toBeGreaterThan(fresh.exclusions.length);

    const ex = await fireIn([
      "cluster",
      "exclude",
      "Stop without checking the evaluator-facing artifact",
      "--reason",
      "grader quirk",
      "-w",
      ws,
    ]);
    expect(ex.status, ex.stderr).toBe(0);
    const decided = await cliTriage(ws);
    const shown = await workbenchTriage(ws);
    expect(shown).toEqual(decided);
    const user = decided.exclusions.filter((e) => e.reason === "excluded_by_user");
    expect(user.length).toBeGreaterThan(0);
    expect(user[0]?.evidence[0]).toMatchObject({
      file: decisionsPath(ws),
      line: expect.any(Number),
    });
    // no exclusion — faults, labels or the user's — changes any task's k/n
    expect(kn(decided)).toEqual(kn(fresh));
    expect(kn(mined)).toEqual(kn(fresh));
    expect(decided.tasks.every((t) => t.n > 0)).toBe(true);
  });
});
