import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { isPydanticHistory } from "../../../src/core/ingest/pydantic-ai.js";
import { detectFormat } from "../../../src/core/ingest/registry.js";
import { type RunResults, recordVerdict } from "../../../src/core/ingest/run-results.js";
import { shellReportExit } from "../../../src/core/ingest/shell-report.js";
import { faultOf } from "../../../src/core/mine/faults/index.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { loadWorkspace } from "../../../src/core/workspace/load.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { tempDirs } from "../../helpers/temp-dirs.js";
import { collect } from "./collect.js";

/** Real zrb runs (a pydantic-ai agent) and their runner's results (README there). */
const FIXTURE = resolve(REPO_ROOT, "test/fixtures/zrb-pydantic-ai");
const EXP = join(FIXTURE, "experiment");
const PASSED = "deepseek_deepseek-v4-flash/research/trial-2";
const OVERWRITTEN = "openai_gpt-4o/refactor/trial-2";
const STUB = "google_gemini-2.5-flash/refactor/trial-2";
const UNLOGGED = "google_gemini-3.5-flash/refactor/trial-1";

const temp = tempDirs();

let attempts: Attempt[];
let errors: string[];
beforeAll(async () => {
  ({ attempts, errors } = await collect([FIXTURE]));
});

const inTrial = (trial: string) =>
  attempts.filter((a) => a.source.path.startsWith(join(EXP, trial)));

describe("pydantic-ai message histories with their runner's results", () => {
  it("reads every trial, claims the results files, and reads a copied history once", () => {
    expect(errors).toEqual([]);
    // two identical histories in the passing trial's folder: one attempt
    expect(inTrial(PASSED)).toHaveLength(1);
    // the overwritten trial: the graded run, and one ungraded stub (of two identical copies)
    expect(
      inTrial(OVERWRITTEN)
        .map((a) => a.outcome)
        .sort(),
    ).toEqual(["fail", "unknown"]);
    expect(inTrial(STUB)).toHaveLength(1);
    expect(inTrial(UNLOGGED)).toHaveLength(1);
    expect(attempts).toHaveLength(5);
  });

  it("turns parts into events: the task, calls paired with returns, writes and the stop", () => {
    const [a] = inTrial(PASSED);
    expect(a?.outcome).toBe("pass");
    expect(a?.taskId).toBe("research");
    expect(a?.agent).toBe("zrb");
    expect(a?.model).toBe("deepseek:deepseek-v4-flash");
    expect(a?.taskText).toMatch(/^Read `system_context\.md`\./);
    // the runner echoes each tool return as a user prompt: no second event for it
    expect(a?.events.filter((e) => e.kind === "prompt")).toHaveLength(1);
    const calls = a?.events.filter((e) => e.kind === "tool_call") ?? [];
    expect(calls.map((e) => e.tool)).toEqual(["Read", "Write"]);
    expect(calls[1]?.writes?.[0]).toMatch(/ADR-001-notification-architecture\.md$/);
    for (const c of calls)
      expect(
        a?.events.some(
          (e) => e.kind === "tool_result" && e.callId === c.callId && e.tool === c.tool,
        ),
      ).toBe(true);
    expect(a?.events.at(-1)?.kind).toBe("stop");
    expect(a?.agentEnd).toMatchObject({ stopReason: "stop", toolCalls: 0 });
    expect(a?.tokens?.input).toBeGreaterThan(0);
  });

  it("takes the verdict and the validator's checks from the results", () => {
    const [a] = inTrial(OVERWRITTEN).filter((x) => x.outcome === "fail");
    expect(a?.reward).toBe(0);
    expect(a?.verifierSource?.file).toBe(join(EXP, "results.json"));
    const failed = a?.verifierTests?.filter((t) => t.status === "failed").map((t) => t.name);
    expect(failed).toContain("no_hardcoded_credential");
    expect(a?.verifierOutput).toMatch(/^status: FAIL/);
  });

  it("gives the verdict to the run the results graded, not to a later stub over its file", () => {
    // results.json names the plain file; a later stub (the runtime's error note only) holds it
    const named = JSON.parse(readFileSync(join(EXP, "results.json"), "utf8")).find(
      (r: { log_path: string }) => r.log_path.includes(`/${OVERWRITTEN}/`),
    ).log_path as string;
    const graded = inTrial(OVERWRITTEN).find((x) => x.outcome === "fail");
    expect(graded?.source.path.endsWith(named.split("/").at(-1) as string)).toBe(false);
    expect(graded?.events.some((e) => e.kind === "tool_call" && e.tool === "Write")).toBe(true);
    const stub = inTrial(OVERWRITTEN).find((x) => x.outcome === "unknown");
    expect(stub?.taskId).toBe("refactor");
    expect(stub?.taskText).toBe("");
  });

  it("reads the runtime's error note as the trial's loss, not as its task", () => {
    const [a] = inTrial(STUB);
    expect(a?.outcome).toBe("timeout");
    expect(a?.exception?.type).toBe("Timeout");
    expect(a?.taskText).toBe("");
    expect(a?.harnessFailure?.message).toMatch(/^\[SYSTEM\] Error occurred:/);
    expect(a && faultOf(a)).toMatchObject({ reason: "provider_fault", code: "harness-lost-trial" });
  });

  it("keeps a graded trial whose run left no history, with its verdict and no events", () => {
    const [a] = inTrial(UNLOGGED);
    expect(a?.source.path).toBe(join(EXP, UNLOGGED));
    expect(a?.outcome).toBe("timeout");
    expect(a?.events).toEqual([]);
    expect(a?.taskId).toBe("refactor");
  });

  it("keeps k/n of each task whole in a workspace (copies deduplicated, nothing counted twice)", async () => {
    const dir = temp.fresh("fire-pydantic-ws-");
    const ws = await loadWorkspace(dir, { sources: [FIXTURE] });
    const refactor = ws.attempts.filter((a) => a.taskId === "refactor" && a.outcome !== "unknown");
    expect(refactor.map((a) => a.outcome).sort()).toEqual(["fail", "timeout", "timeout"]);
  });

  it("is detected by content, and other JSON is not", async () => {
    const file = join(EXP, PASSED, "history", "deepseek_deepseek-v4-flash-research-trial-2.json");
    const head = readFileSync(file, "utf8").slice(0, 64 * 1024);
    expect(isPydanticHistory(file, head)).toBe(true);
    expect(await detectFormat(file, head, false)).toBe("pydantic-ai");
    expect(isPydanticHistory(file, '[{"role": "user", "content": "hi"}]')).toBe(false);
    expect(isPydanticHistory(file, '{"parts": []}')).toBe(false);
  });
});

/** A copy of the fixture to change, removed after the tests. */
function copy(): string {
  const dir = temp.copyOf(FIXTURE, "fire-pydantic-");
  return dir;
}

describe("where the results are and how they name the logs", () => {
  it("matches relative log paths, and logs kept beside the results file", async () => {
    const dir = copy();
    const results = join(dir, "experiment", "results.json");
    const records = JSON.parse(readFileSync(results, "utf8"));
    for (const r of records) r.log_path = r.log_path.replace(/^.*\/experiment\//, "");
    writeFileSync(results, JSON.stringify(records));
    const got = await collect([dir]);
    expect(got.attempts.filter((a) => a.outcome === "pass")).toHaveLength(1);
    expect(got.attempts.filter((a) => a.outcome === "fail")).toHaveLength(1);
    // one history beside its results
    const flat = temp.fresh("fire-pydantic-flat-");
    const history = join(
      EXP,
      PASSED,
      "history",
      "deepseek_deepseek-v4-flash-research-trial-2.json",
    );
    cpSync(history, join(flat, "run.json"));
    const passed = records.find((r: { log_path: string }) => r.log_path.includes("research"));
    writeFileSync(
      join(flat, "results.json"),
      JSON.stringify([{ ...passed, log_path: "run.json" }]),
    );
    expect((await collect([flat])).attempts.map((a) => a.outcome)).toEqual(["pass"]);
  });

  it("invents no attempt for a record whose trial folder is not there", async () => {
    const dir = copy();
    const results = join(dir, "experiment", "results.json");
    const records = JSON.parse(readFileSync(results, "utf8"));
    const ghost = records.find((r: { log_path: string }) => r.log_path.includes(UNLOGGED));
    records.push({
      ...ghost,
      log_path: ghost.log_path.replace("refactor/trial-1", "refactor/trial-9"),
    });
    writeFileSync(results, JSON.stringify(records));
    const got = await collect([dir]);
    expect(got.attempts).toHaveLength(5);
  });

  it("survives a link loop beside the logs, and reports a refused record", async () => {
    const dir = copy();
    symlinkSync("experiment.json", join(dir, "experiment", OVERWRITTEN, "experiment.json"));
    mkdirSync(join(dir, "experiment", "loop"));
    symlinkSync("results.json", join(dir, "experiment", "loop", "results.json"));
    const results = join(dir, "experiment", "results.json");
    const records = JSON.parse(readFileSync(results, "utf8"));
    records[0].status = 7;
    writeFileSync(results, JSON.stringify(records));
    const got = await collect([dir]);
    expect(
      got.errors.some((e) => e.startsWith(`${results}: record 0: expected a run record`)),
    ).toBe(true);
    expect(got.attempts.length).toBeGreaterThanOrEqual(4);
  });
});

describe("parts beyond text", () => {
  it("keeps a structured tool return, and a built-in tool does not hide the stop", async () => {
    const dir = temp.fresh("fire-pydantic-parts-");
    const file = join(dir, "history.json");
    writeFileSync(
      file,
      JSON.stringify([
        { kind: "request", parts: [{ part_kind: "user-prompt", content: "Find TODOs." }] },
        {
          kind: "response",
          parts: [
            {
              part_kind: "tool-call",
              tool_name: "grep",
              args: '{"pattern":"TODO"}',
              tool_call_id: "c1",
            },
          ],
          finish_reason: "tool_call",
        },
        {
          kind: "request",
          parts: [
            {
              part_kind: "tool-return",
              tool_name: "grep",
              content: [{ file: "app.py", line: 3 }],
              tool_call_id: "c1",
            },
          ],
        },
        {
          kind: "response",
          parts: [
            {
              part_kind: "builtin-tool-call",
              tool_name: "web_search",
              args: { query: "x" },
              tool_call_id: "b1",
            },
            {
              part_kind: "builtin-tool-return",
              tool_name: "web_search",
              content: "results",
              tool_call_id: "b1",
            },
            { part_kind: "text", content: "One TODO, in app.py line 3." },
          ],
          finish_reason: "stop",
        },
      ]),
    );
    const got = await collect([file]);
    expect(got.errors).toEqual([]);
    const a = got.attempts[0];
    const result = a?.events.find((e) => e.kind === "tool_result" && e.callId === "c1");
    expect(result?.output).toBe('[{"file":"app.py","line":3}]');
    expect(a?.events.at(-1)?.kind).toBe("stop");
    expect(a?.agentEnd).toMatchObject({ stopReason: "stop", toolCalls: 0 });
  });
});

describe("a runner's status words", () => {
  it("reads pass, fail, timeout and the runner's own error apart", () => {
    const results: RunResults = { file: "/r/results.json", root: "/r", records: [], timeoutS: 600 };
    const of = (status: string) => recordVerdict(results, { status, log_path: "/x/h.json" });
    expect(of("EXCELLENT").outcome).toBe("pass");
    expect(of("PASS").outcome).toBe("pass");
    expect(of("FAIL").outcome).toBe("fail");
    expect(of("TIMEOUT")).toMatchObject({
      outcome: "timeout",
      exception: { type: "Timeout", message: "the run exceeded the runner's time limit (600 s)" },
    });
    // the run broke: not a deliverable that failed its checks
    expect(of("ERROR")).toMatchObject({ outcome: "error", exception: { type: "RunnerError" } });
    expect(of("SKIPPED")).toMatchObject({ outcome: "unknown", reward: null });
  });
});

describe("bad input loses nothing else", () => {
  it("names the file of a history that is not one and still reads the others", async () => {
    const dir = temp.copyOf(FIXTURE, "fire-pydantic-");
    const file = join(
      dir,
      "experiment",
      STUB,
      "history",
      "google_gemini-2.5-flash-refactor-trial-2.json",
    );
    writeFileSync(
      file,
      '[{"parts": [{"part_kind": "user-prompt", "content": 3}], "kind": "reply"}]',
    );
    const got = await collect([dir]);
    expect(got.errors.some((e) => e.startsWith(file))).toBe(true);
    expect(got.errors.find((e) => e.startsWith(file))).toMatch(/pydantic-ai message history/);
    expect(got.attempts.filter((a) => a.outcome === "pass")).toHaveLength(1);
  });

  it("skips a results record that fails its schema and keeps the others", async () => {
    const dir = temp.copyOf(FIXTURE, "fire-pydantic-");
    const results = join(dir, "experiment", "results.json");
    const records = JSON.parse(readFileSync(results, "utf8"));
    for (const r of records) if (r.log_path.includes(`/${UNLOGGED}/`)) r.status = 7;
    writeFileSync(results, JSON.stringify(records));
    const got = await collect([dir]);
    expect(got.attempts.filter((a) => a.outcome === "pass")).toHaveLength(1);
    // the record that failed its schema gives no attempt; the others still have their verdicts
    expect(got.attempts.some((a) => a.events.length === 0)).toBe(false);
    expect(got.attempts.filter((a) => a.outcome === "fail")).toHaveLength(1);
  });
});

describe("a CLI shell tool's report", () => {
  it("gives the exit code with or without the signal line", () => {
    // zrb's Bash report (verbatim shape from the corpus), and Gemini CLI's with its signal line
    const zrb =
      "Command: python main.py\nDirectory: /w\nStdout:\nDone: 10\nStderr:\n(empty)\nExit Code: 2\nBackground PIDs: (none)";
    expect(shellReportExit(zrb)).toBe(2);
    const gemini =
      "Command: make\nDirectory: (root)\nOutput: ok\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 41";
    expect(shellReportExit(gemini)).toBe(0);
    // a command's own output that merely ends like one is no report
    expect(shellReportExit("Done\nExit Code: 2\nBackground PIDs: (none)")).toBeUndefined();
  });
});
