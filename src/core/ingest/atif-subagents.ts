import { dirname, isAbsolute, join } from "node:path";
import type { AttemptInput, SourceFormat } from "../model/attempt.js";
import { type AtifParts, atifAttemptFields, atifParts } from "./atif.js";
import { Atif, type AtifSubagentRef } from "./atif-schema.js";
import { isFile } from "./fs-util.js";
import { readJsonAs } from "./json-file.js";
import { attemptId } from "./text.js";
import type { IngestItem, IngestOptions } from "./types.js";

/** What a sub-agent attempt takes from the attempt that delegated to it. */
export interface ParentInfo {
  /** Id family and identity of the parent (sub-agent ids extend it). */
  family: string;
  identity: string;
  format: SourceFormat;
  /** What the sub-agent's `parent` link names: the parent's trajectory_id, session_id or file. */
  ref: string;
  taskId: string;
  taskText: string;
}

const MAX_DEPTH = 8;

/** The parent link a trajectory's own sub-agents name it by. */
export function parentRef(traj: Atif, file: string): string {
  return traj.trajectory_id ?? traj.session_id ?? file;
}

function stepRefs(traj: Atif): AtifSubagentRef[] {
  const out: AtifSubagentRef[] = [];
  for (const s of traj.steps) {
    if (s.is_copied_context) continue;
    for (const r of s.observation?.results ?? []) {
      const refs = r.subagent_trajectory_ref;
      out.push(...(Array.isArray(refs) ? refs : refs ? [refs] : []));
    }
  }
  return out;
}

/** A file ref we can open: a relative or absolute local path (not a URL or database id). */
function localPath(ref: string, file: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(ref)) return undefined;
  return isAbsolute(ref) ? ref : join(dirname(file), ref);
}

function subAttempt(key: string, path: string, parent: ParentInfo, p: AtifParts): AttemptInput {
  return {
    id: attemptId(parent.family, `${parent.identity}/subagent/${key}`, key),
    source: { format: parent.format, path },
    taskId: parent.taskId,
    taskText: parent.taskText,
    ...atifAttemptFields(p),
    links: [{ kind: "parent", ref: parent.ref }, ...p.links],
    events: p.events.events,
  };
}

/**
 * The sub-agents a trajectory delegated to, each as its own attempt linked to its
 * parent (ATIF v1.7): embedded `subagent_trajectories` by `trajectory_id`, and
 * step refs by `trajectory_path` (a file beside `file`). A ref whose file is not
 * there stays a link only; a file that is not ATIF is reported and skipped.
 */
export async function* subagentAttempts(
  traj: Atif,
  file: string,
  parent: ParentInfo,
  options: IngestOptions,
  seen: Set<string> = new Set([file]),
  depth = 0,
): AsyncGenerator<IngestItem> {
  if (depth >= MAX_DEPTH) return;
  const embedded = traj.subagent_trajectories ?? [];
  const subs: { key: string; traj: Atif; path: string }[] = embedded.map((t, i) => ({
    key: t.trajectory_id ?? t.session_id ?? `subagent-${i + 1}`,
    traj: t,
    path: file,
  }));
  const ids = new Set(embedded.map((t) => t.trajectory_id).filter(Boolean));
  for (const ref of stepRefs(traj)) {
    if (ref.trajectory_id && ids.has(ref.trajectory_id)) continue;
    const path = ref.trajectory_path ? localPath(ref.trajectory_path, file) : undefined;
    if (!path || seen.has(path) || !isFile(path)) continue;
    seen.add(path);
    const t = await readJsonAs(
      path,
      Atif,
      "an ATIF sub-agent trajectory (schema_version, steps[])",
    );
    if (!t.ok) {
      yield { type: "error", error: t.error };
      continue;
    }
    subs.push({ key: ref.trajectory_id ?? ref.trajectory_path!, traj: t.value, path });
  }
  for (const s of subs) {
    const p = atifParts(s.traj, options);
    const attempt = subAttempt(s.key, s.path, parent, p);
    yield { type: "attempt", attempt };
    const child: ParentInfo = {
      ...parent,
      identity: `${parent.identity}/subagent/${s.key}`,
      ref: s.traj.trajectory_id ?? s.key,
    };
    yield* subagentAttempts(s.traj, s.path, child, options, seen, depth + 1);
  }
}
