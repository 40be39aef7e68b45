import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { heuristicLabel } from "../../../src/core/mine/heuristic.js";
import { faultOf } from "../../../src/core/mine/triage.js";
import { Attempt, type AttemptInput } from "../../../src/core/model/attempt.js";
import type { Workspace } from "../../../src/core/workspace/load.js";
import { fixture } from "../../helpers/paths.js";
import { attemptByPrefix, loadOpenclaw, removeTempWorkspaces } from "./demo-workspace.js";

afterAll(removeTempWorkspaces);

interface DevRow {
  trial: string;
  scope: "keep" | "exclude" | "ambiguous";
  expectedExclusion: string | null;
}
const dev = JSON.parse(readFileSync(fixture("attributions/dev-openclaw.json"), "utf8")) as {
  trials: DevRow[];
};

let ws: Workspace;
beforeAll(async () => {
  ws = await loadOpenclaw();
});

const byTrial = (trial: string): Attempt => {
  const a = ws.attempts.find((x) => x.source.path.endsWith(`/${trial}`));
  if (!a) throw new Error(`no attempt for ${trial}`);
  return a;
};

const outside = (r: string | undefined) => r === "provider_fault" || r === "verifier_fault";

describe("fault exclusions on the 15 real OpenClaw trials (dev set)", () => {
  it("keep/exclude agrees with the human attribution on at least 90% of decided trials", () => {
    let agree = 0;
    const decided = dev.trials.filter((t) => t.scope !== "ambiguous");
    const misses: string[] = [];
    for (const row of decided) {
      const f = faultOf(byTrial(row.trial));
      const got = outside(f?.reason) ? f?.reason : "none";
      if ((row.scope === "exclude") === (got !== "none")) agree++;
      else misses.push(row.trial);
      if (row.scope === "exclude" && got !== "none")
        expect(got, row.trial).toBe(row.expectedExclusion);
    }
    expect(agree / decided.length, misses.join(", ")).toBeGreaterThanOrEqual(0.9);
  });

  it("every exclusion cites the file and line, or the event, that shows it", () => {
    for (const a of ws.attempts) {
      const f = faultOf(a);
      if (!f) continue;
      expect(f.evidence.length, a.id).toBeGreaterThan(0);
      for (const ev of f.evidence)
        expect(ev.eventIndex !== undefined || ev.file !== undefined, a.id).toBe(true);
    }
    const csv = faultOf(attemptByPrefix(ws.attempts, "task-csv-stock-trend__EMfhUA5"));
    expect(csv?.evidence[0]?.file).toMatch(/verifier\/test-stdout\.txt$/);
    const lines = readFileSync(csv?.evidence[0]?.file ?? "", "utf8").split("\n");
    expect(lines[(csv?.evidence[0]?.line ?? 0) - 1]).toContain("judge response did not include");
    const email = faultOf(attemptByPrefix(ws.attempts, "task-email-triage__fEmQAc2"));
    expect(email?.detail).toBe(
      "the verifier crashed: json.decoder.JSONDecodeError in /tests/llm_judge.py",
    );
    const gh = faultOf(attemptByPrefix(ws.attempts, "task-gh-issue-triage__sx8jKBo"));
    expect(gh?.detail).toContain("`gh`, which the task relies on, has no credentials");
    const ev = attemptByPrefix(ws.attempts, "task-gh-issue-triage__sx8jKBo").events.find(
      (e) => e.index === gh?.evidence[0]?.eventIndex,
    );
    expect(ev?.command).toMatch(/^gh /);
  });

  it("a judge error does not excuse deliverable checks that failed on their own (near miss)", () => {
    const a = attemptByPrefix(ws.attempts, "t2-add-tests-normalizer__BPeAoa2");
    expect(a.verifierOutput).toContain("Judge execution failed.");
    expect(a.verifierScores?.["clawbench.judge_error"]).toBe(1);
    expect(faultOf(a)).toBeUndefined();
  });

  it("a scorer whose deliverable checks all passed while the aggregate failed is a verifier fault", () => {
    const f = faultOf(attemptByPrefix(ws.attempts, "t4-browser-research-and-code__56zvvqY"));
    expect(f?.reason).toBe("verifier_fault");
    expect(f?.detail).toMatch(/^scoring mismatch: the deliverable checks passed/);
    // near miss: judge 1.0 but the deliverable check failed → kept
    expect(
      faultOf(attemptByPrefix(ws.attempts, "t3-data-pipeline-report__25HCHpE")),
    ).toBeUndefined();
  });
});

const base = (over: Partial<AttemptInput>): Attempt =>
  Attempt.parse({
    id: "x",
    source: { format: "fire-jsonl", path: "/x.jsonl" },
    taskId: "t",
    taskText: "Do the thing.",
    outcome: "fail",
    events: [
      { index: 0, kind: "prompt", role: "user", input: "go" },
      { index: 1, kind: "tool_call", tool: "Bash", command: "make", callId: "c" },
      { index: 2, kind: "tool_result", tool: "Bash", output: "done", callId: "c" },
    ],
    ...over,
  });

const call = (command: string, output: string): AttemptInput["events"] => [
  { index: 0, kind: "prompt", role: "user", input: "go" },
  { index: 1, kind: "tool_call", tool: "Bash", command, callId: "c" },
  { index: 2, kind: "tool_result", tool: "Bash", output, callId: "c" },
];

describe("fault markers: general signals and their near misses", () => {
  it("a scoring mismatch needs every other sub-score of the deliverable passed", () => {
    const scored = (verifierScores: Record<string, number>) =>
      faultOf(base({ reward: verifierScores.reward ?? 0, verifierScores }));
    // the tests passed, a process score and the aggregate's copy fell: the scorer's doing
    expect(
      scored({ reward: 0.4, tests: 1, trajectory_score: 0.2, run_score: 0.4 })?.detail,
    ).toMatch(/^scoring mismatch/);
    // near misses: a sub-score of the deliverable itself failed, so the failure is explained
    expect(scored({ reward: 0, tests: 1, style: 0 })).toBeUndefined();
    expect(scored({ reward: 0.5, tests: 1, security: 0.5, n_checks: 4 })).toBeUndefined();
    // counts, statuses and times at 0 are no failed sub-score
    expect(
      scored({ reward: 0, tests: 1, exit_code: 0, tests_failed: 0, duration_sec: 0.5 })?.detail,
    ).toMatch(/^scoring mismatch/);
  });

  it("a missing binary counts only when the task relies on it, not when it asks to install it", () => {
    const out = "bash: jq: command not found";
    expect(
      faultOf(
        base({ taskText: "Use `jq` to extract the ids.", events: call("jq .ids f.json", out) }),
      )?.reason,
    ).toBe("provider_fault");
    expect(
      faultOf(base({ taskText: "Extract the ids.", events: call("jq .ids f.json", out) })),
    ).toBeUndefined();
    expect(
      faultOf(
        base({
          taskText: "Install `jq` and extract the ids.",
          events: call("jq .ids f.json", out),
        }),
      ),
    ).toBeUndefined();
  });

  it("a tool missing on the host is no fault when the verifier failed on the agent's own by-product", () => {
    const task =
      "Write /app/poly/main.py.c so that `python3 /app/poly/main.py.c N` and gcc both print fib(N).";
    const events: AttemptInput["events"] = [
      { index: 0, kind: "prompt", role: "user", input: task },
      {
        index: 1,
        kind: "tool_call",
        tool: "Bash",
        command: "python3 /app/poly/main.py.c 3",
        callId: "a",
      },
      {
        index: 2,
        kind: "tool_result",
        tool: "Bash",
        output: "bash: python3: command not found",
        callId: "a",
      },
      {
        index: 3,
        kind: "tool_call",
        tool: "Bash",
        command: "gcc /app/poly/main.py.c -o /app/poly/cmain && /app/poly/cmain 3",
        callId: "b",
      },
      { index: 4, kind: "tool_result", tool: "Bash", output: "2", callId: "b" },
    ];
    const stray = "E   AssertionError: Expected only main.py.c, found: ['main.py.c', 'cmain']";
    expect(faultOf(base({ taskText: task, events, verifierOutput: stray }))).toBeUndefined();
    // near miss: the verifier failed on something else; the missing python3 decides
    const other = "E   AssertionError: python3 run printed nothing";
    expect(faultOf(base({ taskText: task, events, verifierOutput: other }))?.reason).toBe(
      "provider_fault",
    );
  });

  it("a program the task names that the host cannot run is an environment fault", () => {
    const task = "Start the VM with qemu-system-x86_64 and keep SSH reachable on port 2222.";
    const cmd = "qemu-system-x86_64 -m 512 -hda disk.img -nographic";
    // the emulator the host runs under lacks a syscall: no agent could deliver here
    const f = faultOf(
      base({ taskText: task, events: call(cmd, "qemu: Unimplemented syscall number 282") }),
    );
    expect(f?.reason).toBe("provider_fault");
    expect(f?.detail).toContain("host cannot run `qemu-system-x86_64`");
    expect(f?.evidence[0]?.eventIndex).toBe(1);
    // the program's own failure is the agent's to fix
    expect(
      faultOf(base({ taskText: task, events: call(cmd, "qemu: could not open disk image") })),
    ).toBeUndefined();
    // nor one whose name only sits inside another word of the task ("location" has `cat`)
    expect(
      faultOf(
        base({
          taskText: "Report the location of the config file.",
          events: call("cat /etc/app.conf", "cat: cannot execute binary file"),
        }),
      ),
    ).toBeUndefined();
    // a binary the task does not name failing to run is not the host's fault for this task
    expect(
      faultOf(base({ taskText: "Count the lines.", events: call("./a.out", "exec format error") })),
    ).toBeUndefined();
  });

  it("a verifier traceback is a crash only outside assertions and outside the agent's code", () => {
    const judge = `Traceback (most recent call last):\n  File "/tests/grade.py", line 9, in <module>\n    main()\nKeyError: 'score'\n`;
    expect(faultOf(base({ verifierOutput: judge }))?.detail).toBe(
      "the verifier crashed: KeyError in /tests/grade.py",
    );
    const asserted = judge.replace("KeyError: 'score'", "AssertionError: wrong answer");
    expect(faultOf(base({ verifierOutput: asserted }))).toBeUndefined();
    const agentCode = `Traceback (most recent call last):\n  File "/tests/test_outputs.py", line 3, in <module>\n    import solution\n  File "/app/solution.py", line 1, in <module>\n    raise ValueError("bad")\nValueError: bad\n`;
    expect(faultOf(base({ verifierOutput: agentCode }))).toBeUndefined();
  });

  it("a grader asking for the name the task told the agent to add found the deliverable lacking", () => {
    const verify = (exc: string) =>
      `Traceback (most recent call last):\n  File "/tests/verify_gguf.py", line 117, in run\n    writer.add(gguf.VisionProjectorType.DEEPSEEKOCR)\n${exc}\n`;
    const missing =
      "AttributeError: type object 'VisionProjectorType' has no attribute 'DEEPSEEKOCR'";
    const task = "Expose `VisionProjectorType.DEEPSEEKOCR` with value `deepseekocr`.";
    expect(faultOf(base({ taskText: task, verifierOutput: verify(missing) }))).toBeUndefined();
    // a name the task never asked for: the grader's own mistake
    expect(
      faultOf(base({ taskText: "Fix the OCR tensors.", verifierOutput: verify(missing) }))?.reason,
    ).toBe("verifier_fault");
    // a common word the task uses in prose is no name it asked for
    const lib = "AttributeError: module 'numpy' has no attribute 'float'";
    expect(
      faultOf(base({ taskText: "Return the mean as a float.", verifierOutput: verify(lib) }))
        ?.reason,
    ).toBe("verifier_fault");
  });

  it("an exception type is a fault only when it names the infrastructure or the grader", () => {
    const withExc = (type: string, message?: string) =>
      faultOf(base({ exception: { type, ...(message ? { message } : {}) } }));
    expect(withExc("RateLimitError")?.reason).toBe("provider_fault");
    expect(withExc("RewardFileNotFoundError")?.reason).toBe("verifier_fault");
    // the agent's own model misbehaving, or its process exiting 1, is the agent's failure
    expect(withExc("ModelBehaviorError")).toBeUndefined();
    expect(
      withExc("NonZeroAgentExitCodeError", "Command failed (exit 1): agent run"),
    ).toBeUndefined();
    // a test run that timed out may have waited on the agent's hung program
    expect(withExc("test_timeout")).toBeUndefined();
  });

  it("an exception type is read on its whole words; the model's own output or context is the agent's", () => {
    const withExc = (type: string, message?: string) =>
      faultOf(base({ exception: { type, ...(message ? { message } : {}) } }));
    // the model's output failed to parse, was malformed or held no action: no grader, no provider
    expect(withExc("OutputParserException", "Could not parse LLM output")).toBeUndefined();
    expect(withExc("LLMMalformedActionError", "malformed action")).toBeUndefined();
    expect(withExc("LLMNoActionError")).toBeUndefined();
    expect(withExc("fatal_llm_parse_error")).toBeUndefined();
    // a context overflow is the same whatever the type is called
    expect(withExc("ContextWindowExceededError")).toBeUndefined();
    expect(withExc("LLMContextWindowExceedError")).toBeUndefined();
    expect(
      withExc("BadRequestError", "This model's maximum context length is 128000 tokens"),
    ).toBeUndefined();
    // the types the patterns were written for still read as before
    expect(withExc("BadRequestError", "invalid model name")?.reason).toBe("provider_fault");
    // a grader whose own output did not parse is the grader's, whatever else its name says
    expect(withExc("VerifierOutputParseError")?.reason).toBe("verifier_fault");
    expect(withExc("RewardFileParseError")?.reason).toBe("verifier_fault");
    expect(withExc("LLMProviderError")?.reason).toBe("provider_fault");
    expect(withExc("APITimeoutError")?.reason).toBe("provider_fault");
    expect(withExc("agent_installation_failed")?.reason).toBe("provider_fault");
    expect(withExc("E2BError")?.reason).toBe("provider_fault");
    expect(withExc("TestParserError")?.reason).toBe("verifier_fault");
    expect(withExc("VerifierTimeoutError")?.reason).toBe("verifier_fault");
  });

  it("a grader that choked on the deliverable checked and failed; a broken grader is a fault", () => {
    const tb = (file: string, code: string, exc: string) =>
      `Traceback (most recent call last):\n  File "${file}", line 4, in <module>\n    ${code}\nFileNotFoundError: x\n`.replace(
        "FileNotFoundError: x",
        exc,
      );
    const task = "Write the statistics to /app/stats.json.";
    // the deliverable is absent: the plain-script grader raised reading it
    const missing = tb(
      "/tests/check.py",
      "data = json.load(open('/app/stats.json'))",
      "FileNotFoundError: [Errno 2] No such file or directory: '/app/stats.json'",
    );
    expect(faultOf(base({ taskText: task, verifierOutput: missing }))).toBeUndefined();
    // the deliverable is malformed: the grader's decode of it failed
    const malformed = missing.replace(
      /FileNotFoundError.*$/m,
      "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
    );
    expect(faultOf(base({ taskText: task, verifierOutput: malformed }))).toBeUndefined();
    // a decode error in a test file that reads something else is not a judge's either
    const other = tb("/tests/check.py", "data = load(path)", "KeyError: 'mean'");
    expect(faultOf(base({ taskText: "Count the lines.", verifierOutput: other }))).toBeUndefined();
    // a grader whose own code is broken is a fault, wherever it lives
    const broken = tb(
      "/tests/test_outputs.py",
      "assert helper(x)",
      "NameError: name 'helper' is not defined",
    );
    expect(faultOf(base({ verifierOutput: broken }))?.detail).toBe(
      "the verifier crashed: NameError in /tests/test_outputs.py",
    );
  });

  it("an upstream API error in the agent's last turn is a provider fault; in a tool output it is not", () => {
    const events: AttemptInput["events"] = [
      ...call("curl localhost:8080", "HTTP/1.1 503 Service Unavailable"),
      { index: 3, kind: "message", role: "agent", input: "API Error: 529 overloaded_error" },
    ];
    expect(faultOf(base({ events }))?.evidence[0]?.eventIndex).toBe(3);
    expect(faultOf(base({ events: events.slice(0, 3) }))).toBeUndefined();
  });

  it("configured environment markers extend the built-in ones", () => {
    const a = base({
      taskText: "Use the `acme` CLI.",
      events: call("acme sync", "ACME-LICENSE-EXPIRED"),
    });
    expect(faultOf(a)).toBeUndefined();
    expect(faultOf(a, { environment: ["license-expired"] })?.reason).toBe("provider_fault");
  });

  it("the heuristic labeller excludes on configured environment markers too", () => {
    const a = base({
      taskText: "Use the `acme` CLI.",
      events: call("acme sync", "ACME-LICENSE-EXPIRED"),
    });
    expect(heuristicLabel(a, []).exclusion).not.toBe("provider_fault");
    const l = heuristicLabel(a, [], { verifier: [], environment: ["license-expired"] });
    expect(l.exclusion).toBe("provider_fault");
    expect(l.rationale).toContain('`acme`, which the task relies on, failed ("license-expired")');
    // verifier markers alone (the old array form) still work
    const v = base({ verifierOutput: "harness: SCORER-OFFLINE" });
    expect(heuristicLabel(v, [], ["scorer-offline"]).exclusion).toBe("verifier_fault");
    expect(heuristicLabel(v, [], { environment: ["scorer-offline"] }).exclusion).not.toBe(
      "verifier_fault",
    );
  });
});

describe("step verdicts of a multi-step trial", () => {
  type Steps = NonNullable<AttemptInput["verifierSteps"]>;
  const step = (name: string, reward: number, scores?: Record<string, number>): Steps[number] => ({
    name,
    reward,
    passed: reward >= 1,
    ...(scores ? { scores } : {}),
  });
  const final = { reward: 0.4, "checks.design_fields": 0.3, "checks.summary_length": 1 };

  it("a final verifier failing the work earlier step verifiers passed is a verifier fault (real trial)", () => {
    const a = attemptByPrefix(ws.attempts, "task-session-chain-analysis__UGpJKzs");
    expect(a.verifierSteps?.map((s) => s.passed)).toEqual([true, true, true, false]);
    const f = faultOf(a);
    expect(f?.reason).toBe("verifier_fault");
    expect(f?.detail).toMatch(/^step verdicts disagree: every earlier step's verifier passed/);
    expect(f?.detail).toContain("(step fixed-design passed)");
    expect(f?.evidence[0]?.file).toMatch(/result\.json$/);
  });

  it("names the disagreement only when every earlier step passed and a failed score names one (near misses)", () => {
    const steps = [step("draft-design", 1), step("final-report", 0.4, final)];
    expect(faultOf(base({ verifierSteps: steps }))?.detail).toContain(
      "checks.design_fields=0.3 (step draft-design passed)",
    );
    // an earlier step failed: the final verdict may be right
    const failedEarlier = [step("draft-design", 0.5), step("final-report", 0.4, final)];
    expect(faultOf(base({ verifierSteps: failedEarlier }))).toBeUndefined();
    // the failed sub-score grades work no earlier step was verified for
    const unrelated = [step("collect-inputs", 1), step("final-report", 0.4, final)];
    expect(faultOf(base({ verifierSteps: unrelated }))).toBeUndefined();
    // generic words ("step", "check", "final") tie nothing
    const generic = [step("check-step", 1), step("final-report", 0.4, { "check.step": 0 })];
    expect(faultOf(base({ verifierSteps: generic }))).toBeUndefined();
    // a passing trial is never a fault
    expect(faultOf(base({ outcome: "pass", verifierSteps: steps }))).toBeUndefined();
  });
});
