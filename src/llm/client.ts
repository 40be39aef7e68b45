import OpenAI from "openai";
import pLimit, { type LimitFunction } from "p-limit";
import { redact, redactionMarker } from "../core/redact.js";
import { Budget } from "./budget.js";
import { AnswerCache } from "./cache.js";
import {
  type LlmConfig,
  type LlmConfigInput,
  LlmConfig as LlmConfigSchema,
  pricingFor,
} from "./config.js";
import { emptyReport, type RunReport } from "./report.js";
import { boundedFetch } from "./transport.js";

/** Raised when no endpoint can be reached: no API key and no base URL. */
export class LlmUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LlmUnavailableError";
  }
}

export interface RetryEvent {
  id: string;
  retry: number;
  delayMs: number;
  reason: string;
}

export interface SessionOptions {
  cacheDir: string;
  apiKey?: string;
  baseURL?: string;
  signal?: AbortSignal;
  onRetry?: (e: RetryEvent) => void;
  env?: NodeJS.ProcessEnv;
}

/** Everything calls share in one run: client, cache, budget, concurrency, report. */
export interface LlmSession {
  readonly openai: OpenAI;
  readonly config: LlmConfig;
  readonly cache: AnswerCache;
  readonly budget: Budget;
  readonly limit: LimitFunction;
  /**
   * A place in line: calls enter `limit`'s queue in the order they were made, whatever order
   * their cache lookups finish in, so a request budget always goes to the first calls.
   */
  readonly turn: () => { wait: Promise<void>; done: () => void };
  readonly report: RunReport;
  readonly signal?: AbortSignal;
  readonly onRetry?: (e: RetryEvent) => void;
  /** Fires when the run's wall-clock budget (`maxRunMs`) is spent. */
  readonly runDeadline: AbortSignal;
  /** Starts as json_schema; switches once to json_object if the server rejects schemas. */
  outputMode: "json_schema" | "json_object";
  /** Redacts secrets and the session's own API key (servers may echo it in errors). */
  readonly scrub: (text: string) => string;
}

export function createSession(
  configInput: LlmConfigInput | LlmConfig,
  opts: SessionOptions,
): LlmSession {
  const config = LlmConfigSchema.parse(configInput);
  const env = opts.env ?? process.env;
  const baseURL = opts.baseURL ?? config.baseUrl ?? (env.OPENAI_BASE_URL || undefined);
  let apiKey = opts.apiKey ?? (env.OPENAI_API_KEY || undefined);
  if (!apiKey) {
    if (!baseURL)
      throw new LlmUnavailableError(
        "no OPENAI_API_KEY and no OPENAI_BASE_URL: set one, or use the heuristic labeller",
      );
    apiKey = "no-key"; // local OpenAI-compatible servers often need none
  }
  const report = emptyReport(config.model);
  // The run's wall-clock budget (an unref'd timer: it never keeps the process alive).
  const runDeadline = AbortSignal.timeout(config.maxRunMs);
  const runEnds = Date.now() + config.maxRunMs;
  const openai = new OpenAI({
    apiKey,
    baseURL,
    timeout: config.timeoutMs,
    // The SDK's retries (408/409/429/5xx, retry-after, x-should-retry); fire's transport
    // counts them, reports them and bounds every wait a server asks for.
    maxRetries: config.maxRetries,
    fetch: boundedFetch({
      maxResponseBytes: config.maxResponseBytes,
      maxWaitMs: () => Math.max(0, Math.min(config.maxBackoffMs, runEnds - Date.now())),
      onAttempt: () => {
        report.requests += 1;
      },
      onRetry: (call, waitedMs) => {
        report.retries += 1;
        opts.onRetry?.({
          id: call.id,
          retry: call.attempts - 1,
          delayMs: waitedMs,
          reason: call.lastReason ?? "retry",
        });
      },
    }),
  });
  const scrub = (text: string): string => {
    const clean = redact(text);
    return apiKey.length >= 6 ? clean.split(apiKey).join(redactionMarker("bearer-token")) : clean;
  };
  report.endpoint = scrub(openai.baseURL);
  return {
    openai,
    runDeadline,
    config,
    cache: new AnswerCache(opts.cacheDir),
    budget: new Budget(
      {
        maxRequests: config.maxRequests,
        maxTokens: config.maxTokens,
        maxDollars: config.maxDollars,
      },
      pricingFor(config),
    ),
    limit: pLimit(config.concurrency),
    turn: queueTurns(),
    report,
    signal: opts.signal,
    onRetry: opts.onRetry,
    outputMode: "json_schema",
    scrub,
  };
}

/** Hand out places in line; each waits for the one before it to call `done`. */
function queueTurns(): () => { wait: Promise<void>; done: () => void } {
  let tail: Promise<void> = Promise.resolve();
  return () => {
    const wait = tail;
    let done = (): void => {};
    tail = new Promise<void>((resolve) => {
      done = resolve;
    });
    return { wait, done };
  };
}
