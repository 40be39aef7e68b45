/**
 * Harbor trials of an agent that writes its own ATIF trajectory into the task folder, which
 * Harbor collects as an artifact (`artifacts/trajectory.json`, listed in
 * `artifacts/manifest.json`; no `agent/` folder), and whose main tool is a program runner:
 * `execute_program` with `{"code": "…", "description": "…"}`, the JavaScript calling
 * `tools.bash({ command })` and `tools.write_file({ file_path, content })`, the observation
 * being the program's console output. The records are minimal, written here in those shapes
 * (ATIF-v1.4 steps with `tool_calls[].arguments` as a JSON string and
 * `observation.results[].content` as a JSON string holding `text`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { programCalls } from "../../../src/core/ingest/code-mode.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { type Collected, collect } from "./collect.js";

let root: string;
const write = (path: string, value: unknown) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
};

const result = (trial: string, reward: number) => ({
  id: `id-${trial}`,
  task_name: "make-report",
  trial_name: trial,
  config: {
    task: { path: "make-report" },
    agent: { import_path: "custom_agent:CustomAgent", model_name: null },
    artifacts: ["/app/trajectory.json"],
  },
  agent_info: { name: "custom-agent", version: "0.1.0", model_info: null },
  agent_result: { n_input_tokens: null, n_cache_tokens: null, n_output_tokens: null },
  verifier_result: { rewards: { reward } },
  exception_info: null,
});

const PROGRAM = [
  "",
  "// look around, then write the report",
  'const ls = await tools.bash({ command: "ls -la /app && cat /app/data.csv | head -3" });',
  "console.log(ls);",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source text under test
  "const body = `total: ${42}`;",
  "await tools.write_file({ file_path: '/app/report.txt', content: body });",
  "const check = await tools.bash({",
  "  command: `wc -l /app/report.txt`,",
  '  description: "count lines",',
  "});",
  "console.log(check.stdout);",
  "",
].join("\n");

const output = (text: string) => JSON.stringify({ text, _programMetadata: { toolCalls: [] } });

const trajectory = {
  schema_version: "ATIF-v1.4",
  session_id: "s-1",
  agent: { name: "custom", version: "0.1.0", model_name: "claude-haiku-4-5-20251001" },
  steps: [
    { step_id: 1, source: "agent", message: "I'll inspect the data and write the report." },
    {
      step_id: 2,
      source: "agent",
      message: "Using tool: execute_program",
      tool_calls: [
        {
          tool_call_id: "toolu_1",
          function_name: "execute_program",
          arguments: JSON.stringify({ code: PROGRAM, description: "Write the report" }),
        },
      ],
      observation: {
        results: [
          {
            source_call_id: "toolu_1",
            content: output(
              '[execute_program: Write the report]\n\nOutput:\n{"stdout":"data.csv\\n","stderr":"","exitCode":0,"command":"ls -la /app","status":"completed"}\n1 /app/report.txt',
            ),
          },
        ],
      },
    },
    {
      step_id: 3,
      source: "agent",
      message: "Using tool: bash",
      tool_calls: [
        {
          tool_call_id: "toolu_2",
          function_name: "bash",
          arguments: JSON.stringify({ command: "cat /app/report.txt" }),
        },
      ],
      observation: {
        results: [
          {
            source_call_id: "toolu_2",
            content: JSON.stringify({
              stdout: "total: 42\n",
              stderr: "",
              exitCode: 0,
              command: "cat /app/report.txt",
              status: "completed",
            }),
          },
        ],
      },
    },
    {
      step_id: 4,
      source: "agent",
      message: "Using tool: execute_program",
      tool_calls: [
        {
          tool_call_id: "toolu_3",
          function_name: "execute_program",
          arguments: JSON.stringify({
            code: 'const r = await tools.bash({ command: "python3 /app/check.py" });\nconsole.log(r);',
            description: "Run the check",
          }),
        },
      ],
      observation: {
        results: [
          {
            source_call_id: "toolu_3",
            content: output(
              '[execute_program: Run the check]\n\nOutput:\n{"stdout":"","stderr":"AssertionError: total\\n","exitCode":2,"command":"python3 /app/check.py","status":"failed"}',
            ),
          },
        ],
      },
    },
    {
      step_id: 5,
      source: "agent",
      message: "Using tool: bash",
      tool_calls: [
        {
          tool_call_id: "toolu_4",
          function_name: "bash",
          arguments: JSON.stringify({ command: "python3 /app/check.py --all" }),
        },
      ],
      observation: {
        results: [
          {
            source_call_id: "toolu_4",
            // the agent's own log cut the JSON at a fixed length: it no longer parses
            content: JSON.stringify({
              stdout: 'ok: "total" \u2713\nTotal: 3 passed, 0 failed\n',
              stderr: "",
              exitCode: 0,
              command: 'python3 /app/check.py --all # prints "exitCode": 1 on failure',
            }).slice(0, 110),
          },
        ],
      },
    },
    { step_id: 6, source: "agent", message: "The report is written." },
  ],
  final_metrics: { total_prompt_tokens: 0, total_completion_tokens: 0, total_steps: 4 },
};

const manifest = [
  {
    source: "/app/trajectory.json",
    destination: "artifacts/trajectory.json",
    type: "file",
    status: "ok",
  },
];

let got: Collected;
const byTrial = (name: string): Attempt =>
  got.attempts.find((a) => a.source.path.endsWith(name)) ?? (undefined as never);
const calls = (a: Attempt) => a.events.filter((e) => e.kind === "tool_call");

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fire-code-mode-"));
  const a = join(root, "make-report__aaa");
  write(join(a, "result.json"), result("make-report__aaa", 0));
  write(join(a, "artifacts", "manifest.json"), manifest);
  write(join(a, "artifacts", "trajectory.json"), trajectory);
  write(join(a, "verifier", "reward.txt"), "0");
  // Harbor's trial log of the launch: the instruction reaches the agent only as a here-document
  write(
    join(a, "trial.log"),
    [
      "Running command: apt-get install -y curl git",
      "Command outputs captured",
      "Running command: mkdir -p /home/user/agent/logs && cat > /home/user/agent/logs/instruction.txt << 'INSTRUCTION_EOF'",
      "Write /app/report.txt with the total of the amount column of /app/data.csv.",
      "The first line must read 'total: <number>'.",
      "INSTRUCTION_EOF",
      "cd /home/user/agent && ./run --task-file logs/instruction.txt",
      "Command outputs captured",
    ].join("\n"),
  );
  // an agent whose collected artifact happens to be named trajectory.json but is not ATIF
  const b = join(root, "make-report__bbb");
  write(join(b, "result.json"), result("make-report__bbb", 1));
  write(join(b, "artifacts", "logs", "trajectory.json"), { frames: [1, 2, 3] });
  write(join(b, "verifier", "reward.txt"), "1");
  // an installed agent's logged command: the instruction as the quoted argument of -p
  write(
    join(b, "agent", "command-1", "command.txt"),
    "agent --verbose -p 'Write /app/report.txt with the total; it'\\''s the amount column.' --max-turns 50",
  );
  got = await collect([root]);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the instruction of a trial that keeps it only in the launch command", () => {
  it("reads a here-document written to an instruction file, and a prompt flag's argument", () => {
    expect(byTrial("make-report__aaa").taskText).toBe(
      "Write /app/report.txt with the total of the amount column of /app/data.csv.\nThe first line must read 'total: <number>'.",
    );
    expect(byTrial("make-report__bbb").taskText).toBe(
      "Write /app/report.txt with the total; it's the amount column.",
    );
  });
});

describe("a Harbor trial whose ATIF trajectory is a collected artifact", () => {
  it("reads artifacts/trajectory.json when the trial has no agent/ folder", () => {
    const a = byTrial("make-report__aaa");
    expect(a.source.format).toBe("harbor-trial");
    expect(calls(a)).toHaveLength(4);
    expect(a.events.filter((e) => e.kind === "tool_result")).toHaveLength(4);
    expect(a.outcome).toBe("fail");
  });

  it("ignores a collected trajectory.json that is not ATIF, without an error", () => {
    const b = byTrial("make-report__bbb");
    expect(calls(b)).toHaveLength(0);
    expect(got.errors.filter((e) => e.includes("make-report__bbb"))).toEqual([]);
  });
});

describe("a program-runner call (code mode)", () => {
  it("reads as the shell commands and written paths of the tools its program calls", () => {
    const [run, bash] = calls(byTrial("make-report__aaa"));
    expect(run).toMatchObject({ tool: "execute_program" });
    expect(run?.command).toBe("ls -la /app && cat /app/data.csv | head -3\nwc -l /app/report.txt");
    expect(run?.writes).toEqual(["/app/report.txt"]);
    // a direct shell call of the same trace is unchanged
    expect(bash).toMatchObject({ tool: "bash", command: "cat /app/report.txt" });
  });
});

describe("tool results written as JSON", () => {
  const results = () => byTrial("make-report__aaa").events.filter((e) => e.kind === "tool_result");

  it("reads a shell result object as its output streams and exit code", () => {
    expect(results()[1]).toMatchObject({ callId: "toolu_2", output: "total: 42\n", exitCode: 0 });
  });

  it("reads a program's wrapped output as text, with the exit code of its one command", () => {
    const [many, one] = [results()[0], results()[2]];
    expect(many?.output).toMatch(/^\[execute_program: Write the report\]\n\nOutput:\n/);
    // two shell commands ran: the one exit code printed cannot speak for the call
    expect(many?.exitCode).toBeUndefined();
    expect(one).toMatchObject({ callId: "toolu_3", exitCode: 2 });
    expect(one?.output).toContain("AssertionError: total");
  });

  it("reads a shell result object cut short by the agent's log: its stdout so far, its exit code", () => {
    const cut = results()[3];
    expect(cut?.callId).toBe("toolu_4");
    expect(cut?.exitCode).toBe(0);
    expect(cut?.output).toBe('ok: "total" \u2713\nTotal: 3 passed, 0 failed\n');
  });
});

describe("programCalls", () => {
  it("keeps string-literal arguments: double, single and template quotes, escapes decoded", () => {
    const code = [
      'tools.bash({ command: "printf \\"a\\\\tb\\"\\n" });',
      "tools.bash({ 'command': 'echo it\\'s' })",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source text under test
      "tools.bash({ command: `make -C ${dir} test`, timeout: 300 })",
    ].join("\n");
    expect(programCalls(code)).toEqual([
      { tool: "bash", args: { command: 'printf "a\\tb"\n' } },
      { tool: "bash", args: { command: "echo it's" } },
      // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source text under test
      { tool: "bash", args: { command: "make -C ${dir} test" } },
    ]);
  });

  it("skips values that are not plain literals, and shorthand properties", () => {
    const code =
      "tools.write_file({ file_path: base + '/x', content, mode: opts[0], path: '/app/y' })";
    expect(programCalls(code)).toEqual([{ tool: "write_file", args: { path: "/app/y" } }]);
  });

  it("does not read a call of another object's tools, nor one whose argument is not an object", () => {
    expect(
      programCalls("mytools.bash({ command: 'rm -rf /' }); x.tools.bash({ command: 'ls' })"),
    ).toEqual([]);
    expect(programCalls("await tools.bash(cmd)")).toEqual([{ tool: "bash", args: {} }]);
  });

  it("stops at an unterminated literal and stays linear on hostile input", () => {
    expect(programCalls("tools.bash({ command: `never closed ")).toEqual([
      { tool: "bash", args: {} },
    ]);
    const hostile = "tools.bash({ a: f(`, ".repeat(20_000);
    const t0 = performance.now();
    programCalls(hostile);
    expect(performance.now() - t0).toBeLessThan(1_000);
  });
});
