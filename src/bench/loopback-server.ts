import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * An HTTP server on loopback for tests and benches that stand in for an OpenAI-compatible
 * endpoint (the replaying server, the tests' fake): it reads each request's whole body,
 * hands it to `handle`, tracks sockets so `close` ends kept-alive connections at once.
 */
export abstract class LoopbackServer {
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => this.handle(req, Buffer.concat(chunks), res));
  });

  /** Answers one request whose body has been read whole. */
  protected abstract handle(req: IncomingMessage, body: Buffer, res: ServerResponse): void;

  async start(): Promise<this> {
    this.server.on("connection", (s: Socket) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return this;
  }

  /** `http://127.0.0.1:<port>/v1`, for OPENAI_BASE_URL. */
  get baseURL(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * An OpenAI chat completion answering with `content` (what the stand-in servers send):
 * one choice that stopped normally, usage estimated at four characters a token.
 */
export function chatCompletionBody(
  content: string,
  model: string | undefined,
  promptChars: number,
): Record<string, unknown> {
  const prompt = Math.ceil(promptChars / 4);
  const completion = Math.ceil(content.length / 4);
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: model ?? "stand-in",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content, refusal: null },
        finish_reason: "stop",
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    },
  };
}
