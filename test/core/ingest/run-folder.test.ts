import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { aiderBlindEdit, aiderFirstRequest } from "../../../src/core/ingest/agent-printed.js";
import { isRunFolder } from "../../../src/core/ingest/run-folder.js";
import { secondReadingOf } from "../../../src/core/mine/faults/harness.js";
import { faultOf } from "../../../src/core/mine/faults/index.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { tempDirs } from "../../helpers/temp-dirs.js";
import { collect } from "./collect.js";

/** Real aider runs of a small bench harness (README there). */
const FIXTURE = resolve(REPO_ROOT, "test/fixtures/aider-run-folders");
const PASSED = "2026-05-10T05-41-25Z_bug-fix_aider_devstral_24b_baseline";
const TIMED_OUT = "2026-05-10T09-47-55Z_hamming-code_aider_qwen3_14b_baseline";
const KILLED = "2026-05-10T09-22-18Z_base64-codec_aider_qwen3_14b_baseline";
const BLIND = "2026-05-10T07-43-03Z_sql-injection-fix_aider_qwen3_14b_baseline";

const temp = tempDirs();

let attempts: Attempt[];
let errors: string[];
beforeAll(async () => {
  ({ attempts, errors } = await collect([FIXTURE]));
});
const run = (name: string) => attempts.find((a) => a.source.path === join(FIXTURE, name));

describe("a bench harness's run folders around aider", () => {
  it("reads each folder as one attempt, its workspace files as nothing else", () => {
    expect(errors).toEqual([]);
    expect(attempts).toHaveLength(4);
    expect(attempts.every((a) => a.source.format === "run-folder")).toBe(true);
  });

  it("takes the task, model and agent from meta.json and the actions from aider's history", () => {
    const a = run(PASSED);
    expect(a).toMatchObject({
      taskId: "bug-fix",
      model: "devstral:24b",
      agent: "aider",
      outcome: "pass",
      reward: 1,
      durationS: 95,
    });
    expect(a?.taskText).toMatch(/^The file `csv_total\.py` in this directory is supposed to/);
    const edit = a?.events.find((e) => e.kind === "tool_call");
    expect(edit?.writes).toEqual(["csv_total.py"]);
    // the CLI exited 0 after its reply: the run ends with its stop
    expect(a?.events.at(-1)?.kind).toBe("stop");
    expect(a?.tokens).toEqual({ input: 1692, output: 526 });
  });

  it("reads the grader's weighted checks as the verifier's tests", () => {
    const a = run(KILLED);
    expect(a?.verifierSource?.file).toBe(join(FIXTURE, KILLED, "score.json"));
    expect(a?.verifierTests?.map((t) => t.status)).toContain("failed");
    expect(a?.verifierTests?.[0]).toMatchObject({ name: "file:base64codec.py", status: "failed" });
    expect(a?.verifierOutput).toMatch(/^score_pct: 0\nFAIL file:base64codec\.py/);
  });

  it("keeps a run that left no transcript, with its verdict and the CLI's exit", () => {
    const killed = run(KILLED);
    expect(killed?.events).toEqual([]);
    expect(killed).toMatchObject({
      outcome: "error",
      exception: { type: "NonZeroAgentExitCode", message: "the agent CLI ended with exit 143" },
      agentEnd: { exitCode: 143 },
    });
    expect(killed && faultOf(killed)).toMatchObject({ code: "agent-killed" });
    // the harness's time limit: a timeout, and the grader still decides (it scored 100)
    const timed = run(TIMED_OUT);
    expect(timed).toMatchObject({ outcome: "pass", exception: { type: "Timeout" } });
  });

  it("is a folder with meta.json naming task and agent and a score.json, nothing less", () => {
    expect(isRunFolder(join(FIXTURE, PASSED))).toBe(true);
    expect(isRunFolder(join(FIXTURE, PASSED, "workspace"))).toBe(false);
    const dir = temp.fresh("fire-run-folder-");
    writeFileSync(join(dir, "meta.json"), '{"name": "a package", "version": "1.0"}');
    writeFileSync(join(dir, "score.json"), '{"score": 3}');
    expect(isRunFolder(dir)).toBe(false);
  });

  it("names the file of a bad meta.json and still reads the other runs", async () => {
    const dir = temp.copyOf(FIXTURE, "fire-run-folder-");
    const meta = join(dir, KILLED, "meta.json");
    writeFileSync(meta, '{"eval": "base64-codec", "model": "m", "exit_code": "143"}');
    const got = await collect([dir]);
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]).toMatch(new RegExp(`^${meta.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    expect(got.errors[0]).toMatch(/exit_code/);
    expect(got.attempts).toHaveLength(3);
  });

  it("keeps a run whose grader wrote no valid score.json, with no verdict", async () => {
    const dir = temp.copyOf(FIXTURE, "fire-run-folder-");
    const score = join(dir, PASSED, "score.json");
    writeFileSync(score, '{"checks": [{"name": "x", "note": "said "quoted""}]}');
    writeFileSync(
      join(dir, PASSED, "meta.json"),
      JSON.stringify({
        eval: "bug-fix",
        harness: "aider",
        model: "m",
        exit_code: 0,
        score_pct: "?",
      }),
    );
    const got = await collect([dir]);
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]?.startsWith(score)).toBe(true);
    const a = got.attempts.find((x) => x.source.path === join(dir, PASSED));
    expect(a).toMatchObject({ outcome: "unknown", reward: null });
    expect(a?.events.some((e) => e.kind === "tool_call")).toBe(true);
  });

  it("claims a run whose grader left score.json empty, and finds aider's own file in workspace/", async () => {
    const dir = temp.copyOf(FIXTURE, "fire-run-folder-");
    // the grader crashed (`rubric > score.json || true`): an empty file
    writeFileSync(join(dir, KILLED, "score.json"), "");
    // a killed run's history stays where aider wrote it; a cloud runner names the agent apart
    const history = readFileSync(join(FIXTURE, PASSED, "aider.chat.history.md"), "utf8");
    writeFileSync(join(dir, TIMED_OUT, "workspace", ".aider.chat.history.md"), history);
    const meta = JSON.parse(readFileSync(join(dir, TIMED_OUT, "meta.json"), "utf8"));
    writeFileSync(
      join(dir, TIMED_OUT, "meta.json"),
      JSON.stringify({ ...meta, harness: "squeezer-cloud", agent: "aider" }),
    );
    const got = await collect([dir]);
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]?.startsWith(`${join(dir, KILLED, "score.json")}:`)).toBe(true);
    expect(got.attempts).toHaveLength(4);
    const killed = got.attempts.find((a) => a.source.path === join(dir, KILLED));
    // the verdict then comes from the harness's own record of the score (meta.json)
    expect(killed).toMatchObject({ outcome: "error", reward: 0 });
    expect(killed?.verifierSource).toBeUndefined();
    const timed = got.attempts.find((a) => a.source.path === join(dir, TIMED_OUT));
    expect(timed?.agent).toBe("aider");
    expect(timed?.events.some((e) => e.kind === "tool_call")).toBe(true);
    // the run was ended by its limit: no stop of its own
    expect(timed?.events.at(-1)?.kind).not.toBe("stop");
  });

  it("takes the first request of aider's history as the task", () => {
    const history = [
      "# aider chat started at 2026-05-10 05:41:27",
      "",
      "#### Fix the totals.  ",
      "#### Keep the output format.  ",
      "",
      "Here is the fix.",
      "#### thanks",
    ].join("\n");
    expect(aiderFirstRequest(history)).toBe("Fix the totals.  \nKeep the output format.");
    expect(aiderFirstRequest("# aider chat started at x\n\nno request")).toBe("");
  });
});

describe("aider editing a file its harness never gave it", () => {
  const history = () => readFileSync(join(FIXTURE, BLIND, "aider.chat.history.md"), "utf8");

  it("is the harness's fault, with aider's own notice as evidence and a rule's second reading", () => {
    const a = run(BLIND);
    expect(a).toMatchObject({ outcome: "fail", taskId: "sql-injection-fix" });
    expect(a?.harnessFailure).toMatchObject({
      kind: "withheld-input",
      file: join(FIXTURE, BLIND, "aider.chat.history.md"),
      line: 82,
    });
    const fault = a && faultOf(a);
    expect(fault).toMatchObject({ reason: "provider_fault", code: "harness-withheld-input" });
    expect(fault?.detail).toMatch(/^aider was never given app\.py: /);
    expect(fault?.evidence[0]).toMatchObject({ line: 82 });
    expect(a && secondReadingOf(a, fault)).toMatchObject({
      kind: "policy_addressable",
      mechanismId: "task-input-missed",
      interventionPoint: "tool",
    });
  });

  it("is no fault in a run that passed the same way", () => {
    // the bug-fix run also edited its file blind (its repo listed 0 files), and passed
    const a = run(PASSED);
    expect(a?.harnessFailure?.kind).toBe("withheld-input");
    expect(a && faultOf(a)).toBeUndefined();
  });

  it("needs aider to have been shown nothing: no file added, no command run, nothing listed", () => {
    const text = history();
    expect(aiderBlindEdit(text)).toMatchObject({ path: "app.py", line: 82 });
    const added = text.replace(
      "> Repo-map: using",
      "> Added app.py to the chat.  \n> Repo-map: using",
    );
    expect(aiderBlindEdit(added)).toBeUndefined();
    const ran = text.replace("> Tokens: 832 sent", "> Running cat app.py  \n> Tokens: 832 sent");
    expect(aiderBlindEdit(ran)).toBeUndefined();
    const listed = text.replace("with 0 files", "with 3 files");
    expect(aiderBlindEdit(listed)).toBeUndefined();
    // refused: aider applies no edit
    const refused = text.replace("[Yes]: y", "[Yes]: n").replace("> Applied edit to app.py", "");
    expect(aiderBlindEdit(refused)).toBeUndefined();
    // a later session that was shown the file starts afresh
    const later = `${text}\n# aider chat started at 2026-05-10 04:00:00\n\n> Added app.py to the chat.  \n`;
    expect(aiderBlindEdit(later)).toMatchObject({ path: "app.py" }); // two files approved before either edit is applied: each edit pairs with its own approval
    const two = text.replace(
      "> app.py  \n> Allow edits to file that has not been added to the chat? (Y)es/(N)o [Yes]: y  \n> Applied edit to app.py",
      "> app.py  \n> Allow edits to file that has not been added to the chat? (Y)es/(N)o [Yes]: y  \n> db.py  \n> Allow edits to file that has not been added to the chat? (Y)es/(N)o [Yes]: y  \n> Applied edit to app.py  \n> Applied edit to db.py",
    );
    expect(two).not.toBe(text);
    expect(aiderBlindEdit(two)).toMatchObject({ path: "app.py", line: 82 });
    // the request pasted code (the file's content may have come with it): not blind
    const pasted = text.replace(
      "#### Modify `app.py` in place.",
      "#### ```python\n#### def lookup(con, name):\n####     q = f\"SELECT * FROM users WHERE name = '{name}'\"\n####     return con.execute(q).fetchall()\n#### ```\n#### Modify `app.py` in place.",
    );
    expect(pasted).not.toBe(text);
    expect(aiderBlindEdit(pasted)).toBeUndefined();
    // a sample of the expected output in a fence shows no file: still blind
    const sample = text.replace(
      "#### Modify `app.py` in place.",
      "#### ```\n#### alice 1\n#### bob 2\n#### ```\n#### Modify `app.py` in place.",
    );
    expect(aiderBlindEdit(sample)).toMatchObject({ path: "app.py" });
  });
});
