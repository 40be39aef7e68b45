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

/** Answers the attempts wrote (`echo 1284113 > answer.txt`): 3+ characters with a digit. */
export function answersOf(attempts: readonly Attempt[]): string[] {
  const out = new Set<string>();
  const WRITE = /\b(?:echo|printf)\s+(?:-[a-z]+\s+)?(['"]?)([^'"\n>|;&]{3,60}?)\1\s*>{1,2}\s*\S/g;
  for (const a of attempts)
    for (const e of a.events) {
      if (e.kind !== "tool_call" || !e.command) continue;
      for (const m of e.command.matchAll(WRITE)) {
        const v = m[2]!.replace(/\\n$/, "").trim();
        // values with a digit (counts, codes, hashes): words like "done" are not answers
        if (v.length >= 3 && /\d/.test(v) && !v.startsWith("$")) out.add(v);
      }
    }
  return [...out].sort();
}

/** Problems: each forbidden token (task id, path or written answer) found in the rule text. */
export function hygieneProblems(
  c: Candidate,
  forbid: { taskIds: readonly string[]; paths: readonly string[]; answers?: readonly string[] },
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
  for (const v of forbid.answers ?? []) {
    if (text.includes(JSON.stringify(v).slice(1, -1).toLowerCase()))
      problems.push(`names the answer ${v}`);
  }
  return problems;
}
