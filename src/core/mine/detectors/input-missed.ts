import { EXISTING_CODE, EXISTING_CODE_ROLE } from "./existing-code.js";
import { baseName, callText, emptySearches, isTimeout, notFoundCalls } from "./paths.js";
import { callSucceeded, isVerification, isWrite, toolCalls } from "./shell.js";
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
 * The message says the inputs were not there or asks the user to supply them: "could not
 * find", "not found", "is empty", "does not exist", "no such", "I need access / a … / from
 * you", "could you point / provide / share …", "where is …", or the same in Chinese or
 * Japanese. A question alone ("Should I also add a changelog entry?") asks for nothing.
 */
const SAYS_MISSING = new RegExp(
  [
    String.raw`\b(?:can(?:'|’)?t|cannot|could(?:n(?:'|’)?t| not)|unable to|did(?:n(?:'|’)?t| not)|failed to)\s+(?:find|locate|access)\b`,
    String.raw`\bnot (?:found|present|exist)\b|\b(?:does|do)(?:n(?:'|’)?t| not) exist\b|\bno such\b`,
    String.raw`\bnothing (?:was )?found\b|\bno\b[^.?!\n]{0,40}?\b(?:files?|code|source|repo(?:sitory)?|project|director(?:y|ies)|folders?|data|inputs?)\b[^.?!\n]{0,30}?\bfound\b`,
    String.raw`\b(?:is|are|was|were|be|looks|seems)\s+empty\b`,
    String.raw`\bI\s+do(?:n(?:'|’)?t| not)\s+(?:yet\s+)?have\s+(?:a|an|the|your|access)\b`,
    String.raw`\bI\s+(?:would\s+|will\s+|still\s+)?need\s+(?:access|from you|a|an|the|your|you to)\b`,
    String.raw`\b(?:you|please)\s+(?:(?:can|could|please|kindly|just)\s+){0,2}(?:provide|share|point|upload|paste|send|attach|clone|specify|tell me)\b`,
    String.raw`\bwhere\s+(?:is|are|(?:can|do|should) I find)\b`,
    "找不到|没有找到|没找到|未找到|不存在|为空|是空的|哪里|哪儿|在哪|请提供|请告诉|見つかりません|見つからない|存在しません|どこ",
  ].join("|"),
  "i",
);
const saysMissing = (text: string): boolean => SAYS_MISSING.test(text.replace(CODE, " "));

/**
 * The agent probed for its inputs at guessed paths (not found) or searched for them and found
 * nothing, never located them, and ended by asking the user for what the workspace already
 * held: the last agent message is a question that says the inputs were not there or asks for
 * them (a polite closing question asks for nothing), and the run failed. A write followed by
 * a check that passed, after the misses, shows the agent had its inputs. A task about code
 * already present (this repository, existing behaviour) is a second fact the hit states. On
 * such a task, a run the agent itself ended without a single write after those misses is read
 * the same way, question or not (it told the user the code was not there and stopped).
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
    // a question or a stop alone asks for nothing: the message must say what was not there
    if (!saysMissing(text)) return [];
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
    // A write the agent then checked and saw pass, after the misses: it had its inputs.
    const first = unresolved[0]?.index ?? 0;
    const calls = toolCalls(attempt);
    const checkedWrite = calls.some(
      (w) =>
        w.index > first &&
        isWrite(w) &&
        calls.some((c) => c.index > w.index && isVerification(c) && callSucceeded(attempt, c)),
    );
    if (checkedWrite) return [];
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
