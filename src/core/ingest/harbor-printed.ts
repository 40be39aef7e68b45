import { basename, join } from "node:path";
import { z } from "zod";
import type { Event } from "../model/attempt.js";
import {
  aiderHistoryItems,
  aiderWithheldFailure,
  appendPrinted,
  codexExecItems,
  codexJsonItems,
  type PrintedItem,
  streamJsonItems,
} from "./agent-printed.js";
import { EventLog } from "./events.js";
import { findFiles, peek, readSmall, readTail } from "./fs-util.js";
import { littleCoderItems } from "./little-coder-log.js";
import {
  isOpencodeLog,
  opencodeFailure,
  opencodeItems,
  opencodeLastStop,
} from "./opencode-printed.js";
import { isPiEventLog, piEventItems } from "./pi-printed.js";
import { isResponsesLog, responsesLogItems } from "./responses-log.js";

/** Printed agent logs above this size are not read (they would not fit the trace caps anyway). */
const MAX_LOG = 64 << 20;

/**
 * What a CLI agent printed, as Harbor keeps it: `agent/claude-code.txt` (the stdout of
 * `claude --output-format stream-json`), `agent/codex.txt` (`codex exec --json` lines, or
 * its human output), `agent/aider.chat.history.md` (aider's chat history: Harbor converts
 * aider's run to no trajectory), `agent/opencode.txt` (`opencode run --format json` events),
 * `agent/little_coder.log` (little-coder's adapter log), pi's JSON events (`agent/pi.txt`, or
 * any `agent/*.jsonl` of them) or any `agent/*.jsonl` of Responses API exchanges a harness
 * logged (responses-log.ts). Read when the trial has no
 * trajectory, session or API logs, or a trajectory of code-mode programs whose results the
 * log knows better (harbor.ts); undefined when no such file holds an action. An OpenCode log
 * with no action (its first model request failed) gives no events: it was read, and its failure
 * is the run's end (printedTurnFailure).
 */
export function printedAgentLog(
  dir: string,
  outputCap: number,
): { events: Event[]; file: string } | undefined {
  const readers: [string, (text: string) => PrintedItem[]][] = [
    ["claude-code.txt", streamJsonItems],
    ["codex.txt", (t) => (t.includes('"type":"item.') ? codexJsonItems(t) : codexExecItems(t))],
    ["aider.chat.history.md", aiderHistoryItems],
    ["opencode.txt", opencodeItems],
    ["little_coder.log", littleCoderItems],
    ["pi.txt", piEventItems],
    // a harness's own copy of pi's event stream (`pi-events.jsonl`), or its log of the
    // Responses API requests it sent (one exchange per line)
    ...findFiles(join(dir, "agent"), (rel) => /^[^/]+\.jsonl$/i.test(rel), 0).flatMap(
      (f): [string, (text: string) => PrintedItem[]][] => {
        const head = peek(f, 16 * 1024);
        if (isPiEventLog(head)) return [[basename(f), piEventItems]];
        if (isResponsesLog(head)) return [[basename(f), responsesLogItems]];
        // a request line (instructions, tools, history) can run past the head before its
        // response object: a head that ends inside a line is read on to 1 MiB
        const cut = Buffer.byteLength(head) >= 8 * 1024 && !head.endsWith("\n");
        return cut && isResponsesLog(peek(f, 1 << 20)) ? [[basename(f), responsesLogItems]] : [];
      },
    ),
  ];
  for (const [name, read] of readers) {
    const file = join(dir, "agent", name);
    const text = readSmall(file, MAX_LOG);
    if (!text) continue;
    const items = read(text);
    if (!items.length && name === "opencode.txt" && isOpencodeLog(text))
      return { events: [], file };
    if (!items.length) continue;
    const log = new EventLog(outputCap);
    appendPrinted(log, items);
    return { events: log.events, file };
  }
  return undefined;
}

/**
 * The agent's own logs Harbor kept beside nothing fire could read actions from: the non-empty
 * `agent/*.txt`, `*.log`, `*.md` and `*.jsonl` files, and JSON files named as a record of the
 * run (`*events*`, `*session*`, `*trajectory*`, `*messages*`, `*history*`; not
 * `trajectory.json`, which the trajectory reader reads or reports itself), in a format fire
 * does not know. Said in the import's report rather than guessed at.
 */
export function unreadAgentLogs(dir: string): string[] {
  return findFiles(join(dir, "agent"), (rel) => AGENT_LOG.test(rel), 0).filter(
    (f) => peek(f, 256).trim() !== "",
  );
}

/** A file directly in `agent/` that may be the agent's own log. */
const AGENT_LOG =
  /^[^/]+\.(?:txt|log|md|jsonl)$|^(?!trajectory\.json$)[^/]*(?:events|session|trajectory|messages|history)[^/]*\.json$/i;

/**
 * aider's history (`agent/aider.chat.history.md`) showing a file aider edited without ever being
 * given it (`aiderBlindEdit`): the harness withheld the task's input.
 */
export function aiderWithheldInput(dir: string): ReturnType<typeof aiderWithheldFailure> {
  const file = join(dir, "agent", "aider.chat.history.md");
  const text = readSmall(file, MAX_LOG);
  return text ? aiderWithheldFailure(text, file) : undefined;
}

/** A failure an agent CLI's own log records: its message, the log, the line (1-based). */
export interface LoggedFailure {
  message: string;
  file: string;
  line: number;
}

/** `codex exec --json`: the event that ends a turn the CLI could not complete. */
const TurnFailed = z.object({
  type: z.literal("turn.failed"),
  error: z.object({ message: z.string().min(1) }),
});

/**
 * How the agent CLI's last turn ended when it failed, as the CLI printed it (else as
 * OpenClaw's session log records it): `codex exec --json` closes a turn it could not
 * complete (no model response after its retries, an authentication or quota error) with
 * `{"type":"turn.failed","error":{"message":…}}`; `opencode run --format json` prints an
 * `error` event; a Python agent's log ends on a request retry notice. Only the last word
 * counts: a
 * failure a later turn recovered from is none. Undefined when there is no such log or its
 * last turn completed. The line is 1-based.
 */
export function printedTurnFailure(dir: string): LoggedFailure | undefined {
  return (
    codexTurnFailure(dir) ??
    opencodeTurnFailure(dir) ??
    openclawPromptError(dir) ??
    retryingAtEnd(dir)
  );
}

/**
 * A retry notice as Python's tenacity prints it for an agent's failed model request (how
 * mini-SWE-agent, SWE-agent and others retry): "Retrying <function> in <s> seconds as it
 * raised <Error>: <message>."
 */
const RETRY_NOTICE = /^Retrying \S+ in [\d.]+ seconds as it raised (\w+): (.+)$/;

/** The last non-blank line of a text, trimmed. */
function lastLine(text: string): string {
  const lines = text.trimEnd().split("\n");
  return (lines.at(-1) ?? "").trim();
}

/**
 * An agent whose printed log (`agent/*.txt` or `*.log`) ends on a retry notice: the run ended
 * while its model request was still failing (a time limit reached during the retries). A
 * retry followed by anything else was recovered from and is none.
 */
function retryingAtEnd(dir: string): LoggedFailure | undefined {
  for (const file of findFiles(join(dir, "agent"), (rel) => /^[^/]+\.(?:txt|log)$/i.test(rel), 0)) {
    // the last line decides: only its tail is read, the whole log only to number that line
    const tail = readTail(file, 4096);
    if (!tail?.includes("Retrying ")) continue;
    const m = RETRY_NOTICE.exec(lastLine(tail));
    if (!m) continue;
    const text = readSmall(file, MAX_LOG);
    const line = text ? text.trimEnd().split("\n").length : 1;
    return { message: `${m[1]}: ${m[2]}`.slice(0, 500), file, line };
  }
  return undefined;
}

/** `opencode run --format json`: a failed model request no later step recovered from. */
function opencodeTurnFailure(dir: string): LoggedFailure | undefined {
  return lastLoggedFailure(join(dir, "agent", "opencode.txt"), '"type":"error"', (l) =>
    opencodeFailure(l),
  );
}

/**
 * Why the agent's last model step ended, as its own event stream printed it, for a trajectory
 * the harness converted without it (OpenCode's `step_finish` reason, ATIF has no field for
 * it): kept only when the step billed the same output tokens as the trajectory's final turn,
 * so it is that turn's.
 */
export function printedFinalStop(
  dir: string,
  outputTokens: number | undefined,
): string | undefined {
  if (outputTokens === undefined) return undefined;
  const tail = readTail(join(dir, "agent", "opencode.txt"), 64 * 1024);
  const stop = tail ? opencodeLastStop(tail.split("\n")) : undefined;
  return stop && stop.output === outputTokens ? stop.reason : undefined;
}

/** OpenClaw's session log: a model request that failed (`openclaw:prompt-error`, `data.error`). */
const PromptError = z.object({
  type: z.literal("custom"),
  customType: z.literal("openclaw:prompt-error"),
  data: z.object({ error: z.string().min(1) }),
});

/**
 * The last failure a JSON-lines log records, by line: `read` says what a line is — a failure
 * (its message), a turn that went on (`null`: any failure before it was recovered from), or
 * neither (`undefined`). Undefined when the log is missing or its last word is no failure.
 */
function lastLoggedFailure(
  file: string,
  marker: string,
  read: (line: string, row: () => unknown) => string | null | undefined,
): LoggedFailure | undefined {
  const text = readSmall(file, MAX_LOG);
  if (!text?.includes(marker)) return undefined;
  let last: { message: string; line: number } | undefined;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const l = (lines[i] ?? "").trim();
    const row = () => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        return undefined;
      }
    };
    const said = read(l, row);
    if (said === null) last = undefined;
    else if (said !== undefined) last = { message: said, line: i + 1 };
  }
  return last ? { ...last, file } : undefined;
}

/**
 * How an OpenClaw run ended when its last model request failed, as its session log
 * (`agent/openclaw-session.jsonl`, kept by Harbor's `openclaw` agent) records it: a
 * `openclaw:prompt-error` entry (an idle timeout with no account left to fail over to, a
 * provider error) with no assistant message after it. A failure a later turn recovered from
 * is none. Harbor's trajectory of such a run simply stops after the last tool result.
 */
function openclawPromptError(dir: string): LoggedFailure | undefined {
  const file = join(dir, "agent", "openclaw-session.jsonl");
  return lastLoggedFailure(file, '"openclaw:prompt-error"', (l, row) => {
    if (l.includes('"role":"assistant"')) return null;
    if (!l.includes('"openclaw:prompt-error"')) return undefined;
    const failed = PromptError.safeParse(row());
    return failed.success ? failed.data.data.error.slice(0, 500) : undefined;
  });
}

/** `codex exec --json`'s last turn, when it failed (see printedTurnFailure). */
function codexTurnFailure(dir: string): LoggedFailure | undefined {
  const file = join(dir, "agent", "codex.txt");
  return lastLoggedFailure(file, '"type":"turn.', (l, row) => {
    if (!l.startsWith('{"type":"turn.')) return undefined;
    const r = row();
    if (r === undefined) return undefined; // a torn line says nothing
    const failed = TurnFailed.safeParse(r);
    return failed.success ? failed.data.error.message : null;
  });
}
