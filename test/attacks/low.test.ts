import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultPortfolioDir } from "../../src/core/freeze/default.js";
import { compilePolicy } from "../../src/core/policy/compile.js";
import { initState, step } from "../../src/core/policy/evaluator.js";
import { Candidate } from "../../src/core/policy/schema.js";
import { readState, sessionFile, writeState } from "../../src/runtime/state-store.js";
import { logEntries } from "../runtime/hook-helpers.js";
import {
  denyCandidate,
  preToolUse,
  promptEvent,
  rmWorkspace,
  runHookChild,
  startHook,
  writeFrozen,
} from "./helpers.js";

/** Issue 16 "Low" items on the hook and policy side. */
const setup = () => rmWorkspace("fire-attack-low-");

describe("attack low: hook and policy side", () => {
  it("session ids differing only in / _ : space, or sharing a 160-char prefix, get their own state", () => {
    const ids = ["a/b", "a_b", "a:b", "a b", `${"p".repeat(160)}1`, `${"p".repeat(160)}2`];
    const files = ids.map((id) => sessionFile("/s", id));
    expect(new Set(files).size).toBe(ids.length);
    expect(files.every((f) => f.startsWith("/s/") && !f.slice(3).includes("/"))).toBe(true);
    expect(sessionFile("/s", "../../etc/x")).toMatch(/^\/s\/[^/]+\.json$/);
    expect(sessionFile("/s", "plain-id_1")).toBe("/s/plain-id_1.json");
  });

  it("a 3 MB session id is not logged whole", async () => {
    const { ws, args } = setup();
    const id = "s".repeat(3 * 1024 * 1024);
    await runHookChild(args, JSON.stringify(promptEvent(id)), { cwd: ws });
    const entry = logEntries(ws).at(-1);
    expect(entry?.session.length).toBeLessThan(300);
    expect(entry?.session).toMatch(/…\(3145728 chars\)$/);
  }, 60_000);

  it("a stdin that drips without closing is given up on (fault logged), not waited on forever", async () => {
    const { ws, args } = setup();
    const { child, done } = startHook(args, '{"session_id": "drip", ', {
      cwd: ws,
      keepStdinOpen: true,
      env: { FIRE_HOOK_STDIN_MS: "1500" },
      ceilingMs: 30_000,
    });
    const drip = setInterval(() => child.stdin?.write(" "), 100);
    const r = await done;
    clearInterval(drip);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
    expect(logEntries(ws).at(-1)?.error).toMatch(/stdin was not closed within 1500 ms/);
  }, 40_000);

  it("a whole event on a stdin the writer keeps open is answered without waiting for EOF", async () => {
    const { ws, args } = setup();
    await runHookChild(args, JSON.stringify(promptEvent("open")), { cwd: ws });
    const { child, done } = startHook(args, JSON.stringify(preToolUse("open", "rm -rf /")), {
      cwd: ws,
      keepStdinOpen: true,
      env: { FIRE_HOOK_STDIN_MS: "20000" },
      ceilingMs: 30_000,
    });
    const r = await done;
    child.stdin?.destroy();
    expect(r.ms).toBeLessThan(20_000); // answered before the deadline would have fired
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    expect(logEntries(ws).at(-1)?.error).toBeUndefined();
  }, 40_000);

  it.each([
    [
      "a NaN1 counter",
      {
        step: 3,
        policies: { "rm@1": { flags: {}, steps: {}, counters: { calls: "NaN1" }, nudges: {} } },
      },
    ],
    [
      "a string flag",
      {
        step: 3,
        policies: { "rm@1": { flags: { x: "yes" }, steps: {}, counters: {}, nudges: {} } },
      },
    ],
    ["event index 1e15", { step: 1e15, policies: {} }],
  ])(
    "state with wrong inner types is refused: %s",
    async (_name, state) => {
      const { ws, args } = setup();
      mkdirSync(join(ws, ".fire/state"), { recursive: true });
      writeFileSync(join(ws, ".fire/state/bad.json"), JSON.stringify(state));
      await runHookChild(args, JSON.stringify(promptEvent("bad")), { cwd: ws });
      expect(logEntries(ws).at(-1)?.error).toMatch(/corrupted state file/);
    },
    60_000,
  );

  it("track names toString / __proto__ / constructor are plain names", () => {
    const c = Candidate.parse({
      ...denyCandidate("names", "\\brm\\b"),
      track: [
        { id: "t", at: "tool", increment: ["toString", "constructor"], set: ["__proto__"] },
        { id: "r", at: "tool", record: "valueOf" },
      ],
      rules: [
        {
          id: "deny",
          at: "tool",
          when: { flag: "__proto__", count: "toString >= 2" },
          action: "deny",
          message: "m",
        },
      ],
    });
    const p = compilePolicy(c);
    let state = step([p], initState(), {
      kind: "prompt",
      role: "user",
      index: 0,
      input: "go",
    }).state;
    const call = { kind: "tool_call" as const, index: 1, tool: "Bash", command: "ls" };
    const first = step([p], state, call);
    expect(first.verdict.action).toBe("allow"); // toString is 1, not a function
    state = first.state;
    const ps = state.policies["names@1"]!;
    expect(Object.hasOwn(ps.flags, "__proto__")).toBe(true);
    expect(ps.counters.toString).toBe(1);
    expect(ps.counters.constructor).toBe(1);
    expect(ps.steps.valueOf).toBe(1);
    expect(step([p], state, { ...call, index: 2 }).verdict.action).toBe("deny");
    // and survives the hook's state file round trip
    const dir = mkdtempSync(join(tmpdir(), "fire-attack-low-names-"));
    writeState(join(dir, "s.json"), state);
    const back = readState(join(dir, "s.json"));
    expect(back && step([p], back, { ...call, index: 2 }).verdict.action).toBe("deny");
  });

  it("the hook leaves no *.tmp behind, and never picks a dot temp folder as default portfolio", async () => {
    const { ws, args } = setup();
    for (let i = 0; i < 3; i++)
      await runHookChild(args, JSON.stringify(preToolUse("tmp", "ls")), { cwd: ws });
    const state = join(ws, ".fire/state");
    const all = readdirSync(state, { recursive: true }) as string[];
    expect(all.filter((f) => f.endsWith(".tmp"))).toEqual([]);
    // a freeze temp folder with a newer manifest next to a real portfolio
    const real = writeFrozen(join(ws, "portfolios/real"), [denyCandidate("rm", "\\brm\\b")]);
    const temp = writeFrozen(join(ws, "portfolios/.last-11.tmp-1525"), [denyCandidate("x", "x")]);
    execFileSync("sed", ["-i", "s/2026-12-01T00/2099-12-01T00/", join(temp, "manifest.json")]);
    expect(defaultPortfolioDir(ws)).toBe(real);
  }, 60_000);
});
