import type { Event } from "../../model/attempt.js";
import { normalizeEvidence } from "../mechanisms.js";
import { outOfBudget, toolFailed } from "./paths.js";
import { LOOP_MECHANISM_MIN, lookOf } from "./repeated-failure.js";
import {
  commandOf,
  onlyLooks,
  outputOf,
  parseInput,
  programsOf,
  segments,
  stripHeredocs,
  toolCalls,
  writtenPaths,
} from "./shell.js";
import type { Detector } from "./types.js";

/** Tools that read a background job's output or status (`BashOutput`, `get_status`, `poll_job`). */
const WAIT_TOOL = /(?:output|status)$|^(?:wait|poll|await)/i;
/** The action of a process tool that asks for news of a job (`{"action": "poll"}`). */
const WAIT_ACTION = /^(?:poll|wait|status|log|logs|output|tail)$/i;
/** A log file: `.log` (or a rotated `.log.1`), one in a `log/` or `logs/` folder, `nohup.out`. */
const LOG_PATH = /\.log(?:\.\d+)?$|(?:^|\/)logs?\/[^/]|(?:^|\/)nohup\.out$/;
/** Programs that show which jobs still run. */
const JOB_STATUS = /^(?:jobs|ps|pgrep|pidof)$/;
/** Programs that only filter what the one before printed. */
const FILTER = /^(?:grep|egrep|head|tail|wc|awk|cut|sort)$/;
/** Quoted text, where an `&` or a `>` is no shell operator. */
const QUOTED = /'[^']*'|"[^"]*"/g;
/** A lone `&` that sends a command to the background (not `&&`, `2>&1`, `&>`, `|&`). */
const BACKGROUND = /(?:^|[^&>|<])&(?![&>\d])/;
/** The file a redirection writes (`> f`, `>> f`, `2> f`, `&> f`), not `2>&1`. */
const REDIRECT = /(?:&>>?|\d?>>?)\s*([^\s&;|<>()]+)/g;

/** The words of a shell command, quotes taken off. */
const words = (cmd: string): string[] =>
  cmd
    .split(/[\s;|&()]+/)
    .map((w) => w.replace(/^['"]+|['"]+$/g, ""))
    .filter(Boolean);

/** Files a command sent to the background writes its output to (`make > build.log 2>&1 &`). */
function backgroundOutputs(cmd: string): string[] {
  const plain = stripHeredocs(cmd).replace(QUOTED, " ");
  if (!BACKGROUND.test(plain)) return [];
  return [...plain.matchAll(REDIRECT)]
    .map((m) => m[1] ?? "")
    .filter((p) => p !== "" && p !== "/dev/null");
}

const samePlace = (a: string, b: string): boolean =>
  a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);

/**
 * A call that waits on purpose (a poll): the same answer again is what it waits through. A
 * pause (`sleep`, `wait`, `watch`), a tool that reads a background job's output or status
 * (`BashOutput`, a process tool's `poll`), a look at which jobs still run, or a read of a log
 * file or of a file a background job writes (`tail -n 2 build.log` on a harness that waits
 * by a duration, not by `sleep`).
 */
function waits(call: Event, bgOutputs: readonly string[]): boolean {
  const cmd = commandOf(call);
  if (cmd === undefined) {
    const tool = (call.tool ?? "").split(/__|[.:/]/).at(-1) ?? "";
    const action = parseInput(call)?.action;
    return WAIT_TOOL.test(tool) || (typeof action === "string" && WAIT_ACTION.test(action));
  }
  const paused = (seg: string) =>
    /^(?:sleep|wait|watch)\b/.test(seg) ||
    (/^tail\b/.test(seg) && /\s(?:-[a-zA-Z]*[fF]|--follow)\b/.test(seg));
  if (segments(cmd).some(paused)) return true;
  // `ps aux | grep cargo`, `jobs`: which jobs still run (nothing written)
  const progs = programsOf(cmd);
  const redirected = />/.test(cmd.replace(/\d*>&\d+|\d*>>?\s*\/dev\/null/g, ""));
  if (
    !redirected &&
    progs.some((p) => JOB_STATUS.test(p)) &&
    progs.every((p) => JOB_STATUS.test(p) || FILTER.test(p))
  )
    return true;
  if (!onlyLooks(call)) return false;
  return words(cmd).some((w) => LOG_PATH.test(w) || bgOutputs.some((p) => samePlace(w, p)));
}

/**
 * The same look returning the same answer again and again: a search that finds nothing run
 * unchanged, the same listing read over and over. Nothing failed, so the failure loop does
 * not see it, yet the agent learnt nothing new from any repeat. Keyed by tool and the whole
 * result, verbatim; unchanged means mostly the same input again (an option's number aside:
 * `head -n 50` and `head -n 500` are the same look; `/items/1` and `/items/6` are not), with
 * no write in between. Writes are progress whatever they print, and a poll (a pause, a read of
 * a background job's output, status or log) waits through the same answer on purpose, so
 * neither counts. The loop is the mechanism only on a run whose budget ran out: there it ate
 * the time the deliverable needed.
 */
export const noProgress: Detector = {
  id: "loop.no-progress",
  description: `the same call returning the same result ${LOOP_MECHANISM_MIN}+ times`,
  detect(attempt) {
    // looks grouped by the writes before them, tool and result; a group is read further only
    // when it is long enough to be a loop (most are single looks)
    const groups = new Map<string, { calls: Event[]; tool: string; result: string }>();
    // writes so far: a look repeated after a write looks at something new (the edit-run
    // cycle of a fix that does not yet work), so only looks between the same writes repeat
    let written = 0;
    // files background jobs write to, so far: reading one again is waiting on the job
    const bgOutputs: string[] = [];
    for (const call of toolCalls(attempt)) {
      bgOutputs.push(...backgroundOutputs(commandOf(call) ?? ""));
      if (writtenPaths(call).length > 0) {
        written++;
        continue;
      }
      if (waits(call, bgOutputs)) continue;
      const tool = call.tool ?? "tool";
      // the very same text: numbers in a result are what changed (a count, a line)
      const result = outputOf(attempt, call).trim();
      const key = `${written}\u0000${tool}\u0000${result}`;
      const g = groups.get(key) ?? { calls: [], tool, result };
      g.calls.push(call);
      groups.set(key, g);
    }
    const seen: {
      idx: number[];
      tool: string;
      inputs: Set<string>;
      first: string;
      result: string;
    }[] = [];
    for (const g of groups.values()) {
      if (g.calls.length < LOOP_MECHANISM_MIN) continue;
      // (a failing call repeated is the failure loop's: loop.repeated-failure)
      const looks = g.calls.filter((c) => !toolFailed(attempt, c));
      if (looks.length < LOOP_MECHANISM_MIN) continue;
      seen.push({
        idx: looks.map((c) => c.index),
        tool: g.tool,
        inputs: new Set(looks.map(lookOf)),
        first: lookOf(looks[0] as Event),
        result: g.result,
      });
    }
    const ranOut = outOfBudget(attempt);
    return seen
      .filter((e) => e.inputs.size <= e.idx.length / 2)
      .sort((x, y) => y.idx.length - x.idx.length || (x.tool < y.tool ? -1 : 1))
      .map((e) => {
        const said = e.result ? `"${normalizeEvidence(e.result, 80)}"` : "nothing";
        return {
          eventIndices: e.idx,
          reason: `${e.idx.length}× ${e.tool} returned the same result (${said}) (on: ${e.first.slice(0, 80)})`,
          signature: `${e.tool}: same result`,
          ...(ranOut ? { mechanism: "repeated-tool-error" } : {}),
        };
      });
  },
};
