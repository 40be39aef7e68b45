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

/** Above this many attempts, attempts are matched by id substring instead of fuzzily. */
export const FUZZY_ATTEMPTS = 2_000;

export interface Searcher {
  search(query: string, limit: number): SearchItem[];
}

const fuseOf = (items: SearchItem[]): Fuse<SearchItem> =>
  new Fuse(items, {
    keys: [
      { name: "title", weight: 2 },
      { name: "text", weight: 1 },
    ],
    threshold: 0.4,
    ignoreLocation: true,
  });

/**
 * Search over the items with fuse.js: the title (ids, names) weighs more than the extra text
 * (task text, mechanism). In large workspaces (more than `fuzzyAttempts` attempts) attempts
 * are matched by a case-insensitive substring of their id, listed first, so a keystroke stays
 * fast; tasks, clusters and candidates stay fuzzy.
 */
export function createSearcher(items: SearchItem[], fuzzyAttempts = FUZZY_ATTEMPTS): Searcher {
  const attempts = items.filter((i) => i.kind === "attempt");
  if (attempts.length <= fuzzyAttempts) {
    const fuse = fuseOf(items);
    return { search: (q, limit) => fuse.search(q, { limit }).map((r) => r.item) };
  }
  const fuse = fuseOf(items.filter((i) => i.kind !== "attempt"));
  const ids = attempts.map((a) => a.ref.toLowerCase());
  return {
    search(q, limit) {
      const needle = q.toLowerCase();
      const exact: SearchItem[] = [];
      for (let i = 0; i < ids.length && exact.length < limit; i++)
        if (ids[i]!.includes(needle)) exact.push(attempts[i]!);
      const rest = fuse.search(q, { limit: limit - exact.length }).map((r) => r.item);
      return [...exact, ...rest].slice(0, limit);
    },
  };
}
