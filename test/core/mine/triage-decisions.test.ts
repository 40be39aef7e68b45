import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../../src/core/errors.js";
import { applyDecisions, resolveCluster } from "../../../src/core/mine/apply-decisions.js";
import { appendDecision, decisionsPath, loadDecisions } from "../../../src/core/mine/decisions.js";
import { type MineResult, mine } from "../../../src/core/mine/mine.js";
import { triage } from "../../../src/core/mine/triage.js";
import { loadWorkspace, type Workspace } from "../../../src/core/workspace/load.js";
import { DEMO_DIR, loadDemo, removeTempWorkspaces, tempWorkspace } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

let ws: Workspace;
let base: MineResult;

beforeAll(async () => {
  ws = await loadDemo();
  base = await mine(ws.attempts, { labeler: "heuristic", config: ws.config });
});

const famCluster = (r: MineResult, fam: string) => r.clusters.find((c) => c.family === fam);

describe("triage", () => {
  it("configured verifier-fault markers exclude attempts whose verifier output contains them", async () => {
    const marked = await loadWorkspace(
      tempWorkspace(`${DEMO_DIR}/`, {
        mining: { verifierFaultMarkers: ["ConnectionRefusedError"] },
      }),
    );
    const t = triage(marked.attempts, {
      verifierFaultMarkers: marked.config.mining.verifierFaultMarkers,
    });
    const v = t.exclusions.filter((e) => e.reason === "verifier_fault");
    expect(v.map((e) => e.taskId)).toEqual(["flask-kv-store-api"]);
    expect(v[0]?.detail).toBe(
      'verifier output contains the configured marker "ConnectionRefusedError"',
    );
    expect(v[0]?.evidence[0]?.excerpt).toContain("ConnectionRefusedError");
    const flask = t.tasks.find((x) => x.taskId === "flask-kv-store-api");
    // the excluded attempt still counts in k/n; it only leaves mining scope
    expect(flask?.n).toBe(flask?.attemptIds.length);
    expect(flask?.excludedIds).toEqual([v[0]?.attemptId]);
    expect(flask?.failedIds).toHaveLength(1);
  });

  it("labels with capability_gap / no_intervention_point become exclusions with the labeller's reason", () => {
    const labels = new Map(base.labels.map((l) => [l.attemptId, l]));
    const t = triage(ws.attempts, { labels });
    const gaps = base.labels
      .filter((l) => l.exclusion === "capability_gap")
      .map((l) => l.attemptId);
    expect(gaps.length).toBeGreaterThan(0);
    const byLabeller = t.exclusions.filter((e) => e.source === "labeller");
    expect(byLabeller.map((e) => e.attemptId).sort()).toEqual(gaps.sort());
    expect(byLabeller.every((e) => e.detail.startsWith("labeller (heuristic): "))).toBe(true);
    // failures kept for review stay in mining scope (a passing sibling, no mechanism named)
    const review = base.labels.filter((l) => l.status === "needs_review").map((l) => l.attemptId);
    expect(review.length).toBeGreaterThan(0);
    for (const id of review) expect(t.inScope).toContain(id);
    // an LLM's no_intervention_point is an exclusion too
    const first = base.labels.find((l) => l.status === "needs_review");
    const nip = new Map(labels);
    if (first)
      nip.set(first.attemptId, { ...first, exclusion: "no_intervention_point", status: undefined });
    const t2 = triage(ws.attempts, { labels: nip });
    expect(t2.exclusions.find((e) => e.attemptId === first?.attemptId)?.reason).toBe(
      "no_intervention_point",
    );
    expect(t2.inScope).toHaveLength(t.inScope.length - 1);
  });
});

describe("user decisions over clusters", () => {
  it("rename, merge, split and exclude are replayed over a fresh clustering", () => {
    const svc = famCluster(base, "service-persistence");
    const dep = famCluster(base, "deployment-preservation");
    const db = famCluster(base, "database-evidence");
    if (!svc || !dep || !db) throw new Error("demo clusters missing");
    const moved = svc.attemptIds[0] as string;
    const input = {
      labels: base.labels,
      attempts: new Map(ws.attempts.map((a) => [a.id, a])),
      hits: base.hits,
    };
    const r = applyDecisions(
      base.clusters,
      [
        { op: "rename", members: svc.attemptIds, name: "Servers die with the session" },
        {
          op: "merge",
          groups: [dep.attemptIds, db.attemptIds],
          name: "Evidence and deployments destroyed",
        },
        { op: "split", attemptIds: [moved], name: "Moved out" },
        {
          op: "exclude",
          attemptIds: [famCluster(base, "stop-without-check")?.attemptIds[0] as string],
          reason: "grader quirk",
        },
      ],
      input,
    );
    // 9 family clusters, one merge (-1), one split (+1), the one-attempt cluster excluded (-1)
    expect(r.clusters.length).toBe(8);
    const renamed = r.clusters.find((c) => c.name === "Servers die with the session");
    expect(renamed?.attemptIds).toEqual(svc.attemptIds.slice(1));
    expect(renamed?.named).toBe(true);
    expect(r.clusters.find((c) => c.name === "Moved out")?.attemptIds).toEqual([moved]);
    expect(
      r.clusters.find((c) => c.name === "Evidence and deployments destroyed")?.attemptIds,
    ).toEqual([...dep.attemptIds, ...db.attemptIds].sort());
    expect(r.excluded).toEqual([
      { attemptId: famCluster(base, "stop-without-check")?.attemptIds[0], reason: "grader quirk" },
    ]);
    expect(resolveCluster(r.clusters, "servers die with the session")?.id).toBe(renamed?.id);
    expect(resolveCluster(r.clusters, (renamed?.id ?? "").slice(0, 7))?.id).toBe(renamed?.id);
  });

  it("decisions persist in mining/decisions.json and a re-run of mining keeps them", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    const svc = famCluster(base, "service-persistence");
    await appendDecision(dir, {
      op: "rename",
      members: svc?.attemptIds ?? [],
      name: "Detached launch missing",
    });
    const file = JSON.parse(readFileSync(decisionsPath(dir), "utf8"));
    expect(file.version).toBe(2);
    expect(file.decisions).toHaveLength(1);
    const again = await mine(ws.attempts, {
      labeler: "heuristic",
      config: ws.config,
      decisions: (await loadDecisions(dir)).decisions,
    });
    expect(famCluster(again, "service-persistence")?.name).toBe("Detached launch missing");
  });

  it("a broken decisions file is an InputError naming the file and line", async () => {
    const dir = tempWorkspace(`${DEMO_DIR}/`);
    mkdirSync(join(dir, "mining"));
    writeFileSync(
      decisionsPath(dir),
      '{\n  "version": 1,\n  "decisions": [\n    { "op": "rename", "members": ["a"], "name": "x" },\n    { "op": "explode", "attemptIds": ["b"] }\n  ]\n}\n',
    );
    const err = await loadDecisions(dir).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).format()).toMatch(/decisions\.json:5: /);
  });
});
