import { z } from "zod";

/** Spending limits for one run; any limit reached stops the run cleanly. */
export interface LlmBudget {
  maxRequests?: number;
  maxTokens?: number;
  maxDollars?: number;
}

/** USD per million tokens, used to turn reported usage into a cost. */
export const LlmPricing = z.strictObject({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
});
export type LlmPricing = z.infer<typeof LlmPricing>;

/**
 * LLM settings. The first seven fields are the `llm` block of fire.config.json
 * (core/workspace/config.ts parses that block; its output passes this schema unchanged);
 * the rest tune retries, prompts and batch polling and default sensibly. Every field has
 * a default so `{}` is valid; the key comes from OPENAI_API_KEY, never from a file.
 * Non-strict on purpose: the file was already checked strictly by the workspace config,
 * and keys this layer does not know (added there later) must not break labelling.
 */
export const LlmConfig = z.object({
  model: z.string().min(1).default("gpt-4o-mini"),
  baseUrl: z.string().url().optional(),
  concurrency: z.number().int().min(1).max(64).default(4),
  /** Per-request client timeout. */
  timeoutMs: z.number().int().positive().default(60_000),
  /** Budget: HTTP requests, tokens (prompt + completion), dollars per run. */
  maxRequests: z.number().int().nonnegative().default(500),
  maxTokens: z.number().int().nonnegative().default(2_000_000),
  maxDollars: z.number().nonnegative().default(5),
  /** Retries after the first try on 429 / 5xx / timeouts / connection errors. */
  maxRetries: z.number().int().min(0).max(10).default(3),
  /** First backoff delay; doubles per retry (with jitter), capped by maxBackoffMs. */
  backoffMs: z.number().int().nonnegative().default(1_000),
  maxBackoffMs: z.number().int().nonnegative().default(30_000),
  /**
   * Hard budget for the attempt-specific prompt (estimated tokens, see llm/tokens.ts):
   * min(maxPromptTokens, max(minPromptTokens, promptShare × full attempt tokens)).
   * The fixed instructions (same for every attempt) come on top.
   */
  maxPromptTokens: z.number().int().min(100).default(3_000),
  promptShare: z.number().positive().max(1).default(0.2),
  minPromptTokens: z.number().int().min(100).default(160),
  maxOutputTokens: z.number().int().positive().default(1_200),
  pricing: LlmPricing.optional(),
  /** Batch mode: how often to poll the batch status. */
  batchPollMs: z.number().int().positive().default(15_000),
});
export type LlmConfig = z.infer<typeof LlmConfig>;
export type LlmConfigInput = z.input<typeof LlmConfig>;

/** Prices for a few common models (USD per million tokens); unknown models cost 0 unless configured. */
const KNOWN_PRICES: Record<string, LlmPricing> = {
  "gpt-4.1": { inputPerMTok: 2, outputPerMTok: 8 },
  "gpt-4.1-mini": { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  "gpt-4.1-nano": { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  "gpt-4o": { inputPerMTok: 2.5, outputPerMTok: 10 },
  "gpt-4o-mini": { inputPerMTok: 0.15, outputPerMTok: 0.6 },
};

export function pricingFor(config: LlmConfig): LlmPricing | undefined {
  return config.pricing ?? KNOWN_PRICES[config.model];
}

export function costOf(
  pricing: LlmPricing | undefined,
  usage: { promptTokens: number; completionTokens: number },
): number {
  if (!pricing) return 0;
  return (
    (usage.promptTokens * pricing.inputPerMTok + usage.completionTokens * pricing.outputPerMTok) /
    1_000_000
  );
}
