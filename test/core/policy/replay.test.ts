import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Attempt, type Event } from "../../../src/core/model/attempt.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { replayAttempt, replayAttempts } from "../../../src/core/policy/replay.js";
import { loadWorkspace } from "../../../src/core/workspace/load.js";
import { fireIn } from "../../helpers/cli.js";
import { fixture, REPO_ROOT } from "../../helpers/paths.js";
import { bash, events, prompt, result, stop } from "./helpers.js";

const { policies } = loadPolicies([resolve(REPO_ROOT, "candidates/reference")]);

function attempt(taskText: string, evs: Event[]): Attempt {
  return Attempt.parse({
    id: "a1",
    source: { format: "fire-jsonl", path: "mem" },
    taskId: "t1",
    taskText,
    outcome: "fail",
    events: evs,
  });
}

const serviceTask = "Run the API on port 5000 and keep the server running after you finish.";

describe("replayAttempt", () => {
  it("treats the end of a trace without a stop event as a stop (synthetic, index = length)", () => {
    const r = replayAttempt(
      policies,
      attempt(serviceTask, events(bash("flask run --port 5000 &"), bash("curl localhost:5000"))),
    );
    expect(r.syntheticStop).toBe(true);
    expect(r.lastAgentAction).toBe(1);
    expect(r.firings.map((f) => [f.policyId, f.ruleId, f.eventIndex, f.beforeLastAction])).toEqual([
      ["ref-service-persistence", "detach-and-probe", 2, false],
    ]);
    const sp = r.policies.find((p) => p.family === "service-persistence")!;
    expect(sp).toMatchObject({
      eligible: true,
      firings: 1,
      behavior: false,
      matched: "keep the server running",
    });
    expect(r.eligible).toBe(true);
    expect(r.finalState.step).toBe(3);
  });

  it("uses an explicit stop, marks firings before the last agent action, and codes behaviour", () => {
    const evs = events(
      prompt(serviceTask),
      bash("python3 app.py &"),
      stop(),
      bash("setsid nohup python3 app.py > /tmp/a.log 2>&1 < /dev/null &"),
      bash("curl -s localhost:5000/health"),
      stop(),
    );
    const r = replayAttempt(policies, attempt(serviceTask, evs));
    expect(r.syntheticStop).toBe(false);
    expect(r.firings.map((f) => `${f.ruleId}@${f.eventIndex}:${f.beforeLastAction}`)).toEqual([
      "detach-and-probe@2:true",
    ]);
    expect(r.policies.find((p) => p.family === "service-persistence")!.behavior).toBe(true);
  });

  const dbTask = "Recover the deleted rows from the corrupted SQLite database /data/app.db.";
  it("keeps the tracking of calls that ran in the trace, even where the policy would deny", () => {
    // baseline trace: opened first, copied later — behaviour must be false
    const evs = events(
      prompt(dbTask),
      bash("sqlite3 /data/app.db .dump"),
      bash("cp -a /data /bk"),
      bash("sqlite3 /bk/app.db"),
    );
    const r = replayAttempt(policies, attempt(dbTask, evs));
    expect(r.firings.map((f) => `${f.eventIndex}:${f.action}`)).toEqual(["1:deny"]);
    expect(r.policies.find((p) => p.family === "database-evidence")!.behavior).toBe(false);
  });

  it("drops the tracking of a call the trace shows denied by a hook", () => {
    const evs: Event[] = events(
      prompt(dbTask),
      { ...bash("sqlite3 /data/app.db .dump"), callId: "c1" },
      {
        kind: "hook",
        callId: "c1",
        hook: { event: "PreToolUse", decision: "deny", text: "Denied" },
      },
      bash("cp -a /data /bk"),
      bash("sqlite3 /bk/app.db"),
      result("ok"),
    );
    const r = replayAttempt(policies, attempt(dbTask, evs));
    expect(r.firings.map((f) => `${f.eventIndex}:${f.action}`)).toEqual(["1:deny"]);
    expect(r.policies.find((p) => p.family === "database-evidence")!.behavior).toBe(true);
  });

  it("stays silent on the real Harbor fixtures (no family's contract in those tasks)", async () => {
    const ws = await loadWorkspace(mkdtempSync(join(tmpdir(), "fire-replay-")), {
      sources: [fixture("harbor-openclaw")],
    });
    expect(ws.attempts).toHaveLength(15);
    const { attempts, summary } = replayAttempts(policies, ws.attempts);
    expect(attempts.filter((a) => a.eligible)).toHaveLength(0);
    expect(attempts.flatMap((a) => a.firings)).toHaveLength(0);
    expect(summary.map((s) => s.attempts)).toEqual(new Array(8).fill(15));
    // every event was stepped: the final step count is the event count (+1 synthetic stop)
    for (const [i, a] of attempts.entries()) {
      const n = ws.attempts[i]!.events.length;
      expect(a.finalState.step).toBe(a.syntheticStop ? n + 1 : n);
    }
  });
});

describe("fire replay", () => {
  it("prints JSON with attempts, summary and policy errors", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-replay-cli-"));
    const r = await fireIn([
      "replay",
      "--policy",
      resolve(REPO_ROOT, "candidates/reference"),
      "--json",
      "--workspace",
      ws,
      fixture("harbor-openclaw"),
    ]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as {
      attempts: unknown[];
      summary: { family: string }[];
      errors: unknown[];
    };
    expect(out.attempts).toHaveLength(15);
    expect(out.summary.map((s) => s.family)).toContain("database-evidence");
    expect(out.errors).toEqual([]);
  });

  it("fails with file:line when the policy file is bad, and exits 2 without --policy", async () => {
    const bad = await fireIn(["replay", "--policy", resolve(REPO_ROOT, "package.json")]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/package\.json(:\d+)?: .*(id|version|rules)/);
    expect((await fireIn(["replay"])).status).toBe(2);
  });
});
