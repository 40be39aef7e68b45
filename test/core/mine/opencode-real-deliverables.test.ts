import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import {
  requiredArtifacts,
  requiredOutputs,
} from "../../../src/core/mine/detectors/output-never-written.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import { compareWith } from "../../../src/core/mine/sibling-diff.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collectOne } from "../ingest/collect.js";

/** Real OpenCode trials under Harbor, copied unmodified (README there). */
const DIR = resolve(REPO_ROOT, "test/fixtures/harbor-opencode-real");
const trial = (name: string) => resolve(DIR, name);

describe("what a task names is not always a deliverable", () => {
  it("a file the task forbids writing is no required output", () => {
    const text =
      "Preserve the existing API. Do not\nhardcode verifier cases, read `/tests`, or write `/logs/verifier/reward.txt`.";
    expect(requiredOutputs(text)).toEqual([]);
    expect(
      requiredOutputs("Never save to /tmp/a.txt; instead write the report to /app/r.md"),
    ).toEqual(["/app/r.md"]);
    expect(requiredOutputs("If the file does not exist, create /app/config.yaml.")).toEqual([
      "/app/config.yaml",
    ]);
    // a ban governs the verb only right before it or at the head of the list it ends
    for (const kept of [
      "Do not forget to write the results to /app/out.txt",
      "Don't hesitate to create helper files, but save the final answer to /app/out.txt",
      "Without this file the build fails, so write /app/out.txt",
      "Avoid hardcoding values and write the output to /app/out.txt",
      "The file must not be empty: write /app/out.txt",
      "Do not overwrite input.csv, write /app/out.txt instead",
      "Important: never hardcode answers\nWrite your answer to /app/out.txt",
    ])
      expect(requiredOutputs(kept)).toEqual(["/app/out.txt"]);
    expect(requiredOutputs("You must never directly write /etc/x.txt.")).toEqual([]);
    expect(requiredOutputs("Do not modify tests e.g. a.py or write /logs/r.txt")).toEqual([]);
  });

  it("a task whose text bans writing the grader's reward file asks for no such file", async () => {
    const a = await collectOne(trial("cute-layout-composition__DwWB8T7"));
    expect(a.taskText).toContain("or write `/logs/verifier/reward.txt`");
    expect(requiredArtifacts(a)).toEqual([]);
  });

  it("the test file the task runs, found absent by the agent, is an input, not a deliverable", async () => {
    const a = await collectOne(trial("cute-layout-composition__8kJpL3H"));
    expect(a.taskText).toContain("python3 -m pytest /tests/test_outputs.py");
    // the agent ran it and it was not there
    const run = a.events.find(
      (e) =>
        e.kind === "tool_result" &&
        /can't open file '\/tests\/test_outputs\.py'/.test(e.output ?? ""),
    );
    expect(run).toBeDefined();
    expect(requiredArtifacts(a)).not.toContain("/tests/test_outputs.py");
  });

  it("a build that reports another file missing says nothing of the script it ran", async () => {
    const a = await collectOne(trial("dwconv3d-occupancy__xAze5au"));
    // the task names ./build.sh; its run failed on a header it could not find
    expect(a.taskText).toContain("./build.sh");
    const build = a.events.find(
      (e) => e.kind === "tool_call" && /\.\/build\.sh/.test(e.command ?? ""),
    );
    const out = a.events.find(
      (e) => e.kind === "tool_result" && e.index === (build?.index ?? -2) + 1,
    );
    expect(out?.output).toMatch(/_sgb\.cpp' file not found/);
    expect(requiredArtifacts(a)).not.toContain("./build.sh");
  });
});

describe("an attempt that changed no file, beside a sibling that passed", () => {
  it("is named a deliverable never written, not a stop without a check", async () => {
    const failed = await collectOne(trial("dwconv3d-occupancy__hCrGGYE"));
    const sibling = await collectOne(trial("dwconv3d-occupancy__FxG6JYC"));
    expect(sibling.outcome).toBe("pass");
    expect(failed.events.some((e) => e.kind === "tool_call" && (e.writes?.length ?? 0) > 0)).toBe(
      false,
    );
    // the sibling checked its result before stopping; this one had no result to check
    const check = compareWith(failed, sibling).differences.find((d) => d.kind === "check-missing");
    expect(check?.sentence).toContain("this one never wrote anything");
    expect(check?.mechanismId).toBe("artifact-never-written");
    const hits = runDetectors(failed, { siblings: [sibling] });
    const label = heuristicLabel(failed, hits);
    expect(label.exclusion).toBe("none");
    expect(label.mechanismId).toBe("artifact-never-written");
  });
});
