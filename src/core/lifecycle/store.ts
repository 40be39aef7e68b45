import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { stringify } from "yaml";
import type { InputError } from "../errors.js";
import { policyKey } from "../policy/key.js";
import { compileCandidateText } from "../policy/load.js";
import { unsafePatterns } from "../policy/safety.js";
import { Candidate } from "../policy/schema.js";
import { readRegularFile } from "../regular-file.js";
import { workspacePaths } from "../workspace/paths.js";
import { readCandidateEntries, type StoredCandidate, storedOf } from "./entries.js";

export type { StoredCandidate };

/** Raised when a write would touch a frozen candidate (frozen candidates are immutable). */
export class FrozenError extends Error {}

/** Every valid candidate under `<workspace>/candidates/` (readCandidateEntries, compiled ones). */
export function listCandidates(workspace: string): {
  candidates: StoredCandidate[];
  errors: InputError[];
} {
  const { entries, errors } = readCandidateEntries(workspace);
  return { candidates: entries.flatMap((e) => storedOf(e) ?? []), errors };
}

/**
 * Finds a candidate by `id` (its newest version) or `id@version`. Throws an InputError-free
 * plain Error naming what exists when nothing matches.
 */
export function resolveCandidate(list: readonly StoredCandidate[], ref: string): StoredCandidate {
  const m = /^(.+)@(\d+)$/.exec(ref);
  const id = m ? m[1]! : ref;
  const version = m ? Number(m[2]) : undefined;
  const same = list
    .filter(
      (c) => c.candidate.id === id && (version === undefined || c.candidate.version === version),
    )
    .sort((a, b) => b.candidate.version - a.candidate.version);
  const hit = same[0];
  if (!hit) {
    const known = [...new Set(list.map((c) => policyKey(c.candidate)))];
    throw new Error(
      `no candidate ${ref} in candidates/ (known: ${known.slice(0, 12).join(", ") || "none"})`,
    );
  }
  return hit;
}

/** Text of a candidate in the format its file name asks for (YAML unless `.json`). */
export function candidateText(c: Candidate, file: string): string {
  const ordered = Candidate.parse(c);
  if (extname(file) === ".json") return `${JSON.stringify(ordered, null, 2)}\n`;
  return `# yaml-language-server: $schema=../../schema/candidate.schema.json\n${stringify(ordered, { lineWidth: 100 })}`;
}

/** Whether the file on disk holds a frozen candidate (then nothing may write it). */
export function isFrozenOnDisk(file: string): boolean {
  if (!existsSync(file)) return false;
  const r = compileCandidateText(readRegularFile(file, "utf8"), file, { skipSafety: true });
  return r.policy?.candidate.status === "frozen";
}

/**
 * Writes a candidate atomically after validating it (schema + pattern safety), so a
 * half-valid candidate never reaches disk. Refuses to overwrite a frozen candidate.
 */
export async function writeCandidate(file: string, c: Candidate): Promise<void> {
  if (isFrozenOnDisk(file))
    throw new FrozenError(
      `${file}: the candidate is frozen and cannot be changed; revise it instead`,
    );
  const parsed = Candidate.safeParse(c);
  if (!parsed.success)
    throw new Error(
      `${file}: refusing to write an invalid candidate: ${parsed.error.issues[0]?.message}`,
    );
  const unsafe = unsafePatterns(parsed.data);
  if (unsafe.length > 0)
    throw new Error(`${file}: ${unsafe[0]!.path.join(".")}: ${unsafe[0]!.reason}`);
  // a revision of a candidate outside candidates/drafts/ is the first file there
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, candidateText(parsed.data, file));
}

/** Where a new candidate file goes: `candidates/drafts/<id>[.v<version>].<ext>`. */
export function draftFile(workspace: string, c: Candidate, ext: "yaml" | "json" = "yaml"): string {
  const name = c.version === 1 ? c.id : `${c.id}.v${c.version}`;
  return join(workspacePaths(workspace).drafts, `${name}.${ext}`);
}

export const fileLabel = (file: string): string => basename(file);
