import { mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { describeZodIssues, InputError, parseJsonText } from "../errors.js";
import { workspacePaths } from "./paths.js";

/** The outcomes a person can give an attempt that has no verifier outcome. */
export const HandOutcome = z.enum(["pass", "fail"]);
export type HandOutcome = z.infer<typeof HandOutcome>;

const Entry = z.strictObject({
  outcome: HandOutcome.optional(),
  tags: z.array(z.string().min(1).max(64)).max(32).default([]),
  at: z.string(),
});
export type HandEntry = z.infer<typeof Entry>;

const HandFile = z.strictObject({
  version: z.literal(1),
  attempts: z.record(z.string(), Entry),
});

/** What people recorded by hand for attempts without a verifier: outcome and tags. */
export interface HandMarks {
  file: string;
  entries: ReadonlyMap<string, HandEntry>;
}

/** `mining/outcomes.json` (user data next to the cluster decisions, not a cache). */
export function handOutcomesFile(dir: string): string {
  return workspacePaths(dir).handOutcomes;
}

/** Reads the hand outcomes and tags; none when the file is absent. Bad content is an InputError. */
export async function readHandMarks(dir: string): Promise<HandMarks> {
  const file = handOutcomesFile(dir);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return { file, entries: new Map() };
  }
  const r = HandFile.safeParse(parseJsonText(text, file));
  if (!r.success) throw new InputError(file, undefined, describeZodIssues(r.error.issues));
  return { file, entries: new Map(Object.entries(r.data.attempts)) };
}

/** The hand outcomes alone, by attempt id (what triage takes). */
export function handOutcomesOf(marks: HandMarks): Map<string, HandOutcome> {
  const out = new Map<string, HandOutcome>();
  for (const [id, e] of marks.entries) if (e.outcome) out.set(id, e.outcome);
  return out;
}

export interface HandChange {
  /** null clears the outcome; undefined leaves it. */
  outcome?: HandOutcome | null;
  /** Replaces the tags (trimmed, empty ones dropped, each once). */
  tags?: string[];
}

/** Records an outcome and/or tags for an attempt (the file is rewritten atomically). */
export async function setHandMark(
  dir: string,
  attemptId: string,
  change: HandChange,
  now = new Date(),
): Promise<HandMarks> {
  const marks = await readHandMarks(dir);
  const all = Object.fromEntries(marks.entries);
  const prev = all[attemptId];
  const outcome = change.outcome === undefined ? prev?.outcome : (change.outcome ?? undefined);
  const tags =
    change.tags === undefined
      ? (prev?.tags ?? [])
      : [...new Set(change.tags.map((t) => t.trim()).filter(Boolean))];
  if (!outcome && tags.length === 0) delete all[attemptId];
  else all[attemptId] = { ...(outcome ? { outcome } : {}), tags, at: now.toISOString() };
  const file = handOutcomesFile(dir);
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify({ version: 1, attempts: all }, null, 2)}\n`);
  return { file, entries: new Map(Object.entries(all)) };
}
