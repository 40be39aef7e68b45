import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serializeAttempt } from "../../src/core/ingest/fire-jsonl.js";
import { redact } from "../../src/core/redact.js";
import { loadWorkspace } from "../../src/core/workspace/load.js";
import { preToolUse, promptEvent, rmWorkspace, runHookChild } from "./helpers.js";

/**
 * Issue 27 point 9: secrets at rest. The session state kept the task text with every secret
 * in it, a session id holding a token became a file name, the parse cache held raw trace
 * text — and redaction rewrote ordinary error text ("Invalid input").
 */
const alnum = (n: number) => "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z".repeat(4).slice(0, n);
const SECRETS = [
  `sk-proj-${alnum(48)}`,
  `ghp_${alnum(36)}`,
  `AKIA${"IOSFODNN7EXAMPLE"}`,
  "S3cretDb!",
  `glpat-${alnum(20)}`,
];
const TASK = [
  "deploy the service, keep the build directory.",
  `Use OPENAI_API_KEY=${SECRETS[0]} and the token ${SECRETS[1]}.`,
  `aws_access_key_id = ${SECRETS[2]}; mysql -u root -p${SECRETS[3]} prod; ${SECRETS[4]}`,
].join("\n");

/** Every file under `dir` as (name, content) pairs. */
function filesUnder(dir: string): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  for (const n of readdirSync(dir)) {
    const f = join(dir, n);
    if (statSync(f).isDirectory()) out.push(...filesUnder(f));
    else out.push({ name: f, text: readFileSync(f, "latin1") });
  }
  return out;
}

describe("attack 9: secrets at rest", () => {
  it("the session state keeps the task redacted (and eligibility still holds)", async () => {
    const { ws, args } = rmWorkspace("fire-attack-9s-");
    await runHookChild(args, JSON.stringify(promptEvent("s9", TASK)), { cwd: ws });
    const r = await runHookChild(args, JSON.stringify(preToolUse("s9", "rm -rf build")), {
      cwd: ws,
    });
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    const files = filesUnder(join(ws, ".fire"));
    expect(files.some((f) => f.text.includes("keep the build directory"))).toBe(true);
    for (const s of SECRETS) for (const f of files) expect(f.text, f.name).not.toContain(s);
  }, 30_000);

  it("a session id holding a token never becomes a file name", async () => {
    const { ws, args } = rmWorkspace("fire-attack-9i-");
    const session = SECRETS[1] as string;
    await runHookChild(args, JSON.stringify(promptEvent(session)), { cwd: ws });
    await runHookChild(args, JSON.stringify(preToolUse(session, "ls")), { cwd: ws });
    const names = filesUnder(join(ws, ".fire")).map((f) => f.name);
    expect(names.some((n) => /redacted~[0-9a-f]{16}\.json$/.test(n))).toBe(true);
    for (const n of names) expect(n).not.toContain(session.slice(4, 20));
    const state = filesUnder(join(ws, ".fire")).find((f) => /redacted~/.test(f.name));
    expect(JSON.parse(state?.text ?? "{}").step).toBe(2); // the same state, both events
  }, 30_000);

  it("the parse cache keeps no raw secret, and loaded attempts are the redacted ones", async () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-attack-9c-"));
    mkdirSync(join(ws, "traces"));
    const attempt = {
      id: "t1#1",
      source: { format: "fire-jsonl", path: join(ws, "traces/a.jsonl") },
      taskId: "t1",
      taskText: TASK,
      outcome: "fail",
      reward: 0,
      events: [
        { index: 0, kind: "tool_call", tool: "Bash", command: `export GH=${SECRETS[1]}` },
        { index: 1, kind: "tool_result", tool: "Bash", output: `key ${SECRETS[0]} accepted` },
      ],
    };
    writeFileSync(join(ws, "traces/a.jsonl"), `${serializeAttempt(attempt as never)}\n`);
    const w = await loadWorkspace(ws);
    expect(w.errors).toEqual([]);
    expect(w.attempts[0]?.events[0]?.command).toMatch(/\[REDACTED:/);
    const again = await loadWorkspace(ws);
    expect(again.stats.cached).toBe(1);
    expect(again.attempts).toEqual(w.attempts);
    const files = filesUnder(join(ws, ".fire"));
    expect(files.length).toBeGreaterThan(0);
    for (const s of SECRETS) for (const f of files) expect(f.text, f.name).not.toContain(s);
  });

  it("redaction leaves ordinary error text alone", () => {
    for (const t of [
      "token: Invalid input",
      "tool_input.password: Invalid input: expected string, received undefined",
      "api_key: Required field missing.",
    ])
      expect(redact(t)).toBe(t);
    expect(redact("token: abc123xyz")).toBe("token: [REDACTED:assigned-secret]");
    expect(redact("password: hunter\n")).toBe("password: [REDACTED:assigned-secret]\n");
    expect(redact("Authorization: Digest username62ab9f")).toContain("[REDACTED");
  });
});
