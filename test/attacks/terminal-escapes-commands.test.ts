import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/run.js";
import { serializeAttempt } from "../../src/core/ingest/fire-jsonl.js";
import type { AttemptInput } from "../../src/core/model/attempt.js";
import { fireIn, runFire } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";

/**
 * Every command, on a workspace whose task ids and texts, commands and outputs carry terminal
 * escapes, prints no control, escape or bidi character (acceptance of "one writer"). One test
 * per command, in the order a user would run them, so each sees what the earlier ones made.
 */

/** Clear screen, window title (OSC 0), clipboard write (OSC 52), a bidi override, CSI (C1). */
const HOSTILE = "\u001b[2J\u001b]0;pwned\u0007\u001b]52;c;ZXZpbA==\u0007\u202eevil\u009b31m";
/** A raw control character other than tab and newline, a C1 control or a bidi control. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const TASK = `deploy${HOSTILE}`;
const TEXT = `The site is deployed and must stay reachable after the hook runs. ${HOSTILE}`;

function attempt(id: string, taskId: string, outcome: "pass" | "fail", arm = "baseline"): string {
  const a: AttemptInput = {
    id,
    source: { format: "atif", path: "elsewhere/trajectory.json" },
    taskId,
    taskText: TEXT,
    arm,
    outcome,
    reward: outcome === "pass" ? 1 : 0,
    events: [
      { index: 0, kind: "prompt", role: "user", input: `Fix it ${HOSTILE}` },
      {
        index: 1,
        kind: "tool_call",
        tool: "Bash",
        command: `rm -rf /srv/${HOSTILE}`,
        callId: "c1",
      },
      { index: 2, kind: "tool_result", callId: "c1", output: `error ${HOSTILE}`, isError: true },
      { index: 3, kind: "stop" },
    ],
  };
  return `${serializeAttempt(a)}\n`;
}

const ws = mkdtempSync(join(tmpdir(), "fire-escapes-all-"));
const outside = mkdtempSync(join(tmpdir(), "fire-escapes-in-"));
afterAll(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});
mkdirSync(join(ws, "traces"));
cpSync(join(REPO_ROOT, "candidates"), join(ws, "candidates"), { recursive: true });
writeFileSync(
  join(ws, "traces", "esc.jsonl"),
  [
    attempt(`esc-1${HOSTILE}`, TASK, "fail"),
    attempt("esc-2", TASK, "fail"),
    attempt("esc-3", TASK, "pass"),
    attempt("esc-4", `other${HOSTILE}`, "fail"),
    attempt("esc-5", `other${HOSTILE}`, "fail"),
  ].join(""),
);
writeFileSync(join(outside, "more.jsonl"), attempt("esc-6", `third${HOSTILE}`, "fail"));
writeFileSync(join(outside, "tasks.txt"), `${TASK},eligible\nother${HOSTILE},eligible\n`);
writeFileSync(
  join(outside, "results.jsonl"),
  [
    { task: TASK, arm: "baseline", attempt: 1, pass: false, cohort: "eligible" },
    { task: TASK, arm: "policy", attempt: 1, pass: true, cohort: "eligible" },
    { task: `other${HOSTILE}`, arm: "baseline", attempt: 1, pass: false, cohort: "eligible" },
    { task: `other${HOSTILE}`, arm: "policy", attempt: 1, pass: false, cohort: "eligible" },
  ]
    .map((r) => JSON.stringify(r))
    .join("\n"),
);

const CANDIDATE = "ref-deployment-preservation";
let cluster: string | undefined;

/** The program's commands, to tell which one a command line ran. */
const program = await buildProgram();
/** Every command (`screen plan`, `hook report`, …) a test below ran. */
const ran = new Set<string>();

/** The command a command line names: its words while they name a subcommand. */
function commandOf(args: readonly string[]): string {
  const path: string[] = [];
  let at: Command = program;
  for (const word of args) {
    const sub = at.commands.find((c) => c.name() === word);
    if (!sub) break;
    path.push(word);
    at = sub;
  }
  return path.join(" ");
}

function clean(args: readonly string[], r: { stdout: string; stderr: string }) {
  ran.add(commandOf(args));
  expect(r.stdout, `${args.join(" ")}: stdout`).not.toMatch(RAW);
  expect(r.stderr, `${args.join(" ")}: stderr`).not.toMatch(RAW);
  return r;
}

async function fire(...args: string[]) {
  return clean(args, await fireIn([...args, "--workspace", ws], { cwd: ws }));
}

/** Hook commands, in a home of their own (they write the client's settings). */
const home = mkdtempSync(join(tmpdir(), "fire-escapes-home-"));
const HOOK_ENV = { HOME: home, CODEX_HOME: join(home, "codex-home"), CLAUDE_CONFIG_DIR: "" };
async function hook(...args: string[]) {
  return clean(args, await fireIn(args, { cwd: ws, env: HOOK_ENV }));
}

/** A command that succeeds on this workspace and prints something. */
async function ok(...args: string[]) {
  const r = await fire(...args);
  expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(0);
  expect(r.stdout + r.stderr, args.join(" ")).not.toBe("");
  return r;
}

describe("no control characters from hostile task ids and texts, per command", () => {
  it("import", async () => {
    await ok("import", join(outside, "more.jsonl"));
  });
  it("the workspace summary", async () => {
    const r = await ok();
    expect(r.stdout).toContain("attempts");
  });
  it("attempts", async () => {
    const r = await ok("attempts");
    expect(r.stdout).toContain("␛");
  });
  it("show", async () => {
    const r = await ok("show", "esc-2");
    expect(r.stdout).toContain("rm -rf /srv/␛[2J");
  });
  it("triage", async () => {
    await ok("triage");
  });
  it("mine", async () => {
    await ok("mine");
  });
  it("clusters", async () => {
    await ok("clusters");
    const json = await fire("clusters", "--json");
    cluster = (JSON.parse(json.stdout) as { clusters: { id: string }[] }).clusters[0]?.id;
  });
  it("cluster exclude (an attempt, a hostile reason typed by the user)", async () => {
    await ok("cluster", "exclude", "esc-2", "--reason", `why${HOSTILE}`);
    await ok("triage");
  });
  // The heuristic names no mechanism on these traces (no cluster is made), so rename, merge,
  // split and draft name a cluster the user typed: its hostile id comes back in the error.
  const typed = `c${HOSTILE}`;
  it("cluster rename (a hostile name)", async () => {
    const r = await fire("cluster", "rename", cluster ?? typed, `name${HOSTILE}`);
    if (!cluster) expect(r.stderr).toContain("c␛[2J");
    await ok("clusters");
  });
  it("draft", async () => {
    const r = await fire("draft", "--cluster", cluster ?? typed);
    if (!cluster) expect(r.stderr).toContain("c␛[2J");
  });
  it("route", async () => {
    const r = await ok("route");
    expect(r.stdout).toContain("deploy␛[2J");
  });
  it("replay", async () => {
    await ok("replay", "-p", join(ws, "candidates", "reference"));
  });
  it("screen replay", async () => {
    await fire("screen", "replay", CANDIDATE);
  });
  it("screen plan", async () => {
    await ok(
      "screen",
      "plan",
      "--candidate",
      join(ws, "candidates", "reference", "deployment-preservation.yaml"),
      "--tasks",
      join(outside, "tasks.txt"),
      "--arms",
      "baseline,policy",
      "--attempts",
      "1",
      "--name",
      "s",
    );
  });
  it("screen import", async () => {
    await ok("screen", "import", "s", join(outside, "results.jsonl"));
  });
  it("screen status", async () => {
    await ok("screen", "status", "s");
  });
  it("report (text and markdown)", async () => {
    await ok("report", "s");
    await ok("report", "s", "--md");
  });
  it("candidate verdict / promote / retire (a hostile note)", async () => {
    await fire("candidate", "verdict", CANDIDATE);
    await fire("candidate", "promote", CANDIDATE, "--note", `note${HOSTILE}`);
    await fire("candidate", "retire", "ref-exact-replacement", "--reason", `why${HOSTILE}`);
  });
  it("freeze", async () => {
    await fire("freeze", CANDIDATE, "--name", "p1", "--force", "--reason", `r${HOSTILE}`);
  });
  it("export (to a file: stdout carries data byte for byte)", async () => {
    await ok("export", "attempts", "--out", join(outside, "attempts.jsonl"));
    await fire("export", "labels", "--out", join(outside, "labels.csv"), "--format", "csv");
    await fire("export", "verdicts", "--out", join(outside, "verdicts.jsonl"));
  });
  it("--json of the read commands: C1 and bidi controls escaped, the same values", async () => {
    for (const args of [["attempts"], ["triage"], ["route"], ["clusters"], ["show", "esc-2"]]) {
      const r = await ok(...args, "--json");
      expect(JSON.stringify(JSON.parse(r.stdout)), args[0]).toContain("\u009b31m");
    }
  });
  it("hook doctor", async () => {
    await fire("hook", "doctor");
  });
  it("cluster merge / split (hostile names)", async () => {
    const other = `d${HOSTILE}`;
    await fire("cluster", "merge", cluster ?? typed, other, "--name", `m${HOSTILE}`);
    await fire("cluster", "split", cluster ?? typed, "esc-4", "--name", `s${HOSTILE}`);
  });
  it("cluster undo (the newest decision: the exclude with a hostile reason)", async () => {
    const r = await fire("cluster", "undo");
    expect(r.stdout).toContain("why␛[2J");
  });
  it("candidate revise (a hostile note) / refine", async () => {
    await fire("candidate", "revise", CANDIDATE, "--note", `note${HOSTILE}`);
    await fire("candidate", "refine", CANDIDATE, "--budget", "1");
  });
  it("screen run (local: hostile task ids in its progress and summary)", async () => {
    const plan = [
      "screen",
      "plan",
      "--candidate",
      join(ws, "candidates", "reference", "deployment-preservation.yaml"),
    ];
    await ok(
      ...plan,
      "--tasks",
      join(outside, "tasks.txt"),
      "--arms",
      "baseline,policy",
      "--attempts",
      "1",
      "--name",
      "r",
    );
    // the local runner installs the built hook into each working copy: the built CLI runs it
    const args = ["screen", "run", "r", "--runner", "local", "--command", "true"];
    const r = clean(args, runFire([...args, "--workspace", ws], { cwd: ws }));
    expect([r.status, r.stderr]).toEqual([0, expect.any(String)]);
  });
  it("hook install / observe / enforce / uninstall (a hostile project folder)", async () => {
    const project = join(outside, `project${HOSTILE}`);
    mkdirSync(project);
    const scope = ["--harness", "claude", "--project", project];
    const portfolio = join(ws, "portfolios", "p1");
    const r = await hook("hook", "install", ...scope, "--portfolio", portfolio, "--workspace", ws);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("project␛[2J");
    await hook("hook", "observe", ...scope);
    await hook("hook", "enforce", ...scope);
    await hook("hook", "doctor", ...scope);
    await hook("hook", "uninstall", ...scope);
  });
  it("hook report (a log with hostile ids, messages and a bad line)", async () => {
    const entry = {
      ts: "2026-12-01T00:00:00.000Z",
      session: `s${HOSTILE}`,
      harness: "claude",
      event: `PreToolUse${HOSTILE}`,
      eventIndex: 1,
      tool: "Bash",
      command: `rm -rf ${HOSTILE}`,
      firings: [
        {
          policyId: `p${HOSTILE}`,
          policyVersion: 1,
          ruleId: `r${HOSTILE}`,
          point: "tool",
          eventIndex: 1,
          action: "deny",
          message: `no ${HOSTILE}`,
        },
      ],
      verdict: { action: "deny", message: `no ${HOSTILE}` },
      tracked: [`t${HOSTILE}`],
      error: `fault ${HOSTILE}`,
    };
    const log = join(outside, "hook-log.jsonl");
    writeFileSync(
      log,
      `${JSON.stringify(entry)}\n{"bad": "${HOSTILE.replaceAll("\u001b", "\\u001b")}"}\n`,
    );
    const r = await fire("hook", "report", log);
    expect(r.stdout).toContain("r␛[2J");
    await fire("hook", "report", log, "--csv");
  });
  it("every command of the program ran above (the live hook answers its client in JSON)", () => {
    const leaves = (c: Command, path: string[]): string[] => {
      const subs = c.commands.filter((s) => s.name() !== "help");
      return subs.length ? subs.flatMap((s) => leaves(s, [...path, s.name()])) : [path.join(" ")];
    };
    const all = leaves(program, []).filter((c) => c !== "");
    expect(all.length).toBeGreaterThan(20);
    expect(all.filter((c) => !ran.has(c))).toEqual([]);
  });
});
