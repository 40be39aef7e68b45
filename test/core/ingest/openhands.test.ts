/**
 * OpenHands SWE-bench evaluation output. The real fixture (test/fixtures/openhands-swebench,
 * see its README) is two instances of a published run, laid out one folder per instance with
 * the run's metadata and summary beside them; the same files are also arranged here the way
 * the run publishes them (one run folder). The `output.jsonl` records are minimal, written in
 * the shape OpenHands' evaluation writes (`instance_id`, `instruction`, `history` of
 * serialized events with `action`/`args` or `observation`/`content`/`extras`/`cause`,
 * `report`, `metrics`), since the sample has none.
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePyLiteral } from "../../../src/core/ingest/py-literal.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { byTask, type Collected, collect } from "./collect.js";

const FIXTURE = join(import.meta.dirname, "../../fixtures/openhands-swebench");
const DJ = "django__django-11141";
const AP = "astropy__astropy-13033";

const calls = (a: Attempt) => a.events.filter((e) => e.kind === "tool_call");
const results = (a: Attempt) => a.events.filter((e) => e.kind === "tool_result");
const failing = (a: Attempt) =>
  (a.verifierTests ?? []).filter((t) => t.status === "failed").map((t) => [t.name, t.role]);

let tmp: string;
let sample: Collected;
let published: Collected;
let synthetic: Collected;

const write = (path: string, text: string) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
};

/** Copy a fixture instance's files into a run folder laid out as OpenHands publishes it. */
function intoRun(run: string, id: string): void {
  for (const sub of ["infer_logs", "output.swebench_eval.logs", `llm_completions/${id}`]) {
    const from = join(FIXTURE, id, sub);
    mkdirSync(join(run, sub), { recursive: true });
    for (const f of readdirSync(from)) copyFileSync(join(from, f), join(run, sub, f));
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "fire-openhands-"));
  sample = await collect([FIXTURE]);

  const run = join(tmp, "published", "run_1");
  intoRun(run, DJ);
  intoRun(run, AP);
  for (const f of ["metadata.json", "output.swebench_eval.md"])
    copyFileSync(join(FIXTURE, "_run", f), join(run, f));
  published = await collect([join(tmp, "published")]);

  // a run that hit the iteration limit: the last reply is a call, not `finish`; the grader's
  // log has no report, the run's summary lists the instance as unresolved
  const syn = join(tmp, "synthetic");
  const compDir = join(FIXTURE, DJ, "llm_completions", DJ);
  const comp = JSON.parse(readFileSync(join(compDir, readdirSync(compDir)[0]!), "utf8"));
  comp.response.choices[0].message.tool_calls = [
    {
      index: 1,
      id: "toolu_last",
      type: "function",
      function: { name: "execute_bash", arguments: '{"command": "python -m pytest tests"}' },
    },
  ];
  const maxed = join(syn, "maxed");
  write(
    join(maxed, "llm_completions", "proj__proj-1", "openai__gpt-x-1733344708.5.json"),
    JSON.stringify(comp),
  );
  write(
    join(maxed, "infer_logs", "instance_proj__proj-1.log"),
    [
      "2024-12-04 13:37:06,802 - INFO - [Agent Controller default] Setting agent(CodeActAgent) state from AgentState.LOADING to AgentState.RUNNING",
      "2024-12-04 13:44:06,729 - INFO - [Agent Controller default] Setting agent(CodeActAgent) state from AgentState.RUNNING to AgentState.ERROR",
      "2024-12-04 13:44:06,729 - ERROR - Agent reached maximum iteration in headless mode. Current iteration: 50.00, max iteration: 50.00",
      "2024-12-04 13:44:06,729 - INFO - [Agent Controller default] Setting agent(CodeActAgent) state from AgentState.ERROR to AgentState.ERROR",
      "",
    ].join("\n"),
  );
  write(
    join(maxed, "output.swebench_eval.logs", "instance_proj__proj-1.log"),
    "2024-12-04 15:13:40,942 - INFO - Starting evaluation for instance proj__proj-1.\n",
  );
  write(
    join(maxed, "output.swebench_eval.md"),
    "# SWE-bench Report\n\n## Resolved Instances\n\n## Unresolved Instances\n- [proj__proj-1](output.swebench_eval.logs/instance_proj__proj-1.log)\n",
  );

  // another run of the same instance beside it, without a summary: not graded by the other's
  write(
    join(syn, "other-run", "llm_completions", "proj__proj-1", "openai__gpt-y-1733344708.5.json"),
    JSON.stringify(comp),
  );

  // a newer finish call carrying the closing message, the reply's text empty
  comp.response.choices[0].message.content = "";
  comp.response.choices[0].message.tool_calls = [
    {
      index: 1,
      id: "toolu_fin",
      type: "function",
      function: {
        name: "finish",
        arguments: '{"message": "Done: loader fixed.", "task_completed": "true"}',
      },
    },
  ];
  write(
    join(syn, "finished", "llm_completions", "proj__proj-5", "openai__gpt-x-1733344708.5.json"),
    JSON.stringify(comp),
  );

  // output.jsonl only (no completions): history events, a bad line, reports beside
  const jsonl = join(syn, "jsonl");
  const history = [
    {
      id: 0,
      timestamp: "2024-12-04T13:37:07",
      source: "user",
      message: "",
      action: "message",
      args: { content: "<pr_description>\nFix the bug\n</pr_description>\nPlease fix." },
    },
    {
      id: 1,
      timestamp: "2024-12-04T13:37:08",
      source: "agent",
      message: "Running command: pytest",
      action: "run",
      args: { command: "pytest -x", thought: "Run the tests first." },
      tool_call_metadata: { function_name: "execute_bash", tool_call_id: "toolu_1" },
    },
    {
      id: 2,
      timestamp: "2024-12-04T13:37:09",
      source: "agent",
      message: "Command `pytest -x` executed with exit code 1.",
      observation: "run",
      content: "1 failed",
      extras: { command_id: -1, command: "pytest -x", exit_code: 1 },
      cause: 1,
      tool_call_metadata: { function_name: "execute_bash", tool_call_id: "toolu_1" },
    },
    {
      id: 3,
      source: "agent",
      message: "",
      action: "edit",
      args: {
        path: "/testbed/x.py",
        command: "str_replace",
        old_str: "a",
        new_str: "b",
        thought: "",
      },
      tool_call_metadata: { function_name: "str_replace_editor", tool_call_id: "toolu_2" },
    },
    {
      id: 4,
      source: "agent",
      message: "",
      observation: "edit",
      content: "The file /testbed/x.py has been edited.",
      extras: { path: "/testbed/x.py" },
      cause: 3,
    },
    {
      id: 5,
      source: "agent",
      message: "All done",
      action: "finish",
      args: { outputs: {}, thought: "Fixed." },
    },
  ];
  write(
    join(jsonl, "output.jsonl"),
    [
      JSON.stringify({
        instance_id: "proj__proj-2",
        instruction: "<pr_description>\nFix the bug\n</pr_description>\nPlease fix.",
        history,
        metadata: { llm_config: { model: "openai/gpt-x" } },
        metrics: { accumulated_cost: 0.5 },
        test_result: { git_patch: "diff --git a/x.py b/x.py\n" },
        error: null,
      }),
      '{"instance_id": "proj__proj-3", "history": [',
      JSON.stringify({ instance_id: "proj__proj-4", instruction: "Do it.", history: [] }),
      "",
    ].join("\n"),
  );
  write(
    join(jsonl, "output.swebench_eval.jsonl"),
    `${JSON.stringify({
      instance_id: "proj__proj-2",
      test_result: {
        report: { empty_generation: false, resolved: true, failed_apply_patch: false },
      },
    })}\n`,
  );
  synthetic = await collect([syn]);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("OpenHands evaluation importer, on the real sample layout", () => {
  it("claims each instance folder and loads one attempt per instance, quietly", () => {
    expect(sample.units.map((u) => u.format)).toEqual(["openhands", "openhands"]);
    expect(sample.attempts.map((a) => a.taskId).sort()).toEqual([AP, DJ]);
    expect(sample.errors).toEqual([]);
  });

  it("reads the task, the agent's calls and their results from the newest completion", () => {
    const a = byTask(sample.attempts, DJ);
    expect(a.agent).toBe("openhands");
    expect(a.model).toBe("litellm_proxy/claude-3-5-sonnet-20241022");
    expect(a.taskText).toMatch(/^Allow migrations directories without __init__\.py files\n/);
    expect(a.taskText).not.toContain("<pr_description>");
    expect(a.events[0]).toMatchObject({ kind: "message", role: "system" });
    expect(a.events[1]).toMatchObject({ kind: "prompt", role: "user" });
    const c = calls(a);
    expect(c).toHaveLength(8);
    expect(c.map((e) => e.tool)).toEqual([
      "execute_bash",
      "execute_bash",
      "execute_bash",
      "str_replace_editor",
      "str_replace_editor",
      "execute_bash",
      "str_replace_editor",
      "execute_bash",
    ]);
    expect(c[0]?.command).toBe("ls -la /workspace/django__django__3.1");
    expect(c[3]?.writes ?? []).toEqual([]);
    expect(c.flatMap((e) => e.writes ?? [])).toEqual([
      "/testbed/reproduce_issue.py",
      "/testbed/django/db/migrations/loader.py",
    ]);
    const r = results(a);
    expect(r).toHaveLength(8);
    expect(r.every((e, i) => e.callId === c[i]?.callId && e.tool === c[i]?.tool)).toBe(true);
    expect(r.filter((e) => e.tool === "execute_bash").map((e) => e.exitCode)).toEqual([
      0, 0, 0, 0, 0,
    ]);
    expect(
      r.filter((e) => e.tool === "str_replace_editor").every((e) => e.exitCode === undefined),
    ).toBe(true);
    // `finish` is the stop, with the agent's last words
    const last = a.events[a.events.length - 1];
    expect(last).toMatchObject({ kind: "stop" });
    expect(last?.final).toMatch(/^Great! The fix works as expected/);
    expect(a.exception).toBeUndefined();
  });

  it("takes the verdict and the tests from the grader's report", () => {
    const a = byTask(sample.attempts, DJ);
    expect(a.outcome).toBe("fail");
    expect(a.reward).toBe(0);
    expect(failing(a)).toEqual([
      ["test_load_empty_dir (migrations.test_loader.LoaderTests)", "regression"],
    ]);
    expect(a.verifierTests).toContainEqual(
      expect.objectContaining({
        name: "Migration directories without an __init__.py file are loaded.",
        status: "passed",
        role: "target",
      }),
    );
    expect(a.verifierTests).toHaveLength(25);
    expect(a.verifierOutput).toBe(
      "resolved: false\nPASS_TO_PASS failed: test_load_empty_dir (migrations.test_loader.LoaderTests)",
    );
    expect(a.verifierSource?.file).toMatch(
      /django__django-11141\/output\.swebench_eval\.logs\/instance_django__django-11141\.log$/,
    );
    expect(a.costUsd).toBeCloseTo(0.039333, 5);
  });

  it("keeps failed commands' exit codes, the fake user's nudge and the failing tests", () => {
    const a = byTask(sample.attempts, AP);
    expect(a.taskText).toMatch(
      /^TimeSeries: misleading exception when required column check fails/,
    );
    expect(calls(a)).toHaveLength(9);
    const bash = results(a).filter((e) => e.tool === "execute_bash");
    expect(bash.map((e) => e.exitCode)).toEqual([0, 1, 1, 0]);
    expect(calls(a).flatMap((e) => e.writes ?? [])).toEqual([
      "/workspace/reproduce_error.py",
      "/workspace/astropy__astropy__4.3/astropy/timeseries/core.py",
      "/workspace/edge_cases.py",
    ]);
    const nudges = a.events.filter((e) => e.kind === "message" && e.role === "user");
    expect(nudges).toHaveLength(1);
    expect(nudges[0]?.input).toMatch(/^Please continue working on the task/);
    expect(a.outcome).toBe("fail");
    expect(failing(a)).toEqual([
      ["astropy/timeseries/tests/test_sampled.py::test_required_columns", "target"],
      ["astropy/timeseries/tests/test_sampled.py::test_empty_initialization_invalid", "regression"],
    ]);
    expect(a.events[a.events.length - 1]?.kind).toBe("stop");
  });
});

describe("OpenHands evaluation importer, on a published run folder", () => {
  it("reads every instance of one run folder as the same attempts", () => {
    expect(published.units).toHaveLength(1);
    expect(published.units[0]?.format).toBe("openhands");
    expect(published.errors).toEqual([]);
    expect(published.attempts.map((a) => a.taskId).sort()).toEqual([AP, DJ]);
    for (const id of [AP, DJ]) {
      const p = byTask(published.attempts, id);
      const s = byTask(sample.attempts, id);
      expect(p.events).toEqual(s.events);
      expect(p.outcome).toBe(s.outcome);
      expect(p.verifierTests?.map((t) => [t.name, t.status])).toEqual(
        s.verifierTests?.map((t) => [t.name, t.status]),
      );
      expect(p.model).toBe("litellm_proxy/claude-3-5-sonnet-20241022");
    }
  });
});

describe("OpenHands evaluation importer, other shapes", () => {
  it("an iteration limit: no stop, the run log's error, the verdict from the run's summary", () => {
    const a = byTask(synthetic.attempts, "proj__proj-1");
    expect(a.events.some((e) => e.kind === "stop")).toBe(false);
    expect(calls(a).at(-1)?.command).toBe("python -m pytest tests");
    expect(a.exception).toEqual({
      type: "MaxIterationsReached",
      message:
        "Agent reached maximum iteration in headless mode. Current iteration: 50.00, max iteration: 50.00",
    });
    expect(a.model).toBe("openai/gpt-x");
    expect(a.outcome).toBe("fail");
    expect(a.verifierOutput).toMatch(/listed as unresolved in the run's summary/);
    expect(a.verifierTests).toBeUndefined();
  });

  it("never takes a verdict from another run's summary", () => {
    const other = synthetic.attempts.filter((a) => a.taskId === "proj__proj-1");
    expect(other.map((a) => [a.model, a.outcome]).sort()).toEqual([
      ["openai/gpt-x", "fail"],
      ["openai/gpt-y", "unknown"],
    ]);
  });

  it("a finish call's own message is the agent's last words", () => {
    const a = byTask(synthetic.attempts, "proj__proj-5");
    expect(calls(a)).toHaveLength(8);
    expect(a.events.at(-1)).toMatchObject({ kind: "stop", final: "Done: loader fixed." });
    expect(a.outcome).toBe("unknown");
  });

  it("reads output.jsonl histories; a bad line is an error naming its line, the rest load", () => {
    expect(synthetic.errors).toContainEqual(expect.stringMatching(/output\.jsonl:2: /));
    const a = byTask(synthetic.attempts, "proj__proj-2");
    expect(a.taskText).toBe("Fix the bug");
    expect(a.model).toBe("openai/gpt-x");
    expect(a.costUsd).toBe(0.5);
    expect(calls(a).map((e) => [e.tool, e.command, e.writes])).toEqual([
      ["execute_bash", "pytest -x", undefined],
      ["str_replace_editor", undefined, ["/testbed/x.py"]],
    ]);
    expect(results(a).map((e) => [e.callId, e.exitCode])).toEqual([
      ["toolu_1", 1],
      ["toolu_2", undefined],
    ]);
    expect(a.events.find((e) => e.kind === "message" && e.role === "agent")?.input).toBe(
      "Run the tests first.",
    );
    expect(a.events.at(-1)).toMatchObject({ kind: "stop", final: "Fixed." });
    expect(a.outcome).toBe("pass");
    expect(a.verifierOutput).toMatch(/^resolved: true/);
    // a row with an empty history still gives its attempt, and says what is missing
    const empty = byTask(synthetic.attempts, "proj__proj-4");
    expect(empty.outcome).toBe("unknown");
    expect(empty.events).toEqual([]);
    expect(synthetic.errors).toContainEqual(
      expect.stringMatching(/no conversation for proj__proj-4/),
    );
  });
});

describe("Python literal reader", () => {
  it("reads a repr'd report and rejects what is not a literal", () => {
    const text = `x report: {'a': True, "b": [None, -1.5e3, ('t',)], 'c\\'s': 'x\\ny'} tail`;
    const at = text.indexOf("{");
    const { value, end } = parsePyLiteral(text, at);
    expect(value).toEqual({ a: true, b: [null, -1500, ["t"]], "c's": "x\ny" });
    expect(text.slice(end)).toBe(" tail");
    expect(() => parsePyLiteral("{'a': os.system('x')}")).toThrow(/offset 6/);
    expect(() => parsePyLiteral("{'a': 'open")).toThrow(/unterminated string/);
  });
});
