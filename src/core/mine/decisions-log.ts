import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { lock } from "proper-lockfile";
import writeFileAtomic from "write-file-atomic";
import { workspacePaths } from "../workspace/paths.js";
import { fileStamp } from "../workspace/stamped-cache.js";
import type { Decision, StoredDecision } from "./decisions.js";
import { idCount, isMemberSetRef, readMemberSet, storedIds } from "./member-sets.js";

/**
 * The decisions file's lock and its writes, without the decisions' schema (decisions.ts
 * checks what it reads): a decision appended to a file known to pass the schema — the one
 * a kept clusters summary was computed from, by its stamp — needs no schema to be written.
 */

/** Longest cluster name and exclusion reason a decision may hold (decisions.ts's schema). */
export const DECISION_NAME_MAX = 200;
export const DECISION_REASON_MAX = 500;

/** Runs `fn` holding the workspace's decisions lock (every writer of the file takes it). */
export async function withDecisionsLock<T>(workspaceDir: string, fn: () => Promise<T>): Promise<T> {
  const dir = workspacePaths(workspaceDir).mining;
  await mkdir(dir, { recursive: true });
  const release = await lock(dir, {
    lockfilePath: join(dir, ".decisions.lock"),
    retries: { retries: 20, minTimeout: 20, maxTimeout: 200 },
  });
  try {
    return await fn();
  } finally {
    await release();
  }
}

/**
 * The version of the decisions file fire writes: 2 names long lists of ids by their member
 * set (member-sets.ts); 1, every list spelled out, is still read (and written as 2 by the
 * next decision).
 */
export const DECISIONS_VERSION = 2;

/** The file's text as fire writes it (what `loadDecisionsAt` then reads back). */
export const decisionsText = (file: {
  version: number;
  decisions: readonly StoredDecision[];
}): string => `${JSON.stringify(file, null, 2)}\n`;

/** The keys of each decision in the schema's order: the order its parse gives them. */
const KEYS: Record<Decision["op"], readonly string[]> = {
  rename: ["op", "at", "members", "name"],
  merge: ["op", "at", "groups", "name"],
  split: ["op", "at", "attemptIds", "name"],
  exclude: ["op", "at", "attemptIds", "reason"],
};

type Ids = Extract<StoredDecision, { op: "exclude" }>["attemptIds"];

/** A list of ids as the schema's parse gives it (a member set's keys in its order). */
const idsInOrder = (ids: Ids): Ids =>
  isMemberSetRef(ids) ? { set: ids.set, count: ids.count } : ids;

/** A decision that passed the schema, with its keys in the order the schema's parse gives. */
export function schemaOrder<D extends StoredDecision>(d: D): D {
  const out: Record<string, unknown> = {};
  for (const k of KEYS[d.op]) {
    const v = (d as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return mapLists(out as D, idsInOrder);
}

/** `d` with each of its lists of ids (a merge's groups each) as `f` gives it. */
function mapLists<D extends StoredDecision>(d: D, f: (ids: Ids) => Ids): D {
  if (d.op === "rename") return { ...d, members: f(d.members) };
  if (d.op === "merge") return { ...d, groups: d.groups.map(f) };
  return { ...d, attemptIds: f(d.attemptIds) };
}

/** The lists of ids of a decision (a merge's groups), as stored. */
export const idLists = (d: StoredDecision): Ids[] =>
  d.op === "rename" ? [d.members] : d.op === "merge" ? d.groups : [d.attemptIds];

/** `d` with its lists of ids given by `f` (in order, one call per list). */
async function withLists<T>(
  d: StoredDecision,
  f: (ids: Ids) => Promise<T>,
): Promise<StoredDecision> {
  const lists = await Promise.all(idLists(d).map(f));
  let i = 0;
  return mapLists(d, () => lists[i++] as Ids);
}

/**
 * `d` as fire writes it: keys in the schema's order, and each list of more than a few ids
 * stored as its member set (written first when it is not there yet).
 */
export async function storedDecision(
  workspaceDir: string,
  d: StoredDecision,
): Promise<StoredDecision> {
  return schemaOrder(
    await withLists(d, async (ids) => (isMemberSetRef(ids) ? ids : storedIds(workspaceDir, ids))),
  );
}

/**
 * `d` with every member set it names read back (checked against its digest, as fire wrote
 * it); undefined when one is missing or not the one named (the checked path, decisions.ts
 * `loadDecisionsAt`, says why).
 */
export async function resolvedDecision(
  workspaceDir: string,
  d: StoredDecision,
): Promise<Decision | undefined> {
  let missing = false;
  const out = await withLists(d, async (ids) => {
    if (!isMemberSetRef(ids)) return ids;
    const got = await readMemberSet(workspaceDir, ids);
    if (!got) missing = true;
    return got ?? ids;
  });
  return missing ? undefined : (out as Decision);
}

/** The SHA-256 of the decisions as fire writes them: equal for equal decisions. */
export function decisionsDigest(decisions: readonly StoredDecision[]): string {
  const text = decisionsText({
    version: DECISIONS_VERSION,
    decisions: decisions.map(schemaOrder),
  });
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Rewrites the decisions file as `edit` gives it while it is the file whose stamp is `known`
 * (one that passed the schema: what `edit` returns is checked by the caller as the schema
 * would), under the lock. Returns the stamp of the file written and the decisions it held,
 * each in the schema's key order; undefined, writing nothing, when the file is not that one
 * any more or `edit` declines (the caller then takes the checked path).
 */
export function editKnownDecisions(
  workspaceDir: string,
  known: string,
  edit: (
    cur: readonly StoredDecision[],
  ) => readonly StoredDecision[] | undefined | Promise<readonly StoredDecision[] | undefined>,
): Promise<{ stamp: string; before: StoredDecision[] } | undefined> {
  const file = workspacePaths(workspaceDir).decisions;
  return withDecisionsLock(workspaceDir, async () => {
    if (fileStamp(file) !== known) return undefined;
    let cur: StoredDecision[] = [];
    if (known !== "none") {
      const parsed = JSON.parse(await readFile(file, "utf8")) as {
        decisions: StoredDecision[];
      };
      if (fileStamp(file) !== known) return undefined;
      // a version 1 file's long lists become member sets here, once
      cur = await Promise.all(parsed.decisions.map((d) => storedDecision(workspaceDir, d)));
    }
    const next = await edit(cur);
    if (!next) return undefined;
    const stored = await Promise.all(next.map((d) => storedDecision(workspaceDir, d)));
    await writeFileAtomic(file, decisionsText({ version: DECISIONS_VERSION, decisions: stored }));
    return { stamp: fileStamp(file), before: cur };
  });
}

/** One line saying what a decision did (the workbench's decision history, `fire cluster undo`). */
export function describeDecision(d: StoredDecision): string {
  const n = (count: number) => `${count} attempt${count === 1 ? "" : "s"}`;
  if (d.op === "rename") return `rename ${n(idCount(d.members))} → “${d.name}”`;
  if (d.op === "merge") {
    const count = d.groups.reduce((sum, g) => sum + idCount(g), 0);
    return `merge ${d.groups.length} clusters (${n(count)})${d.name ? ` → “${d.name}”` : ""}`;
  }
  if (d.op === "split") {
    const ids = isMemberSetRef(d.attemptIds) ? n(d.attemptIds.count) : d.attemptIds.join(", ");
    return `split ${ids} out${d.name ? ` as “${d.name}”` : ""}`;
  }
  return `exclude ${n(idCount(d.attemptIds))}: ${d.reason}`;
}
