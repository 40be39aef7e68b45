import { mkdtemp, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { LoopbackServer } from "../../src/bench/loopback-server.js";
import { createSession, type StructuredSpec, structuredCall } from "../../src/llm/index.js";

/**
 * Issue 27 point 5: a server that streams a huge body. Each request is answered 200 with a
 * chat completion that never ends (64 KiB chunks until the client goes away); the real
 * openai client reads it through fire's transport, which counts the body as it comes in.
 */
class EndlessServer extends LoopbackServer {
  sent = 0;
  requests = 0;
  /** Responses whose connection the client closed. */
  closed = 0;
  protected handle(_req: IncomingMessage, _body: Buffer, res: ServerResponse): void {
    this.requests += 1;
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"id":"x","object":"chat.completion","choices":[{"message":{"content":"');
    const chunk = "a".repeat(64 * 1024);
    const pump = () => {
      while (!res.destroyed && this.sent < 2 * 1024 ** 3) {
        this.sent += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
    };
    res.on("close", () => {
      this.closed += 1;
      res.removeAllListeners("drain");
    });
    pump();
  }
}

const Ok = z.strictObject({ ok: z.boolean() });
const spec: StructuredSpec<z.infer<typeof Ok>> = { schema: Ok, name: "ok", version: "1" };

let server: EndlessServer | undefined;
let cacheDir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (cacheDir) await rm(cacheDir, { recursive: true, force: true });
});

describe("attack 5: an LLM response size cap, checked while streaming", () => {
  it("a never-ending body fails the attempt with the reason, long before the deadline", async () => {
    server = await new EndlessServer().start();
    cacheDir = await mkdtemp(join(tmpdir(), "fire-llm-cap-"));
    const MB = 1024 * 1024;
    const s = createSession(
      { model: "m", maxResponseBytes: MB, requestDeadlineMs: 20_000 },
      { cacheDir, apiKey: "sk-test-key-000000", baseURL: server.baseURL },
    );
    const t0 = Date.now();
    const r = await structuredCall(spec, [{ role: "user", content: "q" }], { id: "a", session: s });
    expect(r).toMatchObject({ ok: false, stopped: false });
    if (!r.ok) expect(r.reason).toMatch(/exceeds 1048576 bytes \(maxResponseBytes\)/);
    expect(Date.now() - t0).toBeLessThan(10_000);
    // cut off near the cap (socket buffers aside), and not retried: once the server sees the
    // connection closed, nothing more is sent
    await vi.waitFor(() => expect(server?.closed).toBe(1), { timeout: 5_000 });
    expect(server.sent).toBeLessThan(64 * MB);
    expect(server.requests).toBe(1);
  }, 30_000);
});
