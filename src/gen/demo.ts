import { join, relative } from "node:path";
import { orientationSteps, prependSteps } from "./bulk.js";
import { CATALOGUE } from "./catalogue/index.js";
import {
  agentForFormat,
  EPOCH_MS,
  pickAgent,
  planFor,
  selectTasks,
  sessionPath,
  type TraceFormat,
} from "./layout.js";
import { Rng } from "./prng.js";
import type { AttemptScript, Cohort, Planted, TaskSpec } from "./types.js";
import { claudeLines } from "./writers/claude.js";
import { codexLines } from "./writers/codex.js";
import { type HarborJob, writeJobFiles, writeTrial } from "./writers/harbor.js";
import { newStats, type WriteStats, writeJson, writeLines } from "./writers/sink.js";

export interface DemoOptions {
  outDir: string;
  seed: number;
  /** Number of tasks (default: the whole catalogue). */
  tasks?: number;
  /** Attempts per task (default 2, the paper's k). */
  attempts?: number;
  formats?: TraceFormat[];
}

/** Where the risky state or the capability evidence sits in a generated trace. */
export interface StepRef {
  /** ATIF step_id (Harbor) or 1-based tool-call ordinal (Claude/Codex sessions). */
  stepId: number;
  /** Tool-call ordinal within the attempt, 1-based, in every format. */
  toolCall: number;
  command: string;
}

export interface ManifestAttempt {
  attemptNo: number;
  format: TraceFormat;
  /** Trial directory (Harbor) or session file, relative to the corpus root. */
  path: string;
  agent: string;
  model: string;
  outcome: "pass" | "fail" | "error" | "timeout";
  reward: number | null;
  planted: Planted;
  preFailure: StepRef | null;
  evidence: StepRef | null;
}

export interface ManifestTask {
  taskId: string;
  family: TaskSpec["family"];
  cohort: Cohort;
  passes: number;
  attempts: number;
  attemptDetails: ManifestAttempt[];
}

export interface Manifest {
  /** Marks this file as fire's generator ground truth (not a trace) for content detection. */
  kind: "fire-gen-manifest";
  generator: string;
  seed: number;
  note: string;
  arm: "baseline";
  tasks: ManifestTask[];
}

function outcomeOf(s: AttemptScript): ManifestAttempt["outcome"] {
  if (s.exception) return s.exception.type === "AgentTimeoutError" ? "timeout" : "error";
  return s.pass ? "pass" : "fail";
}

function ref(s: AttemptScript, i: number | null, stepIds: number[] | null): StepRef | null {
  if (i === null) return null;
  const step = s.steps[i];
  if (!step) return null;
  return { stepId: stepIds ? (stepIds[i] as number) : i + 1, toolCall: i + 1, command: step.cmd };
}

/** Write the demo corpus (Harbor jobs by default) and its ground-truth `manifest.json`. */
export async function writeDemo(
  opts: DemoOptions,
): Promise<{ manifest: Manifest; stats: WriteStats }> {
  const attempts = opts.attempts ?? 2;
  const formats = opts.formats ?? ["harbor"];
  const root = new Rng(opts.seed);
  const stats = newStats();
  const jobs = new Map<string, HarborJob>();
  const tasks = selectTasks(opts.tasks ?? CATALOGUE.length);
  const manifest: Manifest = {
    kind: "fire-gen-manifest",
    generator: "fire src/gen (seeded, synthetic)",
    seed: opts.seed,
    note: "GENERATED, not real agent runs. Ground truth for tests: what each attempt plants and where.",
    arm: "baseline",
    tasks: [],
  };
  let slot = 0;
  for (const [ti, task] of tasks.entries()) {
    const trng = root.fork(task.id);
    const picked = pickAgent(trng);
    const details: ManifestAttempt[] = [];
    for (const [ai, kind] of planFor(task, attempts).entries()) {
      const arng = trng.fork(ai);
      const orient = arng.fork("orient");
      const script = prependSteps(
        task.build(kind, arng.fork("script")),
        orientationSteps(orient, orient.int(0, 2)),
      );
      const format = formats[slot++ % formats.length] as TraceFormat;
      const agent = agentForFormat(format, picked);
      const startMs = EPOCH_MS + ti * 1_260_000 + ai * 95_000 + arng.int(0, 60_000);
      let path: string;
      let stepIds: number[] | null = null;
      if (format === "harbor") {
        const key = `${agent.name}__${agent.model}`;
        let job = jobs.get(key);
        if (!job) {
          const name = `2026-10-12__08-00-00__${key}`;
          job = {
            dir: join(opts.outDir, name),
            name,
            id: root.fork(key).uuid(),
            agent,
            trials: [],
          };
          jobs.set(key, job);
        }
        const info = await writeTrial(
          job,
          task.id,
          task.instruction,
          script,
          agent,
          startMs,
          arng,
          stats,
        );
        job.trials.push(info);
        stepIds = info.stepIds;
        path = relative(opts.outDir, join(job.dir, info.trialName));
      } else {
        const sid = arng.uuid();
        const file = sessionPath(opts.outDir, format, sid, startMs);
        const lines = format === "claude" ? claudeLines : codexLines;
        await writeLines(
          file,
          lines({
            script,
            instruction: task.instruction,
            agent,
            sessionId: sid,
            startMs,
            rng: arng,
          }),
          stats,
        );
        path = relative(opts.outDir, file);
      }
      details.push({
        attemptNo: ai + 1,
        format,
        path: path.split("\\").join("/"),
        agent: agent.name,
        model: agent.model,
        outcome: outcomeOf(script),
        reward:
          script.exception && script.exception.type !== "AgentTimeoutError" ? null : script.reward,
        planted: script.planted,
        preFailure: ref(script, script.preFailure, stepIds),
        evidence: ref(script, script.evidence, stepIds),
      });
    }
    manifest.tasks.push({
      taskId: task.id,
      family: task.family,
      cohort: task.cohort,
      passes: details.filter((d) => d.outcome === "pass").length,
      attempts: details.length,
      attemptDetails: details,
    });
  }
  for (const job of jobs.values()) {
    await writeJobFiles(job, attempts, stats);
  }
  await writeJson(join(opts.outDir, "manifest.json"), manifest, stats);
  return { manifest, stats };
}
