import { describe, expect, it } from "vitest";
import { fixture } from "../../helpers/paths.js";
import { collect } from "./collect.js";

describe("Codex rollout importer", () => {
  it("reads the rm-deny rollout: exec_command cmds, the PreToolUse deny and the <hook_prompt Stop block", async () => {
    const got = await collect([fixture("real-clients/codex-rm-deny/session.jsonl")]);
    expect(got.errors).toEqual([]);
    const a = got.attempts[0]!;
    expect(a.taskText).toBe("Clean the build directory, then finish.");
    expect(a.agent).toBe("codex");
    expect(a.model).toBe("gpt-5.5");
    expect(a.tokens).toEqual({ input: 500, output: 100, cached: 0, reasoning: 0 });
    const calls = a.events.filter((e) => e.kind === "tool_call");
    expect(calls.map((c) => [c.tool, c.command, c.callId])).toEqual([
      ["exec_command", "mkdir -p build && touch build/out.o && echo made build", "call_fake_1"],
      ["exec_command", "rm -rf build", "call_fake_2"],
      ["exec_command", "ls -la", "call_fake_3"],
    ]);
    const results = a.events.filter((e) => e.kind === "tool_result");
    expect(results.map((r) => r.exitCode)).toEqual([0, undefined, 0]);
    expect(results[1]!.isError).toBe(true);
    const hooks = a.events.filter((e) => e.kind === "hook");
    expect(hooks.map((h) => [h.hook?.event, h.hook?.decision, h.callId])).toEqual([
      ["PreToolUse", "deny", "call_fake_2"],
      ["Stop", "block", undefined],
    ]);
    expect(hooks[1]!.hook?.text).toMatch(/^deny-hook: before stopping, run `ls -la`/);
    // the Stop block is preceded by the stop it blocked; the harness prompts are not user prompts
    const i = a.events.indexOf(hooks[1]!);
    expect(a.events[i - 1]!.kind).toBe("stop");
    expect(a.events.filter((e) => e.kind === "prompt")).toHaveLength(1);
  });

  it("reads the four redacted gpt-5.3-codex rollouts: 258 function calls, 10 apply_patch calls", async () => {
    const got = await collect([fixture("codex-rollouts-redacted")]);
    expect(got.errors).toEqual([]); // README.source.md skipped quietly
    expect(got.attempts).toHaveLength(4);
    const all = got.attempts.flatMap((a) => a.events);
    const calls = all.filter((e) => e.kind === "tool_call");
    expect(calls.filter((c) => c.tool !== "apply_patch")).toHaveLength(258);
    expect(calls.filter((c) => c.tool === "apply_patch")).toHaveLength(10);
    expect(calls.filter((c) => c.tool === "exec_command")).toHaveLength(235);
    expect(all.filter((e) => e.kind === "tool_result")).toHaveLength(266);
    expect(new Set(got.attempts.map((a) => a.model))).toEqual(new Set(["gpt-5.3-codex"]));
    const big = got.attempts.find((a) => a.id.startsWith("019c8a53"))!;
    expect(big.events.filter((e) => e.kind === "stop")).toHaveLength(5);
    expect(big.events.filter((e) => e.kind === "reasoning")).toHaveLength(71);
    expect(big.taskText).toBe("[REDACTED_MESSAGE len=64 sha=7d538904]");
    // every output pairs with a call of the same id
    for (const a of got.attempts) {
      const ids = new Set(a.events.filter((e) => e.kind === "tool_call").map((e) => e.callId));
      for (const r of a.events.filter((e) => e.kind === "tool_result"))
        expect(ids.has(r.callId)).toBe(true);
    }
  });

  it("keeps the detached launch command of the http-log rollout although its arguments were trimmed", async () => {
    const [a] = (await collect([fixture("real-clients/codex-http-log/session.jsonl")])).attempts;
    const cmd = a!.events.find((e) => e.kind === "tool_call")!.command!;
    expect(cmd).toMatch(
      /^setsid nohup python3 -m http\.server 8765 --bind 127\.0\.0\.1 >server\.log 2>&1/,
    );
  });
});
