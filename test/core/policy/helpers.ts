import type { Event } from "../../../src/core/model/attempt.js";
import { compilePolicy } from "../../../src/core/policy/compile.js";
import { Candidate, type CandidateInput } from "../../../src/core/policy/schema.js";
import type { CompiledPolicy } from "../../../src/core/policy/types.js";

type EventSpec = Omit<Event, "index">;

/** Numbers a list of event specs 0..n-1. */
export function events(...specs: EventSpec[]): Event[] {
  return specs.map((s, index) => ({ index, ...s }));
}

export const prompt = (text: string): EventSpec => ({ kind: "prompt", role: "user", input: text });
export const bash = (command: string): EventSpec => ({ kind: "tool_call", tool: "Bash", command });
export const result = (output: string, exitCode = 0): EventSpec => ({
  kind: "tool_result",
  tool: "Bash",
  output,
  exitCode,
});
export const stop = (): EventSpec => ({ kind: "stop" });

const BASE = {
  version: 1,
  family: "test",
  title: "test policy",
  chain: { state: "x", intervention: "a", behavior: "b", verifier: "v" },
  behavior: { flag: "done" },
};

/** Validates and compiles an inline candidate (id, rules, … override the base). */
export function policy(
  over: Partial<CandidateInput> & Pick<CandidateInput, "id" | "rules">,
): CompiledPolicy {
  return compilePolicy(Candidate.parse({ ...BASE, ...over }));
}
