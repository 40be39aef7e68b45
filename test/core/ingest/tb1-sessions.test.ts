import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  castText,
  plainTerminalText,
  sessionCommands,
} from "../../../src/core/ingest/tb1-session.js";
import { mine } from "../../../src/core/mine/mine.js";
import { triage } from "../../../src/core/mine/triage.js";
import { defaultConfig } from "../../../src/core/workspace/config.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "./collect.js";

const RUN = join(REPO_ROOT, "test/fixtures/tb1-sessions/runs/2025-07-02__14-10-00");
const calls = (a: { events: { kind: string; command?: string }[] }) =>
  a.events.filter((e) => e.kind === "tool_call").map((e) => e.command);

describe("Terminal-Bench 1 runs import with their actions", () => {
  it("reads the commands an installed agent printed in the pane, with exit codes and output", async () => {
    const got = await collect([RUN]);
    const pass = got.attempts.find((a) => a.attemptNo === 1 && a.taskId === "fix-git-permissions")!;
    expect(pass.agent).toBe("mini-swe-agent");
    expect(calls(pass)).toEqual([
      'mini -m anthropic/claude-sonnet-4-20250514 -t "$(cat /tmp/instruction.txt)" -y --exit-immediately',
      "ls -la /app",
      "chmod +x /app/deploy.sh",
      "bash /app/run_checks.sh",
      "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
    ]);
    const check = pass.events.find(
      (e) => e.kind === "tool_result" && /ALL CHECKS PASSED/.test(e.output ?? ""),
    );
    expect(check?.exitCode).toBe(0);
    expect(pass.events.at(-1)?.kind).toBe("stop");
    const fail = got.attempts.find((a) => a.attemptNo === 2 && a.taskId === "fix-git-permissions")!;
    const failedRun = fail.events.find(
      (e) => e.kind === "tool_result" && /sha256 differs/.test(e.output ?? ""),
    );
    expect(failedRun?.exitCode).toBe(1);
    expect(fail.verifierOutput).toContain("1 failed, 1 passed");
    expect(fail.verifierSource?.file).toMatch(/sessions\/tests\.log$/);
  });

  it("reads commands typed at the prompt (heredocs included) and keeps a task text in another script", async () => {
    const got = await collect([RUN]);
    const zh = got.attempts.filter((a) => a.taskId === "csv-region-totals");
    for (const a of zh) expect(a.taskText).toMatch(/^读取 \/app\/data\/sales\.csv，按地区汇总/);
    const ok = zh.find((a) => a.outcome === "pass")!;
    expect(calls(ok)[0]).toMatch(/^python3 - <<'EOF'\nimport csv, json\n[\s\S]*\nEOF$/);
    expect(calls(ok)[1]).toBe("python3 /app/check.py");
    const out = ok.events.find((e) => e.kind === "tool_result" && e.output?.includes("matches"));
    expect(out?.output).toBe("OK: totals.json matches");
    for (const a of got.attempts)
      for (const c of calls(a)) expect(c).not.toMatch(/tmux wait|^clear$|asciinema/);
  });

  it("a trial with a verifier but no agent log says 'no actions recorded' and still counts in k/n", async () => {
    const got = await collect([RUN]);
    const none = got.attempts.find((a) => a.attemptNo === 3 && a.taskId === "fix-git-permissions")!;
    expect(calls(none)).toEqual([]);
    expect(none.outcome).toBe("fail");
    const t = triage(got.attempts);
    const task = t.tasks.find((x) => x.taskId === "fix-git-permissions")!;
    expect([task.passes, task.n, task.status]).toEqual([1, 3, "reachable"]);
    const ex = t.exclusions.find((e) => e.attemptId === none.id);
    expect(ex).toMatchObject({ reason: "no_actions", detail: "no actions recorded" });
    // the other failure is in mining scope with its actions
    expect(task.failedIds).toHaveLength(1);
    expect(t.tasks.find((x) => x.taskId === "csv-region-totals")?.status).toBe("reachable");
  });

  it("mining labels the failures that have actions and leaves the one without out, no crash", async () => {
    const got = await collect([RUN]);
    const r = await mine(got.attempts, { labeler: "heuristic", config: defaultConfig() });
    const failedWithActions = got.attempts.filter(
      (a) => a.outcome !== "pass" && a.events.some((e) => e.kind === "tool_call"),
    );
    expect(r.labels.map((l) => l.attemptId).sort()).toEqual(
      failedWithActions.map((a) => a.id).sort(),
    );
    for (const l of r.labels) expect(l.mechanism.length).toBeGreaterThan(0);
  });

  it("a truncated cast row is reported with file and line; the rest of the cast still loads", async () => {
    const got = await collect([RUN]);
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]).toMatch(
      /fix-git-permissions\.2-of-3\.2025-07-02__14-10-00\/sessions\/agent\.cast:5: expected an asciinema row/,
    );
    expect(got.attempts).toHaveLength(5);
  });
});

describe("terminal text and prompt parsing", () => {
  it("reads the prompts of images that set no PS1 (bash's default, BusyBox ash)", () => {
    const pane = [
      "bash-5.2# ls /app",
      "data.csv",
      "/app # cat data.csv | wc -l",
      "3",
      "~ $ echo done",
      "done",
      "a line of output / # not a prompt",
    ].join("\n");
    expect(sessionCommands(pane).map((c) => [c.command, c.output])).toEqual([
      ["ls /app", "data.csv"],
      ["cat data.csv | wc -l", "3"],
      ["echo done", "done\na line of output / # not a prompt"],
    ]);
  });

  it("drops escapes, applies carriage returns and backspaces", () => {
    expect(plainTerminalText("\u001b[1;31mred\u001b[0m ok\r\n50%\r100%\nab\bc")).toBe(
      "red ok\n100%\nac",
    );
  });

  it("ignores quoted commands without an observation and rows that are not output", () => {
    const cast = readFileSync(
      join(
        RUN,
        "fix-git-permissions/fix-git-permissions.1-of-3.2025-07-02__14-10-00/sessions/agent.cast",
      ),
      "utf8",
    );
    const { text, badLines } = castText(cast);
    expect(badLines).toEqual([]);
    expect(text).not.toContain("\u001b");
    expect(
      sessionCommands("root@h:/app# cat notes.md\nrun:\n```bash\nmake\n```\nroot@h:/app# ").map(
        (c) => c.command,
      ),
    ).toEqual(["cat notes.md"]);
  });
});
