/**
 * Terminus episodes of a Terminal-Bench 1 trial (`agent-logs/episode-N/`): the model's
 * `response.json` (`commands[].keystrokes`, `is_task_complete`) and the `prompt.txt` it was
 * given. Past the first episode the prompt is the terminal screen the previous commands left
 * (after a note when one of them timed out), so it is read as their output; the screen after
 * the last commands is the trial's `panes/post-agent.txt`. The first prompt (the system text
 * with the instruction) is never an output.
 */

import { join } from "node:path";
import { z } from "zod";
import type { EventLog } from "./events.js";
import { isFile, readSmall, subdirs } from "./fs-util.js";
import { readJsonAs } from "./json-file.js";
import { plainTerminalText } from "./tb1-session.js";
import type { IngestItem } from "./types.js";

const Episode = z.looseObject({
  commands: z.array(z.looseObject({ keystrokes: z.string() })).nullish(),
  is_task_complete: z.boolean().nullish(),
});

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

type EpisodeResponse = z.infer<typeof Episode>;

/**
 * Which episode commands the harness sent, from `commands.txt` (every keystroke string sent,
 * in order): Terminus stops a batch at the first command that times out, so the rest of that
 * response never ran. Undefined when the file is missing or matches none of the commands (it
 * then says nothing about them).
 */
function sentCommands(
  trialDir: string,
  responses: readonly (EpisodeResponse | undefined)[],
): Set<string> | undefined {
  const text = readSmall(join(trialDir, "commands.txt"), SCREEN_CAP);
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
 * command `commands.txt` shows was never sent is not a call. Returns the read errors and how
 * many calls were logged.
 */
export async function terminusEpisodes(
  trialDir: string,
  log: EventLog,
): Promise<{ errors: IngestItem[]; calls: number }> {
  const errors: IngestItem[] = [];
  const logs = join(trialDir, "agent-logs");
  const eps = subdirs(logs).filter((n) => /^episode-\d+$/.test(n));
  eps.sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  const responses: (EpisodeResponse | undefined)[] = [];
  for (const ep of eps) {
    const f = join(logs, ep, "response.json");
    if (!isFile(f)) {
      responses.push(undefined);
      continue;
    }
    const r = await readJsonAs(f, Episode, "a Terminus episode response");
    if (r.ok) responses.push(r.value);
    else {
      errors.push({ type: "error", error: r.error });
      responses.push(undefined);
    }
  }
  const sent = sentCommands(trialDir, responses);
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
        log.result({ output: screenOutput(prompt, pending.first), callId: pending.callId });
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
    complete = r.is_task_complete === true;
  });
  // the commands of the last response still ran; the pane shows what they left
  finalScreen(trialDir, log, pending);
  if (complete) log.stop();
  return { errors, calls };
}

function finalScreen(
  trialDir: string,
  log: EventLog,
  pending: { callId: string; first: string } | undefined,
): void {
  if (!pending) return;
  const pane = readSmall(join(trialDir, "panes", "post-agent.txt"), SCREEN_CAP);
  if (pane !== undefined)
    log.result({ output: screenOutput(pane, pending.first), callId: pending.callId });
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
