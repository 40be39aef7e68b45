import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { isResponsesLog, responsesLogItems } from "../../../src/core/ingest/responses-log.js";
import { faultOf } from "../../../src/core/mine/triage.js";
import { Attempt } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { tempDirs } from "../../helpers/temp-dirs.js";
import { collectOne } from "./collect.js";

/** A real Harbor trial whose harness logged its Responses API requests (README there). */
const TRIAL = resolve(
  REPO_ROOT,
  "test/fixtures/harbor-responses-log/nginx-request-logging__5335W5V",
);
const LOG = resolve(TRIAL, "agent", "thinharness-events.jsonl");
const lines = (): Record<string, unknown>[] =>
  readFileSync(LOG, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
/** The real log as text, its last response replaced by one that ended as `end` says. */
const endingWith = (end: Record<string, unknown>): string => {
  const rows = lines();
  const last = rows.at(-1)!;
  const changed = { ...last, response: { ...(last.response as object), ...end, output: [] } };
  return [...rows.slice(0, -1), changed].map((r) => JSON.stringify(r)).join("\n");
};

const temp = tempDirs();
let a: Attempt;
// the one attempt, read with no error
beforeAll(async () => {
  a = await collectOne(TRIAL);
});

describe("a harness's log of its Responses API requests, in a Harbor trial", () => {
  it("reads each call, its result from the next request and the agent's answer, in order", () => {
    expect(a.outcome).toBe("fail");
    expect(a.events.map((e) => e.kind)).toEqual([
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "tool_call",
      "tool_result",
      "message",
    ]);
    const calls = a.events.filter((e) => e.kind === "tool_call");
    expect(calls.map((c) => c.tool)).toEqual(["bash", "bash", "bash"]);
    expect(calls[2]?.command).toContain("apt-get install");
    // each result is paired with its call and carries the shell's exit status from the JSON
    for (const r of a.events.filter((e) => e.kind === "tool_result")) {
      expect(calls.some((c) => c.callId === r.callId)).toBe(true);
      expect(r.exitCode).toBe(0);
      expect(r.output?.startsWith("{")).toBe(false);
    }
    expect(a.events.at(-1)).toMatchObject({ role: "agent" });
    expect(a.events.at(-1)?.input).toContain("Nginx installed and configured");
  });

  it("detects the log by shape, also from a head that ends inside a line", () => {
    const text = readFileSync(LOG, "utf8");
    expect(isResponsesLog(text)).toBe(true);
    const marker = text.indexOf('"object": "response"');
    expect(marker).toBeGreaterThan(0);
    expect(isResponsesLog(text.slice(0, marker + 40))).toBe(true);
    // cut before the response object shows, the head says nothing yet
    expect(isResponsesLog(text.slice(0, marker - 1))).toBe(false);
    // a request log with no response object, or a Codex rollout, is not one
    expect(isResponsesLog('{"model":"m","input":"hi"}\n')).toBe(false);
    expect(
      isResponsesLog('{"timestamp":"t","type":"response_item","payload":{"type":"message"}}\n'),
    ).toBe(false);
    expect(responsesLogItems("not json\n")).toEqual([]);
  });

  it("reads a stateless log, whose requests repeat the history, once per item", () => {
    // the same exchanges as a harness sends them without previous_response_id: every request
    // repeats the earlier calls, their results and messages
    const rows = lines();
    const history: unknown[] = [];
    const stateless = rows.map((row) => {
      const payload = row.payload as Record<string, unknown>;
      const response = row.response as { output: unknown[] };
      const fresh = Array.isArray(payload.input) ? payload.input : [];
      history.push(...fresh);
      const line = {
        request: { ...payload, input: [...history], previous_response_id: undefined },
        response,
      };
      history.push(...response.output);
      return JSON.stringify(line);
    });
    const once = responsesLogItems(readFileSync(LOG, "utf8"));
    const again = responsesLogItems(stateless.join("\n"));
    expect(again).toEqual(once);
    expect(once.filter((i) => i.type === "call")).toHaveLength(3);
  });

  it("ends with the reason when a response failed or came back incomplete", () => {
    const cut = endingWith({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
    });
    expect(responsesLogItems(cut).at(-1)).toEqual({
      type: "message",
      text: "Error: response incomplete: max_output_tokens",
    });
    const failed = endingWith({
      status: "failed",
      error: { code: "server_error", message: "The server had an error." },
    });
    expect(responsesLogItems(failed).at(-1)).toEqual({
      type: "message",
      text: "Error: server_error: The server had an error.",
    });
  });

  it("finds the response past a request longer than the file's head", async () => {
    // the task text padded (in ASCII, and in a script of three bytes a character): the first
    // line's response object starts past the 16 KiB head
    for (const pad of [" x".repeat(8000), "日本語".repeat(3000)]) {
      const [first, ...rest] = lines();
      const payload = first!.payload as Record<string, unknown>;
      const padded = { ...first, payload: { ...payload, input: `${payload.input}${pad}` } };
      const dir = temp.copyOf(TRIAL, "fire-responses-");
      const log = resolve(dir, "agent", "thinharness-events.jsonl");
      writeFileSync(log, `${[padded, ...rest].map((r) => JSON.stringify(r)).join("\n")}\n`);
      const at = readFileSync(log).indexOf('"object":"response"');
      expect(at).toBeGreaterThan(16 * 1024);
      const b = await collectOne(dir);
      expect(b.events.filter((e) => e.kind === "tool_call")).toHaveLength(3);
    }
  });

  it("reads the API's own tools, repeated words and reused call ids", () => {
    const line = (output: unknown[], input?: unknown[]) =>
      JSON.stringify({
        request: { model: "m", input: input ?? "go" },
        response: { object: "response", status: "completed", output },
      });
    const text = [
      line([
        {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "Running tests." }],
        },
        {
          type: "local_shell_call",
          call_id: "call_0",
          action: { type: "exec", command: ["bash", "-lc", "pytest -q"] },
        },
      ]),
      line(
        [
          {
            type: "message",
            role: "assistant",
            content: [{ type: "output_text", text: "Running tests." }],
          },
          {
            type: "apply_patch_call",
            call_id: "call_0",
            operation: { type: "update_file", path: "/app/x.py", diff: "-a\n+b" },
          },
        ],
        [{ type: "local_shell_call_output", call_id: "call_0", output: "1 failed" }],
      ),
      line(
        [
          {
            type: "message",
            role: "assistant",
            content: [{ type: "refusal", refusal: "I can't help with that." }],
          },
        ],
        [{ type: "apply_patch_call_output", call_id: "call_0", output: "Done" }],
      ),
    ].join("\n");
    const items = responsesLogItems(text);
    // a line's results (its request) come before its response: the calls they answer came earlier
    expect(items.map((i) => i.type)).toEqual([
      "message",
      "call",
      "result",
      "message",
      "call",
      "result",
      "message",
    ]);
    expect(items[1]).toMatchObject({
      type: "call",
      tool: "local_shell",
      command: "pytest -q",
      callId: "call_0",
    });
    expect(items[2]).toMatchObject({ type: "result", output: "1 failed", tool: "local_shell" });
    // the same words again, and the call id used again, are new items of a new response
    expect(items[3]).toEqual({ type: "message", text: "Running tests." });
    expect(items[4]).toMatchObject({ type: "call", tool: "apply_patch", writes: ["/app/x.py"] });
    expect(items[5]).toMatchObject({ type: "result", output: "Done", tool: "apply_patch" });
    expect(items.at(-1)).toEqual({ type: "message", text: "I can't help with that." });
  });

  it("ends with a failure only when no response came after it", () => {
    const rows = lines();
    const cutMidway = rows.map((r, i) =>
      i === 0
        ? {
            ...r,
            response: {
              ...(r.response as object),
              status: "incomplete",
              incomplete_details: { reason: "max_output_tokens" },
            },
          }
        : r,
    );
    const items = responsesLogItems(cutMidway.map((r) => JSON.stringify(r)).join("\n"));
    expect(items.some((i) => i.type === "message" && i.text.startsWith("Error:"))).toBe(false);
    // a last request the API refused: the line holds the request and its error, no response
    const refused = JSON.stringify({
      payload: { model: "m", input: [] },
      error: { code: "rate_limit_exceeded", message: "Rate limit reached" },
    });
    const end = responsesLogItems([...rows.map((r) => JSON.stringify(r)), refused].join("\n"));
    expect(end.at(-1)).toEqual({
      type: "message",
      text: "Error: rate_limit_exceeded: Rate limit reached",
    });
  });

  it("reads a last response the API failed as the provider's fault", async () => {
    const failed = endingWith({
      status: "failed",
      error: { code: "server_error", message: "The server had an error processing your request." },
    });
    const dir = temp.copyOf(TRIAL, "fire-responses-");
    writeFileSync(resolve(dir, "agent", "thinharness-events.jsonl"), `${failed}\n`);
    const b = await collectOne(dir);
    expect(b.events.at(-1)?.input).toBe(
      "Error: server_error: The server had an error processing your request.",
    );
    expect(faultOf(b)).toMatchObject({ reason: "provider_fault", code: "model-api-error" });
    // the same run as logged, ending on the agent's answer, is no fault of the provider's
    expect(faultOf(a)?.reason).not.toBe("provider_fault");
  });

  it("reads each result once: every one of a chained log, a repeated history by position", () => {
    const exchange = (input: unknown[], output: unknown[], previous?: string) =>
      JSON.stringify({
        request: { model: "m", input, ...(previous ? { previous_response_id: previous } : {}) },
        response: { object: "response", status: "completed", output },
      });
    const call = (cmd: string) => ({
      type: "function_call",
      call_id: "call_0",
      name: "bash",
      arguments: JSON.stringify({ command: cmd }),
    });
    const done = (output: string) => ({ type: "function_call_output", call_id: "call_0", output });
    // a server that numbers calls per turn: the same id, the same empty output, two calls
    const chained = [
      exchange([], [call("mkdir out")]),
      exchange([done("")], [call("touch out/a")], "resp_1"),
      exchange([done("")], [], "resp_2"),
    ].join("\n");
    expect(responsesLogItems(chained).map((i) => i.type)).toEqual([
      "call",
      "result",
      "call",
      "result",
    ]);
    // a stateless harness that repeats the history (each call, then its result), trimming old
    // outputs as it goes
    const c1 = { ...call("cat big.log"), call_id: "c1" };
    const c2 = { ...call("ls"), call_id: "c2" };
    const stateless = [
      exchange([], [c1]),
      exchange([c1, { ...done("LONG LOG"), call_id: "c1" }], [c2]),
      exchange(
        [
          c1,
          { ...done("[output elided]"), call_id: "c1" },
          c2,
          { ...done("a.txt"), call_id: "c2" },
        ],
        [],
      ),
    ].join("\n");
    const results = responsesLogItems(stateless).filter((i) => i.type === "result");
    expect(results.map((r) => (r.type === "result" ? r.output : ""))).toEqual([
      "LONG LOG",
      "a.txt",
    ]);
  });

  it("finds the log behind a short first line and a long request, and a hosted tool's answer", async () => {
    const rows = lines();
    const [first, ...rest] = rows;
    const payload = first!.payload as Record<string, unknown>;
    const padded = {
      ...first,
      payload: { ...payload, input: `${payload.input}${" x".repeat(8000)}` },
    };
    const dir = temp.copyOf(TRIAL, "fire-responses-");
    writeFileSync(
      resolve(dir, "agent", "thinharness-events.jsonl"),
      `${['{"event":"session_start"}', ...[padded, ...rest].map((r) => JSON.stringify(r))].join("\n")}\n`,
    );
    expect((await collectOne(dir)).events.filter((e) => e.kind === "tool_call")).toHaveLength(3);
    const mcp = responsesLogItems(
      JSON.stringify({
        response: {
          object: "response",
          output: [
            {
              type: "mcp_call",
              id: "m1",
              name: "search_docs",
              arguments: '{"q":"nginx log_format"}',
              output: "3 results",
            },
          ],
        },
      }),
    );
    expect(mcp).toEqual([
      { type: "call", tool: "search_docs", args: { q: "nginx log_format" }, callId: "m1" },
      { type: "result", output: "3 results", tool: "search_docs", callId: "m1" },
    ]);
  });

  it("reads the agent's own words about a server as no provider fault", () => {
    const said = Attempt.parse({
      ...a,
      events: [
        ...a.events,
        {
          index: a.events.length,
          kind: "message",
          role: "agent",
          input: "The server had an error in its route table; I fixed the handler.",
        },
      ],
    });
    expect(faultOf(said)?.reason).not.toBe("provider_fault");
  });

  it("reads references to history, requests on lines of their own, and skips unfinished calls", () => {
    const fc = (id: string, cmd: string, extra: object = {}) => ({
      type: "function_call",
      id: `fc_${id}`,
      call_id: id,
      name: "bash",
      arguments: JSON.stringify({ command: cmd }),
      ...extra,
    });
    const out = (id: string, output: string) => ({
      type: "function_call_output",
      call_id: id,
      output,
    });
    const ref = (id: string) => ({ type: "item_reference", id: `fc_${id}` });
    const response = (output: unknown[]) => ({ object: "response", status: "completed", output });
    // the history repeated by reference: each result read once
    const byRef = [
      { request: { model: "m", input: "go" }, response: response([fc("c1", "ls")]) },
      {
        request: { model: "m", input: [ref("c1"), out("c1", "a")] },
        response: response([fc("c2", "pwd")]),
      },
      {
        request: { model: "m", input: [ref("c1"), out("c1", "a"), ref("c2"), out("c2", "/app")] },
        response: response([]),
      },
    ];
    const items = responsesLogItems(byRef.map((r) => JSON.stringify(r)).join("\n"));
    expect(items.map((i) => i.type)).toEqual(["call", "result", "call", "result"]);
    // a request logged on its own line, its response on the next
    const split = [
      JSON.stringify(response([fc("c1", "ls")])),
      JSON.stringify({ model: "m", input: [out("c1", "a")] }),
      JSON.stringify(
        response([fc("c2", "cat x", { status: "incomplete", arguments: '{"command":"cat' })]),
      ),
    ];
    // the call the model never finished is no call
    expect(responsesLogItems(split.join("\n")).map((i) => i.type)).toEqual(["call", "result"]);
  });
});
