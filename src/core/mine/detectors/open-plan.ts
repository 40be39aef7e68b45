import { z } from "zod";
import type { Attempt, Event } from "../../model/attempt.js";
import { toolCalls } from "./shell.js";

/**
 * The agent's own plan, as the common agents keep it in a tool call that restates the whole
 * list: Claude Code's `TodoWrite` (`todos: [{content, status}]`), Codex CLI's `update_plan`
 * (`plan: [{step, status}]`), Gemini CLI's `write_todos` (`todos: [{description, status}]`),
 * OpenHands' `task_tracker` (`task_list: [{title, status}]`). Tools that change one item at a
 * time say nothing of the whole list and are not read.
 */
const PLAN_TOOL = /^(?:TodoWrite|todo_write|update_plan|write_todos|task_tracker)$/i;

const Item = z.looseObject({
  status: z.string(),
  content: z.string().optional(),
  step: z.string().optional(),
  description: z.string().optional(),
  title: z.string().optional(),
});
const PlanInput = z.union([
  z.looseObject({ todos: z.array(Item) }),
  z.looseObject({ plan: z.array(Item) }),
  z.looseObject({ task_list: z.array(Item) }),
]);
type Item = z.infer<typeof Item>;

/** Statuses of a step not yet begun (each agent's own word for it). */
const NOT_STARTED = /^(?:pending|todo|not_started|not-started|open)$/i;

/**
 * How many tool calls after its last update a plan still describes the run: a plan the agent
 * set once and then worked past for dozens of calls without touching says nothing of where
 * the run ended.
 */
const CURRENT_WITHIN = 10;

function itemsOf(call: Event): Item[] | undefined {
  if (!call.input) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(call.input);
  } catch {
    return undefined;
  }
  const p = PlanInput.safeParse(json);
  if (!p.success) return undefined;
  const d = p.data as { todos?: Item[]; plan?: Item[]; task_list?: Item[] };
  return d.todos ?? d.plan ?? d.task_list;
}

const textOf = (i: Item): string =>
  (i.content ?? i.step ?? i.description ?? i.title ?? "").replace(/\s+/g, " ").trim();

/**
 * Where the run ended with steps of the agent's own plan not yet begun: its last plan update
 * (a current one: few calls after it) still listed steps as pending. Not a capability gap's
 * finished attempt: a stop rule that reads the plan ("steps are still open") could act there.
 */
export function openPlanAtStop(a: Attempt): { eventIndex: number; why: string } | undefined {
  const calls = toolCalls(a);
  const updates = calls.filter((c) => c.tool && PLAN_TOOL.test(c.tool));
  for (const last of updates.reverse()) {
    const items = itemsOf(last);
    if (!items) continue;
    const after = calls.filter((c) => c.index > last.index).length;
    if (after > CURRENT_WITHIN) return undefined;
    const open = items.filter((i) => NOT_STARTED.test(i.status.trim()));
    if (open.length === 0) return undefined;
    const first = textOf(open[0] as Item).slice(0, 120);
    return {
      eventIndex: last.index,
      why:
        `the run ended with ${open.length} of ${items.length} step(s) of the agent's own plan ` +
        `not begun${first ? ` (next: "${first}")` : ""}, ${after} call(s) after its last update`,
    };
  }
  return undefined;
}

/**
 * The agent's last words announce a change it then never made: "Let me rewrite this
 * properly:", "Now I'll create the parser:". A final message that ends on such an
 * announcement, after the last tool call, is a stop right after announcing a write (what a
 * stop rule that reads the last message could answer with "you said you would …"). Words
 * of handing in ("Submitting the final result:") announce the stop itself and are none.
 */
const ANNOUNCED_CHANGE =
  /\b(?:let me|let's|now I(?:'ll| will)|I(?:'ll| will| am going to|'m going to)|next,? I(?:'ll| will))\s+(?:now\s+|then\s+|also\s+|first\s+|quickly\s+|carefully\s+)?(?:re)?(?:write|create|implement|fix|add|update|edit|modify|apply|build|patch|correct|refactor|replace|restructure)\b[^.!?\n]{0,160}[:.]?\s*$/i;

export function announcedAtStop(a: Attempt): { eventIndex: number; why: string } | undefined {
  let last: Event | undefined;
  for (let i = a.events.length - 1; i >= 0; i--) {
    const e = a.events[i] as Event;
    if (e.kind === "tool_call" || e.kind === "tool_result") break;
    if (
      e.kind === "message" &&
      e.role !== "user" &&
      e.role !== "system" &&
      /\S/.test(e.input ?? "")
    ) {
      last = e;
      break;
    }
  }
  if (!last) return undefined;
  const said = announcedChange(last.input ?? "");
  if (!said) return undefined;
  return {
    eventIndex: last.index,
    why: `the run ended on the agent's announcement of a change it never made ("${said.slice(0, 120)}")`,
  };
}

/** The announcement of a change a text ends on ("Let me write the solver:"), if it ends on one. */
export function announcedChange(text: string): string | undefined {
  return ANNOUNCED_CHANGE.exec(text.trimEnd().slice(-240))?.[0].trim();
}
