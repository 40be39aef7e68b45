import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { chatCompletionBody, LoopbackServer } from "../../src/bench/loopback-server.js";

/** What the scripted server does with one chat completion request. */
export type ChatReply =
  | { kind: "json"; answer: unknown }
  | { kind: "text"; content: string }
  | { kind: "status"; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: "hang" }
  /** 200 with headers at once, then one byte of body every `everyMs`, never finishing. */
  | { kind: "drip"; everyMs: number }
  /** A 200 whose body is exactly this JSON value (not wrapped as a chat completion). */
  | { kind: "raw"; body: unknown };

// biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON
export type ChatBody = any;
export type Responder = (body: ChatBody, n: number) => ChatReply | Promise<ChatReply>;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
}

interface FakeBatch {
  id: string;
  input_file_id: string;
  status: string;
  polls: number;
  output_file_id: string | null;
  error_file_id: string | null;
  total: number;
}

/**
 * A real HTTP server on 127.0.0.1 speaking the OpenAI subset fire uses:
 * chat completions, files (upload, content) and batches (create, retrieve).
 * Everything received is recorded so tests can inspect what actually arrived.
 */
export class FakeOpenAI extends LoopbackServer {
  readonly requests: RecordedRequest[] = [];
  readonly chat: ChatBody[] = [];
  respond: Responder = () => ({ kind: "text", content: "{}" });
  /** Called for every request as it arrives (after recording). */
  onRequest?: (rec: RecordedRequest) => void;
  /** Answer a request before normal routing (e.g. make an endpoint fail). */
  override?: (rec: RecordedRequest) => { status: number; body: unknown } | undefined;
  /** Reply 400 to response_format json_schema, like servers without structured output. */
  rejectJsonSchema = false;
  /** Batch retrieves answered "in_progress" before the batch completes. */
  batchPolls = 1;
  /** When set, a batch ends "failed" with these errors instead of running. */
  batchErrors?: { code: string; message: string; line?: number }[];
  inflight = 0;
  peakInflight = 0;
  private readonly files = new Map<string, string>();
  private readonly batches = new Map<string, FakeBatch>();
  protected handle(req: IncomingMessage, raw: Buffer, res: ServerResponse): void {
    const rec = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      raw: raw.toString("utf8"),
    };
    this.requests.push(rec);
    this.onRequest?.(rec);
    this.route(rec, raw, res).catch((err: Error) =>
      send(res, 500, { error: { message: err.message } }),
    );
  }

  /** Every byte any request carried, for "this secret never arrived" assertions. */
  allReceived(): string {
    return this.requests.map((r) => `${r.path}\n${r.raw}`).join("\n");
  }

  private async route(rec: RecordedRequest, raw: Buffer, res: ServerResponse): Promise<void> {
    const forced = this.override?.(rec);
    if (forced) return send(res, forced.status, forced.body);
    const path = rec.path.replace(/\?.*$/, "");
    if (rec.method === "POST" && path === "/v1/chat/completions")
      return this.chatCompletion(rec.raw, res);
    if (rec.method === "POST" && path === "/v1/files") return this.upload(rec, raw, res);
    const content = path.match(/^\/v1\/files\/([^/]+)\/content$/);
    if (rec.method === "GET" && content?.[1]) {
      const text = this.files.get(content[1]);
      if (text === undefined) return send(res, 404, { error: { message: "no such file" } });
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(text);
      return;
    }
    if (rec.method === "POST" && path === "/v1/batches")
      return this.createBatch(JSON.parse(rec.raw), res);
    const batch = path.match(/^\/v1\/batches\/([^/]+)$/);
    if (rec.method === "GET" && batch?.[1]) return this.retrieveBatch(batch[1], res);
    send(res, 404, { error: { message: `no route ${rec.method} ${path}` } });
  }

  private async chatCompletion(raw: string, res: ServerResponse): Promise<void> {
    const body = JSON.parse(raw);
    this.chat.push(body);
    const n = this.chat.length - 1;
    if (this.rejectJsonSchema && body.response_format?.type === "json_schema") {
      return send(res, 400, {
        error: {
          message: "response_format json_schema is not supported",
          type: "invalid_request_error",
          param: "response_format",
        },
      });
    }
    this.inflight += 1;
    this.peakInflight = Math.max(this.peakInflight, this.inflight);
    let open = true;
    const leave = (): void => {
      if (open) this.inflight -= 1;
      open = false;
    };
    res.on("close", leave);
    const reply = await this.respond(body, n);
    if (reply.kind === "hang") return; // never answers; the client must time out
    if (reply.kind === "drip") return drip(res, reply.everyMs);
    if (reply.kind === "raw") {
      leave();
      return send(res, 200, reply.body);
    }
    const out = this.replyBody(body, reply);
    leave(); // before the bytes go out, so a follow-up request never overlaps in the count
    send(res, out.status, out.body, out.headers);
  }

  private replyBody(
    body: ChatBody,
    reply: Exclude<ChatReply, { kind: "hang" } | { kind: "drip" } | { kind: "raw" }>,
  ) {
    if (reply.kind === "status")
      return {
        status: reply.status,
        body: reply.body ?? { error: { message: `scripted ${reply.status}` } },
        headers: reply.headers,
      };
    const content = reply.kind === "json" ? JSON.stringify(reply.answer) : reply.content;
    const promptChars = (body.messages ?? []).reduce(
      (s: number, m: { content?: string }) => s + (m.content?.length ?? 0),
      0,
    );
    return {
      status: 200,
      headers: undefined,
      body: chatCompletionBody(content, body.model, promptChars),
    };
  }

  private async upload(rec: RecordedRequest, raw: Buffer, res: ServerResponse): Promise<void> {
    const form = await new Request("http://fake/upload", {
      method: "POST",
      headers: { "content-type": String(rec.headers["content-type"]) },
      body: raw,
    }).formData();
    const file = form.get("file");
    if (!(file instanceof Blob)) return send(res, 400, { error: { message: "file missing" } });
    const id = `file-${randomUUID()}`;
    this.files.set(id, await file.text());
    send(res, 200, {
      id,
      object: "file",
      bytes: file.size,
      created_at: 0,
      filename: "batch.jsonl",
      purpose: form.get("purpose"),
    });
  }

  private createBatch(body: { input_file_id: string }, res: ServerResponse): void {
    const input = this.files.get(body.input_file_id);
    if (input === undefined) {
      send(res, 400, { error: { message: "unknown input file" } });
      return;
    }
    const b: FakeBatch = {
      id: `batch_${randomUUID()}`,
      input_file_id: body.input_file_id,
      status: "validating",
      polls: 0,
      output_file_id: null,
      error_file_id: null,
      total: input.split("\n").filter((l) => l.trim()).length,
    };
    this.batches.set(b.id, b);
    send(res, 200, batchObject(b));
  }

  private async retrieveBatch(id: string, res: ServerResponse): Promise<void> {
    const b = this.batches.get(id);
    if (!b) return send(res, 404, { error: { message: "no such batch" } });
    if (b.status !== "completed" && b.status !== "failed") {
      b.polls += 1;
      b.status = "in_progress";
      if (b.polls > this.batchPolls) {
        if (this.batchErrors) b.status = "failed";
        else await this.runBatch(b);
      }
    }
    send(res, 200, {
      ...batchObject(b),
      ...(b.status === "failed" ? { errors: { object: "list", data: this.batchErrors } } : {}),
    });
  }

  private async runBatch(b: FakeBatch): Promise<void> {
    const lines = (this.files.get(b.input_file_id) ?? "").split("\n").filter((l) => l.trim());
    const out: string[] = [];
    for (const line of lines) {
      const req = JSON.parse(line);
      this.chat.push(req.body);
      const reply = await this.respond(req.body, this.chat.length - 1);
      if (reply.kind === "hang" || reply.kind === "drip" || reply.kind === "raw") continue;
      const r = this.replyBody(req.body, reply);
      out.push(
        JSON.stringify({
          id: `resp-${randomUUID()}`,
          custom_id: req.custom_id,
          response: { status_code: r.status, body: r.body },
          error: null,
        }),
      );
    }
    const fileId = `file-${randomUUID()}`;
    this.files.set(fileId, `${out.join("\n")}\n`);
    b.output_file_id = fileId;
    b.status = "completed";
  }
}

function batchObject(b: FakeBatch) {
  return {
    id: b.id,
    object: "batch",
    endpoint: "/v1/chat/completions",
    input_file_id: b.input_file_id,
    completion_window: "24h",
    status: b.status,
    created_at: 0,
    output_file_id: b.output_file_id,
    error_file_id: b.error_file_id,
    request_counts: {
      total: b.total,
      completed: b.status === "completed" ? b.total : 0,
      failed: 0,
    },
  };
}

/** Headers now, then a byte at a time until the client gives up (a slowloris answer). */
function drip(res: ServerResponse, everyMs: number): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.write("{");
  const t = setInterval(() => {
    if (res.destroyed || res.writableEnded) clearInterval(t);
    else res.write(" ");
  }, everyMs);
  res.on("close", () => clearInterval(t));
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  return new FakeOpenAI().start();
}
