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

/** One line: newlines and runs of white space become one space (a result is one row). */
const flatten = (s: string): string => s.replace(/\s+/g, " ").trim();

/** Builds the search items: tasks, attempts, clusters and candidates. */
export function searchItems(
  attempts: readonly Attempt[],
  clusters: readonly Cluster[],
  candidates: readonly CandidateEntry[],
): SearchItem[] {
  const items: SearchItem[] = [];
  const tasks = new Map<string, string>();
  for (const a of attempts) if (!tasks.has(a.taskId)) tasks.set(a.taskId, a.taskText);
  for (const [id, text] of tasks) {
    const flat = flatten(text);
    items.push({ kind: "task", ref: id, title: id, detail: flat.slice(0, 200), text: flat });
  }
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
      detail: flatten(`${c.id} ${c.mechanism}`),
      text: flatten(`${c.id} ${c.mechanism}`),
    });
  for (const c of candidates)
    items.push({
      kind: "candidate",
      ref: c.file,
      title: c.policy?.id ?? c.rel,
      detail: flatten(c.policy?.candidate.title ?? "(does not compile)"),
      text: flatten(`${c.rel} ${c.policy?.candidate.title ?? ""}`),
    });
  return items;
}

/** Above this many attempts, attempts are matched by id substring instead of fuzzily. */
export const FUZZY_ATTEMPTS = 2_000;

export interface Searcher {
  search(query: string, limit: number): SearchItem[];
}

/**
 * Characters of an item's text the fuzzy pass reads: typos are forgiven in ids, names and
 * the start of a text, while the literal pass reads every text whole (a fuzzy match over
 * thousands of whole task texts would cost a keystroke hundreds of milliseconds).
 */
export const FUZZY_TEXT = 240;

const fuseOf = (items: SearchItem[]): Fuse<SearchItem> =>
  new Fuse(items, {
    keys: [
      { name: "title", weight: 2 },
      { name: "text", weight: 1, getFn: (i) => (i.text ?? "").slice(0, FUZZY_TEXT) },
    ],
    threshold: 0.4,
    ignoreLocation: true,
  });

/** Items whose title or text holds the whole query, then those holding every word of it. */
function literalHits(
  items: readonly SearchItem[],
  lower: readonly string[],
  q: string,
  limit: number,
): SearchItem[] {
  const needle = q.toLowerCase().trim();
  const words = needle.split(/\s+/).filter(Boolean);
  const phrase: SearchItem[] = [];
  const allWords: SearchItem[] = [];
  for (let i = 0; i < items.length && phrase.length < limit; i++) {
    const hay = lower[i]!;
    if (hay.includes(needle)) phrase.push(items[i]!);
    else if (words.length > 1 && allWords.length < limit && words.every((w) => hay.includes(w)))
      allWords.push(items[i]!);
  }
  return [...phrase, ...allWords].slice(0, limit);
}

/**
 * Search over the items: first every item holding the query literally (case-insensitive, in
 * its id/name or its whole text — `keep the server running` finds the task texts saying so),
 * then items holding each of its words, then fuse.js fuzzy matches (the title weighs more than
 * the text). In large workspaces (more than `fuzzyAttempts` attempts) attempts are matched by
 * the literal pass only, so a keystroke stays fast; tasks, clusters and candidates stay fuzzy.
 */
export function createSearcher(items: SearchItem[], fuzzyAttempts = FUZZY_ATTEMPTS): Searcher {
  const lower = items.map((i) => `${i.title}\n${i.text ?? ""}`.toLowerCase());
  const manyAttempts = items.filter((i) => i.kind === "attempt").length > fuzzyAttempts;
  const fuse = fuseOf(manyAttempts ? items.filter((i) => i.kind !== "attempt") : items);
  return {
    search(q, limit) {
      if (!q.trim()) return [];
      const literal = literalHits(items, lower, q, limit);
      // literal hits come first: when they fill the page, fuzzy ones could not show
      if (literal.length >= limit) return literal;
      const seen = new Set(literal);
      const fuzzy = fuse
        .search(q, { limit })
        .map((r) => r.item)
        .filter((i) => !seen.has(i));
      return [...literal, ...fuzzy].slice(0, limit);
    },
  };
}
