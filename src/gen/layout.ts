import { join } from "node:path";
import type { AgentProfile } from "./agents.js";
import { AGENTS } from "./agents.js";
import { CATALOGUE } from "./catalogue/index.js";
import type { Rng } from "./prng.js";
import type { AttemptKind, TaskSpec } from "./types.js";

export type TraceFormat = "harbor" | "claude" | "codex";
export const TRACE_FORMATS: readonly TraceFormat[] = ["harbor", "claude", "codex"];

/** Day the generated runs pretend to start (fixed: output depends on the seed only). */
export const EPOCH_MS = Date.UTC(2026, 9, 12, 8, 0, 0);

/** The first `n` tasks of the catalogue, cycling with `-v2`, `-v3` suffixes past its end. */
export function selectTasks(n: number): TaskSpec[] {
  const out: TaskSpec[] = [];
  for (let i = 0; i < n; i++) {
    const base = CATALOGUE[i % CATALOGUE.length] as TaskSpec;
    const round = Math.floor(i / CATALOGUE.length);
    out.push(round === 0 ? base : { ...base, id: `${base.id}-v${round + 1}` });
  }
  return out;
}

/** Attempt kinds for `attempts` attempts: the task's plan, cycled. */
export function planFor(task: TaskSpec, attempts: number): AttemptKind[] {
  return Array.from({ length: attempts }, (_, i) => task.plan[i % task.plan.length] as AttemptKind);
}

export function pickAgent(rng: Rng): AgentProfile {
  return rng.pick(AGENTS);
}

/** Standalone sessions are written by their own harness: Claude Code or Codex. */
export function agentForFormat(format: TraceFormat, picked: AgentProfile): AgentProfile {
  if (format === "harbor") return picked;
  const style = format === "claude" ? "claude" : "codex";
  return AGENTS.find((a) => a.style === style) as AgentProfile;
}

/** Where a standalone session file goes, mirroring each harness's own layout. */
export function sessionPath(
  outDir: string,
  format: "claude" | "codex",
  sessionId: string,
  startMs: number,
): string {
  if (format === "claude")
    return join(outDir, "claude", "projects", "-home-dev-work", `${sessionId}.jsonl`);
  const d = new Date(startMs).toISOString();
  const stamp = d.slice(0, 19).replace(/:/g, "-");
  return join(
    outDir,
    "codex",
    "sessions",
    d.slice(0, 4),
    d.slice(5, 7),
    d.slice(8, 10),
    `rollout-${stamp}-${sessionId}.jsonl`,
  );
}
