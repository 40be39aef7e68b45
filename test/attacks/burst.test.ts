import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { HOOK_TIMEOUT_S } from "../../src/core/deploy/settings.js";
import { LOCK_STALE_MS } from "../../src/runtime/lock.js";
import { HOOK_LOCK_WAIT_MS, type HookAnswer, runHook } from "../../src/runtime/run-hook.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { preToolUse, promptEvent, rmWorkspace } from "./helpers.js";

/**
 * Issue 27 point 8: bursts on one session. 300 events at once on one session while a holder
 * slower than the stale timeout keeps the lock: every event answers within the installed
 * timeout — applied exactly once, or (still waiting at its deadline) answered from the last
 * saved state and logged as unable to take the lock; none lost, none applied twice. The
 * events run in-process through the hook's own runHook (300 hook processes would cost CI
 * minutes on two cores); the holder is another process, as a slowed hook would be.
 */
const N = 300;
const HOLD_MS = LOCK_STALE_MS + 500;

interface Scenario {
  answers: { answer: HookAnswer; ms: number }[];
  state: { step: number; policies: Record<string, { counters: Record<string, number> }> };
  holderApplied: boolean;
}

/**
 * A process that holds the session lock HOLD_MS, then applies one update of its own; resolves
 * once it holds the lock, with `done` (whether its update was applied).
 */
function slowHolder(file: string): Promise<{ done: Promise<boolean> }> {
  const lockJs = resolve(REPO_ROOT, "dist/runtime/lock.js");
  const holder = spawn(process.execPath, [
    "-e",
    `import(${JSON.stringify(lockJs)}).then(async (m) => {
      const fs = await import("node:fs");
      await m.withFileLock(${JSON.stringify(file)}, async (guard) => {
        process.stdout.write("locked\\n");
        const s = JSON.parse(fs.readFileSync(${JSON.stringify(file)}, "utf8"));
        await new Promise((r) => setTimeout(r, ${HOLD_MS}));
        guard.confirm();
        s.step += 1;
        s.policies["rm@1"].counters.calls = (s.policies["rm@1"].counters.calls ?? 0) + 1;
        fs.writeFileSync(${JSON.stringify(file)}, JSON.stringify(s));
        process.stdout.write("applied\\n");
      });
    });`,
  ]);
  let out = "";
  holder.stdout.on("data", (d) => {
    out += d;
  });
  return new Promise((ok) => {
    const check = setInterval(() => {
      if (out.includes("locked")) {
        clearInterval(check);
        const done = new Promise<boolean>((d) =>
          holder.on("close", () => d(out.includes("applied"))),
        );
        ok({ done });
      }
    }, 20);
  });
}

async function burst(session: string, lockWaitMs: number, command = "ls"): Promise<Scenario> {
  const { ws, dir } = rmWorkspace(`fire-attack-8b-${session}-`);
  const opts = {
    portfolio: dir,
    stateDir: join(ws, ".fire/state"),
    logFile: join(ws, ".fire/hook-log.jsonl"),
    failClosed: true,
    env: { FIRE_HOOK_LOCK_WAIT_MS: String(lockWaitMs) },
  };
  const first = await runHook(
    { text: JSON.stringify(promptEvent(session)) },
    { ...opts, startedAt: Date.now() },
  );
  expect(first.entry.error).toBeUndefined();
  const file = join(opts.stateDir, `${session}.json`);
  const held = await slowHolder(file);
  const text = JSON.stringify(preToolUse(session, command));
  const answers = await Promise.all(
    Array.from({ length: N }, async () => {
      const t0 = Date.now();
      const answer = await runHook({ text }, { ...opts, startedAt: t0 });
      return { answer, ms: Date.now() - t0 };
    }),
  );
  const holderApplied = await held.done;
  return { answers, state: JSON.parse(readFileSync(file, "utf8")), holderApplied };
}

/** Applied events exactly once; the others logged as unable to take the lock. */
function expectNoneLostOrDoubled(s: Scenario, lockWaitMs: number) {
  expect(s.holderApplied).toBe(true);
  const applied = s.answers.filter((a) => a.answer.entry.error === undefined);
  const waited = s.answers.filter((a) => a.answer.entry.error !== undefined);
  for (const w of waited)
    expect(w.answer.entry.error).toMatch(/could not take the session lock .*update not applied/);
  expect(s.state.step).toBe(1 + 1 + applied.length); // the prompt, the holder, each applied event
  expect(s.state.policies["rm@1"]?.counters.calls).toBe(1 + applied.length);
  const indexes = applied.map((a) => a.answer.entry.eventIndex).sort((a, b) => (a ?? 0) - (b ?? 0));
  expect(new Set(indexes).size).toBe(applied.length);
  // every event answered within its lock wait plus the margin the design leaves one event's
  // work before the client gives up (its timeout less the longest lock wait): 300 hooks share
  // this process, so on a loaded machine that work alone can take seconds
  const margin = HOOK_TIMEOUT_S * 1000 - HOOK_LOCK_WAIT_MS;
  for (const a of s.answers) expect(a.ms).toBeLessThan(lockWaitMs + margin);
  return { applied: applied.length, waited: waited.length };
}

describe("attack 8: a burst of 300 events on one session", () => {
  it("the lock wait ends well within the timeout the client is given", () => {
    expect(HOOK_LOCK_WAIT_MS).toBeLessThanOrEqual((HOOK_TIMEOUT_S * 1000 * 2) / 3);
  });

  it("three runs: 0 lost or doubled updates, with a holder slower than the stale timeout", async () => {
    const runs = await Promise.all(["r1", "r2", "r3"].map((s) => burst(s, 15_000)));
    const counts = runs.map((r) => expectNoneLostOrDoubled(r, 15_000));
    // the holder let go after HOLD_MS: well before the wait ran out, every event applied
    expect(counts.map((c) => c.applied)).toEqual([N, N, N]);
  }, 60_000);

  it("events still waiting at their deadline answer, logged; rm -rf denied from the saved state", async () => {
    const s = await burst("late", 1_000, "rm -rf build");
    const { applied, waited } = expectNoneLostOrDoubled(s, 1_000);
    expect(waited).toBeGreaterThan(0);
    expect(applied + waited).toBe(N);
    for (const a of s.answers)
      expect(JSON.stringify(a.answer.output)).toMatch(/"permissionDecision":"deny"/);
  }, 60_000);
});
