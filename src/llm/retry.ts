import { setTimeout as sleep } from "node:timers/promises";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  InternalServerError,
  RateLimitError,
} from "openai";

export interface BackoffOptions {
  backoffMs: number;
  maxBackoffMs: number;
}

export type FailureKind =
  | "rate_limit"
  | "server_error"
  | "timeout"
  | "connection"
  | "aborted"
  | "fatal";

export function classifyError(err: unknown): FailureKind {
  if (err instanceof APIUserAbortError) return "aborted";
  if (err instanceof APIConnectionTimeoutError) return "timeout";
  if (err instanceof APIConnectionError) return "connection";
  if (err instanceof RateLimitError) return "rate_limit";
  if (err instanceof InternalServerError) return "server_error";
  if (err instanceof APIError && typeof err.status === "number" && err.status >= 500)
    return "server_error";
  if (err instanceof Error && err.name === "AbortError") return "aborted";
  return "fatal";
}

export function isRetryable(kind: FailureKind): boolean {
  return (
    kind === "rate_limit" || kind === "server_error" || kind === "timeout" || kind === "connection"
  );
}

/** Server-requested wait from `retry-after-ms` / `retry-after` (seconds or HTTP date). */
export function retryAfterMs(err: unknown, now = Date.now()): number | undefined {
  if (!(err instanceof APIError) || !err.headers) return undefined;
  const ms = err.headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms)))
    return Math.max(0, Number(ms));
  const ra = err.headers.get("retry-after");
  if (ra === null || ra.trim() === "") return undefined;
  if (Number.isFinite(Number(ra))) return Math.max(0, Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Delay before retry number `retry` (0-based): the server's word if given, else capped exponential with jitter. */
export function backoffDelay(retry: number, err: unknown, opts: BackoffOptions): number {
  const asked = retryAfterMs(err);
  if (asked !== undefined) return Math.min(asked, Math.max(opts.maxBackoffMs, 60_000));
  const base = Math.min(opts.maxBackoffMs, opts.backoffMs * 2 ** retry);
  return Math.round(base * (0.5 + Math.random() * 0.5));
}

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
