import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, relative } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { InputError } from "../../core/errors.js";
import { isFrozenOnDisk } from "../../core/lifecycle/store.js";
import { candidateFiles, compileCandidateText } from "../../core/policy/load.js";
import type { CompiledPolicy } from "../../core/policy/types.js";
import { workspacePaths } from "../../core/workspace/paths.js";

/** One candidate file as the workbench shows it: its text and, when valid, the compiled policy. */
export interface CandidateEntry {
  file: string;
  /** Workspace-relative path. */
  rel: string;
  text: string;
  policy?: CompiledPolicy;
  errors: InputError[];
}

/** Reads and compiles every candidate file under `candidates/` (bad files keep their errors). */
export function readCandidates(dir: string): { entries: CandidateEntry[]; errors: InputError[] } {
  const root = workspacePaths(dir).candidates;
  if (!existsSync(root)) return { entries: [], errors: [] };
  const entries: CandidateEntry[] = [];
  const errors: InputError[] = [];
  let files: string[];
  try {
    files = candidateFiles(root);
  } catch (e) {
    return { entries, errors: [new InputError(root, undefined, (e as Error).message)] };
  }
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      errors.push(new InputError(file, undefined, `cannot read: ${(e as Error).message}`));
      continue;
    }
    const r = compileCandidateText(text, file);
    errors.push(...r.errors);
    entries.push({
      file,
      rel: relative(dir, file),
      text,
      ...(r.policy ? { policy: r.policy } : {}),
      errors: r.errors,
    });
  }
  return { entries, errors };
}

/** The candidate's lifecycle status (draft when the file does not compile). */
export function statusOf(e: CandidateEntry): string {
  return e.policy?.candidate.status ?? "invalid";
}

/**
 * Writes a candidate file atomically after checking it compiles (a text that does not
 * compile is refused with its errors and the file stays as it was). Frozen candidates are
 * never written.
 */
export async function saveCandidate(file: string, text: string): Promise<InputError[]> {
  const r = compileCandidateText(text, file);
  if (!r.policy) return r.errors;
  if (isFrozenOnDisk(file))
    return [new InputError(file, undefined, "frozen candidates are immutable: revise instead")];
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, text);
  return [];
}
