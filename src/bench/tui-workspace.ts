import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { serializeAttempt } from "../core/ingest/fire-jsonl.js";
import type { Attempt } from "../core/model/attempt.js";

/** Attempts per generated fire JSONL file (one source unit each). */
const PER_FILE = 500;
/** Attempts per task in the scaled workspace (a benchmark's trials of one task). */
const PER_TASK = 20;

/**
 * A base of real-format attempts (Harbor trials, Claude Code and Codex sessions from the
 * demo generator, a few exploratory steps each), read through the importers once.
 */
export async function baseAttempts(dir: string, attempts: number): Promise<Attempt[]> {
  const { writeCorpus } = await import("../gen/corpus.js");
  const { loadWorkspace } = await import("../core/workspace/load.js");
  const formats = ["harbor", "claude", "codex"] as ("harbor" | "claude" | "codex")[];
  const probe = join(dir, "probe");
  const p = await writeCorpus({
    outDir: join(probe, "traces"),
    seed: 5,
    targetBytes: 4e5,
    formats,
    padSteps: [0, 0],
  });
  const per = p.bytes / p.attempts;
  await rm(probe, { recursive: true, force: true });
  await writeCorpus({
    outDir: join(dir, "traces"),
    seed: 5,
    targetBytes: Math.round(per * attempts),
    formats,
    padSteps: [0, 0],
  });
  await writeFile(join(dir, "fire.config.json"), `${JSON.stringify({ sources: ["traces/"] })}\n`);
  return (await loadWorkspace(dir, { workers: 0 })).attempts;
}

/**
 * Copy `i` of an attempt with the values a real corpus has once per attempt made distinct
 * (start time, duration, tokens, cost): 100,000 real attempts share a model name, not a
 * timestamp, and an index that dedupes values must be measured on that, not on copies.
 */
function distinctValues(a: Attempt, i: number): Attempt {
  const start = a.startedAt ? Date.parse(a.startedAt) : Number.NaN;
  const t = a.tokens;
  return {
    ...a,
    ...(Number.isFinite(start) ? { startedAt: new Date(start + i * 1000).toISOString() } : {}),
    ...(a.durationS !== undefined ? { durationS: a.durationS + (i % 997) / 10 } : {}),
    ...(typeof a.costUsd === "number" ? { costUsd: a.costUsd + i / 1e5 } : {}),
    ...(t
      ? {
          tokens: Object.fromEntries(
            Object.entries(t).map(([k, v]) => [k, (v ?? 0) + (i % 9973)]),
          ) as Attempt["tokens"],
        }
      : {}),
  };
}

/**
 * Writes a workspace of `n` attempts: the base attempts repeated under new ids and task
 * ids (PER_TASK attempts a task) and distinct per-attempt values, in fire JSONL files of PER_FILE attempts, so a 100,000-
 * attempt workspace takes seconds to write rather than the hours of real traces. Returns
 * the workspace folder (not yet read: the caller's first load builds cache and index).
 */
export async function scaledWorkspace(
  dir: string,
  base: readonly Attempt[],
  n: number,
): Promise<string> {
  const traces = join(dir, "traces");
  await mkdir(traces, { recursive: true });
  await writeFile(join(dir, "fire.config.json"), `${JSON.stringify({ sources: ["traces/"] })}\n`);
  for (let start = 0; start < n; start += PER_FILE) {
    const file = join(traces, `attempts-${String(start / PER_FILE).padStart(4, "0")}.jsonl`);
    const out = createWriteStream(file);
    for (let i = start; i < Math.min(n, start + PER_FILE); i++) {
      const a = base[i % base.length]!;
      const group = Math.floor(i / (base.length * PER_TASK));
      const copy: Attempt = {
        ...distinctValues(a, i),
        id: `${a.id}-r${i}`,
        taskId: `${a.taskId}-g${group}`,
        source: { format: a.source.format, path: file },
      };
      if (!out.write(`${serializeAttempt(copy)}\n`)) await once(out, "drain");
    }
    out.end();
    await once(out, "finish");
  }
  return dir;
}
