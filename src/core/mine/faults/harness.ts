import type { Attempt } from "../../model/attempt.js";
import { WORKED_ELSEWHERE } from "../detectors/elsewhere.js";
import { announcedChange } from "../detectors/open-plan.js";
import { killedItself } from "../detectors/own-kill.js";
import { allWrites, isTimeout, verifierMissing } from "../detectors/paths.js";
import type { InScopeKind, InterventionPoint } from "../label.js";
import { type Evidence, excerpt, type Fault } from "./types.js";

/** Stop reasons that mean the model's output was cut at its length limit. */
const LENGTH_STOP = /^(?:length|max_tokens|max_output_tokens|model_length|token_limit)$/i;
/** Stop reasons that mean the model request failed. */
const ERROR_STOP = /^(?:error|api_error|rate_limit\w*|overloaded\w*|server_error|refusal_error)$/i;
/** Exit statuses of a process ended by SIGKILL or SIGTERM (shell 128+n; negative: Node/Python style). */
export const KILLED_EXIT: ReadonlySet<number> = new Set([137, 143, -9, -15]);
/** The harness's record that the agent process exited non-zero (Harbor's exception type). */
export const AGENT_EXIT = /NonZeroAgentExitCode/i;

/** The final turn's own text (its message, else its reasoning), when the event is known. */
function finalText(a: Attempt): string {
  const i = a.agentEnd?.eventIndex;
  if (i === undefined) return "";
  return a.events.find((e) => e.index === i)?.input ?? "";
}

/** Whether the agent made a tool call after the final turn (then it was not the end). */
function actedAfter(a: Attempt, index: number | undefined): boolean {
  if (index === undefined) return false;
  return a.events.some((e) => e.index > index && e.kind === "tool_call");
}

function turnEvidence(a: Attempt, what: string): Evidence {
  const end = a.agentEnd ?? {};
  const text = finalText(a);
  return {
    ...(end.file ? { file: end.file } : {}),
    ...(end.eventIndex !== undefined ? { eventIndex: end.eventIndex } : {}),
    excerpt: excerpt(`${what}${text ? `: "${text.slice(-120)}"` : ""}`),
  };
}

function usageText(a: Attempt): string {
  const e = a.agentEnd ?? {};
  const parts = [
    e.stopReason !== undefined ? `stop_reason=${e.stopReason}` : undefined,
    `prompt_tokens=${e.promptTokens ?? "none"}`,
    e.outputTokens !== undefined ? `completion_tokens=${e.outputTokens}` : undefined,
    `${e.toolCalls ?? 0} tool call(s)`,
  ];
  return parts.filter(Boolean).join(", ");
}

/**
 * The agent process was killed (exit 137 / 143, SIGKILL / SIGTERM) while no time limit was hit: the
 * harness or host stopped it, not the agent. Evidence: the exit status file.
 */
export function agentKilled(a: Attempt): Fault | undefined {
  const end = a.agentEnd;
  if (a.outcome === "pass" || isTimeout(a) || end?.exitCode === undefined) return undefined;
  if (!KILLED_EXIT.has(end.exitCode) || killedItself(a)) return undefined;
  return {
    reason: "provider_fault",
    code: "agent-killed",
    detail: `the agent process was killed (exit ${end.exitCode}) with no time limit reached`,
    evidence: [
      {
        ...(end.exitFile ? { file: end.exitFile, line: 1 } : {}),
        excerpt: `exit status ${end.exitCode}${a.exception ? `; then ${a.exception.type}` : ""}`,
      },
    ],
  };
}

/**
 * The final model response was cut off: the run's last turn made no tool call and arrived
 * without the usage every other turn reported (0 or no prompt tokens), or held nothing, as a
 * response the provider or transport cut short does. The harness took it for the end of the
 * turn and the run stopped there. A response that stopped at the length limit is not one: it
 * used up the output the request allowed, the model's own generation (SCOPE_DEFINITIONS: the
 * run ended with nothing delivered, a state a stop rule can act on), unless its usage shows
 * the provider's cut as well.
 */
export function truncatedFinalResponse(a: Attempt): Fault | undefined {
  const end = a.agentEnd;
  if (!end || a.outcome === "pass" || isTimeout(a)) return undefined;
  if ((end.toolCalls ?? 0) > 0 || actedAfter(a, end.eventIndex)) return undefined;
  const atLimit = end.stopReason !== undefined && LENGTH_STOP.test(end.stopReason);
  // No response has an empty prompt: 0 prompt tokens beside output tokens is usage the
  // provider never delivered, and so is a reported 0 where the run's other turns had usage.
  // A count the writer left out says nothing (a format may meter its last step by cost only).
  const noUsage =
    end.promptTokens === 0 && ((end.outputTokens ?? 0) > 0 || (end.meteredTurns ?? 0) > 0);
  // A final response the trace shows held nothing (no text, no reasoning, no tool call) and
  // came with no usage, where other turns had usage, is a response the provider never
  // delivered. (An empty reply the model did write comes metered.)
  const empty =
    end.empty === true &&
    end.promptTokens === undefined &&
    end.outputTokens === undefined &&
    (end.meteredTurns ?? 0) > 0;
  if (!noUsage && !empty) return undefined;
  // a closing report that reads as finished lost nothing the run needed, whatever the
  // meter said (some endpoints report no usage for a whole final turn)
  if (!atLimit && readsAsFinished(finalText(a))) return undefined;
  const why = atLimit
    ? `stopped at the length limit (${end.stopReason}) with no usage reported`
    : empty && !noUsage
      ? "it was empty: no text, no tool call and no usage, where earlier turns reported usage"
      : "the provider reported no usage for it (0 prompt tokens)";
  return {
    reason: "provider_fault",
    code: "truncated-model-response",
    detail: `the final model response was cut off: no tool call, ${why}`,
    evidence: [turnEvidence(a, `final turn: ${usageText(a)}`)],
  };
}

/**
 * A claim that the work is done: "The implementation is complete.", "All tests pass" (not
 * "Not all tests pass"), "The task is done". What is done must be the work: "The exploration
 * is done. Next I need to write the parser." claims nothing of it.
 */
const DONE_CLAIM =
  /\b(?:(?:implementation|task|work|changes?|fix(?:es)?|features?|everything|solution|refactor(?:ing)?)\s+(?:is|are|was|were|has been|have been)\s+(?:now\s+)?(?:complete|completed|done|finished|fully implemented)|(?<!\bnot\s)all (?:\w+ ){0,2}(?:tests?|checks?|examples?) (?:now )?(?:pass|passed|passing)|successfully (?:implemented|completed))\b/i;
/**
 * The end of a finished text: a sentence or a ticked list item (a check mark, with its emoji
 * variation selector), then at most the closers of quotes, code or emphasis. A text cut after
 * an opening backtick or a code fence ends on no terminator.
 */
const FINISHED_END = /[.!\u2713\u2714\u2705]\uFE0F?[)`*"']*\s*$/u;

/**
 * Whether a final turn's text reads as a finished closing report: it claims the work done,
 * ends where a finished text ends, and does not end by announcing a next change (a turn
 * cut off before its tool call ends "Let me write the solver:"). A cut that left such a text
 * took nothing the run would have done.
 */
export function readsAsFinished(text: string): boolean {
  const t = text.trim();
  return DONE_CLAIM.test(t) && FINISHED_END.test(t) && announcedChange(t) === undefined;
}

/** The final model request failed (stop reason `error`, rate limit, overload) and the run ended. */
export function providerErrorLastTurn(a: Attempt): Fault | undefined {
  const end = a.agentEnd;
  if (!end?.stopReason || a.outcome === "pass") return undefined;
  if (!ERROR_STOP.test(end.stopReason) || actedAfter(a, end.eventIndex)) return undefined;
  return {
    reason: "provider_fault",
    code: "provider-error-last-turn",
    detail: `the final model request failed (stop reason ${end.stopReason}) and the run ended`,
    evidence: [turnEvidence(a, `final turn: ${usageText(a)}`)],
  };
}

/**
 * No agent step was recorded and the harness says why: the trial never started (an
 * exception other than a time limit and no agent time recorded, or the agent process
 * exited non-zero without running to its time limit), or the harness stopped a run whose steps were not read (an
 * exception after the agent had run for a while). Not when the recorded usage shows the model
 * answered and all the harness says is that the agent exited non-zero: that agent ran, and only
 * its steps were not kept. Callers check first that the agent did nothing visible.
 */
export function neverStarted(a: Attempt, resultFile: string): Fault | undefined {
  if (a.outcome === "pass") return undefined;
  const end = a.agentEnd;
  // the model answered (the trial's recorded usage has output): the agent ran, and its steps
  // were only not kept (a published run without its agent logs); an agent process that then
  // exited non-zero ended on its own failure, not the harness's
  const modelRan = (a.tokens?.output ?? 0) > 0;
  const ownExit = modelRan && AGENT_EXIT.test(a.exception?.type ?? "");
  if (a.exception && !isTimeout(a) && !ownExit) {
    const ran = a.durationS !== undefined && a.durationS >= 1;
    return {
      reason: "provider_fault",
      code: ran ? "harness-exception" : "trial-never-started",
      detail: ran
        ? `the harness stopped the run with ${a.exception.type} after ${Math.round(a.durationS ?? 0)} s; no agent step was recorded`
        : `the trial never started: no agent step, no agent time, exception ${a.exception.type}`,
      evidence: [
        {
          file: resultFile,
          excerpt: excerpt(
            `${a.exception.type}${a.exception.message ? `: ${a.exception.message}` : ""}`,
          ),
        },
      ],
    };
  }
  // a run its time limit ended did start (unless the harness timed it at under a second); a
  // grade above zero shows nothing (a check can pass on the untouched starting files)
  const ranToLimit = isTimeout(a) && !(a.durationS !== undefined && a.durationS < 1);
  if (end?.exitCode !== undefined && end.exitCode !== 0 && !ranToLimit && !modelRan)
    return {
      reason: "provider_fault",
      code: "trial-never-started",
      detail: `the trial never started: no agent step, the agent process exited ${end.exitCode}`,
      evidence: [
        {
          ...(end.exitFile ? { file: end.exitFile, line: 1 } : {}),
          excerpt: `exit status ${end.exitCode}`,
        },
      ],
    };
  return undefined;
}

/**
 * The harness lost what the trial is judged on (its own log says so: the trial failed as a
 * whole, the agent's logs could not be downloaded): there is no grade (no reward), or the
 * agent's record is gone (nothing it did was read). The sandbox or the harness failed, not the
 * agent. A trial whose record and grade both survived is left to the other readings, unless
 * the job stopped it while it was being graded: a grade the stop cut short is none.
 * Evidence: the harness's log line.
 */
export function harnessLostTrial(a: Attempt, acted: boolean): Fault | undefined {
  const h = a.harnessFailure;
  if (!h || h.kind === "withheld-input" || a.outcome === "pass") return undefined;
  const graded = a.reward !== undefined && a.reward !== null;
  // a stopped job cut the grading short (its traceback passes through the verifier); a stop
  // after a whole grade (while artifacts were copied, the sandbox stopped) leaves it standing
  const cut = h.kind === "cancelled" && h.whileGrading === true;
  if (acted && graded && !cut) return undefined;
  const what = cut
    ? "the trial was cut short"
    : graded
      ? "no agent step was recorded"
      : "the trial was not graded";
  return {
    reason: "provider_fault",
    code: "harness-lost-trial",
    detail: `${what}: ${h.message}`,
    evidence: [{ file: h.file, ...(h.line ? { line: h.line } : {}), excerpt: excerpt(h.message) }],
  };
}

/**
 * The harness never gave the agent the input it was asked to change, and the agent changed it
 * blind (aider started with nothing in its chat and nothing it could list, then rewrote an
 * existing file it had never seen): what the verifier graded is the harness's omission as much
 * as the agent's work. Evidence: the agent's own notice of the blind edit. Its second reading
 * (`secondReadingOf`): a tool rule that denies an edit to a file never read.
 */
export function harnessWithheldInput(a: Attempt): Fault | undefined {
  const h = a.harnessFailure;
  if (h?.kind !== "withheld-input" || a.outcome === "pass") return undefined;
  return {
    reason: "provider_fault",
    code: "harness-withheld-input",
    detail: h.message,
    evidence: [{ file: h.file, ...(h.line ? { line: h.line } : {}), excerpt: excerpt(h.message) }],
  };
}

/** A runtime rule's reading of an excluded failure, for `Label.secondReading`. */
export interface SecondReading {
  kind: InScopeKind;
  mechanismId: string;
  interventionPoint: InterventionPoint;
  why: string;
}

/** Faults that ended the agent's run on a model response it never got (or got cut off). */
const ENDED_ON_THE_MODEL = new Set([
  "truncated-model-response",
  "corrupted-model-response",
  "unparsed-tool-call",
  "model-never-answered",
  "provider-error-last-turn",
  "model-api-error",
]);

/**
 * What a runtime rule could still have done about an excluded failure, when something
 * could: a run that ended on a cut-off (or failed) model response had already done all its
 * work outside what the verifier grades (a folder it never named, a copy of the project it
 * fetched itself) — a prompt rule that points the agent at the task's own checkout would have;
 * or it stopped with the deliverable the verifier names never written — a stop rule that
 * checks the deliverable exists would have sent the agent back. A file the harness withheld and
 * the agent rewrote blind: a tool rule that denies an edit to a file never read would have kept
 * the original. Undefined for every other
 * fault (a killed process, a broken verifier: no rule of the agent's runtime reaches them).
 */
export function secondReadingOf(a: Attempt, fault: Fault | undefined): SecondReading | undefined {
  if (fault?.code === "harness-withheld-input")
    return {
      kind: "policy_addressable",
      mechanismId: "task-input-missed",
      interventionPoint: "tool",
      why: "the agent rewrote a file it had never read; a tool rule that denies an edit to a file the agent never read would have kept the original",
    };
  if (!fault?.code || !ENDED_ON_THE_MODEL.has(fault.code)) return undefined;
  const elsewhere = WORKED_ELSEWHERE.flatMap((d) => d.detect(a, { siblings: [] }))[0];
  if (elsewhere)
    return {
      kind: "policy_addressable",
      mechanismId: "task-input-missed",
      interventionPoint: "prompt",
      why: excerpt(
        `before the run ended on the model, all its work lay outside what the verifier grades: ${elsewhere.reason}`,
        400,
      ),
    };
  const { facts, createdZero } = verifierMissing(a);
  const writes = allWrites(a);
  const unwritten = facts.filter(
    (f) => !writes.some((w) => w.path.replace(/\/+$/, "").split("/").pop() === baseOf(f.path)),
  );
  if (unwritten.length === 0 && !(createdZero && writes.length === 0)) return undefined;
  const named = unwritten
    .slice(0, 3)
    .map((f) => f.path)
    .join(", ");
  // the time ran out on the model: no stop came, but the deliverable was still missing
  if (fault.code === "model-never-answered")
    return {
      kind: "policy_addressable",
      mechanismId: "deadline-no-deliverable",
      interventionPoint: "prompt",
      why: excerpt(
        `the time ran out on a model response with ${named || "the deliverable"} never written; a prompt rule to write a first version early would have left one to grade`,
        400,
      ),
    };
  return {
    kind: "policy_addressable",
    mechanismId: "artifact-never-written",
    interventionPoint: "stop",
    why: excerpt(
      `the run ended on a failed model response with ${named || "the deliverable"} never written; a stop rule that checks the deliverable exists would have sent the agent back`,
      400,
    ),
  };
}

function baseOf(p: string): string {
  return p.replace(/\/+$/, "").split("/").pop() ?? p;
}
