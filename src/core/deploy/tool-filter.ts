import type { Candidate, Condition } from "../policy/schema.js";
import type { Harness } from "./settings.js";

/**
 * Which tools' events a portfolio can act on, so the harness need not start the hook for the
 * others (a matcher on the tool events). The evaluator changes a session's state, fires, or
 * counts an instruction as followed only at an event where some condition holds — a tracking
 * rule's `when`, a rule's `when`, the behaviour marker — and step numbers are compared, never
 * subtracted (`steps: "probe > launch"`), so an event at which none of them can hold changes
 * nothing when it is not seen: the decisions stay those of replay over the whole session.
 *
 * A condition restricts the tool only through atoms that hold for some tools alone: `command`
 * (the shell tools) and `writes` (edit tools, and a shell running apply_patch). Anything else
 * (no condition, `tool` patterns, outputs, statuses, counters, `not`) may hold at any tool, and
 * then every tool event must reach the hook. Conservative by construction: an unknown is "any".
 */
export type ToolClass = "shell" | "edit";
export type ToolNeed = "any" | ReadonlySet<ToolClass>;

/** The tool names each client sends its hooks for each class (seen in the recorded sessions). */
export const HARNESS_TOOLS: Record<Harness, Record<ToolClass, readonly string[]>> = {
  // Claude Code 2.1.332: `Bash`; its edit tools.
  claude: { shell: ["Bash"], edit: ["Write", "Edit", "MultiEdit", "NotebookEdit"] },
  // Codex 0.171.0: exec_command reaches hooks as `Bash`; edits as `apply_patch`.
  codex: { shell: ["Bash"], edit: ["apply_patch"] },
};

const ANY: ToolNeed = "any";
const NONE: ToolNeed = new Set<ToolClass>();

function union(a: ToolNeed, b: ToolNeed): ToolNeed {
  if (a === "any" || b === "any") return ANY;
  return new Set([...a, ...b]);
}

function intersect(a: ToolNeed, b: ToolNeed): ToolNeed {
  if (a === "any") return b;
  if (b === "any") return a;
  return new Set([...a].filter((x) => b.has(x)));
}

/** The tools at whose events a condition can hold (undefined: no condition, it always holds). */
export function conditionTools(c: Condition | undefined): ToolNeed {
  if (c === undefined) return ANY;
  let need: ToolNeed = ANY;
  // an event kind other than a tool call or result never holds at a tool event
  if (c.kind !== undefined) {
    const kinds: readonly string[] = typeof c.kind === "string" ? [c.kind] : c.kind;
    if (!kinds.includes("tool_call") && !kinds.includes("tool_result")) return NONE;
  }
  // atoms side by side hold together
  if (c.command !== undefined) need = intersect(need, new Set<ToolClass>(["shell"]));
  // a shell running apply_patch writes too (core/ingest/shell.ts writtenPaths)
  if (c.writes !== undefined) need = intersect(need, new Set<ToolClass>(["edit", "shell"]));
  for (const s of c.all ?? []) need = intersect(need, conditionTools(s));
  if (c.any && c.any.length > 0)
    need = intersect(
      need,
      c.any.map(conditionTools).reduce((a, b) => union(a, b), NONE),
    );
  return need;
}

type Point = "tool" | "tool_result";
const points = (at: string | readonly string[] | undefined): readonly string[] | undefined =>
  at === undefined ? undefined : typeof at === "string" ? [at] : at;

/**
 * Per tool event, the tools a portfolio can act on: `tool` (before a call: PreToolUse) and
 * `tool_result` (after it: PostToolUse, PostToolUseFailure). The behaviour marker is read at
 * every event, as a tracking rule without `at` is.
 */
export function portfolioTools(candidates: readonly Candidate[]): Record<Point, ToolNeed> {
  const out: Record<Point, ToolNeed> = { tool: NONE, tool_result: NONE };
  const add = (at: readonly string[] | undefined, need: ToolNeed) => {
    for (const p of ["tool", "tool_result"] as const)
      if (at === undefined || at.includes(p)) out[p] = union(out[p], need);
  };
  for (const c of candidates) {
    for (const t of c.track) add(points(t.at), conditionTools(t.when));
    for (const r of c.rules) add([r.at], conditionTools(r.when));
    add(undefined, conditionTools(c.behavior));
  }
  return out;
}

/**
 * The matcher for one tool event: "" (every tool) when any tool can matter, else the exact
 * tool names joined by `|` — Claude Code reads such a value as a list of exact names, Codex
 * as a regular expression, which matches at least those names. Undefined: no tool can matter
 * at this event (nothing need be registered for it).
 */
export function toolMatcher(need: ToolNeed, harness: Harness): string | undefined {
  if (need === "any") return "";
  if (need.size === 0) return undefined;
  const names = (["shell", "edit"] as const).flatMap((k) =>
    need.has(k) ? HARNESS_TOOLS[harness][k] : [],
  );
  return [...new Set(names)].join("|");
}
