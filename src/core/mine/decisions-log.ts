import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { lock } from "proper-lockfile";
import writeFileAtomic from "write-file-atomic";
import { workspacePaths } from "../workspace/paths.js";
import { fileStamp } from "../workspace/stamped-cache.js";
import type { Decision, DecisionsFile } from "./decisions.js";

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

/** The file's text as fire writes it (what `loadDecisionsAt` then reads back). */
export const decisionsText = (file: DecisionsFile): string => `${JSON.stringify(file, null, 2)}\n`;

/** The keys of each decision in the schema's order: the order its parse gives them. */
const KEYS: Record<Decision["op"], readonly string[]> = {
  rename: ["op", "at", "members", "name"],
  merge: ["op", "at", "groups", "name"],
  split: ["op", "at", "attemptIds", "name"],
  exclude: ["op", "at", "attemptIds", "reason"],
};

/** A decision that passed the schema, with its keys in the order the schema's parse gives. */
export function schemaOrder(d: Decision): Decision {
  const out: Record<string, unknown> = {};
  for (const k of KEYS[d.op]) {
    const v = (d as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out as Decision;
}

/** The SHA-256 of the decisions as fire writes them: equal for equal decisions. */
export function decisionsDigest(decisions: readonly Decision[]): string {
  const text = decisionsText({ version: 1, decisions: decisions.map(schemaOrder) });
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
  edit: (cur: readonly Decision[]) => readonly Decision[] | undefined,
): Promise<{ stamp: string; before: Decision[] } | undefined> {
  const file = workspacePaths(workspaceDir).decisions;
  return withDecisionsLock(workspaceDir, async () => {
    if (fileStamp(file) !== known) return undefined;
    let cur: Decision[] = [];
    if (known !== "none") {
      const parsed = JSON.parse(await readFile(file, "utf8")) as DecisionsFile;
      if (fileStamp(file) !== known) return undefined;
      cur = parsed.decisions.map(schemaOrder);
    }
    const next = edit(cur);
    if (!next) return undefined;
    await writeFileAtomic(file, decisionsText({ version: 1, decisions: next.map(schemaOrder) }));
    return { stamp: fileStamp(file), before: cur };
  });
}

/** One line saying what a decision did (the workbench's decision history, `fire cluster undo`). */
export function describeDecision(d: Decision): string {
  const n = (ids: readonly string[]) => `${ids.length} attempt${ids.length === 1 ? "" : "s"}`;
  if (d.op === "rename") return `rename ${n(d.members)} → “${d.name}”`;
  if (d.op === "merge")
    return `merge ${d.groups.length} clusters (${n(d.groups.flat())})${d.name ? ` → “${d.name}”` : ""}`;
  if (d.op === "split")
    return `split ${d.attemptIds.join(", ")} out${d.name ? ` as “${d.name}”` : ""}`;
  return `exclude ${n(d.attemptIds)}: ${d.reason}`;
}
