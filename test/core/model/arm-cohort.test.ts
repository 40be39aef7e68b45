import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ARM_NAMES } from "../../../src/core/model/arm.js";
import { COHORTS } from "../../../src/core/model/cohort.js";
import { PlanTask } from "../../../src/core/screening/plan/schema.js";
import { parseTaskList } from "../../../src/core/screening/plan/task-list.js";
import { ScreenRow, ScreenRowInput } from "../../../src/core/screening/results/row.js";

const SRC = join(import.meta.dirname, "../../../src");
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(n) ? [p] : [];
  });

/** A string-array literal naming two of `names` (a second spelling of the vocabulary). */
function secondDefinitions(names: readonly string[], home: string): string[] {
  const out: string[] = [];
  for (const f of files(SRC)) {
    const rel = relative(SRC, f);
    if (rel === home) continue;
    for (const m of readFileSync(f, "utf8").matchAll(/\[([^\]\n]{0,300})\]/g)) {
      const quoted = [...(m[1] ?? "").matchAll(/"([a-z-]+)"/g)].map((q) => q[1]);
      if (quoted.filter((q) => q && names.includes(q)).length >= 2) out.push(`${rel}: ${m[0]}`);
    }
  }
  return out;
}

describe("one Arm and one Cohort vocabulary", () => {
  it("no file but core/model lists arms or cohorts a second time", () => {
    expect(secondDefinitions(ARM_NAMES, "core/model/arm.ts")).toEqual([]);
    expect(secondDefinitions(COHORTS, "core/model/cohort.ts")).toEqual([]);
  });

  it("a task list, a plan and a results row accept only known cohorts and arms", () => {
    const list = parseTaskList("a,positive\nb,negative\nc\n", "tasks.txt");
    expect(list.tasks).toEqual([{ id: "a", cohort: "positive" }, { id: "c" }]);
    expect(list.errors.map((e) => [e.file, e.line])).toEqual([["tasks.txt", 2]]);
    expect(PlanTask.safeParse({ id: "a", cohort: "negative" }).success).toBe(false);
    expect(PlanTask.safeParse({ id: "a", cohort: "nearby-negative" }).success).toBe(true);
    const row = { task: "t", attempt: 1, pass: true };
    expect(ScreenRow.safeParse({ ...row, arm: "treatment" }).success).toBe(false);
    expect(ScreenRowInput.safeParse({ ...row, arm: "policy", cohort: "silent" }).success).toBe(
      true,
    );
    expect(ScreenRowInput.safeParse({ ...row, arm: "policy", cohort: "other" }).success).toBe(
      false,
    );
  });
});
