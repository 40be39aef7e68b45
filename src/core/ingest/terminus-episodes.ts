/**
 * Terminus episodes (`episode-N/` folders): a Terminal-Bench 1 trial's `agent-logs/`, or a
 * Harbor trial's `agent/` when no trajectory kept the actions. Each episode holds the
 * model's reply and the `prompt.txt` it was given:
 * - Terminus (1): `response.json`, parsed (`commands[].keystrokes`, `is_task_complete`);
 * - Terminus 2: `response.txt`, the model's raw text, a JSON object inside it (often after a
 *   sentence of prose: the agent tolerates extra text) with `commands[].keystrokes` and
 *   `task_complete`. Its XML reply format is not read (no run of it was seen).
 * Past the first episode the prompt is the terminal screen the previous commands left
 * (after a note when one of them timed out), so it is read as their output; a Terminus 2
 * prompt that begins "Previous response had parsing errors" says the previous reply ran
 * nothing. The screen after the last commands is the trial's final pane
 * (`panes/post-agent.txt`; Harbor's `agent/terminus_2.pane`). The first prompt (the system
 * text with the instruction) is never an output.
 */

import { join } from "node:path";
import { z } from "zod";
import type { Event } from "../model/attempt.js";
import { EventLog } from "./events.js";
import { isFile, readSmall, subdirs } from "./fs-util.js";
import { readJsonAs } from "./json-file.js";
import { plainTerminalText } from "./tb1-session.js";
import type { IngestItem } from "./types.js";

const Episode = z.looseObject({
  commands: z.array(z.looseObject({ keystrokes: z.string() })).nullish(),
  is_task_complete: z.boolean().nullish(),
});
const Terminus2Reply = z.looseObject({
  commands: z.array(z.looseObject({ keystrokes: z.string() })).nullish(),
  task_complete: z.union([z.boolean(), z.string()]).nullish(),
});
/** Largest Terminus 2 reply read (a reply is capped by the model's output limit). */
const REPLY_CAP = 1 << 20;
/** How many `{` a reply's JSON object is looked for from (linear work per start). */
const REPLY_STARTS = 8;
/** Terminus 2's prompt markers before the screen, and the confirmation's question after it. */
const T2_SCREEN = /^(?:New Terminal Output|Current Terminal Screen):\n?/m;
const T2_CONFIRM = /\n*Are you sure you want to mark the task as complete\?[\s\S]*$/;
const T2_PARSE_ERROR = /^Previous response had parsing errors:/;

/** Largest prompt or pane read as a command's output. */
const SCREEN_CAP = 4 << 20;
const TIMEOUT_NOTE = /^The previous command timed out after [\d.]+ seconds$/m;
const SCREEN_MARK = "Here is the current state of the terminal:";
const PROMPT_END = /(?:^|[#$>] )$/;

/**
 * The part of a terminal screen that the given commands produced: from the last line that
 * echoes the first command (a screen keeps older commands above it), else the whole screen.
 * A timeout note before the screen is kept as the first line.
 */
export function screenOutput(prompt: string, firstKeystrokes: string | undefined): string {
  const text = plainTerminalText(prompt);
  let screen = text;
  let note = "";
  const mark = text.indexOf(SCREEN_MARK);
  if (mark >= 0) {
    screen = text.slice(mark + SCREEN_MARK.length).replace(/^\n+/, "");
    note = TIMEOUT_NOTE.exec(text.slice(0, mark))?.[0] ?? "";
  }
  const first = firstKeystrokes?.split("\n", 1)[0]?.trim();
  if (first) {
    const lines = screen.split("\n");
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i] as string;
      const at = line.indexOf(first);
      // typed at a prompt (`…# cmd`, `…$ cmd`, `> cmd`), not quoted back in an error message
      if (at >= 0 && PROMPT_END.test(line.slice(0, at))) {
        screen = lines.slice(i).join("\n");
        break;
      }
    }
  }
  screen = screen.replace(/\s+$/, "");
  return note ? `${note}\n${screen}` : screen;
}

/** One episode's reply, whichever Terminus wrote it. */
interface EpisodeResponse {
  commands?: { keystrokes: string }[] | null;
  complete: boolean;
}

/** Where a trial keeps its episodes, its keystroke log and the screen after the last reply. */
export interface EpisodeLayout {
  /** The folder holding `episode-N/`. */
  logs: string;
  /** `commands.txt` (TB1: every string sent to the pane), if the harness writes one. */
  commands?: string;
  /** The screen after the last commands (a pane capture or a raw pane log). */
  finalPane?: string;
}

/** A Harbor trial's layout: Terminus 2 logs its episodes and raw pane in `agent/`. */
export function harborLayout(trialDir: string): EpisodeLayout {
  return {
    logs: join(trialDir, "agent"),
    finalPane: join(trialDir, "agent", "terminus_2.pane"),
  };
}

/** A Terminal-Bench 1 trial's layout. */
export function tb1Layout(trialDir: string): EpisodeLayout {
  return {
    logs: join(trialDir, "agent-logs"),
    commands: join(trialDir, "commands.txt"),
    finalPane: join(trialDir, "panes", "post-agent.txt"),
  };
}

/** Where the JSON object of a reply starting at `start` ends (string-aware), else -1. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return i;
  }
  return -1;
}

/**
 * The reply object of a Terminus 2 `response.txt`: the first JSON object in the text with
 * `commands` or `task_complete` (prose or a code fence around it is skipped). Undefined when
 * there is none: the agent then ran nothing for that reply.
 */
export function terminus2Reply(text: string): EpisodeResponse | undefined {
  let from = 0;
  for (let n = 0; n < REPLY_STARTS; n++) {
    const start = text.indexOf("{", from);
    if (start < 0) return undefined;
    from = start + 1;
    const end = objectEnd(text, start);
    if (end < 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(text.slice(start, end + 1));
    } catch {
      continue;
    }
    const r = Terminus2Reply.safeParse(value);
    if (!r.success || (r.data.commands == null && r.data.task_complete == null)) continue;
    const done = r.data.task_complete;
    return {
      commands: r.data.commands,
      complete: done === true || (typeof done === "string" && done.trim().toLowerCase() === "true"),
    };
  }
  return undefined;
}

/** The screen part of a Terminus 2 prompt (after its marker, without the confirmation question). */
function terminus2Screen(prompt: string): string {
  const m = T2_SCREEN.exec(prompt);
  const screen = m ? prompt.slice(m.index + m[0].length) : prompt;
  return screen.replace(T2_CONFIRM, "");
}

/**
 * Which episode commands the harness sent, from `commands.txt` (every keystroke string sent,
 * in order): Terminus stops a batch at the first command that times out, so the rest of that
 * response never ran. Undefined when the file is missing or matches none of the commands (it
 * then says nothing about them).
 */
function sentCommands(
  commandsPath: string | undefined,
  responses: readonly (EpisodeResponse | undefined)[],
): Set<string> | undefined {
  const text = commandsPath ? readSmall(commandsPath, SCREEN_CAP) : undefined;
  if (!text) return undefined;
  const typed: string[] = [];
  for (const line of text.split("\n")) {
    const k = typedKeystrokes(line.trim());
    if (k !== undefined) typed.push(k);
  }
  const sent = new Set<string>();
  let at = 0;
  responses.forEach((r, e) => {
    (r?.commands ?? []).forEach((c, k) => {
      // an unsent command leaves the cursor where it is: the next sent one matches there
      if (typed[at] === c.keystrokes) {
        sent.add(`${e}/${k}`);
        at++;
      }
    });
  });
  return sent.size > 0 ? sent : undefined;
}

/**
 * Reads the episodes in N order into calls (tool `keystrokes`), each episode's screen as the
 * result of its last command, and a stop where the model declared the task complete. A
 * command `commands.txt` shows was never sent is not a call, nor is one of a reply the
 * agent could not parse. Returns the read errors, how many calls were logged and the
 * instruction (Terminus 2's first prompt states it under "Task Description:").
 */
export async function terminusEpisodes(
  layout: EpisodeLayout,
  log: EventLog,
): Promise<{ errors: IngestItem[]; calls: number; taskText?: string }> {
  const errors: IngestItem[] = [];
  const { logs } = layout;
  const eps = subdirs(logs).filter((n) => /^episode-\d+$/.test(n));
  eps.sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  const responses: (EpisodeResponse | undefined)[] = [];
  // which replies are Terminus 2's (their prompts are read with its markers)
  const second: boolean[] = [];
  for (const ep of eps) {
    const f = join(logs, ep, "response.json");
    const t = join(logs, ep, "response.txt");
    if (isFile(f)) {
      second.push(false);
      const r = await readJsonAs(f, Episode, "a Terminus episode response");
      if (r.ok)
        responses.push({ commands: r.value.commands, complete: r.value.is_task_complete === true });
      else {
        errors.push({ type: "error", error: r.error });
        responses.push(undefined);
      }
    } else if (isFile(t)) {
      second.push(true);
      const text = readSmall(t, REPLY_CAP);
      responses.push(text === undefined ? undefined : terminus2Reply(text));
    } else {
      second.push(false);
      responses.push(undefined);
    }
  }
  // a Terminus 2 prompt that reports the reply before unparseable: that reply ran nothing
  eps.forEach((ep, e) => {
    if (e === 0 || !second[e - 1]) return;
    const prompt = readSmall(join(logs, ep, "prompt.txt"), SCREEN_CAP);
    if (prompt !== undefined && T2_PARSE_ERROR.test(prompt)) responses[e - 1] = undefined;
  });
  const sent = sentCommands(layout.commands, responses);
  let calls = 0;
  // the last call of the episode before, waiting for the screen it left
  let pending: { callId: string; first: string } | undefined;
  // whether the last response read declared the task complete (a later episode means the
  // harness asked again, so only the last declaration ends the run)
  let complete = false;
  eps.forEach((ep, e) => {
    if (pending) {
      const prompt = readSmall(join(logs, ep, "prompt.txt"), SCREEN_CAP);
      if (prompt !== undefined) {
        const screen = second[e - 1] ? terminus2Screen(prompt) : prompt;
        log.result({ output: screenOutput(screen, pending.first), callId: pending.callId });
        pending = undefined;
      }
    }
    const r = responses[e];
    if (!r) return;
    let first: string | undefined;
    (r.commands ?? []).forEach((c, k) => {
      if (sent && !sent.has(`${e}/${k}`)) return;
      const callId = `${ep}/${k}`;
      log.call({ tool: "keystrokes", args: c, callId });
      calls++;
      first ??= c.keystrokes;
      pending = { callId, first };
    });
    complete = r.complete;
  });
  // the commands of the last response still ran; the pane shows what they left
  if (pending && layout.finalPane) {
    const pane = readSmall(layout.finalPane, SCREEN_CAP);
    if (pane !== undefined)
      log.result({ output: screenOutput(pane, pending.first), callId: pending.callId });
  }
  if (complete) log.stop();
  const taskText = second[0] ? terminus2Task(join(logs, eps[0] ?? "", "prompt.txt")) : undefined;
  return { errors, calls, ...(taskText ? { taskText } : {}) };
}

/**
 * A Harbor trial's Terminus episodes as its events, for a trial no trajectory, session or
 * printed log kept the actions of; undefined when no episode holds a command.
 */
export async function harborEpisodes(
  trialDir: string,
  outputCap: number,
): Promise<{ events: Event[]; errors: IngestItem[]; taskText?: string } | undefined> {
  const layout = harborLayout(trialDir);
  if (!subdirs(layout.logs).some((n) => /^episode-\d+$/.test(n))) return undefined;
  const log = new EventLog(outputCap);
  const read = await terminusEpisodes(layout, log);
  if (read.calls === 0) return undefined;
  return {
    events: log.events,
    errors: read.errors,
    ...(read.taskText ? { taskText: read.taskText } : {}),
  };
}

/** The instruction in Terminus 2's first prompt: after "Task Description:", before the screen. */
function terminus2Task(promptFile: string): string | undefined {
  const text = readSmall(promptFile, SCREEN_CAP);
  if (!text) return undefined;
  const start = text.indexOf("Task Description:\n");
  if (start < 0) return undefined;
  const body = text.slice(start + "Task Description:\n".length);
  const end = body.search(/\n+Current terminal state:\n/);
  const task = (end >= 0 ? body.slice(0, end) : body).trim();
  return task || undefined;
}

/**
 * One line of a TB1 `commands.txt`: the Python `repr` of what was sent to the agent's tmux
 * pane. A string is keystrokes an agent typed; a list (`['bash ', '/tests/run-tests.sh',
 * 'Enter']`) is a harness or installed-agent launch, not an agent action: undefined.
 */
export function typedKeystrokes(line: string): string | undefined {
  const q = line[0];
  if ((q !== "'" && q !== '"') || line.length < 2 || line[line.length - 1] !== q) return undefined;
  let out = "";
  const end = line.length - 1;
  for (let i = 1; i < end; i++) {
    const c = line[i] as string;
    if (c !== "\\" || i + 1 >= end) {
      out += c;
      continue;
    }
    const n = line[++i] as string;
    const hex = (len: number) => {
      const h = line.slice(i + 1, i + 1 + len);
      const cp = /^[0-9a-fA-F]+$/.test(h) && h.length === len ? Number.parseInt(h, 16) : -1;
      if (cp < 0 || cp > 0x10ffff) return undefined;
      i += len;
      return String.fromCodePoint(cp);
    };
    if (n === "n") out += "\n";
    else if (n === "t") out += "\t";
    else if (n === "r") out += "\r";
    else if (n === "x") out += hex(2) ?? "\\x";
    else if (n === "u") out += hex(4) ?? "\\u";
    else if (n === "U") out += hex(8) ?? "\\U";
    else if (n === "\\" || n === "'" || n === '"') out += n;
    else out += `\\${n}`;
  }
  return out;
}

/**
 * Actions from `commands.txt` when no recording or episode holds them: every string the agent
 * typed, in order, without output (the file records keystrokes only). Returns how many.
 */
export function commandsFile(trialDir: string, log: EventLog): number {
  const text = readSmall(join(trialDir, "commands.txt"), SCREEN_CAP);
  if (!text) return 0;
  let calls = 0;
  for (const line of text.split("\n")) {
    const keys = typedKeystrokes(line.trim());
    if (!keys?.trim()) continue;
    log.call({ tool: "keystrokes", args: { keystrokes: keys } });
    calls++;
  }
  return calls;
}
