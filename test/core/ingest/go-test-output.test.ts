import { describe, expect, it } from "vitest";
import { goTestRun } from "../../../src/core/ingest/go-test-output.js";
import { failingTests } from "../../../src/core/ingest/verifier-tests.js";
import { Attempt } from "../../../src/core/model/attempt.js";

/**
 * `go test` output as a Harbor verifier printed it (the `unipat-openclaw-glm5-b` dev source,
 * 0xPolygon/bor tasks; lines verbatim, tabs kept, the verifier's own `[FAIL2PASS_…]` lines
 * around them).
 */
const SUBTESTS = [
  "[FAIL2PASS_EDGE] START request_witnesses_cancel_stops_leaking",
  "--- FAIL: TestTBPR2157_RequestWitnessesCancelStopsLeaking (1.05s)",
  "    --- FAIL: TestTBPR2157_RequestWitnessesCancelStopsLeaking/hash_count_1 (0.52s)",
  "        task_pr2157_witness_leak_test.go:77: ",
  "            \tError Trace:\t/app/bor/eth/task_pr2157_witness_leak_test.go:77",
  '            \tError:      \t"11" is not less than or equal to "10"',
  "            \tTest:       \tTestTBPR2157_RequestWitnessesCancelStopsLeaking/hash_count_1",
  "            \tMessages:   \tgoroutines leaked after cancellation (before=8, after=11)",
  "    --- FAIL: TestTBPR2157_RequestWitnessesCancelStopsLeaking/hash_count_3 (0.52s)",
  "        task_pr2157_witness_leak_test.go:77: ",
  '            \tError:      \t"20" is not less than or equal to "17"',
  "FAIL",
  "FAIL\tgithub.com/ethereum/go-ethereum/eth\t1.072s",
  "FAIL",
  "[FAIL2PASS_EDGE] FAIL request_witnesses_cancel_stops_leaking",
].join("\n");
const PACKAGES = [
  "ok  \tgithub.com/ethereum/go-ethereum/eth\t0.031s",
  "[REGRESSION_DIRECT] PASS: existing eth broadcast choice",
  "--- FAIL: TestTerminalBenchWritePathMetrics (0.01s)",
  "    terminalbench_write_path_metrics_test.go:60: expected chain/batch/write to increase, before=0 after=0",
  "FAIL",
  "FAIL\tgithub.com/ethereum/go-ethereum/core\t0.041s",
  "--- PASS: TestTerminalBenchSealToBroadcastTimerBehavior (0.00s)",
  "--- SKIP: TestSlow (0.00s)",
].join("\n");

describe("go test output", () => {
  it("reads each verdict line, subtests by their full names, with the lines under them", () => {
    const t = goTestRun(SUBTESTS, "/v/test-stdout.txt", 10);
    expect(t.map((x) => [x.name, x.status])).toEqual([
      ["TestTBPR2157_RequestWitnessesCancelStopsLeaking", "failed"],
      ["TestTBPR2157_RequestWitnessesCancelStopsLeaking/hash_count_1", "failed"],
      ["TestTBPR2157_RequestWitnessesCancelStopsLeaking/hash_count_3", "failed"],
    ]);
    // a parent whose only lines are its subtests' has no message of its own
    expect(t[0]?.message).toBeUndefined();
    expect(t[1]?.message).toContain('Error:      \t"11" is not less than or equal to "10"');
    expect(t[1]?.message).not.toContain("hash_count_3 (0.52s)");
    expect(t[1]).toMatchObject({ file: "/v/test-stdout.txt", line: 12 });
  });

  it("stops a message at the package's verdict and reads passes and skips", () => {
    const t = goTestRun(PACKAGES);
    expect(t.map((x) => [x.name, x.status])).toEqual([
      ["TestTerminalBenchWritePathMetrics", "failed"],
      ["TestTerminalBenchSealToBroadcastTimerBehavior", "passed"],
      ["TestSlow", "skipped"],
    ]);
    expect(t[0]?.message).toBe(
      "terminalbench_write_path_metrics_test.go:60: expected chain/batch/write to increase, before=0 after=0",
    );
  });

  it("are the failing tests of an attempt whose verifier printed them", () => {
    const a = Attempt.parse({
      id: "go-1",
      source: { format: "fire-jsonl", path: "go.jsonl" },
      taskId: "go",
      taskText: "",
      outcome: "fail",
      events: [],
      verifierOutput: PACKAGES,
    });
    expect(failingTests(a).map((x) => x.name)).toEqual(["TestTerminalBenchWritePathMetrics"]);
    // pytest output still reads as pytest's
    expect(goTestRun("FAILED tests/test_a.py::test_x - assert 1 == 2")).toEqual([]);
  });
});
