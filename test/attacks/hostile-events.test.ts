import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { logEntries } from "../runtime/hook-helpers.js";
import { type HookRun, preToolUse, promptEvent, rmWorkspace, runHookChild } from "./helpers.js";

/**
 * Issue 27 "held": hostile session ids, `__proto__` keys in the event JSON, and stdin that
 * is not UTF-8, each through the built hook (`fire hook`, a child process per event).
 */
const decision = (r: HookRun) =>
  r.stdout.trim() ? JSON.parse(r.stdout).hookSpecificOutput?.permissionDecision : "none";

describe.concurrent("attack: hostile session ids", () => {
  it("ids named like Object's own keys, dot paths and control characters keep their own state", async () => {
    const { ws, args } = rmWorkspace("fire-attack-ids-");
    const ids = ["__proto__", "constructor", "toString", "..", "../../../tmp/x", "a\nb\u0000c"];
    // each session: its task, then a tool call (an index shared with another id would show)
    const runs = await Promise.all(
      ids.map(async (id) => {
        await runHookChild(args, JSON.stringify(promptEvent(id)), { cwd: ws });
        return runHookChild(args, JSON.stringify(preToolUse(id, "rm -rf /")), { cwd: ws });
      }),
    );
    expect(runs.map(decision)).toEqual(ids.map(() => "deny"));
    const entries = logEntries(ws);
    expect(entries.filter((e) => e.error !== undefined)).toEqual([]);
    for (const id of ids)
      expect(entries.filter((e) => e.session === id).map((e) => e.eventIndex)).toEqual([0, 1]);
    // one state file per id, all inside the state folder
    const files = readdirSync(join(ws, ".fire/state")).filter((f) => f.endsWith(".json"));
    expect(files).toHaveLength(ids.length);
    expect(readdirSync(ws).sort()).toEqual([".fire", "cands"]);
  }, 90_000);
});

describe.concurrent("attack: __proto__ keys in the event JSON", () => {
  async function answer(event: string, id: string) {
    const { ws, args } = rmWorkspace("fire-attack-proto-");
    await runHookChild(args, JSON.stringify(promptEvent(id)), { cwd: ws });
    const r = await runHookChild(args, event, { cwd: ws });
    expect(logEntries(ws).at(-1)?.error).toBeUndefined();
    return { r, entry: logEntries(ws).at(-1) };
  }
  // JSON text written by hand: JSON.stringify of an object literal would not keep the key
  const call = (id: string, toolInput: string, tool = "Bash", top = "") =>
    `{"session_id":"${id}","transcript_path":null,"cwd":"/tmp",${top}"hook_event_name":"PreToolUse","tool_name":"${tool}","tool_input":${toolInput}}`;

  it("a command under tool_input.__proto__ is not the command the client runs", async () => {
    const { r, entry } = await answer(
      call("p1", '{"__proto__":{"command":"rm -rf /"},"command":"ls"}'),
      "p1",
    );
    expect(decision(r)).toBe("none");
    expect(entry?.command).toBe("ls");
  }, 60_000);

  it("the real command beside a __proto__ key is still denied", async () => {
    const { r } = await answer(
      call("p2", '{"command":"rm -rf /","__proto__":{"command":"ls"}}'),
      "p2",
    );
    expect(decision(r)).toBe("deny");
  }, 60_000);

  it("__proto__ and constructor.prototype keys pollute nothing: a Read call stays allowed", async () => {
    const pollute =
      '"__proto__":{"command":"rm -rf /"},"constructor":{"prototype":{"command":"rm -rf /"}},';
    const { r, entry } = await answer(
      call("p3", `{${pollute}"file_path":"/etc/hosts"}`, "Read", pollute),
      "p3",
    );
    expect(decision(r)).toBe("none");
    expect(entry?.firings).toEqual([]);
  }, 60_000);

  it("a nested __proto__ naming another event does not change the event", async () => {
    const top = '"__proto__":{"hook_event_name":"Stop","session_id":"other"},';
    const { r, entry } = await answer(call("p4", '{"command":"rm -rf /"}', "Bash", top), "p4");
    expect(decision(r)).toBe("deny");
    expect([entry?.event, entry?.session]).toEqual(["PreToolUse", "p4"]);
  }, 60_000);
});

describe.concurrent("attack: stdin that is not UTF-8", () => {
  const bytes = (...parts: (string | number[])[]) =>
    Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))));
  const rawCall = (id: string, command: (string | number[])[], pad = "") =>
    bytes(
      `{"session_id":"${id}","transcript_path":null,"cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"description":"${pad}","command":"`,
      ...command,
      '"}}',
    );

  /** The prompt, then one raw event per mode; the hook's answers and log entries. */
  async function runs(id: string, raw: Buffer, modes: boolean[]) {
    const { ws, args } = rmWorkspace("fire-attack-utf8-");
    await runHookChild(args, JSON.stringify(promptEvent(id)), { cwd: ws });
    const out: { r: HookRun; entry: ReturnType<typeof logEntries>[number] | undefined }[] = [];
    for (const failClosed of modes) {
      const r = await runHookChild(failClosed ? [...args, "--fail-closed"] : args, raw, {
        cwd: ws,
      });
      out.push({ r, entry: logEntries(ws).at(-1) });
    }
    return out;
  }
  const run = async (id: string, raw: Buffer, failClosed: boolean) =>
    (await runs(id, raw, [failClosed]))[0] as Awaited<ReturnType<typeof runs>>[number];

  it("a deny still denies; the invalid bytes are logged as a fault", async () => {
    const { r, entry } = await run("u1", rawCall("u1", ["rm -rf /tmp/", [0xff, 0xfe]]), false);
    expect(r.code).toBe(0);
    expect(decision(r)).toBe("deny");
    expect(entry?.error).toMatch(/stdin is not valid UTF-8/);
    expect(r.stderr).toMatch(/stdin is not valid UTF-8/);
  }, 60_000);

  it("a call the rules allow: allowed fail-open, denied under --fail-closed", async () => {
    const raw = rawCall("u2", ["ls ", [0xc3, 0x28], " ", [0xed, 0xa0, 0x80]]); // bad 2-byte, a surrogate
    const [open, closed] = (await runs("u2", raw, [false, true])) as [
      Awaited<ReturnType<typeof run>>,
      Awaited<ReturnType<typeof run>>,
    ];
    expect([open.r.code, decision(open.r)]).toEqual([0, "none"]);
    expect(open.entry?.error).toMatch(/not valid UTF-8/);
    expect(decision(closed.r)).toBe("deny");
    expect(JSON.parse(closed.r.stdout).hookSpecificOutput.permissionDecisionReason).toMatch(
      /not valid UTF-8/,
    );
  }, 60_000);

  it("an event read in several chunks: bad bytes past the first read are seen too", async () => {
    const pad = "x".repeat(200 * 1024);
    const { r, entry } = await run("u3", rawCall("u3", ["ls ", [0x80]], pad), true);
    expect(decision(r)).toBe("deny");
    expect(entry?.error).toMatch(/not valid UTF-8/);
  }, 60_000);

  it("valid multi-byte text across read boundaries is no fault", async () => {
    const pad = "é😀".repeat(40_000); // ~240 KB: characters straddle every 64 KiB read
    const { r, entry } = await run("u4", rawCall("u4", ["ls"], pad), true);
    expect(decision(r)).toBe("none");
    expect(entry?.error).toBeUndefined();
  }, 60_000);

  it("bytes that are not even JSON: a bad event, denied under --fail-closed", async () => {
    const { r, entry } = await run("u5", bytes([0xff, 0xfe, 0x00, 0x7b]), true);
    expect(decision(r)).toBe("deny");
    expect(entry?.error).toMatch(/not valid JSON/);
  }, 60_000);
});
