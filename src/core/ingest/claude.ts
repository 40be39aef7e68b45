import { basename, dirname } from "node:path";
import type { z } from "zod";
import { ClaudeSession, ConversationRow } from "./claude-session.js";
import { type JsonlRow, streamRows } from "./jsonl.js";
import { attemptId, sessionTaskId } from "./text.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";

/** Content detection: Claude Code rows carry `"type":"user|assistant|…"` and a `sessionId`. */
const CLAUDE_HEAD =
  /"type":"(?:user|assistant|queue-operation|summary|file-history-snapshot|attachment|last-prompt)"/;

/** Stream a Claude Code transcript into a session; bad lines come back as error items. */
export async function* readClaudeSession(
  path: string,
  options: IngestOptions,
  out: { session?: ClaudeSession },
): AsyncGenerator<IngestItem> {
  const s = new ClaudeSession(options.outputCap);
  out.session = s;
  let good = 0;
  for await (const item of streamRows(path, options.signal)) {
    if (item.type === "error") {
      yield item;
      continue;
    }
    const r = item.row as JsonlRow;
    let parsed: z.infer<typeof ConversationRow> | undefined;
    if (r.type === "user" || r.type === "assistant") {
      const v = ConversationRow.safeParse(r);
      if (!v.success) {
        yield item.invalid("a Claude Code user/assistant row", v.error.issues);
        continue;
      }
      parsed = v.data;
    }
    good++;
    s.row(r, parsed);
  }
  s.finish();
  if (!good) out.session = undefined;
}

export type { ClaudeSession };

function finalTurn(s: ClaudeSession, file: string) {
  const t = s.finalTurn();
  return t ? { ...t, file } : undefined;
}

/** Claude Code transcript JSONL (`~/.claude/projects/<slug>/<session>.jsonl`). */
export const claudeImporter: Importer = {
  format: "claude-transcript",
  detect: (_p, head, isDirectory) =>
    !isDirectory &&
    head.trimStart().startsWith("{") &&
    /"sessionId":"/.test(head) &&
    CLAUDE_HEAD.test(head),
  async *read(path: string, options: IngestOptions): AsyncIterable<IngestItem> {
    const out: { session?: ClaudeSession } = {};
    yield* readClaudeSession(path, options, out);
    const s = out.session;
    if (!s) return;
    // sub-agent transcripts share the parent's sessionId: tell them apart by file name
    const identity = s.sidechain
      ? `${s.sessionId ?? ""}/${basename(path)}`
      : (s.sessionId ?? basename(path));
    yield {
      type: "attempt",
      attempt: {
        id: attemptId("claude", identity),
        source: { format: "claude-transcript", path },
        // the folder it ran in; a log without `cwd` rows: the folder the transcript is in
        taskId: sessionTaskId(s.taskText, s.cwd ?? basename(dirname(path))),
        taskText: s.taskText,
        agent: "claude-code",
        model: s.model,
        outcome: "unknown",
        costUsd: s.costUsd,
        tokens: s.tokens(),
        agentEnd: finalTurn(s, path),
        startedAt: s.startedAt,
        links: s.sidechain && s.sessionId ? [{ kind: "parent", ref: s.sessionId }] : undefined,
        events: s.log.events,
      },
    };
  },
};
