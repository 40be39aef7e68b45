import { failingTests, type VerifierTest } from "../../ingest/verifier-tests.js";
import { partlyGraded } from "./partial-grade.js";
import { callText, escapeRe } from "./paths.js";
import { isWrite, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/*
 * The verifier failed because the deliverable lacks a name (a field, a key, an attribute, a
 * column) that the task states, and no write of the agent ever used that name: a stated
 * requirement the agent neither followed nor checked before it stopped. The name is read
 * from the failing assertion's own message, so no rule names a task or a field.
 */

const Q = `["'\`]([A-Za-z_][A-Za-z0-9_]{2,40})["'\`]`;
const KIND = "(?:field|key|attribute|column|property|member)";
/**
 * How an assertion message names what the deliverable lacks, the name captured: `has no
 * attribute 'x'`, `missing key "x"`, `no such column: 'x'`, `has no "x" field`, `KeyError: 'x'`.
 */
const LACKS: readonly RegExp[] = [
  new RegExp(`\\b(?:has no|no such|missing|unknown|no) (?:\\w+ )?${KIND}s?:? ${Q}`, "gi"),
  new RegExp(`\\bno ${Q} ${KIND}\\b`, "gi"),
  new RegExp(`\\bKeyError:? ${Q}`, "g"),
];
/** Minimum characters of written content: writes made outside the trace show no names. */
const MIN_WRITTEN = 200;

/** The names a failing test's message says the deliverable lacks. */
export function lackedNames(test: VerifierTest): string[] {
  const msg = test.message ?? "";
  const out = new Set<string>();
  for (const re of LACKS) for (const m of msg.matchAll(re)) if (m[1]) out.add(m[1]);
  return [...out];
}

const word = (s: string): RegExp =>
  new RegExp(`(?<![A-Za-z0-9_])${escapeRe(s)}(?![A-Za-z0-9_])`, "i");

export const statedNameAbsent: Detector = {
  id: "check.stated-name-absent",
  description: "the verifier failed on a name the task states that no write of the agent used",
  mechanism: "constraint-unchecked",
  detect(attempt) {
    // a stop of the agent's own, on a deliverable the grader passed in part
    if (!partlyGraded(attempt)) return [];
    const writes = toolCalls(attempt).filter(isWrite);
    const last = writes.at(-1);
    const written = writes.map(callText).join("\n");
    if (!last || written.length < MIN_WRITTEN) return [];
    for (const t of failingTests(attempt)) {
      const name = lackedNames(t).find(
        (n) => word(n).test(attempt.taskText) && !word(n).test(written),
      );
      if (!name) continue;
      return [
        {
          eventIndices: [last.index],
          reason: `the verifier failed ${t.name}: the deliverable has no \`${name}\`, a name the task states and no write of the agent used`,
          signature: "a stated name the deliverable never used",
          subject: t.name,
        },
      ];
    }
    return [];
  },
};
