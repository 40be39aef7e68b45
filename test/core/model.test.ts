import { describe, expect, it } from "vitest";
import { describeZodIssues, InputError } from "../../src/core/errors.js";
import { Attempt } from "../../src/core/model/attempt.js";

describe("Attempt schema", () => {
  const base = {
    id: "a1",
    source: { format: "atif", path: "x/trajectory.json" },
    taskId: "t",
    taskText: "do it",
    outcome: "fail",
    events: [{ index: 0, kind: "tool_call", tool: "Bash", command: "ls" }],
  };

  it("applies the baseline arm by default", () => {
    expect(Attempt.parse(base).arm).toBe("baseline");
  });

  it("rejects unknown keys and names the field", () => {
    const r = Attempt.safeParse({ ...base, events: [{ index: 0, kind: "tool_call", bogus: 1 }] });
    expect(r.success).toBe(false);
    if (!r.success) expect(describeZodIssues(r.error.issues)).toMatch(/events\.0/);
  });

  it("rejects an unknown event kind", () => {
    expect(Attempt.safeParse({ ...base, events: [{ index: 0, kind: "thought" }] }).success).toBe(
      false,
    );
  });
});

describe("InputError", () => {
  it("formats file:line: reason", () => {
    expect(new InputError("a.jsonl", 3, "bad JSON").format()).toBe("a.jsonl:3: bad JSON");
    expect(new InputError("a.json", undefined, "empty").format()).toBe("a.json: empty");
  });
});
