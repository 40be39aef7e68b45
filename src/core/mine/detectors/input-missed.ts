import { EXISTING_CODE, EXISTING_CODE_ROLE } from "./existing-code.js";
import { baseName, callText, emptySearches, isTimeout, notFoundCalls } from "./paths.js";
import { isWrite, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/**
 * A question to the user in any script: `?`, full-width `？`, or the Arabic `؟` (`?` ending
 * a sentence: before a space, a closing quote or bracket, or the end), outside code: a
 * nullable type (`Listener?`), an optional chain (`a?.b`) or a regex in a code span is none.
 */
const QUESTION = /\?(?=["')\]*]*(?:\s|$))|[？؟]/;
const CODE = /```[\s\S]*?```|`[^`\n]*`/g;
const asksQuestion = (text: string): boolean => QUESTION.test(text.replace(CODE, " "));

/**
 * The agent probed for its inputs at guessed paths (not found) or searched for them and found
 * nothing, never located them, and ended by asking the user for what the workspace already
 * held: the last agent message is a question and the run failed. A task about code already
 * present (this repository, existing behaviour) is a second fact the hit states. On such a
 * task, a run the agent itself ended without a single write after those misses is read the
 * same way, question or not (it told the user the code was not there and stopped).
 */
export const inputMissed: Detector = {
  id: "input.discovery-miss",
  description: "inputs probed at guessed paths (not found), then the agent asked the user",
  mechanism: "task-input-missed",
  detect(attempt) {
    if (attempt.outcome === "pass") return [];
    const probes = notFoundCalls(attempt);
    const misses = [...probes, ...emptySearches(attempt).filter((c) => !probes.includes(c))].sort(
      (x, y) => x.index - y.index,
    );
    if (misses.length === 0) return [];
    const last = [...attempt.events]
      .reverse()
      .find((e) => e.kind === "message" && e.role !== "user" && (e.input ?? e.output));
    const text = last?.input ?? last?.output ?? "";
    if (!last) return [];
    const existing = EXISTING_CODE.test(attempt.taskText);
    const asked = asksQuestion(text);
    const gaveUpUnwritten =
      existing && !isTimeout(attempt) && !toolCalls(attempt).some((c) => isWrite(c));
    if (!asked && !gaveUpUnwritten) return [];
    // A miss the agent later recovered from (the same name read successfully) is no miss.
    const unresolved = misses.filter((m) => {
      const names = callText(m).match(/[\w.-]+\.[A-Za-z]\w{0,7}/g) ?? [];
      return !toolCalls(attempt).some(
        (c) =>
          c.index > m.index &&
          !notFoundCalls(attempt).includes(c) &&
          names.some((n) => callText(c).includes(baseName(n))),
      );
    });
    if (unresolved.length === 0) return [];
    return [
      {
        eventIndices: [...unresolved.map((m) => m.index), last.index],
        reason: `${unresolved.length} input probe(s)${unresolved.every((m) => probes.includes(m)) ? " not found" : " or search(es) found nothing"}, then ${asked ? "asked the user" : "stopped with nothing written"}`,
        signature: "asked the user after inputs were not found",
        // asking for code the task says is already there: the task's role is a second fact
        ...(existing ? { taskRole: EXISTING_CODE_ROLE } : {}),
      },
    ];
  },
};
