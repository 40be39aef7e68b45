import Fuse from "fuse.js";
import type { Cluster } from "../../core/mine/cluster.js";
import type { Attempt } from "../../core/model/attempt.js";
import type { CandidateEntry } from "./candidates.js";

export type SearchKind = "task" | "attempt" | "cluster" | "candidate";

/** One thing `/` can find and open. */
export interface SearchItem {
  kind: SearchKind;
  /** Task id, attempt id, cluster id or candidate file. */
  ref: string;
  title: string;
  detail: string;
  /** Extra text searched besides the title (task text, mechanism); attempts have none. */
  text?: string;
}

/** Builds the search items: tasks, attempts, clusters and candidates. */
export function searchItems(
  attempts: readonly Attempt[],
  clusters: readonly Cluster[],
  candidates: readonly CandidateEntry[],
): SearchItem[] {
  const items: SearchItem[] = [];
  const tasks = new Map<string, string>();
  for (const a of attempts) if (!tasks.has(a.taskId)) tasks.set(a.taskId, a.taskText);
  for (const [id, text] of tasks)
    items.push({
      kind: "task",
      ref: id,
      title: id,
      detail: text.slice(0, 120),
      text: text.slice(0, 120),
    });
  for (const a of attempts)
    items.push({
      kind: "attempt",
      ref: a.id,
      title: a.id,
      detail: `${a.taskId} ${a.outcome} ${a.agent ?? ""} ${a.model ?? ""}`,
    });
  for (const c of clusters)
    items.push({
      kind: "cluster",
      ref: c.id,
      title: c.name,
      detail: `${c.id} ${c.mechanism}`,
      text: `${c.id} ${c.mechanism}`,
    });
  for (const c of candidates)
    items.push({
      kind: "candidate",
      ref: c.file,
      title: c.policy?.id ?? c.rel,
      detail: c.policy?.candidate.title ?? "(does not compile)",
      text: `${c.rel} ${c.policy?.candidate.title ?? ""}`,
    });
  return items;
}

/**
 * A fuse.js index over search items: the title (ids, names) weighs more than the extra text;
 * an attempt is found by its id, which already holds its task id.
 */
export function searchIndex(items: SearchItem[]): Fuse<SearchItem> {
  return new Fuse(items, {
    keys: [
      { name: "title", weight: 2 },
      { name: "text", weight: 1 },
    ],
    threshold: 0.4,
    ignoreLocation: true,
  });
}
