import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { InputError } from "../errors.js";
import { compileCandidateText } from "../policy/load.js";
import { isFrozenOnDisk } from "./store.js";

/**
 * Writes a hand-edited candidate text as is (YAML comments and layout kept), atomically,
 * after checking it compiles. A text that does not compile is refused with its errors and
 * the file stays as it was; a candidate frozen on disk is never written. Returns the
 * errors (empty when saved).
 */
export async function saveCandidateText(file: string, text: string): Promise<InputError[]> {
  const errors = checkCandidateText(file, text);
  if (errors.length) return errors;
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, text);
  return [];
}

/** Why a text may not be saved as this candidate file (empty when it may): compile, frozen. */
export function checkCandidateText(file: string, text: string): InputError[] {
  const r = compileCandidateText(text, file);
  if (!r.policy) return r.errors;
  if (isFrozenOnDisk(file))
    return [new InputError(file, undefined, "frozen candidates are immutable: revise instead")];
  return [];
}
