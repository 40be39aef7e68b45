import { evidenceLines } from "../../verdict/prose.js";
import type { RateOf, ReplayScreen } from "./measure.js";

const r = (x: RateOf): string => `${x.k}/${x.n}`;

/** A replay screen as plain text. */
export function renderReplayScreen(s: ReplayScreen): string {
  const out: string[] = [];
  out.push(`replay screen of ${s.candidate} (${s.family})`);
  out.push(`verdict: ${s.verdict.verdict.toUpperCase()}`);
  for (const e of evidenceLines(s.verdict)) out.push(`  - ${e}`);
  out.push("");
  out.push(
    `positives (${s.positives.length} attempt(s) of ${s.sets.positiveTasks.length} task(s)):`,
  );
  for (const p of s.positives) {
    const f = p.first
      ? `fires ${p.first.ruleId} at #${p.first.eventIndex} (${p.first.point})` +
        (p.preFailure === undefined ? "" : `, pre-failure #${p.preFailure}`) +
        (p.timely ? "" : " LATE")
      : "does not fire";
    out.push(`  ${p.attemptId}: ${f}; behaviour ${p.behavior ? "yes" : "no"}`);
  }
  out.push(`negatives (${s.negatives.length} task(s)):`);
  for (const n of s.negatives) {
    const sim = n.similarity === undefined ? "" : ` sim ${n.similarity.toFixed(2)}`;
    const m = n.eligible ? ` routed by “${(n.matched ?? "").slice(0, 50)}”` : " not routed";
    out.push(`  ${n.taskId} [${n.kind}${sim}]:${m}; fires on ${n.firedAttempts}/${n.attempts}`);
  }
  const sm = s.summary;
  out.push("");
  out.push(
    `firing: positives ${r(sm.positiveFiring)} (in time ${r(sm.positiveTimely)}), negatives ${r(sm.negativeFiring)}, silent routed ${r(sm.silentRouting)} fired ${r(sm.silentFiring)}`,
  );
  out.push(
    `behaviour marker (policy-free): positives ${r(sm.behaviorPositive)}, negatives ${r(sm.behaviorNegative)}`,
  );
  const toks = Object.entries(sm.instructionTokens).map(([k, v]) => `${k} ${v}`);
  out.push(
    `added instruction: ${toks.join(", ")} token(s) per message; ${sm.meanAddedTokensPerPositive} per positive attempt`,
  );
  return `${out.join("\n")}\n`;
}
