import { describe, expect, it } from "vitest";
import { isNamed } from "../../src/core/mine/label.js";
import { Attempt } from "../../src/core/model/attempt.js";
import { type LlmLabelAnswer, labelSpec, toLabel } from "../../src/llm/label.js";
import { goodAnswer, hitsFor, makeAttempt, stopHitsFor } from "./attempts.js";

const opts = { model: "m", nameUncorroborated: false };
type Cited = LlmLabelAnswer["evidence"][number];

/** Read an answer as a label, its hits those of makeAttempt's cleanup (and the stop's). */
function read(a: Attempt, answer: Partial<LlmLabelAnswer>) {
  return toLabel(a, stopHitsFor(a), { ok: true, value: goodAnswer(answer), cached: false }, opts);
}
const verifier = (excerpt: string): Cited => ({
  claim: "mechanism",
  from: "verifier",
  eventIndex: null,
  attemptId: null,
  excerpt,
});
const event = (
  eventIndex: number,
  excerpt: string,
  claim: Cited["claim"] = "mechanism",
): Cited => ({
  claim,
  from: "event",
  eventIndex,
  attemptId: null,
  excerpt,
});

/** makeAttempt whose last check (pytest) failed, its output coloured by the terminal. */
function withColouredRun(): Attempt {
  const a = makeAttempt("coloured-1");
  const n = a.events.length;
  return Attempt.parse({
    ...a,
    events: [
      ...a.events.slice(0, n - 2),
      { index: n - 2, kind: "tool_call", tool: "Bash", command: "pytest -q", callId: "t" },
      {
        index: n - 1,
        kind: "tool_result",
        callId: "t",
        output: "\x1b[31m5 failed\x1b[0m, 0 passed in 0.2s",
        exitCode: 1,
      },
      { index: n, kind: "message", role: "agent", input: "Done." },
      { index: n + 1, kind: "stop" },
    ],
  });
}

describe("a verifier quote is read as the model was shown it, piece by piece", () => {
  const lines = (verifierOutput: string): Attempt =>
    Attempt.parse({ ...makeAttempt("vq-pieces"), verifierOutput });

  it.each([
    [
      "two shown lines joined with '...'",
      "FAILED test_health - ConnectionRefusedError: [Errno 111]\nE   assert 0 == 1\n1 failed in 0.3s",
      "FAILED test_health ... assert 0 == 1",
    ],
    [
      "a coloured line quoted without its escapes",
      "\x1b[31mFAILED\x1b[0m test_health - ConnectionRefusedError: [Errno 111]\n\x1b[31m1 failed\x1b[0m in 0.3s",
      "FAILED test_health - ConnectionRefusedError: [Errno 111]",
    ],
    [
      "a line whose own text holds an ellipsis",
      "FAILED test_x - AssertionError: expected 'Loading…done' got 'Loading'",
      "expected 'Loading…done' got 'Loading'",
    ],
    [
      "a line wrapped in quotation marks",
      "FAILED test_health - ConnectionRefusedError: [Errno 111]",
      '"FAILED test_health - ConnectionRefusedError: [Errno 111]"',
    ],
  ])("%s is valid, kept and found", (_what, output, quote) => {
    const a = lines(output);
    const answer = goodAnswer({ evidence: [verifier(quote)] });
    expect(labelSpec(a).validate?.(answer)).toEqual([]);
    const label = read(a, { evidence: [verifier(quote)] });
    expect(label.evidence?.map((e) => e.excerpt)).toEqual([quote]);
    expect(isNamed(label)).toBe(true);
  });

  it("a line the verifier never printed does not reject the answer: it is dropped", () => {
    const a = lines("FAILED test_health - ConnectionRefusedError: [Errno 111]");
    const misquote = verifier("FAILED test_health - AssertionError: expected 200 got 404");
    expect(labelSpec(a).validate?.(goodAnswer({ evidence: [misquote] }))).toEqual([]);
    const alone = read(a, { evidence: [misquote] });
    expect(alone.evidence).toBeUndefined();
    expect(alone.status).toBe("needs_review");
    // the answer's other evidence still names it
    const rm = a.events.length - 4;
    const withEvent = read(a, { evidence: [misquote, event(rm, "rm -rf /app/dist")] });
    expect(withEvent.evidence?.map((e) => e.from)).toEqual(["event"]);
    expect(withEvent.status).toBe("named");
  });
});

describe("an event quote is found only when most of it is in what the event holds", () => {
  it("a command wrapped in backticks, or coloured output quoted plain, is found", () => {
    const a = makeAttempt("bt-1");
    const rm = a.events.length - 4;
    expect(read(a, { evidence: [event(rm, "`rm -rf /app/dist`")] }).status).toBe("named");
    const c = withColouredRun();
    const out = c.events.length - 3;
    expect(read(c, { evidence: [event(out, "5 failed, 0 passed in 0.2s", "state")] }).status).toBe(
      "named",
    );
  });

  it("a misquote is not found through one word of the command or the tool's name", () => {
    const c = withColouredRun();
    const call = c.events.length - 4;
    const misquote = read(c, { evidence: [event(call, "all 5 tests passed ... pytest", "state")] });
    expect(misquote.status).toBe("needs_review");
    // the line's head (`[i] kind tool`) says what the event is, not what it holds
    const head = read(c, { evidence: [event(call, `[${call}] tool_call Bash`, "state")] });
    expect(head.status).toBe("needs_review");
    // a quote of the whole line, head included, is found by what follows the head
    const whole = read(c, {
      evidence: [event(call, `[${call}] tool_call Bash: $ pytest -q`, "state")],
    });
    expect(whole.status).toBe("named");
  });

  it("a call and its result are one action: the command with its exit code is found in either", () => {
    const c = withColouredRun();
    const out = c.events.length - 3;
    const quote = event(out, "pytest -q exit=1", "state");
    expect(read(c, { evidence: [quote] }).status).toBe("named");
    expect(read(c, { evidence: [{ ...quote, eventIndex: out - 1 }] }).status).toBe("named");
    // another call's line is not its pair
    expect(read(c, { evidence: [{ ...quote, eventIndex: 4 }] }).status).toBe("needs_review");
  });
});

describe("the record's header is no evidence of a mechanism", () => {
  it("'outcome fail', true of every failed attempt, names nothing", () => {
    const a = makeAttempt("hdr-1");
    const header: Cited = {
      claim: "mechanism",
      from: "result",
      eventIndex: null,
      attemptId: null,
      excerpt: "outcome fail",
    };
    // a line the record holds: valid and stored, but it shows no mechanism
    expect(labelSpec(a).validate?.(goodAnswer({ evidence: [header] }))).toEqual([]);
    const label = toLabel(
      a,
      hitsFor(a),
      { ok: true, value: goodAnswer({ evidence: [header] }), cached: false },
      opts,
    );
    expect(label.evidence?.[0]?.excerpt).toBe("outcome fail");
    expect(label.status).toBe("needs_review");
  });
});

describe("which found claims show the mechanism", () => {
  it("an addressable claim found where it says counts, as a mechanism claim does", () => {
    const a = makeAttempt("ck-1");
    const rm = a.events.length - 4;
    const capability = event(6, '{"ok":true}', "capability");
    const label = read(a, { evidence: [capability, event(rm, "rm -rf /app/dist", "addressable")] });
    expect(label.status).toBe("named");
    expect(label.mechanismId).toBe("deployment-preservation");
    // a capability claim alone shows no mechanism
    expect(read(a, { evidence: [capability] }).status).toBe("needs_review");
    // a quote of the task itself, true of every attempt at it, shows none either
    const task = a.events.find((e) => e.kind === "prompt");
    const quote = "Deploy the app on port 8080.";
    expect(read(a, { evidence: [event(task?.index ?? 0, quote, "addressable")] }).status).toBe(
      "needs_review",
    );
  });

  it("a true line with made-up words after it is not found", () => {
    const a = makeAttempt("pad-1");
    const n = a.events.length;
    const line = `FAILED tests/test_api.py::test_health - ${"AssertionError: expected 200, got 503; ".repeat(3)}`;
    const c = Attempt.parse({
      ...a,
      events: [
        ...a.events.slice(0, n - 2),
        { index: n - 2, kind: "tool_call", tool: "Bash", command: "pytest -q", callId: "t" },
        { index: n - 1, kind: "tool_result", callId: "t", output: line, exitCode: 1 },
        { index: n, kind: "message", role: "agent", input: "Done." },
        { index: n + 1, kind: "stop" },
      ],
    });
    expect(line.length).toBeGreaterThan(120);
    expect(read(c, { evidence: [event(n - 1, line.trim(), "state")] }).status).toBe("named");
    const padded = `${line.trim()} ${"because the agent deleted the whole build folder first ".repeat(2)}`;
    expect(read(c, { evidence: [event(n - 1, padded, "state")] }).status).toBe("needs_review");
  });
});

describe("a procedural loss needs capability shown apart from the failure", () => {
  const a = makeAttempt("cap-1");
  const rm = a.events.length - 4;
  const cleanup = event(rm, "rm -rf /app/dist");

  it("a capability event that is the failing call itself, or whose quote is not there, shows none", () => {
    const itself = read(a, {
      capabilityEvidence: [{ eventIndex: rm, why: "the cleanup ran" }],
      evidence: [cleanup],
    });
    expect(itself.status).toBe("named");
    expect(itself.kind).toBe("policy_addressable");
    expect(itself.isProceduralLoss).toBe(false);
    const misquoted = read(a, {
      capabilityEvidence: [{ eventIndex: 6, why: "health check answered" }],
      evidence: [event(6, "HTTP/1.1 200 OK", "capability"), cleanup],
    });
    expect(misquoted.kind).toBe("policy_addressable");
  });

  it("an earlier event that showed the work working is capability evidence, quoted or not", () => {
    const quoted = read(a, {
      capabilityEvidence: [{ eventIndex: 6, why: "health check answered" }],
      evidence: [event(6, '{"ok":true}', "capability"), cleanup],
    });
    expect(quoted.kind).toBe("procedural_loss");
    expect(quoted.isProceduralLoss).toBe(true);
    const cited = read(a, {
      capabilityEvidence: [{ eventIndex: 6, why: "health check answered" }],
      evidence: [cleanup],
    });
    expect(cited.kind).toBe("procedural_loss");
  });
});
