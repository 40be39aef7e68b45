import { z } from "zod";
import {
  LlmConfig as WorkspaceLlmConfig,
  LlmPricing as WorkspacePricing,
} from "../core/workspace/config.js";

/** Spending limits for one run; any limit reached stops the run cleanly. */
export interface LlmBudget {
  maxRequests?: number;
  maxTokens?: number;
  maxDollars?: number;
}

/** USD per million tokens, used to turn reported usage into a cost (defined with the workspace config). */
export const LlmPricing = WorkspacePricing;
export type LlmPricing = z.infer<typeof LlmPricing>;

/**
 * LLM settings: exactly the `llm` block of fire.config.json (core/workspace/config.ts
 * defines the fields and their defaults once, so the file and the client cannot disagree).
 * Every field has a default so `{}` is valid; the key comes from OPENAI_API_KEY, never from
 * a file. Non-strict here on purpose: the file was already checked strictly by the
 * workspace config, and callers passing extra keys must not break labelling.
 */
export const LlmConfig = z.object(WorkspaceLlmConfig.shape);
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

/** Live requests bill the listed rate; the Batch API bills its own (half, unless configured). */
export type Rate = "live" | "batch";

export function costOf(
  pricing: LlmPricing | undefined,
  usage: { promptTokens: number; completionTokens: number },
  rate: Rate = "live",
): number {
  if (!pricing) return 0;
  const input =
    rate === "batch"
      ? (pricing.batchInputPerMTok ?? pricing.inputPerMTok / 2)
      : pricing.inputPerMTok;
  const output =
    rate === "batch"
      ? (pricing.batchOutputPerMTok ?? pricing.outputPerMTok / 2)
      : pricing.outputPerMTok;
  return (usage.promptTokens * input + usage.completionTokens * output) / 1_000_000;
}
