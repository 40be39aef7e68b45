import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { opencodeLastStop } from "../../../src/core/ingest/opencode-printed.js";
import { truncatedFinalResponse } from "../../../src/core/mine/faults/harness.js";
import { faultOf } from "../../../src/core/mine/triage.js";
import type { Attempt } from "../../../src/core/model/attempt.js";
import { editJson } from "../../helpers/edit-json.js";
import { REPO_ROOT } from "../../helpers/paths.js";
import { tempDirs } from "../../helpers/temp-dirs.js";
import { collectOne } from "../ingest/collect.js";
import { attempt, type Step } from "./bash-attempt.js";

/** Real OpenCode trials under Harbor, copied unmodified (README there). */
const DIR = resolve(REPO_ROOT, "test/fixtures/harbor-opencode-real");
const trial = (name: string) => resolve(DIR, name);
const temp = tempDirs();

/** Sets the time of a copied trial's first ATIF step from `source` (the step must exist). */
function setFirstStepTime(dir: string, source: "agent" | "user", ts: string): void {
  editJson(resolve(dir, "agent/trajectory.json"), (t) => {
    const steps = t.steps as { timestamp?: string | null; source?: string }[];
    const step = steps.find((s) => s.source === source);
    expect(step).toBeDefined();
    if (step) step.timestamp = ts;
  });
}

describe("a final model response that arrived corrupted (NUL characters)", () => {
  it("is the provider's fault, with the event and the count as evidence", async () => {
    const a = await collectOne(trial("cute-layout-composition__qWjRKVh"));
    const f = faultOf(a);
    expect(f).toMatchObject({ reason: "provider_fault", code: "corrupted-model-response" });
    expect(f?.detail).toContain("5646 NUL character(s)");
    const ev = f?.evidence[0];
    expect(ev?.eventIndex).toBeDefined();
    expect(a.events.find((e) => e.index === ev?.eventIndex)?.input).toContain("\u0000");
  });

  it("is no fault when the same text arrives without the NULs", async () => {
    const dir = temp.copyOf(trial("cute-layout-composition__qWjRKVh"), "fire-oc-nul-");
    const file = resolve(dir, "agent/trajectory.json");
    writeFileSync(file, readFileSync(file, "utf8").replaceAll("\\u0000", ""));
    const b = await collectOne(dir);
    expect(b.events.some((e) => e.input?.includes("\u0000"))).toBe(false);
    expect(faultOf(b)?.code).not.toBe("corrupted-model-response");
  });
});

describe("a blank last response from a model whose output had arrived corrupted", () => {
  it("is the provider's fault, citing the NUL in a call's arguments and the blank end", async () => {
    const a = await collectOne(trial("engram-triton-kernel__R4Vc8ef"));
    const f = faultOf(a);
    expect(f).toMatchObject({ reason: "provider_fault", code: "corrupted-model-response" });
    expect(f?.detail).toContain("billed 4916 output tokens");
    expect(f?.detail).toContain("task call's arguments");
    const [bad, end] = f?.evidence ?? [];
    expect(a.events.find((e) => e.index === bad?.eventIndex)?.tool).toBe("task");
    expect(a.events.find((e) => e.index === end?.eventIndex)?.input?.trim()).toBe("");
  });

  it("is no fault when the arguments arrived clean: a blank end alone says nothing", async () => {
    const dir = temp.copyOf(trial("engram-triton-kernel__R4Vc8ef"), "fire-oc-blank-");
    const file = resolve(dir, "agent/trajectory.json");
    writeFileSync(file, readFileSync(file, "utf8").replaceAll("\\u0000", ""));
    const b = await collectOne(dir);
    expect(b.events.some((e) => e.input?.includes("\\u0000"))).toBe(false);
    expect(faultOf(b)?.code).not.toBe("corrupted-model-response");
  });
  it("is no fault when the model typed a backslash and u0000, not a NUL", async () => {
    const dir = temp.copyOf(trial("engram-triton-kernel__R4Vc8ef"), "fire-oc-typed-");
    const file = resolve(dir, "agent/trajectory.json");
    // the key clean, and the text `\u0000` (a backslash the model wrote) in the call's prompt
    const text = readFileSync(file, "utf8")
      .replaceAll('"prompt\\u0000"', '"prompt"')
      .replace("Explore the DeepSeek", "Explore \\\\u0000 the DeepSeek");
    writeFileSync(file, text);
    const b = await collectOne(dir);
    expect(b.events.some((e) => e.input?.includes("\\\\u0000"))).toBe(true);
    expect(faultOf(b)?.code).not.toBe("corrupted-model-response");
  });

  it("is no fault when the final turn's reasoning text accounts for what was billed", async () => {
    const dir = temp.copyOf(trial("engram-triton-kernel__R4Vc8ef"), "fire-oc-reasoned-");
    editJson(resolve(dir, "agent/trajectory.json"), (t) => {
      const steps = t.steps as { reasoning_content?: string }[];
      const last = steps.at(-1);
      if (last) last.reasoning_content = "Let me think about the kernel layout. ".repeat(540);
    });
    const b = await collectOne(dir);
    expect(b.agentEnd?.outputTokens).toBe(4916);
    expect(faultOf(b)?.code).not.toBe("corrupted-model-response");
  });

  it("is no fault when the blank response cost what blank text costs", async () => {
    const dir = temp.copyOf(trial("engram-triton-kernel__R4Vc8ef"), "fire-oc-cheap-");
    editJson(resolve(dir, "agent/trajectory.json"), (t) => {
      const steps = t.steps as { metrics?: { completion_tokens?: number } }[];
      const last = steps.at(-1);
      if (last?.metrics) last.metrics.completion_tokens = 3;
    });
    const b = await collectOne(dir);
    expect(b.agentEnd?.outputTokens).toBe(3);
    expect(faultOf(b)?.code).not.toBe("corrupted-model-response");
  });
});

describe("a run whose time ran out waiting on a starved model", () => {
  it("reads a model that took minutes for its first answer and wrote a few tokens since", async () => {
    const a = await collectOne(trial("cute-layout-composition__DwWB8T7"));
    expect(a.outcome).toBe("timeout");
    const f = faultOf(a);
    expect(f).toMatchObject({ reason: "provider_fault", code: "model-never-answered" });
    expect(f?.detail).toMatch(/its first answer took 293 s, and it wrote 122 output tokens/);
    const firstAgent = a.events.find((e) => e.role === "agent" || e.kind === "tool_call");
    expect(f?.evidence.some((e) => e.eventIndex === firstAgent?.index)).toBe(true);
  });

  it("measures the first answer from the prompt's own time when the trace keeps one", async () => {
    const dir = temp.copyOf(trial("cute-layout-composition__DwWB8T7"), "fire-oc-prompt-");
    // the same trial, its prompt given 20 s before the first answer (setup took the rest)
    setFirstStepTime(dir, "user", "2026-07-19T00:57:08.142000+00:00");
    const b = await collectOne(dir);
    expect(faultOf(b)?.code).not.toBe("model-never-answered");
  });

  it("reads no first answer from a trace whose steps all carry one time", async () => {
    const dir = temp.copyOf(trial("cute-layout-composition__DwWB8T7"), "fire-oc-onetime-");
    editJson(resolve(dir, "agent/trajectory.json"), (t) => {
      const steps = t.steps as { timestamp?: string | null }[];
      const stamp = steps.at(-1)?.timestamp;
      for (const s of steps) if (s.timestamp) s.timestamp = stamp;
    });
    const b = await collectOne(dir);
    expect(faultOf(b)?.code).not.toBe("model-never-answered");
  });

  it("is no stall when the same slow run's first answer came within a minute", async () => {
    const dir = temp.copyOf(trial("cute-layout-composition__DwWB8T7"), "fire-oc-first-");
    // the same trial, its first answer 20 s in: a run of slow turns, its first no different
    setFirstStepTime(dir, "agent", "2026-07-19T00:52:54.742000+00:00");
    const b = await collectOne(dir);
    expect(faultOf(b)?.code).not.toBe("model-never-answered");
  });

  it("reads the silence after the last event of a model that barely wrote as a provider stall", async () => {
    const a = await collectOne(trial("cute-layout-composition__csEjXnd"));
    expect(a.outcome).toBe("timeout");
    // the agent's own start: its agent execution, not the trial's setup
    expect(a.startedAt).toBe("2026-07-18T20:34:31.149322Z");
    const f = faultOf(a);
    expect(f).toMatchObject({ reason: "provider_fault", code: "model-never-answered" });
    // 373 output tokens in the ~11 minutes the trace covers, then ~18 minutes of nothing
    expect(f?.detail).toMatch(
      /373 output tokens in the \d+ s before its last event \(0\.\d+ a second\)/,
    );
    expect(a.events.at(-1)?.kind).toBe("tool_result");
  });

  it("is no stall when the last event came late in the run", async () => {
    const dir = temp.copyOf(trial("cute-layout-composition__csEjXnd"), "fire-oc-stall-");
    // the same trial, its agent time cut to a minute past its last event, and its first answer
    // 20 s in (a first answer of minutes is a starved model's whatever the silence)
    editJson(resolve(dir, "result.json"), (r) => {
      const ex = r.agent_execution as { started_at: string; finished_at: string };
      r.agent_execution = { ...ex, finished_at: "2026-07-18T20:47:10Z" };
    });
    setFirstStepTime(dir, "agent", "2026-07-18T20:34:51.149000+00:00");
    const b = await collectOne(dir);
    expect(b.durationS).toBeLessThan(800);
    expect(faultOf(b)?.code).not.toBe("model-never-answered");
  });

  it("is no stall when the model wrote at a healthy pace: a long last turn may be its own", async () => {
    const dir = temp.copyOf(trial("cute-layout-composition__csEjXnd"), "fire-oc-pace-");
    editJson(resolve(dir, "result.json"), (r) => {
      const ar = r.agent_result as Record<string, unknown>;
      r.agent_result = { ...ar, n_output_tokens: 20000 };
    });
    const b = await collectOne(dir);
    expect(b.tokens?.output).toBe(20000);
    expect(faultOf(b)?.code).not.toBe("model-never-answered");
  });

  it("does not read a model that wrote fast and then fell silent: the trace cannot tell", async () => {
    // two quick steps (231 tokens in seconds), then 90 minutes without an event
    const a = await collectOne(trial("engram-triton-kernel__YGrTR98"));
    expect(a.outcome).toBe("timeout");
    expect(a.tokens?.output).toBe(231);
    expect(faultOf(a)?.code).not.toBe("model-never-answered");
  });

  it("does not compare a start without its offset with events that carry one", async () => {
    const dir = temp.copyOf(trial("cute-layout-composition__csEjXnd"), "fire-oc-zone-");
    // the same start written as local time without an offset (older Harbor versions did)
    editJson(resolve(dir, "result.json"), (r) => {
      const ex = r.agent_execution as { started_at: string; finished_at: string };
      r.agent_execution = { ...ex, started_at: ex.started_at.replace(/Z$/, "") };
    });
    const b = await collectOne(dir);
    expect(b.startedAt).not.toMatch(/Z$/);
    expect(faultOf(b)?.code).not.toBe("model-never-answered");
  });

  it("reads OpenCode's own event stream when no trajectory was kept: reasoning and times", async () => {
    const a = await collectOne(trial("engram-triton-kernel__eRvwvXG"));
    // one reasoning part, stamped from the stream's millisecond timestamps
    const reasoning = a.events.filter((e) => e.kind === "reasoning");
    expect(reasoning).toHaveLength(1);
    expect(reasoning[0]?.ts).toBe(new Date(1784409049220).toISOString());
    // no usage was recorded: nothing vouches for the model's pace
    expect(a.tokens?.output).toBeUndefined();
    expect(faultOf(a)?.code).not.toBe("model-never-answered");
  });
});

describe("a final model step with nothing in it", () => {
  it("is a response the provider never delivered, when the run's other turns were metered", async () => {
    const a = await collectOne(trial("dwconv3d-occupancy__xAze5au"));
    expect(a.agentEnd?.eventIndex).toBeUndefined();
    expect(a.agentEnd?.toolCalls).toBe(0);
    expect(a.agentEnd?.meteredTurns).toBeGreaterThan(10);
    const f = faultOf(a);
    expect(f).toMatchObject({ reason: "provider_fault", code: "truncated-model-response" });
    expect(f?.detail).toContain("it was empty");
  });

  it("is the model's own ending when the empty step reports usage", async () => {
    const dir = temp.copyOf(trial("dwconv3d-occupancy__xAze5au"), "fire-oc-empty-");
    editJson(resolve(dir, "agent/trajectory.json"), (t) => {
      const steps = t.steps as Record<string, unknown>[];
      const last = steps.at(-1) as Record<string, unknown>;
      last.metrics = { prompt_tokens: 87000, completion_tokens: 3 };
    });
    const b = await collectOne(dir);
    expect(b.agentEnd?.outputTokens).toBe(3);
    expect(faultOf(b)?.code).not.toBe("truncated-model-response");
  });
});

describe("a final response that used up the output limit the request set", () => {
  it("is the model's own generation, no provider fault; with no usage it is the provider's cut", async () => {
    const a = await collectOne(trial("dwconv3d-occupancy__hCrGGYE"));
    // OpenCode's 32,000-token cap: the last step finished for `length`, metered, no tool call
    expect(a.agentEnd).toMatchObject({ stopReason: "length", toolCalls: 0 });
    expect(a.agentEnd?.outputTokens).toBeGreaterThan(0);
    expect(truncatedFinalResponse(a)).toBeUndefined();
    expect(faultOf(a)).toBeUndefined();
    // the same ending with no usage reported: a response the provider never metered
    const cut = { ...a, agentEnd: { ...a.agentEnd, promptTokens: 0 } };
    expect(truncatedFinalResponse(cut)).toMatchObject({
      reason: "provider_fault",
      code: "truncated-model-response",
    });
    expect(truncatedFinalResponse(cut)?.detail).toContain("stopped at the length limit (length)");
  });
});

describe("the final turn's stop reason from OpenCode's own stream", () => {
  const stepFinish = /^\{"type":"step_finish".*$/gm;
  /** A copy of the output-cap trial whose last `step_finish` line goes through `edit`. */
  function withLastStep(edit: (row: { part: Record<string, unknown> }) => void): string {
    const dir = temp.copyOf(trial("dwconv3d-occupancy__hCrGGYE"), "fire-oc-stop-");
    const file = resolve(dir, "agent/opencode.txt");
    const text = readFileSync(file, "utf8");
    const last = [...text.matchAll(stepFinish)].at(-1)?.[0] ?? "";
    expect(last).toContain('"reason":"length"');
    const row = JSON.parse(last) as { part: Record<string, unknown> };
    edit(row);
    writeFileSync(file, text.replace(last, JSON.stringify(row)));
    return dir;
  }

  it("takes the last step's reason only when that step billed the final turn's output", async () => {
    const a = await collectOne(trial("dwconv3d-occupancy__hCrGGYE"));
    expect(a.agentEnd?.stopReason).toBe("length");
    // another step's count: not the final turn's
    const other = await collectOne(
      withLastStep((r) => {
        r.part.tokens = { ...(r.part.tokens as object), output: 31999 };
      }),
    );
    expect(other.agentEnd?.stopReason).toBeUndefined();
    // a last step with no reason says nothing; an earlier step's reason is not taken instead
    const none = await collectOne(
      withLastStep((r) => {
        delete r.part.reason;
      }),
    );
    expect(none.agentEnd?.stopReason).toBeUndefined();
  });

  it("never takes an earlier step's reason for the last step's", () => {
    const step = (part: object) =>
      JSON.stringify({ type: "step_finish", timestamp: 1784496609679, sessionID: "ses_x", part });
    const earlier = step({ reason: "length", tokens: { output: 32000 } });
    expect(opencodeLastStop([earlier])).toEqual({ reason: "length", output: 32000 });
    expect(opencodeLastStop([earlier, step({ tokens: { output: 32000 } })])).toBeUndefined();
    expect(
      opencodeLastStop([earlier, step({ reason: "stop", tokens: { output: null } })]),
    ).toBeUndefined();
  });

  it("reads none without the stream", async () => {
    const dir = temp.copyOf(trial("dwconv3d-occupancy__hCrGGYE"), "fire-oc-nostream-");
    rmSync(resolve(dir, "agent/opencode.txt"));
    const a = await collectOne(dir);
    expect(a.agentEnd?.outputTokens).toBe(32000);
    expect(a.agentEnd?.stopReason).toBeUndefined();
  });
});

/** The Gemma trial copied, its trajectory and OpenCode stream rewritten by `edit`, then read. */
async function gemmaEdited(prefix: string, edit: (text: string) => string): Promise<Attempt> {
  const dir = temp.copyOf(trial("dwconv3d-occupancy__SppsrPk"), prefix);
  for (const f of ["agent/trajectory.json", "agent/opencode.txt"]) {
    const file = resolve(dir, f);
    writeFileSync(file, edit(readFileSync(file, "utf8")));
  }
  return collectOne(dir);
}

describe("a run that ended on a tool call the serving stack left as text (Gemma's own markup)", () => {
  it("is the provider's fault, quoting the call from the final turn", async () => {
    const a = await collectOne(trial("dwconv3d-occupancy__SppsrPk"));
    const f = faultOf(a);
    expect(f).toMatchObject({ reason: "provider_fault", code: "unparsed-tool-call" });
    const ev = f?.evidence[0];
    expect(ev?.excerpt).toContain("<|tool_call>call:read");
    expect(a.events.find((e) => e.index === ev?.eventIndex)?.kind).toBe("message");
  });

  it("is no fault when the call names a tool the run never had (the model's own slip)", async () => {
    const b = await gemmaEdited("fire-oc-editor-", (t) =>
      t.replaceAll("<|tool_call>call:read", "<|tool_call>call:editor"),
    );
    expect(b.events.some((e) => e.input?.includes("<|tool_call>call:editor"))).toBe(true);
    expect(faultOf(b)?.code).not.toBe("unparsed-tool-call");
  });

  it("is no fault when the same final text carries no call markup", async () => {
    const b = await gemmaEdited("fire-oc-markup-", (t) =>
      t.replaceAll("<|tool_call>", "").replaceAll("<tool_call|>", ""),
    );
    expect(b.events.some((e) => e.input?.includes("<|tool_call>"))).toBe(false);
    expect(faultOf(b)?.code).not.toBe("unparsed-tool-call");
  });
});

describe("a final message that only quotes call markup is no unparsed call", () => {
  const task = "Fix the tool-call parser so an unclosed <tool_call> block is still parsed.";
  const work: Step[] = [
    { cmd: "sed -i 's/a/b/' parser.py", out: "" },
    { cmd: "python -m pytest tests -q", out: "3 passed" },
  ];
  const code = (say: string) => faultOf(attempt(task, [...work, { say }]))?.code;
  it("reads a message that is nothing but a call to a tool the run had", () => {
    expect(
      code('<tool_call>\n{"name": "bash", "arguments": {"command": "pytest"}}\n</tool_call>'),
    ).toBe("unparsed-tool-call");
    expect(
      code(
        "<tool_call>\n<function=bash>\n<parameter=command>ls</parameter>\n</function>\n</tool_call>",
      ),
    ).toBe("unparsed-tool-call");
  });
  it("not markup quoted in a summary, a code fence, or leaked reasoning", () => {
    expect(
      code('Done. The parser now handles `<tool_call>{"name": "bash", "arguments": {}}` unclosed.'),
    ).toBeUndefined();
    expect(
      code(
        "Converted. Example:\n```\n<tool_call>\n<function=bash>\n</function>\n</tool_call>\n```",
      ),
    ).toBeUndefined();
    expect(
      code(
        '<think>maybe <tool_call>{"name": "bash", "arguments": {}}</tool_call> no.</think>\n\nThe fix is complete.',
      ),
    ).toBeUndefined();
  });
});
