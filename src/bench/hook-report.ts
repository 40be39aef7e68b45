import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fieldReport } from "../core/app/hook.js";
import type { HookLogEntry } from "../core/hook-log.js";
import { Rng } from "../gen/prng.js";
import type { Benchmark } from "./types.js";

/** Sessions of generated hook logs the report reads (issue: ≥ 1,000 within 2 s). */
const SESSIONS = 1_000;
const LIMIT_S = 2;

/**
 * `fire hook report` over a folder of generated hook logs: one Harbor-like trial folder per
 * session (`trial-N/agent/fire-hook-log.jsonl`), 20–60 events each, in the log's real format
 * (what run-hook.ts appends: portfolio, eligibility, firings, followed / ignored, observed).
 */
export const hookReportBenchmark: Benchmark = {
  name: "hook-report",
  description: `fire hook report over ${SESSIONS} generated sessions' hook logs (CPU seconds)`,
  async run(log) {
    const dir = mkdtempSync(join(tmpdir(), "fire-bench-hook-report-"));
    try {
      const lines = writeLogs(dir);
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const r = fieldReport({ workspace: dir, paths: [dir] });
      const c = process.cpuUsage(c0);
      const wall = (performance.now() - t0) / 1000;
      // CPU seconds: on this shared 2-core machine the wall time mostly measures the others
      const s = (c.user + c.system) / 1e6;
      if (r.sessions !== SESSIONS || r.errors.length > 0)
        throw new Error(`hook-report bench: ${r.sessions} sessions, ${r.errors.length} errors`);
      log(
        `${SESSIONS} sessions, ${lines} lines, ${r.rules.length} rules: ${s.toFixed(2)} s CPU, ${wall.toFixed(2)} s wall`,
      );
      return [
        {
          target: `hook report over ${SESSIONS} sessions' logs, CPU seconds`,
          measured: Number(s.toFixed(3)),
          limit: LIMIT_S,
          kind: "max",
          note: `${lines} log lines in ${SESSIONS} files; ${wall.toFixed(2)} s wall`,
        },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

const POLICIES = ["guard@1", "probe@2", "serve@1", "tests@3"];
const EVENTS = ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"];

function writeLogs(dir: string): number {
  const rng = new Rng(24);
  const rnd = () => rng.next();
  let total = 0;
  for (let s = 0; s < SESSIONS; s++) {
    const session = `sess-${s}`;
    const eligible = POLICIES.filter(() => rnd() < 0.5);
    const observe = s % 4 === 0;
    const n = 20 + Math.floor(rnd() * 41);
    const lines: string[] = [];
    for (let i = 0; i < n; i++) {
      const event = i === 0 ? EVENTS[0]! : i === n - 1 ? EVENTS[3]! : EVENTS[1 + (i % 2)]!;
      const fires = eligible.length > 0 && rnd() < 0.08;
      const key = eligible[Math.floor(rnd() * eligible.length)] ?? POLICIES[0]!;
      const [policyId, v] = key.split("@") as [string, string];
      const firing = {
        policyId,
        policyVersion: Number(v),
        ruleId: `r${Math.floor(rnd() * 3)}`,
        point: event === "Stop" ? "stop" : event === "PreToolUse" ? "tool" : "tool_result",
        eventIndex: i,
        action: event === "PreToolUse" && rnd() < 0.3 ? "deny" : "instruct",
        message: "Do the registered thing first.",
        ...(observe ? { mode: "observe" } : {}),
      } as HookLogEntry["firings"][number];
      const entry: HookLogEntry = {
        ts: new Date(Date.UTC(2026, 11, 1, 0, 0, i)).toISOString(),
        session,
        harness: s % 2 ? "codex" : "claude",
        event,
        eventIndex: i,
        ...(event === "PreToolUse" ? { tool: "Bash", command: `make step-${i}` } : {}),
        firings: fires ? [firing] : [],
        verdict: { action: "allow" },
        output: null,
        tracked: [],
        policies: POLICIES,
        eligible,
        ...(rnd() < 0.03 ? { followed: [`${key}/r0`] } : {}),
        ...(rnd() < 0.03 ? { ignored: [`${key}/r1`] } : {}),
        ...(rnd() < 0.005 ? { error: "state: EIO" } : {}),
        ms: Math.round((5 + rnd() * 80) * 100) / 100,
      };
      lines.push(JSON.stringify(entry));
    }
    const agent = join(dir, `trial-${s}`, "agent");
    mkdirSync(agent, { recursive: true });
    writeFileSync(join(agent, "fire-hook-log.jsonl"), `${lines.join("\n")}\n`);
    total += lines.length;
  }
  return total;
}
