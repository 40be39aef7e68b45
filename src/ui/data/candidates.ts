import { saveCandidateText } from "../../core/app/editor.js";
import type { InputError } from "../../core/errors.js";
import type { CandidateEntry } from "../../core/lifecycle/entries.js";

export type { CandidateEntry };

/** The candidate's lifecycle status ("invalid" when the file does not compile). */
export function statusOf(e: CandidateEntry): string {
  return e.policy?.candidate.status ?? "invalid";
}

/** Saves an edited candidate text (core saveCandidateText: compiles, refuses frozen, atomic). */
export function saveCandidate(file: string, text: string): Promise<InputError[]> {
  return saveCandidateText(file, text);
}
