import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportFailproofai } from "../../src/core/export/failproofai.js";
import { freezePortfolio } from "../../src/core/freeze/freeze.js";
import type { HookLogEntry } from "../../src/core/hook-log.js";
import { listCandidates } from "../../src/core/lifecycle/store.js";
import { defaultConfig } from "../../src/core/workspace/config.js";
import { FAILPROOFAI_EVENTS } from "../../src/runtime/failproofai.js";
import { fixture, REPO_ROOT } from "../helpers/paths.js";
import {
  CASES,
  caseName,
  hookEvents,
  hookLog,
  localInput,
  RECORDED,
  REFERENCE,
  workOf,
} from "../real-clients/cases.js";
import { clientEvents, PORTFOLIO } from "./hook-helpers.js";

/**
 * The failproofai adapter (the bundled runHook behind failproofai's custom-policy API, as
 * `fire export --format failproofai` writes it) through the scenarios the native hook runs
 * through: every recorded real-client session (Claude Code and Codex, reference portfolio)
 * and the rm-deny / http-log recordings (test portfolio). failproofai delivers the events
 * the export registers for (the events `fire hook install` registers the native hook for);
 * each recorded stdin is handed to the policy as failproofai's context, and the adapter's own
 * log must say what the live hook's said. Run before the registration covered
 * PostToolUseFailure and SubagentStop, it found the adapter denying a cleanup the live hook
 * allowed: a failed probe it never saw.
 */

/** The documented custom-policy API of failproofai, enough for the export to load and run. */
const STUB = `export const registered = [];
export const customPolicies = { add(p) { registered.push(p); } };
export const allow = (message) => (message ? { decision: "allow", message } : { decision: "allow" });
export const deny = (message) => ({ decision: "deny", message });
export const instruct = (message) => ({ decision: "instruct", message });
`;

/** Feeds a file of hook stdin objects to the registered policies, as failproofai would. */
const RUN = `import { readFileSync } from "node:fs";
import { registered } from "failproofai";
await import(process.argv[2]);
const out = [];
for (const input of JSON.parse(readFileSync(process.argv[3], "utf8"))) {
  const ctx = { eventType: input.hook_event_name, toolName: input.tool_name, toolInput: input.tool_input, payload: input };
  for (const p of registered)
    if (p.match.events.includes(ctx.eventType)) out.push({ event: ctx.eventType, ...(await p.fn(ctx)) });
}
console.log(JSON.stringify(out));
`;

let root: string;
const exports = new Map<string, string>();

/** Freezes `files` as portfolio `name` and exports it for failproofai with the stub beside. */
async function exported(name: string, files: string[]): Promise<string> {
  const ws = join(root, name);
  mkdirSync(join(ws, "candidates"), { recursive: true });
  for (const f of files) cpSync(f, join(ws, "candidates", f.split("/").at(-1)!));
  const r = await freezePortfolio({
    workspace: ws,
    name,
    candidates: listCandidates(ws).candidates,
    attempts: [],
    config: defaultConfig(),
    force: { reason: "failproofai scenario test" },
    now: new Date("2026-12-01T00:00:00Z"),
  });
  if (!r.ok) throw new Error(`freeze ${name} failed`);
  const out = join(ws, "export");
  await exportFailproofai(r.dir, out);
  mkdirSync(join(out, "node_modules", "failproofai"), { recursive: true });
  writeFileSync(
    join(out, "node_modules", "failproofai", "package.json"),
    '{ "name": "failproofai", "type": "module", "main": "index.js" }\n',
  );
  writeFileSync(join(out, "node_modules", "failproofai", "index.js"), STUB);
  writeFileSync(join(out, "run.mjs"), RUN);
  return out;
}

/** Runs the recorded stdin objects through the exported adapter: its decisions and its log. */
function throughAdapter(
  portfolio: string,
  label: string,
  inputs: Record<string, unknown>[],
  clientEnv: Record<string, string> = {},
) {
  const out = exports.get(portfolio)!;
  const state = join(root, "state", label);
  const events = join(root, `${label}.events.json`);
  writeFileSync(events, JSON.stringify(inputs));
  const stdout = execFileSync(
    process.execPath,
    [join(out, "run.mjs"), join(out, `fire-${portfolio}.policies.mjs`), events],
    {
      cwd: out,
      env: { ...hostEnv, ...clientEnv, FIRE_FAILPROOFAI_STATE: state },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const logFile = join(state, "fire-hook-log.jsonl");
  return {
    decisions: JSON.parse(stdout) as { event: string; decision: string; message?: string }[],
    log: existsSync(logFile) ? hookLog(logFile) : [],
  };
}

/** This process's environment without what a client sets for its hooks. */
const hostEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k !== "CLAUDE_PROJECT_DIR" && k !== "CODEX_HOME"),
);

const delivered = (e: { hook_event_name?: unknown }) =>
  FAILPROOFAI_EVENTS.includes(String(e.hook_event_name));

/** What a log line says fire decided and tracked (times, durations and steps aside). */
const said = (e: HookLogEntry) => ({
  event: e.event,
  agent: e.agent ?? null,
  harness: e.harness,
  verdict: [e.verdict.action, e.verdict.message ?? null],
  firings: e.firings.map((f) => `${f.point}:${f.ruleId}:${f.action}`),
  tracked: e.tracked,
  error: e.error ?? null,
});

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fire-fp-scenarios-"));
  const reference = ["binary-equivalence", "database-evidence", "dataset-token-accounting"]
    .concat(["deployment-preservation", "exact-replacement", "latex-final-log"])
    .concat(["multi-answer-enumeration", "service-persistence"])
    .map((n) => join(REFERENCE, `${n}.yaml`));
  exports.set("ref", await exported("ref", reference));
  exports.set("rmg", await exported("rmg", [join(PORTFOLIO, "rm-guard.json")]));
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.each(CASES.map((c) => [caseName(c), c.client] as const))(
  "the failproofai adapter on recorded real client %s (reference portfolio)",
  (name, client) => {
    it("decides and tracks every delivered event as the live hook did", () => {
      const dir = join(RECORDED, name);
      const recorded = hookEvents(dir);
      const inputs = recorded.map(({ input }) => localInput(dir, input) as Record<string, unknown>);
      // Claude Code runs its hooks (failproofai among them) with CLAUDE_PROJECT_DIR set
      const env: Record<string, string> =
        client === "claude" ? { CLAUDE_PROJECT_DIR: workOf(dir) } : {};
      const { decisions, log } = throughAdapter("ref", name, inputs.filter(delivered), env);
      const live = hookLog(join(dir, "hook-log.jsonl")).filter((e) =>
        delivered({ hook_event_name: e.event }),
      );
      expect(log.map(said)).toEqual(live.map(said));
      // failproofai's answer is the log's verdict
      expect(decisions.map((d) => [d.event, d.decision, d.message ?? null])).toEqual(
        live.map((e) => [e.event, e.verdict.action, e.verdict.message ?? null]),
      );
    });
  },
);

describe.each([
  ["claude-rm-deny", "claude"],
  ["codex-rm-deny", "codex"],
])("the failproofai adapter on %s (test portfolio)", (client, harness) => {
  it("denies the rm -rf and instructs at the first Stop, as the native hook does", () => {
    const { decisions, log } = throughAdapter(
      "rmg",
      client,
      clientEvents(client).filter(delivered),
    );
    // the native hook's answers on these events (hook-protocol.test.ts), SessionStart/End aside
    expect(log.map((l) => l.verdict.action)).toEqual([
      "allow",
      "allow",
      "allow",
      "deny",
      "instruct",
      "allow",
      "allow",
      "allow",
    ]);
    expect(new Set(log.map((l) => l.harness))).toEqual(new Set([harness]));
    expect(log[3]?.command).toBe("rm -rf build");
    expect(log[3]?.firings.map((f) => f.ruleId)).toEqual(["no-rm-rf"]);
    expect(log[4]?.firings.map((f) => f.ruleId)).toEqual(["list-before-stop"]);
    expect(log.map((l) => l.eventIndex)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(decisions.map((d) => d.decision)).toEqual(log.map((l) => l.verdict.action));
    expect(decisions[3]?.message).toMatch(/^deny-hook: destructive command "rm -rf"/);
  });
});

describe.each(["claude-http-log", "codex-http-log"])(
  "the failproofai adapter on %s (task not eligible)",
  (client) => {
    it("says nothing but still tracks and logs every delivered event", () => {
      const events = clientEvents(client).filter(delivered);
      const { decisions, log } = throughAdapter("rmg", client, events);
      expect(decisions.map((d) => d.decision)).toEqual(events.map(() => "allow"));
      expect(log).toHaveLength(events.length);
      expect(log.flatMap((l) => l.firings)).toEqual([]);
      expect(log.filter((l) => l.tracked.length > 0)).toHaveLength(3);
    });
  },
);

describe("the scenario suite", () => {
  it("reads real recordings: every case folder and client recording is there", () => {
    for (const c of CASES)
      expect(existsSync(join(RECORDED, caseName(c), "hook-log.jsonl"))).toBe(true);
    for (const c of ["claude-rm-deny", "codex-rm-deny", "claude-http-log", "codex-http-log"])
      expect(
        readFileSync(fixture("real-clients", c, "hook-events.jsonl"), "utf8").length,
      ).toBeGreaterThan(0);
    expect(REPO_ROOT).toBeTruthy();
  });
});
