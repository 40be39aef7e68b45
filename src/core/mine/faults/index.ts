import { type Attempt, UNFINISHED_TRIAL } from "../../model/attempt.js";
import { destructiveAfterProbe } from "../detectors/destructive-after-probe.js";
import { WORKED_ELSEWHERE } from "../detectors/elsewhere.js";
import { evidenceMutated } from "../detectors/evidence-mutated.js";
import { killedItself } from "../detectors/own-kill.js";
import { isTimeout, verifierMissing } from "../detectors/paths.js";
import { strayArtifact } from "../detectors/stray-artifact.js";
import { emptyToolCalls } from "./empty-call.js";
import { environmentFault } from "./environment.js";
import {
  AGENT_EXIT,
  agentKilled,
  harnessLostTrial,
  harnessWithheldInput,
  KILLED_EXIT,
  neverStarted,
  providerErrorLastTurn,
  truncatedFinalResponse,
} from "./harness.js";
import { demandedNames, hiddenDemand } from "./hidden-demand.js";
import { corruptedFinalResponse, unparsedToolCall } from "./model-end.js";
import { modelStoppedAnswering, waitedOnTheModel } from "./model-wait.js";
import { exceptionFile, excerpt, type Fault, type FaultMarkers, resultFile } from "./types.js";
import { verifierFault } from "./verifier.js";

export {
  agentKilled,
  neverStarted,
  providerErrorLastTurn,
  type SecondReading,
  secondReadingOf,
  truncatedFinalResponse,
} from "./harness.js";
export type { Evidence, Fault, FaultMarkers, FaultReason } from "./types.js";
export { verifierDiedBeforeTests } from "./verifier.js";

/**
 * An exception type as its words: CamelCase parts, snake_case or dotted parts, each apart
 * (`LLMMalformedActionError` → `LLM Malformed Action Error`, `openai.APITimeoutError` →
 * `openai API Timeout Error`, `agent_installation_failed` → `agent installation failed`), so a
 * pattern names whole parts of a type, not a substring of one.
 */
function typeWords(type: string): string {
  return type
    .replace(/([a-z])(?=[A-Z])/g, "$1 ")
    .replace(/([A-Z\d])(?=[A-Z][a-z])/g, "$1 ")
    .replace(/[_.\-:]+/g, " ");
}

/**
 * Harbor (and similar) exception types that mean the infrastructure, not the agent, failed:
 * the container or the remote sandbox the trial runs in (Harbor's environment providers:
 * Docker, Daytona, Modal, E2B, Runloop), the network, the model provider, the setup. Read on
 * the type's words (`typeWords`).
 * An agent process that merely exited non-zero (`NonZeroAgentExitCodeError`) is not one by
 * its type: a kill (exit 137/143) is read from the exit status, a provider error from the
 * last turn, and the rest is the agent's own failure. A model that misbehaved
 * (`ModelBehaviorError`, `MODEL_OUTPUT`) is the agent's too: only a model that could not be
 * reached is not.
 */
const INFRA_EXCEPTION =
  /\b(?:Environment|Docker|Container|Sandbox|Daytona|Modal|E2B|Runloop|Setup|Provision\w*|Network|Connection|Provider|Rate Limit|API Error|Service Unavailable|Internal Server|Authentication|Bad Request|Upstream|Model Not \w+|(?:Model|LLM) Unavailable|LLM No Response|Quota|Overloaded|Install\w*|(?:Read|Connect|Request|API|Http) Timeout)\b/i;
/**
 * Exception types that say the model's own output failed: it was malformed, held no action,
 * or could not be parsed (`LLMMalformedActionError`, `LLMNoActionError`,
 * `OutputParserException`, `fatal_llm_parse_error`). The model misbehaved: the agent's.
 */
const MODEL_OUTPUT =
  /\b(?:Malformed|No Action|(?:Output|LLM|Model|Response|Completion|Action) Pars(?:er|e|ing))\b/i;
/**
 * A context overflow: the conversation outgrew the model's context. The agent's own run
 * filled it (a type that names it, `ContextWindowExceededError`, is no fault), so it is read
 * the same whatever the type is called: by its words, or by a message that says so
 * (a `BadRequestError` "This model's maximum context length is 128000 tokens").
 */
const CONTEXT_TYPE = /\bContext (?:Window|Length|Limit)\b/i;
const CONTEXT_MESSAGE =
  /maximum context length|\bcontext[ _](?:length|window)[ _](?:exceeded|is exceeded)|\bexceeds? (?:the )?(?:model'?s? )?(?:maximum )?context (?:length|window)|\bprompt is too long|\binput is too long for (?:the )?requested model|\binput token count[^.\n]{0,40}\bexceeds/i;
/**
 * A generic runtime error or cancellation the harness recorded as the trial's exception:
 * the harness's own code crashed or aborted the run (an agent's outcomes have named types:
 * time limits, context limits, exit codes).
 */
const HARNESS_CRASH =
  /^(?:Runtime|Attribute|Key|Type|Value|Index|Name|OS|IO|ProcessLookup|Lookup|BrokenPipe|Connection\w*|Cancelled|JSONDecode|Unicode\w*|NotImplemented|Assertion)Error$|^(?:CancelledError|KeyboardInterrupt|Exception)$/;
/**
 * Exception types of a grader that broke, read on the type's words. A test run that timed
 * out (TB1 `test_timeout`) is not one: the agent's program may be what hung, so such a run
 * stays the agent's to read.
 */
const VERIFIER_EXCEPTION = /\b(?:Verifier|Reward\w*|Grader|Judge|Parser)\b/i;
/** A type that names the grader itself (`VerifierOutputParseError`): never the model's output. */
const GRADER_NAMED = /\b(?:Verifier|Reward\w*|Grader|Judge)\b/i;

function exceptionFault(a: Attempt): Fault | undefined {
  const type = a.exception?.type;
  if (!type) return undefined;
  // the run ended inside the agent's own `pkill -f …`: the agent's doing, whatever the harness says
  if (killedItself(a)) return undefined;
  // no result record: the job was stopped (or the harness died) while the trial ran
  if (type === UNFINISHED_TRIAL)
    return {
      reason: "provider_fault",
      code: "trial-unfinished",
      detail:
        "the trial never ended: the harness recorded no result (its job was stopped mid-trial)",
      evidence: [
        {
          file: a.source.path,
          excerpt: excerpt(`${type}: ${a.exception?.message ?? "no result record"}`),
        },
      ],
    };
  const evidence = [
    {
      file: exceptionFile(a),
      excerpt: excerpt(`${type}${a.exception?.message ? `: ${a.exception.message}` : ""}`),
    },
  ];
  const words = typeWords(type);
  // the model's own output failed, or its context overflowed: the agent's, not a fault
  const ownModel =
    !GRADER_NAMED.test(words) && (MODEL_OUTPUT.test(words) || CONTEXT_TYPE.test(words));
  if (VERIFIER_EXCEPTION.test(words) && !/Agent/i.test(type) && !ownModel)
    return { reason: "verifier_fault", detail: `exception ${type}`, evidence };
  // an agent process the harness reports as ended by a signal (137 SIGKILL, 143 SIGTERM) with
  // no time limit reached and no kill of its own: something outside the agent stopped it
  const exit = /\bexit(?: code| status)?:? ?(-?\d+)\b/i.exec(a.exception?.message ?? "")?.[1];
  if (AGENT_EXIT.test(type) && KILLED_EXIT.has(Number(exit)) && !isTimeout(a))
    return {
      reason: "provider_fault",
      code: "agent-killed",
      detail: `the agent process was stopped by a signal (exit ${exit}) with no time limit reached`,
      evidence,
    };
  if (ownModel || CONTEXT_MESSAGE.test(a.exception?.message ?? "")) return undefined;
  if (INFRA_EXCEPTION.test(words) && !/^Agent(?:Execution)?Timeout/i.test(type))
    return {
      reason: "provider_fault",
      detail: `exception ${type}${a.exception?.message ? `: ${a.exception.message.slice(0, 120)}` : ""}`,
      evidence,
    };
  // with no agent step, whether the trial ever started says more (neverStarted)
  if (HARNESS_CRASH.test(type) && a.outcome !== "pass" && acted(a))
    return {
      reason: "provider_fault",
      code: "harness-exception",
      detail: `the harness stopped the run with ${type}${a.exception?.message ? `: ${a.exception.message.slice(0, 120)}` : ""}`,
      evidence,
    };
  return undefined;
}

/** Whether the agent did anything visible: a tool call or a non-empty message of its own. */
function acted(a: Attempt): boolean {
  return a.events.some(
    (e) =>
      e.kind === "tool_call" ||
      (e.kind === "message" &&
        e.role !== "user" &&
        e.role !== "system" &&
        /\S/.test(e.input ?? "")),
  );
}

function normalize(markers: readonly string[] | FaultMarkers): Required<FaultMarkers> {
  return Array.isArray(markers)
    ? { verifier: markers as readonly string[], environment: [] }
    : {
        verifier: (markers as FaultMarkers).verifier ?? [],
        environment: (markers as FaultMarkers).environment ?? [],
      };
}

/**
 * Classifies an attempt's outside fault from its own records (no labels needed), with the
 * file:line or event that shows it. Order: the agent process killed with no time limit
 * hit; a recorded exception; no actions at all (a trial that never started, a model that
 * answered nothing; kept in scope when the verifier names the missing deliverable); a
 * verifier / judge fault (one that died before running any test included); a cut-off or
 * failed final model response; an environment or provider fault; no verifier outcome.
 */
/**
 * An outcome the agent decided before its last turn: a working state destroyed with one tool
 * call (evidence opened read-write before a copy, a deployment cleaned up after a good
 * probe). A final turn cut off later explains a missing last step, not that. Work done outside
 * what the verifier graded is not such a state: the run ended on the provider (the fault),
 * and that work is the fault's second reading (`secondReadingOf`).
 */
function decidedBeforeTheEnd(a: Attempt): boolean {
  return [evidenceMutated, destructiveAfterProbe].some(
    (d) => d.detect(a, { siblings: [] }).length > 0,
  );
}

/**
 * A tool missing from the agent's host, or one the host cannot run, did not decide an outcome
 * the agent's own work decided: the verifier's failure names a file the agent itself left in
 * the graded folder (its own output was graded and failed), or all its work lay outside what
 * the verifier grades (a folder it never named, a copy it fetched itself). A provider that
 * failed the agent's turn is the run's end, whatever came before: that stays the fault.
 */
function decidedByItsOwnWork(a: Attempt, env: Fault): boolean {
  if (env.code !== "tool-unavailable" && env.code !== "host-cannot-run") return false;
  return [strayArtifact, ...WORKED_ELSEWHERE].some((d) => d.detect(a, { siblings: [] }).length > 0);
}

export function faultOf(
  a: Attempt,
  markers: readonly string[] | FaultMarkers = [],
): Fault | undefined {
  const m = normalize(markers);
  const killed = agentKilled(a);
  if (killed) return killed;
  const exc = exceptionFault(a);
  if (exc) return exc;
  const lost = harnessLostTrial(a, acted(a)) ?? harnessWithheldInput(a);
  if (lost) return lost;
  // the run ended on the model (a corrupted response, one that never came): with or
  // without actions before it
  const ended =
    corruptedFinalResponse(a) ??
    unparsedToolCall(a) ??
    waitedOnTheModel(a) ??
    modelStoppedAnswering(a);
  if (ended && !decidedBeforeTheEnd(a)) return ended;
  if (!acted(a)) {
    const never = neverStarted(a, resultFile(a));
    if (never) return never;
    // A recorded trajectory whose model answered nothing (0 output tokens) is a provider
    // fault; a log without actions (a run folder with no agent log) has nothing to mine.
    // Terminal-Bench 1 reports 0 tokens for agents it does not meter, so its 0 says nothing.
    if (a.tokens?.output === 0 && a.events.length > 0 && a.source.format !== "tb1-run")
      return {
        reason: "provider_fault",
        detail: "the agent's model produced no output (0 output tokens, no tool call, no message)",
        evidence: [{ file: resultFile(a), excerpt: "0 output tokens" }],
      };
    // the model's only answer was the provider's refusal (a quota, a credential, a 4xx/5xx):
    // the run never got a turn of its own to act in
    const refused = providerErrorLastTurn(a);
    if (refused) return refused;
    // A verifier that broke says more than an empty trace; one that names what is missing
    // is evidence enough to keep the failure for review.
    const broken = verifierFault(a, m.verifier);
    if (broken) return broken;
    const missing = verifierMissing(a);
    if (missing.paths.length === 0 && !missing.createdZero)
      return {
        reason: "no_actions",
        detail: "no actions recorded",
        evidence: [
          {
            file: a.source.path,
            excerpt: `${a.events.length} event(s), no tool call or agent message`,
          },
        ],
      };
  }
  const v = verifierFault(a, m.verifier);
  if (v) return v;
  const turn = truncatedFinalResponse(a) ?? providerErrorLastTurn(a) ?? emptyToolCalls(a);
  if (turn && !decidedBeforeTheEnd(a)) return turn;
  const env = environmentFault(a, m.environment);
  if (env && !decidedByItsOwnWork(a, env)) return env;
  if (a.outcome === "unknown")
    return {
      reason: "no_outcome",
      detail: "no verifier outcome",
      evidence: [{ file: resultFile(a), excerpt: "no reward / resolved flag" }],
    };
  return undefined;
}

/**
 * What `faultsOfAll` needs of one attempt, read while its events are at hand: its own fault
 * (`faultOf`, for an attempt that did not pass) and, for a scored failure without one, the
 * file names its failing assertions quote (`hiddenDemand`'s first reading). A streaming load
 * keeps these instead of the events.
 */
export interface FaultFacts {
  fault?: Fault;
  demands?: readonly string[];
}

export function faultFacts(a: Attempt, markers: readonly string[] | FaultMarkers = []): FaultFacts {
  if (a.outcome === "pass") return {};
  const fault = faultOf(a, markers);
  if (fault) return { fault };
  return a.outcome === "unknown" ? {} : { demands: demandedNames(a) };
}

/**
 * Every failed attempt's outside fault, by id: `faultOf` per attempt, then the faults only a
 * whole task shows (`hiddenDemand`, over the attempts of each task and arm none of which
 * passed, at least two scored). What the workspace index stores for triage, so a read from the
 * index never needs a verifier's output to decide scope (triage runs the same task rule when
 * it has no index). Attempts' own outcomes, not hand outcomes. `facts`: each attempt's
 * `faultFacts` when the caller read them already (undefined: read here).
 */
export function faultsOfAll(
  attempts: readonly Attempt[],
  markers: readonly string[] | FaultMarkers = [],
  facts: (a: Attempt) => FaultFacts | undefined = () => undefined,
): Map<string, Fault> {
  const out = new Map<string, Fault>();
  const known = new Map<Attempt, FaultFacts>();
  const factsOf = (a: Attempt): FaultFacts => {
    let f = known.get(a) ?? facts(a);
    if (!f) f = faultFacts(a, markers);
    known.set(a, f);
    return f;
  };
  const groups = new Map<string, Attempt[]>();
  for (const a of attempts) {
    const f = factsOf(a).fault;
    if (f) out.set(a.id, f);
    const key = `${a.taskId}\u0000${a.arm}`;
    const g = groups.get(key);
    if (g) g.push(a);
    else groups.set(key, [a]);
  }
  for (const g of groups.values()) {
    if (g.some((a) => a.outcome === "pass")) continue;
    if (g.filter((a) => a.outcome !== "unknown").length < 2) continue;
    const failed = g.filter((a) => !out.has(a.id) && a.outcome !== "unknown");
    const names = (a: Attempt) => factsOf(a).demands ?? demandedNames(a);
    for (const [id, f] of hiddenDemand(g, failed, names)) out.set(id, f);
  }
  return out;
}
