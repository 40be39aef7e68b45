import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { coreCodeStamp, fileStamp } from "../mine/mining-cache.js";
import { candidateFiles } from "../policy/files.js";
import type { Workspace } from "../workspace/load.js";
import { workspacePaths } from "../workspace/paths.js";
import { readStamped, writeStamped } from "../workspace/stamped-cache.js";
import type { RouteAudit } from "./audit.js";

/**
 * `fire route`'s last audit, kept beside the workspace index (`.fire/cache/route.json`, safe
 * to delete). The audit is a black box here: the entry is keyed by everything it reads — the
 * index's digest (the attempts, so the task texts), every candidate file (its path and
 * stamp: inode, size, mtime), whether retired candidates count, the workspace folder and
 * the code of core/ — and served only while that key is unchanged, so an unchanged
 * workspace is spared compiling every candidate (YAML, schema, pattern safety) per command.
 * Only audits without candidate errors are kept: a file that does not compile is reported
 * on every run.
 */
const VERSION = 1;

/** The key of the audit over an index-backed workspace as it is now; undefined without one. */
export function routeAuditKey(
  ws: Pick<Workspace, "dir" | "index">,
  opts: { includeRetired?: boolean },
): string | undefined {
  if (!ws.index) return undefined;
  const root = workspacePaths(ws.dir).candidates;
  let files: string[];
  try {
    files = existsSync(root) ? candidateFiles(root) : [];
  } catch {
    return undefined;
  }
  return createHash("sha256")
    .update(
      JSON.stringify({
        v: VERSION,
        code: coreCodeStamp(),
        dir: ws.dir,
        digest: ws.index.digest,
        retired: opts.includeRetired === true,
        files: files.map((f) => [f, fileStamp(f)]),
      }),
    )
    .digest("hex");
}

const cacheFile = (dir: string) => workspacePaths(dir).routeCache;

/** The audit stored under `key`, only when its bytes are the ones fire wrote. */
export function readRouteAudit(dir: string, key: string): RouteAudit | undefined {
  try {
    const { value, trusted } = readStamped(cacheFile(dir));
    const stored = value as { v?: unknown; key?: unknown; audit?: RouteAudit } | null;
    if (!trusted || stored?.v !== VERSION || stored.key !== key || !stored.audit) return undefined;
    return stored.audit;
  } catch {
    return undefined;
  }
}

/** Stores the audit under `key`; failing to write only means the next run audits again. */
export async function writeRouteAudit(dir: string, key: string, audit: RouteAudit): Promise<void> {
  const file = cacheFile(dir);
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeStamped(file, JSON.stringify({ v: VERSION, key, audit }));
  } catch {
    /* no cache: the next run audits again */
  }
}
