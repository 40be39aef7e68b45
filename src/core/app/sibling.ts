import { compareWith, type SiblingComparison, siblingEvidence } from "../mine/sibling-diff.js";
import type { Attempt } from "../model/attempt.js";
import type { Workspace } from "../workspace/load.js";

export type { SiblingComparison, SiblingDifference } from "../mine/sibling-diff.js";

/** What the sibling comparison reads: the loaded workspace (a WorkspaceSession is one). */
export interface SiblingSession {
  readonly ws: Workspace;
  readonly byId: ReadonlyMap<string, Attempt>;
}

/**
 * The evidence from the passing sibling for a failed attempt (the workbench's compare view,
 * `fire show`): with `otherId`, against that attempt when one of the two passed and the other
 * did not (either order); without it, against the best-matching passing attempt of the same
 * task. Undefined when there is no such pair (both passed, both failed, no passing sibling).
 */
export function siblingComparison(
  s: SiblingSession,
  attemptId: string,
  otherId?: string,
): SiblingComparison | undefined {
  const a = s.byId.get(attemptId);
  if (!a) return undefined;
  if (otherId === undefined) return siblingEvidence(a, s.ws.attempts);
  const b = s.byId.get(otherId);
  if (!b || a.taskId !== b.taskId) return undefined;
  if (a.outcome !== "pass" && b.outcome === "pass") return compareWith(a, b);
  if (b.outcome !== "pass" && a.outcome === "pass") return compareWith(b, a);
  return undefined;
}
