import { readFile } from "node:fs/promises";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { describeZodIssues, InputError, lineAtOffset, parseJsonText } from "../errors.js";
import { workspacePaths } from "../workspace/paths.js";
import {
  DECISION_NAME_MAX,
  DECISION_REASON_MAX,
  decisionsText,
  withDecisionsLock,
} from "./decisions-log.js";

export { describeDecision } from "./decisions-log.js";

const Ids = z.array(z.string().min(1)).min(1);
const At = z.string().optional();

/**
 * User decisions over clusters. They name attempts (never cluster ids, which change
 * with membership), so a re-clustering can apply them again in order.
 */
export const Decision = z.discriminatedUnion("op", [
  z.strictObject({
    op: z.literal("rename"),
    at: At,
    members: Ids,
    name: z.string().min(1).max(DECISION_NAME_MAX),
  }),
  z.strictObject({
    op: z.literal("merge"),
    at: At,
    groups: z.array(Ids).min(2),
    name: z.string().min(1).max(DECISION_NAME_MAX).optional(),
  }),
  z.strictObject({
    op: z.literal("split"),
    at: At,
    attemptIds: Ids,
    name: z.string().min(1).max(DECISION_NAME_MAX).optional(),
  }),
  z.strictObject({
    op: z.literal("exclude"),
    at: At,
    attemptIds: Ids,
    reason: z.string().min(1).max(DECISION_REASON_MAX),
  }),
]);
export type Decision = z.infer<typeof Decision>;

export const DecisionsFile = z.strictObject({
  version: z.literal(1),
  decisions: z.array(Decision),
});
export type DecisionsFile = z.infer<typeof DecisionsFile>;

/** `<workspace>/mining/decisions.json` (plain, diffable, committed by users). */
export function decisionsPath(workspaceDir: string): string {
  return workspacePaths(workspaceDir).decisions;
}

/** 1-based line of each decision entry (its `"op":` key), in file order. */
export function decisionLines(text: string): number[] {
  const lines: number[] = [];
  const re = /"op"\s*:/g;
  for (let m = re.exec(text); m; m = re.exec(text)) lines.push(lineAtOffset(text, m.index));
  return lines;
}

/** Parses decisions text; errors name the file and (for syntax errors or a bad entry) the line. */
export function parseDecisions(text: string, file: string): DecisionsFile {
  const r = DecisionsFile.safeParse(parseJsonText(text, file));
  if (r.success) return r.data;
  const entry = r.error.issues[0]?.path[1];
  const line = typeof entry === "number" ? decisionLines(text)[entry] : undefined;
  throw new InputError(
    file,
    line,
    `expected {version: 1, decisions: [...]}: ${describeZodIssues(r.error.issues)}`,
  );
}

/** Reads the decisions of a workspace; a missing file means none. */
export async function loadDecisions(workspaceDir: string): Promise<DecisionsFile> {
  return (await loadDecisionsAt(workspaceDir)).decisions;
}

/** The decisions with the file they came from and the line of each entry. */
export interface DecisionsAt {
  file: string;
  decisions: DecisionsFile;
  lines: number[];
}

/** The decisions with the file they came from and the line of each entry. */
export async function loadDecisionsAt(workspaceDir: string): Promise<DecisionsAt> {
  const file = decisionsPath(workspaceDir);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      return { file, decisions: { version: 1, decisions: [] }, lines: [] };
    throw new InputError(file, undefined, `cannot read: ${(err as Error).message}`);
  }
  return { file, decisions: parseDecisions(text, file), lines: decisionLines(text) };
}

/**
 * Rewrites the decisions under a lock (read-modify-write, atomic replace); returns what it
 * wrote, as loadDecisionsAt would read it (with decisions other processes appended).
 */
async function editDecisions(
  workspaceDir: string,
  edit: (cur: readonly Decision[]) => Decision[],
): Promise<DecisionsAt> {
  const file = decisionsPath(workspaceDir);
  return withDecisionsLock(workspaceDir, async () => {
    const cur = await loadDecisions(workspaceDir);
    const next: DecisionsFile = { version: 1, decisions: edit(cur.decisions) };
    const text = decisionsText(next);
    await writeFileAtomic(file, text);
    return { file, decisions: next, lines: decisionLines(text) };
  });
}

/** Appends one decision under a lock (read-modify-write, atomic replace). */
export function appendDecision(workspaceDir: string, d: Decision): Promise<DecisionsAt> {
  return editDecisions(workspaceDir, (cur) => [...cur, Decision.parse(d)]);
}

/**
 * Undoes the newest decision (removes it; clusters are rebuilt from the rest). Returns
 * the decision undone (undefined when there was none) and the decisions left.
 */
export async function undoLastDecision(
  workspaceDir: string,
): Promise<{ undone: Decision | undefined; at: DecisionsAt }> {
  let undone: Decision | undefined;
  const at = await editDecisions(workspaceDir, (cur) => {
    undone = cur[cur.length - 1];
    return cur.slice(0, -1);
  });
  return { undone, at };
}

/** Attempt id → reason for every `exclude` decision (later decisions win). */
export function userExclusions(decisions: readonly Decision[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const d of decisions)
    if (d.op === "exclude") for (const id of d.attemptIds) m.set(id, d.reason);
  return m;
}

/** Like userExclusions, with the decisions file and the line of the deciding entry. */
export function userExclusionsAt(
  file: string,
  decisions: readonly Decision[],
  lines: readonly number[],
): Map<string, { reason: string; file: string; line?: number }> {
  const m = new Map<string, { reason: string; file: string; line?: number }>();
  decisions.forEach((d, i) => {
    if (d.op !== "exclude") return;
    const line = lines[i];
    for (const id of d.attemptIds)
      m.set(id, { reason: d.reason, file, ...(line !== undefined ? { line } : {}) });
  });
  return m;
}
