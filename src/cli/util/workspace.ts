import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { type InputError, UsageError } from "../../core/errors.js";
import { loadWorkspace, type Workspace } from "../../core/workspace/load.js";

/** Adds the `--workspace DIR` option every command takes (default: current folder). */
export function withWorkspace(cmd: Command): Command {
  return cmd.option("-w, --workspace <dir>", "workspace folder", ".");
}

/** The workspace folder from the options, checked to exist (a usage error otherwise). */
export function workspaceDir(opts: { workspace?: string }): string {
  const dir = resolve(opts.workspace ?? ".");
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`workspace folder not found: ${dir}`);
  return dir;
}

/** Loads the workspace, showing progress on stderr only when it is a terminal. */
export async function openWorkspace(
  opts: { workspace?: string },
  sources?: string[],
): Promise<Workspace> {
  const dir = workspaceDir(opts);
  const tty = process.stderr.isTTY === true;
  // FIRE_PARSE_WORKERS_AFTER: parse in worker threads after this many units (default 32).
  const after = Number.parseInt(process.env.FIRE_PARSE_WORKERS_AFTER ?? "", 10);
  const ws = await loadWorkspace(dir, {
    ...(sources ? { sources } : {}),
    ...(Number.isInteger(after) && after >= 0 ? { workersAfter: after } : {}),
    ...(tty
      ? {
          onProgress: (p) => {
            process.stderr.write(`\rreading ${p.done}/${p.total ?? "?"} units`);
          },
        }
      : {}),
  });
  if (tty && ws.stats.units > 0) process.stderr.write("\r\x1b[K");
  return ws;
}

/** `printJson` lives with the other output helpers (util/out.ts). */
export { printJson } from "./out.js";

/** Prints input errors (`fire: file:line: reason`) on stderr, one a line. */
export function printErrors(errors: readonly InputError[]): void {
  for (const e of errors) process.stderr.write(`fire: ${e.format()}\n`);
}
