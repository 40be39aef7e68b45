import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../helpers/paths.js";
import { collect } from "./collect.js";

const RUNS = join(REPO_ROOT, "test/fixtures/tb1/runs");
const RUN = join(RUNS, "2025-06-14__09-30-00");

describe("Terminal-Bench 1 run importer", () => {
  it("reads the run folder as one unit with its four trials", async () => {
    const got = await collect([RUNS]);
    expect(got.errors).toEqual([]);
    expect(got.units.map((u) => u.format)).toEqual(["tb1-run"]);
    expect(got.attempts.map((a) => [a.taskId, a.attemptNo, a.outcome, a.reward])).toEqual([
      ["hello-world", 1, "pass", 1],
      ["hello-world", 2, "fail", 0],
      ["sqlite-db-truncate", 1, "timeout", 0],
      ["sqlite-db-truncate", 2, "fail", 0],
    ]);
    const timeout = got.attempts[2]!;
    expect(timeout.exception).toEqual({ type: "agent_timeout" });
    expect(timeout.tokens).toEqual({ input: 58211, output: 6120 });
    expect(timeout.durationS).toBeCloseTo(900.398, 3);
    for (const a of got.attempts) {
      expect(a.agent).toBe("terminus");
      expect(a.model).toBe("anthropic/claude-sonnet-4-20250514");
    }
  });

  it("takes the instruction as task text and Terminus keystrokes as commands", async () => {
    const got = await collect([RUN]);
    const sqlite = got.attempts[3]!;
    expect(sqlite.taskText).toMatch(/^I have a sqlite database in \/app\/trunc\.db/);
    expect(sqlite.events.filter((e) => e.kind === "tool_call").map((e) => e.command)).toEqual([
      "ls -la /app",
      "sqlite3 /app/trunc.db '.recover' > /app/dump.sql",
      "python3 /app/to_json.py > /app/recover.json",
    ]);
    expect(sqlite.events.at(-1)!.kind).toBe("stop");
    expect(got.attempts[1]!.events.find((e) => e.kind === "tool_call")!.command).toBe(
      "echo -n 'Hello, world!' > hello.txt",
    );
  });

  it("a test run that timed out is a failed attempt, not the agent's time limit", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "fire-tb1-"));
    try {
      cpSync(RUN, join(tmp, "run"), { recursive: true });
      const trial = join(
        tmp,
        "run",
        "sqlite-db-truncate",
        "sqlite-db-truncate.1-of-2.2025-06-14__09-30-00",
        "results.json",
      );
      const r = JSON.parse(readFileSync(trial, "utf8"));
      writeFileSync(trial, JSON.stringify({ ...r, failure_mode: "test_timeout" }));
      const got = await collect([join(tmp, "run")]);
      const a = got.attempts.find((x) => x.taskId === "sqlite-db-truncate" && x.attemptNo === 1);
      expect([a?.outcome, a?.exception]).toEqual(["fail", { type: "test_timeout" }]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("falls back to the run-level results.json for trials whose folder is missing, and reports a broken trial", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "fire-tb1-"));
    try {
      cpSync(RUN, join(tmp, "run"), { recursive: true });
      rmSync(join(tmp, "run", "hello-world"), { recursive: true });
      const broken = join(
        tmp,
        "run",
        "sqlite-db-truncate",
        "sqlite-db-truncate.2-of-2.2025-06-14__09-30-00",
        "results.json",
      );
      writeFileSync(broken, '{"trial_name": 3}');
      const got = await collect([join(tmp, "run")]);
      expect(got.errors).toHaveLength(1);
      expect(got.errors[0]).toMatch(
        /sqlite-db-truncate\.2-of-2\.2025-06-14__09-30-00\/results\.json: expected a Terminal-Bench trial result/,
      );
      // hello-world x2 from the run's results.json, sqlite 1 from its folder; the broken one is not re-read from the run file
      expect(got.attempts.map((a) => a.taskId).sort()).toEqual([
        "hello-world",
        "hello-world",
        "sqlite-db-truncate",
      ]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
