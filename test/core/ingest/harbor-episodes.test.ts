/**
 * Harbor trials whose agent left no ATIF trajectory, only per-episode API logs
 * (`agent/episodes/episode-N/{request,response,tool-results}.json`). The records are
 * minimal, written here in the real wire shapes: Anthropic Messages API responses
 * (content blocks `text` / `tool_use`, `usage` with `input_tokens`, OpenRouter's `cost`)
 * with `tool_result` blocks whose text starts `[exit_code=N]` (the shape of the public
 * kill-terminalbench Harbor agent's logs), and OpenAI Chat Completions responses
 * (`choices[].message.tool_calls`) with `role: "tool"` results.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { triage } from "../../../src/core/mine/triage.js";
import { type Attempt, UNFINISHED_TRIAL } from "../../../src/core/model/attempt.js";
import { type Collected, collect } from "./collect.js";

let root: string;
const write = (path: string, value: unknown) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
};

const TASK = "Task:\nCreate /app/out.html that triggers an alert.\n";
const request = (extra: unknown[] = []) => ({
  system: "You are solving a task in a Linux environment.",
  tools: [{ name: "bash", input_schema: { type: "object" } }],
  messages: [{ role: "user", content: TASK }, ...extra],
  model: "anthropic/claude-opus-4.6",
});
const usage = (input: number, output: number, cost: number) => ({
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  input_tokens: input,
  output_tokens: output,
  cost,
});
const anthropic = (content: unknown[], stop: string, u: unknown) => ({
  id: "gen-1",
  container: null,
  content,
  model: "anthropic/claude-4.6-opus-20260205",
  role: "assistant",
  stop_reason: stop,
  stop_sequence: null,
  type: "message",
  usage: u,
});
const toolUse = (id: string, command: string) => ({
  id,
  caller: { type: "direct" },
  input: { command },
  name: "bash",
  type: "tool_use",
});
const toolResult = (id: string, content: string) => ({
  type: "tool_result",
  tool_use_id: id,
  content,
});

function result(trial: string, reward: number | null, exception?: string) {
  return {
    id: `id-${trial}`,
    task_name: "make-page",
    trial_name: trial,
    config: { task: { path: "make-page" }, agent: { model_name: "anthropic/claude-opus-4.6" } },
    agent_info: { name: "custom-agent", model_info: { name: "claude-opus-4.6" } },
    agent_result: {
      n_input_tokens: null,
      n_cache_tokens: null,
      n_output_tokens: null,
      cost_usd: null,
    },
    verifier_result: reward === null ? null : { rewards: { reward } },
    exception_info: exception
      ? { exception_type: exception, exception_message: "Command timed out after 300 seconds" }
      : null,
  };
}

/** An Anthropic-logging trial: two tool episodes, then a final answer with no tool call. */
function anthropicTrial(dir: string, trial: string, reward: number | null): void {
  const ep = (n: number) => join(dir, "agent", "episodes", `episode-${n}`);
  write(join(ep(0), "request.json"), request());
  write(
    join(ep(0), "response.json"),
    anthropic(
      [
        { citations: null, text: "Let me look.", type: "text" },
        toolUse("t1", "cat /app/filter.py"),
      ],
      "tool_use",
      usage(800, 100, 0.01),
    ),
  );
  write(join(ep(0), "tool-results.json"), [toolResult("t1", "[exit_code=0]\n\nimport sys\n")]);
  write(
    join(ep(1), "request.json"),
    request([{ role: "assistant", content: ["ToolUseBlock(...)"] }]),
  );
  write(
    join(ep(1), "response.json"),
    anthropic([toolUse("t2", "python3 /app/test_outputs.py")], "tool_use", usage(900, 50, 0.02)),
  );
  write(join(ep(1), "tool-results.json"), [
    toolResult("t2", "[exit_code=1; note=command failed]\nAssertionError: no alert"),
  ]);
  write(join(ep(2), "request.json"), request());
  write(
    join(ep(2), "response.json"),
    anthropic([{ text: "Done.", type: "text" }], "end_turn", usage(1000, 10, 0.005)),
  );
  write(join(dir, "config.json"), { trial_name: trial, task: { path: "make-page" } });
  if (reward !== undefined) write(join(dir, "result.json"), result(trial, reward));
}

let got: Collected;
const byTrial = (name: string): Attempt =>
  got.attempts.find((a) => a.source.path.endsWith(name)) ?? (undefined as never);
const calls = (a: Attempt) => a.events.filter((e) => e.kind === "tool_call");
const results = (a: Attempt) => a.events.filter((e) => e.kind === "tool_result");

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fire-harbor-episodes-"));
  anthropicTrial(join(root, "make-page__aaa"), "make-page__aaa", 0);

  // OpenAI Chat Completions logs, tool results as role "tool" messages; a pass.
  const o = join(root, "make-page__bbb");
  const oep = (n: number) => join(o, "agent", "episodes", `episode-${n}`);
  write(join(oep(0), "request.json"), {
    model: "gpt-x",
    messages: [
      { role: "system", content: "sys" },
      { role: "user", content: [{ type: "text", text: TASK }] },
    ],
  });
  write(join(oep(0), "response.json"), {
    id: "chatcmpl-1",
    object: "chat.completion",
    model: "gpt-x",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "c1",
              type: "function",
              function: { name: "bash", arguments: '{"command":"ls /app"}' },
            },
          ],
        },
      },
    ],
    usage: {
      prompt_tokens: 500,
      completion_tokens: 20,
      prompt_tokens_details: { cached_tokens: 100 },
    },
  });
  write(join(oep(0), "tool-results.json"), [
    { role: "tool", tool_call_id: "c1", content: "[exit_code=0]\nfilter.py" },
  ]);
  write(join(o, "result.json"), result("make-page__bbb", 1));

  // No result.json: its job was stopped. config.json and the logs remain.
  anthropicTrial(join(root, "make-page__ccc"), "make-page__ccc", null);
  rmSync(join(root, "make-page__ccc", "result.json"));

  // A malformed episode file: reported with file:line, the other episodes still load.
  const bad = join(root, "make-page__ddd");
  anthropicTrial(bad, "make-page__ddd", 0);
  writeFileSync(
    join(bad, "agent", "episodes", "episode-1", "response.json"),
    '{\n  "content": [\n    {"type": "text", "text": "x"},,\n  ]\n}\n',
  );

  got = await collect([root]);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("Harbor trial with per-episode API logs instead of a trajectory", () => {
  it("detects every trial folder as a harbor-trial unit, the unfinished one too", () => {
    expect(got.units.map((u) => u.format)).toEqual([
      "harbor-trial",
      "harbor-trial",
      "harbor-trial",
      "harbor-trial",
    ]);
    expect(got.attempts).toHaveLength(4);
  });

  it("reads Anthropic tool_use calls, their results and [exit_code=N] in episode order", () => {
    const a = byTrial("make-page__aaa");
    expect(calls(a).map((e) => e.command)).toEqual([
      "cat /app/filter.py",
      "python3 /app/test_outputs.py",
    ]);
    expect(results(a).map((e) => [e.callId, e.exitCode])).toEqual([
      ["t1", 0],
      ["t2", 1],
    ]);
    expect(a.taskText).toBe(TASK.trim());
    expect(a.events[0]).toMatchObject({ kind: "prompt", input: TASK.trim() });
    expect(a.events.at(-1)?.kind).toBe("stop");
    expect(a.outcome).toBe("fail");
    expect(a.tokens).toEqual({ input: 2700, output: 160, cached: 0, cacheWrite: 0 });
    expect(a.costUsd).toBeCloseTo(0.035);
  });

  it("keeps the last response's stop reason, usage and tool calls as how the run ended", () => {
    const a = byTrial("make-page__aaa");
    const done = a.events.find((e) => e.kind === "message" && e.input === "Done.");
    expect(a.agentEnd).toMatchObject({
      stopReason: "end_turn",
      promptTokens: 1000,
      outputTokens: 10,
      toolCalls: 0,
      meteredTurns: 2,
      eventIndex: done?.index,
      file: expect.stringMatching(/make-page__aaa\/agent\/episodes\/episode-2\/response\.json$/),
    });
    // an OpenAI-shaped log: finish_reason and its single turn's call
    expect(byTrial("make-page__bbb").agentEnd).toMatchObject({
      stopReason: "tool_calls",
      toolCalls: 1,
      meteredTurns: 0,
    });
  });

  it("reads OpenAI tool_calls with string arguments and role:tool results", () => {
    const a = byTrial("make-page__bbb");
    expect(calls(a).map((e) => e.command)).toEqual(["ls /app"]);
    expect(results(a)[0]).toMatchObject({ callId: "c1", exitCode: 0, tool: "bash" });
    expect(a.outcome).toBe("pass");
    expect(a.taskText).toBe(TASK.trim());
    expect(a.tokens).toMatchObject({ input: 500, output: 20, cached: 100 });
  });

  it("imports a trial without result.json as outcome unknown, with a note, outside k/n", () => {
    const a = byTrial("make-page__ccc");
    expect(a.outcome).toBe("unknown");
    expect(a.taskId).toBe("make-page");
    expect(calls(a)).toHaveLength(2);
    expect(got.errors).toContainEqual(
      expect.stringMatching(/make-page__ccc\/result\.json: missing: the trial did not finish/),
    );
    const tr = triage(got.attempts);
    const t = tr.tasks.find((x) => x.taskId === "make-page");
    expect(t).toMatchObject({ passes: 1, n: 3 });
    expect(t?.attemptIds).toHaveLength(4);
    // it never ended: the harness recorded no result, a harness fault (not "no outcome")
    expect(a.exception).toMatchObject({ type: UNFINISHED_TRIAL });
    expect(tr.exclusions.find((x) => x.attemptId === a.id)).toMatchObject({
      reason: "provider_fault",
      detail: expect.stringMatching(/never ended/),
    });
  });

  it("reports a malformed episode file with its line and still loads the others", () => {
    expect(got.errors).toContainEqual(
      expect.stringMatching(/make-page__ddd\/agent\/episodes\/episode-1\/response\.json:3: /),
    );
    const a = byTrial("make-page__ddd");
    expect(calls(a).map((e) => e.command)).toEqual(["cat /app/filter.py"]);
    expect(a.events.at(-1)?.kind).toBe("stop");
    expect(got.errors).toHaveLength(2);
  });
});
