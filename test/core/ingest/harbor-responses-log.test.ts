import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { isResponsesLog, responsesLogItems } from "../../../src/core/ingest/responses-log.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
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
    const rows = lines();
    const last = rows.at(-1)!;
    const cut = {
      ...last,
      response: {
        ...(last.response as object),
        status: "incomplete",
        incomplete_details: { reason: "max_output_tokens" },
        output: [],
      },
    };
    const failed = {
      ...last,
      response: {
        ...(last.response as object),
        status: "failed",
        error: { code: "server_error", message: "The server had an error." },
        output: [],
      },
    };
    const text = (end: object) =>
      [...rows.slice(0, -1), end].map((r) => JSON.stringify(r)).join("\n");
    expect(responsesLogItems(text(cut)).at(-1)).toEqual({
      type: "message",
      text: "Error: response incomplete: max_output_tokens",
    });
    expect(responsesLogItems(text(failed)).at(-1)).toEqual({
      type: "message",
      text: "Error: The server had an error.",
    });
  });
});
