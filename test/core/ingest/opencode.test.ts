import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { launchInstruction } from "../../../src/core/ingest/launch-instruction.js";
import { opencodeFailure, opencodeItems } from "../../../src/core/ingest/opencode-printed.js";
import { runDetectors } from "../../../src/core/mine/detectors/index.js";
import { faultOf } from "../../../src/core/mine/faults/index.js";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { byTrialFolder, collect } from "./collect.js";

/** Harbor trials of the real OpenCode CLI on a scripted model (test/fixtures/harbor-opencode). */
const FIXTURE = resolve(REPO_ROOT, "test/fixtures/harbor-opencode");
let one: (trial: string) => Attempt;
beforeAll(async () => {
  // (the trial folders: capture/ beside them holds the script that made them)
  const got = await collect(
    ["count-lines__Oc1Wrong", "count-lines__Oc2NoModel", "count-lines__Oc3Fixed"].map((t) =>
      resolve(FIXTURE, t),
    ),
  );
  expect(got.errors).toEqual([]);
  one = byTrialFolder(got.attempts);
});
const calls = (a: Attempt) => a.events.filter((e) => e.kind === "tool_call");

describe("OpenCode's JSON events under Harbor (agent/opencode.txt)", () => {
  it("reads each call with its input, output, exit status and the files a patch wrote", () => {
    const a = one("count-lines__Oc1Wrong");
    expect(a.agent).toBe("opencode");
    expect(calls(a).map((c) => c.tool)).toEqual(["bash", "read", "apply_patch", "bash", "bash"]);
    expect(calls(a)[0]?.command).toBe("ls -la /app/data && wc -l /app/data/input.txt");
    expect(calls(a)[2]?.writes).toEqual(["/app/out/count.txt"]);
    const results = a.events.filter((e) => e.kind === "tool_result");
    expect(results[0]).toMatchObject({ exitCode: 0 });
    expect(results[0]?.output).toContain("4 /app/data/input.txt");
    // a tool that failed (status error) carries its error as output
    expect(results[1]).toMatchObject({
      output: "File not found: /app/data/missing.txt",
      isError: true,
    });
    // the agent's own test, failing
    expect(results[3]).toMatchObject({ exitCode: 1, isError: true });
    const said = a.events.filter((e) => e.kind === "message" && e.role === "agent");
    expect(said.at(-1)?.input).toBe("Done: the count is written to /app/out/count.txt.");
  });

  it("reads the write and edit tools OpenCode offers an Anthropic model as writes", () => {
    const a = one("count-lines__Oc3Fixed");
    expect(a.outcome).toBe("pass");
    expect(calls(a).map((c) => c.tool)).toEqual(["bash", "write", "edit", "bash"]);
    expect(calls(a)[1]?.writes).toEqual(["/app/out/count.txt"]);
    expect(calls(a)[2]?.writes).toEqual(["/app/out/count.txt"]);
    const results = a.events.filter((e) => e.kind === "tool_result");
    expect(results.at(-1)).toMatchObject({ output: "4\n", exitCode: 0 });
  });

  it("takes the instruction from the launch command Harbor logged", () => {
    const a = one("count-lines__Oc1Wrong");
    expect(a.taskText).toMatch(/^Write the number of lines of \/app\/data\/input\.txt/);
    const dir = resolve(FIXTURE, "count-lines__Oc1Wrong");
    expect(launchInstruction(dir)).toBe(a.taskText);
  });

  it("reads the instruction from the launch shapes of Harbor's installed agents", () => {
    const dir = mkdtempSync(join(tmpdir(), "fire-launch-"));
    const say = (cmd: string): string => {
      mkdirSync(join(dir, "agent", "command-0"), { recursive: true });
      writeFileSync(join(dir, "agent", "command-0", "command.txt"), cmd);
      return launchInstruction(dir);
    };
    const task = "Fix the failing build in /app and keep the public API as it is today.";
    expect(say(`opencode --model openai/x run --format=json '${task}' 2>&1 | tee o.txt`)).toBe(
      task,
    );
    expect(say(`echo '${task}' | qwen -y 2>&1 | tee /logs/agent/qwen-code.txt`)).toBe(task);
    expect(say(`goose run --text '${task}' 2>&1 | tee g.txt`)).toBe(task);
    // an echo into a file is no instruction handed to an agent
    expect(say(`echo '${task}' > /etc/motd`)).toBe("");
    rmSync(dir, { recursive: true, force: true });
  });

  it("a stop right after its own test failed is named, from the events and the verifier", () => {
    const a = one("count-lines__Oc1Wrong");
    expect(faultOf(a)).toBeUndefined();
    const label = heuristicLabel(a, runDetectors(a, { siblings: [] }));
    expect(label.mechanismId).toBe("stop-after-failed-check");
    expect(label.evidence?.some((e) => e.from === "verifier")).toBe(true);
  });

  it("a first model request that failed is the provider's, with the CLI's words", () => {
    const a = one("count-lines__Oc2NoModel");
    expect(calls(a)).toEqual([]);
    expect(a.events.at(-1)?.input).toBe(
      "Error: APIError: Cannot connect to API: Was there a typo in the url or port?",
    );
    expect(faultOf(a)?.reason).toBe("provider_fault");
  });

  it("skips lines that are no event, and a failure a later step went on from", () => {
    const text = readFileSync(resolve(FIXTURE, "count-lines__Oc1Wrong/agent/opencode.txt"), "utf8");
    const noisy = `warning: something on stderr\n${text}{"type":"tool_use","broken\n`;
    expect(opencodeItems(noisy)).toEqual(opencodeItems(text));
    const failed = readFileSync(
      resolve(FIXTURE, "count-lines__Oc2NoModel/agent/opencode.txt"),
      "utf8",
    ).trim();
    expect(opencodeFailure(failed)).toMatch(/^APIError: Cannot connect/);
    const first = text.split("\n")[0] ?? "";
    expect(opencodeFailure(first)).toBeNull(); // a step_start: the run went on
    expect(opencodeItems("not opencode at all")).toEqual([]);
  });
});
