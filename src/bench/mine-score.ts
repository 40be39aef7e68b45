import { canonicalMechanism, type Gold, type GoldClass, MECHANISM_ROW } from "./dev-sources.js";

/** What fire said about one failed trial, in the bench's terms. */
export interface FireSays {
  /** Exclusion reason (triage or labeller), when excluded. */
  excluded?: string;
  /** In scope with a named mechanism (its id). */
  named?: string;
  /** The cluster the named label is in. */
  cluster?: string;
  /** In scope, kept for review (no mechanism named). */
  review?: boolean;
  /** The confidence fire showed for its label (named or for review). */
  confidence?: number;
}

/** The figures issue 22 asks for, per source. */
export interface SourceScore {
  /** Failed trials with a decided gold class (unclear ones are listed, not counted). */
  counted: number;
  faultAgree: number;
  /** Named mechanisms, and those whose trial is in scope by the gold label. */
  named: number;
  namedRight: number;
  /** Gold in-scope trials, and those fire kept in scope (named or for review). */
  goldInScope: number;
  kept: number;
  /** Gold in-scope trials fire named, and those named with the gold mechanism. */
  mechCompared: number;
  mechAgree: number;
  bcubed: number;
}

const IN_SCOPE: ReadonlySet<GoldClass> = new Set([
  "procedural_loss",
  "policy_addressable",
  "in_scope",
]);
const FAULT: ReadonlySet<GoldClass> = new Set(["environment_fault", "verifier_fault"]);
const FIRE_FAULT = new Set(["provider_fault", "verifier_fault"]);

export const isGoldInScope = (g: Gold): boolean =>
  IN_SCOPE.has(g.cls) || (g.alt !== undefined && IN_SCOPE.has(g.alt));

/** B-cubed F of predicted clusters against gold classes (items: ids). */
export function bcubedF(
  pred: ReadonlyMap<string, string>,
  gold: ReadonlyMap<string, string>,
): number {
  const ids = [...gold.keys()];
  if (ids.length === 0) return 0;
  let p = 0;
  let r = 0;
  for (const i of ids) {
    const sameP = ids.filter((j) => pred.get(j) === pred.get(i));
    const sameG = ids.filter((j) => gold.get(j) === gold.get(i));
    const both = sameP.filter((j) => gold.get(j) === gold.get(i)).length;
    p += both / sameP.length;
    r += both / sameG.length;
  }
  p /= ids.length;
  r /= ids.length;
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}

function mechanismAgrees(g: Gold, named: string): boolean {
  if (g.row !== undefined) return MECHANISM_ROW[named] === g.row;
  return canonicalMechanism(g.mechanism) === named;
}

/**
 * Scores fire against one source's gold labels. Precision counts a named mechanism as right
 * when the gold label (or its second reading) keeps the trial in scope; recall counts gold
 * in-scope trials kept in scope (named or for review); faults agree when both sides call the
 * trial an environment/provider or verifier fault or neither does. Clusters are compared on
 * the gold in-scope trials by mechanism (a trial fire did not name is its own cluster).
 */
export function scoreSource(
  gold: ReadonlyMap<string, Gold>,
  says: ReadonlyMap<string, FireSays>,
): SourceScore {
  const s: SourceScore = {
    counted: 0,
    faultAgree: 0,
    named: 0,
    namedRight: 0,
    goldInScope: 0,
    kept: 0,
    mechCompared: 0,
    mechAgree: 0,
    bcubed: 0,
  };
  const goldGroups = new Map<string, string>();
  const predGroups = new Map<string, string>();
  for (const [trial, g] of gold) {
    if (g.cls === "unclear") continue;
    const f = says.get(trial) ?? {};
    s.counted++;
    const goldFault = FAULT.has(g.cls);
    const fireFault = f.excluded !== undefined && FIRE_FAULT.has(f.excluded);
    if (goldFault === fireFault) s.faultAgree++;
    const inScope = isGoldInScope(g);
    if (f.named) {
      s.named++;
      if (inScope) s.namedRight++;
    }
    if (IN_SCOPE.has(g.cls)) {
      s.goldInScope++;
      if (f.excluded === undefined) s.kept++;
      if (f.named) {
        s.mechCompared++;
        if (mechanismAgrees(g, f.named)) s.mechAgree++;
      }
      goldGroups.set(trial, g.row ?? g.mechanism ?? `gold:${trial}`);
      predGroups.set(trial, f.named && f.cluster ? f.cluster : `single:${trial}`);
    }
  }
  // no gold in-scope trial: nothing to cluster, so no figure (as for recall)
  s.bcubed = s.goldInScope === 0 ? Number.NaN : bcubedF(predGroups, goldGroups);
  return s;
}

export const ratio = (a: number, b: number): number => (b === 0 ? Number.NaN : a / b);

/** The five figures of a score, in the order the bench prints them. */
export function figures(s: SourceScore): {
  precision: number;
  recall: number;
  mechanism: number;
  fault: number;
  bcubed: number;
} {
  return {
    precision: ratio(s.namedRight, s.named),
    recall: ratio(s.kept, s.goldInScope),
    mechanism: ratio(s.mechAgree, s.mechCompared),
    fault: ratio(s.faultAgree, s.counted),
    bcubed: s.bcubed,
  };
}

/** The acceptance limits of issue 22 (each figure, per source). */
export const LIMITS = { precision: 0.8, recall: 0.6, mechanism: 0.5, fault: 0.85, bcubed: 0.7 };

/** What one wrong name costs, in right names: adding names pays only above precision 0.8. */
export const WRONG_NAME_COST = 4;

/**
 * What one name with the wrong mechanism costs (on a trial the gold keeps in scope), in
 * right names: such names pay only above mechanism agreement 0.5, the acceptance's limit.
 */
export const WRONG_MECHANISM_COST = 1;

/**
 * One number to tune on, per source: in-scope recall times fault agreement, plus what the
 * names are worth over the gold in-scope trials. A name on a trial the gold keeps out of
 * scope costs WRONG_NAME_COST (precision before recall: names pay only when they are right
 * more than 4 times in 5, the acceptance's 0.8); a name on an in-scope trial is worth +1 when
 * its mechanism agrees with the gold and costs WRONG_MECHANISM_COST when it does not. A name
 * on a trial the gold keeps in scope only as a second reading is worth nothing either way (no
 * mechanism is compared there): counted +1, it made naming whatever the model said pay on
 * sources whose gold keeps many failures in scope only as a second reading.
 * A setting that names nothing earns nothing for names: an F-measure that read "no name" as
 * precision 1 preferred it as soon as one source had one wrong name. Without the mechanism
 * term a looser setting won wherever its extra names landed on in-scope trials with the
 * wrong mechanism, and was then chosen for a held-out source where they were out of scope.
 */
export function objective(s: SourceScore): number {
  const f = figures(s);
  const recall = Number.isNaN(f.recall) ? 1 : f.recall;
  const fault = Number.isNaN(f.fault) ? 1 : f.fault;
  const wrong = s.named - s.namedRight;
  const wrongMechanism = s.mechCompared - s.mechAgree;
  const right = s.mechAgree;
  const names =
    s.goldInScope === 0
      ? 0
      : (right - WRONG_MECHANISM_COST * wrongMechanism - WRONG_NAME_COST * wrong) / s.goldInScope;
  return recall * fault + names;
}

/** One confidence value fire showed, and how its labels fared against the gold labels. */
export interface CalibrationBand {
  confidence: number;
  /** Labels shown with this confidence whose trial has a decided gold class. */
  labels: number;
  named: number;
  /** Named labels whose trial the gold label keeps in scope. */
  namedInScope: number;
  /** Named labels on gold in-scope trials, and those whose mechanism agrees. */
  mechCompared: number;
  mechAgree: number;
  /** Labels kept for review whose trial the gold label keeps in scope. */
  reviewInScope: number;
}

/**
 * How fire's shown confidence compares with how often its labels are right, pooled over
 * sources: per confidence value, the share of named labels the gold keeps in scope and the
 * share whose mechanism agrees. Confidence is calibrated when those shares are near it.
 */
export function calibration(
  sources: readonly { gold: ReadonlyMap<string, Gold>; says: ReadonlyMap<string, FireSays> }[],
): CalibrationBand[] {
  const bands = new Map<number, CalibrationBand>();
  for (const { gold, says } of sources)
    for (const [trial, g] of gold) {
      const f = says.get(trial);
      if (g.cls === "unclear" || f?.confidence === undefined || f.excluded !== undefined) continue;
      const b = bands.get(f.confidence) ?? {
        confidence: f.confidence,
        labels: 0,
        named: 0,
        namedInScope: 0,
        mechCompared: 0,
        mechAgree: 0,
        reviewInScope: 0,
      };
      bands.set(f.confidence, b);
      b.labels++;
      const inScope = isGoldInScope(g);
      if (f.named) {
        b.named++;
        if (inScope) b.namedInScope++;
        if (IN_SCOPE.has(g.cls)) {
          b.mechCompared++;
          if (mechanismAgrees(g, f.named)) b.mechAgree++;
        }
      } else if (inScope) b.reviewInScope++;
    }
  return [...bands.values()].sort((a, b) => a.confidence - b.confidence);
}
