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

/** Every candidate file's entry, and every file's errors. */
export interface CandidateEntries {
  entries: CandidateEntry[];
  errors: InputError[];
}

/**
 * Reads and compiles every candidate file under the workspace's `candidates/`. A file that
 * does not compile is still an entry (with its text and errors); an unreadable file is only
 * an error. `errors` gathers every file's errors.
 */
export function readCandidateEntries(workspace: string): CandidateEntries {
  const steps = compileEntries(workspace);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * The same, giving the event loop a turn before each file (the workbench reads them after its
 * first usable frame: that frame is drawn first, and keys typed meanwhile wait for one file,
 * not for all).
 */
export async function readCandidateEntriesInTurns(
  workspace: string,
  signal?: AbortSignal,
): Promise<CandidateEntries> {
  const steps = compileEntries(workspace);
  for (;;) {
    await new Promise((turn) => setImmediate(turn));
    signal?.throwIfAborted();
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Compiles the candidate files one at a time, pausing (yield) after each. */
function* compileEntries(workspace: string): Generator<void, CandidateEntries> {
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
    if (r.text !== undefined)
      entries.push({
        file,
        rel: relative(workspace, file),
        text: r.text,
        ...(r.policy ? { policy: r.policy } : {}),
        errors: r.errors,
      });
    yield;
  }
  return { entries, errors };
}
