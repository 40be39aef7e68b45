import type { Event, HookInfo } from "../model/attempt.js";
import { shellCommand, writtenPaths } from "./shell.js";
import { capString, capText, inputText, ownCopy } from "./text.js";

type Role = "user" | "agent" | "system";

/**
 * Builds the normalized event list of one attempt: numbers events, caps
 * outputs early, pairs results with calls and remembers each call's tool.
 */
export class EventLog {
  readonly events: Event[] = [];
  private readonly tools = new Map<string, string>();
  private readonly inputCap: number;

  constructor(private readonly outputCap: number) {
    this.inputCap = Math.max(outputCap * 2, 4_000);
  }

  get length(): number {
    return this.events.length;
  }

  toolOf(callId: string | undefined): string | undefined {
    return callId === undefined ? undefined : this.tools.get(callId);
  }

  private push(e: Omit<Event, "index">): Event {
    // Copy only the defined fields: deleting keys would turn every event object into a
    // slow dictionary-mode object for the validation and encoding that follow.
    const ev: Record<string, unknown> = { index: this.events.length };
    for (const k in e) {
      const v = (e as Record<string, unknown>)[k];
      if (v !== undefined) ev[k] = v;
    }
    this.events.push(ev as Event);
    return ev as Event;
  }

  text(
    kind: "prompt" | "message" | "reasoning",
    role: Role | undefined,
    text: string,
    ts?: string,
  ): void {
    if (!text) return;
    this.push({ kind, role, input: text, ts });
  }

  call(p: {
    tool: string;
    args: unknown;
    callId?: string;
    ts?: string;
    command?: string;
    /** Paths written, when the importer knows them (else read from the tool's arguments). */
    writes?: string[];
  }): void {
    const raw = inputText(p.args);
    if (p.callId) this.tools.set(p.callId, p.tool);
    this.push({
      kind: "tool_call",
      ts: p.ts,
      tool: p.tool,
      command: p.command ?? shellCommand(p.tool, p.args),
      input: raw === undefined ? undefined : capString(raw, this.inputCap),
      writes: p.writes ?? writtenPaths(p.tool, p.args),
      callId: p.callId,
    });
  }

  result(p: {
    output: string;
    callId?: string;
    tool?: string;
    ts?: string;
    exitCode?: number;
    isError?: boolean;
  }): void {
    const { output, outputBytes } = capText(p.output, this.outputCap);
    this.push({
      kind: "tool_result",
      ts: p.ts,
      tool: p.tool ?? this.toolOf(p.callId),
      output,
      outputBytes,
      exitCode: p.exitCode,
      isError: p.isError,
      callId: p.callId,
    });
  }

  /** A hook decision; a Stop block implies the agent tried to stop, so a `stop` precedes it. */
  hook(hook: HookInfo, p: { ts?: string; callId?: string; tool?: string } = {}): void {
    if (hook.event === "Stop" && this.events[this.events.length - 1]?.kind !== "stop")
      this.stop(p.ts);
    // hook texts are cut out of tool outputs by regex: copy so they do not pin the output
    const text =
      hook.text === undefined ? undefined : ownCopy(capString(hook.text, this.outputCap));
    const tool = p.tool ?? this.toolOf(p.callId);
    this.push({ kind: "hook", ts: p.ts, tool, callId: p.callId, hook: { ...hook, text } });
  }

  /** The agent's stop, with its last message (`final`) when one comes after its last tool use. */
  stop(ts?: string): void {
    this.push({ kind: "stop", ts, final: this.finalMessage() });
  }

  /** The agent's last message when no tool call, result, prompt or stop follows it. */
  private finalMessage(): string | undefined {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i]!;
      if (e.kind === "message" && e.role === "agent") return e.input;
      if (e.kind !== "reasoning" && e.kind !== "hook" && e.kind !== "message") return undefined;
    }
    return undefined;
  }

  /** Count of events of one kind (used to pick the richer of two sources). */
  count(kind: Event["kind"]): number {
    let n = 0;
    for (const e of this.events) if (e.kind === kind) n++;
    return n;
  }
}

export { exitCodeFromOutput } from "../model/exit-status.js";
