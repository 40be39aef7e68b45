import { createHash } from "node:crypto";
import { join } from "node:path";
import { type AgentProfile, iso } from "../agents.js";
import type { Rng } from "../prng.js";
import type { AttemptScript } from "../types.js";
import { toAtif } from "./atif.js";
import { type WriteStats, writeJson, writeText } from "./sink.js";

/** A Harbor job folder being filled: its trials are summarised by `writeJobFiles`. */
export interface HarborJob {
  dir: string;
  name: string;
  id: string;
  agent: AgentProfile;
  trials: TrialInfo[];
}

export interface TrialInfo {
  trialName: string;
  taskId: string;
  reward: number;
  exceptionType: string | null;
  /** ATIF step_id per script step. */
  stepIds: number[];
  startMs: number;
  endMs: number;
}

/** Harbor's trial directory name: the task name cut to 32 characters, `__`, a 7-char id. */
export function trialName(taskId: string, rng: Rng): string {
  return `${taskId.slice(0, 32)}__${rng.alnum(7)}`;
}

function trialConfig(
  taskId: string,
  name: string,
  jobName: string,
  jobId: string,
  a: AgentProfile,
) {
  return {
    task: {
      path: `datasets/terminal-bench/${taskId}`,
      git_url: null,
      git_commit_id: null,
      overwrite: false,
      download_dir: null,
      source: "terminal-bench",
    },
    trial_name: name,
    trials_dir: `jobs/${jobName}`,
    timeout_multiplier: 1.0,
    agent: {
      name: a.name,
      import_path: null,
      model_name: a.modelName,
      override_timeout_sec: null,
      max_timeout_sec: null,
      kwargs: {},
    },
    environment: { type: "docker", force_build: false, delete: true, env: {}, kwargs: {} },
    verifier: { override_timeout_sec: null, max_timeout_sec: null, disable: false },
    artifacts: [],
    job_id: jobId,
  };
}

/** Write one Harbor trial directory (result, config, ATIF trajectory, verifier files). */
export async function writeTrial(
  job: Pick<HarborJob, "dir" | "name" | "id">,
  taskId: string,
  instruction: string,
  script: AttemptScript,
  agent: AgentProfile,
  startMs: number,
  rng: Rng,
  stats: WriteStats,
): Promise<TrialInfo> {
  const name = trialName(taskId, rng);
  const { dir: jobDir, name: jobName, id: jobId } = job;
  const dir = join(jobDir, name);
  const setupMs = startMs + rng.int(8000, 25000);
  const agentStart = setupMs + rng.int(800, 3000);
  const atif = toAtif({
    script,
    instruction,
    agent,
    sessionId: rng.uuid(),
    startMs: agentStart,
    rng,
  });
  const agentEnd = atif.endMs + rng.int(200, 2000);
  const verifierEnd = agentEnd + rng.int(4000, 40000);
  const config = trialConfig(taskId, name, jobName, jobId, agent);
  const exc = script.exception
    ? {
        exception_type: script.exception.type,
        exception_message: script.exception.message,
        exception_traceback: `Traceback (most recent call last):\n  File "/harbor/src/harbor/trial/trial.py", line 212, in run\n    await self._run_agent()\n${script.exception.type}: ${script.exception.message}\n`,
        occurred_at: iso(agentEnd).replace("Z", ""),
      }
    : null;
  // Harbor still runs the verifier after an agent timeout; other exceptions end the trial.
  const verified = !exc || exc.exception_type === "AgentTimeoutError";
  const id = rng.uuid();
  // Harbor hashes the task's files: every trial of one task carries the same checksum (the
  // draw keeps the generator's random stream as it was)
  rng.hex(64);
  const taskChecksum = createHash("sha256").update(`task:${taskId}`).digest("hex");
  const result = {
    id,
    task_name: taskId,
    trial_name: name,
    trial_uri: `file:///home/runner/harbor/jobs/${jobName}/${name}`,
    task_id: { path: `datasets/terminal-bench/${taskId}` },
    source: "terminal-bench",
    task_checksum: taskChecksum,
    config,
    agent_info: {
      name: agent.name,
      version: agent.version,
      model_info: { name: agent.model, provider: agent.provider },
    },
    agent_result: {
      n_input_tokens: atif.tokens.input,
      n_cache_tokens: atif.tokens.cached,
      n_output_tokens: atif.tokens.output,
      cost_usd: atif.cost,
      rollout_details: null,
      metadata: null,
    },
    verifier_result: verified ? { rewards: { reward: script.reward } } : null,
    exception_info: exc,
    started_at: iso(startMs),
    finished_at: iso(verifierEnd + 300),
    environment_setup: { started_at: iso(startMs + 4), finished_at: iso(setupMs) },
    agent_setup: { started_at: iso(setupMs), finished_at: iso(agentStart) },
    agent_execution: { started_at: iso(agentStart), finished_at: iso(agentEnd) },
    verifier: verified ? { started_at: iso(agentEnd + 120), finished_at: iso(verifierEnd) } : null,
  };
  await writeJson(join(dir, "config.json"), config, stats);
  await writeJson(join(dir, "result.json"), result, stats);
  await writeJson(join(dir, "agent", "trajectory.json"), atif.trajectory, stats);
  if (verified) {
    const reward = script.reward === 1 ? "1" : String(script.reward);
    await writeText(join(dir, "verifier", "reward.txt"), `${reward}\n`, stats);
    await writeText(join(dir, "verifier", "test-stdout.txt"), script.verifierStdout, stats);
  }
  return {
    trialName: name,
    taskId,
    reward: script.reward,
    exceptionType: exc ? exc.exception_type : null,
    stepIds: atif.stepIds,
    startMs,
    endMs: verifierEnd + 300,
  };
}

/** Harbor's job-level `config.json` and `result.json` summarising the trials. */
export async function writeJobFiles(
  job: HarborJob,
  nAttempts: number,
  stats: WriteStats,
): Promise<void> {
  const { dir: jobDir, name: jobName, id: jobId, agent, trials } = job;
  const evalKey = `${agent.name}__${agent.model}__terminal-bench`;
  const rewardStats: Record<string, string[]> = {};
  const exceptionStats: Record<string, string[]> = {};
  const add = (m: Record<string, string[]>, k: string, v: string) => {
    m[k] = [...(m[k] ?? []), v];
  };
  for (const t of trials) {
    if (t.exceptionType) add(exceptionStats, t.exceptionType, t.trialName);
    else add(rewardStats, t.reward.toFixed(1), t.trialName);
  }
  const scored = trials.filter((t) => !t.exceptionType);
  const mean = scored.reduce((s, t) => s + t.reward, 0) / Math.max(1, trials.length);
  const start = Math.min(...trials.map((t) => t.startMs));
  const end = Math.max(...trials.map((t) => t.endMs));
  const config = {
    job_name: jobName,
    jobs_dir: "jobs",
    n_attempts: nAttempts,
    timeout_multiplier: 1.0,
    n_concurrent_trials: 4,
    agents: [{ name: agent.name, model_name: agent.modelName, kwargs: {} }],
    datasets: [{ name: "terminal-bench-like", version: "demo", path: "datasets/terminal-bench" }],
  };
  const errors = trials.length - scored.length;
  const result = {
    id: jobId,
    started_at: iso(start),
    finished_at: iso(end),
    n_total_trials: trials.length,
    stats: {
      n_trials: trials.length,
      n_errors: errors,
      evals: {
        [evalKey]: {
          n_trials: trials.length,
          n_errors: errors,
          metrics: [{ mean: Math.round(mean * 1e4) / 1e4 }],
          reward_stats: { reward: rewardStats },
          exception_stats: exceptionStats,
        },
      },
    },
  };
  await writeJson(join(jobDir, "config.json"), config, stats);
  await writeJson(join(jobDir, "result.json"), result, stats);
}
