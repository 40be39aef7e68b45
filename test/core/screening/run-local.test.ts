import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { buildPlan } from "../../../src/core/screening/plan/build.js";
import { writePlan } from "../../../src/core/screening/plan/plan-file.js";
import { readResults } from "../../../src/core/screening/results/results-file.js";
import { runLocalScreen } from "../../../src/core/screening/run/local.js";
import type { RunProgress } from "../../../src/core/screening/run/types.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const CANDIDATE = join(REPO_ROOT, "test/fixtures/screens/candidates/report-check.yaml");
const FIRE_BIN = [process.execPath, join(REPO_ROOT, "dist/cli/fire.cjs")];

/** A PreToolUse event through the arm's real hook (nothing for baseline), then pass iff policy. */
const HOOKED =
  `printf '%s' '{"session_id":"s-{arm}-{replicate}-{task}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}'` +
  ` | sh -c "$FIRE_HOOK_COMMAND" >/dev/null; echo {arm} >> {countFile};` +
  ` echo "resident=$FIRE_HOOK_RESIDENT" >> {countFile}.env; test {arm} = policy`;

async function screen(name: string): Promise<string> {
  const ws = mkdtempSync(join(tmpdir(), "fire-run-local-"));
  const candidates = loadPolicies([CANDIDATE]).policies.map((p) => p.candidate);
  await writePlan(
    ws,
    buildPlan({
      name,
      seed: 1,
      attempts: 2,
      arms: ["baseline", "policy"],
      source: { kind: "candidate", path: CANDIDATE },
      candidates,
      tasks: [
        { id: "t1", cohort: "eligible" },
        { id: "t2", cohort: "silent" },
      ],
      createdAt: "2026-01-01T00:00:00.000Z",
    }),
  );
  return ws;
}

const lines = (file: string): string[] => readFileSync(file, "utf8").trim().split("\n");

describe("local runner", () => {
  it("runs every cell with the arm's real hook, scores exit codes, and resumes", async () => {
    const ws = await screen("loc");
    const countFile = join(ws, "count.txt");
    const base = {
      workspace: ws,
      name: "loc",
      fireBin: FIRE_BIN,
      template: HOOKED,
      vars: { countFile },
      concurrency: 2,
    };
    const events: RunProgress[] = [];
    const s1 = await runLocalScreen({ ...base, onProgress: (p) => events.push(p) });
    expect(s1).toMatchObject({ total: 8, done: 8, failed: 0, skipped: 0, aborted: false });
    expect(events.filter((e) => e.event === "done")).toHaveLength(8);
    const { rows } = await readResults(join(ws, "screens/loc/results.jsonl"));
    expect(rows).toHaveLength(8);
    for (const r of rows) {
      expect(r.pass).toBe(r.arm === "policy");
      expect(r.unscorable).toBeUndefined();
      expect(r.cohort).toBe(r.task === "t1" ? "eligible" : "silent");
    }
    // the policy arm's hook really ran and logged the PreToolUse call
    expect(rows.filter((r) => r.arm === "policy").every((r) => r.fired === false)).toBe(true);
    expect(lines(countFile)).toHaveLength(8);
    // the hook ran one-shot: its log was whole when the cell's command ended, so no cell
    // was scored before the hook's last line (a resident evaluator logs just after answering)
    expect(new Set(lines(`${countFile}.env`))).toEqual(new Set(["resident=0"]));

    const s2 = await runLocalScreen(base);
    expect(s2).toMatchObject({ total: 8, done: 8, skipped: 8 });
    expect(lines(countFile)).toHaveLength(8);
  });

  it("flags policy attempts whose hook never ran as unscorable", async () => {
    const ws = await screen("nohook");
    await runLocalScreen({ workspace: ws, name: "nohook", fireBin: FIRE_BIN, template: "true" });
    const { rows } = await readResults(join(ws, "screens/nohook/results.jsonl"));
    expect(rows.filter((r) => r.unscorable)).toHaveLength(4);
    expect(rows.find((r) => r.arm === "policy")?.unscorable).toBe(
      "no hook log: the policy hook never ran",
    );
    expect(rows.find((r) => r.arm === "baseline")?.unscorable).toBeUndefined();
  });

  it("re-runs a provider failure (exit 75) and keeps the first fair result with its lineage", async () => {
    const ws = await screen("flaky");
    // t1 under baseline fails at the provider on its first try, then passes; others pass
    const template =
      "if [ {arm}{task} = baselinet1 ] && [ ! -e {marker}-{replicate} ]; then touch {marker}-{replicate}; exit 75; fi; exit 0";
    await runLocalScreen({
      workspace: ws,
      name: "flaky",
      fireBin: FIRE_BIN,
      template,
      vars: { marker: join(ws, "m") },
    });
    const { rows } = await readResults(join(ws, "screens/flaky/results.jsonl"));
    const t1 = rows.filter((r) => r.arm === "baseline" && r.task === "t1");
    expect(t1).toHaveLength(2);
    for (const r of t1) {
      expect(r.pass).toBe(true);
      expect(r.unscorable).toBeUndefined();
      expect(r.source).toMatch(/-rec1$/);
      expect(r.lineage).toEqual([r.source?.replace(/-rec1$/, "")]);
    }
    const state = JSON.parse(readFileSync(join(ws, "screens/flaky/run-state.json"), "utf8"));
    expect(state.units["r1/baseline/t1"]).toMatchObject({ status: "done", recoveries: 1 });
    // a provider failure every time: unscorable after maxReplacements (2) recoveries
    const ws2 = await screen("down");
    await runLocalScreen({ workspace: ws2, name: "down", fireBin: FIRE_BIN, template: "exit 75" });
    const down = (await readResults(join(ws2, "screens/down/results.jsonl"))).rows;
    expect(down.every((r) => r.unscorable === "provider failure (exit 75)")).toBe(true);
    expect(down[0]?.lineage).toHaveLength(2);
  });

  it("scores a timed-out attempt as a fail", async () => {
    const ws = await screen("slow");
    const s = await runLocalScreen({
      workspace: ws,
      name: "slow",
      fireBin: FIRE_BIN,
      template: "sleep 30",
      timeoutMs: 200,
      concurrency: 8,
    });
    expect(s.done).toBe(8);
    const { rows } = await readResults(join(ws, "screens/slow/results.jsonl"));
    expect(rows.map((r) => r.pass)).toEqual(new Array(8).fill(false));
    for (const r of rows) expect(r.durationS).toBeLessThan(30);
  });

  it("an abort stops running commands, keeps finished cells, and a re-run completes", async () => {
    const ws = await screen("stop");
    const controller = new AbortController();
    const countFile = join(ws, "count.txt");
    const s1 = await runLocalScreen({
      workspace: ws,
      name: "stop",
      fireBin: FIRE_BIN,
      template: "echo x >> {countFile}; case {task}{replicate} in t11) exit 0;; *) sleep 30;; esac",
      vars: { countFile },
      signal: controller.signal,
      onProgress: (p) => {
        if (p.event === "done") controller.abort();
      },
    });
    expect(s1.aborted).toBe(true);
    expect(s1.done).toBe(1);
    const state = JSON.parse(readFileSync(join(ws, "screens/stop/run-state.json"), "utf8"));
    expect(Object.keys(state.units)).toHaveLength(1);
    expect((await readResults(join(ws, "screens/stop/results.jsonl"))).rows).toHaveLength(1);

    const s2 = await runLocalScreen({
      workspace: ws,
      name: "stop",
      fireBin: FIRE_BIN,
      template: "true",
      concurrency: 4,
    });
    expect(s2).toMatchObject({ done: 8, skipped: 1, aborted: false });
    expect((await readResults(join(ws, "screens/stop/results.jsonl"))).rows).toHaveLength(8);
  });
});
