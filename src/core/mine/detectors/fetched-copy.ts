import type { Attempt, Event } from "../../model/attempt.js";
import { EXISTING_CODE, EXISTING_CODE_ROLE } from "./existing-code.js";
import {
  cdTarget,
  emptySearches,
  isPartialEdit,
  notFoundCalls,
  resolveIn,
  seenExisting,
} from "./paths.js";
import { callFailed, commandOf, segments, toolCalls, writtenPaths } from "./shell.js";
import type { Detector } from "./types.js";

/**
 * A task that asks the agent to fetch code itself (clone or download a repository, its
 * source or an archive) or names a code host to fetch from; a task about downloads (a
 * downloader's error messages) is not one.
 */
const ASKS_TO_FETCH =
  /\b(?:clone|download|fetch|check\s?out)\w*\s+(?:(?:the|a|an|its|this|that|their|upstream)\s+)?(?:[\w.-]+\s+)?(?:repo|repository|source|sources|code|project|tarball|archive|release)\b|\bgit\s+clone\b|\bhttps?:\/\/(?:www\.)?(?:github|gitlab|bitbucket|codeberg)\.\w+/i;

/** `git clone …` or `gh repo clone …` at command position. */
const CLONE = /^(?:sudo\s+)?(?:git\s+(?:-[Cc]\s+\S+\s+)?clone|gh\s+repo\s+clone)\s+(.*)$/;
/** Options of `git clone` that take a value in the next word. */
const WITH_VALUE = new Set([
  "--depth",
  "--branch",
  "-b",
  "--origin",
  "-o",
  "--reference",
  "--config",
  "-c",
  "--jobs",
  "-j",
  "--filter",
  "--shallow-since",
  "--shallow-exclude",
  "--template",
  "--separate-git-dir",
  "--upload-pack",
  "-u",
]);
/**
 * A remote on another host: a URL or `user@host:path` whose host has a dot and is not this
 * machine or a private address (a task's own git server on `localhost` is part of the task).
 */
const REMOTE = /^(?:(?:https?|git|ssh):\/\/(?:[^@/\s]+@)?|[\w.-]+@)([\w-]+(?:\.[\w-]+)+)[/:]/;
const LOCAL_HOST = /^(?:localhost|127\.|10\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.)/;

interface Fetch {
  call: Event;
  url: string;
  /** Where the copy went: the clone's folder, resolved against a `cd` in the same command. */
  dest: string;
}

function words(s: string): string[] {
  return s
    .replace(/\s*(?:\d?>&?\d?\s*\S+|\|.*)$/, "")
    .split(/\s+/)
    .filter((w) => w && !/^\d?>/.test(w))
    .map((w) => w.replace(/^['"]|['"]$/g, ""));
}

/** The clones of another host's repository in a call, with where each copy went. */
function fetchesIn(call: Event): Fetch[] {
  const out: Fetch[] = [];
  let cwd: string | undefined;
  for (const seg of segments(commandOf(call) ?? "")) {
    const cd = cdTarget(seg);
    if (cd) {
      cwd = resolveIn(cwd, cd) ?? cd;
      continue;
    }
    const m = CLONE.exec(seg);
    if (!m) continue;
    const args: string[] = [];
    const ws = words(m[1] ?? "");
    for (let i = 0; i < ws.length; i++) {
      const w = ws[i] as string;
      if (w.startsWith("-")) {
        if (WITH_VALUE.has(w)) i++;
        continue;
      }
      args.push(w);
    }
    const [url, dir] = args;
    const host = url ? REMOTE.exec(url)?.[1] : undefined;
    if (!url || !host || LOCAL_HOST.test(host)) continue;
    const name =
      dir ??
      url
        .replace(/\/+$/, "")
        .replace(/\.git$/, "")
        .split(/[/:]/)
        .at(-1) ??
      "";
    const dest =
      name === "."
        ? (cwd ?? "")
        : name.startsWith("/") || !cwd
          ? name
          : `${cwd.replace(/\/$/, "")}/${name}`;
    if (dest) out.push({ call, url, dest });
  }
  return out;
}

/** Whether a call works in the copy: names its folder as a path, or writes under it. */
function inCopy(c: Event, dest: string): boolean {
  const name = dest.split("/").filter(Boolean).at(-1) ?? dest;
  const text = `${commandOf(c) ?? ""}\n${c.input ?? ""}`;
  const asPath = dest.startsWith("/")
    ? text.includes(dest)
    : new RegExp(
        `(?:^|[\\s"'/=])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:/|\\s|$|["'])`,
      ).test(text);
  return asPath || writtenPaths(c).some((p) => p.startsWith(dest));
}

/** Scratch folders: a file written there belongs to no project. */
const SCRATCH = /^\/(?:tmp|var\/tmp|dev)(?:\/|$)/;

/** Whether a path lies in the copy (a relative copy: that folder, wherever it stands). */
function underCopy(p: string, dest: string): boolean {
  const d = dest.replace(/\/+$/, "");
  if (p === d || p.startsWith(`${d}/`)) return true;
  return !d.startsWith("/") && p.includes(`/${d}/`);
}

/** A shell edit in place: `sed -i`, `perl -i`, `patch`, `git apply`. */
const EDIT_IN_PLACE = /\b(?:sed|perl)\s+(?:-\S+\s+)*-[a-zA-Z]*i|\bpatch\b|\bgit\s+(?:apply|am)\b/;

/**
 * Whether the call changed a file that was there before: an edit of part of it, a shell edit
 * in place, or a write of a file an earlier call had read or listed. A file created new (a
 * helper script beside the copy) changes nothing that was there.
 */
function changesExisting(a: Attempt, c: Event, path: string): boolean {
  if (isPartialEdit(c) || EDIT_IN_PLACE.test(commandOf(c) ?? "")) return true;
  return seenExisting(a, path, c.index);
}

/** The files a call wrote, relative ones resolved against a `cd` in the same command. */
function writesOf(c: Event): string[] {
  let cwd: string | undefined;
  for (const seg of segments(commandOf(c) ?? "")) {
    const cd = cdTarget(seg);
    if (cd) cwd = resolveIn(cwd, cd) ?? cd;
  }
  return writtenPaths(c).map((p) => resolveIn(cwd, p) ?? p);
}

/**
 * The agent looked for the code the task is about, found nothing, fetched a fresh copy of a
 * repository from another host and worked in that copy: the task's own checkout, which the
 * verifier grades, was never found. Only for a task about code already present (it speaks of
 * "this repository", existing behaviour) that never asks to clone or download anything; a
 * copy the agent never used again, or a clone that failed, is not read so, nor a copy the
 * agent only read: it must have changed files in the copy and none outside it (but scratch
 * folders such as `/tmp`), so a clone kept for reference beside edits of the task's own tree
 * is no such reading. Nothing names a task, host or benchmark: the searches, the clone and the
 * later calls are the agent's own.
 */
export const fetchedOwnCopy: Detector = {
  id: "input.fetched-own-copy",
  description:
    "searches for the task's code found nothing; the agent cloned its own copy and worked there",
  mechanism: "task-input-missed",
  taskRole: EXISTING_CODE_ROLE,
  detect(attempt) {
    if (attempt.outcome === "pass") return [];
    if (!EXISTING_CODE.test(attempt.taskText) || ASKS_TO_FETCH.test(attempt.taskText)) return [];
    const calls = toolCalls(attempt);
    const misses = [...notFoundCalls(attempt), ...emptySearches(attempt)];
    for (const call of calls) {
      for (const f of fetchesIn(call)) {
        if (callFailed(attempt, call)) continue;
        const before = misses.filter((m) => m.index < call.index);
        if (before.length === 0) continue;
        const later = calls.filter((c) => c.index > call.index && inCopy(c, f.dest));
        if (later.length < 2) continue;
        // the work went into the copy, and no file of another tree (the graded one) was
        // changed: a new helper script beside the copy is no work on another tree
        const written = calls.flatMap((c) => writesOf(c).map((p) => ({ c, p })));
        if (!written.some(({ p }) => underCopy(p, f.dest))) continue;
        if (
          written.some(
            ({ c, p }) =>
              !underCopy(p, f.dest) && !SCRATCH.test(p) && changesExisting(attempt, c, p),
          )
        )
          continue;
        return [
          {
            eventIndices: [
              ...before.slice(-2).map((m) => m.index),
              call.index,
              (later.at(-1) as Event).index,
            ],
            reason: `${before.length} search(es) for the task's code found nothing; the agent cloned ${f.url} into ${f.dest} and worked there (${later.length} call(s))`,
            signature: "worked in a copy it fetched itself",
          },
        ];
      }
    }
    return [];
  },
};
