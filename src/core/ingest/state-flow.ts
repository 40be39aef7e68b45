/**
 * State-flow trajectories: an agent run driven as a fixed flow of states (Moatless Tools:
 * search the code, identify spans, decide relevance, plan, edit, finish), saved as one JSON
 * object per instance, `{name, initial_message, transitions: [...], info}`:
 * - `initial_message`: the task (the issue text);
 * - `transitions[]`: each a state, `name` (`SearchCode`, `PlanToCode`, `EditCode`, `Finished`,
 *   `Rejected`, …), its settings `state` (the model among them) and `actions[]`, each the model's
 *   request `action` (its reasoning in `scratch_pad`, or `thoughts` in the older runs; the rest
 *   the state's arguments) and the
 *   tool's `output`, or `retry_message`: the state refused the request and asked again;
 * - `info`: `instance_id`, `status` (`finished`, `rejected`, `error`), `error` (the traceback of
 *   a run the loop aborted), `duration`, `total_cost`, `submission` (the final patch).
 * Each action is a call of its state (the model's scratch pad a message before it), its output
 * the result (a refused request: an error result, the state's message). An edit state's call
 * writes its file when the output says the change was applied; a lint of the edited file
 * (`verification_errors`) is part of its result. A `Finished` state, or a `Rejected` one the
 * model chose, is the agent's stop. The harness ended the run when a `Rejected` state says a
 * limit was exceeded, when the run is `rejected` with no end state (a state's retries ran out)
 * and when it is an `error` (the traceback's last line: a budget, or a crash): then the run ends
 * with that exception, not a stop. The verdict is the submission's (`swebench-submission.ts`).
 */
import { z } from "zod";
import type { AttemptInput } from "../model/attempt.js";
import { EventLog } from "./events.js";
import { readTail, scanFor } from "./fs-util.js";
import { readJsonAs } from "./json-file.js";
import { filesStamp } from "./stamp.js";
import { jsonStem, submissionFiles, submissionVerdict } from "./swebench-submission.js";
import { attemptId } from "./text.js";
import type { Importer, IngestItem, IngestOptions } from "./types.js";

const Action = z.looseObject({
  action: z.unknown().optional(),
  output: z.unknown().optional(),
  retry_message: z.string().nullish(),
});

const Transition = z.looseObject({
  name: z.string(),
  state: z.looseObject({ model: z.string().nullish(), file_path: z.string().nullish() }).nullish(),
  actions: z.array(Action).nullish(),
});

const StateFlow = z.looseObject({
  name: z.string().nullish(),
  initial_message: z.string().nullish(),
  transitions: z.array(Transition),
  info: z
    .looseObject({
      instance_id: z.string().nullish(),
      status: z.string().nullish(),
      error: z.string().nullish(),
      duration: z.number().nullish(),
      total_cost: z.number().nullish(),
      submission: z.string().nullish(),
    })
    .nullish(),
});
type StateFlow = z.infer<typeof StateFlow>;

/**
 * The instance id a trajectory's `info` names (it comes last, after the transitions, followed
 * only by a few numbers and the submitted patch): read from the file's tail, for the stamp.
 */
function instanceNear(path: string): string | undefined {
  const tail = readTail(path, 256 * 1024) ?? "";
  const found = [...tail.matchAll(/"instance_id"\s*:\s*"([^"\\]{1,200})"/g)].at(-1);
  return found?.[1];
}

const HEAD = /^\{[\s\S]{0,2000}?"(?:initial_message|transitions)"\s*:/;
const TRANSITIONS = /"transitions"\s*:\s*\[\s*\{\s*"name"\s*:/;

/**
 * Whether a file is a state-flow trajectory, by its head: a JSON object with
 * `initial_message` and a `transitions` list of named states (the list may sit behind a long
 * task text).
 */
export function isStateFlow(path: string, head: string): boolean {
  if (!/\.json$/i.test(path)) return false;
  const h = head.trimStart();
  if (!HEAD.test(h) || !/"initial_message"\s*:/.test(h)) return false;
  return TRANSITIONS.test(h) || scanFor(path, TRANSITIONS, 1 << 20);
}

/** Where a request keeps the model's reasoning: `scratch_pad`, `thoughts` in older runs. */
const REASONING_KEYS = ["scratch_pad", "thoughts"] as const;

/** The states whose request is an edit of one file (the file in the state's settings). */
const EDIT_STATE = /^Edit/;
/** The states that end the run on the agent's own decision. */
const END_STATE = /^(?:Finished|Rejected)$/;
/** An edit state's output when the change went in. */
const APPLIED = /^Applied the change to (\S+?)\.?(?:\s|$)/;
/** A harness error that says a budget of the run (cost, transitions, tokens) was used up. */
const LIMIT_ERROR =
  /\b(?:cost|transitions?|tokens?|iterations?|steps?|retries)\b[^\n]{0,60}?\b(?:exceed(?:ed|s)?|reached)\b|\blimit\b[^\n]{0,20}?\b(?:exceeded|reached)\b/i;

/**
 * A `Rejected` state's message when the loop, not the model, rejected the run: "Max
 * transitions exceeded." (also "… for state SearchCode."). A model's own rejection may quote a
 * limit of something else ("the rate limit was exceeded"), so only the loop's words count.
 */
const HARNESS_LIMIT =
  /^max(?:imum)?\s+(?:transitions|iterations|retries|cost|tokens)\b[^\n]{0,80}?\b(?:exceeded|reached)\b/i;

/** The text of an output: its message, a diff, lint findings, any other field as JSON. */
function outputText(output: unknown): string {
  if (output === null || output === undefined)
    return "(no output: the state asked the model again)";
  if (typeof output === "string") return output;
  if (typeof output !== "object") return JSON.stringify(output);
  const o = output as Record<string, unknown>;
  const parts: string[] = [];
  if (typeof o.message === "string") parts.push(o.message);
  if (typeof o.diff === "string" && o.diff) parts.push(o.diff);
  for (const key of ["errors", "verification_errors"])
    if (Array.isArray(o[key]) && o[key].length > 0)
      parts.push(`${key}: ${(o[key] as unknown[]).map(finding).join("\n")}`);
  const rest = Object.fromEntries(
    Object.entries(o).filter(
      ([k]) => !["message", "diff", "errors", "verification_errors"].includes(k),
    ),
  );
  if (Object.keys(rest).length > 0) parts.push(JSON.stringify(rest));
  return parts.join("\n");
}

/** A lint finding (`{code, file_path, line, message}`) as one line. */
function finding(f: unknown): string {
  if (!f || typeof f !== "object") return String(f);
  const x = f as Record<string, unknown>;
  const where = [x.file_path, x.line].filter((v) => v !== undefined && v !== null).join(":");
  return [where, x.code, x.message].filter((v) => v !== undefined && v !== "").join(" ");
}

/**
 * The harness's exception of a run it ended: a limit an end state names, a state whose retries
 * ran out (`rejected` with no end state), a used-up budget or a crash (`error`: the
 * traceback's last line).
 */
function abortOf(
  info: StateFlow["info"],
  built: Built,
): { type: string; message: string } | undefined {
  if (built.limit)
    return { type: "LimitsExceeded", message: `the harness ended the run: ${built.limit}` };
  if (info?.status === "rejected" && !built.stopped)
    return {
      type: "LimitsExceeded",
      message: built.refused
        ? `the harness ended the run: ${built.refused.state} refused the model's requests until its retries ran out (last: ${built.refused.message.split("\n")[0]?.slice(0, 200)})`
        : "the harness ended the run (rejected) with no end state",
    };
  if (info?.status !== "error" && !info?.error) return undefined;
  const lines = (info?.error ?? "").trim().split("\n");
  const last = lines.at(-1)?.trim() ?? "";
  if (LIMIT_ERROR.test(last))
    return { type: "LimitsExceeded", message: `the harness ended the run: ${last}` };
  const m = /^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt))\s*:?([\s\S]*)$/.exec(last);
  return m
    ? { type: m[1]!.split(".").at(-1)!, message: m[2]?.trim() || last }
    : { type: "HarnessError", message: last || "the run ended with an error" };
}

interface Built {
  model?: string;
  /** The flow's states the run went through, in first-visit order. */
  states: string[];
  stopped: boolean;
  /** A limit an end state says the run exceeded. */
  limit?: string;
  /** The last request a state refused, with its message. */
  refused?: { state: string; message: string };
}

function buildEvents(t: StateFlow, log: EventLog): Built {
  if (t.initial_message) log.text("prompt", "user", t.initial_message);
  let model: string | undefined;
  let stopped = false;
  let limit: string | undefined;
  let refused: Built["refused"];
  const states: string[] = [];
  let n = 0;
  for (const tr of t.transitions) {
    if (!states.includes(tr.name)) states.push(tr.name);
    if (END_STATE.test(tr.name)) {
      const said = (tr.state as { message?: unknown } | null | undefined)?.message;
      const final = typeof said === "string" ? said.trim() : "";
      // "Max transitions exceeded.": the harness's limit, not the model's decision
      if (tr.name === "Rejected" && HARNESS_LIMIT.test(final)) {
        limit = final;
        continue;
      }
      if (final) log.text("message", "agent", final);
      log.stop();
      stopped = true;
      continue;
    }
    for (const a of tr.actions ?? []) {
      model ??= tr.state?.model ?? undefined;
      const request =
        a.action && typeof a.action === "object"
          ? { ...(a.action as Record<string, unknown>) }
          : {};
      // the model's reasoning is its message, not an argument of the call (the same request
      // with other words around it is the same request)
      const thought = REASONING_KEYS.map((k) => request[k])
        .filter((v): v is string => typeof v === "string" && v.trim() !== "")
        .join("\n")
        .trim();
      for (const k of REASONING_KEYS) delete request[k];
      if (thought) log.text("message", "agent", thought);
      const edit = EDIT_STATE.test(tr.name);
      const file = tr.state?.file_path ?? undefined;
      const args = edit && file ? { file_path: file, ...request } : request;
      const retry = a.retry_message?.trim();
      const out =
        retry && (a.output === null || a.output === undefined) ? retry : outputText(a.output);
      const applied = edit && !retry ? APPLIED.exec(out)?.[1] : undefined;
      const callId = `state-${n++}`;
      log.call({ tool: tr.name, args, callId, writes: applied ? [applied] : [] });
      log.result({ output: out, callId, isError: retry ? true : undefined });
      refused = retry ? { state: tr.name, message: retry } : undefined;
    }
  }
  return { model, states, stopped, limit, refused };
}

async function* readStateFlow(path: string, options: IngestOptions): AsyncGenerator<IngestItem> {
  const loaded = await readJsonAs(
    path,
    StateFlow,
    "a state-flow trajectory (initial_message, transitions[{name, actions}], info)",
  );
  if (!loaded.ok) return yield { type: "error", error: loaded.error };
  const t = loaded.value;
  const named = t.info?.instance_id ?? undefined;
  const instance = named || jsonStem(path);
  const log = new EventLog(options.outputCap);
  const built = buildEvents(t, log);
  const exception = abortOf(t.info, built);
  if (exception) log.text("message", "system", exception.message);
  const verdict = await submissionVerdict(path, instance, options.outputCap, !named);
  for (const error of verdict.errors) yield { type: "error", error };
  const { resolved } = verdict;
  const cost = t.info?.total_cost;
  const duration = t.info?.duration;
  const attempt: AttemptInput = {
    id: attemptId("state-flow", `${instance}\u0000${path}`, instance),
    source: { format: "state-flow", path },
    taskId: instance,
    taskText: t.initial_message ?? "",
    agent: "moatless",
    model: built.model ?? verdict.model,
    outcome: resolved === undefined ? "unknown" : resolved ? "pass" : "fail",
    reward: resolved === undefined ? null : resolved ? 1 : 0,
    exception,
    // a fixed flow offers the model its states' requests and nothing else: the states this run
    // went through are its tools. A state it never reached is not counted: a flow with an unused
    // test state would read as one without, its unchecked stop a capability gap. (No Moatless
    // flow of this format has a state that runs code; its edit states lint on their own.)
    offeredTools: built.states.filter((s) => !END_STATE.test(s)),
    costUsd: typeof cost === "number" && Number.isFinite(cost) ? cost : undefined,
    durationS: typeof duration === "number" && duration >= 0 ? duration : undefined,
    verifierOutput: verdict.verifierOutput,
    verifierSource: verdict.verifierSource,
    verifierTests: verdict.verifierTests,
    events: log.events,
  };
  yield { type: "attempt", attempt };
}

export const stateFlowImporter: Importer = {
  format: "state-flow",
  detect: (path, head, isDirectory) => !isDirectory && isStateFlow(path, head),
  read: (path, options) => readStateFlow(path, options),
  outsideStamp: (path) => filesStamp(submissionFiles(path, instanceNear(path) ?? jsonStem(path))),
};
