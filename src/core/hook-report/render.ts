import { type Column, renderTableExport } from "../export/tables.js";
import type { HookReport, Latency, OutcomeCounts, RuleRow, SessionLink } from "./report.js";

/** The CSV columns of `fire hook report --csv` (one row per rule and policy version). */
export const HOOK_REPORT_COLUMNS: readonly Column<RuleRow>[] = [
  { name: "policy", value: (r) => r.policyId },
  { name: "version", value: (r) => r.version },
  { name: "rule", value: (r) => r.rule },
  { name: "point", value: (r) => r.point },
  { name: "modes", value: (r) => r.modes },
  { name: "events", value: (r) => r.events },
  { name: "sessions", value: (r) => r.sessions },
  { name: "eligible_sessions", value: (r) => r.eligibleSessions },
  { name: "fired_sessions", value: (r) => r.firedSessions },
  { name: "firings", value: (r) => r.enforced.firings },
  { name: "observed_firings", value: (r) => r.observed.firings },
  { name: "outside_eligibility", value: (r) => r.outsideEligibility },
  { name: "followed", value: (r) => r.followed },
  { name: "ignored", value: (r) => r.ignored },
  { name: "no_sign", value: (r) => r.noSign },
  { name: "ignored_occasions", value: (r) => r.ignoredOccasions },
  { name: "denies", value: (r) => r.enforced.denies },
  { name: "observed_denies", value: (r) => r.observed.denies },
  { name: "escalations", value: (r) => r.enforced.escalations },
  { name: "observed_escalations", value: (r) => r.observed.escalations },
  { name: "blocked_stops", value: (r) => r.enforced.blockedStops },
  { name: "errors", value: (r) => r.errors },
  { name: "fail_opens", value: (r) => r.failOpens },
  { name: "fired_passed", value: (r) => r.outcomes.pass },
  { name: "fired_failed", value: (r) => r.outcomes.fail },
  { name: "fired_other", value: (r) => r.outcomes.other },
  { name: "fired_unknown", value: (r) => r.outcomes.unknown },
  { name: "ms_p50", value: (r) => r.latency.p50 },
  { name: "ms_p95", value: (r) => r.latency.p95 },
  { name: "ms_p99", value: (r) => r.latency.p99 },
  { name: "flags", value: (r) => r.flags },
  { name: "why", value: (r) => r.why },
];

export function renderHookReportCsv(r: HookReport): string {
  return renderTableExport(r.rules, HOOK_REPORT_COLUMNS, "csv");
}

const n = (x: number | null) => (x === null ? "?" : String(x));
const ms = (x: number | null) => (x === null ? "-" : x < 10 ? x.toFixed(1) : x.toFixed(0));
export const latencyText = (l: Latency): string =>
  l.n === 0 ? "no times" : `p50 ${ms(l.p50)} / p95 ${ms(l.p95)} / p99 ${ms(l.p99)} ms`;

/** Enforced and observed side by side: `3` or `3 +2 observed`. */
const sideBySide = (enforced: number, observed: number) =>
  observed > 0 ? `${enforced} +${observed} observed` : String(enforced);

/** `2 pass, 1 fail, 3 unknown` (kinds with none left out; `none` when it never fired). */
export function outcomesText(o: OutcomeCounts): string {
  const parts = (["pass", "fail", "other", "unknown"] as const)
    .filter((k) => o[k] > 0)
    .map((k) => `${o[k]} ${k === "other" ? "timeout/error" : k}`);
  return parts.length > 0 ? parts.join(", ") : "none";
}

/** A fired session as a link: `file:line session (agent) ×firings outcome`. */
export function sessionLinkText(l: SessionLink): string {
  const agent = l.agent ? ` (sub-agent ${l.agent})` : "";
  return `${l.file}:${l.line} session ${l.session}${agent} ×${l.firings} → ${l.outcome}`;
}

/** One rule's lines: identity and flags, then its funnel and counts. */
export function ruleLines(r: RuleRow): string[] {
  const flags = r.flags.length > 0 ? `  [${r.flags.join(", ")}: ${r.why.join("; ")}]` : "";
  const f = r.funnel.map((s) => `${s.stage} ${n(s.sessions)}`).join(" → ");
  return [
    `${r.policy}/${r.rule} (${r.point}, ${r.modes.join("+")})${flags}`,
    `  funnel (sessions): ${f}`,
    `  firings ${sideBySide(r.enforced.firings, r.observed.firings)}; followed ${r.followed}, ignored ${r.ignored}, no sign ${r.noSign}; outside eligibility ${r.outsideEligibility}`,
    `  denies ${sideBySide(r.enforced.denies, r.observed.denies)}; escalations ${sideBySide(r.enforced.escalations, r.observed.escalations)} (blocked stops ${sideBySide(r.enforced.blockedStops, r.observed.blockedStops)}); events ${r.events} in ${r.sessions} sessions; errors ${r.errors}, fail-opens ${r.failOpens}; ${latencyText(r.latency)}`,
    `  outcomes of the sessions it fired in: ${outcomesText(r.outcomes)}`,
  ];
}

/** A rule's lines and every session it fired in, linked (the workbench's detail, the pager). */
export function ruleDetailLines(r: RuleRow): string[] {
  return [
    ...ruleLines(r),
    "",
    r.fired.length > 0 ? `fired in ${r.fired.length} session(s):` : "never fired",
    ...r.fired.map((l) => `  ${sessionLinkText(l)}`),
  ];
}

/** The report as text (the CLI prints it; the workbench shows the same lines). */
export function renderHookReportText(r: HookReport): string {
  const out = [
    `hook logs: ${r.files.length} file(s), ${r.lines} line(s), ${r.sessions} session(s), ${r.events} event(s)`,
    `faults ${r.faults} (fail-open ${r.failOpens}, fail-closed ${r.failClosed}); answers held back by observe mode ${r.observedAnswers}; ${latencyText(r.latency)}`,
  ];
  for (const p of r.portfolios)
    out.push(
      `portfolio version: ${p.policies.join(", ")} — ${p.events} event(s), ${p.sessions} session(s)`,
    );
  if (r.rules.length === 0) out.push("no rule fired and no portfolio was given (--portfolio)");
  for (const row of r.rules) out.push("", ...ruleLines(row));
  if (r.errors.length > 0) {
    out.push("", `${r.errors.length} bad line(s) skipped:`);
    for (const e of r.errors.slice(0, 20)) out.push(`  ${e.format()}`);
    if (r.errors.length > 20) out.push(`  … and ${r.errors.length - 20} more (--json lists all)`);
  }
  return `${out.join("\n")}\n`;
}

/** The report as JSON (errors as their file:line text). */
export function hookReportJson(r: HookReport): unknown {
  return { ...r, errors: r.errors.map((e) => e.format()) };
}
