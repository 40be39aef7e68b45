import type { Cluster } from "./cluster.js";
import type { ClusterTally } from "./cluster-tally.js";
import type { MineResult } from "./mine.js";
import { type LabelOutcome, outcomeCounts } from "./outcome.js";
import type { Evidence, TriageResult } from "./triage.js";

/**
 * The texts of `fire triage`, `fire mine` and `fire clusters` from what they show (pure, in a
 * module that loads no schema: a read command prints its cached answer with these alone).
 */

export const pad = (s: string, n: number): string =>
  s.length >= n ? s : s + " ".repeat(n - s.length);
/** Trace text on one line: every run of white space (newlines included) is one space. */
export const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim();
export const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/** "file:line: excerpt" or "event #N: excerpt" for one piece of exclusion evidence. */
export function evidenceText(ev: Evidence): string {
  const where = [
    ev.file ? `${ev.file}${ev.line ? `:${ev.line}` : ""}` : "",
    ev.eventIndex !== undefined ? `event #${ev.eventIndex}` : "",
  ]
    .filter(Boolean)
    .join(" ");
  return `${where || "-"}${ev.excerpt ? `: ${ev.excerpt}` : ""}`;
}

/** Text of `fire triage`: tasks by status with k/n, then exclusions with reasons. */
export function renderTriage(t: TriageResult): string {
  const out: string[] = [];
  const titles = {
    reachable: "Reachable but undelivered (pass sometimes)",
    unsolved: "Never passed (0/n)",
    solved: "Always passed",
    unscored: "No verifier outcome (n = 0)",
  };
  for (const status of ["reachable", "unsolved", "solved", "unscored"] as const) {
    const rows = t.tasks.filter((x) => x.status === status);
    if (rows.length === 0) continue;
    out.push(`${titles[status]}: ${rows.length} task(s)`);
    for (const r of rows) {
      out.push(
        `  ${pad(clip(r.taskId, 50), 50)}  ${pad(r.arm, 10)}  ${r.passes}/${r.n}  in scope: ${r.failedIds.length}` +
          (r.excludedIds.length ? `  excluded: ${r.excludedIds.length}` : ""),
      );
    }
    out.push("");
  }
  out.push(`In scope for mining: ${t.inScope.length} failed attempt(s)`);
  if (t.exclusions.length > 0) {
    out.push("", `Excluded: ${t.exclusions.length} attempt(s)`);
    for (const e of t.exclusions) {
      out.push(`  ${pad(clip(e.attemptId, 56), 56)}  ${pad(e.reason, 22)}  ${clip(e.detail, 80)}`);
      for (const ev of e.evidence) out.push(`      ${clip(evidenceText(ev), 130)}`);
    }
  }
  return `${out.join("\n")}\n`;
}

/** Text of one cluster: name, id, family, tasks, attempts, point, detectors, evidence. */
export function renderCluster(c: Cluster): string {
  const out = [
    `${c.id}  ${c.name}${c.named ? " (named by you)" : ""}`,
    `  family: ${c.family ?? "-"}   intervention: ${c.interventionPoint}   tasks: ${c.taskIds.length}   attempts: ${c.attemptIds.length}`,
    `  mechanism: ${c.mechanism}`,
    `  tasks: ${c.taskIds.join(", ")}`,
    `  detectors: ${c.detectors.map((d) => `${d.id}×${d.count}`).join(", ") || "-"}`,
  ];
  if (c.confidence !== undefined || c.facets?.length)
    out.splice(
      2,
      0,
      `  confidence: ${c.confidence?.toFixed(2) ?? "-"}   facets: ${(c.facets ?? []).map((f) => `${f.signature} ×${f.count}`).join(", ") || "-"}`,
    );
  for (const e of c.evidence)
    out.push(`  evidence ${clip(e.attemptId, 40)} #${e.eventIndex}: ${clip(e.excerpt, 110)}`);
  return out.join("\n");
}

/**
 * What the text of `fire mine` / `fire clusters` shows, without the labels and triage it
 * is counted from: small enough to keep beside the mining cache and read back at once
 * (core/mine/clusters-summary.ts), so `fire clusters` need not read the whole mining result.
 */
export interface MineSummary {
  labeler: MineResult["labeler"];
  labels: number;
  outcome: LabelOutcome;
  procedural: number;
  addressable: number;
  /** Exclusions by triage before labels, and by the labeller (capability, no point). */
  triageExcluded: number;
  labelExcluded: number;
  clusters: Cluster[];
  review: number;
  /** The first REVIEW_SHOWN of the review list, with what the text shows of each. */
  reviewShown: {
    id: string;
    kind?: string;
    rationale: string;
    evidence?: { claim: string; from: string; eventIndex?: number; excerpt: string };
  }[];
  unlabelled: number;
  unlabelledShown: { attemptId: string; reason: string }[];
  userExcluded: MineResult["userExcluded"];
  /**
   * Each cluster's tally of its members' labels, by cluster id (none for a cluster whose
   * tally would be large): a merge describes the union from them, reading no label.
   */
  tallies: Record<string, ClusterTally>;
}

export const REVIEW_SHOWN = 20;

/** Text of `fire mine` / `fire clusters` from their summary. */
export function renderMineSummary(s: MineSummary): string {
  const out = [
    `labeller ${s.labeler}: ${s.labels} label(s) (${outcomeCounts(s.outcome)}); ${s.procedural} procedural loss(es), ` +
      `${s.addressable} policy-addressable, ${s.review} need review; ` +
      `${s.triageExcluded} excluded by triage, ${s.labelExcluded} by the labeller`,
    "",
    `${s.clusters.length} cluster(s):`,
    "",
  ];
  for (const c of s.clusters) out.push(renderCluster(c), "");
  if (s.review > 0) {
    out.push(
      `Needs review: ${s.review} (in scope; the evidence names no mechanism yet — see \`fire show\`)`,
    );
    for (const r of s.reviewShown) {
      const ev = r.evidence;
      out.push(
        `  ${clip(r.id, 40)}  ${r.kind ?? "-"}  ${clip(oneLine(r.rationale), 90)}${ev ? `\n      ${ev.claim} ${ev.from}${ev.eventIndex !== undefined ? ` #${ev.eventIndex}` : ""}: ${clip(oneLine(ev.excerpt), 100)}` : ""}`,
      );
    }
    if (s.review > REVIEW_SHOWN) out.push(`  … ${s.review - REVIEW_SHOWN} more (fire mine --json)`);
    out.push("");
  }
  if (s.unlabelled > 0) {
    out.push(
      `Unlabelled: ${s.unlabelled} (kept in scope; \`fire mine --retry-unlabelled\` asks again)`,
    );
    for (const l of s.unlabelledShown) out.push(`  ${l.attemptId}: ${clip(l.reason, 100)}`);
    out.push("");
  }
  if (s.userExcluded.length > 0) {
    out.push(`Excluded by you: ${s.userExcluded.length}`);
    for (const e of s.userExcluded) out.push(`  ${e.attemptId}: ${e.reason}`);
  }
  return `${out.join("\n").trimEnd()}\n`;
}
