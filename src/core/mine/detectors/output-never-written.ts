import { listedElsewhere } from "./listings.js";
import {
  allWrites,
  baseName,
  callText,
  extOf,
  lookedForAt,
  namedFiles,
  notFoundAbout,
  notFoundCalls,
  samePath,
  seenExisting,
  verifierMissing,
} from "./paths.js";
import { programPlacedElsewhere } from "./placed-elsewhere.js";
import { callSucceeded, stopIndex } from "./shell.js";
import type { Detector } from "./types.js";

const VERB = "(?:write|save|create|produce|output|generate|store|put|emit|place|record|export)";
const FILE =
  "`?['\"]?((?:[\\w.~-]*/)*[\\w-]+\\.(?:txt|md|json|csv|py|sh|html|pdf|png|jpg|yaml|yml|xml|log|out|tex|js|ts|c|rs|go|sql|ics|db))\\b(?!\\.\\w)";
const NAMED_OUTPUT = new RegExp(`\\b${VERB}\\w*\\b[^.\\n]{0,80}?${FILE}`, "gi");
const VERB_AT = new RegExp(`\\b${VERB}`, "gi");
const TO_FILE = new RegExp(`\\b(?:to|into|in|as|at)\\s+${FILE}`, "gi");
const WRITE_MARKERS =
  /(>|\btee\b|\bcp\b|\bmv\b|\s-o\s|--output|open\(|write|savefig|to_csv|to_json|dump|touch|install)/;
/** Code that writes a database file it names (SQL that changes it, a committed connection). */
const DB_WRITE_MARKERS = /\.commit\(\)|\b(?:INSERT\s+INTO|CREATE\s+TABLE|UPDATE\s+\w+\s+SET)\b/i;

/** A ban on what follows ("do not", "never", "must not", …), not a reminder ("do not forget"). */
const BAN =
  /\b(?:do not|don['\u2019]t|must not|mustn['\u2019]t|should not|shouldn['\u2019]t|may not|cannot|can['\u2019]t|never|avoid|without)\b(?![ \t]+(?:forget|hesitate|need|have|just|only)\b)/gi;
/** What is no requirement: "you do not need to write …", "you don't have to create …". */
const NOT_NEEDED =
  /\b(?:(?:do|does|did) not|don['\u2019]t|doesn['\u2019]t) (?:need|have) to\b|\bno need to\b|\bneedn['\u2019]t\b|\bnot required to\b/gi;
/**
 * Where a clause of its own starts: after a stop mark or semicolon (a closing quote or bracket
 * may follow it; "e.g." and "i.e." are no stop), a colon, a dash, a paragraph, a list item, a
 * line that starts with a capital (a wrapped line goes on in lower case), or a linking word.
 */
const CLAUSE_START =
  /(?<!\b(?:e\.g|i\.e|etc|vs))[.!?;:]["'`)\]]*(?=\s)|[\u2014\u2013]|\s-\s|\n\s*\n|\n(?=\s*(?:[-*]\s|\d+\.\s|[A-Z]))|\b(?:but|so|then|instead|until|unless|otherwise)\b/g;

/**
 * Whether what comes at `at` (a writing verb) is banned: in the clause before it, a ban
 * governs the verb — right before it (at most one word between, no comma: "never directly
 * write") or at the head of a list the verb ends ("do not hardcode cases, read /tests, or
 * write /logs/verifier/reward.txt"). "Do not overwrite input.csv, write output.csv" and
 * "avoid hardcoding values and write the output" ban nothing of the write. Looked for in the
 * 200 characters before; linear.
 */
function banned(text: string, at: number): boolean {
  const before = text.slice(Math.max(0, at - 200), at);
  let start = 0;
  for (const m of before.matchAll(CLAUSE_START)) start = (m.index ?? 0) + m[0].length;
  const clause = before.slice(start);
  const bans = [...clause.matchAll(BAN), ...clause.matchAll(NOT_NEEDED)].sort(
    (x, y) => (x.index ?? 0) - (y.index ?? 0),
  );
  const ban = bans.at(-1);
  if (!ban) return false;
  const between = clause.slice((ban.index ?? 0) + ban[0].length);
  if (/^[ \t\n]+(?:[\w'-]+[ \t\n]+)?$/.test(between)) return true;
  // the verb ends a list the ban heads: "…, or write", "… nor write"
  return /(?:,|\bor|\bnor)[ \t\n]+$/.test(between) && /\bor\b|\bnor\b/.test(between);
}

/** Output files an English task text asks for (after a writing verb): one hint among several. */
export function requiredOutputs(taskText: string): string[] {
  const found = new Set<string>();
  for (const m of taskText.matchAll(NAMED_OUTPUT))
    if (m[1] && !sourceOfWrite(m) && !banned(taskText, m.index ?? 0)) found.add(m[1]);
  for (const m of taskText.matchAll(TO_FILE)) {
    const before = taskText.slice(Math.max(0, (m.index ?? 0) - 80), m.index ?? 0);
    // a writing verb before the destination, none of them banned ("do not save the output
    // in …": "output" is a noun there, "save" the banned verb)
    const verbs = [...before.matchAll(VERB_AT)];
    const from = (m.index ?? 0) - before.length;
    if (m[1] && verbs.length > 0 && !verbs.some((v) => banned(taskText, from + (v.index ?? 0))))
      found.add(m[1]);
  }
  return [...found];
}

/**
 * Whether a file a writing verb reached is what the write reads ("write the line count of
 * input.txt to out.txt"): it follows "of" or "from", and a destination ("to/into/as/at FILE")
 * comes after it in the same clause.
 */
function sourceOfWrite(m: RegExpMatchArray): boolean {
  const end = (m.index ?? 0) + m[0].length;
  const fileAt = end - (m[1]?.length ?? 0);
  if (!/\b(?:of|from)\s+[`'"]?$/i.test(m.input?.slice(Math.max(0, fileAt - 8), fileAt) ?? "")) {
    return false;
  }
  const rest = (m.input ?? "").slice(end).split(/[.;\n](?:\s|$)/)[0] ?? "";
  return new RegExp(`\\b(?:to|into|as|at)\\s+${FILE}`, "i").test(rest);
}

/** Whether any tool call wrote `named` (same path, else same file name). */
function written(a: Parameters<Detector["detect"]>[0], named: string): boolean {
  const b = baseName(named);
  if (allWrites(a).some((w) => samePath(named, w.path) || baseName(w.path) === b)) return true;
  // Code that writes without a visible path (python open(), tee, …) naming the file; where
  // the trace records results, only a run of that code that succeeded wrote it (a script
  // saved, then run with an interpreter the host lacks, wrote nothing).
  const withResults = a.events.some((e) => e.kind === "tool_result");
  return a.events.some(
    (e) =>
      e.kind === "tool_call" &&
      callText(e).includes(b) &&
      (WRITE_MARKERS.test(callText(e)) || DB_WRITE_MARKERS.test(callText(e))) &&
      (!withResults || callSucceeded(a, e)),
  );
}

/**
 * A test file the task's own commands run: the target of a test runner or an interpreter
 * (`python3 -m pytest /tests/test_outputs.py`, `bash /tests/run.sh`) that is a test by its
 * place or name (a `tests` folder, `test_*`, `*_test.*`) or is run by pytest. The grader's
 * tests are mounted only when it runs, so the agent may well find them absent; a script the
 * task runs that is not a test (`python3 /app/solve.py`) may be the deliverable and stays one.
 * The words after the program on its line, options skipped; one pass, no nested repetition.
 */
const TASK_RUNS =
  /\b(python[\d.]{0,4}|pytest|bash|sh|node|ruby|perl)((?:[ \t]{1,4}[^\s]{1,200}){1,4})/g;
const FILE_ARG = /^[`'"]?((?:[\w.~/-]*\/)?[\w-]+\.[A-Za-z]\w{0,7})[`'"]?$/;
const TEST_FILE = /(?:^|\/)tests?\/|(?:^|\/)test_[^/]*$|_test\.\w+$/;

function filesTaskRuns(taskText: string): { tests: Set<string>; others: Set<string> } {
  const tests = new Set<string>();
  const others = new Set<string>();
  for (const m of taskText.matchAll(TASK_RUNS)) {
    const words = (m[2] ?? "").trim().split(/\s+/);
    const pytest = m[1] === "pytest" || words.slice(0, 2).join(" ") === "-m pytest";
    for (const w of words) {
      if (w.startsWith("-") || w === "pytest") continue;
      const f = FILE_ARG.exec(w)?.[1];
      if (f) (pytest || TEST_FILE.test(f) ? tests : others).add(baseName(f));
      break;
    }
  }
  return { tests, others };
}

/**
 * The deliverables an attempt was asked for, from evidence rather than English verbs:
 * files the verifier reports missing, task-named files the agent itself found absent,
 * and task-named files after a writing verb. Task-named files the agent saw exist are
 * inputs, not deliverables.
 */
export function requiredArtifacts(a: Parameters<Detector["detect"]>[0]): string[] {
  // a test file the task itself runs is the grader's, absent until it runs: no deliverable;
  // another file it runs is one only if the agent never saw it exist (a run from the wrong
  // folder finds a provided script absent)
  const runs = filesTaskRuns(a.taskText);
  const named = namedFiles(a.taskText);
  const absent = new Set(
    notFoundCalls(a).flatMap((c) =>
      named.filter(
        (n) =>
          callText(c).includes(baseName(n)) &&
          notFoundAbout(a, c, baseName(n)) &&
          !runs.tests.has(baseName(n)) &&
          !(runs.others.has(baseName(n)) && seenExisting(a, n)),
      ),
    ),
  );
  const verbs = new Set(requiredOutputs(a.taskText).map(baseName));
  const out = new Set(verifierMissing(a).paths);
  for (const n of named) {
    if (absent.has(n) || verbs.has(baseName(n))) {
      if (!seenExisting(a, n) || absent.has(n)) out.add(n);
    }
  }
  return [...out];
}

/** A required artifact (named by the task or the verifier) no tool ever wrote, under any path. */
export const outputNeverWritten: Detector = {
  id: "output.never-written",
  description: "a required artifact named by the task or the verifier was never written",
  mechanism: "artifact-never-written",
  detect(attempt) {
    // a file a listing showed in another directory was produced there: wrong-path's reading
    const missing = requiredArtifacts(attempt).filter(
      (p) => !written(attempt, p) && !listedElsewhere(attempt, p),
    );
    if (missing.length === 0) return [];
    const kinds = [...new Set(missing.map((p) => extOf(p) || "file"))].sort().join(",");
    return [
      {
        eventIndices: [stopIndex(attempt)],
        reason: `never written: ${missing.join(", ")}`,
        signature: `missing:${kinds}`,
        // the files themselves: only a verifier line about one of them corroborates the hit
        subject: missing.join("\n"),
      },
    ];
  },
};

/**
 * The verifier found the deliverable absent although the agent wrote it: under another
 * directory (same file name), or — when the verifier names no path — a file of the kind
 * the task names, in a place the verifier did not look.
 */
export const artifactWrongPath: Detector = {
  id: "output.wrong-path",
  description: "the deliverable was written, but not at the path the task or verifier names",
  mechanism: "artifact-wrong-path",
  detect(attempt) {
    if (attempt.outcome === "pass") return [];
    const { paths, createdZero, facts } = verifierMissing(attempt);
    const writes = allWrites(attempt);
    for (const p of paths) {
      // a relative name is where the agent's own run looked for it, when one did
      const looked = lookedForAt(attempt, p);
      const want = looked?.path ?? p;
      const w = writes.find((x) => baseName(x.path) === baseName(p) && !samePath(want, x.path));
      if (w && !writes.some((x) => samePath(want, x.path)))
        return [
          {
            // the write last: it is the state the label points at
            eventIndices: looked ? [looked.call.index, w.call.index] : [w.call.index],
            reason: looked
              ? `verifier wanted ${p}, which the agent's own run looked for at ${looked.path}; the agent wrote ${w.path}`
              : `verifier wanted ${p}, the agent wrote ${w.path}`,
            signature: "written elsewhere",
          },
        ];
    }
    const placed = programPlacedElsewhere(attempt, facts, writes);
    if (placed) return [placed];
    // produced without a write the trace shows (extracted, built, moved) and listed elsewhere
    for (const p of paths) {
      const seen = listedElsewhere(attempt, p);
      if (seen)
        return [
          {
            eventIndices: [seen.call.index],
            reason: `verifier wanted ${p}, a listing showed ${baseName(p)} in ${seen.dir}`,
            signature: "written elsewhere",
          },
        ];
    }
    if (!createdZero || paths.length > 0) return [];
    const task = attempt.taskText.toLowerCase();
    const kinds = new Set(namedFiles(attempt.taskText).map(extOf));
    const w = writes.find((x) => {
      const ext = extOf(x.path);
      return ext !== "" && (kinds.has(ext) || new RegExp(`\\b${ext.slice(1)}\\b`).test(task));
    });
    if (!w) return [];
    return [
      {
        eventIndices: [w.call.index],
        reason: `verifier found no ${extOf(w.path)} deliverable; the agent wrote ${w.path}`,
        signature: "written elsewhere",
      },
    ];
  },
};
