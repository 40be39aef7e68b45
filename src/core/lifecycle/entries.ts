import { existsSync } from "node:fs";
import { relative } from "node:path";
import { InputError } from "../errors.js";
import { candidateFiles, compileCandidateFile } from "../policy/load.js";
import type { Candidate } from "../policy/schema.js";
import type { CompiledPolicy } from "../policy/types.js";
import { workspacePaths } from "../workspace/paths.js";

/**
 * One candidate file with its text and, when valid, the compiled policy: THE shape of a
 * candidate on disk (the workbench lists these; a valid one is a StoredCandidate).
 */
export interface CandidateEntry {
  file: string;
  /** Workspace-relative path. */
  rel: string;
  text: string;
  policy?: CompiledPolicy;
  errors: InputError[];
}

/** A candidate file that compiles: what lifecycle actions, screens and freezing take. */
export interface StoredCandidate {
  file: string;
  candidate: Candidate;
  policy: CompiledPolicy;
}

/** The entry as a stored candidate, when it compiles (nothing is read or compiled again). */
export function storedOf(e: CandidateEntry): StoredCandidate | undefined {
  return e.policy ? { file: e.file, candidate: e.policy.candidate, policy: e.policy } : undefined;
}

/**
 * Reads and compiles every candidate file under the workspace's `candidates/`. A file that
 * does not compile is still an entry (with its text and errors); an unreadable file is only
 * an error. `errors` gathers every file's errors.
 */
export function readCandidateEntries(workspace: string): {
  entries: CandidateEntry[];
  errors: InputError[];
} {
  const root = workspacePaths(workspace).candidates;
  if (!existsSync(root)) return { entries: [], errors: [] };
  let files: string[];
  try {
    files = candidateFiles(root);
  } catch (e) {
    return { entries: [], errors: [new InputError(root, undefined, (e as Error).message)] };
  }
  const entries: CandidateEntry[] = [];
  const errors: InputError[] = [];
  for (const file of files) {
    const r = compileCandidateFile(file);
    errors.push(...r.errors);
    if (r.text === undefined) continue;
    entries.push({
      file,
      rel: relative(workspace, file),
      text: r.text,
      ...(r.policy ? { policy: r.policy } : {}),
      errors: r.errors,
    });
  }
  return { entries, errors };
}
