import { failingTests, type VerifierTest } from "../../ingest/verifier-tests.js";
import type { Attempt, Event } from "../../model/attempt.js";
import { partlyGraded } from "./partial-grade.js";
import { callText, escapeRe } from "./paths.js";
import {
  callSucceeded,
  commandOf,
  isVerification,
  isWrite,
  resultOf,
  runsInterpreter,
  runsWrittenProgram,
  segments,
  toolCalls,
  writtenPaths,
} from "./shell.js";
import type { Detector } from "./types.js";

/*
 * The agent stopped on checks that passed, and the verifier failed a test about a part of the
 * deliverable that the task (or a document the agent read) names and that none of those
 * checks exercised: a stated requirement left unchecked at the stop. The subject is read
 * from the failing test itself, so no rule names a task: an identifier from the test's name
 * that the task states and the agent's own code uses (a function, a module), or a string the
 * test's assertion demands verbatim that the task states.
 */

/** A compound identifier (`reorder_snapshot`): never a plain word of prose. */
const COMPOUND = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;
/** A string literal in an assertion message: `"…"` or `'…'`. */
const LITERAL = /(["'])((?:(?!\1)[^\n\\]){6,80})\1/g;

/**
 * Candidate identifiers from a test's own name: its runs of two to four words joined by
 * `_`, longest first. A single word of a test name is prose as often as it is a name
 * (`test_solution_content`, `test_invoices_moved`), so it is never a subject.
 */
export function nameSubjects(test: VerifierTest): string[] {
  const leaf = (test.name.split("::").at(-1) ?? test.name).replace(/\[.*$/, "");
  const words = leaf
    .replace(/^test_?/i, "")
    .toLowerCase()
    .split("_")
    .filter((w) => w.length > 0);
  const out: string[] = [];
  for (let n = Math.min(words.length, 4); n >= 2; n--)
    for (let i = 0; i + n <= words.length; i++) {
      const s = words.slice(i, i + n).join("_");
      if (COMPOUND.test(s)) out.push(s);
    }
  return out;
}

/** String literals the failing assertion demands (the quoted operand left of `in` / `==`). */
export function demandedLiterals(test: VerifierTest): string[] {
  const msg = test.message ?? "";
  const out: string[] = [];
  for (const m of msg.matchAll(LITERAL)) {
    const lit = m[2] ?? "";
    const after = msg.slice((m.index ?? 0) + m[0].length, (m.index ?? 0) + m[0].length + 6);
    if (/^\s*(?:in\b|==)/.test(after) && /\s/.test(lit)) out.push(lit);
  }
  return out;
}

/** Whether `text` names the identifier `subject` (as a whole word). */
function names(text: string, subject: string): boolean {
  return new RegExp(`\\b${escapeRe(subject)}\\b`).test(text);
}

/** Whether a check's text calls `subject` (a call or a method call, or runs a test of it). */
function exercises(text: string, subject: string): boolean {
  const s = escapeRe(subject);
  return new RegExp(`\\b${s}\\s*\\(|\\b${s}\\.\\w+\\s*\\(|test_\\w*${s}|-k\\s+\\S*${s}`, "i").test(
    text,
  );
}

/** A call that exercises behaviour: a verification (test, probe, build) or a program run. */
function runsCode(c: Event): boolean {
  return isVerification(c) || segments(commandOf(c) ?? "").some(runsInterpreter);
}

/** What the agent saw before it stopped: the task text and the output of its own calls. */
function seenText(a: Attempt, calls: readonly Event[]): string {
  const outs = calls.map((c) => resultOf(a, c)?.output ?? "").join("\n");
  return `${a.taskText}\n${outs}`;
}

export const gradedSubjectUnchecked: Detector = {
  id: "check.graded-subject-unchecked",
  description: "stopped on passing checks that never exercised the stated part the verifier failed",
  mechanism: "constraint-unchecked",
  detect(attempt) {
    // a stop of the agent's own, on a deliverable the grader passed in part, read without
    // target/regression roles (a failing target test is the change itself failing)
    if (!partlyGraded(attempt)) return [];
    const failing = failingTests(attempt);
    if (failing.length === 0) return [];
    const calls = toolCalls(attempt);
    const lastWrite = calls.filter(isWrite).at(-1);
    if (!lastWrite) return [];
    const written = new Set(calls.filter((c) => c.index <= lastWrite.index).flatMap(writtenPaths));
    // checks that ran something (a test, a probe, a build, a program): a read is no check
    // of behaviour, and a run with only reads after its last write is stop-without-check's
    const checks = calls.filter(
      (c) => c.index > lastWrite.index && (runsCode(c) || runsWrittenProgram(c, written)),
    );
    // the agent checked after its last write, and its last check passed: it stopped satisfied
    const last = checks.at(-1);
    if (!last || !callSucceeded(attempt, last)) return [];
    const checkText = checks.map(callText).join("\n");
    const writes = calls.filter(isWrite).map(callText).join("\n").toLowerCase();
    const task = attempt.taskText.toLowerCase();
    // the outputs the agent read, joined once and only when the task text does not decide
    let seen: string | undefined;
    const seenHas = (s: string): boolean => {
      seen ??= seenText(attempt, calls).toLowerCase();
      return names(seen, s);
    };
    for (const t of failing) {
      // stated by the task, or by a document the agent read and then wrote code for
      const stated = (s: string): boolean => names(task, s) || (writes.includes(s) && seenHas(s));
      const subject = nameSubjects(t).find((s) => stated(s) && !exercises(checkText, s));
      const literal = subject
        ? undefined
        : demandedLiterals(t).find(
            (l) =>
              attempt.taskText.includes(l) && !checkText.toLowerCase().includes(l.toLowerCase()),
          );
      const what = subject ?? literal;
      if (!what) continue;
      const shown = subject ? `\`${subject}\`` : `the wording "${literal}"`;
      return [
        {
          eventIndices: [last.index],
          reason: `the verifier failed ${t.name} on ${shown}, which the task states; no check after the last write exercised it`,
          signature: subject
            ? "a stated function or module never exercised"
            : "a stated wording never compared",
          subject: t.name,
        },
      ];
    }
    return [];
  },
};
