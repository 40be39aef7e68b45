import { compileRegex } from "../policy/condition.js";
import { capText } from "../policy/patterns.js";
import type { Pattern } from "../policy/schema.js";
import type { TaskText } from "../route/audit.js";
import { NAMED_DIR, NAMED_FILE, TIME_LIMIT } from "./shapes.js";

/**
 * Eligibility learned from a cluster's task texts against nearby negatives (the workspace's
 * other tasks): phrases frequent in the positives and rare in the negatives. Shapes first —
 * a kind of file the task names, a folder path, a stated time limit — because they read the
 * same in every language; then words (Latin words, CJK bigrams). A word that spells part of a
 * positive's task id is never a phrase (it would name the task), and a word must occur in two
 * distinct positive tasks (one task's words only describe that task). Counts are per
 * distinct task.
 */

export interface LearnedPhrase {
  pattern: Pattern;
  /** What the phrase is, for people (`names a .ics file`, `word "pytest"`). */
  label: string;
  /** Positive / negative tasks the phrase routes. */
  positives: number;
  negatives: number;
}

export interface LearnedEligibility {
  phrases: LearnedPhrase[];
  /** Distinct positive and negative tasks. */
  positives: number;
  negatives: number;
  /** Positive tasks at least one phrase routes. */
  covered: number;
  /** Positive tasks no learned phrase routes (the template's default eligibility covers them). */
  uncovered: string[];
}

/** A phrase may route at most this share of the negatives. */
export const MAX_NEGATIVE_SHARE = 0.2;
export const MAX_PHRASES = 6;
/** A word (not a shape) must occur in this many distinct positive tasks to be a phrase. */
export const MIN_WORD_TASKS = 2;

export interface Feature {
  key: string;
  label: string;
  pattern: Pattern;
  shape: boolean;
}

const STOPWORDS = new Set(
  "this that with from your have will into then than them they their there these those what when where which while would could should about after before other only also each every file files task make sure using used must please write create save output".split(
    " ",
  ),
);
/** File kinds that, written as a word ("an ICS file", "the CSV"), name a kind of file. */
const KIND_WORDS =
  /\b(csv|tsv|json|jsonl|xml|yaml|yml|toml|html|pdf|png|jpe?g|svg|ics|sql|sqlite|parquet|xlsx|docx|pptx|ipynb|latex|wav|mp3|mp4)\b/gi;
const CJK = /[\u3400-\u9fff\u3040-\u30ff\uac00-\ud7af]{2,}/g;
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The phrases a task text offers: shapes (file kinds, folders, time limits), then words. */
export function featuresOf(text: string, forbidden: ReadonlySet<string>): Map<string, Feature> {
  const out = new Map<string, Feature>();
  const add = (f: Feature) => {
    if (!out.has(f.key)) out.set(f.key, f);
  };
  for (const m of text.matchAll(new RegExp(NAMED_FILE, "g"))) {
    const ext = /\.([A-Za-z0-9]+)$/.exec(m[1]!)?.[1]?.toLowerCase();
    if (ext)
      add({
        key: `ext:${ext}`,
        label: `names a .${ext} file`,
        pattern: { pattern: `\\.${literal(ext)}\\b`, flags: "i" },
        shape: true,
      });
  }
  for (const m of text.matchAll(KIND_WORDS)) {
    const w = m[1]!.toLowerCase();
    if (!forbidden.has(w))
      add({
        key: `kind:${w}`,
        label: `names the file kind "${w}"`,
        pattern: { pattern: `\\b${w}\\b`, flags: "i" },
        shape: true,
      });
  }
  if (new RegExp(NAMED_DIR).test(text))
    add({ key: "dir", label: "names a folder path", pattern: NAMED_DIR, shape: true });
  if (compileRegex(TIME_LIMIT, []).test(text))
    add({ key: "time", label: "states a time limit", pattern: TIME_LIMIT, shape: true });
  for (const m of text.matchAll(/[A-Za-z][A-Za-z-]{3,30}/g)) {
    const w = m[0].toLowerCase().replace(/-+$/, "");
    if (w.length < 4 || STOPWORDS.has(w) || forbidden.has(w)) continue;
    add({
      key: `w:${w}`,
      label: `word "${w}"`,
      pattern: { pattern: `\\b${literal(w)}\\b`, flags: "i" },
      shape: false,
    });
  }
  for (const m of text.matchAll(CJK)) {
    const s = m[0];
    for (let i = 0; i + 2 <= s.length; i++) {
      const bi = s.slice(i, i + 2);
      add({ key: `z:${bi}`, label: `phrase "${bi}"`, pattern: literal(bi), shape: false });
    }
  }
  return out;
}

/** The lowercase word parts of task ids (`pinchbench/task-calendar` → task, calendar, …). */
export function taskIdWords(taskIds: readonly string[]): Set<string> {
  return new Set(
    taskIds.flatMap((t) =>
      t
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter((w) => w.length >= 3),
    ),
  );
}

/**
 * Learns phrases from positive task texts against negative ones: a greedy cover of the
 * positives by phrases each routing at most MAX_NEGATIVE_SHARE of the negatives, best first
 * (positive share minus negative share; shapes before words on ties; fewer negatives).
 */
export function learnEligibility(
  positives: readonly TaskText[],
  negatives: readonly TaskText[],
  forbidden: ReadonlySet<string> = new Set(),
): LearnedEligibility {
  const pos = dedupe(positives);
  const posIds = new Set(pos.map((t) => t.taskId));
  const neg = dedupe(negatives).filter((t) => !posIds.has(t.taskId));
  // candidates come from the positives; counts come from the phrase itself, compiled and
  // matched as the evaluator's eligibility does (so the shown counts are routing counts)
  const all = new Map<string, Feature>();
  for (const t of pos)
    for (const [k, f] of featuresOf(t.text, forbidden)) if (!all.has(k)) all.set(k, f);
  const posT = pos.map((t) => capText(t.text));
  const negT = neg.map((t) => capText(t.text));
  const scored = [...all.values()]
    .map((f) => {
      const re = compileRegex(f.pattern, []);
      const hits = new Set(posT.flatMap((t, i) => (re.test(t) ? [i] : [])));
      const negatives = negT.filter((t) => re.test(t)).length;
      return { f, hits, negatives };
    })
    .filter(
      (s) =>
        // a word seen in one task only says nothing about the mechanism: words need two
        (s.f.shape ? s.hits.size > 0 : s.hits.size >= MIN_WORD_TASKS) &&
        (neg.length === 0 || s.negatives / neg.length <= MAX_NEGATIVE_SHARE),
    );
  const score = (s: (typeof scored)[number]) =>
    s.hits.size / Math.max(1, pos.length) - s.negatives / Math.max(1, neg.length);
  scored.sort(
    (a, b) =>
      score(b) - score(a) ||
      Number(b.f.shape) - Number(a.f.shape) ||
      a.negatives - b.negatives ||
      (a.f.key < b.f.key ? -1 : 1),
  );
  const uncovered = new Set(pos.map((_, i) => i));
  const phrases: LearnedPhrase[] = [];
  while (uncovered.size > 0 && phrases.length < MAX_PHRASES) {
    // among the phrases covering an uncovered positive, shapes win over words
    const fits = scored.filter((s) => [...s.hits].some((i) => uncovered.has(i)));
    const pick = fits.find((s) => s.f.shape) ?? fits[0];
    if (!pick) break;
    for (const i of pick.hits) uncovered.delete(i);
    phrases.push({
      pattern: pick.f.pattern,
      label: pick.f.label,
      positives: pick.hits.size,
      negatives: pick.negatives,
    });
  }
  return {
    phrases,
    positives: pos.length,
    negatives: neg.length,
    covered: pos.length - uncovered.size,
    uncovered: [...uncovered].map((i) => pos[i]!.taskId).sort(),
  };
}

function dedupe(ts: readonly TaskText[]): TaskText[] {
  const seen = new Map<string, TaskText>();
  for (const t of ts) if (t.text !== "" && !seen.has(t.taskId)) seen.set(t.taskId, t);
  return [...seen.values()];
}
