import { extname } from "node:path";
import { isMap, isScalar, isSeq, parseDocument } from "yaml";
import { YAML_MAX_ALIASES } from "./load.js";

/** One editable leaf of a candidate file (the field editor's unit): its path and current value. */
export interface Field {
  path: (string | number)[];
  value: string | number | boolean;
}

/** The parts of a candidate the editor exposes (the mechanics, not identity or history). */
const EDITABLE = ["eligibility", "track", "rules", "behavior"] as const;

function walk(v: unknown, path: (string | number)[], out: Field[]): void {
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") {
    out.push({ path, value: v });
  } else if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) walk(x, [...path, i], out);
  } else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) walk(x, [...path, k], out);
  }
}

const isJson = (file: string) => extname(file) === ".json";

/** The editable leaves of a candidate text (empty when it does not parse). */
export function fieldsOf(text: string, file: string): Field[] {
  let obj: Record<string, unknown>;
  try {
    obj = (
      isJson(file)
        ? JSON.parse(text)
        : parseDocument(text).toJS({ maxAliasCount: YAML_MAX_ALIASES })
    ) as Record<string, unknown>;
  } catch {
    return [];
  }
  const out: Field[] = [];
  for (const k of EDITABLE) if (obj && k in obj) walk(obj[k], [k], out);
  // A rule without a nudge limit still offers one to edit (the schema's default is 1).
  const rules = Array.isArray(obj?.rules) ? (obj.rules as Record<string, unknown>[]) : [];
  for (const [i, r] of rules.entries()) {
    if (r && typeof r === "object" && !("nudgeLimit" in r) && !("release" in r)) {
      const at = out.findIndex((f) => f.path[0] === "rules" && f.path[1] === i + 1);
      const field: Field = { path: ["rules", i, "nudgeLimit"], value: 1 };
      if (at < 0) {
        const after = out.findIndex((f) => f.path[0] === "behavior");
        out.splice(after < 0 ? out.length : after, 0, field);
      } else out.splice(at, 0, field);
    }
  }
  return out;
}

/**
 * The text with one leaf replaced. YAML keeps its comments and layout (yaml Document);
 * a value typed for a number field is kept a number when it reads as one.
 */
export function setField(text: string, file: string, f: Field, raw: string): string {
  const value: string | number | boolean =
    typeof f.value === "number" && /^-?\d+$/.test(raw.trim())
      ? Number(raw.trim())
      : typeof f.value === "boolean" && (raw === "true" || raw === "false")
        ? raw === "true"
        : raw;
  if (isJson(file)) {
    const obj = JSON.parse(text) as Record<string, unknown>;
    let cur: unknown = obj;
    for (const k of f.path.slice(0, -1)) cur = (cur as Record<string | number, unknown>)[k];
    (cur as Record<string | number, unknown>)[f.path[f.path.length - 1]!] = value;
    return `${JSON.stringify(obj, null, 2)}\n`;
  }
  const doc = parseDocument(text);
  const node = doc.getIn(f.path, true);
  if (isScalar(node)) node.value = value;
  else if (!isMap(node) && !isSeq(node)) doc.setIn(f.path, value);
  return doc.toString({ lineWidth: 0 });
}
