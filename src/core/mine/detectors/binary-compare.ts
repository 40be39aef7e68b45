import { commandOf, toolCalls } from "./shell.js";
import type { Detector } from "./types.js";

/**
 * A task to re-implement an existing program, in one sentence: re-implement or a drop-in
 * replacement of a binary, executable, tool, program or command, or a clone of a binary
 * (a `git clone` of a repository whose command is to be fixed is none).
 */
const BINARY_TASK =
  /\b(re-?implement\w*|drop-in replacement)\b(?:[^.\n]|\.(?=\S)){0,200}\b(binary|executable|tool|program|command)\b|\bclone\b(?:[^.\n]|\.(?=\S)){0,200}\b(binary|executable)\b|\b(binary|executable)\b(?:[^.\n]|\.(?=\S)){0,200}\b(re-?implement\w*|identical output|same output)\b/i;
const COMPARE = /\b(cmp|diff|sha256sum|md5sum|sha1sum|xxd|hexdump|od)\b|==\s*\$\(|filecmp/;

/** Re-implementing an existing binary: outputs never compared byte for byte with the original's. */
export const binaryNeverCompared: Detector = {
  id: "binary.never-compared",
  taskRole: "the task asks to re-implement an existing binary",
  description:
    "re-implementation of an existing binary whose output was never compared byte for byte",
  family: "binary-equivalence",
  detect(attempt) {
    if (!BINARY_TASK.test(attempt.taskText)) return [];
    const calls = toolCalls(attempt);
    if (calls.length === 0 || calls.some((c) => COMPARE.test(commandOf(c) ?? ""))) return [];
    const last = calls.at(-1);
    return last
      ? [
          {
            eventIndices: [last.index],
            reason: "no byte-for-byte comparison against the original binary",
          },
        ]
      : [];
  },
};
