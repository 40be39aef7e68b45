import type { Attempt } from "../model/attempt.js";
import type { Candidate } from "../policy/schema.js";

/**
 * A rule never names a task, a fixture path or an expected answer. The drafter checks that
 * none of the cluster's task ids and none of the file paths its attempts touched appear in
 * the candidate's text (title, chain, notes, eligibility, tracking, rules, marker, sham);
 * lineage is exempt (it must name the attempts).
 */

const PATH = /(?:^|[\s'"=(])((?:\/|\.\/|~\/)[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)+)/g;

/** System locations every trace mentions (`2>/dev/null`, `/tmp/x.log`): not task content. */
const SYSTEM = /^\/(dev|tmp|proc|sys|usr|bin|sbin|lib|lib64|var\/log)\//;

/** Absolute/relative multi-segment paths mentioned in the attempts' commands and writes. */
export function pathsOf(attempts: readonly Attempt[]): string[] {
  const out = new Set<string>();
  for (const a of attempts) {
    for (const e of a.events) {
      for (const w of e.writes ?? []) if (w.includes("/") && w.length > 3) out.add(w);
      for (const text of [e.command, e.kind === "tool_call" ? e.input : undefined]) {
        if (!text) continue;
        for (const m of text.matchAll(PATH)) out.add(m[1]!);
      }
    }
  }
  return [...out].filter((p) => p.split("/").filter(Boolean).length >= 2 && !SYSTEM.test(p)).sort();
}

/** Problems: each forbidden token (task id or path) found in the candidate's rule text. */
export function hygieneProblems(
  c: Candidate,
  forbid: { taskIds: readonly string[]; paths: readonly string[] },
): string[] {
  const { lineage: _lineage, history: _history, ...rest } = c;
  const text = JSON.stringify(rest).toLowerCase();
  const problems: string[] = [];
  for (const t of forbid.taskIds) {
    const last = t.split("/").pop() ?? t;
    if (last.length >= 4 && text.includes(last.toLowerCase())) problems.push(`names the task ${t}`);
  }
  for (const p of forbid.paths) {
    if (text.includes(JSON.stringify(p).slice(1, -1).toLowerCase()))
      problems.push(`names the path ${p}`);
  }
  return problems;
}
