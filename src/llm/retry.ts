import { setTimeout as sleep } from "node:timers/promises";
import { APIError } from "openai";

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
  if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 300);
  return String(err).slice(0, 300);
}
