import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildHookReport } from "../../src/core/hook-report/report.js";
import { loadPolicies } from "../../src/core/policy/load.js";
import { replayAttempt } from "../../src/core/policy/replay.js";
import { runFire } from "../helpers/cli.js";
import {
  hookEvents,
  hookLog,
  importSessions,
  localInput,
  RECORDED,
} from "../real-clients/cases.js";

/**
 * Escalation and observe mode through the built `fire hook`, fed the stdin the REAL Claude
 * Code and Codex sent in a recorded session (test/fixtures/real-clients), and the same
 * ladder in offline replay of the session each client wrote.
 */
const LADDER = {
  id: "ladder",
  version: 1,
  family: "test",
  title: "escalation ladder",
  chain: { state: "s", intervention: "i", behavior: "b", verifier: "v" },
  eligibility: { anyOf: ["static site"] },
  rules: [
    {
      id: "serve-first",
      at: "tool",
      when: { tool: "^(Bash|exec_command|shell)$" },
      action: "instruct",
      message: "Start the web server before anything else.",
      nudgeLimit: 4,
      escalate: { after: 2, action: "deny", cap: 1 },
    },
    {
      id: "serve-then-stop",
      at: "tool_result",
      action: "instruct",
      message: "Serve the site before you stop.",
      escalate: { after: 1, action: "block", cap: 1 },
    },
  ],
  behavior: { command: "http\\.server" },
};

function portfolio(over: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "fire-ladder-"));
  mkdirSync(join(dir, "p"));
  writeFileSync(join(dir, "p", "ladder.json"), JSON.stringify({ ...LADDER, ...over }));
  return join(dir, "p");
}

const runs = new Map<string, ReturnType<typeof liveRun>>();
/** Feeds a recorded session's stdin to the built hook (once per arguments). */
function live(name: string, policies: string, extra: string[] = []) {
  const key = [name, policies, ...extra].join("\0");
  const r = runs.get(key) ?? liveRun(name, policies, extra);
  runs.set(key, r);
  return r;
}

/** Feeds a recorded session's stdin to the built hook; its answers and its log. */
function liveRun(name: string, policies: string, extra: string[] = []) {
  const dir = join(RECORDED, name);
  const ws = mkdtempSync(join(tmpdir(), "fire-ladder-ws-"));
  const events = hookEvents(dir);
  const outputs = events.map(({ input }) => {
    const r = runFire(["hook", "--portfolio", policies, "--workspace", ws, ...extra], {
      input: JSON.stringify(localInput(dir, input)),
      cwd: ws,
      env: { FIRE_STATE_DIR: "" },
    });
    if (r.status !== 0 || r.stderr) throw new Error(`fire hook: ${r.status} ${r.stderr}`);
    return r.stdout.trim() ? (JSON.parse(r.stdout) as unknown) : null;
  });
  const log = hookLog(join(ws, ".fire/hook-log.jsonl"));
  const decisions = log.flatMap((e, i) =>
    e.firings.map(
      (f) =>
        `${f.point}:${f.ruleId}:${f.action}${f.escalated ? `/${f.escalated}` : ""}@${events[i]?.input.tool_use_id ?? ""}`,
    ),
  );
  return { outputs, log, decisions, ws };
}

async function replayed(name: string, policies: string) {
  const [a] = await importSessions(join(RECORDED, name));
  const r = replayAttempt(loadPolicies([policies]).policies, a!);
  return r.firings
    .filter((f) => !(f.point === "stop" && f.eventIndex === a!.events.length)) // synthetic stop
    .map(
      (f) =>
        `${f.point}:${f.ruleId}:${f.action}${f.escalated ? `/${f.escalated}` : ""}@${a!.events[f.eventIndex]?.callId ?? ""}`,
    );
}

describe.each(["claude-fail-probe", "codex-fail-probe"])("escalation on recorded %s", (name) => {
  const p = portfolio();

  it("instructs, escalates to a deny after two ignored instructions, caps it; replay agrees", async () => {
    const { outputs, decisions } = live(name, p);
    const tool = decisions.filter((d) => d.startsWith("tool:"));
    expect(tool.map((d) => d.split("@")[0])).toEqual([
      "tool:serve-first:instruct",
      "tool:serve-first:instruct",
      "tool:serve-first:deny/deny",
      "tool:serve-first:instruct",
    ]);
    const denied = outputs.filter(
      (o) =>
        (o as { hookSpecificOutput?: { permissionDecision?: string } } | null)?.hookSpecificOutput
          ?.permissionDecision === "deny",
    );
    expect(denied).toHaveLength(1);
    // the first result's instruction is still pending at the stop: the stop is blocked once
    expect(decisions.filter((d) => d.startsWith("stop:"))).toEqual([
      "stop:serve-then-stop:instruct/block@",
    ]);
    expect(await replayed(name, p)).toEqual(decisions);
  });

  it("observe mode answers nothing and logs exactly what enforce answered", () => {
    const enforced = live(name, p);
    const observed = live(name, p, ["--observe"]);
    expect(observed.outputs.every((o) => o === null)).toBe(true);
    expect(observed.log.map((e) => e.observed?.output ?? null)).toEqual(enforced.outputs);
    expect(observed.log.flatMap((e) => e.firings.map((f) => f.mode))).not.toContain(undefined);
    // the report shows both side by side
    const r = buildHookReport([
      { file: "enforce/hook-log.jsonl", entries: enforced.log, errors: [] },
      { file: "observe/hook-log.jsonl", entries: observed.log, errors: [] },
    ]);
    const row = r.rules.find((x) => x.rule === "serve-first")!;
    expect(row.modes).toEqual(["enforce", "observe"]);
    expect(row.enforced).toMatchObject({ firings: 4, denies: 1, escalations: 1 });
    expect(row.observed).toMatchObject({ firings: 4, denies: 1, escalations: 1 });
    expect(row.eligibleSessions).toBe(2);
    expect(row.ignored + row.noSign).toBe(8);
    expect(r.observedAnswers).toBeGreaterThan(0);
  });
});

it("a policy in observe mode beside an enforced one: only the enforced one answers", () => {
  const dir = portfolio({ mode: "observe" });
  const { outputs, log } = live("claude-fail-probe", dir);
  expect(outputs.every((o) => o === null)).toBe(true);
  expect(log.some((e) => e.observed?.verdict.action === "deny")).toBe(true);
});
