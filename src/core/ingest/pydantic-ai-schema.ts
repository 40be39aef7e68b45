/**
 * pydantic-ai's serialized message history (`ModelMessagesTypeAdapter`, what an agent built on
 * pydantic-ai saves with `result.all_messages_json()`): a JSON array of messages, each a
 * `request` (parts the model is sent: `system-prompt`, `user-prompt`, `tool-return`,
 * `retry-prompt`) or a `response` (parts it answered: `text`, `thinking`, `tool-call`, and the
 * provider's `builtin-tool-call` / `builtin-tool-return`), with the response's `finish_reason`,
 * `usage` and `model_name`. Field names as pydantic-ai 1.x writes them; older releases'
 * `request_tokens` / `response_tokens` usage is read too.
 */
import { z } from "zod";

const num = z.number().nullish();

export const PydanticPart = z.looseObject({
  part_kind: z.string(),
  content: z.unknown().optional(),
  tool_name: z.string().nullish(),
  args: z.unknown().optional(),
  tool_call_id: z.string().nullish(),
  timestamp: z.string().nullish(),
});
export type PydanticPart = z.infer<typeof PydanticPart>;

export const PydanticUsage = z.looseObject({
  input_tokens: num,
  output_tokens: num,
  cache_read_tokens: num,
  cache_write_tokens: num,
  request_tokens: num,
  response_tokens: num,
  details: z.record(z.string(), z.unknown()).nullish(),
});

export const PydanticMessage = z.looseObject({
  kind: z.enum(["request", "response"]),
  parts: z.array(PydanticPart),
  timestamp: z.string().nullish(),
  model_name: z.string().nullish(),
  finish_reason: z.string().nullish(),
  provider_details: z.looseObject({ finish_reason: z.string().nullish() }).nullish(),
  usage: PydanticUsage.nullish(),
  run_id: z.string().nullish(),
  conversation_id: z.string().nullish(),
});
export type PydanticMessage = z.infer<typeof PydanticMessage>;

export const PydanticHistory = z.array(PydanticMessage);

/** The head of a history: an array whose first message opens with its parts or its kind. */
export const HISTORY_HEAD = /^\[\s*\{\s*"(?:parts|kind)"\s*:/;
/** A part kind only pydantic-ai writes (its request side, which every history starts with). */
export const PART_KIND =
  /"part_kind"\s*:\s*"(?:user-prompt|system-prompt|tool-return|retry-prompt)"/;
