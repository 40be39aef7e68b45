import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  harborProgressText,
  harborRunProgress,
  readHarborJobProgress,
} from "../../../src/core/screening/run/harbor-progress.js";

/**
 * A job's result.json as Harbor writes it (models/job/result.py JobResult, dumped with
 * indent=4, trial_results left out while the job runs), and the older form with
 * `n_trials` / `n_errors` that real job folders still carry.
 */
const running = {
  id: "3e3ccd1b-8650-49e0-8717-252d6be94011",
  started_at: "2026-04-16T00:21:32.870493",
  updated_at: "2026-04-16T00:40:01.120000",
  finished_at: null,
  n_total_trials: 87,
  stats: {
    n_completed_trials: 40,
    n_errored_trials: 3,
    n_running_trials: 8,
    n_pending_trials: 39,
    n_cancelled_trials: 0,
    n_retries: 1,
    evals: { "claude-code__claude-opus__terminal-bench": { n_trials: 37, n_errors: 3 } },
    n_input_tokens: 5_200_000,
    n_cache_tokens: 4_100_000,
    n_output_tokens: 61_000,
    cost_usd: 12.5,
  },
};
const legacy = {
  id: "3e3ccd1b-8650-49e0-8717-252d6be94011",
  started_at: "2026-04-16T00:21:32.870493",
  finished_at: "2026-04-16T01:21:35.970901",
  n_total_trials: 89,
  stats: { n_trials: 89, n_errors: 20, evals: {} },
};

function jobsDir(jobs: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "fire-harbor-progress-"));
  for (const [name, body] of Object.entries(jobs)) {
    mkdirSync(join(dir, name));
    writeFileSync(
      join(dir, name, "result.json"),
      typeof body === "string" ? body : JSON.stringify(body, null, 4),
    );
  }
  return dir;
}

describe("Harbor's job result.json: cost and progress", () => {
  it("reads a running job's counts, tokens and cost, and fire's job name", () => {
    const dir = jobsDir({ "r2-sham-rec1": running });
    const p = readHarborJobProgress(join(dir, "r2-sham-rec1"), "r2-sham-rec1");
    expect(p).toEqual({
      job: "r2-sham-rec1",
      arm: "sham",
      replicate: 2,
      recovery: 1,
      total: 87,
      completed: 40,
      errored: 3,
      running: 8,
      pending: 39,
      finished: false,
      costUsd: 12.5,
      tokens: { input: 5_200_000, cache: 4_100_000, output: 61_000 },
    });
    expect(harborProgressText(p!)).toBe("40/87 trial(s), 3 errored, 8 running, $12.50");
  });

  it("reads the older n_trials / n_errors form; no cost reported stays unknown, not $0", () => {
    const dir = jobsDir({ "r1-policy": legacy });
    const p = readHarborJobProgress(join(dir, "r1-policy"), "r1-policy");
    expect(p).toMatchObject({ completed: 89, errored: 20, pending: 0, finished: true });
    expect(p?.costUsd).toBeUndefined();
    const all = harborRunProgress(dir);
    expect(all.costUsd).toBeUndefined();
    expect(all.jobsWithoutCost).toBe(1);
    expect(harborProgressText(all)).toBe("89/89 trial(s), 20 errored");
  });

  it("sums every job, recovery runs included, and per arm; no result.json yet: left out", () => {
    const dir = jobsDir({ "r1-policy": running, "r1-policy-rec1": legacy, "r1-baseline": running });
    mkdirSync(join(dir, "r2-policy")); // started, Harbor has not written its result yet
    const all = harborRunProgress(dir);
    expect(all.jobs).toBe(3);
    expect(all.completed).toBe(40 + 89 + 40);
    expect(all.costUsd).toBe(25);
    expect(all.jobsWithoutCost).toBe(1);
    expect(all.byArm.policy).toMatchObject({ jobs: 2, completed: 129, costUsd: 12.5 });
    expect(all.byArm.baseline).toMatchObject({ jobs: 1, completed: 40, costUsd: 12.5 });
    expect(all.errors).toEqual([]);
  });

  it("a file that is not Harbor's names its file and line, and stays out of the sums", () => {
    const bad = JSON.stringify(
      { ...running, stats: { ...running.stats, cost_usd: "twelve" } },
      null,
      4,
    );
    const line = bad.split("\n").findIndex((l) => l.includes('"cost_usd"')) + 1;
    const dir = jobsDir({ "r1-policy": bad, "r1-baseline": running, "r1-sham": '{"stats": {' });
    const all = harborRunProgress(dir);
    expect(all.jobs).toBe(1);
    const messages = all.errors.map((e) => e.format());
    expect(messages).toContainEqual(
      expect.stringMatching(
        new RegExp(`r1-policy/result\\.json:${line}: not a Harbor job result: stats\\.cost_usd: `),
      ),
    );
    expect(messages).toContainEqual(expect.stringMatching(/r1-sham\/result\.json:1: invalid JSON/));
  });
});
