import { extname } from "node:path";
import { Document, isMap, isSeq, parse, parseDocument, type YAMLMap, type YAMLSeq } from "yaml";
import { COMBINATORS } from "../policy/atoms.js";
import { Condition, Pattern } from "../policy/schema.js";

/**
 * Structural edits of a candidate text (the structured editor's add / remove): rules,
 * conditions and eligibility patterns. YAML keeps its comments, anchors and layout (yaml
 * Document); JSON is rewritten. Each edit returns the new text, or why it cannot be done;
 * the result is checked by the same compile as any edit (preview, save).
 */

type Path = (string | number)[];

/** A part of a candidate that can be removed, named for a menu. */
export interface Unit {
  kind: "rule" | "track" | "condition" | "pattern";
  path: Path;
  label: string;
}

/** Where something can be added, named for a menu. */
export interface AddTarget {
  kind: "rule" | "condition" | "pattern";
  /** rule: the rule copied; condition: the condition map; pattern: the eligibility list. */
  path: Path;
  label: string;
  /** What the user types for it (none for a rule: it is a copy to edit). */
  prompt?: string;
}

export type EditResult = { text: string; focus: Path } | { error: string };

const label = (p: Path) => p.join(".");
const isJson = (file: string) => extname(file) === ".json";

/** The condition a field path starts in (rules.i.when, rules.i.release, track.i.when, behavior). */
function conditionRoot(p: Path): Path | undefined {
  if (p[0] === "behavior") return ["behavior"];
  if ((p[0] === "rules" || p[0] === "track") && typeof p[1] === "number") {
    if (p[2] === "when" || (p[0] === "rules" && p[2] === "release")) return p.slice(0, 3);
  }
  return undefined;
}

/** The conditions a field path passes through, outermost first (nested all/any/not too). */
function conditionsOn(p: Path): Path[] {
  const root = conditionRoot(p);
  if (!root) return [];
  const out: Path[] = [root];
  let at = root.length;
  for (;;) {
    const k = p[at];
    if (k === "all" || k === "any") {
      if (typeof p[at + 1] !== "number") break;
      out.push(p.slice(0, at + 2));
      at += 2;
    } else if (k === "not") {
      out.push(p.slice(0, at + 1));
      at += 1;
    } else break;
  }
  return out;
}

/** What can be removed around the field at `p`, innermost first. */
export function unitsAt(p: Path): Unit[] {
  const units: Unit[] = [];
  if (p[0] === "eligibility" && typeof p[2] === "number") {
    units.push({ kind: "pattern", path: p.slice(0, 3), label: `pattern ${label(p.slice(0, 3))}` });
  }
  const conds = conditionsOn(p);
  const inner = conds.at(-1);
  if (inner) {
    const k = p[inner.length];
    if (typeof k === "string" && !Object.hasOwn(COMBINATORS, k))
      units.push({
        kind: "condition",
        path: [...inner, k],
        label: `condition ${label([...inner, k])}`,
      });
    for (const c of [...conds].reverse())
      if (c.length > 1 && !(c.length === 1 && c[0] === "behavior"))
        units.push({ kind: "condition", path: c, label: `condition ${label(c)}` });
  }
  if ((p[0] === "rules" || p[0] === "track") && typeof p[1] === "number") {
    const kind = p[0] === "rules" ? "rule" : "track";
    units.push({
      kind,
      path: p.slice(0, 2),
      label: `${kind === "rule" ? "rule" : "tracking rule"} ${label(p.slice(0, 2))}`,
    });
  }
  return units;
}

/** What can be added from the field at `p`: a rule (copy), a condition, a pattern. */
export function addTargets(p: Path, ruleCount: number): AddTarget[] {
  const rule = p[0] === "rules" && typeof p[1] === "number" ? p[1] : Math.max(0, ruleCount - 1);
  const cond =
    conditionsOn(p).at(-1) ??
    (p[0] === "rules" && typeof p[1] === "number" ? ["rules", p[1], "when"] : ["behavior"]);
  const list = p[0] === "eligibility" && typeof p[1] === "string" ? p[1] : "anyOf";
  return [
    {
      kind: "condition",
      path: cond,
      label: `condition in ${label(cond)}`,
      prompt: "condition (YAML, e.g. command: '\\bgit push\\b' or flag: launched):",
    },
    {
      kind: "pattern",
      path: ["eligibility", list],
      label: `pattern in eligibility.${list}`,
      prompt: `eligibility.${list} pattern (regex):`,
    },
    { kind: "rule", path: ["rules", rule], label: `rule: a copy of rules.${rule} to edit` },
  ];
}

function load(text: string, file: string): Document {
  return isJson(file) ? new Document(JSON.parse(text)) : parseDocument(text);
}

function save(doc: Document, file: string): string {
  return isJson(file) ? `${JSON.stringify(doc.toJS(), null, 2)}\n` : doc.toString({ lineWidth: 0 });
}

const seqAt = (doc: Document, p: Path): YAMLSeq | undefined => {
  const n = doc.getIn(p, true);
  return isSeq(n) ? n : undefined;
};

/** Removes a unit; a condition or list left empty goes too (an empty `any` would not load). */
export function removeUnit(text: string, file: string, unit: Unit): EditResult {
  const doc = load(text, file);
  if (unit.kind === "rule" && (seqAt(doc, ["rules"])?.items.length ?? 0) <= 1)
    return { error: "a candidate needs at least one rule: add another before removing this one" };
  if (!doc.hasIn(unit.path)) return { error: `nothing at ${label(unit.path)}` };
  doc.deleteIn(unit.path);
  let p = unit.path.slice(0, -1);
  // Empty leftovers: an all/any list, a nested condition, a rule's when/release.
  while (p.length > 1) {
    const n = doc.getIn(p, true);
    const empty = (isSeq(n) || isMap(n)) && n.items.length === 0;
    const prunable = conditionRoot(p) !== undefined || p[0] === "track";
    if (!empty || !prunable || label(p) === "behavior") break;
    doc.deleteIn(p);
    p = p.slice(0, -1);
  }
  return { text: save(doc, file), focus: unit.path.slice(0, -1) };
}

/** A new regex in an eligibility list. */
export function addPattern(text: string, file: string, list: Path, raw: string): EditResult {
  const value = raw.trim();
  const ok = Pattern.safeParse(value);
  if (!value || !ok.success) return { error: "a pattern needs at least one character" };
  const doc = load(text, file);
  if (!seqAt(doc, list)) doc.setIn(list, doc.createNode([]));
  const seq = seqAt(doc, list)!;
  seq.items.push(doc.createNode(value));
  return { text: save(doc, file), focus: [...list, seq.items.length - 1] };
}

/**
 * Conditions typed as YAML (`command: '\bgit push\b'`, `{flag: launched, status: ok}`) added
 * to a condition: a key not yet there is set, one already there is added under `all`.
 */
export function addCondition(text: string, file: string, cond: Path, raw: string): EditResult {
  let typed: unknown;
  try {
    typed = parse(raw.trim().startsWith("{") ? raw : `{${raw}}`);
  } catch (err) {
    return { error: `condition: not YAML (${(err as Error).message.split("\n")[0]})` };
  }
  if (!typed || typeof typed !== "object" || Array.isArray(typed) || !Object.keys(typed).length)
    return { error: "condition: expected key: value, e.g. flag: launched" };
  const checked = Condition.safeParse(typed);
  if (!checked.success)
    return {
      error: `condition: ${checked.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ")}`,
    };
  const doc = load(text, file);
  if (!isMap(doc.getIn(cond, true))) doc.setIn(cond, doc.createNode({}));
  const map = doc.getIn(cond, true) as YAMLMap;
  let focus: Path = cond;
  for (const [k, v] of Object.entries(typed as Record<string, unknown>)) {
    if (!map.has(k)) {
      map.set(k, doc.createNode(v));
      focus = [...cond, k];
    } else {
      if (!seqAt(doc, [...cond, "all"])) map.set("all", doc.createNode([]));
      const all = seqAt(doc, [...cond, "all"])!;
      all.items.push(doc.createNode({ [k]: v }));
      focus = [...cond, "all", all.items.length - 1, k];
    }
  }
  return { text: save(doc, file), focus };
}

/** A copy of rule `path` right after it, under a new id, for the user to edit. */
export function copyRule(text: string, file: string, path: Path): EditResult {
  const doc = load(text, file);
  const rules = seqAt(doc, ["rules"]);
  const i = Number(path[1]);
  const node = rules?.items[i];
  if (!rules || !isMap(node)) return { error: "no rule to copy (the candidate needs rules:)" };
  const copy = node.clone() as YAMLMap;
  const ids = new Set(rules.items.map((r) => (isMap(r) ? String(r.get("id")) : "")));
  const base = String(node.get("id") ?? "rule");
  let n = 2;
  while (ids.has(`${base}-${n}`)) n++;
  copy.set("id", `${base}-${n}`);
  rules.items.splice(i + 1, 0, copy);
  return { text: save(doc, file), focus: ["rules", i + 1, "id"] };
}
