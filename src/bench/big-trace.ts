import { closeSync, openSync, readFileSync, writeSync } from "node:fs";

/**
 * A Claude Code transcript of `calls` tool calls (each a call row and its result row, plus
 * the first prompt: 2·calls + 1 rows), made from a real one (`session.jsonl` of the recorded
 * claude-rm-deny run): its first user row, and its first tool call and tool result repeated
 * with fresh ids, in the same shape.
 */
export function writeBigClaudeTrace(realSession: string, out: string, calls: number): void {
  const rows = readFileSync(realSession, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  type Msg = { content?: unknown };
  const content = (r: Record<string, unknown>) => (r.message as Msg | undefined)?.content;
  const isPart = (r: Record<string, unknown>, type: string) =>
    Array.isArray(content(r)) && (content(r) as { type?: string }[]).some((p) => p.type === type);
  const prompt = rows.find((r) => r.type === "user" && typeof content(r) === "string");
  const call = rows.find((r) => r.type === "assistant" && isPart(r, "tool_use"));
  const result = rows.find((r) => r.type === "user" && isPart(r, "tool_result"));
  if (!prompt || !call || !result) throw new Error(`${realSession}: no prompt, call and result`);
  const callText = JSON.stringify(call);
  const resultText = JSON.stringify(result);
  const callId = (content(call) as { id: string }[]).find((p) => p.id)?.id as string;
  const uuids = [call.uuid, call.parentUuid, result.uuid, result.parentUuid].filter(
    (u): u is string => typeof u === "string",
  );
  const swap = (text: string, i: number) => {
    let t = text.split(callId).join(`${callId}_${i}`);
    for (const u of uuids)
      t = t.split(u).join(`${u.slice(0, 24)}${i.toString(16).padStart(12, "0")}`);
    return t;
  };
  const fd = openSync(out, "w");
  try {
    let chunk = `${JSON.stringify(prompt)}\n`;
    for (let i = 0; i < calls; i++) {
      chunk += `${swap(callText, i)}\n${swap(resultText, i)}\n`;
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = "";
      }
    }
    writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
}
