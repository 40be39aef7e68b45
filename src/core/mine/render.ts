import type { Cluster } from "./cluster.js";
import { isNamed, reviewGist } from "./label.js";
import type { MineResult } from "./mine.js";
import { labelOutcome, outcomeCounts } from "./outcome.js";
import type { Evidence, TriageResult } from "./triage.js";
import type { ValidationReport } from "./validation.js";

const pad = (s: string, n: number): string => (s.length >= n ? s : s + " ".repeat(n - s.length));
/** Trace text on one line: every run of white space (newlines included) is one space. */
const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim();
const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

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

/** Text of `fire mine` / `fire clusters`. */
export function renderMine(r: MineResult): string {
  const procedural = r.labels.filter(
    (l) => isNamed(l) && (l.kind ?? "procedural_loss") === "procedural_loss",
  ).length;
  const addressable = r.labels.filter((l) => isNamed(l) && l.kind === "policy_addressable").length;
  const labelExcl = r.finalTriage.exclusions.filter(
    (e) => e.reason === "capability_gap" || e.reason === "no_intervention_point",
  ).length;
  const out = [
    `labeller ${r.labeler}: ${r.labels.length} label(s) (${outcomeCounts(labelOutcome(r))}); ${procedural} procedural loss(es), ` +
      `${addressable} policy-addressable, ${r.review.length} need review; ` +
      `${r.triage.exclusions.length} excluded by triage, ${labelExcl} by the labeller`,
    "",
    `${r.clusters.length} cluster(s):`,
    "",
  ];
  for (const c of r.clusters) out.push(renderCluster(c), "");
  if (r.review.length > 0) {
    const byId = new Map(r.labels.map((l) => [l.attemptId, l]));
    out.push(
      `Needs review: ${r.review.length} (in scope; the evidence names no mechanism yet — see \`fire show\`)`,
    );
    for (const id of r.review.slice(0, 20)) {
      const l = byId.get(id);
      const ev = reviewGist(l).evidence;
      out.push(
        `  ${clip(id, 40)}  ${l?.kind ?? "-"}  ${clip(oneLine(l?.rationale ?? ""), 90)}${ev ? `\n      ${ev.claim} ${ev.from}${ev.eventIndex !== undefined ? ` #${ev.eventIndex}` : ""}: ${clip(oneLine(ev.excerpt), 100)}` : ""}`,
      );
    }
    if (r.review.length > 20) out.push(`  … ${r.review.length - 20} more (fire mine --json)`);
    out.push("");
  }
  const unlabelled = r.labels.filter((l) => l.unlabelledReason);
  if (unlabelled.length > 0) {
    out.push(
      `Unlabelled: ${unlabelled.length} (kept in scope; \`fire mine --retry-unlabelled\` asks again)`,
    );
    for (const l of unlabelled.slice(0, 5))
      out.push(`  ${l.attemptId}: ${clip(l.unlabelledReason ?? "", 100)}`);
    out.push("");
  }
  if (r.userExcluded.length > 0) {
    out.push(`Excluded by you: ${r.userExcluded.length}`);
    for (const e of r.userExcluded) out.push(`  ${e.attemptId}: ${e.reason}`);
  }
  return `${out.join("\n").trimEnd()}\n`;
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
