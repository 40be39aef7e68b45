import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readHookLog } from "../../src/core/hook-log.js";
import { runFire } from "../helpers/cli.js";
import { clientEvents, hook, logEntries, parsedStdout, tempWorkspace } from "./hook-helpers.js";

const rmDeny = () => clientEvents("claude-rm-deny");
const prompt = () => rmDeny()[1] as Record<string, unknown>;
const safeCall = () => rmDeny()[2] as Record<string, unknown>;

/** Each fault: exit 0, nothing on stdout, no stack trace, exactly one log line naming it. */
function expectFault(ws: string, r: ReturnType<typeof hook>, reason: RegExp, log?: string) {
  expect(r.status).toBe(0);
  expect(r.stdout).toBe("");
  expect(r.stderr).not.toMatch(/\n\s+at /);
  const entries = logEntries(ws, log);
  expect(entries).toHaveLength(1);
  expect(entries[0]?.error).toMatch(reason);
  expect(entries[0]?.verdict).toEqual({ action: "allow" });
}

describe("fire hook faults never break the agent", () => {
  it("malformed stdin", () => {
    const ws = tempWorkspace();
    expectFault(
      ws,
      hook(ws, '{"session_id": "s1", "hook_event_name": '),
      /stdin is not valid JSON/,
    );
  });

  it("empty stdin", () => {
    const ws = tempWorkspace();
    expectFault(ws, hook(ws, ""), /stdin is empty/);
  });

  it("oversized stdin (over 4 MB)", () => {
    const ws = tempWorkspace();
    const big = JSON.stringify({
      ...safeCall(),
      tool_input: { command: "x".repeat(4 * 1024 * 1024) },
    });
    expectFault(ws, hook(ws, big), /stdin exceeds 4194304 bytes/);
  });

  it("an unknown event name, with the field named", () => {
    const ws = tempWorkspace();
    expectFault(ws, hook(ws, { ...prompt(), hook_event_name: "Notification" }), /hook_event_name/);
  });

  it("a tool event without tool_name", () => {
    const ws = tempWorkspace();
    const { tool_name: _drop, ...rest } = safeCall();
    expectFault(ws, hook(ws, rest), /tool_name: required for PreToolUse/);
  });

  it("a missing portfolio", () => {
    const ws = tempWorkspace();
    const r = runFire(["hook", "--portfolio", join(ws, "nope"), "--workspace", ws], {
      input: JSON.stringify(safeCall()),
    });
    expectFault(ws, r, /portfolio not found/);
  });

  it("no portfolio given", () => {
    const ws = tempWorkspace();
    const r = runFire(["hook", "--workspace", ws], { input: JSON.stringify(safeCall()) });
    expectFault(ws, r, /no portfolio/);
  });

  it("an invalid portfolio, naming file and field", () => {
    const ws = tempWorkspace();
    const dir = join(ws, "bad");
    mkdirSync(dir);
    writeFileSync(join(dir, "broken.json"), JSON.stringify({ id: "Bad Id", version: 1 }));
    const r = runFire(["hook", "--portfolio", dir, "--workspace", ws], {
      input: JSON.stringify(safeCall()),
    });
    expectFault(ws, r, /invalid portfolio .*broken\.json/);
  });

  it("a corrupted state file: reported once, moved aside, the next event starts clean", () => {
    const ws = tempWorkspace();
    const session = safeCall().session_id as string;
    mkdirSync(join(ws, ".fire/state"), { recursive: true });
    writeFileSync(join(ws, ".fire/state", `${session}.json`), '{"step": "many"');
    expectFault(ws, hook(ws, safeCall()), /corrupted state file/);
    const again = hook(ws, prompt());
    expect(again.status).toBe(0);
    expect(logEntries(ws)[1]?.error).toBeUndefined();
    expect(logEntries(ws)[1]?.eventIndex).toBe(0);
  });

  it("an unwritable state directory", () => {
    const ws = tempWorkspace();
    writeFileSync(join(ws, "not-a-dir"), "");
    const r = hook(ws, safeCall(), ["--state-dir", join(ws, "not-a-dir", "state")]);
    expectFault(ws, r, /state directory unusable/);
  });

  it("--fail-closed denies a PreToolUse on a fault, with a reason", () => {
    const ws = tempWorkspace();
    const r = hook(ws, safeCall(), ["--fail-closed", "--portfolio", join(ws, "nope")]);
    expect(r.status).toBe(0);
    const out = parsedStdout(r) as { hookSpecificOutput: Record<string, string> };
    expect(out.hookSpecificOutput.hookEventName).toBe("PreToolUse");
    expect(out.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(
      /^fire hook failed \(portfolio not found/,
    );
    expect(logEntries(ws)[0]?.output).toEqual(out);
  });

  it("--fail-closed still answers nothing for a faulty Stop or prompt", () => {
    const ws = tempWorkspace();
    const r = hook(ws, prompt(), ["--fail-closed", "--portfolio", join(ws, "nope")]);
    expectFault(ws, r, /portfolio not found/);
  });

  it("the log goes to --log, and secrets in commands never reach it", () => {
    const ws = tempWorkspace();
    const log = join(ws, "elsewhere", "hook.jsonl");
    const key = `sk-proj-${"a1B2".repeat(12)}`;
    const call = {
      ...safeCall(),
      tool_input: { command: `OPENAI_API_KEY=${key} curl -s https://x` },
    };
    const r = hook(ws, call, ["--log", log]);
    expect(r.status).toBe(0);
    const entries = logEntries(ws, log);
    expect(entries).toHaveLength(1);
    expect(JSON.stringify(entries)).not.toContain(key);
    expect(entries[0]?.command).toContain("REDACTED");
  });

  it("no common credential shape reaches the hook log", () => {
    const ws = tempWorkspace();
    const secrets = ["Sq1Pw-9x", "Adm1nPw!", "ssh-Pa55", "AIzaSyA1234567890abcdefghijklmnopqrstuv"];
    const command = [
      `mysql -uroot -p${secrets[0]} db`,
      `curl -u admin:${secrets[1]} https://x`,
      `sshpass -p ${secrets[2]} ssh h`,
      `curl "https://maps.example/?key=${secrets[3]}"`,
    ].join(" && ");
    const r = hook(ws, { ...safeCall(), tool_input: { command } });
    expect(r.status).toBe(0);
    const text = JSON.stringify(logEntries(ws));
    for (const s of secrets) expect(text).not.toContain(s);
  });
});

describe("fire hook edge cases", () => {
  it("a wrong hook command line is a logged fault, not a broken agent", () => {
    const ws = tempWorkspace();
    const r = hook(ws, safeCall(), ["--bogus"]);
    expectFault(ws, r, /bad hook command line: .*--bogus/);
    expect(r.stderr).toMatch(/^fire hook: bad hook command line/);
  });

  it("takes over a stale lock left by a killed hook", () => {
    const ws = tempWorkspace();
    const session = safeCall().session_id as string;
    const lock = join(ws, ".fire/state", `${session}.json.lock`);
    mkdirSync(lock, { recursive: true });
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    const r = hook(ws, prompt());
    expect([r.status, r.stdout]).toEqual([0, ""]);
    const entries = logEntries(ws);
    expect(entries[0]?.error).toBeUndefined();
    expect(entries[0]?.eventIndex).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });

  it("the hook log reads back through readHookLog", () => {
    const ws = tempWorkspace();
    hook(ws, prompt());
    hook(ws, "garbage");
    const read = readHookLog(join(ws, ".fire/hook-log.jsonl"));
    expect(read.errors).toEqual([]);
    expect(read.entries.map((e) => e.error ?? "ok")).toEqual(["ok", "stdin is not valid JSON"]);
    writeFileSync(join(ws, "bad.jsonl"), `${JSON.stringify(read.entries[0])}\n{"ts":1}\n`);
    const bad = readHookLog(join(ws, "bad.jsonl"));
    expect(bad.entries).toHaveLength(1);
    expect(bad.errors.map((e) => e.format())).toEqual([
      expect.stringMatching(/bad\.jsonl:2: bad hook-log entry: ts: /),
    ]);
    expect(readHookLog(join(ws, "none.jsonl"))).toEqual({ entries: [], lines: [], errors: [] });
    expect(read.lines).toEqual([1, 2]);
  });
});
