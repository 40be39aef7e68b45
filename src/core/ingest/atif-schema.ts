import { z } from "zod";

/**
 * The parts of an ATIF (v1.0–1.7) trajectory we read, after Harbor's models
 * (`harbor/models/trajectories`) and RFC 0001. Unknown fields are accepted and
 * dropped (strip mode), so validation copies only what we use.
 */
const num = z.number().nullish();

export const AtifToolCall = z.object({
  tool_call_id: z.string().nullish(),
  function_name: z.string(),
  arguments: z.unknown().optional(),
});

/**
 * A reference to a delegated agent's trajectory: `trajectory_id` names an entry of the
 * parent's `subagent_trajectories`, `trajectory_path` a file. `session_id` is run-scoped
 * and informational (two siblings may share it); v1.6 and older used it as the key.
 */
export const AtifSubagentRef = z.object({
  trajectory_id: z.string().nullish(),
  trajectory_path: z.string().nullish(),
  session_id: z.string().nullish(),
});
export type AtifSubagentRef = z.infer<typeof AtifSubagentRef>;

export const AtifResult = z.object({
  source_call_id: z.string().nullish(),
  content: z.unknown().optional(),
  subagent_trajectory_ref: z.union([z.array(AtifSubagentRef), AtifSubagentRef]).nullish(),
  extra: z.record(z.string(), z.unknown()).nullish(),
});

/** Per-step LLM usage: `prompt_tokens` counts cached ones (`cached_tokens` is part of it). */
export const AtifMetrics = z.object({
  prompt_tokens: num,
  completion_tokens: num,
  cached_tokens: num,
  cost_usd: num,
  extra: z.record(z.string(), z.unknown()).nullish(),
});
export type AtifMetrics = z.infer<typeof AtifMetrics>;

export const AtifStep = z.object({
  step_id: z.union([z.number(), z.string()]),
  timestamp: z.string().nullish(),
  source: z.string(),
  model_name: z.string().nullish(),
  message: z.union([z.string(), z.array(z.unknown())]).nullish(),
  reasoning_content: z.string().nullish(),
  tool_calls: z.array(AtifToolCall).nullish(),
  observation: z.object({ results: z.array(AtifResult).nullish() }).nullish(),
  metrics: AtifMetrics.nullish(),
  /** Model requests the step made (ATIF 1.5+): a step with one is a model turn, even empty. */
  llm_call_count: z.number().int().nonnegative().nullish(),
  /** Copied from a prior context (a continuation's replayed history): not new activity. */
  is_copied_context: z.boolean().nullish(),
  extra: z.record(z.string(), z.unknown()).nullish(),
});
export type AtifStep = z.infer<typeof AtifStep>;

export const Atif = z.object({
  schema_version: z.string().regex(/^ATIF-v1\.\d+$/, "an ATIF-v1.x version"),
  session_id: z.string().nullish(),
  trajectory_id: z.string().nullish(),
  agent: z
    .object({
      name: z.string().nullish(),
      version: z.string().nullish(),
      model_name: z.string().nullish(),
    })
    .nullish(),
  steps: z.array(AtifStep),
  final_metrics: z
    .object({
      total_prompt_tokens: num,
      total_completion_tokens: num,
      total_cached_tokens: num,
      total_cost_usd: num,
      extra: z.record(z.string(), z.unknown()).nullish(),
    })
    .nullish(),
  continued_trajectory_ref: z.unknown().optional(),
  /** Embedded sub-agent trajectories (v1.7), each named by its `trajectory_id`. */
  get subagent_trajectories() {
    return z.array(Atif).nullish();
  },
});
export type Atif = z.infer<typeof Atif>;

/** Content detection: an ATIF document names its schema version near the top. */
export const ATIF_HEAD = /"schema_version"\s*:\s*"ATIF-v1\.\d+"/;
