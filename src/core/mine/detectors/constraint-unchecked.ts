import { baseName, callText } from "./paths.js";
import { isWrite, stopIndex, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/** The verifier compared the output with an expectation and it differed. */
const MISMATCH =
  /(?:did not match|does not match|doesn't match|mismatch|differs? from|expected\b[^\n]{0,60}\b(?:got|but|found|actual)|不匹配|不一致|不符)/i;
/** The file the verifier compared against, when it names one. */
const AGAINST = /(?:match|against|from)\s+['"`]?([\w./-]+\.[A-Za-z]\w{0,7})/i;
/** A comparison the agent could have made: diff, cmp, assert, equality, schema/format check. */
const COMPARE =
  /\b(?:diff|cmp|comm|assert|jq|jsonschema|json\.tool|sha\d*sum|md5sum)\b|==|!=|\btest\s+-[nz]|\[\s+"?\$|\bexpected\b/i;

/**
 * The verifier reports a mismatch against an explicit reference (an expected output file
 * it names), and the agent never compared its result with it in or after its last write:
 * it ran its command and read the output as fine.
 */
export const constraintUnchecked: Detector = {
  id: "check.constraint-unchecked",
  description: "output never compared with the task's explicit expectation before stopping",
  mechanism: "constraint-unchecked",
  detect(attempt) {
    if (attempt.outcome === "pass") return [];
    const v = attempt.verifierOutput ?? "";
    const m = MISMATCH.exec(v);
    if (!m) return [];
    const calls = toolCalls(attempt);
    const lastWrite = calls.filter(isWrite).at(-1);
    const after = calls.filter((c) => !lastWrite || c.index >= lastWrite.index);
    const against = AGAINST.exec(v.slice(m.index, m.index + 160))?.[1];
    // The expectation must be explicit: a reference the verifier compared against.
    if (!against) return [];
    const compared = after.some(
      (c) => COMPARE.test(callText(c)) || (against && callText(c).includes(baseName(against))),
    );
    if (compared) return [];
    return [
      {
        eventIndices: [lastWrite?.index ?? stopIndex(attempt)],
        reason: `verifier: "${m[0]}"${against ? ` ${against}` : ""}; no comparison after the last write`,
        signature: "output not compared with the expectation",
      },
    ];
  },
};
