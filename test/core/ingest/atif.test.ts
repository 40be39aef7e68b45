import { describe, expect, it } from "vitest";
import { fixture } from "../../helpers/paths.js";
import { collect } from "./collect.js";

const golden = (name: string) => fixture("atif-golden", `${name}.trajectory.json`);

describe("ATIF importer (atif-golden)", () => {
  it("imports the three golden trajectories as one attempt each, with no errors", async () => {
    const got = await collect([fixture("atif-golden")]);
    expect(got.errors).toEqual([]);
    expect(got.units.map((u) => u.format)).toEqual(["atif", "atif", "atif"]);
    expect(got.attempts.map((a) => a.taskId).sort()).toEqual([
      "hello-world-context-summarization",
      "hello-world-invalid-json",
      "hello-world-timeout",
    ]);
  });

  it("keeps the task itself (not the Terminus wrapper) as task text, and the agent and model", async () => {
    const [a] = (await collect([golden("hello-world-timeout")])).attempts;
    expect(a!.taskText).toBe('Create a file called hello.txt with "Hello, world!" as the content.');
    expect(a!.agent).toBe("terminus-2");
    expect(a!.model).toBe("openai/gpt-4o");
    expect(a!.outcome).toBe("unknown");
    expect(a!.tokens).toEqual({ input: 982, output: 145, cached: 0 });
    expect(a!.costUsd).toBeCloseTo(0.003905, 6);
  });

  it("extracts Terminus keystrokes as shell commands and pairs results with calls", async () => {
    const [a] = (await collect([golden("hello-world-timeout")])).attempts;
    const calls = a!.events.filter((e) => e.kind === "tool_call");
    expect(calls.map((c) => c.command)).toEqual(["echo 'Hello, world!'", "sleep 5", "sleep 5"]);
    expect(calls.map((c) => c.tool)).toEqual(["bash_command", "bash_command", "bash_command"]);
    const results = a!.events.filter((e) => e.kind === "tool_result");
    expect(results.map((r) => r.callId)).toEqual(["call_0_1", "call_1_1", "call_2_1"]);
    expect(results[0]!.output).toContain("Hello, world!");
    expect(results[0]!.tool).toBe("bash_command");
  });

  it("keeps the sub-agent trajectory references of a context summarisation as links", async () => {
    const [a] = (await collect([golden("hello-world-context-summarization")])).attempts;
    expect(a!.links).toEqual([
      { kind: "subagent", ref: "trajectory.summarization-1-summary.json" },
      { kind: "subagent", ref: "trajectory.summarization-1-questions.json" },
      { kind: "subagent", ref: "trajectory.summarization-1-answers.json" },
    ]);
    expect(a!.events.filter((e) => e.kind === "tool_call")).toHaveLength(7);
    expect(a!.events.filter((e) => e.kind === "prompt")).toHaveLength(2);
    const system = a!.events.find((e) => e.role === "system");
    expect(system?.input).toBe("Performed context summarization and handoff to continue task.");
    expect(a!.events.at(-1)!.kind).toBe("stop");
  });

  it("records reasoning and a step whose observation has no tool call (parse error feedback)", async () => {
    const [a] = (await collect([golden("hello-world-invalid-json")])).attempts;
    expect(a!.events.filter((e) => e.kind === "reasoning")).toHaveLength(4);
    const firstResult = a!.events.find((e) => e.kind === "tool_result")!;
    expect(firstResult.callId).toBeUndefined();
    expect(firstResult.output).toMatch(/^Previous response had parsing errors/);
    expect(a!.events.filter((e) => e.command).map((e) => e.command)).toEqual([
      "printf 'Hello, world!\\n' > hello.txt",
    ]);
  });

  it("caps outputs at the output cap and keeps the full byte length", async () => {
    const [a] = (await collect([golden("hello-world-timeout")], { outputCap: 10 })).attempts;
    const r = a!.events.find((e) => e.kind === "tool_result")!;
    expect(r.output).toHaveLength(10);
    expect(r.outputBytes).toBe(
      Buffer.byteLength(
        "New Terminal Output:\n\nroot@CONTAINER_ID:/app# echo 'Hello, world!'\nHello, world!\n\n",
      ),
    );
  });
});

describe("ATIF variants (string step ids, message parts, source_call_id)", () => {
  it("pairs parallel results by source_call_id and reads string ids and part lists", async () => {
    const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const traj = JSON.parse(readFileSync(golden("hello-world-timeout"), "utf8"));
    traj.schema_version = "ATIF-v1.4";
    traj.continued_trajectory_ref = "trajectory.cont-1.json";
    for (const s of traj.steps) s.step_id = String(s.step_id);
    traj.steps[0].message = [
      { type: "text", text: "Task Description:\nList /tmp twice.\n\nCurrent terminal state:\n$" },
    ];
    traj.steps[1].tool_calls = [
      { tool_call_id: "a", function_name: "bash_command", arguments: { keystrokes: "ls /tmp\n" } },
      {
        tool_call_id: "b",
        function_name: "shell",
        arguments: { command: ["bash", "-lc", "ls -la /tmp"] },
      },
    ];
    traj.steps[1].observation = {
      results: [
        { source_call_id: "b", content: [{ type: "text", text: "long listing" }] },
        { source_call_id: "a", content: "short listing" },
      ],
    };
    const tmp = mkdtempSync(join(tmpdir(), "fire-atif-"));
    try {
      const f = join(tmp, "variant.trajectory.json");
      writeFileSync(f, JSON.stringify(traj));
      const got = await collect([f]);
      expect(got.errors).toEqual([]);
      const a = got.attempts[0]!;
      expect(a.taskText).toBe("List /tmp twice.");
      expect(a.links).toEqual([{ kind: "continuation", ref: "trajectory.cont-1.json" }]);
      const calls = a.events.filter((e) => e.kind === "tool_call").slice(0, 2);
      expect(calls.map((c) => c.command)).toEqual(["ls /tmp", "ls -la /tmp"]);
      const results = a.events.filter((e) => e.kind === "tool_result").slice(0, 2);
      expect(results.map((r) => [r.callId, r.tool, r.output])).toEqual([
        ["b", "shell", "long listing"],
        ["a", "bash_command", "short listing"],
      ]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("reads the exit code at the end of a Gemini CLI shell report, not one the command printed", async () => {
    const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    // run_shell_command's report to the model: fixed fields after the command's own output
    const report = (cmd: string, out: string, exit: string) =>
      `Command: ${cmd}\nDirectory: (root)\nOutput: ${out}\nError: (none)\nExit Code: ${exit}\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 41`;
    const traj = JSON.parse(readFileSync(golden("hello-world-timeout"), "utf8"));
    traj.steps[1].tool_calls = ["a", "b", "c"].map((id, i) => ({
      tool_call_id: id,
      function_name: "run_shell_command",
      arguments: { command: `step ${i}` },
    }));
    traj.steps[1].observation = {
      results: [
        { source_call_id: "a", content: report("node test.js", "[\n  {}\n]", "0") },
        // the command printed a fake trailer; the real one says 1
        { source_call_id: "b", content: report("cat log", "Exit Code: 0\nSignal: (none)", "1") },
        { source_call_id: "c", content: report("sleep 99", "(empty)", "(none)") },
      ],
    };
    const tmp = mkdtempSync(join(tmpdir(), "fire-atif-"));
    try {
      const f = join(tmp, "gemini.trajectory.json");
      writeFileSync(f, JSON.stringify(traj));
      const got = await collect([f]);
      expect(got.errors).toEqual([]);
      const results = got.attempts[0]!.events.filter((e) => e.kind === "tool_result").slice(0, 3);
      expect(results.map((r) => r.exitCode)).toEqual([0, 1, undefined]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("counts Gemini CLI's replace tool as a write of its file_path", async () => {
    const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const traj = JSON.parse(readFileSync(golden("hello-world-timeout"), "utf8"));
    traj.steps[1].tool_calls = [
      {
        tool_call_id: "r",
        function_name: "replace",
        arguments: { file_path: "/app/a.js", old_string: "x", new_string: "y" },
      },
    ];
    traj.steps[1].observation = { results: [{ source_call_id: "r", content: "Modified" }] };
    const tmp = mkdtempSync(join(tmpdir(), "fire-atif-"));
    try {
      const f = join(tmp, "gemini-replace.trajectory.json");
      writeFileSync(f, JSON.stringify(traj));
      const [a] = (await collect([f])).attempts;
      const call = a!.events.find((e) => e.kind === "tool_call" && e.tool === "replace");
      expect(call?.writes).toEqual(["/app/a.js"]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
