import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What fire adds under the openai SDK's own retries (408/409/429/5xx, `retry-after`,
 * `x-should-retry`): the SDK sends every HTTP attempt through this `fetch`, so fire can
 * count attempts, report retries as progress events, bound each wait a server asks for
 * (a `retry-after: 999999` would otherwise sleep for days) and stop when the run's
 * wall-clock budget is spent. The per-call context travels in AsyncLocalStorage, which the
 * SDK's internal retry loop keeps.
 */

export interface CallContext {
  id: string;
  /** HTTP attempts made for this call so far. */
  attempts: number;
  /** When the previous attempt's response (or failure) came back. */
  lastAt?: number;
  lastReason?: string;
}

export interface TransportHooks {
  /** Largest response body of a chat completion attempt (other requests: BATCH_FILE_FACTOR times). */
  maxResponseBytes: number;
  /** Longest wait a server may ask for; a larger `retry-after` is lowered to this. */
  maxWaitMs: () => number;
  /** Each HTTP attempt of a chat completion (batch file/poll calls have no call context). */
  onAttempt: (call: CallContext) => void;
  onRetry: (call: CallContext, waitedMs: number) => void;
}

const calls = new AsyncLocalStorage<CallContext>();

/** Runs `fn` with `call` as the context every HTTP attempt inside it reports to. */
export function withCall<T>(call: CallContext, fn: () => Promise<T>): Promise<T> {
  return calls.run(call, fn);
}

function reasonOf(status: number): string {
  if (status === 429) return "rate_limit";
  if (status === 408) return "timeout";
  if (status === 409) return "conflict";
  return status >= 500 ? "server_error" : `http_${status}`;
}

/** The server's wait in ms (`retry-after-ms`, `retry-after` seconds or date), if any. */
export function askedWaitMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms))) return Number(ms);
  const ra = headers.get("retry-after");
  if (ra === null || ra.trim() === "") return undefined;
  if (Number.isFinite(Number(ra))) return Number(ra) * 1000;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : date - now;
}

/** A copy of `res` whose retry headers ask for at most `maxMs`. */
function withBoundedWait(res: Response, maxMs: number): Response {
  const asked = askedWaitMs(res.headers);
  if (asked === undefined || asked <= maxMs) return res;
  const headers = new Headers(res.headers);
  headers.delete("retry-after");
  headers.set("retry-after-ms", String(Math.max(0, Math.floor(maxMs))));
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

/** A batch file (input upload answers, output downloads) may be this many times larger. */
export const BATCH_FILE_FACTOR = 64;

/** Why a response was cut off: its body grew past the cap while streaming in. */
export class ResponseTooLargeError extends Error {
  constructor(readonly capBytes: number) {
    super(`the server's response exceeds ${capBytes} bytes (maxResponseBytes); cut off`);
    this.name = "ResponseTooLargeError";
  }
}

/**
 * A copy of `res` whose body errors with ResponseTooLargeError as soon as more than `cap`
 * bytes have come in (a declared Content-Length over the cap fails at the first read), and
 * cancels the rest: memory stays under the cap plus one chunk, however much the server sends.
 */
function withBoundedBody(res: Response, cap: number): Response {
  const body = res.body;
  if (!body) return res;
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  const reader = body.getReader();
  let seen = 0;
  const bounded = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (declared > cap) {
        await reader.cancel().catch(() => {});
        controller.error(new ResponseTooLargeError(cap));
        return;
      }
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      seen += value.byteLength;
      if (seen > cap) {
        await reader.cancel().catch(() => {});
        controller.error(new ResponseTooLargeError(cap));
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(bounded, {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}

/** The `fetch` handed to the OpenAI client. */
export function boundedFetch(hooks: TransportHooks, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const call = calls.getStore();
    if (call) {
      call.attempts += 1;
      if (call.attempts > 1) hooks.onRetry(call, call.lastAt ? Date.now() - call.lastAt : 0);
    }
    if (call) hooks.onAttempt(call);
    try {
      const cap = call ? hooks.maxResponseBytes : hooks.maxResponseBytes * BATCH_FILE_FACTOR;
      const res = withBoundedBody(await inner(input, init), cap);
      if (call) {
        call.lastAt = Date.now();
        call.lastReason = res.ok ? undefined : reasonOf(res.status);
      }
      return res.ok ? res : withBoundedWait(res, hooks.maxWaitMs());
    } catch (err) {
      if (call) {
        call.lastAt = Date.now();
        // the SDK aborts an attempt that outlives its `timeout`
        const name = (err as Error | undefined)?.name;
        call.lastReason =
          name === "AbortError" || name === "TimeoutError" ? "timeout" : "connection";
      }
      throw err;
    }
  };
}
