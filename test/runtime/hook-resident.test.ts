import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startHook } from "../attacks/helpers.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { residentSettled } from "../helpers/resident.js";
import {
  CLIENTS,
  clientEvents,
  clientOutputs,
  hook,
  logEntries,
  PORTFOLIO,
  parsedStdout,
  tempWorkspace,
} from "./hook-helpers.js";

/**
 * The resident evaluator (src/runtime/resident.cts): a hook call that finds one hands it the
 * event; the answers, state and log must be the one-shot call's. Each test gets its own
 * $XDG_RUNTIME_DIR, so its evaluator is its own; every evaluator started here quits after a
 * short idle spell.
 */
const RUNTIME = join(REPO_ROOT, "dist/runtime");
const client = createRequire(import.meta.url)(join(RUNTIME, "resident-client.cjs")) as {
  residentDir(runtimeDir: string, env: NodeJS.ProcessEnv): string | undefined;
  publicEnv(env: NodeJS.ProcessEnv): Record<string, string>;
  running(pid: number): boolean;
};
const started: string[] = [];

/** A private runtime folder (mode 0700, as a login session's is) and its evaluator folder. */
function runtimeDir(): { env: Record<string, string>; dir: string } {
  const base = mkdtempSync(join(tmpdir(), "fire-resident-"));
  chmodSync(base, 0o700);
  const env = { XDG_RUNTIME_DIR: base, FIRE_HOOK_RESIDENT_IDLE_MS: "20000" };
  const dir = client.residentDir(RUNTIME, env);
  if (!dir) throw new Error("no resident folder");
  started.push(dir);
  return { env, dir };
}

/** Waits (bounded) until the evaluator of `dir` reads its pipe. */
async function evaluatorUp(dir: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    if (existsSync(join(dir, "in")) && !existsSync(join(dir, "starting")))
      return Number(readFileSync(join(dir, "pid"), "utf8"));
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no evaluator came up in ${dir}`);
}

/** Running and no zombie (the evaluators a test kills may never be reaped in a container). */
const alive = (pid: number): boolean => client.running(pid);

afterAll(() => {
  for (const dir of started)
    try {
      process.kill(Number(readFileSync(join(dir, "pid"), "utf8")), "SIGTERM");
    } catch {
      // already gone
    }
});

describe("the resident evaluator", () => {
  it.each(CLIENTS)("answers the real %s session as the recorded hook did", async (name) => {
    const { env, dir } = runtimeDir();
    const ws = tempWorkspace();
    const events = clientEvents(name);
    // the first call finds no evaluator: it answers itself and starts one
    const first = hook(ws, events[0], [], env);
    expect([first.status, first.stderr]).toEqual([0, ""]);
    const pid = await evaluatorUp(dir);
    const rest = events.slice(1).map((e) => {
      const r = hook(ws, e, [], env);
      expect([r.status, r.stderr]).toEqual([0, ""]);
      return parsedStdout(r);
    });
    expect([parsedStdout(first), ...rest]).toEqual(clientOutputs(name));
    // the same evaluator answered all of them, and left no request or answer behind
    expect(Number(readFileSync(join(dir, "pid"), "utf8"))).toBe(pid);
    expect(alive(pid)).toBe(true);
    expect(readdirSync(dir).filter((f) => /^[qa]-/.test(f))).toEqual([]);
    expect(logEntries(ws)).toHaveLength(events.length);
  });

  it("runs each call with its own environment and working folder", async () => {
    const { env, dir } = runtimeDir();
    const event = {
      session_id: "env-1",
      hook_event_name: "UserPromptSubmit",
      prompt: "clean the build directory",
      cwd: tmpdir(),
    };
    hook(tempWorkspace(), event, [], env);
    await evaluatorUp(dir);
    const a = tempWorkspace();
    const b = tempWorkspace();
    // the state folder comes from each call's own FIRE_ variable (a relative one: its own cwd)
    expect(hook(a, event, [], { ...env, FIRE_STATE_DIR: "st-a" }).status).toBe(0);
    expect(hook(b, event, [], { ...env, FIRE_STATE_DIR: "st-b" }).status).toBe(0);
    expect(readdirSync(join(a, "st-a")).length).toBeGreaterThan(0);
    expect(readdirSync(join(b, "st-b")).length).toBeGreaterThan(0);
    expect(existsSync(join(a, "st-b"))).toBe(false);
  });

  it("a call whose evaluator died answers itself and starts another", async () => {
    const { env, dir } = runtimeDir();
    const ws = tempWorkspace();
    const [event] = clientEvents("claude-rm-deny");
    hook(ws, event, [], env);
    const pid = await evaluatorUp(dir);
    process.kill(pid, "SIGKILL");
    while (alive(pid)) await new Promise((r) => setTimeout(r, 20));
    const r = hook(ws, event, [], env);
    expect([r.status, r.stderr], r.stdout).toEqual([0, ""]);
    expect(parsedStdout(r)).toEqual(clientOutputs("claude-rm-deny")[0]);
    const again = await evaluatorUp(dir);
    expect(again, readdirSync(dir).join(" ")).not.toBe(pid);
  });

  it("sends back a call whose session lock is held: it waits for it in its own process", async () => {
    const { env, dir } = runtimeDir();
    const ws = tempWorkspace();
    const event = {
      session_id: "locked-1",
      hook_event_name: "UserPromptSubmit",
      prompt: "clean the build directory",
      cwd: ws,
    };
    hook(ws, event, [], env);
    const pid = await evaluatorUp(dir);
    const state = join(ws, ".fire/state");
    const [file] = readdirSync(state).filter((f) => f.endsWith(".json"));
    // a live holder (this test's process) keeps the session lock
    const lock = join(state, `${file}.lock`);
    mkdirSync(lock);
    writeFileSync(join(lock, "owner"), `${process.pid} ${hostname()} held-by-test`);
    const r = hook(ws, event, [], { ...env, FIRE_HOOK_LOCK_WAIT_MS: "400" });
    expect(r.status).toBe(0);
    // the one-shot call's answer to a held lock: it waited, then answered without its update
    const last = logEntries(ws).at(-1);
    expect(last?.error).toMatch(/could not take the session lock/);
    expect(alive(pid)).toBe(true);
    expect(readdirSync(dir).filter((f) => /^[qa]-/.test(f))).toEqual([]);
  });

  it("a stdin that drips without closing is given up on within one stdin deadline, not two", async () => {
    const { env, dir } = runtimeDir();
    const ws = tempWorkspace();
    hook(
      ws,
      { session_id: "d0", hook_event_name: "UserPromptSubmit", prompt: "x", cwd: ws },
      [],
      env,
    );
    await evaluatorUp(dir);
    const { child, done } = startHook(
      ["--portfolio", PORTFOLIO, "--workspace", ws, "--fail-closed"],
      '{"session_id": "drip", "hook_event_name": "PreToolUse", ',
      {
        cwd: ws,
        keepStdinOpen: true,
        env: { ...env, FIRE_HOOK_STDIN_MS: "3000" },
        ceilingMs: 30_000,
      },
    );
    const drip = setInterval(() => child.stdin?.write(" "), 100);
    const r = await done;
    clearInterval(drip);
    expect(r.code).toBe(0);
    // the client read for the deadline and handed what it read over: the in-process reader
    // keeps the same deadline (before: a second one, ~6 s), and still knows the event's name
    expect(r.ms).toBeLessThan(5000);
    const last = logEntries(ws).at(-1);
    expect(last?.error).toMatch(/stdin was not closed within 3000 ms/);
    expect(last?.event).toBe("PreToolUse");
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
  });

  it.each(["a shell pipe", "a regular file"])(
    "reads an event on %s as on a socket, and answers it the same",
    async (kind) => {
      const { env, dir } = runtimeDir();
      const ws = tempWorkspace();
      const [event] = clientEvents("claude-rm-deny");
      hook(tempWorkspace(), event, [], env);
      const pid = await evaluatorUp(dir);
      const file = join(ws, "event.json");
      writeFileSync(file, JSON.stringify(event));
      const cli = join(REPO_ROOT, "dist/cli/fire.cjs");
      const args = `hook --portfolio '${PORTFOLIO}' --workspace '${ws}'`;
      const script =
        kind === "a shell pipe"
          ? `cat '${file}' | '${process.execPath}' '${cli}' ${args}`
          : `'${process.execPath}' '${cli}' ${args} < '${file}'`;
      const r = spawnSync("sh", ["-c", script], {
        cwd: ws,
        encoding: "utf8",
        env: { ...process.env, FIRE_STATE_DIR: "", ...env },
      });
      residentSettled({ ...process.env, ...env });
      expect([r.status, r.stderr]).toEqual([0, ""]);
      expect(r.stdout.trim() ? JSON.parse(r.stdout) : null).toEqual(
        clientOutputs("claude-rm-deny")[0],
      );
      expect(logEntries(ws)).toHaveLength(1);
      expect(Number(readFileSync(join(dir, "pid"), "utf8"))).toBe(pid); // answered by it
    },
  );

  it("a writer that never writes is given up on at the stdin deadline", async () => {
    const { env, dir } = runtimeDir();
    const ws = tempWorkspace();
    hook(
      ws,
      { session_id: "s0", hook_event_name: "UserPromptSubmit", prompt: "x", cwd: ws },
      [],
      env,
    );
    await evaluatorUp(dir);
    const { child, done } = startHook(["--portfolio", PORTFOLIO, "--workspace", ws], "", {
      cwd: ws,
      keepStdinOpen: true,
      env: { ...env, FIRE_HOOK_STDIN_MS: "1500" },
      ceilingMs: 30_000,
    });
    const r = await done;
    child.stdin?.destroy();
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(4000);
    expect(logEntries(ws).at(-1)?.error).toMatch(/stdin was not closed within 1500 ms/);
  });

  it("is not used where the per-user folder is open to others, or when turned off", () => {
    const base = mkdtempSync(join(tmpdir(), "fire-resident-open-"));
    const user = join(base, `fire-hook-${process.getuid?.()}`);
    mkdirSync(user, { mode: 0o777 });
    chmodSync(user, 0o777);
    expect(client.residentDir(RUNTIME, { XDG_RUNTIME_DIR: base })).toBeUndefined();
    const [event] = clientEvents("claude-rm-deny");
    const r = hook(tempWorkspace(), event, [], { XDG_RUNTIME_DIR: base });
    expect(parsedStdout(r)).toEqual(clientOutputs("claude-rm-deny")[0]);
    expect(readdirSync(user)).toEqual([]); // no evaluator was started in it
    const off = mkdtempSync(join(tmpdir(), "fire-resident-off-"));
    expect(client.residentDir(RUNTIME, { XDG_RUNTIME_DIR: off, FIRE_HOOK_RESIDENT: "0" })).toBe(
      undefined,
    );
    hook(tempWorkspace(), event, [], { XDG_RUNTIME_DIR: off, FIRE_HOOK_RESIDENT: "0" });
    expect(readdirSync(off)).toEqual([]);
  });

  it("passes only the variables the hook reads, never one named like a secret", () => {
    const env = client.publicEnv({
      FIRE_STATE_DIR: "s",
      CLAUDE_PROJECT_DIR: "/p",
      HOME: "/h",
      ANTHROPIC_API_KEY: "sk-ant-x",
      FIRE_TOKEN: "t",
      OPENAI_API_KEY: "sk-x",
      AWS_SECRET_ACCESS_KEY: "a",
      CODEX_Auth_file: "q",
      EDITOR: "vi",
      HOMEDIR: "/x",
      LC_ALL: "C",
    });
    expect(env).toEqual({
      FIRE_STATE_DIR: "s",
      CLAUDE_PROJECT_DIR: "/p",
      HOME: "/h",
      LC_ALL: "C",
    });
  });

  it("a state it cannot write is answered and logged as one-shot; written again, it is in place by its log line", async () => {
    const { env, dir } = runtimeDir();
    const ws = tempWorkspace();
    const event = {
      session_id: "late-1",
      hook_event_name: "UserPromptSubmit",
      prompt: "clean the build directory",
      cwd: ws,
    };
    hook(ws, event, [], env); // one-shot: starts the evaluator
    const pid = await evaluatorUp(dir);
    const state = join(ws, ".fire/state");
    const [file] = readdirSync(state).filter((f) => f.endsWith(".json"));
    const before = readFileSync(join(state, `${file}`), "utf8");
    // the evaluator's temp file for this session cannot be made: a folder sits at its name
    const tmp = join(state, `${file}.${pid}.tmp`);
    mkdirSync(tmp);
    const r = hook(ws, event, [], env);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/fire hook: state not saved/); // known before the answer, as one-shot
    expect(Number(readFileSync(join(dir, "pid"), "utf8"))).toBe(pid); // answered by it
    const entries = logEntries(ws);
    expect(entries.at(-1)?.error).toMatch(/state not saved/);
    expect(readFileSync(join(state, `${file}`), "utf8")).toBe(before);
    // once it can write again, the next call's state is in place when its log line is
    rmdirSync(tmp);
    const again = hook(ws, event, [], env);
    expect([again.status, again.stderr]).toEqual([0, ""]);
    expect(logEntries(ws).at(-1)?.error).toBeUndefined();
    expect(readFileSync(join(state, `${file}`), "utf8")).not.toBe(before);
    expect(readdirSync(state).filter((f) => f.endsWith(".tmp") || f.endsWith(".lock"))).toEqual([]);
  });

  it("quits after its idle spell and clears its pipe and folder", async () => {
    const { env, dir } = runtimeDir();
    const [event] = clientEvents("claude-rm-deny");
    hook(tempWorkspace(), event, [], { ...env, FIRE_HOOK_RESIDENT_IDLE_MS: "300" });
    const pid = await evaluatorUp(dir);
    // (polls for the exit: up to 10 s, which a loaded machine has needed)
    for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
    expect(existsSync(join(dir, "in"))).toBe(false);
    expect(existsSync(join(dir, "pid"))).toBe(false);
    // the build's folder goes with it: a machine does not keep one per build it ever ran
    expect(existsSync(dir)).toBe(false);
  });
});
