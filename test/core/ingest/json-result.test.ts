import { describe, expect, it } from "vitest";
import { structuredResult } from "../../../src/core/ingest/json-result.js";
import { refusedAction } from "../../../src/core/ingest/observation-template.js";

/**
 * mini-SWE-agent 2 in tool-calling mode under Harbor (the `mini-bedrock-aws` dev source,
 * mini-swe-agent 2.4.5): each bash result in the ATIF trajectory is a JSON object. The first
 * two strings are verbatim from its trajectories; the third keeps their long-output keys in
 * their order with the text shortened.
 */
const NOT_EXECUTED =
  '{\n  "returncode": -1,\n  "output": "", "exception_info": "action was not executed"\n}';
const TIMED_OUT =
  '{\n  "returncode": -1,\n  "output": "", "exception_info": "An error occurred while executing the command: Command \\u0027cd /app \\u0026\\u0026 npx jest --config ./jest.unit.config.json 2\\u003e\\u00261 | tail -60\\u0027 timed out after 30 seconds"\n}';
const LONG =
  '{\n  "returncode": 0,\n  "output_head": "total 1320\\ndrwxr-xr-x    1 agent agent      63 Aug 19 17:44 .\\n",\n  "output_tail": "./node_modules/@aws-sdk/client-cloudformation/README.md\\n",\n  "elided_chars": 474,\n  "warning": "Output too long."\n}';

describe("a tool result written as JSON", () => {
  it("reads mini-SWE-agent 2's return code, output and why a command did not finish", () => {
    expect(structuredResult('{\n  "returncode": 1,\n  "output": "no such file\\n"\n}')).toEqual({
      output: "no such file\n",
      exitCode: 1,
    });
    const timeout = structuredResult(TIMED_OUT);
    expect(timeout?.exitCode).toBe(-1);
    expect(timeout?.output).toMatch(
      /^An error occurred .*'cd \/app && npx jest .* timed out after 30 seconds$/,
    );
    const long = structuredResult(LONG);
    expect(long?.exitCode).toBe(0);
    expect(long?.output).toBe(
      "total 1320\ndrwxr-xr-x    1 agent agent      63 Aug 19 17:44 .\n\n[… 474 characters elided …]\n./node_modules/@aws-sdk/client-cloudformation/README.md\n",
    );
  });

  it("reads a command the harness did not run as a refusal", () => {
    const r = structuredResult(NOT_EXECUTED);
    expect(r).toEqual({ output: "action was not executed", exitCode: -1 });
    expect(refusedAction(r?.output ?? "")).toBe(true);
    // the words inside a command's own output are no refusal
    expect(refusedAction("grep: action was not executed in this log\n")).toBe(false);
  });

  it("reads a result cut short before its closing brace", () => {
    const cut = structuredResult(
      '{\n  "returncode": 2,\n  "output": "make: *** [all] Error 2\\nmake: lea',
    );
    expect(cut).toEqual({ output: "make: *** [all] Error 2\nmake: lea", exitCode: 2 });
  });
});
