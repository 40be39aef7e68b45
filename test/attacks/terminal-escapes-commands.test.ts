import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serializeAttempt } from "../../src/core/ingest/fire-jsonl.js";
import type { AttemptInput } from "../../src/core/model/attempt.js";
import { fireIn } from "../helpers/cli.js";
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

async function fire(...args: string[]) {
  const r = await fireIn([...args, "--workspace", ws], { cwd: ws });
  expect(r.stdout, `${args.join(" ")}: stdout`).not.toMatch(RAW);
  expect(r.stderr, `${args.join(" ")}: stderr`).not.toMatch(RAW);
  return r;
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
  it("cluster rename (a hostile name), when the heuristic named a mechanism", async () => {
    if (!cluster) return;
    await ok("cluster", "rename", cluster, `name${HOSTILE}`);
    await ok("clusters");
  });
  it("draft", async () => {
    if (!cluster) return;
    await fire("draft", "--cluster", cluster);
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
});
