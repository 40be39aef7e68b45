import { readFile } from "node:fs/promises";
import writeFileAtomic from "write-file-atomic";
import { z } from "zod";
import { describeZodIssues, InputError, lineAtOffset, parseJsonText } from "../errors.js";
import { workspacePaths } from "../workspace/paths.js";
import {
  DECISION_NAME_MAX,
  DECISION_REASON_MAX,
  DECISIONS_VERSION,
  decisionsText,
  idLists,
  storedDecision,
  withDecisionsLock,
} from "./decisions-log.js";
import { isMemberSetRef, type MemberSetRef, memberSetFile, memberSetIds } from "./member-sets.js";

export { describeDecision } from "./decisions-log.js";

const Ids = z.array(z.string().min(1)).min(1);
const At = z.string().optional();
const Name = z.string().min(1).max(DECISION_NAME_MAX);

/** A list of ids stored as its member set (member-sets.ts): its SHA-256 and its count. */
const MemberSet = z.strictObject({
  set: z.string().regex(/^[0-9a-f]{64}$/, "expected a member set's SHA-256 (64 hex digits)"),
  count: z.number().int().min(1),
});

/** The decisions over lists of ids of the kind `ids` gives. */
const decisionOver = <I extends z.ZodType<readonly string[] | MemberSetRef>>(ids: I) =>
  z.discriminatedUnion("op", [
    z.strictObject({ op: z.literal("rename"), at: At, members: ids, name: Name }),
    z.strictObject({
      op: z.literal("merge"),
      at: At,
      groups: z.array(ids).min(2),
      name: Name.optional(),
    }),
    z.strictObject({ op: z.literal("split"), at: At, attemptIds: ids, name: Name.optional() }),
    z.strictObject({
      op: z.literal("exclude"),
      at: At,
      attemptIds: ids,
      reason: z.string().min(1).max(DECISION_REASON_MAX),
    }),
  ]);

/**
 * User decisions over clusters. They name attempts (never cluster ids, which change
 * with membership), so a re-clustering can apply them again in order.
 */
export const Decision = decisionOver(Ids);
export type Decision = z.infer<typeof Decision>;

/** A decision as the file holds it: a long list of ids as its member set. */
export const StoredDecision = decisionOver(z.union([Ids, MemberSet]));
export type StoredDecision = z.infer<typeof StoredDecision>;

/** The file: version 2 (`DECISIONS_VERSION`) as fire writes it, or version 1 (every id inline). */
export const StoredDecisionsFile = z.discriminatedUnion("version", [
  z.strictObject({ version: z.literal(1), decisions: z.array(Decision) }),
  z.strictObject({ version: z.literal(2), decisions: z.array(StoredDecision) }),
]);
export type StoredDecisionsFile = z.infer<typeof StoredDecisionsFile>;

/** The decisions as fire reads them: every member set read back. */
export interface DecisionsFile {
  version: typeof DECISIONS_VERSION;
  decisions: Decision[];
}

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
export function parseDecisions(text: string, file: string): StoredDecisionsFile {
  const r = StoredDecisionsFile.safeParse(parseJsonText(text, file));
  if (r.success) return r.data;
  const entry = r.error.issues[0]?.path[1];
  const line = typeof entry === "number" ? decisionLines(text)[entry] : undefined;
  throw new InputError(
    file,
    line,
    `expected {version: 2, decisions: [...]} (or version 1): ${describeZodIssues(r.error.issues)}`,
  );
}

/**
 * The ids of the member set `ref` names, read and checked; an input error naming the
 * decision's line (in `file`) and the set's file when it is missing or not that set.
 */
async function memberSetAt(
  workspaceDir: string,
  ref: MemberSetRef,
  file: string,
  line: number | undefined,
): Promise<string[]> {
  const setFile = memberSetFile(workspaceDir, ref.set);
  const fail = (why: string): never => {
    throw new InputError(file, line, `member set ${setFile} ${why}`);
  };
  let text = "";
  try {
    text = await readFile(setFile, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    fail(
      code === "ENOENT"
        ? "is missing (keep mining/member-sets/ with the decisions)"
        : `cannot be read: ${(err as Error).message}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    fail(`is not JSON: ${(err as Error).message}`);
  }
  const r = Ids.safeParse(value);
  if (!r.success) fail(`is not a list of attempt ids: ${describeZodIssues(r.error.issues)}`);
  const ids = memberSetIds(value, ref);
  if (!ids)
    fail(
      r.data?.length === ref.count
        ? "holds other ids than the ones its name is the digest of (changed since written)"
        : `holds ${r.data?.length} ids, the decision says ${ref.count}`,
    );
  return ids as string[];
}

/** The decisions of a file as fire uses them: each member set read back (once). */
async function resolved(
  workspaceDir: string,
  stored: readonly StoredDecision[],
  file: string,
  lines: readonly number[],
): Promise<Decision[]> {
  const sets = new Map<string, Promise<string[]>>();
  return Promise.all(
    stored.map(async (d, i) => {
      if (!idLists(d).some(isMemberSetRef)) return d as Decision;
      const ids = async (x: string[] | MemberSetRef) => {
        if (!isMemberSetRef(x)) return x;
        const key = `${x.set} ${x.count}`;
        let got = sets.get(key);
        if (!got) {
          got = memberSetAt(workspaceDir, x, file, lines[i]);
          sets.set(key, got);
        }
        return got;
      };
      if (d.op === "rename") return { ...d, members: await ids(d.members) };
      if (d.op === "merge") return { ...d, groups: await Promise.all(d.groups.map(ids)) };
      return { ...d, attemptIds: await ids(d.attemptIds) };
    }),
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
      return { file, decisions: { version: DECISIONS_VERSION, decisions: [] }, lines: [] };
    throw new InputError(file, undefined, `cannot read: ${(err as Error).message}`);
  }
  const lines = decisionLines(text);
  const stored = parseDecisions(text, file).decisions;
  const decisions = await resolved(workspaceDir, stored, file, lines);
  return { file, decisions: { version: DECISIONS_VERSION, decisions }, lines };
}

/**
 * Rewrites the decisions under a lock (read-modify-write, atomic replace; long lists of ids
 * as member sets, written first); returns what it wrote, as loadDecisionsAt would read it
 * (with decisions other processes appended).
 */
async function editDecisions(
  workspaceDir: string,
  edit: (cur: readonly Decision[]) => Decision[],
): Promise<DecisionsAt> {
  const file = decisionsPath(workspaceDir);
  return withDecisionsLock(workspaceDir, async () => {
    const cur = await loadDecisions(workspaceDir);
    const next = edit(cur.decisions);
    const stored = await Promise.all(next.map((d) => storedDecision(workspaceDir, d)));
    const text = decisionsText({ version: DECISIONS_VERSION, decisions: stored });
    await writeFileAtomic(file, text);
    return {
      file,
      decisions: { version: DECISIONS_VERSION, decisions: next },
      lines: decisionLines(text),
    };
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
