/**
 * The files of an AutoCodeRover (v1) trial folder and of its run, as ACR writes them
 * (nus-apr/auto-code-rover `app/main.py`, `app/inference.py`, `app/api/agent_write_patch.py`,
 * `app/post_process.py`) and as the SWE-bench harness grades the run.
 */
import { z } from "zod";

const num = z.number().nullish();

/** `meta.json`: the SWE-bench row the trial ran (`task_info`) and its set-up. */
export const AcrMeta = z.looseObject({
  task_id: z.string().nullish(),
  task_info: z.looseObject({
    instance_id: z.string(),
    /** Python list literals written as strings (`"['test_a', 'test_b']"`), or lists. */
    FAIL_TO_PASS: z.unknown().optional(),
    PASS_TO_PASS: z.unknown().optional(),
    problem_statement: z.string().nullish(),
  }),
  setup_info: z.looseObject({ test_cmd: z.string().nullish() }).nullish(),
});
export type AcrMeta = z.infer<typeof AcrMeta>;

/** One dispatched tool call (`tool_call_sequence.json`, `tool_call_layers.json`). */
export const AcrToolCall = z.looseObject({
  func_name: z.string(),
  arguments: z.record(z.string(), z.unknown()).nullish(),
  call_ok: z.boolean().nullish(),
});
export type AcrToolCall = z.infer<typeof AcrToolCall>;

export const AcrSequence = z.array(AcrToolCall);
/** The calls of each conversation round, in order (the last holds `write_patch`). */
export const AcrLayers = z.array(z.array(AcrToolCall));

/** A chat as ACR saves it (`conversation_round_<k>.json`, `debug_agent_write_patch_<n>.json`). */
export const AcrConversation = z.array(z.looseObject({ role: z.string(), content: z.unknown() }));
export type AcrConversation = z.infer<typeof AcrConversation>;

/** `cost.json`: the model, tokens and cost of the whole trial, and when it ran. */
export const AcrCost = z.looseObject({
  model: z.string().nullish(),
  total_input_tokens: num,
  total_output_tokens: num,
  total_cost: num,
  start_epoch: num,
  end_epoch: num,
  elapsed_seconds: num,
});
export type AcrCost = z.infer<typeof AcrCost>;

/** `extract_status.json`: one status per write_patch try (`APPLICABLE_PATCH`, …). */
export const AcrExtractStatus = z.looseObject({ extract_status: z.array(z.string()) });

/**
 * The run's SWE-bench report (`new_eval_results/report.json`): lists of instance ids
 * (`generated`, `applied`, `no_apply`, `resolved`, …).
 */
export const AcrRunReport = z.looseObject({ resolved: z.array(z.string()) });
export type AcrRunReport = z.infer<typeof AcrRunReport>;
