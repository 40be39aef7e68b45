import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPolicies } from "../../src/core/policy/load.js";
import { linearRegExp, linearSource } from "../../src/core/policy/regex.js";
import { runFire } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { logEntries } from "../runtime/hook-helpers.js";

/**
 * Issue 16 item 1: patterns that backtrack for seconds to hours on a backtracking engine.
 * Each shape with an attack text that takes a plain RegExp seconds (exponential) or minutes
 * (polynomial at this length). Time bounds are CEILINGS for a hang, not speed targets.
 */
const SHAPES: [string, string, string][] = [
  ["(a|a)*$", "", `${"a".repeat(50_000)}!`],
  ["^(a|b|ab)*c$", "", "ab".repeat(30_000)],
  ["\\d*\\d*\\d*\\d*\\d*\\d*x", "", "1".repeat(50_000)],
  ["(\\w|\\d)+$", "", `${"1".repeat(50_000)}!`],
  ["(a|aa)+$", "", `${"a".repeat(50_000)}!`],
  // our own: nested, counted, case-insensitive, polynomial over whitespace
  ["(a+)+b", "", "a".repeat(50_000)],
  ["(.*a){12}", "", "a".repeat(5_000)],
  ["^(\\s*,?)*$", "", `${" ,".repeat(30_000)}x`],
  ["(x+x+)+y", "i", "X".repeat(50_000)],
  ["\\brm\\b.*\\s.*\\s.*\\s.*-rf", "", `rm ${" ".repeat(30_000)}`],
  ["keep .{0,40}(a|aa)+running", "i", `keep ${"a".repeat(50_000)}`],
];

const ENGINE = resolve(REPO_ROOT, "dist/core/policy/regex.js");

/** A candidate denying a Bash command that matches `pattern`. */
function denyCandidate(id: string, pattern: string, flags = "") {
  return {
    id,
    version: 1,
    family: "attack",
    title: id,
    chain: { state: "s", intervention: "i", behavior: "b", verifier: "v" },
    eligibility: { allOf: [], anyOf: [], noneOf: [] },
    rules: [
      {
        id: "deny",
        at: "tool",
        when: { command: flags ? { pattern, flags } : pattern },
        action: "deny",
        message: `denied by ${id}`,
      },
    ],
    behavior: {},
  };
}

describe("attack 1: catastrophic patterns run in linear time", () => {
  it.each(SHAPES)(
    "/%s/%s is admitted and answers its attack text within a ceiling",
    (source, flags, text) => {
      // in a child process with a kill ceiling: a backtracking engine would hang it
      const script = `import(${JSON.stringify(ENGINE)}).then((m) => {
      const re = m.linearRegExp(${JSON.stringify(source)}, ${JSON.stringify(flags)});
      const t = ${JSON.stringify(text)};
      process.stdout.write(JSON.stringify([re.test(t), re.test(t + t)]));
    });`;
      const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(r.signal).toBeNull();
      expect(r.status).toBe(0);
      const [one, two] = JSON.parse(r.stdout) as boolean[];
      expect(typeof one).toBe("boolean");
      expect(two).toBe(one);
    },
    90_000,
  );

  it("answers as JavaScript does on ordinary text (case expansion and long repeats)", () => {
    const cases: [string, string, string][] = [
      ["git\\s+push\\b", "i", "then GIT  Push origin"],
      ["keep .{0,20}running", "i", "Please KEEP the server RUNNING"],
      ["[a-c]x", "i", "zzBX"],
      ["a.{3,40}?b", "", "a1234bxxb"],
      ["x{20,}", "", `y${"x".repeat(25)}`],
      ["[^a-z]+", "i", "abcD123"],
      ["straße", "i", "STRAßE"],
    ];
    for (const [s, f, t] of cases) {
      expect(linearRegExp(s, f).exec(t)?.[0], `/${s}/${f}`).toBe(new RegExp(s, f).exec(t)?.[0]);
    }
    expect(linearSource("git", "i")).toEqual({ source: "[gG][iI][tT]", flags: "" });
  });

  it("refuses what cannot run in linear time and JS-foreign syntax, saying why", () => {
    expect(() => linearSource("rm(?=\\s)")).toThrow(/cannot run in linear time/);
    expect(() => linearSource("(\\w+)\\1")).toThrow(/cannot run in linear time/);
    expect(() => linearSource("(?<=x)y")).toThrow(/cannot run in linear time/);
    expect(() => linearSource("(?:ab){0,40}")).toThrow(/cannot run in linear time/);
    expect(() => linearSource("\\Aab\\Z")).toThrow(/\\A is the plain letter A in JavaScript/);
    expect(() => linearSource("^[[:digit:]]+$")).toThrow(/POSIX classes/);
    expect(() => linearSource("ab", "iu")).toThrow(/flags i and u together/);
    expect(() => linearSource("keep (running")).toThrow(/does not compile/);
  });

  it("a refused pattern is an error at load with file, line and pattern; its neighbour loads", () => {
    const dir = mkdtempSync(join(tmpdir(), "fire-attack-1-"));
    writeFileSync(join(dir, "ok.json"), JSON.stringify(denyCandidate("ok", "(a|a)*$")));
    writeFileSync(
      join(dir, "bad.json"),
      JSON.stringify(denyCandidate("bad", "rm(?=\\s)"), null, 2),
    );
    const r = loadPolicies([dir]);
    expect(r.policies.map((p) => p.id)).toEqual(["ok"]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]?.format()).toMatch(
      /bad\.json:\d+: rules\.0\.when\.command: pattern \/rm\(\?=\\s\)\/ cannot run in linear time/,
    );
    expect(r.errors[0]?.line).toBeGreaterThan(1);
  });

  it("the hook runs every shape over a 1 MB command and still denies the rm -rf in its middle", () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-attack-1h-"));
    const dir = join(ws, "cands");
    mkdirSync(dir);
    SHAPES.forEach(([source, flags], i) => {
      writeFileSync(
        join(dir, `s${i}.json`),
        JSON.stringify(denyCandidate(`shape${i}`, source, flags)),
      );
    });
    writeFileSync(join(dir, "rm.json"), JSON.stringify(denyCandidate("rm", "\\brm\\s+-rf\\b")));
    const command = `${"a".repeat(500_000)} ; rm -rf / ; ${"1".repeat(500_000)}!`;
    const event = {
      session_id: "big",
      transcript_path: join(ws, "t.jsonl"),
      cwd: ws,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command },
      tool_use_id: "toolu_1",
    };
    const args = ["hook", "--portfolio", dir, "--workspace", ws];
    const prompt = { ...event, hook_event_name: "UserPromptSubmit", prompt: "Clean up." };
    delete (prompt as Partial<typeof event>).tool_input;
    runFire(args, { input: JSON.stringify(prompt), cwd: ws, env: { FIRE_STATE_DIR: "" } });
    const r = runFire(args, {
      input: JSON.stringify(event),
      cwd: ws,
      // this test is about linear time, not the per-event budget (tested below)
      env: { FIRE_STATE_DIR: "", FIRE_HOOK_BUDGET_MS: "600000" },
    });
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    expect(out.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(out.hookSpecificOutput.permissionDecisionReason).toContain("denied by rm");
    expect(logEntries(ws).at(-1)?.error).toBeUndefined();
  }, 150_000);
});

describe("attack 1: the per-event pattern budget", () => {
  it("past the budget the hook fails open, logs it, writes no state and leaves no lock", () => {
    const ws = mkdtempSync(join(tmpdir(), "fire-attack-1b-"));
    const dir = join(ws, "cands");
    mkdirSync(dir);
    writeFileSync(join(dir, "rm.json"), JSON.stringify(denyCandidate("rm", "\\brm\\s+-rf\\b")));
    const base = { session_id: "budget", transcript_path: join(ws, "t.jsonl"), cwd: ws };
    const args = ["hook", "--portfolio", dir, "--workspace", ws];
    const run = (input: unknown, env: Record<string, string> = {}, extra: string[] = []) =>
      runFire([...args, ...extra], {
        input: JSON.stringify(input),
        cwd: ws,
        env: { FIRE_STATE_DIR: "", ...env },
      });
    run({ ...base, hook_event_name: "UserPromptSubmit", prompt: "Clean up." });
    const stateFile = join(ws, ".fire/state/budget.json");
    const before = readFileSync(stateFile, "utf8");
    const call = {
      ...base,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "rm -rf /" },
      tool_use_id: "t1",
    };
    const env = { FIRE_HOOK_BUDGET_MS: "0.000001" };
    const open = run(call, env);
    expect(open.status).toBe(0);
    expect(open.stdout).toBe(""); // fails open
    expect(logEntries(ws).at(-1)?.error).toMatch(/exceeded its .* ms budget: the event fails open/);
    const closed = run(call, env, ["--fail-closed"]);
    expect(JSON.parse(closed.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    expect(readdirSync(join(ws, ".fire/state")).filter((f) => f.endsWith(".lock"))).toEqual([]);
    expect(readFileSync(stateFile, "utf8")).toBe(before);
    // without the tiny budget the same call is denied by the policy itself
    expect(JSON.parse(run(call).stdout).hookSpecificOutput.permissionDecisionReason).toContain(
      "denied by rm",
    );
  }, 60_000);
});
