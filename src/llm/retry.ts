import { setTimeout as sleep } from "node:timers/promises";
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";

/** An abortable wait (batch polling). Retries themselves are the SDK's (see transport.ts). */
export async function waitFor(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return;
  await sleep(ms, undefined, signal ? { signal } : undefined);
}

/** A short, secret-free description of a failed request. */
export function describeError(err: unknown): string {
  if (err instanceof APIError && typeof err.status === "number") {
    const msg = err.message.replace(/^\d{3}\s*/, "");
    return `HTTP ${err.status}: ${msg}`.slice(0, 300);
  }
  if (err instanceof APIConnectionTimeoutError) return "request timed out (timeoutMs)";
  if (err instanceof APIConnectionError) {
    const code = causeCode(err);
    return `connection failed${code ? ` (${code})` : ""}: ${err.message}`.slice(0, 300);
  }
  if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 300);
  return String(err).slice(0, 300);
}

/** The first system error code (ECONNREFUSED, ENOTFOUND, …) in an error's cause chain. */
function causeCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e && typeof e === "object"; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
