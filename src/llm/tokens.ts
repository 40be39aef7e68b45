/**
 * Token counting by a cheap estimate: ceil(characters / 4), the rule of thumb OpenAI
 * documents for English text with its BPE tokenizers. It is used the same way for the
 * prompt and for the full trace, so the ratio between them is what matters; no
 * tokenizer dependency is needed. Exact counts come back in the API's `usage`.
 */
export const TOKEN_ESTIMATOR = "chars/4";

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Longest prefix of `text` that fits `tokens` by the same estimate. */
export function charsForTokens(tokens: number): number {
  return Math.max(0, Math.floor(tokens * 4));
}
