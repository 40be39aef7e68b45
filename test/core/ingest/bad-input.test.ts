import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BadInputCorpus, makeBadInputCorpus } from "../../helpers/bad-input.js";
import { type Collected, collect } from "./collect.js";

describe("bad input corpus", () => {
  let corpus: BadInputCorpus;
  let got: Collected;
  beforeAll(async () => {
    corpus = makeBadInputCorpus();
    got = await collect([corpus.root]);
  }, 120_000);
  afterAll(() => corpus?.cleanup());

  it("reports every bad item exactly once as file:line: reason", () => {
    for (const e of corpus.expected) {
      const prefix = `${e.file}${e.line === undefined ? "" : `:${e.line}`}: `;
      const hits = got.errors.filter(
        (m) => m.startsWith(prefix) && e.reason.test(m.slice(prefix.length)),
      );
      expect(hits, `${prefix}${e.reason}`).toHaveLength(1);
    }
    expect(got.errors).toHaveLength(corpus.expected.length);
  });

  it("never puts a stack trace in an error", () => {
    for (const m of got.errors) expect(m).not.toMatch(/\n\s+at /);
  });

  it("still loads every good file and every good line around a bad one", () => {
    expect(got.attempts).toHaveLength(corpus.goodAttempts);
    const byPath = (end: string) => got.attempts.filter((a) => a.source.path.endsWith(end));
    expect(byPath("good/timeout.trajectory.json")).toHaveLength(1);
    expect(byPath("good/claude-session.jsonl")[0]!.taskText).toBe(
      "Clean the build directory, then finish.",
    );
    expect(byPath("good/rollout-codex.jsonl")[0]!.agent).toBe("codex");
    // the truncated transcript keeps its 3 tool calls from the 41 good lines
    expect(
      byPath("bad/truncated.jsonl")[0]!.events.filter((e) => e.kind === "tool_call"),
    ).toHaveLength(3);
    // the lines around the 50 MB line: the prompt before it, the rm -rf call after it
    const huge = byPath("bad/huge-line.jsonl")[0]!;
    expect(huge.events.map((e) => e.kind)).toEqual(["prompt", "tool_call"]);
    expect(huge.events[1]!.command).toBe("rm -rf build");
    expect(got.attempts.filter((a) => a.id.startsWith("fire-good-")).map((a) => a.id)).toEqual([
      "fire-good-1",
      "fire-good-2",
    ]);
    // the job's good trial loads although its sibling is broken
    const trial = got.attempts.find((a) => a.taskId === "pinchbench/task-calendar")!;
    expect(trial.outcome).toBe("fail");
    expect(got.units.find((u) => u.path.endsWith("bad/job"))?.format).toBe("harbor-job");
  });
});
