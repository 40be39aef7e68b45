/**
 * The patch stage of an AutoCodeRover (v1) trial as events. `write_patch` hands the search
 * conversation to a patch agent, which answers with edits in ACR's own format (`<file>`,
 * `<original>`, `<patched>`); each answer is a try (`agent_patch_raw_<n>`), extracted into a
 * diff (`extracted_patch_<n>.diff`) when its edits match the program, with one status per
 * try in `extract_status.json`. The harness's answer to each try is a user message of the
 * patch chat (`debug_agent_write_patch_<n>.json`, the highest n the whole chat): "Your edit
 * could not be applied to the program. …" or "Extracted a patch. …".
 * `developer_patch.diff` beside them is the benchmark's gold patch: it is never read.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { AcrConversation } from "./autocoderover-schema.js";
import type { EventLog } from "./events.js";
import { readSmall } from "./fs-util.js";
import { partsText } from "./text.js";

export const APPLICABLE = "APPLICABLE_PATCH";
const REJECTED = /^Your edit could not be applied\b/;

/** The numbered files `<prefix><n><suffix>` of a folder, by number. */
export function numbered(dir: string, prefix: string, suffix: string): Map<number, string> {
  const out = new Map<number, string>();
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(suffix)) continue;
    const n = name.slice(prefix.length, name.length - suffix.length);
    if (/^\d+$/.test(n)) out.set(Number(n), join(dir, name));
  }
  return out;
}

/** The highest-numbered of them. */
export function highest(files: Map<number, string>): string | undefined {
  let best: number | undefined;
  for (const n of files.keys()) if (best === undefined || n > best) best = n;
  return best === undefined ? undefined : files.get(best);
}

/** The files a unified diff changes (`+++ b/<path>`; a deleted file by its `--- a/<path>`). */
export function diffFiles(diff: string): string[] {
  const out = new Set<string>();
  let from: string | undefined;
  for (const line of diff.split("\n")) {
    if (line.startsWith("--- ")) from = line.slice(4).trim();
    else if (line.startsWith("+++ ")) {
      const to = line.slice(4).trim().replace(/\t.*$/, "");
      const path = to === "/dev/null" ? from?.replace(/\t.*$/, "") : to;
      if (path && path !== "/dev/null") out.add(path.replace(/^[ab]\//, ""));
      from = undefined;
    }
  }
  return [...out];
}

/** Messages of the patch chat after the search conversation it starts from. */
function patchTail(chat: AcrConversation, search: AcrConversation): AcrConversation {
  // the patch agent replaces the system prompt and keeps the rest of the search chat
  let i = 1;
  while (
    i < chat.length &&
    i < search.length &&
    chat[i]?.role === search[i]?.role &&
    partsText(chat[i]?.content ?? "") === partsText(search[i]?.content ?? "")
  )
    i++;
  return chat.slice(i);
}

export interface PatchStage {
  tries: number;
  /** Whether a try's diff was extracted and applies (its files are the last call's writes). */
  applied: boolean;
}

/**
 * The patch stage's events: the patch request, then each try as a `write_patch` call (its
 * argument the model's answer, its writes the files of the diff extracted from it) with the
 * harness's answer as its result, an error when the edits could not be applied.
 */
export function patchEvents(
  dir: string,
  chat: AcrConversation | undefined,
  search: AcrConversation,
  statuses: readonly string[],
  log: EventLog,
): PatchStage {
  const raws = numbered(dir, "agent_patch_raw_", "");
  const diffs = numbered(dir, "extracted_patch_", ".diff");
  let tries = 0;
  let applied = false;
  let pending: string | undefined;
  const attempt = (answer: string): string => {
    tries++;
    const ok = statuses[tries - 1] === APPLICABLE;
    const diffFile = diffs.get(tries);
    const diff = ok && diffFile ? readSmall(diffFile, 8 << 20) : undefined;
    const writes = diff !== undefined ? diffFiles(diff) : undefined;
    if (writes && writes.length > 0) applied = true;
    const callId = `write_patch-${tries}`;
    log.call({
      tool: "write_patch",
      args: { patch: answer },
      callId,
      ...(writes && writes.length > 0 ? { writes } : {}),
    });
    return callId;
  };
  if (chat) {
    for (const m of patchTail(chat, search)) {
      const text = partsText(m.content ?? "");
      if (m.role === "assistant") pending = attempt(text);
      else if (m.role === "user" && pending) {
        const status = statuses[tries - 1];
        const rejected = status !== undefined ? status !== APPLICABLE : REJECTED.test(text);
        log.result({ output: text, callId: pending, isError: rejected ? true : undefined });
        pending = undefined;
      } else log.text("message", m.role === "user" ? "user" : "system", text);
    }
  } else {
    // no patch chat kept: the tries' raw answers, without the harness's answers
    for (const n of [...raws.keys()].sort((a, b) => a - b))
      attempt(readSmall(raws.get(n) ?? "", 8 << 20) ?? "");
  }
  if (tries > 0) log.stop();
  return { tries, applied };
}
