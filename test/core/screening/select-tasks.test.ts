import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { selectPlanTasks } from "../../../src/core/screening/plan/select-tasks.js";
import { REPO_ROOT } from "../../helpers/paths.js";

const { policies } = loadPolicies([
  join(REPO_ROOT, "test/fixtures/screens/candidates/report-check.yaml"),
]);
const attempt = (id: string, taskId: string, taskText: string) =>
  ({ id, taskId, taskText }) as Attempt;
const ATTEMPTS = [
  attempt("x1", "a", "Write a short report of the results."),
  attempt("x2", "b", "Fix the failing unit test."),
  attempt("x3", "c", "Summarize the logs in summary.md"),
];

describe("selectPlanTasks", () => {
  it("takes the workspace's tasks of the wanted cohorts", async () => {
    const tasks = await selectPlanTasks({
      policies,
      cohorts: ["eligible", "silent"],
      attempts: async () => ATTEMPTS,
    });
    expect(tasks).toEqual([
      { id: "a", cohort: "eligible", matched: "report" },
      { id: "b", cohort: "silent" },
      { id: "c", cohort: "eligible", matched: "Summarize" },
    ]);
  });

  it("splits eligible tasks into positive (lineage) and nearby-negative", async () => {
    const withLineage = policies.map((p) => ({
      ...p,
      candidate: { ...p.candidate, lineage: { ...p.candidate.lineage, attempts: ["x3"] } },
    }));
    const tasks = await selectPlanTasks({
      policies: withLineage,
      cohorts: ["positive", "nearby-negative"],
      attempts: async () => ATTEMPTS,
    });
    expect(tasks.map((t) => [t.id, t.cohort])).toEqual([
      ["a", "nearby-negative"],
      ["c", "positive"],
    ]);
  });

  it("keeps a task list's cohorts, routes the others, and loads no attempts when none need routing", async () => {
    let loads = 0;
    const attempts = async () => {
      loads++;
      return ATTEMPTS;
    };
    const given = await selectPlanTasks({
      policies,
      listed: [{ id: "z", cohort: "silent" }],
      cohorts: [],
      attempts,
    });
    expect(given).toEqual([{ id: "z", cohort: "silent" }]);
    expect(loads).toBe(0);
    const mixed = await selectPlanTasks({
      policies,
      listed: [{ id: "a" }, { id: "q" }, { id: "b", cohort: "nearby-negative" }],
      cohorts: [],
      attempts,
    });
    expect(mixed).toEqual([
      { id: "a", cohort: "eligible", matched: "report" },
      { id: "q", cohort: "unrouted" },
      { id: "b", cohort: "nearby-negative" },
    ]);
    expect(loads).toBe(1);
  });
});
