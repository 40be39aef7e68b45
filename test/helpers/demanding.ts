/** pytest's report of a failed test whose statement quotes `name` (a grader's demand). */
export const demanding = (name: string): string =>
  [
    "=================================== FAILURES ===================================",
    "    def test_supervisor():",
    `>       assert "${name}" in rs, "worker must run in background"`,
    "E       AssertionError: worker must run in background",
    "========================= 1 failed, 2 passed in 3.10s ==========================",
  ].join("\n");

/**
 * Two failed attempts of one task as fire JSONL lines, each failing an assertion that quotes
 * `names[i]` (the task's text names none of them).
 */
export const demandLines = (names: readonly string[]): string[] =>
  names.map((name, i) =>
    JSON.stringify({
      id: `demand-${"ab"[i] ?? i}`,
      source: { format: "fire-jsonl", path: "traces/demand.jsonl" },
      taskId: "supervisor",
      taskText: "Write run.sh that starts a worker in the background under flock.",
      outcome: "fail",
      reward: 0,
      verifierOutput: demanding(name),
      events: [
        { index: 0, kind: "tool_call", tool: "bash", command: "echo ok > run.sh", callId: "c" },
        { index: 1, kind: "tool_result", callId: "c", output: "", exitCode: 0 },
      ],
    }),
  );
