import { taskIdWords } from "../draft/eligibility.js";
import { candidateText } from "../lifecycle/store.js";
import type { Attempt } from "../model/attempt.js";
import { compilePolicy } from "../policy/compile.js";
import { policyKey } from "../policy/key.js";
import { unsafePatterns } from "../policy/safety.js";
import { Candidate } from "../policy/schema.js";
import type { CompiledPolicy } from "../policy/types.js";
import { taskTexts } from "../route/audit.js";
import { sha256Json } from "../screening/canonical.js";
import { routesTask } from "../screening/cohorts.js";
import {
  measureScreen,
  mechanicsHash,
  type RateOf,
  type ReplayScreen,
  type ScreenMeasures,
} from "../screening/replay/measure.js";
import { evidenceLines } from "../verdict/prose.js";
import { replayVerdict } from "../verdict/screen-verdict.js";
import type { VerdictKind, VerdictsConfig } from "../verdict/thresholds.js";
import { lineDiff } from "./diff.js";
import {
  type Direction,
  type Edit,
  narrowingTriggerEdits,
  phraseEdit,
  type RefineKind,
  wideningEligibilityEdits,
  wideningTriggerEdits,
} from "./edits.js";
import { type PhraseProposal, type RefusedPhrase, searchPhrases } from "./phrases.js";

/**
 * `fire candidate refine NAME`: from the candidate's latest replay screen, a bounded search of
 * refinements — eligibility phrases, trigger requirements, releases, patterns — each replayed
 * by the one evaluator over the same screen sets (measureScreen), kept only when no positive
 * that fired in time is lost and the screen gets better. Nothing is written here; accepting a
 * proposal is a revision (core/app/refine.ts).
 */

export interface ScreenFigures {
  positivesTimely: RateOf;
  negativesFired: RateOf;
  silentRouted: RateOf;
  silentFired: RateOf;
  meanAddedTokens: number;
  verdict: VerdictKind;
}

export interface Refinement {
  /** Stable id of the refined mechanics (`r-` + 8 hex): the same proposal has the same id. */
  id: string;
  kinds: RefineKind[];
  directions: Direction[];
  /** One sentence per edit. */
  summary: string[];
  /** The eligibility phrases it adds, with the tasks each matches. */
  phrases: PhraseProposal[];
  /** The refined candidate (the identity of the old one; accepting makes it a revision). */
  candidate: Candidate;
  after: ScreenFigures;
  afterEvidence: string[];
  /** Positive attempts that fire in time after but not before. */
  gained: string[];
  /** Negative tasks it fired on (or silent tasks it routed) before and no longer does. */
  dropped: string[];
  /** Negative tasks it fires on (or silent tasks it routes) after but not before. */
  added: string[];
  /** Mean added tokens per positive, after minus before. */
  tokensAdded: number;
  /** Line diff of the candidate file (YAML). */
  diff: string[];
}

export interface RefineProgress {
  tried: number;
  planned: number;
  elapsedMs: number;
  best?: VerdictKind;
}

export interface NoSeparation {
  /** Why no refinement makes it promising. */
  reasons: string[];
  /** The decisions left: retire it, or collect the data that would decide. */
  retire: string;
  needsMoreData: string[];
}

export interface RefineResult {
  candidate: string;
  before: ScreenFigures;
  beforeEvidence: string[];
  /** Best first; at most MAX_PROPOSALS. */
  proposals: Refinement[];
  /**
   * Said when the proposals are fitted to fewer than two positive tasks: a refinement that
   * makes one lineage member fire is only as right as that member's label.
   */
  caution?: string;
  /** found: a proposal is promising; partial: proposals improve but none is; none: nothing helps. */
  separation: "found" | "partial" | "none" | "nothing-to-refine";
  noSeparation?: NoSeparation;
  /** Phrases that would have separated but fail the generality constraint. */
  refused: RefusedPhrase[];
  tried: number;
  timedOut: boolean;
  elapsedMs: number;
}

export interface RefineInput {
  target: { candidate: Candidate; policy: CompiledPolicy; file: string };
  /** The candidate's latest replay screen (its sizes, seed and rows). */
  screen: ReplayScreen;
  /** The routing competition (every other live candidate). */
  others: readonly CompiledPolicy[];
  attempts: readonly Attempt[];
  preFailure: ReadonlyMap<string, number>;
  thresholds: VerdictsConfig;
  /** Stop searching after this long and return the best so far (default 30 s). */
  budgetMs?: number;
  signal?: AbortSignal;
  onProgress?: (p: RefineProgress) => void;
  /** The command that retires it, for the no-separation offer. */
  retireCommand?: string;
}

export const MAX_PROPOSALS = 5;
export const DEFAULT_BUDGET_MS = 30_000;
/** Level-one results that a second, narrowing edit is tried on. */
const BEAM = 3;

/** The screen's numbers a proposal is judged by. */
export function figuresOf(summary: ReplayScreen["summary"], verdict: VerdictKind): ScreenFigures {
  return {
    positivesTimely: summary.positiveTimely,
    negativesFired: summary.negativeFiring,
    silentRouted: summary.silentRouting,
    silentFired: summary.silentFiring,
    meanAddedTokens: summary.meanAddedTokensPerPositive,
    verdict,
  };
}

type Rows = Pick<ScreenMeasures, "positives" | "negatives">;

const timelyIds = (r: Rows) => new Set(r.positives.filter((p) => p.timely).map((p) => p.attemptId));
/** Negative tasks it fires on, and silent tasks it routes. */
const offendingIds = (r: Rows) =>
  new Set(
    r.negatives
      .filter((n) => n.firedAttempts > 0 || (n.kind === "silent" && n.eligible))
      .map((n) => n.taskId),
  );

function rank(f: ScreenFigures): number {
  return (
    (f.verdict === "promising" ? 1000 : 0) +
    10 * f.positivesTimely.k -
    5 * f.negativesFired.k -
    5 * f.silentRouted.k -
    0.01 * f.meanAddedTokens
  );
}

interface Measured {
  edits: Edit[];
  phrases: PhraseProposal[];
  candidate: Candidate;
  m: ScreenMeasures;
  figures: ScreenFigures;
  evidence: string[];
  hash: string;
}

const turn = () => new Promise((r) => setImmediate(r));

/** The search (see the file comment). Throws the signal's reason when cancelled. */
export async function refineCandidate(input: RefineInput): Promise<RefineResult> {
  const t0 = Date.now();
  const budget = input.budgetMs ?? DEFAULT_BUDGET_MS;
  const { screen, target } = input;
  const key = policyKey(target.candidate);
  const original = target.candidate;
  const before = figuresOf(screen.summary, screen.verdict.verdict);
  const texts = taskTexts(input.attempts);
  const textOf = new Map(texts.map((t) => [t.taskId, t.text]));
  const positiveTasks = new Set(screen.sets.positiveTasks);
  const beforeTimely = timelyIds(screen);
  const beforeOff = offendingIds(screen);
  const forbidden = taskIdWords(texts.map((t) => t.taskId));
  const seen = new Set<string>([mechanicsHash(original)]);
  const vocabulary = new Set(
    [original.title, ...Object.values(original.chain)]
      .join(" ")
      .toLowerCase()
      .match(/[a-z][a-z-]{3,30}/g) ?? [],
  );
  const results: Measured[] = [];
  const refused: RefusedPhrase[] = [];
  let tried = 0;
  let timedOut = false;
  let planned = 0;

  const measure = async (
    edits: Edit[],
    phrases: PhraseProposal[],
  ): Promise<Measured | undefined> => {
    if (Date.now() - t0 >= budget) {
      timedOut = true;
      return undefined;
    }
    await turn();
    input.signal?.throwIfAborted();
    let next: Candidate = original;
    for (const e of edits) next = e.apply(next);
    const parsed = Candidate.safeParse(next);
    if (!parsed.success || unsafePatterns(parsed.data).length > 0) return undefined;
    const hash = mechanicsHash(parsed.data);
    if (seen.has(hash)) return undefined;
    seen.add(hash);
    let policy: CompiledPolicy;
    try {
      policy = compilePolicy(parsed.data, target.file);
    } catch {
      return undefined;
    }
    tried++;
    const m = measureScreen({
      policy,
      others: input.others,
      attempts: input.attempts,
      preFailure: input.preFailure,
      sizes: screen.sizes,
      seed: screen.seed,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const v = replayVerdict(m.summary, input.thresholds);
    const r: Measured = {
      edits,
      phrases,
      candidate: parsed.data,
      m,
      figures: figuresOf(m.summary, v.verdict),
      evidence: evidenceLines(v),
      hash,
    };
    results.push(r);
    input.onProgress?.({
      tried,
      planned,
      elapsedMs: Date.now() - t0,
      best: bestSoFar(results)?.figures.verdict,
    });
    return r;
  };

  const keepsPositives = (r: Measured) => {
    const after = timelyIds(r.m);
    return [...beforeTimely].every((id) => after.has(id));
  };
  const bestSoFar = (rs: Measured[]) =>
    rs.filter(keepsPositives).sort((a, b) => rank(b.figures) - rank(a.figures))[0];

  /** Edits worth trying from a screen's rows (the original's, or a level-one result's). */
  const plan = (c: Candidate, rows: Rows, policy: CompiledPolicy) => {
    const timely = timelyIds(rows);
    const missed = rows.positives.filter((p) => !p.timely);
    const unrouted = new Set(
      missed.map((p) => p.taskId).filter((t) => !routesTask(policy, textOf.get(t) ?? "")),
    );
    const off = offendingIds(rows);
    const keep = new Set(
      rows.positives.filter((p) => timely.has(p.attemptId)).map((p) => p.taskId),
    );
    const ph = searchPhrases({
      positives: texts.filter((t) => positiveTasks.has(t.taskId)),
      keep,
      unrouted,
      offending: texts.filter((t) => off.has(t.taskId)),
      negatives: texts.filter((t) => !positiveTasks.has(t.taskId)),
      forbidden,
      vocabulary,
    });
    const widen: { edit: Edit; phrase?: PhraseProposal }[] = [];
    const narrow: { edit: Edit; phrase?: PhraseProposal }[] = [];
    for (const p of ph.proposals) {
      const e = { edit: phraseEdit(p.list, p.pattern, p.label), phrase: p };
      (p.list === "anyOf" ? widen : narrow).push(e);
    }
    if (unrouted.size > 0) for (const e of wideningEligibilityEdits(c)) widen.push({ edit: e });
    if (missed.length > unrouted.size)
      for (const e of wideningTriggerEdits(c)) widen.push({ edit: e });
    if (off.size > 0) for (const e of narrowingTriggerEdits(c)) narrow.push({ edit: e });
    return { widen, narrow, refused: ph.refused };
  };

  const first = plan(original, screen, target.policy);
  refused.push(...first.refused);
  const level1 = [...first.widen, ...first.narrow];
  planned = level1.length;
  for (const x of level1) {
    await measure([x.edit], x.phrase ? [x.phrase] : []);
    if (timedOut) break;
  }

  // level two: a result that gained positives but routes or fires too widely, narrowed
  if (!timedOut) {
    const gainers = results
      .filter(
        (r) =>
          keepsPositives(r) &&
          r.figures.positivesTimely.k > before.positivesTimely.k &&
          r.figures.verdict !== "promising",
      )
      .sort((a, b) => rank(b.figures) - rank(a.figures))
      .slice(0, BEAM);
    for (const g of gainers) {
      const p = compilePolicy(g.candidate, target.file);
      const second = plan(g.candidate, g.m, p).narrow;
      planned += second.length;
      for (const x of second) {
        await measure([...g.edits, x.edit], [...g.phrases, ...(x.phrase ? [x.phrase] : [])]);
        if (timedOut) break;
      }
      if (timedOut) break;
    }
  }

  const ids = new Set([
    ...input.attempts.map((a) => a.id.toLowerCase()),
    ...texts.map((t) => t.taskId.toLowerCase()),
  ]);
  const originalJson = JSON.stringify(original).toLowerCase();
  /** The last guard: a refinement never brings in a task id or an attempt id. */
  const general = (c: Candidate) => {
    const json = JSON.stringify(c).toLowerCase();
    for (const id of ids)
      if (id.length >= 6 && json.includes(id) && !originalJson.includes(id)) return false;
    return true;
  };

  const better = results
    .filter(
      (r) =>
        keepsPositives(r) &&
        // a policy that fires in time on no positive is no better for firing on fewer negatives
        r.figures.positivesTimely.k > 0 &&
        rank(r.figures) > rank(before) &&
        general(r.candidate),
    )
    .sort(
      (a, b) =>
        rank(b.figures) - rank(a.figures) ||
        a.edits.length - b.edits.length ||
        (a.hash < b.hash ? -1 : 1),
    );
  const proposals = better.slice(0, MAX_PROPOSALS).map((r) => {
    const afterTimely = timelyIds(r.m);
    const afterOff = offendingIds(r.m);
    return {
      id: `r-${sha256Json(r.hash).slice(0, 8)}`,
      kinds: [...new Set(r.edits.map((e) => e.kind))],
      directions: [...new Set(r.edits.map((e) => e.direction))],
      summary: r.edits.map((e) => e.summary),
      phrases: r.phrases,
      candidate: r.candidate,
      after: r.figures,
      afterEvidence: r.evidence,
      gained: [...afterTimely].filter((id) => !beforeTimely.has(id)).sort(),
      dropped: [...beforeOff].filter((id) => !afterOff.has(id)).sort(),
      added: [...afterOff].filter((id) => !beforeOff.has(id)).sort(),
      tokensAdded: Number((r.figures.meanAddedTokens - before.meanAddedTokens).toFixed(1)),
      diff: lineDiff(candidateText(original, target.file), candidateText(r.candidate, target.file)),
    } satisfies Refinement;
  });

  const nothingToDo = before.verdict === "promising" && level1.length === 0;
  const separation: RefineResult["separation"] = nothingToDo
    ? "nothing-to-refine"
    : proposals.some((p) => p.after.verdict === "promising")
      ? "found"
      : proposals.length > 0
        ? "partial"
        : "none";
  const result: RefineResult = {
    candidate: key,
    before,
    beforeEvidence: evidenceLines(screen.verdict),
    proposals,
    separation,
    refused: refused.slice(0, 8),
    tried,
    timedOut,
    elapsedMs: Date.now() - t0,
  };
  const posTasks = screen.sets.positiveTasks.length;
  if (proposals.length > 0 && posTasks < 2)
    result.caution = `fitted to ${posTasks} positive task: check that its failure is this mechanism (its label's evidence in fire mine) before accepting`;
  if (separation === "partial" || separation === "none")
    result.noSeparation = whyNot(input, screen, beforeOff, refused, key);
  return result;
}

/** Why no refinement separates, and what would decide. */
function whyNot(
  input: RefineInput,
  screen: ReplayScreen,
  off: ReadonlySet<string>,
  refused: readonly RefusedPhrase[],
  key: string,
): NoSeparation {
  const reasons: string[] = [];
  const data: string[] = [];
  const posTasks = screen.sets.positiveTasks.length;
  const missed = screen.positives.filter((p) => !p.timely);
  if (missed.length > 0) {
    const unrouted = missed.filter(
      (p) =>
        !routesTask(
          input.target.policy,
          input.attempts.find((a) => a.taskId === p.taskId)?.taskText ?? "",
        ),
    );
    if (unrouted.length > 0)
      reasons.push(
        `${unrouted.length} missed positive attempt(s) are not routed, and no phrase shared by two positive tasks routes them without routing too many other tasks`,
      );
    if (missed.length > unrouted.length)
      reasons.push(
        `${missed.length - unrouted.length} routed positive attempt(s) stay missed: no condition, release or pattern of the candidate changed alone (or with one narrowing) makes it fire in time there without losing a positive`,
      );
    const noLabel = missed.filter((p) => p.preFailure === undefined).length;
    if (noLabel > 0)
      data.push(
        `a mining label with a pre-failure state for ${noLabel} missed positive attempt(s) (\`fire mine\`), so "in time" can be judged at that state`,
      );
  }
  if (off.size > 0) {
    reasons.push(
      `it fires on or routes ${off.size} negative task(s), and every phrase of the positive tasks that leaves them out is found in one positive task only, or no tracked prior state held on the positives but not there`,
    );
    data.push(
      `policy-free attempts of more tasks like the ${off.size} negative task(s) it fires on (a phrase that excludes them must occur in two of them)`,
    );
  }
  if (posTasks < 3)
    data.push(
      `failed attempts of this mechanism on ${3 - posTasks} more task(s): with ${posTasks} positive task(s) a phrase or prior state cannot be told from that task's own text`,
    );
  if (refused.length > 0)
    reasons.push(
      `${refused.length} phrase(s) would separate but name one task only (e.g. ${refused[0]!.label}: ${refused[0]!.reason})`,
    );
  if (reasons.length === 0) reasons.push("no bounded edit improved the replay screen");
  return {
    reasons,
    retire:
      input.retireCommand ?? `fire candidate retire ${key} --reason "no refinement separates"`,
    needsMoreData: data,
  };
}
