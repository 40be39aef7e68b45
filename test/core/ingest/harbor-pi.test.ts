import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { isPiEventLog, piEventItems } from "../../../src/core/ingest/pi-printed.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { tempDirs } from "../../helpers/temp-dirs.js";
import { collect } from "./collect.js";

/** A real Harbor trial of a pi harness, its events in agent/pi-events.jsonl (README there). */
const TRIAL = resolve(REPO_ROOT, "test/fixtures/harbor-pi/configure-git-webserver__dg6SgTQ");
const EVENTS = resolve(TRIAL, "agent", "pi-events.jsonl");

let a: Attempt;
let errors: string[];
beforeAll(async () => {
  const got = await collect([TRIAL]);
  errors = got.errors;
  expect(got.attempts).toHaveLength(1);
  a = got.attempts[0]!;
});

describe("pi's JSON event stream in a Harbor trial", () => {
  it("reads the call, its result and the agent's last message, once each", () => {
    expect(errors).toEqual([]);
    expect(a.outcome).toBe("fail");
    expect(a.events.map((e) => e.kind)).toEqual(["tool_call", "tool_result", "message"]);
    const [call, result, said] = a.events;
    expect(call).toMatchObject({ tool: "bash", callId: "call_fake_1|fc_fake_1" });
    expect(call?.command).toContain("printf 'no reusable model credential in task container");
    expect(result).toMatchObject({ callId: "call_fake_1|fc_fake_1" });
    expect(result?.output).toBe("no reusable model credential in task container\n");
    expect(result?.isError).toBeFalsy();
    expect(said).toMatchObject({ role: "agent", input: "Controlled no-model preflight complete." });
  });

  it("reads an older stream with no session header, stderr lines before it", () => {
    const [, ...rest] = readFileSync(EVENTS, "utf8").split("\n");
    const older = [
      "(node:41) [DEP0040] DeprecationWarning: The `punycode` module is deprecated.",
      ...rest,
    ].join("\n");
    expect(isPiEventLog(older)).toBe(true);
    const items = piEventItems(older);
    expect(items.map((i) => i.type)).toEqual(["call", "result", "message"]);
    // an older pi's bare exit note (a command that printed nothing) is the exit status too
    const bare = [
      '{"type":"agent_start"}',
      JSON.stringify({
        type: "message_end",
        message: {
          role: "toolResult",
          toolCallId: "c",
          content: [{ type: "text", text: "Command exited with code 2" }],
          isError: true,
        },
      }),
    ].join("\n");
    expect(piEventItems(bare)).toEqual([
      {
        type: "result",
        output: "Command exited with code 2",
        callId: "c",
        exitCode: 2,
        isError: true,
      },
    ]);
    // a model API's own stream opens with message_start: not pi's
    expect(isPiEventLog('{"type":"message_start","message":{"role":"assistant"}}')).toBe(false);
  });

  it("reads a failed call, an edit's file and a turn the agent could not complete", () => {
    const head = readFileSync(EVENTS, "utf8").split("\n")[0] ?? "";
    const lines = [
      head,
      JSON.stringify({
        type: "message_end",
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "look first" },
            {
              type: "toolCall",
              id: "c1",
              name: "edit",
              arguments: { path: "/app/x.py", oldText: "a", newText: "b" },
            },
            { type: "toolCall", id: "c2", name: "bash", arguments: { command: "pytest -q" } },
          ],
          stopReason: "toolUse",
        },
      }),
      JSON.stringify({
        type: "message_end",
        message: {
          role: "toolResult",
          toolCallId: "c1",
          toolName: "edit",
          content: [{ type: "text", text: "Successfully replaced text in /app/x.py." }],
          isError: false,
        },
      }),
      JSON.stringify({
        type: "message_end",
        message: {
          role: "toolResult",
          toolCallId: "c2",
          toolName: "bash",
          content: [{ type: "text", text: "1 failed\n\nCommand exited with code 1" }],
          isError: true,
        },
      }),
      JSON.stringify({
        type: "message_end",
        message: {
          role: "assistant",
          content: [],
          stopReason: "error",
          errorMessage: "429 rate limit",
        },
      }),
      "not json",
    ];
    const items = piEventItems(lines.join("\n"));
    expect(items).toEqual([
      {
        type: "call",
        tool: "edit",
        args: { path: "/app/x.py", oldText: "a", newText: "b" },
        callId: "c1",
      },
      { type: "call", tool: "bash", args: { command: "pytest -q" }, callId: "c2" },
      {
        type: "result",
        output: "Successfully replaced text in /app/x.py.",
        callId: "c1",
        tool: "edit",
      },
      {
        type: "result",
        output: "1 failed\n\nCommand exited with code 1",
        callId: "c2",
        tool: "bash",
        exitCode: 1,
        isError: true,
      },
      { type: "message", text: "Error: 429 rate limit" },
    ]);
    // no session header: not pi's stream
    expect(isPiEventLog(lines.slice(1).join("\n"))).toBe(false);
    expect(piEventItems(lines.slice(1).join("\n"))).toEqual([]);
  });
});

describe("pi's events in a harness's own .jsonl beside a Harbor trial", () => {
  const temp = tempDirs();
  it("are read after a long stderr preamble", async () => {
    const dir = temp.copyOf(TRIAL, "fire-pi-");
    const events = readFileSync(EVENTS, "utf8");
    const warning = `(node:41) Warning: ${"x".repeat(400)}\n`;
    writeFileSync(resolve(dir, "agent", "pi-events.jsonl"), warning + events);
    const got = await collect([dir]);
    expect(got.errors).toEqual([]);
    expect(got.attempts[0]?.events.map((e) => e.kind)).toEqual([
      "tool_call",
      "tool_result",
      "message",
    ]);
  });
});
