/**
 * mini-SWE-agent trajectories. The records are minimal, written here in the real shape of
 * mini-SWE-agent 1.x `save_traj` output (`info` with `exit_status` / `submission` /
 * `model_stats` / `mini_version` / `config`, chat `messages`, `trajectory_format:
 * "mini-swe-agent-1"`, `instance_id`) as published in SWE-bench Verified submissions, and
 * SWE-bench harness `report.json` files (`logs/<instance>/report.json`, plain or keyed by
 * the instance id).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { triage } from "../../../src/core/mine/triage.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { type Collected, collect } from "./collect.js";

let root: string;
const write = (path: string, value: unknown) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
};

const TEMPLATE =
  "<pr_description>\nConsider the following PR description:\n{{task}}\n</pr_description>\n\n<instructions>\nFix it.\n</instructions>";
const prompt = (task: string) => TEMPLATE.replace("{{task}}", task);
const say = (thought: string, command?: string) => ({
  role: "assistant",
  content:
    command === undefined ? thought : `THOUGHT: ${thought}\n\n\`\`\`bash\n${command}\n\`\`\``,
  extra: {
    response: {
      id: "gen-1",
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: thought } }],
      usage: {
        prompt_tokens: 1000,
        completion_tokens: 50,
        prompt_tokens_details: { cached_tokens: 400 },
        completion_tokens_details: { reasoning_tokens: 10 },
      },
    },
  },
});
const observe = (rc: number, output: string) => ({
  role: "user",
  content: `<returncode>${rc}</returncode>\n<output>\n${output}\n</output>`,
});
const SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached";

function traj(id: string, messages: unknown[], exit = "Submitted") {
  return {
    info: {
      exit_status: exit,
      submission: "diff --git a/x.py b/x.py\n",
      model_stats: { instance_cost: 0.25, api_calls: 3 },
      mini_version: "1.15.0",
      config: {
        agent: { system_template: "You are a helpful assistant.", instance_template: TEMPLATE },
        model: { model_name: "provider/model-x" },
      },
    },
    messages: [
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: prompt(`Bug in ${id}: x is wrong`) },
      ...messages,
    ],
    trajectory_format: "mini-swe-agent-1",
    instance_id: id,
  };
}
const report = (resolved: boolean, failing: string[] = []) => ({
  patch_is_None: false,
  patch_exists: true,
  patch_successfully_applied: true,
  resolved,
  tests_status: {
    FAIL_TO_PASS: { success: [], failure: failing },
    PASS_TO_PASS: { success: ["tests/test_a.py::test_ok"], failure: [] },
  },
});

let got: Collected;
const byTask = (id: string): Attempt =>
  got.attempts.find((a) => a.taskId === id) ?? (undefined as never);
const calls = (a: Attempt) => a.events.filter((e) => e.kind === "tool_call");
const results = (a: Attempt) => a.events.filter((e) => e.kind === "tool_result");

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fire-mini-swe-"));
  const t = (id: string) => join(root, "trajs", id, `${id}.traj.json`);
  const r = (id: string) => join(root, "logs", id, "report.json");
  write(
    t("proj__proj-1"),
    traj("proj__proj-1", [
      say("Look around.", "ls"),
      observe(0, "setup.py\nproj"),
      say("Run the tests.", "pytest tests/test_a.py"),
      observe(1, "\u001b[31mFAILED\u001b[0m tests/test_a.py::test_x"),
      say("Too many blocks:\n```bash\nls\n```\nand\n```bash\npwd\n```"),
      {
        role: "user",
        content: "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
      },
      say("A long one.", "cat big.log"),
      {
        role: "user",
        content:
          "<returncode>0</returncode>\n<warning>\nThe output of your last command was too long.\n</warning><output_head>\nfirst lines\n</output_head>\n<elided_chars>\n5000 characters elided\n</elided_chars>\n<output_tail>\nlast lines\n</output_tail>",
      },
      say("Slow.", "sleep 999"),
      {
        role: "user",
        content:
          "The last command <command>sleep 999</command> timed out and has been killed.\nThe output of the command was:\n <output>\n\n</output>\nPlease try another command.",
      },
      say("Submit.", SUBMIT),
      { role: "user", content: "diff --git a/x.py b/x.py\n" },
    ]),
  );
  write(r("proj__proj-1"), report(false, ["tests/test_a.py::test_x"]));
  // resolved, with the report keyed by instance id
  write(
    t("proj__proj-2"),
    traj("proj__proj-2", [say("Submit.", SUBMIT), { role: "user", content: "" }]),
  );
  write(r("proj__proj-2"), { "proj__proj-2": report(true) });
  // no report at all: the verdict is unknown
  write(t("proj__proj-3"), traj("proj__proj-3", [say("Stop.", SUBMIT)], "LimitsExceeded"));
  // a cut-off trajectory file
  write(
    join(root, "trajs", "proj__proj-4", "proj__proj-4.traj.json"),
    '{\n  "info": {\n    "exit_status": "Submitted",\n    "mini_version": "1.1',
  );
  got = await collect([root]);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("mini-SWE-agent trajectory importer", () => {
  it("detects trajectories by shape and reads each report with its trajectory, not alone", () => {
    const formats = got.units.map((u) => u.format);
    expect(formats.every((f) => f === "mini-swe-agent")).toBe(true);
    expect(got.attempts.map((a) => a.taskId).sort()).toEqual([
      "proj__proj-1",
      "proj__proj-2",
      "proj__proj-3",
    ]);
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]).toMatch(/proj__proj-4\.traj\.json:4: invalid JSON/);
  });

  it("takes one bash block per message as the action and the next message as its result", () => {
    const a = byTask("proj__proj-1");
    expect(calls(a).map((e) => e.command)).toEqual([
      "ls",
      "pytest tests/test_a.py",
      "ls",
      "pwd",
      "cat big.log",
      "sleep 999",
      SUBMIT,
    ]);
    const res = results(a);
    expect(res.map((e) => e.exitCode)).toEqual([
      0,
      1,
      undefined,
      undefined,
      0,
      undefined,
      undefined,
    ]);
    expect(res[1]?.output).toBe("FAILED tests/test_a.py::test_x");
    expect(res[4]?.output).toBe("first lines\n[… 5000 characters elided …]\nlast lines");
    expect(res[5]?.isError).toBe(true);
    // the reply with two blocks ran neither: each is a call whose result is the harness's
    // refusal (as Harbor's converter records such a reply), and the refusal is no message too
    for (const r of [res[2], res[3]]) {
      expect(r?.isError).toBe(true);
      expect(r?.output).toMatch(/^Please always provide EXACTLY ONE action/);
    }
    expect(a.events.some((e) => e.kind === "message" && /EXACTLY ONE/.test(e.input ?? ""))).toBe(
      false,
    );
    expect(a.events.at(-1)?.kind).toBe("stop");
  });

  it("keeps a reply of several blocks that was not refused as a message, with no call", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fire-mini-swe-many-"));
    try {
      const id = "proj__proj-9";
      write(
        join(dir, "trajs", id, `${id}.traj.json`),
        traj(id, [
          say("Two ways:\n```bash\nls\n```\nor\n```bash\npwd\n```"),
          { role: "user", content: "Go on." },
          say("Submit.", SUBMIT),
          { role: "user", content: "" },
        ]),
      );
      const one = await collect([dir]);
      const b = one.attempts[0] ?? (undefined as never);
      expect(calls(b).map((e) => e.command)).toEqual([SUBMIT]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("cuts the task out of the instance template, and keeps tokens, cost and model", () => {
    const a = byTask("proj__proj-1");
    expect(a.taskText).toBe("Bug in proj__proj-1: x is wrong");
    expect(a.model).toBe("provider/model-x");
    expect(a.costUsd).toBe(0.25);
    expect(a.tokens).toEqual({ input: 6000, output: 300, cached: 2400, reasoning: 60 });
  });

  it("takes the outcome and failing tests from report.json; no report is unknown", () => {
    const a = byTask("proj__proj-1");
    expect(a.outcome).toBe("fail");
    expect(a.verifierOutput).toContain("FAIL_TO_PASS failed: tests/test_a.py::test_x");
    expect(a.verifierSource?.file).toBe(join(root, "logs", "proj__proj-1", "report.json"));
    // the graded groups as test results, each with what the grader wants of it
    expect(a.verifierTests?.map((t) => `${t.role}:${t.status}:${t.name}`).sort()).toEqual([
      "regression:passed:tests/test_a.py::test_ok",
      "target:failed:tests/test_a.py::test_x",
    ]);
    expect(byTask("proj__proj-2").outcome).toBe("pass");
    const c = byTask("proj__proj-3");
    expect(c.outcome).toBe("unknown");
    expect(c.exception).toEqual({ type: "LimitsExceeded", message: "mini-SWE-agent exit status" });
    const tasks = triage(got.attempts).tasks;
    expect(tasks.find((x) => x.taskId === "proj__proj-3")?.n).toBe(0);
  });
});

describe("a SWE-bench report paired with its trajectory", () => {
  it("is claimed only while a trajectory pairs with it, one added later included", async () => {
    const run = mkdtempSync(join(tmpdir(), "fire-mini-swe-pair-"));
    try {
      // a run's evaluation logs for many instances, the trajectories of none yet
      for (let i = 0; i < 30; i++)
        write(join(run, "logs", `proj__proj-${i}`, "report.json"), report(i % 2 === 0));
      const units = async () => (await collect([run])).units.map((u) => u.path).sort();
      expect(await units()).toEqual([]);
      // a trajectory beside the logs (`trajs/<instance>/`): its report is now claimed too
      write(
        join(run, "trajs", "proj__proj-7", "proj__proj-7.traj.json"),
        traj("proj__proj-7", [say("Submit.", SUBMIT), { role: "user", content: "" }]),
      );
      expect(await units()).toEqual([
        join(run, "logs", "proj__proj-7", "report.json"),
        join(run, "trajs", "proj__proj-7", "proj__proj-7.traj.json"),
      ]);
    } finally {
      rmSync(run, { recursive: true, force: true });
    }
  });
});

describe("the SWE-bench harness's run summary beside a mini-SWE-agent run", () => {
  it("grades the instances it lists; preds.json and the summary load as side files", async () => {
    // mini-SWE-agent's batch layout (`<run>/<instance>/<instance>.traj.json`, `preds.json`)
    // with the harness's `<model>.<run_id>.json` written beside it, and no report.json
    const run = mkdtempSync(join(tmpdir(), "fire-mini-swe-summary-"));
    try {
      const ids = ["proj__proj-1", "proj__proj-2", "proj__proj-3"];
      for (const id of ids)
        write(
          join(run, id, `${id}.traj.json`),
          traj(id, [say("Submit.", SUBMIT), { role: "user", content: "diff --git a/x b/x\n" }]),
        );
      write(
        join(run, "preds.json"),
        Object.fromEntries(
          ids.map((id) => [
            id,
            { model_name_or_path: "model-x", instance_id: id, model_patch: "diff --git" },
          ]),
        ),
      );
      write(join(run, "model-x.run-1.json"), {
        total_instances: 300,
        submitted_instances: 3,
        resolved_ids: ["proj__proj-1"],
        unresolved_ids: ["proj__proj-2"],
        incomplete_ids: ["proj__proj-3"],
        schema_version: 2,
      });
      const r = await collect([run]);
      expect(r.errors).toEqual([]);
      const outcome = (id: string) => r.attempts.find((a) => a.taskId === id)?.outcome;
      expect(ids.map(outcome)).toEqual(["pass", "fail", "unknown"]);
      const failed = r.attempts.find((a) => a.taskId === "proj__proj-2");
      expect(failed?.verifierOutput).toMatch(/lists the instance in: unresolved_ids/);
      expect(failed?.verifierSource?.file).toBe(join(run, "model-x.run-1.json"));
    } finally {
      rmSync(run, { recursive: true, force: true });
    }
  });
});
