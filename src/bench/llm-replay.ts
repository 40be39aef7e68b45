import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { readJsonAs } from "../core/ingest/json-file.js";
import { chatCompletionBody, LoopbackServer } from "./loopback-server.js";

/**
 * A loopback OpenAI-compatible server that answers fire's labelling requests from a
 * recording, so the LLM labeller is measured deterministically (issue 22 acceptance).
 *
 * Recording file format (JSON, `kind: "fire-llm-recording"`, version 1):
 *
 * ```json
 * {
 *   "kind": "fire-llm-recording",
 *   "version": 1,
 *   "about": "who answered, from what, when (free text)",
 *   "entries": [
 *     {
 *       "attemptId": "<the attempt id, as fire's prompt header names it: `Attempt <id> · …`>",
 *       "schema": "fire_label",
 *       "schemaVersion": "label-answer@3",
 *       "promptSha256": "<optional: SHA-256 of the user message the answer was written for>",
 *       "systemSha256": "<SHA-256 of the system message it was written under; with promptSha256>",
 *       "answer": { …the JSON object the model answered… }
 *     }
 *   ]
 * }
 * ```
 *
 * A request is matched by the attempt id its user message names and by the response
 * format's schema name (`fire_label`; JSON-object mode has none and matches any). An entry
 * whose `promptSha256` differs from the request's is still answered and counted `stale`
 * (the digest changed since it was recorded; the labels may no longer follow from what the
 * model now sees); so is a versioned entry (one with `promptSha256`) whose `systemSha256` is
 * missing or differs: the instructions and the mechanism catalogue live in the system message,
 * and an answer written under other instructions is not an answer to this request. An entry
 * without `promptSha256` is unversioned (hand-written) and never stale. An unmatched request gets a 400 (no retries) and is kept in `unmatched`
 * with its prompt, so a reviewer can answer it and extend the recording.
 */

const Entry = z.strictObject({
  attemptId: z.string().min(1),
  schema: z.string().min(1).default("fire_label"),
  schemaVersion: z.string().optional(),
  promptSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  systemSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** Free text: why the reviewer answered so (not sent). */
  note: z.string().optional(),
  answer: z.record(z.string(), z.unknown()),
});
export type RecordedEntry = z.infer<typeof Entry>;

export const Recording = z.strictObject({
  kind: z.literal("fire-llm-recording"),
  version: z.literal(1),
  about: z.string().optional(),
  entries: z.array(Entry),
});
export type Recording = z.infer<typeof Recording>;

/** Reads and validates a recording file; errors name the file and the failing fields. */
export async function readRecording(file: string): Promise<Recording> {
  const r = await readJsonAs(file, Recording, "a fire-llm-recording (see src/bench/llm-replay.ts)");
  if (!r.ok) throw r.error;
  return r.value;
}

/** SHA-256 (hex) of a prompt's user message, as `promptSha256` records it. */
export function promptSha256(userMessage: string): string {
  return createHash("sha256").update(userMessage).digest("hex");
}

/** The attempt a labelling prompt is about (its header: `Attempt <id> · …`). */
export function attemptOfPrompt(userMessage: string): string | undefined {
  return /^Attempt (\S+) ·/.exec(userMessage)?.[1];
}

export interface ReplayStats {
  /** Chat completion requests received (repairs included). */
  requests: number;
  answered: number;
  /** Answered from an entry recorded for another prompt text (see the format notes). */
  stale: number;
  /** The attempts answered from a stale entry. */
  staleIds: string[];
  /** The requests answered from a stale entry, with the prompt now sent (to answer again). */
  stalePrompts: ReplayPrompt[];
  unmatched: ReplayPrompt[];
}

/** A request's prompt as the replay server received it. */
export interface ReplayPrompt {
  attemptId: string | undefined;
  schema: string | undefined;
  promptSha256: string;
  /** SHA-256 of the system message as sent. */
  systemSha256: string;
  /** The system message as sent (empty when there was none). */
  system: string;
  prompt: string;
}

interface ChatMessage {
  role: string;
  content?: unknown;
}

/** The replaying server. `baseURL` goes in OPENAI_BASE_URL (any API key works). */
export class ReplayServer extends LoopbackServer {
  readonly stats: ReplayStats = {
    requests: 0,
    answered: 0,
    stale: 0,
    staleIds: [],
    stalePrompts: [],
    unmatched: [],
  };
  private readonly byKey = new Map<string, RecordedEntry>();

  constructor(recording: Recording) {
    super();
    for (const e of recording.entries) this.byKey.set(`${e.schema}\u0000${e.attemptId}`, e);
  }

  protected handle(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    this.route(req, body.toString("utf8"), res);
  }

  private find(schema: string | undefined, attemptId: string): RecordedEntry | undefined {
    if (schema) return this.byKey.get(`${schema}\u0000${attemptId}`);
    for (const [k, e] of this.byKey) if (k.endsWith(`\u0000${attemptId}`)) return e;
    return undefined;
  }

  private route(req: IncomingMessage, raw: string, res: ServerResponse): void {
    const reply = this.reply(req, raw);
    send(res, reply.status, reply.body);
  }

  private reply(req: IncomingMessage, raw: string): { status: number; body: unknown } {
    const path = (req.url ?? "").replace(/\?.*$/, "");
    if (req.method !== "POST" || !path.endsWith("/chat/completions"))
      return send2(404, { error: { message: `no route ${req.method} ${path}` } });
    let body: {
      model?: string;
      messages?: ChatMessage[];
      response_format?: { json_schema?: { name?: string } };
    };
    try {
      body = JSON.parse(raw);
    } catch {
      return send2(400, { error: { message: "request body is not JSON" } });
    }
    this.stats.requests += 1;
    // the first user message is the prompt (a repair request appends more after it)
    const user = (body.messages ?? []).find((m) => m.role === "user");
    const prompt = typeof user?.content === "string" ? user.content : "";
    const sys = (body.messages ?? []).find((m) => m.role === "system");
    const system = typeof sys?.content === "string" ? sys.content : "";
    const schema = body.response_format?.json_schema?.name;
    const attemptId = attemptOfPrompt(prompt);
    const sha = promptSha256(prompt);
    const systemSha = promptSha256(system);
    const sent: ReplayPrompt = {
      attemptId,
      schema,
      promptSha256: sha,
      systemSha256: systemSha,
      system,
      prompt,
    };
    const entry = attemptId ? this.find(schema, attemptId) : undefined;
    if (!entry) {
      this.stats.unmatched.push(sent);
      return send2(400, {
        error: {
          message: `no recorded answer for attempt ${attemptId ?? "?"} (${schema ?? "any schema"})`,
        },
      });
    }
    this.stats.answered += 1;
    if (entry.promptSha256 && (entry.promptSha256 !== sha || entry.systemSha256 !== systemSha)) {
      this.stats.stale += 1;
      this.stats.staleIds.push(entry.attemptId);
      this.stats.stalePrompts.push(sent);
    }
    const content = JSON.stringify(entry.answer);
    return send2(200, chatCompletionBody(content, body.model ?? "replay", prompt.length));
  }
}

const send2 = (status: number, body: unknown) => ({ status, body });

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Starts a replay server for a recording (a file path or a parsed recording). */
export async function startReplay(recording: string | Recording): Promise<ReplayServer> {
  const r = typeof recording === "string" ? await readRecording(recording) : recording;
  return new ReplayServer(r).start();
}
