import type { Event } from "../../model/attempt.js";
import { normalizeEvidence } from "../mechanisms.js";
import { outOfBudget, toolFailed } from "./paths.js";
import { approachOf, LOOP_MECHANISM_MIN } from "./repeated-failure.js";
import { commandOf, outputOf, segments, toolCalls, writtenPaths } from "./shell.js";
import type { Detector } from "./types.js";

/** A call that waits on purpose (a poll): the same answer again is what it waits through. */
function waits(call: Event): boolean {
  const cmd = commandOf(call);
  return cmd !== undefined && segments(cmd).some((s) => /^(?:sleep|wait|watch)\b/.test(s));
}

/**
 * The same look returning the same answer again and again: a search that finds nothing run
 * unchanged, the same listing read over and over. Nothing failed, so the failure loop does
 * not see it, yet the agent learnt nothing new from any repeat. Keyed by tool and the whole
 * result, verbatim; unchanged means mostly the same input again (numbers aside: `head -n 50`
 * and `head -n 500` are the same look), with no write in between. Writes are progress whatever they print, and a poll
 * waits through the same answer on purpose, so neither counts. The loop is the mechanism
 * only on a run whose budget ran out: there it ate the time the deliverable needed.
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
    for (const call of toolCalls(attempt)) {
      if (writtenPaths(call).length > 0) {
        written++;
        continue;
      }
      if (waits(call)) continue;
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
        inputs: new Set(looks.map(approachOf)),
        first: approachOf(looks[0] as Event),
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
