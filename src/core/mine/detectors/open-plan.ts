import { z } from "zod";
import type { Attempt, Event } from "../../model/attempt.js";
import { parseInput, toolCalls } from "./shell.js";

/**
 * The agent's own plan, as the common agents keep it in a tool call that restates the whole
 * list: Claude Code's `TodoWrite` (`todos: [{content, status}]`), Codex CLI's `update_plan`
 * (`plan: [{step, status}]`), Gemini CLI's `write_todos` (`todos: [{description, status}]`),
 * OpenHands' `task_tracker` (`task_list: [{title, status}]`). Tools that change one item at a
 * time say nothing of the whole list and are not read.
 */
const PLAN_TOOL = /^(?:TodoWrite|todo_write|update_plan|write_todos|task_tracker)$/i;

const Item = z.looseObject({
  // OpenHands' task_tracker leaves a new task's status out: "todo"
  status: z.string().default("todo"),
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
  const json = parseInput(call);
  if (!json) return undefined;
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
 * properly:", "Now I'll create the `http_probe.go` file:". A final message that ends on such an
 * announcement, after the last tool call, is a stop right after announcing a write (what a
 * stop rule that reads the last message could answer with "you said you would …"). Words of
 * handing in ("Submitting the final result:", "Let me create a summary of the changes:"), of
 * bookkeeping ("Let me update the todo list") or of a check ("Let me build it to verify") are
 * none. The tail runs to the end of the text, through the dots of file names and versions.
 */
const ANNOUNCED_CHANGE =
  /\b(?:let me|let['\u2019]s|I(?:['\u2019]ll| will| am going to|['\u2019]m going to))\s+(?:now\s+|then\s+|also\s+|first\s+|quickly\s+|carefully\s+)?(?:re)?(?:write|create|implement|fix|add|update|edit|modify|apply|patch|correct|refactor|replace|restructure)\b(?!\s+(?:the |a |an |my |our )?(?:final )?(?:todos?|to-do|todo list|plan|summary|recap)\b)(?:[^.!?\n]|[.!?](?=[\w/`])){0,160}[:.]?\s*$/i;

/** The agent's last words before the stop: the stop's own record of them, else the last message. */
function lastWords(a: Attempt): Event | undefined {
  for (let i = a.events.length - 1; i >= 0; i--) {
    const e = a.events[i] as Event;
    if (e.kind === "stop") {
      // what the stop rule reads at the stop (the harness's final message, if any)
      if (e.final === undefined) continue;
      for (let j = i - 1; j >= 0; j--) {
        const m = a.events[j] as Event;
        if (m.kind === "message" && m.input === e.final) return m;
        if (m.kind === "tool_call" || m.kind === "tool_result") break;
      }
      return undefined;
    }
    if (e.kind === "tool_call" || e.kind === "tool_result") return undefined;
    if (
      e.kind === "message" &&
      e.role !== "user" &&
      e.role !== "system" &&
      /\S/.test(e.input ?? "")
    )
      return e;
  }
  return undefined;
}

export function announcedAtStop(a: Attempt): { eventIndex: number; why: string } | undefined {
  const last = lastWords(a);
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
