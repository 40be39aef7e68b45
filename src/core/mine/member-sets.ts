import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import writeFileAtomic from "write-file-atomic";
import { workspacePaths } from "../workspace/paths.js";

/**
 * Member sets: the attempt ids a cluster decision names, when there are more than a few,
 * stored once beside the decisions (`mining/member-sets/<digest>.json`, a JSON list of the
 * ids in their order) and named in the decision by their digest and count. A decision on a
 * 1,280-attempt cluster is then ~200 bytes of `mining/decisions.json` instead of ~70 KB, and
 * every rename of that cluster names the same set. The digest is the SHA-256 of the ids as
 * `JSON.stringify` writes them: a file whose ids give the name's digest is the list the
 * decision was made on, whatever its layout; any other is refused.
 */

/** A decision's list of attempt ids as stored: its digest and how many ids it holds. */
export interface MemberSetRef {
  set: string;
  count: number;
}

/** Lists of at most this many ids stay in the decision itself (an exclude or split of one). */
export const MEMBER_SET_INLINE_MAX = 2;

/** The digest a member set is named by. */
export const memberSetDigest = (ids: readonly string[]): string =>
  createHash("sha256").update(JSON.stringify(ids)).digest("hex");

/** The file of the member set `digest` names. */
export const memberSetFile = (workspaceDir: string, digest: string): string =>
  join(workspacePaths(workspaceDir).memberSets, `${digest}.json`);

/** Whether a stored list of ids is a member set's reference (else the ids themselves). */
export const isMemberSetRef = (ids: unknown): ids is MemberSetRef =>
  typeof ids === "object" && ids !== null && !Array.isArray(ids);

/** How many ids a stored list holds. */
export const idCount = (ids: readonly string[] | MemberSetRef): number =>
  isMemberSetRef(ids) ? ids.count : ids.length;

/**
 * The ids of `value` (a member set file's parsed JSON) when they are the ones `ref` names:
 * a list of `ref.count` non-empty strings whose digest is `ref.set`; else undefined.
 */
export function memberSetIds(value: unknown, ref: MemberSetRef): string[] | undefined {
  if (!Array.isArray(value) || value.length !== ref.count) return undefined;
  if (!value.every((id) => typeof id === "string" && id.length > 0)) return undefined;
  return memberSetDigest(value) === ref.set ? (value as string[]) : undefined;
}

/** The ids of the member set `ref` names, read and checked; undefined when missing or not it. */
export async function readMemberSet(
  workspaceDir: string,
  ref: MemberSetRef,
): Promise<string[] | undefined> {
  try {
    return memberSetIds(
      JSON.parse(await readFile(memberSetFile(workspaceDir, ref.set), "utf8")),
      ref,
    );
  } catch {
    return undefined;
  }
}

/**
 * `ids` as a decision stores them: themselves when few, else a reference to their member
 * set, which is written (atomically, before any decision names it) unless it is already
 * there as it should be.
 */
export async function storedIds(
  workspaceDir: string,
  ids: string[],
): Promise<string[] | MemberSetRef> {
  if (ids.length <= MEMBER_SET_INLINE_MAX) return ids;
  const ref: MemberSetRef = { set: memberSetDigest(ids), count: ids.length };
  if (!(await readMemberSet(workspaceDir, ref))) {
    await mkdir(workspacePaths(workspaceDir).memberSets, { recursive: true });
    await writeFileAtomic(
      memberSetFile(workspaceDir, ref.set),
      `${JSON.stringify(ids, null, 1)}\n`,
    );
  }
  return ref;
}
