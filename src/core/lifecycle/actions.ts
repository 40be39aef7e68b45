import { policyKey } from "../policy/key.js";
import type { Candidate } from "../policy/schema.js";
import { draftFile, FrozenError, type StoredCandidate, writeCandidate } from "./store.js";

/**
 * The user's lifecycle decisions. Every change appends to the candidate's `history` (time,
 * status, note) and is written atomically; a frozen candidate is never rewritten.
 */

type Status = Candidate["status"];

export function withHistory(c: Candidate, note: string, now: Date, status?: Status): Candidate {
  const s = status ?? c.status;
  return { ...c, status: s, history: [...c.history, { at: now.toISOString(), status: s, note }] };
}

export interface ReviseResult {
  file: string;
  candidate: Candidate;
  /** The old candidate's history was updated (false when it is frozen). */
  oldUpdated: boolean;
}

/**
 * A revision is a new identity: the same id with the next free version, `supersedes` the old
 * one, status draft. `edited` is the user's changed candidate (its id/version/lineage are
 * replaced); without it the new version starts as a copy to edit. The old file stays.
 */
export async function reviseCandidate(
  workspace: string,
  old: StoredCandidate,
  all: readonly StoredCandidate[],
  opts: { edited?: Candidate; note: string; now: Date; verb?: "revised" | "refined" },
): Promise<ReviseResult> {
  const o = old.candidate;
  const version =
    Math.max(...all.filter((c) => c.candidate.id === o.id).map((c) => c.candidate.version)) + 1;
  const base = opts.edited ?? o;
  const next = withHistory(
    {
      ...base,
      id: o.id,
      version,
      status: "draft",
      lineage: { ...o.lineage, supersedes: policyKey(o) },
      history: o.history,
    },
    `${opts.verb ?? "revised"} from ${policyKey(o)}: ${opts.note}`,
    opts.now,
    "draft",
  );
  const file = draftFile(workspace, next);
  await writeCandidate(file, next);
  let oldUpdated = false;
  if (o.status !== "frozen") {
    await writeCandidate(
      old.file,
      withHistory(
        o,
        `superseded by ${o.id}@${version}${opts.verb === "refined" ? " (refined)" : ""}: ${opts.note}`,
        opts.now,
      ),
    );
    oldUpdated = true;
  }
  return { file, candidate: next, oldUpdated };
}

export async function retireCandidate(
  c: StoredCandidate,
  reason: string,
  now: Date,
): Promise<Candidate> {
  if (c.candidate.status === "frozen")
    throw new FrozenError(
      `${c.file}: ${policyKey(c.candidate)} is frozen; leave it out of the next portfolio instead`,
    );
  const next = withHistory(c.candidate, `retired: ${reason}`, now, "retired");
  await writeCandidate(c.file, next);
  return next;
}

/** Draft → screening (the user decides it is worth a run screen). */
export async function promoteCandidate(
  c: StoredCandidate,
  note: string,
  now: Date,
): Promise<Candidate> {
  const s = c.candidate.status;
  if (s !== "draft")
    throw new Error(`${policyKey(c.candidate)} is ${s}; only a draft can be promoted to screening`);
  const next = withHistory(
    c.candidate,
    `promoted to screening${note ? `: ${note}` : ""}`,
    now,
    "screening",
  );
  await writeCandidate(c.file, next);
  return next;
}
