import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import type { WorkspaceHead } from "../../core/app/cached-reads.js";
import { type InputError, UsageError } from "../../core/errors.js";
import type { LoadProgress, Workspace } from "../../core/workspace/load.js";
import { printErr } from "./out.js";

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

/** FIRE_PARSE_WORKERS_AFTER: parse in worker threads after this many units (default 32). */
export function workersAfter(): { workersAfter?: number } {
  const after = Number.parseInt(process.env.FIRE_PARSE_WORKERS_AFTER ?? "", 10);
  return Number.isInteger(after) && after >= 0 ? { workersAfter: after } : {};
}

/** Progress on stderr only when it is a terminal: `reading 3/89 units`, with why when given. */
function progressLine(why?: () => string | undefined): {
  onProgress?: (p: LoadProgress) => void;
  clear: () => void;
} {
  if (process.stderr.isTTY !== true) return { clear: () => undefined };
  let shown = false;
  return {
    onProgress: (p) => {
      shown = true;
      const reason = why?.();
      process.stderr.write(
        `\r${reason ? `${reason}: ` : ""}reading ${p.done}/${p.total ?? "?"} units`,
      );
    },
    clear: () => {
      if (shown) process.stderr.write("\r\x1b[K");
    },
  };
}

/** Loads the workspace (every source unit, parsed or from the parse cache; rewrites the index). */
export async function openWorkspace(
  opts: { workspace?: string },
  sources?: string[],
): Promise<Workspace> {
  const dir = workspaceDir(opts);
  const progress = progressLine();
  const { loadWorkspace } = await import("../../core/app/open.js");
  const ws = await loadWorkspace(dir, {
    ...(sources ? { sources } : {}),
    ...workersAfter(),
    ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
  });
  progress.clear();
  return ws;
}

/**
 * The workspace for a read command: from its index while the sources' stamps match it (no
 * parsing, faults precomputed, events read on first use), else read again — on a terminal
 * the progress line says why (`sources changed: reading 3/89 units`).
 */
export async function openCurrent(opts: { workspace?: string }): Promise<Workspace> {
  const dir = workspaceDir(opts);
  let why: string | undefined;
  const progress = progressLine(() => why);
  const { openCurrentWorkspace } = await import("../../core/app/open.js");
  const ws = await openCurrentWorkspace(dir, {
    ...workersAfter(),
    ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
    onStale: (reason) => {
      why = reason === "no index" ? "no index yet" : "sources changed since the index";
    },
  });
  progress.clear();
  return ws;
}

/**
 * The workspace's index head for a read command's cached answer (core/app/cached-reads.ts):
 * undefined when the index no longer matches the sources, and the command opens the
 * workspace with `openCurrent`, which reads them again.
 */
export async function openHead(opts: { workspace?: string }): Promise<WorkspaceHead | undefined> {
  const dir = workspaceDir(opts);
  const { workspaceHead } = await import("../../core/app/cached-reads.js");
  return workspaceHead(dir);
}

/** `printJson` lives with the other output helpers (util/out.ts). */
export { printJson } from "./out.js";

/** Prints input errors (`fire: file:line: reason`) on stderr, one a line. */
export function printErrors(errors: readonly InputError[]): void {
  for (const e of errors) printErr(`fire: ${e.format()}\n`);
}
