import { join } from "node:path";
import type { Event } from "../model/attempt.js";
import {
  appendPrinted,
  codexExecItems,
  codexJsonItems,
  type PrintedItem,
  streamJsonItems,
} from "./agent-printed.js";
import { EventLog } from "./events.js";
import { readSmall } from "./fs-util.js";

/** Printed agent logs above this size are not read (they would not fit the trace caps anyway). */
const MAX_LOG = 64 << 20;

/**
 * What a CLI agent printed, as Harbor keeps it: `agent/claude-code.txt` (the stdout of
 * `claude --output-format stream-json`) or `agent/codex.txt` (`codex exec --json` lines, or
 * its human output). Read only when the trial has no trajectory, session or API logs;
 * undefined when no such file holds an action.
 */
export function printedAgentLog(
  dir: string,
  outputCap: number,
): { events: Event[]; file: string } | undefined {
  const readers: [string, (text: string) => PrintedItem[]][] = [
    ["claude-code.txt", streamJsonItems],
    ["codex.txt", (t) => (t.includes('"type":"item.') ? codexJsonItems(t) : codexExecItems(t))],
  ];
  for (const [name, read] of readers) {
    const file = join(dir, "agent", name);
    const text = readSmall(file, MAX_LOG);
    if (!text) continue;
    const items = read(text);
    if (!items.length) continue;
    const log = new EventLog(outputCap);
    appendPrinted(log, items);
    return { events: log.events, file };
  }
  return undefined;
}
