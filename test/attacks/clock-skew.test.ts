import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { logEntries, stateOf } from "../runtime/hook-helpers.js";
import {
  denyCandidate,
  preToolUse,
  promptEvent,
  rmWorkspace,
  runHookChild,
  writeFrozen,
} from "./helpers.js";

/**
 * Issue 27 "held": clock skew. Lock and state timestamps far in the future or the past (a
 * host whose clock is ahead, a clock set back, a planted file): the hook still answers, takes
 * over a stale lock, and never waits on it until its lock deadline.
 */
const FUTURE = new Date("2031-01-01T00:00:00Z");
const PAST = new Date("1971-01-01T00:00:00Z");

/** A workspace with a session already seen (eligible), and a hand-made lock on that session. */
async function lockedSession(name: string, owner: string | undefined, at: Date) {
  const { ws, args } = rmWorkspace(`fire-attack-skew-${name}-`);
  await runHookChild(args, JSON.stringify(promptEvent(name)), { cwd: ws });
  const lock = join(ws, `.fire/state/${name}.json.lock`);
  mkdirSync(lock);
  if (owner !== undefined) writeFileSync(join(lock, "owner"), owner);
  utimesSync(lock, at, at);
  return { ws, args, lock };
}

// concurrent: most of the time here is the stale wait (sleeps), not CPU
describe.concurrent("attack: clock skew on the session lock and state", () => {
  it.each([
    ["no owner record, dated 2031", "noowner", undefined],
    ["a holder on another host, dated 2031", "foreign", "4242 some-other-host tok"],
  ])(
    "a lock %s is taken over, not waited on until the lock deadline",
    async (_what, name, owner) => {
      const { ws, args } = await lockedSession(name, owner, FUTURE);
      const r = await runHookChild(args, JSON.stringify(preToolUse(name, "rm -rf /")), {
        cwd: ws,
        // the lock deadline a stuck lock would hit (the default is 20 s): taking the lock
        // over must come first; a hook that only answers at the deadline logs an error
        env: { FIRE_HOOK_LOCK_WAIT_MS: "15000" },
        ceilingMs: 60_000,
      });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
      const last = logEntries(ws).at(-1);
      expect(last?.error).toBeUndefined(); // not "could not take the session lock"
      expect(last?.eventIndex).toBe(1);
      expect(stateOf(ws, name).step).toBe(2); // its update was applied
    },
    70_000,
  );

  it("a lock of a dead holder on this host dated 2031 is taken over at once", async () => {
    const { ws, args } = await lockedSession("dead", `999999999 ${hostname()} gone`, FUTURE);
    const r = await runHookChild(args, JSON.stringify(preToolUse("dead", "ls")), { cwd: ws });
    expect(r.code).toBe(0);
    expect(logEntries(ws).at(-1)?.error).toBeUndefined();
    expect(stateOf(ws, "dead").step).toBe(2);
  }, 60_000);

  it("a lock dated 1971 is past the longest hold: taken over even with a live pid in it", async () => {
    // this test process is alive on this host, but no event holds a lock for 55 years
    const { ws, args } = await lockedSession("old", `${process.pid} ${hostname()} tok`, PAST);
    const r = await runHookChild(args, JSON.stringify(preToolUse("old", "rm -rf /")), {
      cwd: ws,
    });
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    expect(logEntries(ws).at(-1)?.error).toBeUndefined();
    expect(stateOf(ws, "old").step).toBe(2);
  }, 60_000);

  it("a session start in the future is counted from now (noted); one in the past is kept", async () => {
    const { ws, args } = rmWorkspace("fire-attack-skew-start-");
    await runHookChild(args, JSON.stringify(promptEvent("st")), { cwd: ws });
    const file = join(ws, ".fire/state/st.json");
    const put = (startedAt: number) => {
      const s = JSON.parse(readFileSync(file, "utf8"));
      writeFileSync(file, JSON.stringify({ ...s, startedAt }));
    };
    put(FUTURE.getTime());
    const before = Date.now();
    let r = await runHookChild(args, JSON.stringify(preToolUse("st", "rm -rf /")), { cwd: ws });
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    let last = logEntries(ws).at(-1);
    expect(last?.error).toBeUndefined();
    expect(last?.note).toMatch(/session start 2031-01-01T00:00:00.000Z is in the future/);
    const started = stateOf(ws, "st").startedAt as number;
    expect(started).toBeGreaterThanOrEqual(before - 1000);
    expect(started).toBeLessThanOrEqual(Date.now());

    put(PAST.getTime());
    r = await runHookChild(args, JSON.stringify(preToolUse("st", "ls")), { cwd: ws });
    expect(r.code).toBe(0);
    last = logEntries(ws).at(-1);
    expect([last?.error, last?.note]).toEqual([undefined, undefined]);
    expect(stateOf(ws, "st").startedAt).toBe(PAST.getTime());
  }, 60_000);

  it.each([
    ["a string", "2031"],
    ["null", null],
  ])(
    "a session start that is %s is a corrupt state, moved aside",
    async (_what, startedAt) => {
      const { ws, args } = rmWorkspace("fire-attack-skew-bad-");
      mkdirSync(join(ws, ".fire/state"), { recursive: true });
      writeFileSync(
        join(ws, ".fire/state/bad.json"),
        JSON.stringify({ step: 1, policies: {}, startedAt }),
      );
      const r = await runHookChild(args, JSON.stringify(preToolUse("bad", "rm -rf /")), {
        cwd: ws,
      });
      expect(r.code).toBe(0);
      expect(logEntries(ws).at(-1)?.error).toMatch(/corrupted state file/);
      // the next event starts clean
      await runHookChild(args, JSON.stringify(promptEvent("bad")), { cwd: ws });
      expect(logEntries(ws).at(-1)?.error).toBeUndefined();
    },
    60_000,
  );

  it.each([
    ["2031", FUTURE],
    ["1971", PAST],
  ])(
    "a frozen portfolio whose files are dated %s still verifies and denies",
    async (_y, at) => {
      const { ws } = rmWorkspace("fire-attack-skew-frozen-");
      const dir = writeFrozen(join(ws, "frozen"), [denyCandidate("rm", "\\brm\\s+-rf\\b")], {
        hookForm: true,
      });
      for (const f of ["manifest.json", "hook.json", "policies/rm@1.json"])
        utimesSync(join(dir, f), at, at);
      const args = ["--portfolio", dir, "--workspace", ws];
      for (let i = 0; i < 2; i++) {
        // twice: the second event may answer from the verified record or the cache
        await runHookChild(args, JSON.stringify(promptEvent(`f${i}`)), { cwd: ws });
        const r = await runHookChild(args, JSON.stringify(preToolUse(`f${i}`, "rm -rf /")), {
          cwd: ws,
        });
        expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
      }
      expect(logEntries(ws).filter((e) => e.error !== undefined)).toEqual([]);
    },
    60_000,
  );
});
