import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hookReport } from "../../../src/core/hook-report/report.js";
import { loadPolicies } from "../../../src/core/policy/load.js";
import { fireIn } from "../../helpers/cli.js";
import { RECORDED, REFERENCE } from "../../real-clients/cases.js";
import { PORTFOLIO, tempWorkspace } from "../../runtime/hook-helpers.js";

/** A log line in the hook log's real format (what run-hook.ts appends). */
function line(over: Record<string, unknown>): string {
  return JSON.stringify({
    ts: "2026-12-01T00:00:00.000Z",
    session: "s1",
    harness: "claude",
    event: "PreToolUse",
    eventIndex: 1,
    firings: [],
    verdict: { action: "allow" },
    tracked: [],
    output: null,
    policies: ["p@1"],
    eligible: ["p@1"],
    ms: 10,
    ...over,
  });
}

const firing = (over: Record<string, unknown> = {}) => ({
  policyId: "p",
  policyVersion: 1,
  ruleId: "r",
  point: "tool",
  eventIndex: 1,
  action: "instruct",
  message: "m",
  ...over,
});

describe("hook report", () => {
  it("reads the real clients' recorded hook logs (Claude Code and Codex)", () => {
    const r = hookReport([RECORDED], { policies: loadPolicies([REFERENCE]).policies });
    expect(r.errors).toEqual([]);
    expect(r.files.length).toBeGreaterThanOrEqual(7);
    expect(r.sessions).toBeGreaterThanOrEqual(8); // a Claude sub-agent is its own session
    const deny = r.rules.find((x) => x.enforced.denies > 0);
    expect(deny?.policy).toBe("ref-deployment-preservation@1");
    expect(deny?.enforced.denies).toBe(2); // the good probe's `rm -rf site`, in both clients
    // logs recorded before eligibility was logged: unknown, not zero
    expect(deny?.eligibleSessions).toBeNull();
    // every rule of the portfolio is listed, the ones that never fired too
    const ruleCount = loadPolicies([REFERENCE]).policies.flatMap((p) =>
      Object.values(p.rules).flat(),
    ).length;
    const refRules = r.rules.filter((x) => x.policyId.startsWith("ref-"));
    expect(refRules.length).toBe(ruleCount);
    expect(r.latency.n).toBe(r.lines);
    expect(r.latency.p50).toBeLessThanOrEqual(r.latency.p95!);
  });

  it("follows each firing to followed, ignored or no sign; flags noisy and dormant rules", () => {
    const dir = tempWorkspace();
    const lines = [
      line({ firings: [firing()] }),
      line({ eventIndex: 2, ignored: ["p@1/r"], firings: [firing({ eventIndex: 2 })] }),
      line({ eventIndex: 3, followed: ["p@1/r"] }),
      line({ session: "s2", firings: [firing()] }),
      line({
        session: "s2",
        eventIndex: 2,
        ignored: ["p@1/r"],
        firings: [firing({ eventIndex: 2, action: "deny", escalated: "deny" })],
      }),
      line({ session: "s3", firings: [firing()], eligible: [] }),
      line({ session: "s4", eventIndex: 1 }),
    ];
    writeFileSync(join(dir, "hook-log.jsonl"), `${lines.join("\n")}\n`);
    const r = hookReport([dir], {
      thresholds: { noisyMinFirings: 5, noisyPerSession: 1.5, dormantSessions: 2 },
    });
    const row = r.rules.find((x) => x.rule === "r")!;
    expect(row).toMatchObject({
      eligibleSessions: 3,
      firedSessions: 3,
      followed: 2,
      ignored: 1, // s2's first firing: its condition recurred before any sign
      noSign: 2, // s2's escalated deny and s3's firing: the sessions ended
      ignoredOccasions: 2,
      outsideEligibility: 1,
      enforced: { firings: 5, denies: 1, escalations: 1 },
    });
    expect(row.funnel).toEqual([
      { stage: "eligible", sessions: 3 },
      { stage: "fired", sessions: 3 },
      { stage: "followed", sessions: 1 },
      { stage: "passed", sessions: null }, // no verifier beside a project's log
    ]);
    expect(row.fired.map((l) => [l.session, l.firings, l.line, l.outcome])).toEqual([
      ["s1", 2, 1, "unknown"],
      ["s2", 2, 4, "unknown"],
      ["s3", 1, 6, "unknown"],
    ]);
    expect(row.flags).toEqual(["noisy"]);
    expect(row.latency).toEqual({ n: 7, p50: 10, p95: 10, p99: 10 });
  });

  it("links each fired session to its Harbor trial's verifier outcome", () => {
    const dir = tempWorkspace();
    // three trials in Harbor's layout: result.json beside agent/fire-hook-log.jsonl
    const trial = (name: string, result: Record<string, unknown> | undefined, log: string[]) => {
      mkdirSync(join(dir, name, "agent"), { recursive: true });
      if (result)
        writeFileSync(
          join(dir, name, "result.json"),
          JSON.stringify({ task_name: "t", trial_name: name, ...result }),
        );
      writeFileSync(join(dir, name, "agent", "fire-hook-log.jsonl"), `${log.join("\n")}\n`);
    };
    trial("a", { verifier_result: { rewards: { reward: 1 } } }, [
      line({ session: "a" }),
      line({ session: "a", eventIndex: 2, firings: [firing({ eventIndex: 2 })] }),
    ]);
    trial("b", { verifier_result: { rewards: { reward: 0 } } }, [
      line({ session: "b", firings: [firing()] }),
    ]);
    trial("c", { exception_info: { exception_type: "AgentTimeoutError" } }, [
      line({ session: "c", firings: [firing()] }),
    ]);
    trial("d", undefined, [line({ session: "d", firings: [firing()] })]);
    const r = hookReport([dir]);
    const row = r.rules.find((x) => x.rule === "r")!;
    expect(row.fired.map((l) => [l.session, l.line, l.outcome])).toEqual([
      ["a", 2, "pass"],
      ["b", 1, "fail"],
      ["c", 1, "timeout"],
      ["d", 1, "unknown"],
    ]);
    expect(row.fired[0]!.file).toBe(join(dir, "a", "agent", "fire-hook-log.jsonl"));
    expect(row.outcomes).toEqual({ pass: 1, fail: 1, other: 1, unknown: 1 });
    expect(row.funnel.at(-1)).toEqual({ stage: "passed", sessions: 1 });
    // a pass threshold below the failing reward turns it into a pass
    const lenient = hookReport([dir], { passThreshold: 0 });
    expect(lenient.rules[0]!.outcomes.pass).toBe(2);
  });

  it("reports a bad line with file:line and still counts the others", () => {
    const dir = tempWorkspace();
    mkdirSync(join(dir, "trial-1", "agent"), { recursive: true });
    const file = join(dir, "trial-1", "agent", "fire-hook-log.jsonl");
    writeFileSync(file, `${line({})}\n{"ts": 1}\nnot json\n${line({ session: "s2" })}\n`);
    writeFileSync(join(dir, "trial-1", "other.jsonl"), "not a hook log\n");
    const r = hookReport([dir]);
    expect(r.files).toEqual([file]);
    expect(r.lines).toBe(2);
    expect(r.sessions).toBe(2);
    expect(r.errors.map((e) => e.format().slice(0, file.length + 2))).toEqual([
      `${file}:2`,
      `${file}:3`,
    ]);
  });

  it("fire hook report prints text, --json and --csv", async () => {
    const dir = tempWorkspace();
    writeFileSync(join(dir, "hook-log.jsonl"), `${line({ firings: [firing()] })}\n`);
    const text = await fireIn(["hook", "report", dir, "-w", dir]);
    expect([text.status, text.stderr]).toEqual([0, ""]);
    expect(text.stdout).toContain("p@1/r (tool, enforce)");
    expect(text.stdout).toContain(
      "funnel (sessions): eligible 1 → fired 1 → followed 0 → passed ?",
    );
    expect(text.stdout).toContain("outcomes of the sessions it fired in: 1 unknown");
    const json = await fireIn(["hook", "report", dir, "-w", dir, "--json"]);
    expect(JSON.parse(json.stdout).rules[0].enforced.firings).toBe(1);
    const csv = await fireIn(["hook", "report", dir, "-w", dir, "--csv"]);
    const [head, row] = csv.stdout.trim().split("\n");
    expect(head?.split(",").slice(0, 4)).toEqual(["policy", "version", "rule", "point"]);
    expect(row?.split(",").slice(0, 4)).toEqual(["p", "1", "r", "tool"]);
  });
});

describe.each([
  ["claude", ".claude/settings.local.json"],
  ["codex", ".codex/hooks.json"],
])("fire hook install --observe, enforce, observe (%s)", (harness, rel) => {
  it("installs in observe mode and switches with one command", async () => {
    const project = tempWorkspace();
    const home = tempWorkspace();
    const env = { HOME: home, CODEX_HOME: join(home, "codex-home"), CLAUDE_CONFIG_DIR: "" };
    const cmds = () =>
      Object.values(
        (
          JSON.parse(readFileSync(join(project, rel), "utf8")) as {
            hooks: Record<string, { hooks: { command: string }[] }[]>;
          }
        ).hooks,
      ).flatMap((g) => g.flatMap((x) => x.hooks.map((h) => h.command)));
    const base = ["--harness", harness, "--project", project];
    const i = await fireIn(["hook", "install", ...base, "--portfolio", PORTFOLIO, "--observe"], {
      env,
      cwd: project,
    });
    expect([i.status, i.stderr]).toEqual([0, ""]);
    expect(cmds().every((c) => c.includes(" hook --observe --portfolio "))).toBe(true);
    const toml = join(home, "codex-home", "config.toml");
    const trust = () => (harness === "codex" ? readFileSync(toml, "utf8") : "");
    const trustBefore = trust();
    const e = await fireIn(["hook", "enforce", ...base], { env, cwd: project });
    expect([e.status, e.stderr]).toEqual([0, ""]);
    expect(e.stdout).toMatch(/^switched to enforce mode/);
    expect(cmds().some((c) => c.includes("--observe"))).toBe(false);
    if (harness === "codex") expect(trust()).not.toBe(trustBefore); // trust is a hash of the command
    const again = await fireIn(["hook", "enforce", ...base], { env, cwd: project });
    expect(again.stdout).toMatch(/^already to enforce mode|^already/);
    await fireIn(["hook", "observe", ...base], { env, cwd: project });
    expect(cmds().every((c) => c.includes(" hook --observe "))).toBe(true);
  });

  it("enforce without an installed hook is a usage error", async () => {
    const project = tempWorkspace();
    const r = await fireIn(["hook", "enforce", "--harness", harness, "--project", project], {
      cwd: project,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("no fire hook installed");
  });
});
