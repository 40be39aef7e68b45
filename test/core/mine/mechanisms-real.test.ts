import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { namedPaths } from "../../../src/core/mine/detectors/paths.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import { candidates } from "../../../src/core/mine/strength.js";
import type { Attempt, Event } from "../../../src/core/model/attempt.js";
import type { Workspace } from "../../../src/core/workspace/load.js";
import { attemptByPrefix, loadDemo, loadOpenclaw, removeTempWorkspaces } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

/**
 * Every open mechanism on a real trial (harbor-openclaw fixtures) and a near miss: the
 * same real trial changed in the one fact the mechanism rests on.
 */
let ws: Workspace;
let demo: Workspace;
beforeAll(async () => {
  ws = await loadOpenclaw();
  demo = await loadDemo();
});

const real = (prefix: string): Attempt => structuredClone(attemptByPrefix(ws.attempts, prefix));
const mechanisms = (a: Attempt): string[] =>
  runDetectors(a, { siblings: [] }).flatMap((h) => (h.mechanism ? [h.mechanism] : []));
const labelOf = (a: Attempt, nameThreshold?: number) =>
  heuristicLabel(a, runDetectors(a, { siblings: [] }), [], nameThreshold ? { nameThreshold } : {});

/**
 * A mechanism whose only evidence is its trace pattern (strength 1): kept in scope for
 * review with the mechanism as the strongest suspicion, never named at the default
 * threshold; a workspace that accepts trace-only evidence (`nameThreshold: 1`) names it.
 */
function expectTraceOnly(a: Attempt, id: string, note = ""): void {
  const l = labelOf(a);
  expect(l.status, note).toBe("needs_review");
  expect(l.mechanismId, note).toBeUndefined();
  expect(l.exclusion, note).toBe("none");
  expect(l.suspected?.[0], note).toEqual({ mechanismId: id, strength: 1 });
  expect(
    l.evidence?.some((e) => e.claim === "state" && e.eventIndex !== undefined),
    note,
  ).toBe(true);
  const loose = labelOf(a, 1);
  expect(loose.status, note).toBe("named");
  expect(loose.mechanismId, note).toBe(id);
}

function withEvents(a: Attempt, edit: (events: Event[]) => Event[]): Attempt {
  const events = edit([...a.events]).map((e, index) => ({ ...e, index }));
  return { ...a, events };
}

describe("open mechanisms on real trials, each with a near miss", () => {
  it("artifact-wrong-path: tests written beside the folder the verifier looked in", () => {
    const a = real("t2-add-tests-normalizer__BPeAoa2");
    expect(labelOf(a).mechanismId).toBe("artifact-wrong-path");
    // Near miss: the same run writing tests/test_normalizer.py where the verifier looks.
    const right = withEvents(a, (evs) =>
      evs.map((e) =>
        e.tool === "write" && e.kind === "tool_call"
          ? {
              ...e,
              writes: ["/workspace/tests/test_normalizer.py"],
              input: e.input?.replace(
                "/workspace/test_normalizer.py",
                "/workspace/tests/test_normalizer.py",
              ),
            }
          : e,
      ),
    );
    expect(mechanisms(right)).not.toContain("artifact-wrong-path");
  });

  it("artifact-wrong-path without a named path: an .ics written where no file was found", () => {
    const a = real("task-calendar__8A83BnJ");
    expect(labelOf(a).mechanismId).toBe("artifact-wrong-path");
    const found = {
      ...a,
      verifierOutput: a.verifierOutput?.replace(
        '"automated.file_created": 0.0',
        '"automated.file_created": 1.0',
      ),
    };
    expect(mechanisms(found)).not.toContain("artifact-wrong-path");
  });

  it("artifact-never-written: the two files the task names, never written (deadline when timed out)", () => {
    const a = real("t5-hallucination-resistant-evide__85qPU4");
    // The run hit its time limit: the agent did not choose that stop, so the files missing
    // at the deadline are the deadline's reading, with the same signature ...
    const l = labelOf(a);
    const deadline = candidates(a, runDetectors(a, { siblings: [] }), []).find(
      (c) => c.id === "deadline-no-deliverable",
    );
    expect(deadline?.hits.map((h) => h.signature)).toContain("missing:.md,.txt");
    // ... and the time ran out inside a loop of the same failing read: the loop is named,
    // the deadline's evidence kept beside it
    expect(l.mechanismId).toBe("repeated-tool-error");
    expect(
      l.evidence?.some((e) => e.from === "verifier" && /answer\.txt|evidence\.md/.test(e.excerpt)),
    ).toBe(true);
    // The same run ending on its own: the agent stopped with both files unwritten.
    const stopped = { ...a, outcome: "fail" as const };
    delete stopped.exception;
    expect(labelOf(stopped).mechanismId).toBe("artifact-never-written");
    // Near miss: the same run writing both files at its end.
    const wrote = withEvents(a, (evs) => [
      ...evs.slice(0, -1),
      {
        index: 0,
        kind: "tool_call",
        tool: "write",
        writes: ["/workspace/answer.txt"],
        input: "{}",
      },
      {
        index: 0,
        kind: "tool_call",
        tool: "write",
        writes: ["/workspace/evidence.md"],
        input: "{}",
      },
      evs.at(-1) as Event,
    ]);
    expect(mechanisms(wrote)).not.toContain("artifact-never-written");
  });

  it("task-input-missed: guessed profile paths not found, then the user is asked", () => {
    expectTraceOnly(real("t4-life-trip-plan__AjimJm5"), "task-input-missed");
    // The same miss beside a stronger one: a failing call repeated to the end of the run
    // (trace + its place at the end) is named, the input miss stays a detector hit.
    const both = real("t4-life-trip-plan__pk7EZC6");
    expect(mechanisms(both)).toContain("task-input-missed");
    expect(labelOf(both).mechanismId).toBe("repeated-tool-error");
    // Near miss: the same run ending on a statement, not a question to the user.
    const a = real("t4-life-trip-plan__AjimJm5");
    const told = withEvents(a, (evs) =>
      evs.map((e, i) =>
        e.kind === "message" && i === evs.length - 2 ? { ...e, input: "Itinerary written." } : e,
      ),
    );
    expect(mechanisms(told)).not.toContain("task-input-missed");
  });

  it("deadline-no-deliverable: timed out while a placeholder replaced the fuller report", () => {
    const a = real("task-log-hdfs-block-ops__nvME2du");
    const l = labelOf(a);
    expect(l.mechanismId).toBe("deadline-no-deliverable");
    expect(l.interventionPoint).toBe("tool");
    // Near miss: the same writes in a run that ended on its own (no time limit hit).
    const ended = { ...a, outcome: "fail" as const };
    delete ended.exception;
    expect(mechanisms(ended)).not.toContain("deadline-no-deliverable");
  });

  it("repeated-tool-error: one read error 140 times, keyed by tool and error text", () => {
    const hit = runDetectors(real("t5-hallucination-resistant-evide__85qPU4"), {
      siblings: [],
    }).find((h) => h.detectorId === "loop.repeated-failure");
    expect(hit?.mechanism).toBe("repeated-tool-error");
    expect(hit?.eventIndices).toHaveLength(140);
    // Near miss (demo, planted capability gap): the same failing check three times is
    // struggle, not the mechanism.
    const gap = attemptByPrefix(demo.attempts, "custom-archive-decoder__oyFLHrl");
    const loop = runDetectors(gap, { siblings: [] }).find(
      (h) => h.detectorId === "loop.repeated-failure",
    );
    expect(loop?.eventIndices).toHaveLength(3);
    expect(loop?.mechanism).toBeUndefined();
  });

  it("constraint-unchecked: output never compared with the reference the verifier used", () => {
    const a = real("t3-data-pipeline-report__25HCHpE");
    expectTraceOnly(a, "constraint-unchecked");
    // Near miss: the same run diffing its output against the reference before stopping.
    const compared = withEvents(a, (evs) => [
      ...evs.slice(0, -2),
      {
        index: 0,
        kind: "tool_call",
        tool: "exec",
        command:
          "python3 pipeline.py input/sales.csv input/regions.json | diff - expected/report.txt",
      },
      ...evs.slice(-2),
    ]);
    expect(mechanisms(compared)).not.toContain("constraint-unchecked");
  });

  it("constraint-unchecked: a failing test on a name the task states, never exercised", () => {
    // The real pipeline trial ran its program after its last edit; the grader (here given
    // test-level results) passed part of it and failed a test on a function the task names.
    const base = real("t3-data-pipeline-report__25HCHpE");
    const graded = (tests: Attempt["verifierTests"], extra = ""): Attempt => ({
      ...base,
      taskText: `${base.taskText}\nAlso expose \`region_totals()\` returning the sum per region.${extra}`,
      verifierOutput: undefined,
      verifierTests: tests,
    });
    const failing = {
      name: "tests/test_report.py::test_region_totals_match_input",
      status: "failed" as const,
      message: "assert 20 == 15",
    };
    const passing = { name: "tests/test_report.py::test_report_lines", status: "passed" as const };
    const subjectHits = (a: Attempt) =>
      runDetectors(a, { siblings: [] }).filter(
        (h) => h.detectorId === "check.graded-subject-unchecked",
      );
    const a = graded([passing, failing]);
    expect(subjectHits(a).map((h) => h.reason)).toEqual([
      "the verifier failed tests/test_report.py::test_region_totals_match_input on `region_totals`, which the task states; no check after the last write exercised it",
    ]);
    // the trace pattern and the failing test the verifier names: strength 2, named
    const l = labelOf(a);
    expect(l.mechanismId).toBe("constraint-unchecked");
    expect(
      l.evidence?.some((e) => e.from === "verifier" && e.excerpt.includes("region_totals")),
    ).toBe(true);
    // Near misses, one fact each:
    // a check after the last write that calls the function
    const called = withEvents(a, (evs) => [
      ...evs.slice(0, -2),
      {
        index: 0,
        kind: "tool_call",
        tool: "exec",
        command: "python3 -c 'import pipeline; print(pipeline.region_totals())'",
      },
      { index: 0, kind: "tool_result", tool: "exec", output: "{}", exitCode: 0 },
      ...evs.slice(-2),
    ]);
    expect(subjectHits(called)).toEqual([]);
    // a test name whose only words are prose (no compound name the task states)
    expect(
      subjectHits(graded([passing, { ...failing, name: "tests/test_report.py::test_totals" }])),
    ).toEqual([]);
    // a grader that says which tests define the change reads through those roles
    expect(
      subjectHits(
        graded([
          { ...passing, role: "regression" },
          { ...failing, role: "target" },
        ]),
      ),
    ).toEqual([]);
    // nothing of the deliverable passed (no passing test, no partial reward)
    expect(subjectHits({ ...graded([failing]), reward: 0 })).toEqual([]);
    expect(subjectHits({ ...graded([failing]), reward: 0.5 })).toHaveLength(1);
  });

  it("constraint-unchecked: a wording the assertion demands verbatim, stated by the task", () => {
    const base = real("t3-data-pipeline-report__25HCHpE");
    const a: Attempt = {
      ...base,
      taskText: `${base.taskText}\nThe summary line must contain total revenue by region.`,
      verifierOutput: undefined,
      verifierTests: [
        { name: "tests/test_report.py::test_report_lines", status: "passed" },
        {
          name: "tests/test_report.py::test_summary",
          status: "failed",
          message: "assert 'total revenue by region' in 'Total Revenue By Region: 42'",
        },
      ],
    };
    const hit = runDetectors(a, { siblings: [] }).find(
      (h) => h.detectorId === "check.graded-subject-unchecked",
    );
    expect(hit?.reason).toContain('the wording "total revenue by region"');
    // near miss: the task never states that wording
    const unstated = { ...a, taskText: base.taskText };
    expect(
      runDetectors(unstated, { siblings: [] }).some(
        (h) => h.detectorId === "check.graded-subject-unchecked",
      ),
    ).toBe(false);
  });

  it("overwrote-existing-file: a task-named input replaced without being read", () => {
    // The real csv trial read apple_stock_2014.csv and wrote its report: no overwrite.
    const a = real("task-csv-stock-trend__EMfhUA5");
    expect(mechanisms(a)).not.toContain("overwrote-existing-file");
    // The same run listing the workspace and writing over the CSV instead of reading it.
    const blind = withEvents(a, (evs) => [
      evs[0] as Event,
      { index: 0, kind: "tool_call", tool: "exec", command: "ls", callId: "ls" },
      {
        index: 0,
        kind: "tool_result",
        callId: "ls",
        output: "apple_stock_2014.csv\n",
        exitCode: 0,
      },
      {
        index: 0,
        kind: "tool_call",
        tool: "write",
        writes: ["/app/apple_stock_2014.csv"],
        input: JSON.stringify({ path: "/app/apple_stock_2014.csv", content: "date,price\n" }),
      },
      ...evs.slice(-2),
    ]);
    // (its real judge crash is a verifier fault; the mechanism is about the trace)
    expectTraceOnly({ ...blind, verifierOutput: "" }, "overwrote-existing-file");
    expect(labelOf({ ...blind, verifierOutput: "" }, 1).interventionPoint).toBe("tool");
    // Near miss (real): browser-research read report_client.py, then rewrote it as asked.
    expect(mechanisms(real("t4-browser-research-and-code__56zvvqY"))).not.toContain(
      "overwrote-existing-file",
    );
  });

  it("reads paths in task texts of any script", () => {
    expect(
      namedPaths(
        "请读取 `input/数据.csv` 和 /app/config.yaml，把结果写入report.md（不要修改 data/）。版本 3.2",
      ),
    ).toEqual(["input/数据.csv", "/app/config.yaml", "report.md", "data/"]);
    expect(namedPaths("Local docs are at http://127.0.0.1:27828/ and in `docs/`.")).toEqual([
      "docs/",
    ]);
    // a dotted code name of an issue text (SWE-bench) is no file; a file ending a sentence is
    expect(
      namedPaths("Consider connection.features.can_rollback_ddl too; tests go in tests/test_x.py."),
    ).toEqual(["tests/test_x.py"]);
  });
});
