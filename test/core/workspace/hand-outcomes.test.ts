import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InputError } from "../../../src/core/errors.js";
import { triage } from "../../../src/core/mine/triage.js";
import { loadTriageInputs } from "../../../src/core/mine/triage-view.js";
import { Attempt } from "../../../src/core/model/attempt.js";
import { loadConfig } from "../../../src/core/workspace/config.js";
import {
  handOutcomesFile,
  readHandMarks,
  setHandMark,
} from "../../../src/core/workspace/hand-outcomes.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "fire-hand-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const session = (id: string, outcome: "unknown" | "fail" = "unknown") =>
  Attempt.parse({
    id,
    source: { format: "claude-transcript", path: `/w/${id}.jsonl` },
    taskId: "t1",
    taskText: "keep the server running",
    outcome,
    events: [
      { index: 0, kind: "prompt", role: "user", input: "keep the server running" },
      { index: 1, kind: "tool_call", tool: "Bash", command: "python3 -m http.server", callId: "c" },
    ],
  });

describe("hand outcomes", () => {
  it("count in k/n for attempts without a verifier outcome, through the triage inputs", async () => {
    const attempts = [session("a"), session("b"), session("c", "fail")];
    const ws = { dir, config: await loadConfig(dir) };
    const before = triage(attempts, await loadTriageInputs(ws));
    expect(before.tasks[0]).toMatchObject({ passes: 0, n: 1, status: "unsolved" });
    expect(before.exclusions.map((e) => [e.attemptId, e.reason])).toEqual([
      ["a", "no_outcome"],
      ["b", "no_outcome"],
    ]);

    await setHandMark(dir, "a", { outcome: "pass", tags: ["server ", "", "server", "demo"] });
    await setHandMark(dir, "b", { outcome: "fail" });
    await setHandMark(dir, "c", { outcome: "pass" }); // has a verifier outcome: it wins
    const after = triage(attempts, await loadTriageInputs(ws));
    expect(after.tasks[0]).toMatchObject({ passes: 1, n: 3, status: "reachable" });
    expect(after.exclusions).toEqual([]);
    expect(after.inScope.sort()).toEqual(["b", "c"]);
    expect((await readHandMarks(dir)).entries.get("a")?.tags).toEqual(["server", "demo"]);

    await setHandMark(dir, "a", { outcome: null, tags: [] }); // cleared: the entry goes
    expect((await readHandMarks(dir)).entries.has("a")).toBe(false);
  });

  it("a bad outcomes file is an error naming it and the field", async () => {
    await mkdir(join(dir, "mining"));
    await writeFile(
      handOutcomesFile(dir),
      JSON.stringify({ version: 1, attempts: { a: { outcome: "maybe", tags: [], at: "x" } } }),
    );
    const err = await readHandMarks(dir).catch((e: InputError) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).format()).toMatch(
      /mining\/outcomes\.json: attempts\.a\.outcome: Invalid option/,
    );
  });
});
