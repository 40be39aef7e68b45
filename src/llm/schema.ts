import { z } from "zod";

type Json = Record<string, unknown>;

/** Keywords OpenAI strict structured output rejects; zod still enforces them locally. */
const DROP = new Set(["$schema", "maxLength", "minLength", "format", "default"]);

function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (DROP.has(k)) continue;
    // zod's safe-integer bounds carry no information for the model
    if ((k === "minimum" || k === "maximum") && typeof v === "number" && Math.abs(v) >= 2 ** 52)
      continue;
    out[k] = clean(v);
  }
  return out;
}

/**
 * JSON Schema for `response_format: {type: "json_schema", strict: true}`, built from
 * the zod schema with zod 4's `z.toJSONSchema` and trimmed to what strict mode accepts.
 */
export function openAiJsonSchema(schema: z.ZodType): Json {
  let out = memo.get(schema);
  if (!out) {
    out = clean(z.toJSONSchema(schema, { target: "draft-7", io: "output" })) as Json;
    memo.set(schema, out);
  }
  return out;
}

const memo = new WeakMap<z.ZodType, Json>();

/**
 * The text inside a ```json … ``` fence that wraps the whole answer, else the text itself.
 * By index, not a pattern: a lazy pattern between two runs of white space is cubic on an
 * answer that degenerates into white space with no closing fence.
 */
function unfenced(text: string): string {
  if (text.length < 6 || !text.startsWith("```") || !text.endsWith("```")) return text;
  const inner = text.slice(3, -3);
  return (inner.startsWith("json") ? inner.slice(4) : inner).trim();
}

/** Parse model text as JSON (tolerating a ```json fence) and validate it. */
export function parseAnswer<T>(
  schema: z.ZodType<T>,
  text: string,
): { ok: true; value: T } | { ok: false; errors: string[] } {
  const body = unfenced(text.trim());
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (err) {
    return { ok: false, errors: [`not valid JSON (${(err as Error).message.slice(0, 120)})`] };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    errors: parsed.error.issues
      .slice(0, 8)
      .map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`),
  };
}
