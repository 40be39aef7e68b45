import { existsSync } from "node:fs";
import { candidateFiles } from "../policy/files.js";
import { coreCodeStamp } from "../workspace/code-stamp.js";
import { attemptsDigest } from "../workspace/head.js";
import type { Workspace } from "../workspace/load.js";
import { workspacePaths } from "../workspace/paths.js";
import { fileStamp, keyOf, readKeyed, writeKeyed } from "../workspace/stamped-cache.js";
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

/**
 * The key of the audit over a workspace as it is now (index-backed, a full load of its
 * sources or its index's head); undefined for other sources.
 */
export function routeAuditKey(
  ws: Pick<Workspace, "dir" | "index" | "digest">,
  opts: { includeRetired?: boolean },
): string | undefined {
  const digest = attemptsDigest(ws);
  if (!digest) return undefined;
  const root = workspacePaths(ws.dir).candidates;
  let files: string[];
  try {
    files = existsSync(root) ? candidateFiles(root) : [];
  } catch {
    return undefined;
  }
  return keyOf({
    v: VERSION,
    code: coreCodeStamp(),
    dir: ws.dir,
    digest,
    retired: opts.includeRetired === true,
    files: files.map((f) => [f, fileStamp(f)]),
  });
}

const cacheFile = (dir: string) => workspacePaths(dir).routeCache;

/** The audit stored under `key`, only when its bytes are the ones fire wrote. */
export function readRouteAudit(dir: string, key: string): RouteAudit | undefined {
  return readKeyed<RouteAudit>(cacheFile(dir), VERSION, key);
}

/** Stores the audit under `key`; failing to write only means the next run audits again. */
export function writeRouteAudit(dir: string, key: string, audit: RouteAudit): Promise<void> {
  return writeKeyed(cacheFile(dir), VERSION, key, audit);
}
