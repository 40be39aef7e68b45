import { Attempt, type Event } from "../../../src/core/model/attempt.js";

/** One step of a Bash-driven run: a command with its output (and exit code), or an agent message. */
export type Step = { cmd: string; out: string; exit?: number } | { say: string };

/** A small Claude-Code-shaped attempt: prompt, Bash calls with results, agent messages, stop. */
export function attempt(taskText: string, steps: Step[], extra: Partial<Attempt> = {}): Attempt {
  const events: Event[] = [{ index: 0, kind: "prompt", role: "user", input: taskText }];
  steps.forEach((s, i) => {
    if ("say" in s) {
      events.push({ index: events.length, kind: "message", role: "agent", input: s.say });
      return;
    }
    const callId = `t${i}`;
    events.push({ index: events.length, kind: "tool_call", tool: "Bash", command: s.cmd, callId });
    events.push({
      index: events.length,
      kind: "tool_result",
      callId,
      output: s.out,
      exitCode: s.exit ?? 0,
    });
  });
  events.push({ index: events.length, kind: "stop" });
  return Attempt.parse({
    id: "unit-1",
    source: { format: "fire-jsonl", path: "unit.jsonl" },
    taskId: "unit",
    taskText,
    outcome: "fail",
    events,
    ...extra,
  });
}
