import type { z } from "zod";
import type { ChatMessage } from "./prompt.js";

/** What a structured call asks for: a zod schema, its name and version (part of the cache key). */
export interface StructuredSpec<T> {
  schema: z.ZodType<T>;
  name: string;
  version: string;
  /** Extra checks (e.g. event indices exist); returns problems, empty when fine. */
  validate?: (value: T) => string[];
}

export type StructuredResult<T> =
  | { ok: true; value: T; cached: boolean }
  | { ok: false; reason: string; stopped: boolean };

export interface CallOptions {
  /** Id used in retry events and failure lists (e.g. the attempt id). */
  id: string;
}

export interface PreparedCall {
  messages: ChatMessage[];
  key: string;
  promptHash: string;
  estimatedTokens: number;
}
