import type { Attempt, Event } from "../../model/attempt.js";
import { baseName, escapeRe } from "./paths.js";
import { commandOf, resultOf, segments, toolCalls } from "./shell.js";

/*
 * Where a directory listing the agent ran shows a file: `cd /app && … && ls -la` lists
 * /app, `ls /app/out` lists /app/out. Only a call with exactly one listing is read (its
 * output is that listing), and only absolute directories: a relative one would need the
 * shell's working directory, which a trace does not record.
 */

/** The absolute directory the call's one `ls` lists, if the call has exactly one. */
export function listedDir(cmd: string): string | undefined {
  let cwd: string | undefined;
  let dir: string | undefined;
  let listings = 0;
  for (const seg of segments(cmd)) {
    const words = seg.split(/\s+/);
    if (words[0] === "cd") {
      const to = words[1];
      cwd = to?.startsWith("/") ? to.replace(/\/+$/, "") || "/" : undefined;
      continue;
    }
    if (words[0] !== "ls") continue;
    listings++;
    if (seg.includes("|")) return undefined;
    const args = words.slice(1).filter((w) => !w.startsWith("-"));
    if (args.length > 1) return undefined;
    const arg = args[0];
    dir = arg === undefined ? cwd : arg.startsWith("/") ? arg.replace(/\/+$/, "") : undefined;
  }
  return listings === 1 ? dir : undefined;
}

/**
 * The call whose listing shows a file named like `path` in another absolute directory than
 * `path`'s, with that directory: the file was produced (extracted, built, moved) but left there.
 */
export function listedElsewhere(
  a: Attempt,
  path: string,
): { call: Event; dir: string } | undefined {
  if (!path.startsWith("/")) return undefined;
  const b = baseName(path);
  if (b.length < 3) return undefined;
  const want = path.slice(0, path.length - b.length).replace(/\/+$/, "");
  const name = new RegExp(`(?:^|\\s)${escapeRe(b)}(?=\\s|$)`, "m");
  for (const call of toolCalls(a)) {
    const dir = listedDir(commandOf(call) ?? "");
    if (!dir || dir === want) continue;
    if (name.test(resultOf(a, call)?.output ?? "")) return { call, dir };
  }
  return undefined;
}
