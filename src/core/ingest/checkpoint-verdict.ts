import { z } from "zod";
import { InputError } from "../errors.js";
import { previousEvaluation } from "./checkpoint-paths.js";
import { isFile } from "./fs-util.js";
import { readJsonAsSync } from "./json-file.js";
import { capString } from "./text.js";
import type { VerifierTest } from "./verifier-tests.js";

/*
 * A checkpoint's verdict (checkpoint-run.ts): the hidden tests per group of `evaluation.json`,
 * the failures' text from the pytest-json-report beside it, and which earlier tests the
 * previous checkpoint passed.
 */

const Group = z.looseObject({
  passed: z.array(z.string()).nullish(),
  failed: z.array(z.string()).nullish(),
  skipped: z.array(z.string()).nullish(),
});

export const Evaluation = z.looseObject({
  problem_name: z.string().nullish(),
  checkpoint_name: z.string().nullish(),
  // each group on its own: one odd group does not cost the checkpoint its other tests
  tests: z.record(z.string(), z.unknown()),
  infrastructure_failure: z.boolean().nullish(),
  pytest_exit_code: z.number().nullish(),
});

/** pytest-json-report: each test's node id, outcome and the failure's text. */
const PytestJsonReport = z.looseObject({
  tests: z.array(
    z.looseObject({
      nodeid: z.string(),
      outcome: z.string().nullish(),
      lineno: z.number().nullish(),
      call: z.looseObject({ longrepr: z.unknown().optional() }).nullish(),
      setup: z.looseObject({ longrepr: z.unknown().optional() }).nullish(),
    }),
  ),
});

/** A failure's text kept per test. */
const MESSAGE_CAP = 2_000;

/**
 * The failure text pytest-json-report keeps for each test, by its id after the file
 * (`TestCore::test_x`) and by its last part (`test_x`).
 */
export function failureTexts(file: string, errors: InputError[]): Map<string, string> {
  const out = new Map<string, string>();
  if (!isFile(file)) return out;
  const r = readJsonAsSync(
    file,
    PytestJsonReport,
    "a pytest-json-report (tests with nodeid, outcome)",
  );
  if (!r.ok) {
    errors.push(r.error);
    return out;
  }
  for (const t of r.value.tests) {
    const repr = t.call?.longrepr ?? t.setup?.longrepr;
    if (typeof repr !== "string" || repr === "") continue;
    const parts = t.nodeid.split("::");
    const text = capString(repr, MESSAGE_CAP);
    out.set(parts.slice(1).join("::") || t.nodeid, text);
    const last = parts.at(-1);
    if (last && !out.has(last)) out.set(last, text);
  }
  return out;
}

/** A group key `checkpoint_2-Core`: the checkpoint whose test it is, and the group. */
function groupOf(key: string): { checkpoint: string; group: string } {
  const at = key.lastIndexOf("-");
  return at > 0
    ? { checkpoint: key.slice(0, at), group: key.slice(at + 1) }
    : { checkpoint: "", group: key };
}

/** The groups of an evaluation that pass their schema; the others as errors. */
export function groupsOf(
  tests: Record<string, unknown>,
  file: string,
  errors: InputError[],
): [string, z.infer<typeof Group>][] {
  const out: [string, z.infer<typeof Group>][] = [];
  for (const [key, value] of Object.entries(tests)) {
    const g = Group.safeParse(value);
    if (g.success) out.push([key, g.data]);
    else
      errors.push(
        new InputError(
          file,
          undefined,
          `test group "${key}": expected {passed, failed, skipped} lists of test names`,
        ),
      );
  }
  return out;
}

/**
 * The graded tests, group by group: `<group key>: <test>`. An earlier checkpoint's test (its
 * group names another checkpoint) is a regression test only where it passed after the previous
 * checkpoint: one that failed then is a failure this run inherited. This checkpoint's own tests
 * are its targets.
 */
export function gradedTests(
  groups: readonly [string, z.infer<typeof Group>][],
  current: string | undefined,
  texts: ReadonlyMap<string, string>,
  reportFile: string,
  before: ReadonlySet<string> | undefined,
): VerifierTest[] {
  const out: VerifierTest[] = [];
  for (const [key, g] of groups) {
    const { checkpoint, group } = groupOf(key);
    const earlier = current
      ? checkpoint !== "" && checkpoint !== current
      : /^regression$/i.test(group);
    const roleOf = (name: string): VerifierTest["role"] =>
      !earlier ? "target" : before?.has(`${checkpoint}/${name}`) ? "regression" : undefined;
    const add = (names: readonly string[] | null | undefined, status: VerifierTest["status"]) => {
      for (const name of names ?? []) {
        const text = status === "failed" ? texts.get(name) : undefined;
        const role = roleOf(name);
        out.push({
          name: `${key}: ${name}`,
          status,
          ...(role ? { role } : {}),
          ...(text ? { message: text, file: reportFile } : {}),
        });
      }
    };
    add(g.failed, "failed");
    add(g.passed, "passed");
    add(g.skipped, "skipped");
  }
  return out;
}

/** The tests the previous checkpoint passed, as `<checkpoint>/<test>` (undefined: none before). */
export function passedBefore(dir: string): Set<string> | undefined {
  const file = previousEvaluation(dir);
  if (!file) return undefined;
  const r = readJsonAsSync(file, Evaluation, "a checkpoint's evaluation.json");
  if (!r.ok) return undefined;
  const out = new Set<string>();
  for (const [key, g] of groupsOf(r.value.tests, file, [])) {
    const { checkpoint } = groupOf(key);
    for (const name of g.passed ?? []) out.add(`${checkpoint}/${name}`);
  }
  return out;
}
