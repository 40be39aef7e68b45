import { join } from "node:path";
import { padScript } from "./bulk.js";
import { CATALOGUE } from "./catalogue/index.js";
import {
  agentForFormat,
  EPOCH_MS,
  pickAgent,
  planFor,
  sessionPath,
  type TraceFormat,
} from "./layout.js";
import { Rng } from "./prng.js";
import type { TaskSpec } from "./types.js";
import { claudeLines } from "./writers/claude.js";
import { codexLines } from "./writers/codex.js";
import { type HarborJob, writeJobFiles, writeTrial } from "./writers/harbor.js";
import { newStats, writeLines } from "./writers/sink.js";

export interface CorpusOptions {
  outDir: string;
  seed: number;
  /** Stop once at least this many bytes are written. */
  targetBytes: number;
  formats: TraceFormat[];
  /** Attempts per task (default 2). */
  attemptsPerTask?: number;
  /** Bounds of the exploratory steps added to each attempt (default 2–24). */
  padSteps?: [number, number];
  onProgress?: (p: { bytes: number; attempts: number }) => void;
  signal?: AbortSignal;
}

export interface CorpusResult {
  files: number;
  bytes: number;
  attempts: number;
}

const TRIALS_PER_JOB = 200;

/**
 * Write a large mixed corpus (Harbor jobs with ATIF trajectories, Claude Code transcripts,
 * Codex rollouts) for benchmarks. Files are written one at a time and JSONL is streamed line
 * by line, so memory stays flat whatever `targetBytes` is. Same options → same bytes.
 */
export async function writeCorpus(opts: CorpusOptions): Promise<CorpusResult> {
  if (opts.formats.length === 0) throw new Error("writeCorpus: formats must not be empty");
  const attemptsPerTask = opts.attemptsPerTask ?? 2;
  const root = new Rng(opts.seed);
  const stats = newStats();
  let attempts = 0;
  let jobNo = 0;
  let job: HarborJob | null = null;
  const closeJob = async () => {
    if (job && job.trials.length > 0) {
      await writeJobFiles(job, attemptsPerTask, stats);
    }
    job = null;
  };
  for (let i = 0; stats.bytes < opts.targetBytes; i++) {
    opts.signal?.throwIfAborted();
    const base = CATALOGUE[i % CATALOGUE.length] as TaskSpec;
    const taskId =
      i < CATALOGUE.length ? base.id : `${base.id}-${Math.floor(i / CATALOGUE.length) + 1}`;
    const trng = root.fork(`task-${i}`);
    const format = opts.formats[i % opts.formats.length] as TraceFormat;
    const agent = agentForFormat(format, pickAgent(trng));
    for (const [ai, kind] of planFor(base, attemptsPerTask).entries()) {
      const arng = trng.fork(ai);
      const script = padScript(
        base.build(kind, arng.fork("script")),
        arng.fork("pad"),
        arng.int(...(opts.padSteps ?? [2, 24])),
      );
      const startMs = EPOCH_MS + i * 600_000 + ai * 90_000 + arng.int(0, 60_000);
      if (format === "harbor") {
        if (!job || job.trials.length >= TRIALS_PER_JOB || job.agent !== agent) {
          await closeJob();
          const name: string = `job-${String(jobNo++).padStart(4, "0")}__${agent.name}`;
          job = {
            dir: join(opts.outDir, "harbor", name),
            name,
            id: trng.uuid(),
            agent,
            trials: [],
          };
        }
        const current = job as HarborJob;
        current.trials.push(
          await writeTrial(current, taskId, base.instruction, script, agent, startMs, arng, stats),
        );
      } else {
        const sid = arng.uuid();
        const lines = format === "claude" ? claudeLines : codexLines;
        await writeLines(
          sessionPath(opts.outDir, format, sid, startMs),
          lines({
            script,
            instruction: base.instruction,
            agent,
            sessionId: sid,
            startMs,
            rng: arng,
          }),
          stats,
        );
      }
      attempts += 1;
    }
    opts.onProgress?.({ bytes: stats.bytes, attempts });
  }
  await closeJob();
  return { files: stats.files, bytes: stats.bytes, attempts };
}
