import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { LockCompromisedError, withFileLock } from "../../src/runtime/lock.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { logEntries } from "../runtime/hook-helpers.js";
import {
  denyCandidate,
  preToolUse,
  promptEvent,
  rmWorkspace,
  runHookChild,
  startHook,
} from "./helpers.js";

/** Issue 16 item 2: the session lock must be exclusive — no lost, no duplicated update. */

function portfolio(ws: string): string {
  const dir = join(ws, "cands");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "rm.json"), JSON.stringify(denyCandidate("rm", "\\brm\\s+-rf\\b")));
  return dir;
}

function stateOf(ws: string, session: string) {
  return JSON.parse(readFileSync(join(ws, ".fire/state", `${session}.json`), "utf8")) as {
    step: number;
    policies: Record<string, { counters: Record<string, number> }>;
  };
}

/** Every event applied exactly once: step and counter equal the count; indexes unique. */
function expectExactlyOnce(ws: string, session: string, tools: number) {
  const state = stateOf(ws, session);
  expect(state.step).toBe(tools + 1);
  expect(state.policies["rm@1"]?.counters.calls).toBe(tools);
  const log = logEntries(ws).filter((e) => e.session === session);
  expect(log.filter((e) => e.error !== undefined)).toEqual([]);
  const indexes = log.map((e) => e.eventIndex).sort((a, b) => (a ?? 0) - (b ?? 0));
  expect(indexes).toEqual(Array.from({ length: tools + 1 }, (_, i) => i));
}

describe("attack 2: the session lock is exclusive", () => {
  it("40 concurrent events on one session: 0 lost, 0 duplicated updates (300 in npm run bench)", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-attack-2-"));
    const args = ["--portfolio", portfolio(ws), "--workspace", ws];
    await runHookChild(args, JSON.stringify(promptEvent("many")), { cwd: ws });
    const call = JSON.stringify(preToolUse("many", "ls"));
    const n = 40;
    const runs = await Promise.all(
      Array.from({ length: n }, () => runHookChild(args, call, { cwd: ws, ceilingMs: 170_000 })),
    );
    expect(runs.map((r) => r.code)).toEqual(Array(n).fill(0));
    expectExactlyOnce(ws, "many", n);
  }, 180_000);

  it("a holder slower than the stale time keeps its lock; the waiting events lose nothing", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-attack-2s-"));
    const args = ["--portfolio", portfolio(ws), "--workspace", ws];
    await runHookChild(args, JSON.stringify(promptEvent("slow")), { cwd: ws });
    // A holder that keeps the session lock 7 s (> LOCK_STALE_MS, 5 s) and then writes an
    // update of its own under it, as a slowed-down hook would.
    const lockJs = resolve(REPO_ROOT, "dist/runtime/lock.js");
    const file = join(ws, ".fire/state/slow.json");
    const holder = spawn(process.execPath, [
      "-e",
      `import(${JSON.stringify(lockJs)}).then(async (m) => {
        const fs = await import("node:fs");
        await m.withFileLock(${JSON.stringify(file)}, async (guard) => {
          process.stdout.write("locked\\n");
          const s = JSON.parse(fs.readFileSync(${JSON.stringify(file)}, "utf8"));
          await new Promise((r) => setTimeout(r, 7000));
          guard.confirm();
          s.step += 1;
          s.policies["rm@1"].counters.calls = (s.policies["rm@1"].counters.calls ?? 0) + 1;
          fs.writeFileSync(${JSON.stringify(file)}, JSON.stringify(s));
        });
      });`,
    ]);
    let out = "";
    const held = new Promise<void>((r) =>
      holder.stdout.on("data", (d) => {
        out += d;
        if (out.includes("locked")) r();
      }),
    );
    const holderDone = new Promise<number | null>((r) => holder.on("close", r));
    await held;
    const call = JSON.stringify(preToolUse("slow", "ls"));
    const runs = await Promise.all(
      Array.from({ length: 5 }, () => runHookChild(args, call, { cwd: ws, ceilingMs: 60_000 })),
    );
    expect(await holderDone).toBe(0);
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0]);
    const state = stateOf(ws, "slow");
    expect(state.step).toBe(1 + 1 + 5); // prompt + the slow holder + 5 events
    expect(state.policies["rm@1"]?.counters.calls).toBe(6);
    expect(logEntries(ws).filter((e) => e.error !== undefined)).toEqual([]);
  }, 90_000);

  it("a lock whose holder died is taken over at once", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-attack-2d-"));
    const args = ["--portfolio", portfolio(ws), "--workspace", ws];
    await runHookChild(args, JSON.stringify(promptEvent("dead")), { cwd: ws });
    const lock = join(ws, ".fire/state/dead.json.lock");
    mkdirSync(lock);
    writeFileSync(join(lock, "owner"), `999999999 ${hostname()} gone`); // no such pid
    const r = await runHookChild(args, JSON.stringify(preToolUse("dead", "ls")), { cwd: ws });
    expect(r.code).toBe(0);
    expectExactlyOnce(ws, "dead", 1);
  }, 60_000);

  it("a holder whose lock was taken over is told so and writes nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fire-attack-2c-"));
    const file = join(dir, "s.json");
    await expect(
      withFileLock(file, (guard) => {
        writeFileSync(join(`${file}.lock`, "owner"), "1 elsewhere intruder");
        guard.confirm();
      }),
    ).rejects.toBeInstanceOf(LockCompromisedError);
    // the intruder's lock is left alone
    expect(readFileSync(join(`${file}.lock`, "owner"), "utf8")).toBe("1 elsewhere intruder");
  });
});

describe("attack 1/2: SIGTERM always ends a hook", () => {
  it("a hook waiting on a session lock held by a live process ends on SIGTERM", async () => {
    const { ws, args } = rmWorkspace("fire-attack-term-");
    await runHookChild(args, JSON.stringify(promptEvent("held")), { cwd: ws });
    // a live holder on this host (this test process) keeps the lock: the hook waits on it
    const lock = join(ws, ".fire/state/held.json.lock");
    mkdirSync(lock, { recursive: true });
    writeFileSync(join(lock, "owner"), `${process.pid} ${hostname()} test-token`);
    const { child, done } = startHook(args, JSON.stringify(preToolUse("held", "ls")), {
      cwd: ws,
      ceilingMs: 60_000,
    });
    // give it time to reach the lock (a ceiling for "still waiting", not a speed target)
    await new Promise((r) => setTimeout(r, 1500));
    expect(child.exitCode).toBeNull();
    child.kill("SIGTERM");
    const r = await done;
    expect(r.signal).toBe("SIGTERM");
    expect(r.ms).toBeLessThan(55_000);
  }, 70_000);
});
