import { z } from "zod";

/**
 * The parts of an Inspect AI eval log we read (`inspect_ai.log.EvalLog` /
 * `EvalSample`, log schema version 2). Unknown fields are accepted and dropped.
 * A `.json` log is the whole `EvalLog`; a `.eval` log is a zip holding
 * `header.json` (the log without samples; `_journal/start.json` while it runs)
 * and one `samples/<id>_epoch_<n>.json` per sample.
 */
const str = z.string().nullish();
const num = z.number().nullish();

export const InspectUsage = z.object({
  input_tokens: num,
  output_tokens: num,
  total_tokens: num,
  input_tokens_cache_write: num,
  input_tokens_cache_read: num,
  reasoning_tokens: num,
  total_cost: num,
});

export const InspectScore = z.object({
  value: z.unknown(),
  answer: z.unknown().optional(),
  explanation: z.unknown().optional(),
});
export type InspectScore = z.infer<typeof InspectScore>;

export const InspectToolCall = z.object({
  id: str,
  function: z.string(),
  arguments: z.unknown().optional(),
});

export const InspectMessage = z.object({
  role: z.string(),
  content: z.union([z.string(), z.array(z.unknown())]).nullish(),
  tool_calls: z.array(InspectToolCall).nullish(),
  tool_call_id: str,
  function: str,
  error: z.object({ type: str, message: str }).nullish(),
});
export type InspectMessage = z.infer<typeof InspectMessage>;

export const InspectSample = z.object({
  id: z.union([z.string(), z.number()]),
  epoch: z.number().int(),
  input: z.union([z.string(), z.array(z.unknown())]),
  target: z.unknown().optional(),
  messages: z.array(InspectMessage).nullish(),
  output: z.object({ model: str }).nullish(),
  scores: z.record(z.string(), InspectScore).nullish(),
  model_usage: z.record(z.string(), InspectUsage).nullish(),
  started_at: str,
  total_time: num,
  error: z.object({ message: z.string() }).nullish(),
  limit: z.object({ type: z.string(), limit: z.number().nullish() }).nullish(),
  attachments: z.record(z.string(), z.string()).nullish(),
});
export type InspectSample = z.infer<typeof InspectSample>;

export const InspectHeader = z.object({
  version: z.number().int(),
  status: z.enum(["started", "success", "cancelled", "error"]),
  eval: z.object({
    eval_id: str,
    run_id: str,
    created: str,
    task: z.string(),
    task_id: str,
    model: z.string(),
    solver: str,
    dataset: z.object({ name: str, samples: num }).nullish(),
  }),
  plan: z.object({ steps: z.array(z.object({ solver: z.string() })).nullish() }).nullish(),
  results: z
    .object({
      total_samples: num,
      completed_samples: num,
      scores: z.array(z.object({ name: z.string(), scorer: str })).nullish(),
    })
    .nullish(),
  /** Present in `.json` logs only; each sample is validated on its own. */
  samples: z.array(z.unknown()).nullish(),
});
export type InspectHeader = z.infer<typeof InspectHeader>;

/** Content detection of a `.json` log: `EvalLog` starts with its version, status and eval spec. */
export const INSPECT_JSON_HEAD =
  /^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"(?:started|success|cancelled|error)"\s*,\s*"eval"\s*:\s*\{/;
