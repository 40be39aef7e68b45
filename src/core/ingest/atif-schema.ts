import { z } from "zod";

/**
 * The parts of an ATIF (v1.4–1.7) trajectory we read. Unknown fields are
 * accepted and dropped (strip mode), so validation copies only what we use.
 */
const num = z.number().nullish();

export const AtifToolCall = z.object({
  tool_call_id: z.string().nullish(),
  function_name: z.string(),
  arguments: z.unknown().optional(),
});

export const AtifResult = z.object({
  source_call_id: z.string().nullish(),
  content: z.unknown().optional(),
  subagent_trajectory_ref: z.unknown().optional(),
  extra: z.record(z.string(), z.unknown()).nullish(),
});

export const AtifStep = z.object({
  step_id: z.union([z.number(), z.string()]),
  timestamp: z.string().nullish(),
  source: z.string(),
  model_name: z.string().nullish(),
  message: z.union([z.string(), z.array(z.unknown())]).nullish(),
  reasoning_content: z.string().nullish(),
  tool_calls: z.array(AtifToolCall).nullish(),
  observation: z.object({ results: z.array(AtifResult).nullish() }).nullish(),
  metrics: z.object({ cost_usd: num }).nullish(),
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
    })
    .nullish(),
  continued_trajectory_ref: z.unknown().optional(),
  subagent_trajectories: z.unknown().optional(),
});
export type Atif = z.infer<typeof Atif>;

/** Content detection: an ATIF document names its schema version near the top. */
export const ATIF_HEAD = /"schema_version"\s*:\s*"ATIF-v1\.\d+"/;
