/** What one labelling (or other structured-call) run cost and did. Contains no secrets. */
export interface RunReport {
  model: string;
  /** Where requests go (the client's base URL, secrets redacted). */
  endpoint?: string;
  /** json_schema, or json_object after the server rejected JSON-schema output. */
  outputMode: "json_schema" | "json_object";
  /** HTTP requests sent for chat completions (tries, retries and repairs included). */
  requests: number;
  retries: number;
  repairs: number;
  cacheHits: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  labelled: number;
  unlabelled: number;
  failures: { id: string; reason: string }[];
  /** Set when a budget limit or an abort ended the run early. */
  stoppedBy?: "maxRequests" | "maxTokens" | "maxDollars" | "aborted" | "maxRunMs";
  /** Prompt compression on this run: estimated attempt-specific prompt tokens ÷ full trace tokens. */
  estimatedPromptTokens: number;
  /** Fixed instruction tokens sent with every request (not attempt-specific). */
  fixedPromptTokens: number;
  fullTraceTokens: number;
  batch?: { id: string; status: string; resumed: boolean; errors?: string[] };
}

export function emptyReport(model: string): RunReport {
  return {
    model,
    outputMode: "json_schema",
    requests: 0,
    retries: 0,
    repairs: 0,
    cacheHits: 0,
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    labelled: 0,
    unlabelled: 0,
    failures: [],
    estimatedPromptTokens: 0,
    fixedPromptTokens: 0,
    fullTraceTokens: 0,
  };
}
