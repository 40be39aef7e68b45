import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { expect, it } from "vitest";
import { parseHookLog } from "../../src/core/hook-log.js";
import type { Attempt, Event } from "../../src/core/model/attempt.js";
import { exitStatus } from "../../src/core/model/exit-status.js";
import { loadPolicies } from "../../src/core/policy/load.js";
import { replayAttempt } from "../../src/core/policy/replay.js";
import { rolloutExitCode } from "../../src/runtime/codex-exit.js";
import type { HookInput } from "../../src/runtime/hook-events.js";
import { toEvent } from "../../src/runtime/map-event.js";
import { collect } from "../core/ingest/collect.js";
import { runFire } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";

export const REFERENCE = join(REPO_ROOT, "candidates/reference");
export const RECORDED = join(REPO_ROOT, "test/fixtures/real-clients");

/** One real-client case: a rig script run by one client, and what fire must decide. */
export interface RealClientCase {
  client: "claude" | "codex";
  script: string;
  /** Commands of the main agent that the live hook denies (all others are allowed). */
  denied: string[];
  /** Paths written per edit call, in order (apply_patch / Write). */
  writes?: string[][];
  /** The case runs a sub-agent: its tool calls are a separate attempt. */
  subagent?: boolean;
}

export const CASES: RealClientCase[] = [
  { client: "claude", script: "fail-probe", denied: [] },
  { client: "codex", script: "fail-probe", denied: [] },
  { client: "claude", script: "good-probe", denied: ["rm -rf site"] },
  { client: "codex", script: "good-probe", denied: ["rm -rf site"] },
  // the good probe ran in the sub-agent: a separate attempt, so the main agent's cleanup passes
  { client: "claude", script: "subagent", denied: [], subagent: true },
  {
    client: "codex",
    script: "apply-patch",
    denied: [],
    writes: [["site/index.html", "site/about.html"], ["site/index.html"]],
  },
  { client: "claude", script: "claude-write", denied: [], writes: [["<work>/site/index.html"]] },
];

export const caseName = (c: RealClientCase): string => `${c.client}-${c.script}`;

interface Recorded {
  input: HookInput;
  output: unknown;
}

/** The hook stdin the client sent and what fire answered, in call order. */
export function hookEvents(dir: string): Recorded[] {
  return readFileSync(join(dir, "hook-events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Recorded);
}

export function hookLog(file: string) {
  const { entries, errors } = parseHookLog(readFileSync(file, "utf8"), file);
  if (errors.length) throw new Error(errors.map((e) => e.format()).join("\n"));
  return entries;
}

function jsonlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith(".jsonl"))
    .map((d) => join(d.parentPath, d.name));
}

/** Session logs of a case folder: the main one, then sub-agent transcripts. */
export function sessionFiles(dir: string): string[] {
  return jsonlFiles(join(dir, "sessions")).sort(
    (a, b) => Number(a.includes("/subagents/")) - Number(b.includes("/subagents/")),
  );
}

/** The stdin with the recorded machine's transcript path pointed at the kept session log. */
export function localInput(dir: string, input: HookInput): HookInput {
  const t = input.transcript_path;
  if (!t) return input;
  const main = sessionFiles(dir).find((f) => basename(f) === basename(t));
  return main ? { ...input, transcript_path: main } : input;
}

/** Feeds the recorded stdin, in order, to the built `fire hook`; its answers and log. */
export function rerunHook(dir: string) {
  const ws = mkdtempSync(join(tmpdir(), "fire-rc-"));
  const outputs = hookEvents(dir).map(({ input }) => {
    const r = runFire(["hook", "--portfolio", REFERENCE, "--workspace", ws], {
      input: JSON.stringify(localInput(dir, input)),
      cwd: ws,
      env: { FIRE_STATE_DIR: "" },
    });
    if (r.status !== 0 || r.stderr) throw new Error(`fire hook: ${r.status} ${r.stderr}`);
    return r.stdout.trim() ? (JSON.parse(r.stdout) as unknown) : null;
  });
  return { outputs, log: hookLog(join(ws, ".fire/hook-log.jsonl")) };
}

/** A decision compared across live and replay: `point:rule@callId` (callId "" at prompt/stop). */
export type Decision = string;

/** What the live hook decided, per agent ("" = the main agent), from its log + the stdin. */
export function liveDecisions(dir: string, logFile = join(dir, "hook-log.jsonl")) {
  const events = hookEvents(dir);
  const log = hookLog(logFile);
  if (log.length !== events.length) throw new Error(`${dir}: hook log and stdin differ in length`);
  const out = new Map<string, Decision[]>();
  log.forEach((entry, i) => {
    const agent = entry.agent ?? "";
    const list = out.get(agent) ?? [];
    out.set(agent, list);
    const callId = events[i]?.input.tool_use_id ?? "";
    for (const f of entry.firings) list.push(`${f.point}:${f.ruleId}@${callId}`);
  });
  return out;
}

/** The commands the live hook denied for the main agent. */
export function liveDenied(dir: string, logFile = join(dir, "hook-log.jsonl")): string[] {
  return hookLog(logFile)
    .filter((e) => e.agent === undefined && e.verdict.action === "deny")
    .map((e) => e.command ?? "");
}

/** Imports the case's session logs (each sub-agent transcript is its own attempt). */
export async function importSessions(dir: string): Promise<Attempt[]> {
  const got = await collect(sessionFiles(dir));
  if (got.errors.length) throw new Error(got.errors.join("\n"));
  return got.attempts;
}

const { policies } = loadPolicies([REFERENCE]);

/** Replay of one imported attempt with the reference portfolio: its decisions. */
export function replayDecisions(a: Attempt): Decision[] {
  const r = replayAttempt(policies, a);
  return r.firings
    .filter((f) => !(f.point === "stop" && f.eventIndex === a.events.length)) // synthetic stop
    .map((f) => `${f.point}:${f.ruleId}@${a.events[f.eventIndex]?.callId ?? ""}`);
}

/** The sub-agent id of an imported Claude sub-agent transcript (agent-<id>.jsonl). */
export function agentOf(a: Attempt): string {
  const m = /agent-([^/]+)\.jsonl$/.exec(a.source.path);
  return m?.[1] ?? "";
}

/** The fields a condition tests, for one tool event. */
export function conditionView(e: Omit<Event, "index">) {
  return {
    kind: e.kind,
    command: e.command,
    writes: e.writes,
    ...(e.kind === "tool_result" ? { status: exitStatus(e) } : {}),
  };
}

/**
 * Per tool event, the live mapping of the stdin and the import of the session log, keyed by
 * `kind@callId` (Codex's hook says `Bash` where its rollout says `exec_command`, so the tool
 * name is left out; see docs/hook.md, event mapping).
 */
export function bothSides(dir: string, attempts: Attempt[]) {
  const live = new Map<string, ReturnType<typeof conditionView>>();
  for (const { input } of hookEvents(dir)) {
    const ev = toEvent(localInput(dir, input), rolloutExitCode);
    if (!ev?.callId || (ev.kind !== "tool_call" && ev.kind !== "tool_result")) continue;
    live.set(`${ev.kind}@${ev.callId}`, conditionView(ev));
  }
  const replay = new Map<string, ReturnType<typeof conditionView>>();
  for (const a of attempts)
    for (const e of a.events)
      if (e.callId && (e.kind === "tool_call" || e.kind === "tool_result"))
        replay.set(`${e.kind}@${e.callId}`, conditionView(e));
  return { live, replay };
}

/** Writes of each edit call, in order; `<work>` stands for the run's working folder. */
export function editWrites(attempts: Attempt[], work: string): string[][] {
  return attempts
    .flatMap((a) => a.events)
    .filter((e) => e.kind === "tool_call" && e.writes?.length)
    .map((e) =>
      (e.writes ?? []).map((w) => (w.startsWith(work) ? `<work>${w.slice(work.length)}` : w)),
    );
}

/** The working folder the client ran in (the hook stdin's cwd). */
export function workOf(dir: string): string {
  return hookEvents(dir)[0]?.input.cwd ?? "";
}

/**
 * The checks of one case on a folder of its recording (hook-events.jsonl, hook-log.jsonl,
 * sessions/): the recorded fixture, or a live run kept the same way. `dir` is read when the
 * tests run (a live run fills it in beforeAll).
 */
export function caseTests(c: RealClientCase, dirOf: () => string): void {
  it("live: the hook denied exactly the expected cleanup", () => {
    expect(liveDenied(dirOf())).toEqual(c.denied);
  });

  it("the built hook, fed the recorded stdin again, answers as it did live", () => {
    const dir = dirOf();
    const { outputs, log } = rerunHook(dir);
    expect(outputs).toEqual(hookEvents(dir).map((e) => e.output));
    expect(log.map((e) => e.error)).toEqual(log.map(() => undefined));
    const recorded = hookLog(join(dir, "hook-log.jsonl"));
    expect(log.map((e) => [e.agent, e.status, e.verdict.action])).toEqual(
      recorded.map((e) => [e.agent, e.status, e.verdict.action]),
    );
  });

  it("replay of the client's own session log gives the live decisions, per attempt", async () => {
    const dir = dirOf();
    const attempts = await importSessions(dir);
    const live = liveDecisions(dir);
    expect(attempts).toHaveLength(c.subagent ? 2 : 1);
    for (const a of attempts) expect(replayDecisions(a)).toEqual(live.get(agentOf(a)) ?? []);
    const denies = [...live.values()].flat().filter((d) => d.startsWith("tool:"));
    expect(denies).toHaveLength(c.denied.length);
  });

  it("each tool call and result means the same live and in replay (command, writes, status)", async () => {
    const dir = dirOf();
    const attempts = await importSessions(dir);
    const { live, replay } = bothSides(dir, attempts);
    expect(live.size).toBeGreaterThan(0);
    for (const [key, ev] of live) expect(replay.get(key), key).toEqual(ev);
    if (c.writes) expect(editWrites(attempts, workOf(dir))).toEqual(c.writes);
  });
}
