import { type Feature, featuresOf, MAX_NEGATIVE_SHARE } from "../draft/eligibility.js";
import { compileRegex } from "../policy/condition.js";
import { capText } from "../policy/patterns.js";
import type { Pattern } from "../policy/schema.js";
import type { TaskText } from "../route/audit.js";

/**
 * Eligibility phrases that separate positive task texts from negative ones, found with the
 * drafter's phrase vocabulary (draft/eligibility.ts: file kinds, folders, time limits, words).
 * Generality is a hard constraint: a phrase must occur in at least MIN_PHRASE_TASKS distinct
 * tasks of the side it describes (a phrase of one task only describes that task), and never
 * spells part of a task id (the caller's `forbidden` words).
 */

export const MIN_PHRASE_TASKS = 2;
/** Phrases per list handed to the replay (the rest are ranked lower). */
export const MAX_PHRASES_TRIED = 6;

export type PhraseList = "allOf" | "anyOf" | "noneOf";

export interface PhraseProposal {
  list: PhraseList;
  pattern: Pattern;
  /** What the phrase is, for people (`word "nginx"`, `names a .csv file`). */
  label: string;
  /** Positive / negative task ids whose text the phrase matches. */
  positives: string[];
  negatives: string[];
}

export interface RefusedPhrase {
  label: string;
  reason: string;
}

export interface PhraseInput {
  /** Every positive task's text. */
  positives: readonly TaskText[];
  /** Positive tasks that must stay routed (the ones the candidate fires in time on). */
  keep: ReadonlySet<string>;
  /** Positive tasks the eligibility does not route (what a widening must add). */
  unrouted: ReadonlySet<string>;
  /** Negative tasks the candidate fires on or routes while it should not. */
  offending: readonly TaskText[];
  /** Every non-positive task of the workspace (for the share a widening may route). */
  negatives: readonly TaskText[];
  /** Lowercase words no phrase may be (the parts of task ids). */
  forbidden: ReadonlySet<string>;
  /**
   * Lowercase words of the candidate's own chain and title (its mechanism's vocabulary): on
   * a tie a phrase in these words goes first, so "server" beats a word the tasks share by chance.
   */
  vocabulary?: ReadonlySet<string>;
}

interface Scored {
  f: Feature;
  pos: string[];
  off: string[];
  neg: string[];
}

function score(
  feats: Map<string, Feature>,
  posT: { id: string; t: string }[],
  offT: { id: string; t: string }[],
  negT: { id: string; t: string }[],
): Scored[] {
  return [...feats.values()].map((f) => {
    const re = compileRegex(f.pattern, []);
    const hit = (xs: { id: string; t: string }[]) =>
      xs.filter((x) => re.test(x.t)).map((x) => x.id);
    return { f, pos: hit(posT), off: hit(offT), neg: hit(negT) };
  });
}

/** The word a feature is (`w:server` → server, `kind:csv` → csv); undefined for shapes. */
const wordOf = (f: Feature): string | undefined => /^(?:w|kind):(.+)$/.exec(f.key)?.[1];

const dedupe = (ts: readonly TaskText[]) => {
  const seen = new Map<string, { id: string; t: string }>();
  for (const x of ts)
    if (x.text !== "" && !seen.has(x.taskId))
      seen.set(x.taskId, { id: x.taskId, t: capText(x.text) });
  return [...seen.values()];
};

/** Phrases for allOf (narrow), noneOf (narrow) and anyOf (widen), plus what was refused. */
export function searchPhrases(input: PhraseInput): {
  proposals: PhraseProposal[];
  refused: RefusedPhrase[];
} {
  const posT = dedupe(input.positives);
  const posIds = new Set(posT.map((p) => p.id));
  const offT = dedupe(input.offending).filter((x) => !posIds.has(x.id));
  const negT = dedupe(input.negatives).filter((x) => !posIds.has(x.id));
  const fromPos = new Map<string, Feature>();
  for (const p of input.positives)
    for (const [k, f] of featuresOf(p.text, input.forbidden))
      if (!fromPos.has(k)) fromPos.set(k, f);
  const fromOff = new Map<string, Feature>();
  for (const p of input.offending)
    for (const [k, f] of featuresOf(p.text, input.forbidden))
      if (!fromOff.has(k)) fromOff.set(k, f);

  const vocab = input.vocabulary ?? new Set<string>();
  const inVocab = (s: Scored) => {
    const w = wordOf(s.f);
    return w !== undefined && vocab.has(w) ? 1 : 0;
  };
  const proposals: PhraseProposal[] = [];
  const refused: RefusedPhrase[] = [];
  const propose = (list: PhraseList, s: Scored) =>
    proposals.push({
      list,
      pattern: s.f.pattern,
      label: s.f.label,
      positives: s.pos,
      negatives: list === "noneOf" ? s.off : s.neg,
    });

  if (offT.length > 0) {
    // allOf: holds on every positive kept, leaves out some offending negatives
    const all = score(fromPos, posT, offT, negT)
      .filter(
        (s) => [...input.keep].every((id) => s.pos.includes(id)) && s.off.length < offT.length,
      )
      .sort(
        (a, b) =>
          a.off.length - b.off.length ||
          inVocab(b) - inVocab(a) ||
          a.neg.length - b.neg.length ||
          b.pos.length - a.pos.length ||
          (a.f.key < b.f.key ? -1 : 1),
      );
    let n = 0;
    for (const s of all) {
      if (n >= MAX_PHRASES_TRIED) break;
      if (s.pos.length < MIN_PHRASE_TASKS) {
        refused.push({
          label: s.f.label,
          reason: `would require a phrase found in one positive task only (${s.pos.length} task)`,
        });
        continue;
      }
      propose("allOf", s);
      n++;
    }
    // noneOf: in offending negatives, in no positive
    const none = score(fromOff, posT, offT, negT)
      .filter((s) => s.pos.length === 0 && s.off.length > 0)
      .sort(
        (a, b) =>
          b.off.length - a.off.length ||
          Number(b.f.shape) - Number(a.f.shape) ||
          (a.f.key < b.f.key ? -1 : 1),
      );
    n = 0;
    for (const s of none) {
      if (n >= MAX_PHRASES_TRIED) break;
      if (s.off.length < MIN_PHRASE_TASKS) {
        refused.push({
          label: s.f.label,
          reason: "found in one counterexample task only: excluding it would name that task",
        });
        continue;
      }
      propose("noneOf", s);
      n++;
    }
  }

  if (input.unrouted.size > 0) {
    const any = score(fromPos, posT, offT, negT)
      .filter(
        (s) =>
          s.pos.some((id) => input.unrouted.has(id)) &&
          (negT.length === 0 || s.neg.length / negT.length <= MAX_NEGATIVE_SHARE),
      )
      .sort(
        (a, b) =>
          b.pos.length - a.pos.length ||
          inVocab(b) - inVocab(a) ||
          a.neg.length - b.neg.length ||
          Number(b.f.shape) - Number(a.f.shape) ||
          (a.f.key < b.f.key ? -1 : 1),
      );
    let n = 0;
    for (const s of any) {
      if (n >= MAX_PHRASES_TRIED) break;
      if (s.pos.length < MIN_PHRASE_TASKS) {
        refused.push({
          label: s.f.label,
          reason: "would accept a phrase found in one positive task only",
        });
        continue;
      }
      propose("anyOf", s);
      n++;
    }
  }
  return { proposals, refused };
}
