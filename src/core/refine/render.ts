import type { Refinement, RefineResult, ScreenFigures } from "./refine.js";

/** The figures of one replay screen in one line (before / after columns of a proposal). */
export function figuresLine(f: ScreenFigures): string {
  const r = (x: { k: number; n: number }) => `${x.k}/${x.n}`;
  return `${f.verdict}: positives in time ${r(f.positivesTimely)}, negatives fired ${r(f.negativesFired)}, silent routed ${r(f.silentRouted)}, fired ${r(f.silentFired)}, +${f.meanAddedTokens} tokens/positive`;
}

const list = (xs: readonly string[], max = 6) =>
  xs.length <= max ? xs.join(", ") : `${xs.slice(0, max).join(", ")} … (+${xs.length - max})`;

/** One proposal: what it changes, the tasks its phrases match, before/after, the diff. */
export function renderRefinement(r: Refinement, before: ScreenFigures, n: number): string {
  const lines = [`${n}. ${r.id}  [${r.kinds.join(", ")}; ${r.directions.join(" + ")}]`];
  for (const s of r.summary) lines.push(`   - ${s}`);
  for (const p of r.phrases)
    lines.push(
      `     ${p.label} (${p.list}) matches positive task(s) ${list(p.positives) || "none"}; ${p.list === "noneOf" ? "negative" : "other"} task(s) ${list(p.negatives) || "none"}`,
    );
  lines.push(`   before  ${figuresLine(before)}`);
  lines.push(`   after   ${figuresLine(r.after)}`);
  if (r.gained.length) lines.push(`   fires in time now on ${list(r.gained)}`);
  if (r.dropped.length) lines.push(`   no longer fires on / routes ${list(r.dropped)}`);
  if (r.added.length) lines.push(`   now fires on / routes ${list(r.added)}`);
  lines.push(`   tokens added per positive: ${r.tokensAdded >= 0 ? "+" : ""}${r.tokensAdded}`);
  lines.push("   diff:");
  for (const d of r.diff) lines.push(`     ${d}`);
  return lines.join("\n");
}

/** `fire candidate refine NAME` without --json. */
export function renderRefineResult(r: RefineResult): string {
  const out = [`${r.candidate}: ${figuresLine(r.before)}`];
  out.push(
    `searched ${r.tried} refinement(s) in ${(r.elapsedMs / 1000).toFixed(1)} s${r.timedOut ? " (time budget reached: best so far)" : ""}`,
  );
  if (r.separation === "nothing-to-refine") {
    out.push("promising, and it misses no positive and fires on no negative: nothing to refine");
    return `${out.join("\n")}\n`;
  }
  if (r.caution) out.push(`caution: ${r.caution}`);
  r.proposals.forEach((p, i) => {
    out.push("");
    out.push(renderRefinement(p, r.before, i + 1));
  });
  if (r.noSeparation) {
    out.push("");
    out.push(
      r.separation === "partial"
        ? "no refinement makes it promising (the proposals above only improve it):"
        : "no refinement separates its positives from its negatives:",
    );
    for (const x of r.noSeparation.reasons) out.push(`  - ${x}`);
    out.push(`retire it: ${r.noSeparation.retire}`);
    if (r.noSeparation.needsMoreData.length) {
      out.push("or keep it as needing more data; what would decide:");
      for (const x of r.noSeparation.needsMoreData) out.push(`  - ${x}`);
    }
  }
  if (r.refused.length) {
    out.push("");
    out.push("refused (generality: a phrase must occur in two tasks and never name one):");
    for (const x of r.refused.slice(0, 3)) out.push(`  - ${x.label}: ${x.reason}`);
  }
  if (r.proposals.length) {
    out.push("");
    out.push(
      `nothing is saved; accept one with: fire candidate refine ${r.candidate} --accept ${r.proposals[0]!.id}`,
    );
  }
  return `${out.join("\n")}\n`;
}
