import { requiredArtifacts } from "../core/mine/detectors/output-never-written.js";
import { baseName, namedFiles, verifierMissing } from "../core/mine/detectors/paths.js";
import type { DetectorHit } from "../core/mine/detectors/types.js";
import type { SiblingComparison } from "../core/mine/sibling-diff.js";
import { verifierTests } from "../core/mine/sibling-facts.js";
import type { Attempt, Event } from "../core/model/attempt.js";
import { redact } from "../core/redact.js";

/**
 * What the LLM labeller's digest selects, by relevance rather than by position (issue 22,
 * point 10): events around failures, writes to the deliverable paths, the last turns, the
 * detectors' and the sibling comparison's events; the verifier's failing tests and assertion
 * lines in full up to a cap. Everything here is agent- and benchmark-neutral.
 */

/** Relevance of an event position: higher is shown first. */
const SCORE = {
  detector: 100,
  last: 90,
  sibling: 80,
  deliverable: 60,
  failure: 50,
  neighbour: 20,
} as const;

/** Failed tool results: a non-zero exit or an error flag. */
function failed(ev: Event): boolean {
  return ev.kind === "tool_result" && ((ev.exitCode ?? 0) !== 0 || ev.isError === true);
}

/** The paths the attempt was asked to deliver: task- and verifier-named files. */
export function deliverablePaths(a: Attempt): string[] {
  const out = new Set<string>([...requiredArtifacts(a), ...verifierMissing(a).paths]);
  for (const f of namedFiles(a.taskText)) out.add(f);
  return [...out];
}

/** Whether `text` redirects output (`>`, `>>`, `tee`) into a path ending in `base`. */
function redirectsTo(text: string, base: string): boolean {
  for (let at = text.indexOf(base); at >= 0; at = text.indexOf(base, at + 1)) {
    // the token the base name ends, and what precedes that token
    let start = at;
    while (start > 0 && !/\s/.test(text[start - 1] ?? "")) start -= 1;
    const token = text.slice(start, at);
    const before = text.slice(Math.max(0, start - 6), start).trimEnd();
    if (token.includes(">") || before.endsWith(">") || /\btee(\s+-a)?$/.test(before)) return true;
  }
  return false;
}

/** Whether a call writes one of the deliverables (by base name): an edit tool or a redirect. */
function writesDeliverable(ev: Event, bases: readonly string[]): boolean {
  if (ev.kind !== "tool_call" || bases.length === 0) return false;
  if (ev.writes?.some((w) => bases.includes(baseName(w)))) return true;
  const editTool = /write|edit|patch|create/i.test(ev.tool ?? "");
  const text = `${ev.command ?? ""} ${ev.input ?? ""}`;
  return bases.some((b) => text.includes(b) && (editTool || redirectsTo(text, b)));
}

/**
 * Event positions (into attempt.events) in the order they deserve space: detector evidence,
 * the last turns (the stop and what led to it), the sibling comparison's events, calls that
 * write a deliverable path, failures with the call that caused them (latest first), then
 * neighbours of all of these, then the rest from the end backwards.
 */
export function relevanceOrder(
  attempt: Attempt,
  hits: readonly DetectorHit[],
  sibling?: SiblingComparison,
): number[] {
  const n = attempt.events.length;
  const pos = new Map(attempt.events.map((ev, i) => [ev.index, i]));
  const score = new Map<number, number>();
  const bump = (p: number | undefined, s: number): void => {
    if (p === undefined || p < 0 || p >= n) return;
    score.set(p, Math.max(score.get(p) ?? 0, s));
  };
  // A detector's evidence ranks first; of a long list (a loop) its first and last two do, the
  // other repetitions rank below failures and deliverable writes.
  for (const h of hits) {
    const ids = h.eventIndices;
    ids.forEach((i, k) => {
      const edge = ids.length <= 4 || k < 2 || k >= ids.length - 2;
      bump(pos.get(i), edge ? SCORE.detector : SCORE.failure - 10);
    });
  }
  // the stop and the turn before it, then (below the latest failure) the rest of the last turns
  for (let k = 1; k <= 6; k++) bump(n - k, k <= 2 ? SCORE.last - k : SCORE.sibling - 2 - k);
  bump(pos.get(attempt.agentEnd?.eventIndex ?? -1), SCORE.last);
  for (const d of sibling?.differences ?? [])
    for (const i of d.failedEvents) bump(pos.get(i), SCORE.sibling);
  const bases = [...new Set(deliverablePaths(attempt).map(baseName))].filter((b) => b.length > 2);
  const byCall = new Map<string, number>();
  attempt.events.forEach((ev, p) => {
    if (ev.kind === "tool_call" && ev.callId) byCall.set(ev.callId, p);
  });
  // The latest failure and its call rank with the sibling's events: what broke last decides most.
  let lastFail = -1;
  attempt.events.forEach((ev, p) => {
    if (failed(ev)) lastFail = p;
  });
  if (lastFail >= 0) {
    const ev = attempt.events[lastFail];
    bump(lastFail, SCORE.sibling);
    bump((ev?.callId ? byCall.get(ev.callId) : undefined) ?? lastFail - 1, SCORE.sibling - 1);
  }
  attempt.events.forEach((ev, p) => {
    // later events rank a little higher among equals: the end decides more often
    const late = p / Math.max(1, n);
    if (writesDeliverable(ev, bases)) {
      bump(p, SCORE.deliverable + late);
      bump(p + 1, SCORE.deliverable + late - 1);
    }
    if (failed(ev)) {
      bump(p, SCORE.failure + late);
      const call = ev.callId ? byCall.get(ev.callId) : undefined;
      bump(call ?? p - 1, SCORE.failure + late);
    }
  });
  const core = [...score.keys()];
  for (const p of core) for (const d of [-1, 1]) bump(p + d, SCORE.neighbour + p / Math.max(1, n));
  const ranked = [...score.entries()].sort((x, y) => y[1] - x[1] || y[0] - x[0]).map(([p]) => p);
  const seen = new Set(ranked);
  for (let p = n - 1; p >= 0; p--) if (!seen.has(p)) ranked.push(p);
  return ranked;
}

/** Lines of a verifier output that state why a check failed (assertions, errors, missing files). */
const ASSERTION =
  /^E\s|AssertionError|assert\s|Error:|FAILED|FAIL:|does not exist|No such file|not found|expected|Expected/;

/** The verifier's failing-test lines, assertion lines first, each whole up to `lineCap`. */
export function verifierFindings(a: Attempt, maxChars: number, lineCap = 400): string {
  const text = redact(a.verifierOutput ?? "");
  if ((!text.trim() && !a.verifierTests?.length) || maxChars < 40) return "";
  const out: string[] = [];
  let left = maxChars;
  const add = (line: string): boolean => {
    const l = line.length > lineCap ? `${line.slice(0, lineCap - 1)}…` : line;
    if (l.length + 1 > left) return false;
    out.push(l);
    left -= l.length + 1;
    return true;
  };
  const seen = new Set<string>();
  const recorded = a.verifierTests ?? [];
  if (recorded.length) {
    // test-level results the importer read (CTRF, JUnit, pytest, parser_results): failures whole
    const bad = recorded.filter((t) => t.status === "failed" || t.status === "error");
    const passed = recorded.filter((t) => t.status === "passed").length;
    add(`tests: ${bad.length} failed, ${passed} passed`);
    for (const t of bad) {
      const line = `${t.status.toUpperCase()} ${t.name}${t.message ? ` - ${redact(t.message)}` : ""}`;
      seen.add(line);
      if (!add(line)) break;
    }
  } else {
    const tests = verifierTests(a);
    if (tests.failed.length || tests.passed.length)
      add(`tests: ${tests.failed.length} failed, ${tests.passed.length} passed`);
  }
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.length < 3 || seen.has(line) || !ASSERTION.test(line)) continue;
    seen.add(line);
    if (!add(line)) break;
  }
  return out.join("\n");
}

/** The run's end as a line: exception, token totals, duration (what the trace records). */
export function runEndLine(a: Attempt): string {
  const parts: string[] = [];
  if (a.exception)
    parts.push(
      `exception ${a.exception.type}${a.exception.message ? `: ${redact(a.exception.message).slice(0, 300)}` : ""}`,
    );
  const t = a.tokens;
  if (t && (t.input !== undefined || t.output !== undefined))
    parts.push(`tokens in ${t.input ?? "?"} / out ${t.output ?? "?"}`);
  if (a.durationS !== undefined) parts.push(`duration ${Math.round(a.durationS)} s`);
  const end = a.agentEnd;
  if (end) {
    const turn: string[] = [];
    if (end.stopReason) turn.push(`stop reason ${end.stopReason}`);
    turn.push(
      end.promptTokens !== undefined ? `prompt tokens ${end.promptTokens}` : "no usage reported",
    );
    if (end.outputTokens !== undefined) turn.push(`output tokens ${end.outputTokens}`);
    if (end.toolCalls !== undefined) turn.push(`${end.toolCalls} tool call(s)`);
    const at = end.eventIndex !== undefined ? ` [${end.eventIndex}]` : "";
    parts.push(`final turn${at}: ${turn.join(", ")}`);
    if (end.exitCode !== undefined) parts.push(`agent process exit ${end.exitCode}`);
  }
  const last = a.events.at(-1);
  if (last)
    parts.push(`last event [${last.index}] ${last.kind}${last.role ? ` ${last.role}` : ""}`);
  return parts.join(" · ");
}

/** The passing sibling's comparison as prompt lines (summary, then each difference). */
export function siblingLines(c: SiblingComparison | undefined): string[] {
  if (!c) return [];
  return [
    `passing sibling ${c.siblingId}${c.sameModel ? " (same model)" : ""}: ${redact(c.summary)}`,
    ...c.differences.map((d) => `- ${d.decisive ? "decisive: " : ""}${redact(d.sentence)}`),
  ];
}
