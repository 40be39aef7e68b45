import { cpSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { routingAudit, savedReplayScreens } from "../../src/core/app/index.js";
import { storedOf } from "../../src/core/lifecycle/entries.js";
import { previewText } from "../../src/core/screening/replay/preview.js";
import { candidateEvidence } from "../../src/core/verdict/evidence.js";
import { withEvidence } from "../../src/core/verdict/prose.js";
import { loadWorkspaceData } from "../../src/ui/data/workspace.js";
import { DEMO_DIR, removeTempWorkspaces, tempWorkspace } from "../core/mine/demo-workspace.js";
import { runFire } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";

afterAll(removeTempWorkspaces);

/**
 * The CLI (`--json`, a spawned process) and the workbench (its loaded view model and the
 * core/app functions its screens call) must show the same numbers for the same workspace:
 * routing (cohorts), replay-screen cohort counts and verdicts. Triage parity, with and without
 * user decisions, is test/cli/triage-parity.test.ts.
 */
function cli<T>(ws: string, ...args: string[]): T {
  const r = runFire([...args, "--json", "-w", ws]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

interface ReplayJson {
  candidate: string;
  sets: { positiveTasks: string[]; negatives: { taskId: string; kind: string }[] };
  summary: Record<string, { k: number; n: number }>;
  verdict: { verdict: string; findings: unknown[]; evidence: string[] };
}

describe("CLI --json and the workbench agree on cohorts and verdicts", () => {
  it("on the demo with a drafted candidate, a reference one, and a user's decision", {
    timeout: 240_000,
  }, async () => {
    const ws = tempWorkspace(`${DEMO_DIR}/`);
    cpSync(
      join(REPO_ROOT, "candidates/reference/service-persistence.yaml"),
      join(ws, "candidates/reference/service-persistence.yaml"),
    );
    const mined = cli<{ clusters: { id: string; family?: string; name: string }[] }>(
      ws,
      "mine",
      "--labeler",
      "heuristic",
    );
    const svc = mined.clusters.find((c) => c.family === "service-persistence")!;
    const other = mined.clusters.find((c) => c.id !== svc.id)!;
    const ex = runFire(["cluster", "exclude", other.id, "--reason", "out of scope", "-w", ws]);
    expect(ex.status, ex.stderr).toBe(0);
    const drafted = cli<{ candidate: { id: string; version: number } }>(
      ws,
      "draft",
      "--cluster",
      svc.id,
    );
    const key = `${drafted.candidate.id}@${drafted.candidate.version}`;

    // Routing: which candidate routes which task (the routed / silent cohorts).
    const route = cli<unknown>(ws, "route");
    const data = await loadWorkspaceData(ws);
    expect(JSON.parse(JSON.stringify(routingAudit(data)))).toEqual(route);

    // Replay screen: the CLI's saved screen is what the Screens tab lists, and the editor
    // preview shows its cohort counts.
    const screen = cli<ReplayJson>(ws, "screen", "replay", drafted.candidate.id);
    expect(screen.candidate).toBe(key);
    expect(screen.summary.positiveFiring!.n).toBeGreaterThan(0);
    expect(screen.sets.negatives.length).toBeGreaterThan(0);
    const listed = savedReplayScreens(data).get(key);
    expect(listed?.verdict.verdict).toEqual(screen.verdict.verdict);
    expect(listed?.verdict.findings).toEqual(screen.verdict.findings);
    expect(listed?.summary).toEqual(screen.summary);
    const entry = data.candidates.find((c) => c.policy?.key === key)!;
    const pool = data.candidates.flatMap((c) => (c.policy ? [c.policy] : []));
    const preview = previewText(entry.text, entry.file, data.ws.attempts, {
      pool,
      seed: data.ws.config.screen.seed,
    });
    const s = screen.summary;
    expect(preview.counts).toMatchObject({
      positives: { fired: s.positiveFiring!.k, total: s.positiveFiring!.n },
      negatives: { fired: s.negativeFiring!.k, total: s.negativeFiring!.n },
      silent: { fired: s.silentFiring!.k, total: s.silentFiring!.n },
    });

    // The folded verdict (`fire candidate verdict`) is what the workbench computes.
    const verdict = cli<{ policy: string; suggested: unknown }>(
      ws,
      "candidate",
      "verdict",
      drafted.candidate.id,
    );
    const stored = storedOf(entry)!;
    const ev = await candidateEvidence(ws, stored);
    expect(ev.policy).toBe(verdict.policy);
    expect(withEvidence(ev.suggested)).toEqual(verdict.suggested);
  });
});
