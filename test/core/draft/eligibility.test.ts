import { describe, expect, it } from "vitest";
import { learnEligibility, taskIdWords } from "../../../src/core/draft/eligibility.js";

describe("learned eligibility", () => {
  it("works on task texts in another script: file kinds and shared CJK phrases", () => {
    const pos = [
      { taskId: "a/one", text: "输出交付摘要，严格 JSON，写入 `summary.json`。" },
      { taskId: "a/two", text: "请输出严格 JSON 报告到 report.json。" },
    ];
    const neg = [
      { taskId: "b/x", text: "Write the answer to answer.txt." },
      { taskId: "b/y", text: "Plan a trip to Kyoto." },
    ];
    const r = learnEligibility(pos, neg);
    expect(r.phrases.map((p) => [p.label, p.positives, p.negatives])).toEqual([
      ["names a .json file", 2, 0],
    ]);
    expect(r).toMatchObject({ positives: 2, negatives: 2, covered: 2, uncovered: [] });
  });

  it("a word of one task only, or of a task id, is never a phrase", () => {
    const pos = [{ taskId: "bench/task-calendar", text: "Create a calendar invite for Tuesday." }];
    const neg = [{ taskId: "bench/other", text: "Summarise the log." }];
    const r = learnEligibility(pos, neg, taskIdWords(pos.map((p) => p.taskId)));
    expect(r.phrases).toEqual([]);
    expect(r.uncovered).toEqual(["bench/task-calendar"]);
  });

  it("a phrase routing more than a fifth of the negatives is dropped", () => {
    const pos = [
      { taskId: "p1", text: "Save the report as out.md" },
      { taskId: "p2", text: "Save the notes as notes.md" },
    ];
    const neg = ["n1", "n2", "n3"].map((id) => ({ taskId: id, text: `Write ${id}.md` }));
    const r = learnEligibility(pos, neg);
    // .md routes 3/3 negatives; "out" in out.md is a name, not the file kind
    expect(r.phrases).toEqual([]);
    expect(r.uncovered).toEqual(["p1", "p2"]);
  });
});
