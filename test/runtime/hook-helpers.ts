import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseHookLog } from "../../src/core/hook-log.js";
import { type RunResult, runFire } from "../helpers/cli.js";
import { fixture, REPO_ROOT } from "../helpers/paths.js";

export const PORTFOLIO = resolve(REPO_ROOT, "test/runtime/fixtures/portfolio");
export const CLIENTS = ["claude-rm-deny", "codex-rm-deny", "claude-http-log", "codex-http-log"];

/** The exact stdin objects a real client sent, in order (real-clients fixture). */
export function clientEvents(client: string): Record<string, unknown>[] {
  return readFileSync(fixture("real-clients", client, "hook-events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l).input as Record<string, unknown>);
}

/** What the recorded hook answered for each event (null = nothing). */
export function clientOutputs(client: string): unknown[] {
  return readFileSync(fixture("real-clients", client, "hook-events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l).output ?? null);
}

export function tempWorkspace(): string {
  return mkdtempSync(join(tmpdir(), "fire-hook-test-"));
}

/** Runs the built `fire hook` with one event on stdin. */
export function hook(ws: string, input: unknown, extra: string[] = [], env = {}): RunResult {
  const text = typeof input === "string" ? input : JSON.stringify(input);
  return runFire(["hook", "--portfolio", PORTFOLIO, "--workspace", ws, ...extra], {
    input: text,
    cwd: ws,
    env: { FIRE_STATE_DIR: "", ...env },
  });
}

export function logEntries(ws: string, file = join(ws, ".fire/hook-log.jsonl")) {
  if (!existsSync(file)) return [];
  const { entries, errors } = parseHookLog(readFileSync(file, "utf8"), file);
  if (errors.length) throw new Error(errors.map((e) => e.format()).join("\n"));
  return entries;
}

export function stateOf(ws: string, session: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(ws, ".fire/state", `${session}.json`), "utf8"));
}

export function parsedStdout(r: RunResult): unknown {
  return r.stdout.trim() ? JSON.parse(r.stdout) : null;
}
