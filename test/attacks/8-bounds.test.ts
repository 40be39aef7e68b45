import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureDir } from "../../src/runtime/state-store.js";
import { firstPromptScan } from "../../src/runtime/transcript.js";
import { RACY_NS } from "../../src/runtime/verified-record.js";
import { logEntries } from "../runtime/hook-helpers.js";
import {
  denyCandidate,
  preToolUse,
  promptEvent,
  rmWorkspace,
  runHookChild,
  writeFrozen,
} from "./helpers.js";

/**
 * Issue 27 (hardening, second round): no input size, nesting or state-folder fault switches a
 * portfolio off or loses a deny.
 */
const setup = () => rmWorkspace("fire-attack-8-");

const denied = (stdout: string) =>
  stdout.trim() !== "" && JSON.parse(stdout).hookSpecificOutput?.permissionDecision === "deny";

const MB = 1024 * 1024;

/** A Claude Code transcript whose first line is the user's prompt. */
function transcript(dir: string, prompt: string): string {
  const file = join(dir, "transcript.jsonl");
  const row = { type: "user", message: { role: "user", content: prompt }, uuid: "u1" };
  writeFileSync(file, `${JSON.stringify(row)}\n{"type":"assistant","message":{"content":[]}}\n`);
  return file;
}

/** A portfolio whose deny needs the task to say "deploy" (eligibility reads the task text). */
function eligibleWorkspace() {
  const { ws, dir, args } = setup();
  writeFileSync(
    join(dir, "rm.json"),
    JSON.stringify(denyCandidate("rm", "\\brm\\s+-rf\\b", { eligibility: { anyOf: ["deploy"] } })),
  );
  return { ws, dir, args };
}

describe("attack 8: bounds on size, nesting and state", () => {
  it("a first prompt over 4 MB still decides eligibility: a later rm -rf is denied", async () => {
    const { ws, args } = eligibleWorkspace();
    // the eligibility phrase at the start, and (second session) only at the very end
    for (const [session, prompt] of [
      ["head", `deploy the site ${"y".repeat(5 * MB)}`],
      ["tail", `${"y".repeat(5 * MB)} then deploy`],
    ] as const) {
      const big = await runHookChild(
        [...args, "--fail-closed"],
        JSON.stringify(promptEvent(session, prompt)),
        { cwd: ws },
      );
      expect(big.stdout).toBe("");
      const entry = logEntries(ws).at(-1);
      expect([entry?.event, entry?.error, entry?.eventIndex]).toEqual([
        "UserPromptSubmit",
        undefined,
        0,
      ]);
      expect(entry?.note).toMatch(/stdin exceeds .* read bounded/);
      const r = await runHookChild(args, JSON.stringify(preToolUse(session, "rm -rf /srv")), {
        cwd: ws,
      });
      expect(denied(r.stdout)).toBe(true);
    }
    // a task without the phrase stays ineligible (the reading is of the text, not a default deny)
    await runHookChild(args, JSON.stringify(promptEvent("none", "z".repeat(5 * MB))), { cwd: ws });
    const none = await runHookChild(args, JSON.stringify(preToolUse("none", "rm -rf /srv")), {
      cwd: ws,
    });
    expect(none.stdout).toBe("");
  }, 120_000);

  it("a first prompt over 4 MB in the transcript decides eligibility of a session seen later", async () => {
    const { ws, args } = eligibleWorkspace();
    const file = transcript(ws, `${"y".repeat(6 * MB)} and deploy`);
    const ev = preToolUse("late", "rm -rf /srv", { transcript_path: file });
    const r = await runHookChild(args, JSON.stringify(ev), { cwd: ws });
    expect(denied(r.stdout)).toBe(true);
    expect(logEntries(ws).at(-1)?.error).toBeUndefined();
  }, 60_000);

  it("a transcript scan stopped by its cap says so (the task is unknown, not absent)", () => {
    const dir = mkdtempSync(join(tmpdir(), "fire-attack-8-scan-"));
    const file = join(dir, "t.jsonl");
    writeFileSync(
      file,
      `${'{"type":"summary"}\n'.repeat(1000)}${JSON.stringify({ type: "user", message: { content: "deploy" } })}\n`,
    );
    expect(firstPromptScan(file, 4096)).toEqual({ cut: true });
    expect(firstPromptScan(file)).toEqual({ prompt: "deploy", cut: false });
    writeFileSync(join(dir, "empty.jsonl"), '{"type":"summary"}\n');
    expect(firstPromptScan(join(dir, "empty.jsonl"))).toEqual({ cut: false });
  });

  it("tool_input nested 10k, 100k and 1M levels is a bad event, denied under --fail-closed", async () => {
    const { ws, args } = setup();
    for (const n of [10_000, 100_000, 1_000_000]) {
      const deep = `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
      // the real event name after the nesting; rm -rf beside it
      const input = `{"session_id":"deep","transcript_path":null,"tool_name":"Bash","tool_input":{"x":${deep},"command":"rm -rf /"},"hook_event_name":"PreToolUse"}`;
      const closed = await runHookChild([...args, "--fail-closed"], input, {
        cwd: ws,
        ceilingMs: 30_000,
      });
      expect(denied(closed.stdout)).toBe(true);
      const entry = logEntries(ws).at(-1);
      expect(entry?.error).toMatch(/nested deeper than 256 levels/);
      expect(entry?.ms ?? 1e9).toBeLessThan(5_000);
      const open = await runHookChild(args, input, { cwd: ws, ceilingMs: 30_000 });
      expect(open.stdout).toBe(""); // fails open without the flag, logged
      expect(logEntries(ws).at(-1)?.error).toMatch(/nested deeper/);
    }
  }, 120_000);

  it('an event over 4 MB whose real hook_event_name follows a nested "Stop" is denied under --fail-closed', async () => {
    const { ws, args } = setup();
    const input = `{"session_id":"s12","transcript_path":null,"tool_name":"Bash","tool_input":{"meta":{"hook_event_name":"Stop"},"command":"rm -rf / ${"x".repeat(5 * MB)}"},"hook_event_name":"PreToolUse"}`;
    const r = await runHookChild([...args, "--fail-closed"], input, { cwd: ws });
    expect(denied(r.stdout)).toBe(true);
    const entry = logEntries(ws).at(-1);
    expect([entry?.event, entry?.tool]).toEqual(["PreToolUse", "Bash"]);
  }, 60_000);

  it("a state folder that cannot be written loses no deny: answered, reported on stderr and logged", async () => {
    const { ws, args } = setup();
    writeFileSync(join(ws, "afile"), "x");
    const env = { FIRE_STATE_DIR: join(ws, "afile", "state") }; // ENOTDIR on every write
    const file = transcript(ws, "keep the build directory");
    const ev = preToolUse("ro", "rm -rf /srv", { transcript_path: file });
    const r = await runHookChild(args, JSON.stringify(ev), { cwd: ws, env });
    expect(denied(r.stdout)).toBe(true); // the rule's own deny, without --fail-closed
    expect(r.stderr).toMatch(/state .*not saved.*ENOTDIR/);
    const entry = logEntries(ws).at(-1);
    expect(entry?.verdict.action).toBe("deny");
    expect(entry?.error).toMatch(/state .*not saved.*ENOTDIR/);
    // an allowed call is still allowed without the flag, denied with it (its state is lost)
    const ok = JSON.stringify(preToolUse("ro", "ls", { transcript_path: file }));
    expect((await runHookChild(args, ok, { cwd: ws, env })).stdout).toBe("");
    const closed = await runHookChild([...args, "--fail-closed"], ok, { cwd: ws, env });
    expect(denied(closed.stdout)).toBe(true);
  }, 60_000);

  it("a pattern on a 1 MB command is interrupted by the budget: denied under --fail-closed, logged", async () => {
    const { ws, dir, args } = setup();
    writeFileSync(join(dir, "rm.json"), JSON.stringify(denyCandidate("slow", "((a+)+)+b")));
    await runHookChild(args, JSON.stringify(promptEvent("slow")), { cwd: ws });
    const input = JSON.stringify(preToolUse("slow", "a".repeat(MB)));
    const env = { FIRE_HOOK_BUDGET_MS: "300" };
    const r = await runHookChild([...args, "--fail-closed"], input, { cwd: ws, env });
    expect(denied(r.stdout)).toBe(true);
    const entry = logEntries(ws).at(-1);
    expect(entry?.error).toMatch(/exceeded its 300 ms budget/);
    // interrupted within the budget (plus V8's interrupt latency), not after the whole match
    expect(entry?.ms ?? 1e9).toBeLessThan(2_500);
  }, 60_000);

  it("a symlinked hook log is not followed", async () => {
    const { ws, args } = setup();
    const target = join(ws, "elsewhere.txt");
    writeFileSync(target, "untouched\n");
    mkdirSync(join(ws, ".fire"), { recursive: true });
    symlinkSync(target, join(ws, ".fire", "hook-log.jsonl"));
    const r = await runHookChild(args, JSON.stringify(promptEvent("link")), { cwd: ws });
    expect(readFileSync(target, "utf8")).toBe("untouched\n");
    expect(r.stderr).toMatch(/cannot write the hook log .*ELOOP/);
  }, 30_000);

  it("HOME=/proc without XDG_STATE_HOME: the hook answers at once and keeps no record there", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-attack-8-proc-"));
    const frozen = writeFrozen(
      join(ws, "portfolios", "p"),
      [denyCandidate("rm", "\\brm\\s+-rf\\b")],
      { hookForm: true },
    );
    // files older than the racy window: the hook then records their verification in
    // $HOME/.local/state (a recursive mkdir under /proc used to spin forever)
    await new Promise((r) => setTimeout(r, Number(RACY_NS / 1_000_000n) + 200));
    const env = { HOME: "/proc", XDG_STATE_HOME: "" };
    const args = ["--portfolio", frozen, "--workspace", ws];
    const opts = { cwd: ws, env, ceilingMs: 20_000 };
    await runHookChild(args, JSON.stringify(promptEvent("proc")), opts);
    const r = await runHookChild(args, JSON.stringify(preToolUse("proc", "rm -rf /srv")), opts);
    expect(r.signal).toBeNull();
    expect(denied(r.stdout)).toBe(true);
    expect(r.ms).toBeLessThan(10_000);
    expect(() => ensureDir("/proc/.local/state/fire")).toThrow(/procfs/);
  }, 60_000);
});
