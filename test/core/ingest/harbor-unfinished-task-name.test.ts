/**
 * A Harbor job stopped while some trials ran. Newer Harbor names a task by its `task.toml`
 * (`[task] name = "org/name"`) in a finished trial's `result.json`, while an unfinished
 * trial keeps only `config.json`, whose task is the folder it ran (`task.path`). The
 * unfinished trial must land on the same task as its finished siblings, not a task row of
 * its own. Records are written in Harbor's shapes (`models/trial/{config,result}.py`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { triage } from "../../../src/core/mine/triage.js";
import { type Collected, collect } from "./collect.js";

let root: string;
const write = (path: string, value: unknown) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, JSON.stringify(value, null, 2));
};

const config = (trial: string, folder: string) => ({
  trial_name: trial,
  task: { path: `/home/u/tasks/${folder}` },
  agent: { name: "claude-code", model_name: "anthropic/claude-sonnet-4-5" },
});

function finished(job: string, trial: string, folder: string, name: string, reward: number) {
  const dir = join(job, trial);
  write(join(dir, "config.json"), config(trial, folder));
  mkdirSync(join(dir, "agent"), { recursive: true });
  write(join(dir, "result.json"), {
    id: `id-${trial}`,
    task_name: name,
    trial_name: trial,
    config: config(trial, folder),
    agent_info: { name: "claude-code", model_info: { name: "claude-sonnet-4-5" } },
    verifier_result: { rewards: { reward } },
    exception_info: null,
  });
}

function unfinished(job: string, trial: string, folder: string) {
  const dir = join(job, trial);
  write(join(dir, "config.json"), config(trial, folder));
  mkdirSync(join(dir, "agent"), { recursive: true });
}

let got: Collected;
const byTrial = (name: string) => got.attempts.find((a) => a.source.path.endsWith(name));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fire-harbor-unfinished-"));
  const job = join(root, "2026-05-01__10-00-00");
  write(join(job, "result.json"), { id: "job-1", started_at: "2026-05-01T10:00:00Z" });
  finished(job, "fix-git__aaa1111", "fix-git", "terminal-bench/fix-git", 1);
  finished(job, "fix-git__bbb2222", "fix-git", "terminal-bench/fix-git", 0);
  unfinished(job, "fix-git__ccc3333", "fix-git");
  // a folder name two finished trials name differently says nothing about a third
  finished(job, "build__ddd4444", "build", "org-a/build", 1);
  finished(job, "build__eee5555", "build", "org-b/build", 0);
  unfinished(job, "build__fff6666", "build");
  // a task whose folder is its name
  finished(job, "plain__ggg7777", "plain", "plain", 0);
  unfinished(job, "plain__hhh8888", "plain");
  got = await collect([root]);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("an unfinished trial of a job takes the task name its finished siblings record", () => {
  it("names the unfinished trial of an org/name task as the finished ones do", () => {
    expect(got.units.map((u) => u.format)).toEqual(["harbor-job"]);
    expect(byTrial("fix-git__ccc3333")).toMatchObject({
      taskId: "terminal-bench/fix-git",
      outcome: "unknown",
    });
    expect(byTrial("plain__hhh8888")?.taskId).toBe("plain");
  });

  it("keeps the folder name where finished trials disagree on the task's name", () => {
    expect(byTrial("build__fff6666")?.taskId).toBe("build");
  });

  it("leaves k/n as the finished trials make it, with no task row for the folder name", () => {
    const tr = triage(got.attempts);
    expect(tr.tasks.find((t) => t.taskId === "terminal-bench/fix-git")).toMatchObject({
      passes: 1,
      n: 2,
    });
    expect(tr.tasks.find((t) => t.taskId === "terminal-bench/fix-git")?.attemptIds).toHaveLength(3);
    expect(tr.tasks.some((t) => t.taskId === "fix-git")).toBe(false);
  });
});
