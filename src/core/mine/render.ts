import { keptTally, tallyOf } from "./cluster-tally.js";
import { isNamed, type Label, reviewGist } from "./label.js";
import type { MineResult } from "./mine.js";
import { labelOutcome } from "./outcome.js";
import { clip, type MineSummary, pad, REVIEW_SHOWN, renderMineSummary } from "./render-text.js";
import type { ValidationReport } from "./validation.js";

export {
  evidenceText,
  type MineSummary,
  renderCluster,
  renderMineSummary,
  renderTriage,
} from "./render-text.js";

const UNLABELLED_SHOWN = 5;

/** The summary `renderMineSummary` prints (pure). */
export function summarizeMine(r: MineResult): MineSummary {
  const byId = new Map(r.labels.map((l) => [l.attemptId, l]));
  const unlabelled = r.labels.filter((l) => l.unlabelledReason);
  return {
    labeler: r.labeler,
    labels: r.labels.length,
    outcome: labelOutcome(r),
    procedural: r.labels.filter(
      (l) => isNamed(l) && (l.kind ?? "procedural_loss") === "procedural_loss",
    ).length,
    addressable: r.labels.filter((l) => isNamed(l) && l.kind === "policy_addressable").length,
    triageExcluded: r.triage.exclusions.length,
    labelExcluded: r.finalTriage.exclusions.filter(
      (e) => e.reason === "capability_gap" || e.reason === "no_intervention_point",
    ).length,
    clusters: r.clusters,
    review: r.review.length,
    reviewShown: r.review.slice(0, REVIEW_SHOWN).map((id) => {
      const l = byId.get(id);
      const ev = reviewGist(l).evidence;
      return {
        id,
        ...(l?.kind !== undefined ? { kind: l.kind } : {}),
        rationale: l?.rationale ?? "",
        ...(ev
          ? {
              evidence: {
                claim: ev.claim,
                from: ev.from,
                ...(ev.eventIndex !== undefined ? { eventIndex: ev.eventIndex } : {}),
                excerpt: ev.excerpt,
              },
            }
          : {}),
      };
    }),
    unlabelled: unlabelled.length,
    unlabelledShown: unlabelled
      .slice(0, UNLABELLED_SHOWN)
      .map((l) => ({ attemptId: l.attemptId, reason: l.unlabelledReason ?? "" })),
    userExcluded: r.userExcluded,
    tallies: talliesOf(r.clusters, byId),
  };
}

/** Each cluster's kept tally of its members' labels (cluster-tally.ts), by cluster id. */
function talliesOf(
  clusters: MineResult["clusters"],
  byId: ReadonlyMap<string, Label>,
): MineSummary["tallies"] {
  const out: MineSummary["tallies"] = {};
  for (const c of clusters) {
    const t = keptTally(tallyOf(c.attemptIds.flatMap((id) => byId.get(id) ?? [])));
    if (t) out[c.id] = t;
  }
  return out;
}

/** Text of `fire mine` / `fire clusters`. */
export function renderMine(r: MineResult): string {
  return renderMineSummary(summarizeMine(r));
}

/** Text of `--validate`: agreement per family / exclusion, then disagreements. */
export function renderValidation(v: ValidationReport): string {
  const out = ["Validation: expected → agreement"];
  for (const r of v.rows) {
    const pct = r.total ? Math.round((100 * r.agreed) / r.total) : 0;
    out.push(`  ${pad(r.expected, 40)} ${r.agreed}/${r.total} (${pct}%)`);
    // Every miss is listed: a validation run is read to find them.
    for (const m of r.misses) out.push(`      ✗ ${clip(m.attemptId, 60)} → ${m.got}`);
  }
  const pct = v.total ? Math.round((100 * v.agreed) / v.total) : 0;
  out.push(`  ${pad("overall", 40)} ${v.agreed}/${v.total} (${pct}%)`);
  if (v.unmatched.length)
    out.push(`  ${v.unmatched.length} entr(ies) matched no attempt: ${v.unmatched.join(", ")}`);
  return `${out.join("\n")}\n`;
}
